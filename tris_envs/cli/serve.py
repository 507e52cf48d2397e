"""``tris-envs serve``: every game in the browser (:mod:`tris_envs.web`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from tris_envs.cli.arguments import at_least
from tris_envs.web import serve
from tris_envs.web.session import Limits


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "serve", help="play and watch every game in the browser (docs/play.md)",
        description="A local web app: play any game against any agent, or watch two agents; "
                    "hints, undo, records. Open the address it prints.")
    parser.add_argument("--port", type=at_least(0), default=8000, help="port (default 8000)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on, IPv4 or IPv6 (default 127.0.0.1: this "
                             "machine only; ::1 is its IPv6 loopback)")
    parser.add_argument("--allow-files", metavar="DIR",
                        help="let pages name agent files (ppo:PATH, az:PATH) inside DIR, a "
                             "path taken within it (default: none, only the shipped agents); "
                             "pickled PPO files are never loaded")
    parser.add_argument("--max-simulations", type=at_least(1), metavar="N",
                        help="the most simulations per move of mcts and az (default 20000)")
    parser.add_argument("--max-seconds", type=float, metavar="S",
                        help="the most seconds per move, and the deadline of every mcts, "
                             "alphabeta and az search (default 10)")
    parser.add_argument("--max-depth", type=at_least(1), metavar="PLIES",
                        help="the deepest alphabeta search (default 64)")
    return parser


def run(args: argparse.Namespace) -> None:
    caps = {"simulations": args.max_simulations, "seconds": args.max_seconds,
            "depth": args.max_depth}
    serve(args.host, args.port, Limits(
        files=None if args.allow_files is None else Path(args.allow_files),
        **{name: value for name, value in caps.items() if value is not None}))
