"""What ``eval`` and ``tournament`` share when they run: the game, the journal of finished
games, and the metrics printed after the table."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from tris_envs.core.game import Game
from tris_envs.core.options import parse_options
from tris_envs.evaluation import pool_size
from tris_envs.evaluation.journal import JournalWriteError
from tris_envs.evaluation.metrics import llm_usages, move_qualities, outcomes
from tris_envs.evaluation.records import GameRecord
from tris_envs.games import make_game
from tris_envs.machine import usable_cpus


def match_game(args: argparse.Namespace) -> Game:
    """The game of an ``eval`` / ``tournament`` run, with its ``--option`` values."""
    return make_game(args.game, **parse_options(args.option))


def print_metrics(game: Game, names: Sequence[str], records: Sequence[GameRecord]) -> None:
    """One line per agent: :func:`~tris_envs.evaluation.metrics.move_quality` over
    ``records`` (each agent judged on the games it played; in a game without dice, else a
    line saying why not); one per agent that asked a language model for its moves
    (:func:`~tris_envs.evaluation.metrics.llm_usages`); then each agent's
    :func:`~tris_envs.evaluation.metrics.outcomes`."""
    if game.info.deterministic:
        for name, quality in move_qualities(game, records, names).items():
            print(f"{name}: {quality}")
    else:
        print(f"move quality: {game.info.name} has dice; blunders and missed wins are defined "
              "for games without dice")
    for name, usage in llm_usages(records, names).items():
        print(f"{name} requests: {usage}")
    for name in names:
        for line in outcomes(game, records, name).lines(name):
            print(line)


STOPS = (KeyboardInterrupt, ChildProcessError, JournalWriteError)
"""What stops a match with its finished games kept: Ctrl-C or SIGTERM, a worker process
that died (killed, out of memory), a journal that cannot take the next game (a full disk).
The journal, a temporary one too, stays, and the error line names it and how to resume
(:func:`journal_note`, or the :class:`JournalWriteError`'s own words)."""


@contextlib.contextmanager
def journal(args: argparse.Namespace, games: int) -> Iterator[Path]:
    """The journal file of an ``eval`` / ``tournament`` run (a temporary one unless
    ``--records`` names one, removed unless the run stopped with its games kept:
    :data:`STOPS`); notes a capped pool."""
    if args.resume and not args.records:
        raise ValueError("--resume needs --records FILE (the file the interrupted run named)")
    if args.resume and args.force:
        raise ValueError("--resume continues --records FILE and --force overwrites it: "
                         "give one of them")
    pool = pool_size(args.processes, games)
    if args.processes > 1 and pool < args.processes:
        print(f"note: --processes {args.processes} capped at {pool} (games: {games}, "
              f"CPUs: {usable_cpus()})", file=sys.stderr)
    if args.records:
        args.journal = Path(args.records)
    else:
        handle, name = tempfile.mkstemp(prefix=f"tris-envs-{args.command}-", suffix=".jsonl")
        os.close(handle)
        args.journal = Path(name)
    interrupted = False
    try:
        yield args.journal
    except STOPS:
        # the note on stderr (the error) tells where the finished games are; a temporary
        # journal without even its header line holds nothing to resume
        interrupted = bool(args.records) or _holds_header(args.journal)
        raise
    finally:
        if not args.records and not interrupted:
            args.journal.unlink(missing_ok=True)


def journal_note(args: argparse.Namespace) -> str:
    """The end of the interrupted line: where the finished games are and how to resume
    (empty where the run kept no journal)."""
    path = getattr(args, "journal", None)
    if path is None or not _holds_header(Path(path)):
        return ""
    games = max(0, len(Path(path).read_text().splitlines()) - 1)
    resume = "" if args.records else f" --records {path}"
    return (f"; the {games} finished games are in {path}: run the same command with"
            f"{resume} --resume to continue")


def _holds_header(path: Path) -> bool:
    try:
        with path.open("rb") as file:
            return file.readline().endswith(b"\n")
    except OSError:
        return False
