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
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from tris_envs.core.capabilities import CAPABILITIES, Tactical
from tris_envs.core.errors import brief
from tris_envs.core.policy import PolicyLayout, Slot

if TYPE_CHECKING:
    from tris_envs.core.game import Game

NAMESPACE = "tris_envs"
"""Namespace of the PettingZoo and Gymnasium ids (``tris_envs/tant_fant-v0``)."""


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
        jax: ``"module:Class"`` of the game in :mod:`tris_envs.jax` (the same rules as
            batched JAX functions), imported on first use.
        option_sets: Option sets the conformance suite runs, the defaults among them.
        targets: What a trained agent must reach (SPEC 14), as ``(opponent, test,
            value)``: score ``>=`` / ``>`` value, at most ``value`` ``losses``, or a share of
            solver-optimal moves over all games (``"*"``) of at least ``value``;
            :mod:`tris_envs.evaluation.targets` checks them.
        version: The environment's version (``tant_fant_v0``).
        capabilities: What the game can do beyond its rules, names of
            :data:`~tris_envs.core.capabilities.CAPABILITIES` (Tris 2: ``tactics``,
            ``traps``, ``wary``); code that needs one reads this (:func:`require`), never
            probes the classes.
        tactics: ``"module:Class"`` of the game's tactics over its rules core (a
            :class:`~tris_envs.core.capabilities.Tactical` built from the rules core,
            :func:`tactics_of`), imported on first use; ``""`` unless the game has the
            ``tactics`` capability.
    """

    name: str
    title: str
    rules: str
    solvable: bool
    bench_ratio: float
    jax: str
    option_sets: tuple[Mapping[str, Any], ...] = ({},)
    targets: tuple[tuple[str, str, float], ...] = ()
    version: int = 0
    capabilities: frozenset[str] = frozenset()
    tactics: str = ""

    def __post_init__(self) -> None:
        unknown = self.capabilities - set(CAPABILITIES)
        if unknown:
            raise ValueError(f"game {self.name!r} declares unknown capabilities "
                             f"{sorted(unknown)}; known: {', '.join(CAPABILITIES)}")
        if ("tactics" in self.capabilities) != bool(self.tactics):
            raise ValueError(f"game {self.name!r}: the tactics capability and a tactics class "
                             "go together (GameSpec.tactics names the class)")
        if self.capabilities and "tactics" not in self.capabilities:
            raise ValueError(f"game {self.name!r}: capabilities {sorted(self.capabilities)} "
                             "need the tactics capability (its object gives them)")

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

    @property
    def package(self) -> str:
        """The game's package, ``"tris_envs.games.tant_fant"``."""
        return self.rules.partition(":")[0]

    @property
    def policy(self) -> PolicyLayout:
        """How a board-shaped policy head addresses the actions: the ``POLICY_LAYOUT`` of
        the game's ``state`` module."""
        layout: PolicyLayout = importlib.import_module(f"{self.package}.state").POLICY_LAYOUT
        return layout

    @property
    def roll_planes(self) -> tuple[int, ...]:
        """The observation's planes that show the dice roll to play: the ``ROLL_PLANES`` of
        the game's ``state`` module (Tritoc's 13-23), ``()`` where it has none; a network
        with :attr:`~tris_envs.agents.az_network.NetConfig.hide_roll` reads them as zeros."""
        planes: tuple[int, ...] = getattr(importlib.import_module(f"{self.package}.state"),
                                          "ROLL_PLANES", ())
        return planes

    def require_roll(self, setting: str) -> tuple[int, ...]:
        """The :attr:`roll_planes`, else a one-line ``ValueError`` saying that ``setting``
        (``"hide_roll = true"``) needs a game whose observation shows the dice roll (its JAX
        game then has ``roll_outcomes``) and which games have one."""
        planes = self.roll_planes
        if not planes:
            having = [name for name, spec in GAMES.items() if spec.roll_planes]
            raise ValueError(f"{setting}: {self.name!r} shows no dice roll in its observation "
                             f"(games with one: {', '.join(having)})")
        return planes

    def require(self, capability: str, setting: str) -> None:
        """Nothing if the game declares ``capability``, else a one-line ``ValueError``
        saying that ``setting`` (``"play_traps = 0.5"``) needs it and which games have it."""
        if capability not in self.capabilities:
            having = [spec.name for spec in GAMES.values() if capability in spec.capabilities]
            raise ValueError(f"{setting} needs the {capability} capability "
                             f"({CAPABILITIES[capability].description}), which {self.name!r} "
                             f"does not have; games with it: {', '.join(having) or 'none'}")

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
             bench_ratio=1.5, jax="tris_envs.jax.tris2:Tris2",
             option_sets=({}, {"setup": "placement"}, {"max_side": 4}, {"fair": True}),
             targets=(("random", ">=", 0.95), ("greedy", ">=", 0.45), ("mcts:100", ">=", 0.6)),
             capabilities=frozenset({"tactics", "traps", "wary"}),
             tactics="tris_envs.games.tris2.tactics:Tris2Tactics"),
    GameSpec("tris1", "Tris 1", "tris_envs.games.tris1:Tris1", solvable=True,
             bench_ratio=3.0, jax="tris_envs.jax.tris1:Tris1",
             targets=(("solver", "losses", 0), ("*", "optimal", 0.99))),
    GameSpec("tant_fant", "Tant Fant", "tris_envs.games.tant_fant:TantFant", solvable=True,
             bench_ratio=3.0, jax="tris_envs.jax.tant_fant:TantFant",
             option_sets=tuple({"stalemate": s, "repetition_draw": r, "diagonal_only": d}
                               for s in ("draw", "loss") for r in (False, True)
                               for d in (False, True)),
             targets=(("solver", "losses", 0), ("*", "optimal", 0.99))),
    GameSpec("doppia_scelta", "Doppia scelta", "tris_envs.games.doppia_scelta:DoppiaScelta",
             solvable=True, bench_ratio=2.0, jax="tris_envs.jax.doppia_scelta:DoppiaScelta",
             option_sets=tuple({"scheme": scheme, "setup": setup}
                               for scheme in ("crossing", "shared_goal", "swap")
                               for setup in ("random", "coloring")),
             targets=(("random", ">=", 0.62), ("solver", ">=", 0.35))),
    GameSpec("tritoc", "Tritoc", "tris_envs.games.tritoc:Tritoc", solvable=False,
             bench_ratio=1.5, jax="tris_envs.jax.tritoc:Tritoc",
             option_sets=({}, {"layout": "magic"}, {"layout": "random"},
                          {"layout": _tritoc_custom_layout()}, {"dice": "equal"},
                          {"dice": "equal", "layout": "random", "reward": "points",
                           "max_rerolls": 0}),
             targets=(("greedy", ">=", 0.85), ("mcts:100", ">=", 0.6))),
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


def require(name: str, capability: str, setting: str) -> None:
    """:meth:`GameSpec.require` of game ``name``: a one-line ``ValueError`` unless it
    declares ``capability``, saying that ``setting`` needs it."""
    game_spec(name).require(capability, setting)


def tactics_of(game: Game, setting: str = "this") -> Tactical:
    """The tactics of rules core ``game`` (the class its ``GameSpec.tactics`` names, built
    from ``game``).

    Raises:
        ValueError: the game has no tactics capability; the message says that ``setting``
            needs it.
    """
    spec = game_spec(game.info.name)
    spec.require("tactics", setting)
    module, _, attribute = spec.tactics.partition(":")
    tactics: Tactical = getattr(importlib.import_module(module), attribute)(game)
    return tactics


__all__ = ["GAMES", "NAMESPACE", "GameSpec", "PolicyLayout", "Slot", "game_spec", "make_game",
           "require", "tactics_of"]
