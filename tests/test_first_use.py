"""What a new user of the installed package meets first: a missing extra named in one line
before the command writes anything (every optional feature), a missing network refused before
any "loading" line, Gymnasium's ids as the quick start gives them."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tris_envs import cli
from tris_envs.agents.shipped import SHIPPED_DIR
from tris_envs.bench import engines as benchmark
from tris_envs.extras import EXTRA_MODULES
from tris_envs.games import make_game
from tris_envs.play import play_session


def test_bench_without_pygame_names_the_render_extra(monkeypatch):
    for name in [n for n in sys.modules if n.startswith("pettingzoo.classic")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "pygame", None)
    with pytest.raises(ImportError, match=r"pip install 'tris_envs\[render\]'"):
        benchmark.baseline_env()


FEATURES = [
    ("jax", ["train", "az", "--recipe", "az_tris1", "--out", "run"]),
    ("jax", ["train", "az", "--game", "tris1", "--out", "run"]),
    ("jax", ["train", "jax-ppo", "--game", "tris1", "--out", "run"]),
    ("jax", ["train", "wary", "--init", "net.npz", "--out", "run"]),
    ("jax", ["bench", "--jax"]),
    ("jax", ["bench", "--learner"]),
    ("train", ["train", "ppo", "--game", "tris1", "--out", "run"]),
    ("train", ["evaluate", "final.pt", "--game", "tris1"]),
    ("train", ["eval", "tris1", "ppo:final.zip", "random", "--records", "games.jsonl"]),
    ("openspiel", ["eval", "tris1", "openspiel-mcts:10", "random", "--records", "games.jsonl"]),
    ("distributed", ["tournament", "tris1", "random", "greedy", "--ray", "--records",
                     "games.jsonl"]),
]
"""Each optional feature's command line and the extra it needs."""


@pytest.mark.parametrize(("extra", "argv"), FEATURES, ids=[" ".join(a) for _, a in FEATURES])
def test_a_feature_without_its_extra_names_it_and_writes_nothing(monkeypatch, capsys, tmp_path,
                                                                 extra, argv):
    for module in EXTRA_MODULES[extra]:
        monkeypatch.setitem(sys.modules, module, None)        # as if not installed
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stop:
        cli.main(argv)
    assert stop.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and f"needs the {extra} extra" in err, err
    assert err.endswith(f'pip install "tris_envs[{extra}]"\n')
    assert list(tmp_path.iterdir()) == []


def test_a_fresh_interpreter_without_jax_trains_nothing(tmp_path):
    # the interpreter finds no jax (as without the extra): train az names it, no run folder
    code = ("import sys\nsys.modules['jax'] = None\nfrom tris_envs.cli import main\n"
            "sys.exit(main())")
    done = subprocess.run([sys.executable, "-c", code, "train", "az", "--recipe", "az_tris1",
                           "--out", "run"], capture_output=True, text=True, cwd=tmp_path,
                          timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == ("tris-envs train az: error: this command needs the jax extra (jax is "
                           'not installed): pip install "tris_envs[jax]"\n')
    assert list(tmp_path.iterdir()) == []


def test_a_missing_network_is_refused_before_the_loading_line(monkeypatch, tmp_path):
    for module in ("tris_envs.agents.az", "tris_envs.agents.shipped"):   # none shipped
        monkeypatch.setattr(f"{module}.SHIPPED_DIR", tmp_path)
    shown: list[str] = []
    with pytest.raises(FileNotFoundError, match="no AlphaZero network is shipped for 'tritoc'"):
        play_session(make_game("tritoc"), "az", 0, read=lambda prompt: "quit",
                     write=shown.append)
    assert shown == []


def test_the_quick_start_makes_gymnasium_environments():
    # PYPI.md's Gymnasium block, in a fresh interpreter: import tris_envs registers the ids
    text = (Path(__file__).resolve().parents[1] / "PYPI.md").read_text()
    block = next(code for code in re.findall(r"```python\n(.*?)```", text, re.DOTALL)
                 if "gymnasium.make(" in code)
    code = block + "print(env.unwrapped.game.info.name, info['action_mask'].any())\n"
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
