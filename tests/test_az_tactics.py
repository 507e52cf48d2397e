"""Tactics planes (``tactics = true``): Tris 2's rules core ``tactical_moves`` agrees with the
JAX game's ``winning_moves`` / ``handovers`` and with the generic one-move checks; the planes
sit on the policy head's cells; the NumPy and JAX inputs and forward passes agree; a network
without the planes starts a tactics run computing the same function; a tiny run saves a
network whose header says so and that the ``az`` agents play; bad combinations are refused.
The trap planes (``trap_planes = true``) likewise: ``trap_moves`` of the rules core, the
generic checks and the JAX game agree, the planes come third, and a tactics network reads
them with zero weights."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tris_envs.agents.az_network import (
    NetConfig,
    Network,
    load,
    save,
    tactic_planes,
    tactic_slots,
    with_inputs_of,
)
from tris_envs.agents.search_settings import SearchSettings
from tris_envs.core.game import allows_win, wins_at_once
from tris_envs.games import make_game, tactics_of
from tris_envs.games.tris2 import PLACEMENT_BASE

from checks import TRIS2_BEFORE_WIN as BEFORE_WIN
from checks import TRIS2_TRAP as TRAP_POSITION
from checks import TRIS2_TRAP_MOVES as TRAP_MOVES
from checks import random_playouts, safe_positions, trap_handovers_by_play

OPTIONS = [{}, {"max_side": 4}, {"setup": "placement"}]


def positions(game, games: int, seed: int) -> list:
    """Every position of ``games`` random games, the finished ones included."""
    seen: list = []
    random_playouts(game, games, seed, check=lambda _, state: seen.append(state))
    return seen


@pytest.mark.parametrize("options", OPTIONS)
def test_tactical_moves_are_the_one_move_wins_and_handovers(options):
    game = make_game("tris2", **options)
    wins_seen = handovers_seen = 0
    for state in positions(game, 8, seed=2):
        wins, handovers = tactics_of(game).tactical_moves(state)
        over = game.current_player(state) < 0
        rolls = [] if over or state.placing else [a for a in game.legal_actions(state)
                                                   if a < PLACEMENT_BASE]
        assert np.flatnonzero(wins).tolist() == [a for a in rolls
                                                 if wins_at_once(game, state, a)]
        assert np.flatnonzero(handovers).tolist() == [a for a in rolls
                                                      if allows_win(game, state, a)]
        wins_seen, handovers_seen = wins_seen + wins.sum(), handovers_seen + handovers.sum()
    assert wins_seen > 5 and handovers_seen > 100


@pytest.mark.parametrize("options", OPTIONS)
def test_the_jax_games_tactics_are_the_rules_cores(options):
    jax = pytest.importorskip("jax")
    from tris_envs.jax import make

    env, game = make("tris2", **options), make_game("tris2", **options)
    winning, handovers = jax.jit(env.winning_moves), jax.jit(env.handovers)
    flags = jax.jit(env.tactic_flags)
    for state in positions(game, 8, seed=3):
        wins, hands = tactics_of(game).tactical_moves(state)
        jax_state = env.from_core(state)
        assert np.array_equal(np.asarray(winning(jax_state)), wins)
        assert np.array_equal(np.asarray(handovers(jax_state)), hands)
        assert np.array_equal(np.asarray(flags(jax_state)), tactics_of(game).tactic_flags(state))


def test_the_planes_sit_on_the_policy_heads_cells():
    """A win's plane is set on the cell and channel where the policy head puts that roll's
    logit, a handover's on the same cell in the second group of channels."""
    game = make_game("tris2")
    state = game.from_notation(BEFORE_WIN)
    wins, handovers = tactics_of(game).tactical_moves(state)
    assert wins.any() and handovers.any()
    network = Network(game, NetConfig("tris2", {}, 4, 1, tactics=True),
                      rng=np.random.default_rng(0))
    inputs = network.inputs([state])
    observation = game.observation(state, game.current_player(state))
    planes = game.info.observation_shape[2]
    channels = tactic_slots(game)[2]
    assert inputs.shape == (1,) + observation.shape[:2] + (planes + 2 * channels,)
    assert np.array_equal(inputs[0, ..., :planes], observation)
    expected = np.zeros(observation.shape[:2] + (2, channels))
    for group, flags in enumerate((wins, handovers)):
        for action in np.flatnonzero(flags):
            r, c, channel = network_slot(action)
            expected[r, c, group, channel] = 1
    assert np.array_equal(inputs[0, ..., planes:], expected.reshape(inputs.shape[1:3] + (-1,)))


