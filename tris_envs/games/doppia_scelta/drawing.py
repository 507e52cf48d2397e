"""Doppia scelta as text (arrows for robots, ANSI colors where asked for) and as a picture."""

from __future__ import annotations

import os
import sys

from tris_envs.core.drawing import (
    BACKGROUND,
    BLACK_STONE,
    INK,
    WHITE_STONE,
    Box,
    Canvas,
    Color,
    draw_stone,
)
from tris_envs.games.doppia_scelta.state import (
    BLACK,
    COLOR_NAMES,
    DELTAS,
    DIRECTIONS,
    DRAW,
    EXITED,
    NOT_ENTERED,
    PLAYER_NAMES,
    SIZE,
    UNCOLORED,
    WHITE,
    DoppiaSceltaState,
    Rules,
    parse_gate,
)


def status(game: Rules, state: DoppiaSceltaState) -> tuple[str, str]:
    """A headline (who acts, or the result) and its details."""
    name = PLAYER_NAMES[state.to_move]
    if state.result in (WHITE, BLACK):
        winner = state.result
        return (f"{PLAYER_NAMES[winner]} wins",
                f"its robot left through its goal {game.gates[2 * winner + 1]}")
    if state.result == DRAW:
        if state.white == NOT_ENTERED:
            return "Draw", "no legal coloring left"
        return "Draw", "stalemate, both robots blocked on gray facing the border"
    if state.white == NOT_ENTERED:
        return f"{name} colors a cell", f"{state.colors.count(UNCOLORED)} uncolored"
    return f"{name} to move", ", ".join(f"{game.action_name(state, a)} ({COLOR_NAMES[a]})"
                                        for a in game.legal_actions(state))


def _gate_spots(gates: tuple[str, str, str, str]) -> dict[tuple[int, int], list[int]]:
    """Off-board ``(row, col)`` beside each gate -> the gate indexes (GATE_ROLES) there."""
    spots: dict[tuple[int, int], list[int]] = {}
    for k, gate in enumerate(gates):
        pose = parse_gate(gate)
        r, c = divmod(pose >> 2, SIZE)
        dr, dc = DELTAS[pose & 3]
        spots.setdefault((r + dr, c + dc), []).append(k)
    return spots


def render_text(game: Rules, state: DoppiaSceltaState, color: bool | None = None) -> str:
    """The board as text: each cell's color letter (``Y``, ``G``, ``R``, ``.`` uncolored);
    robots as arrows, gates in the margin.

    White's robot is drawn ``△▷▽◁``, Black's ``▲▶▼◀`` (pointing where it faces);
    margin labels ``Ws``/``Wg``/``Bs``/``Bg`` mark start and goal gates. ``color=True``
    also paints each cell's background with ANSI escape codes; ``None`` (the default, as
    for ``render_mode="ansi"``) decides as Python does for its own colored output
    (:func:`color_wanted`): plain text unless standard output is a terminal or
    ``FORCE_COLOR`` is set, and never with ``NO_COLOR`` set or ``TERM=dumb``.
    """
    if color is None:
        color = color_wanted()
    spots = {spot: "".join("WWBB"[k] + "sgsg"[k] for k in ks)
             for spot, ks in _gate_spots(game.gates).items()}
    robots: dict[int, str] = {}
    for pose, arrows in ((state.white, "△▷▽◁"), (state.black, "▲▶▼◀")):
        if 0 <= pose < EXITED:
            robots[pose >> 2] = robots.get(pose >> 2, "") + arrows[pose & 3]
    lines = ["      " + "".join(f"{c}   " for c in range(SIZE)).rstrip()]
    for r in range(-1, SIZE + 1):
        row = [f"{r} " if 0 <= r < SIZE else "  "]
        for c in range(-1, SIZE + 1):
            if 0 <= r < SIZE and 0 <= c < SIZE:
                ch = state.colors[r * SIZE + c]
                cell = f"{ch}{robots.get(r * SIZE + c, ''):<2} "
                row.append(f"{_ANSI[ch]}{cell}{_RESET}" if color and ch != UNCOLORED else cell)
            else:
                row.append(f"{spots.get((r, c), ''):<4}")
        lines.append("".join(row).rstrip())
    lines.append("White △▷▽◁  Black ▲▶▼◀  gates: Ws/Bs start, Wg/Bg goal")
    lines.append(": ".join(status(game, state)))
    return "\n".join(lines)


