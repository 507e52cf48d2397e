"""Matches, round robins, ratings and game records at fixed seeds."""

from __future__ import annotations

import dataclasses
import functools
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from test_agents import DiceRace

from tris_envs.agents import MCTSAgent, RandomAgent
from tris_envs.core import CHANCE, TERMINAL
from tris_envs.evaluation import (
    GameRecord,
    elo_difference,
    expected_score,
    load_records,
    ml_elo,
    play_match,
    play_recorded,
    replay,
    round_robin,
    save_records,
    score_rate,
    wilson_interval,
)
from tris_envs.games.tant_fant import TantFant
from tris_envs.games.tris1 import Tris1
from tris_envs.machine import usable_cpus


# ----- score, interval, Elo (values computed by hand: Wilson bounds as the roots of
# (p - s)^2 = z^2 p (1 - p) / n, Elo = 400 log10(s / (1 - s))) -----------------------------
def test_score_rate_and_wilson_interval():
    assert score_rate(6, 2, 2) == 0.7
    assert wilson_interval(0.7, 10) == pytest.approx((0.3967781, 0.8922087), abs=1e-6)
    assert wilson_interval(0.25, 40) == pytest.approx((0.1418712, 0.4019396), abs=1e-6)
    assert wilson_interval(1.0, 10) == pytest.approx((0.7224672, 1.0), abs=1e-6)
    assert wilson_interval(0.0, 10) == pytest.approx((0.0, 1 - 0.7224672), abs=1e-6)
    with pytest.raises(ValueError):
        score_rate(0, 0, 0)
    with pytest.raises(ValueError):
        wilson_interval(1.2, 10)


def test_elo_difference_and_its_interval():
    assert elo_difference(6, 2, 2) == pytest.approx((147.1907, -72.7717, 367.1532), abs=1e-3)
    assert elo_difference(5, 0, 5) == pytest.approx((0.0, -203.5016, 203.5016), abs=1e-3)
    # 100%: clamped by half a game (9.5 / 10 -> 400 log10 19); the open side is infinite
    elo, low, high = elo_difference(10, 0, 0)
    assert elo == pytest.approx(511.5014, abs=1e-3)
    assert low == pytest.approx(166.2015, abs=1e-3) and high == math.inf
    elo, low, high = elo_difference(0, 0, 10)
    assert (elo, low, high) == (pytest.approx(-511.5014, abs=1e-3), -math.inf,
                                pytest.approx(-166.2015, abs=1e-3))
    assert expected_score(400) == pytest.approx(10 / 11)


def test_ml_elo_recovers_known_ratings():
    true = np.array([0.0, 100.0, 300.0, -250.0])
    games = 1000.0 * (1 - np.eye(4))
    scores = games * np.vectorize(expected_score)(true[:, None] - true[None, :])
    ratings = ml_elo(scores, games, prior_draws=0)
    np.testing.assert_allclose(ratings, true - true.mean(), atol=1e-6)
    # two agents, 75% -> 400 log10 3 apart, mean 0
    ratings = ml_elo([[0, 75], [25, 0]], [[0, 100], [100, 0]], prior_draws=0)
    np.testing.assert_allclose(ratings, [95.42425, -95.42425], atol=1e-4)
    # the default virtual draw pulls a little towards 0: 75.5 / 101
    shrunk = ml_elo([[0, 75], [25, 0]], [[0, 100], [100, 0]])
    np.testing.assert_allclose(shrunk, [200 * math.log10(75.5 / 25.5)] * np.array([1, -1]),
                               atol=1e-4)


def test_ml_elo_perfect_scores_and_bad_tables():
    scores = [[0, 10, 10], [0, 0, 6], [0, 4, 0]]  # agent 0 won every game
    games = [[0, 10, 10], [10, 0, 10], [10, 10, 0]]
    with pytest.raises(ValueError, match="infinite"):
        ml_elo(scores, games, prior_draws=0)
    ratings = ml_elo(scores, games)
    assert np.isfinite(ratings).all() and ratings[0] > ratings[1] > ratings[2]
    assert ratings.mean() == pytest.approx(0, abs=1e-9)
    with pytest.raises(ValueError, match="not connected"):
        ml_elo([[0, 1, 0], [1, 0, 0], [0, 0, 0]], [[0, 2, 0], [2, 0, 0], [0, 0, 0]])
    with pytest.raises(ValueError, match="must equal"):
        ml_elo([[0, 3], [3, 0]], [[0, 5], [5, 0]])


