"""Move-quality metrics: blunders, missed wins and value-keeping moves.

* A **blunder** is a move after which the opponent can win at once, played while the mover
  had a move that does not allow that. A move that wins at once is never a blunder.
* A **missed win**: the mover could win at once and played something else.
* A **value-keeping move** (games with an exact solver): a move that keeps the solver's game
  value of the position (:func:`is_value_keeping`), judged wherever the solver covers the
  position (not in Doppia scelta's coloring phase); counted over all such moves and over the
  positions with more than one legal move.

Blunders and missed wins look one move ahead on the rules core, so they apply to every
deterministic game (Tris 1, Tris 2, Tant Fant, Doppia scelta); games with dice have no such
one-move verdict and are refused. The one-move tests themselves (``wins_at_once``,
``can_win_at_once``, ``allows_win``) live in :mod:`tris_envs.core.game`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from tris_envs.core.game import Game, allows_win, can_win_at_once, wins_at_once
from tris_envs.evaluation.records import GameRecord


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


def is_value_keeping(game: Game, state: Any, action: int) -> bool | None:
    """Whether ``action`` in ``state`` keeps the solver's game value; ``None`` where the
    solver does not judge the position (a game without one, Doppia scelta's coloring
    phase)."""
    from tris_envs.agents.solver_agent import solution_for

    try:
        solution, lookup = solution_for(game, state)
    except ValueError:
        return None
    return action in solution.optimal_actions(lookup)


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
    from tris_envs.games import GAMES

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


def _check_deterministic(game: Game) -> None:
    if not game.info.deterministic:
        raise ValueError(f"{game.info.name} has dice: blunders and missed wins are defined "
                         "for deterministic games only")
