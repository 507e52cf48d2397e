"""The shipped Tris 2 network (tris_envs/checkpoints/az_tris2.npz, trained with the shipped
configs az_tris2 and then tris2_tactics): it sees wins in one, reads its one-move tactics and
plays with the trap rule, and the targets of its issue as slow tests (figures in
docs/results.md; those missed are strict expected failures)."""

from __future__ import annotations

import pytest

from tris_envs.agents import make_agent
from tris_envs.core.game import allows_win, wins_at_once
from tris_envs.evaluation import play_match
from tris_envs.evaluation.metrics import move_quality
from tris_envs.games import make_game

from checks import TRIS2_BEFORE_WIN as BEFORE_WIN


def test_the_shipped_network_plays_tris2_and_sees_wins_in_one():
    from tris_envs.agents.az_network import load
    from tris_envs.alphazero import shipped_network

    game = make_game("tris2")
    path = shipped_network(game)
    assert path.name == "az_tris2.npz" and path.stat().st_size <= 2 * 2**20
    config = load(path, game).config
    assert config.decisive and config.tactics and config.traps == 0.5
    state = game.from_notation(BEFORE_WIN)
    for spec in ("az:0", "az:8"):
        assert wins_at_once(game, state, make_agent(spec).act(game, state))


def quality(opponent: str, spec: str, games: int, **options):
    game = make_game("tris2", **options)
    result = play_match(game, spec, opponent, n_games=games, seed=0,
                        keep_records=True, processes=2)
    return result, move_quality(game, result.records, make_agent(spec).name)


@pytest.mark.slow
def test_az_never_blunders_against_greedy_and_loses_only_setups_lost_from_the_start():
    """The goal "never loses to greedy" under the random setup, held to what a player can do:
    200 games, +7 =192 -1 with no blunder (docs/results.md). A loss is allowed only as the
    first player on a setup where every first roll hands the opponent a line (what
    ``fair=True`` redraws, 0.41% of the setups in ``benchmarks/tris2_facts.py``): lost
    from the start for any player."""
    game = make_game("tris2")
    name = make_agent("az").name
    result, moves = quality("greedy", "az", 200)
    assert moves.blunder_rate <= 0.002
    lost = [record for record in result.records if record.returns[record.players.index(name)] < 0]
    assert len(lost) == result.losses
    for record in lost:
        start = game.from_notation(record.start)
        assert game.current_player(start) == record.players.index(name)
        assert all(allows_win(game, start, action) for action in game.legal_actions(start))


@pytest.mark.slow
def test_az_never_loses_to_greedy_on_fair_setups():
    result, _ = quality("greedy", "az", 200, fair=True)
    assert result.losses == 0


@pytest.mark.slow
def test_az_scores_90_percent_against_mcts_100():
    result, _ = quality("mcts:100", "az", 200)
    assert result.score >= 0.9


@pytest.mark.slow
def test_az_never_loses_to_mcts_1000():
    result, _ = quality("mcts:1000", "az", 40)
    assert result.losses == 0


@pytest.mark.slow
def test_az_scores_75_percent_against_greedy_with_placement():
    """Placements change only the start, so ``az`` keeps its trap rule there."""
    result, _ = quality("greedy", "az", 200, setup="placement")
    assert result.score >= 0.75


@pytest.mark.slow
def test_the_network_alone_blunders_on_at_most_one_percent_of_its_moves():
    _, moves = quality("greedy", "az:0", 200)
    assert moves.blunder_rate <= 0.01


# ----- the rule of 4 (max_side=4): the default network without its trap rule ---------
@pytest.mark.slow
@pytest.mark.parametrize("opponent, goal, setup", [
    ("greedy", 0.85, "random"), ("alphabeta:4", 0.6, "random"),
    ("mcts:100:decisive", 0.6, "random"), ("greedy", 0.75, "placement")])
def test_az_under_the_rule_of_4(opponent, goal, setup):
    result, _ = quality(opponent, "az", 200, max_side=4, setup=setup)
    assert result.score >= goal


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="az:0 under max_side=4 scores 36.5% against greedy "
                   "over 200 games (+35 =76 -89), blundering on 0.33% of its moves and losing "
                   "the rest by zugzwang (docs/results.md); the goal is 70%")
def test_the_network_alone_under_the_rule_of_4_scores_70_percent_against_greedy():
    result, _ = quality("greedy", "az:0", 200, max_side=4)
    assert result.score >= 0.7
