"""The command line: a whole game of ``play`` through a pseudo-terminal, eval, tournament."""

from __future__ import annotations

import re
import sys
from importlib.util import find_spec

import numpy as np
import pexpect
import pytest

from tris_envs.agents import GreedyAgent
from tris_envs.cli import main, parse_options
from tris_envs.core import TERMINAL, resolve_chance
from tris_envs.games import GAMES, make_game
from tris_envs.games.tris1 import Tris1
from tris_envs.play import play_session
from tris_envs.replay import read_records

PROMPT = "your move> "
TRAIN = all(find_spec(name) for name in ("torch", "stable_baselines3", "sb3_contrib"))
"""Whether the train extra is installed (the sdist's tests run without it too)."""


def spawn(*args: str) -> pexpect.spawn:
    return pexpect.spawn(sys.executable, ["-m", "tris_envs.cli", *args], encoding="utf-8",
                         timeout=60, dimensions=(50, 200))


def test_play_a_whole_game_in_a_terminal():
    child = spawn("play", "tris1", "--opponent", "solver", "--first", "--seed", "3",
                  "--no-warn")                  # tests/test_terminal_play.py: the warnings
    child.expect("you play X \\(seat 0, moving first\\) against solver")
    child.expect("this start is a draw")
    child.expect(PROMPT)
    child.sendline("zz")
    child.expect("Not played: 'zz' is not a move; legal moves: 0,0; 0,1; ")
    child.expect(PROMPT)
    child.sendline("hint")
    child.expect(r"hint \(solver\): \d,\d")
    child.expect(PROMPT)
    child.sendline("\x1b[A")                        # arrow up: readline recalls "hint"
    child.expect(r"hint \(solver\): \d,\d")
    child.expect(PROMPT)
    child.sendline("1,1")
    child.expect(r"solver plays (\d,\d)")
    taken = child.match.group(1)
    child.expect(PROMPT)
    child.sendline(taken)                               # the opponent's cell: illegal
    child.expect(f"Not played: {taken} is illegal: the die at row \\d, column \\d already shows")
    moves = 1
    while True:
        outcome = child.expect([PROMPT, "Draw\\.", "You lose\\.", "You win!"])
        if outcome:
            break
        child.sendline("moves")
        child.expect(r"legal moves: (\d,\d)")
        move = child.match.group(1)
        child.expect(PROMPT)
        child.sendline(move)
        moves += 1
    assert outcome in (1, 2), "nobody beats the solver"
    assert re.search(r"\x1b\[1m(Draw|O wins with the line( \d,\d){3})\x1b\[0m", child.before)
    assert moves <= 5
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "Traceback" not in child.before


def test_play_quits_cleanly_and_rejects_bad_arguments():
    child = spawn("play", "tant_fant", "--opponent", "greedy")
    child.expect("greedy plays [a-c][1-3]-[a-c][1-3]")
    child.expect(PROMPT)
    child.sendline("b3-a2")
    child.expect("b3 and a2 are not adjacent on a line")
    child.expect(PROMPT)
    child.sendline("quit")
    child.expect("You left the game.")
    child.expect(pexpect.EOF)
    for args, message in ((["play", "tris1", "--opponent", "alphazero"], "unknown agent"),
                          (["play", "tant_fant", "--option", "stalemate=lose"],
                           "stalemate='lose' is not allowed"),
                          (["eval", "tris1", "ppo:missing.zip", "random"],
                           "missing.zip" if TRAIN else "the train extra")):
        child = spawn(*args)
        child.expect(message)
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 2 and "Traceback" not in child.before


def test_play_session_with_scripted_input_reaches_the_end():
    lines = iter(["hint", "1,1", "0,0", "2,2", "0,2", "2,0", "1,0", "0,1", "1,2", "2,1"])
    shown: list[str] = []

    def read(prompt: str) -> str:
        return next(lines)

    result = play_session(Tris1(), "random", human_seat=0, seed=1, read=read,
                          write=shown.append)
    text = "\n".join(shown)
    assert result in (-1, 0, 1)
    assert re.search(r"You win!|Draw\.|You lose\.", text)


