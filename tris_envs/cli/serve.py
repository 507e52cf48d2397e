"""``tris-envs serve``: every game in the browser (:mod:`tris_envs.web`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from tris_envs.agents.llm import KEY_VARIABLE, LLMServer
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
    parser.add_argument("--llm-url", metavar="URL",
                        help="let pages play llm:<model> agents on this OpenAI-compatible "
                             "server, up to /chat/completions (Ollama: "
                             "http://127.0.0.1:11434/v1); a page names the model, never a "
                             "server; all tries of a move end within --max-seconds (default: "
                             "no language models; OPENAI_BASE_URL alone does not enable them)")
    parser.add_argument("--llm-key", metavar="KEY",
                        help=f"the --llm-url server's API key (default: {KEY_VARIABLE}, which "
                             "keeps it out of the process list); never sent to a page")
    return parser


def run(args: argparse.Namespace) -> None:
    caps = {"simulations": args.max_simulations, "seconds": args.max_seconds,
            "depth": args.max_depth}
    if args.llm_key is not None and args.llm_url is None:
        raise ValueError("--llm-key is the key of the --llm-url server: give --llm-url too")
    serve(args.host, args.port, Limits(
        files=None if args.allow_files is None else Path(args.allow_files),
        llm=None if args.llm_url is None else LLMServer.from_environment(args.llm_url,
                                                                          args.llm_key),
        **{name: value for name, value in caps.items() if value is not None}))
