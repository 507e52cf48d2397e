"""Wins in one for the AlphaZero learner and the ``az`` agents (``decisive``): Tris 2's JAX
``winning_moves`` agrees with the rules core, a tiny decisive run saves a network that
``az:<path>`` plays with the check, a win in one is played, and networks without the flag
play as before; Tris 2's JAX ``blunders`` agree with the rules core and a ``safe`` root
does not teach them."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("mctx")

from tris_envs.agents import make_agent  # noqa: E402
from tris_envs.agents.az import AZAgent  # noqa: E402
from tris_envs.agents.az_network import NetConfig, Network, load, save  # noqa: E402
from tris_envs.agents.search_settings import SearchSettings  # noqa: E402
from tris_envs.alphazero.train import load_config, train  # noqa: E402
from tris_envs.core.game import allows_win, wins_at_once  # noqa: E402
from tris_envs.games import make_game  # noqa: E402
from tris_envs.jax import make  # noqa: E402

from checks import TRIS2_BEFORE_WIN as BEFORE_WIN  # noqa: E402


@pytest.mark.parametrize("options", [{}, {"max_side": 4}, {"setup": "placement"}])
def test_jax_winning_moves_and_blunders_agree_with_the_rules_core(options):
    env, game = make("tris2", **options), make_game("tris2", **options)
    winning, blunders = jax.jit(env.winning_moves), jax.jit(env.blunders)
    rng = np.random.default_rng(1)
    positions = wins = flagged = 0
    for _ in range(10):
        state = game.initial_state(rng)
        while True:
            jax_state = env.from_core(state)
            got = np.flatnonzero(np.asarray(winning(jax_state))).tolist()
            lost = np.flatnonzero(np.asarray(blunders(jax_state))).tolist()
            if game.current_player(state) < 0:
                assert got == lost == []
                break
            legal = game.legal_actions(state)
            assert got == [a for a in legal if wins_at_once(game, state, a)]
            assert lost == ([] if state.placing else      # placements are never flagged
                            [a for a in legal if allows_win(game, state, a)])
            positions, wins, flagged = positions + 1, wins + bool(got), flagged + len(lost)
            state = game.apply(state, int(rng.choice(legal)))
    assert positions > 40 and wins > 10 and flagged > 100


def tiny_decisive(**changes):
    return load_config(None, {
        "game": "tris2", "options": {"max_moves": 24}, "envs": 4, "steps": 2,
        "simulations": 4, "considered": 4, "batch": 8, "width": 4, "blocks": 1,
        "iterations": 2, "checkpoint_every": 2, "eval_games": 2, "opponents": ["random"],
        "decisive": True} | changes)


def test_a_decisive_run_saves_a_network_that_az_plays_with_the_check(tmp_path):
    from tris_envs.evaluation import play_match

    final = train(tiny_decisive(safe=True), tmp_path, quiet=True)   # blunders kept out too
    game = make_game("tris2", max_moves=24)
    assert load(final, game).search.decisive
    for spec in (f"az:{final}:0", f"az:{final}:4"):
        assert play_match(game, make_agent(spec), "greedy", n_games=2, seed=0).n_games == 2
    state = game.from_notation(BEFORE_WIN)
    agent = make_agent(f"az:{final}:0")
    assert wins_at_once(game, state, agent.act(game, state))


@pytest.mark.parametrize("key", ["decisive", "safe"])
def test_decisive_and_safe_need_the_games_tactics(key):
    with pytest.raises(ValueError, match=f"{key} = true needs the tactics capability .*, "
                                         "which 'tant_fant' does not have; games with it: "
                                         "tris2"):
        load_config(None, {"game": "tant_fant", key: True})


def test_the_decisive_flag_is_read_from_the_header_and_can_be_overridden(tmp_path):
    game = make_game("tris2")
    state = game.from_notation(BEFORE_WIN)
    plain = Network(game, NetConfig("tris2", {}, 4, 1), rng=np.random.default_rng(0))
    path = save(plain, tmp_path / "plain.npz")
    with np.load(path) as data:
        assert "decisive" not in str(data["__config__"])      # old headers unchanged
    assert not load(path, game).search.decisive
    checked = AZAgent(path, 0, decisive=True, rng=np.random.default_rng(0))
    assert wins_at_once(game, state, checked.act(game, state))
    flagged = Network(game, NetConfig("tris2", {}, 4, 1), plain.weights,
                      search=SearchSettings(decisive=True))
    assert load(save(flagged, tmp_path / "flagged.npz"), game).search.decisive
    searched = AZAgent(tmp_path / "flagged.npz", 8, rng=np.random.default_rng(0))
    assert wins_at_once(game, state, searched.act(game, state))


def test_the_decisive_search_never_hands_over_a_win_it_can_avoid():
    """One self-play iteration of the learner with ``decisive``: every move that hands the
    opponent a win in one was the mover's only kind of move (the search saw the reply)."""
    import mctx

    from tris_envs.alphazero.jax_net import forward, params_of, policy_index
    from tris_envs.alphazero.learner import Search, make_recurrent

    env = make("tris2")
    game = make_game("tris2")
    index = policy_index(game)
    params = params_of(Network(game, NetConfig("tris2", {}, 4, 1), rng=np.random.default_rng(0)))
    recurrent = make_recurrent(env, lambda p, x: forward(p, x, index, 1), decisive=True)
    states = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(3), 8))
    logits, value = forward(params, states.observation, index, 1)
    out = mctx.gumbel_muzero_policy(
        params, jax.random.PRNGKey(0), mctx.RootFnOutput(prior_logits=logits, value=value,
                                                         embedding=states),
        recurrent, 64, invalid_actions=~states.legal_action_mask,
        max_num_considered_actions=64)
    assert Search(1, 1, 1, 1, 0.0, 1.0, 1, 1, True, 1).decisive is False
    for i, action in enumerate(np.asarray(out.action)):
        state = env.to_core(jax.tree_util.tree_map(lambda x, i=i: x[i], states))
        safe = [a for a in game.legal_actions(state)
                if not any(wins_at_once(game, game.apply(state, a), b)
                           for b in game.legal_actions(game.apply(state, a)))]
        if safe:
            assert int(action) in safe


