"""The shipped Tris 2 network (tris_envs/checkpoints/az_tris2.npz, trained with the shipped
recipe az_tris2): it sees wins in one, reads its one-move tactics and
plays with the trap rule; the rule of 4's network of its own (az_tris2__max_side=4.npz),
which reads the trap planes too; and the targets of their issue as slow tests (figures in
docs/results.md)."""

from __future__ import annotations

import pytest

from tris_envs.agents import make_agent
from tris_envs.core.game import allows_win, wins_at_once
from tris_envs.evaluation import play_match
from tris_envs.evaluation.metrics import move_quality
from tris_envs.games import make_game, tactics_of

from checks import TRIS2_BEFORE_WIN as BEFORE_WIN
from checks import TRIS2_TRAP, TRIS2_TRAP_MOVES, safe_positions


def test_the_shipped_network_plays_tris2_and_sees_wins_in_one():
    from tris_envs.agents.az_network import load
    from tris_envs.alphazero import shipped_network

    game = make_game("tris2")
    path = shipped_network(game)
    assert path.name == "az_tris2.npz" and path.stat().st_size <= 2 * 2**20
    network = load(path, game)
    assert network.search.decisive and network.config.tactics and network.search.traps == 0.5
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


# ----- the rule of 4 (max_side=4): a network of its own, with trap and wary planes -----
def test_the_rule_of_4_plays_its_own_network_which_reads_the_trap_and_wary_planes():
    """``az`` under ``max_side=4`` plays ``az_tris2__max_side=4.npz`` (the recipe
    az_tris2__max_side=4, whose last stage is ``tris-envs train wary``'s), with
    the placement setup as well the default network (no variant of its own there); the
    network alone plays the one trap of a scripted position."""
    from tris_envs.agents.az_network import load
    from tris_envs.alphazero import shipped_network

    game = make_game("tris2", max_side=4)
    path = shipped_network(game)
    assert path.name == "az_tris2__max_side=4.npz" and path.stat().st_size <= 2 * 2**20
    config = load(path, game).config
    assert config.options == {"max_side": 4} and config.tactics and config.trap_planes
    assert config.wary_planes
    assert shipped_network(make_game("tris2", max_side=4, setup="placement")).name \
        == "az_tris2.npz"
    state = game.from_notation(TRIS2_TRAP)
    assert [game.action_name(state, make_agent("az:0").act(game, state))] == TRIS2_TRAP_MOVES


def test_the_rule_of_4_network_alone_plays_a_trap_wherever_it_has_one():
    """The positions of 30 games of random safe rolls under the rule of 4 where the player
    to move has a trap and no win in one (91): the network alone plays a trap in 89."""
    game = make_game("tris2", max_side=4)
    agent = make_agent("az:0")
    offered = played = 0
    for state in safe_positions(game, 30, seed=12):
        tactics = tactics_of(game)
        traps = tactics.trap_moves(state)
        if game.is_terminal(state) or not traps.any() or tactics.tactical_moves(state)[0].any():
            continue
        offered += 1
        played += bool(traps[agent.act(game, state)])
    assert offered > 50 and played >= 0.95 * offered


def test_the_rule_of_4_network_alone_hands_over_no_trap_where_it_has_another_move():
    """The positions of 30 games of random safe rolls under the rule of 4 with no win in
    one, a roll that hands the opponent a trap and no line, and a roll that hands over
    neither (327): the network alone hands over a trap in none (the network before the wary
    planes, in 86)."""
    game = make_game("tris2", max_side=4)
    agent = make_agent("az:0")
    offered = handed = 0
    for state in safe_positions(game, 30, seed=12):
        if game.is_terminal(state):
            continue
        wins, handovers = tactics_of(game).tactical_moves(state)
        traps = tactics_of(game).trap_handovers(state) & ~handovers
        clean = game.legal_mask(state).astype(bool) & ~handovers & ~traps
        if wins.any() or not traps.any() or not clean.any():
            continue
        offered += 1
        handed += bool(traps[agent.act(game, state)])
    assert offered > 300 and handed <= 0.01 * offered


@pytest.mark.slow
@pytest.mark.parametrize("opponent, goal, setup", [
    ("greedy", 0.85, "random"), ("alphabeta:4", 0.6, "random"),
    ("mcts:100:decisive", 0.6, "random"), ("greedy", 0.75, "placement")])
def test_az_under_the_rule_of_4(opponent, goal, setup):
    result, _ = quality(opponent, "az", 200, max_side=4, setup=setup)
    assert result.score >= goal


@pytest.mark.slow
def test_the_network_alone_under_the_rule_of_4_scores_70_percent_against_greedy():
    """82.0% over these 200 games (+134 =60 -6, no blunder; docs/results.md)."""
    result, moves = quality("greedy", "az:0", 200, max_side=4)
    assert result.score >= 0.7 and moves.blunder_rate <= 0.01


@pytest.mark.slow
def test_the_network_alone_under_the_rule_of_4_scores_70_percent_over_five_seeds():
    """78.1% over seeds 0-4, 1,000 games, each seed at least 76.0% (docs/results.md): not
    the fixed seed's luck."""
    game = make_game("tris2", max_side=4)
    scores = [play_match(game, "az:0", "greedy", n_games=200, seed=seed, processes=2).score
              for seed in range(5)]
    assert sum(scores) / 5 >= 0.7 and min(scores) >= 0.7
