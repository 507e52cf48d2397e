"""Tant Fant: :mod:`~tris_envs.games.tant_fant.state` (positions, board geometry, move tables),
:mod:`~tris_envs.games.tant_fant.notation`, :mod:`~tris_envs.games.tant_fant.drawing`,
:mod:`~tris_envs.games.tant_fant.rules` (the :class:`TantFant` game)."""

from tris_envs.games.tant_fant.rules import TantFant
from tris_envs.games.tant_fant.state import (
    BASE_RANK,
    BLACK,
    COLOR_NAMES,
    DIAGONALS,
    DRAW,
    LINES,
    NEIGHBOURS,
    ONGOING,
    POINT_NAMES,
    START,
    WHITE,
    TantFantState,
)

__all__ = ["BASE_RANK", "BLACK", "COLOR_NAMES", "DIAGONALS", "DRAW", "LINES", "NEIGHBOURS",
           "ONGOING", "POINT_NAMES", "START", "WHITE", "TantFant", "TantFantState"]
