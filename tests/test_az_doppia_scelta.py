"""The shipped Doppia scelta networks (tris_envs/checkpoints/az_doppia_scelta.npz, the shipped
recipe az_doppia_scelta, and the shared_goal and swap schemes' own): every scheme is played
with its search budget, and the issue's targets on 100 boards never seen in training as slow
tests, for each scheme (figures in docs/results.md)."""

from __future__ import annotations

import pytest

from tris_envs.agents import make_agent
from tris_envs.evaluation import play_match
from tris_envs.evaluation.metrics import move_quality
from tris_envs.games import make_game

BUDGET = 6400
"""The search budget in the network's header ([play] simulations in its config)."""


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
    assert network.search.simulations == BUDGET
    assert make_agent("az").budget(network) == BUDGET
    result = play_match(game, "az:8", "solver", n_games=2, seed=0)
    assert result.n_games == 2


SCHEMES = ["crossing", "shared_goal", "swap"]


@pytest.fixture(scope="module", params=SCHEMES)
def az_against_the_solver(request):
    """``az`` against the solver on 100 boards (seed 1) under each scheme, and the solver
    against itself on the same boards: both matches and ``az``'s move quality, played once
    for the slow tests of a scheme."""
    game = make_game("doppia_scelta", scheme=request.param)
    result = play_match(game, "az", "solver", n_games=100, seed=1, keep_records=True,
                        processes=2)
    reference = play_match(game, "solver", "solver", n_games=100, seed=1, processes=2)
    return result, reference, move_quality(game, result.records, "az")


@pytest.mark.slow
def test_az_keeps_98_percent_of_the_solvers_values(az_against_the_solver):
    *_, moves = az_against_the_solver
    assert moves.value_keeping_rate >= 0.98


@pytest.mark.slow
def test_az_scores_within_three_points_of_the_solver_against_itself(az_against_the_solver):
    result, reference, _ = az_against_the_solver
    assert round(reference.score - result.score, 9) <= 0.03
