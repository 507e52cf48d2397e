"""Tris 2: :mod:`~tris_envs.games.tris2.moves` (the grid's geometry and move generation),
:mod:`~tris_envs.games.tris2.state` (positions, action numbers, observation planes),
:mod:`~tris_envs.games.tris2.notation`, :mod:`~tris_envs.games.tris2.drawing`,
:mod:`~tris_envs.games.tris2.rules` (the :class:`Tris2` game); each imports only the ones before
it."""

from tris_envs.games.tris2.moves import DIRECTIONS, FRAME, ORIENTATIONS, SYMBOLS
from tris_envs.games.tris2.rules import Tris2
from tris_envs.games.tris2.state import (
    DRAW,
    LAST_PLANE,
    NUM_ACTIONS,
    NUM_DICE,
    OBSERVATION_SHAPE,
    ONGOING,
    PLACEMENT_BASE,
    PLANES,
    PLAYER_NAMES,
    SETUP_TOPS,
    Tris2State,
)

__all__ = ["DIRECTIONS", "DRAW", "FRAME", "LAST_PLANE", "NUM_ACTIONS", "NUM_DICE",
           "OBSERVATION_SHAPE", "ONGOING", "ORIENTATIONS", "PLACEMENT_BASE", "PLANES",
           "PLAYER_NAMES", "SETUP_TOPS", "SYMBOLS", "Tris2", "Tris2State"]
