"""The shipped Doppia scelta networks (tris_envs/checkpoints/az_doppia_scelta.npz, the shipped
config az_doppia_scelta, and the shared_goal and swap schemes' own): every scheme is played
with its search budget, and the issue's targets on 100 boards never seen in training as slow
tests (figures in docs/results.md; the one missed is a strict expected failure)."""

from __future__ import annotations

import pytest

from tris_envs.agents import make_agent
from tris_envs.evaluation import play_match
from tris_envs.evaluation.metrics import move_quality
from tris_envs.games import make_game

BUDGET = 1600
"""The search budget in the network's header (play_simulations in its config)."""


@pytest.mark.parametrize("scheme, name", [
    ("crossing", "az_doppia_scelta.npz"), ("swap", "az_doppia_scelta__scheme=swap.npz"),
    ("shared_goal", "az_doppia_scelta__scheme=shared_goal.npz")])
def test_the_shipped_network_plays_every_scheme_with_its_budget(scheme, name):
    from tris_envs.agents.az_network import load
    from tris_envs.alphazero import shipped_network

    game = make_game("doppia_scelta", scheme=scheme)
    path = shipped_network(game)
    assert path.name == name and path.stat().st_size <= 2 * 2**20
    network = load(path, game)
    assert network.config.simulations == BUDGET
    assert make_agent("az").budget(network) == BUDGET
    result = play_match(game, "az:8", "solver", n_games=2, seed=0)
    assert result.n_games == 2


def against_the_solver(**options):
    """``az`` against the solver on 100 boards (seed 1) under ``options``: the match and
    ``az``'s move quality."""
    game = make_game("doppia_scelta", **options)
    result = play_match(game, "az", "solver", n_games=100, seed=1,
                        keep_records=True, processes=2)
    return result, move_quality(game, result.records, "az")


@pytest.fixture(scope="module")
def az_against_the_solver():
    """The default scheme's match, played once for both slow tests."""
    return against_the_solver()


@pytest.mark.slow
def test_az_keeps_98_percent_of_the_solvers_values(az_against_the_solver):
    _, moves = az_against_the_solver
    assert moves.value_keeping_rate >= 0.98


@pytest.mark.slow
@pytest.mark.parametrize("scheme", ["shared_goal", "swap"])
def test_each_schemes_network_keeps_98_percent_of_the_solvers_values(scheme):
    _, moves = against_the_solver(scheme=scheme)
    assert moves.value_keeping_rate >= 0.98


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="az scores 48.0% against the solver on these 100 "
                   "boards, the solver 54.5% against itself (docs/results.md); the goal is "
                   "within 0.03 of it")
def test_az_scores_within_three_points_of_the_solver_against_itself(az_against_the_solver):
    result, _ = az_against_the_solver
    reference = play_match(make_game("doppia_scelta"), "solver", "solver", n_games=100,
                           seed=1)
    assert result.score >= reference.score - 0.03
