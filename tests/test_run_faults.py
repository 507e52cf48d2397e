"""Issue #31, "Reliability, round 2": each reproducer of the bad-input audit, and fuzzing of
what the audit found missed: random malformed records for ``tris-envs replay`` and random
command lines for the CLI (no traceback, no file changed by a failing run). The JAX port's
cases (illegal and out-of-range actions, options, action types) are in ``test_jax.py``."""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tris_envs import tris1_v0
from tris_envs.cli import main, parse_options
from tris_envs.evaluation import play_match, round_robin
from tris_envs.evaluation.records import GameRecord
from tris_envs.games import make_game
from tris_envs.games.tritoc import FIELD_MASKS, Tritoc
from tris_envs.machine import usable_cpus

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
    from tris_envs.evaluation.journal import identify

    game = make_game("tris1")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    shutil.copy(CHECKPOINTS / "tris1.pt", tmp_path / "a" / "final.pt")
    (tmp_path / "b" / "final.pt").write_bytes(b"other bytes")
    names, files = identify([f"ppo:{tmp_path / 'a' / 'final.pt'}",
                             f"ppo:{tmp_path / 'b' / 'final.pt'}", "ppo", "random"], game)
    assert names == ["ppo:final", "ppo:final#2", "ppo", "random"]
    assert files[0] != files[1] and None not in files[:3] and files[3] is None
    assert files[2] == identify([f"ppo:{CHECKPOINTS / 'tris1.pt'}"], game)[1][0]  # shipped


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


def test_results_and_records_keep_their_order_when_tallied_as_they_come(monkeypatch):
    from tris_envs.evaluation import backends

    monkeypatch.setattr(backends, "_WINDOW", 4)        # the pool gets the games 4 at a time
    monkeypatch.setattr(backends, "_MAX_CHUNK", 1)
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


@pytest.mark.skipif(usable_cpus() < 2, reason="a pool needs two CPUs; with one, games run here")
def test_a_match_whose_worker_is_killed_keeps_its_games_as_ctrl_c_does(tmp_path):
    """Without --records the temporary journal was deleted when a worker died, and the
    error named no file; Ctrl-C kept it."""
    import os

    argv = ["eval", "tris1", "mcts:1000", "random", "--games", "40", "--processes", "2"]
    command = [sys.executable, "-m", "tris_envs.cli", *argv]
    # the temporary journal and the pool's folder (which names its workers) in tmp_path
    environment = {**os.environ, "TMPDIR": str(tmp_path)}
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=environment)
    began = time.monotonic()
    while not (journals := list(tmp_path.glob("tris-envs-eval-*.jsonl"))) \
            or _lines(journals[0]) < 2 or not list(tmp_path.glob("tris-envs-pool-*/worker-*")):
        assert process.poll() is None and time.monotonic() - began < 60, "no game in time"
        time.sleep(0.02)
    worker = next(tmp_path.glob("tris-envs-pool-*/worker-*"))
    os.kill(int(worker.name.removeprefix("worker-")), signal.SIGKILL)
    _, err = process.communicate(timeout=60)
    journal = journals[0]
    assert process.returncode == 1 and "Traceback" not in err, err
    assert err.splitlines()[-1].startswith("tris-envs eval: error: a worker process of the "
                                           "match died while playing"), err
    assert (f"finished games are in {journal}: run the same command with --records "
            f"{journal} --resume to continue") in err
    assert 2 <= _lines(journal) < 41                      # the header and the games kept
    resumed = subprocess.run([*command, "--records", str(journal), "--resume"],
                             capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0 and " in 40 games " in resumed.stdout, resumed.stderr
    assert _lines(journal) == 41


def _hold_lock_in_a_pool_worker(lock, ready) -> None:
    from tris_envs.evaluation.backends import _init_pool_worker

    _init_pool_worker(None, [], [], 0, False)
    with lock:
        ready.set()
        time.sleep(60)


def _wait_where_the_sigterm_handler_cannot_run(lock, ready) -> None:
    import os

    from tris_envs.evaluation.backends import _init_pool_worker

    _init_pool_worker(None, [], [], 0, False)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})   # it lands on another thread
    ready.set()
    lock.acquire()                                  # held by the parent, as terminate does
    os._exit(0)


