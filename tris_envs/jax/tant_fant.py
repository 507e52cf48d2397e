"""Tant Fant as pure JAX functions, every option of the rules core; see
:mod:`tris_envs.jax`."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np
from pgx._src.struct import dataclass

from tris_envs.games.tant_fant import BASE_RANK, DIAGONALS, LINES, NEIGHBOURS
from tris_envs.games.tant_fant import TantFant as CoreTantFant
from tris_envs.games.tant_fant import TantFantState as CoreState
from tris_envs.jax.base import TrisEnv, seat_rewards

_LINE_MASKS = jnp.array([sum(1 << p for p in line) for line in LINES], dtype=jnp.int32)
_FROM = jnp.array([1 << a // 9 if a % 9 in NEIGHBOURS[a // 9] else 0 for a in range(81)],
                  dtype=jnp.int32)
"""Per action (from-point * 9 + to-point): the from-point's bit, 0 where the points are not
adjacent."""
_TO = jnp.array([1 << a % 9 for a in range(81)], dtype=jnp.int32)
_BASE = jnp.array([[BASE_RANK[seat] >> p & 1 for p in range(9)] for seat in (0, 1)],
                  dtype=jnp.int8)
_BITS = jnp.int32(1) << jnp.arange(9, dtype=jnp.int32)


def _board_of(white: int, black: int) -> np.ndarray:
    return np.array([1 if white >> p & 1 else 2 if black >> p & 1 else 0 for p in range(9)],
                    dtype=np.int8)


@dataclass
class State:
    """Pgx's fields; each seat's pieces as a bit set (bit ``p`` = point ``p`` = ``a1 b1 c1 a2
    ... c3``, as in the rules core); the position keys since the start (``repetition_draw``)."""

    current_player: Any = jnp.int32(0)
    observation: Any = jnp.zeros((3, 3, 4), dtype=jnp.int8)
    rewards: Any = jnp.zeros(2, dtype=jnp.float32)
    terminated: Any = jnp.bool_(False)
    truncated: Any = jnp.bool_(False)
    legal_action_mask: Any = jnp.zeros(81, dtype=jnp.bool_)
    _step_count: Any = jnp.int32(0)
    _pieces: Any = jnp.zeros(2, dtype=jnp.int32)
    _history: Any = jnp.zeros(1, dtype=jnp.int32)
    _length: Any = jnp.int32(0)

    @property
    def env_id(self) -> str:
        return "tant_fant"


class TantFant(TrisEnv):
    """Tant Fant with the rules core's options (``stalemate``, ``repetition_draw``,
    ``diagonal_only``, ``max_moves``): static, checked by the core."""

    def __init__(self, **options: Any) -> None:
        core = CoreTantFant(**options)
        super().__init__(core)
        self._core = core
        winning = DIAGONALS if core.diagonal_only else LINES
        self._wins = jnp.array([[line in winning and sum(1 << p for p in line) != BASE_RANK[seat]
                                 for line in LINES] for seat in (0, 1)])
        self._history_size = core.max_moves + 1 if core.repetition_draw else 1
        self._start = self.from_core(core.initial_state())

    def _init(self, key: Any) -> State:
        return self._start

    def _legal(self, pieces: Any, seat: Any) -> Any:
        own = jnp.where(seat == 0, pieces[0], pieces[1])
        return ((own & _FROM) != 0) & (((pieces[0] | pieces[1]) & _TO) == 0)

    def _play(self, state: State, action: Any, key: Any) -> State:
        player = state.current_player
        moved = jnp.left_shift(1, action // 9) | jnp.left_shift(1, action % 9)
        pieces = state._pieces ^ jnp.where(jnp.arange(2) == player, moved, 0)
        own = jnp.where(player == 0, pieces[0], pieces[1])
        wins = jnp.where(player == 0, self._wins[0], self._wins[1])
        won = (((own & _LINE_MASKS) == _LINE_MASKS) & wins).any()
        following = 1 - player
        mask = self._legal(pieces, following)
        stalemate = ~won & ~mask.any()
        history, length = state._history, state._length
        repeated = jnp.bool_(False)
        if self._core.repetition_draw:
            position = pieces[0] | pieces[1] << 9 | following << 18    # the core's key
            kept = ~won & ~stalemate
            history = jnp.where(kept, history.at[length].set(position), history)
            length = length + kept
            seen = (history == position) & (jnp.arange(history.shape[0]) < length)
            repeated = kept & (seen.sum() >= 3)
        stalemate_winner = -1 if self._core.stalemate == "draw" else player
        winner = jnp.where(won, player, jnp.where(stalemate, stalemate_winner, -1))
        return state.replace(current_player=following, _pieces=pieces, legal_action_mask=mask,
                             terminated=won | stalemate | repeated,
                             rewards=seat_rewards(winner), _history=history, _length=length)

    def _observe(self, state: State, player_id: Any) -> Any:
        mine, theirs = jnp.where(player_id == 0, _BASE[0], _BASE[1]), jnp.where(
            player_id == 0, _BASE[1], _BASE[0])
        own = jnp.where(player_id == 0, state._pieces[0], state._pieces[1])
        other = jnp.where(player_id == 0, state._pieces[1], state._pieces[0])
        planes = jnp.stack([(own & _BITS != 0).astype(jnp.int8),
                            (other & _BITS != 0).astype(jnp.int8), mine, theirs], -1)
        return planes.reshape(3, 3, 4)

    def from_core(self, state: CoreState) -> State:
        pieces = jnp.array([state.white, state.black], dtype=jnp.int32)
        over = state.result != -1
        history = np.zeros(self._history_size, np.int32)
        history[:len(state.history)] = state.history[:self._history_size]
        mask = np.asarray(self._legal(pieces, state.to_move)) | over
        return State(current_player=jnp.int32(state.to_move), _pieces=pieces,
                     terminated=jnp.bool_(over), legal_action_mask=jnp.asarray(mask),
                     _history=jnp.asarray(history), _length=jnp.int32(len(state.history)))

    def to_core(self, state: State) -> CoreState:
        white, black = (int(bits) for bits in np.asarray(state._pieces))
        board = _board_of(white, black)
        ranks = ("".join(".WB"[board[row * 3 + col]] for col in range(3)) for row in (2, 1, 0))
        return self._core.from_notation(f"{'/'.join(ranks)} {'wb'[int(state.current_player)]}")
