"""Issue #31, "Reliability, round 2": each reproducer of the bad-input audit, and fuzzing of
what the audit found missed: random malformed records for ``tris-envs replay`` and random
command lines for the CLI (no traceback, no file changed by a failing run). The JAX port's
cases (illegal and out-of-range actions, options, action types) are in ``test_jax.py``."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tris_envs.cli import main, parse_options
from tris_envs.evaluation import play_match, round_robin
from tris_envs.games import make_game

CHECKPOINTS = Path(__file__).resolve().parent.parent / "tris_envs" / "checkpoints"
FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))


def run_cli(argv, capsys):
    """``(exit status, stdout, stderr)`` of ``tris-envs argv`` run in this process."""
    try:
        status = main(argv)
    except SystemExit as exit_:
        status = exit_.code if isinstance(exit_.code, int) else 1
    out, err = capsys.readouterr()
    return status, out, err


def error_line(err, command):
    """The one error line of a refused command (argparse's usage line may precede it)."""
    lines = [line for line in err.splitlines() if line.startswith(f"tris-envs {command}: ")]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


# ----- journals: identity, overwriting, huge matches (items 2-4) --------------------------
def test_resume_refuses_a_journal_of_another_file_with_the_same_name(tmp_path, capsys):
    network = tmp_path / "final.npz"
    shutil.copy(CHECKPOINTS / "az_tris1.npz", network)
    journal = tmp_path / "games.jsonl"
    argv = ["eval", "tris1", f"az:{network}:0", "random", "--games", "2", "--records",
            str(journal)]
    status, out, _ = run_cli(argv, capsys)
    assert status == 0 and "+" in out
    kept = journal.read_bytes()
    header = json.loads(kept.splitlines()[0])
    assert header["files"][0].startswith("sha256:") and header["files"][1] is None
    network.write_bytes(b"another network under the same name")     # trained again, say
    status, out, err = run_cli(argv + ["--resume"], capsys)
    line = error_line(err, "eval")
    assert status == 2 and out == "" and "is not the journal of this match" in line
    assert f"the file played by az:{network}:0 is not the one the journal was written" in line
    assert journal.read_bytes() == kept
    shutil.copy(CHECKPOINTS / "az_tris1.npz", network)
    status, out, _ = run_cli(argv + ["--resume"], capsys)
    assert status == 0 and journal.read_bytes() == kept             # nothing left to play


def test_the_journal_names_the_content_of_ppo_checkpoints(tmp_path):
    pytest.importorskip("sb3_contrib")
    from tris_envs.evaluation.match import _identify

    game = make_game("tris1")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    shutil.copy(CHECKPOINTS / "tris1.pt", tmp_path / "a" / "final.pt")
    (tmp_path / "b" / "final.pt").write_bytes(b"other bytes")
    names, files = _identify([f"ppo:{tmp_path / 'a' / 'final.pt'}",
                              f"ppo:{tmp_path / 'b' / 'final.pt'}", "ppo", "random"], game)
    assert names == ["ppo:final", "ppo:final#2", "ppo", "random"]
    assert files[0] != files[1] and None not in files[:3] and files[3] is None
    assert files[2] == _identify([f"ppo:{CHECKPOINTS / 'tris1.pt'}"], game)[1][0]  # shipped


def test_records_never_overwrite_a_journal_without_resume_or_force(tmp_path, capsys):
    journal = tmp_path / "t.jsonl"
    argv = ["tournament", "tris1", "random", "greedy", "--games", "2", "--records",
            str(journal)]
    assert run_cli(argv, capsys)[0] == 0
    kept = journal.read_bytes()
    assert len(kept.splitlines()) == 3
    status, out, err = run_cli(argv + ["--seed", "5"], capsys)
    assert status == 2 and out == ""
    assert "already exists" in error_line(err, "tournament") and "--force" in err
    assert journal.read_bytes() == kept
    status, _, err = run_cli(argv + ["--resume", "--force"], capsys)
    assert status == 2 and "give one of them" in error_line(err, "tournament")
    assert run_cli(argv + ["--seed", "5", "--force"], capsys)[0] == 0
    assert journal.read_bytes() != kept and len(journal.read_bytes().splitlines()) == 3


def test_the_library_refuses_to_overwrite_a_journal_too(tmp_path):
    game, journal = make_game("tris1"), tmp_path / "j.jsonl"
    whole = play_match(game, "random", "greedy", n_games=4, seed=1, records=journal)
    kept = journal.read_bytes()
    with pytest.raises(ValueError, match="already exists"):
        play_match(game, "random", "greedy", n_games=4, seed=2, records=journal)
    with pytest.raises(ValueError, match="already exists"):
        round_robin(game, ["random", "greedy"], n_games=4, seed=2, records=journal)
    assert journal.read_bytes() == kept
    assert play_match(game, "random", "greedy", n_games=4, seed=1, records=journal,
                      resume=True) == whole
    empty = tmp_path / "empty.jsonl"
    empty.touch()                              # an empty file holds nothing to lose
    assert play_match(game, "random", "greedy", n_games=4, seed=1, records=empty,
                      overwrite=False) == whole
    assert play_match(game, "random", "greedy", n_games=4, seed=1, records=journal,
                      overwrite=True) == whole


def test_results_and_records_keep_their_order_when_tallied_as_they_come(tmp_path):
    game = make_game("tris1")
    table = round_robin(game, ["random", "greedy", "mcts:5"], n_games=5, seed=3,
                        keep_records=True, processes=2)
    alone = round_robin(game, ["random", "greedy", "mcts:5"], n_games=5, seed=3,
                        keep_records=True)
    assert table.matches == alone.matches
    for (i, j), match in alone.matches.items():
        again = play_match(game, ["random", "greedy", "mcts:5"][i],
                           ["random", "greedy", "mcts:5"][j], n_games=5, seed=3,
                           keep_records=True)
        assert [r.players for r in match.records] == [r.players for r in again.records]


def _lines(path):
    return len(path.read_bytes().splitlines()) if path.is_file() else 0


def _interrupt_after(argv, journal, games, seconds=60.0):
    """Run ``tris-envs argv`` until ``journal`` holds ``games`` more games, then Ctrl-C."""
    before = _lines(journal)
    inherited = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        process = subprocess.Popen([sys.executable, "-m", "tris_envs.cli", *argv],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    finally:
        signal.signal(signal.SIGINT, inherited)
    began = time.monotonic()
    while _lines(journal) < before + games and process.poll() is None:
        assert time.monotonic() - began < seconds, "no games played in time"
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    return process.returncode, err


def test_a_huge_match_starts_playing_at_once_and_resumes(tmp_path):
    journal = tmp_path / "big.jsonl"
    argv = ["eval", "tris1", "random", "random", "--games", "1000000000", "--records",
            str(journal)]
    status, err = _interrupt_after(argv, journal, 200)
    assert status == 130 and "Traceback" not in err and "--resume" in err, err
    header = journal.read_bytes().splitlines()[0]
    assert json.loads(header)["games"] == 10**9
    played = _lines(journal)
    status, err = _interrupt_after(argv + ["--resume"], journal, 200)
    assert status == 130 and "Traceback" not in err, err
    assert _lines(journal) >= played + 200 and journal.read_bytes().splitlines()[0] == header


# ----- command line (items 8, 10, 11) --------------------------------------------------
def test_a_deeply_nested_option_value_is_a_clear_error(capsys):
    value = "-" * 5000 + "1"
    assert parse_options([f"max_moves={value}"]) == {"max_moves": value}
    status, _, err = run_cli(["eval", "tris1", "random", "random", "--games", "1", "--option",
                              f"max_moves={value}"], capsys)
    line = error_line(err, "eval")
    assert status == 2 and "max_moves=" in line and len(line) < 200


def test_the_heatmap_reports_the_file_it_writes(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, _, err = run_cli(["tournament", "tris1", "random", "greedy", "--games", "2",
                              "--heatmap", "table"], capsys)
    assert status == 0 and "heat map written to table.png" in err
    assert (tmp_path / "table.png").stat().st_size > 1000
    assert not (tmp_path / "table").exists()
    for bad, why in (("table.nope", "writes"), ("missing/table.png", "no folder")):
        began = time.monotonic()
        status, out, err = run_cli(["tournament", "tris1", "mcts:100", "greedy", "--heatmap",
                                    bad], capsys)
        assert status == 2 and out == "" and why in error_line(err, "tournament")
        assert time.monotonic() - began < 5                   # refused before playing


@pytest.mark.parametrize("argv, name", [(["watch", "--seed", "-1"], "--seed"),
                                        (["watch", "--games", "0"], "--games"),
                                        (["watch", "--seed", "x"], "--seed")])
def test_watch_names_the_bad_argument(argv, name, capsys):
    status, _, err = run_cli(argv, capsys)
    assert status == 2 and f"argument {name}: must be an integer" in error_line(err, "watch")


def test_ray_that_cannot_start_is_a_one_line_error(monkeypatch, capsys):
    ray = pytest.importorskip("ray")
    if ray.is_initialized():
        pytest.skip("Ray is already running in this process")

    def refuse(*args, **kwargs):
        raise RuntimeError("Failed to start the raylet\nand more lines of Ray's own")

    monkeypatch.setattr(ray, "init", refuse)
    status, out, err = run_cli(["eval", "tris1", "random", "random", "--games", "2",
                                "--ray"], capsys)
    line = error_line(err, "eval")
    assert status == 2 and out == ""
    assert "could not start a local Ray (RuntimeError: Failed to start the raylet)" in line
    status, _, err = run_cli(["eval", "tris1", "random", "random", "--games", "2",
                              "--ray", "10.0.0.5:6379"], capsys)
    assert status == 2 and "could not connect to Ray at '10.0.0.5:6379'" in err


