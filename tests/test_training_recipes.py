"""Recipes: every shipped network's whole path from nothing, one TOML file each. The files
parse and chain; bad ones are refused in one line; tiny versions of the recipes run stage
after stage; a run cut between stages resumes to the same bytes; ``--check`` plays the
acceptance matches; every shipped network's header names its recipe."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

pytest.importorskip("mctx")

from tris_envs.agents.az_network import load
from tris_envs.agents.shipped import SHIPPED_DIR, variant_name
from tris_envs.alphazero import recipes
from tris_envs.alphazero.recipes import RECIPE_DIR, Recipe, read_recipe, recipe_names
from tris_envs.alphazero.train import load_config, train
from tris_envs.cli import main as cli_main

from checks import odd_file_names

TINY = {"iterations": 2, "stop": 0, "envs": 4, "steps": 2, "simulations": 2, "considered": 2,
        "batch": 8, "width": 4, "checkpoint_every": 1, "eval_games": 0}
TINY_WARY = {"games": 2, "epochs": 1, "batch": 8, "processes": 1}


def tiny(recipe: Recipe) -> Recipe:
    """``recipe`` at tiny sizes: two iterations of each learner stage, two games of a wary
    one."""
    stages = tuple(
        dataclasses.replace(stage, config=dataclasses.replace(stage.config, **TINY))
        if stage.config is not None else
        dataclasses.replace(stage, settings=dataclasses.replace(stage.settings, **TINY_WARY))
        for stage in recipe.stages)
    return dataclasses.replace(recipe, stages=stages)


def write(directory: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (directory / f"{name}.toml").write_text(text)
    return directory


def arrays(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as data:
        return {name: data[name] for name in data.files}


# ----- the shipped recipes ----------------------------------------------------------------

@pytest.mark.parametrize("name", recipe_names())
def test_every_recipe_parses_and_is_named_as_its_network(name):
    recipe = read_recipe(name)
    game = recipe.game()
    assert variant_name(game, recipe.family) == name
    assert recipe.checks, "every recipe has acceptance matches"
    assert {check.agent.family for check in recipe.checks} == {recipe.family}


def test_there_is_one_recipe_per_shipped_network_and_no_stage_config():
    assert recipe_names() == sorted(p.stem for family in ("az", "ppo")
                                    for p in SHIPPED_DIR.glob(f"{family}_*.npz"))
    configs = RECIPE_DIR.parent / "configs"
    assert sorted(p.name for p in configs.glob("*.toml")) == ["demo.toml"]


@pytest.mark.parametrize("path", sorted(SHIPPED_DIR.glob("*_*.npz")), ids=lambda p: p.stem)
def test_every_shipped_network_names_its_recipe_and_fits_its_last_stage(path):
    recipe = read_recipe(path.stem)
    game = recipe.game()
    network = load(path, game)
    assert network.recipe == path.stem and network.version
    learner = [stage.config for stage in recipe.stages if stage.config is not None][-1]
    header = network.config
    assert (header.game, header.options, header.width, header.blocks, header.tactics,
            header.trap_planes, network.search) == (
        learner.game, learner.options, learner.width, learner.blocks, learner.tactics,
        learner.trap_planes, learner.play)
    assert header.wary_planes == (recipe.stages[-1].kind == "wary")


def test_a_stage_lays_its_keys_over_the_stage_before():
    """Tritoc's five stages: each changes what it names and keeps the rest; ``stop`` is a
    stage's own (Tris 2's first stage ends after iteration 140 of 200, the second runs all
    of its 60)."""
    stages = [stage.config for stage in read_recipe("az_tritoc").stages]
    assert [(c.iterations, c.simulations, c.considered, c.learning_rate) for c in stages] == [
        (250, 16, 8, 1e-3), (120, 32, 8, 3e-4), (60, 32, 8, 1e-4), (60, 64, 16, 1e-4),
        (30, 128, 16, 1e-4)]
    assert dataclasses.replace(stages[1], simulations=16, iterations=250, learning_rate=1e-3,
                               final_learning_rate=1e-4, checkpoint_every=10) == stages[0]
    assert {c.play.simulations for c in stages} == {1000}      # the recipe's [play]
    first, second = (stage.config for stage in read_recipe("az_tris2").stages)
    assert (first.stop, first.iterations, second.stop, second.iterations) == (140, 200, 0, 60)
    assert second.tactics and not first.tactics


def test_a_variant_is_its_base_recipe_with_other_options():
    base, variant = read_recipe("az_tant_fant"), read_recipe("az_tant_fant__stalemate=loss")
    assert variant.stages[0].config == dataclasses.replace(base.stages[0].config,
                                                           options={"stalemate": "loss"})
    assert variant.checks == base.checks


# ----- refused in one line ----------------------------------------------------------------

STAGE = '[[stages]]\nname = "base"\n'
GOOD = 'game = "tris1"\n' + STAGE


@pytest.mark.parametrize("files, message", [
    ({"a": 'game = "tris1"\n'}, "no stages: a recipe holds at least one [[stages]] table"),
    ({"a": 'base = "b"\n'}, "base: no recipe 'b'"),
    ({"a": 'base = "b"\n', "b": 'base = "a"\n'}, "base='a' leads back to itself (a -> b -> a)"),
    ({"a": 'colour = 1\n' + GOOD}, "unknown key 'colour'; a recipe's top holds base, after"),
    ({"a": GOOD + 'after = "gone"\n'}, "stage 1 (base): unknown config key 'after'"),
    ({"a": 'after = "gone"\n' + GOOD}, "after: no recipe 'gone'"),
    ({"a": 'after = "b"\n' + GOOD, "b": 'after = "a"\n' + GOOD},
     "after='a' leads back to itself (a -> b -> a)"),
    ({"a": 'game = "tris2"\nafter = "b"\n[[stages]]\nname = "w"\nkind = "wary"\nrounds = 3\n',
      "b": 'game = "tris2"\n' + STAGE}, "stage 1 (w): unknown key 'rounds'; a wary stage holds"),
    ({"a": GOOD + 'iterations = 20\ncheckpoint_every = 5\n'
      '[ship]\nbest_of = ["net_5", "net_7"]\nopponent = "solver"\n'},
     "ship: best_of names 'net_7', which stage 'base' does not save (it saves net_5, net_10, "
     "net_15, net_20, final)"),
    ({"a": 'game = "tris2"\n[[stages]]\nname = "w"\nkind = "wary"\n'},
     "stage 1 (w): a wary stage trains a network on: it cannot come first without after"),
    ({"a": GOOD + 'init = "x.npz"\n'}, "stage 1 (base): init: the stage before's network is "
     "its init"),
    ({"a": GOOD + 'minutes = 5\n'}, "stage 1 (base): minutes: a recipe's stages run to their "
     "iterations"),
    ({"a": GOOD + STAGE}, "stage 2: a second stage named 'base'"),
    ({"a": GOOD + '[[stages]]\nname = "wide"\nwidth = 64\n'},
     "stage wide: width 64 and 2 blocks, but the stage before (base) trains width 32"),
    ({"a": GOOD + 'iterations = 5\nstop = 6\n'}, "stop=6 must be at most iterations=5"),
])
def test_a_bad_recipe_gets_one_clear_line(files, message, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(recipes, "RECIPE_DIR", write(tmp_path, files))
    monkeypatch.setattr(recipes.read_recipe, "__defaults__", (tmp_path,))
    assert cli_main(["train", "az", "--recipe", "a", "--out", str(tmp_path / "run")]) == 2
    error = capsys.readouterr().err
    assert message in error and error.count("\n") == 1, error


WARY_STAGE = ('game = "tris2"\noptions = { max_side = 4 }\n[[stages]]\nname = "traps"\n'
              'tactics = true\ntrap_planes = true\n[[stages]]\nname = "w"\nkind = "wary"\n')


@pytest.mark.parametrize("line, message", [
    ('games = "many"', "games='many': must be an integer >= 1"),
    ("learning_rate = inf", "learning_rate=inf: must be a finite number"),
    ('opponent = "bogus"', "opponent='bogus': unknown agent spec 'bogus'"),
    ("seed = -1", "seed=-1: must be an integer >= 0")])
def test_a_bad_wary_stage_is_refused_when_the_recipe_is_read(line, message, tmp_path,
                                                             monkeypatch, capsys):
    directory = tmp_path / "recipes"
    directory.mkdir()
    write(directory, {"a": WARY_STAGE + line + "\n"})
    monkeypatch.setattr(recipes.read_recipe, "__defaults__", (directory,))
    with pytest.raises(ValueError, match=f"^{directory / 'a.toml'}: stage 2 \\(w\\): "):
        read_recipe("a")
    assert cli_main(["train", "az", "--recipe", "a", "--out", str(tmp_path / "run")]) == 2
    error = capsys.readouterr().err
    assert f"{directory / 'a.toml'}: stage 2 (w): {message}" in error, error
    assert error.count("\n") == 1 and not (tmp_path / "run").exists()


def test_a_recipe_is_named_never_a_path_and_writes_only_inside_out(tmp_path, capsys):
    (tmp_path / "mine.toml").write_text((RECIPE_DIR / "az_tris1.toml").read_text())
    for name in (str(tmp_path / "mine"), f"../{RECIPE_DIR.name}/az_tris1", "."):
        assert cli_main(["train", "az", "--recipe", name, "--out", str(tmp_path / "run")]) == 2
        assert f"no recipe {name!r} in {RECIPE_DIR} (have: " in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.toml"]
    record = tmp_path / "run" / "recipe.json"
    record.parent.mkdir()
    record.write_text(json.dumps({"recipe": str(tmp_path / "mine"),
                                  "table": read_recipe("az_tris1").table}))
    assert cli_main(["train", "az", "--resume", str(tmp_path / "run")]) == 2
    assert (f"{record}: recipe {str(tmp_path / 'mine')!r}: a recipe's name is a file's, "
            "without a folder") in capsys.readouterr().err


def test_a_recipe_takes_no_setting_on_the_command_line(tmp_path, capsys):
    assert cli_main(["train", "az", "--recipe", "az_tris1", "--iterations", "3",
                     "--out", str(tmp_path)]) == 2
    assert "--iterations: a recipe holds its own settings" in capsys.readouterr().err


def test_a_run_folder_that_is_not_empty_is_refused_without_resume(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("mine")
    assert cli_main(["train", "az", "--recipe", "az_tris1", "--out", str(tmp_path)]) == 2
    assert f"{tmp_path} is not empty: continue its run with --resume" in (
        capsys.readouterr().err)


# ----- running ----------------------------------------------------------------------------

TWO_STAGES = ('game = "tant_fant"\n[[stages]]\nname = "first"\niterations = 2\nenvs = 4\n'
              'steps = 2\nsimulations = 2\nconsidered = 2\nbatch = 8\nwidth = 4\nblocks = 1\n'
              'checkpoint_every = 1\neval_games = 0\n'
              '[[stages]]\nname = "second"\nsimulations = 4\n'
              '[[checks]]\nopponent = "random"\ngames = 2\nat_least = 0.0\n'
              '[[checks]]\nopponent = "random"\ngames = 2\nmax_losses = -1\n')


@pytest.fixture(scope="module")
def two_stages(tmp_path_factory):
    """A two-stage tiny recipe run straight through: its folder."""
    directory = write(tmp_path_factory.mktemp("recipes"),
                      {"two": TWO_STAGES.replace("max_losses = -1", "max_losses = 2")})
    recipe = read_recipe("two", directory)
    out = tmp_path_factory.mktemp("straight") / "run"
    recipes.run(recipe, out, quiet=True)
    return directory, out


def test_a_recipe_runs_its_stages_in_order_and_ships_the_last(two_stages):
    directory, out = two_stages
    assert sorted(p.name for p in out.iterdir()) == ["1_first", "2_second", "recipe.json",
                                                     "two.npz"]
    second = json.loads((out / "2_second" / "config.json").read_text())
    assert second["init"] == str(out / "1_first" / "final.npz") and second["simulations"] == 4
    shipped, final = arrays(out / "two.npz"), arrays(out / "2_second" / "final.npz")
    assert shipped.keys() == final.keys()
    assert all(np.array_equal(shipped[k], final[k]) for k in final if k != "__config__")
    header = json.loads(str(shipped["__config__"]))
    assert header["recipe"] == "two" and header["version"] and header["format"] == 4


def test_a_run_cut_between_stages_resumes_byte_identical(two_stages, tmp_path, monkeypatch,
                                                         capsys):
    directory, straight = two_stages
    recipe = read_recipe("two", directory)
    out = tmp_path / "run"
    calls = []

    def cut_before_the_second(config, folder, **kwargs):
        calls.append(folder.name)
        if folder.name == "2_second":
            raise KeyboardInterrupt
        return train(config, folder, **kwargs)

    monkeypatch.setattr(recipes, "train", cut_before_the_second)
    with pytest.raises(KeyboardInterrupt):
        recipes.run(recipe, out, quiet=True)
    assert not (out / "two.npz").exists() and (out / "1_first" / "final.npz").is_file()
    assert (f"recipe two: stage 2 cut short; the recipe goes on from it with tris-envs train "
            f"az --resume {out}") in capsys.readouterr().err
    monkeypatch.setattr(recipes, "train", train)
    assert cli_main(["train", "az", "--resume", str(out), "--quiet"]) == 0
    for name in ("two.npz", "1_first/final.npz", "2_second/final.npz"):
        assert (out / name).read_bytes() == (straight / name).read_bytes(), name
    assert calls == ["1_first", "2_second"]


def test_a_finished_run_resumed_keeps_its_network(two_stages, tmp_path, capsys):
    directory, straight = two_stages
    out = Path(shutil.copytree(straight, tmp_path / "run"))
    shipped = out / "two.npz"
    shipped.write_bytes(b"the network as it was")
    assert recipes.run(read_recipe("two", directory), out, resume=True) == shipped
    assert shipped.read_bytes() == b"the network as it was"
    assert capsys.readouterr().out == f"recipe two: done ({shipped})\n"


def test_check_plays_the_acceptance_matches_beside_their_targets(two_stages, monkeypatch,
                                                                 capsys):
    directory, out = two_stages
    monkeypatch.setattr(recipes.read_recipe, "__defaults__", (directory,))
    assert cli_main(["train", "az", "--recipe", "two", "--out", str(out), "--check"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"two: {out / 'two.npz'}, ")
    assert lines[1].startswith("az vs random, seed 0, 2 games: ") and lines[1].endswith(
        "target >= 0.0%: met")
    assert lines[2].endswith("target <= 2 losses: met")
    assert lines[3].startswith("2 of 2 targets met in ")
    record = json.loads((out / "check.json").read_text())
    assert record["recipe"] == "two" and record["machine"] and record["wall_seconds"] >= 0
    assert [(r["opponent"], r["target"], r["met"]) for r in record["results"]] == [
        ("random", ">= 0.0%", True), ("random", "<= 2 losses", True)]


def test_a_missed_target_is_said_and_exits_1(two_stages, monkeypatch, capsys):
    directory, out = two_stages
    write(directory, {"strict": TWO_STAGES.replace("at_least = 0.0", "at_least = 1.0")
                      .replace("max_losses = -1", "max_losses = 2")})
    recipe = read_recipe("strict", directory)
    results = recipes.check(recipe, out / "two.npz", report=lambda line: None)
    assert [r.met for r in results] == [results[0].score >= 1.0, True]
    monkeypatch.setattr(recipes.read_recipe, "__defaults__", (directory,))
    (out / "strict.npz").write_bytes((out / "two.npz").read_bytes())
    status = cli_main(["train", "az", "--recipe", "strict", "--out", str(out), "--check"])
    assert status == (0 if results[0].met else 1)
    assert ("MISSED" in capsys.readouterr().out) == (not results[0].met)


def test_ship_best_of_takes_the_best_scoring_network(two_stages, monkeypatch):
    directory, out = two_stages
    text = TWO_STAGES.replace("max_losses = -1", "max_losses = 2") + (
        '[ship]\nbest_of = ["net_1", "final"]\nopponent = "random"\ngames = 2\n')
    recipe = read_recipe("best", write(directory, {"best": text}))
    scores = {"net_1.npz": 0.9, "final.npz": 0.4}

    class Match:
        def __init__(self, path):
            self.score = scores[Path(path).name]

    monkeypatch.setattr(recipes, "play_match", lambda game, a, b, n, seed: Match(a.path))
    assert recipes._chosen(recipe, out, quiet=True) == out / "2_second" / "net_1.npz"


@settings(max_examples=6, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(folder=odd_file_names())
def test_a_runs_networks_are_played_from_their_paths_whatever_its_folder(two_stages, tmp_path,
                                                                         monkeypatch, folder):
    """A run folder's name is never spec text: ``ship.best_of``, the checks and ``--check
    --out`` play its networks from their paths, ``:`` and all."""
    directory, straight = two_stages
    out = tmp_path / folder
    if not out.exists():
        shutil.copytree(straight, out)
    text = TWO_STAGES.replace("max_losses = -1", "max_losses = 2") + (
        '[ship]\nbest_of = ["net_1", "final"]\nopponent = "random"\ngames = 2\n')
    recipe = read_recipe("best", write(directory, {"best": text}))
    assert recipes._chosen(recipe, out, quiet=True).parent == out / "2_second"
    assert [r.met for r in recipes.check(recipe, out / "two.npz", report=str)] == [True, True]
    monkeypatch.setattr(recipes.read_recipe, "__defaults__", (directory,))
    assert cli_main(["train", "az", "--recipe", "two", "--out", str(out), "--check"]) == 0


def test_stop_ends_a_stage_on_the_schedule_of_all_its_iterations(tmp_path):
    """``stop = 2`` of 4 iterations ends with the network a full run has at iteration 2."""
    values = {"game": "tris1", **TINY, "iterations": 4, "blocks": 1}
    full = train(load_config(None, values), tmp_path / "full", quiet=True)
    stopped = train(load_config(None, values | {"stop": 2}), tmp_path / "stopped", quiet=True)
    assert arrays(stopped).keys() == arrays(full).keys()
    at_2 = arrays(full.parent / "net_2.npz")
    assert all(np.array_equal(arrays(stopped)[k], at_2[k]) for k in at_2)


CHAINS = {"az_tris2__max_side=4": ["az_tris2"]}
"""The recipes run first by a recipe's ``after``."""


