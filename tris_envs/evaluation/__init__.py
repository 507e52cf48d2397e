"""Matches, round-robin tournaments, Elo ratings and game records."""

from tris_envs.evaluation.match import (
    AgentSource,
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
           "play_recorded", "replay", "round_robin", "save_records", "score_rate",
           "wilson_interval"]
