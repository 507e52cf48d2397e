"""Matches, round-robin tournaments, Elo ratings, game records and move-quality metrics.

- :mod:`~tris_envs.evaluation.match`: matches and round robins, scheduled and tallied;
- :mod:`~tris_envs.evaluation.engine`: one game of a match (seeding, agent sources);
- :mod:`~tris_envs.evaluation.backends`: where the games run (this process, a process pool,
  Ray);
- :mod:`~tris_envs.evaluation.journal`: a match's games appended to a file as they end, and
  resumed from it;
- :mod:`~tris_envs.evaluation.records`: game records;
- :mod:`~tris_envs.evaluation.ratings`: scores, intervals and Elo;
- :mod:`~tris_envs.evaluation.metrics`: blunders, missed wins, value-keeping moves;
- :mod:`~tris_envs.evaluation.checkpoint`: a PPO checkpoint against baselines, its moves
  judged;
- :mod:`~tris_envs.evaluation.targets`: the training targets per game, checked against a
  checkpoint's results.
"""

from tris_envs.evaluation.backends import pool_size
from tris_envs.evaluation.engine import AgentSource
from tris_envs.evaluation.match import (
    MatchResult,
    RoundRobinTable,
    play_match,
    round_robin,
)
from tris_envs.evaluation.ratings import (
    elo_difference,
    elo_from_score,
    expected_score,
    ml_elo,
    score_rate,
    wilson_interval,
)
from tris_envs.evaluation.records import (
    GameRecord,
    load_records,
    play_recorded,
    replay,
    save_records,
)

__all__ = ["AgentSource", "GameRecord", "MatchResult", "RoundRobinTable", "elo_difference",
           "elo_from_score", "expected_score", "load_records", "ml_elo", "play_match",
           "play_recorded", "pool_size", "replay", "round_robin", "save_records", "score_rate",
           "wilson_interval"]
