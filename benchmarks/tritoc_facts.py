"""Tritoc's first-player advantage under MCTS self-play, per dice mode and layout.

For each ``dice`` (``2d6``, ``equal``) and ``layout`` (``ordered``, ``magic``, ``random``),
``mcts:<simulations>`` plays itself (:func:`~tris_envs.evaluation.play_match`, seats
alternating, so each game has its own seeds for the dice and both searches). Prints a
Markdown table: the first player's (White's) wins, the draws (truncated games included)
and the second player's wins, the first player's score with its 95% Wilson interval, and
the mean game length in plies (passes included, dice rolls not)::

    python benchmarks/tritoc_facts.py --games 24 --simulations 1000 --processes 2 --seed 0
"""

from __future__ import annotations

import argparse
import time

from tris_envs.evaluation import play_match, score_rate, wilson_interval
from tris_envs.evaluation.records import GameRecord
from tris_envs.games import make_game

DICE = ("2d6", "equal")
LAYOUTS = ("ordered", "magic", "random")


def first_player_row(records: list[GameRecord]) -> str:
    """Markdown cells: first-player wins, draws, second-player wins, the first player's
    score [95% interval], mean plies, truncated games."""
    first = sum(record.returns[0] > 0 for record in records)
    second = sum(record.returns[1] > 0 for record in records)
    draws = len(records) - first - second
    score = score_rate(first, draws, second)
    low, high = wilson_interval(score, len(records))
    plies = sum(actor >= 0 for record in records for actor, _ in record.moves) / len(records)
    truncated = sum(record.truncated for record in records)
    return (f"{first} | {draws} | {second} | {score:.0%} [{low:.0%}, {high:.0%}] | "
            f"{plies:.0f} | {truncated} |")


def main(argv: list[str] | None = None) -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=24, help="games per option set")
    parser.add_argument("--simulations", type=int, default=1000,
                        help="MCTS simulations per move")
    parser.add_argument("--processes", type=int, default=1, help="worker processes")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.games < 1 or args.simulations < 1:
        parser.error("--games and --simulations must be at least 1")
    spec = f"mcts:{args.simulations}"
    start = time.perf_counter()
    print(f"Tritoc, {spec} against itself, {args.games} games per option set, seats "
          f"alternating, seed {args.seed}\n")
    print("| dice | layout | games | first player wins | draws | second player wins "
          "| first player's score [95%] | mean plies | truncated |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for dice in DICE:
        for layout in LAYOUTS:
            game = make_game("tritoc", dice=dice, layout=layout)
            result = play_match(game, spec, spec, n_games=args.games, seed=args.seed,
                                processes=args.processes, keep_records=True)
            print(f"| {dice} | {layout} | {args.games} | {first_player_row(result.records)}",
                  flush=True)
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
