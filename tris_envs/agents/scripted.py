"""Random and greedy baselines for every game, chance nodes included."""

from __future__ import annotations

from typing import Any

import numpy as np

from tris_envs.core.game import CHANCE, TERMINAL, Game


class RandomAgent:
    """Plays a uniformly random legal action."""

    name = "random"

    def __init__(self, rng: np.random.Generator | None = None) -> None:
        self.rng = rng if rng is not None else np.random.default_rng()

    def act(self, game: Game, state: Any) -> int:
        legal = game.legal_actions(state)
        return int(legal[int(self.rng.integers(len(legal)))])


class GreedyAgent:
    """Wins in one if it can; else avoids moves that let the opponent win in one.

    Where dice follow a move, a move's risk is the probability, over the chance outcomes,
    that the opponent then has a winning move; the greedy agent keeps the least risky
    moves and picks one of them at random.
    """

    name = "greedy"

    def __init__(self, rng: np.random.Generator | None = None) -> None:
        self.rng = rng if rng is not None else np.random.default_rng()

    def act(self, game: Game, state: Any) -> int:
        me = game.current_player(state)
        legal = list(game.legal_actions(state))
        children = [game.apply(state, a) for a in legal]
        wins = [a for a, child in zip(legal, children) if _won(game, child, me)]
        if wins:
            return int(wins[self.rng.integers(len(wins))])
        risks = [self._risk(game, child, me) for child in children]
        least = min(risks)
        safest = [a for a, risk in zip(legal, risks) if risk <= least + 1e-12]
        return int(safest[self.rng.integers(len(safest))])

    def _risk(self, game: Game, state: Any, me: int) -> float:
        """Probability that the opponent can win with its next action from ``state``."""
        player = game.current_player(state)
        if player == CHANCE:
            return sum(p * self._risk(game, game.apply(state, outcome), me)
                       for outcome, p in game.chance_outcomes(state))
        if player in (TERMINAL, me):
            return 0.0
        return float(any(_won(game, game.apply(state, a), player)
                         for a in game.legal_actions(state)))


def _won(game: Game, state: Any, player: int) -> bool:
    return game.current_player(state) == TERMINAL and game.returns(state)[player] > 0
