"""Tant Fant: :mod:`.state` (positions, board geometry, move tables), :mod:`.notation`,
:mod:`.drawing`, :mod:`.rules` (the :class:`TantFant` game)."""

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
