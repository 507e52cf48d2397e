"""The ``tris-envs`` command line."""

from __future__ import annotations

import argparse

from tris_envs.registry import ENV_MODULES


def main(argv: list[str] | None = None) -> None:
    """Entry point of ``tris-envs``."""
    parser = argparse.ArgumentParser(prog="tris-envs", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    bench = commands.add_parser("bench", help="throughput vs tictactoe_v3 and solver times")
    bench.add_argument("--steps", type=int, default=20_000, help="steps per timed round")
    bench.add_argument("--rounds", type=int, default=3, help="rounds; the best is kept")
    bench.add_argument("--env", action="append", choices=sorted(ENV_MODULES),
                       help="environment to time (repeatable; default all)")
    commands.add_parser("demo", help="a Tant Fant game and a random-vs-greedy match")
    args = parser.parse_args(argv)

    if args.command == "bench":
        from tris_envs.benchmark import run

        if args.steps < 1 or args.rounds < 1:
            parser.error("--steps and --rounds must be at least 1")
        print(run(steps=args.steps, rounds=args.rounds, names=args.env))
    elif args.command == "demo":
        from tris_envs.demo import main as demo

        demo([])


if __name__ == "__main__":
    main()
