"""Score rates, confidence intervals and Elo ratings.

Conventions (draws count half a win throughout):

* Score interval: the Wilson score interval at 95% (``z = 1.959964``), treating the score
  rate over ``n`` games as a binomial proportion. With draws the true variance of the score
  is smaller, so the interval is conservative; unlike the normal interval it stays inside
  [0, 1] and does not collapse to a point at 0% or 100%.
* Elo difference: ``400 * log10(s / (1 - s))`` for score rate ``s``. A 0% or 100% score is
  clamped by half a game (``s`` in ``[1/(2n), 1 - 1/(2n)]``) so the estimate stays finite;
  the interval is the Elo of the Wilson bounds, whose open side is infinite at a 0% or
  100% score (the games cannot bound it).
* Ratings: maximum-likelihood Elo (Bradley-Terry with logistic base 10 and scale 400)
  over all games, solved by Newton's method with a backtracking line search, anchored so
  the mean rating is 0. By default each pair that met gets one virtual draw added (a
  weak prior that keeps every rating finite, e.g. for an agent that never lost); with
  ``prior_draws=0`` it is the plain maximum-likelihood estimate, which exists only when
  every agent both scored against and conceded points to the rest (checked).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

Z95 = 1.959963984540054
"""Two-sided 95% standard normal quantile."""

ELO_SCALE = 400.0 / math.log(10.0)
"""Elo points per natural-log unit of odds."""


def score_rate(wins: int, draws: int, losses: int) -> float:
    """``(wins + draws / 2) / games``; ``ValueError`` for no games or a negative count."""
    if min(wins, draws, losses) < 0:
        raise ValueError(f"negative count among wins={wins}, draws={draws}, losses={losses}")
    n = wins + draws + losses
    if n == 0:
        raise ValueError("score rate of zero games")
    return (wins + 0.5 * draws) / n


def wilson_interval(score: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a rate ``score`` observed over ``n`` games."""
    if n <= 0:
        raise ValueError(f"interval over n={n} games; need n >= 1")
    if not 0.0 <= score <= 1.0:
        raise ValueError(f"score rate {score} must lie in [0, 1]")
    z2 = z * z
    denominator = 1.0 + z2 / n
    center = (score + z2 / (2 * n)) / denominator
    half = z / denominator * math.sqrt(score * (1.0 - score) / n + z2 / (4 * n * n))
    low = 0.0 if score == 0.0 else max(0.0, center - half)
    high = 1.0 if score == 1.0 else min(1.0, center + half)
    return low, high


def elo_from_score(score: float) -> float:
    """Elo difference that makes ``score`` the expected score (infinite at 0 and 1)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return 400.0 * math.log10(score / (1.0 - score))


def expected_score(elo_difference: float) -> float:
    """Expected score of a player rated ``elo_difference`` above the opponent."""
    return 1.0 / (1.0 + 10.0 ** (-elo_difference / 400.0))


def elo_difference(wins: int, draws: int, losses: int,
                   z: float = Z95) -> tuple[float, float, float]:
    """Elo difference and its interval ``(elo, low, high)`` from a match result.

    The point estimate clamps a 0% / 100% score by half a game; the bounds are the Elo of
    the Wilson interval (infinite on the open side of a 0% / 100% score).
    """
    n = wins + draws + losses
    score = score_rate(wins, draws, losses)
    clamped = min(max(score, 0.5 / n), 1.0 - 0.5 / n)
    low, high = wilson_interval(score, n, z)
    return elo_from_score(clamped), elo_from_score(low), elo_from_score(high)


def ml_elo(scores: np.ndarray | Sequence[Sequence[float]],
           games: np.ndarray | Sequence[Sequence[float]],
           prior_draws: float = 1.0, tolerance: float = 1e-9,
           max_iterations: int = 200) -> np.ndarray:
    """Maximum-likelihood Elo ratings from pairwise results, mean 0.

    Args:
        scores: ``scores[i][j]`` points agent ``i`` scored against ``j`` (draws 0.5).
        games: ``games[i][j]`` games between ``i`` and ``j`` (symmetric, zero diagonal).
        prior_draws: Virtual draws added to every pair that met (0: the plain estimate).
        tolerance: Stop when no rating moves by more than this many Elo points.
        max_iterations: Newton iterations at most.

    Raises:
        ValueError: inconsistent tables, agents not connected by games, or (with
            ``prior_draws=0``) a table whose estimate is infinite.
    """
    s = np.array(scores, dtype=float)
    n = np.array(games, dtype=float)
    k = len(s)
    if s.shape != (k, k) or n.shape != (k, k):
        raise ValueError(f"scores {s.shape} and games {n.shape} must be square and alike")
    if (s < 0).any() or (n < 0).any() or not np.allclose(n, n.T) or n.diagonal().any():
        raise ValueError("games must be symmetric, non-negative, with a zero diagonal; "
                         "scores non-negative")
    if not np.allclose(s + s.T, n):
        raise ValueError("scores[i][j] + scores[j][i] must equal games[i][j]")
    if prior_draws < 0:
        raise ValueError(f"prior_draws={prior_draws} must be >= 0")
    if k == 1:
        return np.zeros(1)
    met = n > 0
    s = s + met * (prior_draws / 2.0)
    n = n + met * prior_draws
    if not _strongly_connected(met):
        raise ValueError("maximum-likelihood Elo is undefined: some agents are not connected "
                         "by games")
    if not _strongly_connected(s > 0):
        raise ValueError("maximum-likelihood Elo is infinite: an agent or group of agents "
                         "won (or lost) every game against the rest; use prior_draws > 0")
    beta = np.zeros(k)  # log-odds strengths; beta[0] held at 0 while solving

    def log_likelihood(b: np.ndarray) -> float:
        d = b[:, None] - b[None, :]
        return float(-(s * np.logaddexp(0.0, -d)).sum())

    current = log_likelihood(beta)
    for _ in range(max_iterations):
        d = beta[:, None] - beta[None, :]
        p = 1.0 / (1.0 + np.exp(-d))
        gradient = (s - n * p).sum(axis=1)
        w = n * p * (1.0 - p)
        hessian = w - np.diag(w.sum(axis=1))
        step = np.zeros(k)
        step[1:] = np.linalg.solve(-hessian[1:, 1:], gradient[1:])
        scale = 1.0
        while True:
            candidate = beta + scale * step
            value = log_likelihood(candidate)
            if value >= current - 1e-12 or scale < 1e-10:
                break
            scale /= 2.0
        beta, current = candidate, value
        if np.abs(scale * step).max() * ELO_SCALE < tolerance:
            break
    ratings = beta * ELO_SCALE
    return ratings - ratings.mean()


def _strongly_connected(edges: np.ndarray) -> bool:
    """Whether every node reaches every other along ``edges[i, j]`` (i -> j)."""
    k = len(edges)
    for adjacency in (edges, edges.T):
        seen = {0}
        frontier = [0]
        while frontier:
            i = frontier.pop()
            for j in np.flatnonzero(adjacency[i]):
                if j not in seen:
                    seen.add(int(j))
                    frontier.append(int(j))
        if len(seen) < k:
            return False
    return True
