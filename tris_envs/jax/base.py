"""What the JAX games share: the Pgx ``Env`` shell, truncation, and the position bridges.

Shapes are written beside arrays as mctx writes them: ``[]`` a scalar, ``[A]`` one per action
(``num_actions``), ``[H, W, C]`` an observation (``observation_shape``); a batched state
(``jax.vmap(env.init)``) has a batch ``[B]`` in front of every field.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, TypeVar

from typing_extensions import dataclass_transform

try:
    import jax
    import jax.numpy as jnp
    import numpy as np
    import pgx.core
    from jax.typing import ArrayLike
except ImportError as error:          # pragma: no cover - depends on the installed extras
    raise ImportError(f"tris_envs.jax needs JAX and Pgx ({error}): "
                      'pip install "tris_envs[jax]"') from error

from tris_envs.core.errors import brief
from tris_envs.core.game import Game

Array = jax.Array
"""A JAX array; its shape is written beside it (``[A]``, ``[B, H, W, C]``)."""
PRNGKey = jax.Array
"""A random key: ``jax.random.key`` or ``jax.random.PRNGKey``, every implementation."""
GameState = Any
"""A game's state: the ``State`` dataclass of its module, Pgx's fields (``current_player``
``[]``, ``observation`` ``[H, W, C]``, ``rewards`` ``[2]``, ``terminated`` and ``truncated``
``[]``, ``legal_action_mask`` ``[A]``) and the game's own, every one an array."""

_T = TypeVar("_T")
_INT32_MAX = 2**31 - 1
_INT32_MIN = -(2**31)


def _same(value: Any) -> Any:
    return value


@dataclass_transform()
def dataclass(cls: type[_T]) -> type[_T]:
    """A frozen dataclass registered as a JAX pytree, every field a leaf, with
    ``replace(**fields)``: the shape of Pgx's states, on JAX's public
    ``jax.tree_util.register_dataclass``. Array defaults become default factories."""
    for name in cls.__annotations__:
        value = cls.__dict__.get(name, dataclasses.MISSING)
        if value is not dataclasses.MISSING and value.__hash__ is None:
            setattr(cls, name, dataclasses.field(default_factory=functools.partial(_same, value)))
    frozen: Any = dataclasses.dataclass(frozen=True)(cls)
    frozen.replace = dataclasses.replace
    fields = [field.name for field in dataclasses.fields(frozen)]
    jax.tree_util.register_dataclass(frozen, data_fields=fields, meta_fields=[])
    return frozen


def _as_action(action: Any) -> Array:
    """``action`` (any value a caller passes) as an ``int32`` scalar array ``[]``. Integers
    beyond ``int32`` are clipped to its range first: they are out of range as actions either
    way, and must not wrap around into it.

    Raises:
        TypeError: a non-integer action (a float, a boolean).
    """
    if isinstance(action, (bool, np.bool_)) or not isinstance(
            action, (int, np.integer, np.ndarray, jax.Array)):
        raise TypeError(f"action {brief(action)} is not an integer")
    if isinstance(action, int):
        return jnp.int32(max(_INT32_MIN, min(action, _INT32_MAX)))
    if action.shape != ():
        raise TypeError(f"action {brief(action)} is not an integer but an array of shape "
                        f"{action.shape}: step takes one action; jax.vmap(env.step) a batch")
    dtype = np.dtype(action.dtype)
    if dtype.kind not in "iu":
        raise TypeError(f"action {brief(action)} is not an integer (dtype {dtype})")
    if dtype.itemsize >= 4 and dtype != np.int32:     # uint32, 64-bit: may not fit int32
        xp = np if isinstance(action, (np.ndarray, np.integer)) else jnp
        action = xp.minimum(action, xp.asarray(_INT32_MAX, dtype))
        if dtype.kind == "i":
            action = xp.maximum(action, xp.asarray(_INT32_MIN, dtype))
    return jnp.asarray(action).astype(jnp.int32)


