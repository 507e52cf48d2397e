"""Outcomes of random Doppia scelta boards under perfect play, per scheme.

For each scheme, draws random boards exactly as ``doppia_scelta_v0`` does (uniform colors,
redrawn while a robot has a CodyColor path), solves each from the opening with the generic
retrograde solver and counts first-player (White) wins, second-player (Black) wins and
draws (endless play counts as a draw). Prints a Markdown table::

    python benchmarks/doppia_scelta_outcomes.py --boards 1000 --seed 0
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from tris_envs.games.doppia_scelta import SCHEMES, DoppiaScelta, format_board, solve_board


def measure(scheme: str, boards: int, seed: int) -> dict[str, float]:
    """Shares of outcomes, mean reachable positions and solve time for one scheme."""
    game = DoppiaScelta(scheme=scheme)
    rng = np.random.default_rng(seed)
    counts = {1: 0, -1: 0, 0: 0}
    positions = 0
    seconds = 0.0
    for _ in range(boards):
        board = format_board(game.random_board(rng))
        start = time.perf_counter()
        solution = solve_board(game, board)
        seconds += time.perf_counter() - start
        counts[int(solution.values[0])] += 1
        positions += len(solution)
    return {"white": counts[1] / boards, "black": counts[-1] / boards,
            "draw": counts[0] / boards, "positions": positions / boards,
            "ms": 1000 * seconds / boards}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=1000, help="random boards per scheme")
    parser.add_argument("--seed", type=int, default=0, help="seed of the board generator")
    args = parser.parse_args()
    print(f"{args.boards} random boards per scheme, seed {args.seed}\n")
    print("| scheme | White (first) wins | Black (second) wins | draws "
          "| mean positions | mean solve time |")
    print("|---|---:|---:|---:|---:|---:|")
    for scheme in SCHEMES:
        row = measure(scheme, args.boards, args.seed)
        print(f"| `{scheme}` | {row['white']:.1%} | {row['black']:.1%} | {row['draw']:.1%} "
              f"| {row['positions']:,.0f} | {row['ms']:.1f} ms |")


if __name__ == "__main__":
    main()
