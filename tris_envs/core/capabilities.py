"""What a game can do beyond its rules, declared once on its ``GameSpec`` (never probed).

A capability names methods that the game's tactics object (:class:`Tactical`, built from
the rules core by the class the registry names in ``GameSpec.tactics``) and its JAX game
(``GameSpec.jax``) have; a game declares the ones it has in ``GameSpec.capabilities``,
and the code that needs one reads that declaration (``tris_envs.games.require``), so a
setting a game cannot honour is refused with one line before anything runs.
``tests/test_game_capabilities.py`` checks that each declaration agrees with the classes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Protocol, runtime_checkable

import numpy as np


@dataclass(frozen=True)
class Capability:
    """One capability: what it is in words, and the methods it promises.

    Attributes:
        description: What the game gives, for messages (``"each move's one-move wins and
            handovers"``).
        tactics: The methods of the game's tactics object (:class:`Tactical`).
        jax: The methods of the game's JAX class.
    """

    description: str
    tactics: tuple[str, ...]
    jax: tuple[str, ...]


CAPABILITIES: Mapping[str, Capability] = MappingProxyType({
    "tactics": Capability("each move's one-move wins and handovers",
                          ("tactical_moves", "tactic_flags"),
                          ("winning_moves", "handovers", "tactic_flags", "blunders")),
    "traps": Capability("the two-move traps: moves after which every reply hands a win back",
                        ("trap_moves",), ("trap_moves",)),
    "wary": Capability("the trap handovers: moves after which the opponent has a trap",
                       ("trap_handovers",), ("trap_handovers", "hands_over_traps")),
})
"""Every capability a game may declare, by name."""


@runtime_checkable
class Tactical(Protocol):
    """A game's tactics over one rules core (Tris 2's
    :class:`~tris_envs.games.tris2.tactics.Tris2Tactics`): each position's one-move tactics,
    what a network with ``NetConfig.tactics`` reads (capability ``tactics``), its two-move
    traps, what one with ``trap_planes`` reads (``traps``), and the moves that hand the
    opponent a trap, what one with ``wary_planes`` reads (``wary``)."""

    def tactical_moves(self, state: Any) -> tuple[np.ndarray, np.ndarray]:
        """``(wins, handovers)``: ``bool`` vectors over the actions, the legal moves after
        which the player to move has won, and those after which the opponent can win at
        once."""
        ...

    def trap_moves(self, state: Any) -> np.ndarray:
        """``bool`` vector over the actions: the legal moves after which every legal move
        of the opponent hands a win in one back."""
        ...

    def trap_handovers(self, state: Any) -> np.ndarray:
        """``bool`` vector over the actions: the legal moves after which the opponent has
        one of :meth:`trap_moves`."""
        ...

    def tactic_flags(self, state: Any, traps: bool = False, wary: bool = False) -> np.ndarray:
        """The wins and handovers, with ``traps`` also the traps, with ``wary`` then the
        moves that hand the opponent a trap, as the rows of one ``bool`` array ``(2 +
        traps + wary, num_actions)``, in one pass over the moves."""
        ...


__all__ = ["CAPABILITIES", "Capability", "Tactical"]
