"""Generic exact solver: retrograde analysis over the reachable position graph.

Works for any deterministic two-player :class:`~tris_envs.core.game.Game` whose states are
hashable. Positions are enumerated from a root, then solved backwards from the terminal
positions: a position is a win for its mover as soon as one move reaches a position lost
for the opponent; it is decided otherwise only once every move is decided. Positions that
are never decided can be held forever by both sides: endless play counts as a draw.

Processing decided positions in first-in first-out order yields distances as well: the
fastest win and the slowest loss, which a perfect agent needs (in a won position most
value-keeping moves can circle forever).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Generic, TypeVar

import numpy as np

from tris_envs.core.game import CHANCE, TERMINAL, Game

S = TypeVar("S", bound=Hashable)

UNDECIDED_PLIES = -1


@dataclass
class Solution(Generic[S]):
    """The solved position graph below a root.

    Attributes:
        states: Every reachable position; ``states[0]`` is the root.
        index: Position -> its row in the arrays below.
        values: Game value per position from ``player_0``'s view: +1 win, 0 draw, -1 loss.
        plies: Plies to the end under optimal play (fastest win, slowest loss) for decided
            positions, ``-1`` for draws.
        actions: The legal actions of each position.
        children: Row of the position each of those actions leads to.
        movers: ``current_player`` of each position.
    """

    states: list[S]
    index: dict[S, int]
    values: np.ndarray
    plies: np.ndarray
    actions: list[tuple[int, ...]]
    children: list[tuple[int, ...]]
    movers: list[int]

    def __len__(self) -> int:
        return len(self.states)

    def row(self, state: S) -> int:
        """Row of ``state``; ``KeyError`` if it is not reachable from the root."""
        try:
            return self.index[state]
        except KeyError:
            raise KeyError(f"position not reachable from the solved root: {state!r}") from None

    def value(self, state: S, player: int = 0) -> int:
        """+1 / 0 / -1: the result of ``state`` for ``player`` under perfect play."""
        v = int(self.values[self.row(state)])
        return v if player == 0 else -v

    def optimal_actions(self, state: S) -> list[int]:
        """Every action that keeps the mover's game value."""
        i = self.row(state)
        target = self.values[i]
        return [a for a, c in zip(self.actions[i], self.children[i]) if self.values[c] == target]

    def best_actions(self, state: S) -> list[int]:
        """Value-keeping actions that win fastest or lose slowest (all of them in a draw)."""
        i = self.row(state)
        mover = self.movers[i]
        if mover == TERMINAL:
            return []
        keep = [(a, c) for a, c in zip(self.actions[i], self.children[i])
                if self.values[c] == self.values[i]]
        value_for_mover = self.values[i] if mover == 0 else -self.values[i]
        if value_for_mover == 0:
            return [a for a, _ in keep]
        pick = min if value_for_mover > 0 else max
        best = pick(int(self.plies[c]) for _, c in keep)
        return [a for a, c in keep if self.plies[c] == best]


def solve(game: Game[S], root: S, max_states: int = 10_000_000) -> Solution[S]:
    """Solve every position reachable from ``root``.

    Raises:
        ValueError: the game has chance nodes, a non-terminal position has no legal
            action, or more than ``max_states`` positions are reachable.
    """
    if not game.info.deterministic:
        raise ValueError(f"{game.info.name} has chance nodes; the exact solver needs a "
                         "deterministic game")
    index: dict[S, int] = {root: 0}
    states: list[S] = [root]
    actions: list[tuple[int, ...]] = []
    children: list[tuple[int, ...]] = []
    movers: list[int] = []
    i = 0
    while i < len(states):
        state = states[i]
        mover = game.current_player(state)
        if mover == CHANCE:
            raise ValueError(f"{game.info.name}: chance node reached; cannot solve exactly")
        legal = tuple(game.legal_actions(state)) if mover != TERMINAL else ()
        if mover != TERMINAL and not legal:
            raise ValueError(f"{game.info.name}: non-terminal position without legal "
                             f"actions: {game.to_notation(state)}")
        rows = []
        for action in legal:
            child = game.apply(state, action)
            j = index.get(child)
            if j is None:
                j = len(states)
                if j >= max_states:
                    raise ValueError(f"more than max_states={max_states} positions reachable")
                index[child] = j
                states.append(child)
            rows.append(j)
        movers.append(mover)
        actions.append(legal)
        children.append(tuple(rows))
        i += 1

    n = len(states)
    parents: list[list[int]] = [[] for _ in range(n)]
    for p, child_rows in enumerate(children):
        for c in child_rows:
            parents[c].append(p)

    values = np.zeros(n, dtype=np.int8)
    plies = np.full(n, UNDECIDED_PLIES, dtype=np.int32)
    decided = np.zeros(n, dtype=bool)
    remaining = [len(rows) for rows in children]
    best_for_mover = [-1] * n
    queue: deque[int] = deque()
    for i, mover in enumerate(movers):
        if mover == TERMINAL:
            r0, r1 = game.returns(states[i])
            values[i] = (r0 > r1) - (r0 < r1)
            if values[i]:
                plies[i] = 0
            decided[i] = True
            queue.append(i)

    while queue:
        c = queue.popleft()
        vc = int(values[c])
        for p in parents[c]:
            if decided[p]:
                continue
            sign = 1 if movers[p] == 0 else -1
            v = vc * sign
            if v == 1:
                values[p] = sign
                plies[p] = plies[c] + 1
            else:
                if v > best_for_mover[p]:
                    best_for_mover[p] = v
                remaining[p] -= 1
                if remaining[p]:
                    continue
                values[p] = best_for_mover[p] * sign
                if values[p]:
                    plies[p] = plies[c] + 1
            decided[p] = True
            queue.append(p)

    return Solution(states, index, values, plies, actions, children, movers)
