"""Game records: every move (chance outcomes included) and the position after it.

A record is plain data and saves as JSON::

    {"game": "tris1", "options": {"max_moves": 9}, "players": ["mcts:300", "random"],
     "start": ".../.../...",
     "moves": [[0, 4], [1, 0], ...],          # [actor, action]; actor -1 = chance outcome
     "positions": ["..././...", ...],          # position string after each move
     "returns": [1.0, -1.0], "truncated": false}

:func:`replay` starts from ``start`` (parsed with ``game.from_notation``, so random setups
are covered), re-applies every move and checks each position string.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tris_envs.agents.protocol import Agent
from tris_envs.core.errors import brief
from tris_envs.core.game import CHANCE, TERMINAL, Game, sample_outcome


@dataclass
class GameRecord:
    """One game, replayable move by move.

    Attributes:
        game: ``game.info.name``.
        options: The game's options.
        players: Agent names by seat.
        start: Position string of the start position (after any random setup).
        moves: ``(actor, action)`` per move: the seat that acted, or ``-1`` for a chance
            outcome.
        positions: Position string after each move.
        returns: Final result per seat (zeros for a truncated game).
        truncated: Whether the game stopped at its ply limit unfinished.
    """

    game: str
    options: dict[str, Any]
    players: list[str]
    start: str
    moves: list[tuple[int, int]] = field(default_factory=list)
    positions: list[str] = field(default_factory=list)
    returns: tuple[float, float] = (0.0, 0.0)
    truncated: bool = False

    def to_json(self) -> str:
        """The record as a JSON string."""
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> GameRecord:
        """Parse :meth:`to_json`'s output; ``ValueError`` when fields are missing."""
        data = json.loads(text)
        missing = {"game", "options", "players", "start", "moves", "positions"} - set(data)
        if missing:
            raise ValueError(f"game record lacks field(s) {', '.join(sorted(missing))}")
        return cls(game=data["game"], options=data["options"], players=list(data["players"]),
                   start=data["start"],
                   moves=[(int(actor), int(action)) for actor, action in data["moves"]],
                   positions=list(data["positions"]),
                   returns=tuple(data.get("returns", (0.0, 0.0))),
                   truncated=bool(data.get("truncated", False)))


def save_records(records: Sequence[GameRecord], path: str | Path) -> None:
    """Write records as a JSON list."""
    Path(path).write_text("[" + ",\n".join(r.to_json() for r in records) + "]\n")


def load_records(path: str | Path) -> list[GameRecord]:
    """Read a JSON list written by :func:`save_records`."""
    return [GameRecord.from_json(json.dumps(item)) for item in json.loads(Path(path).read_text())]


def play_recorded(game: Game, agents: Sequence[Agent], rng: np.random.Generator,
                  names: Sequence[str] | None = None, record: bool = True,
                  max_moves: int | None = None) -> GameRecord:
    """Play one game and record it; ``agents[i]`` plays seat ``i``.

    Chance outcomes are drawn from ``rng`` (one uniform per chance node, as the
    environments do). The game stops
    unfinished after ``max_moves`` player plies (default: ``game.info.max_moves``).
    With ``record=False`` the moves and positions are not kept (faster for matches).
    """
    limit = game.info.max_moves if max_moves is None else max_moves
    state = game.initial_state(rng)
    rec = GameRecord(game.info.name, game.options(),
                     list(names) if names is not None else [a.name for a in agents],
                     game.to_notation(state))
    moves, positions = rec.moves, rec.positions
    plies = 0
    while True:
        actor = game.current_player(state)
        if actor == TERMINAL:
            first, second = game.returns(state)
            rec.returns = (float(first), float(second))
            break
        if actor == CHANCE:
            action = sample_outcome(game.chance_outcomes(state), rng.random())
        elif plies == limit:
            rec.truncated = True
            break
        else:
            action = int(agents[actor].act(game, state))
            plies += 1
        state = game.apply(state, action)
        if record:
            moves.append((int(actor), int(action)))
            positions.append(game.to_notation(state))
    return rec


def replay(game: Game, record: GameRecord) -> Any:
    """Re-apply a record's moves from its start position and return the final state.

    Raises:
        ValueError: the record is for another game or other options, an actor is not the
            one to move, a move is illegal, or a position string differs from the record.
    """
    if record.game != game.info.name:
        raise ValueError(f"record of {brief(record.game)} cannot be replayed on "
                         f"{game.info.name!r}")
    options = json.loads(json.dumps(game.options()))
    if options != json.loads(json.dumps(record.options)):
        raise ValueError(f"record options {brief(record.options)} differ from the game's "
                         f"{options}")
    if len(record.positions) != len(record.moves):
        raise ValueError(f"record has {len(record.moves)} moves but {len(record.positions)} "
                         "positions")
    state = game.from_notation(record.start)
    for ply, ((actor, action), expected) in enumerate(zip(record.moves, record.positions)):
        mover = game.current_player(state)
        if actor != mover:
            raise ValueError(f"move {ply}: the record says actor {actor}, but "
                             f"{'chance' if mover == CHANCE else mover} is to act")
        if mover == CHANCE and action not in [o for o, _ in game.chance_outcomes(state)]:
            raise ValueError(f"move {ply}: chance outcome {action} is not possible here")
        state = game.apply(state, action)
        got = game.to_notation(state)
        if got != expected:
            raise ValueError(f"move {ply} ({actor}, {action}): position {got!r} differs from "
                             f"the recorded {brief(expected)}")
    return state
