"""The agent protocol, a factory from agent specs, and a cache for shared agent data."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

import numpy as np

from tris_envs.core.game import Game


@runtime_checkable
class Agent(Protocol):
    """Chooses an action for the player to move, from full information.

    Agents receive their ``numpy.random.Generator`` at construction, so a seeded agent
    plays reproducibly. From an AEC loop call
    ``agent.act(env.unwrapped.game, env.unwrapped.game_state)``.
    """

    name: str

    def act(self, game: Game, state: Any) -> int:
        """A legal action for ``game.current_player(state)``."""
        ...


AGENT_SPECS = ("random", "greedy", "mcts", "mcts:<simulations>", "mcts:<seconds>s", "solver",
               "ppo", "ppo:<path>")
"""The forms :func:`make_agent` accepts."""


def make_agent(spec: str, rng: np.random.Generator | None = None) -> Agent:
    """An agent from its spec string.

    Specs: ``"random"``, ``"greedy"``, ``"mcts"`` (1000 simulations per move),
    ``"mcts:<simulations>"`` (e.g. ``"mcts:300"``), ``"mcts:<seconds>s"`` (a time budget
    per move, e.g. ``"mcts:0.5s"``), ``"solver"`` (perfect play where an exact solver
    exists), ``"ppo"`` (the trained policy shipped for the game it plays),
    ``"ppo:<path>"`` (a trained ``MaskablePPO`` zip or ``.pt`` policy; both see
    :class:`~tris_envs.agents.ppo.PPOAgent` and need ``pip install 'tris_envs[train]'``).

    Raises:
        ValueError: a spec not of these forms, listing the allowed ones.
        ImportError: a ``ppo`` spec without the train extra installed.
        FileNotFoundError: a ``ppo:`` spec naming no file (``"ppo"`` raises it at the first
            move of a game no policy is shipped for).
    """
    from tris_envs.agents.mcts import MCTSAgent
    from tris_envs.agents.scripted import GreedyAgent, RandomAgent
    from tris_envs.agents.solver_agent import SolverAgent

    simple = {"random": RandomAgent, "greedy": GreedyAgent, "solver": SolverAgent,
              "mcts": MCTSAgent}
    if isinstance(spec, str):
        if spec in simple:
            return simple[spec](rng=rng)
        if spec == "ppo" or (spec.startswith("ppo:") and len(spec) > len("ppo:")):
            from tris_envs.agents.ppo import PPOAgent

            return PPOAgent(spec[len("ppo:"):] or None, rng=rng)
        name, _, limit = spec.partition(":")
        if name == "mcts" and limit.isdigit() and int(limit) > 0:
            return MCTSAgent(simulations=int(limit), rng=rng)
        seconds = _seconds(limit) if name == "mcts" else None
        if seconds is not None:
            return MCTSAgent(simulations=None, time_budget=seconds, rng=rng)
    allowed = ", ".join(repr(s) for s in AGENT_SPECS)
    raise ValueError(f"unknown agent spec {spec!r}; allowed: {allowed} "
                     "(e.g. 'mcts:1000', 'mcts:0.5s', 'ppo:runs/tant_fant/final.zip')")


def _seconds(text: str) -> float | None:
    """``"0.5s"`` -> 0.5; ``None`` unless a positive finite number followed by ``s``."""
    if not text.endswith("s"):
        return None
    try:
        seconds = float(text[:-1])
    except ValueError:
        return None
    return seconds if 0 < seconds < float("inf") else None


K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LRUCache(Generic[K, V]):
    """A per-process cache of at most ``size`` values, least recently used dropped first.

    Agents use it for expensive shared objects (exact solutions, loaded policies) so that
    agents rebuilt for every game of a match reuse them.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K, make: Callable[[], V]) -> V:
        """The value cached for ``key``, made with ``make()`` on a miss."""
        value = self._items.get(key)
        if value is None:
            value = make()
            if len(self._items) >= self.size:
                self._items.popitem(last=False)
            self._items[key] = value
        else:
            self._items.move_to_end(key)
        return value
