"""Tris 2: nine dice rolled across an open grid; three equal top symbols in a line win.

| Import             | `from tris_envs import tris2_v0`                                  |
|--------------------|-------------------------------------------------------------------|
| Agents             | `player_0` (moves first), `player_1`; nobody owns a symbol        |
| Actions            | Discrete(378): roll `(r*9 + c)*4 + d` (d: 0 N, 1 E, 2 S, 3 W) for  |
|                    | frame cell (r, c); place `324 + cell*6 + k` (placement setup)     |
| Observation        | (9, 9, 11) int8 on the frame: occupied; top X, O, /; north-south  |
|                    | X, O, /; east-west X, O, /; the die moved last (same for both)    |
| Options            | `setup="random"` or `"placement"`, `max_side=None` (4 = "rule of  |
|                    | 4"), `max_moves=200`                                              |
| Rewards            | +1 win, -1 loss, 0 draw (no legal move) or truncation             |

The frame is the dice's bounding box, re-anchored at its top-left cell after every move.
Rules as implemented: docs/games/tris2.md and :mod:`tris_envs.games.tris2`. The ``ansi`` render
is :meth:`~tris_envs.games.tris2.Tris2.render_text`: each die with its top and side faces
(``env.unwrapped.game.render_text(env.unwrapped.game_state, hidden=True)``: each die's
token, one line per row).

Version history: v0, first release.
"""

from tris_envs.envs.classic import environment_module

raw_env, env = environment_module("tris2", __name__)
