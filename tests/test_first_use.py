"""What a new user of the installed package meets first: a missing extra named, a missing
network refused before any "loading" line, Gymnasium's ids as the quick start gives them."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tris_envs import benchmark
from tris_envs.games import make_game
from tris_envs.play import play_session


def test_bench_without_pygame_names_the_render_extra(monkeypatch):
    for name in [n for n in sys.modules if n.startswith("pettingzoo.classic")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "pygame", None)
    with pytest.raises(ImportError, match=r"pip install 'tris_envs\[render\]'"):
        benchmark.baseline_env()


def test_a_missing_network_is_refused_before_the_loading_line():
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