def color_wanted() -> bool:
    """Whether text for standard output gets ANSI colors, by the rules of Python 3.13's
    own colored output: not with ``NO_COLOR`` set (non-empty), yes with ``FORCE_COLOR`` set
    (non-empty), not with ``TERM=dumb``, else when standard output is a terminal."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    if os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(sys.stdout, "isatty", None)
    return bool(isatty and isatty())


def cell_side(width: float) -> float:
    """A cell's side in :func:`draw`'s picture ``width`` pixels wide (the board and a
    margin of one cell around it)."""
    return width / (SIZE + 2)


def places(width: float) -> dict[str, Box]:
    """Each cell by its name (``1,2``), and the cells of the margin around the board where
    :func:`draw` puts the gates (``-1,4``: beyond cell ``0,4``'s north side)."""
    size = cell_side(width)
    return {f"{r},{c}": (size * (c + 1), size * (r + 1), size, size)
            for r in range(-1, SIZE + 1) for c in range(-1, SIZE + 1)}


def draw(game: Rules, state: DoppiaSceltaState, canvas: Canvas) -> None:
    """Paint the board, the gates (arrow in = start, ringed arrow out = goal) and robots."""
    canvas.fill(BACKGROUND)
    size = cell_side(canvas.width)

    def center(r: float, c: float) -> tuple[float, float]:
        return (size * (c + 1.5), size * (r + 1.5))

    for cell, ch in enumerate(state.colors):
        r, c = divmod(cell, SIZE)
        x, y = size * (c + 1), size * (r + 1)
        canvas.rect(x, y, size, size, _CELL_FILL[ch])
        canvas.rect(x, y, size, size, INK, width=2)
        if ch == UNCOLORED:
            canvas.text("?", *center(r, c), int(size * 0.4), _GRID)
    fills = (WHITE_STONE, BLACK_STONE)
    for (r, c), ks in _gate_spots(game.gates).items():
        for n, k in enumerate(ks):
            player, goal = divmod(k, 2)
            exit_dir = parse_gate(game.gates[k]) & 3
            shift = (n - (len(ks) - 1) / 2) * 0.6
            dr, dc = DELTAS[(exit_dir + 1) % 4]
            cx, cy = center(r + dr * shift, c + dc * shift)
            if goal:
                canvas.circle(cx, cy, size * 0.26, INK, width=2)
            _draw_arrow(canvas, cx, cy, size * 0.2, exit_dir if goal else exit_dir ^ 2,
                        fills[player])
    cells = [p >> 2 for p in (state.white, state.black) if 0 <= p < EXITED]
    for player, pose in enumerate((state.white, state.black)):
        if pose == NOT_ENTERED:
            continue
        if pose == EXITED:
            beyond = game.beyond_goal(player).split(",")
            y, x, facing = float(beyond[0]), float(beyond[1]), DIRECTIONS.index(beyond[2])
            radius = size * 0.3
        else:
            row, col = divmod(pose >> 2, SIZE)
            y, x = float(row), float(col)
            facing = pose & 3
            shared = cells.count(pose >> 2) == 2
            radius = size * (0.24 if shared else 0.34)
            if shared:
                y, x = y - 0.2 + 0.4 * player, x - 0.2 + 0.4 * player
        _draw_robot(canvas, *center(y, x), radius, facing, player)
    canvas.text(status(game, state)[0], canvas.width / 2, canvas.width + 22, 24, INK)
    canvas.text("gates: arrow in = start, ringed arrow out = goal", canvas.width / 2,
                canvas.width + 48, 18, INK)


_RESET = "\x1b[0m"
_ANSI = {"Y": "\x1b[30;43m", "G": "\x1b[30;47m", "R": "\x1b[30;41m"}
_CELL_FILL: dict[str, Color] = {"Y": (240, 200, 40), "G": (150, 150, 150), "R": (205, 50, 40),
                                UNCOLORED: (250, 250, 245)}
_GRID: Color = (170, 170, 170)


def _draw_arrow(canvas: Canvas, cx: float, cy: float, size: float, direction: int,
                fill: Color) -> None:
    """A triangle centred on ``(cx, cy)`` pointing ``direction`` (0 N, 1 E, 2 S, 3 W)."""
    dy, dx = DELTAS[direction]
    points = [(cx + dx * size, cy + dy * size),
              (cx - dx * size * 0.7 - dy * size * 0.8, cy - dy * size * 0.7 + dx * size * 0.8),
              (cx - dx * size * 0.7 + dy * size * 0.8, cy - dy * size * 0.7 - dx * size * 0.8)]
    canvas.polygon(points, fill)
    canvas.polygon(points, INK, width=2)


def _draw_robot(canvas: Canvas, cx: float, cy: float, radius: float, facing: int,
                player: int) -> None:
    """A robot: a stone with a pointer showing where it faces."""
    draw_stone(canvas, cx, cy, radius, (WHITE_STONE, BLACK_STONE)[player])
    dy, dx = DELTAS[facing]
    tip = (cx + dx * radius * 0.85, cy + dy * radius * 0.85)
    side = radius * 0.45
    base = (cx + dx * radius * 0.1, cy + dy * radius * 0.1)
    points = [tip, (base[0] - dy * side, base[1] + dx * side),
              (base[0] + dy * side, base[1] - dx * side)]
    canvas.polygon(points, (INK, WHITE_STONE)[player])
