"""``tris-envs baselines``: every learner trained at one budget and played against the ladder,
into one resumable table (tris_envs/baselines.py, tris_envs/evaluation/cell.py).

The quick run (``--quick``: a few hundred steps per learner on Tris 1 and Tant Fant, four
games per opponent) is the module's one training: one test trains every installed learner
and checks the table and its resume; the others run cells that train nothing. RLlib's
quick cells (about 20 s each, most of it Ray's start) run in the slow test.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tris_envs import baselines
from tris_envs.cli import main
from tris_envs.evaluation.cell import FIELDS, RESULT_FIELDS, ladder, read_cell

QUICK_GAMES = ["tris1", "tant_fant"]
JAX_SCRIPT = baselines.ROOT / "examples" / "jax_ppo.py"


@functools.cache
def jax_takes_the_contract() -> str | None:
    """Why examples/jax_ppo.py cannot run a cell yet, or None where it can."""
    learner = next(learner for learner in baselines.LEARNERS if learner.name == "jax_ppo")
    missing = learner.missing()
    if missing is not None:
        return missing
    shown = subprocess.run([sys.executable, str(JAX_SCRIPT), "--help"], capture_output=True,
                           text=True, timeout=120)
    absent = [flag for flag in ("--budget", "--opponents", "--json") if flag not in shown.stdout]
    return f"examples/jax_ppo.py does not take {', '.join(absent)} yet" if absent else None


def quick_learners() -> list[str]:
    """The learners of the fast quick run: all but RLlib (slow test) and the JAX PPO while
    its script does not take the cell contract."""
    skipped = {"rllib_ppo"} | ({"jax_ppo"} if jax_takes_the_contract() else set())
    return [learner.name for learner in baselines.LEARNERS if learner.name not in skipped]


def test_the_quick_run_trains_every_installed_learner_into_a_table_a_resume_keeps(
        tmp_path, monkeypatch):
    """The module's one training run (with xdist, one test trains once)."""
    learners = quick_learners()
    status = main(["baselines", "--quick", "--out", str(tmp_path), "--processes", "2",
                   "--learners", ",".join(learners)])
    assert status == 0, (tmp_path / "baselines.md").read_text()
    well_formed(tmp_path, learners)
    a_row_per_cell(tmp_path, learners)
    resumed_without_training(tmp_path, monkeypatch)


def well_formed(out: Path, learners: list[str]) -> None:
    """The JSON's fields: settings, provenance, and every cell's results."""
    table = json.loads((out / "baselines.json").read_text())
    assert table["settings"] == {"budget": baselines.QUICK_BUDGET, "games": 4, "seed": 0,
                                 "quick": True}
    run = table["runs"][0]
    assert run["command"].startswith("tris-envs baselines ") and "--quick" in run["command"]
    assert run["machine"] and run["started"] and run["wall_seconds"] > 0
    cells = {(cell["learner"], cell["game"]): cell for cell in table["cells"]}
    assert set(cells) == {(learner, game) for learner in learners for game in QUICK_GAMES}
    for (learner, game), cell in cells.items():
        if cell["status"] == "not run":       # a library or environment missing here
            assert cell["reason"], cell
            continue
        assert cell["status"] == "done", cell
        for name in FIELDS:
            assert name in cell, (learner, game, name)
        assert cell["budget"] == baselines.QUICK_BUDGET and 0 < cell["steps"] < 5000
        assert cell["train_seconds"] >= 0 and cell["wall_seconds"] > 0
        assert [r["opponent"] for r in cell["results"]] == ladder(game)
        for result in cell["results"]:
            assert set(RESULT_FIELDS) <= set(result)
            assert result["games"] == 4 == result["wins"] + result["draws"] + result["losses"]
            low, high = result["interval"]
            assert low <= result["score"] <= high
            assert 0 <= result["value_kept"] <= 1 and result["judged"] > 0   # both solvable
        assert read_cell(out / "cells" / f"{learner}-{game}.json")["steps"] == cell["steps"]
    done = {learner for (learner, _), cell in cells.items() if cell["status"] == "done"}
    assert {"sb3_ppo", "cleanrl_ppo"} <= done          # the train extra is always here


