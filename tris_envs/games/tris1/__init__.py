"""Tris 1 (tic-tac-toe with Tris 2's dice): :mod:`~tris_envs.games.tris1.state` (positions and
tables), :mod:`~tris_envs.games.tris1.notation`, :mod:`~tris_envs.games.tris1.drawing`,
:mod:`~tris_envs.games.tris1.rules` (the :class:`Tris1` game)."""

from tris_envs.games.tris1.rules import Tris1
from tris_envs.games.tris1.state import (
    DRAW,
    FULL,
    LINE_MASKS,
    LINES,
    ONGOING,
    SYMBOLS,
    O,
    Tris1State,
    X,
    has_line,
)

__all__ = ["DRAW", "FULL", "LINES", "LINE_MASKS", "ONGOING", "SYMBOLS", "O", "Tris1",
           "Tris1State", "X", "has_line"]
