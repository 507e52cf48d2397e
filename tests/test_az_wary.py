"""Wary planes (``NetConfig.wary_planes``) and ``tris-envs train wary``: the rules core's
``trap_handovers`` against the generic checks, as the fourth row of ``tactic_flags``; a
trap-planes network reads the wary planes with zero weights and keeps them through a file;
the targets drop the traps handed over and keep the rest of the starting network's policy;
a tiny run saves a network the ``az`` agents play, the same for any number of processes;
bad settings are refused, and the JAX learner refuses to start from such a network."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tris_envs.agents.az_network import NetConfig, Network, load, save, with_inputs_of
from tris_envs.core.game import allows_win
from tris_envs.games import make_game, tactics_of

from checks import safe_positions, trap_handovers_by_play

pytest.importorskip("jax")
pytest.importorskip("optax")

TRAPS = NetConfig("tris2", {"max_side": 4}, 4, 1, tactics=True, trap_planes=True)
WARY = replace(TRAPS, wary_planes=True)


@pytest.mark.parametrize("options", [{"max_side": 4}, {}, {"setup": "placement"}])
def test_trap_handovers_are_the_rolls_that_leave_the_opponent_a_trap(options):
    game = make_game("tris2", **options)
    found = 0
    for state in safe_positions(game, 3, seed=21)[::2]:
        expected = trap_handovers_by_play(game, state)
        assert np.flatnonzero(tactics_of(game).trap_handovers(state)).tolist() == expected
        flags = tactics_of(game).tactic_flags(state, True, True)
        assert np.array_equal(flags[:3], tactics_of(game).tactic_flags(state, True))
        assert np.array_equal(flags[3], tactics_of(game).trap_handovers(state))
        assert np.array_equal(tactics_of(game).tactic_flags(state, False, True)[2], flags[3])
        found += len(expected)
    assert found > 0 or options.get("max_side") != 4


def wary_case(game):
    """A position of safe play under the rule of 4 with a roll that hands the opponent a
    trap and no line, and with another roll that hands over neither."""
    for state in safe_positions(game, 4, seed=3):
        if game.is_terminal(state):
            continue
        risky = np.zeros(len(game.legal_mask(state)), bool)
        risky[trap_handovers_by_play(game, state)] = True
        safe = np.array([a in game.legal_actions(state) and not allows_win(game, state, a)
                         for a in range(len(risky))])
        if (risky & safe).any() and (safe & ~risky).any():
            return state, safe, risky
    raise AssertionError("no such position")


def test_a_trap_network_reads_the_wary_planes_with_zero_weights(tmp_path):
    game = make_game("tris2", max_side=4)
    traps = Network(game, TRAPS, rng=np.random.default_rng(4))
    wary = with_inputs_of(traps, WARY)
    assert wary.config.wary_planes
    assert wary.weights["stem.w"].shape[2] == WARY.input_planes(game) \
        == TRAPS.input_planes(game) + wary.tactic_slots[2]
    state, _, risky = wary_case(game)
    inputs = wary.inputs([state])
    assert inputs[..., TRAPS.input_planes(game):].sum() == risky.sum()
    for got, want in zip(wary.evaluate([state]), traps.evaluate([state])):
        assert np.allclose(got, want, atol=1e-6)
    assert load(save(wary, tmp_path / "w.npz"), game).config.wary_planes
    with np.load(save(traps, tmp_path / "t.npz")) as data:
        assert "wary_planes" not in str(data["__config__"])
    with pytest.raises(ValueError, match="cannot drop them"):
        with_inputs_of(wary, TRAPS)
    with pytest.raises(ValueError, match="wary planes needs the trap planes"):
        Network(game, replace(WARY, trap_planes=False))


def test_the_targets_drop_the_traps_handed_over_and_keep_the_rest():
    """In a position with a roll that hands over a trap and one that hands over nothing,
    the policy target puts no weight on the first, nor on a roll that hands over a line,
    and keeps the starting network's ratios between the other moves; the value target is
    the network's value."""
    from tris_envs.alphazero.wary import Positions, network_inputs, targets

    game = make_game("tris2", max_side=4)
    state, safe, risky = wary_case(game)
    network = with_inputs_of(Network(game, TRAPS, rng=np.random.default_rng(5)), WARY)
    flags = tactics_of(game).tactic_flags(state, True, True)[None]
    observation = game.observation(state, game.current_player(state))[None].astype(np.int8)
    inputs = network_inputs(network, observation, flags)
    assert np.array_equal(inputs, network.inputs([state]))
    logits, value = network(inputs)
    mask = game.legal_mask(state).astype(bool)[None]
    policy, values = targets(network, Positions(observation, flags, mask, np.zeros(1)))
    assert np.allclose(values, value)
    assert (policy[0, risky] == 0).all() and (policy[0, ~safe] == 0).all()
    kept = safe & ~risky
    assert np.isclose(policy[0].sum(), 1) and (policy[0, kept] > 0).all()
    before = np.exp(logits[0, kept] - logits[0, kept].max())
    assert np.allclose(policy[0, kept], before / before.sum(), atol=1e-6)


