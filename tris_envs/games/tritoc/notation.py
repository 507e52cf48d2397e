"""Tritoc position strings (docs/games/tritoc.md): ``<rows> <w|b> <roll> <passes> [<layout>]``.

Rows: 9 strings of 9 characters ``W``, ``B``, ``.`` separated by ``/``, top to bottom;
``<roll>``: a sum ``2``-``12``, ``p`` (must pass), ``?`` (a chance node) or ``-`` (game
over); ``<passes>``: consecutive passes so far; ``<layout>``: 81 characters ``3``-``9``,
``a`` (10), ``b`` (11), present when the layout is not ``ordered``.
"""

from __future__ import annotations

from collections.abc import Callable

from tris_envs.core.errors import brief
from tris_envs.games.tritoc.moves import playable_sums
from tris_envs.games.tritoc.state import (
    ALL_PLAYABLE,
    BLACK,
    COLOR_NAMES,
    DRAW,
    DRAW_PASSES,
    FIELD_MASKS,
    HOLE_LINE_MASKS,
    LAYOUT_CHARS,
    MAGIC,
    MUST_PASS,
    NO_ROLL,
    ORDERED,
    PENDING,
    SUMS,
    WHITE,
    Layout,
    TritocState,
    check_layout,
    has_field_line,
    hole_name,
    stone_letter,
)

Fail = Callable[[str], ValueError]
"""Builds the error for one reason, the position string already quoted in it."""

ROLL_TEXT = {NO_ROLL: "-", PENDING: "?", MUST_PASS: "p"}
ROLL_CODES = {text: roll for roll, text in ROLL_TEXT.items()}


def to_notation(state: TritocState) -> str:
    """The position string of ``state``."""
    rows = "/".join("".join(stone_letter(state, r * 9 + c, ".") for c in range(9))
                    for r in range(9))
    roll = ROLL_TEXT.get(state.roll, str(state.roll))
    text = f"{rows} {'wb'[state.to_move]} {roll} {state.passes}"
    if state.layout != ORDERED:
        text += f" {state.layout.text}"
    return text


def from_notation(text: str) -> TritocState:
    """Parse a position string (see :meth:`.Tritoc.from_notation`).

    Raises:
        ValueError: saying what is malformed or impossible.
    """
    def fail(why: str) -> ValueError:
        return ValueError(f"Tritoc position {brief(text)}: {why}")

    fields = _fields(text, fail)
    white, black = _stones(fields[0], fail)
    to_move = _side(fields[1], fail)
    roll = _roll(fields[2], fail)
    passes = _passes(fields[3], fail)
    layout = _layout(fields[4], text, fail) if len(fields) == 5 else ORDERED
    white_fields, black_fields = _conquered(white, black, fail)
    state = TritocState(white, black, white_fields, black_fields, to_move, roll, passes,
                        layout)
    return _with_result(state, fail)


def _fields(text: str, fail: Fail) -> list[str]:
    fields = text.split(" ") if isinstance(text, str) else []
    if len(fields) not in (4, 5):
        raise fail("expected '<rows> <w|b> <roll> <passes> [<layout>]', e.g. "
                   "'" + "/".join(["." * 9] * 9) + " w ? 0'")
    return fields


def _stones(board: str, fail: Fail) -> tuple[int, int]:
    """81-bit masks of the White and the Black stones of the rows field."""
    rows = board.split("/")
    if len(rows) != 9:
        raise fail(f"board {brief(board)} has {len(rows)} rows; it must be 9 rows of 9 "
                   "characters separated by '/'")
    for r, row in enumerate(rows):
        if len(row) != 9:
            raise fail(f"row {r} {brief(row)} has {len(row)} characters; each row has 9")
    white = black = 0
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            if ch == "W":
                white |= 1 << (r * 9 + c)
            elif ch == "B":
                black |= 1 << (r * 9 + c)
            elif ch != ".":
                raise fail(f"hole {hole_name(r * 9 + c)} holds {ch!r}; use 'W', 'B' or '.'")
    return white, black


def _side(side: str, fail: Fail) -> int:
    if side not in ("w", "b"):
        raise fail(f"side to move {brief(side)} must be 'w' or 'b'")
    return "wb".index(side)


