"""Gymnasium's own pattern for third-party packages registers our ids, in a fresh
interpreter, whichever of the two packages is imported first; ``import tris_envs`` alone
stays free of Gymnasium."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tris_envs.games import GAMES
from tris_envs.registration import text_gymnasium_id


def _run(code: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


MAKE_AND_STEP = """
env = gym.make("tris_envs/TantFant-v0", opponent="greedy")
obs, info = env.reset(seed=0)
env.step(int(info["action_mask"].nonzero()[0][0]))
print(type(env.unwrapped).__name__, obs.shape)
vec = gym.make_vec("tris_envs/Tris1-v0", num_envs=3)
print(type(vec).__name__, vec.reset(seed=0)[0].shape)
sync = gym.make_vec("tris_envs/Tris1-v0", num_envs=2, vectorization_mode="sync")
print(type(sync).__name__, sync.reset(seed=0)[0].shape)
"""


@pytest.mark.parametrize("imports", [
    "import gymnasium as gym\nimport tris_envs\n",         # the order Gymnasium documents
    "import tris_envs\nimport gymnasium as gym\n",
], ids=["gymnasium-first", "tris_envs-first"])
def test_gymnasiums_pattern_makes_our_environments(imports):
    code = imports + "gym.register_envs(tris_envs)\n" + MAKE_AND_STEP
    assert _run(code) == ["SingleAgentEnv (3, 3, 4)",
                          "SingleAgentVectorEnv (3, 3, 3, 2)",
                          "SyncVectorEnv (2, 3, 3, 2)"]


def test_import_tris_envs_alone_imports_no_gymnasium():
    code = ("import sys, tris_envs\n"
            "print(sorted(m for m in ('gymnasium', 'pettingzoo', 'torch') if m in sys.modules))\n"
            "import pettingzoo, gymnasium\n"     # Gymnasium loaded through PettingZoo
            "print('tris_envs/TantFant-v0' in gymnasium.registry)\n"
            "import tris_envs.envs\n"
            "print(sorted(i for i in gymnasium.registry if i.startswith('tris_envs/')))")
    assert _run(code) == ["[]", "True", str(sorted(
        ids for spec in GAMES.values() for ids in (spec.gymnasium_id, text_gymnasium_id(spec))))]
