"""The ``tris-envs`` command line: one parser tree, one module per subcommand (each with
``add_parser(subparsers)`` and ``run(args)``): play, eval, tournament, replay, bench, train,
evaluate, baselines, watch, serve."""

from __future__ import annotations

import argparse
from typing import Any

import tris_envs
from tris_envs.cli import (
    baselines,
    bench,
    evaluate,
    play,
    replay,
    serve,
    tournament,
    train,
    watch,
)
from tris_envs.cli import eval as eval_match
from tris_envs.cli.arguments import GAMES, check_extras
from tris_envs.cli.matches import journal_note
from tris_envs.core.options import parse_options
from tris_envs.durable import Terminated, sigterm_as_interrupt
from tris_envs.extras import MissingExtra

__all__ = ["GAMES", "main", "parse_options", "parser"]

COMMANDS = {"play": play, "eval": eval_match, "tournament": tournament, "replay": replay,
            "bench": bench, "train": train, "evaluate": evaluate, "baselines": baselines,
            "watch": watch, "serve": serve}
"""Each subcommand's module, in the order ``tris-envs --help`` lists them."""

SELF_REPORTING = ("train", "evaluate", "baselines")
"""The subcommands whose ``run`` prints its own error line and returns the exit status."""


class _Version(argparse.Action):
    """``--version``: the installed package's version."""

    def __init__(self, option_strings: list[str], dest: str, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        print(f"{parser.prog} {tris_envs.__version__}")
        parser.exit()


def parser() -> argparse.ArgumentParser:
    """The whole command line: ``tris-envs`` and every subcommand's arguments."""
    top = argparse.ArgumentParser(
        prog="tris-envs", description="Play, evaluate and benchmark the tris_envs games.",
        epilog="tris-envs COMMAND --help describes a command; make demo (in a checkout) "
               "trains an agent.")
    top.add_argument("--version", action=_Version, help="print the version and exit")
    subparsers = top.add_subparsers(dest="command", required=True)
    for module in COMMANDS.values():
        module.add_parser(subparsers)
    top.set_defaults(parser=top)          # bench refuses its values as argparse does
    return top


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``tris-envs``; user errors end with a message, never a traceback.

    Returns:
        The exit status: 0 on success. A usage error exits with 2 (argparse's
        ``SystemExit``), as does a bad value, file or missing extra; Ctrl-C exits with 130.
        A missing extra the command needs (:func:`~tris_envs.cli.arguments.check_extras`)
        is named before the command runs, so it writes nothing.
    """
    tree = parser()
    args = tree.parse_args(argv)
    command = COMMANDS[args.command]
    try:
        check_extras(args)
    except MissingExtra as error:
        tree.exit(2, f"{getattr(args, 'prog', f'tris-envs {args.command}')}: error: {error}\n")
    if args.command in SELF_REPORTING:
        status: int = command.run(args)
        return status
    with sigterm_as_interrupt():      # raised like Ctrl-C: worker pools stop on the way out
        try:
            command.run(args)
        except ChildProcessError as error:      # a match's worker died: the journal is kept
            tree.exit(1, f"tris-envs {args.command}: error: {error}{journal_note(args)}\n")
        except (ValueError, OSError, ImportError) as error:
            tree.exit(2, f"tris-envs {args.command}: error: {error}\n")
        except KeyboardInterrupt as interrupt:
            status = 143 if isinstance(interrupt, Terminated) else 130
            tree.exit(status, f"\ntris-envs {args.command}: interrupted{journal_note(args)}\n")
    return 0

