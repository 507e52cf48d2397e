"""One cell of ``tris-envs baselines``: a trained learner's matches against the ladder,
written as one JSON file, and the command line every learner script of the table takes.

**The contract.** A learner script (``examples/cleanrl_ppo.py``, ``tianshou_dqn.py``,
``torchrl_ppo.py``, ``rllib_self_play.py``, ``agilerl_dqn.py``, ``jax_ppo.py``, and
``python -m tris_envs.ppo.baseline`` for ``tris-envs train ppo``) accepts::

    --game G --budget STEPS --seed S --games N --opponents a,b,c --json PATH

It trains on game ``G`` (default options) from seed ``S`` for about ``STEPS`` *learner
steps*: the moves its learning policy makes in its training games (both seats of a
self-play game, only the learner's seat against a fixed opponent); it may stop at the
nearest whole rollout or update. Then it calls :func:`write_cell` with its policy as an agent of
the harness (its most probable legal move, no search), the steps it trained on and the
wall seconds of its training: that plays ``N`` games against each opponent with
:func:`~tris_envs.evaluation.play_match` (seats alternating, match seed ``S``), judges its
moves where the game has a solver, and writes ``PATH``. It exits with 0 once ``PATH`` is
written, with another status on any failure (``PATH`` unwritten).
:func:`add_arguments` adds ``--budget``, ``--opponents`` and ``--json`` to a script's
parser (``--game``, ``--seed`` and ``--games`` are its own).

The file (:data:`FIELDS`, :func:`read_cell` checks them)::

    {"learner": "cleanrl_ppo", "game": "tris1", "seed": 0, "budget": 100000,
     "steps": 100352, "train_seconds": 281.4, "evaluation_seconds": 12.0, "games": 200,
     "details": {...the learner's own counts...},
     "results": [{"opponent": "random", "games": 200, "wins": 180, "draws": 15,
                  "losses": 5, "score": 0.9375, "interval": [0.897, 0.963],
                  "value_kept": 0.91, "judged": 1200}, ...],
     "command": "...", "machine": "...", "date": "2026-12-01T10:00:00+00:00"}

``value_kept`` is the share of the learner's moves that keep the solver's game value
(:func:`~tris_envs.evaluation.metrics.move_quality`, forced moves included), ``null``
where the game has no solver.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from tris_envs.agents import AgentSpec, make_agent
from tris_envs.core.game import Game
from tris_envs.durable import write_text
from tris_envs.evaluation.checkpoint import OpponentResult, evaluate_agent
from tris_envs.evaluation.engine import AgentSource
from tris_envs.games import GAMES
from tris_envs.machine import describe

LADDER = ("random", "greedy", "mcts:100", "solver")
"""The opponents of a cell: the scripted ladder, and the solver where the game has one."""

FIELDS: dict[str, type | tuple[type, ...]] = {
    "learner": str, "game": str, "seed": int, "budget": (int, type(None)), "steps": int,
    "train_seconds": (int, float), "evaluation_seconds": (int, float), "games": int,
    "details": dict, "results": list, "command": str, "machine": str, "date": str}
"""A cell file's fields and their JSON types."""

RESULT_FIELDS: dict[str, type | tuple[type, ...]] = {
    "opponent": str, "games": int, "wins": int, "draws": int, "losses": int,
    "score": (int, float), "interval": list, "value_kept": (int, float, type(None)),
    "judged": int}
"""The fields of each entry of a cell's ``results``."""


class CellError(ValueError):
    """A cell file that is not one: unreadable, or a field missing or of the wrong type."""


def ladder(game: str) -> list[str]:
    """:data:`LADDER` for ``game``: ``solver`` only where the game has one."""
    return [spec for spec in LADDER if spec != "solver" or GAMES[game].solvable]


def add_arguments(parser: argparse.ArgumentParser, json_required: bool = False) -> None:
    """Add the contract's ``--budget``, ``--opponents`` and ``--json`` to a learner script's
    parser; :func:`checked_opponents` checks them once it has parsed."""
    parser.add_argument("--budget", type=int, default=None, metavar="STEPS",
                        help="learner steps to train for: the moves the learning policy "
                             "makes in its training games (default: the script's own "
                             "budget flags)")
    parser.add_argument("--opponents", default=None, metavar="SPECS",
                        help="comma-separated agent specs to play after training (default "
                             "with --json: random,greedy,mcts:100 and solver where the game "
                             "has one)")
    parser.add_argument("--json", type=Path, default=None, metavar="PATH",
                        required=json_required,
                        help="write the results as a cell of tris-envs baselines to PATH")


