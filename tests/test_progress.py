"""Long commands show their progress on a terminal and nothing when piped or ``--quiet``:
the progress display itself, the matches' game counts, and ``eval``, ``tournament`` and
``evaluate`` through a pseudo-terminal."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest

from tris_envs.evaluation import play_match, round_robin
from tris_envs.games import make_game
from tris_envs.progress import Progress, duration_text

NETWORK = Path(__file__).resolve().parents[1] / "tris_envs" / "checkpoints" / "az_tant_fant.npz"


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def no_tqdm(monkeypatch):
    """The plain fallback: ``import tqdm`` fails."""
    monkeypatch.setitem(sys.modules, "tqdm", None)


def test_plain_lines_every_tenth_then_a_summary(no_tqdm):
    stream = Terminal()
    with Progress("eval tris1", total=2000, unit="games", stream=stream) as progress:
        for _ in range(2000):
            progress.advance()
        progress.note("score 61.0%")
    lines = stream.getvalue().splitlines()
    assert len(lines) == 11                       # 200, 400, ..., 2,000 and the summary
    assert re.fullmatch(r"eval tris1: 200/2,000 games \(10%\), \d+s elapsed, \d+s left",
                        lines[0])
    assert lines[9].startswith("eval tris1: 2,000/2,000 games (100%)")
    assert re.fullmatch(r"eval tris1: 2,000 games in \d+s", lines[10])


def test_absolute_counts_a_budget_and_a_summary(no_tqdm):
    stream = Terminal()
    progress = Progress("train az", unit="plies", seconds=600, every=10_000, stream=stream)
    for done in (4_096, 8_192, 12_288, 16_384):
        progress.note(f"loss {done / 1e5:.2f}")
        progress.update(done)
    progress.close("final network runs/x/final.npz")
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2
    assert re.fullmatch(r"train az: 12,288 plies, \d+s elapsed, (9m 59s|10m 00s) left, "
                        r"loss 0.12", lines[0])
    assert re.fullmatch(r"train az: 16,384 plies in \d+s; final network runs/x/final.npz",
                        lines[1])


@pytest.mark.parametrize("tqdm", [True, False], ids=["tqdm", "plain"])
def test_nothing_when_quiet_or_not_a_terminal(monkeypatch, tqdm):
    if not tqdm:
        monkeypatch.setitem(sys.modules, "tqdm", None)
    for stream, quiet in ((io.StringIO(), False), (Terminal(), True)):
        with Progress("eval", total=10, stream=stream, quiet=quiet) as progress:
            for _ in range(10):
                progress.advance()
        assert not progress.shown and stream.getvalue() == ""


def test_tqdm_bar_on_a_terminal():
    pytest.importorskip("tqdm")
    stream = Terminal()
    with Progress("tournament tris1", total=30, stream=stream) as progress:
        progress.advance(30)
    text = stream.getvalue()
    assert "0/30 games [" in text                     # the bar as it starts
    assert re.search(r"tournament tris1: 30 games in \d+s\n$", text)


def test_an_interrupted_progress_prints_no_summary(no_tqdm):
    stream = Terminal()
    with pytest.raises(KeyboardInterrupt), Progress("eval", total=10, stream=stream) as progress:
        progress.advance(3)
        raise KeyboardInterrupt
    lines = stream.getvalue().splitlines()
    assert len(lines) == 1 and lines[0].startswith("eval: 3/10 games (30%), ")


def test_duration_text():
    assert [duration_text(s) for s in (0, 44.6, 60, 192, 3599.4, 3900, 90_000)] == [
        "0s", "45s", "1m 00s", "3m 12s", "59m 59s", "1h 05m", "25h 00m"]


def test_matches_report_every_game_once(tmp_path):
    game = make_game("tris1")
    counts: list[int] = []
    play_match(game, "random", "greedy", 7, seed=0, progress=counts.append)
    assert counts == [1] * 7
    counts.clear()
    round_robin(game, ["random", "greedy", "random"], 3, seed=0, processes=2,
                progress=counts.append)
    assert sum(counts) == 9 and set(counts) == {1}
    counts.clear()
    journal = tmp_path / "games.jsonl"
    play_match(game, "random", "greedy", 4, seed=0, records=journal)
    lines = journal.read_text().splitlines()
    journal.write_text("\n".join(lines[:3]) + "\n")        # the header and two games
    play_match(game, "random", "greedy", 4, seed=0, records=journal, resume=True,
               progress=counts.append)
    assert counts == [2, 1, 1]                            # the journal's games first


# ----- the commands, on a pseudo-terminal and piped -----------------------------------
def _terminal(*args: str) -> str:
    text, status = pexpect.run(f"{sys.executable} -m tris_envs.cli " + " ".join(args),
                               withexitstatus=True, timeout=300, encoding="utf-8",
                               dimensions=(24, 120))
    assert status == 0, text
    return text


def test_eval_shows_progress_on_a_terminal_and_not_when_piped():
    args = ("eval", "tris1", "random", "greedy", "--games", "30")
    text = _terminal(*args)
    assert "games [" in text                             # tqdm's bar
    assert re.search(r"eval tris1: 30 games in \d+s; score \d+\.\d%\r\n", text)
    assert "random vs greedy: +" in text
    assert "games in" not in _terminal(*args, "--quiet")
    piped = subprocess.run([sys.executable, "-m", "tris_envs.cli", *args],
                           capture_output=True, text=True, timeout=300)
    assert piped.returncode == 0 and piped.stderr == ""
    assert piped.stdout.startswith("random vs greedy: +") and len(piped.stdout.splitlines()) == 1


def test_tournament_and_evaluate_show_progress_on_a_terminal():
    text = _terminal("tournament", "tris1", "random", "greedy", "mcts:10", "--games", "4")
    assert re.search(r"tournament tris1: 12 games in \d+s\r\n", text)
    assert "| agent | Elo |" in text
    text = _terminal("evaluate", str(NETWORK), "--game", "tant_fant", "--games", "4",
                     "--opponents", "greedy,solver", "--simulations", "0")
    # four games against each opponent and the solver's reference match
    assert re.search(r"tris-envs evaluate: 12 games in \d+s\r\n", text)
    assert "| greedy | 4 |" in text