class TrisEnv(pgx.core.Env):
    """A game of ours as a Pgx environment; subclasses give the rules.

    Attributes:
        game: the rules core with the same options (the reference, and the bridge for
            position strings).
    """

    game: Game

    def __init__(self, game: Game) -> None:
        super().__init__()
        self.game = game
        # the step count is an int32: a larger limit is never reached (and would not trace)
        self._max_moves = min(game.max_moves, _INT32_MAX)

    def step(self, state: GameState, action: ArrayLike,
             key: PRNGKey | None = None) -> GameState:
        """Pgx's ``step`` of one state by ``action`` (an integer ``[]``), with its
        illegal-action convention kept for every action.

        Pgx reads ``legal_action_mask[action]``, which JAX clamps (``9`` reads cell 8) or
        wraps (``-1`` reads the last action), and passes the illegal action on to the rules.
        Here an action outside ``0 .. num_actions - 1`` or not legal ends the game with -1
        for its player and +1 for the other, the position left as it was (a valid state,
        which :func:`to_position` writes out). On a finished game ``step`` changes nothing
        and gives zero rewards, as in Pgx.

        Raises:
            TypeError: a non-integer action (a float or boolean array, say).
        """
        # a reduction: XLA computes the action once, where it would otherwise redo the
        # caller's computation of it (a long chain in the benchmark) inside every field
        # that the select below keeps
        action = jnp.where(jnp.arange(2) == 0, _as_action(action), 0).sum()
        done = state.terminated | state.truncated
        # one lookup: a negative action, unsigned, is out of range too (``take`` would wrap
        # it); the rules run on the action as it is, their result kept only where legal
        legal = jnp.take(state.legal_action_mask, action.astype(jnp.uint32), mode="fill",
                         fill_value=False)
        illegal = ~done & ~legal
        player = state.current_player

        def kept() -> Any:                       # a finished game, or an illegal action
            penalty = jnp.where(jnp.arange(2) == player, -1.0, 1.0).astype(jnp.float32)
            return state.replace(rewards=jnp.where(illegal, penalty, 0.0),
                                 terminated=state.terminated | illegal,
                                 _step_count=state._step_count + illegal)

        state = jax.lax.cond(done | illegal, kept, lambda: self._step(
            state.replace(_step_count=state._step_count + 1), action, key))
        state = state.replace(legal_action_mask=state.legal_action_mask | state.terminated)
        return state.replace(observation=self.observe(state))

    def _step(self, state: GameState, action: Array, key: PRNGKey | None) -> GameState:
        state = self._play(state, action, key)
        truncated = ~state.terminated & (state._step_count >= self._max_moves)
        return state.replace(truncated=truncated)

    def observe_for(self, state: GameState, player: ArrayLike) -> Array:
        """The observation ``[H, W, C]`` of seat ``player`` ``[]`` (``observe`` gives the
        player to move's)."""
        return jax.lax.stop_gradient(self._observe(state, player))

    def _play(self, state: GameState, action: Array, key: PRNGKey | None) -> GameState:
        """The state after the legal ``action`` ``[]``: board, player, mask, rewards,
        termination.

        Chance that follows the action (Tritoc's dice) is drawn with ``key`` inside the
        step, so every state a step returns is a decision or a finished game."""
        raise NotImplementedError

    def from_core(self, state: Any) -> GameState:
        """The JAX state (unbatched, its player to move's observation included) of a
        rules-core state.

        Raises:
            ValueError: a chance node (the JAX states are decisions or finished games).
        """
        jax_state = self._from_core(state)
        return jax_state.replace(observation=self.observe(jax_state))

    def _from_core(self, state: Any) -> GameState:
        """:meth:`from_core` without the observation."""
        raise NotImplementedError

    def to_core(self, state: GameState) -> Any:
        """The rules-core state of an unbatched JAX state (history-free)."""
        raise NotImplementedError

    @property
    def id(self) -> str:
        return self.game.info.name

    @property
    def version(self) -> str:
        return "v0"

    @property
    def num_players(self) -> int:
        return 2


def from_position(env: TrisEnv, text: str) -> GameState:
    """The JAX state (unbatched, observation included) of a position string.

    Raises:
        ValueError: the core's message for a malformed or impossible position.
    """
    return env.from_core(env.game.from_notation(text))


def to_position(env: TrisEnv, state: GameState) -> str:
    """The position string of an unbatched JAX state."""
    return env.game.to_notation(env.to_core(jax.device_get(state)))


def restart(done: Array, fresh: GameState, state: GameState) -> GameState:
    """A batch of states in which the games marked ``done`` ``[B]`` are replaced by
    ``fresh`` states (``jax.vmap(env.init)`` of new keys), as Pgx's auto-reset
    does (read the ended games' rewards before calling it)."""
    return jax.tree_util.tree_map(
        lambda new, old: jnp.where(done.reshape(done.shape + (1,) * (old.ndim - done.ndim)),
                                   new, old), fresh, state)


def random_words(key: PRNGKey, index: ArrayLike = 0) -> Array:
    """Two uniformly random 32-bit words ``[2]`` (``uint32``), draw ``index`` of ``key``:
    the data of ``fold_in(key, index)``, one hash where ``jax.random.bits`` spends one per
    word. Any key works: ``PRNGKey`` arrays and typed keys of every implementation."""
    return jax.random.key_data(jax.random.fold_in(key, index))[..., :2]


def seat_rewards(winner: Array) -> Array:
    """The rewards ``[2]``: ``[+1, -1]`` / ``[-1, +1]`` for a ``winner`` ``[]`` seat 0 / 1,
    zeros for ``-1`` (no winner)."""
    return jnp.where(winner < 0, jnp.zeros(2, jnp.float32),
                     jnp.where(jnp.arange(2) == winner, 1.0, -1.0).astype(jnp.float32))