def network_slot(action: int) -> tuple[int, int, int]:
    from tris_envs.games import game_spec

    slot = game_spec("tris2").policy.slot(int(action))
    assert len(slot) == 3
    return slot


def test_numpy_and_jax_inputs_and_forward_passes_agree():
    jax = pytest.importorskip("jax")
    from tris_envs.alphazero.jax_net import forward, input_of, params_of, policy_index
    from tris_envs.jax import from_position, make

    game, env = make_game("tris2"), make("tris2")
    config = NetConfig("tris2", {}, 8, 2, tactics=True)
    network = Network(game, config, rng=np.random.default_rng(4))
    states = [s for s in positions(game, 3, seed=4) if game.current_player(s) >= 0][:40]
    inputs = network.inputs(states)
    batch = jax.tree_util.tree_map(lambda *xs: np.stack(xs), *[
        from_position(env, game.to_notation(s)) for s in states])
    jax_inputs = np.asarray(input_of(env, tactics=True)(batch))
    assert np.array_equal(inputs, jax_inputs)
    logits, values = network(inputs)
    j_logits, j_values = forward(params_of(network), jax_inputs, policy_index(game), 2)
    assert np.allclose(logits, np.asarray(j_logits), atol=1e-4)
    assert np.allclose(values, np.asarray(j_values), atol=1e-5)


def test_planes_of_numpy_and_jax_agree_on_arbitrary_flags():
    jnp = pytest.importorskip("jax.numpy")
    game = make_game("tris2")
    flags = np.random.default_rng(5).random((3, 2, game.info.num_actions)) < 0.3
    slots = tactic_slots(game)
    board = game.info.observation_shape[:2]
    assert np.array_equal(tactic_planes(flags, slots, board),
                          np.asarray(tactic_planes(jnp.asarray(flags), slots, board, jnp)))


def test_a_network_without_the_planes_reads_them_with_zero_weights():
    game = make_game("tris2")
    plain = Network(game, NetConfig("tris2", {}, 4, 1), rng=np.random.default_rng(6))
    widened = with_inputs_of(plain, NetConfig("tris2", {}, 4, 1, tactics=True))
    assert widened.config.tactics and not plain.config.tactics
    states = [s for s in positions(game, 2, seed=6) if game.current_player(s) >= 0][:20]
    for got, want in zip(widened.evaluate(states), plain.evaluate(states)):
        assert np.allclose(got, want, atol=1e-6)
    assert with_inputs_of(plain, plain.config) is plain
    with pytest.raises(ValueError, match="cannot drop them"):
        with_inputs_of(widened, plain.config)


def test_the_header_keeps_the_flag_and_only_tris2_has_tactics(tmp_path):
    game = make_game("tris2")
    network = Network(game, NetConfig("tris2", {}, 4, 1, tactics=True),
                      rng=np.random.default_rng(7))
    assert load(save(network, tmp_path / "t.npz"), game).config.tactics
    plain = save(Network(game, NetConfig("tris2", {}, 4, 1)), tmp_path / "p.npz")
    with np.load(plain) as data:
        assert "tactics" not in str(data["__config__"])
    with pytest.raises(ValueError, match="tactics planes needs the tactics capability"):
        Network(make_game("tant_fant"), NetConfig("tant_fant", {}, 4, 1, tactics=True))


