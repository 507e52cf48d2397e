"""Depth-limited alpha-beta search over the rules core, for every game.

:class:`AlphaBetaAgent` searches ``plies`` moves ahead (chance outcomes do not count as
plies) with negamax and alpha-beta pruning at player nodes and the exact expectation at
chance nodes (expectimax over :meth:`~tris_envs.core.game.Game.chance_outcomes`; no
pruning across a chance node). The score of a finished game is
``returns * (WIN - plies from the root)``, so the search takes the fastest win and the
slowest loss; an unfinished leaf is worth the game's
:meth:`~tris_envs.core.game.Game.heuristic` (0 unless a game defines one), which stays
within (-1, 1), below any decided result. A chance node at the horizon is such a leaf too
(its outcomes are not expanded): on Tritoc, where every ply ends in a roll, one leaf
instead of one per outcome of the roll. Setup turns (Tris 2's placement, Doppia scelta's
coloring) are ordinary moves.

It deepens iteratively (1, 2, ... ``plies``), trying the previous iteration's best move
first and winning moves before the others, and keeps a transposition table of each
iteration's positions, keyed by the hashable state and its distance from the root. With a
time budget it returns the best move of the deepest iteration that finished (at least
depth 1). Truncation by ``max_moves`` is not modelled. Among equally good root moves it
picks one at random with its generator.

Specs: ``alphabeta`` (4 plies), ``alphabeta:<plies>``, ``alphabeta:<seconds>s``.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from tris_envs.core.game import CHANCE, TERMINAL, Game

WIN = 1_000.0
"""Score of a win at the root; a win ``k`` plies later scores ``WIN - k``."""

DEFAULT_PLIES = 4
MAX_PLIES = 64
"""The deepest search a spec may ask for (deeper only makes sense on solvable games)."""

_EXACT, _LOWER, _UPPER = 0, 1, 2


class _OutOfTime(Exception):
    """Raised inside the search when the time budget is spent."""


class AlphaBetaAgent:
    """Negamax with alpha-beta, expectimax at chance nodes, iterative deepening.

    Args:
        plies: Search depth in player moves (1..:data:`MAX_PLIES`); with ``time_budget``
            the deepest iteration tried.
        time_budget: Seconds per move, or ``None`` for a fixed depth.
        rng: Generator for the choice among equally good moves.

    Raises:
        ValueError: ``plies`` or ``time_budget`` out of range.
    """

    def __init__(self, plies: int | None = DEFAULT_PLIES, time_budget: float | None = None,
                 rng: np.random.Generator | None = None) -> None:
        if time_budget is not None and not (0 < time_budget < math.inf):
            raise ValueError(f"alphabeta time budget {time_budget!r} must be a positive number "
                             "of seconds")
        depth = MAX_PLIES if plies is None else plies
        if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= MAX_PLIES:
            raise ValueError(f"alphabeta plies {plies!r} must be an integer from 1 to "
                             f"{MAX_PLIES}")
        self.plies = depth
        self.time_budget = time_budget
        self.rng = rng if rng is not None else np.random.default_rng()
        self.name = (f"alphabeta:{time_budget:g}s" if time_budget is not None
                     else f"alphabeta:{depth}")
        self.nodes = 0
        self.depth_reached = 0

    # ----- public ------------------------------------------------------------------------
    def act(self, game: Game, state: Any) -> int:
        """The best action found for the player to move (ties broken at random)."""
        values = self.root_values(game, state)
        best = max(values.values())
        choices = [a for a, v in values.items() if v >= best - 1e-9]
        return int(choices[self.rng.integers(len(choices))])

    def root_values(self, game: Game, state: Any) -> dict[int, float]:
        """The searched score of the legal actions, from the mover's point of view.

        The best actions' scores are exact; the others' are upper bounds below the best.
        Scores of decided games are ``±(WIN - plies)``; the deepest finished iteration
        counts.

        Raises:
            ValueError: nobody is to move in ``state`` (a chance node or the end).
        """
        if game.current_player(state) < 0:
            raise ValueError(f"alphabeta: no player to move in {game.to_notation(state)!r}")
        self._game = game
        self._deadline = (None if self.time_budget is None
                          else time.perf_counter() + self.time_budget)
        self._hints: dict[Any, int] = {}
        self.nodes = 0
        actions = list(game.legal_actions(state))
        values: dict[int, float] = {}
        for depth in range(1, self.plies + 1):
            try:
                values = self._root(state, actions, depth)
            except _OutOfTime:
                break
            self.depth_reached = depth
            actions.sort(key=lambda a: -values[a])
            if abs(max(values.values())) >= WIN - depth:
                break  # a decided result within the horizon: deeper search cannot change it
        if not values:  # the budget ran out in the first iteration: finish it without one
            self._deadline = None
            values = self._root(state, actions, 1)
            self.depth_reached = 1
        return values

    # ----- search ------------------------------------------------------------------------
    def _root(self, state: Any, actions: list[int], depth: int) -> dict[int, float]:
        game = self._game
        self._table: dict[tuple[Any, int], tuple[int, float]] = {}
        mover = game.current_player(state)
        values = {}
        alpha = -math.inf
        for action in actions:
            child = game.apply(state, action)
            # a root move's exact value is needed only to break ties, so search with a
            # window that still tells equal moves from worse ones
            value = self._value(child, mover, depth - 1, 1, alpha - 1e-6, math.inf)
            values[action] = value
            alpha = max(alpha, value)
        return values

    def _value(self, state: Any, me: int, depth: int, ply: int, alpha: float,
               beta: float) -> float:
        """Score of ``state`` for player ``me``, who moved into it (or rolled into it)."""
        game = self._game
        player = game.current_player(state)
        if player == TERMINAL:
            result = game.returns(state)[me]
            return 0.0 if result == 0 else math.copysign(WIN - ply, result)
        if player == CHANCE:
            if depth == 0:
                return game.heuristic(state, me)
            return sum(p * self._value(game.apply(state, outcome), me, depth, ply,
                                       -math.inf, math.inf)
                       for outcome, p in game.chance_outcomes(state))
        if depth == 0:
            return game.heuristic(state, me)
        self.nodes += 1
        if self._deadline is not None and self.nodes & 255 == 0 \
                and time.perf_counter() > self._deadline:
            raise _OutOfTime
        sign = 1.0 if player == me else -1.0
        entry = self._table.get((state, ply))
        if entry is not None:
            flag, stored = entry
            stored *= sign  # stored from the mover's view
            if flag == _EXACT:
                return stored
            if flag == (_LOWER if sign > 0 else _UPPER):
                alpha = max(alpha, stored)
            else:
                beta = min(beta, stored)
            if alpha >= beta:
                return stored
        # negamax in the mover's view: maximise sign * value over (sign*alpha, sign*beta)
        low, high = (alpha, beta) if sign > 0 else (-beta, -alpha)
        best = -math.inf
        best_action = None
        for action, child in self._ordered(state, player):
            value = sign * self._value(child, me, depth - 1, ply + 1,
                                       *((low, high) if sign > 0 else (-high, -low)))
            if value > best:
                best, best_action = value, action
            low = max(low, value)
            if low >= high:
                break
        original_low = alpha if sign > 0 else -beta
        original_high = beta if sign > 0 else -alpha
        flag = (_UPPER if best <= original_low else _LOWER if best >= original_high
                else _EXACT)
        self._table[state, ply] = (flag, best)
        if best_action is not None:
            self._hints[state] = best_action
        return sign * best

    def _ordered(self, state: Any, player: int) -> list[tuple[int, Any]]:
        """``(action, child)`` pairs: the move that was best one iteration shallower first,
        then the moves that win at once, then the others."""
        game = self._game
        hint = self._hints.get(state)
        first, wins, others = [], [], []
        for action in game.legal_actions(state):
            child = game.apply(state, action)
            if action == hint:
                first.append((action, child))
            elif game.current_player(child) == TERMINAL and game.returns(child)[player] > 0:
                wins.append((action, child))
            else:
                others.append((action, child))
        return first + wins + others
