"""Tritoc as text and as a picture: the board, the stones, the conquered fields, the roll."""

from __future__ import annotations

from tris_envs.core.drawing import (
    BACKGROUND,
    BLACK_STONE,
    HIGHLIGHT,
    INK,
    WHITE_STONE,
    Box,
    Canvas,
    draw_stone,
)
from tris_envs.games.tritoc.state import (
    BLACK,
    COLOR_NAMES,
    DRAW,
    FIELD_LINE_MASKS,
    MUST_PASS,
    ONGOING,
    PENDING,
    SUMS,
    TTT_LINES,
    WHITE,
    TritocState,
    stone_letter,
)


def status(state: TritocState) -> str:
    """One line: the result, or who rolls or acts and what the roll allows."""
    color = COLOR_NAMES[state.to_move]
    if state.result == DRAW:
        return "Draw (four consecutive passes)"
    if state.result != ONGOING:
        fields = state.white_fields if state.result == WHITE else state.black_fields
        line = next(line for line, mask in zip(TTT_LINES, FIELD_LINE_MASKS)
                    if fields & mask == mask)
        return (f"{COLOR_NAMES[state.result]} wins with the fields "
                f"{', '.join(map(str, line))} in a row")
    if state.roll == PENDING:
        return f"{color} to roll"
    if state.roll == MUST_PASS:
        return f"{color} must pass (no roll allowed an action)"
    if state.roll == 12:
        return f"{color} rolled 12: remove a {COLOR_NAMES[1 - state.to_move]} stone"
    if state.roll == 2:
        return f"{color} rolled 2: remove a {color} stone"
    return f"{color} rolled {state.roll}: place on an empty {state.roll}"


def render_text(state: TritocState, scores: tuple[int, int]) -> str:
    """The board with hole numbers on empty holes, the players' ``scores``, the roll to play
    drawn as two dice (:func:`dice_text`) and the status."""
    numbers = state.layout.numbers
    lines = ["    " + "  ".join("".join(f"{c:>3}" for c in range(b, b + 3))
                           for b in (0, 3, 6)),
             "   ┌" + "┬".join(["─" * 10] * 3) + "┐"]
    for r in range(9):
        if r and r % 3 == 0:
            lines.append("   ├" + "┼".join(["─" * 10] * 3) + "┤")
        blocks = ("".join(f"{stone_letter(state, r * 9 + c, str(numbers[r * 9 + c])):>3}"
                          for c in range(b, b + 3)) + " " for b in (0, 3, 6))
        lines.append(f"{r:>2} │" + "│".join(blocks) + "│")
    lines.append("   └" + "┴".join(["─" * 10] * 3) + "┘")
    white, black = scores
    lines.append(f"W = White (player_0) {white} pts, B = Black (player_1) {black} pts; "
                 f"passes {state.passes}")
    if min(SUMS) <= state.roll <= max(SUMS):
        lines += dice_text(state.roll)
    lines.append(status(state))
    return "\n".join(lines)


PIPS = {1: ((1, 1),), 2: ((0, 0), (2, 2)), 3: ((0, 0), (1, 1), (2, 2)),
        4: ((0, 0), (2, 0), (0, 2), (2, 2)), 5: ((0, 0), (2, 0), (1, 1), (0, 2), (2, 2)),
        6: ((0, 0), (2, 0), (0, 1), (2, 1), (0, 2), (2, 2))}
"""A die's pips by the number on its face: (column, row) on a 3 x 3 grid."""


def roll_faces(roll: int) -> tuple[int, int]:
    """Two dice faces that make the sum ``roll`` (2-12), as the board draws them: the game
    keeps only the sum, so ``7`` is drawn 3 and 4, ``12`` 6 and 6."""
    return roll // 2, roll - roll // 2


def dice_text(roll: int) -> list[str]:
    """The roll (2-12) as two dice with their pips (:func:`roll_faces`), in five lines."""
    faces = roll_faces(roll)
    rows = [" ".join(f"│ {' '.join('●' if (c, r) in PIPS[face] else ' ' for c in range(3))} │"
                     for face in faces) for r in range(3)]
    rows[1] += f"  the dice: {faces[0]} and {faces[1]}, {roll}"
    return ["   " + " ".join(["┌───────┐"] * 2), *("   " + row for row in rows),
            "   " + " ".join(["└───────┘"] * 2)]


def hole_geometry(width: float) -> tuple[float, float]:
    """Where :func:`draw` puts the board in a picture ``width`` pixels wide: its margin
    and a hole's cell side."""
    return 14.0, (width - 28.0) / 9


def places(width: float) -> dict[str, Box]:
    """Each hole by its name (``3,4``: row, column) and each field (``field 4``)."""
    margin, cell = hole_geometry(width)
    holes = {f"{h // 9},{h % 9}": (margin + h % 9 * cell, margin + h // 9 * cell, cell, cell)
             for h in range(81)}
    fields = {f"field {f}": (margin + f % 3 * 3 * cell, margin + f // 3 * 3 * cell, 3 * cell,
                             3 * cell) for f in range(9)}
    return holes | fields


def draw(state: TritocState, canvas: Canvas, targets: int) -> None:
    """Paint ``state``; ``targets`` (81-bit mask) are the holes where the roll allows acting."""
    canvas.fill(BACKGROUND)
    margin, cell = hole_geometry(canvas.width)
    tint = ((250, 236, 200), (150, 140, 125))
    for f in range(9):
        for color, fields in ((WHITE, state.white_fields), (BLACK, state.black_fields)):
            if fields >> f & 1:
                canvas.rect(margin + f % 3 * 3 * cell, margin + f // 3 * 3 * cell,
                            3 * cell, 3 * cell, tint[color])
    for k in range(10):
        width = 4 if k % 3 == 0 else 1
        pos = margin + k * cell
        canvas.line((margin, pos), (margin + 9 * cell, pos), INK, width)
        canvas.line((pos, margin), (pos, margin + 9 * cell), INK, width)
    for h in range(81):
        cx, cy = margin + (h % 9 + 0.5) * cell, margin + (h // 9 + 0.5) * cell
        if targets >> h & 1:
            canvas.circle(cx, cy, cell * 0.46, HIGHLIGHT, width=3)
        if state.white >> h & 1:
            draw_stone(canvas, cx, cy, cell * 0.38, WHITE_STONE)
        elif state.black >> h & 1:
            draw_stone(canvas, cx, cy, cell * 0.38, BLACK_STONE)
        else:
            canvas.circle(cx, cy, cell * 0.36, INK, width=1)
            canvas.text(str(state.layout.numbers[h]), cx, cy, int(cell * 0.45), INK)
    y = margin + 9 * cell + (canvas.height - margin - 9 * cell) / 2
    if state.result == ONGOING:
        draw_stone(canvas, margin + 12, y, 10, (WHITE_STONE, BLACK_STONE)[state.to_move])
    canvas.text(status(state), canvas.width / 2 + 10, y, 22, INK)