def test_a_tactics_run_saves_a_network_the_az_agents_play(tmp_path):
    pytest.importorskip("mctx")
    from tris_envs.agents import make_agent
    from tris_envs.alphazero.train import load_config, train
    from tris_envs.evaluation import play_match

    tiny = {"game": "tris2", "options": {"max_moves": 24}, "envs": 4, "steps": 2,
            "simulations": 4, "considered": 4, "batch": 8, "width": 4, "blocks": 1,
            "iterations": 2, "checkpoint_every": 2, "eval_games": 0, "decisive": True,
            "tactics": True}
    plain = save(Network(make_game("tris2", max_moves=24),
                         NetConfig("tris2", {"max_moves": 24}, 4, 1)), tmp_path / "plain.npz")
    final = train(load_config(None, tiny | {"init": str(plain)}), tmp_path / "run", quiet=True)
    game = make_game("tris2", max_moves=24)
    assert load(final, game).config.tactics
    for spec in (f"az:{final}:0", f"az:{final}:4"):
        assert play_match(game, make_agent(spec), "greedy", n_games=2, seed=0).n_games == 2
    with pytest.raises(ValueError, match="tactics = true needs the tactics capability"):
        load_config(None, {"game": "tant_fant", "tactics": True})
    with pytest.raises(ValueError, match=r"\[play\] traps = 0.5 needs the tactics capability"):
        load_config(None, {"game": "tant_fant", "play": {"traps": 0.5}})
    traps = train(load_config(None, tiny | {"init": str(final), "iterations": 1,
                                            "play": {"traps": 0.5}}), tmp_path / "traps",
                  quiet=True)
    assert load(traps, game).search.traps == 0.5
    with pytest.raises(ValueError, match="reads tactics planes; the config says tactics = f"):
        load_config(None, tiny | {"tactics": False, "init": str(final)})


# ----- the trap rule (SearchSettings.traps, the learner's [play] traps) -------------------------
def test_the_trap_rule_plays_the_alike_move_that_leaves_the_most_handovers():
    """On searched roots of random positions, ``trap_move`` picks what the rule says,
    worked out here from the root and the generic one-move checks: among the moves visited
    at least half as often as the most visited, not proven lost and not handing over a
    line, the one after which the largest share of the opponent's moves hand one back;
    a proven win, or no such move, leaves the search's choice."""
    from tris_envs.agents.az import NetworkEvaluator, trap_move
    from tris_envs.agents.mcts import MCTSAgent

    game = make_game("tris2")
    network = Network(game, NetConfig("tris2", {}, 4, 1, tactics=True),
                      rng=np.random.default_rng(3), search=SearchSettings(decisive=True))

    def share(state, action):
        after = game.apply(state, action)
        legal = game.legal_actions(after)
        if game.is_terminal(after) or not legal:
            return -1.0
        return np.mean([allows_win(game, after, a) for a in legal])

    changed = 0
    for state in positions(game, 3, seed=4)[1:40:3]:
        if game.is_terminal(state):
            continue
        search = MCTSAgent(24, rng=np.random.default_rng(0), decisive=True,
                           evaluator=NetworkEvaluator(network))
        root = search.search(game, state)
        best = MCTSAgent.best_action(root)
        top = max(c.visits for c in root.children)
        alike = [c.action for c in root.children if c.visits >= 0.5 * top
                 and c.proven != -1 and not allows_win(game, state, c.action)]
        move = trap_move(game, state, root, 0.5)
        if any(c.proven == 1 for c in root.children) or not alike:
            assert move == best
            continue
        assert move in alike
        assert share(state, move) == max(share(state, a) for a in alike)
        changed += move != best
    assert changed    # the rule does change moves