@pytest.mark.parametrize("name", [
    "az_tris2__max_side=4",
    *[pytest.param(n, marks=pytest.mark.slow) for n in recipe_names()
      if n != "az_tris2__max_side=4"]])
def test_each_recipe_runs_and_chains_at_tiny_sizes(name, tmp_path):
    """Each recipe, two iterations a stage: every stage starts from the network the stage
    before saved (the rule of 4's first from Tris 2's recipe's), and the last one ships
    under the recipe's name."""
    made = {}
    for before in CHAINS.get(name, []):
        made[before] = recipes.run(tiny(read_recipe(before)), tmp_path / before, quiet=True)
    recipe = tiny(read_recipe(name))
    shipped = recipes.run(recipe, tmp_path / name, quiet=True, made=made)
    assert shipped == tmp_path / name / f"{name}.npz"
    game = recipe.game()
    network = load(shipped, game)
    assert network.recipe == name
    init = str(made[recipe.after]) if recipe.after else ""
    for number, stage in enumerate(recipe.stages, 1):
        folder = tmp_path / name / f"{number}_{stage.name}"
        assert json.loads((folder / "config.json").read_text())["init"] == init
        init = str(folder / "final.npz")
    assert network.config.wary_planes == (recipe.stages[-1].kind == "wary")


