"""Doppia scelta: two robots on a CodyColor board; move yours by the color under either robot.

| Import             | `from tris_envs import doppia_scelta_v0`                              |
|--------------------|-----------------------------------------------------------------------|
| Agents             | `player_0` (White robot, moves first), `player_1` (Black robot)       |
| Actions            | Discrete(78): 0 turn left (yellow), 1 straight (gray), 2 turn right (red); `3 + cell*3 + color` colors cell `r*5 + c` (coloring phase) |
| Observation        | (5, 5, 23) int8: colors Y G R; my robot; my facing N E S W; their robot; their facing; my goal exit N E S W; their goal exit; uncolored; coloring phase |
| Options            | `scheme="crossing"`/`"shared_goal"`/`"swap"`, `gates=None`, `setup="random"`/`"coloring"`, `board=None`, `fair=False`, `max_moves=100` |
| Rewards            | +1 win (own robot leaves through its goal gate), -1 loss, 0 draw, stalemate or truncation |

Each cell is yellow (turn left), gray (straight) or red (turn right). On its turn a player
picks the instruction of the color under its own robot or under the opponent's robot; its
robot turns, then steps forward unless it faces the border. Options that let the robot
proceed are forced over those that do not. Rules as implemented: docs/games/doppia_scelta.md
and :mod:`tris_envs.games.doppia_scelta`.

Version history: v0, first release.
"""

from tris_envs.envs.classic import environment_module

raw_env, env = environment_module("doppia_scelta", __name__)
