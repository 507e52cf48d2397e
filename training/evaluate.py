"""Score a MaskablePPO checkpoint against the baselines, both seats, and judge its moves.

Usage::

    python training/evaluate.py runs/tant_fant/final.zip --game tant_fant
    python training/evaluate.py best.zip --game tris1 --games 400 \\
        --opponents random,greedy,mcts:100,solver --seed 7 --processes 2

Every opponent plays ``--games`` games against the checkpoint with
:func:`tris_envs.evaluation.play_match` (seats alternating, the checkpoint first in even
games; the same seed gives the same games). The checkpoint plays its most probable legal
move unless ``--stochastic``. Where the game has an exact solver (``GameSpec.solvable``:
Tant Fant, Tris 1, Doppia scelta) the table also gives the share of the checkpoint's moves
that keep the solver's game value (``Solution.optimal_actions``) over the positions it
reached in these games (``--no-judge`` skips it), and the solver's own score against the
solver in the same games, the reference a perfect player would reach. ``--targets`` checks
the results against the game's training targets (:data:`TARGETS`). Game options come from
``--config`` (a training TOML or the ``config.json`` a run writes), else the game's defaults.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tris_envs.agents import PPOAgent, make_agent
from tris_envs.agents.solver_agent import solution_for
from tris_envs.core.game import Game
from tris_envs.evaluation import GameRecord, MatchResult, play_match
from tris_envs.games import GAMES, make_game

DEFAULT_OPPONENTS = ("random", "greedy", "mcts:100", "solver")

TARGETS: dict[str, list[tuple[str, str, float]]] = {
    "tant_fant": [("solver", "losses", 0), ("*", "optimal", 0.99)],
    "tris1": [("solver", "losses", 0), ("*", "optimal", 0.99)],
    "doppia_scelta": [("random", ">=", 0.9), ("solver", "vs reference", 0.1)],
    "tris2": [("random", ">=", 0.95), ("greedy", ">", 0.6), ("mcts:100", ">", 0.5)],
    "tritoc": [("greedy", ">", 0.6), ("mcts:100", ">", 0.5)],
}
"""The training targets per game, as ``(opponent, test, value)``: score ``>=`` / ``>`` value,
at most ``value`` ``losses``, a share of solver-optimal moves over all games (``"*"``) of at
least ``value``, or a score against the solver within ``value`` of the solver's own score
in the same games (``"vs reference"``)."""


@dataclass
class OpponentResult:
    """The checkpoint's results against one opponent.

    Attributes:
        opponent: The opponent's agent spec.
        match: The match, the checkpoint as agent ``a``.
        optimal: The checkpoint's moves that keep the solver's game value.
        judged: The checkpoint's moves judged by the solver (0 where the game has none).
    """

    opponent: str
    match: MatchResult
    optimal: int = 0
    judged: int = 0

    @property
    def optimal_share(self) -> float | None:
        """``optimal / judged``, or ``None`` where no move was judged."""
        return self.optimal / self.judged if self.judged else None


def evaluate_checkpoint(checkpoint: str | Path, game: Game, opponents: Sequence[str],
                        n_games: int, seed: int, processes: int = 1,
                        deterministic: bool = True,
                        judge_moves: bool = True) -> list[OpponentResult]:
    """Play the checkpoint against each opponent; judge its moves where a solver exists.

    Args:
        checkpoint: The ``MaskablePPO`` zip.
        game: The rules core, options fixed (as in training).
        opponents: Agent specs (``"random"``, ``"mcts:100"``, ``"solver"``, ``"ppo:<path>"``).
        n_games: Games per opponent, seats alternating.
        seed: Match seed (the same for every opponent).
        processes: Worker processes of each match.
        deterministic: The checkpoint plays its most probable legal move.
        judge_moves: Count the checkpoint's solver-optimal moves (solvable games only).

    Raises:
        ValueError: a bad spec, count or seed, or ``"solver"`` for a game without one.
        FileNotFoundError: no checkpoint file.
    """
    source = functools.partial(PPOAgent, checkpoint, deterministic=deterministic)
    judge = judge_moves and GAMES[game.info.name].solvable
    results = []
    for opponent in opponents:
        match = play_match(game, source, opponent, n_games, seed, processes=processes,
                           keep_records=judge)
        result = OpponentResult(opponent, match)
        if judge:
            result.optimal, result.judged = optimal_moves(game, match.records)
            match.records = []
        results.append(result)
    return results


def optimal_moves(game: Game, records: Sequence[GameRecord]) -> tuple[int, int]:
    """Moves of ``play_match``'s agent ``a`` that keep the solver's value, and all its moves.

    ``records`` are a match's records in order: agent ``a`` sat in seat ``k % 2`` in game
    ``k``. Each game is replayed from its start position.

    Raises:
        ValueError: the game has no exact solver.
    """
    optimal = judged = 0
    for k, record in enumerate(records):
        seat = k % 2
        state = game.from_notation(record.start)
        for actor, action in record.moves:
            if actor == seat:
                solution, lookup = solution_for(game, state)
                optimal += action in solution.optimal_actions(lookup)
                judged += 1
            state = game.apply(state, action)
    return optimal, judged


def check_targets(game: str, results: Sequence[OpponentResult],
                  reference: float | None = None) -> list[tuple[str, bool | None]]:
    """Each of ``game``'s :data:`TARGETS` as ``(description with the figure reached, met)``.

    ``met`` is ``None`` where ``results`` lack the opponent (or the moves were not judged,
    or ``reference``, the solver's own score, is missing).
    """
    by_opponent = {r.opponent: r for r in results}
    judged = sum(r.judged for r in results)
    report: list[tuple[str, bool | None]] = []
    for opponent, test, value in TARGETS.get(game, []):
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
    opponents = sorted({o for o, _, _ in TARGETS[game] if o != "*"} |
                       ({"solver"} if GAMES[game].solvable else set()))
    results = evaluate_checkpoint(checkpoint, game_core, opponents, n_games, seed, processes)
    reference = solver_reference(game_core, n_games, seed, processes) if (
        GAMES[game].solvable) else None
    return check_targets(game, results, reference)


def solver_reference(game: Game, n_games: int, seed: int, processes: int = 1) -> float:
    """The solver's score against the solver in the games a match with ``seed`` plays (the
    same boards and dice as the checkpoint's games): what perfect play reaches."""
    return play_match(game, "solver", "solver", n_games, seed, processes=processes).score


def format_table(results: Sequence[OpponentResult]) -> str:
    """The results as a Markdown table (score with its 95% interval, optimal-move share)."""
    judged = any(r.judged for r in results)
    header = "| opponent | games | wins | draws | losses | score | 95% interval |"
    header += " optimal moves |" if judged else ""
    lines = [header, "|" + "---|" * (header.count("|") - 1)]
    for r in results:
        m = r.match
        low, high = m.score_interval
        line = (f"| {r.opponent} | {m.n_games} | {m.wins} | {m.draws} | {m.losses} | "
                f"{m.score:.1%} | [{low:.1%}, {high:.1%}] |")
        if judged:
            share = r.optimal_share
            line += f" {share:.2%} of {r.judged} |" if share is not None else " — |"
        lines.append(line)
    if judged:
        optimal = sum(r.optimal for r in results)
        total = sum(r.judged for r in results)
        lines.append("")
        lines.append(f"optimal moves over all games: {optimal}/{total} = {optimal / total:.2%} "
                     "(moves keeping the solver's game value)")
    return "\n".join(lines)


def game_options_from(config: str | Path | None) -> dict[str, Any]:
    """The ``game_options`` table of a training config (TOML) or a run's ``config.json``.

    Raises:
        ValueError: a TOML file on Python 3.10 without ``tomli``.
    """
    if config is None:
        return {}
    path = Path(config)
    if path.suffix == ".json":
        data = json.loads(path.read_text())
    else:
        try:
            import tomllib
        except ModuleNotFoundError:
            try:
                import tomli as tomllib
            except ModuleNotFoundError:
                raise ValueError(f"reading {path} needs Python >= 3.11 (tomllib) or tomli; "
                                 "pass the run's config.json instead") from None
        data = tomllib.loads(path.read_text())
    return dict(data.get("game_options", {}))


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(
        prog="evaluate.py", description="Score a MaskablePPO checkpoint against baselines.")
    parser.add_argument("checkpoint", type=Path,
                        help="a MaskablePPO zip or a .pt policy (e.g. tris_envs/checkpoints/"
                             "tant_fant.pt)")
    parser.add_argument("--game", required=True, help="game name, e.g. tant_fant")
    parser.add_argument("--games", type=int, default=200,
                        help="games per opponent, seats alternating (default 200)")
    parser.add_argument("--opponents", default=None,
                        help="comma-separated agent specs (default random,greedy,mcts:100 "
                             "and solver where the game has one)")
    parser.add_argument("--seed", type=int, default=0, help="match seed (default 0)")
    parser.add_argument("--processes", type=int, default=1, help="worker processes")
    parser.add_argument("--config", type=Path, default=None,
                        help="training config (.toml) or a run's config.json, for game "
                             "options")
    parser.add_argument("--stochastic", action="store_true",
                        help="sample the policy instead of playing its most probable move")
    parser.add_argument("--targets", action="store_true",
                        help="check the game's training targets (evaluate.TARGETS) against "
                             "these results")
    parser.add_argument("--no-judge", action="store_true",
                        help="skip the share of solver-optimal moves (one solve per board "
                             "in Doppia scelta)")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the evaluation and print the table; 2 on a usage error."""
    args = parse_args(argv)
    try:
        import torch

        torch.set_num_threads(1)
        game = make_game(args.game, **game_options_from(args.config))
        if args.opponents is None:
            opponents = [s for s in DEFAULT_OPPONENTS
                         if s != "solver" or GAMES[game.info.name].solvable]
        else:
            opponents = [s.strip() for s in args.opponents.split(",") if s.strip()]
        for spec in opponents:
            make_agent(spec)
        results = evaluate_checkpoint(args.checkpoint, game, opponents, args.games,
                                      args.seed, args.processes,
                                      deterministic=not args.stochastic,
                                      judge_moves=not args.no_judge)
    except (ValueError, FileNotFoundError, ImportError) as error:
        print(f"evaluate.py: error: {error}", file=sys.stderr)
        return 2
    print(f"{args.checkpoint} on {game!r}, {args.games} games per opponent, seed {args.seed}")
    print(format_table(results))
    reference = None
    if "solver" in opponents:
        reference = solver_reference(game, args.games, args.seed, args.processes)
        print(f"the solver's own score against the solver in the same games (same seed, so "
              f"the same boards and dice): {reference:.1%}")
    targets = check_targets(game.info.name, results, reference) if args.targets else []
    if targets:
        print("training targets:")
        for text, met in targets:
            print(f"  {text} -> {'unknown' if met is None else 'met' if met else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