def test_the_header_keeps_the_trap_rule_and_the_az_agent_follows_it(tmp_path, monkeypatch):
    from tris_envs.agents import az

    game = make_game("tris2")
    config = NetConfig("tris2", {}, 4, 1, tactics=True)
    path = save(Network(game, config, rng=np.random.default_rng(0),
                        search=SearchSettings(decisive=True, traps=0.5)), tmp_path / "t.npz")
    assert load(path, game).search.traps == 0.5
    with np.load(save(Network(game, NetConfig("tris2", {}, 4, 1)), tmp_path / "p.npz")) as data:
        assert "traps" not in str(data["__config__"])
    with pytest.raises(ValueError, match="the trap rule needs the tactics capability"):
        Network(make_game("tant_fant"), NetConfig("tant_fant", {}, 4, 1),
                search=SearchSettings(traps=0.5))
    used = []
    monkeypatch.setattr(az, "trap_move", lambda game, state, root, share:
                        used.append(share) or root.children[0].action)
    state = next(s for s in positions(game, 3, seed=4) if not game.is_terminal(s)
                 and not any(wins_at_once(game, s, a) for a in game.legal_actions(s)))
    az.AZAgent(path, simulations=8).act(game, state)
    az.AZAgent(path, simulations=8, traps=0.0).act(game, state)
    az.AZAgent(path, simulations=0).act(game, state)
    assert used == [0.5]
    # a variant the network was not trained on plays without the header's rule
    rule4 = make_game("tris2", max_side=4, max_moves=50)
    az.AZAgent(path, simulations=8).act(rule4, rule4.from_notation(game.to_notation(state)))
    az.AZAgent(path, simulations=8, traps=0.25).act(rule4,
                                                   rule4.from_notation(game.to_notation(state)))
    assert used == [0.5, 0.25]
    # options that change only the setup leave the game the network learned: the rule holds
    for options in ({"setup": "placement"}, {"fair": True}):
        variant = make_game("tris2", **options)
        az.AZAgent(path, simulations=8).act(variant, variant.from_notation(game.to_notation(state)))
    assert used == [0.5, 0.25, 0.5, 0.5]
    placement4 = make_game("tris2", setup="placement", max_side=4)
    az.AZAgent(path, simulations=8).act(placement4,
                                        placement4.from_notation(game.to_notation(state)))
    assert used == [0.5, 0.25, 0.5, 0.5]


@pytest.mark.parametrize("traps", [-0.1, 1.5, True, "0.5"])
def test_bad_trap_shares_are_refused(traps):
    from tris_envs.agents.az import AZAgent

    with pytest.raises(ValueError, match="traps"):
        AZAgent(traps=traps)


def test_az_searches_with_the_rules_cores_proofs_unless_told_not_to(monkeypatch):
    """``az`` passes ``proofs`` to its search (on by default); ``az:0`` searches nothing."""
    from tris_envs.agents import az

    made = []

    class Spy(az.Search):
        def run(self, *args, **kwargs):
            made.append(any(isinstance(prover, az.RulesProof) for prover in self.provers))
            return super().run(*args, **kwargs)

    monkeypatch.setattr(az, "Search", Spy)
    game = make_game("tris2", setup="placement")
    network = Network(game, NetConfig("tris2", {"setup": "placement"}, 4, 1),
                      rng=np.random.default_rng(0))
    state = game.initial_state(np.random.default_rng(0))
    az.AZAgent(network, simulations=4).act(game, state)
    az.AZAgent(network, simulations=4, proofs=False).act(game, state)
    az.AZAgent(network, simulations=0).act(game, state)
    assert made == [True, False]


def test_a_proven_loss_leaves_the_opponent_the_fewest_replies_that_keep_its_win():
    """``hardest_loss`` on Tris 2 placement roots proven lost for ``player_0`` (three to
    five placements left, or one): the move after which the smallest share of ``player_1``'s
    replies keeps the forced win (worked out here with ``placement_safe``; after the last
    placement, the rolls that win at once)."""
    from tris_envs.agents.az import hardest_loss
    from tris_envs.agents.mcts import MCTSAgent

    game = make_game("tris2", setup="placement")
    rng = np.random.default_rng(7)

    def kept(after) -> float:
        replies = game.legal_actions(after)
        return np.mean([game.is_terminal(game.apply(after, r))
                        or not game.placement_safe(game.apply(after, r), {})
                        for r in replies])

    checked = 0
    while checked < 5:
        state = game.initial_state(rng)
        for _ in range(int(rng.choice([4, 6, 8]))):
            state = game.apply(state, int(rng.choice(game.legal_actions(state))))
        search = MCTSAgent(400, rng=np.random.default_rng(0), decisive=True, proofs=True)
        root = search.search(game, state)
        if root.proven != -1:
            continue
        checked += 1
        shares = {a: kept(game.apply(state, a)) for a in game.legal_actions(state)}
        move = hardest_loss(game, state, root, search.memo)
        assert shares[move] == min(shares.values())