def _terminate_when_ready(body, lock) -> int | None:
    """The exit code of a spawned ``body(lock, ready)`` terminated once it sets ``ready``
    (``None``: still running 30 s later, then killed)."""
    import multiprocessing

    spawn = multiprocessing.get_context("spawn")
    ready = spawn.Event()
    worker = spawn.Process(target=body, args=(lock, ready))
    worker.start()
    try:
        assert ready.wait(60)
        worker.terminate()
        worker.join(30)
        return worker.exitcode
    finally:
        worker.kill()


def test_a_terminated_pool_worker_releases_the_locks_it_holds():
    """``Pool.terminate`` SIGTERMs the workers; one killed while it held the result queue's
    lock hung the parent for good (seen once in the CLI's bad-checkpoint test under load)."""
    import multiprocessing

    lock = multiprocessing.get_context("spawn").Lock()
    assert _terminate_when_ready(_hold_lock_in_a_pool_worker, lock) == 1
    assert lock.acquire(timeout=5)


def test_a_pool_worker_leaves_on_sigterm_even_where_its_handler_cannot_run():
    """A worker blocked on a lock whose SIGTERM Python never hands to the main thread (seen:
    one waiting for the task queue's lock, which ``Pool.terminate`` takes) hung the parent's
    ``join`` at the end of a match, about once in 300 matches."""
    import multiprocessing

    lock = multiprocessing.get_context("spawn").Lock()
    lock.acquire()
    assert _terminate_when_ready(_wait_where_the_sigterm_handler_cannot_run, lock) == 1


def test_a_match_that_ends_closes_its_pool_without_sigterm(monkeypatch):
    """Only an early stop terminates the pool's workers; a match played to its end lets them
    leave on their own."""
    import os

    kill, signals = os.kill, []

    def spy(pid, signum):
        signals.append(signum)
        kill(pid, signum)

    monkeypatch.setattr(os, "kill", spy)
    result = play_match(make_game("tris1"), "random", "greedy", n_games=4, seed=0,
                        processes=2)
    assert sum(map(sum, result.by_seat)) == 4
    assert signal.SIGTERM not in signals


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


# ----- replay of malformed records (item 7) ---------------------------------------------
@pytest.fixture(scope="module")
def record():
    game = make_game("tris1")
    result = play_match(game, "random", "greedy", n_games=1, seed=4, keep_records=True)
    return json.loads(result.records[0].to_json())


def _malformed(record):
    move = record["moves"][0]
    cases = {
        "plain ints": {"moves": [m[1] for m in record["moves"]]},
        "null actor": {"moves": [[None, 1]] + record["moves"][1:]},
        "actor outside": {"moves": [[5, move[1]]] + record["moves"][1:]},
        "player 1 first": {"moves": [[1, move[1]]] + record["moves"][1:]},
        "options null": {"options": None},
        "options list": {"options": [1]},
        "no positions": {"positions": []},
        "float action": {"moves": [[0, move[1] + 0.7]] + record["moves"][1:]},
        "whole float": {"moves": [[0, float(move[1])]] + record["moves"][1:]},
        "boolean action": {"moves": [[0, True]] + record["moves"][1:]},
        "illegal action": {"moves": [[0, 99]] + record["moves"][1:]},
        "one player": {"players": ["random"]},
        "wrong position": {"positions": ["XXX/OOO/XXX"] + record["positions"][1:]},
        "returns text": {"returns": "win"},
        "unknown game": {"game": "chess"},
        "bad option": {"options": {"max_moves": "many"}},
    }
    return {name: {**record, **change} for name, change in cases.items()}


def test_malformed_records_are_one_line_errors(record, tmp_path, capsys):
    page = tmp_path / "page.html"
    page.write_text("kept")
    for name, bad in _malformed(record).items():
        for path, text in ((tmp_path / "list.json", json.dumps([bad])),
                           (tmp_path / "journal.jsonl",
                            json.dumps({"task": [0], "seat": 0, "record": json.dumps(bad)}))):
            path.write_text(text)
            status, out, err = run_cli(["replay", str(path), "--html", str(page)], capsys)
            assert status == 2 and out == "", name
            assert len(error_line(err, "replay")) < 400, name
            assert page.read_text() == "kept", name


