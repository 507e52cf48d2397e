"""Move-quality metrics: blunders, missed wins and value-keeping moves.

* A **blunder** is a move after which the opponent can win at once, played while the mover
  had a move that does not allow that. A move that wins at once is never a blunder.
* A **missed win**: the mover could win at once and played something else.
* A **value-keeping move** (games with an exact solver): a move that keeps the solver's game
  value of the position (:func:`~tris_envs.agents.solver_agent.is_value_keeping`), judged
  wherever the solver covers the position (not in Doppia scelta's coloring phase); counted
  over all such moves and over the positions with more than one legal move.

:func:`outcomes` splits a player's results by seat, by the move that decided each game,
and (games with an exact solver) by the solved value of each game's start.

Blunders and missed wins look one move ahead on the rules core, so they apply to every
deterministic game (Tris 1, Tris 2, Tant Fant, Doppia scelta); games with dice have no such
one-move verdict and are refused. The one-move tests themselves (``wins_at_once``,
``can_win_at_once``, ``allows_win``) live in :mod:`tris_envs.core.game`.

:func:`llm_usages` counts, from the records' dialogues, how an agent that asks a language
model for its moves fared, in every game: illegal replies, failed requests, retries,
forfeits, random moves, tokens and seconds a move.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from tris_envs.agents.solver_agent import is_value_keeping, solution_for
from tris_envs.core.game import Game, allows_win, can_win_at_once, wins_at_once
from tris_envs.evaluation.records import GameRecord
from tris_envs.games import GAMES


def is_blunder(game: Game, state: Any, action: int) -> bool:
    """Whether ``action`` in ``state`` is a blunder (see the module docstring).

    Raises:
        ValueError: the game has chance nodes.
    """
    _check_deterministic(game)
    if wins_at_once(game, state, action) or not allows_win(game, state, action):
        return False
    return any(wins_at_once(game, state, a) or not allows_win(game, state, a)
               for a in game.legal_actions(state) if a != action)


def is_missed_win(game: Game, state: Any, action: int) -> bool:
    """Whether the mover could win at once in ``state`` and ``action`` does not.

    Raises:
        ValueError: the game has chance nodes.
    """
    _check_deterministic(game)
    return not wins_at_once(game, state, action) and can_win_at_once(game, state)


@dataclass
class LLMUsage:
    """What one agent's requests for its moves came to (the records' dialogues).

    Attributes:
        moves: Moves asked for (a forfeited one included).
        requests: Requests made (first tries and retries).
        replies: Of them, those that got a reply.
        illegal: Of the replies, those that named no legal move.
        failed: Requests without a usable reply (an HTTP error, a timeout, a malformed
            response).
        forfeits: Moves given up (the game lost).
        random_moves: Moves replaced by a random legal move.
        prompt_tokens: Tokens sent, as the server counted them.
        completion_tokens: Tokens replied, likewise.
        counted: Requests whose response counted tokens.
        seconds: Wall time of all requests.
        first_failure: Why the first failed request failed (``""``: none failed).
    """

    moves: int = 0
    requests: int = 0
    replies: int = 0
    illegal: int = 0
    failed: int = 0
    forfeits: int = 0
    random_moves: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    counted: int = 0
    seconds: float = 0.0
    first_failure: str = ""

    @property
    def retries(self) -> int:
        """Requests after a move's first."""
        return self.requests - self.moves

    @property
    def illegal_rate(self) -> float:
        """``illegal / replies`` (0 without replies)."""
        return self.illegal / self.replies if self.replies else 0.0

    def __str__(self) -> str:
        text = (f"{self.moves} moves asked in {self.requests} requests ({self.retries} "
                f"retries); illegal replies {self.illegal_rate:.2%} ({self.illegal} of "
                f"{self.replies})")
        if self.failed:
            text += f"; {self.failed} failed requests (the first: {self.first_failure})"
        text += f"; {self.forfeits} forfeits, {self.random_moves} random moves"
        if self.moves:
            if self.counted:
                tokens = (self.prompt_tokens + self.completion_tokens) / self.moves
                text += (f"; {tokens:.0f} tokens a move ({self.prompt_tokens / self.moves:.0f} "
                         f"sent, {self.completion_tokens / self.moves:.0f} replied)")
            else:
                text += "; tokens not counted by the server"
            text += f"; {self.seconds / self.moves:.2f} s a move"
        return text