# ----- trap planes (NetConfig.trap_planes, the learner's trap_planes) --------------------
@pytest.mark.parametrize("options", OPTIONS)
def test_trap_moves_leave_the_opponent_only_handovers(options):
    """The rules core's ``trap_moves`` are the legal rolls after which the game goes on and
    every legal reply (at least one) hands a win in one back (the generic checks), and the
    JAX game's ``trap_moves`` agree with them."""
    game = make_game("tris2", **options)
    jax = pytest.importorskip("jax")
    from tris_envs.jax import make

    env = make("tris2", **options)
    jax_traps = jax.jit(env.trap_moves)
    jax_flags = jax.jit(lambda state: env.tactic_flags(state, traps=True))
    found = 0
    for state in safe_positions(game, 4, seed=8)[::2]:
        traps = tactics_of(game).trap_moves(state)
        rolls = ([] if game.is_terminal(state) or state.placing
                 else [a for a in game.legal_actions(state) if a < PLACEMENT_BASE])
        expected = []
        for action in rolls:
            child = game.apply(state, action)
            replies = [] if game.is_terminal(child) else game.legal_actions(child)
            if replies and all(allows_win(game, child, r) for r in replies):
                expected.append(action)
        assert np.flatnonzero(traps).tolist() == expected
        assert np.array_equal(np.asarray(jax_traps(env.from_core(state))), traps)
        assert np.array_equal(np.asarray(jax_flags(env.from_core(state))),
                              tactics_of(game).tactic_flags(state, traps=True))
        found += len(expected)
    assert found > 0 or options.get("max_side") != 4


def test_trap_handovers_leave_the_opponent_a_trap():
    """The JAX game's ``trap_handovers`` and the rules core's are the legal rolls after
    which the game goes on and the opponent has a trap (the rules core's ``trap_moves`` of
    the position each leaves); ``hands_over_traps`` looks at given actions only, false for
    a placement, an illegal or an unknown action."""
    jax = pytest.importorskip("jax")
    from tris_envs.jax import make

    game, env = make_game("tris2", max_side=4), make("tris2", max_side=4)
    handovers = jax.jit(env.trap_handovers)
    found = 0
    for state in safe_positions(game, 2, seed=3)[::6]:
        expected = trap_handovers_by_play(game, state)
        assert np.flatnonzero(np.asarray(handovers(env.from_core(state)))).tolist() == expected
        assert np.flatnonzero(tactics_of(game).trap_handovers(state)).tolist() == expected
        found += len(expected)
    assert found > 0
    state = game.initial_state(np.random.default_rng(0))
    legal = [a for a in game.legal_actions(state) if a < PLACEMENT_BASE]
    illegal = next(a for a in range(PLACEMENT_BASE) if a not in legal)
    checked = env.hands_over_traps(env.from_core(state),
                                   np.array([legal[0], illegal, PLACEMENT_BASE, -1, 10**6]))
    assert not np.asarray(checked)[1:].any()


def test_a_trap_under_the_rule_of_4():
    """A scripted position: the player to move has exactly these rolls that leave the
    opponent only moves that hand over a line."""
    game = make_game("tris2", max_side=4)
    state = game.from_notation(TRAP_POSITION)
    traps = np.flatnonzero(tactics_of(game).trap_moves(state))
    assert [game.action_name(state, a) for a in traps] == TRAP_MOVES


