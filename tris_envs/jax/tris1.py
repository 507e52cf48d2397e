"""Tris 1 (tic-tac-toe with dice) as pure JAX functions; see :mod:`tris_envs.jax`."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np
from pgx._src.struct import dataclass

from tris_envs.games.tris1 import DRAW, LINES, ONGOING
from tris_envs.games.tris1 import Tris1 as CoreTris1
from tris_envs.games.tris1 import Tris1State as CoreState
from tris_envs.jax.base import TrisEnv, seat_rewards

_LINE_CELLS = jnp.array([[cell in line for cell in range(9)] for line in LINES])


@dataclass
class State:
    """Pgx's fields, and the board: 0 empty, 1 + seat for a die showing that seat's symbol
    (seat 0 plays X)."""

    current_player: Any = jnp.int32(0)
    observation: Any = jnp.zeros((3, 3, 2), dtype=jnp.int8)
    rewards: Any = jnp.zeros(2, dtype=jnp.float32)
    terminated: Any = jnp.bool_(False)
    truncated: Any = jnp.bool_(False)
    legal_action_mask: Any = jnp.ones(9, dtype=jnp.bool_)
    _step_count: Any = jnp.int32(0)
    _board: Any = jnp.zeros(9, dtype=jnp.int8)

    @property
    def env_id(self) -> str:
        return "tris1"


class Tris1(TrisEnv):
    """Tris 1; ``max_moves`` as in the rules core."""

    def __init__(self, max_moves: int = 9) -> None:
        super().__init__(CoreTris1(max_moves=max_moves))

    def _init(self, key: Any) -> State:
        return State()

    def _play(self, state: State, action: Any, key: Any) -> State:
        player = state.current_player
        board = jnp.where(jnp.arange(9) == action, (player + 1).astype(jnp.int8), state._board)
        won = ((_LINE_CELLS & (board == player + 1)).sum(-1) == 3).any()   # no gather/scatter
        terminated = won | (board != 0).all()
        return state.replace(current_player=1 - player, _board=board,
                             legal_action_mask=board == 0, terminated=terminated,
                             rewards=seat_rewards(jnp.where(won, player, -1)))

    def _observe(self, state: State, player_id: Any) -> Any:
        planes = jnp.stack([state._board == player_id + 1, state._board == 2 - player_id], -1)
        return planes.astype(jnp.int8).reshape(3, 3, 2)

    def from_core(self, state: CoreState) -> State:
        board = np.zeros(9, np.int8)
        for cell in range(9):
            board[cell] = 1 if state.x >> cell & 1 else 2 if state.o >> cell & 1 else 0
        over = state.result != ONGOING
        return State(current_player=jnp.int32(state.to_move), _board=jnp.asarray(board),
                     terminated=jnp.bool_(over),
                     legal_action_mask=jnp.asarray((board == 0) | over),
                     _step_count=jnp.int32(int((board != 0).sum())))

    def to_core(self, state: State) -> CoreState:
        board = np.asarray(state._board)
        x = sum(1 << c for c in range(9) if board[c] == 1)
        o = sum(1 << c for c in range(9) if board[c] == 2)
        won = [any(all(board[c] == seat + 1 for c in line) for line in LINES) for seat in (0, 1)]
        result = 0 if won[0] else 1 if won[1] else DRAW if (board != 0).all() else ONGOING
        return CoreState(x, o, int(state.current_player), result)


