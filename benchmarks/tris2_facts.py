"""Facts about Tris 2 and its variants, measured with fixed seeds.

For each variant (the defaults, ``max_side=4``, ``setup="placement"``):

* **decisive share** of games between blunder-free players (``greedy`` against itself and
  against ``alphabeta:2``, seats alternating), and how they end: a win, or the 200-ply
  truncation;
* **zugzwang wins**: decisive games whose loser had no safe move on its last turn (every
  legal move let the winner complete a line), as a share of the decisive games;
* **legal moves** per position, averaged over the positions of those games;
* for random setups (defaults only), the share of **setups with a forced loss in one** for
  the first player (every first move hands the second player a line), which
  ``fair=True`` redraws;
* for placement setups (with and without ``max_side=4``), the **placement phase solved**:
  whether ``player_0`` can place its five dice so that ``player_1``, who rolls first, has
  no roll that wins at once, against every placement of ``player_1``'s (an exact search
  of the nine placements, transpositions merged).

Prints a Markdown table; every figure names its sample size::

    python benchmarks/tris2_facts.py --games 40 --setups 20000 --seed 0
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from tris_envs.agents import make_agent
from tris_envs.core.game import Game, allows_win
from tris_envs.evaluation.records import GameRecord, play_recorded
from tris_envs.games import make_game
from tris_envs.games.tris2 import Tris2

VARIANTS: dict[str, dict[str, Any]] = {
    "defaults": {},
    "max_side=4": {"max_side": 4},
    'setup="placement"': {"setup": "placement"},
}
PAIRS = (("greedy", "greedy"), ("greedy", "alphabeta:2"))


def no_safe_move(game: Game, state: Any) -> bool:
    """Whether every legal move in ``state`` lets the opponent win at once."""
    return all(allows_win(game, state, a) for a in game.legal_actions(state))


def game_facts(game: Game, record: GameRecord) -> tuple[bool, bool, int, int]:
    """(decisive, won by zugzwang, positions, legal moves summed) of one recorded game."""
    state = game.from_notation(record.start)
    positions = legal = 0
    loser_stuck = False
    decisive = any(record.returns)
    for index, (_, action) in enumerate(record.moves):
        positions += 1
        legal += len(game.legal_actions(state))
        if decisive and index == len(record.moves) - 2:
            loser_stuck = no_safe_move(game, state)  # the loser's last turn
        state = game.apply(state, action)
    return decisive, decisive and loser_stuck, positions, legal


def variant_row(name: str, options: dict[str, Any], games: int, seed: int) -> str:
    """One Markdown row: games, decisive share, zugzwang share, mean legal moves."""
    game = make_game("tris2", **options)
    rng = np.random.default_rng(seed)
    decisive = zugzwang = positions = legal = played = 0
    for first, second in PAIRS:
        for k in range(games // len(PAIRS)):
            seats = (first, second) if k % 2 == 0 else (second, first)
            agents = [make_agent(spec, rng) for spec in seats]
            record = play_recorded(game, agents, rng)
            won, stuck, n, moves = game_facts(game, record)
            decisive += won
            zugzwang += stuck
            positions += n
            legal += moves
            played += 1
    share = decisive / played
    zug = f"{zugzwang / decisive:.0%} ({zugzwang}/{decisive})" if decisive else "—"
    return (f"| {name} | {played} | {share:.0%} ({decisive}/{played}) | "
            f"{1 - share:.0%} | {zug} | {legal / positions:.1f} |")


def forced_loss_share(setups: int, seed: int) -> tuple[int, int]:
    """Random default setups in which every first move hands the opponent a line."""
    game = make_game("tris2")
    rng = np.random.default_rng(seed)
    lost = sum(no_safe_move(game, game.initial_state(rng)) for _ in range(setups))
    return lost, setups


def solved_placement(options: dict[str, Any]) -> str:
    """One line: who wins the placement phase of ``options`` with perfect play."""
    game = Tris2(setup="placement", **options)
    start = time.perf_counter()
    seen: dict[Any, bool] = {}
    safe = game.placement_safe(game.initial_state(np.random.default_rng(0)), seen)
    verdict = ("`player_0` can always deny `player_1` a winning first roll" if safe else
               "`player_1` always gets a winning first roll: a forced win in 10 plies")
    name = ", ".join(f"{k}={v}" for k, v in {"setup": "placement", **options}.items())
    return (f"- {name}: {verdict} ({len(seen):,} positions, "
            f"{time.perf_counter() - start:.0f} s)")


def main(argv: list[str] | None = None) -> None:
    """Print the facts as Markdown."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40,
                        help="games per variant, split between the pairs")
    parser.add_argument("--setups", type=int, default=20_000, help="random setups sampled")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    print(f"Tris 2, blunder-free players ({' and '.join(' vs '.join(p) for p in PAIRS)}), "
          f"seats alternating, seed {args.seed}\n")
    print("| variant | games | decisive | truncated at 200 plies | decided by zugzwang "
          "| legal moves per position |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, options in VARIANTS.items():
        print(variant_row(name, options, args.games, args.seed), flush=True)
    lost, total = forced_loss_share(args.setups, args.seed)
    print(f"\nRandom setups (the seeds' rule) with a forced loss in one for the first player: "
          f"{lost / total:.2%} ({lost} of {total}); `fair=True` redraws them.")
    print("\nThe placement phase solved (perfect play by both players):")
    for options in ({}, {"max_side": 4}):
        print(solved_placement(options), flush=True)
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
