"""An SVG :class:`~tris_envs.core.drawing.Canvas`: every game's own ``draw`` as SVG.

The games draw their pictures on the framework-free canvas protocol of
:mod:`tris_envs.core.drawing`; this canvas writes the same shapes as SVG elements, so the
browser app shows exactly the picture ``render_mode="rgb_array"`` paints, scalable and
without pygame::

    from tris_envs.games import make_game
    from tris_envs.web.svg import draw_svg

    game = make_game("tant_fant")
    svg = draw_svg(game, game.initial_state(rng))    # "<svg ...>...</svg>"

The browser app shows :func:`board_svg`: the same picture without its status line (the
page shows it once, as text that wraps), cut to what is drawn, with the moves' click
targets (:mod:`tris_envs.web.board`) on top as elements carrying ``data-first`` (what
moves), ``data-action`` (the move's action number) and ``data-name`` attributes, the
last move and a won line outlined, and Tritoc's roll drawn as two dice.
"""

from __future__ import annotations

import html
from collections.abc import Collection, Sequence
from typing import Any

from tris_envs.core.drawing import Box, Color, Point
from tris_envs.core.game import Game
from tris_envs.games.tritoc.drawing import PIPS
from tris_envs.web.board import CHIP_HEIGHT, Click, Target, dice_faces


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
        skip: Texts not to write (the status line the page shows itself).

    Attributes:
        bottom: The lowest pixel drawn by anything but :meth:`fill`.
    """

    def __init__(self, width: int, height: int, skip: Collection[str] = ()) -> None:
        self.width = width
        self.height = height
        self.skip = skip
        self.elements: list[str] = []
        self.bottom = 0.0

    def fill(self, color: Color) -> None:
        """Paint the whole surface."""
        self.elements.append(f'<rect width="{self.width}" height="{self.height}" '
                             f'fill="{_rgb(color)}"/>')

    def rect(self, x: float, y: float, w: float, h: float, color: Color, width: int = 0,
             radius: int = 0) -> None:
        """A rectangle; ``width=0`` fills it; ``radius`` rounds the corners."""
        rounded = f' rx="{radius}"' if radius else ""
        self.bottom = max(self.bottom, y + h)
        self.elements.append(f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(w)}" '
                             f'height="{_n(h)}"{rounded} {_paint(color, width)}/>')

    def circle(self, cx: float, cy: float, r: float, color: Color, width: int = 0) -> None:
        """A disc (``width=0``) or a ring."""
        self.bottom = max(self.bottom, cy + r)
        self.elements.append(f'<circle cx="{_n(cx)}" cy="{_n(cy)}" r="{_n(r)}" '
                             f'{_paint(color, width)}/>')

    def line(self, p: Point, q: Point, color: Color, width: int = 1) -> None:
        """A straight segment."""
        self.bottom = max(self.bottom, p[1], q[1])
        self.elements.append(f'<line x1="{_n(p[0])}" y1="{_n(p[1])}" x2="{_n(q[0])}" '
                             f'y2="{_n(q[1])}" stroke="{_rgb(color)}" stroke-width="{width}" '
                             'stroke-linecap="round"/>')

    def polygon(self, points: Sequence[Point], color: Color, width: int = 0) -> None:
        """A filled (``width=0``) or outlined polygon."""
        self.bottom = max([self.bottom] + [y for _, y in points])
        coordinates = " ".join(f"{_n(x)},{_n(y)}" for x, y in points)
        self.elements.append(f'<polygon points="{coordinates}" {_paint(color, width)}/>')

    def text(self, s: str, cx: float, cy: float, size: int, color: Color) -> None:
        """``s`` centred on ``(cx, cy)`` with a font ``size`` pixels high."""
        if s in self.skip:
            return
        self.bottom = max(self.bottom, cy + size / 2)
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


def board_svg(game: Game, state: Any, status: str, clicks: Sequence[Click] = (),
              last: Sequence[Box] = (), won: Sequence[Box] = (), roll: bool = False) -> str:
    """The browser app's board: ``game.draw``'s picture without the line ``status`` (and
    its headline before ``": "``), cut under the lowest thing drawn, with on top:

    * ``last``: the places of the last move, outlined (class ``last``);
    * ``won``: the places of a winning line, outlined and joined (class ``won``);
    * ``clicks``: each move's first step as a ``<g class="target first">`` with
      ``data-first`` (and ``data-action``, ``data-name`` when one click plays it), and its
      second step as ``<g class="target second">`` with ``data-first``, ``data-action``,
      ``data-name``, which the page shows once the first is chosen;
    * ``roll``: a "Roll" button (``data-roll``) under the board, when a person rolls;
    * the roll to play (Tritoc's, :func:`~tris_envs.web.board.dice_faces`): two dice
      under the board (``<g class="dice">``, its sum in ``data-sum``).

    Every target is focusable (``tabindex``) with the move's name as its label."""
    width, height = game.picture_size(state)
    canvas = SvgCanvas(width, height, skip={status, status.split(": ", 1)[0]})
    game.draw(state, canvas)
    bottom = canvas.bottom
    overlay: list[str] = []
    overlay.extend(f'<rect class="last" {_box(box, 3)}/>' for box in last)
    if won:
        overlay.extend(f'<rect class="won" {_box(box, 2)}/>' for box in won)
        centres = " ".join(f"{_n(x + w / 2)},{_n(y + h / 2)}" for x, y, w, h in won)
        overlay.append(f'<polyline class="won" points="{centres}"/>')
    firsts: dict[str, Click] = {}
    for click in clicks:
        firsts.setdefault(click.first.key, click)
    for key, click in firsts.items():
        one = click.second is None
        data = f' data-action="{click.action}" data-name="{_q(click.name)}"' if one else ""
        label = click.name if one else key
        overlay.append(f'<g class="target first {click.first.shape}" data-first="{_q(key)}"'
                       f'{data} tabindex="0" '
                       f'role="button" aria-label="{_q(label)}">{_shape(click.first)}</g>')
        bottom = max(bottom, click.first.box[1] + click.first.box[3])
    for click in clicks:
        if click.second is not None:
            overlay.append(f'<g class="target second {click.second.shape}" '
                           f'data-first="{_q(click.first.key)}" '
                           f'data-action="{click.action}" data-name="{_q(click.name)}" '
                           f'tabindex="-1" role="button" aria-label="{_q(click.name)}">'
                           f'{_shape(click.second)}</g>')
            bottom = max(bottom, click.second.box[1] + click.second.box[3])
    faces = dice_faces(game, state)
    if faces is not None:
        below = max(y + h for _, y, _, h in game.picture_places(state).values())
        side = min(40.0, height - below - 12)
        overlay.append(_dice(faces, width / 2, (below + height) / 2, side))
        bottom = max(bottom, (below + height + side) / 2)
    if roll:
        y = min(bottom + 8, height - CHIP_HEIGHT - 2)
        chip = Target("Roll the dice", (width / 2 - 80, y, 160, CHIP_HEIGHT), "chip")
        overlay.append('<g class="target roll chip" data-roll="1" tabindex="0" role="button" '
                       f'aria-label="Roll the dice">{_shape(chip)}</g>')
        bottom = max(bottom, y + CHIP_HEIGHT)
    shown = min(height, int(bottom + 10))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {shown}" '
            f'font-family="sans-serif" class="board">' + "".join(canvas.elements)
            + '<g class="overlay">' + "".join(overlay) + "</g></svg>")


