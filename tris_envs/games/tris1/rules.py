"""Tris 1 rules (docs/games/tris1.md): Tris 2's dice playing classic tic-tac-toe.

All nine dice start showing ``/`` (empty); a move turns one ``/`` die in place to show the
mover's symbol (``player_0`` = X, ``player_1`` = O). Action = cell (see
:mod:`~tris_envs.games.tris1.state`). Three in a row (row, column, diagonal) wins; a full board
is a draw.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tris_envs.core.drawing import Box, Canvas
from tris_envs.core.game import TERMINAL, Game, GameInfo
from tris_envs.core.options import Integer, check_int
from tris_envs.games.tris1.drawing import draw, places, render_text
from tris_envs.games.tris1.notation import cell_name, from_notation, to_notation
from tris_envs.games.tris1.state import (
    BITS,
    DRAW,
    EMPTY_CELLS,
    FULL,
    LINES_THROUGH,
    ONGOING,
    SYMBOLS,
    Tris1State,
    X,
)
from tris_envs.games.tris1.text import rules_prompt


class Tris1(Game[Tris1State]):
    """Classic tic-tac-toe played with Tris 2 dice.

    Args:
        max_moves: default truncation limit in plies for environments (9 ends every game).
    """

    OPTION_TYPES = {"max_moves": Integer(1)}

    SEAT_NAMES = SYMBOLS

    def __init__(self, max_moves: int = 9) -> None:
        super().__init__(GameInfo("tris1", 9, (3, 3, 2),
                                  check_int("max_moves", max_moves), True))


    def initial_state(self, rng: np.random.Generator | None = None) -> Tris1State:
        return Tris1State(0, 0, X)

    def current_player(self, state: Tris1State) -> int:
        return state.to_move if state.result == ONGOING else TERMINAL

    def legal_actions(self, state: Tris1State) -> tuple[int, ...]:
        if state.result != ONGOING:
            return ()
        return EMPTY_CELLS[state.x | state.o]

    def apply(self, state: Tris1State, action: int) -> Tris1State:
        if type(action) is not int:
            action = self.action_index(state, action)
        if action not in self.legal_actions(state):
            raise self.illegal_action_error(state, action)
        x, o, mover = state.x, state.o, state.to_move
        bit = 1 << action
        if mover == X:
            x |= bit
            own = x
        else:
            o |= bit
            own = o
        if any(own & m == m for m in LINES_THROUGH[action]):
            return Tris1State(x, o, 1 - mover, mover)
        return Tris1State(x, o, 1 - mover, DRAW if x | o == FULL else ONGOING)

    def explain_illegal(self, state: Tris1State, action: int) -> str:
        return f"the die at row {action // 3}, column {action % 3} already shows a symbol"

    def solver_root(self, state: Tris1State) -> tuple[Game[Any], Any, Any]:
        """The whole game, solved from the empty board."""
        return self, self.initial_state(), state

    def returns(self, state: Tris1State) -> tuple[float, float]:
        if state.result in (ONGOING, DRAW):
            return (0.0, 0.0)
        return (1.0, -1.0) if state.result == X else (-1.0, 1.0)

    def observation(self, state: Tris1State, player: int) -> np.ndarray:
        mine, theirs = (state.x, state.o) if player == X else (state.o, state.x)
        obs = np.empty((9, 2), dtype=np.int8)
        obs[:, 0] = BITS[mine]
        obs[:, 1] = BITS[theirs]
        return obs.reshape(3, 3, 2)

    def action_to_string(self, state: Tris1State, action: int) -> str:
        if not 0 <= action < 9:
            return f"out-of-range action {action}"
        return f"{SYMBOLS[state.to_move]} at row {action // 3}, column {action % 3}"

    def action_name(self, state: Tris1State, action: int) -> str:
        """The cell as ``row,column`` (``0,0`` top left)."""
        return cell_name(action)

    def to_notation(self, state: Tris1State) -> str:
        return to_notation(state)

    def from_notation(self, text: str) -> Tris1State:
        return from_notation(text)

    def rules_prompt(self) -> str:
        return rules_prompt(self)

    def render_text(self, state: Tris1State) -> str:
        return render_text(state)

    def draw(self, state: Tris1State, canvas: Canvas) -> None:
        draw(state, canvas)

    def picture_size(self, state: Tris1State) -> tuple[int, int]:
        return (400, 440)

    def picture_places(self, state: Tris1State) -> dict[str, Box]:
        return places(self.picture_size(state)[0])