def test_a_journal_record_given_as_an_object_replays(record, tmp_path, capsys):
    journal, page = tmp_path / "journal.jsonl", tmp_path / "page.html"
    journal.write_text(json.dumps({"task": [0], "seat": 0, "record": record}) + "\n")
    status, out, _ = run_cli(["replay", str(journal), "--html", str(page)], capsys)
    assert status == 0 and "1 game(s) written" in out and page.stat().st_size > 1000
    journal.write_text(json.dumps({"task": [0], "seat": 0, "record": {"a": 1}}) + "\n")
    status, _, err = run_cli(["replay", str(journal), "--html", str(page)], capsys)
    assert status == 2 and "line 1: game record lacks field(s)" in error_line(err, "replay")


def test_from_json_refuses_what_it_cannot_replay(record):
    assert GameRecord.from_json(json.dumps(record)).moves[0] == tuple(record["moves"][0])
    for name, bad in _malformed(record).items():
        if name in ("player 1 first", "illegal action", "wrong position", "unknown game",
                    "bad option"):
            continue                    # well formed: replaying it finds what is wrong
        with pytest.raises(ValueError):
            GameRecord.from_json(json.dumps(bad))


JSON = st.recursive(st.none() | st.booleans() | st.integers(-2**40, 2**40)
                    | st.floats(allow_nan=False) | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=8)
FIELDS = ["game", "options", "players", "start", "moves", "positions", "returns",
          "truncated"]


@FUZZ
@given(data=st.data())
def test_fuzz_replay_of_malformed_records(record, tmp_path_factory, data):
    folder = tmp_path_factory.mktemp("fuzz")
    bad = json.loads(json.dumps(record))
    for _ in range(data.draw(st.integers(1, 3))):
        field = data.draw(st.sampled_from(FIELDS))
        how = data.draw(st.sampled_from(["replace", "drop", "move", "position"]))
        if how == "replace":
            bad[field] = data.draw(JSON)
        elif how == "drop":
            bad.pop(field, None)
        elif how == "move" and isinstance(bad.get("moves"), list) and bad["moves"]:
            ply = data.draw(st.integers(0, len(bad["moves"]) - 1))
            bad["moves"][ply] = data.draw(JSON | st.lists(st.integers(-3, 400), min_size=2,
                                                          max_size=2))
        elif how == "position" and isinstance(bad.get("positions"), list) and bad["positions"]:
            ply = data.draw(st.integers(0, len(bad["positions"]) - 1))
            bad["positions"][ply] = data.draw(st.text(alphabet="XO./", max_size=12))
    form = data.draw(st.sampled_from(["list", "journal", "object journal"]))
    path = folder / "records.txt"
    if form == "list":
        path.write_text(json.dumps([bad]))
    else:
        inner = bad if form == "object journal" else json.dumps(bad)
        path.write_text(json.dumps({"task": [0], "seat": 0, "record": inner}) + "\n")
    page = folder / "page.html"
    page.write_text("kept")
    capsys_free = _Captured()
    status = capsys_free.run(["replay", str(path), "--html", str(page)])
    assert status in (0, 2) and "Traceback" not in capsys_free.err
    if status != 0:
        assert page.read_text() == "kept"


class _Captured:
    """``main(argv)`` with stdout and stderr captured (hypothesis tests take no capsys)."""

    def run(self, argv):
        import contextlib
        import io

        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(argv)
            except SystemExit as exit_:
                status = exit_.code if isinstance(exit_.code, int) else 1
        self.out, self.err = out.getvalue(), err.getvalue()
        return status


# ----- random command lines ------------------------------------------------------------
GAME_WORDS = ["tris1", "tant_fant", "tris2", "tritoc", "doppia_scelta", "chess", ""]
AGENT_WORDS = ["random", "greedy", "mcts:3", "alphabeta:1", "mcts:x", "ppo:none.zip",
               "az:notes.txt", "", "-", "solver:1", "alphabeta:99"]
COUNT_WORDS = ["0", "1", "2", "-1", "x", "", "1.5", "-" * 300 + "1"]
OPTION_WORDS = ["max_moves=3", "max_moves=0", "max_moves=" + "-" * 3000 + "1", "foo=1", "=",
                "stalemate=loss", "max_moves=10**10", "layout=[1]", "max_side=4",
                "setup=placement", "x"]
FILE_WORDS = ["journal.jsonl", "notes.txt", "page.html", "new.jsonl", "missing/x.jsonl",
              "page", "."]


