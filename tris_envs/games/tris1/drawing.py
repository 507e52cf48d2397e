"""Tris 1 as text and as a picture."""

from __future__ import annotations

from tris_envs.core.drawing import BACKGROUND, INK, Canvas, draw_die
from tris_envs.games.tris1.notation import cell_name
from tris_envs.games.tris1.state import DRAW, ONGOING, SYMBOLS, Tris1State, symbol, winning_line


def status(state: Tris1State) -> str:
    """The line under the board: who moves, or the result and the winning line."""
    if state.result == ONGOING:
        return f"{SYMBOLS[state.to_move]} to move (/ = empty die)"
    if state.result == DRAW:
        return "Draw"
    cells = " ".join(cell_name(cell) for cell in winning_line(state))
    return f"{SYMBOLS[state.result]} wins with the line {cells}"


def render_text(state: Tris1State) -> str:
    """The board with row and column numbers, and :func:`status` under it."""
    lines = ["     0   1   2"]
    for r in range(3):
        lines.append(f"  {r}  " + " │ ".join(symbol(state, r * 3 + c, "/") for c in range(3)))
        if r < 2:
            lines.append("    ───┼───┼───")
    lines.append(status(state))
    return "\n".join(lines)


def draw(state: Tris1State, canvas: Canvas) -> None:
    """The nine dice, the winning line highlighted, and :func:`status`."""
    canvas.fill(BACKGROUND)
    size = canvas.width / 3.4
    margin = (canvas.width - 3 * size) / 2
    line = winning_line(state)
    for cell in range(9):
        r, c = divmod(cell, 3)
        draw_die(canvas, margin + c * size, margin + r * size, size,
                 symbol(state, cell, "/"), cell in line)
    canvas.text(status(state), canvas.width / 2, canvas.height - 24, 20, INK)
