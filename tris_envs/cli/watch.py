"""``tris-envs watch``: greedy against random at Tant Fant (:mod:`tris_envs.watch`)."""

from __future__ import annotations

import argparse
from typing import Any

from tris_envs.cli.arguments import at_least
from tris_envs.watch import DESCRIPTION, watch


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("watch", help=DESCRIPTION, description=DESCRIPTION)
    parser.add_argument("--games", type=at_least(1), default=200,
                        help="games in the match (default 200)")
    parser.add_argument("--seed", type=at_least(0), default=0, help="seed (default 0)")
    return parser


def run(args: argparse.Namespace) -> None:
    watch(games=args.games, seed=args.seed)