def test_recipe_all_runs_recipes_side_by_side_and_times_each(tmp_path, monkeypatch):
    """``--recipe all`` with two processes (two tiny recipes here): each network in its
    folder, and ``all.json`` with each one's time, the machine and the wall time."""
    shipped = recipes.read_recipe
    monkeypatch.setattr(recipes, "read_recipe", lambda name: tiny(shipped(name)))
    made = recipes.run_all(tmp_path, quiet=True, processes=2,
                           names=["az_tris1", "az_doppia_scelta"])
    assert made == {name: tmp_path / name / f"{name}.npz"
                    for name in ("az_tris1", "az_doppia_scelta")}
    assert all(path.is_file() for path in made.values())
    record = json.loads((tmp_path / "all.json").read_text())
    assert sorted(record["seconds"]) == ["az_doppia_scelta", "az_tris1"]
    assert recipes.listed(tmp_path) == list(record["seconds"])
    assert record["wall_seconds"] > 0 and record["processes"] == 2 and record["machine"]
    assert record["left"] == []


@pytest.mark.parametrize("text, names", [("all", None),
                                         ("az_tris1,az_tritoc", ["az_tris1", "az_tritoc"])])
def test_recipe_all_or_a_list_runs_them_each_in_a_folder(text, names, tmp_path, monkeypatch,
                                                         capsys):
    seen = []
    monkeypatch.setattr(recipes, "run_all", lambda out, **kw: seen.append((out, kw)))
    assert cli_main(["train", "az", "--recipe", text, "--out", str(tmp_path),
                     "--processes", "2"]) == 0
    assert seen == [(tmp_path, {"resume": False, "quiet": False, "processes": 2,
                                "names": names})]
    assert f"the times: {tmp_path / 'all.json'}" in capsys.readouterr().out


