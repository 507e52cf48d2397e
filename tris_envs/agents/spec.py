"""Agent specs: the text that names an agent (``"mcts:300"``, ``"az:net.npz:0"``) as one
frozen, picklable value, parsed once where the text enters.

:data:`SPEC_TABLE` is the one list of the forms: :data:`AGENT_SPECS`, the command line's
help (:data:`AGENT_HELP`) and the web page's choices are made from it, and a test holds the
docs' list (``docs/agents.md``) to it.
:meth:`AgentSpec.parse` reads a spec's text, ``str(spec)`` writes it back, and
:func:`~tris_envs.agents.make_agent` builds the agent from the fields, never from text.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

from tris_envs.agents.alphabeta import MAX_PLIES
from tris_envs.agents.llm import (
    LLM_SETTINGS,
    LLMServer,
    check_llm_setting,
    llm_setting_text,
    read_llm_setting,
)
from tris_envs.agents.search_settings import (
    SPEC_SETTINGS,
    check_setting,
    read_setting,
    setting_text,
)
from tris_envs.core.errors import brief


@dataclass(frozen=True)
class SpecForm:
    """One line of the spec table: the forms it names and what they play.

    Attributes:
        forms: The forms as :data:`AGENT_SPECS` writes them (``"mcts:<simulations>"``).
        help: What the forms play, for ``--help`` and the web page.
    """

    forms: tuple[str, ...]
    help: str

    @property
    def label(self) -> str:
        """The forms as ``--help`` writes them: ``mcts:N, mcts:Ss``."""
        return ", ".join(form.replace("<simulations>", "N").replace("<plies>", "N")
                         .replace("<setting>=<value>", "SETTING=V")
                         .replace("<seconds>s", "Ss").replace("<path>", "PATH")
                         .replace("<model>", "MODEL")
                         for form in self.forms)


SPEC_TABLE = (
    SpecForm(("random",), "a uniformly random legal move"),
    SpecForm(("greedy",), "wins at once if it can, else avoids handing the opponent a win "
                          "in one, else random"),
    SpecForm(("mcts",), "Monte Carlo tree search, 1000 simulations per move"),
    SpecForm(("mcts:<simulations>", "mcts:<seconds>s"),
             "N simulations, or S seconds, per move (mcts:300, mcts:0.5s)"),
    SpecForm(("mcts:<simulations>:decisive", "mcts:<seconds>s:decisive"),
             "the same search, proving positions won in one move without a rollout"),
    SpecForm(("alphabeta",), "alpha-beta search, 4 plies deep"),
    SpecForm(("alphabeta:<plies>", "alphabeta:<seconds>s"),
             f"N plies (at most {MAX_PLIES}), or deepening within S seconds per move"),
    SpecForm(("solver",), "perfect play (Tris 1, Tant Fant, Doppia scelta)"),
    SpecForm(("ppo", "ppo:<path>"),
             "the shipped MaskablePPO policy of the game, or a trained .pt policy file "
             "(needs the train extra; a pickled SB3 .zip only with --trust-pickle)"),
    SpecForm(("az", "az:<simulations>"),
             "the shipped AlphaZero-style network with its search budget (100 simulations "
             "unless the network names another), or N (az:0: the network alone, no search)"),
    SpecForm(("az:<path>", "az:<path>:<simulations>"),
             "a trained network file (.npz), with its budget or N"),
    SpecForm(("az:<simulations>:<setting>=<value>", "az:<path>:<simulations>:<setting>=<value>"),
             "N simulations and one or more search settings over the network's "
             f"({', '.join(SPEC_SETTINGS)}): az:1600:exploration=0.6:batch=1"),
    SpecForm(("llm:<model>", "llm:<model>:<setting>=<value>"),
             "a language model over an OpenAI-compatible chat-completions server (the URL "
             "from --llm-url or OPENAI_BASE_URL, the key from --llm-key or OPENAI_API_KEY), "
             f"with settings ({', '.join(LLM_SETTINGS)}): llm:llama3.2:1b:retries=0"),
    SpecForm(("openspiel-mcts:<simulations>",),
             "OpenSpiel's Python MCTSBot, N simulations (openspiel extra)"),
    SpecForm(("openspiel-minimax:<plies>",), "OpenSpiel's alpha-beta / expectiminimax, N plies"),
)
"""Every agent spec form with what it plays, in the order ``--help`` lists them."""

AGENT_SPECS = tuple(form for row in SPEC_TABLE for form in row.forms)
"""The forms :func:`~tris_envs.agents.make_agent` accepts."""

FAMILIES = tuple(dict.fromkeys(form.split(":", 1)[0] for form in AGENT_SPECS))
"""The agent families, the part of a spec before its first ``:``."""

BARE = frozenset(form for form in AGENT_SPECS if ":" not in form)
"""The families written alone (their default budget)."""

PLUGIN_FAMILIES = frozenset(family for family in FAMILIES if family.startswith("openspiel-"))
"""The families built outside this package layer (:mod:`tris_envs.integrations`)."""


def _help_text() -> str:
    lines = ["agent specs:"]
    for row in SPEC_TABLE:
        words = _wrap(row.help, 58)
        if len(row.label) > 26:
            lines.append(f"  {row.label}")
        else:
            lines.append(f"  {row.label:<26}  {words.pop(0)}")
        lines.extend(" " * 30 + line for line in words)
    return "\n".join(lines)


def _wrap(text: str, width: int) -> list[str]:
    lines = [""]
    for word in text.split():
        if lines[-1] and len(lines[-1]) + 1 + len(word) > width:
            lines.append(word)
        else:
            lines[-1] = f"{lines[-1]} {word}" if lines[-1] else word
    return lines


AGENT_HELP = _help_text()
"""What ``tris-envs play``, ``eval`` and ``tournament`` print under ``--help``."""


def form_help(form: str) -> str:
    """The words of :data:`SPEC_TABLE` for ``form`` (one of :data:`AGENT_SPECS`)."""
    for row in SPEC_TABLE:
        if form in row.forms:
            return row.help
    raise ValueError(f"{brief(form)} is not one of the agent spec forms")


@dataclass(frozen=True)
class AgentSpec:
    """An agent, named: its family and its budget, checked when made.

    ``AgentSpec.parse("mcts:300")`` reads the text; ``str(spec)`` writes it back
    (``AgentSpec.parse(str(spec)) == spec``). A budget field left ``None`` is the agent's
    default. Picklable, hashable, comparable: what a match sends to its workers.
    ``trust_pickle`` and ``server`` are never in a text: a spec read from one trusts no
    pickle and names no server (an ``llm`` agent's server is the operator's:
    :meth:`~tris_envs.agents.llm.LLMServer.from_environment`).

    Where a value is a file, not a spec's text (``tris-envs evaluate FILE``, a recipe's
    networks), the spec is made from its fields, ``AgentSpec("az", path=...)``: its
    ``path`` may then be any file's (``:``, ``=``, spaces), where a text cannot name an
    ``az`` file holding ``:`` or reading as a budget; ``str(spec)`` is then its label, not a
    text to parse again.

    Attributes:
        family: One of :data:`FAMILIES` (``"mcts"``, ``"az"``, ``"openspiel-mcts"``).
        simulations: Per move (``mcts``, ``az`` where 0 is the network alone,
            ``openspiel-mcts``).
        seconds: A time budget per move (``mcts``, ``alphabeta``).
        plies: A search depth (``alphabeta``, at most ``MAX_PLIES``; ``openspiel-minimax``).
        decisive: MCTS's decisive-move check (``mcts`` with a budget).
        path: The file played (``ppo``, ``az``; ``None``: the shipped one), any path.
        settings: ``(name, value)`` pairs in the order written, each name once: ``az``'s
            search settings over its network's (names of
            :data:`~tris_envs.agents.search_settings.SPEC_SETTINGS`; needs
            ``simulations``), or an ``llm`` agent's (names of
            :data:`~tris_envs.agents.llm.LLM_SETTINGS`).
        trust_pickle: A ``ppo`` spec's agent also loads a pickled Stable-Baselines3 file
            (unpickling runs code from it): what ``--trust-pickle`` sets
            (:func:`~tris_envs.agents.ppo.trusted_specs`), carried to the match's workers
            with the spec.
        model: The language model's name on its server (``llm``; may hold ``:``, as
            Ollama's ``llama3.2:1b`` does).
        server: The server an ``llm`` agent asks (``None``: the one ``OPENAI_BASE_URL``
            names when the agent is made); set by the command that reads ``--llm-url``
            (:func:`served_specs`), never by a spec's text.

    Raises:
        ValueError: a field the family does not take, or a value out of range.
    """

    family: str
    simulations: int | None = None
    seconds: float | None = None
    plies: int | None = None
    decisive: bool = False
    path: str | None = None
    settings: tuple[tuple[str, bool | int | float | str], ...] = ()
    trust_pickle: bool = False
    model: str | None = None
    server: LLMServer | None = None

    def __post_init__(self) -> None:
        if self.family not in FAMILIES:
            raise ValueError(f"unknown agent family {brief(self.family)}; families: "
                             f"{', '.join(FAMILIES)}")
        takes = _TAKES[self.family]
        for name in ("simulations", "seconds", "plies", "path", "model"):
            if getattr(self, name) is not None and name not in takes:
                raise ValueError(f"agent spec {self.family}: takes no {name}")
        if not isinstance(self.decisive, bool) or (self.decisive and "decisive" not in takes):
            raise ValueError(f"agent spec {self.family}: decisive must be False here")
        least = 0 if self.family == "az" else 1
        for name, most in (("simulations", None), ("plies", MAX_PLIES)):
            value = getattr(self, name)
            if value is not None and (type(value) is not int or value < least
                                      or (most is not None and value > most)):
                top = f" and at most {most}" if most is not None else ""
                raise ValueError(f"agent spec {self.family}: {name}={brief(value)} must be an "
                                 f"integer >= {least}{top}")
        if self.seconds is not None and (type(self.seconds) not in (int, float)
                                         or not 0 < self.seconds < math.inf):
            raise ValueError(f"agent spec {self.family}: seconds={brief(self.seconds)} must "
                             "be a positive finite number")
        if self.family in ("mcts", "alphabeta") and self.seconds is not None and (
                self.simulations is not None or self.plies is not None):
            raise ValueError(f"agent spec {self.family}: a count or seconds, not both")
        if self.decisive and self.simulations is None and self.seconds is None:
            raise ValueError("agent spec mcts: decisive needs a budget "
                             "(mcts:<simulations>:decisive or mcts:<seconds>s:decisive)")
        if self.family in PLUGIN_FAMILIES and self.simulations is None and self.plies is None:
            count = "simulations" if self.family == "openspiel-mcts" else "plies"
            raise ValueError(f"agent spec {self.family}: needs its {count}")
        if self.path is not None:
            if not isinstance(self.path, str) or not self.path:
                raise ValueError(f"agent spec {self.family}: path={brief(self.path)} must be "
                                 "a non-empty string")
        if self.family == "llm":
            self._check_model()
        if self.settings:
            self._check_settings()
        if not isinstance(self.trust_pickle, bool) or (self.trust_pickle
                                                       and self.family != "ppo"):
            raise ValueError(f"agent spec {self.family}: trust_pickle={brief(self.trust_pickle)} "
                             "must be False here (True only for a ppo spec)")
        if self.server is not None and (self.family != "llm"
                                        or not isinstance(self.server, LLMServer)):
            raise ValueError(f"agent spec {self.family}: server must be None here (an "
                             "LLMServer only for an llm spec)")

    def _check_model(self) -> None:
        """An ``llm`` spec's model: a name its text writes back (no space, no
        ``:<name>=<value>`` part that would read as a setting)."""
        model = self.model
        if not isinstance(model, str) or not model or not model.isprintable() \
                or any(ch.isspace() for ch in model) or len(model) > 256:
            raise ValueError(f"agent spec llm: the model {brief(model)} must be its name on "
                             "the server (printable, no spaces, at most 256 characters)")
        if any(_setting_part(part) for part in model.split(":")):
            raise ValueError(f"agent spec llm: the model {brief(model)} holds what reads as "
                             "a setting (:<name>=<value>); settings come last, and a spec "
                             "never names the server (--llm-url)")

    def _check_settings(self) -> None:
        """``settings``' pairs: ``az`` with a budget or ``llm``, known names once, values in
        range."""
        if self.family not in ("az", "llm") or (self.family == "az"
                                                 and self.simulations is None):
            raise ValueError(f"agent spec {self.family}: settings are an llm spec's, or an az "
                             "spec's after its budget (az:<simulations>:<setting>=<value>)")
        if not isinstance(self.settings, tuple) or not all(
                isinstance(pair, tuple) and len(pair) == 2 for pair in self.settings):
            raise ValueError(f"agent spec {self.family}: settings={brief(self.settings)} must "
                             "be a tuple of (name, value) pairs")
        names = [name for name, _ in self.settings]
        check = check_setting if self.family == "az" else check_llm_setting
        for name, value in self.settings:
            if names.count(name) > 1:
                raise ValueError(f"agent spec {self.family}: the setting {brief(name)} is set "
                                 "twice")
            check(name, value)

    @classmethod
    def parse(cls, text: str) -> AgentSpec:
        """The spec ``text`` names (one of :data:`AGENT_SPECS`).

        Raises:
            ValueError: text not of these forms, in one line listing them.
        """
        if not isinstance(text, str):
            raise _unknown(text)
        if text in BARE:
            return cls(text)
        family, _, rest = text.partition(":")
        if family == "mcts":
            decisive = rest.endswith(":decisive")
            budget = rest.removesuffix(":decisive")
            count, seconds = _count(budget), _seconds(budget)
            if count is not None or seconds is not None:
                return cls("mcts", simulations=count, seconds=seconds, decisive=decisive)
        elif family == "alphabeta":
            count, seconds = _count(rest), _seconds(rest)
            if (count is not None and count <= MAX_PLIES) or seconds is not None:
                return cls("alphabeta", plies=count, seconds=seconds)
        elif family == "ppo" and rest:
            return cls("ppo", path=rest)
        elif family == "az":
            head, settings = _az_settings(text)
            path, simulations = _az_parts(head)
            if settings and simulations is None:
                raise ValueError(f"agent spec {brief(text)}: search settings follow a budget "
                                 "(az:<simulations>:<setting>=<value>)")
            return cls("az", simulations=simulations, path=path, settings=settings)
        elif family == "llm":
            model, told = _llm_settings(rest)
            if model:
                return cls("llm", model=model, settings=told)
        elif family in PLUGIN_FAMILIES:
            count = _count(rest)
            if count is not None and family == "openspiel-mcts":
                return cls(family, simulations=count)
            if count is not None:
                return cls(family, plies=count)
        raise _unknown(text)

    def __str__(self) -> str:
        parts = [self.family]
        if self.model is not None:
            parts.append(self.model)
        if self.path is not None:
            parts.append(self.path)
        for count in (self.simulations, self.plies):
            if count is not None:
                parts.append(str(count))
        if self.seconds is not None:
            parts.append(_seconds_text(self.seconds) + "s")
        if self.decisive:
            parts.append("decisive")
        text = llm_setting_text if self.family == "llm" else setting_text
        parts.extend(f"{name}={text(value)}" for name, value in self.settings)
        return ":".join(parts)

    @property
    def file(self) -> str | None:
        """The file the spec names (``ppo:<path>``, ``az:<path>``), as written."""
        return self.path


def served_specs(specs: Iterable[AgentSpec], server: LLMServer) -> list[AgentSpec]:
    """``specs`` with each ``llm`` spec's agent asking ``server`` (:attr:`AgentSpec.server`:
    what ``--llm-url`` and ``--llm-key`` name); the others as they are."""
    return [dataclasses.replace(spec, server=server) if spec.family == "llm" else spec
            for spec in specs]


_TAKES: dict[str, frozenset[str]] = {
    "random": frozenset(), "greedy": frozenset(), "solver": frozenset(),
    "mcts": frozenset({"simulations", "seconds", "decisive"}),
    "alphabeta": frozenset({"plies", "seconds"}),
    "ppo": frozenset({"path"}), "az": frozenset({"simulations", "path"}),
    "openspiel-mcts": frozenset({"simulations"}), "openspiel-minimax": frozenset({"plies"}),
    "llm": frozenset({"model"}),
}
"""The fields each family takes."""


def _unknown(text: object) -> ValueError:
    allowed = ", ".join(row.label for row in SPEC_TABLE)
    return ValueError(f"unknown agent spec {brief(text)}; allowed: {allowed} "
                      "(e.g. 'mcts:1000', 'mcts:0.5s', 'alphabeta:4', "
                      "'ppo:runs/tant_fant/final.pt')")


def _az_settings(spec: str) -> tuple[str, tuple[tuple[str, bool | int | float], ...]]:
    """An ``az`` spec without its trailing ``<setting>=<value>`` parts, and those parts
    read. A part is a setting where its name is one of
    :data:`~tris_envs.agents.search_settings.SPEC_SETTINGS` (a file's name may hold ``=``:
    ``az_tant_fant__repetition_draw=True.npz``).

    Raises:
        ValueError: a setting's value that is not one of that setting (one line).
    """
    parts = spec.split(":")
    settings: list[tuple[str, bool | int | float]] = []
    while len(parts) > 1 and parts[-1].partition("=")[0] in SPEC_SETTINGS \
            and "=" in parts[-1]:
        name, _, text = parts.pop().partition("=")
        settings.insert(0, (name, read_setting(name, text)))
    return ":".join(parts), tuple(settings)


def _setting_part(part: str) -> bool:
    """Whether a spec's part reads as a setting: ``<name>=<value>``, the name a word."""
    name, equals, _ = part.partition("=")
    return bool(equals) and name.isidentifier()


