"""Tant Fant as pure JAX functions, every option of the rules core; see
:mod:`tris_envs.jax`."""

from __future__ import annotations

import math
from typing import Any

import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from tris_envs.games.tant_fant import BASE_RANK, DIAGONALS, LINES, NEIGHBOURS
from tris_envs.games.tant_fant import TantFant as CoreTantFant
from tris_envs.games.tant_fant import TantFantState as CoreState
from tris_envs.jax.base import Array, PRNGKey, TrisEnv, dataclass, seat_rewards

_POINTS = 0b111_111_111
_POSITIONS = math.comb(9, 3) * math.comb(6, 3) * 2
"""Tant Fant positions: three pieces a side on the nine points, and the side to move."""
_MOVED = jnp.array([[(1 << a // 9 | 1 << a % 9) << 9 * seat for a in range(81)]
                    for seat in (0, 1)], dtype=jnp.int32)
"""Per seat and action (from-point * 9 + to-point): the bits of the board word it flips."""
_NEEDS = jnp.array([1 << a // 9 | 1 << 9 + a % 9 if a % 9 in NEIGHBOURS[a // 9] else 1 << 30
                    for a in range(81)], dtype=jnp.int32)
"""Per action: the bits that must all be set in ``mover's points | empty points << 9`` for it
to be legal (bit 30, never set, where the points are not adjacent)."""
_REACH = jnp.array([sum(1 << p for p in range(9) if any(empty >> q & 1 for q in NEIGHBOURS[p]))
                    for empty in range(512)], dtype=jnp.int32)
"""Per set of empty points: the points next to one of them (whose pieces can move)."""
_OBSERVED = np.array([[1 << min(plane, 2) * 9 + p
                       if plane < 3 or (BASE_RANK[0] | BASE_RANK[1]) >> p & 1 else 0
                       for plane in range(4)] for p in range(9)], dtype=np.int32).reshape(3, 3, 4)
_EXPECTED = np.where(np.arange(4) < 3, _OBSERVED, _OBSERVED == 0).astype(np.int32)
"""The observation is ``(word & _OBSERVED) == _EXPECTED`` for ``word`` = the observer's points
| the other's << 9 | the observer's base rank << 18: the fourth plane (the other's base rank)
is the complement of the third on the two base ranks and empty on the middle rank."""


def _board_of(white: int, black: int) -> np.ndarray:
    """The points' contents: 0 empty, 1 White, 2 Black."""
    return np.array([1 if white >> p & 1 else 2 if black >> p & 1 else 0 for p in range(9)],
                    dtype=np.int8)


@dataclass
class State:
    """Pgx's fields; the board as one word, White's points in bits 0-8 and Black's in bits 9-17
    (bit ``p`` = point ``p`` = ``a1 b1 c1 a2 ... c3``, as in the rules core); the position
    keys since the start (``repetition_draw``)."""

    current_player: Array = jnp.int32(0)                        # []
    observation: Array = jnp.zeros((3, 3, 4), dtype=jnp.int8)   # [3, 3, 4]
    rewards: Array = jnp.zeros(2, dtype=jnp.float32)            # [2]
    terminated: Array = jnp.bool_(False)                        # []
    truncated: Array = jnp.bool_(False)                         # []
    legal_action_mask: Array = jnp.zeros(81, dtype=jnp.bool_)   # [81]
    _step_count: Array = jnp.int32(0)                           # []
    _board: Array = jnp.int32(0)                                # [] int32: 18 bits
    _history: Array = jnp.zeros(1, dtype=jnp.int32)             # [history size] keys
    _length: Array = jnp.int32(0)                               # [] keys in _history

    @property
    def env_id(self) -> str:
        return "tant_fant"


def _points(board: Array, seat: ArrayLike) -> Array:
    """The points of ``seat``'s pieces on ``board`` (9 bits; shapes: ``board``'s)."""
    return jnp.right_shift(board, 9 * seat) & _POINTS


def _empty(board: Array) -> Array:
    """The empty points of ``board``."""
    return ~(board | jnp.right_shift(board, 9)) & _POINTS


class TantFant(TrisEnv):
    """Tant Fant with the rules core's options (``stalemate``, ``repetition_draw``,
    ``diagonal_only``, ``max_moves``): static, checked by the core."""

    def __init__(self, **options: Any) -> None:
        core = CoreTantFant(**options)
        super().__init__(core)
        self._core = core
        winning = DIAGONALS if core.diagonal_only else LINES
        masks = [sum(1 << p for p in line) for line in winning]
        # [seat, points]: whether the seat's pieces on these points make a winning line
        self._wins = jnp.array([[any(own & m == m for m in masks if m != BASE_RANK[seat])
                                 for own in range(512)] for seat in (0, 1)])
        # a game ends at a position's third occurrence: it never keeps more than two of
        # each of the positions (the arrangements, with the side to move) and the one
        # seen a third time, however large max_moves is
        self._history_size = (min(core.max_moves, 2 * _POSITIONS) + 1
                              if core.repetition_draw else 1)
        self._start = self._from_core(core.initial_state())

    def _init(self, key: PRNGKey) -> State:
        return self._start

    def _legal(self, board: Array, seat: ArrayLike) -> Array:
        """The legal action mask ``[81]`` of ``seat`` ``[]`` on ``board`` ``[]``."""
        have = _points(board, seat) | _empty(board) << 9
        return (have & _NEEDS) == _NEEDS

    def _play(self, state: State, action: Array, key: PRNGKey | None) -> State:
        player = state.current_player
        # the table lookup computes the action once: arithmetic on it would be recomputed
        # by every fused consumer (the benchmark's action draw is a long chain)
        board = state._board ^ _MOVED[player, action]
        won = self._wins[player, _points(board, player)]
        following = 1 - player
        stalemate = ~won & ((_points(board, following) & _REACH[_empty(board)]) == 0)
        history, length = state._history, state._length
        repeated = jnp.bool_(False)
        if self._core.repetition_draw:
            position = board | following << 18    # the core's key
            kept = ~won & ~stalemate
            history = jnp.where(kept, history.at[length].set(position), history)
            length = length + kept
            seen = (history == position) & (jnp.arange(history.shape[0]) < length)
            repeated = kept & (seen.sum() >= 3)
        stalemate_winner = -1 if self._core.stalemate == "draw" else player
        winner = jnp.where(won, player, jnp.where(stalemate, stalemate_winner, -1))
        return state.replace(current_player=following, _board=board,
                             legal_action_mask=self._legal(board, following),
                             terminated=won | stalemate | repeated,
                             rewards=seat_rewards(winner), _history=history, _length=length)

    def _observe(self, state: State, player_id: Array) -> Array:
        board = state._board
        seen = (jnp.right_shift(board | board << 18, 9 * player_id) & (1 << 18) - 1
                | jnp.where(player_id == 0, BASE_RANK[0], BASE_RANK[1]) << 18)
        return ((seen & _OBSERVED) == _EXPECTED).astype(jnp.int8)

    def _from_core(self, state: CoreState) -> State:
        board = jnp.int32(state.white | state.black << 9)
        over = state.result != -1
        history = np.zeros(self._history_size, np.int32)
        history[:len(state.history)] = state.history[:self._history_size]
        mask = np.asarray(self._legal(board, state.to_move)) | over
        return State(current_player=jnp.int32(state.to_move), _board=board,
                     terminated=jnp.bool_(over), legal_action_mask=jnp.asarray(mask),
                     _history=jnp.asarray(history), _length=jnp.int32(len(state.history)))

    def to_core(self, state: State) -> CoreState:
        board = int(state._board)
        cells = _board_of(board & _POINTS, board >> 9)
        ranks = ("".join(".WB"[cells[row * 3 + col]] for col in range(3)) for row in (2, 1, 0))
        return self._core.from_notation(f"{'/'.join(ranks)} {'wb'[int(state.current_player)]}")
