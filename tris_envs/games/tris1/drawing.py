"""Tris 1 as text and as a picture."""

from __future__ import annotations

from tris_envs.core.drawing import BACKGROUND, INK, Box, Canvas, draw_die
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


def die_boxes(width: float) -> list[Box]:
    """Where :func:`draw` puts each cell's die in a picture ``width`` pixels wide."""
    size = width / 3.4
    margin = (width - 3 * size) / 2
    return [(margin + cell % 3 * size, margin + cell // 3 * size, size, size)
            for cell in range(9)]


def places(width: float) -> dict[str, Box]:
    """Each cell's die by its name (``1,2``)."""
    return {cell_name(cell): box for cell, box in enumerate(die_boxes(width))}


def draw(state: Tris1State, canvas: Canvas) -> None:
    """The nine dice, the winning line highlighted, and :func:`status`."""
    canvas.fill(BACKGROUND)
    line = winning_line(state)
    for cell, (x, y, size, _) in enumerate(die_boxes(canvas.width)):
        draw_die(canvas, x, y, size, symbol(state, cell, "/"), cell in line)
    canvas.text(status(state), canvas.width / 2, canvas.height - 24, 20, INK)
