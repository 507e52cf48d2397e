"""How a board-shaped policy head addresses a game's actions: each game's
``POLICY_LAYOUT`` (in its ``state`` module) is a :class:`PolicyLayout`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

Slot = tuple[int, int, int] | tuple[int]
"""Where a policy network's logit for one action sits: ``(row, col, channel)`` of the
per-cell maps over the observation's board, or ``(k,)`` for the ``k``-th global logit."""


@dataclass(frozen=True)
class PolicyLayout:
    """How a fully convolutional policy head addresses a game's actions.

    The head produces ``cell_channels`` logits on every cell of the observation's
    ``(H, W)`` board and ``global_logits`` logits from the whole board; ``slot(action)``
    says which one belongs to each action.

    Attributes:
        cell_channels: Logit maps over the board.
        global_logits: Logits not tied to a cell (Tritoc's pass, Doppia scelta's turns).
        slot: Action -> :data:`Slot`.
    """

    cell_channels: int
    global_logits: int
    slot: Callable[[int], Slot] = field(repr=False)

    def index(self, num_actions: int, height: int, width: int) -> list[int]:
        """For each action, its position in the head's flat output: the ``(H, W, C)`` cell
        maps in row-major order, then the global logits."""
        cells = height * width * self.cell_channels
        flat = []
        for action in range(num_actions):
            slot = self.slot(action)
            if len(slot) == 1:
                flat.append(cells + slot[0])
            else:
                r, c, ch = slot
                flat.append((r * width + c) * self.cell_channels + ch)
        return flat
