"""``tris-envs eval``: a match between two agents."""

from __future__ import annotations

import argparse
from typing import Any

from tris_envs.agents.ppo import trusted_specs
from tris_envs.cli.arguments import (
    GAME_HELP,
    GAMES,
    WITH_AGENTS,
    add_match_arguments,
    add_match_tail,
    agent_spec,
    served,
)
from tris_envs.cli.matches import journal, match_game, print_metrics
from tris_envs.evaluation import play_match
from tris_envs.progress import Progress


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    evaluate = subparsers.add_parser("eval", help="a match between two agents", **WITH_AGENTS)
    evaluate.add_argument("game", choices=GAMES, metavar="game", help=GAME_HELP)
    evaluate.add_argument("agents", nargs=2, metavar="agent", type=agent_spec,
                          help="two agent specs (below), e.g. greedy mcts:100")
    evaluate.add_argument("--games", type=int, default=100,
                          help="games, seats alternating (default 100)")
    evaluate.add_argument("--seed", type=int, default=0, help="seed of the match (default 0)")
    add_match_arguments(evaluate)
    add_match_tail(evaluate)
    return evaluate


def run(args: argparse.Namespace) -> None:
    if args.trust_pickle:
        args.agents = trusted_specs(args.agents)
    args.agents = served(args, args.agents)
    game = match_game(args)
    with journal(args, args.games) as records, Progress(
            f"eval {args.game}", args.games, quiet=args.quiet) as progress:
        first, second = args.agents
        result = play_match(game, first, second, n_games=args.games, seed=args.seed,
                            processes=args.processes, ray=args.ray,
                            keep_records=args.metrics or bool(args.records),
                            records=records, resume=args.resume, overwrite=args.force,
                            progress=progress.advance)
        progress.close(f"score {result.score:.1%}")
    print(result)
    if args.metrics:
        print_metrics(game, result.names, result.records)