def llm_usages(records: Iterable[GameRecord], players: Iterable[str]) -> dict[str, LLMUsage]:
    """:class:`LLMUsage` of each of ``players`` (names in ``record.players``) that made
    requests in ``records``, in the order of ``players``."""
    usages = {player: LLMUsage() for player in players}
    for record in records:
        for dialogue in record.dialogues:
            usage = usages.get(record.players[dialogue.seat])
            if usage is None:
                continue
            usage.moves += 1
            usage.forfeits += dialogue.outcome == "forfeit"
            usage.random_moves += dialogue.outcome == "random"
            for exchange in dialogue.tries:
                usage.requests += 1
                usage.replies += exchange.reply is not None
                usage.illegal += exchange.verdict == "illegal"
                if exchange.verdict == "error":
                    usage.failed += 1
                    usage.first_failure = usage.first_failure or exchange.reason
                if exchange.prompt_tokens is not None or exchange.completion_tokens is not None:
                    usage.counted += 1
                    usage.prompt_tokens += exchange.prompt_tokens or 0
                    usage.completion_tokens += exchange.completion_tokens or 0
                usage.seconds += exchange.seconds
    return {player: usage for player, usage in usages.items() if usage.requests}


@dataclass
class MoveQuality:
    """Counts over one player's moves.

    Attributes:
        moves: Moves judged.
        blunders: Of them, blunders.
        missed_wins: Of them, missed wins.
        judged: Moves the exact solver judged in positions with more than one legal move
            (0 in games without a solver).
        value_kept: Of them, moves that keep the solver's game value.
        judged_all: Moves the exact solver judged, forced moves included.
        value_kept_all: Of them, moves that keep the solver's game value.
    """

    moves: int = 0
    blunders: int = 0
    missed_wins: int = 0
    judged: int = 0
    value_kept: int = 0
    judged_all: int = 0
    value_kept_all: int = 0

    @property
    def blunder_rate(self) -> float:
        """``blunders / moves`` (0 without moves)."""
        return self.blunders / self.moves if self.moves else 0.0

    @property
    def missed_win_rate(self) -> float:
        """``missed_wins / moves`` (0 without moves)."""
        return self.missed_wins / self.moves if self.moves else 0.0

    @property
    def value_keeping_rate(self) -> float | None:
        """``value_kept / judged``, or ``None`` where no move was judged."""
        return self.value_kept / self.judged if self.judged else None

    @property
    def value_keeping_rate_all(self) -> float | None:
        """``value_kept_all / judged_all``, or ``None`` where no move was judged."""
        return self.value_kept_all / self.judged_all if self.judged_all else None

    def add(self, other: MoveQuality) -> MoveQuality:
        """The counts of both."""
        return MoveQuality(self.moves + other.moves, self.blunders + other.blunders,
                           self.missed_wins + other.missed_wins, self.judged + other.judged,
                           self.value_kept + other.value_kept,
                           self.judged_all + other.judged_all,
                           self.value_kept_all + other.value_kept_all)

    def __str__(self) -> str:
        text = (f"{self.moves} moves, blunder rate {self.blunder_rate:.2%} ({self.blunders}), "
                f"missed-win rate {self.missed_win_rate:.2%} ({self.missed_wins})")
        if self.value_keeping_rate is not None:
            text += (f", value-keeping {self.value_keeping_rate:.2%} of {self.judged} moves "
                     "with a choice")
        return text


def move_quality(game: Game, records: Iterable[GameRecord], player: str,
                 one_move: bool = True) -> MoveQuality:
    """The move quality of ``player`` (a name in ``record.players``) over ``records``.

    Args:
        game: The rules core the records were played with.
        records: Games, each replayed from its start position.
        player: Whose moves to judge.
        one_move: Count blunders and missed wins (deterministic games only); ``False``:
            the value-keeping moves alone (``moves`` still counts every move).

    Raises:
        ValueError: ``one_move`` and a game with chance nodes.
    """
    return move_qualities(game, records, [player], one_move)[player]


def move_qualities(game: Game, records: Iterable[GameRecord], players: Iterable[str],
                   one_move: bool = True) -> dict[str, MoveQuality]:
    """:func:`move_quality` of each of ``players`` in one pass over ``records`` (each
    position judged once: with random boards, such as Doppia scelta's, the solver's work
    is per game).

    Raises:
        ValueError: ``one_move`` and a game with chance nodes.
    """
    if one_move:
        _check_deterministic(game)
    solvable = GAMES[game.info.name].solvable
    qualities = {player: MoveQuality() for player in players}
    for record in records:
        state = game.from_notation(record.start)
        for actor, action in record.moves:
            quality = qualities.get(record.players[actor]) if actor >= 0 else None
            if quality is not None:
                quality.moves += 1
                if one_move:
                    quality.blunders += is_blunder(game, state, action)
                    quality.missed_wins += is_missed_win(game, state, action)
                kept = is_value_keeping(game, state, action) if solvable else None
                if kept is not None:
                    quality.judged_all += 1
                    quality.value_kept_all += kept
                    if len(game.legal_actions(state)) > 1:
                        quality.judged += 1
                        quality.value_kept += kept
            state = game.apply(state, action)
    return qualities


