"""The ``mcts`` agents play the moves they played when their record was written.

``tests/data/mcts_recorded_moves.json`` holds, per game and spec, the moves of a few seeded
games against ``random`` (both seats, chance outcomes included), as
``tests/test_shipped_network_moves.py`` does for the networks. A refactoring of the search
must leave every move as it was; a deliberate change of play rewrites the file
(``python tests/test_mcts_recorded_moves.py --write``) in the same commit. (A time budget,
``mcts:<seconds>s``, plays as fast as the machine; it is not recorded.)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from test_shipped_network_moves import moves

from tris_envs.games import make_game

RECORD = Path(__file__).resolve().parent / "data" / "mcts_recorded_moves.json"
GAMES = ("tris1", "tris2", "tant_fant", "doppia_scelta", "tritoc")
SPECS = ("mcts:40", "mcts:300", "mcts:40:decisive")
SEEDS = (0, 1, 2)
OWN_MOVES = 8
"""The agent's own moves recorded per game."""


def record(name: str, spec: str) -> list[list[int]]:
    game = make_game(name)
    return [moves(game, spec, seed, OWN_MOVES) for seed in SEEDS]


@pytest.fixture(scope="module")
def recorded() -> dict[str, list[list[int]]]:
    return json.loads(RECORD.read_text())


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("name", GAMES)
def test_mcts_plays_its_recorded_moves(name, spec, recorded):
    assert record(name, spec) == recorded[f"{name} {spec}"]


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    RECORD.write_text(json.dumps({f"{name} {spec}": record(name, spec)
                                  for name in GAMES for spec in SPECS}) + "\n")
