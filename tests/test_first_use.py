"""What a new user of the installed package meets first: a missing extra named (bench,
train ppo, evaluate), a missing network refused before any "loading" line, Gymnasium's ids
as the quick start gives them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tris_envs import cli
from tris_envs.agents.shipped import SHIPPED_DIR
from tris_envs.bench import engines as benchmark
from tris_envs.games import make_game
from tris_envs.play import play_session


def test_bench_without_pygame_names_the_render_extra(monkeypatch):
    for name in [n for n in sys.modules if n.startswith("pettingzoo.classic")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "pygame", None)
    with pytest.raises(ImportError, match=r"pip install 'tris_envs\[render\]'"):
        benchmark.baseline_env()


def test_train_ppo_and_evaluate_without_the_train_extra_name_it(monkeypatch, capsys, tmp_path):
    for name in ("torch", "sb3_contrib", "stable_baselines3"):
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.delitem(sys.modules, "tris_envs.ppo.train", raising=False)
    assert cli.main(["train", "ppo", "--game", "tris1", "--out", str(tmp_path / "run")]) == 2
    assert capsys.readouterr().err == ("tris-envs train ppo: error: training needs the train "
                                       "extra: pip install 'tris_envs[train]'\n")
    assert not (tmp_path / "run").exists()
    assert cli.main(["evaluate", str(tmp_path / "final.zip"), "--game", "tris1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tris-envs evaluate: error: PPO checkpoints need the train extra")
    assert err.endswith("pip install 'tris_envs[train]'\n")


def test_a_missing_network_is_refused_before_the_loading_line(monkeypatch, tmp_path):
    monkeypatch.setattr("tris_envs.agents.az.SHIPPED_DIR", tmp_path)     # none shipped
    shown: list[str] = []
    with pytest.raises(FileNotFoundError, match="no AlphaZero network is shipped for 'tritoc'"):
        play_session(make_game("tritoc"), "az", 0, read=lambda prompt: "quit",
                     write=shown.append)
    assert shown == []


def test_the_quick_start_makes_gymnasium_environments():
    # a fresh interpreter: the id names the module that registers it
    code = ("import gymnasium, sys\n"
            "env = gymnasium.make('tris_envs.envs:tris_envs/TantFant-v0', opponent='greedy')\n"
            "obs, info = env.reset(seed=0)\n"
            "print(env.unwrapped.game.info.name, info['action_mask'].any())")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["tant_fant", "True"]


def test_evaluate_scores_an_az_network_without_the_train_extra(monkeypatch, capsys):
    for name in ("torch", "sb3_contrib", "stable_baselines3"):
        monkeypatch.setitem(sys.modules, name, None)
    network = str(SHIPPED_DIR / "az_tris1.npz")
    assert cli.main(["evaluate", network, "--game", "tris1", "--games", "4",
                     "--opponents", "random,solver"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{network} on Tris1(")
    assert "| solver | 4 | 0 | 4 | 0 | 50.0% |" in out
    assert "optimal moves over all games: " in out
    assert cli.main(["evaluate", network, "--game", "tant_fant", "--games", "2"]) == 2
    assert capsys.readouterr().err == (f"tris-envs evaluate: error: network {network!r}: a "
                                       "network for 'tris1' cannot play 'tant_fant'\n")


def test_the_demo_config_is_a_valid_tant_fant_run():
    from tris_envs.alphazero.train import config_file, load_config

    makefile = Path("Makefile").read_text()
    assert "tris-envs train az --config demo" in makefile
    config = load_config(config_file("demo"), {})
    assert (config.game, config.options) == ("tant_fant", {})
    # a few cheap evaluations: the learning curve's score panel
    assert (config.eval_games, config.opponents, config.eval_simulations) == (
        40, ["greedy", "solver"], 0)
    assert config.iterations // config.checkpoint_every >= 4
