"""Tris 1 (tic-tac-toe with dice) as pure JAX functions; see :mod:`tris_envs.jax`."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

from tris_envs.games.tris1 import DRAW, FULL, LINE_MASKS, ONGOING, has_line
from tris_envs.games.tris1 import Tris1 as CoreTris1
from tris_envs.games.tris1 import Tris1State as CoreState
from tris_envs.jax.base import Array, PRNGKey, TrisEnv, dataclass, seat_rewards

_LINE_MASKS = jnp.array(LINE_MASKS, dtype=jnp.int32)
_CELLS = jnp.left_shift(1, jnp.arange(9, dtype=jnp.int32))
_PLACED = jnp.array([[1 << cell + 9 * seat for cell in range(9)] for seat in (0, 1)],
                    dtype=jnp.int32)
"""Per seat and cell: the bit of the board word that a move there sets."""
_SEEN = jnp.array([[[1 << 3 * row + col + 9 * plane for plane in (0, 1)] for col in range(3)]
                   for row in range(3)], dtype=jnp.int32)
"""Per observation entry: its bit in the board word of seat 0 (``x | o << 9``)."""


@dataclass
class State:
    """Pgx's fields, and the board as one word: X's cells in bits 0-8 and O's in bits 9-17
    (seat 0 plays X)."""

    current_player: Array = jnp.int32(0)                        # []
    observation: Array = jnp.zeros((3, 3, 2), dtype=jnp.int8)   # [3, 3, 2]
    rewards: Array = jnp.zeros(2, dtype=jnp.float32)            # [2]
    terminated: Array = jnp.bool_(False)                        # []
    truncated: Array = jnp.bool_(False)                         # []
    legal_action_mask: Array = jnp.ones(9, dtype=jnp.bool_)     # [9]
    _step_count: Array = jnp.int32(0)                           # []
    _board: Array = jnp.int32(0)                                # [] int32: 18 bits

    @property
    def env_id(self) -> str:
        return "tris1"


class Tris1(TrisEnv):
    """Tris 1; ``max_moves`` as in the rules core."""

    def __init__(self, **options: Any) -> None:
        super().__init__(CoreTris1(**options))

    def _init(self, key: PRNGKey) -> State:
        return State()

    def _play(self, state: State, action: Array, key: PRNGKey | None) -> State:
        player = state.current_player
        # the table lookup computes the action once: arithmetic on it would be recomputed
        # by every fused consumer (the benchmark's action draw is a long chain)
        placed = _PLACED[player, action]
        # an illegal move's symbol replaces the other's there, as Pgx's games do
        board = state._board & ~(placed << 9 | jnp.right_shift(placed, 9)) | placed
        own = jnp.right_shift(board, 9 * player)
        won = ((own & _LINE_MASKS) == _LINE_MASKS).any()
        occupied = (board | jnp.right_shift(board, 9)) & FULL
        return state.replace(current_player=1 - player, _board=board,
                             legal_action_mask=(occupied & _CELLS) == 0,
                             terminated=won | (occupied == FULL),
                             rewards=seat_rewards(jnp.where(won, player, -1)))

    def _observe(self, state: State, player_id: Array) -> Array:
        seen = jnp.right_shift(state._board | state._board << 18, 9 * player_id)
        return ((seen & _SEEN) != 0).astype(jnp.int8)

    def _from_core(self, state: CoreState) -> State:
        occupied = state.x | state.o
        over = state.result != ONGOING
        mask = [not occupied >> cell & 1 or over for cell in range(9)]
        return State(current_player=jnp.int32(state.to_move),
                     _board=jnp.int32(state.x | state.o << 9), terminated=jnp.bool_(over),
                     legal_action_mask=jnp.array(mask),
                     _step_count=jnp.int32(occupied.bit_count()))

    def to_core(self, state: State) -> CoreState:
        board = int(state._board)
        x, o = board & FULL, board >> 9
        result = (0 if has_line(x) else 1 if has_line(o) else DRAW if x | o == FULL
                  else ONGOING)
        return CoreState(x, o, int(state.current_player), result)