@st.composite
def command_lines(draw):
    command = draw(st.sampled_from(["eval", "tournament", "replay", "watch", "play", "bench",
                                    "nonsense"]))
    argv = [command]
    word = st.sampled_from
    if command in ("eval", "tournament"):
        argv.append(draw(word(GAME_WORDS)))
        argv += draw(st.lists(word(AGENT_WORDS), min_size=1, max_size=3))
        argv += ["--games", draw(word(COUNT_WORDS))]
        for flag, values in (("--seed", COUNT_WORDS), ("--option", OPTION_WORDS),
                             ("--records", FILE_WORDS), ("--heatmap", FILE_WORDS),
                             ("--processes", ["1", "0", "x"])):
            if draw(st.booleans()):
                argv += [flag, draw(word(values))]
        argv += draw(st.lists(word(["--resume", "--force", "--metrics", "--bogus"]),
                              max_size=2, unique=True))
        if "--processes" not in argv and draw(st.booleans()):
            argv += ["--processes", "2", "--ray"]    # refused before Ray or a pool starts
    elif command == "replay":
        argv += [draw(word(FILE_WORDS))]
        if draw(st.booleans()):
            argv += ["--html", draw(word(FILE_WORDS))]
    elif command == "watch":
        argv += ["--games", draw(word(["0", "1", "-3", "x"])),
                 "--seed", draw(word(COUNT_WORDS))]
    elif command == "play":
        argv += [draw(word(GAME_WORDS)), "--opponent", draw(word(AGENT_WORDS[:2] + ["nope"])),
                 "--seed", draw(word(COUNT_WORDS))]
        if draw(st.booleans()):
            argv += ["--option", draw(word(OPTION_WORDS))]
    elif command == "bench":                      # only refused values: a bench takes long
        flag = draw(word(["--steps", "--rounds", "--mcts-simulations"]))
        argv += [flag, draw(word(["-1", "x", "1.5"] + (["0"] if flag != "--mcts-simulations"
                                                       else [])))]
    return argv


@FUZZ
@given(argv=command_lines())
def test_fuzz_command_lines(tmp_path_factory, monkeypatch_module, argv):
    import io

    folder = tmp_path_factory.mktemp("cli")
    game = make_game("tris1")
    play_match(game, "random", "random", n_games=2, seed=12345, records=folder / "journal.jsonl")
    (folder / "notes.txt").write_text("notes\n")
    (folder / "page.html").write_text("<p>kept</p>")
    before = {path.name: path.read_bytes() for path in folder.iterdir()}
    monkeypatch_module.chdir(folder)
    monkeypatch_module.setattr(sys, "stdin", io.StringIO(""))   # play: end of input
    captured = _Captured()
    status = captured.run(argv)
    assert status in (0, 2), (argv, status, captured.err)
    assert "Traceback" not in captured.err
    if status == 2:
        lines = [line for line in captured.err.splitlines() if line.startswith("tris-envs")]
        assert len(lines) == 1 and len(lines[0]) < 600, (argv, captured.err)
    allowed = set()
    if status == 0 and "--force" in argv:
        allowed.add(argv[argv.index("--records") + 1] if "--records" in argv else "")
    if status == 0 and argv[0] == "replay" and "--html" in argv:
        allowed.add(argv[argv.index("--html") + 1])
    for name, content in before.items():
        if name not in allowed:
            assert (folder / name).read_bytes() == content, (argv, name)


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        yield patch


# ----- environments (items 9, 11, 12) ----------------------------------------------------
def test_env_step_true_says_it_is_not_an_integer():
    from tris_envs.envs.classic import OutOfBoundsActionError

    env = tris1_v0.env()
    env.reset(seed=0)
    for action in (True, np.bool_(False), 1.0, "1", np.array([1, 2])):
        with pytest.raises(OutOfBoundsActionError, match="is not an integer in the action"):
            env.step(action)
    env.step(np.array(4))                                 # a 0-d integer array is an action
    assert env.unwrapped.position == ".../.X./..."


def test_raw_env_misuse_gives_clear_errors():
    env = tris1_v0.raw_env()
    for call, what in ((lambda: env.step(0), "step()"),
                       (lambda: env.observe("player_0"), "observe()"),
                       (lambda: env.position, "position")):
        with pytest.raises(RuntimeError, match=re.escape(f"{what} before reset(): call reset()")):
            call()
    with pytest.raises(TypeError, match="reset options must be a dict"):
        env.reset(options="abc")
    env.reset()
    with pytest.raises(ValueError, match="unknown agent 'player_2'; the agents are "
                                         "'player_0', 'player_1'"):
        env.observe("player_2")
    wrapped = tris1_v0.env()
    wrapped.reset()
    with pytest.raises(ValueError, match="unknown agent"):
        wrapped.observe("player_2")