# ----- matches -----------------------------------------------------------------------------
def test_play_match_alternates_seats_and_reports():
    result = play_match(Tris1(), "solver", "random", n_games=20, seed=1)
    assert result.names == ("solver", "random")
    assert [sum(seat) for seat in result.by_seat] == [10, 10]
    assert result.losses == 0 and result.n_games == 20
    assert result.wins + result.draws == 20 and result.truncated == 0
    assert result.score == (result.wins + result.draws / 2) / 20
    low, high = result.score_interval
    assert low < result.score <= high
    assert result.elo > 0 and result.elo_interval[0] > 0
    assert str(result).startswith(f"solver vs random: +{result.wins} ={result.draws} -0 in 20")


def test_play_match_is_reproducible_for_any_number_of_processes():
    game = TantFant()
    runs = [play_match(game, "mcts:20", "greedy", n_games=6, seed=5, processes=p,
                       keep_records=True) for p in (1, 2, 1)]
    jsons = [[r.to_json() for r in run.records] for run in runs]
    assert jsons[0] == jsons[1] == jsons[2]
    assert runs[0].by_seat == runs[1].by_seat
    assert [r.players for r in runs[0].records[:2]] == [["mcts:20", "greedy"],
                                                        ["greedy", "mcts:20"]]
    other = play_match(game, "mcts:20", "greedy", n_games=6, seed=6, keep_records=True)
    assert [r.to_json() for r in other.records] != jsons[0]


def test_play_match_accepts_agent_factories():
    factory = functools.partial(MCTSAgent, 20, exploration=1.0)
    by_factory = play_match(Tris1(), factory, RandomAgent, n_games=4, seed=2, keep_records=True)
    by_spec = play_match(Tris1(), "mcts:20", "random", n_games=4, seed=2, keep_records=True)
    assert by_factory.names == ("mcts:20", "random")
    # exploration differs, so the games may differ, but both are complete and legal
    for record in by_factory.records + by_spec.records:
        replay(Tris1(), record)


