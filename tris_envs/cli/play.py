"""``tris-envs play``: a game in the terminal against an agent."""

from __future__ import annotations

import argparse
from typing import Any

from tris_envs.agents.ppo import trusted_specs
from tris_envs.cli.arguments import (
    GAME_HELP,
    GAMES,
    OPTION_HELP,
    WITH_AGENTS,
    add_llm_arguments,
    add_trust_pickle_argument,
    agent_spec,
    served,
)
from tris_envs.core.options import parse_options
from tris_envs.games import make_game
from tris_envs.play import play_session


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    play = subparsers.add_parser("play", help="play a game in the terminal against an agent",
                                 **WITH_AGENTS)
    play.add_argument("game", choices=GAMES, metavar="game", help=GAME_HELP)
    play.add_argument("--opponent", default="mcts", metavar="AGENT", type=agent_spec,
                      help="the agent you play against (default: mcts, 1000 simulations "
                           "per move); specs below")
    play.add_argument("--first", action="store_true", help="you move first (seat 0)")
    play.add_argument("--no-warn", action="store_true",
                      help="play a move that gives up the game's value (by the solver) "
                           "without the warning")
    play.add_argument("--seed", type=int, default=None, help="seed of the game's dice and "
                                                                 "the agent (default: random)")
    play.add_argument("--option", action="append", help=OPTION_HELP)
    add_trust_pickle_argument(play)
    add_llm_arguments(play)
    return play


def run(args: argparse.Namespace) -> None:
    if args.trust_pickle:
        args.opponent = trusted_specs([args.opponent])[0]
    args.opponent = served(args, [args.opponent])[0]
    game = make_game(args.game, **parse_options(args.option))
    play_session(game, args.opponent, 0 if args.first else 1, args.seed,
                 warn=not args.no_warn)