def test_single_agent_env_refuses_inexact_seats_and_bad_options():
    from tris_envs.envs.single_agent import SingleAgentEnv

    for seat in (1.0, 0.0, True, np.float64(1.0), "1"):
        with pytest.raises(ValueError, match="option seat="):
            SingleAgentEnv("tris1", seat=seat)
    assert SingleAgentEnv("tris1", seat=np.int64(1)).seat == 1
    env = SingleAgentEnv("tris1", seat=0)
    with pytest.raises(TypeError, match="reset options must be a dict"):
        env.reset(options="abc")


def _tritoc_position(white_fields, side):
    """A Tritoc position where White has conquered ``white_fields`` (full of its stones)."""
    stones = 0
    for field in white_fields:
        stones |= FIELD_MASKS[field]
    rows = ["".join("W" if stones >> r * 9 + c & 1 else "." for c in range(9))
            for r in range(9)]
    return f"{'/'.join(rows)} {side} - 0"


def test_tritoc_refuses_a_win_no_game_reaches():
    game = Tritoc()
    game.from_notation(_tritoc_position([0, 1, 2, 4], "b"))      # field 1, 0 or 2 last
    for fields in (range(9), [0, 1, 2, 3, 4, 5], [0, 1, 2, 6, 7, 8]):
        with pytest.raises(ValueError, match="even without the field conquered last"):
            game.from_notation(_tritoc_position(fields, "b"))


@pytest.mark.parametrize("field", [0, 1, 2, 3, 4])
def test_tritoc_position_errors_quote_fields_briefly(field):
    fields = ["/".join(["." * 9] * 9), "w", "7", "0", "3" * 81]
    fields[field] = "W" * 100_000 if field == 0 else "x" * 100_000
    with pytest.raises(ValueError) as error:
        Tritoc().from_notation(" ".join(fields))
    assert len(str(error.value)) < 400
    rows = ["." * 9] * 9
    rows[4] = "W" * 100_000
    with pytest.raises(ValueError, match="row 4 'WWW") as error:
        Tritoc().from_notation("/".join(rows) + " w 7 0")
    assert len(str(error.value)) < 400


def test_doppia_scelta_takes_a_flat_board_as_documented():
    flat = "YGRGYGGRYYRRGGYYYGGRGRYGR"
    rows = "/".join(flat[i:i + 5] for i in range(0, 25, 5))
    states = [make_game("doppia_scelta", board=board).initial_state(np.random.default_rng(0))
              for board in (flat, rows)]
    assert states[0] == states[1] and states[0].colors == flat
    text = (Path(__file__).resolve().parent.parent / "docs" / "games" /
            "doppia_scelta.md").read_text()
    assert "rejected with a hint" not in text and "25 letters in reading order" in text


# ----- files rewritten whole, journals locked, write errors (tris_envs.durable) ----------
def test_a_file_rewritten_whole_is_the_old_one_until_the_new_one_is_complete(tmp_path,
                                                                              monkeypatch):
    import errno
    import os

    from tris_envs import durable

    path = tmp_path / "progress.csv"
    durable.write_text(path, "old\n")
    with pytest.raises(RuntimeError), durable.replaced(path) as file:
        file.write("half of the new")
        raise RuntimeError("killed here")
    assert path.read_text() == "old\n" and [p.name for p in tmp_path.iterdir()] == [path.name]

    def full(handle):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError, match="No space left on device: .*progress.csv"):
        durable.write_text(path, "new\n")
    assert path.read_text() == "old\n" and [p.name for p in tmp_path.iterdir()] == [path.name]


