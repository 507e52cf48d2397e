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
the agent to move sees the sum in its observation. Rules as implemented: README "Tritoc"
and :mod:`tris_envs.games.tritoc`.

Version history: v0, first release.
"""

from typing import Any

from tris_envs.envs.aec import GameEnv
from tris_envs.envs.classic import classic_env
from tris_envs.games.tritoc import Tritoc


class raw_env(GameEnv):  # noqa: N801 - PettingZoo naming
    """Unwrapped Tritoc environment; ``infos[agent]["score"]`` holds each player's score."""

    game_class = Tritoc
    metadata = GameEnv.make_metadata("tritoc_v0")


def env(**kwargs: Any) -> Any:
    """Tritoc with PettingZoo's classic-game wrappers (illegal move: -1 and game over)."""
    return classic_env(raw_env, **kwargs)
