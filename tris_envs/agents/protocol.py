"""The agent protocol: ``act(game, state) -> action`` from full information."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

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