def checked_opponents(parser: argparse.ArgumentParser, args: argparse.Namespace,
                      default: Sequence[str] = ()) -> list[str]:
    """Check what :func:`add_arguments` added (and the script's ``args.game``) before any
    training: a bad value ends the script as argparse does (exit status 2, one line).

    Returns:
        The opponents to play: ``--opponents``; without it the ladder (:func:`ladder`) with
        ``--json``, else ``default`` (the script's own).
    """
    if args.budget is not None and args.budget < 1:
        parser.error(f"argument --budget: must be an integer >= 1, got {args.budget}")
    if args.game not in GAMES:
        parser.error(f"argument --game: {args.game!r} is not one of {', '.join(GAMES)}")
    if args.opponents is None and args.json is None:
        return list(default)
    try:
        return opponents(args.opponents, args.game)
    except ValueError as error:
        parser.error(f"argument --opponents: {error}")


def opponents(text: str | None, game: str) -> list[str]:
    """The opponents ``--opponents`` names (``None``: :func:`ladder`), each checked.

    Raises:
        ValueError: an empty list, a text that is no agent spec, or ``solver`` for a game
            without one.
    """
    specs = ladder(game) if text is None else [s.strip() for s in text.split(",") if s.strip()]
    if not specs:
        raise ValueError(f"{text!r} names no opponent")
    for spec in specs:
        parsed = AgentSpec.parse(spec)
        if parsed.family == "solver" and not GAMES[game].solvable:
            raise ValueError(f"{game} has no solver")
        make_agent(parsed)
    return specs


def result_row(result: OpponentResult) -> dict[str, Any]:
    """One opponent's entry of a cell's ``results``."""
    match = result.match
    low, high = match.score_interval
    share = result.optimal_share
    return {"opponent": result.opponent, "games": match.n_games, "wins": match.wins,
            "draws": match.draws, "losses": match.losses, "score": round(match.score, 4),
            "interval": [round(low, 4), round(high, 4)],
            "value_kept": None if share is None else round(share, 4), "judged": result.judged}


def write_cell(path: str | Path, *, learner: str, game: Game, agent: AgentSource, steps: int,
               train_seconds: float, n_games: int, seed: int, opponents: Sequence[str],
               budget: int | None, details: dict[str, Any] | None = None
               ) -> list[OpponentResult]:
    """Play ``agent`` against each of ``opponents`` (``n_games`` each, seats alternating,
    match seed ``seed``), judge its moves where ``game`` has a solver, and write the cell
    (see the module docstring) to ``path``, replaced whole; returns the results (print
    them with :func:`~tris_envs.evaluation.checkpoint.format_table`).

    Args:
        learner: The learner's name in the table (``"cleanrl_ppo"``).
        steps: Learner steps it trained on.
        train_seconds: Wall seconds of its training.
        budget: The ``--budget`` it was given (``None``: its own flags).
        details: Its own counts (episodes, updates, environment steps).

    Raises:
        ValueError: a bad count, seed or opponent.
        OSError: ``path`` cannot be written.
    """
    began = datetime.now(timezone.utc)
    results = evaluate_agent(game, agent, list(opponents), n_games, seed)
    record = {
        "learner": learner, "game": game.info.name, "seed": seed, "budget": budget,
        "steps": int(steps), "train_seconds": round(train_seconds, 1),
        "evaluation_seconds": round((datetime.now(timezone.utc) - began).total_seconds(), 1),
        "games": n_games, "details": details or {},
        "results": [result_row(result) for result in results],
        "command": shlex.join([Path(sys.argv[0]).name, *sys.argv[1:]]),
        "machine": describe(), "date": began.isoformat(timespec="seconds")}
    write_text(path, json.dumps(record, indent=2) + "\n")
    return results


def read_cell(path: str | Path) -> dict[str, Any]:
    """A cell file, its fields checked.

    Raises:
        CellError: no such file, not JSON, or a field missing or of the wrong type (the
            message names the file and the field).
    """
    try:
        record = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise CellError(f"{path}: not a cell file ({error})") from None
    if not isinstance(record, dict):
        raise CellError(f"{path}: not a cell file (a JSON object is expected)")
    check_cell(record, str(path))
    return record


def check_cell(record: dict[str, Any], where: str) -> None:
    """Check a cell's fields (:data:`FIELDS`, and :data:`RESULT_FIELDS` of each result).

    Raises:
        CellError: a field missing or of the wrong type; the message starts with ``where``.
    """
    _check(record, FIELDS, where)
    for k, row in enumerate(record["results"]):
        if not isinstance(row, dict):
            raise CellError(f"{where}: results[{k}] is not an object")
        _check(row, RESULT_FIELDS, f"{where}: results[{k}]")


def _check(record: dict[str, Any], fields: dict[str, type | tuple[type, ...]],
           where: str) -> None:
    for name, kind in fields.items():
        if name not in record:
            raise CellError(f"{where}: the field {name!r} is missing")
        value = record[name]
        if not isinstance(value, kind) or isinstance(value, bool):
            raise CellError(f"{where}: the field {name!r} is {value!r}, not "
                            f"{_type_names(kind)}")


def _type_names(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join("null" if k is type(None) else k.__name__ for k in kinds)