def test_play_match_accepts_agent_instances():
    class FirstLegal:
        name = "first-legal"
        calls = 0

        def act(self, game, state):
            self.calls += 1
            return game.legal_actions(state)[0]

    agent = FirstLegal()
    result = play_match(Tris1(), agent, "random", n_games=6, seed=2, keep_records=True)
    assert result.names == ("first-legal", "random") and result.n_games == 6
    assert agent.calls == sum(len(r.moves) - len(r.moves) // 2 for r in result.records[::2]) \
        + sum(len(r.moves) // 2 for r in result.records[1::2])  # one call per own move
    with_seed = [play_match(Tris1(), FirstLegal(), "random", n_games=6, seed=2)
                 for _ in range(2)]
    assert with_seed[0].by_seat == with_seed[1].by_seat == result.by_seat


def test_truncated_games_count_as_draws():
    game = DiceRace(target=50, max_moves=3)
    result = play_match(game, "random", "random", n_games=4, seed=0, keep_records=True)
    assert result.truncated == 4 and result.draws == 4
    assert all(r.truncated and r.returns == (0.0, 0.0) for r in result.records)
    assert all(sum(actor >= 0 for actor, _ in r.moves) == 3 for r in result.records)


@pytest.mark.parametrize("kwargs", [{"n_games": 0}, {"seed": -1}, {"seed": 1.5},
                                    {"processes": 0}, {"n_games": True}])
def test_play_match_rejects_bad_arguments(kwargs):
    args = {"n_games": 2, "seed": 0, "processes": 1, **kwargs}
    with pytest.raises(ValueError):
        play_match(Tris1(), "random", "random", **args)


def test_play_match_rejects_bad_specs():
    with pytest.raises(ValueError, match="allowed"):
        play_match(Tris1(), "random", "mtcs:10", n_games=2, seed=0)


# ----- round robin -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def table():
    return round_robin(Tris1(), ["random", "mcts:30", "solver"], n_games=10, seed=0)


def test_round_robin_table(table):
    assert table.names == ["random", "mcts:30", "solver"]
    assert set(table.matches) == {(0, 1), (0, 2), (1, 2)}
    points, games = table.points(), table.games()
    np.testing.assert_array_equal(points + points.T, games)
    assert (games == 10 * (1 - np.eye(3))).all()
    assert table.matches[(0, 2)].wins == table.matches[(1, 2)].wins == 0  # solver unbeaten
    assert table.ratings.argmin() == 0 and table.ratings.mean() == pytest.approx(0, abs=1e-9)
    np.testing.assert_allclose(table.ratings, ml_elo(points, games))
    markdown = table.to_markdown().splitlines()
    assert markdown[0] == "| agent | Elo | score | random | mcts:30 | solver |"
    assert markdown[1] == "|---|---|---|---|---|---|"
    row = markdown[4].split(" | ")
    assert row[0] == "| solver" and row[-1] == "— |"
    assert row[1] == f"{round(table.ratings[2]):+d}"
    assert row[3] == f"{table.score_matrix()[2, 0]:.1%}"
    assert "10 games per pair" in markdown[-1]


def test_round_robin_heatmap(table, tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    path = tmp_path / "table.png"
    table.heatmap(path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(ImportError, match="pip install matplotlib"):
        table.heatmap(tmp_path / "again.png")


def test_round_robin_labels_duplicates_and_needs_two_agents():
    table = round_robin(Tris1(), ["random", "random", "greedy"], n_games=2, seed=0)
    assert table.names == ["random", "random#2", "greedy"]
    with pytest.raises(ValueError, match="at least two"):
        round_robin(Tris1(), ["random"], n_games=2, seed=0)


@pytest.mark.parametrize("seed", [-1, 1.5, True, "7"])
def test_a_bad_seed_is_named_in_the_error(seed):
    with pytest.raises(ValueError, match=r"^seed must be a non-negative integer, got "):
        play_match(Tris1(), "random", "greedy", n_games=2, seed=seed)
    with pytest.raises(ValueError, match=r"^seed must be a non-negative integer, got "):
        round_robin(Tris1(), ["random", "greedy"], n_games=2, seed=seed)


def test_pool_size_is_capped_at_the_games_and_the_usable_cpus(monkeypatch):
    from tris_envs import machine
    from tris_envs.evaluation import backends

    monkeypatch.setattr(machine.os, "cpu_count", lambda: 64)
    monkeypatch.setattr(machine.os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    assert [backends.pool_size(p, 10) for p in (1, 3, 4, 64)] == [1, 3, 4, 4]
    assert backends.pool_size(64, 2) == 2
    monkeypatch.delattr(machine.os, "sched_getaffinity", raising=False)
    monkeypatch.setattr(machine.os, "cpu_count", lambda: None)
    assert backends.pool_size(8, 10) == 1


# ----- records -----------------------------------------------------------------------------
MATCH = ("from tris_envs.evaluation import play_match\n"
         "from tris_envs.games import make_game\n"
         "print(play_match(make_game('tris1'), 'random', 'greedy', 4, seed=0, processes=2))\n")


@pytest.mark.skipif(usable_cpus() < 2, reason="a pool needs two CPUs; with one, games run here")
def test_a_pool_started_from_an_unguarded_script_or_stdin_fails_at_once(tmp_path):
    # spawn's workers re-import the main script: without the guard each one started the
    # match again and died, and the pool replaced them forever
    script = tmp_path / "unguarded.py"
    script.write_text(MATCH)
    ran = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path)
    assert ran.returncode == 1 and "ValueError" in ran.stderr.splitlines()[-1]
    assert 'put the code that plays under if __name__ == "__main__"' in ran.stderr
    ran = subprocess.run([sys.executable, "-"], input=MATCH, capture_output=True, text=True,
                         timeout=120, cwd=tmp_path)
    assert ran.returncode == 1 and "'<stdin>' is not a file" in ran.stderr.splitlines()[-1]
    guarded = tmp_path / "guarded.py"
    guarded.write_text("if __name__ == '__main__':\n" + "".join(
        f"    {line}\n" for line in MATCH.splitlines()))
    ran = subprocess.run([sys.executable, str(guarded)], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path)
    assert ran.returncode == 0 and "in 4 games" in ran.stdout, ran.stderr


# A worker killed while sending its games dies holding the result queue's lock (here taken
# by hand, as a send does, to make that moment certain)
HOLD_THE_RESULT_LOCK = (
    "        import gc\n"
    "        from multiprocessing.queues import SimpleQueue\n"
    "        for queue in gc.get_objects():\n"
    "            if isinstance(queue, SimpleQueue):\n"
    "                queue._wlock.acquire()\n")


@pytest.mark.skipif(usable_cpus() < 2, reason="a pool needs two CPUs; with one, games run here")
@pytest.mark.parametrize("holding", ["", HOLD_THE_RESULT_LOCK], ids=["playing", "sending"])
def test_a_match_whose_worker_dies_stops_saying_why(tmp_path, holding):
    # the pool replaced the dead worker and waited forever for the games it held; one that
    # died holding the result queue's lock hung the parent as it stopped the pool (seen
    # once in CI under load)
    script = tmp_path / "dying.py"
    script.write_text(
        "import multiprocessing, os, signal\n"
        "from tris_envs.evaluation import play_match\n"
        "from tris_envs.games import make_game\n"
        "class Dying:\n"
        "    name = 'dying'\n"
        "    def __init__(self, rng=None):\n"
        "        pass\n"
        "    def act(self, game, state):\n"
        "      if multiprocessing.parent_process() is not None:\n"
        f"{holding}"
        "        os.kill(os.getpid(), signal.SIGKILL)\n"
        "      return game.legal_actions(state)[0]\n"
        "if __name__ == '__main__':\n"
        "    play_match(make_game('tris1'), Dying, 'random', 8, seed=0,\n"
        "               processes=2)\n")
    ran = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path)
    last = ran.stderr.splitlines()[-1]
    assert ran.returncode == 1 and last.startswith("ChildProcessError: a worker process of "
                                                   "the match died while playing"), ran.stderr


@pytest.mark.parametrize("stop, status", [("ctrl-c", 130), ("sigterm", 143)])
def test_evaluate_stopped_says_so_in_one_line(stop, status):
    """Ctrl-C at a terminal printed a traceback."""
    import signal

    pexpect = pytest.importorskip("pexpect")
    network = Path(__file__).resolve().parent.parent / "tris_envs" / "checkpoints"
    child = pexpect.spawn(sys.executable, [
        "-m", "tris_envs.cli", "evaluate", str(network / "az_tris1.npz"), "--game", "tris1",
        "--simulations", "0", "--opponents", "random", "--games", "1000000", "--no-judge"],
        encoding="utf-8", timeout=120, dimensions=(50, 200))
    child.expect(r"tris-envs evaluate: +\d+%\|")                  # the bar: it plays
    if stop == "ctrl-c":
        child.sendintr()
    else:
        child.kill(signal.SIGTERM)
    child.expect(pexpect.EOF)
    child.close()
    printed = child.before
    assert child.exitstatus == status and "Traceback" not in printed, printed
    assert printed.strip().splitlines()[-1] == ("tris-envs evaluate: interrupted; it writes "
                                                "no file, so nothing is kept: run it again "
                                                "for the table")


def test_records_round_trip_with_chance(tmp_path):
    game = DiceRace(target=8)
    rng = np.random.default_rng(3)
    agents = [MCTSAgent(30, rng=rng), RandomAgent(rng)]
    records = [play_recorded(game, agents, rng) for _ in range(5)]
    assert any(actor == CHANCE for r in records for actor, _ in r.moves)
    path = tmp_path / "games.json"
    save_records(records, path)
    loaded = load_records(path)
    assert loaded == records
    for record in loaded:
        final = replay(game, record)
        assert game.current_player(final) == TERMINAL
        assert game.returns(final) == record.returns
        assert game.to_notation(final) == record.positions[-1]
        assert record.players == ["mcts:30", "random"] and record.start == "0 0 0 -"


def test_replay_detects_tampering():
    game = DiceRace(target=8)
    record = play_recorded(game, [RandomAgent(np.random.default_rng(1))] * 2,
                           np.random.default_rng(1))
    chance = next(i for i, (actor, _) in enumerate(record.moves) if actor == CHANCE)

    def tampered(**changes) -> GameRecord:
        return dataclasses.replace(record, **changes)

    moves = list(record.moves)
    moves[chance] = (CHANCE, 7)
    with pytest.raises(ValueError, match="chance outcome 7"):
        replay(game, tampered(moves=moves))
    moves = list(record.moves)
    moves[chance] = (CHANCE, 1 + moves[chance][1] % 3)  # another face
    with pytest.raises(ValueError, match=f"move {chance} .*differs"):
        replay(game, tampered(moves=moves))
    moves = list(record.moves)
    moves[0] = (1, moves[0][1])
    with pytest.raises(ValueError, match="actor 1"):
        replay(game, tampered(moves=moves))
    with pytest.raises(ValueError, match="differ"):
        replay(DiceRace(target=9), record)
    with pytest.raises(ValueError, match="cannot be replayed"):
        replay(Tris1(), record)
    with pytest.raises(ValueError, match="lacks"):
        GameRecord.from_json('{"game": "tris1"}')
    huge = "x" * 100_000
    with pytest.raises(ValueError, match="cannot be replayed") as error:
        replay(Tris1(), tampered(game=huge))
    assert len(str(error.value)) < 200


def test_records_replay_tant_fant_with_repetition_draws():
    game = TantFant(repetition_draw=True)
    result = play_match(game, "greedy", "greedy", n_games=10, seed=4, keep_records=True)
    endings = set()
    for record in result.records:
        final = replay(game, record)
        endings.add(final.ending)
        assert record.positions[-1] == game.to_notation(final)
    assert "repetition" in endings


def test_strength_order_at_a_fixed_seed():
    """docs/results.md's Tant Fant round robin in small: the order of the baselines holds."""
    game = TantFant()
    strong = play_match(game, "mcts:1000", "mcts:100", n_games=12, seed=0)
    assert strong.score > 0.7
    for agent in ("mcts:100", "mcts:1000"):
        assert play_match(game, agent, "random", n_games=10, seed=1).score > 0.8
    for opponent in ("mcts:1000", "greedy", "random"):
        result = play_match(game, "solver", opponent, n_games=8, seed=2)
        assert result.losses == 0, opponent
