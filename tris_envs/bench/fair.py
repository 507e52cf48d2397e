"""Fair comparisons: the order in which contenders are timed, the seeds they play, and the
line of provenance under a benchmark's table.

A benchmark that times contender A and then B, every round from the same seed, flatters B
whenever both call code that memoizes what it computes: Tris 2's rules core keeps the rolls
of the occupancies it has met in module-level dicts (``tris_envs.games.tris2.moves``),
Tritoc its action sets (``tris_envs.games.tritoc.moves``), so B would find the positions A
has just computed. Every "ours against theirs" benchmark of :mod:`tris_envs.bench` and of
the checkout's ``benchmarks/`` therefore runs :func:`schedule`: the contenders in turn,
round after round, in the given order on even rounds and in the reverse order on odd ones
(so that any two contenders swap places from one round to the next), each timing with a
seed slot of its own (``round * len(contenders) + index``), so that no
contender plays the games another has played, nor those it played itself in an earlier
round. The best round of each contender is kept.

The memos are not cleared between contenders. Both sides of a comparison of our
environments call the same rules core (and against another library, ours calls it), a
training run keeps the memos filled, and clearing them would time a cold start that no use
meets. What earlier rounds have left in them is shared alike: with the order alternating,
each contender follows the other in half the rounds (an even number of rounds gives each
the first turn equally often).
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import TypeVar

from tris_envs.machine import describe
from tris_envs.progress import duration_text

T = TypeVar("T")


def turns(contenders: Sequence[T], round_: int) -> list[tuple[T, int]]:
    """Round ``round_``'s timings in the order they run: each contender with its seed slot
    ``round_ * len(contenders) + index`` (its index in ``contenders``), in the order of
    ``contenders`` on even rounds and in the reverse order on odd ones."""
    slots = [(contender, round_ * len(contenders) + index)
             for index, contender in enumerate(contenders)]
    return slots if round_ % 2 == 0 else slots[::-1]


def schedule(contenders: Sequence[T], rounds: int) -> list[tuple[int, T, int]]:
    """All ``rounds`` rounds of :func:`turns`, as ``(round, contender, slot)`` in the order
    the timings run; every slot is used once."""
    return [(round_, contender, slot) for round_ in range(rounds)
            for contender, slot in turns(contenders, round_)]


def provenance(began: float, seed: int, command: str | None = None) -> str:
    """The line under a benchmark's table, in italics: the machine
    (:func:`tris_envs.machine.describe`), the date (UTC), the wall time since ``began`` (a
    :func:`time.perf_counter` reading), the system's load average over the last 5 minutes
    where it has one (other work on the machine slows what is timed on the wall clock),
    the seed and, when given, the command that makes the table."""
    date = datetime.now(timezone.utc).date().isoformat()
    load = f" (load {os.getloadavg()[1]:.1f})" if hasattr(os, "getloadavg") else ""
    made = f"; `{command}`" if command else ""
    return (f"*{describe()}; {date}; {duration_text(time.perf_counter() - began)} wall"
            f"{load}; seed {seed}{made}.*")
