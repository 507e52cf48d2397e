"""Perfect play from the generic exact solver (:func:`tris_envs.core.solve`).

The agent maps each position to a solved graph through a per-game *adapter*, registered in
:data:`SOLVABLE` under ``game.info.name``. An adapter returns the game to solve, the root to
solve from and the state to look up in that solution. Solutions are computed lazily and
cached per process, keyed by (game name, options except ``max_moves``, root), so agents
rebuilt for every game of a match share them.

Tant Fant with ``repetition_draw=True`` is solved as the same game without the repetition
rule, and positions are looked up with their history stripped. The values agree for the
solver's own play: once a game reaches a position won for the solver's side, the fastest win
strictly lowers the distance to the end on every ply, whatever the opponent does, so no
later position repeats, and none equals an earlier position (those were not won for that
side, or the game would already be over). A drawn position stays a draw (each side can
still avoid losing, and a repetition is a draw), and a lost position is met with the
slowest loss, which leaves the opponent the most chances to repeat. Only when the solver
takes over a game whose history already passed twice through a position won for its side
can the stripped value be optimistic.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

import numpy as np

from tris_envs.agents.base import LRUCache
from tris_envs.core.game import Game
from tris_envs.core.solver import Solution, solve

Adapter = Callable[[Game, Any], tuple[Game, Any, Any]]
"""``(game, state) -> (game to solve, root to solve from, state to look up)``."""

CACHE_SIZE = 16
"""Solutions kept per process (least recently used dropped first)."""

_CACHE: LRUCache[Hashable, Solution] = LRUCache(CACHE_SIZE)


def _solve_as_is(game: Game, state: Any) -> tuple[Game, Any, Any]:
    """Solve the game itself from its start position."""
    return game, game.initial_state(np.random.default_rng(0)), state


def _tant_fant(game: Game, state: Any) -> tuple[Game, Any, Any]:
    """Tant Fant; with ``repetition_draw`` the repetition-free game, history stripped."""
    if not game.options()["repetition_draw"]:
        return _solve_as_is(game, state)
    options = dict(game.options(), repetition_draw=False)
    plain = type(game)(**options)
    return plain, plain.initial_state(np.random.default_rng(0)), state._replace(history=())


def _doppia_scelta(game: Game, state: Any) -> tuple[Game, Any, Any]:
    """Doppia scelta, solved per board from the opening; not during the coloring phase."""
    from tris_envs.games.doppia_scelta import NOT_ENTERED, format_board

    if state.white == NOT_ENTERED:
        raise ValueError("the solver agent cannot play Doppia scelta's coloring phase: "
                         "it solves a board once it is fully colored")
    return game, game.opening(format_board(state.colors)), state


SOLVABLE: dict[str, Adapter] = {"tant_fant": _tant_fant, "tris1": _solve_as_is,
                                "doppia_scelta": _doppia_scelta}
"""Adapters by ``game.info.name``; register one here to make another game solvable."""


def solution_for(game: Game, state: Any) -> tuple[Solution, Any]:
    """The (cached) solution covering ``state`` and the state to look up in it.

    A position the adapter's root does not reach is solved from itself.

    Raises:
        ValueError: no adapter for this game.
    """
    adapter = SOLVABLE.get(game.info.name)
    if adapter is None:
        raise ValueError(f"the solver agent cannot play {game.info.name!r}: exact solving "
                         f"is supported for {', '.join(sorted(SOLVABLE))}")
    target, root, lookup = adapter(game, state)
    solution = _cached_solution(target, root)
    if lookup not in solution.index:
        solution = _cached_solution(target, lookup)
    return solution, lookup


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