def test_the_last_ply_before_max_moves_is_no_blunder():
    env = make("tris2", max_moves=3)
    blunders, step = jax.jit(env.blunders), jax.jit(env.step)
    state = env.init(jax.random.PRNGKey(0))
    assert np.asarray(blunders(state)).any()      # this setup hands over lines at once
    for _ in range(2):
        state = step(state, int(np.flatnonzero(np.asarray(state.legal_action_mask))[0]))
    assert not state.terminated and np.asarray(state.legal_action_mask).sum() > 1
    assert not np.asarray(blunders(state)).any()


def test_without_blunders_drops_them_from_the_target():
    from tris_envs.alphazero.learner import without_blunders

    weights = np.array([[0.5, 0.3, 0.2, 0.0],      # renormalised over the safe moves
                        [0.9, 0.1, 0.0, 0.0],      # no weight on the safe moves: uniform
                        [0.6, 0.4, 0.0, 0.0]],     # no safe move: unchanged
                       np.float32)
    safe = np.array([[False, True, True, False], [False, False, True, True],
                     [False, False, False, False]])
    assert np.allclose(without_blunders(weights, safe),
                       [[0, 0.6, 0.4, 0], [0, 0, 0.5, 0.5], [0.6, 0.4, 0, 0]])


def test_greedy_moves_take_a_win_else_a_move_that_hands_none_over_else_any():
    from tris_envs.alphazero.learner import greedy_moves

    mask = np.ones((3, 6), bool)
    wins = np.zeros((3, 6), bool)
    wins[0, [2, 4]] = True                         # wins: one of them
    blunders = np.zeros((3, 6), bool)
    blunders[:, :4] = True                         # no win: one of the two safe moves
    blunders[2] = True                             # every move a blunder: any move
    keys = jax.random.split(jax.random.PRNGKey(0), 3000)
    moves = np.asarray(jax.vmap(lambda key: greedy_moves(wins, blunders, mask, key))(keys))
    for row, allowed in enumerate(([2, 4], [4, 5], range(6))):
        counts = np.bincount(moves[:, row], minlength=6)
        assert set(np.flatnonzero(counts)) == set(allowed)
        assert np.allclose(counts[list(allowed)] / 3000, 1 / len(allowed), atol=0.03)


def test_a_greedy_seat_takes_its_win_in_one_where_the_search_may_not(tmp_path):
    """One ply of the learner's self-play from two copies of a position whose mover (seat
    1) can win at once, without ``decisive``: with ``greedy = 1`` slot 1 has greedy in seat
    1 and wins every time; slot 0 (greedy in seat 0) leaves the move to a search of two
    simulations, which misses the win in some."""
    from tris_envs.alphazero.train import Run

    game, env = make_game("tris2"), make("tris2")
    config = tiny_decisive(decisive=False, greedy=1.0, envs=2, steps=1, batch=2,
                           simulations=2, considered=2)
    run = Run(config, tmp_path)
    start = env.from_core(game.from_notation(BEFORE_WIN))
    states = jax.tree_util.tree_map(lambda x: jax.numpy.stack([x, x]), start)
    params, opt_state, _, _, memory = run.state
    won = np.zeros(2)
    for seed in range(12):
        after = run.step(params, opt_state, states, jax.random.PRNGKey(seed), memory)[4]
        won += np.asarray(after.samples.reward[:2]) == 1
    assert won[1] == 12 and won[0] < 12


def test_greedy_games_need_the_games_tactics():
    with pytest.raises(ValueError, match="greedy = 0.5 needs the tactics capability"):
        load_config(None, {"game": "tant_fant", "greedy": 0.5})
    with pytest.raises(ValueError, match=r"greedy=2: must be"):
        load_config(None, {"game": "tris2", "greedy": 2})
