"""What several subcommands declare alike: argument types, help texts, ``--trust-pickle``,
``--llm-url`` and ``--llm-key``, the journal's flags and the extras a command needs."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tris_envs.agents.llm import KEY_VARIABLE, URL_VARIABLE, LLMServer
from tris_envs.agents.ppo import BOARD_NETWORK
from tris_envs.agents.spec import AGENT_HELP, PLUGIN_FAMILIES, AgentSpec, served_specs
from tris_envs.core.errors import brief
from tris_envs.extras import require
from tris_envs.games import GAMES as REGISTRY

GAMES = list(REGISTRY)
"""The game names the commands take."""

GAME_HELP = f"one of {', '.join(GAMES)}"
OPTION_HELP = "game option name=value (repeatable), e.g. --option stalemate=loss"
RAY_HELP = ("play the games on a Ray cluster: the one at ADDRESS (e.g. auto, 10.0.0.5:6379), "
            "without ADDRESS the one Ray finds or a new local one (needs "
            "tris_envs[distributed]; docs/distributed.md)")
METRICS_HELP = ("also each agent's blunder and missed-win rates (games without dice) and its "
                "value-keeping moves where a solver exists, over all its games; for an llm "
                "agent its illegal replies, failed requests, retries, forfeits, tokens and "
                "seconds a move; then each agent's results by seat with the move each "
                "decided game ended on, and by the solved value of each start where a "
                "solver exists")
QUIET_HELP = "no progress bar (it shows only when standard error is a terminal)"
PROCESSES_HELP = ("worker processes (default 1); capped at the number of games and of CPUs, "
                  "with a note when capped")
TRUST_PICKLE_HELP = ("also load the pickled PPO files (a Stable-Baselines3 .zip, a .pt of "
                     "policy.save) named on this command line: unpickling runs code from the "
                     "file, so give it only for files you trust")
"""The help of ``--trust-pickle``."""

WITH_AGENTS: dict[str, Any] = {"epilog": AGENT_HELP,
                               "formatter_class": argparse.RawDescriptionHelpFormatter}
"""The keywords of a subcommand's parser whose help ends with the agent specs."""