def test_one_notation_typed_announced_and_shown():
    """Tris 2: the move typed, the agent's announced move and the status line's last move
    name the roll alike (the die's cell before the roll and its direction; the announcement
    and the status line add the cell it stands on now)."""
    game = make_game("tris2")
    drawn: list = []                  # the states whose boards the session printed
    render_text = game.render_text
    game.render_text = lambda state: drawn.append(state) or render_text(state)  # type: ignore
    shown: list[str] = []
    typed: list[str] = []
    rng = np.random.default_rng(0)

    def read(prompt: str) -> str:
        if len(typed) == 3:
            raise EOFError
        state = drawn[-1]
        typed.append(game.action_name(state, GreedyAgent(rng).act(game, state)))
        return typed[-1].lower()                              # case does not matter

    play_session(game, "greedy", human_seat=0, seed=4, read=read, write=shown.append)
    announced = [line.removeprefix("greedy plays ") for line in shown
                 if line.startswith("greedy plays ")]
    statuses = [line.splitlines()[-1] for line in shown if "last move" in line]
    assert len(typed) == 3 and len(announced) >= 2
    for move in typed + announced:
        assert any(f"last move {move}" in status for status in statuses), move
    assert all(re.fullmatch(r"\d,\d [NESW] \(now \d,\d\)", move) for move in announced)


def test_doppia_scelta_accepts_the_names_it_prints():
    game = make_game("doppia_scelta")
    rng = np.random.default_rng(0)
    state = resolve_chance(game, game.initial_state(rng), rng)
    while game.current_player(state) != TERMINAL and game.legal_actions(state)[0] >= 3:
        state = resolve_chance(game, game.apply(state, game.legal_actions(state)[0]), rng)
    listed = game.render_text(state).splitlines()[-1].split(": ", 1)[1].split(", ")
    for name, action in zip(listed, game.legal_actions(state)):
        for form in (name, name.split(" (")[0], "turn " + name if "straight" not in name
                     else name, name.upper()):
            assert game.parse_action(state, form) == action


@pytest.mark.parametrize("command", ["", "play", "eval", "tournament", "replay", "bench",
                                     "watch"])
def test_help_is_plain_text_and_describes_the_agents(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"] if command else ["--help"])
    text = capsys.readouterr().out
    assert "`" not in text
    if command in ("play", "eval", "tournament"):
        for spec in ("random", "greedy", "mcts:N:decisive", "alphabeta:N", "solver",
                     "ppo:PATH", "az:PATH:N"):
            assert spec in text


@pytest.mark.parametrize("argv", [["--help"], ["train", "az", "--help"], ["bench", "--help"],
                                  ["play", "--help"]])
def test_help_imports_no_optional_extra(argv):
    """The whole parser tree is built without torch, JAX, Ray, OpenSpiel, matplotlib or
    pygame: ``tris-envs --help`` and ``tris-envs play`` need no extra."""
    code = ("import sys\nfrom tris_envs.cli import main\n"
            f"try:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
            "extras = ('torch', 'jax', 'ray', 'pyspiel', 'matplotlib', 'pygame', 'mctx', "
            "'sb3_contrib', 'tensorboard')\n"
            "print(sorted(name for name in extras if name in sys.modules))")
    import subprocess

    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=True)
    assert done.stdout.splitlines()[-1] == "[]", done.stdout
    assert "usage: tris-envs" in done.stdout

def test_agent_help_states_the_real_defaults():
    from tris_envs.agents import make_agent
    from tris_envs.agents.az import DEFAULT_SIMULATIONS
    from tris_envs.agents.factory import AGENT_HELP

    assert f"{make_agent('mcts').simulations} simulations per move" in AGENT_HELP
    assert f"alpha-beta search, {make_agent('alphabeta').plies} plies" in AGENT_HELP
    assert f"({DEFAULT_SIMULATIONS} simulations unless" in AGENT_HELP


def test_control_keys_are_refused_with_a_reason():
    lines = iter(["\x1b[D", "quit"])
    shown: list[str] = []
    play_session(Tris1(), "random", 0, seed=1, read=lambda prompt: next(lines),
                 write=shown.append)
    assert "Not played: arrow and control keys do not name a move; type one (0,0)." in shown


def test_the_final_status_is_bold_only_in_a_terminal(capsys, monkeypatch):
    def session() -> str:
        lines = iter(["0,0", "0,1", "0,2", "1,0", "1,1", "1,2", "2,0", "2,1", "2,2"])
        play_session(Tris1(), "random", 0, seed=1, read=lambda prompt: next(lines))
        return capsys.readouterr().out

    plain = session()
    assert "\x1b" not in plain and re.search(r"\n(Draw|[XO] wins with the line.*)\n", plain)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    final = session().split("\n\n")[-1].splitlines()
    assert all("\x1b" not in line for line in final[:-2])          # the board itself: plain
    assert final[-2].startswith("\x1b[1m") and final[-2].endswith("\x1b[0m")


