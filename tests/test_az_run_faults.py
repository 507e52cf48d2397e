"""The AlphaZero learner's runs survive faults: SIGTERM stops a run as Ctrl-C does, a kill
during a checkpoint's evaluation loses no row (``--resume`` evaluates it again), the network
is saved before the optional plot (whose failure is one warning), progress shows only on a
terminal; damaged run files and configs that are not finite get one clear line."""

from __future__ import annotations

import csv
import os
import shutil
import signal
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("mctx")

from tris_envs.alphazero import train as learner
from tris_envs.cli import main as cli_main

FLAGS = ["--game", "tris1", "--envs", "128", "--steps", "8", "--simulations", "2",
         "--batch", "512", "--width", "4", "--blocks", "1", "--iterations", "3",
         "--checkpoint-every", "2", "--eval-games", "2", "--opponents", "random"]
"""Three iterations of 1,024 plies each, a checkpoint (and its evaluation) at 2 and 3."""


def rows(run: Path) -> list[dict[str, str]]:
    with (run / "progress.csv").open() as file:
        return list(csv.DictReader(file))


@pytest.fixture(scope="module")
def stopped(tmp_path_factory):
    """A run stopped by SIGTERM during its first checkpoint's evaluation, then resumed
    with matplotlib missing and standard error a terminal (without tqdm: plain lines)."""
    run = tmp_path_factory.mktemp("run") / "az"
    seen = {}
    evaluate = learner._evaluate

    def killed(state):
        os.kill(os.getpid(), signal.SIGTERM)       # what `kill PID` does, mid-evaluation
        return evaluate(state)

    def no_matplotlib(out, rows):
        raise ImportError("No module named 'matplotlib'")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(learner, "_evaluate", killed)
        read, sys.stdout, sys.stderr = (sys.stdout, sys.stderr), Capture(), Capture()
        try:
            seen["status"] = cli_main(["train", "az", *FLAGS, "--out", str(run)])
            seen["out"], seen["err"] = sys.stdout.text(), sys.stderr.text()
            seen["files"] = {p.name for p in run.iterdir()}
            seen["rows"] = rows(run)
            with np.load(run / "resume.npz") as data:
                seen["saved"] = int(data["iteration"])
        finally:
            sys.stdout, sys.stderr = read
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(learner, "_plot", no_matplotlib)
        patch.setattr("tris_envs.progress._is_terminal", lambda stream: True)
        patch.setitem(sys.modules, "tqdm", None)                  # the plain lines
        read, sys.stdout, sys.stderr = (sys.stdout, sys.stderr), Capture(), Capture()
        try:
            seen["resumed"] = cli_main(["train", "az", "--resume", str(run)])
            seen["out2"], seen["err2"] = sys.stdout.text(), sys.stderr.text()
        finally:
            sys.stdout, sys.stderr = read
    return run, seen


