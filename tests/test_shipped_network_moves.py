"""Every shipped network plays the moves it played when its golden record was written.

``tests/data/shipped_network_moves.json`` holds, per shipped ``az_*.npz``, the moves of a few
seeded games against ``random`` (both seats): the network alone (``az:<file>:0``) to the end
of each game, and the ``az`` agent with the search settings of the network's header for its
first moves. A refactoring of the agents, the search or the header must leave every move
as it was; a deliberate change of play rewrites the file
(``python tests/test_shipped_network_moves.py --write``) in the same commit.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from tris_envs.agents import make_agent
from tris_envs.agents.shipped import SHIPPED_DIR
from tris_envs.core.game import CHANCE, Game
from tris_envs.games import make_game

GOLDEN = Path(__file__).resolve().parent / "data" / "shipped_network_moves.json"
SEEDS = (0, 1, 2, 3)
"""Game ``seed`` seats the network in seat ``seed % 2``."""
SEARCHED_MOVES = 4
"""The ``az`` agent's own moves recorded per game (its search costs time; the network
alone plays to the end)."""
NETWORKS = sorted(path.name for path in SHIPPED_DIR.glob("az_*.npz"))


def network_game(path: Path) -> Game:
    """The game and options the network's header names."""
    with np.load(path, allow_pickle=False) as data:
        header = json.loads(str(data["__config__"]))
    return make_game(header["game"], **header["options"])


def moves(game: Game, spec: str, seed: int, own_moves: int | None) -> list[int]:
    """The actions of one game of ``spec`` against ``random`` (chance outcomes included),
    until it ends or ``spec`` has made ``own_moves`` moves."""
    rng = np.random.default_rng(seed)
    seat = seed % 2
    agents = {seat: make_agent(spec, np.random.default_rng([seed, 1])),
              1 - seat: make_agent("random", np.random.default_rng([seed, 2]))}
    state, played, own = game.initial_state(rng), [], 0
    while not game.is_terminal(state) and (own_moves is None or own < own_moves):
        player = game.current_player(state)
        if player == CHANCE:
            outcomes = game.chance_outcomes(state)
            action = outcomes[rng.choice(len(outcomes), p=[p for _, p in outcomes])][0]
        else:
            action = agents[player].act(game, state)
            own += player == seat
        played.append(int(action))
        state = game.apply(state, action)
    return played


def record(name: str) -> dict[str, list[list[int]]]:
    path = SHIPPED_DIR / name
    game = network_game(path)
    return {"alone": [moves(game, f"az:{path}:0", seed, None) for seed in SEEDS],
            "searched": [moves(game, f"az:{path}", seed, SEARCHED_MOVES) for seed in SEEDS]}


@pytest.fixture(scope="module")
def golden() -> dict[str, dict[str, list[list[int]]]]:
    return json.loads(GOLDEN.read_text())


def test_the_golden_file_covers_every_shipped_network(golden):
    assert sorted(golden) == NETWORKS and len(NETWORKS) == 15


@pytest.mark.parametrize("name", NETWORKS)
def test_the_shipped_network_plays_its_recorded_moves(name, golden):
    assert record(name) == golden[name]


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    GOLDEN.write_text(json.dumps({name: record(name) for name in NETWORKS}) + "\n")