def test_a_file_rewritten_whole_keeps_its_mode_and_its_link(tmp_path):
    import os
    import stat

    from tris_envs import durable

    def mode(path):
        return stat.S_IMODE(path.stat().st_mode)

    umask = os.umask(0o022)
    try:
        fresh = durable.write_text(tmp_path / "fresh.txt", "new\n")
        assert mode(fresh) == 0o644                     # a new file: 0o666 less the umask
        os.chmod(fresh, 0o600)
        durable.write_text(fresh, "again\n")
        assert mode(fresh) == 0o600 and fresh.read_text() == "again\n"
    finally:
        os.umask(umask)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    real, link = elsewhere / "real.txt", tmp_path / "link.txt"
    real.write_text("old\n")
    link.symlink_to(real)
    durable.write_text(link, "through the link\n")
    assert link.is_symlink() and real.read_text() == "through the link\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere", "fresh.txt", "link.txt"]
    dangling = tmp_path / "dangling.txt"
    dangling.symlink_to(elsewhere / "made.txt")
    durable.write_text(dangling, "made\n")
    assert dangling.is_symlink() and (elsewhere / "made.txt").read_text() == "made\n"


def test_a_resumed_journal_keeps_its_mode_and_its_link(tmp_path):
    import os
    import stat

    game, real = make_game("tris1"), tmp_path / "kept" / "games.jsonl"
    real.parent.mkdir()
    whole = play_match(game, "random", "greedy", n_games=6, seed=1, records=real)
    lines = real.read_bytes().splitlines(keepends=True)
    real.write_bytes(b"".join(lines[:4]))                   # the header and 3 of the 6 games
    os.chmod(real, 0o600)
    link = tmp_path / "games.jsonl"
    link.symlink_to(real)
    assert play_match(game, "random", "greedy", n_games=6, seed=1, records=link,
                      resume=True) == whole
    assert link.is_symlink() and stat.S_IMODE(real.stat().st_mode) == 0o600
    assert real.read_bytes().splitlines() == b"".join(lines).splitlines()


