"""Alpha-beta search: forced wins, the solver's values within its horizon, no blunders."""

from __future__ import annotations

import numpy as np
import pytest

from tris_envs.agents import make_agent
from tris_envs.agents.alphabeta import WIN, AlphaBetaAgent
from tris_envs.core import solve
from tris_envs.core.game import CHANCE, TERMINAL, resolve_chance
from tris_envs.games import make_game

from checks import random_playouts


def solved(name, **options):
    game = make_game(name, **options)
    return game, solve(game, game.initial_state(np.random.default_rng(0)))


def sample_rows(solution, keep, n, seed=0):
    rows = [i for i in range(len(solution)) if keep(i)]
    rng = np.random.default_rng(seed)
    return [solution.states[i] for i in rng.choice(rows, size=min(n, len(rows)),
                                                   replace=False)]


@pytest.mark.parametrize("options", [{}, {"diagonal_only": True, "stalemate": "loss"}], ids=str)
@pytest.mark.parametrize("plies", [1, 3])
def test_finds_the_fastest_forced_win(options, plies):
    game, solution = solved("tant_fant", **options)

    def won_in(i):
        mover = solution.movers[i]
        return (mover >= 0 and solution.plies[i] == plies
                and solution.values[i] == (1 if mover == 0 else -1))

    positions = sample_rows(solution, won_in, 40)
    assert positions
    agent = AlphaBetaAgent(plies=3, rng=np.random.default_rng(0))
    for state in positions:
        assert agent.act(game, state) in solution.best_actions(state)
        assert max(agent.root_values(game, state).values()) == WIN - plies


@pytest.mark.parametrize("name", ["tant_fant", "tris1"])
def test_agrees_with_the_solver_within_its_horizon(name):
    game, solution = solved(name)
    depth = 4
    agent = AlphaBetaAgent(plies=depth, rng=np.random.default_rng(1))
    positions = sample_rows(solution, lambda i: solution.movers[i] >= 0, 150, seed=2)
    for state in positions:
        i = solution.row(state)
        mover_value = solution.value(state, solution.movers[i])
        plies = int(solution.plies[i])
        expected = mover_value * (WIN - plies) if mover_value and plies <= depth else 0.0
        assert max(agent.root_values(game, state).values()) == expected, game.to_notation(state)


def test_expectimax_plays_dice_games_within_a_time_budget():
    game = make_game("tritoc")
    rng = np.random.default_rng(5)
    state = resolve_chance(game, game.initial_state(rng), rng)
    agent = make_agent("alphabeta:0.05s", np.random.default_rng(0))
    for _ in range(6):
        action = agent.act(game, state)
        assert action in game.legal_actions(state) and agent.depth_reached >= 1
        state = resolve_chance(game, game.apply(state, action), rng)
        if game.current_player(state) == TERMINAL:
            break
    assert game.current_player(state) != CHANCE


def expectimax(game, state, me, depth, ply):
    """The plain search the agent prunes: every move and every roll, no table."""
    player = game.current_player(state)
    if player == TERMINAL:
        result = game.returns(state)[me]
        return 0.0 if result == 0 else np.copysign(WIN - ply, result)
    if player == CHANCE:
        return sum(p * expectimax(game, game.apply(state, outcome), me, depth, ply)
                   for outcome, p in game.chance_outcomes(state))
    if depth == 0:
        return game.heuristic(state, me)
    values = [expectimax(game, game.apply(state, a), me, depth - 1, ply + 1)
              for a in game.legal_actions(state)]
    return max(values) if player == me else min(values)


def test_expectimax_values_match_the_full_tree_on_tritoc():
    # the horizon's chance nodes are valued without their rolls: Tritoc's heuristic (the
    # fields) is the same after every roll, so the values are those of the full tree
    agent = AlphaBetaAgent(plies=2, rng=np.random.default_rng(0))
    decided = []

    def compare(game, state):
        me = game.current_player(state)
        if me < 0:
            return
        full = {a: expectimax(game, game.apply(state, a), me, 1, 1)
                for a in game.legal_actions(state)}
        best = max(full.values())
        assert max(agent.root_values(game, state).values()) == pytest.approx(best)
        assert full[agent.act(game, state)] == pytest.approx(best)
        decided.append(best != 0)

    random_playouts(make_game("tritoc"), 3, seed=3, check=compare, max_plies=120)
    assert sum(decided) > 20


def test_specs_parse_and_bad_ones_are_refused():
    assert make_agent("alphabeta").name == "alphabeta:4"
    assert make_agent("alphabeta:7").plies == 7
    timed = make_agent("alphabeta:0.5s")
    assert timed.time_budget == 0.5 and timed.name == "alphabeta:0.5s"
    for bad in ("alphabeta:0", "alphabeta:65", "alphabeta:x", "alphabeta:\u0663",
                "alphabeta:-1", "alphabeta:03", "alphabeta:0s"):
        with pytest.raises(ValueError, match="unknown agent spec"):
            make_agent(bad)
    with pytest.raises(ValueError, match="from 1 to 64"):
        AlphaBetaAgent(plies=0)
    with pytest.raises(ValueError, match="no player to move"):
        AlphaBetaAgent().act(make_game("tris1"), make_game("tris1").from_notation("XXX/OO./..."))
