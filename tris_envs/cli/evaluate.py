"""``tris-envs evaluate``: a PPO checkpoint or an AlphaZero network against the baselines,
both seats (see :mod:`tris_envs.ppo.commands`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from tris_envs.agents import AgentSpec, make_agent
from tris_envs.agents.ppo import BOARD_NETWORK, trusted_specs
from tris_envs.cli.arguments import add_trust_pickle_argument, needs_extra
from tris_envs.durable import Terminated, sigterm_as_interrupt
from tris_envs.evaluation.checkpoint import evaluate_checkpoint, format_table, solver_reference
from tris_envs.evaluation.targets import check_targets
from tris_envs.games import GAMES, make_game
from tris_envs.ppo.commands import DEFAULT_OPPONENTS
from tris_envs.ppo.config import game_options_from
from tris_envs.progress import Progress

PROG = "tris-envs evaluate"


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "evaluate", help="a PPO or AlphaZero checkpoint against the baselines, both seats",
        description="Score a MaskablePPO checkpoint (tris-envs train ppo) or an AlphaZero "
                    "network (tris-envs train az) against baselines, both seats, and judge "
                    "its moves where a solver exists.")
    parser.add_argument("checkpoint", type=Path,
                        help="a PPO policy file (e.g. runs/tant_fant/final.pt) or an "
                             "AlphaZero .npz network (tris-envs train az)")
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
    parser.add_argument("--simulations", type=int, default=None,
                        help="an AlphaZero network's search simulations per move (default: "
                             "the network's, 100 unless it names another; 0: the network "
                             "alone)")
    parser.add_argument("--targets", action="store_true",
                        help="check the game's training targets (tris_envs.evaluation.targets) "
                             "against these results")
    parser.add_argument("--no-judge", action="store_true",
                        help="skip the share of solver-optimal moves (one solve per board "
                             "in Doppia scelta)")
    parser.add_argument("--quiet", action="store_true",
                        help="no progress bar (it shows only when standard error is a "
                             "terminal)")
    add_trust_pickle_argument(parser)
    needs_extra(parser, "train", "a PPO checkpoint",
                lambda args: args.checkpoint.suffix != BOARD_NETWORK)
    return parser


def run(args: argparse.Namespace) -> int:
    """Run the evaluation ``args`` ask for and print the table; 2 on a bad value or file;
    on Ctrl-C (130) or SIGTERM (143), which end the worker processes, one line saying so."""
    try:
        with sigterm_as_interrupt():
            return _evaluated(args)
    except KeyboardInterrupt as interrupt:
        print(f"\n{PROG}: interrupted; it writes no file, so nothing is kept: run it again "
              "for the table", file=sys.stderr)
        return 143 if isinstance(interrupt, Terminated) else 130


def _evaluated(args: argparse.Namespace) -> int:
    """:func:`run` up to its interruptions."""
    if args.checkpoint.suffix != BOARD_NETWORK:
        import torch  # the train extra, checked before the command runs

        torch.set_num_threads(1)
    try:
        game = make_game(args.game, **game_options_from(args.config))
        if args.opponents is None:
            texts = [s for s in DEFAULT_OPPONENTS
                     if s != "solver" or GAMES[game.info.name].solvable]
        else:
            texts = [s.strip() for s in args.opponents.split(",") if s.strip()]
        opponents = [AgentSpec.parse(text) for text in texts]
        if args.trust_pickle:
            opponents = trusted_specs(opponents)
        for spec in opponents:
            make_agent(spec)
        # the solver's reference match is played too where the solver is an opponent
        solver = AgentSpec("solver") in opponents
        total = args.games * (len(opponents) + solver)
        with Progress(PROG, total, quiet=args.quiet) as progress:
            results = evaluate_checkpoint(args.checkpoint, game, opponents, args.games,
                                          args.seed, args.processes,
                                          deterministic=not args.stochastic,
                                          judge_moves=not args.no_judge,
                                          simulations=args.simulations,
                                          trust_pickle=args.trust_pickle,
                                          progress=progress.advance)
            reference = (solver_reference(game, args.games, args.seed, args.processes,
                                          progress.advance)
                         if solver else None)
    except (ValueError, OSError, ImportError) as error:  # checkpoint errors are ValueErrors
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 2
    print(f"{args.checkpoint} on {game!r}, {args.games} games per opponent, seed {args.seed}")
    print(format_table(results))
    if reference is not None:
        print(f"the solver's own score against the solver in the same games (same seed, so "
              f"the same boards and dice): {reference:.1%}")
    targets = check_targets(game.info.name, results) if args.targets else []
    if targets:
        print("training targets:")
        for text, met in targets:
            print(f"  {text} -> {'unknown' if met is None else 'met' if met else 'MISSED'}")
    return 0
