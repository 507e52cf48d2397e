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

_LINE_POINTS = jnp.array([[p in line for p in range(9)] for line in LINES])
_ADJACENT = jnp.array([[q in NEIGHBOURS[p] for q in range(9)] for p in range(9)])
_BASE = jnp.array([[BASE_RANK[seat] >> p & 1 for p in range(9)] for seat in (0, 1)],
                  dtype=jnp.int8)
_BITS = jnp.int32(1) << jnp.arange(9, dtype=jnp.int32)


def _board_of(white: int, black: int) -> np.ndarray:
    return np.array([1 if white >> p & 1 else 2 if black >> p & 1 else 0 for p in range(9)],
                    dtype=np.int8)


@dataclass
class State:
    """Pgx's fields; the board (0 empty, 1 + seat for a piece of that seat, point ``p`` =
    ``a1 b1 c1 a2 ... c3``); the position keys since the start (``repetition_draw``)."""

    current_player: Any = jnp.int32(0)
    observation: Any = jnp.zeros((3, 3, 4), dtype=jnp.int8)
    rewards: Any = jnp.zeros(2, dtype=jnp.float32)
    terminated: Any = jnp.bool_(False)
    truncated: Any = jnp.bool_(False)
    legal_action_mask: Any = jnp.zeros(81, dtype=jnp.bool_)
    _step_count: Any = jnp.int32(0)
    _board: Any = jnp.zeros(9, dtype=jnp.int8)
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

    def _legal(self, board: Any, seat: Any) -> Any:
        own = board == seat + 1
        return (own[:, None] & _ADJACENT & (board == 0)[None, :]).reshape(81)

    def _key(self, board: Any, seat: Any) -> Any:
        white = jnp.sum(jnp.where(board == 1, _BITS, 0))
        black = jnp.sum(jnp.where(board == 2, _BITS, 0))
        return white | black << 9 | seat << 18

    def _play(self, state: State, action: Any, key: Any) -> State:
        player = state.current_player
        points = jnp.arange(9)          # one-hot selects: scatters and gathers are slow vmapped
        board = jnp.where(points == action // 9, jnp.int8(0), state._board)
        board = jnp.where(points == action % 9, (player + 1).astype(jnp.int8), board)
        wins = jnp.where(player == 0, self._wins[0], self._wins[1])
        won = (((_LINE_POINTS & (board == player + 1)).sum(-1) == 3) & wins).any()
        following = 1 - player
        mask = self._legal(board, following)
        stalemate = ~won & ~mask.any()
        history, length = state._history, state._length
        repeated = jnp.bool_(False)
        if self._core.repetition_draw:
            key = self._key(board, following)
            kept = ~won & ~stalemate
            history = jnp.where(kept, history.at[length].set(key), history)
            length = length + kept
            seen = (history == key) & (jnp.arange(history.shape[0]) < length)
            repeated = kept & (seen.sum() >= 3)
        stalemate_winner = -1 if self._core.stalemate == "draw" else player
        winner = jnp.where(won, player, jnp.where(stalemate, stalemate_winner, -1))
        return state.replace(current_player=following, _board=board, legal_action_mask=mask,
                             terminated=won | stalemate | repeated,
                             rewards=seat_rewards(winner), _history=history, _length=length)

    def _observe(self, state: State, player_id: Any) -> Any:
        mine, theirs = jnp.where(player_id == 0, _BASE[0], _BASE[1]), jnp.where(
            player_id == 0, _BASE[1], _BASE[0])
        planes = jnp.stack([(state._board == player_id + 1).astype(jnp.int8),
                            (state._board == 2 - player_id).astype(jnp.int8), mine, theirs], -1)
        return planes.reshape(3, 3, 4)

    def from_core(self, state: CoreState) -> State:
        board = _board_of(state.white, state.black)
        over = state.result != -1
        history = np.zeros(self._history_size, np.int32)
        history[:len(state.history)] = state.history[:self._history_size]
        mask = np.asarray(self._legal(jnp.asarray(board), state.to_move)) | over
        return State(current_player=jnp.int32(state.to_move), _board=jnp.asarray(board),
                     terminated=jnp.bool_(over), legal_action_mask=jnp.asarray(mask),
                     _history=jnp.asarray(history), _length=jnp.int32(len(state.history)))

    def to_core(self, state: State) -> CoreState:
        board = np.asarray(state._board)
        ranks = ("".join(".WB"[board[row * 3 + col]] for col in range(3)) for row in (2, 1, 0))
        return self._core.from_notation(f"{'/'.join(ranks)} {'wb'[int(state.current_player)]}")


