"""Scripted agents, tris-envs watch, the benchmark and the command line (smoke, behaviour)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tris_envs.agents import Agent, GreedyAgent, RandomAgent, make_agent
from tris_envs.bench import engines as benchmark
from tris_envs.bench.fair import schedule, turns
from tris_envs.cli import main
from tris_envs.core import TERMINAL
from tris_envs.evaluation import play_match, play_recorded
from tris_envs.games.tant_fant import TantFant
from tris_envs.games.tris1 import Tris1
from tris_envs.machine import describe
from tris_envs.watch import watch


def test_greedy_wins_in_one():
    game = TantFant()
    state = game.from_notation("BB./BWW/W.. w")
    for seed in range(10):
        move = GreedyAgent(np.random.default_rng(seed)).act(game, state)
        assert game.action_to_string(state, move) == "c2-c3"


def test_greedy_blocks_the_only_threat():
    game = Tris1()
    state = game.from_notation("XX./O../...")      # O to move must block at cell 2
    for seed in range(10):
        assert GreedyAgent(np.random.default_rng(seed)).act(game, state) == 2


def test_greedy_beats_random_and_play_is_reproducible():
    game = TantFant()
    result = play_match(game, "greedy", "random", n_games=60, seed=0)
    assert result.score > 0.8
    assert result.by_seat[0][2] + result.by_seat[1][2] < 10
    a, b = (play_recorded(game, [RandomAgent(np.random.default_rng(5))] * 2,
                          np.random.default_rng(5)) for _ in range(2))
    assert a.moves == b.moves and a.positions == b.positions


def test_make_agent():
    assert isinstance(make_agent("greedy"), Agent)
    assert make_agent("random").name == "random"
    with pytest.raises(ValueError, match="alphazero"):
        make_agent("alphazero")


def test_watch_prints_a_game_and_a_match(capsys):
    watch(games=6, seed=1)
    out = capsys.readouterr().out
    assert "Tant Fant: greedy (White) against random (Black)" in out
    assert " 1. White " in out
    assert "greedy vs random: +" in out and "in 6 games" in out


def test_benchmark_report(capsys):
    main(["bench", "--steps", "300", "--rounds", "1", "--env", "tris1_v0",
          "--mcts-simulations", "200"])
    out = capsys.readouterr().out
    assert out.startswith(f"Machine: {describe()}\n")
    assert "| tictactoe_v3 |" in out and "| tris1_v0 |" in out
    assert "| tant_fant stalemate=draw diagonal_only=False | 3,080 | draw |" in out
    assert "| tris1 | 5,478 | draw |" in out
    assert "| crossing | 20 |" in out
    assert "| tris1_v0 (tris_envs MCTSAgent) |" in out
    assert "| tic_tac_toe (OpenSpiel MCTSBot) |" in out
    assert re.fullmatch(re.escape(f"*{describe()}; ") + r"\d{4}-\d\d-\d\d; [\dhms ]+ wall"
                        r"(?: \(load [\d.]+\))?; seed 0\.\*", out.splitlines()[-1])


def test_fair_schedule_swaps_every_pair_each_round_and_never_reuses_a_seed():
    runs = schedule(["a", "b", "c"], 4)
    assert [name for _, name, _ in runs] == list("abccbaabccba")
    assert sorted(slot for _, _, slot in runs) == list(range(12))
    for round_ in range(4):
        order = [name for r, name, _ in runs if r == round_]
        assert (order.index("a") < order.index("c")) == (round_ % 2 == 0)
    assert turns(("generic", "fast"), 3) == [("fast", 7), ("generic", 6)]


def test_benchmark_times_ours_and_theirs_in_alternating_order_from_seeds_of_their_own():
    timed: list[tuple[str, int]] = []

    def timer(name: str, rate: float | None):
        return lambda seed: timed.append((name, seed)) or rate

    best = benchmark.best_rates({"tictactoe_v3": timer("tictactoe_v3", 1.0),
                                 "tris2_v0": timer("tris2_v0", 2.0),
                                 "missing library": timer("missing library", None)}, rounds=2)
    assert best == {"tictactoe_v3": 1.0, "tris2_v0": 2.0}
    assert [name for name, _ in timed] == ["tictactoe_v3", "tris2_v0", "missing library",
                                           "missing library", "tris2_v0", "tictactoe_v3"]
    assert len({seed for _, seed in timed}) == len(timed)


def test_cli_rejects_bad_arguments():
    with pytest.raises(SystemExit):
        main(["bench", "--steps", "0"])
    with pytest.raises(SystemExit):
        main(["bench", "--env", "chess_v6"])


def test_random_agent_plays_legal_moves():
    game = TantFant()
    agent = RandomAgent(np.random.default_rng(0))
    state = game.initial_state()
    for _ in range(200):
        if game.current_player(state) == TERMINAL:
            break
        move = agent.act(game, state)
        assert move in game.legal_actions(state)
        state = game.apply(state, move)


# ----- tools/import_graph.py -------------------------------------------------------------------
def _import_graph():
    import importlib.util
    import sys
    from pathlib import Path

    if "import_graph" not in sys.modules:      # its dataclass looks its module up there
        path = Path(__file__).resolve().parents[1] / "tools" / "import_graph.py"
        spec = importlib.util.spec_from_file_location("import_graph", path)
        sys.modules["import_graph"] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules["import_graph"])
    return sys.modules["import_graph"]


def _package(root, files):
    for name, text in files.items():
        path = root / "tris_envs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root / "tris_envs"


def test_import_graph_finds_circles_and_upward_imports(tmp_path, capsys):
    graph = _import_graph()
    package = _package(tmp_path, {
        "__init__.py": "",
        "core/__init__.py": "from tris_envs.core.game import Game\n",
        "core/game.py": "class Game: ...\n",
        "games/__init__.py": "from .rules import Rules\n",
        "games/rules.py": "from tris_envs.core import Game\nfrom . import notation\n",
        "games/notation.py": "def f():\n    from tris_envs.games.rules import Rules\n",
        "agents/__init__.py": ("from typing import TYPE_CHECKING\n"
                               "if TYPE_CHECKING:\n    from tris_envs.cli import main\n"
                               "def make():\n    from tris_envs.alphazero import net\n"),
        "alphazero/__init__.py": "", "alphazero/net.py": "import tris_envs.games.rules\n",
        "cli.py": "from tris_envs import agents\n",
    })
    edges = graph.edges(package, "tris_envs")
    found = {(e.source, e.target, e.lazy) for e in edges}
    assert ("tris_envs.games", "tris_envs.games.rules", False) in found      # relative
    assert ("tris_envs.games.rules", "tris_envs.games.notation", False) in found
    assert ("tris_envs.games.notation", "tris_envs.games.rules", True) in found  # lazy
    assert ("tris_envs.cli", "tris_envs.agents", False) in found
    assert not any(e.target == "tris_envs.cli" for e in edges)          # TYPE_CHECKING
    assert graph.circles(edges) == [["tris_envs.games.notation", "tris_envs.games.rules"]]
    assert [(e.source, e.target) for e in graph.upward(edges)] == [
        ("tris_envs.agents", "tris_envs.alphazero.net")]
    assert graph.main([str(package)]) == 1
    out = capsys.readouterr().out
    assert "circle: tris_envs.games.notation <-> tris_envs.games.rules" in out
    assert ("upward: tris_envs.agents (layer 2) imports tris_envs.alphazero.net (layer 5) "
            "at line 5 (lazy)") in out
    assert graph.main([str(package), "--top-level"]) == 0               # both were lazy
    assert "0 circles; 0 upward imports" in capsys.readouterr().out
    assert graph.main([str(package), "--dot"]) == 1
    assert '"tris_envs.games.notation" -> "tris_envs.games.rules" [style=dashed];' in \
        capsys.readouterr().out


def test_import_graph_finds_private_imports_of_dependencies(tmp_path, capsys):
    graph = _import_graph()
    package = _package(tmp_path, {
        "__init__.py": "from ._version import v\nfrom tris_envs.core import _helper\n",
        "core/__init__.py": "def _helper(): ...\n",
        "_version.py": "v = 1\n",
        "learner.py": ("import mctx\nimport mctx._src.search as s\n"
                       "def f():\n    from pgx._src.games import tic_tac_toe\n"),
        "typed.py": "from __future__ import annotations\nfrom numpy import _core\n",
    })
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text("from jax._src import core\n")
    found = {(path.name, line, name) for path, line, name in graph.private_imports(tmp_path)}
    assert found == {("learner.py", 2, "mctx._src.search"),
                     ("learner.py", 4, "pgx._src.games.tic_tac_toe"),
                     ("typed.py", 2, "numpy._core"), ("test_x.py", 1, "jax._src.core")}
    assert graph.main([str(package), "--check"]) == 1
    out = capsys.readouterr().out
    assert "private: tris_envs/learner.py:2 imports mctx._src.search" in out
    assert "4 private imports" in out and "->" not in out         # --check: no edge list


def test_the_checkout_has_no_circle_upward_or_private_import(capsys):
    graph = _import_graph()
    assert graph.main(["--check"]) == 0, capsys.readouterr().out


def test_import_graph_flags_lazy_imports_that_defer_no_optional_extra(tmp_path, capsys):
    graph = _import_graph()
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "tris_envs"\n[project.optional-dependencies]\n'
        'train = ["torch>=2.6", "stable-baselines3>=2.3", "tomli; python_version < \'3.11\'"]\n'
        'openspiel = ["open_spiel>=1.5"]\nrllib = ["ray[rllib]>=2.50"]\n'
        'all = ["tris_envs[train]"]\n')
    assert graph.optional_extras(tmp_path / "pyproject.toml") == {
        "torch", "stable_baselines3", "tomli", "open_spiel", "pyspiel", "ray"}
    package = _package(tmp_path, {
        "__init__.py": "",
        "core.py": "import json\n",
        "ppo.py": "import torch\ndef f():\n    import stable_baselines3\n    import torch.nn\n",
        "spiel.py": "def f():\n    import pyspiel\n    from json import dumps\n",
        "sub/__init__.py": "import torch\n", "sub/mod.py": "x = 1\n",
        "cli.py": ("def main():\n    from tris_envs import ppo\n"
                   "    from tris_envs.core import a, b\n    from . import spiel\n"
                   "    import gymnasium\n    import ray.tune\n"
                   "    from tris_envs.sub.mod import x\n"),
    })
    found = {(f.path.name, f.line): f.defers for f in graph.lazy_imports(package, "tris_envs")}
    assert found == {
        ("ppo.py", 3): ("stable_baselines3",),
        ("ppo.py", 4): (),                       # torch is imported at the module's top
        ("spiel.py", 2): ("pyspiel",),           # open_spiel's second module
        ("spiel.py", 3): (),                     # the standard library
        ("cli.py", 2): ("torch",),               # a module of ours that imports an extra
        ("cli.py", 3): (),
        ("cli.py", 4): (),                       # ... or does not
        ("cli.py", 5): ("gymnasium",),           # DEFERRED
        ("cli.py", 6): ("ray",),                 # ray[rllib]
        ("cli.py", 7): ("torch",),               # through the parent package
    }
    assert graph.main([str(package), "--lazy"]) == 1
    out = capsys.readouterr().out
    assert ("lazy: tris_envs/cli.py:3 imports tris_envs.core, which defers no optional "
            "extra: import it at the module's top") in out            # named once
    assert "lazy: tris_envs/cli.py:4 imports tris_envs.spiel," in out        # relative
    assert "lazy: tris_envs/spiel.py:3 imports json," in out
    assert "10 lazy imports; 6 defer an optional extra; 4 flagged" in out
    for name in ("ppo.py", "spiel.py", "cli.py"):
        (package / name).unlink()
    assert graph.main([str(package), "--lazy"]) == 0
    assert "0 lazy imports; 0 defer an optional extra; 0 flagged" in capsys.readouterr().out


def test_every_deferred_module_is_deferred_by_a_lazy_import_of_the_checkout():
    graph = _import_graph()
    deferred = {d for f in graph.lazy_imports(graph.ROOT / "tris_envs") for d in f.defers}
    assert set(graph.DEFERRED) <= deferred, "a reason for a module no lazy import defers"


def test_the_checkout_imports_lazily_only_at_the_optional_extras(capsys):
    graph = _import_graph()
    assert graph.main(["--lazy"]) == 0, capsys.readouterr().out


def test_the_layers_picture_draws_every_layer_lowest_at_the_bottom(capsys):
    from xml.etree import ElementTree

    graph = _import_graph()
    assert graph.main(["--svg"]) == 0
    svg = ElementTree.fromstring(capsys.readouterr().out)
    texts = [t.text for t in svg.iter("{http://www.w3.org/2000/svg}text")]
    rows = [(names, role) for names, role in graph.LAYERS] + [(("apps",), graph.TOP)]
    assert len(texts) == 2 * len(rows)
    for index, (names, role) in enumerate(rows):
        assert texts[2 * index] == f"{index}  {', '.join(names)}" and texts[2 * index + 1] == role
    heights = [float(r.get("y")) for r in svg.iter("{http://www.w3.org/2000/svg}rect")]
    assert heights == sorted(heights, reverse=True)        # layer 0 lowest on the page


def test_import_graph_reads_the_package():
    graph = _import_graph()
    edges = graph.edges(graph.ROOT / "tris_envs")
    assert {(e.source, e.target) for e in edges} >= {
        ("tris_envs.evaluation.match", "tris_envs.evaluation.backends"),
        ("tris_envs.evaluation.backends", "tris_envs.evaluation.engine")}
    assert not any(e.source.startswith("tris_envs.evaluation.engine")
                   and e.target.startswith("tris_envs.evaluation.match") for e in edges)
