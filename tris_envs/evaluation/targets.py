"""The training targets per game, and their check against a checkpoint's results."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tris_envs.evaluation.checkpoint import OpponentResult, evaluate_checkpoint
from tris_envs.games import GAMES, make_game


def check_targets(game: str, results: Sequence[OpponentResult]
                  ) -> list[tuple[str, bool | None]]:
    """Each of ``game``'s training targets (its :class:`~tris_envs.games.GameSpec`'s
    ``targets``: SPEC 14's) as ``(description with the figure reached, met)``.

    ``met`` is ``None`` where ``results`` lack the opponent (or the moves were not judged).
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
    exists)."""
    game_core = make_game(game)
    opponents = sorted({o for o, _, _ in GAMES[game].targets if o != "*"} |
                       ({"solver"} if GAMES[game].solvable else set()))
    results = evaluate_checkpoint(checkpoint, game_core, opponents, n_games, seed, processes)
    return check_targets(game, results)


