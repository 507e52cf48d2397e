"""Tris 2 positions, action numbers and observation planes (docs/games/tris2.md)."""

from __future__ import annotations

from itertools import product
from typing import NamedTuple

import numpy as np

from tris_envs.core.policy import PolicyLayout, Slot
from tris_envs.games.tris2.moves import FRAME, FRAME_CELL, ORIENTATIONS, SYMBOLS

PLAYER_NAMES = ("player_0", "player_1")
NUM_DICE = 9
PLACEMENT_BASE = 324
NUM_ACTIONS = 378
OBSERVATION_SHAPE = (FRAME, FRAME, 11)
LAST_PLANE = 10
ONGOING, DRAW = -1, 2


def _valid_setup_tops() -> np.ndarray:
    """Top-symbol patterns of the 3x3 block (cell ``r*3 + c``) allowed as random setups.

    (a) no line of three equal tops; (b) no two edge-middle dice sharing a vertex
    (cells 1-3, 1-5, 3-7, 5-7) show the same top.
    """
    tops = np.array(list(product(range(3), repeat=9)), dtype=np.int8)
    lines = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8),
             (2, 4, 6))
    ok = np.ones(len(tops), dtype=bool)
    for a, b, c in lines:
        ok &= ~((tops[:, a] == tops[:, b]) & (tops[:, b] == tops[:, c]))
    for a, b in ((1, 3), (1, 5), (3, 7), (5, 7)):
        ok &= tops[:, a] != tops[:, b]
    return tops[ok]


SETUP_TOPS = _valid_setup_tops()


def _planes() -> np.ndarray:
    """Observation channels of each board byte (0 empty, ``1 + k`` orientation ``k``)."""
    planes = np.zeros((7, 11), dtype=np.int8)
    for k, orientation in enumerate(ORIENTATIONS):
        planes[k + 1, 0] = 1
        for axis, symbol in enumerate(orientation):
            planes[k + 1, 1 + 3 * axis + SYMBOLS.index(symbol)] = 1
    planes.flags.writeable = False
    return planes


PLANES = _planes()
"""Observation channels (``int8[7, 11]``) of each board byte: the table both the rules
core and :mod:`tris_envs.jax.tris2` read."""


class Tris2State(NamedTuple):
    """A Tris 2 position.

    Attributes:
        board: 81 bytes, the frame row-major (``r*9 + c``): 0 empty, ``1 + k`` a die in
            orientation ``k``.
        top_x: Bit mask (padded grid, ``(r+1)*11 + c+1``) of the dice showing ``X``.
        top_o: Bit mask of the dice showing ``O``.
        top_bar: Bit mask of the dice showing ``/``.
        height: Frame rows (the dice's bounding box; 3 during placement).
        width: Frame columns.
        to_move: ``0`` or ``1`` (at a terminal state: who would move next).
        last: Roll action ``f*4 + d`` of the last move in the current frame (the die's cell
            now and the direction it moved); ``-1`` when there is none.
        result: ``-1`` ongoing, ``0`` / ``1`` that player won, ``2`` draw.
        legal: Legal actions of the player to move as a bit mask, bit ``a`` for action
            ``a`` (derived from the fields above).
    """

    board: bytes
    top_x: int
    top_o: int
    top_bar: int
    height: int
    width: int
    to_move: int
    last: int
    result: int
    legal: int

    @property
    def occupied(self) -> int:
        """Bit mask of all dice."""
        return self.top_x | self.top_o | self.top_bar

    @property
    def placing(self) -> bool:
        """Whether the dice are still being placed (placement setup)."""
        return (self.top_x | self.top_o | self.top_bar).bit_count() < NUM_DICE

    @property
    def odd(self) -> int:
        """Bit mask (padded grid) of the dice in an odd orientation ``k``."""
        board, odd = self.board, 0
        rest = self.top_x | self.top_o | self.top_bar
        while rest:
            low = rest & -rest
            if not board[FRAME_CELL[low.bit_length() - 1]] & 1:   # byte 1 + k, k odd
                odd |= low
            rest ^= low
        return odd


def _policy_slot(action: int) -> Slot:
    """Rolls: frame cell, channel = direction; placements: block cell, 4 + orientation."""
    if action < PLACEMENT_BASE:
        cell, direction = divmod(action, 4)
        return (cell // FRAME, cell % FRAME, direction)
    cell, orientation = divmod(action - PLACEMENT_BASE, 6)
    return (cell // 3, cell % 3, 4 + orientation)


POLICY_LAYOUT = PolicyLayout(10, 0, _policy_slot)
"""The policy head's cells and channels for each action
(:class:`~tris_envs.core.policy.PolicyLayout`)."""