@pytest.fixture
def default_ctrl_c():
    """Python's own Ctrl-C handler for the test, even where the suite was started in the
    background of a shell (which starts it with SIGINT ignored)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_ctrl_c_and_sigterm_wait_for_the_bookkeeping_then_stop_the_run(default_ctrl_c):
    import os

    from tris_envs.durable import Terminated, deferred_interrupts, sigterm_as_interrupt

    done = []
    with pytest.raises(Terminated), sigterm_as_interrupt():
        with deferred_interrupts():
            os.kill(os.getpid(), signal.SIGTERM)
            done.append("the row after the state")
        done.append("never")
    assert done == ["the row after the state"]
    with pytest.raises(KeyboardInterrupt) as interrupt, deferred_interrupts():
        signal.raise_signal(signal.SIGINT)
        done.append("the count after the state")
    assert not isinstance(interrupt.value, Terminated) and done[-1] == "the count after the state"
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


class _SignalledOnDeletion:
    """Sends this process SIGTERM from its ``__del__``, where Python drops the exception
    the handler raises (printed as "Exception ignored in")."""

    def __del__(self) -> None:
        import os

        os.kill(os.getpid(), signal.SIGTERM)
        sum(range(10_000))                  # the handler runs here, inside __del__


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_sigterm_dropped_inside_a_del_is_raised_at_the_next_step_of_the_loop():
    """A match went on for two minutes after its SIGTERM (seen once under load)."""
    from tris_envs.durable import Terminated, sigterm_as_interrupt
    from tris_envs.progress import Progress

    steps = []
    with pytest.raises(Terminated), sigterm_as_interrupt():
        with Progress("test", 10, quiet=True) as progress:
            for step in range(10):
                if step == 3:
                    _SignalledOnDeletion()              # made and deleted at once
                progress.advance()
                steps.append(step)
    assert steps == [0, 1, 2]
    with sigterm_as_interrupt(), Progress("test", 1, quiet=True) as progress:
        progress.advance()                              # a new block starts untroubled


def test_resume_replaces_the_journal_whole_and_a_failed_rewrite_keeps_it(tmp_path,
                                                                         monkeypatch):
    import os

    game, journal = make_game("tris1"), tmp_path / "j.jsonl"
    whole = play_match(game, "random", "greedy", n_games=4, seed=1, records=journal)
    lines = journal.read_bytes().splitlines(keepends=True)
    journal.write_bytes(b"".join(lines[:3]) + lines[3][:20])       # a line cut short
    kept = journal.read_bytes()

    def full(handle):
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as patch:
        patch.setattr(os, "fsync", full)
        with pytest.raises(OSError, match=r"cannot write the journal .*j.jsonl' \(No space "
                                          r"left on device\): it is unchanged"):
            play_match(game, "random", "greedy", n_games=4, seed=1, records=journal,
                       resume=True)
    assert journal.read_bytes() == kept and sorted(p.name for p in tmp_path.iterdir()) == [
        "j.jsonl"]
    assert play_match(game, "random", "greedy", n_games=4, seed=1, records=journal,
                      resume=True) == whole
    assert journal.read_bytes().splitlines() == b"".join(lines).splitlines()


def test_a_second_run_on_a_journal_being_written_is_refused(tmp_path, capsys):
    journal = tmp_path / "games.jsonl"
    argv = ["eval", "tris1", "random", "greedy", "--games", "4", "--records", str(journal)]
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from tris_envs.durable import exclusive\n"
         "with exclusive(sys.argv[1], 'the journal'):\n print('held', flush=True)\n"
         " time.sleep(60)", str(journal)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        for extra in ([], ["--force"], ["--resume"]):
            status, out, err = run_cli(argv + extra, capsys)
            line = error_line(err, "eval")
            assert status == 2 and out == "" and "is being written by another run" in line
            assert not journal.exists()
        with pytest.raises(ValueError, match="is being written by another run"):
            play_match(make_game("tris1"), "random", "greedy", n_games=4, seed=0,
                       records=journal)
    finally:
        holder.kill()
        holder.wait()
    assert run_cli(argv, capsys)[0] == 0                       # the holder is gone
    assert len(journal.read_bytes().splitlines()) == 5
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.jsonl"]   # no lock left


def _full_disk_after(monkeypatch, games):
    """Appends to a journal fail with ENOSPC once ``games`` games were appended."""
    from tris_envs.evaluation import journal

    real_open, appended = Path.open, []

    class Full:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def write(self, text):
            raise OSError(28, "No space left on device")

    def open_(path, mode="r", *args, **kwargs):
        if mode == "a" and path.suffix == ".jsonl":
            if len(appended) >= games:
                return Full()
            appended.append(path)
        return real_open(path, mode, *args, **kwargs)

    monkeypatch.setattr(journal.Path, "open", open_)


def test_a_full_disk_names_the_journal_what_it_keeps_and_how_to_resume(tmp_path, capsys,
                                                                       monkeypatch):
    journal = tmp_path / "games.jsonl"
    argv = ["eval", "tris1", "random", "greedy", "--games", "6", "--records", str(journal)]
    with monkeypatch.context() as patch:
        _full_disk_after(patch, 2)
        status, out, err = run_cli(argv, capsys)
    line = error_line(err, "eval")
    assert status == 2 and out == ""
    assert (f"cannot write to the journal {str(journal)!r} (No space left on device): its 2 "
            f"finished games are kept; make room, then continue with --records {journal} "
            "--resume") in line
    assert len(journal.read_bytes().splitlines()) == 3
    status, out, _ = run_cli(argv + ["--resume"], capsys)
    assert status == 0
    assert out == run_cli(["eval", "tris1", "random", "greedy", "--games", "6"], capsys)[1]
    with monkeypatch.context() as patch:                   # without --records: kept too
        _full_disk_after(patch, 1)
        status, _, err = run_cli(argv[:6], capsys)
    temporary = Path(re.search(r"journal '([^']+)'", error_line(err, "eval")).group(1))
    try:
        assert status == 2 and "its 1 finished games are kept" in err
        assert len(temporary.read_bytes().splitlines()) == 2
    finally:
        temporary.unlink()


# ----- the replay page's inline data ----------------------------------------------------
def test_names_that_look_like_html_cannot_break_the_replay_page(tmp_path):
    pytest.importorskip("pygame")
    from tris_envs.replay import script_json, write_html

    names = ["<!--<script>", "</script><b>x</b>&amp;\u2028\u2029"]
    game = make_game("tris1")
    record = play_match(game, "random", "greedy", n_games=1, seed=0,
                        keep_records=True).records[0]
    record.players = tuple(names)
    page = write_html([record], tmp_path / "page.html", title="</title>__DATA__")
    text = page.read_text()
    line = re.search(r"const GAMES = (.*);\n", text).group(1)
    for unsafe in ("<", ">", "&", "\u2028", "\u2029"):
        assert unsafe not in line, unsafe
    assert text.count("<script>") == 1 and text.count("</script>") == 1
    assert json.loads(line)[0]["players"] == names
    assert "<title>&lt;/title&gt;__DATA__</title>" in text
    assert json.loads(script_json({"a": "<&>\u2028"})) == {"a": "<&>\u2028"}
