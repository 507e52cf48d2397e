"""``import tris_envs`` registers every game with PettingZoo's registry and with Gymnasium's,
in a fresh interpreter, whichever package is imported first; ``import tris_envs`` alone stays
free of both; a PettingZoo without a registry keeps the modules working."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pettingzoo
import pytest
from pettingzoo.test import api_test

import tris_envs
from tris_envs.games import GAMES
from tris_envs.registration import text_gymnasium_id

ROOT = Path(__file__).resolve().parents[1]


def _run(code: str, **env: str) -> list[str]:
    done = subprocess.run([sys.executable, "-W", "error", "-c", code], capture_output=True,
                          text=True, timeout=120, env={**os.environ, **env})
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


MAKE_EVERY_GAME = """
from tris_envs.games import GAMES
from tris_envs.registration import text_gymnasium_id
for spec in GAMES.values():
    aec = pettingzoo.make("aec", spec.pettingzoo_id, render_mode="ansi")
    aec.reset(seed=0)
    single = gymnasium.make(spec.gymnasium_id, opponent="greedy")
    text = gymnasium.make(text_gymnasium_id(spec))
    print(spec.name, aec.metadata["name"], aec.unwrapped.game.info.name,
          type(single.unwrapped).__name__, single.unwrapped.game.info.name,
          type(text.unwrapped).__name__)
"""


@pytest.mark.parametrize("order", [
    ("pettingzoo", "gymnasium", "tris_envs"),
    ("tris_envs", "pettingzoo", "gymnasium"),
    ("tris_envs", "gymnasium", "pettingzoo"),
    ("gymnasium", "tris_envs", "pettingzoo"),
], ids="-".join)
def test_a_bare_import_registers_every_game_with_both_registries(order):
    imports = "".join(f"import {module}\n" for module in order)
    assert _run(imports + MAKE_EVERY_GAME) == [
        f"{name} {name}_v0 {name} SingleAgentEnv {name} TextEnv" for name in GAMES]


def test_an_environment_made_through_pettingzoos_registry_passes_its_api_test():
    assert tris_envs.GAMES["tris1"].pettingzoo_id in pettingzoo.aec_registry
    api_test(pettingzoo.make("aec", "tris_envs/tris1-v0"), num_cycles=100)


def test_a_pettingzoo_without_a_registry_keeps_the_modules_working(tmp_path):
    # the installed PettingZoo's modules behind a package that has no register or make
    real = Path(pettingzoo.__file__).parent
    (tmp_path / "pettingzoo").mkdir()
    (tmp_path / "pettingzoo" / "__init__.py").write_text(
        f"__path__ = [{str(real)!r}]\nfrom pettingzoo.utils import AECEnv, ParallelEnv\n")
    code = ("import tris_envs, pettingzoo, gymnasium\n"
            "print(hasattr(pettingzoo, 'register'),\n"
            "      'tris_envs/TantFant-v0' in gymnasium.registry)\n"
            "from tris_envs import tant_fant_v0\n"
            "env = tant_fant_v0.env()\nenv.reset(seed=0)\nprint(env.agent_selection)")
    assert _run(code, PYTHONPATH=str(tmp_path)) == ["False True", "player_0"]


@pytest.mark.parametrize("page", ["README.md", "docs/environments.md"])
def test_the_first_python_example_makes_environments_through_the_registries(page):
    first = re.search(r"```python\n(.*?)```", (ROOT / page).read_text(encoding="utf-8"),
                      re.DOTALL)
    assert first, f"{page} has no Python example"
    code = first.group(1)
    assert 'pettingzoo.make("aec", "tris_envs/' in code and "gymnasium.make(" in code
    _run(code)
