"""Tris 2 as text (frame with row and column numbers) and as a picture (dice in
perspective)."""

from __future__ import annotations

from tris_envs.core.drawing import (
    BACKGROUND,
    DIE_EDGE,
    HIGHLIGHT,
    INK,
    Box,
    Canvas,
    draw_die,
    draw_symbol,
)
from tris_envs.games.tris2.moves import FRAME, ORIENTATIONS
from tris_envs.games.tris2.notation import cell_token, last_move_name, winning_line
from tris_envs.games.tris2.state import DRAW, ONGOING, PLAYER_NAMES, Tris2State

_GRID_LINE = (222, 208, 178)
_SIDE_FACES = ((238, 235, 226), (212, 207, 194), (226, 222, 211), (220, 215, 203))
"""North, south, west and east faces: lit from the top left."""


def render_text(state: Tris2State, hidden: bool = False) -> str:
    """The frame with row and column numbers and each die drawn from above, as the
    picture draws it: its top symbol in the middle, its north-south symbol on its upper and
    lower edges, its east-west symbol on its left and right edges; the die moved last has a
    double edge. ``hidden=True``: one line per row instead, each die as its token (top,
    north-south, east-west symbol, e.g. ``XO/``), the die moved last in brackets."""
    if hidden:
        return _token_text(state)
    last_cell = state.last >> 2 if state.last >= 0 else -1
    gap = "   "
    lines = ["    " + gap.join(f"{c:^5}" for c in range(state.width)).rstrip()]
    for r in range(state.height):
        rows: tuple[list[str], list[str], list[str]] = ([], [], [])
        for c in range(state.width):
            token = cell_token(state, r, c, "")
            if not token:
                faces = ("     ", "  .  ", "     ")
            else:
                top, north_south, east_west = tuple(token)
                edge, corners = ("═", "╔╗╚╝") if r * FRAME + c == last_cell else ("─", "┌┐└┘")
                nw, ne, sw, se = tuple(corners)
                faces = (f"{nw}{edge}{north_south}{edge}{ne}", f"{east_west} {top} {east_west}",
                         f"{sw}{edge}{north_south}{edge}{se}")
            for row, face in zip(rows, faces):
                row.append(face)
        lines += [(label + gap.join(row)).rstrip()
                  for label, row in zip(("    ", f"{r:>3} ", "    "), rows)]
    lines.append(LEGEND)
    lines.append(status(state))
    return "\n".join(lines)


LEGEND = ("(each die: top in the middle; a roll N or S brings up the symbol above and below, "
          "E or W the one beside)")
"""The line under :func:`render_text`'s dice that says how to read them."""


def _token_text(state: Tris2State) -> str:
    """:func:`render_text` with ``hidden=True``: each die's token, one line per row."""
    last_cell = state.last >> 2 if state.last >= 0 else -1
    lines = ["    " + "".join(f"{c:^5}" for c in range(state.width)).rstrip()]
    for r in range(state.height):
        row = ""
        for c in range(state.width):
            text = cell_token(state, r, c, "...")
            row += f"[{text}]" if r * FRAME + c == last_cell else f" {text} "
        lines.append(f"{r:>3} {row}".rstrip())
    lines.append("(each die: top, north-south, east-west symbol)")
    lines.append(status(state))
    return "\n".join(lines)


def status(state: Tris2State) -> str:
    """The line under the board: who is to move, or how the game ended (with the winning
    line's cells); the last move as it was typed (the die's cell before the roll) and the
    cell the die stands on now."""
    last = last_move_name(state)
    moved = f"; last move {last}" if last != "-" else ""
    if state.result == DRAW:
        action = "placement" if state.placing else "roll"
        return f"Draw: {PLAYER_NAMES[state.to_move]} has no legal {action}{moved}"
    if state.result != ONGOING:
        return f"{PLAYER_NAMES[state.result]} wins with the line {winning_line(state)}{moved}"
    if state.placing:
        placed = state.occupied.bit_count()
        return f"{PLAYER_NAMES[state.to_move]} to place a die ({placed} of 9 placed)"
    return f"{PLAYER_NAMES[state.to_move]} to roll{moved}"


