"""The agent protocol: ``act(game, state) -> action`` from full information; and what an
agent that asks someone else for its moves (a language model, :mod:`tris_envs.agents.llm`)
hands to the game's record: :class:`Forfeit` and :class:`Talking`."""

from __future__ import annotations

from dataclasses import dataclass
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


class Forfeit(ValueError):
    """Raised by :meth:`Agent.act` for an agent that gives the game up: the player to move
    loses it there (:func:`~tris_envs.evaluation.records.play_recorded` ends the game with
    that seat's loss). ``str(error)`` says why, in one line."""


@dataclass(frozen=True)
class Exchange:
    """One request for a move and its answer.

    Attributes:
        messages: The chat messages sent, ``{"role": ..., "content": ...}`` each, in order.
        reply: The reply's text; ``None`` where no reply came (an HTTP error, a timeout, a
            response without one).
        verdict: ``"legal"`` (the reply named a legal move), ``"illegal"`` (it named none:
            refused with ``reason``) or ``"error"`` (no usable reply: ``reason`` says why).
        reason: Why the reply was refused or the request failed (``""`` for a legal one).
        prompt_tokens: Tokens of the request, as the response's ``usage`` counts them
            (``None`` where it does not).
        completion_tokens: Tokens of the reply, likewise.
        seconds: Wall time of the request.
    """

    messages: tuple[dict[str, str], ...]
    reply: str | None
    verdict: str
    reason: str
    prompt_tokens: int | None
    completion_tokens: int | None
    seconds: float


VERDICTS = ("legal", "illegal", "error")
"""The values of :attr:`Exchange.verdict`."""

OUTCOMES = ("move", "random", "forfeit")
"""The values of :attr:`Dialogue.outcome`."""


@dataclass(frozen=True)
class Dialogue:
    """Every request an agent made for one move, and what came of them.

    Attributes:
        seat: The seat that moved.
        ply: The move's index in the game (chance outcomes counted), as in a record's
            ``moves``.
        tries: The requests, in order (the first and its retries).
        outcome: ``"move"`` (a try named a legal move), ``"random"`` (none did: a random
            legal move was played) or ``"forfeit"`` (none did: the game was given up).
    """

    seat: int
    ply: int
    tries: tuple[Exchange, ...]
    outcome: str


@runtime_checkable
class Talking(Protocol):
    """An agent whose moves come from requests worth keeping (a language model's prompts
    and replies): after each :meth:`Agent.act` (or its :class:`Forfeit`) the recorder takes
    them with :meth:`take_dialogue`, and the game's record keeps them."""

    def take_dialogue(self, seat: int, ply: int) -> Dialogue | None:
        """The requests of the move just asked for, as the move ``ply`` of ``seat``, now
        forgotten by the agent; ``None`` where it made none."""
        ...
