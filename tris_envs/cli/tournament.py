"""``tris-envs tournament``: a round robin between agents."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
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
from tris_envs.core.errors import brief
from tris_envs.evaluation import round_robin
from tris_envs.progress import Progress


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    tournament = subparsers.add_parser("tournament", help="round robin between agents",
                                       **WITH_AGENTS)
    tournament.add_argument("game", choices=GAMES, metavar="game", help=GAME_HELP)
    tournament.add_argument("agents", nargs="+", metavar="agent", type=agent_spec,
                            help="two or more agent specs (below)")
    tournament.add_argument("--games", type=int, default=100,
                            help="games per pair, seats alternating (default 100)")
    tournament.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    add_match_arguments(tournament)
    tournament.add_argument("--heatmap", metavar="PNG", help="also write a heat map")
    add_match_tail(tournament)
    return tournament


def run(args: argparse.Namespace) -> None:
    if args.trust_pickle:
        args.agents = trusted_specs(args.agents)
    args.agents = served(args, args.agents)
    game = match_game(args)
    heatmap = heatmap_path(args.heatmap) if args.heatmap else None
    pairs = len(args.agents) * (len(args.agents) - 1) // 2
    with journal(args, args.games * pairs) as records, Progress(
            f"tournament {args.game}", args.games * pairs, quiet=args.quiet) as progress:
        table = round_robin(game, args.agents, n_games=args.games, seed=args.seed,
                            processes=args.processes, ray=args.ray,
                            keep_records=args.metrics or bool(args.records),
                            records=records, resume=args.resume, overwrite=args.force,
                            progress=progress.advance)
    print(table.to_markdown())
    if args.metrics:
        print_metrics(game, table.names,
                      [record for match in table.matches.values() for record in match.records])
    if heatmap is not None:
        print(f"heat map written to {table.heatmap(heatmap)}", file=sys.stderr)


def heatmap_path(text: str) -> Path:
    """The file ``--heatmap`` writes (``.png`` added to a name without a suffix), checked
    before the tournament is played: a format matplotlib writes, in an existing folder."""
    path = Path(text)
    if path.name in ("", ".", "..") or path.is_dir():
        raise ValueError(f"--heatmap {brief(text)}: a folder; name the picture file")
    if not path.suffix:
        path = path.with_name(path.name + ".png")
    try:                                    # matplotlib: an optional extra
        from matplotlib.backend_bases import FigureCanvasBase
    except ImportError:
        formats = {"png": ""}
    else:
        formats = FigureCanvasBase.get_supported_filetypes()
    if path.suffix[1:].lower() not in formats:
        raise ValueError(f"--heatmap {brief(text)}: writes {', '.join(sorted(formats))} "
                         "files, by the name's suffix")
    if not path.parent.is_dir():
        raise ValueError(f"--heatmap {brief(text)}: no folder {str(path.parent)!r}")
    return path
