"""The game registry: one :class:`GameSpec` per game; everything else asks it.

PettingZoo and Gymnasium registration, the command line's choices, the agent factory, the
benchmark and the conformance tests are all derived from :data:`GAMES`. Adding a game is
one rules module (a :class:`~tris_envs.core.game.Game`), one ``<name>_v<version>``
environment module, and one entry here.

Importing this module imports no rules module (each is loaded on first use) and none of
PettingZoo, Gymnasium or PyTorch::

    from tris_envs.games import GAMES, make_game

    game = make_game("tant_fant", stalemate="loss")
    GAMES["tritoc"].env_name        # "tritoc_v0"
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from tris_envs.core.errors import brief

if TYPE_CHECKING:
    from tris_envs.core.game import Game

NAMESPACE = "tris_envs"
"""Namespace of the PettingZoo and Gymnasium ids (``tris_envs/tant_fant-v0``)."""


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


def _tris2_slot(action: int) -> Slot:
    """Rolls: frame cell, channel = direction; placements: block cell, 4 + orientation."""
    if action < 324:
        cell, direction = divmod(action, 4)
        return (cell // 9, cell % 9, direction)
    cell, orientation = divmod(action - 324, 6)
    return (cell // 3, cell % 3, 4 + orientation)


def _doppia_slot(action: int) -> Slot:
    """Turns: global logits 0-2; colorings: the cell, channel = color."""
    if action < 3:
        return (action,)
    cell, color = divmod(action - 3, 3)
    return (cell // 5, cell % 5, color)


@dataclass(frozen=True)
class GameSpec:
    """Everything the package knows about one game outside its rules.

    Attributes:
        name: Short identifier, the rules core's ``info.name`` (``"tant_fant"``).
        title: The game's name for people (``"Tant Fant"``).
        rules: ``"module:Class"`` of the rules core, imported on first use.
        solvable: Whether the exact solver plays it (``Game.solver_root`` answers).
        bench_ratio: Target of ``env()`` random-play steps/s as a multiple of PettingZoo's
            ``tictactoe_v3`` in the same run (``tris-envs bench``).
        policy: How a board-shaped policy head addresses the actions.
        option_sets: Option sets the conformance suite runs, the defaults among them.
        version: The environment's version (``tant_fant_v0``).
    """

    name: str
    title: str
    rules: str
    solvable: bool
    bench_ratio: float
    policy: PolicyLayout
    option_sets: tuple[Mapping[str, Any], ...] = ({},)
    version: int = 0

    @property
    def env_name(self) -> str:
        """PettingZoo-style module name, ``"tant_fant_v0"``."""
        return f"{self.name}_v{self.version}"

    @property
    def env_module(self) -> str:
        """Import path of the environment module (``env()``, ``raw_env``)."""
        return f"{NAMESPACE}.{self.env_name}"

    @property
    def pettingzoo_id(self) -> str:
        """Id in PettingZoo's registry, ``"tris_envs/tant_fant-v0"``."""
        return f"{NAMESPACE}/{self.name}-v{self.version}"

    @property
    def gymnasium_id(self) -> str:
        """Id of the single-agent view in Gymnasium's registry, ``"tris_envs/TantFant-v0"``."""
        camel = "".join(word.capitalize() for word in self.name.split("_"))
        return f"{NAMESPACE}/{camel}-v{self.version}"

    @property
    def game_class(self) -> type[Game]:
        """The rules-core class (its module is imported on first use)."""
        module, _, attribute = self.rules.partition(":")
        cls: type[Game] = getattr(importlib.import_module(module), attribute)
        return cls

    def make(self, **options: Any) -> Game:
        """The rules core with ``options``; ``ValueError`` naming an unknown option."""
        cls = self.game_class
        cls.check_option_names(options)
        return cls(**options)


def _tritoc_custom_layout() -> tuple[int, ...]:
    """An explicit layout for the conformance suite: field ``f`` holds 3..11 rotated by ``f``."""
    numbers = [0] * 81
    for f in range(9):
        for k in range(9):
            numbers[(f // 3 * 3 + k // 3) * 9 + f % 3 * 3 + k % 3] = 3 + (k + f) % 9
    return tuple(numbers)


GAMES: Mapping[str, GameSpec] = MappingProxyType({spec.name: spec for spec in (
    GameSpec("tris2", "Tris 2", "tris_envs.games.tris2:Tris2", solvable=False,
             bench_ratio=1.5, policy=PolicyLayout(10, 0, _tris2_slot),
             option_sets=({}, {"setup": "placement"}, {"max_side": 4}, {"fair": True})),
    GameSpec("tris1", "Tris 1", "tris_envs.games.tris1:Tris1", solvable=True,
             bench_ratio=3.0, policy=PolicyLayout(1, 0, lambda a: (a // 3, a % 3, 0))),
    GameSpec("tant_fant", "Tant Fant", "tris_envs.games.tant_fant:TantFant", solvable=True,
             bench_ratio=3.0,   # from-point, channel = to-point
             policy=PolicyLayout(9, 0, lambda a: (a // 27, a // 9 % 3, a % 9)),
             option_sets=tuple({"stalemate": s, "repetition_draw": r, "diagonal_only": d}
                               for s in ("draw", "loss") for r in (False, True)
                               for d in (False, True))),
    GameSpec("doppia_scelta", "Doppia scelta", "tris_envs.games.doppia_scelta:DoppiaScelta",
             solvable=True, bench_ratio=2.0, policy=PolicyLayout(3, 3, _doppia_slot),
             option_sets=tuple({"scheme": scheme, "setup": setup}
                               for scheme in ("crossing", "shared_goal", "swap")
                               for setup in ("random", "coloring"))),
    GameSpec("tritoc", "Tritoc", "tris_envs.games.tritoc:Tritoc", solvable=False,
             bench_ratio=1.5, policy=PolicyLayout(1, 1, lambda a: (a // 9, a % 9, 0) if a < 81
                                                  else (0,)),
             option_sets=({}, {"layout": "magic"}, {"layout": "random"},
                          {"layout": _tritoc_custom_layout()}, {"dice": "equal"},
                          {"dice": "equal", "layout": "random", "reward": "points",
                           "max_rerolls": 0})),
)})
"""Every game, by name."""


def game_spec(name: str) -> GameSpec:
    """The spec of a game named ``"tant_fant"``, ``"tant_fant_v0"`` or ``"tant_fant-v0"``.

    Raises:
        ValueError: no such game; the message lists the games.
    """
    if isinstance(name, str):
        for spec in GAMES.values():
            if name in (spec.name, spec.env_name, f"{spec.name}-v{spec.version}"):
                return spec
    raise ValueError(f"unknown game {brief(name)}; choose one of {', '.join(GAMES)} "
                     f"(or their environment names, e.g. {next(iter(GAMES.values())).env_name})")


def make_game(name: str, **options: Any) -> Game:
    """The rules core of game ``name`` (any form :func:`game_spec` accepts) with ``options``.

    Raises:
        ValueError: an unknown game, an unknown option or a bad option value.
    """
    return game_spec(name).make(**options)


__all__ = ["GAMES", "NAMESPACE", "GameSpec", "PolicyLayout", "game_spec", "make_game"]
