"""``tris-envs bench``: the machine's line, then the report its flags ask for
(:mod:`tris_envs.bench`)."""

from __future__ import annotations

import argparse
from typing import Any

from tris_envs.bench import engines, networks
from tris_envs.cli.arguments import needs_extra
from tris_envs.games import GAMES
from tris_envs.machine import describe


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    bench = subparsers.add_parser("bench", help="throughput vs tictactoe_v3 and solver times")
    bench.add_argument("--steps", type=int, default=20_000, help="steps per timed round")
    bench.add_argument("--rounds", type=int, default=3, help="rounds; the best is kept")
    bench.add_argument("--env", action="append",
                       choices=[spec.env_name for spec in GAMES.values()],
                       help="environment to time (repeatable; default all)")
    bench.add_argument("--mcts-simulations", type=int, default=2000,
                       help="simulations per MCTS search timed (0: skip MCTS)")
    bench.add_argument("--mcts", action="store_true",
                       help="only the MCTS section: ours beside OpenSpiel's MCTSBot on the "
                            "same games and positions (needs the openspiel extra)")
    bench.add_argument("--openspiel-simulations", type=int,
                       help="simulations per search of the comparison with OpenSpiel "
                            "(default: tris_envs.bench.engines.OPENSPIEL_SIMULATIONS)")
    bench.add_argument("--jax", action="store_true",
                       help="instead: the JAX games at batch 1, 64 and 1,024 beside Pgx's "
                            "tic_tac_toe and connect_four (needs the jax extra)")
    bench.add_argument("--learner", action="store_true",
                       help="instead: the AlphaZero learner's plies per second on "
                            "Tris 2 and Tritoc beside Pgx's connect_four, and its self-play "
                            "search with mctx's backups and with the batched ones (needs the "
                            "jax extra)")
    bench.add_argument("--networks", action="store_true",
                       help="instead: the default az agent's time per move with each shipped "
                            "network, against the budget of 100 ms a move")
    bench.add_argument("--network-moves", type=int, default=networks.MOVES,
                       help="positions timed per network with --networks (default "
                            f"{networks.MOVES})")
    needs_extra(bench, "jax", "--jax", lambda args: args.jax)
    needs_extra(bench, "jax", "--learner", lambda args: args.learner)
    return bench


def run(args: argparse.Namespace) -> None:
    # refused by the top parser, as a flag argparse refuses (`tris-envs: error: ...`)
    if (args.steps < 1 or args.rounds < 1 or args.mcts_simulations < 0
            or (args.openspiel_simulations or 1) < 1 or args.network_moves < 1):
        args.parser.error("--steps, --rounds, --openspiel-simulations and --network-moves "
                          "must be at least 1, --mcts-simulations >= 0")
    if args.mcts and args.mcts_simulations < 1:
        args.parser.error("--mcts needs --mcts-simulations of at least 1")
    print(f"Machine: {describe()}", flush=True)
    if args.jax:
        from tris_envs.bench import jax_games  # the jax extra

        print(jax_games.run())
    elif args.learner:
        from tris_envs.bench import learner  # the jax extra

        print(learner.run())
    elif args.networks:
        print(networks.run(moves=args.network_moves))
    else:
        print(engines.run(steps=args.steps, rounds=args.rounds, names=args.env,
                          mcts_simulations=args.mcts_simulations, mcts_only=args.mcts,
                          openspiel_simulations=args.openspiel_simulations))
