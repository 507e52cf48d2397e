"""Every game as text, for language-model players (docs/games/index.md, "Text view").

:func:`rules_prompt` gives a game's rules as a short English prompt with its options in
force (each game writes its own: :meth:`Game.rules_prompt`); :func:`position_prompt` gives a
position: the drawing with its coordinates, the player to move, the dice where the game has
them, the legal moves in the game's notation (:meth:`Game.action_name`) and how to answer;
:func:`parse_reply` reads the move back from a reply, or refuses it with a
:class:`ReplyError` whose message is written to be shown to the model as is::

    from tris_envs.core.text import parse_reply, position_prompt, rules_prompt

    prompt = rules_prompt(game) + "\\n\\n" + position_prompt(game, state)
    action = parse_reply(game, state, 'I take the centre. {"move": "1,1"}')
"""

from __future__ import annotations

import json
from typing import Any

from tris_envs.core.errors import IllegalActionError, brief
from tris_envs.core.game import CHANCE, TERMINAL, Game

MAX_REPLY_CHARS = 20_000
"""The longest reply :func:`parse_reply` reads; a longer one is refused."""

MAX_NESTING = 8
"""How deep in braces :func:`parse_reply` looks for the ``{"move": ...}`` object."""


class ReplyError(ValueError):
    """A reply that names no legal move; str(error) is the reason, written to be shown to
    the model as is (what was wrong, and the legal moves)."""


def rules_prompt(game: Game) -> str:
    """The game's rules as a short English prompt, with the options in force (the text
    lives with each game: a per-game hook on Game)."""
    return game.rules_prompt()


def position_prompt(game: Game, state: Any) -> str:
    """The position as text: a drawing with coordinates, the player to move (seat number and
    the game's name for it), the dice or roll where the game has them, the legal moves in
    the game's notation (game.action_name), and how to answer: one JSON object
    {"move": "<move>"}."""
    lines = ["The position:", game.render_text(state), ""]
    player = game.current_player(state)
    if player == TERMINAL:
        lines.append("The game is over.")
    elif player == CHANCE:
        lines.append("The dice are to be rolled; no player moves now.")
    else:
        names = [game.action_name(state, action) for action in game.legal_actions(state)]
        lines += [f"You are {_seat(game, player)} and it is your turn.",
                  f"Legal moves ({len(names)}): {'; '.join(names)}",
                  _answer_format(names)]
    return "\n".join(lines)


def _seat(game: Game, player: int) -> str:
    """``player_1 (Black)``: the seat and the game's name for it."""
    name = game.SEAT_NAMES[player]
    return f"player_{player}" if name == f"player_{player}" else f"player_{player} ({name})"


def _answer_format(names: list[str]) -> str:
    """How to answer, with the first legal move as the example."""
    example = json.dumps({"move": names[0] if names else "<move>"})
    return ("Answer with one JSON object naming one legal move as listed, e.g. "
            f"{example}.")


def parse_reply(game: Game, state: Any, reply: str) -> int:
    """The legal action a reply names. Accepts the notation loosely (case, spaces), either
    as a JSON object {"move": "..."} anywhere in the reply (prose around it is fine; the
    last such object counts) or as the whole reply. Raises ReplyError with a reason the
    model can read for anything else (no move found, not JSON, a move that is not legal
    here, with why)."""
    player = game.current_player(state)
    if player == TERMINAL:
        raise ReplyError("no move is due: the game is over")
    if player == CHANCE:
        raise ReplyError("no move is due: the dice are to be rolled")
    names = [game.action_name(state, action) for action in game.legal_actions(state)]
    if not isinstance(reply, str):
        raise _refusal(f"the reply is {type(reply).__name__}, not text", names)
    if len(reply) > MAX_REPLY_CHARS:
        raise _refusal(f"the reply is {len(reply):,} characters long; at most "
                       f"{MAX_REPLY_CHARS:,} are read", names)
    found, keyless, broken = _move_objects(reply)
    if found:
        move = found[-1]["move"]
        if not isinstance(move, str):
            raise _refusal(f'the "move" value {brief(move)} is not a string; write the move '
                           "as text in double quotes", names)
        return _named(game, state, move, names)
    stripped = reply.strip()
    if not stripped:
        raise _refusal("the reply is empty", names)
    try:
        return game.parse_action(state, stripped)
    except IllegalActionError as error:
        raise _refusal(str(error), names) from None
    except ValueError:
        pass
    if keyless:
        reason = f'the JSON object {brief(keyless[-1])} has no "move" key'
    elif broken:
        reason = (f"{brief(broken[-1])} is not valid JSON (write the key and the move in "
                  "double quotes)")
    else:
        reason = (f'the reply holds no JSON object with a "move" key, and the whole reply '
                  f"{brief(stripped)} is not a move")
    raise _refusal(reason, names)


def _named(game: Game, state: Any, move: str, names: list[str]) -> int:
    """The legal action ``move`` names, else the :class:`ReplyError` saying why."""
    try:
        return game.parse_action(state, move)
    except IllegalActionError as error:
        raise _refusal(str(error), names) from None
    except ValueError:
        raise _refusal(f"{brief(move.strip())} is not a move of this game", names) from None


def _refusal(reason: str, names: list[str]) -> ReplyError:
    return ReplyError(f"{reason}. Legal moves: {'; '.join(names)}. "
                      + _answer_format(names))


def _move_objects(reply: str) -> tuple[list[dict[str, Any]], list[str], list[str]]:
    """What the brace groups of ``reply`` hold, each list in the reply's order: the JSON
    objects with a ``"move"`` key; the text of JSON objects without one (none inside
    either); the brace groups that mention ``move`` but are not JSON.

    Brace groups are matched in one pass (braces inside JSON strings do not count). Each
    group is parsed whole; the groups inside one that is not an object with a ``"move"``
    key are searched in turn, at most :data:`MAX_NESTING` deep, so the work stays linear in
    the reply's length.
    """
    groups = _brace_groups(reply)
    found: list[dict[str, Any]] = []
    keyless: list[str] = []
    broken: list[str] = []

    def visit(start: int, end: int, depth: int) -> None:
        text = reply[start:end + 1]
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            value = None
            if "move" in text.lower():
                broken.append(text)
        if isinstance(value, dict) and "move" in value:
            found.append(value)
            return
        before = len(found)
        if depth < MAX_NESTING:
            for inner in groups.get(start, []):
                visit(*inner, depth + 1)
        if isinstance(value, dict) and len(found) == before:
            keyless.append(text)

    for group in groups.get(-1, []):
        visit(*group, 0)
    return found, keyless, broken


def _brace_groups(text: str) -> dict[int, list[tuple[int, int]]]:
    """The matched ``{...}`` groups of ``text`` by the start of the group around them
    (``-1``: none, or a ``{`` never closed), each as ``(start, end)``, in order. A ``"``
    inside a group opens a string in which braces do not count (a backslash escapes the
    next character)."""
    groups: dict[int, list[tuple[int, int]]] = {}
    stack: list[int] = []
    in_string = escaped = False
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"' and stack:
            in_string = True
        elif ch == "{":
            stack.append(i)
        elif ch == "}" and stack:
            start = stack.pop()
            groups.setdefault(stack[-1] if stack else -1, []).append((start, i))
    if stack:
        top = groups.setdefault(-1, [])
        for start in stack:
            top.extend(groups.pop(start, []))
        top.sort()
    return groups
