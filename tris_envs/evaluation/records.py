"""Game records: every move (chance outcomes included) and the position after it.

A record is plain data and saves as JSON::

    {"game": "tris1", "options": {"max_moves": 9}, "players": ["mcts:300", "random"],
     "start": ".../.../...",
     "moves": [[0, 4], [1, 0], ...],          # [actor, action]; actor -1 = chance outcome
     "positions": ["..././...", ...],          # position string after each move
     "returns": [1.0, -1.0], "truncated": false}

A game an agent gave up (:class:`~tris_envs.agents.protocol.Forfeit`) ends there, lost by
that seat: ``"forfeit": 1`` and ``"returns": [1.0, -1.0]``. The requests of an agent that
asks for its moves (a language model: :class:`~tris_envs.agents.protocol.Talking`) are kept
per move in ``"dialogues"``: the seat, the move's index, every try (the messages sent, the
reply, its verdict and reason, the tokens the server counted, the seconds) and the outcome.
Both fields are written only where they hold something; a record without them (one written
before they existed) reads as before.

:func:`replay` starts from ``start`` (parsed with ``game.from_notation``, so random setups
are covered), re-applies every move and checks each position string, and a forfeit and the
dialogues against the moves.
"""

from __future__ import annotations

import json
import math
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tris_envs.agents.protocol import (
    OUTCOMES,
    VERDICTS,
    Agent,
    Dialogue,
    Exchange,
    Forfeit,
    Talking,
)
from tris_envs.core.errors import brief
from tris_envs.core.game import CHANCE, TERMINAL, Game, sample_outcome
from tris_envs.durable import write_text


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
        forfeit: The seat that gave the game up after its last move (``None``: none did);
            its return is -1, the other's +1.
        dialogues: The requests of the agents that ask for their moves (a language
            model's prompts and replies), one :class:`~tris_envs.agents.protocol.Dialogue`
            per move, kept even where the moves are not.
    """

    game: str
    options: dict[str, Any]
    players: list[str]
    start: str
    moves: list[tuple[int, int]] = field(default_factory=list)
    positions: list[str] = field(default_factory=list)
    returns: tuple[float, float] = (0.0, 0.0)
    truncated: bool = False
    forfeit: int | None = None
    dialogues: list[Dialogue] = field(default_factory=list)

    def to_json(self) -> str:
        """The record as a JSON string (``forfeit`` and ``dialogues`` only where set)."""
        data = asdict(self)
        for name, empty in (("forfeit", None), ("dialogues", [])):
            if data[name] == empty:
                del data[name]
        return json.dumps(data)

    @classmethod
    def from_json(cls, text: str) -> GameRecord:
        """Parse :meth:`to_json`'s output.

        Raises:
            ValueError: not JSON, or not a record (see :meth:`from_data`).
        """
        try:
            data = json.loads(text)
        except (TypeError, ValueError) as error:
            raise ValueError(f"a game record must be JSON text: {error}") from None
        return cls.from_data(data)

    @classmethod
    def from_data(cls, data: Any) -> GameRecord:
        """A record from its JSON data (the object :meth:`to_json` writes), every field
        checked: ``moves`` pairs of integers ``[actor, action]`` (actor -1, 0 or 1), one
        position string per move, two players, two returns, options an object.

        Raises:
            ValueError: a missing field or a field of the wrong shape, named.
        """
        if not isinstance(data, dict):
            raise ValueError(f"a game record must be a JSON object, got {brief(data)}")
        missing = {"game", "options", "players", "start", "moves", "positions"} - set(data)
        if missing:
            raise ValueError(f"game record lacks field(s) {', '.join(sorted(missing))}")
        for name in ("game", "start"):
            if not isinstance(data[name], str):
                raise ValueError(f"record field {name!r} must be a string, got "
                                 f"{brief(data[name])}")
        options, players = data["options"], data["players"]
        if not isinstance(options, dict):
            raise ValueError(f"record field 'options' must be an object (option: value), "
                             f"got {brief(options)}")
        if not (isinstance(players, list) and len(players) == 2
                and all(isinstance(name, str) for name in players)):
            raise ValueError(f"record field 'players' must be two names, got {brief(players)}")
        moves, positions = data["moves"], data["positions"]
        if not isinstance(moves, list):
            raise ValueError(f"record field 'moves' must be a list, got {brief(moves)}")
        for ply, move in enumerate(moves):
            if not (isinstance(move, list) and len(move) == 2
                    and all(type(part) is int for part in move) and move[0] in (-1, 0, 1)):
                raise ValueError(f"move {ply} of the record must be [actor, action] (integers; "
                                 f"actor -1 for chance, 0 or 1), got {brief(move)}")
        if not (isinstance(positions, list) and all(isinstance(p, str) for p in positions)):
            raise ValueError(f"record field 'positions' must be a list of position strings, "
                             f"got {brief(positions)}")
        if len(positions) != len(moves):
            raise ValueError(f"record has {len(moves)} moves but {len(positions)} positions "
                             "(one position string after each move)")
        returns = data.get("returns", [0.0, 0.0])
        if not (isinstance(returns, list) and len(returns) == 2 and all(
                isinstance(r, (int, float)) and not isinstance(r, bool) and math.isfinite(r)
                for r in returns)):
            raise ValueError(f"record field 'returns' must be two numbers, got {brief(returns)}")
        truncated = data.get("truncated", False)
        if not isinstance(truncated, bool):
            raise ValueError(f"record field 'truncated' must be true or false, got "
                             f"{brief(truncated)}")
        forfeit = data.get("forfeit")
        if forfeit is not None:
            if type(forfeit) is not int or forfeit not in (0, 1):
                raise ValueError(f"record field 'forfeit' must be the seat 0 or 1 (or null), "
                                 f"got {brief(forfeit)}")
            lost = [-1, 1] if forfeit == 0 else [1, -1]
            if truncated or list(returns) != lost:
                raise ValueError(f"record says seat {forfeit} forfeited, so its returns must "
                                 f"be {lost} and it cannot be truncated; got returns "
                                 f"{brief(returns)}, truncated {truncated}")
        dialogues = _dialogues(data.get("dialogues", []), forfeit)
        return cls(game=data["game"], options=options, players=list(players),
                   start=data["start"], moves=[(actor, action) for actor, action in moves],
                   positions=list(positions), returns=(float(returns[0]), float(returns[1])),
                   truncated=truncated, forfeit=forfeit, dialogues=dialogues)


def _dialogues(items: Any, forfeit: int | None) -> list[Dialogue]:
    """A record's ``dialogues`` from their JSON data, every field checked; a ``"forfeit"``
    outcome only as the last, by the seat that forfeited.

    Raises:
        ValueError: a field of the wrong shape, named with the dialogue's index.
    """
    if not isinstance(items, list):
        raise ValueError(f"record field 'dialogues' must be a list, got {brief(items)}")
    dialogues = []
    for index, item in enumerate(items):
        where = f"record dialogue {index}"
        if not isinstance(item, dict) or set(item) != {"seat", "ply", "tries", "outcome"}:
            raise ValueError(f"{where} must be an object of seat, ply, tries and outcome, "
                             f"got {brief(item)}")
        seat, ply, tries, outcome = (item[name] for name in ("seat", "ply", "tries",
                                                              "outcome"))
        if type(seat) is not int or seat not in (0, 1) or type(ply) is not int or ply < 0:
            raise ValueError(f"{where}: seat must be 0 or 1 and ply an integer >= 0, got "
                             f"{brief(seat)} and {brief(ply)}")
        if outcome not in OUTCOMES:
            raise ValueError(f"{where}: outcome must be one of {', '.join(OUTCOMES)}, got "
                             f"{brief(outcome)}")
        if outcome == "forfeit" and (seat != forfeit or index != len(items) - 1):
            raise ValueError(f"{where}: a forfeit must be the last dialogue, by the seat the "
                             "record says forfeited")
        if not isinstance(tries, list) or not tries:
            raise ValueError(f"{where}: tries must be a non-empty list, got {brief(tries)}")
        dialogues.append(Dialogue(seat, ply, tuple(_exchange(one, f"{where}, try {number}")
                                                   for number, one in enumerate(tries)),
                                  outcome))
    return dialogues


_EXCHANGE_FIELDS = ("messages", "reply", "verdict", "reason", "prompt_tokens",
                    "completion_tokens", "seconds")


def _exchange(data: Any, where: str) -> Exchange:
    """One try of a dialogue from its JSON data, every field checked."""
    if not isinstance(data, dict) or set(data) != set(_EXCHANGE_FIELDS):
        raise ValueError(f"{where} must be an object of {', '.join(_EXCHANGE_FIELDS)}, got "
                         f"{brief(data)}")
    messages = data["messages"]
    if not isinstance(messages, list) or not all(
            isinstance(m, dict) and set(m) == {"role", "content"}
            and all(isinstance(v, str) for v in m.values()) for m in messages):
        raise ValueError(f"{where}: messages must be a list of {{role, content}} texts, got "
                         f"{brief(messages)}")
    reply, verdict, reason = data["reply"], data["verdict"], data["reason"]
    if not (reply is None or isinstance(reply, str)) or not isinstance(reason, str) \
            or verdict not in VERDICTS:
        raise ValueError(f"{where}: reply must be text or null, reason text and verdict one "
                         f"of {', '.join(VERDICTS)}")
    tokens = [data["prompt_tokens"], data["completion_tokens"]]
    if not all(t is None or (type(t) is int and t >= 0) for t in tokens):
        raise ValueError(f"{where}: token counts must be integers >= 0 or null, got "
                         f"{brief(tokens)}")
    seconds = data["seconds"]
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) \
            or not 0 <= seconds < math.inf:
        raise ValueError(f"{where}: seconds must be a finite number >= 0, got "
                         f"{brief(seconds)}")
    return Exchange(tuple(messages), reply, verdict, reason, tokens[0], tokens[1],
                    float(seconds))


def save_records(records: Sequence[GameRecord], path: str | Path) -> None:
    """Write records as a JSON list, whole or not at all (:func:`tris_envs.durable.replaced`)."""
    write_text(path, "[" + ",\n".join(r.to_json() for r in records) + "]\n")


def load_records(path: str | Path) -> list[GameRecord]:
    """Read a JSON list written by :func:`save_records`.

    Raises:
        ValueError: not a JSON list of game records (the message names the first bad one).
    """
    try:
        items = json.loads(Path(path).read_text())
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{str(path)!r} is not a JSON list of game records: {error}") from None
    if not isinstance(items, list):
        raise ValueError(f"{str(path)!r} is not a JSON list of game records")
    records = []
    for index, item in enumerate(items):
        try:
            records.append(GameRecord.from_data(item))
        except ValueError as error:
            raise ValueError(f"record {index} of {str(path)!r}: {error}") from None
    return records


def play_recorded(game: Game, agents: Sequence[Agent], rng: np.random.Generator,
                  names: Sequence[str] | None = None, record: bool = True,
                  max_moves: int | None = None) -> GameRecord:
    """Play one game and record it; ``agents[i]`` plays seat ``i``.

    Chance outcomes are drawn from ``rng`` (one uniform per chance node, as the
    environments do). The game stops
    unfinished after ``max_moves`` player plies (default: ``game.info.max_moves``), and
    ends where an agent raises :class:`~tris_envs.agents.protocol.Forfeit`, lost by its seat.
    With ``record=False`` the moves and positions are not kept (faster for matches); the
    dialogues of the agents that ask for their moves
    (:class:`~tris_envs.agents.protocol.Talking`) are kept either way.
    """
    limit = game.info.max_moves if max_moves is None else max_moves
    state = game.initial_state(rng)
    rec = GameRecord(game.info.name, game.options(),
                     list(names) if names is not None else [a.name for a in agents],
                     game.to_notation(state))
    moves, positions = rec.moves, rec.positions
    talkers = [agent if isinstance(agent, Talking) else None for agent in agents]
    plies = made = 0
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
            try:
                action = int(agents[actor].act(game, state))
            except Forfeit:
                rec.forfeit = int(actor)
                rec.returns = (-1.0, 1.0) if actor == 0 else (1.0, -1.0)
            talker = talkers[actor]
            dialogue = talker.take_dialogue(int(actor), made) if talker is not None else None
            if dialogue is not None:
                rec.dialogues.append(dialogue)
            if rec.forfeit is not None:
                break
            plies += 1
        state = game.apply(state, action)
        made += 1
        if record:
            moves.append((int(actor), int(action)))
            positions.append(game.to_notation(state))
    return rec


def replay(game: Game, record: GameRecord) -> Any:
    """Re-apply a record's moves from its start position and return the final state.

    Raises:
        ValueError: the record is for another game or other options, an actor is not the
            one to move, a move is illegal, a position string differs from the record, a
            forfeit by a seat that was not to move, or a dialogue of a move its seat did
            not make.
    """
    return deque(replay_steps(game, record), maxlen=1)[0][0]


def replay_steps(game: Game, record: GameRecord) -> Iterator[tuple[Any, int, int]]:
    """The record played back: the start state with ``(-2, -2)``, then after each move the
    state, the actor and the action, every move checked as :func:`replay` does.

    Raises:
        ValueError: as :func:`replay` (a forfeit and the dialogues are checked once the
            last move is).
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
    yield state, -2, -2
    for ply, ((actor, action), expected) in enumerate(zip(record.moves, record.positions)):
        mover = game.current_player(state)
        if actor != mover:
            to_act = ("nobody (the game is over)" if mover == TERMINAL else
                      "chance" if mover == CHANCE else f"player {mover}")
            raise ValueError(f"move {ply}: the record says actor {brief(actor)}, but "
                             f"{to_act} is to act")
        if mover == CHANCE and action not in [o for o, _ in game.chance_outcomes(state)]:
            raise ValueError(f"move {ply}: chance outcome {brief(action)} is not possible here")
        try:
            state = game.apply(state, action)
        except ValueError as error:
            raise ValueError(f"move {ply}: {error}") from None
        got = game.to_notation(state)
        if got != expected:
            raise ValueError(f"move {ply} ({actor}, {action}): position {got!r} differs from "
                             f"the recorded {brief(expected)}")
        yield state, actor, action
    _check_ending(game, record, state)


def _check_ending(game: Game, record: GameRecord, state: Any) -> None:
    """A forfeit by the seat to move in the last position, and each dialogue at a move of
    its seat (the forfeit's at the end); else ``ValueError``."""
    end = len(record.moves)
    if record.forfeit is not None and game.current_player(state) != record.forfeit:
        mover = game.current_player(state)
        to_act = ("nobody (the game is over)" if mover == TERMINAL else
                  "chance" if mover == CHANCE else f"player {mover}")
        raise ValueError(f"the record says seat {record.forfeit} forfeited after move "
                         f"{end - 1}, but {to_act} is to act there")
    for index, dialogue in enumerate(record.dialogues):
        if dialogue.outcome == "forfeit":
            fits = dialogue.ply == end
        else:
            fits = dialogue.ply < end and record.moves[dialogue.ply][0] == dialogue.seat
        if not fits:
            raise ValueError(f"dialogue {index} of the record is of seat {dialogue.seat}'s "
                             f"move {dialogue.ply}, which the record does not hold")
