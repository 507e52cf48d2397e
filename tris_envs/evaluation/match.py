"""Matches and round-robin tournaments between agents, optionally over processes.

Agents are given as *sources*: an :class:`~tris_envs.agents.AgentSpec` or its text for
:func:`~tris_envs.agents.make_agent` (``"mcts:300"``, parsed once when the match starts) or a
picklable factory called as ``factory(rng=generator)`` that returns an
agent (an agent class, a module-level function, or a ``functools.partial`` such as
``partial(MCTSAgent, 200, exploration=1.0)``). Every game builds fresh agents from their
sources with its own generators, so a game depends only on the match seed and its index,
never on which process plays it or in what order: results are identical for any
``processes``.

The pieces: :mod:`~tris_envs.evaluation.engine` plays one game of a match from its task
(seeding, agents built from their sources); :mod:`~tris_envs.evaluation.backends` runs the
games in this process, in a process pool (``processes > 1``) or on a Ray cluster (``ray``);
:mod:`~tris_envs.evaluation.journal` appends every finished game to a file as it ends
(``records=path``) and resumes an interrupted match from it (``resume=True``) to the result
of an uninterrupted one. This module schedules the games and tallies the results.

Games are scheduled lazily: a match of a billion games starts playing at once, and holds
in memory only its tallies (and the records when ``keep_records=True``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tris_envs.core.errors import brief
from tris_envs.core.game import Game
from tris_envs.distributed import RayAddress
from tris_envs.evaluation.backends import local_results, ray_results
from tris_envs.evaluation.engine import AgentSource, Played, Schedule, parsed_sources
from tris_envs.evaluation.journal import Journal, identify
from tris_envs.evaluation.ratings import elo_difference, ml_elo, score_rate, wilson_interval
from tris_envs.evaluation.records import GameRecord


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
               ray: RayAddress = False, overwrite: bool = False,
               progress: Callable[[int], None] | None = None) -> MatchResult:
    """Play ``n_games`` between ``a`` and ``b``, seats alternating (``a`` first in game 0).

    Args:
        game: The rules core (its options fixed).
        a: The agent whose results are reported.
        b: The opponent.
        n_games: Games to play (at least 1).
        seed: Non-negative integer; the same seed gives the same games for any
            ``processes``, with or without Ray.
        processes: Worker processes (1: play in this process; at most
            :func:`~tris_envs.evaluation.backends.pool_size`).
        keep_records: Keep every game's record in ``result.records``.
        records: Journal file: each finished game is appended as it ends (see
            :mod:`~tris_envs.evaluation.journal`).
        resume: Continue the journal ``records``: play only the games it lacks.
        ray: Play on a Ray cluster: ``True`` or its address (see
            :data:`tris_envs.distributed.RayAddress`); ``False``: on this machine.
        overwrite: Start the journal ``records`` afresh even if the file holds games
            (without it, and without ``resume``, such a file is refused).
        progress: Called with the number of games just finished (those a resumed journal
            holds first, in one call), e.g. :meth:`tris_envs.progress.Progress.advance`.

    Raises:
        ValueError: bad counts, seed or agent spec; a journal of another match (or of other
            agent files); an existing journal without ``resume`` or ``overwrite``; ``ray``
            with ``processes > 1``, or a source Ray cannot send.
        ImportError: ``ray`` given and Ray not installed.
        ConnectionError: ``ray`` given and Ray could not start or connect.
    """
    _check_counts(n_games, seed, processes, ray)
    sources = parsed_sources([a, b])
    names, files = identify(sources, game)
    schedule = Schedule([(0, 1)], n_games, single=True)
    with Journal.open(records, resume, overwrite, game, names, files, seed, n_games,
                      schedule) as journal:
        tallies = _run(game, sources, names, schedule, seed, processes, keep_records, journal,
                       ray, progress)
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
                ray: RayAddress = False, overwrite: bool = False,
                progress: Callable[[int], None] | None = None) -> RoundRobinTable:
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
    sources = parsed_sources(agents)
    names, files = identify(sources, game)
    pairs = [(i, j) for i in range(len(sources)) for j in range(i + 1, len(sources))]
    schedule = Schedule(pairs, n_games, single=False)
    with Journal.open(records, resume, overwrite, game, names, files, seed, n_games,
                      schedule) as journal:
        tallies = _run(game, sources, names, schedule, seed, processes, keep_records, journal,
                       ray, progress)
    matches = {(i, j): tallies[p].result(names[i], names[j]) for p, (i, j) in enumerate(pairs)}
    table = RoundRobinTable(game.info.name, names, matches, np.zeros(len(names)))
    table.ratings = ml_elo(table.points(), table.games())
    return table


# ----- internals ------------------------------------------------------------------------
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


def _check_counts(n_games: int, seed: int, processes: int, ray: RayAddress) -> None:
    for what, value, least in (("n_games", n_games, 1), ("seed", seed, 0),
                               ("processes", processes, 1)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
            kind = "a non-negative integer" if least == 0 else f"an integer >= {least}"
            raise ValueError(f"{what} must be {kind}, got {brief(value)}")
    if ray is not False and processes != 1:
        raise ValueError(f"processes={processes} with ray: Ray spreads the games over the "
                         "cluster's CPUs; leave processes at 1")


def _run(game: Game, sources: list[AgentSource], names: list[str], schedule: Schedule,
         seed: int, processes: int, keep_records: bool, journal: Journal | None,
         ray: RayAddress, progress: Callable[[int], None] | None) -> list[_Tally]:
    """Every pair's tally (records in game order when kept); finished games go to the
    journal and to ``progress`` as they end."""
    tallies = [_Tally(keep_records) for _ in schedule.pairs]
    done = journal.done if journal is not None else {}
    for key, (seat, record) in done.items():
        tallies[schedule.pair_index(key) or 0].add(key, seat, record)
    if done and progress is not None:
        progress(len(done))
    todo = (task for task in schedule if task[3] not in done)
    count = schedule.total - len(done)
    context = (game, sources, names, seed, keep_records)
    if count == 0:
        results: Iterator[Played] = iter(())
    elif ray is not False:
        results = ray_results(context, todo, count, ray)
    else:
        results = local_results(context, todo, count, processes)
    for key, seat, record in results:
        if journal is not None:
            journal.add(key, seat, record)
        tallies[schedule.pair_index(key) or 0].add(key, seat, record)
        if progress is not None:
            progress(1)
    return tallies


def _elo_text(elo: float) -> str:
    """Elo rounded to a signed integer (``+0``, never ``-0``), or an infinity sign."""
    if math.isinf(elo):
        return "+∞" if elo > 0 else "-∞"
    return f"{round(elo):+d}"
