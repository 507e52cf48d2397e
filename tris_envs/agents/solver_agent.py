"""Perfect play from the generic exact solver (:func:`tris_envs.core.solve`).

Each game says through :meth:`~tris_envs.core.game.Game.solver_root` which game to solve,
from which root, and which state to look up (Tant Fant with ``repetition_draw`` is solved
without the repetition rule, Doppia scelta per board from its opening); games too large to
solve refuse there. The registry's :attr:`~tris_envs.games.GameSpec.solvable` lists the
games that answer. Solutions are computed lazily and cached per process, keyed by (game
name, options except ``max_moves``, root), so agents rebuilt for every game of a match
share them.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np

from tris_envs.agents.cache import LRUCache
from tris_envs.core.game import TERMINAL, Game
from tris_envs.core.solver import Solution, solve

CACHE_SIZE = 16
"""Solutions kept per process (least recently used dropped first)."""

_CACHE: LRUCache[Hashable, Solution] = LRUCache(CACHE_SIZE)


def solution_for(game: Game, state: Any) -> tuple[Solution, Any]:
    """The (cached) solution covering ``state`` and the state to look up in it.

    A position the root does not reach is solved from itself.

    Raises:
        ValueError: the game cannot be solved (or not in this phase).
    """
    target, root, lookup = game.solver_root(state)
    solution = _cached_solution(target, root)
    if lookup not in solution.index:
        solution = _cached_solution(target, lookup)
    return solution, lookup


def is_value_keeping(game: Game, state: Any, action: int) -> bool | None:
    """Whether ``action`` in ``state`` keeps the solver's game value; ``None`` where the
    solver does not judge the position (a game without one, Doppia scelta's coloring
    phase)."""
    try:
        solution, lookup = solution_for(game, state)
    except ValueError:
        return None
    return action in solution.optimal_actions(lookup)


def move_result(game: Game, state: Any, action: int, player: int) -> tuple[int, int]:
    """``action``'s result in ``state`` under perfect play for ``player`` (+1, 0 or -1)
    and the plies to the end, the move included (-1: a draw, which has no end).

    Raises:
        ValueError: the solver does not cover the position after the move.
    """
    child = game.apply(state, action)
    if game.current_player(child) == TERMINAL:
        value = int(np.sign(game.returns(child)[player]))
        return value, 1 if value else -1
    solution, lookup = solution_for(game, child)
    plies = int(solution.plies[solution.row(lookup)])
    return solution.value(lookup, player), plies + 1 if plies >= 0 else plies


def outcome(value: int) -> str:
    """``"win"``, ``"draw"`` or ``"loss"`` for +1, 0, -1."""
    return {1: "win", 0: "draw", -1: "loss"}[value]


def result_text(value: int, plies: int) -> str:
    """``"win in 3 plies"``, ``"draw"``, ``"loss in 4 plies"`` (``plies`` -1: none given)."""
    word = outcome(value)
    return word if value == 0 or plies < 0 else f"{word} in {plies} plies"


def _cached_solution(game: Game, root: Any) -> Solution:
    options = {k: v for k, v in game.options().items() if k != "max_moves"}
    key = (game.info.name, repr(sorted(options.items())), root)
    return _CACHE.get(key, lambda: solve(game, root))


class SolverAgent:
    """Perfect play: the fastest win, the slowest loss, a random draw-keeping move.

    Args:
        rng: Generator for the choice among equally good moves.
    """

    name = "solver"

    def __init__(self, rng: np.random.Generator | None = None) -> None:
        self.rng = rng if rng is not None else np.random.default_rng()

    def act(self, game: Game, state: Any) -> int:
        """A perfect move; ``ValueError`` for a game without an exact solver."""
        solution, lookup = solution_for(game, state)
        best = solution.best_actions(lookup)
        if not best:
            raise ValueError(f"solver: no move in {game.to_notation(state)!r}, the game is "
                             "over")
        return int(best[self.rng.integers(len(best))])

    def evaluate(self, game: Game, state: Any) -> tuple[int, int]:
        """The mover's result under perfect play (+1, 0, -1) and the plies to the end.

        Plies are ``-1`` for a draw (endless play included).

        Raises:
            ValueError: no exact solver for this game, or the game is over.
        """
        player = game.current_player(state)
        if player < 0:
            raise ValueError(f"solver: no player to move in {game.to_notation(state)!r}")
        solution, lookup = solution_for(game, state)
        return solution.value(lookup, player), int(solution.plies[solution.row(lookup)])
