"""Tris 1 move names and position strings (docs/games/tris1.md): ``X../.O./...``, rows top
to bottom, ``.`` an empty die."""

from __future__ import annotations

from tris_envs.core.errors import brief
from tris_envs.games.tris1.state import DRAW, FULL, ONGOING, O, Tris1State, X, has_line, symbol


def cell_name(cell: int) -> str:
    """The cell as ``row,column`` (``0,0`` top left)."""
    return f"{cell // 3},{cell % 3}"


def to_notation(state: Tris1State) -> str:
    """The position string of ``state``."""
    return "/".join("".join(symbol(state, r * 3 + c, ".") for c in range(3)) for r in range(3))


def from_notation(text: str) -> Tris1State:
    """The position of a position string.

    Raises:
        ValueError: a malformed string or an impossible position, saying which.
    """
    rows = text.split("/") if isinstance(text, str) else []
    if len(rows) != 3 or any(len(r) != 3 for r in rows):
        raise ValueError(f"Tris 1 position {brief(text)}: expected three rows of three "
                         "characters separated by '/', e.g. 'X../.O./...'")
    x = o = 0
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            if ch == "X":
                x |= 1 << (r * 3 + c)
            elif ch == "O":
                o |= 1 << (r * 3 + c)
            elif ch != ".":
                raise ValueError(f"Tris 1 position {brief(text)}: row {r}, column {c} holds "
                                 f"{ch!r}; use 'X', 'O' or '.'")
    nx, no = x.bit_count(), o.bit_count()
    if nx - no not in (0, 1):
        raise ValueError(f"Tris 1 position {brief(text)} is impossible: {nx} X and {no} O "
                         "(X moves first, so X count = O count or O count + 1)")
    x_line, o_line = has_line(x), has_line(o)
    if x_line and (o_line or nx == no):
        raise ValueError(f"Tris 1 position {brief(text)} is impossible: the game ended when "
                         "X completed a line, but play went on")
    if o_line and nx != no:
        raise ValueError(f"Tris 1 position {brief(text)} is impossible: the game ended when "
                         "O completed a line, but play went on")
    to_move = X if nx == no else O
    if x_line or o_line:
        return Tris1State(x, o, to_move, X if x_line else O)
    return Tris1State(x, o, to_move, DRAW if x | o == FULL else ONGOING)
