"""Tritoc: dice-driven 9×9 tic-tac-toe; conquer three fields in a row.

| Import             | `from tris_envs import tritoc_v0`                                  |
|--------------------|--------------------------------------------------------------------|
| Agents             | `player_0` (White, moves first), `player_1` (Black)                |
| Actions            | Discrete(82): hole `row*9 + col` (place or remove, as the roll says), 81 pass |
| Observation        | (9, 9, 24) int8: mine, theirs, hole number 3..11, fields conquered by me / them, dice sum 2..12 |
| Options            | `layout`, `dice`, `max_rerolls=3`, `reward`, `max_moves=500`       |
| Rewards            | `win_loss`: +1 win, -1 loss, 0 draw or truncation; `points`: +1 per conquered field, +5 for the win |
| Infos              | `infos[agent]["score"]`: 1 per conquered field, 5 for winning      |

The dice are rolled by the environment (a chance node of the rules core, rerolls folded in);
the agent to move sees the sum in its observation. Rules as implemented: docs/games/tritoc.md
and :mod:`tris_envs.games.tritoc`.

Version history: v0, first release.
"""

from tris_envs.envs.classic import environment_module

raw_env, env = environment_module("tritoc", __name__)
