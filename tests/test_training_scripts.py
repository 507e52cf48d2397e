"""The example training scripts in ``training/`` (one dataclass of settings, the loop in
view) run to their end at a tiny size, and refuse a bad setting in one line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parents[1] / "training"

TINY_PPO = """game = "tris1"

[train]
timesteps = 128
n_envs = 2

[ppo]
n_steps = 64
batch_size = 64
n_epochs = 1

[eval]
games = 2
evaluations = 2
opponents = ["random"]
"""


def run_script(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPTS / name), *args], capture_output=True,
                          text=True, timeout=300, env={**os.environ, "OMP_NUM_THREADS": "1"})


def test_the_alphazero_script_trains_then_plays_its_network(tmp_path):
    pytest.importorskip("mctx")
    done = run_script("alphazero.py", "--game", "tris1", "--envs", "4", "--steps", "2",
                      "--simulations", "2", "--batch", "8", "--width", "4", "--blocks", "1",
                      "--iterations", "3", "--eval-games", "2", "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert [line.split(":")[0] for line in done.stdout.splitlines()[:3]] == [
        "iteration 1/3", "iteration 2/3", "iteration 3/3"]
    assert f"az:{tmp_path / 'final.npz'} vs random: " in done.stdout
    assert "in 2 games" in done.stdout and (tmp_path / "final.npz").is_file()


def test_the_ppo_script_trains_and_names_its_policies(tmp_path):
    pytest.importorskip("sb3_contrib")
    config = tmp_path / "tiny.toml"
    config.write_text(TINY_PPO)
    done = run_script("ppo_selfplay.py", "--game", "tris1", "--config", str(config),
                      "--out", str(tmp_path / "run"))
    assert done.returncode == 0, done.stderr
    assert f"trained 128 steps: final {tmp_path / 'run' / 'final.pt'}" in done.stdout
    assert (tmp_path / "run" / "best.pt").is_file()


@pytest.mark.parametrize("script, args, message", [
    ("ppo_selfplay.py", ["--game", "tris1", "--timesteps", "-5"],
     "ppo_selfplay.py: error: train.timesteps=-5: must be an integer >= 1\n"),
    ("alphazero.py", ["--game", "chess"], "alphazero.py: error: game='chess': must be one of"),
    ("alphazero.py", ["--envs", "x"], "alphazero.py: error: argument --envs: invalid int"),
])
def test_a_bad_setting_exits_2_in_one_line(script, args, message):
    done = run_script(script, *args)
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and not done.stdout
