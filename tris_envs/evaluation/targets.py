"""The training targets per game, and their check against a checkpoint's results."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tris_envs.evaluation.checkpoint import (
    OpponentResult,
    evaluate_checkpoint,
    solver_reference,
)
from tris_envs.games import GAMES, make_game


def check_targets(game: str, results: Sequence[OpponentResult],
                  reference: float | None = None) -> list[tuple[str, bool | None]]:
    """Each of ``game``'s training targets (its :class:`~tris_envs.games.GameSpec`'s
    ``targets``) as ``(description with the figure reached, met)``.

    ``met`` is ``None`` where ``results`` lack the opponent (or the moves were not judged,
    or ``reference``, the solver's own score, is missing).
    """
    by_opponent = {r.opponent: r for r in results}
    judged = sum(r.judged for r in results)
    report: list[tuple[str, bool | None]] = []
    for opponent, test, value in GAMES[game].targets:
        result = by_opponent.get(opponent)
        met: bool | None = None
        if test == "optimal":
            share = sum(r.optimal for r in results) / judged if judged else None
            text = f"optimal moves >= {value:.0%}: " + ("not judged" if share is None
                                                        else f"{share:.2%}")
            met = None if share is None else share >= value
        elif result is None:
            text = f"{opponent}: not played"
        elif test == "losses":
            text = f"no loss against {opponent}: {result.match.losses} losses"
            met = result.match.losses <= value
        elif test == "vs reference":
            score = result.match.score
            text = (f"score against {opponent} within {value} of its own "
                    f"({'?' if reference is None else f'{reference:.1%}'}): {score:.1%}")
            met = None if reference is None else score >= reference - value
        else:
            score = result.match.score
            text = f"score against {opponent} {test} {value:.0%}: {score:.1%}"
            met = score >= value if test == ">=" else score > value
        report.append((text, met))
    return report


def target_report(checkpoint: str | Path, game: str, n_games: int = 400, seed: int = 0,
                  processes: int = 1) -> list[tuple[str, bool | None]]:
    """:func:`check_targets` of ``checkpoint`` in ``game`` (default options) after
    ``n_games`` games against each opponent the targets name (and the solver where one
    exists, with its own score as the reference)."""
    game_core = make_game(game)
    opponents = sorted({o for o, _, _ in GAMES[game].targets if o != "*"} |
                       ({"solver"} if GAMES[game].solvable else set()))
    results = evaluate_checkpoint(checkpoint, game_core, opponents, n_games, seed, processes)
    reference = solver_reference(game_core, n_games, seed, processes) if (
        GAMES[game].solvable) else None
    return check_targets(game, results, reference)