def test_a_network_opponent_says_it_is_loading_before_the_board():
    shown: list[str] = []

    def read(prompt: str) -> str:
        raise EOFError

    play_session(Tris1(), "az", 0, read=read, write=shown.append)
    assert shown[0] == "loading the az network ..." and "you play X (seat 0" in shown[1]


def test_end_of_input_leaves_the_game():
    def read(prompt: str) -> str:
        raise EOFError

    assert play_session(Tris1(), "random", 0, read=read, write=lambda s: None) == 0


def test_eval_and_tournament(capsys, tmp_path):
    main(["eval", "tant_fant", "greedy", "random", "--games", "10", "--seed", "1"])
    assert re.search(r"greedy vs random: \+\d+ =\d+ -\d+ in 10 games", capsys.readouterr().out)
    pytest.importorskip("matplotlib")              # the heat map (train extra)
    heatmap = tmp_path / "table.png"
    main(["tournament", "tris1", "random", "solver", "--games", "6", "--heatmap",
          str(heatmap)])
    out = capsys.readouterr().out
    assert "| agent | Elo | score | random | solver |" in out
    assert heatmap.stat().st_size > 1000


@pytest.mark.parametrize("pairs, expected", [
    (["stalemate=loss", "diagonal_only=True", "max_moves=40"],
     {"stalemate": "loss", "diagonal_only": True, "max_moves": 40}),
    (["gates=('4,0,S','0,4,N','4,4,S','0,0,N')"],
     {"gates": ("4,0,S", "0,4,N", "4,4,S", "0,0,N")}),
])
def test_parse_options(pairs, expected):
    assert parse_options(pairs) == expected


def test_bad_option_syntax_is_reported():
    with pytest.raises(SystemExit) as exit_info:
        main(["eval", "tris1", "random", "random", "--option", "oops"])
    assert exit_info.value.code == 2


@pytest.mark.parametrize("name", [spec.env_name for spec in GAMES.values()])
def test_every_legal_move_name_parses_back(name):
    options = {"setup": "placement"} if name == "tris2_v0" else {}
    game = make_game(name, **options)
    rng = np.random.default_rng(0)
    for _ in range(5):
        state = resolve_chance(game, game.initial_state(rng), rng)
        for _ in range(60):
            if game.current_player(state) == TERMINAL:
                break
            legal = game.legal_actions(state)
            names = [game.action_name(state, a) for a in legal]
            assert len(set(names)) == len(names)
            assert [game.parse_action(state, f" {n.upper()} ") for n in names] == list(legal)
            state = resolve_chance(game, game.apply(state, int(rng.choice(legal))), rng)


