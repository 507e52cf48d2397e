"""Tant Fant as text and as a picture."""

from __future__ import annotations

from tris_envs.core.drawing import (
    BACKGROUND,
    BLACK_STONE,
    HIGHLIGHT,
    INK,
    WHITE_STONE,
    Box,
    Canvas,
    Point,
    draw_line_board,
    draw_stone,
)
from tris_envs.games.tant_fant.state import (
    COLOR_NAMES,
    DRAW,
    LINES,
    ONGOING,
    POINT_NAMES,
    TantFantState,
    point_char,
    winning_line,
)


def status(state: TantFantState) -> str:
    """The line under the board: who moves, or the result and how it came."""
    if state.result == ONGOING:
        return f"{COLOR_NAMES[state.to_move]} to move"
    if state.result == DRAW:
        return f"Draw ({state.ending})"
    if state.ending == "line":
        points = " ".join(POINT_NAMES[p] for p in winning_line(state))
        return f"{COLOR_NAMES[state.result]} wins with the line {points}"
    return f"{COLOR_NAMES[state.result]} wins ({state.ending})"


def render_text(state: TantFantState) -> str:
    """The board with its lines, ranks and files, and :func:`status` under it."""
    rows = [f"{r + 1}  " + " ─ ".join(point_char(state, r * 3 + c) for c in range(3))
            for r in (2, 1, 0)]
    lines = [rows[0], "   │ ╲ │ ╱ │", rows[1], "   │ ╱ │ ╲ │", rows[2], "   a   b   c",
             status(state)]
    return "\n".join(lines)


def point_centres(width: float) -> tuple[list[Point], float]:
    """Where :func:`draw` puts the nine points in a picture ``width`` pixels wide, and the
    distance between neighbours."""
    step = width * 0.32
    origin = width * 0.18
    return [(origin + (p % 3) * step, origin + (2 - p // 3) * step) for p in range(9)], step


def places(width: float) -> dict[str, Box]:
    """Each point by its name (``b1``): the square around its highlight ring."""
    points, step = point_centres(width)
    r = step * 0.28
    return {POINT_NAMES[p]: (x - r, y - r, 2 * r, 2 * r) for p, (x, y) in enumerate(points)}


def draw(state: TantFantState, canvas: Canvas) -> None:
    """The board, its stones, the winning line highlighted, and :func:`status`."""
    canvas.fill(BACKGROUND)
    points, step = point_centres(canvas.width)
    edges = [(a, b) for line in LINES for a, b in zip(line, line[1:])]
    draw_line_board(canvas, points, edges)
    label = step * 0.38          # in the margin, clear of the lines and the stones
    for k in range(3):
        canvas.text("abc"[k], points[k][0], points[0][1] + label, 18, INK)
        canvas.text(str(k + 1), points[0][0] - label, points[3 * k][1], 18, INK)
    line = winning_line(state)
    for p, (x, y) in enumerate(points):
        if p in line:
            canvas.circle(x, y, step * 0.28, HIGHLIGHT)
        if state.white >> p & 1:
            draw_stone(canvas, x, y, step * 0.22, WHITE_STONE)
        elif state.black >> p & 1:
            draw_stone(canvas, x, y, step * 0.22, BLACK_STONE)
    canvas.text(status(state), canvas.width / 2, canvas.height - 24, 20, INK)
