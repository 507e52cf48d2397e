"""One game of a match at a time: tasks, agent sources, seeding and the worker's state.

Seeding: game ``k`` of :func:`~tris_envs.evaluation.play_match` uses
``SeedSequence(seed, spawn_key=(k,))``; pair ``(i, j)`` of
:func:`~tris_envs.evaluation.round_robin` uses ``spawn_key=(i, j, k)``. Each game's sequence
spawns three generators: chance (setup and dice), the first agent, the second agent. Agent
``a`` (or ``i``) takes seat ``k % 2``: seats alternate, ``a`` first in even games.

A worker (this process, a pool process, a Ray task) receives the match's context (the game,
the sources, the agents' names, the seed, whether to keep records) once
(:func:`init_worker`) and plays tasks from it (:func:`play_keyed`); every game builds fresh
agents from their sources with its own generators, so it depends only on the match seed and
its key, never on the worker (:mod:`tris_envs.evaluation.backends`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from tris_envs.agents.factory import make_agent
from tris_envs.agents.protocol import Agent
from tris_envs.agents.spec import AgentSpec
from tris_envs.core.game import Game
from tris_envs.evaluation.records import GameRecord, play_recorded

Task = tuple[int, int, int, tuple[int, ...]]
"""One game: agent indices ``i`` and ``j``, game number ``k``, and its seeding key."""

AgentSource = AgentSpec | str | Agent | Callable[..., Agent]
"""An :class:`~tris_envs.agents.AgentSpec` (or its text, parsed once when the match starts),
a picklable factory ``factory(rng=...) -> Agent`` (an agent class, say), or an
:class:`Agent` instance.

A spec or a factory gets a fresh agent with its own generator, derived from the match seed,
for every game, so a seed repeats the same games. An instance plays every game itself, with
its own randomness (seed it for repeatable matches); with ``processes > 1`` each worker plays
a pickled copy."""

Played = tuple[tuple[int, ...], int, GameRecord]
"""A finished game: its task key, agent ``a``'s seat and the game's record."""

_WORKER: dict[str, Any] = {}


class Schedule:
    """The games of a match (``single``: keys ``(k,)``) or a round robin (keys ``(i, j, k)``),
    generated on demand, pair by pair, in order."""

    def __init__(self, pairs: list[tuple[int, int]], n_games: int, single: bool) -> None:
        self.pairs, self.n_games, self.single = pairs, n_games, single
        self.total = len(pairs) * n_games
        self._index = {pair: p for p, pair in enumerate(pairs)}

    def __iter__(self) -> Iterator[Task]:
        for i, j in self.pairs:
            for k in range(self.n_games):
                yield (i, j, k, (k,) if self.single else (i, j, k))

    def pair_index(self, key: tuple[int, ...]) -> int | None:
        """The pair a task key belongs to; ``None`` for a key of no game of this schedule."""
        if not all(type(part) is int for part in key):
            return None
        if self.single:
            return 0 if len(key) == 1 and 0 <= key[0] < self.n_games else None
        if len(key) != 3 or not 0 <= key[2] < self.n_games:
            return None
        return self._index.get((key[0], key[1]))


def parsed_sources(sources: Sequence[AgentSource]) -> list[AgentSource]:
    """``sources`` with each spec text parsed into its :class:`AgentSpec` (once, where a
    match starts, not in every game).

    Raises:
        ValueError: a text that is no agent spec.
    """
    return [AgentSpec.parse(source) if isinstance(source, str) else source
            for source in sources]


def build_agent(source: AgentSource, rng: np.random.Generator) -> Agent:
    """The agent of ``source`` for one game: built with ``rng``, or the instance itself."""
    if isinstance(source, (AgentSpec, str)):
        return make_agent(source, rng)
    if isinstance(source, Agent) and not isinstance(source, type):
        return source
    return source(rng=rng)


def init_worker(game: Game, sources: Sequence[AgentSource], names: Sequence[str],
                seed: int, keep_records: bool) -> None:
    """Hold the match's context in this process for :func:`play_keyed`."""
    _WORKER.update(game=game, sources=sources, names=names, seed=seed,
                   keep_records=keep_records)


def play_keyed(task: Task) -> Played:
    """Play one game of the context :func:`init_worker` holds."""
    seat, record = _play_task(task)
    return task[3], seat, record


def _play_task(task: Task) -> tuple[int, GameRecord]:
    """Play one game; returns ``a``'s seat and the game's record."""
    i, j, k, key = task
    w = _WORKER
    chance, rng_a, rng_b = (np.random.default_rng(s) for s in
                            np.random.SeedSequence(w["seed"], spawn_key=key).spawn(3))
    agent_a, agent_b = build_agent(w["sources"][i], rng_a), build_agent(w["sources"][j], rng_b)
    seat = k % 2
    agents = (agent_a, agent_b) if seat == 0 else (agent_b, agent_a)
    names = (w["names"][i], w["names"][j]) if seat == 0 else (w["names"][j], w["names"][i])
    return seat, play_recorded(w["game"], agents, chance, names, w["keep_records"])


def play_each(context: tuple[Any, ...], tasks: Iterable[Task]) -> Iterator[Played]:
    """Play ``tasks`` in this process, yielding each game as it ends."""
    init_worker(*context)
    try:
        yield from map(play_keyed, tasks)
    finally:
        _WORKER.clear()