def test_the_trap_planes_come_third_and_numpy_and_jax_agree():
    jax = pytest.importorskip("jax")
    from tris_envs.alphazero.jax_net import input_of
    from tris_envs.jax import from_position, make

    game, env = make_game("tris2", max_side=4), make("tris2", max_side=4)
    config = NetConfig("tris2", {"max_side": 4}, 4, 1, tactics=True, trap_planes=True)
    network = Network(game, config, rng=np.random.default_rng(9))
    states = [s for s in safe_positions(game, 2, seed=9) if not game.is_terminal(s)][::3]
    inputs = network.inputs(states)
    planes, channels = game.info.observation_shape[2], tactic_slots(game)[2]
    assert inputs.shape[-1] == planes + 3 * channels == config.input_planes(game)
    tactics = Network(game, replace(config, trap_planes=False), rng=np.random.default_rng(9))
    assert np.array_equal(inputs[..., :planes + 2 * channels], tactics.inputs(states))
    traps = np.stack([tactics_of(game).trap_moves(s) for s in states])[:, None]
    assert traps.any()
    assert np.array_equal(inputs[..., planes + 2 * channels:],
                          tactic_planes(traps, tactic_slots(game), inputs.shape[1:3]))
    batch = jax.tree_util.tree_map(lambda *xs: np.stack(xs), *[
        from_position(env, game.to_notation(s)) for s in states])
    assert np.array_equal(inputs, np.asarray(input_of(env, True, True)(batch)))


def test_a_tactics_network_reads_the_trap_planes_with_zero_weights(tmp_path):
    game = make_game("tris2", max_side=4)
    tactics = Network(game, NetConfig("tris2", {}, 4, 1, tactics=True),
                      rng=np.random.default_rng(10))
    wider = NetConfig("tris2", {}, 4, 1, tactics=True, trap_planes=True)
    widened = with_inputs_of(tactics, wider)
    assert widened.config.trap_planes
    states = [s for s in safe_positions(game, 2, seed=10) if not game.is_terminal(s)][:20]
    for got, want in zip(widened.evaluate(states), tactics.evaluate(states)):
        assert np.allclose(got, want, atol=1e-6)
    plain = Network(game, NetConfig("tris2", {}, 4, 1), rng=np.random.default_rng(10))
    assert with_inputs_of(plain, wider).weights["stem.w"].shape[2] == wider.input_planes(game)
    with pytest.raises(ValueError, match="cannot drop them"):
        with_inputs_of(widened, tactics.config)
    assert load(save(widened, tmp_path / "t.npz"), game).config.trap_planes
    with np.load(save(tactics, tmp_path / "p.npz")) as data:
        assert "trap_planes" not in str(data["__config__"])
    with pytest.raises(ValueError, match="trap planes needs the tactics planes"):
        Network(game, NetConfig("tris2", {}, 4, 1, trap_planes=True))


def test_a_trap_planes_run_saves_a_network_the_az_agents_play(tmp_path):
    pytest.importorskip("mctx")
    from tris_envs.agents import make_agent
    from tris_envs.alphazero.train import load_config, train
    from tris_envs.evaluation import play_match

    options = {"max_side": 4, "max_moves": 24}
    game = make_game("tris2", **options)
    tiny = {"game": "tris2", "options": options, "envs": 4, "steps": 2, "simulations": 4,
            "considered": 4, "batch": 8, "width": 4, "blocks": 1, "iterations": 1,
            "checkpoint_every": 1, "eval_games": 0, "decisive": True, "tactics": True}
    tactics = save(Network(game, NetConfig("tris2", options, 4, 1, tactics=True),
                           rng=np.random.default_rng(11)), tmp_path / "tactics.npz")
    final = train(load_config(None, tiny | {"init": str(tactics), "trap_planes": True}),
                  tmp_path / "run", quiet=True)
    assert load(final, game).config.trap_planes
    for spec in (f"az:{final}:0", f"az:{final}:4"):
        assert play_match(game, make_agent(spec), "greedy", n_games=2, seed=0).n_games == 2
    with pytest.raises(ValueError, match="trap_planes = true needs tactics = true"):
        load_config(None, tiny | {"tactics": False, "trap_planes": True})
    with pytest.raises(ValueError, match="reads trap planes; the config says trap_planes = f"):
        load_config(None, tiny | {"init": str(final)})