def draw(state: Tris2State, canvas: Canvas) -> None:
    """Dice seen from above: the top face with its symbol, and the four side faces
    showing the north-south (top and bottom) and east-west (left and right) symbols.
    The die moved last is outlined in red. The picture keeps its size; dice shrink
    when the frame grows."""
    canvas.fill(BACKGROUND)
    margin = _MARGIN
    left, top, cell = frame_geometry(state, canvas.width)
    for c in range(state.width):
        canvas.text(str(c), left + (c + 0.5) * cell, top - margin / 2, 18, INK)
    for r in range(state.height):
        canvas.text(str(r), left - margin / 2, top + (r + 0.5) * cell, 18, INK)
    last_cell = state.last >> 2 if state.last >= 0 else -1
    for r in range(state.height):
        for c in range(state.width):
            x, y = left + c * cell, top + r * cell
            canvas.rect(x, y, cell, cell, _GRID_LINE, width=1)
            code = state.board[r * FRAME + c]
            if code:
                _draw_die_3d(canvas, x, y, cell, ORIENTATIONS[code - 1],
                             r * FRAME + c == last_cell)
    canvas.text(status(state), canvas.width / 2, canvas.height - 30, 20, INK)


_MARGIN = 34.0


def frame_geometry(state: Tris2State, width: float) -> tuple[float, float, float]:
    """Where :func:`draw` puts the frame in a picture ``width`` pixels wide: its left and
    top edges and a cell's side."""
    side = width - 2 * _MARGIN
    cell = side / max(3, state.height, state.width)
    return (_MARGIN + (side - state.width * cell) / 2,
            _MARGIN + (side - state.height * cell) / 2, cell)


def places(state: Tris2State, width: float) -> dict[str, Box]:
    """Each frame cell by its name (``1,2``: row, column)."""
    left, top, cell = frame_geometry(state, width)
    return {f"{r},{c}": (left + c * cell, top + r * cell, cell, cell)
            for r in range(state.height) for c in range(state.width)}


def _draw_die_3d(canvas: Canvas, x: float, y: float, size: float, orientation: str,
                 highlight: bool) -> None:
    """A die seen from above in perspective: side faces around the top face."""
    outer, inner = size * 0.05, size * 0.2
    a, b = x + outer, y + outer
    ra, rb = x + size - outer, y + size - outer
    ia, ib = x + inner, y + inner
    ira, irb = x + size - inner, y + size - inner
    top, ns, ew = tuple(orientation)
    faces = (
        ([(a, b), (ra, b), (ira, ib), (ia, ib)], ns, (x + size / 2, (b + ib) / 2)),
        ([(a, rb), (ra, rb), (ira, irb), (ia, irb)], ns, (x + size / 2, (rb + irb) / 2)),
        ([(a, b), (ia, ib), (ia, irb), (a, rb)], ew, ((a + ia) / 2, y + size / 2)),
        ([(ra, b), (ira, ib), (ira, irb), (ra, rb)], ew, ((ra + ira) / 2, y + size / 2)),
    )
    for (points, symbol, (cx, cy)), shade in zip(faces, _SIDE_FACES):
        canvas.polygon(points, shade)
        canvas.polygon(points, DIE_EDGE, width=1)
        draw_symbol(canvas, symbol, cx, cy, size * 0.2)
    canvas.rect(a, b, ra - a, rb - b, HIGHLIGHT if highlight else DIE_EDGE,
                width=3 if highlight else 1)
    pad = (inner - outer) * 0.2
    draw_die(canvas, ia - pad, ib - pad, ira - ia + 2 * pad, top, highlight)