def _roll(roll_text: str, fail: Fail) -> int:
    if roll_text in ROLL_CODES:
        return ROLL_CODES[roll_text]
    if roll_text in tuple(map(str, SUMS)):
        return int(roll_text)
    raise fail(f"roll {brief(roll_text)} must be a sum 2-12, 'p' (must pass), '?' (not "
               "rolled yet) or '-' (game over)")


def _passes(passes_text: str, fail: Fail) -> int:
    if passes_text not in ("0", "1", "2", "3", "4"):
        raise fail(f"passes {brief(passes_text)} must be 0-4 (consecutive passes so far)")
    return int(passes_text)


def _layout(code: str, text: str, fail: Fail) -> Layout:
    if len(code) != 81 or any(ch not in LAYOUT_CHARS for ch in code):
        raise fail(f"layout {brief(code)} must be 81 characters '3'-'9', 'a' (10), "
                   "'b' (11)")
    numbers = check_layout([LAYOUT_CHARS.index(ch) + 3 for ch in code],
                           f"Tritoc position {brief(text)}: layout")
    return MAGIC if numbers == MAGIC.numbers else Layout(numbers)


def _conquered(white: int, black: int, fail: Fail) -> tuple[int, int]:
    """9-bit masks of the fields White and Black conquered (those holding their line)."""
    conquered = [0, 0]
    for f, mask in enumerate(FIELD_MASKS):
        lines = [any(stones & line == line for line in HOLE_LINE_MASKS[f])
                 for stones in (white, black)]
        if all(lines):
            raise fail(f"field {f} holds a White and a Black line; the first line "
                       "conquers a field")
        for color, stones in ((WHITE, white), (BLACK, black)):
            if lines[color]:
                if stones & mask != mask:
                    raise fail(f"field {f} holds a {COLOR_NAMES[color]} line but is not "
                               f"filled with {COLOR_NAMES[color]} stones; a conquered "
                               "field is full")
                conquered[color] |= 1 << f
    return conquered[WHITE], conquered[BLACK]


def _with_result(state: TritocState, fail: Fail) -> TritocState:
    """``state`` with its result, once the winner, passes and roll are consistent."""
    winners = [has_field_line(state.white_fields), has_field_line(state.black_fields)]
    if all(winners):
        raise fail("both players have three conquered fields in a row; the first such "
                   "line ends the game")
    roll, passes = state.roll, state.passes
    if any(winners):
        winner = winners.index(True)
        if winner == state.to_move:
            raise fail(f"{COLOR_NAMES[winner]}, to move, already has three conquered "
                       "fields in a row (the winner made the last move)")
        if roll != NO_ROLL or passes:
            raise fail(f"{COLOR_NAMES[winner]} has won (three conquered fields in a row): "
                       "the roll must be '-' and the passes 0")
        fields = (state.white_fields, state.black_fields)[winner]
        if all(has_field_line(fields & ~(1 << f)) for f in range(9) if fields >> f & 1):
            raise fail(f"{COLOR_NAMES[winner]}'s {fields.bit_count()} conquered fields hold "
                       "three in a row even without the field conquered last: a move "
                       "conquers one field at most, and the first line of three ends the "
                       "game")
        return state._replace(result=winner)
    key = playable_sums(state)
    if passes and key == ALL_PLAYABLE:
        raise fail(f"{passes} consecutive passes are impossible: passes leave the board as "
                   "it is, and on this board every roll allows either player an action")
    if passes == DRAW_PASSES:
        if roll != NO_ROLL:
            raise fail("4 consecutive passes end the game: the roll must be '-'")
        return state._replace(result=DRAW)
    if roll == NO_ROLL:
        raise fail("roll '-' marks a finished game, but nobody has won and there were "
                   "fewer than 4 consecutive passes")
    _check_roll(state, key, fail)
    return state


def _check_roll(state: TritocState, key: int, fail: Fail) -> None:
    """Refuse a roll the dice cannot have left: ``key`` is the playable sums' bit mask."""
    roll, color = state.roll, COLOR_NAMES[state.to_move]
    if roll >= 2 and not key >> roll & 1:
        raise fail(f"roll {roll} is impossible: it allows {color} no action, so the dice "
                   "would have been rolled again")
    if roll == MUST_PASS and key == ALL_PLAYABLE:
        raise fail(f"roll 'p' is impossible: every roll allows {color} an action")
