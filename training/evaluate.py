"""Score a MaskablePPO checkpoint against the baselines, both seats, and judge its moves.

Usage::

    python training/evaluate.py runs/tant_fant/final.zip --game tant_fant
    python training/evaluate.py best.zip --game tris1 --games 400 \\
        --opponents random,greedy,mcts:100,solver --seed 7 --processes 2

Every opponent plays ``--games`` games against the checkpoint with
:func:`tris_envs.evaluation.play_match` (seats alternating, the checkpoint first in even
games; the same seed gives the same games). The checkpoint plays its most probable legal
move unless ``--stochastic``. Where the game has an exact solver (``GameSpec.solvable``:
Tant Fant, Tris 1, Doppia scelta) the table also gives the share of the checkpoint's moves
that keep the solver's game value (``Solution.optimal_actions``) over the positions it
reached in these games (``--no-judge`` skips it), and the solver's own score against the
solver in the same games, the reference a perfect player would reach. ``--targets`` checks
the results against the game's training targets
(:data:`tris_envs.training.targets.TARGETS`). Game options come from
``--config`` (a training TOML or the ``config.json`` a run writes), else the game's defaults.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from tris_envs.agents import make_agent
from tris_envs.evaluation.checkpoint import (
    evaluate_checkpoint,
    format_table,
    solver_reference,
)
from tris_envs.games import GAMES, make_game
from tris_envs.training.config import game_options_from
from tris_envs.training.targets import (
    check_targets,
    target_report,  # noqa: F401  (still imported from here by tests/test_shipped_policies.py)
)

DEFAULT_OPPONENTS = ("random", "greedy", "mcts:100", "solver")


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(
        prog="evaluate.py", description="Score a MaskablePPO checkpoint against baselines.")
    parser.add_argument("checkpoint", type=Path,
                        help="a MaskablePPO zip or a .pt policy (e.g. tris_envs/checkpoints/"
                             "tant_fant.pt)")
    parser.add_argument("--game", required=True, help="game name, e.g. tant_fant")
    parser.add_argument("--games", type=int, default=200,
                        help="games per opponent, seats alternating (default 200)")
    parser.add_argument("--opponents", default=None,
                        help="comma-separated agent specs (default random,greedy,mcts:100 "
                             "and solver where the game has one)")
    parser.add_argument("--seed", type=int, default=0, help="match seed (default 0)")
    parser.add_argument("--processes", type=int, default=1, help="worker processes")
    parser.add_argument("--config", type=Path, default=None,
                        help="training config (.toml) or a run's config.json, for game "
                             "options")
    parser.add_argument("--stochastic", action="store_true",
                        help="sample the policy instead of playing its most probable move")
    parser.add_argument("--targets", action="store_true",
                        help="check the game's training targets (tris_envs.training.targets) "
                             "against these results")
    parser.add_argument("--no-judge", action="store_true",
                        help="skip the share of solver-optimal moves (one solve per board "
                             "in Doppia scelta)")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the evaluation and print the table; 2 on a usage error or an unreadable file."""
    args = parse_args(argv)
    try:
        import torch

        torch.set_num_threads(1)
        game = make_game(args.game, **game_options_from(args.config))
        if args.opponents is None:
            opponents = [s for s in DEFAULT_OPPONENTS
                         if s != "solver" or GAMES[game.info.name].solvable]
        else:
            opponents = [s.strip() for s in args.opponents.split(",") if s.strip()]
        for spec in opponents:
            make_agent(spec)
        results = evaluate_checkpoint(args.checkpoint, game, opponents, args.games,
                                      args.seed, args.processes,
                                      deterministic=not args.stochastic,
                                      judge_moves=not args.no_judge)
    except (ValueError, OSError, ImportError) as error:  # checkpoint errors are ValueErrors
        print(f"evaluate.py: error: {error}", file=sys.stderr)
        return 2
    print(f"{args.checkpoint} on {game!r}, {args.games} games per opponent, seed {args.seed}")
    print(format_table(results))
    reference = None
    if "solver" in opponents:
        reference = solver_reference(game, args.games, args.seed, args.processes)
        print(f"the solver's own score against the solver in the same games (same seed, so "
              f"the same boards and dice): {reference:.1%}")
    targets = check_targets(game.info.name, results, reference) if args.targets else []
    if targets:
        print("training targets:")
        for text, met in targets:
            print(f"  {text} -> {'unknown' if met is None else 'met' if met else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
