"""Tris 1: Tris 2's dice playing classic tic-tac-toe (all dice start showing "/").

| Import             | `from tris_envs import tris1_v0`                          |
|--------------------|-----------------------------------------------------------|
| Agents             | `player_0` (X, moves first), `player_1` (O)               |
| Actions            | Discrete(9): cell `row*3 + col`, row 0 = top (row-major)  |
| Observation        | (3, 3, 2) int8: mine, theirs                              |
| Options            | `max_moves=9`                                             |
| Rewards            | +1 win, -1 loss, 0 draw                                   |

Plays exactly like PettingZoo's `tictactoe_v3`, whose actions are column-major.

Version history: v0, first release.
"""

from tris_envs.envs.classic import environment_module

raw_env, env = environment_module("tris1", __name__)
