"""Tant Fant: three pieces each on a 3×3 board of lines; align them off your base rank.

| Import             | `from tris_envs import tant_fant_v0`                      |
|--------------------|-----------------------------------------------------------|
| Agents             | `player_0` (White, moves first), `player_1` (Black)       |
| Actions            | Discrete(81): `from*9 + to`, points `row*3 + col`         |
| Observation        | (3, 3, 4) int8: mine, theirs, my base rank, their base    |
| Options            | `stalemate`, `repetition_draw`, `diagonal_only`, `max_moves=100` |
| Rewards            | +1 win, -1 loss, 0 draw or truncation                     |

Rules as implemented: README "Tant Fant" and :mod:`tris_envs.games.tant_fant`.

Version history: v0, first release.
"""

from typing import Any

from tris_envs.envs.aec import GameEnv
from tris_envs.envs.classic import classic_env
from tris_envs.games.tant_fant import TantFant


class raw_env(GameEnv):  # noqa: N801 - PettingZoo naming
    """Unwrapped Tant Fant environment."""

    game_class = TantFant
    metadata = GameEnv.make_metadata("tant_fant_v0")


def env(**kwargs: Any) -> Any:
    """Tant Fant with PettingZoo's classic-game wrappers (illegal move: -1 and game over)."""
    return classic_env(raw_env, **kwargs)
