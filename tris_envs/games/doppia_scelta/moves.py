"""Doppia scelta robot movement by pose, whatever the board: :func:`move_tables`."""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

from tris_envs.games.doppia_scelta.state import CELLS, EXITED, FORWARD


class MoveTables(NamedTuple):
    """Movement of one robot, by pose, whatever the board (its goal gate fixed).

    ``after[pose*3 + i]``: pose after instruction ``i`` (moved, turned in place, or
    :data:`EXITED`); ``stuck[pose]``: faces the border and not its goal exit;
    ``legal[pose*8 + offered]``: legal instructions for the bit set of offered ones.
    """

    after: tuple[int, ...]
    stuck: tuple[bool, ...]
    legal: tuple[tuple[int, ...], ...]


@cache
def move_tables(goal: int) -> MoveTables:
    """The :class:`MoveTables` of a robot whose goal exit pose is ``goal``."""
    after: list[int] = []
    proceeds: list[bool] = []
    for pose in range(CELLS * 4):
        for i in range(3):
            turned = pose & ~3 | (pose + i + 3) & 3
            if turned == goal:
                after.append(EXITED)
            elif FORWARD[turned] >= 0:
                after.append(FORWARD[turned])
            else:
                after.append(turned)
            proceeds.append(turned == goal or FORWARD[turned] >= 0)
    stuck = tuple(FORWARD[pose] < 0 and pose != goal for pose in range(CELLS * 4))
    legal: list[tuple[int, ...]] = []
    for pose in range(CELLS * 4):
        for offered in range(8):
            options = [i for i in range(3) if offered >> i & 1]
            going = [i for i in options if proceeds[pose * 3 + i]]
            legal.append(tuple(going or options))
    return MoveTables(tuple(after), stuck, tuple(legal))
