"""Tris 1 rules core (docs/games/tris1.md): Tris 2's dice playing classic tic-tac-toe.

All nine dice start showing ``/`` (empty); a move turns one ``/`` die in place to show
the mover's symbol (``player_0`` = X, ``player_1`` = O). Cells, row-major, row 0 = top::

    0 │ 1 │ 2
    ──┼───┼──
    3 │ 4 │ 5
    ──┼───┼──
    6 │ 7 │ 8

Action = cell. Three in a row (row, column, diagonal) wins; a full board is a draw.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from tris_envs.core.drawing import BACKGROUND, INK, Canvas, draw_die
from tris_envs.core.errors import brief
from tris_envs.core.game import TERMINAL, Game, GameInfo
from tris_envs.core.options import check_int

X, O = 0, 1  # noqa: E741 - the symbols of the game
ONGOING, DRAW = -1, 2
SYMBOLS = ("X", "O")
FULL = 0b111_111_111
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
LINE_MASKS = tuple(sum(1 << p for p in line) for line in LINES)
LINES_THROUGH: tuple[tuple[int, ...], ...] = tuple(
    tuple(m for m in LINE_MASKS if m >> cell & 1) for cell in range(9)
)
_BITS = np.array([[(m >> p) & 1 for p in range(9)] for m in range(512)], dtype=np.int8)
_EMPTY_CELLS: tuple[tuple[int, ...], ...] = tuple(
    tuple(c for c in range(9) if not occ >> c & 1) for occ in range(512)
)


def has_line(mask: int) -> bool:
    """Whether the cells of ``mask`` (a bit set, bit ``r*3 + c``) hold a line."""
    return any(mask & m == m for m in LINE_MASKS)


class Tris1State(NamedTuple):
    """A Tris 1 position: bit masks of X and O cells, the mover and the result.

    ``result``: ``-1`` ongoing, ``0`` X won, ``1`` O won, ``2`` draw.
    """

    x: int
    o: int
    to_move: int
    result: int = ONGOING


class Tris1(Game[Tris1State]):
    """Classic tic-tac-toe played with Tris 2 dice.

    Args:
        max_moves: default truncation limit in plies for environments (9 ends every game).
    """


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
        return _EMPTY_CELLS[state.x | state.o]

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
        obs[:, 0] = _BITS[mine]
        obs[:, 1] = _BITS[theirs]
        return obs.reshape(3, 3, 2)

    def action_to_string(self, state: Tris1State, action: int) -> str:
        if not 0 <= action < 9:
            return f"out-of-range action {action}"
        return f"{SYMBOLS[state.to_move]} at row {action // 3}, column {action % 3}"

    def action_name(self, state: Tris1State, action: int) -> str:
        """The cell as ``row,column`` (``0,0`` top left)."""
        return f"{action // 3},{action % 3}"

    def _symbol(self, state: Tris1State, cell: int, empty: str) -> str:
        return "X" if state.x >> cell & 1 else "O" if state.o >> cell & 1 else empty

    def to_notation(self, state: Tris1State) -> str:
        return "/".join("".join(self._symbol(state, r * 3 + c, ".") for c in range(3))
                        for r in range(3))

    def from_notation(self, text: str) -> Tris1State:
        rows = text.split("/") if isinstance(text, str) else []
        if len(rows) != 3 or any(len(r) != 3 for r in rows):
            raise ValueError(f"Tris 1 position {brief(text)}: expected three rows of three "
                             "characters separated by '/', e.g. 'X../.O./...'")
        x = o = 0
        for r, row in enumerate(rows):
            for c, ch in enumerate(row):
                if ch == "X":
                    x |= 1 << (r * 3 + c)
                elif ch == "O":
                    o |= 1 << (r * 3 + c)
                elif ch != ".":
                    raise ValueError(f"Tris 1 position {brief(text)}: row {r}, column {c} holds "
                                     f"{ch!r}; use 'X', 'O' or '.'")
        nx, no = x.bit_count(), o.bit_count()
        if nx - no not in (0, 1):
            raise ValueError(f"Tris 1 position {brief(text)} is impossible: {nx} X and {no} O "
                             "(X moves first, so X count = O count or O count + 1)")
        x_line, o_line = has_line(x), has_line(o)
        if x_line and (o_line or nx == no):
            raise ValueError(f"Tris 1 position {brief(text)} is impossible: the game ended when "
                             "X completed a line, but play went on")
        if o_line and nx != no:
            raise ValueError(f"Tris 1 position {brief(text)} is impossible: the game ended when "
                             "O completed a line, but play went on")
        to_move = X if nx == no else O
        if x_line or o_line:
            return Tris1State(x, o, to_move, X if x_line else O)
        return Tris1State(x, o, to_move, DRAW if x | o == FULL else ONGOING)

    def render_text(self, state: Tris1State) -> str:
        lines = ["     0   1   2"]
        for r in range(3):
            lines.append(f"  {r}  " + " │ ".join(self._symbol(state, r * 3 + c, "/")
                                                for c in range(3)))
            if r < 2:
                lines.append("    ───┼───┼───")
        lines.append(self.status(state))
        return "\n".join(lines)

    def winning_line(self, state: Tris1State) -> tuple[int, ...]:
        """The cells of the winner's line (``()`` unless the game was won)."""
        if state.result not in (X, O):
            return ()
        own = state.x if state.result == X else state.o
        return next(line for line, mask in zip(LINES, LINE_MASKS) if own & mask == mask)

    def status(self, state: Tris1State) -> str:
        """The line under the board: who moves, or the result and the winning line."""
        if state.result == ONGOING:
            return f"{SYMBOLS[state.to_move]} to move (/ = empty die)"
        if state.result == DRAW:
            return "Draw"
        cells = " ".join(self.action_name(state, cell) for cell in self.winning_line(state))
        return f"{SYMBOLS[state.result]} wins with the line {cells}"

    def draw(self, state: Tris1State, canvas: Canvas) -> None:
        canvas.fill(BACKGROUND)
        size = canvas.width / 3.4
        margin = (canvas.width - 3 * size) / 2
        line = self.winning_line(state)
        for cell in range(9):
            r, c = divmod(cell, 3)
            draw_die(canvas, margin + c * size, margin + r * size, size,
                     self._symbol(state, cell, "/"), cell in line)
        canvas.text(self.status(state), canvas.width / 2, canvas.height - 24, 20, INK)

    def picture_size(self, state: Tris1State) -> tuple[int, int]:
        return (400, 440)
