"""``tris-envs replay``: recorded games as one HTML page."""

from __future__ import annotations

import argparse
from typing import Any

from tris_envs.replay import read_records, write_html


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    replay = subparsers.add_parser("replay", help="recorded games as one HTML page")
    replay.add_argument("records", help="a --records file of eval/tournament, or a JSON "
                                        "list of game records")
    replay.add_argument("--html", required=True, metavar="PAGE", help="the page to write")
    replay.add_argument("--title", default="", help="the page's title")
    return replay


def run(args: argparse.Namespace) -> None:
    records = read_records(args.records)
    page = write_html(records, args.html, args.title)
    print(f"{len(records)} game(s) written to {page}")
