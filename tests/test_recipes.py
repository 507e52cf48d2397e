"""The recipes for other RL libraries (examples/cleanrl_ppo.py, tianshou_*.py, torchrl_*.py):
each trains briefly and its result plays matches in our harness.

The default run trains each for a few hundred steps and checks that the learner plays legal
games through :func:`tris_envs.evaluation.play_match`; the slow tests (``-m slow``) train
each on Tris 1 as its docstring says and want at least 90% against ``random``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tris_envs.evaluation import play_match
from tris_envs.games import make_game

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def load_example(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module   # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(autouse=True)
def one_torch_thread():
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def plays_legal_games(agent, game: str = "tris1", games: int = 4) -> float:
    """The agent's score against random in ``games`` games (any illegal move raises)."""
    result = play_match(make_game(game), agent, "random", n_games=games, seed=0)
    assert result.n_games == games
    return result.score


# ----- CleanRL-style PPO on the vector env ----------------------------------------------------
@pytest.mark.parametrize("game", ["tris1", "tant_fant"])
def test_cleanrl_ppo_smoke(game):
    script = load_example("cleanrl_ppo")
    args = script.Args(game=game, total_timesteps=512, num_envs=8, num_steps=16,
                       update_epochs=1, snapshot_every=1, max_snapshots=2)
    agent, run = script.train(args)
    assert run["steps"] == 512 and run["steps_per_second"] > 0
    plays_legal_games(script.NetworkPlayer(agent), game)


@pytest.mark.slow
def test_cleanrl_ppo_learns_tris1():
    script = load_example("cleanrl_ppo")
    agent, _ = script.train(script.Args(game="tris1", total_timesteps=200_000))
    assert plays_legal_games(script.NetworkPlayer(agent), games=200) >= 0.9


# ----- Tianshou: PettingZooEnv, the multi-agent manager, masked DQN ---------------------------
def test_tianshou_dqn_smoke():
    pytest.importorskip("tianshou")
    script = load_example("tianshou_dqn")
    agent, run = script.train("tris1", epochs=1, epoch_steps=200, n_envs=2, quiet=True)
    assert run["seconds"] > 0 and run["epochs"] == 1 and run["learner_moves"] > 0
    plays_legal_games(agent)


def test_tianshou_dqn_budget_counts_the_learners_moves():
    pytest.importorskip("tianshou")
    script = load_example("tianshou_dqn")
    _, run = script.train("tris1", n_envs=2, quiet=True, budget=150)
    # 300 environment steps, one epoch, and the random player's moves left out: about half
    # of those and of the 128 collected before training
    assert run["epochs"] == 1 and run["epoch_steps"] == 300
    assert 150 <= run["learner_moves"] <= 300


@pytest.mark.slow
def test_tianshou_dqn_learns_tris1():
    pytest.importorskip("tianshou")
    script = load_example("tianshou_dqn")
    agent, _ = script.train("tris1", quiet=True)
    assert plays_legal_games(agent, games=200) >= 0.9


# ----- TorchRL: PettingZooWrapper(use_mask=True), MaskedCategorical, PPO ----------------------
def test_torchrl_ppo_smoke():
    pytest.importorskip("torchrl")
    script = load_example("torchrl_ppo")
    model, run = script.train("tris1", episodes=8, episodes_per_update=4, epochs=1, quiet=True)
    assert run["episodes"] == 8 and run["learner_moves"] >= 8
    plays_legal_games(script.PolicyAgent(model))


@pytest.mark.slow
def test_torchrl_ppo_learns_tris1():
    pytest.importorskip("torchrl")
    script = load_example("torchrl_ppo")
    model, _ = script.train("tris1", quiet=True)
    assert plays_legal_games(script.PolicyAgent(model), games=200) >= 0.9