RESULTS = ("won", "drawn", "lost")
"""The three results, in the order of :attr:`Outcomes`' counts."""


def _tally(counts: list[int]) -> str:
    return f"+{counts[0]} ={counts[1]} -{counts[2]}"


def _lengths(lengths: Counter[int], shown: int = 4) -> str:
    """``lengths`` (moves -> games) as "10 (87), 23 (2), ...": the ``shown`` most common,
    then how many other games there are and the range of their lengths."""
    common = sorted(lengths.most_common(shown))
    text = ", ".join(f"{moves} ({count})" for moves, count in common)
    shown_lengths = {moves for moves, _ in common}
    rest = [moves for moves in lengths.elements() if moves not in shown_lengths]
    if rest:
        text += f" and {len(rest)} more at {min(rest)}-{max(rest)}"
    return text


@dataclass
class Outcomes:
    """One player's results over records, split three ways.

    Attributes:
        by_seat: Seat -> games won, drawn and lost in that seat.
        lengths: ``(result, seat)`` -> moves the game lasted -> games, for the games the
            player won or lost (``result`` ``"won"`` or ``"lost"``).
        truncated: Seat -> games stopped at the move limit (draws).
        by_start: Solved value of the start for the player (+1, 0, -1) -> games won, drawn
            and lost from such starts (empty in games without a solver).
        beyond_limit: Games drawn from a start solved as won whose fastest win takes more
            moves than the game's ``max_moves`` allows.
    """

    by_seat: dict[int, list[int]] = field(default_factory=dict)
    lengths: dict[tuple[str, int], Counter[int]] = field(default_factory=dict)
    truncated: dict[int, int] = field(default_factory=dict)
    by_start: dict[int, list[int]] = field(default_factory=dict)
    beyond_limit: int = 0

    def lines(self, name: str) -> list[str]:
        """Printable lines: one per seat (seat 0 moves first), then one of the start values
        where they were solved."""
        lines = []
        for seat in sorted(self.by_seat):
            text = f"{name} in seat {seat}: {_tally(self.by_seat[seat])}"
            for result in ("won", "lost"):
                lengths = self.lengths.get((result, seat))
                if lengths:
                    text += f"; {result} at move {_lengths(lengths)}"
            if self.truncated.get(seat):
                text += f"; {self.truncated[seat]} stopped at the move limit"
            lines.append(text)
        if self.by_start:
            parts = [f"{RESULTS[1 - value]} {sum(self.by_start[value])} "
                     f"({_tally(self.by_start[value])})"
                     for value in (1, 0, -1) if value in self.by_start]
            text = f"{name} by the start's solved value: " + ", ".join(parts)
            if self.beyond_limit:
                text += (f"; {self.beyond_limit} of the won starts drawn need more moves "
                         "than max_moves to win")
            lines.append(text)
        return lines


def outcomes(game: Game, records: Iterable[GameRecord], player: str) -> Outcomes:
    """:class:`Outcomes` of ``player`` (a name in ``record.players``) over ``records``.

    A game's length is its number of moves (chance outcomes included). Where the game has
    an exact solver that covers the start, the start is valued for the player's seat and
    its fastest win compared with ``game.info.max_moves``.
    """
    solvable = GAMES[game.info.name].solvable
    found = Outcomes()
    for record in records:
        if player not in record.players:
            continue
        seat = record.players.index(player)
        mine = record.returns[seat]
        result = 0 if mine > 0 else 2 if mine < 0 else 1
        found.by_seat.setdefault(seat, [0, 0, 0])[result] += 1
        if record.truncated:
            found.truncated[seat] = found.truncated.get(seat, 0) + 1
        if result != 1:
            key = (RESULTS[result], seat)
            found.lengths.setdefault(key, Counter())[len(record.moves)] += 1
        if not solvable:
            continue
        start = game.from_notation(record.start)
        try:
            solution, lookup = solution_for(game, start)
        except ValueError:
            continue
        value = solution.value(lookup, seat)
        found.by_start.setdefault(value, [0, 0, 0])[result] += 1
        plies = int(solution.plies[solution.row(lookup)])
        if value == 1 and result == 1 and plies > game.info.max_moves:
            found.beyond_limit += 1
    return found


def _check_deterministic(game: Game) -> None:
    if not game.info.deterministic:
        raise ValueError(f"{game.info.name} has dice: blunders and missed wins are defined "
                         "for deterministic games only")
