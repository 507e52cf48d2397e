"""Tris 1 positions and board tables (docs/games/tris1.md).

Cells, row-major, row 0 = top::

    0 │ 1 │ 2
    ──┼───┼──
    3 │ 4 │ 5
    ──┼───┼──
    6 │ 7 │ 8
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from tris_envs.core.policy import PolicyLayout

X, O = 0, 1  # noqa: E741 - the symbols of the game
ONGOING, DRAW = -1, 2
SYMBOLS = ("X", "O")
FULL = 0b111_111_111
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
LINE_MASKS = tuple(sum(1 << p for p in line) for line in LINES)
LINES_THROUGH: tuple[tuple[int, ...], ...] = tuple(
    tuple(m for m in LINE_MASKS if m >> cell & 1) for cell in range(9)
)
BITS = np.array([[(m >> p) & 1 for p in range(9)] for m in range(512)], dtype=np.int8)
"""Row ``m``: the nine cells of bit set ``m`` as 0/1."""
EMPTY_CELLS: tuple[tuple[int, ...], ...] = tuple(
    tuple(c for c in range(9) if not occ >> c & 1) for occ in range(512)
)
"""Entry ``occ``: the cells outside the bit set ``occ``."""


def has_line(mask: int) -> bool:
    """Whether the cells of ``mask`` (a bit set, bit ``r*3 + c``) hold a line."""
    return any(mask & m == m for m in LINE_MASKS)


class Tris1State(NamedTuple):
    """A Tris 1 position: bit masks of X and O cells, the mover and the result.

    ``result``: ``-1`` ongoing, ``0`` X won, ``1`` O won, ``2`` draw.
    """

    x: int
    o: int
    to_move: int
    result: int = ONGOING


def symbol(state: Tris1State, cell: int, empty: str) -> str:
    """``X`` or ``O`` on ``cell``, else ``empty``."""
    return "X" if state.x >> cell & 1 else "O" if state.o >> cell & 1 else empty


def winning_line(state: Tris1State) -> tuple[int, ...]:
    """The cells of the winner's line (``()`` unless the game was won)."""
    if state.result not in (X, O):
        return ()
    own = state.x if state.result == X else state.o
    return next(line for line, mask in zip(LINES, LINE_MASKS) if own & mask == mask)


POLICY_LAYOUT = PolicyLayout(1, 0, lambda a: (a // 3, a % 3, 0))
"""One logit map: the cell's (:class:`~tris_envs.core.policy.PolicyLayout`)."""