def a_row_per_cell(out: Path, learners: list[str]) -> None:
    """The Markdown: the smoke run said, a section per game, a row per learner, the
    provenance last."""
    text = (out / "baselines.md").read_text()
    assert "Smoke run" in text and f"{baselines.QUICK_BUDGET} learner steps per cell" in text
    labels = {learner.name: learner.label for learner in baselines.LEARNERS}
    for title in ("## Tris 1", "## Tant Fant"):
        section = text.split(title)[1].split("##")[0]
        rows = [line for line in section.splitlines() if line.startswith("| ")]
        assert rows[0] == ("| learner | budget | steps | training | vs random | vs greedy | "
                           "vs mcts:100 | vs solver | value-keeping moves |")
        assert [row.split(" | ")[0][2:] for row in rows[1:]] == [labels[n] for n in learners]
    assert text.rstrip().splitlines()[-1].startswith("Made by `tris-envs baselines ")


def resumed_without_training(out: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A resumed run starts no finished cell again and keeps its record."""
    before = json.loads((out / "baselines.json").read_text())

    def no_cell(*args: object) -> None:
        raise AssertionError(f"a finished cell ran again: {args[:2]}")

    monkeypatch.setattr(baselines, "_start", no_cell)
    done = [c["learner"] for c in before["cells"] if c["status"] == "done"]
    assert main(["baselines", "--resume", "--out", str(out),
                 "--learners", ",".join(dict.fromkeys(done))]) == 0
    after = json.loads((out / "baselines.json").read_text())
    assert [c for c in after["cells"] if c["status"] == "done"] == [
        c for c in before["cells"] if c["status"] == "done"]
    assert len(after["runs"]) == len(before["runs"]) + 1
    assert "resumed 1 time" in (out / "baselines.md").read_text()


def test_a_learner_whose_library_is_missing_gets_its_row_with_the_reason(tmp_path,
                                                                         monkeypatch, capsys):
    real = baselines.importlib.util.find_spec
    monkeypatch.setattr(baselines.importlib.util, "find_spec",
                        lambda name, *a: None if name == "tianshou" else real(name, *a))
    monkeypatch.setattr(baselines, "_start", lambda *args: pytest.fail("a cell started"))
    assert main(["baselines", "--learners", "tianshou_dqn", "--game", "tris1", "--out",
                 str(tmp_path)]) == 0
    cell, = json.loads((tmp_path / "baselines.json").read_text())["cells"]
    assert cell["status"] == "not run"
    assert cell["reason"] == 'tianshou is not installed (pip install "tris_envs[tianshou]")'
    assert "| Tianshou DQN | 100,000 | not run: tianshou is not installed" in (
        tmp_path / "baselines.md").read_text()
    assert "Tianshou DQN on Tris 1: not run: tianshou is not installed" in capsys.readouterr().out


def test_agilerl_without_its_environment_whole_says_so(tmp_path, monkeypatch):
    agilerl = next(learner for learner in baselines.LEARNERS if learner.name == "agilerl_dqn")
    monkeypatch.setattr(baselines, "ROOT", tmp_path)
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "agilerl_dqn.py").touch()
    why = "make agilerl's environment (.venv-agilerl) is absent or not fully installed"
    assert agilerl.missing() == why
    (tmp_path / ".venv-agilerl" / "bin").mkdir(parents=True)
    (tmp_path / ".venv-agilerl" / "bin" / "python").touch()      # installing, not done
    assert agilerl.missing() == why
    (tmp_path / ".venv-agilerl" / ".installed").touch()
    assert agilerl.missing() is None


def test_outside_a_checkout_the_scripts_rows_say_why(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(baselines, "ROOT", tmp_path / "site-packages")
    monkeypatch.setattr(baselines, "_start", lambda *args: pytest.fail("a cell started"))
    assert main(["baselines", "--learners", "cleanrl_ppo", "--game", "tris1", "--out",
                 str(tmp_path / "table")]) == 0
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "not with the wheel: cleanrl_ppo will not run" in error
    cell, = json.loads((tmp_path / "table" / "baselines.json").read_text())["cells"]
    assert cell["status"] == "not run" and cell["reason"].startswith(
        "examples/cleanrl_ppo.py is not here (the learner scripts come with a checkout")


def fake_learner(monkeypatch, code: str) -> None:
    """``sb3_ppo``'s row played by ``python -c code`` (the cell's flags in ``sys.argv``)."""
    fake = baselines.Learner("sb3_ppo", "Fake", "a fake", ("-c", code), (), "nothing")
    monkeypatch.setattr(baselines, "LEARNERS", (fake,))


@pytest.mark.parametrize(("code", "reason"), [
    ("import sys; print('training...'); sys.exit('boom: out of luck')",
     "exit status 1: boom: out of luck (see cells/sb3_ppo-tris1.log)"),
    ("print('trained, wrote nothing')", "sb3_ppo-tris1.json: not a cell file"),
], ids=["exits 1", "writes no cell"])
def test_a_failed_cell_gives_its_row_the_reason_and_the_run_goes_on(tmp_path, monkeypatch,
                                                                    code, reason):
    fake_learner(monkeypatch, code)
    assert main(["baselines", "--learners", "sb3_ppo", "--game", "tris1,tant_fant",
                 "--out", str(tmp_path)]) == 1
    cells = json.loads((tmp_path / "baselines.json").read_text())["cells"]
    assert [(c["game"], c["status"]) for c in cells] == [("tris1", "failed"),
                                                          ("tant_fant", "failed")]
    assert reason in cells[0]["reason"]
    log = (tmp_path / "cells" / "sb3_ppo-tris1.log").read_text()
    assert log.startswith(sys.executable) and "--budget 100000 --seed 0 --games 200" in log


def test_an_interrupted_run_stops_its_running_cells_and_keeps_the_finished_ones(tmp_path,
                                                                                monkeypatch):
    slow = baselines.Learner("slow", "Slow", "sleeps", ("-c", "import time; time.sleep(60)"),
                             (), "nothing")
    fast = baselines.Learner("fast", "Fast", "fails at once", ("-c", "raise SystemExit(3)"),
                             (), "nothing")
    started = []
    real_start = baselines._start
    monkeypatch.setattr(baselines, "_start",
                        lambda *args: started.append(real_start(*args)) or started[-1])

    def interrupt(line):                 # Ctrl-C as the first cell ends
        raise KeyboardInterrupt

    table = baselines.Table(baselines.Settings())
    with pytest.raises(KeyboardInterrupt):
        baselines.run([slow, fast], ["tris1"], table, tmp_path, "cmd", processes=2,
                      quiet=True, report=interrupt)
    assert len(started) == 2 and all(process.poll() is not None for process in started)
    kept = json.loads((tmp_path / "baselines.json").read_text())
    assert [(c["learner"], c["status"]) for c in kept["cells"]] == [("fast", "failed")]


def test_the_command_says_how_to_resume_when_interrupted(tmp_path, monkeypatch, capsys):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(baselines, "run", interrupted)
    assert main(["baselines", "--out", str(tmp_path)]) == 130
    assert f"tris-envs baselines --resume --out {tmp_path} runs the others" in (
        capsys.readouterr().err)


def no_cells(monkeypatch) -> None:
    """One learner, ``sb3_ppo``, whose environment is absent: its cells start no process."""
    absent = baselines.Learner("sb3_ppo", "Absent", "absent", ("-c", "pass"), (), "nothing",
                               python="no-such-venv/bin/python")
    monkeypatch.setattr(baselines, "LEARNERS", (absent,))


@pytest.mark.parametrize(("first", "then", "error"), [
    ([], [], "baselines.json holds a table: --resume continues it, --force starts it again"),
    ([], ["--resume", "--budget", "7"], "baselines.json was made with budget 100000: resume "
                                        "it with the same --budget (or without it)"),
    ([], ["--resume", "--quick"], "baselines.json is a full table, not a --quick one"),
    (None, ["--resume"], "--resume: no table to continue in"),
    ([], ["--resume", "--force"], "give --resume (continue the table) or --force"),
    (None, ["--learners", "ppo"], "--learners: no learner 'ppo' (the learners: sb3_ppo)"),
    (None, ["--game", "tris3"], "--game: no game 'tris3'"),
], ids=["exists", "other budget", "not quick", "nothing to resume", "both",
        "unknown learner", "unknown game"])
def test_bad_tables_and_flags_are_refused_in_one_line(tmp_path, monkeypatch, capsys, first,
                                                      then, error):
    no_cells(monkeypatch)
    flags = ["baselines", "--out", str(tmp_path)]
    if first is not None:
        assert main([*flags, "--game", "tris1", *first]) == 0
        capsys.readouterr()
    assert main([*flags, *then]) == 2
    message = capsys.readouterr().err
    assert message.startswith("tris-envs baselines: error: ") and error in message
    assert message.count("\n") == 1


@pytest.mark.parametrize(("damage", "error"), [
    (lambda table: table["cells"][0].pop("reason"),
     "the cell sb3_ppo on tris1: the field 'reason' is None, not str"),
    (lambda table: table["cells"][0].update(status="done"),
     "the cell sb3_ppo on tris1: the field 'seed' is missing"),
    (lambda table: table["settings"].update(games="200"),
     "settings.games is '200', not int"),
    (lambda table: table.pop("settings"), "not a table of tris-envs baselines (KeyError"),
], ids=["no reason", "done without results", "games a string", "no settings"])
def test_a_damaged_table_is_refused_on_resume_in_one_line(tmp_path, monkeypatch, capsys,
                                                          damage, error):
    no_cells(monkeypatch)
    flags = ["baselines", "--out", str(tmp_path), "--game", "tris1"]
    assert main(flags) == 0
    table = json.loads((tmp_path / "baselines.json").read_text())
    damage(table)
    (tmp_path / "baselines.json").write_text(json.dumps(table))
    capsys.readouterr()
    assert main([*flags, "--resume"]) == 2
    message = capsys.readouterr().err
    assert message.count("\n") == 1 and error in message, message


def test_bad_counts_are_refused_by_the_parser(capsys):
    for flag in ("--processes", "--budget", "--games"):
        with pytest.raises(SystemExit) as exit:
            main(["baselines", flag, "0"])
        assert exit.value.code == 2
        assert f"argument {flag}: must be an integer >= 1, got '0'" in capsys.readouterr().err


def test_the_force_flag_starts_the_table_again(tmp_path, monkeypatch):
    fake_learner(monkeypatch, "import sys; sys.exit(2)")
    flags = ["baselines", "--game", "tris1", "--out", str(tmp_path)]
    assert main(flags) == 1
    assert main([*flags, "--force", "--learners", "sb3_ppo"]) == 1
    assert len(json.loads((tmp_path / "baselines.json").read_text())["runs"]) == 1


def test_the_jax_ppo_script_takes_the_cell_contract():
    why = jax_takes_the_contract()
    if why is not None:
        pytest.skip(why)
    assert "jax_ppo" in quick_learners()          # the quick run then trains it


@pytest.mark.slow
def test_rllib_runs_its_quick_cells(tmp_path):
    pytest.importorskip("ray")
    assert main(["baselines", "--quick", "--learners", "rllib_ppo", "--out",
                 str(tmp_path)]) == 0
    cells = json.loads((tmp_path / "baselines.json").read_text())["cells"]
    assert [(c["game"], c["status"]) for c in cells] == [("tris1", "done"),
                                                          ("tant_fant", "done")]
    assert all(0 < c["steps"] < 5000 for c in cells)
