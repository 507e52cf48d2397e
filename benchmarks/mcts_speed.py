"""MCTS speed with the games' fast rollouts against the generic rollout path, in one run.

Tris 2 and Tritoc override :meth:`Game.random_playout` with a path on bit masks; the
generic default goes through ``legal_actions`` and ``apply`` every ply. Both draw the same
uniforms, so a seeded search builds the same tree on either path (tests check it); the
timings give each path its own search seed, so neither finds the other's positions already
memoized. Prints two Markdown tables:

* simulations per second from the start position, per game (Tris 2, Tris 2 ``max_side=4``,
  Tritoc), both paths interleaved, best of ``--rounds``
  (:func:`tris_envs.bench.engines.playout_report`, also part of ``tris-envs bench``);
* seconds per move of ``mcts:1000`` self-play in Tris 2 over ``--moves`` plies, each
  position searched on both paths in turn::

    python benchmarks/mcts_speed.py --simulations 2000 --rounds 5 --moves 20 --seed 0
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from tris_envs.agents.mcts import MCTSAgent
from tris_envs.bench.engines import generic_playouts, playout_report
from tris_envs.bench.fair import turns
from tris_envs.core.game import TERMINAL
from tris_envs.games import make_game


def seconds_per_move(simulations: int, moves: int, seed: int) -> tuple[float, float, int]:
    """Mean seconds per ``MCTSAgent(simulations)`` move in Tris 2 self-play on the generic
    and the fast rollout path, and the moves played (fewer when the game ends).

    Each position is searched on both paths in turn (which goes first alternates:
    :func:`~tris_envs.bench.fair.turns`), each with its own search seed (the same search
    twice would find the memos filled by the first); the game goes on with the fast path's
    move.
    """
    fast = make_game("tris2")
    paths = (generic_playouts(fast), fast)
    state = fast.initial_state(np.random.default_rng(seed))
    spent = [0.0, 0.0]
    played = 0
    action = -1
    while played < moves and fast.current_player(state) != TERMINAL:
        for mode, _ in turns((0, 1), played):
            agent = MCTSAgent(simulations, rng=np.random.default_rng([seed, played, mode]))
            start = time.perf_counter()
            chosen = agent.act(paths[mode], state)
            spent[mode] += time.perf_counter() - start
            if mode == 1:
                action = chosen
        state = fast.apply(state, action)
        played += 1
    return spent[0] / played, spent[1] / played, played


def main(argv: list[str] | None = None) -> None:
    """Print both tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulations", type=int, default=2000,
                        help="simulations per search for the first table")
    parser.add_argument("--rounds", type=int, default=5, help="rounds; the best is kept")
    parser.add_argument("--moves", type=int, default=20,
                        help="Tris 2 plies of mcts:1000 self-play for the second table")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    print("\n".join(playout_report(args.simulations, args.rounds)).lstrip("\n"))
    generic, fast, played = seconds_per_move(1000, args.moves, args.seed)
    print(f"\nTris 2, mcts:1000 self-play from seed {args.seed}'s setup, {played} moves, each "
          "searched on both paths\n")
    print("| path | seconds per move |\n|---|---:|")
    print(f"| generic rollouts | {generic:.3f} |\n| fast rollouts | {fast:.3f} |")
    print(f"| speed-up | {generic / fast:.2f}× |")
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
