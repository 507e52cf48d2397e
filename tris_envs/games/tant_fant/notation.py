"""Tant Fant position strings (docs/games/tant_fant.md): ``BBB/.../WWW w``, ranks 3 to 1,
then the side to move."""

from __future__ import annotations

from tris_envs.core.errors import brief
from tris_envs.games.tant_fant.state import (
    BLACK,
    COLOR_NAMES,
    POINT_NAMES,
    WHITE,
    TantFantState,
    point_char,
)


def to_notation(state: TantFantState) -> str:
    """The position string of ``state``."""
    ranks = ("".join(point_char(state, row * 3 + col) for col in range(3)) for row in (2, 1, 0))
    return f"{'/'.join(ranks)} {'wb'[state.to_move]}"


def parse_position(text: str) -> tuple[int, int, int]:
    """White's and Black's bit masks and the side to move of a position string, its format
    and piece counts checked (the rules check the rest: :meth:`TantFant.from_notation`).

    Raises:
        ValueError: naming what is malformed.
    """
    fields = text.split(" ") if isinstance(text, str) else []
    if len(fields) != 2:
        raise ValueError(f"Tant Fant position {brief(text)}: expected '<rank3>/<rank2>/<rank1> "
                         "<w|b>', e.g. 'BBB/.../WWW w'")
    board, side = fields
    ranks = board.split("/")
    if len(ranks) != 3 or any(len(r) != 3 for r in ranks):
        raise ValueError(f"Tant Fant position {brief(text)}: board {brief(board)} must be "
                         "three ranks of three characters separated by '/'")
    if side not in ("w", "b"):
        raise ValueError(f"Tant Fant position {brief(text)}: side to move {brief(side)} "
                         "must be 'w' or 'b'")
    white = black = 0
    for i, rank in enumerate(ranks):
        for col, ch in enumerate(rank):
            p = (2 - i) * 3 + col
            if ch == "W":
                white |= 1 << p
            elif ch == "B":
                black |= 1 << p
            elif ch != ".":
                raise ValueError(f"Tant Fant position {brief(text)}: {POINT_NAMES[p]} holds "
                                 f"{ch!r}; use 'W', 'B' or '.'")
    for color, mask in ((WHITE, white), (BLACK, black)):
        if mask.bit_count() != 3:
            raise ValueError(f"Tant Fant position {brief(text)}: {COLOR_NAMES[color]} has "
                             f"{mask.bit_count()} pieces, needs exactly 3")
    return white, black, "wb".index(side)
