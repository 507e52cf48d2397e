"""Rules-core protocol, errors, option checks and the generic exact solver."""

from tris_envs.core.errors import IllegalActionError
from tris_envs.core.game import (
    CHANCE,
    TERMINAL,
    Game,
    GameInfo,
    advance,
    resolve_chance,
    sample_outcome,
)
from tris_envs.core.solver import Solution, solve

__all__ = ["CHANCE", "TERMINAL", "Game", "GameInfo", "advance", "IllegalActionError", "Solution",
           "resolve_chance", "sample_outcome", "solve"]
