"""The agent protocol, a factory from names, and a game loop on the rules core."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from tris_envs.core.game import TERMINAL, Game, resolve_chance


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


def make_agent(spec: str, rng: np.random.Generator | None = None) -> Agent:
    """An agent from its name: ``"random"`` or ``"greedy"``."""
    from tris_envs.agents.scripted import GreedyAgent, RandomAgent

    factories = {"random": RandomAgent, "greedy": GreedyAgent}
    if spec not in factories:
        raise ValueError(f"unknown agent {spec!r}; choose one of {sorted(factories)}")
    return factories[spec](rng)


def play_game(game: Game, agents: Sequence[Agent], rng: np.random.Generator,
              max_moves: int | None = None) -> tuple[Any, list[Any]]:
    """Play one game; ``agents[i]`` plays seat ``i``; chance is drawn from ``rng``.

    Returns the final state and every state a player acted in, followed by the final one.
    Stops after ``max_moves`` plies (default: the game's own limit).
    """
    limit = game.info.max_moves if max_moves is None else max_moves
    state = resolve_chance(game, game.initial_state(rng), rng)
    history = [state]
    for _ in range(limit):
        player = game.current_player(state)
        if player == TERMINAL:
            break
        state = resolve_chance(game, game.apply(state, agents[player].act(game, state)), rng)
        history.append(state)
    return state, history
