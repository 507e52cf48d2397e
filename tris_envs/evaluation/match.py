"""Matches and round-robin tournaments between agents, optionally over processes.

Agents are given as *sources*: a spec string for :func:`~tris_envs.agents.make_agent`
(``"mcts:300"``) or a picklable factory called as ``factory(rng=generator)`` that returns an
agent (an agent class, a module-level function, or a ``functools.partial`` such as
``partial(MCTSAgent, 200, exploration=1.0)``). Every game builds fresh agents from their
sources with its own generators, so a game depends only on the match seed and its index,
never on which process plays it or in what order: results are identical for any
``processes``.

Seeding: game ``k`` of :func:`play_match` uses ``SeedSequence(seed, spawn_key=(k,))``;
pair ``(i, j)`` of :func:`round_robin` uses ``spawn_key=(i, j, k)``. Each game's sequence
spawns three generators: chance (setup and dice), the first agent, the second agent.
Agent ``a`` (or ``i``) takes seat ``k % 2``: seats alternate, ``a`` first in even games.

With ``processes > 1`` the games run in a ``multiprocessing`` pool of the ``spawn``
start method; the game and the sources must be picklable, and a script using it needs the
usual ``if __name__ == "__main__":`` guard. The pool never has more processes than games
or CPUs (:func:`pool_size`). Workers ignore Ctrl-C (the parent stops the pool) and end by
themselves within a second when their parent dies (SIGTERM, kill).

With ``ray=True`` or ``ray=ADDRESS`` the games run as Ray tasks on the cluster's CPUs
instead (optional extra ``distributed``; see :func:`tris_envs.distributed.ray_session` and
docs/distributed.md): the game, the sources and the seed go to the object store once, chunks
of game numbers go to the tasks, the agents are built on the workers and the records come
back. The sources must survive cloudpickle (spec strings always do); ``processes`` stays 1.

**Journal.** With ``records=path`` every finished game is appended to ``path`` as one JSON
line the moment it ends (after a header line naming the game, the agents, the seed and the
games per pair), so an interrupted match loses nothing; ``resume=True`` reads the file and
plays only the games it lacks. The result equals an uninterrupted run's. The header
identifies an agent that plays a file (a PPO checkpoint, an AlphaZero network) by a hash of
the file's content, so a resume with another file of the same name is refused; an existing
journal is never overwritten unless ``overwrite=True``.

Games are scheduled lazily: a match of a billion games starts playing at once, and holds
in memory only its tallies (and the records when ``keep_records=True``).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tris_envs.agents.factory import make_agent
from tris_envs.agents.protocol import Agent
from tris_envs.core.errors import brief
from tris_envs.core.game import Game
from tris_envs.distributed import RayAddress
from tris_envs.evaluation.ratings import elo_difference, ml_elo, score_rate, wilson_interval
from tris_envs.evaluation.records import GameRecord, play_recorded

Task = tuple[int, int, int, tuple[int, ...]]
"""One game: agent indices ``i`` and ``j``, game number ``k``, and its seeding key."""

AgentSource = str | Agent | Callable[..., Agent]
"""A spec string for :func:`make_agent`, a picklable factory ``factory(rng=...) -> Agent`` (an
agent class, say), or an :class:`Agent` instance.

