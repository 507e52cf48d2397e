"""``make demo``: a Tant Fant game between two scripted players, then a short match.

Run with ``python -m tris_envs.demo [--games N] [--seed S]``.
"""

from __future__ import annotations

import argparse

import numpy as np

from tris_envs.agents import GreedyAgent, RandomAgent, play_game
from tris_envs.games.tant_fant import TantFant


def main(argv: list[str] | None = None) -> None:
    """Print one game move by move and a random-vs-greedy match summary."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200, help="games in the match")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    game = TantFant()
    rng = np.random.default_rng(args.seed)
    players = [GreedyAgent(rng), RandomAgent(rng)]
    print("Tant Fant: greedy (White) against random (Black)\n")
    final, history = play_game(game, players, rng)
    for ply, (before, after) in enumerate(zip(history, history[1:]), 1):
        move = next(a for a in game.legal_actions(before) if game.apply(before, a) == after)
        print(f"{ply:3d}. {'White' if before.to_move == 0 else 'Black'} "
              f"{game.action_to_string(before, move)}    {game.to_notation(after)}")
    print(f"\n{game.render_text(final)}\n")

    score = {"win": 0, "draw": 0, "loss": 0}
    for i in range(args.games):
        greedy_seat = i % 2
        seats = [RandomAgent(rng), RandomAgent(rng)]
        seats[greedy_seat] = GreedyAgent(rng)
        final, _ = play_game(game, seats, rng)
        result = game.returns(final)[greedy_seat]
        score["win" if result > 0 else "loss" if result < 0 else "draw"] += 1
    print(f"greedy vs random over {args.games} games (seats alternate, "
          f"{game.info.max_moves}-ply limit): {score['win']} wins, {score['draw']} draws, "
          f"{score['loss']} losses")


if __name__ == "__main__":
    main()
