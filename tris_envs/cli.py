"""The ``tris-envs`` command line: play, eval, tournament, bench, demo."""

from __future__ import annotations

import argparse
import ast
import sys
from typing import Any

from tris_envs.games import GAMES as REGISTRY

GAMES = list(REGISTRY)


def parse_options(pairs: list[str] | None) -> dict[str, Any]:
    """``["stalemate=loss", "diagonal_only=True"]`` -> options (Python literals or text)."""
    options: dict[str, Any] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"--option {pair!r}: expected name=value, e.g. stalemate=loss")
        try:
            options[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            options[key] = value
    return options


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tris-envs", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    game_help = f"one of {', '.join(GAMES)}"
    option_help = "game option name=value (repeatable), e.g. --option stalemate=loss"

    play = commands.add_parser("play", help="play a game in the terminal against an agent")
    play.add_argument("game", choices=GAMES, metavar="game", help=game_help)
    play.add_argument("--opponent", default="mcts:1000",
                      help="agent spec: random, greedy, mcts:N, mcts:Ss, solver, ppo (the shipped "
                           "trained policy), ppo:PATH")
    play.add_argument("--first", action="store_true", help="you move first (seat 0)")
    play.add_argument("--seed", type=int, default=None)
    play.add_argument("--option", action="append", help=option_help)

    evaluate = commands.add_parser("eval", help="a match between two agents")
    evaluate.add_argument("game", choices=GAMES, metavar="game", help=game_help)
    evaluate.add_argument("agents", nargs=2, metavar="agent")
    evaluate.add_argument("--games", type=int, default=100)
    evaluate.add_argument("--seed", type=int, default=0)
    evaluate.add_argument("--processes", type=int, default=1)
    evaluate.add_argument("--option", action="append", help=option_help)

    tournament = commands.add_parser("tournament", help="round robin between agents")
    tournament.add_argument("game", choices=GAMES, metavar="game", help=game_help)
    tournament.add_argument("agents", nargs="+", metavar="agent")
    tournament.add_argument("--games", type=int, default=100, help="games per pair")
    tournament.add_argument("--seed", type=int, default=0)
    tournament.add_argument("--processes", type=int, default=1)
    tournament.add_argument("--heatmap", metavar="PNG", help="also write a heat map")
    tournament.add_argument("--option", action="append", help=option_help)

    bench = commands.add_parser("bench", help="throughput vs tictactoe_v3 and solver times")
    bench.add_argument("--steps", type=int, default=20_000, help="steps per timed round")
    bench.add_argument("--rounds", type=int, default=3, help="rounds; the best is kept")
    bench.add_argument("--env", action="append",
                       choices=[spec.env_name for spec in REGISTRY.values()],
                       help="environment to time (repeatable; default all)")
    bench.add_argument("--mcts-simulations", type=int, default=2000,
                       help="simulations per MCTS search timed (0: skip MCTS)")
    commands.add_parser("demo", help="a Tant Fant game and a greedy-vs-random match")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``tris-envs``; user errors end with a message, never a traceback.

    Returns:
        The exit status: 0 on success. A usage error exits with 2 (argparse's
        ``SystemExit``), as does a bad value, file or missing extra; Ctrl-C exits with 130.
    """
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        _run(args, parser)
    except (ValueError, OSError, ImportError) as error:
        parser.exit(2, f"tris-envs {args.command}: error: {error}\n")
    except KeyboardInterrupt:
        parser.exit(130, "\n")
    return 0


def _run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    from tris_envs.games import make_game

    if args.command == "bench":
        from tris_envs.benchmark import run

        if args.steps < 1 or args.rounds < 1 or args.mcts_simulations < 0:
            parser.error("--steps and --rounds must be at least 1, --mcts-simulations >= 0")
        print(run(steps=args.steps, rounds=args.rounds, names=args.env,
                  mcts_simulations=args.mcts_simulations))
    elif args.command == "demo":
        from tris_envs.demo import main as demo

        demo([])
    elif args.command == "play":
        from tris_envs.agents import make_agent
        from tris_envs.play import play_session

        game = make_game(args.game, **parse_options(args.option))
        make_agent(args.opponent)                      # a bad spec fails before the game
        play_session(game, args.opponent, 0 if args.first else 1, args.seed)
    elif args.command == "eval":
        from tris_envs.evaluation import play_match

        game = make_game(args.game, **parse_options(args.option))
        print(play_match(game, *args.agents, n_games=args.games, seed=args.seed,
                         processes=args.processes))
    elif args.command == "tournament":
        from tris_envs.evaluation import round_robin

        game = make_game(args.game, **parse_options(args.option))
        table = round_robin(game, args.agents, n_games=args.games, seed=args.seed,
                            processes=args.processes)
        print(table.to_markdown())
        if args.heatmap:
            table.heatmap(args.heatmap)
            print(f"heat map written to {args.heatmap}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