class Capture:
    """A text stream that keeps what is written (``isatty`` false, as a pipe's)."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def write(self, text: str) -> int:
        self.parts.append(text)
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def text(self) -> str:
        return "".join(self.parts)


def test_sigterm_during_an_evaluation_saves_what_ctrl_c_saves_and_keeps_the_row(stopped):
    run, seen = stopped
    assert seen["status"] == 143
    assert f"interrupted after iteration 2; continue with --resume {run}" in seen["err"]
    assert "Traceback" not in seen["err"] and "train az:" not in seen["err"]   # piped: quiet
    assert seen["saved"] == 2 and {"net_2.npz", "resume.npz"} <= seen["files"]
    assert "final.npz" not in seen["files"]
    assert [r["iteration"] for r in seen["rows"]] == ["1", "2"]
    assert seen["rows"][1]["plies"] == "2048" and "vs random" not in seen["rows"][1]


def test_resume_evaluates_the_checkpoint_whose_evaluation_was_cut_short(stopped):
    from tris_envs.agents.az import AZAgent
    from tris_envs.agents.az_network import load
    from tris_envs.evaluation import play_match
    from tris_envs.games import make_game

    run, seen = stopped
    assert seen["resumed"] == 0
    assert "iteration 2: evaluating the checkpoint again" in seen["out2"]
    logged = rows(run)
    assert [r["iteration"] for r in logged] == ["1", "2", "3"]
    game = make_game("tris1")
    agent = AZAgent(load(run / "net_2.npz", game), 0, rng=np.random.default_rng(2))
    score = play_match(game, agent, "random", 2, seed=2).score
    assert float(logged[1]["vs random"]) == round(score, 3) and logged[2]["vs random"]


def test_the_network_is_saved_before_the_plot_whose_failure_is_one_warning(stopped):
    from tris_envs.agents.az_network import load
    from tris_envs.games import make_game

    run, seen = stopped
    assert load(run / "final.npz", make_game("tris1")).config.width == 4
    warnings = [line for line in seen["err2"].splitlines() if line.startswith("warning:")]
    assert warnings == ["warning: the learning curve skipped (ImportError: No module named "
                        "'matplotlib')"]
    assert not (run / "learning_curve.png").exists()


def test_progress_on_a_terminal_counts_plies_with_separators_and_sums_up(stopped):
    _, seen = stopped
    lines = [line for line in seen["err2"].splitlines() if line.startswith("train az: ")]
    assert len(lines) == 2, seen["err2"]
    assert lines[0].startswith("train az: 1/1 iterations (100%), ")
    assert "left, iteration 3/3, 3,072 plies, policy loss " in lines[0]
    assert lines[1].startswith("train az: 1 iterations in ")
    assert lines[1].endswith("; 3,072 plies, iteration 3/3")


# ----- damaged run files -----------------------------------------------------------------
def _copy(run: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(run, tmp_path / "copy"))


def _error(argv, capsys) -> str:
    assert cli_main(["train", "az", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tris-envs train az: error: ") and err.count("\n") == 1, err
    return err


def test_a_progress_row_cut_short_is_one_line_saying_what_to_do(stopped, tmp_path, capsys):
    run = _copy(stopped[0], tmp_path)
    progress = run / "progress.csv"
    text = progress.read_text()
    lines = text.splitlines(keepends=True)
    progress.write_text("".join(lines[:2]) + lines[2][:5] + "\n" + lines[3])  # row 2 cut
    before = {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()}
    err = _error(["--resume", str(run)], capsys)
    assert f"{progress}, line 3: a row cut short or too long" in err
    assert f"delete that line and those after it, then --resume {run}" in err
    progress.write_text(text.replace("3,3072", "3,many", 1))
    assert "line 4: plies='many' is not a number" in _error(["--resume", str(run)], capsys)
    progress.write_text(text)
    assert {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()} == before | {
        "progress.csv": text.encode()}


@pytest.mark.parametrize("cut", [",", "."])
def test_a_last_progress_row_cut_short_is_dropped_and_the_run_goes_on(stopped, tmp_path,
                                                                      capsys, cut):
    run = _copy(stopped[0], tmp_path)
    progress = run / "progress.csv"
    text = progress.read_text()
    progress.write_text(text[:text.rindex(cut) + 1])    # fields missing, or a number cut
    assert cli_main(["train", "az", "--resume", str(run), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert err == (f"warning: {progress}, line 4: the last row is cut short; the run goes on "
                   "with the 2 complete rows before it\n")
    assert progress.read_text().splitlines() == text.splitlines()[:3]
    assert cli_main(["train", "az", "--resume", str(run), "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_a_damaged_resume_file_names_what_a_new_run_can_start_from(stopped, tmp_path,
                                                                   capsys):
    run = _copy(stopped[0], tmp_path)
    whole = (run / "resume.npz").read_bytes()
    (run / "resume.npz").write_bytes(whole[:len(whole) // 2])
    err = _error(["--resume", str(run)], capsys)
    assert f"{run / 'resume.npz'} is damaged (" in err
    assert ("start a new run (another --out) from its last network with init = "
            f'"{run}/net_3.npz"') in err
    with np.load(stopped[0] / "resume.npz") as data:
        arrays = dict(data)
    np.savez(run / "resume.npz", **{k: v for k, v in arrays.items() if k != "iteration"})
    assert "resume.npz is damaged (" in _error(["--resume", str(run)], capsys)


@pytest.mark.parametrize("content", [b"", b"not a resume file\n", b"\x80\x04K\x01."])
def test_a_resume_file_that_is_no_npz_is_named_as_such_without_numpys_advice(
        stopped, tmp_path, capsys, content):
    run = _copy(stopped[0], tmp_path)
    (run / "resume.npz").write_bytes(content)             # the last: a pickle of 1
    err = _error(["--resume", str(run)], capsys)
    assert f"{run / 'resume.npz'} is not a resume file (not an .npz archive)" in err
    assert "pickle" not in err and "start a new run (another --out)" in err


@pytest.mark.parametrize("text, message", [
    ("{not json", "config.json is damaged (Expecting property name"),
    ("[1, 2]", "config.json is damaged (not a JSON object): restore it"),
    ('{"game": "tris1", "learning_rate": NaN}', "config.json: learning_rate=nan: must be a "
                                                 "finite number"),
])
def test_a_damaged_config_json_is_one_clear_line(text, message, tmp_path, capsys):
    (tmp_path / "config.json").write_text(text)
    assert message in _error(["--resume", str(tmp_path)], capsys)


# ----- configs: finite numbers; losses that are not finite -------------------------------
@pytest.mark.parametrize("line, message", [
    ("learning_rate = inf", "learning_rate=inf: must be a finite number"),
    ("alpha = nan", "alpha=nan: must be a finite number"),
    ("minutes = inf", "minutes=inf: must be a finite number"),
    ("noise = -inf", "noise=-inf: must be a finite number"),
])
def test_a_config_that_is_not_finite_names_the_file_and_the_key(line, message, tmp_path,
                                                                capsys):
    config = tmp_path / "run.toml"
    config.write_text(f'base = "demo"\n{line}\n')
    err = _error(["--config", str(config), "--out", str(tmp_path / "run")], capsys)
    assert f"{config}: {message}" in err
    assert not (tmp_path / "run").exists()
    (tmp_path / "base.toml").write_text(f"{line}\n")
    config.write_text('base = "base.toml"\n')
    assert f"{tmp_path / 'base.toml'}: {message}" in _error(
        ["--config", str(config), "--out", str(tmp_path / "run")], capsys)


def test_the_budget_flag_must_be_finite_too(tmp_path, capsys):
    err = _error(["--game", "tris1", "--minutes", "inf", "--out", str(tmp_path)], capsys)
    assert "minutes=inf: must be a finite number" in err


def test_losses_that_are_not_finite_stop_the_run_before_anything_is_saved(tmp_path):
    from tris_envs.alphazero.learner import Metrics

    run = learner.Run.__new__(learner.Run)
    run.iteration_done, run.out = 4, tmp_path
    with pytest.raises(ValueError, match=r"iteration 5: the losses are not finite \(policy "
                                         r"nan, value 0.5\): the training diverged; nothing "
                                         r"of it was saved in "):
        learner._check_losses(Metrics(3, 7.0, np.float32("nan"), np.float32(0.5)), run)
    learner._check_losses(Metrics(3, 7.0, np.float32(1.5), np.float32(0.5)), run)


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs Linux's /proc")
def test_a_full_disk_names_the_file_and_what_the_run_keeps(stopped, tmp_path, capsys,
                                                           monkeypatch):
    run = _copy(stopped[0], tmp_path)
    (run / "final.npz").unlink()

    fsync = os.fsync

    def full(handle):                  # the disk fills up as the final network is written
        if "final.npz" in os.readlink(f"/proc/self/fd/{handle}"):
            raise OSError(28, "No space left on device")
        fsync(handle)

    monkeypatch.setattr(os, "fsync", full)
    err = _error(["--resume", str(run), "--quiet"], capsys)
    assert f"No space left on device: '{run / 'final.npz'}'; its resume.npz keeps iteration 3: " \
           f"make room, then continue with --resume {run}" in err
    assert not (run / "final.npz").exists()
    assert sorted(p.name for p in run.iterdir() if p.name.startswith(".")) == []