def test_a_list_starts_the_recipe_that_heads_the_most_work_first(tmp_path, monkeypatch):
    """Of the recipes ready, the one that heads the most planned searches (its own and
    those of the recipes after it) runs first: Tritoc's five stages, then Tris 2's with the
    rule of 4's after it, which waits for it; the list's own order does not count."""
    order = []

    def record(recipe, out, resume, quiet, made):
        order.append(recipe.name)
        return out / f"{recipe.name}.npz"

    monkeypatch.setattr(recipes, "run", record)
    recipes.run_all(tmp_path, quiet=True, names=["az_tris1", "az_tris2__max_side=4",
                                                 "az_tant_fant", "az_tris2", "az_tritoc"])
    assert order == ["az_tritoc", "az_tris2", "az_tant_fant", "az_tris2__max_side=4",
                     "az_tris1"]
    work = {name: read_recipe(name).work for name in order}
    assert work["az_tris1"] == 40 * 128 * 32 * 16         # iterations x envs x steps x sims
    assert work["az_tant_fant"] > work["az_tris2__max_side=4"] > work["az_tris1"]


ENDLESS_LIST = """
import dataclasses, sys
from pathlib import Path
from test_training_recipes import tiny
from tris_envs.alphazero import recipes
from tris_envs.durable import sigterm_as_interrupt

shipped = recipes.read_recipe

def endless(name):
    recipe = tiny(shipped(name))
    return dataclasses.replace(recipe, stages=tuple(
        dataclasses.replace(s, config=dataclasses.replace(s.config, iterations=10**6))
        for s in recipe.stages))

recipes.read_recipe = endless
with sigterm_as_interrupt():
    recipes.run_all(Path(sys.argv[1]), quiet=True, processes=2,
                    names=["az_tris1", "az_tant_fant"])
"""


