"""What the JAX games share: the Pgx ``Env`` shell, truncation, and the position bridges."""

from __future__ import annotations

from typing import Any

try:
    import jax
    import jax.numpy as jnp
    import pgx.core
except ImportError as error:          # pragma: no cover - depends on the installed extras
    raise ImportError(f"tris_envs.jax needs JAX and Pgx ({error}): "
                      'pip install "tris_envs[jax]"') from error

from tris_envs.core.game import Game


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

    def _step(self, state: Any, action: Any, key: Any) -> Any:
        state = self._play(state, action, key)
        truncated = ~state.terminated & (state._step_count >= self.game.max_moves)
        return state.replace(truncated=truncated)

    def observe_for(self, state: Any, player: Any) -> Any:
        """The observation of seat ``player`` (``observe`` gives the player to move's)."""
        return jax.lax.stop_gradient(self._observe(state, player))

    def _play(self, state: Any, action: Any, key: Any) -> Any:
        """The state after the legal ``action``: board, player, mask, rewards, termination.

        Chance that follows the action (Tritoc's dice) is drawn with ``key`` inside the
        step, so every state a step returns is a decision or a finished game."""
        raise NotImplementedError

    def from_core(self, state: Any) -> Any:
        """The JAX state (unbatched) of a rules-core state.

        Raises:
            ValueError: a chance node (the JAX states are decisions or finished games).
        """
        raise NotImplementedError

    def to_core(self, state: Any) -> Any:
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


def from_position(env: TrisEnv, text: str) -> Any:
    """The JAX state (unbatched, observation included) of a position string.

    Raises:
        ValueError: the core's message for a malformed or impossible position.
    """
    state = env.from_core(env.game.from_notation(text))
    return state.replace(observation=env.observe(state))


def to_position(env: TrisEnv, state: Any) -> str:
    """The position string of an unbatched JAX state."""
    return env.game.to_notation(env.to_core(jax.device_get(state)))


def restart(done: Any, fresh: Any, state: Any) -> Any:
    """A batch of states in which the games marked ``done`` (shape: the batch) are
    replaced by ``fresh`` states (``jax.vmap(env.init)`` of new keys), as Pgx's auto-reset
    does (read the ended games' rewards before calling it)."""
    return jax.tree_util.tree_map(
        lambda new, old: jnp.where(done.reshape(done.shape + (1,) * (old.ndim - done.ndim)),
                                   new, old), fresh, state)


def random_words(key: Any, index: Any = 0) -> Any:
    """Two uniformly random 32-bit words, draw ``index`` of ``key``: the data of
    ``fold_in(key, index)``, one hash where ``jax.random.bits`` spends one per word. Any
    key works: ``PRNGKey`` arrays and typed keys of every implementation."""
    return jax.random.key_data(jax.random.fold_in(key, index))[..., :2]


def seat_rewards(winner: Any) -> Any:
    """``[+1, -1]`` / ``[-1, +1]`` for a winning seat 0 / 1, zeros for ``-1`` (no winner)."""
    return jnp.where(winner < 0, jnp.zeros(2, jnp.float32),
                     jnp.where(jnp.arange(2) == winner, 1.0, -1.0).astype(jnp.float32))
