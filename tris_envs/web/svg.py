"""An SVG :class:`~tris_envs.core.drawing.Canvas`: every game's own ``draw`` as SVG.

The games draw their pictures on the framework-free canvas protocol of
:mod:`tris_envs.core.drawing`; this canvas writes the same shapes as SVG elements, so the
browser app shows exactly the picture ``render_mode="rgb_array"`` paints, scalable and
without pygame::

    from tris_envs.games import make_game
    from tris_envs.web.svg import draw_svg

    game = make_game("tant_fant")
    svg = draw_svg(game, game.initial_state(rng))    # "<svg ...>...</svg>"
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from tris_envs.core.drawing import Color, Point
from tris_envs.core.game import Game


def _rgb(color: Color) -> str:
    return "#{:02x}{:02x}{:02x}".format(*color)


def _paint(color: Color, width: int) -> str:
    """Fill for ``width == 0``, else an outline ``width`` pixels wide (the pygame rule)."""
    if width == 0:
        return f'fill="{_rgb(color)}"'
    return f'fill="none" stroke="{_rgb(color)}" stroke-width="{width}"'


def _n(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


class SvgCanvas:
    """:class:`~tris_envs.core.drawing.Canvas` collecting SVG elements.

    Args:
        width: Picture width in pixels (the ``viewBox``).
        height: Picture height in pixels.
    """

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        self.elements: list[str] = []

    def fill(self, color: Color) -> None:
        """Paint the whole surface."""
        self.elements.append(f'<rect width="{self.width}" height="{self.height}" '
                             f'fill="{_rgb(color)}"/>')

    def rect(self, x: float, y: float, w: float, h: float, color: Color, width: int = 0,
             radius: int = 0) -> None:
        """A rectangle; ``width=0`` fills it; ``radius`` rounds the corners."""
        rounded = f' rx="{radius}"' if radius else ""
        self.elements.append(f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(w)}" '
                             f'height="{_n(h)}"{rounded} {_paint(color, width)}/>')

    def circle(self, cx: float, cy: float, r: float, color: Color, width: int = 0) -> None:
        """A disc (``width=0``) or a ring."""
        self.elements.append(f'<circle cx="{_n(cx)}" cy="{_n(cy)}" r="{_n(r)}" '
                             f'{_paint(color, width)}/>')

    def line(self, p: Point, q: Point, color: Color, width: int = 1) -> None:
        """A straight segment."""
        self.elements.append(f'<line x1="{_n(p[0])}" y1="{_n(p[1])}" x2="{_n(q[0])}" '
                             f'y2="{_n(q[1])}" stroke="{_rgb(color)}" stroke-width="{width}" '
                             'stroke-linecap="round"/>')

    def polygon(self, points: Sequence[Point], color: Color, width: int = 0) -> None:
        """A filled (``width=0``) or outlined polygon."""
        coordinates = " ".join(f"{_n(x)},{_n(y)}" for x, y in points)
        self.elements.append(f'<polygon points="{coordinates}" {_paint(color, width)}/>')

    def text(self, s: str, cx: float, cy: float, size: int, color: Color) -> None:
        """``s`` centred on ``(cx, cy)`` with a font ``size`` pixels high."""
        self.elements.append(f'<text x="{_n(cx)}" y="{_n(cy)}" font-size="{size}" '
                             f'fill="{_rgb(color)}" text-anchor="middle" '
                             f'dominant-baseline="central">{html.escape(s)}</text>')

    def svg(self) -> str:
        """The picture as one ``<svg>`` element that scales to its container."""
        return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {self.width} '
                f'{self.height}" font-family="sans-serif">' + "".join(self.elements)
                + "</svg>")


def draw_svg(game: Game, state: Any) -> str:
    """The picture of ``state`` that ``game.draw`` paints, as SVG text."""
    canvas = SvgCanvas(*game.picture_size(state))
    game.draw(state, canvas)
    return canvas.svg()
