"""Framework-free picture description shared by every game.

Games draw on a :class:`Canvas` (a protocol: rectangles, discs, lines, text); the
environment supplies a pygame implementation only when a picture is asked for, so the
rules core never imports pygame. The helpers below (stones, dice symbols, line boards)
are the shared building blocks each game's ``draw`` combines.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

Color = tuple[int, int, int]
Point = tuple[float, float]
Box = tuple[float, float, float, float]
"""A rectangle of a picture, ``(x, y, width, height)`` in pixels: where a cell, a point or
a hole lies (``Game.picture_places``)."""

BACKGROUND: Color = (238, 226, 200)
INK: Color = (40, 40, 40)
WHITE_STONE: Color = (250, 250, 245)
BLACK_STONE: Color = (30, 30, 30)
DIE_FACE: Color = (252, 252, 248)
DIE_EDGE: Color = (90, 90, 90)
HIGHLIGHT: Color = (220, 60, 40)
SYMBOL_COLORS: dict[str, Color] = {"X": (200, 40, 40), "O": (30, 80, 200), "/": (60, 60, 60)}


class Canvas(Protocol):
    """A drawing surface of fixed pixel size; coordinates in pixels, origin top-left."""

    width: int
    height: int

    def fill(self, color: Color) -> None:
        """Paint the whole surface."""

    def rect(
        self, x: float, y: float, w: float, h: float, color: Color, width: int = 0,
        radius: int = 0,
    ) -> None:
        """A rectangle; ``width=0`` fills it; ``radius`` rounds the corners."""

    def circle(self, cx: float, cy: float, r: float, color: Color, width: int = 0) -> None:
        """A disc (``width=0``) or a ring."""

    def line(self, p: Point, q: Point, color: Color, width: int = 1) -> None:
        """A straight segment."""

    def polygon(self, points: Sequence[Point], color: Color, width: int = 0) -> None:
        """A filled (``width=0``) or outlined polygon."""

    def text(self, s: str, cx: float, cy: float, size: int, color: Color) -> None:
        """``s`` centred on ``(cx, cy)`` with a font ``size`` pixels high."""


def draw_stone(canvas: Canvas, cx: float, cy: float, r: float, fill: Color) -> None:
    """A round playing piece with a dark outline."""
    canvas.circle(cx, cy, r, fill)
    canvas.circle(cx, cy, r, INK, width=2)


def draw_symbol(canvas: Canvas, symbol: str, cx: float, cy: float, size: float) -> None:
    """One Tris die symbol (``X``, ``O`` or ``/``) centred on ``(cx, cy)``."""
    h = size * 0.3
    width = max(2, int(size * 0.09))
    color = SYMBOL_COLORS[symbol]
    if symbol == "X":
        canvas.line((cx - h, cy - h), (cx + h, cy + h), color, width)
        canvas.line((cx - h, cy + h), (cx + h, cy - h), color, width)
    elif symbol == "O":
        canvas.circle(cx, cy, h, color, width=width)
    else:
        canvas.line((cx - h, cy + h), (cx + h, cy - h), color, width)


def draw_die(
    canvas: Canvas, x: float, y: float, size: float, top: str, highlight: bool = False
) -> None:
    """A die seen from above: a rounded square showing its top symbol."""
    pad = size * 0.06
    radius = int(size * 0.15)
    canvas.rect(x + pad, y + pad, size - 2 * pad, size - 2 * pad, DIE_FACE, radius=radius)
    edge = HIGHLIGHT if highlight else DIE_EDGE
    canvas.rect(
        x + pad, y + pad, size - 2 * pad, size - 2 * pad, edge, width=3 if highlight else 2,
        radius=radius,
    )
    draw_symbol(canvas, top, x + size / 2, y + size / 2, size)


def draw_line_board(
    canvas: Canvas,
    points: Sequence[Point],
    edges: Sequence[tuple[int, int]],
) -> None:
    """A board of points joined by lines (Tant Fant)."""
    for a, b in edges:
        canvas.line(points[a], points[b], INK, 3)
    for (x, y) in points:
        canvas.circle(x, y, 5, INK)
