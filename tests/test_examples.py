"""Every script in ``examples/`` runs to its end (with small budgets) and prints its results."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def run_example(name: str, *args: str) -> str:
    completed = subprocess.run([sys.executable, str(EXAMPLES / name), *args],
                               capture_output=True, text=True, timeout=300,
                               env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert completed.returncode == 0, completed.stderr
    return completed.stdout


def test_random_play_is_ten_lines():
    code = [line for line in (EXAMPLES / "random_play.py").read_text().splitlines()
            if line.strip() and not line.startswith('"""')]  # the one-line docstring aside
    assert len(code) <= 10
    out = run_example("random_play.py")
    assert "returns: {'player_0': " in out


def test_custom_opponent():
    out = run_example("custom_opponent.py")
    assert "centre-first vs random: " in out and "centre-first vs solver: +0 " in out
    assert "random learner vs centre-first: mean return" in out


def test_text_env():
    out = run_example("text_env.py", "--episodes", "2")
    assert out.count("Text-v0: mean return ") == 5 and "value kept in " in out
    assert "refused (reward +0, 0 tries left): " in out and "Legal moves: " in out


def test_trained_vs_mcts():
    pytest.importorskip("sb3_contrib")
    out = run_example("trained_vs_mcts.py", "--game", "tris1", "--mcts", "20", "--games", "4")
    assert out.startswith("ppo vs mcts:20: ") and "in 4 games" in out


def test_self_play():
    pytest.importorskip("sb3_contrib")
    out = run_example("self_play.py", "--timesteps", "1024", "--rounds", "2")
    assert out.count("ppo:model vs random: ") == 2 and "after 1,024 steps" in out


def test_jax_ppo():
    pytest.importorskip("jax")
    pytest.importorskip("optax")
    out = run_example("jax_ppo.py", "--updates", "2", "--envs", "16", "--steps", "8",
                      "--games", "4")
    assert "trained 256 plies in " in out and "| solver | 4 |" in out
    assert "target met: " in out or "target missed: " in out


def test_jax_ppo_plays_alone_then_inside_the_az_search():
    pytest.importorskip("optax")
    out = run_example("jax_ppo.py", "--game", "tant_fant", "--updates", "1", "--envs", "8",
                      "--steps", "4", "--games", "2", "--search", "4")
    assert out.count("| solver | 2 |") == 2 and "target " in out
    assert "\nppo:final (" in out and "final.npz:4 (" in out


def test_jax_az():
    pytest.importorskip("optax")
    pytest.importorskip("mctx")
    out = run_example("jax_az.py", "--game", "tris1", "--iterations", "2", "--envs", "8",
                      "--steps", "4", "--batch", "16", "--simulations", "4", "--games", "2",
                      "--search", "4")
    assert out.count("| solver | 2 |") == 2 and "target " in out
    assert "final.npz:0 (" in out and "final.npz:4 (" in out        # alone, then searching
