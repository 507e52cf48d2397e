"""Tant Fant positions, board geometry and move tables (docs/games/tant_fant.md).

Board and indices (``p = row*3 + col``, row 0 = rank 1)::

    rank 3   6 ─ 7 ─ 8        a3 ─ b3 ─ c3     Black's base (start)
             │ ╲ │ ╱ │
    rank 2   3 ─ 4 ─ 5        a2 ─ b2 ─ c2
             │ ╱ │ ╲ │
    rank 1   0 ─ 1 ─ 2        a1 ─ b1 ─ c1     White's base (start)

Lines: three ranks, three files, two long diagonals. A move takes one own piece along a
line to the adjacent empty point: action ``from*9 + to``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from tris_envs.core.policy import PolicyLayout

WHITE, BLACK = 0, 1
ONGOING, DRAW = -1, 2
COLOR_NAMES = ("White", "Black")
POINT_NAMES = tuple(f"{'abc'[p % 3]}{p // 3 + 1}" for p in range(9))

LINES: tuple[tuple[int, int, int], ...] = (
    (0, 1, 2), (3, 4, 5), (6, 7, 8),
    (0, 3, 6), (1, 4, 7), (2, 5, 8),
    (0, 4, 8), (2, 4, 6),
)
DIAGONALS = LINES[6:]
BASE_RANK = (0b000_000_111, 0b111_000_000)
START = (BASE_RANK[WHITE], BASE_RANK[BLACK])


def mask(points: tuple[int, ...]) -> int:
    """The bit set of ``points``."""
    return sum(1 << p for p in points)


NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(
    tuple(sorted({line[i + d] for line in LINES for i in range(3)
                  if line[i] == p for d in (-1, 1) if 0 <= i + d < 3}))
    for p in range(9)
)
BITS = np.array([[(m >> p) & 1 for p in range(9)] for m in range(512)], dtype=np.int8)
BASE_PLANES = (BITS[BASE_RANK[WHITE]], BITS[BASE_RANK[BLACK]])
# (own, occupied) -> legal actions; shared by every TantFant instance (movement has no options)
_MOVES: dict[tuple[int, int], tuple[int, ...]] = {}


def moves(own: int, occupied: int) -> tuple[int, ...]:
    """The legal actions of the side with pieces ``own`` among the ``occupied`` points."""
    key = (own, occupied)
    moves = _MOVES.get(key)
    if moves is None:
        moves = tuple(sorted(p * 9 + q for p in range(9) if own >> p & 1
                             for q in NEIGHBOURS[p] if not occupied >> q & 1))
        _MOVES[key] = moves
    return moves


class TantFantState(NamedTuple):
    """A Tant Fant position.

    Attributes:
        white: Bit mask of White's points (bit ``p`` = point ``p``).
        black: Bit mask of Black's points.
        to_move: ``0`` White, ``1`` Black (at a terminal state: who would move next).
        result: ``-1`` ongoing, ``0`` White won, ``1`` Black won, ``2`` draw.
        ending: How the game ended: ``""``, ``"line"``, ``"stalemate"``, ``"repetition"``.
        history: Position keys since reset (only with ``repetition_draw=True``).
    """

    white: int
    black: int
    to_move: int
    result: int = ONGOING
    ending: str = ""
    history: tuple[int, ...] = ()




def winning_line(state: TantFantState) -> tuple[int, ...]:
    """The points of the winner's line (``()`` unless the game was won by a line)."""
    if state.ending != "line":
        return ()
    own = state.white if state.result == WHITE else state.black
    return tuple(p for p in range(9) if own >> p & 1)


def point_char(state: TantFantState, p: int) -> str:
    """``W``, ``B`` or ``.`` on point ``p``."""
    return "W" if state.white >> p & 1 else "B" if state.black >> p & 1 else "."


POLICY_LAYOUT = PolicyLayout(9, 0, lambda a: (a // 27, a // 9 % 3, a % 9))
"""Nine logit maps: the from-point's cell, channel = the to-point
(:class:`~tris_envs.core.policy.PolicyLayout`)."""
