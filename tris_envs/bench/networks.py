"""``tris-envs bench --networks``: the default ``az`` agent's time per move with each
shipped AlphaZero network (NumPy only).

Each row is one ``tris_envs/checkpoints/az_*.npz``: the game and options its header names,
played by ``AZAgent()`` (the agent spec ``az``, which finds that file for those options and
plays it with its header's search settings). It moves from ``moves`` fixed positions, each
reached from the start by a seeded number of seeded random plies (chance resolved by the
same generator) where the player to move has a choice; each move is timed on the wall
clock and as this process's CPU time (:func:`time.process_time`), and the means are
compared with the budget of :data:`BUDGET` seconds a move.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tris_envs.agents.az import AZAgent
from tris_envs.agents.az_network import load
from tris_envs.agents.shipped import SHIPPED_DIR
from tris_envs.bench.fair import provenance
from tris_envs.core.game import TERMINAL, Game, resolve_chance
from tris_envs.games import GAMES, make_game
from tris_envs.progress import Progress

BUDGET = 0.1
"""Seconds a move of every shipped network's default ``az`` may take (issue 67)."""

MOVES = 20
"""Positions timed per network by default (``--network-moves``)."""

PLIES = 12
"""Random plies before a position: drawn from ``0 .. PLIES - 1``, seeded per position."""


def shipped_networks() -> list[tuple[Path, Game]]:
    """Every shipped AlphaZero network (by game, in the registry's order, then by file
    name) with the game and options its header names."""
    found = []
    for name in GAMES:
        paths = [SHIPPED_DIR / f"az_{name}.npz", *sorted(SHIPPED_DIR.glob(f"az_{name}__*.npz"))]
        for path in paths:
            if path.is_file():
                options = load(path, make_game(name)).config.options
                found.append((path, make_game(name, **options)))
    return found


def positions(game: Game, count: int, seed: int = 0) -> list[Any]:
    """``count`` positions of ``game`` where a player has two legal moves or more: the
    ``i``-th reached from a start by ``0 .. PLIES - 1`` random plies, all drawn from seed
    ``(seed, i)`` (a game that ends on the way starts again; a position without a choice
    plays on)."""
    found = []
    for i in range(count):
        rng = np.random.default_rng([seed, i])
        state = resolve_chance(game, game.initial_state(rng), rng)
        plies = int(rng.integers(PLIES))
        while plies > 0 or len(game.legal_actions(state)) < 2:
            if game.current_player(state) == TERMINAL:
                state = resolve_chance(game, game.initial_state(rng), rng)
                continue
            legal = game.legal_actions(state)
            state = resolve_chance(game, game.apply(state, legal[int(rng.integers(len(legal)))]),
                                   rng)
            plies -= 1
        found.append(state)
    return found


@dataclass(frozen=True)
class Row:
    """One network's figures: its file's stem, the simulations its ``az`` plays, and the
    mean seconds per move, wall clock and CPU."""

    network: str
    simulations: int
    wall: float
    cpu: float

    def line(self) -> str:
        """The row in the Markdown table of :func:`run`."""
        verdict = "met" if self.wall <= BUDGET else "NOT met"
        return (f"| {self.network} | {self.simulations:,} | {1000 * self.wall:.1f} | "
                f"{1000 * self.cpu:.1f} | {verdict} |")


def time_network(path: Path, game: Game, moves: int, seed: int = 0,
                 progress: Progress | None = None) -> Row:
    """The default ``az`` agent's mean time per move on ``game`` over :func:`positions`
    (``moves`` of them, from ``seed``); ``path`` must be the network it plays.

    Raises:
        ValueError: the agent plays another file for ``game`` than ``path``.
    """
    agent = AZAgent(rng=np.random.default_rng(seed))
    played = agent.network_file(game)
    if played != path:
        raise ValueError(f"az plays {played} for {game.info.name} {game.options()}, not {path}")
    network = agent.network_for(game)          # loaded before timing
    wall = cpu = 0.0
    for state in positions(game, moves, seed):
        began, began_cpu = time.perf_counter(), time.process_time()
        agent.act(game, state)
        wall += time.perf_counter() - began
        cpu += time.process_time() - began_cpu
        if progress is not None:
            progress.advance()
    return Row(path.stem, agent.budget(network), wall / moves, cpu / moves)


def run(moves: int = MOVES, seed: int = 0, networks: Sequence[str] | None = None) -> str:
    """The Markdown table: one :class:`Row` per shipped network (``networks``: only those
    file stems), then one line of provenance (machine, date, wall time, seed)."""
    began = time.perf_counter()
    chosen = [(path, game) for path, game in shipped_networks()
              if networks is None or path.stem in networks]
    lines = [f"The default az agent with each shipped network, {moves} positions each "
             f"(0-{PLIES - 1} random plies from the start, seed {seed}), mean per move", "",
             f"| network | simulations | ms per move | CPU ms per move "
             f"| ≤ {1000 * BUDGET:g} ms |", "|---|---:|---:|---:|---|"]
    with Progress("bench networks", total=len(chosen) * moves, unit="moves") as progress:
        for path, game in chosen:
            progress.note(path.stem)
            lines.append(time_network(path, game, moves, seed, progress).line())
    lines += ["", provenance(began, seed)]
    return "\n".join(lines)