A spec or a factory gets a fresh agent with its own generator, derived from the match seed,
for every game, so a seed repeats the same games. An instance plays every game itself, with
its own randomness (seed it for repeatable matches); with ``processes > 1`` each worker plays
a pickled copy."""


@dataclass
class MatchResult:
    """Result of agent ``a`` against agent ``b``.

    Attributes:
        names: The agents' names ``(a, b)``.
        by_seat: ``by_seat[s] = (wins, draws, losses)`` of ``a`` in the games ``a`` played
            in seat ``s`` (seat 0 moves first).
        truncated: Games stopped at the ply limit (counted as draws).
        records: Every game's record when asked for (``keep_records=True``), in order.
    """

    names: tuple[str, str]
    by_seat: tuple[tuple[int, int, int], tuple[int, int, int]]
    truncated: int = 0
    records: list[GameRecord] = field(default_factory=list)

    @property
    def n_games(self) -> int:
        """Games played."""
        return sum(map(sum, self.by_seat))

    @property
    def wins(self) -> int:
        """Wins of ``a``."""
        return self.by_seat[0][0] + self.by_seat[1][0]

    @property
    def draws(self) -> int:
        """Draws (truncated games included)."""
        return self.by_seat[0][1] + self.by_seat[1][1]

    @property
    def losses(self) -> int:
        """Losses of ``a``."""
        return self.by_seat[0][2] + self.by_seat[1][2]

    @property
    def points(self) -> float:
        """Points of ``a``: wins plus half the draws."""
        return self.wins + 0.5 * self.draws

    @property
    def score(self) -> float:
        """Score rate of ``a`` (draws count 0.5)."""
        return score_rate(self.wins, self.draws, self.losses)

    @property
    def score_interval(self) -> tuple[float, float]:
        """95% Wilson interval of :attr:`score`."""
        return wilson_interval(self.score, self.n_games)

    @property
    def elo(self) -> float:
        """Elo of ``a`` minus ``b`` (a 0% / 100% score clamped by half a game)."""
        return elo_difference(self.wins, self.draws, self.losses)[0]

    @property
    def elo_interval(self) -> tuple[float, float]:
        """95% interval of :attr:`elo` (infinite on the open side of a 0% / 100% score)."""
        _, low, high = elo_difference(self.wins, self.draws, self.losses)
        return low, high

    def __str__(self) -> str:
        low, high = self.score_interval
        elo_low, elo_high = self.elo_interval
        seats = ", ".join(f"seat {s}: +{w} ={d} -{lo}" for s, (w, d, lo) in enumerate(self.by_seat))
        return (f"{self.names[0]} vs {self.names[1]}: +{self.wins} ={self.draws} "
                f"-{self.losses} in {self.n_games} games ({seats}); score "
                f"{self.score:.1%} [{low:.1%}, {high:.1%}]; Elo {_elo_text(self.elo)} "
                f"[{_elo_text(elo_low)}, {_elo_text(elo_high)}]")


def play_match(game: Game, a: AgentSource, b: AgentSource, n_games: int, seed: int,
               processes: int = 1, keep_records: bool = False,
               records: str | Path | None = None, resume: bool = False,
               ray: RayAddress = False, overwrite: bool = False) -> MatchResult:
    """Play ``n_games`` between ``a`` and ``b``, seats alternating (``a`` first in game 0).

    Args:
        game: The rules core (its options fixed).
        a: The agent whose results are reported.
        b: The opponent.
        n_games: Games to play (at least 1).
        seed: Non-negative integer; the same seed gives the same games for any
            ``processes``, with or without Ray.
        processes: Worker processes (1: play in this process; at most :func:`pool_size`).
        keep_records: Keep every game's record in ``result.records``.
        records: Journal file: each finished game is appended as it ends (see above).
        resume: Continue the journal ``records``: play only the games it lacks.
        ray: Play on a Ray cluster: ``True`` or its address (see
            :data:`tris_envs.distributed.RayAddress`); ``False``: on this machine.
        overwrite: Start the journal ``records`` afresh even if the file holds games
            (without it, and without ``resume``, such a file is refused).

    Raises:
        ValueError: bad counts, seed or agent spec; a journal of another match (or of other
            agent files); an existing journal without ``resume`` or ``overwrite``; ``ray``
            with ``processes > 1``, or a source Ray cannot send.
        ImportError: ``ray`` given and Ray not installed.
        ConnectionError: ``ray`` given and Ray could not start or connect.
    """
    _check_counts(n_games, seed, processes, ray)
    sources = [a, b]
    names, files = _identify(sources, game)
    schedule = _Schedule([(0, 1)], n_games, single=True)
    journal = _Journal.open(records, resume, overwrite, game, names, files, seed, n_games,
                            schedule)
    tallies = _run(game, sources, names, schedule, seed, processes, keep_records, journal, ray)
    return tallies[0].result(names[0], names[1])


@dataclass
class RoundRobinTable:
    """Every pair's match and the maximum-likelihood Elo ratings.

    Attributes:
        game: ``game.info.name``.
        names: Agent labels in the order given (made unique with ``#2``, ``#3``, ...).
        matches: ``matches[(i, j)]`` for ``i < j``: agent ``i`` (as ``a``) against ``j``.
        ratings: Maximum-likelihood Elo per agent, mean 0 (see
            :func:`~tris_envs.evaluation.ratings.ml_elo`; one virtual draw per pair).
    """

    game: str
    names: list[str]
    matches: dict[tuple[int, int], MatchResult]
    ratings: np.ndarray

    def points(self) -> np.ndarray:
        """``points[i, j]``: points of agent ``i`` against ``j`` (draws 0.5)."""
        k = len(self.names)
        points = np.zeros((k, k))
        for (i, j), match in self.matches.items():
            points[i, j] = match.points
            points[j, i] = match.n_games - match.points
        return points

    def games(self) -> np.ndarray:
        """``games[i, j]``: games between agents ``i`` and ``j``."""
        k = len(self.names)
        games = np.zeros((k, k))
        for (i, j), match in self.matches.items():
            games[i, j] = games[j, i] = match.n_games
        return games

    def score_matrix(self) -> np.ndarray:
        """``score[i, j]``: score rate of agent ``i`` against ``j``; NaN on the diagonal."""
        games = self.games()
        with np.errstate(invalid="ignore", divide="ignore"):
            score = self.points() / games
        score[games == 0] = np.nan
        return score

    def to_markdown(self) -> str:
        """The table: Elo, overall score, then the score of each row agent vs each column."""
        score = self.score_matrix()
        points, games = self.points(), self.games()
        header = "| agent | Elo | score | " + " | ".join(self.names) + " |"
        lines = [header, "|" + "---|" * (len(self.names) + 3)]
        for i, name in enumerate(self.names):
            total = points[i].sum() / games[i].sum()
            cells = ["—" if np.isnan(v) else f"{v:.1%}" for v in score[i]]
            lines.append(f"| {name} | {_elo_text(self.ratings[i])} | {total:.1%} | "
                         + " | ".join(cells) + " |")
        per_pair = sorted({m.n_games for m in self.matches.values()})
        lines.append("")
        lines.append(f"{self.game}: score of the row agent against the column agent (draws "
                     f"count ½), {'/'.join(map(str, per_pair))} games per pair, seats "
                     "alternating; Elo: maximum-likelihood over all games, mean 0.")
        return "\n".join(lines)

    def heatmap(self, path: str | Path) -> Path:
        """Save the score matrix as a heat-map picture (needs matplotlib); returns the file
        written: ``path``, with ``.png`` added when it has no suffix (the suffix names the
        format).

        Raises:
            ImportError: matplotlib is not installed.
        """
        path = Path(path)
        if not path.suffix:
            path = path.with_name(path.name + ".png")
        try:
            from matplotlib.figure import Figure
        except ImportError as error:
            raise ImportError("RoundRobinTable.heatmap needs matplotlib: pip install "
                              "matplotlib (or tris_envs[train])") from error
        score = self.score_matrix()
        k = len(self.names)
        labels = [f"{name} ({_elo_text(rating)})" for name, rating in zip(self.names, self.ratings)]
        size = 2.0 + 0.9 * k
        fig = Figure(figsize=(size + 1.5, size))
        ax = fig.add_subplot()
        image = ax.imshow(np.ma.masked_invalid(score), cmap="RdYlGn", vmin=0.0, vmax=1.0)
        ax.set_xticks(range(k), labels=self.names, rotation=45, ha="right")
        ax.set_yticks(range(k), labels=labels)
        for i in range(k):
            for j in range(k):
                if not np.isnan(score[i, j]):
                    ax.text(j, i, f"{score[i, j]:.0%}", ha="center", va="center", fontsize=9)
        ax.set_title(f"{self.game}: score of row vs column")
        fig.colorbar(image, ax=ax, label="score rate")
        fig.tight_layout()
        fig.savefig(path, dpi=100)
        return path


def round_robin(game: Game, agents: Sequence[AgentSource], n_games: int, seed: int,
                processes: int = 1, keep_records: bool = False,
                records: str | Path | None = None, resume: bool = False,
                ray: RayAddress = False, overwrite: bool = False) -> RoundRobinTable:
    """Play every pair of ``agents`` ``n_games`` times, seats alternating.

    Arguments as for :func:`play_match`; all games of all pairs share one process pool (or
    one Ray session).

    Raises:
        ValueError: fewer than two agents, bad counts, seed or agent spec; journal
            problems as for :func:`play_match`.
        ImportError: ``ray`` given and Ray not installed.
        ConnectionError: ``ray`` given and Ray could not start or connect.
    """
    _check_counts(n_games, seed, processes, ray)
    if len(agents) < 2:
        raise ValueError(f"a round robin needs at least two agents, got {len(agents)}")
    sources = list(agents)
    names, files = _identify(sources, game)
    pairs = [(i, j) for i in range(len(sources)) for j in range(i + 1, len(sources))]
    schedule = _Schedule(pairs, n_games, single=False)
    journal = _Journal.open(records, resume, overwrite, game, names, files, seed, n_games,
                            schedule)
    tallies = _run(game, sources, names, schedule, seed, processes, keep_records, journal, ray)
    matches = {(i, j): tallies[p].result(names[i], names[j]) for p, (i, j) in enumerate(pairs)}
    table = RoundRobinTable(game.info.name, names, matches, np.zeros(len(names)))
    table.ratings = ml_elo(table.points(), table.games())
    return table


def pool_size(processes: int, games: int) -> int:
    """Worker processes actually started: at most one per game and one per CPU."""
    return max(1, min(processes, games, os.cpu_count() or 1))


# ----- internals ------------------------------------------------------------------------
_WORKER: dict[str, Any] = {}


class _Schedule:
    """The games of a match (``single``: keys ``(k,)``) or a round robin (keys ``(i, j, k)``),
    generated on demand, pair by pair, in order."""

    def __init__(self, pairs: list[tuple[int, int]], n_games: int, single: bool) -> None:
        self.pairs, self.n_games, self.single = pairs, n_games, single
        self.total = len(pairs) * n_games
        self._index = {pair: p for p, pair in enumerate(pairs)}

    def __iter__(self) -> Iterator[Task]:
        for i, j in self.pairs:
            for k in range(self.n_games):
                yield (i, j, k, (k,) if self.single else (i, j, k))

    def pair_index(self, key: tuple[int, ...]) -> int | None:
        """The pair a task key belongs to; ``None`` for a key of no game of this schedule."""
        if not all(type(part) is int for part in key):
            return None
        if self.single:
            return 0 if len(key) == 1 and 0 <= key[0] < self.n_games else None
        if len(key) != 3 or not 0 <= key[2] < self.n_games:
            return None
        return self._index.get((key[0], key[1]))


class _Tally:
    """One pair's results as they come in: counts by seat, and the records if kept."""

    def __init__(self, keep_records: bool) -> None:
        self.counts = [[0, 0, 0], [0, 0, 0]]
        self.truncated = 0
        self.records: dict[tuple[int, ...], GameRecord] | None = {} if keep_records else None

    def add(self, key: tuple[int, ...], seat: int, record: GameRecord) -> None:
        mine, theirs = record.returns[seat], record.returns[1 - seat]
        self.counts[seat][0 if mine > theirs else 1 if mine == theirs else 2] += 1
        self.truncated += record.truncated
        if self.records is not None:
            self.records[key] = record

    def result(self, name_a: str, name_b: str) -> MatchResult:
        (w0, d0, l0), (w1, d1, l1) = self.counts
        records = ([record for _, record in sorted(self.records.items())]
                   if self.records is not None else [])
        return MatchResult((name_a, name_b), ((w0, d0, l0), (w1, d1, l1)), self.truncated,
                           records)


@dataclass
class _Journal:
    """The journal file of a match and the games it held when the run began, by task key."""

    path: Path
    done: dict[tuple[int, ...], tuple[int, GameRecord]]

    @classmethod
    def open(cls, path: str | Path | None, resume: bool, overwrite: bool, game: Game,
             names: list[str], files: list[str | None], seed: int, n_games: int,
             schedule: _Schedule) -> _Journal | None:
        if path is None:
            if resume:
                raise ValueError("resume needs the journal file of the interrupted run")
            return None
        path = Path(path)
        header = {"game": game.info.name, "options": repr(sorted(game.options().items())),
                  "agents": names, "files": files, "seed": seed, "games": n_games}
        done: dict[tuple[int, ...], tuple[int, GameRecord]] = {}
        if resume:
            lines = cls._header_checked(path, header)
            for line in lines[1:]:
                try:
                    entry = json.loads(line)
                    key = tuple(entry["task"])
                    seat = entry["seat"]
                    if schedule.pair_index(key) is None or key in done or seat not in (0, 1):
                        raise ValueError("not a game of this match")
                    done[key] = (seat, GameRecord.from_json(entry["record"]))
                except (ValueError, KeyError, TypeError):
                    break   # a line cut short by the interruption: play that game again
            path.write_text("\n".join(lines[:1 + len(done)]) + "\n")
        else:
            if not overwrite and _holds_data(path):
                raise ValueError(f"{str(path)!r} already exists: continue the run it records "
                                 "with --resume (resume=True), or overwrite it with --force "
                                 "(overwrite=True)")
            path.write_text(json.dumps(header) + "\n")
        return cls(path, done)

    @staticmethod
    def _header_checked(path: Path, header: dict[str, Any]) -> list[str]:
        """The journal's lines, once its header is this match's; else ``ValueError``."""
        try:
            lines = path.read_text().splitlines()
            found = json.loads(lines[0]) if lines else None
        except OSError as error:
            raise ValueError(f"cannot resume from {str(path)!r}: {error}") from None
        except ValueError:       # not UTF-8 text, or a first line that is not JSON
            found = None
        if found == header:
            return lines
        differ = ""
        if isinstance(found, dict) and found.get("game") is not None:
            fields = [name for name in header if found.get(name) != header[name]]
            if fields == ["files"] and found.get("agents") == header["agents"]:
                changed = [name for name, was, now in zip(
                    header["agents"], found.get("files") or [None] * len(header["agents"]),
                    header["files"]) if was != now]
                differ = (f" (the file played by {', '.join(changed)} is not the one the "
                          "journal was written with)")
            elif fields:
                differ = f" (it differs in: {', '.join(fields)})"
        raise ValueError(f"{str(path)!r} is not the journal of this match: its first line must "
                         "name the same game, options, agents (and the files they play), seed "
                         f"and games{differ}")

    def add(self, key: tuple[int, ...], seat: int, record: GameRecord) -> None:
        with self.path.open("a") as file:
            file.write(json.dumps({"task": list(key), "seat": seat,
                                   "record": record.to_json()}) + "\n")


def _holds_data(path: Path) -> bool:
    """Whether ``path`` is a file with something in it (an empty file loses nothing)."""
    try:
        return path.stat().st_size > 0
    except OSError:
        return False


def _check_counts(n_games: int, seed: int, processes: int, ray: RayAddress) -> None:
    for what, value, least in (("n_games", n_games, 1), ("seed", seed, 0),
                               ("processes", processes, 1)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
            kind = "a non-negative integer" if least == 0 else f"an integer >= {least}"
            raise ValueError(f"{what} must be {kind}, got {brief(value)}")
    if ray is not False and processes != 1:
        raise ValueError(f"processes={processes} with ray: Ray spreads the games over the "
                         "cluster's CPUs; leave processes at 1")


def _build(source: AgentSource, rng: np.random.Generator) -> Agent:
    if isinstance(source, str):
        return make_agent(source, rng)
    if isinstance(source, Agent) and not isinstance(source, type):
        return source
    return source(rng=rng)


def _names(sources: Sequence[AgentSource]) -> list[str]:
    return _identify(sources, None)[0]


def _identify(sources: Sequence[AgentSource],
              game: Game | None) -> tuple[list[str], list[str | None]]:
    """Each agent's unique name, and a hash of the content of the file it plays in ``game``
    (a PPO checkpoint, an AlphaZero network; ``None`` for an agent that plays no file)."""
    names: list[str] = []
    files: list[str | None] = []
    for source in sources:
        agent = _build(source, np.random.default_rng(0))
        name = agent.name
        copies = sum(n == name or n.startswith(name + "#") for n in names)
        names.append(name if copies == 0 else f"{name}#{copies + 1}")
        files.append(_content_hash(_played_file(agent, game)) if game is not None else None)
    return names, files


def _played_file(agent: Agent, game: Game) -> Path | None:
    """The file whose weights ``agent`` plays ``game`` with, if any."""
    if hasattr(agent, "checkpoint_for"):                           # PPOAgent
        return agent.checkpoint_for(game)
    if hasattr(agent, "network_for") and hasattr(agent, "network"):  # AZAgent
        network = agent.network
        if isinstance(network, (str, Path)):
            return Path(network)
        if network is None:
            from tris_envs.alphazero.agent import shipped_network

            try:
                return shipped_network(game)
            except FileNotFoundError:
                return None
    return None


def _content_hash(path: Path | None) -> str | None:
    """``sha256:<first 16 hex digits>`` of the file's bytes; ``None`` without a readable
    file (the error then comes when the agent loads it)."""
    if path is None:
        return None
    digest = hashlib.sha256()
    try:
        with Path(path).open("rb") as file:
            for block in iter(lambda: file.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        return None
    return f"sha256:{digest.hexdigest()[:16]}"


def _init_worker(game: Game, sources: Sequence[AgentSource], names: Sequence[str],
                 seed: int, keep_records: bool) -> None:
    _WORKER.update(game=game, sources=sources, names=names, seed=seed,
                   keep_records=keep_records)


def _init_pool_worker(*arguments: Any) -> None:
    """A pool worker: ignores Ctrl-C (the parent stops the pool) and exits when orphaned."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = os.getppid()

    def watch_parent() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch_parent, daemon=True).start()
    _init_worker(*arguments)


def _play_keyed(task: Task) -> tuple[tuple[int, ...], int, GameRecord]:
    seat, record = _play_task(task)
    return task[3], seat, record


def _play_task(task: Task) -> tuple[int, GameRecord]:
    """Play one game; returns ``a``'s seat and the game's record."""
    i, j, k, key = task
    w = _WORKER
    chance, rng_a, rng_b = (np.random.default_rng(s) for s in
                            np.random.SeedSequence(w["seed"], spawn_key=key).spawn(3))
    agent_a, agent_b = _build(w["sources"][i], rng_a), _build(w["sources"][j], rng_b)
    seat = k % 2
    agents = (agent_a, agent_b) if seat == 0 else (agent_b, agent_a)
    names = (w["names"][i], w["names"][j]) if seat == 0 else (w["names"][j], w["names"][i])
    return seat, play_recorded(w["game"], agents, chance, names, w["keep_records"])


_WINDOW = 10_000
"""Games handed to a process pool at a time (a huge match is never listed whole)."""
_MAX_CHUNK = 1_000
"""Games per chunk of work at most."""


def _run(game: Game, sources: list[AgentSource], names: list[str], schedule: _Schedule,
         seed: int, processes: int, keep_records: bool, journal: _Journal | None,
         ray: RayAddress) -> list[_Tally]:
    """Every pair's tally (records in game order when kept); finished games go to the
    journal as they end."""
    tallies = [_Tally(keep_records) for _ in schedule.pairs]
    done = journal.done if journal is not None else {}
    for key, (seat, record) in done.items():
        tallies[schedule.pair_index(key) or 0].add(key, seat, record)
    todo = (task for task in schedule if task[3] not in done)
    count = schedule.total - len(done)
    context = (game, sources, names, seed, keep_records)
    if count == 0:
        results: Iterator[tuple[tuple[int, ...], int, GameRecord]] = iter(())
    elif ray is not False:
        results = _ray_results(context, todo, count, ray)
    else:
        results = _results(context, todo, count, processes)
    for key, seat, record in results:
        if journal is not None:
            journal.add(key, seat, record)
        tallies[schedule.pair_index(key) or 0].add(key, seat, record)
    return tallies


def _results(context: tuple[Any, ...], tasks: Iterator[Task], count: int,
             processes: int) -> Iterator[tuple[tuple[int, ...], int, GameRecord]]:
    """``(key, seat, record)`` of each of the ``count`` tasks as it finishes, here or in a
    process pool (fed :data:`_WINDOW` tasks at a time)."""
    processes = pool_size(processes, count)
    if processes == 1:
        yield from _play_each(context, tasks)
        return
    spawn = multiprocessing.get_context("spawn")
    with spawn.Pool(processes, _init_pool_worker, context) as pool:
        while window := list(itertools.islice(tasks, _WINDOW)):
            yield from pool.imap_unordered(_play_keyed, window,
                                           chunksize=_chunk_size(len(window), processes))


def _ray_results(context: tuple[Any, ...], tasks: Iterator[Task], count: int,
                 address: RayAddress) -> Iterator[tuple[tuple[int, ...], int, GameRecord]]:
    """``(key, seat, record)`` of each task as it finishes, from Ray tasks on a cluster
    (a few chunks per CPU in flight at a time)."""
    from tris_envs.distributed import ray_session

    with ray_session(address) as ray:
        _, sources, names, _, _ = context
        for name, source in zip(names, sources):
            try:
                ray.cloudpickle.dumps(source)
            except Exception as error:   # cloudpickle raises whatever the object raises
                raise ValueError(f"agent {name!r} cannot be sent to Ray workers ({error}); "
                                 "give it as a spec string or a picklable factory") from None
        shared = ray.put(context)
        play = ray.remote(num_cpus=1)(_play_chunk)
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        size = _chunk_size(count, cpus)
        pending: list[Any] = []
        try:
            while True:
                while len(pending) < 4 * cpus and (chunk := list(itertools.islice(tasks, size))):
                    pending.append(play.remote(shared, chunk))
                if not pending:
                    break
                finished, pending = ray.wait(pending, num_returns=1)
                yield from ray.get(finished[0])
        finally:
            for reference in pending:      # interrupted: stop the games still running
                ray.cancel(reference, force=True)


def _chunk_size(tasks: int, workers: int) -> int:
    """Games per chunk handed to a worker: about 16 chunks per worker, at most
    :data:`_MAX_CHUNK`."""
    return max(1, min(_MAX_CHUNK, math.ceil(tasks / (16 * workers))))


def _play_each(context: tuple[Any, ...],
               tasks: Iterable[Task]) -> Iterator[tuple[tuple[int, ...], int, GameRecord]]:
    """Play ``tasks`` in this process, yielding each game as it ends."""
    _init_worker(*context)
    try:
        yield from map(_play_keyed, tasks)
    finally:
        _WORKER.clear()


def _play_chunk(context: tuple[Any, ...],
                tasks: list[Task]) -> list[tuple[tuple[int, ...], int, GameRecord]]:
    """A Ray task's body: play ``tasks`` and return them all."""
    return list(_play_each(context, tasks))


def _elo_text(elo: float) -> str:
    """Elo rounded to a signed integer (``+0``, never ``-0``), or an infinity sign."""
    if math.isinf(elo):
        return "+∞" if elo > 0 else "-∞"
    return f"{round(elo):+d}"