def _llm_settings(rest: str) -> tuple[str, tuple[tuple[str, int | float | str], ...]]:
    """An ``llm`` spec's model (the text after ``llm:``, less its trailing settings) and
    those settings read: each trailing ``:<name>=<value>`` part is one; the model may hold
    ``:`` (``llama3.2:1b``).

    Raises:
        ValueError: a trailing part naming no setting of an llm agent, or a bad value (one
            line).
    """
    parts = rest.split(":")
    settings: list[tuple[str, int | float | str]] = []
    while len(parts) > 1 and _setting_part(parts[-1]):
        name, _, text = parts.pop().partition("=")
        settings.insert(0, (name, read_llm_setting(name, text)))
    return ":".join(parts), tuple(settings)


def _az_parts(spec: str) -> tuple[str | None, int | None]:
    """An ``az`` spec's network file (``None``: the shipped one) and search budget
    (``None``: the network's); ``ValueError`` for a malformed one."""
    rest = spec[len("az:"):] if spec != "az" else ""
    path, _, budget = rest.rpartition(":")
    if not path and _count(budget) is None and budget != "0":
        path, budget = budget, ""           # az:<path> without a budget
    simulations = 0 if budget == "0" else _count(budget) if budget else None
    if ((budget and simulations is None) or (spec != "az" and not rest)
            or (":" in rest and not path) or _is_number(path)):
        raise ValueError(f"unknown agent spec {brief(spec)}: use az, az:<simulations>, "
                         "az:<path> or az:<path>:<simulations>, then any "
                         ":<setting>=<value> after a budget")
    if ":" in path:
        raise ValueError(f"agent spec {brief(spec)}: the file {brief(path)} cannot be named "
                         "in an az spec (it holds ':'); tris-envs evaluate takes it as its "
                         "FILE")
    return path or None, simulations


def _is_number(text: str) -> bool:
    return re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", text) is not None


def _count(text: str) -> int | None:
    """``"300"`` -> 300; ``None`` unless a positive integer in plain ASCII digits."""
    if not text.isascii() or not text.isdigit() or text.startswith("0"):
        return None
    return int(text)


def _seconds(text: str) -> float | None:
    """``"0.5s"`` -> 0.5; ``None`` unless a positive finite number followed by ``s``."""
    if not text.endswith("s"):
        return None
    try:
        seconds = float(text[:-1])
    except ValueError:
        return None
    return seconds if 0 < seconds < math.inf else None


def _seconds_text(seconds: float) -> str:
    """``0.5`` -> ``"0.5"``: the shortest text that reads back as ``seconds``."""
    short = f"{seconds:g}"
    return short if float(short) == seconds else repr(float(seconds))