def at_least(least: int) -> Callable[[str], int]:
    """An argparse ``type``: an integer of at least ``least`` (argparse names the option)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < least:
            raise argparse.ArgumentTypeError(f"must be an integer >= {least}, got {brief(text)}")
        return value

    parse.__name__ = f"integer >= {least}"
    return parse


def agent_spec(text: str) -> AgentSpec:
    """An argparse ``type``: an agent spec, parsed once where the command line is read."""
    try:
        return AgentSpec.parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


@dataclass(frozen=True)
class Need:
    """An extra a command needs: always, or when ``when(args)`` is true.

    Attributes:
        extra: The extra (:data:`tris_envs.extras.EXTRA_MODULES`).
        what: What needs it, as the error line names it (``"this command"``, ``"--ray"``).
        when: Whether these arguments need it; ``None``: always.
    """

    extra: str
    what: str
    when: Callable[[argparse.Namespace], bool] | None = None


def needs_extra(parser: argparse.ArgumentParser, extra: str, what: str = "this command",
                when: Callable[[argparse.Namespace], bool] | None = None) -> None:
    """Declare that ``parser``'s command needs ``extra`` (where ``when(args)``):
    :func:`check_extras` checks it before the command runs."""
    declared = parser.get_default("needs") or ()
    parser.set_defaults(needs=(*declared, Need(extra, what, when)))


def check_extras(args: argparse.Namespace) -> None:
    """Return if every extra the command line ``args`` needs is installed: the extras its
    command declares (:func:`needs_extra`) and those of the agents it names (OpenSpiel's
    agents, a PPO policy file that is not a board network).

    Raises:
        tris_envs.extras.MissingExtra: one is missing (one line naming it).
    """
    for need in getattr(args, "needs", ()):
        if need.when is None or need.when(args):
            require(need.extra, need.what)
    for value in vars(args).values():
        for spec in value if isinstance(value, (list, tuple)) else (value,):
            if isinstance(spec, AgentSpec):
                extra = _extra_of(spec)
                if extra is not None:
                    require(extra, f"the agent {spec}")


def _extra_of(spec: AgentSpec) -> str | None:
    """The extra ``spec``'s agent needs whatever the game: OpenSpiel's agents the
    ``openspiel`` extra, a PPO policy file other than a board network (``.npz``) the
    ``train`` extra; else ``None``."""
    if spec.family in PLUGIN_FAMILIES:
        return "openspiel"
    if spec.family == "ppo" and spec.path is not None and Path(spec.path).suffix != BOARD_NETWORK:
        return "train"
    return None


def add_trust_pickle_argument(parser: argparse.ArgumentParser) -> None:
    """``--trust-pickle`` on ``parser`` (``tris-envs evaluate``, ``eval``, ``tournament``,
    ``play``): see :func:`tris_envs.agents.ppo.trusted_specs`."""
    parser.add_argument("--trust-pickle", action="store_true", help=TRUST_PICKLE_HELP)


def add_llm_arguments(parser: argparse.ArgumentParser) -> None:
    """``--llm-url`` and ``--llm-key`` on ``parser`` (``eval``, ``tournament``, ``play``):
    the server the ``llm`` agents ask (:func:`served`)."""
    parser.add_argument("--llm-url", metavar="URL",
                        help="the OpenAI-compatible server the llm agents ask, up to "
                             "/chat/completions (Ollama: http://127.0.0.1:11434/v1; "
                             f"default: {URL_VARIABLE})")
    parser.add_argument("--llm-key", metavar="KEY",
                        help=f"the server's API key (default: {KEY_VARIABLE}, which keeps it "
                             "out of the process list); sent as Authorization: Bearer, "
                             "never written to a file")


def served(args: argparse.Namespace, specs: list[AgentSpec]) -> list[AgentSpec]:
    """``specs`` with their ``llm`` agents asking the server of ``--llm-url`` and
    ``--llm-key`` (else of ``OPENAI_BASE_URL`` and ``OPENAI_API_KEY``).

    Raises:
        ValueError: an ``llm`` spec and no URL, or a bad one (one line naming the flag).
    """
    if not any(spec.family == "llm" for spec in specs):
        return specs
    return served_specs(specs, LLMServer.from_environment(args.llm_url, args.llm_key))


def add_journal_arguments(parser: argparse.ArgumentParser) -> None:
    """``--records``, ``--resume`` and ``--force`` of ``eval`` and ``tournament``."""
    parser.add_argument("--records", metavar="FILE",
                        help="write each finished game, with its moves, to FILE (JSON "
                             "lines) as it ends (tris-envs replay shows them); without it a "
                             "temporary file keeps the results and is removed at the end")
    parser.add_argument("--resume", action="store_true",
                        help="continue the interrupted run whose --records FILE is given")
    parser.add_argument("--force", action="store_true",
                        help="overwrite an existing --records FILE (without --resume or "
                             "--force an existing file is refused)")


def add_match_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags ``eval`` and ``tournament`` share after ``--seed``: ``--processes``,
    ``--ray``; then (after ``tournament``'s ``--heatmap``) :func:`add_match_tail`."""
    parser.add_argument("--processes", type=int, default=1, help=PROCESSES_HELP)
    parser.add_argument("--ray", nargs="?", const=True, default=False, metavar="ADDRESS",
                        help=RAY_HELP)
    needs_extra(parser, "distributed", "--ray", lambda args: args.ray is not False)


def add_match_tail(parser: argparse.ArgumentParser) -> None:
    """``--option``, ``--metrics``, ``--quiet``, the journal's flags, ``--trust-pickle``,
    ``--llm-url`` and ``--llm-key`` of ``eval`` and ``tournament``."""
    parser.add_argument("--option", action="append", help=OPTION_HELP)
    parser.add_argument("--metrics", action="store_true", help=METRICS_HELP)
    parser.add_argument("--quiet", action="store_true", help=QUIET_HELP)
    add_journal_arguments(parser)
    add_trust_pickle_argument(parser)
    add_llm_arguments(parser)
