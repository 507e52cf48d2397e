"""The shipped Tritoc network (tris_envs/checkpoints/az_tritoc.npz, trained with the
five stages of the recipe az_tritoc): it plays the default and other options through real
chance nodes, and the targets of its issue as slow tests (figures in docs/results.md;
those missed are strict expected failures)."""

from __future__ import annotations

import pytest

from tris_envs.evaluation import play_match
from tris_envs.games import make_game


def test_the_shipped_network_plays_tritoc():
    from tris_envs.agents.az_network import load
    from tris_envs.alphazero import shipped_network

    game = make_game("tritoc")
    path = shipped_network(game)
    assert path.name == "az_tritoc.npz" and path.stat().st_size <= 2 * 2**20
    assert load(path, game).config.width == 32
    for options in ({}, {"layout": "random", "dice": "equal"}):
        result = play_match(make_game("tritoc", max_moves=40, **options), "az:8",
                            "az:0", n_games=2, seed=0)
        assert result.n_games == 2


def score(spec: str, opponent: str) -> float:
    return play_match(make_game("tritoc"), spec, opponent, n_games=200, seed=0,
                      processes=2).score


@pytest.mark.slow
def test_az_scores_65_percent_against_alphabeta_3():
    assert score("az", "alphabeta:3") >= 0.65


@pytest.mark.slow
def test_az_scores_60_percent_against_mcts_1000():
    """60.0% exactly on seed 0, the goal met with no margin; 61.5% and 61.3% on seeds 1 and
    2 (docs/results.md)."""
    assert score("az", "mcts:1000") >= 0.6


@pytest.mark.slow
def test_the_network_alone_scores_55_percent_against_mcts_100():
    assert score("az:0", "mcts:100") >= 0.55