def trap_handover_case(game):
    """The first position of safe play under the rule of 4 with a roll that hands the
    opponent a trap and no line, its moves that hand over no line and those of them that
    hand over a trap (the rules core's checks)."""
    state = next(s for s in safe_positions(game, 2, seed=3) if not game.is_terminal(s)
                 and any(tactics_of(game).trap_moves(game.apply(s, a)).any()
                         and not allows_win(game, s, a)
                         for a in game.legal_actions(s)
                         if not game.is_terminal(game.apply(s, a))))
    safe = np.zeros(len(game.legal_mask(state)), bool)
    risky = np.zeros_like(safe)
    for action in game.legal_actions(state):
        child = game.apply(state, action)
        safe[action] = not allows_win(game, state, action)
        risky[action] = (safe[action] and not game.is_terminal(child)
                         and tactics_of(game).trap_moves(child).any())
    return state, safe, risky


def test_without_traps_handed_over_drops_them_among_the_heaviest_moves():
    """Of a target over every legal move of a position with a roll that hands the opponent
    a trap and no line, the learner's ``wary`` step drops that roll where it is among the
    heaviest looked at, and keeps it where it is not."""
    jax = pytest.importorskip("jax")
    from tris_envs.alphazero.learner import without_traps_handed_over
    from tris_envs.jax import make

    game, env = make_game("tris2", max_side=4), make("tris2", max_side=4)
    state, safe, risky = trap_handover_case(game)
    jax_state = env.from_core(state)
    legal = np.asarray(jax_state.legal_action_mask)
    weights = np.where(legal, 1.0, 0.0)
    weights[risky] = 2.0                                      # the heaviest: looked at
    light = weights.copy()
    light[risky] = 0.5                                        # the lightest: not looked at
    batch = jax.tree_util.tree_map(lambda x: jax.numpy.stack([x, x]), jax_state)
    out = np.asarray(jax.jit(without_traps_handed_over, static_argnums=(3, 4))(
        np.stack([weights, light]) / np.stack([weights, light]).sum(1, keepdims=True),
        np.stack([safe, safe]), batch, env.hands_over_traps, int(risky.sum())))
    assert risky.any() and (out[0, risky] == 0).all() and (out[1, risky] > 0).all()
    assert (out[:, safe & ~risky] > 0).all() and (out[:, ~safe] == 0).all()
    assert np.allclose(out.sum(1), 1)


@pytest.mark.slow
def test_a_wary_root_drops_the_traps_handed_over_from_the_target(tmp_path):
    """One ply of the learner's self-play from a position with a roll that hands the
    opponent a trap and no line: the policy target of a ``wary`` root (every move looked
    at) puts no weight on it, and some on every other move that hands over nothing (as
    Gumbel's improved policy does on every legal move); ``wary`` needs ``safe``."""
    jax = pytest.importorskip("jax")
    from tris_envs.alphazero.train import Run, load_config
    from tris_envs.jax import make

    game, env = make_game("tris2", max_side=4), make("tris2", max_side=4)
    state, safe, risky = trap_handover_case(game)
    jax_state = env.from_core(state)
    states = jax.tree_util.tree_map(lambda x: jax.numpy.stack([x, x]), jax_state)
    config = load_config(None, {
        "game": "tris2", "options": {"max_side": 4}, "envs": 2, "steps": 1, "batch": 2,
        "simulations": 4, "considered": 16, "width": 4, "blocks": 1, "iterations": 1,
        "eval_games": 0, "safe": True, "wary": True})
    run = Run(config, tmp_path)
    params, opt_state, _, key, memory = run.state
    weights = np.asarray(run.step(params, opt_state, states, key, memory)[4].samples.policy[:2])
    assert risky.any() and (weights[:, risky] == 0).all()
    assert (weights[:, safe & ~risky] > 0).all() and np.allclose(weights.sum(1), 1)
    with pytest.raises(ValueError, match="wary = true needs safe = true"):
        load_config(None, {"game": "tris2", "wary": True})
