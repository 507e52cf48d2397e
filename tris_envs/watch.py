"""``tris-envs watch``: a Tant Fant game between two scripted players, then a short match.

Nothing is trained (``make demo`` trains an agent; see the README). Run with
``tris-envs watch [--games N] [--seed S]``.
"""

from __future__ import annotations

import argparse

import numpy as np

from tris_envs.agents import GreedyAgent, RandomAgent
from tris_envs.evaluation import play_match, play_recorded
from tris_envs.games.tant_fant import COLOR_NAMES, TantFant

DESCRIPTION = ("watch greedy play random at Tant Fant: one game move by move, then a match "
               "(nothing is trained; make demo trains an agent)")


def main(argv: list[str] | None = None) -> None:
    """Print one game move by move and a greedy-vs-random match summary."""
    parser = argparse.ArgumentParser(prog="tris-envs watch", description=DESCRIPTION)
    parser.add_argument("--games", type=int, default=200, help="games in the match")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error(f"argument --games: must be an integer >= 1, got {args.games}")
    if args.seed < 0:
        parser.error(f"argument --seed: must be an integer >= 0, got {args.seed}")

    game = TantFant()
    rng = np.random.default_rng(args.seed)
    print("Tant Fant: greedy (White) against random (Black)\n")
    record = play_recorded(game, [GreedyAgent(rng), RandomAgent(rng)], rng)
    state = game.from_notation(record.start)
    for ply, ((actor, action), position) in enumerate(zip(record.moves, record.positions), 1):
        print(f"{ply:3d}. {COLOR_NAMES[actor]} {game.action_to_string(state, action)}"
              f"    {position}")
        state = game.apply(state, action)
    print(f"\n{game.render_text(state)}\n")
    print(play_match(game, "greedy", "random", n_games=args.games, seed=args.seed))


if __name__ == "__main__":
    main()
