"""Tant Fant: three pieces each on a 3×3 board of lines; align them off your base rank.

| Import             | `from tris_envs import tant_fant_v0`                      |
|--------------------|-----------------------------------------------------------|
| Agents             | `player_0` (White, moves first), `player_1` (Black)       |
| Actions            | Discrete(81): `from*9 + to`, points `row*3 + col`         |
| Observation        | (3, 3, 4) int8: mine, theirs, my base rank, their base    |
| Options            | `stalemate`, `repetition_draw`, `diagonal_only`, `max_moves=100` |
| Rewards            | +1 win, -1 loss, 0 draw or truncation                     |

Rules as implemented: docs/games/tant_fant.md and :mod:`tris_envs.games.tant_fant`.

Version history: v0, first release.
"""

from tris_envs.envs.classic import environment_module

raw_env, env = environment_module("tant_fant", __name__)
