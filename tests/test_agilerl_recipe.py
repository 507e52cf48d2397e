"""The AgileRL recipe (examples/agilerl_dqn.py) runs in a virtual environment of its own.

AgileRL pins ``tensordict==0.13.0`` and ``pettingzoo<1.27``, so it is not installed beside
the other extras: ``make agilerl`` builds ``.venv-agilerl`` from
``examples/requirements-agilerl.txt`` and runs the recipe. The default run checks the
requirements file and, where ``.venv-agilerl`` exists, trains the recipe for a few dozen
games through it; the slow test runs ``make agilerl`` itself (building the environment if
it is missing) and wants at least 85% against ``random`` on Tris 1 (an untrained network
scores about 60%; seed 0 scores 94.0%, seeds 1 and 2 90.2% and 88.5%).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
REQUIREMENTS = ROOT / "examples" / "requirements-agilerl.txt"
VENV_PYTHON = ROOT / ".venv-agilerl" / "bin" / "python"
SCORE = re.compile(r"^agilerl_dqn vs (\w+): .* in (\d+) games .*; score (\d+\.\d)%", re.MULTILINE)


def pins() -> dict[str, str]:
    """The requirements file's ``name==version`` lines."""
    lines = [line.split("#")[0].strip() for line in REQUIREMENTS.read_text().splitlines()]
    pairs = [line.split("==") for line in lines if line]
    assert all(len(pair) == 2 for pair in pairs), f"not every requirement is pinned: {pairs}"
    return {name.lower(): version for name, version in pairs}


def scores(output: str) -> dict[str, tuple[int, float]]:
    """Each opponent's games and score (a rate) from the recipe's output."""
    return {name: (int(games), float(score) / 100) for name, games, score in SCORE.findall(output)}


def test_the_agilerl_environment_pins_agilerl_and_the_test_environment_torch():
    pinned = pins()
    assert "agilerl" in pinned
    # the same PyTorch as make test's .venv (the Makefile installs it from the CPU index)
    makefile_torch = re.search(r"torch==(\S+)", (ROOT / "Makefile").read_text())
    assert makefile_torch is not None
    assert pinned["torch"] == makefile_torch.group(1)
    # AgileRL's bound on pettingzoo meets ours (>=1.25)
    major, minor = map(int, pinned["pettingzoo"].split(".")[:2])
    assert (1, 25) <= (major, minor) < (1, 27)


def test_agilerl_dqn_plays_our_harness_in_its_environment():
    if not VENV_PYTHON.exists():
        pytest.skip("no .venv-agilerl (make agilerl builds it)")
    completed = subprocess.run(
        [str(VENV_PYTHON), str(ROOT / "examples" / "agilerl_dqn.py"), "--episodes", "48",
         "--games", "4", "--quiet"],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
        env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert completed.returncode == 0, completed.stderr
    assert re.search(r"^trained \d+ self-play games \([\d,]+ transitions, [\d,]+ updates\)",
                     completed.stdout, re.MULTILINE), completed.stdout
    assert {name: games for name, (games, _) in scores(completed.stdout).items()} == {
        "random": 4, "greedy": 4}


@pytest.mark.slow
def test_make_agilerl_learns_tris1():
    if shutil.which("make") is None:
        pytest.skip("needs make")
    completed = subprocess.run(["make", "agilerl", "SEED=0"], capture_output=True, text=True,
                               timeout=3600, cwd=ROOT,
                               env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert completed.returncode == 0, completed.stderr[-4000:]
    result = scores(completed.stdout)
    assert result["random"][0] == 200 and result["greedy"][0] == 200
    assert result["random"][1] >= 0.85, completed.stdout
