"""Tritoc move generation on bit masks: targets of a roll, playable sums, the move itself,
and memoized action tuples and masks."""

from __future__ import annotations

import numpy as np

from tris_envs.games.tritoc.state import (
    ALL_HOLES,
    CONQUERED_HOLES,
    FIELD_LINES_THROUGH,
    FIELD_MASKS,
    FIELD_POINTS,
    HOLE_FIELD,
    HOLE_LINES,
    ONGOING,
    WHITE,
    WIN_POINTS,
    TritocState,
)

_CACHE_SIZE = 1 << 16
_ACTION_TUPLES: dict[int, tuple[int, ...]] = {}
_ACTION_MASKS: dict[int, np.ndarray] = {}


def actions_of(bits: int) -> tuple[int, ...]:
    """The actions of an 82-bit mask (bit ``a`` = action ``a``), ascending (memoized)."""
    actions = _ACTION_TUPLES.get(bits)
    if actions is None:
        found = []
        rest = bits
        while rest:
            low = rest & -rest
            found.append(low.bit_length() - 1)
            rest ^= low
        actions = tuple(found)
        if len(_ACTION_TUPLES) >= _CACHE_SIZE:
            _ACTION_TUPLES.clear()
        _ACTION_TUPLES[bits] = actions
    return actions


def action_mask_of(bits: int) -> np.ndarray:
    """Read-only ``int8`` vector of the 82 bits of ``bits`` (memoized)."""
    mask = _ACTION_MASKS.get(bits)
    if mask is None:
        raw = np.frombuffer(bits.to_bytes(11, "little"), dtype=np.uint8)
        mask = np.unpackbits(raw, count=82, bitorder="little").view(np.int8)
        mask.flags.writeable = False
        if len(_ACTION_MASKS) >= _CACHE_SIZE:
            _ACTION_MASKS.clear()
        _ACTION_MASKS[bits] = mask
    return mask


def bit_planes(first: int, second: int) -> np.ndarray:
    """The bits of two 81-bit masks: ``first`` at ``[0:81]``, ``second`` at ``[88:169]``."""
    raw = np.frombuffer((first | second << 88).to_bytes(22, "little"), dtype=np.uint8)
    return np.unpackbits(raw, bitorder="little")


def targets_of(white: int, black: int, fields: int, mover: int, roll: int,
                masks: tuple[int, ...]) -> int:
    """81-bit mask of the holes where ``roll`` lets ``mover`` act (``fields``: the 9-bit
    mask of conquered fields, ``masks``: the layout's holes per number)."""
    if roll == 12 or roll == 2:
        stones = black if (roll == 12) == (mover == WHITE) else white
        return stones & ~CONQUERED_HOLES[fields]
    return masks[roll] & ~(white | black)


def playable_of(white: int, black: int, fields: int, mover: int,
                 masks: tuple[int, ...]) -> int:
    """:meth:`Tritoc.playable` of the position given by its masks."""
    empty = ALL_HOLES ^ (white | black)
    key = 0
    for s in range(3, 12):
        if masks[s] & empty:
            key |= 1 << s
    removable = ALL_HOLES ^ CONQUERED_HOLES[fields]
    own, other = (white, black) if mover == WHITE else (black, white)
    if own & removable:
        key |= 1 << 2
    if other & removable:
        key |= 1 << 12
    return key


def playable_sums(state: TritocState) -> int:
    """Bit mask over sums 2-12 (bit ``s``) of the rolls that allow ``state``'s mover an
    action."""
    return playable_of(state.white, state.black, state.white_fields | state.black_fields,
                       state.to_move, state.layout.masks)


def play_move(white: int, black: int, white_fields: int, black_fields: int, mover: int,
          roll: int, action: int) -> tuple[int, int, int, int, int, int]:
    """The legal move ``action`` on hole ``action`` with sum ``roll`` (2-12) played by
    ``mover``: ``(white, black, white_fields, black_fields, gained, result)``."""
    bit = 1 << action
    if roll == 12 or roll == 2:
        if (roll == 12) == (mover == WHITE):
            return white, black ^ bit, white_fields, black_fields, 0, ONGOING
        return white ^ bit, black, white_fields, black_fields, 0, ONGOING
    own = (white if mover == WHITE else black) | bit
    for line in HOLE_LINES[action]:
        if own & line == line:
            break
    else:
        if mover == WHITE:
            return own, black, white_fields, black_fields, 0, ONGOING
        return white, own, white_fields, black_fields, 0, ONGOING
    field = HOLE_FIELD[action]
    if mover == WHITE:
        white, black = own | FIELD_MASKS[field], black & ~FIELD_MASKS[field]
        white_fields |= 1 << field
        fields = white_fields
    else:
        white, black = white & ~FIELD_MASKS[field], own | FIELD_MASKS[field]
        black_fields |= 1 << field
        fields = black_fields
    if any(fields & m == m for m in FIELD_LINES_THROUGH[field]):
        return white, black, white_fields, black_fields, FIELD_POINTS + WIN_POINTS, mover
    return white, black, white_fields, black_fields, FIELD_POINTS, ONGOING