def test_a_tiny_run_saves_a_wary_network_the_az_agents_play(tmp_path):
    pytest.importorskip("mctx")
    from tris_envs.agents import make_agent
    from tris_envs.alphazero.train import load_config
    from tris_envs.alphazero.wary import Settings, train
    from tris_envs.evaluation import play_match

    options = {"max_side": 4, "max_moves": 40}
    game = make_game("tris2", **options)
    start = save(Network(game, replace(TRAPS, options=options), rng=np.random.default_rng(6)),
                 tmp_path / "start.npz")
    settings = Settings(str(start), "tris2", options, games=4, epochs=2, batch=32,
                        processes=1)
    final = train(settings, tmp_path / "one", quiet=True)
    network = load(final, game)
    assert network.config.wary_planes and network.config.trap_planes
    rows = (tmp_path / "one" / "progress.csv").read_text().splitlines()
    assert rows[0] == "epoch,policy_loss,value_loss,seconds" and len(rows) == 4
    assert (tmp_path / "one" / "machine.txt").is_file()
    again = load(train(replace(settings, options=None, processes=2), tmp_path / "two",
                       quiet=True), game)
    assert '"max_moves": 40' in (tmp_path / "two" / "config.json").read_text()
    for name, weights in network.weights.items():
        assert np.array_equal(weights, again.weights[name]), name
    for spec in (f"az:{final}:0", f"az:{final}:4"):
        assert play_match(game, make_agent(spec), "greedy", n_games=2, seed=0).n_games == 2
    with pytest.raises(ValueError, match="already holds a run"):
        train(settings, tmp_path / "one", quiet=True)
    tiny = {"game": "tris2", "options": options, "width": 4, "blocks": 1, "tactics": True,
            "trap_planes": True, "init": str(final)}
    with pytest.raises(ValueError, match="reads wary planes, which the learner does not"):
        load_config(None, tiny)


@pytest.mark.parametrize("change, message", [
    ({"games": 0}, "games=0: must be an integer >= 1"),
    ({"epochs": 0}, "epochs=0: must be an integer >= 1"),
    ({"learning_rate": 0.0}, "learning_rate=0.0: must be a number > 0"),
    ({"game": "tant_fant", "options": {}}, "training wary planes needs the wary capability"),
    ({"opponent": "nobody"}, "opponent='nobody': unknown agent spec"),
    ({"games": "many"}, "games='many': must be an integer >= 1"),
    ({"seed": -1}, "seed=-1: must be an integer >= 0"),
    ({"options": {"colour": 1}}, "options: unknown option"),
])
def test_bad_settings_are_refused(tmp_path, change, message):
    from tris_envs.alphazero.wary import Settings, train

    game = make_game("tris2", max_side=4)
    start = save(Network(game, TRAPS, rng=np.random.default_rng(7)), tmp_path / "s.npz")
    settings = replace(Settings(str(start), "tris2", {"max_side": 4}), **change)
    with pytest.raises(ValueError, match=message):
        train(settings, tmp_path / "run", quiet=True)
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("option, trained", [([], {"max_side": 4}),
                                             (["max_side=5"], {"max_side": 5})])
def test_the_header_says_the_options_the_network_trained_on(tmp_path, monkeypatch, option,
                                                             trained):
    from tris_envs.alphazero import wary
    from tris_envs.cli import main

    start = save(Network(make_game("tris2", max_side=4), TRAPS, rng=np.random.default_rng(9)),
                 tmp_path / "s.npz")
    seen = {}

    def played(network, settings):          # the games and the updates left out: the header
        seen["game"] = network.game
        return wary.Positions(*(np.zeros((1, 1)),) * 3, np.zeros(1))

    monkeypatch.setattr(wary, "play", played)
    monkeypatch.setattr(wary, "targets", lambda network, positions: (None, None))
    monkeypatch.setattr(wary, "fit", lambda network, *rest: network)
    assert main(["train", "wary", "--init", str(start), "--out", str(tmp_path / "run"),
                 "--quiet", *(f"--option={text}" for text in option)]) == 0
    header = load(tmp_path / "run" / "final.npz", make_game("tris2", **trained)).config
    assert seen["game"].options() == make_game("tris2", **trained).options()
    assert header.options == trained and header.wary_planes


def test_a_network_without_trap_planes_is_refused(tmp_path):
    from tris_envs.alphazero.wary import Settings, train

    game = make_game("tris2", max_side=4)
    start = save(Network(game, replace(TRAPS, trap_planes=False),
                         rng=np.random.default_rng(8)), tmp_path / "s.npz")
    with pytest.raises(ValueError, match="wary planes needs the trap planes"):
        train(Settings(str(start), "tris2", {"max_side": 4}), tmp_path / "run", quiet=True)


def test_the_command_names_a_missing_network_in_one_line(tmp_path, capsys):
    from tris_envs.cli import main

    assert main(["train", "wary", "--init", str(tmp_path / "gone.npz"), "--out",
                 str(tmp_path / "run")]) == 2
    error = capsys.readouterr().err
    assert error.startswith("tris-envs train wary: error: ") and "gone.npz" in error
    assert error.count("\n") == 1 and not (tmp_path / "run").exists()
