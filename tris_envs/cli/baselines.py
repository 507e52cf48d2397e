"""``tris-envs baselines``: every model-free learner trained on every game at one budget and
played against the ladder, into one resumable table (see :mod:`tris_envs.baselines`)."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Any

from tris_envs import baselines
from tris_envs.cli.arguments import QUIET_HELP, at_least
from tris_envs.durable import Terminated, sigterm_as_interrupt

PROG = "tris-envs baselines"


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    names = ", ".join(learner.name for learner in baselines.LEARNERS)
    parser = subparsers.add_parser(
        "baselines", help="train every model-free learner on every game, score them against "
                          "the ladder: one table (docs/baselines.md)",
        description="Train each model-free learner (the RL libraries' recipes and tris-envs "
                    "train ppo) on each game for the same number of learner steps, then play "
                    "it against random, greedy, mcts:100 and the solver where the game has "
                    "one; the table (baselines.json, baselines.md) is written after every "
                    "cell, and --resume runs only the cells it lacks.")
    parser.add_argument("--learners", default=None, metavar="NAMES",
                        help=f"comma-separated learners (default all: {names})")
    parser.add_argument("--game", default=None, metavar="GAMES",
                        help="comma-separated games (default "
                             f"{','.join(baselines.GAME_ORDER)}; with --quick "
                             f"{','.join(baselines.QUICK_GAME_NAMES)})")
    parser.add_argument("--budget", type=at_least(1), default=None, metavar="STEPS",
                        help="learner steps per cell, the same for every learner and game: "
                             "the moves the learning policy makes in its training games "
                             f"(default {baselines.BUDGET:,}; with --quick "
                             f"{baselines.QUICK_BUDGET})")
    parser.add_argument("--games", type=at_least(1), default=None, metavar="N",
                        help="games per opponent, seats alternating (default "
                             f"{baselines.GAMES_PER_OPPONENT}; with --quick "
                             f"{baselines.QUICK_GAMES})")
    parser.add_argument("--seed", type=at_least(0), default=None,
                        help="training and match seed (default 0)")
    parser.add_argument("--out", type=Path, default=Path("docs/results/baselines"),
                        help="the table's folder (default docs/results/baselines)")
    parser.add_argument("--resume", action="store_true",
                        help="continue the table in --out: run only the cells it lacks (or "
                             "that failed or could not run), with its budget, games and seed")
    parser.add_argument("--force", action="store_true",
                        help="start the table in --out again (without --resume or --force "
                             "an existing table is refused)")
    parser.add_argument("--processes", type=at_least(1), default=1,
                        help="cells trained at once, each a process (default 1)")
    parser.add_argument("--quick", action="store_true",
                        help=f"the smoke run: {baselines.QUICK_BUDGET} steps per cell, "
                             f"{baselines.QUICK_GAMES} games per opponent, on "
                             f"{' and '.join(baselines.QUICK_GAME_NAMES)}")
    parser.add_argument("--quiet", action="store_true", help=QUIET_HELP)
    return parser


def run(args: argparse.Namespace) -> int:
    """Fill the table; 0 when every cell is done or could not run (its row says why), 1 when
    one failed, 2 on a bad value or an unusable ``--out``, 130 (Ctrl-C) or 143 (SIGTERM)
    once the running cells are stopped."""
    command = shlex.join(["tris-envs", "baselines", *_given(args)])
    try:
        with sigterm_as_interrupt():
            cells = _filled(args, command)
    except (ValueError, OSError) as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as interrupt:
        print(f"\n{PROG}: interrupted; the finished cells are in {args.out / baselines.TABLE}: "
              f"{PROG} --resume --out {args.out} runs the others", file=sys.stderr)
        return 143 if isinstance(interrupt, Terminated) else 130
    failed = sum(cell["status"] == "failed" for cell in cells)
    print(f"{sum(cell['status'] == 'done' for cell in cells)} cells done, "
          f"{sum(cell['status'] == 'not run' for cell in cells)} not run, {failed} failed: "
          f"{args.out / baselines.MARKDOWN}")
    return 1 if failed else 0


def _filled(args: argparse.Namespace, command: str) -> list[dict[str, Any]]:
    """Fill the table ``args`` ask for; the records of the cells they select."""
    learners = baselines.learners_named(args.learners)
    settings = baselines.Settings(
        budget=args.budget or (baselines.QUICK_BUDGET if args.quick else baselines.BUDGET),
        games=args.games or (baselines.QUICK_GAMES if args.quick
                             else baselines.GAMES_PER_OPPONENT),
        seed=0 if args.seed is None else args.seed, quick=args.quick)
    given = {"budget": args.budget is not None, "games": args.games is not None,
             "seed": args.seed is not None, "quick": args.quick}
    table = baselines.open_table(args.out, settings, given, args.resume, args.force)
    games = baselines.games_named(args.game, table.settings.quick)
    absent = baselines.absent_scripts(learners)
    if absent:
        print(f"{PROG}: the learner scripts in examples/ come with a checkout of the "
              "repository, not with the wheel: "
              f"{', '.join(learner.name for learner in absent)} will not run here",
              file=sys.stderr)
    baselines.run(learners, games, table, args.out, command, args.processes, args.quiet)
    return [table.cells[(learner.name, game)] for learner in learners for game in games]


def _given(args: argparse.Namespace) -> list[str]:
    """The flags of ``args``, for the table's provenance."""
    flags = []
    for name in ("learners", "game", "budget", "games", "seed", "out", "processes"):
        value = getattr(args, name)
        if value is not None:
            flags += [f"--{name}", str(value)]
    flags += [f"--{name}" for name in ("resume", "force", "quick", "quiet")
              if getattr(args, name)]
    return flags
