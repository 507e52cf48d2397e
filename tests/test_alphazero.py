"""The AlphaZero network: its policy head addresses each game's action encoding; the NumPy
and PyTorch networks agree; files round-trip and bad ones are refused."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from tris_envs.alphazero.network import NetConfig, Network, load, masked_softmax, save
from tris_envs.alphazero.torch_net import TorchNetwork
from tris_envs.games import GAMES

SPECS = [pytest.param(spec, id=spec.name) for spec in GAMES.values()]


def start(spec):
    game = spec.make()
    rng = np.random.default_rng(0)
    state = game.initial_state(rng)
    while game.current_player(state) < 0:
        state = game.apply(state, game.chance_outcomes(state)[0][0])
    return game, state


@pytest.mark.parametrize("spec", SPECS)
def test_each_actions_logit_sits_on_its_cell(spec):
    """Without residual blocks a cell's logits see only the 3x3 cells around it: changing
    one input cell moves exactly the logits of the actions slotted next to it."""
    game, state = start(spec)
    network = Network(game, NetConfig(spec.name, {}, width=8, blocks=0),
                      rng=np.random.default_rng(1))
    observation = game.observation(state, game.current_player(state))
    height, width, _ = observation.shape
    base, _ = network(observation[None])
    for r, c in [(0, 0), (height // 2, width // 2), (height - 1, width - 1)]:
        changed = observation.copy()
        changed[r, c] = 1 - changed[r, c]
        logits, _ = network(changed[None])
        moved = ~np.isclose(logits[0], base[0], rtol=0, atol=1e-6)
        for action in range(game.info.num_actions):
            slot = spec.policy.slot(action)
            if len(slot) == 3:
                near = max(abs(slot[0] - r), abs(slot[1] - c)) <= 1
                assert moved[action] == near, (action, slot, (r, c))


@pytest.mark.parametrize("spec", SPECS)
def test_numpy_and_torch_networks_agree(spec):
    game, state = start(spec)
    config = NetConfig(spec.name, {}, width=8, blocks=2)
    network = Network(game, config, rng=np.random.default_rng(2))
    twin = TorchNetwork(game, config, initial=network)
    observations = np.stack([game.observation(state, p) for p in (0, 1)])
    logits, values = network(observations)
    with torch.no_grad():
        t_logits, t_values = twin(torch.from_numpy(observations))
    assert np.allclose(logits, t_logits.numpy(), atol=1e-5)
    assert np.allclose(values, t_values.numpy(), atol=1e-5)
    assert twin.to_numpy().weights.keys() == network.weights.keys()


def test_masked_softmax_gives_zero_to_illegal_actions():
    probabilities = masked_softmax(np.array([[1.0, 5.0, 2.0]]), np.array([[True, False, True]]))
    assert probabilities[0, 1] == 0 and np.isclose(probabilities.sum(), 1)
    assert probabilities[0, 2] > probabilities[0, 0]


def test_files_round_trip_and_bad_files_are_refused(tmp_path):
    game, state = start(GAMES["tant_fant"])
    network = Network(game, NetConfig("tant_fant", {"stalemate": "draw"}, 8, 1),
                      rng=np.random.default_rng(3))
    path = save(network, tmp_path / "net.npz")
    again = load(path, game)
    assert again.config == network.config
    assert np.array_equal(again.evaluate([state])[0], network.evaluate([state])[0])
    with pytest.raises(ValueError, match="cannot play 'tris1'"):
        load(path, GAMES["tris1"].make())
    (tmp_path / "bad.npz").write_bytes(path.read_bytes()[:100])
    with pytest.raises(ValueError, match="bad.npz.*cannot be read"):
        load(tmp_path / "bad.npz", game)
    with pytest.raises(FileNotFoundError, match="missing.npz"):
        load(tmp_path / "missing.npz", game)


# ----- the az agents ------------------------------------------------------------------------
def test_az_agents_play_with_and_without_search(tmp_path):
    from tris_envs.agents import make_agent
    from tris_envs.alphazero.agent import AZAgent
    from tris_envs.evaluation import play_match

    game, state = start(GAMES["tris1"])
    network = Network(game, NetConfig("tris1", {}, 8, 1), rng=np.random.default_rng(4))
    greedy_policy = AZAgent(network, simulations=0)
    probabilities, _ = network.evaluate([state])
    assert greedy_policy.act(game, state) == int(np.argmax(probabilities[0]))
    path = save(network, tmp_path / "tris1.npz")
    for spec in (f"az:{path}", f"az:{path}:0", f"az:{path}:8"):
        result = play_match(game, make_agent(spec), "random", n_games=2, seed=0)
        assert result.n_games == 2


@pytest.mark.parametrize("spec, error", [
    ("az:", "unknown agent spec"), ("az:x:y", "unknown agent spec"),
    ("az:-1", "unknown agent spec"), ("az:net.npz:abc", "unknown agent spec"),
    ("az:missing.npz", "not found"), ("az:missing.npz:10", "not found"),
])
def test_az_specs_refuse_bad_input(spec, error):
    from tris_envs.agents import make_agent

    with pytest.raises((ValueError, FileNotFoundError), match=error):
        make_agent(spec)


def test_az_without_a_shipped_network_says_so():
    from tris_envs.agents import make_agent

    game, state = start(GAMES["doppia_scelta"])
    agent = make_agent("az")
    assert agent.name == "az" and make_agent("az:0").simulations == 0
    with pytest.raises(FileNotFoundError, match="no AlphaZero network is shipped"):
        agent.act(game, state)


# ----- the learner ----------------------------------------------------------------------
@pytest.mark.parametrize("spec", SPECS)
def test_learner_smoke_run_saves_a_network_that_plays(spec, tmp_path):
    import subprocess
    import sys

    from tris_envs.alphazero.network import load

    out = tmp_path / "run"
    command = [sys.executable, "training/alphazero.py", "--game", spec.name, "--out", str(out),
               "--iterations", "2", "--games", "3", "--simulations", "3", "--steps", "2",
               "--eval-every", "2", "--eval-games", "2", "--option", "max_moves=24",
               "--opponents", "random", "--quiet"]
    subprocess.run(command, check=True, capture_output=True, text=True)
    assert {"final.npz", "net_2.npz", "progress.csv", "learning_curve.png"} <= {
        p.name for p in out.iterdir()}
    rows = (out / "progress.csv").read_text().splitlines()
    assert len(rows) == 3 and "vs random" in rows[0]
    game = spec.make(max_moves=24)
    network = load(out / "final.npz", game)
    assert network.config.game == spec.name


def test_learner_writes_whole_progress_lines_to_a_log(tmp_path):
    """Not a terminal: one line per iteration, no redrawn bar (carriage returns)."""
    import subprocess
    import sys

    command = [sys.executable, "training/alphazero.py", "--game", "tris1", "--out",
               str(tmp_path / "run"), "--iterations", "2", "--games", "2", "--simulations", "2",
               "--steps", "1", "--eval-every", "2", "--eval-games", "2",
               "--opponents", "random"]
    result = subprocess.run(command, check=True, capture_output=True, text=True)
    lines = [line for line in result.stdout.splitlines() if line.startswith("iteration ")]
    assert [line.split(":")[0] for line in lines] == ["iteration 1/2", "iteration 2/2"]
    assert "vs random" in lines[1] and "\r" not in result.stdout + result.stderr


@pytest.mark.parametrize("arguments, message", [
    (["--game", "chess"], "game='chess': must be one of 'tris2', 'tris1'"),
    (["--iterations", "0"], "iterations=0: must be an integer >= 1"),
    (["--opponents", "random,chess"], "unknown agent spec 'chess'"),
    (["--option", "colour=red"], "unknown option"),
    (["--config", "missing.toml"], "missing.toml"),
])
def test_learner_refuses_bad_settings(arguments, message, tmp_path):
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "training/alphazero.py", "--out",
                             str(tmp_path / "run"), *arguments], capture_output=True, text=True)
    assert result.returncode == 2 and message in result.stderr
    assert "Traceback" not in result.stderr


def test_the_shipped_tris1_network_never_loses_to_the_solver():
    """The shipped ``az`` for Tris 1 (training/configs/az_tris1.toml) holds the draw."""
    from tris_envs.agents import make_agent
    from tris_envs.evaluation import play_match
    from tris_envs.evaluation.metrics import move_quality

    game = GAMES["tris1"].make()
    result = play_match(game, make_agent("az"), "solver", n_games=16, seed=11,
                        keep_records=True)
    assert result.losses == 0
    quality = move_quality(game, result.records, "az")
    assert quality.value_kept == quality.judged > 0
