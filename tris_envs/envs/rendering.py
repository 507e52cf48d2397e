"""pygame implementation of the drawing canvas; imported only for picture render modes."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from tris_envs.core.drawing import Color, Point
from tris_envs.core.game import Game

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
try:
    import pygame
except ImportError as error:  # pragma: no cover - depends on the installation
    raise ImportError("rgb_array and human rendering need pygame: "
                      "pip install 'tris_envs[render]'") from error


class PygameCanvas:
    """:class:`~tris_envs.core.drawing.Canvas` drawing on an off-screen pygame surface."""

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        self.surface = pygame.Surface((width, height))
        self._fonts: dict[int, Any] = {}

    def fill(self, color: Color) -> None:
        self.surface.fill(color)

    def rect(self, x: float, y: float, w: float, h: float, color: Color, width: int = 0,
             radius: int = 0) -> None:
        pygame.draw.rect(self.surface, color, pygame.Rect(round(x), round(y), round(w),
                                                          round(h)), width, radius)

    def circle(self, cx: float, cy: float, r: float, color: Color, width: int = 0) -> None:
        pygame.draw.circle(self.surface, color, (round(cx), round(cy)), round(r), width)

    def line(self, p: Point, q: Point, color: Color, width: int = 1) -> None:
        pygame.draw.line(self.surface, color, p, q, width)

    def polygon(self, points: Sequence[Point], color: Color, width: int = 0) -> None:
        pygame.draw.polygon(self.surface, color, list(points), width)

    def text(self, s: str, cx: float, cy: float, size: int, color: Color) -> None:
        font = self._fonts.get(size)
        if font is None:
            if not pygame.font.get_init():
                pygame.font.init()
            font = self._fonts[size] = pygame.font.Font(None, size)
        image = font.render(s, True, color)
        self.surface.blit(image, image.get_rect(center=(round(cx), round(cy))))

    def to_array(self) -> np.ndarray:
        """The picture as an ``(H, W, 3)`` ``uint8`` array."""
        return np.ascontiguousarray(pygame.surfarray.array3d(self.surface).transpose(1, 0, 2))


def draw_picture(game: Game, state: Any) -> np.ndarray:
    """Draw ``state`` with the game's own ``draw`` and return the RGB array."""
    canvas = PygameCanvas(*game.picture_size(state))
    game.draw(state, canvas)
    return canvas.to_array()


def show_picture(picture: np.ndarray, window: Any, title: str) -> Any:
    """Show ``picture`` in a window (created on first use) and return the window."""
    height, width = picture.shape[:2]
    if window is None or window.get_size() != (width, height):
        pygame.display.init()
        pygame.display.set_caption(title)
        window = pygame.display.set_mode((width, height))
    pygame.event.pump()
    window.blit(pygame.surfarray.make_surface(picture.transpose(1, 0, 2)), (0, 0))
    pygame.display.flip()
    return window


def close_window() -> None:
    """Close the display opened by :func:`show_picture`."""
    pygame.display.quit()
