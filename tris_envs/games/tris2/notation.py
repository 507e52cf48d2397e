"""Tris 2 position strings (docs/games/tris2.md).

``<board> <0|1> <last>``: the frame's rows top to bottom separated by ``|``, each cell
``...`` or a die's top, north-south and east-west symbols (``XO/``); the player to move;
``-`` or ``r,c,D``, the frame cell where the die moved last stands and its direction.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from tris_envs.core.errors import brief
from tris_envs.games.tris2.moves import (
    ALL_TRIPLES,
    CELL_P,
    COL,
    COL_MASK,
    COL_STEP,
    DIRECTIONS,
    FRAME,
    ORIENTATIONS,
    PAD,
    ROLL,
    ROW,
    ROW_MASK,
    ROW_STEP,
    STEP,
    connected,
    has_line,
    padded,
)
from tris_envs.games.tris2.state import NUM_DICE, Tris2State


class Rules(Protocol):
    """What position strings need of the rules (:class:`tris_envs.games.tris2.Tris2`)."""

    @property
    def side_limit(self) -> int: ...

    @property
    def max_side(self) -> int | None: ...

    def make_state(self, board: bytes, tops: tuple[int, int, int], height: int, width: int,
                   to_move: int, last: int) -> Tris2State: ...

Fail = Callable[[str], ValueError]
Tops = list[int]
"""Bit masks of the dice showing ``X``, ``O`` and ``/`` on top."""

_FRAME_DIGITS = "012345678"
"""Frame rows and columns as written in position strings (``int`` alone would also take
other scripts' digits, superscripts and leading zeros)."""


def cell_token(state: Tris2State, r: int, c: int, empty: str) -> str:
    """The die at frame cell ``r, c`` as top, north-south and east-west symbols, or
    ``empty``."""
    code = state.board[r * FRAME + c]
    return ORIENTATIONS[code - 1] if code else empty


def last_move_string(state: Tris2State) -> str:
    """The last move as ``r,c,D`` (the die's cell now and its direction), or ``-``."""
    if state.last < 0:
        return "-"
    f, d = divmod(state.last, 4)
    return f"{f // FRAME},{f % FRAME},{DIRECTIONS[d]}"


def last_move_name(state: Tris2State) -> str:
    """The last move as it was typed (:meth:`Tris2.action_name`: the cell the die left, in
    the frame before the move, and its direction) and where the die stands now, in this
    position's frame (the position string's ``<last>`` cell): ``0,2 E (now 0,3)``; or ``-``.

    The frame is the dice's bounding box, so it may have moved with the roll: the
    previous frame's corner is where the dice were before, the die back on its old cell.
    """
    if state.last < 0:
        return "-"
    f, d = divmod(state.last, 4)
    r, c = f // FRAME - ROW_STEP[d], f % FRAME - COL_STEP[d]
    cells = [(q // FRAME, q % FRAME) for q in range(FRAME * FRAME)
             if state.board[q] and q != f] + [(r, c)]
    top, left = min(row for row, _ in cells), min(col for _, col in cells)
    return f"{r - top},{c - left} {DIRECTIONS[d]} (now {f // FRAME},{f % FRAME})"


def winning_line(state: Tris2State) -> str:
    """The cells (``r,c`` in the frame) of a line of three equal top symbols, or ``""``."""
    for tops in (state.top_x, state.top_o, state.top_bar):
        for triple in ALL_TRIPLES:
            if tops & triple == triple:
                return " ".join(f"{ROW[p]},{COL[p]}" for p in range(PAD * PAD)
                                if triple >> p & 1)
    return ""


def to_notation(state: Tris2State) -> str:
    """The position string of ``state``."""
    rows = ("".join(cell_token(state, r, c, "...") for c in range(state.width))
            for r in range(state.height))
    return f"{'|'.join(rows)} {state.to_move} {last_move_string(state)}"


def from_notation(game: Rules, text: str) -> Tris2State:
    """Parse a position string for ``game`` (its ``max_side`` applies).

    Raises:
        ValueError: saying what is malformed or impossible (see :meth:`Tris2.from_notation`).
    """
    def fail(why: str) -> ValueError:
        return ValueError(f"Tris 2 position {brief(text)}: {why}")

    board_text, side, last_text = _fields(text, fail)
    cells, tops, height, width = _parse_board(board_text, fail)
    if side not in ("0", "1"):
        raise fail(f"player to move {brief(side)} must be '0' or '1'")
    to_move = int(side)
    occ = tops[0] | tops[1] | tops[2]
    count = occ.bit_count()
    if count > NUM_DICE:
        raise fail(f"there are {count} dice; the game has {NUM_DICE}")
    if count < NUM_DICE:
        return _placement_position(game, cells, tops, (height, width), to_move, last_text, fail)
    _check_frame(game, occ, height, width, fail)
    last = _parse_last(last_text, occ, height, width, fail)
    return _rolling_position(game, bytes(cells), tops, (height, width), to_move, last, fail)


def _fields(text: str, fail: Fail) -> list[str]:
    fields = text.split(" ") if isinstance(text, str) else []
    if len(fields) != 3:
        raise fail("expected '<board> <0|1> <last>', e.g. "
                   "'XO/O/XX/O|/XOOX//OX|O/XXO/OX/ 0 -'")
    return fields


def _parse_board(board_text: str, fail: Fail) -> tuple[bytearray, Tops, int, int]:
    """The frame's board bytes, top-symbol masks, height and width."""
    rows = board_text.split("|")
    if not 1 <= len(rows) <= FRAME:
        raise fail(f"the board has {len(rows)} rows; a frame has 1 to {FRAME}")
    if any(len(row) != len(rows[0]) for row in rows) or len(rows[0]) % 3:
        raise fail("every row must have the same number of 3-character cells "
                   "('...' or a die like 'XO/'), rows separated by '|'")
    height, width = len(rows), len(rows[0]) // 3
    if not 1 <= width <= FRAME:
        raise fail(f"the board has {width} columns; a frame has 1 to {FRAME}")
    cells = bytearray(FRAME * FRAME)
    tops = [0, 0, 0]
    for r, row in enumerate(rows):
        for c in range(width):
            token = row[3 * c:3 * c + 3]
            if token == "...":
                continue
            if token not in ORIENTATIONS:
                raise fail(f"cell {r},{c} holds {token!r}: write '...' for an empty cell "
                           "or the top, north-south and east-west symbols of a die, "
                           "each of X, O, / once (e.g. 'XO/')")
            k = ORIENTATIONS.index(token)
            cells[r * FRAME + c] = k + 1
            tops[k >> 1] |= 1 << padded(r, c)
    return cells, tops, height, width


def _placement_position(game: Rules, cells: bytearray, tops: Tops, size: tuple[int, int],
                        to_move: int, last_text: str, fail: Fail) -> Tris2State:
    """A position of the placement setup (fewer than nine dice)."""
    count = (tops[0] | tops[1] | tops[2]).bit_count()
    if size != (3, 3):
        raise fail(f"{count} dice: a position with fewer than {NUM_DICE} dice is in the "
                   "placement setup, whose frame is the 3x3 block")
    if last_text != "-":
        raise fail(f"last move {brief(last_text)} during the placement setup must be '-'")
    if to_move != count % 2:
        raise fail(f"with {count} dice placed, player {count % 2} places next "
                   "(player_0 places first)")
    if any(has_line(m) for m in tops):
        raise fail("a placement may not make a line of three equal top symbols")
    return game.make_state(bytes(cells), (tops[0], tops[1], tops[2]), 3, 3, to_move, -1)


def _check_frame(game: Rules, occ: int, height: int, width: int, fail: Fail) -> None:
    """Nine dice: the frame is their bounding box, within ``max_side``, and they touch."""
    for name, edge in (("top row", ROW_MASK[0]), ("bottom row", ROW_MASK[height - 1]),
                       ("left column", COL_MASK[0]), ("right column", COL_MASK[width - 1])):
        if not occ & edge:
            raise fail(f"the frame must be the dice's bounding box, but its {name} is empty")
    if not connected(occ):
        raise fail("the dice are not all in contact (islands are impossible)")
    if max(height, width) > game.side_limit:
        raise fail(f"the dice span {height}x{width}, over max_side={game.max_side}")


def _parse_last(text: str, occ: int, height: int, width: int, fail: Fail) -> int:
    """The last move as a roll action in the frame, or ``-1`` for ``-``."""
    if text == "-":
        return -1
    parts = text.split(",")
    if len(parts) != 3 or len(parts[2]) != 1 or parts[2] not in DIRECTIONS:
        raise fail(f"last move {brief(text)} must be '-' or 'r,c,D' with D one of N, E, S, W")
    for name, number in (("row", parts[0]), ("column", parts[1])):
        if len(number) != 1 or number not in _FRAME_DIGITS:
            raise fail(f"last move {brief(text)}: the {name} {brief(number)} must be one "
                       f"ASCII digit 0-{FRAME - 1} (a frame cell)")
    r, c, d = int(parts[0]), int(parts[1]), DIRECTIONS.index(parts[2])
    if r >= height or c >= width or not occ >> padded(r, c) & 1:
        raise fail(f"last move {brief(text)}: there is no die at frame cell {r},{c}")
    if occ >> padded(r, c) - STEP[d] & 1:
        raise fail(f"last move {brief(text)}: the die came from cell "
                   f"{r - ROW_STEP[d]},{c - COL_STEP[d]}, which is occupied")
    return (r * FRAME + c) << 2 | d


def _rolling_position(game: Rules, board: bytes, tops: Tops, size: tuple[int, int],
                      to_move: int, last: int, fail: Fail) -> Tris2State:
    """A position of the rolling phase; won by the last mover when it shows a line."""
    height, width = size
    winning = any(has_line(m) for m in tops)
    if last < 0:
        if winning:
            raise fail("there is a line of three equal top symbols but no last move that "
                       "made it")
        return game.make_state(board, (tops[0], tops[1], tops[2]), height, width, to_move, -1)
    q = CELL_P[last >> 2]
    if any(tops[t] & triple == triple and not triple >> q & 1
           for t in range(3) for triple in ALL_TRIPLES):
        raise fail("there is a line of three equal top symbols not through the die moved "
                   "last, so the game ended earlier")
    _check_previous(game, board[last >> 2] - 1, tops, last, fail)
    if winning:
        return Tris2State(board, tops[0], tops[1], tops[2], height, width, to_move, last,
                          1 - to_move, 0)
    return game.make_state(board, (tops[0], tops[1], tops[2]), height, width, to_move, last)


def _check_previous(game: Rules, k: int, tops: Tops, last: int, fail: Fail) -> None:
    """The position before the last move (die now in orientation ``k``) must have been
    legal and not won."""
    f, d = divmod(last, 4)
    q = CELL_P[f]
    before = list(tops)
    before[k >> 1] ^= 1 << q
    before[ROLL[k][d ^ 2] >> 1] |= 1 << q - STEP[d]
    occ = before[0] | before[1] | before[2]
    if not connected(occ):
        raise fail("before the last move the dice were not all in contact")
    if any(has_line(m) for m in before):
        raise fail("before the last move there was already a line of three, so the "
                   "game had ended")
    height = sum(1 for r in ROW_MASK if occ & ROW_MASK[r])
    width = sum(1 for c in COL_MASK if occ & COL_MASK[c])
    if max(height, width) > game.side_limit:
        raise fail(f"before the last move the dice spanned {height}x{width}, over "
                   f"max_side={game.max_side}")
