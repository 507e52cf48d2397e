"""Blunders and missed wins on scripted positions and over recorded games."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from tris_envs.agents import GreedyAgent, RandomAgent, make_agent
from tris_envs.evaluation import play_match
from tris_envs.evaluation.metrics import (
    is_blunder,
    is_missed_win,
    is_value_keeping,
    move_qualities,
    move_quality,
    outcomes,
)
from tris_envs.evaluation.records import GameRecord, play_recorded
from tris_envs.games import make_game

from checks import assert_never_blunders

TRIS1 = make_game("tris1")


# position, X-or-O to move: {action: (blunder, missed win)}
CASES = [
    ("XX./OO./...", {2: (False, False),     # wins
                     5: (False, True),      # blocks O but misses the win
                     6: (True, True), 7: (True, True), 8: (True, True)}),
    ("X.O/.X./...", {8: (False, False),     # the only block of X's diagonal
                     1: (True, False), 3: (True, False), 7: (True, False)}),
    ("XO./XX./O..", {2: (False, False), 5: (False, False),   # a double threat: every move
                     7: (False, False), 8: (False, False)}),  # allows a win, none blunders
]


@pytest.mark.parametrize("position, expected", CASES)
def test_blunders_and_missed_wins_on_scripted_positions(position, expected):
    state = TRIS1.from_notation(position)
    for action, (blunder, missed) in expected.items():
        assert is_blunder(TRIS1, state, action) is blunder, action
        assert is_missed_win(TRIS1, state, action) is missed, action


def test_move_quality_over_records_separates_greedy_from_random():
    game = make_game("tris2", max_side=4)
    rng = np.random.default_rng(0)
    records = [play_recorded(game, [GreedyAgent(rng), RandomAgent(rng)], rng, max_moves=60)
               for _ in range(6)]
    greedy, random_ = (move_quality(game, records, name) for name in ("greedy", "random"))
    assert move_qualities(game, records, ["random", "greedy"]) == {"random": random_,
                                                                    "greedy": greedy}
    assert greedy.moves > 0 and greedy.blunders == 0 and greedy.missed_wins == 0
    assert random_.blunders > 0 and 0 < random_.blunder_rate < 1
    both = greedy.add(random_)
    assert both.moves == greedy.moves + random_.moves
    assert "blunder rate" in str(both)


def test_games_with_dice_are_refused():
    game = make_game("tritoc")
    with pytest.raises(ValueError, match="deterministic games only"):
        move_quality(game, [], "random")


@pytest.mark.parametrize("options", [{}, {"max_side": 4}], ids=str)
@pytest.mark.parametrize("spec, plies", [("alphabeta:2", 40), ("mcts:100:decisive", 25)])
def test_the_blunder_free_rungs_never_blunder_in_tris2(spec, plies, options):
    game = make_game("tris2", **options)
    agent = make_agent(spec, np.random.default_rng(3))
    assert assert_never_blunders(game, agent, seed=4, games=3, plies=plies) > 40


def test_value_keeping_moves_are_judged_by_the_solver():
    game = make_game("tris1")
    rng = np.random.default_rng(2)
    records = [play_recorded(game, [make_agent("solver", rng), RandomAgent(rng)], rng)
               for _ in range(10)]
    solver, random_ = (move_quality(game, records, name) for name in ("solver", "random"))
    assert solver.judged > 0 and solver.value_kept == solver.judged
    assert random_.judged > 0 and random_.value_keeping_rate < 1
    assert "value-keeping 100.00%" in str(solver)
    tris2 = make_game("tris2", max_side=4)
    plain = move_quality(tris2, [play_recorded(tris2, [RandomAgent(rng)] * 2, rng,
                                               max_moves=10)], "random")
    assert plain.judged == 0 and plain.value_keeping_rate is None


def test_value_keeping_over_all_moves_judges_agent_a_of_a_match():
    """What training/evaluation.py's ``optimal_moves`` asserted, now over the one definition:
    every move of the solver keeps the value, a random player's not all, forced moves
    counted."""
    game = make_game("tant_fant")
    perfect = play_match(game, "solver", "random", 4, seed=0, keep_records=True)
    quality = move_quality(game, perfect.records, perfect.names[0], one_move=False)
    assert quality.value_kept_all == quality.judged_all > 0
    assert quality.moves == quality.judged_all >= quality.judged and quality.blunders == 0
    erratic = play_match(game, "random", "solver", 4, seed=0, keep_records=True)
    quality = move_quality(game, erratic.records, erratic.names[0], one_move=False)
    assert 0 < quality.value_kept_all < quality.judged_all
    assert quality.value_keeping_rate_all == quality.value_kept_all / quality.judged_all


def test_the_coloring_phase_of_doppia_scelta_is_not_judged():
    game = make_game("doppia_scelta", setup="coloring")
    state = game.initial_state(np.random.default_rng(0))
    assert is_value_keeping(game, state, game.legal_actions(state)[0]) is None


def test_outcomes_split_results_by_seat_length_and_solved_start():
    game = make_game("tris1")
    match = play_match(game, "solver", "random", 10, seed=0, keep_records=True)
    solver, random_ = (outcomes(game, match.records, name) for name in match.names)
    # the seats and results agree with the match's own tally
    assert {s: tuple(c) for s, c in solver.by_seat.items()} == dict(enumerate(match.by_seat))
    assert sum(map(sum, random_.by_seat.values())) == 10
    # a win at Tris 1 takes at least five moves; every decided game is counted once
    wins = sum(solver.lengths.get(("won", seat), Counter()).total() for seat in (0, 1))
    assert wins == match.wins and min(min(c) for c in solver.lengths.values()) >= 5
    assert solver.lengths.get(("won", 0)) == random_.lengths.get(("lost", 1))
    # every start is the empty board, a draw: the solver never loses from it
    assert set(solver.by_start) == {0} and solver.by_start[0][2] == 0
    assert solver.lines("solver")[-1].startswith("solver by the start's solved value: drawn 10 (")
    assert solver.lines("solver")[0].startswith(f"solver in seat 0: +{match.by_seat[0][0]} ")


def test_a_won_start_drawn_by_the_move_limit_is_told_apart():
    """O to move in ``XO./.X./...``: X (seat 0) has a fork and wins in 4 plies, more than a
    ``max_moves=2`` game has."""
    game = make_game("tris1", max_moves=2)
    record = GameRecord("tris1", game.options(), ["a", "b"], "XO./.X./...",
                        moves=[(1, 8), (0, 6)], truncated=True)
    found = outcomes(game, [record], "a")
    assert found.by_start == {1: [0, 1, 0]} and found.beyond_limit == 1
    assert found.lines("a") == [
        "a in seat 0: +0 =1 -0; 1 stopped at the move limit",
        "a by the start's solved value: won 1 (+0 =1 -0); 1 of the won starts drawn need "
        "more moves than max_moves to win"]
    assert outcomes(make_game("tris1"), [record], "a").beyond_limit == 0
    assert outcomes(make_game("tris2"), [], "a").lines("a") == []
