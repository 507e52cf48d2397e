"""The games as batched, pure JAX functions, in the shape of Pgx's ``Env`` API.

``make("tris1")`` returns a :class:`pgx.Env` subclass: ``init(key)``, ``step(state,
action, key)`` and ``observe(state)`` are pure functions over an immutable state pytree
whose fields are Pgx's (``current_player``, ``observation``, ``rewards``, ``terminated``,
``truncated``, ``legal_action_mask``), so ``jax.vmap`` / ``jax.jit`` batch them and Pgx's
tools and mctx searches run on them. Observations and actions are encoded exactly as the
rules core encodes them (``int8`` planes from the observer's view, the same action
indices), so a network trained on one side plays on the other. :func:`from_position` and
:func:`to_position` move any position across through the core's position strings.

Differences from the PettingZoo environments, all Pgx conventions: seat 0 moves first and
``current_player`` is the seat; an illegal action ends the game with a -1 penalty for its
player (the core raises ``IllegalActionError``); after the end ``legal_action_mask`` is
all ones and further steps change nothing.

Games: all five (:data:`GAMES`), every option of the rules core except Doppia scelta's
``fair=True`` (it needs the exact solver for every board drawn). Chance is drawn inside
``init`` and ``step`` from their keys: random setups, Tritoc's dice (the next player's roll,
automatic rerolls folded into one draw), so every state a step returns is a decision or a
finished game; Tritoc's ``step`` needs its key. Needs ``pip install "tris_envs[jax]"``;
nothing else in the package imports JAX.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from tris_envs.games import GAMES as REGISTRY
from tris_envs.jax.base import TrisEnv, from_position, restart, to_position

GAMES = tuple(REGISTRY)
"""The games :func:`make` builds (each :class:`~tris_envs.games.GameSpec` names its JAX
class)."""


def make(name: str, **options: Any) -> TrisEnv:
    """The JAX environment of ``name`` (one of :data:`GAMES`), with the game's options.

    Raises:
        ValueError: a game not ported to JAX, or an option the game refuses (the rules
            core's own message).
    """
    if name not in GAMES:
        raise ValueError(f"no JAX version of {name!r}; available: {', '.join(GAMES)}")
    spec = REGISTRY[name]
    spec.game_class.check_option_names(options)
    module, _, cls = spec.jax.partition(":")
    return getattr(import_module(module), cls)(**options)


__all__ = ["GAMES", "TrisEnv", "from_position", "make", "restart", "to_position"]