def _bad_checkpoints(tmp_path):
    from tris_envs.agents.ppo import SHIPPED_DIR

    shipped = (SHIPPED_DIR / "tris1.pt").read_bytes()
    files = {"empty.pt": b"", "truncated.pt": shipped[: len(shipped) // 3],
             "noise.zip": np.random.default_rng(0).bytes(4000)}
    for name, content in files.items():
        (tmp_path / name).write_bytes(content)
    return [tmp_path / name for name in files]


@pytest.mark.parametrize("processes", [1, 2])
def test_bad_checkpoints_give_one_clear_message(tmp_path, processes):
    import subprocess

    pytest.importorskip("sb3_contrib")             # reading a checkpoint needs the train extra

    for path in _bad_checkpoints(tmp_path):
        result = subprocess.run(
            [sys.executable, "-m", "tris_envs.cli", "eval", "tris1", f"ppo:{path}", "random",
             "--games", "2", "--processes", str(processes)], capture_output=True, text=True)
        assert result.returncode == 2, result.stderr
        assert "Traceback" not in result.stderr
        assert result.stderr.count("cannot be read") == 1 and path.name in result.stderr


def test_a_corrupt_shipped_checkpoint_is_reported_by_name(tmp_path, monkeypatch, capsys):
    pytest.importorskip("sb3_contrib")
    from tris_envs.agents import ppo

    corrupt = tmp_path / "tris1.pt"
    corrupt.write_bytes(b"not a checkpoint")
    monkeypatch.setattr(ppo, "SHIPPED_DIR", tmp_path)
    with pytest.raises(SystemExit) as exit_:
        main(["eval", "tris1", "ppo", "random", "--games", "2"])
    assert exit_.value.code == 2
    assert "tris1.pt' cannot be read" in capsys.readouterr().err


def _tournament(records, *extra):
    """A tournament of 180 games that takes a second or two on a fast machine, so that a
    signal sent after its first games lands while it is still playing."""
    return [sys.executable, "-m", "tris_envs.cli", "tournament", "tant_fant", "mcts:150",
            "greedy", "random", "--games", "60", "--seed", "3", "--processes", "2",
            "--records", str(records), *extra]


def _children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as file:
            return [int(c) for c in file.read().split()]
    except OSError:
        return []


def _wait_for_games(path, games, process, seconds=60.0):
    import time

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and process.poll() is None:
        if path.is_file() and len(path.read_text().splitlines()) > games:
            return
        time.sleep(0.05)
    raise AssertionError("the tournament wrote no games in time")


def test_interrupted_tournament_keeps_its_games_and_resumes_to_the_same_table(tmp_path):
    import signal
    import subprocess

    whole = subprocess.run(_tournament(tmp_path / "whole.jsonl"), capture_output=True,
                           text=True, check=True).stdout
    journal = tmp_path / "cut.jsonl"
    # A shell's background job starts with Ctrl-C ignored, which a child inherits; the
    # tournament must start as it would in a terminal.
    inherited = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        process = subprocess.Popen(_tournament(journal), stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
    finally:
        signal.signal(signal.SIGINT, inherited)
    _wait_for_games(journal, 3, process)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130 and "Traceback" not in stderr
    assert f"finished games are in {journal}" in stderr and "--resume" in stderr
    kept = len(journal.read_text().splitlines()) - 1
    assert 3 <= kept < 180
    resumed = subprocess.run(_tournament(journal, "--resume"), capture_output=True, text=True,
                             check=True).stdout
    assert resumed == whole
    other = subprocess.run(_tournament(journal, "--resume", "--seed", "4"), capture_output=True,
                           text=True)
    assert other.returncode == 2 and "not the journal of this match" in other.stderr
    for content in (b"", b"hello\n", b"\xff\xfe\n", b"[1, 2]\n"):
        journal.write_bytes(content)
        other = subprocess.run(_tournament(journal, "--resume"), capture_output=True,
                               text=True)
        assert other.returncode == 2 and "Traceback" not in other.stderr
        assert f"{str(journal)!r} is not the journal of this match" in other.stderr


def test_sigterm_stops_the_workers_with_the_parent(tmp_path):
    import os
    import signal
    import subprocess
    import time

    journal = tmp_path / "t.jsonl"
    process = subprocess.Popen(_tournament(journal), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    _wait_for_games(journal, 1, process)
    workers = _children(process.pid)
    assert workers
    process.send_signal(signal.SIGTERM)
    process.communicate(timeout=60)
    assert process.returncode == 143
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(os.path.exists(f"/proc/{w}") for w in workers):
        time.sleep(0.1)
    alive = [w for w in workers if os.path.exists(f"/proc/{w}")
             and open(f"/proc/{w}/stat").read().split()[2] != "Z"]
    assert not alive


def test_eval_metrics_report_blunders_per_agent(capsys):
    assert main(["eval", "tris2", "greedy", "random", "--games", "4", "--metrics",
                 "--option", "max_moves=60"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^greedy: \d+ moves, blunder rate 0\.00% \(0\), missed-win rate", out,
                     re.MULTILINE)
    assert re.search(r"^random: \d+ moves, blunder rate [1-9]", out, re.MULTILINE)
    # then each agent's results by seat, with the move each decided game ended on
    assert re.search(r"^greedy in seat 0: \+\d+ =\d+ -\d+(; won at move \d+)?", out, re.MULTILINE)
    assert "solved value" not in out   # Tris 2 has no solver
    # a game with dice: no move quality, the results by seat all the same
    assert main(["eval", "tritoc", "greedy", "random", "--games", "2", "--metrics",
                 "--option", "max_moves=20"]) == 0
    out = capsys.readouterr().out
    assert "move quality: tritoc has dice" in out and "blunder rate" not in out
    assert re.search(r"^greedy in seat 0: ", out, re.MULTILINE)


def test_tournament_metrics_judge_each_agent_over_all_its_games(capsys, tmp_path):
    path = tmp_path / "games.jsonl"
    assert main(["tournament", "tris1", "solver", "greedy", "random", "--games", "4",
                 "--metrics", "--records", str(path)]) == 0
    out = capsys.readouterr().out
    lines = {line.split(":")[0]: line for line in out.splitlines()
             if re.match(r"^(solver|greedy|random): \d+ moves", line)}
    assert set(lines) == {"solver", "greedy", "random"}
    # the solver never blunders and keeps the game value with every move it has a choice in
    assert re.search(r"blunder rate 0\.00% \(0\), missed-win rate 0\.00% \(0\), "
                     r"value-keeping 100\.00% of \d+", lines["solver"])
    # each agent is judged on its own moves in both of its matches
    records = read_records(path)
    for name, line in lines.items():
        own = sum(actor >= 0 and record.players[actor] == name
                  for record in records for actor, _ in record.moves)
        assert int(re.search(r"(\d+) moves", line).group(1)) == own
    # every start is the empty board, solved as a draw: the solver loses none of its 8 games
    assert re.search(r"^solver by the start's solved value: drawn 8 \(\+\d+ =\d+ -0\)$", out,
                     re.MULTILINE)


@pytest.mark.parametrize("argv", [
    ["eval", "tris1", "random", "greedy", "--games", "2", "--seed", "-1"],
    ["tournament", "tris1", "random", "greedy", "--games", "2", "--seed", "-3"],
    ["play", "tris1", "--seed", "-1"],
])
def test_a_negative_seed_is_a_clear_usage_error(argv, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    err = capsys.readouterr().err
    assert exit_.value.code == 2
    assert re.search(rf"^tris-envs {argv[0]}: error: seed must be (None or )?a non-negative "
                     r"integer, got -\d$", err, re.MULTILINE), err


@pytest.mark.parametrize("flag, value, bounds", [
    ("--seed", 2**64, "seed=18446744073709551616: must be an integer in [0, 4294967295]"),
    ("--seed", 2**32, "seed=4294967296: must be an integer in [0, 4294967295]"),
    ("--envs", 10**12, "envs=1000000000000: must be an integer in [1, 65536]"),
    ("--steps", 10**6, "steps=1000000: must be an integer in [1, 4096]"),
    ("--simulations", 10**6, "simulations=1000000: must be an integer in [1, 16384]")])
def test_a_learner_size_out_of_bounds_is_one_line_before_any_folder(flag, value, bounds,
                                                                   tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["train", "az", "--game", "tris1", flag, str(value), "--out", str(out)]) == 2
    assert capsys.readouterr().err == f"tris-envs train az: error: {bounds}\n"
    assert not out.exists()


def test_processes_are_capped_at_the_games_with_a_note(capsys):
    from tris_envs.machine import usable_cpus

    main(["eval", "tris1", "random", "greedy", "--games", "2", "--processes", "64"])
    captured = capsys.readouterr()
    assert captured.out.startswith("random vs greedy: ")
    cpus = usable_cpus()
    assert (f"note: --processes 64 capped at {min(2, cpus)} (games: 2, CPUs: {cpus})"
            in captured.err)
    main(["eval", "tris1", "random", "greedy", "--games", "2"])
    assert "capped" not in capsys.readouterr().err


def test_a_long_bad_option_is_quoted_briefly():
    with pytest.raises(ValueError, match="expected name=value") as error:
        parse_options(["x" * 10_000])
    assert len(str(error.value)) < 150


def test_play_reports_an_unreadable_checkpoint_before_the_game(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    path = _bad_checkpoints(tmp_path)[1]
    with pytest.raises(SystemExit) as exit_:
        main(["play", "tris1", "--opponent", f"ppo:{path}"])
    captured = capsys.readouterr()
    assert exit_.value.code == 2 and "you play" not in captured.out      # no board drawn
    assert f"checkpoint {str(path)!r} cannot be read" in captured.err


def test_a_failed_run_leaves_no_temporary_journal(tmp_path, monkeypatch, capsys):
    import tempfile

    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    bad = _bad_checkpoints(tmp_path)[0]
    for argv in (["eval", "tris1", "random", "greedy", "--games", "2", "--seed", "-1"],
                 ["eval", "tris1", f"ppo:{bad}", "random", "--games", "2"],
                 ["tournament", "tris1", "random", f"ppo:{bad}", "--games", "2"]):
        with pytest.raises(SystemExit):
            main(argv)
    main(["eval", "tris1", "random", "greedy", "--games", "2"])
    assert list(scratch.iterdir()) == []
