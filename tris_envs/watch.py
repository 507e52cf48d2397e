"""``tris-envs watch``: a Tant Fant game between two scripted players, then a short match.

Nothing is trained (``make demo`` trains an agent; see the README). Run with
``tris-envs watch [--games N] [--seed S]``.
"""

from __future__ import annotations

import numpy as np

from tris_envs.agents import GreedyAgent, RandomAgent
from tris_envs.evaluation import play_match, play_recorded
from tris_envs.games.tant_fant import COLOR_NAMES, TantFant

DESCRIPTION = ("watch greedy play random at Tant Fant: one game move by move, then a match "
               "(nothing is trained; make demo trains an agent)")


def watch(games: int = 200, seed: int = 0) -> None:
    """Print one game move by move and a greedy-vs-random match summary of ``games``
    games."""
    if games < 1 or seed < 0:
        raise ValueError(f"watch needs games >= 1 and seed >= 0, got games={games}, "
                         f"seed={seed}")
    game = TantFant()
    rng = np.random.default_rng(seed)
    print("Tant Fant: greedy (White) against random (Black)\n")
    record = play_recorded(game, [GreedyAgent(rng), RandomAgent(rng)], rng)
    state = game.from_notation(record.start)
    for ply, ((actor, action), position) in enumerate(zip(record.moves, record.positions), 1):
        print(f"{ply:3d}. {COLOR_NAMES[actor]} {game.action_to_string(state, action)}"
              f"    {position}")
        state = game.apply(state, action)
    print(f"\n{game.render_text(state)}\n")
    print(play_match(game, "greedy", "random", n_games=games, seed=seed))