def _dice(faces: tuple[int, int], cx: float, cy: float, side: float) -> str:
    """Two dice showing ``faces`` side by side, centred on ``(cx, cy)``, each ``side``
    pixels wide."""
    words = f"the roll: {faces[0]} and {faces[1]}, {sum(faces)}"
    parts = [f'<g class="dice" data-sum="{sum(faces)}" role="img" aria-label="{words}">'
             f"<title>{words}</title>"]
    for k, face in enumerate(faces):
        x, y = cx - side * 1.1 + k * side * 1.2, cy - side / 2
        parts.append(f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(side)}" height="{_n(side)}" '
                     f'rx="{_n(side * 0.15)}" fill="#fffdf7" stroke="#282828" '
                     'stroke-width="2"/>')
        parts.extend(f'<circle cx="{_n(x + side * (0.25 + 0.25 * col))}" '
                     f'cy="{_n(y + side * (0.25 + 0.25 * row))}" r="{_n(side * 0.09)}" '
                     'fill="#282828"/>' for col, row in PIPS[face])
    return "".join(parts) + "</g>"


def _q(text: str) -> str:
    return html.escape(text, quote=True)


def _box(box: Box, inset: float) -> str:
    x, y, w, h = box
    return (f'x="{_n(x + inset)}" y="{_n(y + inset)}" width="{_n(w - 2 * inset)}" '
            f'height="{_n(h - 2 * inset)}" rx="6"')


def _shape(target: Target) -> str:
    """A target's outline: a square, a circle, an arrow pointing out of a die's side, or
    a labelled chip."""
    x, y, w, h = target.box
    if target.shape == "point":
        return (f'<circle cx="{_n(x + w / 2)}" cy="{_n(y + h / 2)}" '
                f'r="{_n(min(w, h) / 2)}"/>')
    if target.shape == "arrow":
        tips = {"N": [(x, y + h), (x + w / 2, y), (x + w, y + h)],
                "S": [(x, y), (x + w / 2, y + h), (x + w, y)],
                "W": [(x + w, y), (x, y + h / 2), (x + w, y + h)],
                "E": [(x, y), (x + w, y + h / 2), (x, y + h)]}[target.key]
        return '<polygon points="' + " ".join(f"{_n(px)},{_n(py)}" for px, py in tips) + '"/>'
    if target.shape == "chip":
        return (f'<rect {_box(target.box, 0)}/><text x="{_n(x + w / 2)}" '
                f'y="{_n(y + h / 2)}" font-size="18" text-anchor="middle" '
                f'dominant-baseline="central">{html.escape(target.key)}</text>')
    return f'<rect {_box(target.box, 2)}/>'