def test_a_kill_stops_a_list_run_side_by_side_with_what_each_recipe_finished(tmp_path):
    """A SIGTERM to the command alone (a ``kill``, a batch system's limit) while two
    recipes train in worker processes: both stop as Ctrl-C stops one (their checkpoints
    and their seconds so far kept), and the command ends at once, saying how to go on."""
    command = subprocess.Popen([sys.executable, "-c", ENDLESS_LIST, str(tmp_path)],
                               cwd=Path(__file__).parent, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    names = ("az_tris1", "az_tant_fant")
    try:
        deadline = time.monotonic() + 600
        while not all((tmp_path / n / "1_base" / "net_1.npz").is_file() for n in names):
            assert command.poll() is None and time.monotonic() < deadline
            time.sleep(0.5)
        command.send_signal(signal.SIGTERM)
        _, errors = command.communicate(timeout=120)
    finally:
        if command.poll() is None:
            os.killpg(command.pid, signal.SIGKILL)
    assert command.returncode != 0
    assert f"the recipes go on with tris-envs train az --resume {tmp_path}" in errors
    for name in names:
        assert float((tmp_path / name / "seconds.txt").read_text()) > 0
        assert (tmp_path / name / "1_base" / "resume.npz").is_file()
    assert recipes.listed(tmp_path) == sorted(names)


def test_a_list_cut_in_its_first_recipe_says_how_it_goes_on(tmp_path, monkeypatch, capsys):
    """A list killed before any recipe ended: ``all.json`` already names every recipe as
    left (what ``--resume`` reads), and the line printed gives the command."""
    def cut(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(recipes, "run", cut)
    with pytest.raises(KeyboardInterrupt):
        recipes.run_all(tmp_path, quiet=True, names=["az_tris1", "az_tant_fant"])
    assert recipes.listed(tmp_path) == ["az_tant_fant", "az_tris1"]
    assert (f"the recipes go on with tris-envs train az --resume {tmp_path}"
            in capsys.readouterr().err)


def test_a_recipe_cut_and_resumed_counts_the_time_before_the_cut(tmp_path, monkeypatch):
    """A list's time for a recipe a kill cut is that of both calls: the cut one's seconds
    are kept in the recipe's folder (``seconds.txt``)."""
    calls = []

    def slow(recipe, out, resume, quiet, made):
        out.mkdir(exist_ok=True)
        calls.append(resume)
        time.sleep(0.3)
        if len(calls) == 1:
            raise KeyboardInterrupt
        return out / f"{recipe.name}.npz"

    monkeypatch.setattr(recipes, "run", slow)
    with pytest.raises(KeyboardInterrupt):
        recipes.run_all(tmp_path, quiet=True, names=["az_tris1"])
    (tmp_path / "az_tris1" / "recipe.json").write_text("{}")     # what run's claim writes
    recipes.run_all(tmp_path, resume=True, quiet=True, names=["az_tris1"])
    assert calls == [False, True]
    seconds = json.loads((tmp_path / "all.json").read_text())["seconds"]["az_tris1"]
    assert 0.6 <= seconds < 5
    (tmp_path / "az_tris1" / "seconds.txt").write_text("soon")
    with pytest.raises(ValueError, match="seconds.txt is damaged"):
        recipes.run_all(tmp_path, resume=True, quiet=True, names=["az_tris1"])


def test_a_list_run_resumes_from_its_folder_alone(tmp_path, monkeypatch, capsys):
    """``--resume DIR`` of a list run (no ``--recipe``) goes on with the list its
    ``all.json`` holds, the recipes done first; a folder without one, or with a damaged
    one, is refused in one line."""
    (tmp_path / "all.json").write_text(json.dumps(
        {"seconds": {"az_tris1": 60.0}, "left": ["az_tritoc", "az_tris2"]}))
    seen = []
    monkeypatch.setattr(recipes, "run_all", lambda out, **kw: seen.append((out, kw)))
    assert cli_main(["train", "az", "--resume", str(tmp_path)]) == 0
    assert seen == [(tmp_path, {"resume": True, "quiet": False, "processes": 1,
                                "names": ["az_tris1", "az_tritoc", "az_tris2"]})]
    (tmp_path / "all.json").write_text('{"seconds": {}}')
    with pytest.raises(ValueError, match="all.json is damaged"):
        recipes.listed(tmp_path)
    with pytest.raises(ValueError, match="holds no run of a list of recipes"):
        recipes.listed(tmp_path / "elsewhere")


MISSED = {"az_tritoc": "70% against mcts:1000 on each of seeds 0-2: the shipped az scores "
                       "60.0-61.5%",
          "az_tris2__max_side=4": "75% against mcts:100:decisive and 80% against "
                                  "alphabeta:4: the shipped az scores 64.8% and 71.8%"}
"""The recipes whose shipped network misses a target of its acceptance matches, and by how
much (docs/results.md)."""


@pytest.mark.slow
@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=MISSED[n])) if n in MISSED
    else n for n in recipe_names()])
def test_each_shipped_network_meets_its_recipes_acceptance_matches(name):
    results = recipes.check(read_recipe(name), SHIPPED_DIR / f"{name}.npz", processes=2,
                            report=lambda line: None)
    assert all(result.met for result in results), [result.line() for result in results]
