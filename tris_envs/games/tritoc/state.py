"""Tritoc positions, layouts, dice laws and board tables (docs/games/tritoc.md)."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np

from tris_envs.core.policy import PolicyLayout

WHITE, BLACK = 0, 1
ONGOING, DRAW = -1, 2
COLOR_NAMES = ("White", "Black")

PASS = 81
"""The pass action, legal only when the roll says the player must pass."""

NO_ROLL = -1
"""``roll`` of a finished game."""
PENDING = 0
"""``roll`` of a chance node: the dice are about to be rolled."""
MUST_PASS = 1
"""``roll`` (and chance outcome) when no roll, rerolls included, allowed an action."""
DRAW_PASSES = 4
"""The fourth consecutive pass draws."""
WIN_POINTS = 5
FIELD_POINTS = 1

SUMS = tuple(range(2, 13))
ROLL_PLANES = tuple(range(13, 13 + len(SUMS)))
"""The observation's planes of the roll to play, one per sum in :data:`SUMS` order (plane
``ROLL_PLANES[s - 2]`` for the sum ``s``); none is set while the roll is pending or a must-pass."""
ALL_PLAYABLE = sum(1 << s for s in SUMS)
PLACING_SUMS = ALL_PLAYABLE & ~(1 << 2 | 1 << 12)
""":meth:`Tritoc.playable` when every sum allows an action."""
EXACT_REROLLS = 64
"""Up to this many rerolls the roll law is computed in exact fractions."""

DICE_WEIGHTS: dict[str, dict[int, Fraction]] = {
    "2d6": {s: Fraction(6 - abs(s - 7), 36) for s in SUMS},
    "equal": {s: Fraction(1 if s in (2, 12) else 3, 29) for s in SUMS},
}
"""Exact probability of each sum of one roll, per ``dice`` option."""

ORDERED_FIELD = (3, 4, 5, 6, 7, 8, 9, 10, 11)
NUMBER_PLANES = tuple(range(2, 2 + len(ORDERED_FIELD)))
"""The observation's planes of the hole numbers, one per number in :data:`ORDERED_FIELD`
order (plane ``NUMBER_PLANES[n - 3]`` is set on the holes numbered ``n``)."""
MAGIC_FIELD = (6, 11, 4, 5, 7, 9, 10, 3, 8)
LAYOUT_NAMES = ("ordered", "magic", "random")
LAYOUT_CHARS = "3456789ab"

ALL_HOLES = (1 << 81) - 1
HOLE_FIELD = tuple((h // 27) * 3 + (h % 9) // 3 for h in range(81))
FIELD_CELLS: tuple[tuple[int, ...], ...] = tuple(
    tuple((f // 3 * 3 + k // 3) * 9 + f % 3 * 3 + k % 3 for k in range(9)) for f in range(9)
)
"""Holes of each field in reading order."""
FIELD_MASKS = tuple(sum(1 << h for h in cells) for cells in FIELD_CELLS)
TTT_LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8),
             (2, 4, 6))
FIELD_LINE_MASKS = tuple(sum(1 << k for k in line) for line in TTT_LINES)
"""Lines of the 3×3 arrangement of fields, as 9-bit masks of field indices."""
HOLE_LINE_MASKS: tuple[tuple[int, ...], ...] = tuple(
    tuple(sum(1 << cells[k] for k in line) for line in TTT_LINES) for cells in FIELD_CELLS
)
"""81-bit masks of the 8 lines inside each field."""
HOLE_LINES: tuple[tuple[int, ...], ...] = tuple(
    tuple(m for m in HOLE_LINE_MASKS[HOLE_FIELD[h]] if m >> h & 1) for h in range(81)
)
"""81-bit masks of the lines inside its field through each hole."""
FIELD_LINES_THROUGH: tuple[tuple[int, ...], ...] = tuple(
    tuple(m for m in FIELD_LINE_MASKS if m >> f & 1) for f in range(9)
)
CONQUERED_HOLES = tuple(sum(FIELD_MASKS[f] for f in range(9) if fm >> f & 1)
                        for fm in range(512))
"""9-bit mask of conquered fields -> 81-bit mask of their holes."""
FIELD_PLANES = np.array([[CONQUERED_HOLES[fm] >> h & 1 for h in range(81)]
                          for fm in range(512)], dtype=np.int8)
def hole_name(h: int) -> str:
    """``(row,col)`` of hole ``h``."""
    return f"({h // 9},{h % 9})"


def check_layout(numbers: Sequence[Any], where: str) -> tuple[int, ...]:
    """Validate 81 hole numbers (row-major) and return them as a tuple of ints.

    Raises:
        ValueError: ``where`` followed by what is wrong (length, a value, a field that
            does not hold each number 3-11 once).
    """
    if isinstance(numbers, (str, bytes)) or not isinstance(numbers, (Sequence, np.ndarray)):
        raise ValueError(f"{where}: expected a sequence of 81 numbers 3-11, got {numbers!r}")
    if len(numbers) != 81:
        raise ValueError(f"{where}: expected 81 numbers (row-major, row 0 = top), got "
                         f"{len(numbers)}")
    values = []
    for h, n in enumerate(numbers):
        if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) \
                or not 3 <= n <= 11:
            raise ValueError(f"{where}: hole {hole_name(h)} has {n!r}; hole numbers are "
                             "integers 3-11")
        values.append(int(n))
    for f, cells in enumerate(FIELD_CELLS):
        found = sorted(values[h] for h in cells)
        if found != list(ORDERED_FIELD):
            raise ValueError(f"{where}: field {f} (rows {f // 3 * 3}-{f // 3 * 3 + 2}, cols "
                             f"{f % 3 * 3}-{f % 3 * 3 + 2}) holds {found}; each field must "
                             "hold each number 3-11 exactly once")
    return tuple(values)


def _field_layout(field: Sequence[int]) -> tuple[int, ...]:
    """81 numbers with the same 3×3 ``field`` pattern in every field."""
    numbers = [0] * 81
    for cells in FIELD_CELLS:
        for k, h in enumerate(cells):
            numbers[h] = field[k]
    return tuple(numbers)


class Layout:
    """The numbers of the 81 holes, immutable and hashable, with precomputed tables.

    Attributes:
        numbers: Number of each hole, ``row*9 + col`` order.
        masks: ``masks[n]`` = 81-bit mask of the holes numbered ``n`` (3-11).
        text: The 81-character layout field of position strings (``3``-``9``, ``a``, ``b``).
        base: Read-only ``(81, 24)`` observation template with the hole-number planes set.
    """

    __slots__ = ("numbers", "masks", "text", "base", "_hash")

    def __init__(self, numbers: tuple[int, ...]) -> None:
        self.numbers = numbers
        masks = [0] * 13
        for h, n in enumerate(numbers):
            masks[n] |= 1 << h
        self.masks = tuple(masks)
        self.text = "".join(LAYOUT_CHARS[n - 3] for n in numbers)
        base = np.zeros((81, 24), dtype=np.int8)
        base[np.arange(81), np.array(NUMBER_PLANES)[np.array(numbers) - ORDERED_FIELD[0]]] = 1
        base.flags.writeable = False
        self.base = base
        self._hash = hash(numbers)

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, Layout) and self.numbers == other.numbers)

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple[Any, ...]:
        return (Layout, (self.numbers,))

    def __copy__(self) -> Layout:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Layout:
        return self

    def __repr__(self) -> str:
        return f"Layout({self.text!r})"


ORDERED = Layout(_field_layout(ORDERED_FIELD))
MAGIC = Layout(_field_layout(MAGIC_FIELD))


class TritocState(NamedTuple):
    """A Tritoc position.

    Attributes:
        white: 81-bit mask of White's stones (bit ``row*9 + col``), conquered fields included.
        black: 81-bit mask of Black's stones.
        white_fields: 9-bit mask of the fields White conquered.
        black_fields: 9-bit mask of the fields Black conquered.
        to_move: ``0`` White, ``1`` Black (at a terminal state: who would move next).
        roll: :data:`PENDING` (chance node), a sum 2-12 to play, :data:`MUST_PASS`, or
            :data:`NO_ROLL` once the game is over.
        passes: Consecutive passes so far (4 ends the game in a draw).
        layout: The hole numbers.
        result: ``-1`` ongoing, ``0`` White won, ``1`` Black won, ``2`` draw.
        gained: Points the player who made the move producing this state earned with it
            (1 per conquered field, 5 more for the win); 0 after a chance outcome.
    """

    white: int
    black: int
    white_fields: int
    black_fields: int
    to_move: int
    roll: int
    passes: int
    layout: Layout
    result: int = ONGOING
    gained: int = 0


def has_field_line(fields: int) -> bool:
    """Whether the 9-bit mask of conquered ``fields`` holds three in a row (a win)."""
    return any(fields & m == m for m in FIELD_LINE_MASKS)


def stone_letter(state: TritocState, h: int, empty: str) -> str:
    """``W`` or ``B`` for the stone on hole ``h``, ``empty`` when there is none."""
    return "W" if state.white >> h & 1 else "B" if state.black >> h & 1 else empty


POLICY_LAYOUT = PolicyLayout(1, 1, lambda a: (a // 9, a % 9, 0) if a < PASS else (0,))
"""One logit map for the holes and one global logit, the pass
(:class:`~tris_envs.core.policy.PolicyLayout`)."""
