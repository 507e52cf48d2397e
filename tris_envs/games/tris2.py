"""Tris 2 rules core (SPEC section 5): nine dice rolled across an open grid.

Each die has three pairs of equal opposite faces (``X``, ``O``, ``/``); its orientation is
the symbol on top, the one on the north-south axis and the one on the east-west axis::

    k   top  N-S  E-W         roll N or S: swap top and N-S   (t, n, e) -> (n, t, e)
    0    X    O    /          roll E or W: swap top and E-W   (t, n, e) -> (e, n, t)
    1    X    /    O
    2    O    X    /          e.g. X / O rolled east shows O on top: O / X
    3    O    /    X
    4    /    X    O
    5    /    O    X

The frame is the dice's bounding box (at most 9x9), anchored at its top-left cell and
re-anchored after every move, so coordinates shift when the box grows up or left. During
the placement setup the frame is the 3x3 block. Frame cell ``f = r*9 + c``::

            c=0  1   2   3   4   5   6   7   8              N (d=0)
      r=0     0  1   2   3   4   5   6   7   8               |
      r=1     9 10  11  12  13  14  15  16  17     W (d=3) --+-- E (d=1)
      ...                                                    |
      r=8    72 73  74  75  76  77  78  79  80              S (d=2)

Actions: roll ``f*4 + d`` (0..323); placement ``324 + cell*6 + k`` (324..377) with
``cell = r*3 + c`` in the block and ``k`` the orientation above.

Bit masks (occupancy, dice per top symbol) live on an 11x11 grid that pads the frame by
one cell on every side (``p = (r+1)*11 + c+1``, frame rows and columns -1..9), so a die
may step out of the frame before it is re-anchored. King contact is a 3x3 dilation (four
shifts), a line of three is two shifts and ands per direction.

Move generation. A roll is decided from the 3x3 window around the die (tables over the
512 windows, memoized per row of dice): when the die's neighbours form one king-connected
group, the others stay connected without it and the roll is legal iff the target touches
them; when every group touches the target it is legal. Otherwise (the die may be the only
link between its groups) digital topology decides: with king contact between dice and
orthogonal contact between empty cells, the Euler number of the dice (from 2x2 patterns)
is 1 - holes. Two groups of a die's neighbours can only be linked by a path around a hole
next to the die, so without holes they fall apart when the die leaves, and a one-cell
hole next to the die links the groups on either side of it. Flood fills remain for larger
holes and for the rare roll whose target may reach a cut-off part beyond it.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import product
from typing import NamedTuple

import numpy as np

from tris_envs.core.drawing import (
    BACKGROUND,
    DIE_EDGE,
    HIGHLIGHT,
    INK,
    Canvas,
    draw_die,
    draw_symbol,
)
from tris_envs.core.errors import brief
from tris_envs.core.game import TERMINAL, Game, GameInfo, allows_win
from tris_envs.core.options import check_bool, check_choice, check_int

SYMBOLS = "XO/"
ORIENTATIONS: tuple[str, ...] = ("XO/", "X/O", "OX/", "O/X", "/XO", "/OX")
"""Orientation ``k`` as (top, north-south, east-west) symbols."""
DIRECTIONS = "NESW"
N, E, S, W = range(4)
PLAYER_NAMES = ("player_0", "player_1")

FRAME = 9
NUM_DICE = 9
PLACEMENT_BASE = 324
NUM_ACTIONS = 378
OBSERVATION_SHAPE = (FRAME, FRAME, 11)
LAST_PLANE = 10
ONGOING, DRAW = -1, 2

_FRAME_DIGITS = "012345678"
"""Frame rows and columns as written in position strings (``int`` alone would also take
other scripts' digits, superscripts and leading zeros)."""
_PAD = FRAME + 2
_CELLS = _PAD * _PAD
ROW_STEP = (-1, 0, 1, 0)
COL_STEP = (0, 1, 0, -1)
STEP = tuple(dr * _PAD + dc for dr, dc in zip(ROW_STEP, COL_STEP))
"""Padded-grid index offset of one cell north, east, south, west."""


def _padded(r: int, c: int) -> int:
    return (r + 1) * _PAD + c + 1


def _on_grid(r: int, c: int) -> bool:
    return -1 <= r <= FRAME and -1 <= c <= FRAME


def _rolled(k: int, d: int) -> int:
    top, ns, ew = ORIENTATIONS[k]
    return ORIENTATIONS.index(ns + top + ew if d in (N, S) else ew + ns + top)


ROLL: tuple[tuple[int, ...], ...] = tuple(tuple(_rolled(k, d) for d in range(4)) for k in range(6))
"""``ROLL[k][d]``: orientation of a die in orientation ``k`` after rolling in direction ``d``."""

ROW: tuple[int, ...] = tuple(p // _PAD - 1 for p in range(_CELLS))
COL: tuple[int, ...] = tuple(p % _PAD - 1 for p in range(_CELLS))
FRAME_CELL: tuple[int, ...] = tuple(
    ROW[p] * FRAME + COL[p] if 0 <= ROW[p] < FRAME and 0 <= COL[p] < FRAME else -1
    for p in range(_CELLS)
)
CELL_P: tuple[int, ...] = tuple(_padded(f // FRAME, f % FRAME) for f in range(FRAME * FRAME))
BLOCK_F: tuple[int, ...] = tuple((cell // 3) * FRAME + cell % 3 for cell in range(9))
ROW_MASK: dict[int, int] = {r: sum(1 << _padded(r, c) for c in range(-1, FRAME + 1))
                            for r in range(-1, FRAME + 1)}
COL_MASK: dict[int, int] = {c: sum(1 << _padded(r, c) for r in range(-1, FRAME + 1))
                            for c in range(-1, FRAME + 1)}
NEIGH: tuple[int, ...] = tuple(
    sum(1 << _padded(ROW[p] + dr, COL[p] + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)
        if (dr or dc) and _on_grid(ROW[p] + dr, COL[p] + dc))
    for p in range(_CELLS)
)
"""King neighbours of each padded cell."""
ORTHO: tuple[int, ...] = tuple(
    sum(1 << _padded(ROW[p] + dr, COL[p] + dc) for dr, dc in zip(ROW_STEP, COL_STEP)
        if _on_grid(ROW[p] + dr, COL[p] + dc))
    for p in range(_CELLS)
)
"""Orthogonal neighbours of each padded cell."""


def _triples() -> tuple[list[int], tuple[tuple[int, ...], ...]]:
    every: list[int] = []
    through: list[list[int]] = [[] for _ in range(_CELLS)]
    for p in range(_CELLS):
        for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
            cells = [(ROW[p] + i * dr, COL[p] + i * dc) for i in range(3)]
            if all(_on_grid(r, c) for r, c in cells):
                mask = sum(1 << _padded(r, c) for r, c in cells)
                every.append(mask)
                for r, c in cells:
                    through[_padded(r, c)].append(mask)
    return every, tuple(tuple(t) for t in through)


ALL_TRIPLES, TRIPLES = _triples()
"""Masks of three contiguous aligned cells: all of them, and those through each cell."""
BLOCK_LINES: tuple[tuple[int, tuple[int, ...]], ...] = tuple(
    (CELL_P[f], tuple(triple & ~(1 << CELL_P[f]) for triple in TRIPLES[CELL_P[f]]
                      if all(ROW[q] in (0, 1, 2) and COL[q] in (0, 1, 2)
                             for q in range(_CELLS) if triple >> q & 1)))
    for f in BLOCK_F
)
"""Per cell of the 3x3 block: its padded index and, for each line of the block through it,
the other two cells."""

# ----- move generation tables ----------------------------------------------------------
SURE, NEAR, FAR, BLOCKED = range(4)
"""How a roll is decided from the 3x3 window around the die. SURE: legal (every group of
neighbours touches the target). NEAR: the neighbours form one group, so the others stay
connected; legal iff a die stands beyond the target. FAR: a group of neighbours may be
cut off; see :func:`_far_rolls`. BLOCKED: the target is occupied."""


def _offset_bit(dr: int, dc: int) -> int:
    return (dr + 1) * 3 + dc + 1


def _window_parts(window: int, closed: int) -> list[set[tuple[int, int]]]:
    """Parts the other dice of a 3x3 window fall into when its center die leaves.

    Window bit ``(dr+1)*3 + (dc+1)`` is the cell at offset ``(dr, dc)``. Groups of
    king-connected neighbours are separate parts, except across a closed gap: bit ``d``
    of ``closed`` says the neighbour in direction ``d`` is a one-cell hole, whose two
    flanking corners are linked by the die beyond it.
    """
    cells = {(j // 3 - 1, j % 3 - 1) for j in range(9) if j != 4 and window >> j & 1}
    parts: list[set[tuple[int, int]]] = []
    while cells:
        part = {cells.pop()}
        frontier = list(part)
        while frontier:
            r, c = frontier.pop()
            near = {(a, b) for a, b in cells if abs(a - r) <= 1 and abs(b - c) <= 1}
            cells -= near
            part |= near
            frontier.extend(near)
        parts.append(part)
    for d in range(4):
        if closed >> d & 1:
            dr, dc = ROW_STEP[d], COL_STEP[d]
            flanks = {(dr + dc, dc + dr), (dr - dc, dc - dr)}
            joined = [part for part in parts if part & flanks]
            if len(joined) == 2:
                parts = [part for part in parts if part not in joined]
                parts.append(joined[0] | joined[1])
    return parts


def _window_kinds(window: int, closed: int = 0) -> tuple[int, ...]:
    """SURE, NEAR, FAR or BLOCKED for the roll in each direction ``d``."""
    parts = _window_parts(window, closed)
    kinds = []
    for d in range(4):
        target = (ROW_STEP[d], COL_STEP[d])
        if window >> _offset_bit(*target) & 1:
            kinds.append(BLOCKED)
            continue
        touching = [any(max(abs(r - target[0]), abs(c - target[1])) == 1 for r, c in part)
                    for part in parts]
        if parts and all(touching):
            kinds.append(SURE)
        else:
            kinds.append(NEAR if len(parts) == 1 else FAR)
    return tuple(kinds)


WINDOW_KINDS = tuple(_window_kinds(w) for w in range(512))
_CLOSED_KINDS: dict[int, tuple[int, ...]] = {}


def _closed_kinds(window: int, closed: int) -> tuple[int, ...]:
    """:func:`_window_kinds` with closed gaps, memoized by ``window << 4 | closed``."""
    kinds = _window_kinds(window, closed)
    _CLOSED_KINDS[window << 4 | closed] = kinds
    return kinds


_ORIGIN = 2 * _PAD + 2
"""Shift of a window-relative mask: bit ``(dr+2)*11 + dc+2`` is the cell at offset
``(dr, dc)`` from a die, so ``(mask << p) >> _ORIGIN`` places it around padded cell ``p``.
Offsets off the padded grid fall below bit 0 or onto the padded border columns, where no
die ever stands in an anchored position."""


def _relative(cells: list[tuple[int, int]]) -> int:
    return sum(1 << (dr + 2) * _PAD + dc + 2 for dr, dc in cells)


def _beyond(d: int, window: int) -> tuple[int, int]:
    """The target's neighbours outside the die's window (the three cells two steps away)
    as relative masks: all of them, and those next to no neighbour of the die (``open``).

    A die beyond the target next to a neighbour of the die belongs to that neighbour's
    part, which touches the target already; only open cells can link another part.
    """
    dr, dc = ROW_STEP[d], COL_STEP[d]
    cells = [(2 * dr + i * dc, 2 * dc + i * dr) for i in (-1, 0, 1)]
    corners = [(dr + j * dc, dc + j * dr) for j in (-1, 1)]
    opened = [(r, c) for r, c in cells
              if not any(window >> _offset_bit(*corner) & 1 for corner in corners
                         if max(abs(r - corner[0]), abs(c - corner[1])) == 1)]
    return _relative(cells), _relative(opened)


WINDOW_ROLLS: tuple[tuple[tuple[int, int, int, int], ...], ...] = tuple(
    tuple((d, kind, *_beyond(d, w)) for d, kind in enumerate(WINDOW_KINDS[w])
          if kind != BLOCKED)
    for w in range(512)
)
"""Per window: ``(d, kind, beyond, open)`` for each roll into an empty cell (relative
masks, see :func:`_beyond`)."""

FarRolls = tuple[tuple[int, int, int, int, int], ...]
FarDie = tuple[int, int, FarRolls, int]
DieRolls = tuple[int, tuple[tuple[int, int], ...], tuple[FarDie, ...]]
_DIE_ROLLS: dict[int, DieRolls] = {}
_ROW_ROLLS: tuple[dict[int, DieRolls], ...] = tuple({} for _ in range(FRAME))
_BAND = (1 << 3 * _PAD) - 1
_CACHE_SIZE = 50_000
"""Bound on each memo below (cleared when full)."""
_GEOMETRIC: dict[int, int] = {}
"""Occupancy -> geometric rolls (before ``max_side`` and the undo rule)."""
_ROW_BITS = (1 << _PAD) - 1
_SPREAD = tuple(sum(1 << 3 * j for j in range(_PAD) if v >> j & 1) for v in range(1 << _PAD))
"""Row bits spread out three apart: three rows spread and interleaved give, for each
column, its three cells top to bottom in consecutive bits."""
_TRANSPOSED = tuple(sum(1 << (j % 3) * 3 + j // 3 for j in range(9) if v >> j & 1)
                    for v in range(512))
"""Window with bit ``(dc+1)*3 + (dr+1)`` -> window with bit ``(dr+1)*3 + (dc+1)``."""
_COLUMNS = tuple(tuple(j for j in range(1, _PAD - 1) if v >> j & 1) for v in range(1 << _PAD))
"""Padded columns 1..9 (the frame's) of the set bits of a row."""


def _die_rolls(p: int, window: int) -> DieRolls:
    """The rolls of the die on padded cell ``p`` with 3x3 ``window``; memoized by
    ``window << 7 | p``.

    Actions are bits of an action mask (bit ``a`` for action ``a``). Returns the SURE
    actions; ``(action bit, beyond)`` for NEAR rolls, legal iff a die stands on
    ``beyond``; and, when some roll is FAR, ``((p, window, ((d, action bit, target,
    beyond, open), ...), union of the open masks),)``.
    """
    base = FRAME_CELL[p] << 2
    sure = 0
    near, far = [], []
    any_open = 0
    for d, kind, beyond, opened in WINDOW_ROLLS[window]:
        if kind == SURE:
            sure |= 1 << (base | d)
        elif kind == NEAR:
            near.append((1 << (base | d), (beyond << p) >> _ORIGIN))
        else:
            opened = (opened << p) >> _ORIGIN
            any_open |= opened
            far.append((d, 1 << (base | d), p + STEP[d], (beyond << p) >> _ORIGIN, opened))
    entry = (sure, tuple(near), ((p, window, tuple(far), any_open),) if far else ())
    _DIE_ROLLS[window << 7 | p] = entry
    return entry


def _row_rolls(r: int, band: int) -> DieRolls:
    """:func:`_die_rolls` of all dice in frame row ``r`` merged; their windows lie in the
    rows ``r-1..r+1`` (``band``). Memoized by ``band`` in ``_ROW_ROLLS[r]``."""
    middle = band >> _PAD & _ROW_BITS
    columns = (_SPREAD[band & _ROW_BITS] | _SPREAD[middle] << 1
               | _SPREAD[band >> 2 * _PAD] << 2)
    sure = 0
    near: tuple[tuple[int, int], ...] = ()
    far: tuple[FarDie, ...] = ()
    for c in _COLUMNS[middle]:
        p = (r + 1) * _PAD + c
        window = _TRANSPOSED[columns >> 3 * (c - 1) & 511]
        die = _DIE_ROLLS.get(window << 7 | p) or _die_rolls(p, window)
        sure |= die[0]
        near += die[1]
        far += die[2]
    entry = (sure, near, far)
    if len(_ROW_ROLLS[r]) >= _CACHE_SIZE // 4:
        _ROW_ROLLS[r].clear()
    _ROW_ROLLS[r][band] = entry
    return entry


def _connected(occ: int) -> bool:
    """Whether the cells of ``occ`` form one king-connected group (``occ`` nonzero).

    Flood fill by 3x3 dilation. Row wrap-around of the horizontal shifts is harmless: it
    needs cells in both padded border columns, and at most one die is ever outside the
    frame.
    """
    reach = occ & -occ
    while True:
        grown = reach | reach << 1 | reach >> 1
        grown = (grown | grown << _PAD | grown >> _PAD) & occ
        if grown == reach:
            return reach == occ
        reach = grown


def _parts_without(occ: int, p: int) -> list[int]:
    """The king-connected parts of ``occ`` without the die on ``p``, as masks.

    Every part holds a neighbour of ``p``, so a flood stops as soon as it has reached all
    neighbours not yet in a part: the cells left then form one part.
    """
    rest = occ ^ 1 << p
    ring = rest & NEIGH[p]
    parts = []
    while True:
        reach = ring & -ring
        while True:
            grown = reach | reach << 1 | reach >> 1
            grown = (grown | grown << _PAD | grown >> _PAD) & rest
            if not ring & ~grown:
                parts.append(rest)
                return parts
            if grown == reach:
                break
            reach = grown
        parts.append(reach)
        rest ^= reach
        ring ^= ring & reach


def _holes(occ: int) -> int:
    """Number of holes (empty regions closed off orthogonally) of a connected ``occ``.

    Euler number from 2x2 patterns (Gray's bit quads, king connectivity):
    groups - holes = (Q1 - Q3 - 2*QD) / 4.
    """
    b, c, d = occ >> 1, occ >> _PAD, occ >> (_PAD + 1)
    odd = occ ^ b ^ c ^ d
    two = (occ & b) | (c & d) | ((occ | b) & (c | d))
    diagonal = (occ & d & ~(b | c)) | (b & c & ~(occ | d))
    euler = ((odd & ~two).bit_count() - (odd & two).bit_count()
             - 2 * diagonal.bit_count()) // 4
    return 1 - euler


def _far_rolls(occ: int, far_dice: tuple[FarDie, ...]) -> int:
    """The legal FAR rolls of the dice ``occ`` as an action bit mask.

    Without holes, the groups of a die's neighbours fall apart when it leaves, so a roll
    that leaves a group away from the target is illegal unless a die stands on an open
    cell beyond the target (then the parts are flood-filled). One-cell holes next to the
    die join the groups around them (``_CLOSED_KINDS``); with a larger hole, every FAR
    roll is flood-filled.
    """
    legal = 0
    holes = _holes(occ)
    if not holes:
        for p, _, rolls, any_open in far_dice:
            if occ & any_open:
                parts = _parts_without(occ, p)
                for _, bit, q, _, opened in rolls:
                    if occ & opened and all(part & NEIGH[q] for part in parts):
                        legal |= bit
        return legal
    single = ~occ & occ << 1 & occ >> 1 & occ << _PAD & occ >> _PAD
    flood_all = single.bit_count() < holes
    for p, window, rolls, any_open in far_dice:
        hole_side = single & ORTHO[p]
        if not (flood_all or hole_side or occ & any_open):
            continue
        kinds = None
        if hole_side:
            closed = (single >> (p - _PAD) & 1 | (single >> (p + 1) & 1) << 1
                      | (single >> (p + _PAD) & 1) << 2 | (single >> (p - 1) & 1) << 3)
            kinds = _CLOSED_KINDS.get(window << 4 | closed) or _closed_kinds(window, closed)
        parts = None
        for d, bit, q, beyond, opened in rolls:
            kind = kinds[d] if kinds else FAR
            if kind == SURE:
                legal |= bit
            elif kind == NEAR:
                if occ & beyond:
                    legal |= bit
            elif flood_all or occ & opened:
                if parts is None:
                    parts = _parts_without(occ, p)
                if all(part & NEIGH[q] for part in parts):
                    legal |= bit
    return legal


def _geometric_rolls(occ: int, height: int) -> int:
    """Rolls into an empty cell that keep the dice in contact, as an action bit mask (see
    the module docstring for the method); memoized by ``occ`` in ``_GEOMETRIC``."""
    legal = 0
    far_dice: tuple[FarDie, ...] = ()
    rows = occ
    for r in range(height):
        band = rows & _BAND
        rows >>= _PAD
        sure, near, far = _ROW_ROLLS[r].get(band) or _row_rolls(r, band)
        legal |= sure
        for bit, beyond in near:
            if occ & beyond:
                legal |= bit
        if far:
            far_dice += far
    if far_dice:
        legal |= _far_rolls(occ, far_dice)
    if len(_GEOMETRIC) >= _CACHE_SIZE:
        _GEOMETRIC.clear()
    _GEOMETRIC[occ] = legal
    return legal


def _has_line(mask: int) -> bool:
    """Whether ``mask`` holds three contiguous aligned cells (row, column or diagonal).

    Shifts by 1, 11, 12 and 10 step east, south, south-east and south-west; wrap-around
    needs cells in both padded border columns, which never happens.
    """
    a = mask & mask >> 1
    if a & a >> 1:
        return True
    a = mask & mask >> _PAD
    if a & a >> _PAD:
        return True
    a = mask & mask >> (_PAD + 1)
    if a & a >> (_PAD + 1):
        return True
    a = mask & mask >> (_PAD - 1)
    return bool(a & a >> (_PAD - 1))


def _valid_setup_tops() -> np.ndarray:
    """Top-symbol patterns of the 3x3 block (cell ``r*3 + c``) allowed as random setups.

    (a) no line of three equal tops; (b) no two edge-middle dice sharing a vertex
    (cells 1-3, 1-5, 3-7, 5-7) show the same top.
    """
    tops = np.array(list(product(range(3), repeat=9)), dtype=np.int8)
    lines = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8),
             (2, 4, 6))
    ok = np.ones(len(tops), dtype=bool)
    for a, b, c in lines:
        ok &= ~((tops[:, a] == tops[:, b]) & (tops[:, b] == tops[:, c]))
    for a, b in ((1, 3), (1, 5), (3, 7), (5, 7)):
        ok &= tops[:, a] != tops[:, b]
    return tops[ok]


SETUP_TOPS = _valid_setup_tops()
"""Every top-symbol pattern of a legal random setup (the hidden axes are free)."""

def _planes() -> np.ndarray:
    """Observation channels of each board byte (0 empty, ``1 + k`` orientation ``k``)."""
    planes = np.zeros((7, 11), dtype=np.int8)
    for k, orientation in enumerate(ORIENTATIONS):
        planes[k + 1, 0] = 1
        for axis, symbol in enumerate(orientation):
            planes[k + 1, 1 + 3 * axis + SYMBOLS.index(symbol)] = 1
    planes.flags.writeable = False
    return planes


_PLANES = _planes()
_MASK_BYTES = (NUM_ACTIONS + 7) // 8
_BYTE_BITS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1,
                           bitorder="little").view(np.int8)
"""The eight bits of each byte value, lowest first."""


class Tris2State(NamedTuple):
    """A Tris 2 position.

    Attributes:
        board: 81 bytes, the frame row-major (``r*9 + c``): 0 empty, ``1 + k`` a die in
            orientation ``k``.
        top_x: Bit mask (padded grid, ``(r+1)*11 + c+1``) of the dice showing ``X``.
        top_o: Bit mask of the dice showing ``O``.
        top_bar: Bit mask of the dice showing ``/``.
        height: Frame rows (the dice's bounding box; 3 during placement).
        width: Frame columns.
        to_move: ``0`` or ``1`` (at a terminal state: who would move next).
        last: Roll action ``f*4 + d`` of the last move in the current frame (the die's cell
            now and the direction it moved); ``-1`` when there is none.
        result: ``-1`` ongoing, ``0`` / ``1`` that player won, ``2`` draw.
        legal: Legal actions of the player to move as a bit mask, bit ``a`` for action
            ``a`` (derived from the fields above).
    """

    board: bytes
    top_x: int
    top_o: int
    top_bar: int
    height: int
    width: int
    to_move: int
    last: int
    result: int
    legal: int

    @property
    def occupied(self) -> int:
        """Bit mask of all dice."""
        return self.top_x | self.top_o | self.top_bar

    @property
    def placing(self) -> bool:
        """Whether the dice are still being placed (placement setup)."""
        return (self.top_x | self.top_o | self.top_bar).bit_count() < NUM_DICE


class Tris2(Game[Tris2State]):
    """Tris 2: roll a die one cell; three equal top symbols in a line win for the mover.

    Args:
        setup: ``"random"`` (default: a random legal 3x3 block) or ``"placement"`` (the
            players fill the block one die at a time, ``player_0`` first; actions 324..377).
        max_side: ``None`` (default, unbounded) or the largest allowed height and width of
            the dice's bounding box (the "rule of 4" is ``max_side=4``).
        fair: With the random setup, also redraw setups in which every first roll hands
            the second player a line (about 0.4% of the setups the seeds' rule allows).
        max_moves: default truncation limit in plies for environments (placements count).
    """


    def __init__(self, setup: str = "random", max_side: int | None = None, fair: bool = False,
                 max_moves: int = 200) -> None:
        self.setup = check_choice("setup", setup, ("random", "placement"))
        self.fair = check_bool("fair", fair)
        if self.fair and setup == "placement":
            raise ValueError("option fair=True redraws random setups; it needs setup='random'")
        self.max_side = None
        if max_side is not None:
            try:
                self.max_side = check_int("max_side", max_side, minimum=3)
            except ValueError:
                raise ValueError(f"option max_side={brief(max_side)} must be None (no limit) or "
                                 "an integer >= 3 (the 3x3 start block must fit)") from None
        self._limit = FRAME if self.max_side is None else min(self.max_side, FRAME)
        super().__init__(GameInfo("tris2", NUM_ACTIONS, OBSERVATION_SHAPE,
                                  check_int("max_moves", max_moves), True))
        self._blocked: dict[tuple[int, int], int] = {}
        self._action_masks: dict[int, np.ndarray] = {}
        self._action_tuples: dict[int, tuple[int, ...]] = {}


    # ----- move generation -----------------------------------------------------------
    def _blocked_rolls(self, height: int, width: int) -> int:
        """Rolls out of a frame side that already has ``max_side`` cells (memoized mask)."""
        blocked = 0
        for i in range(FRAME):
            if height >= self._limit:
                blocked |= 1 << (i << 2 | N) | 1 << (((height - 1) * FRAME + i) << 2 | S)
            if width >= self._limit:
                blocked |= 1 << ((i * FRAME) << 2 | W) | 1 << ((i * FRAME + width - 1) << 2 | E)
        self._blocked[height, width] = blocked
        return blocked

    def _rolls(self, occ: int, height: int, width: int, last: int) -> int:
        """Legal rolls as an action bit mask: the geometric ones, within ``max_side`` and
        not undoing the last move."""
        legal = _GEOMETRIC.get(occ)
        if legal is None:
            legal = _geometric_rolls(occ, height)
        if height >= self._limit or width >= self._limit:
            legal &= ~(self._blocked.get((height, width)) or self._blocked_rolls(height, width))
        if last >= 0:
            legal &= ~(1 << (last ^ 2))
        return legal

    @staticmethod
    def _placements(tops: tuple[int, int, int]) -> int:
        """Legal placements as an action mask: an empty block cell, in an orientation that
        makes no line."""
        occ = tops[0] | tops[1] | tops[2]
        legal = 0
        for cell, (p, lines) in enumerate(BLOCK_LINES):
            if occ >> p & 1:
                continue
            for t in range(3):
                mask = tops[t]
                for others in lines:
                    if mask & others == others:
                        break
                else:
                    legal |= 3 << (PLACEMENT_BASE + cell * 6 + 2 * t)
        return legal

    def legal_actions(self, state: Tris2State) -> tuple[int, ...]:
        actions = self._action_tuples.get(state.legal)
        if actions is None:
            actions = tuple(np.flatnonzero(self.legal_mask(state)).tolist())
            if len(self._action_tuples) >= self.MASK_CACHE_SIZE:
                self._action_tuples.clear()
            self._action_tuples[state.legal] = actions
        return actions

    def legal_mask(self, state: Tris2State) -> np.ndarray:
        """Read-only ``int8`` vector of length 378, 1 for each legal action.

        Memoized by the action bit mask (``state.legal``) and shared between calls.
        """
        mask = self._action_masks.get(state.legal)
        if mask is None:
            legal = np.frombuffer(state.legal.to_bytes(_MASK_BYTES, "little"), np.uint8)
            mask = _BYTE_BITS.take(legal, axis=0).reshape(-1)[:NUM_ACTIONS]
            mask.flags.writeable = False
            if len(self._action_masks) >= self.MASK_CACHE_SIZE:
                self._action_masks.clear()
            self._action_masks[state.legal] = mask
        return mask

    # ----- rules ---------------------------------------------------------------------
    def initial_state(self, rng: np.random.Generator | None = None) -> Tris2State:
        """The empty block (placement setup) or a random legal block drawn from ``rng``
        (a fresh generator when ``None``)."""
        if self.setup == "placement":
            return self._position(bytes(FRAME * FRAME), (0, 0, 0), 3, 3, 0, -1)
        if rng is None:
            rng = np.random.default_rng()
        while True:
            state = self._random_setup(rng)
            if not self.fair or not all(allows_win(self, state, a)
                                        for a in self.legal_actions(state)):
                return state

    def _random_setup(self, rng: np.random.Generator) -> Tris2State:
        """A block drawn by the seeds' rule: no line, no first-move win."""
        tops = SETUP_TOPS[int(rng.integers(len(SETUP_TOPS)))]
        hidden = int(rng.integers(512))
        board = bytearray(FRAME * FRAME)
        masks = [0, 0, 0]
        for cell, f in enumerate(BLOCK_F):
            t = int(tops[cell])
            board[f] = 1 + 2 * t + (hidden >> cell & 1)
            masks[t] |= 1 << CELL_P[f]
        return self._position(bytes(board), (masks[0], masks[1], masks[2]), 3, 3, 0, -1)

    def _position(self, board: bytes, tops: tuple[int, int, int], height: int, width: int,
                  to_move: int, last: int) -> Tris2State:
        """A position without a line, with its legal actions; a draw when there are none."""
        occ = tops[0] | tops[1] | tops[2]
        if occ.bit_count() < NUM_DICE:
            legal = self._placements(tops)
        else:
            legal = self._rolls(occ, height, width, last)
        return Tris2State(board, tops[0], tops[1], tops[2], height, width, to_move, last,
                          ONGOING if legal else DRAW, legal)

    def current_player(self, state: Tris2State) -> int:
        return state.to_move if state.result == ONGOING else TERMINAL

    def apply(self, state: Tris2State, action: int) -> Tris2State:
        if type(action) is not int:
            action = self.action_index(state, action)
        board, x, o, bar, height, width, mover, _, _, legal = state
        if not 0 <= action < NUM_ACTIONS or not legal >> action & 1:
            raise self.illegal_action_error(state, action)
        if action >= PLACEMENT_BASE:
            return self._place(state, action)
        d = action & 3
        f = action >> 2
        p = CELL_P[f]
        q = p + STEP[d]
        code = board[f] - 1
        k = ROLL[code][d]
        tops = [x, o, bar]
        tops[code >> 1] ^= 1 << p
        tops[k >> 1] |= 1 << q
        won = _has_line(tops[k >> 1])
        x, o, bar = tops
        occ = x | o | bar
        shift = 0
        if d & 1:
            col = COL[q]
            if col < 0:
                shift, width = 1, width + 1
            elif col == width:
                width += 1
            elif not occ & COL_MASK[COL[p]]:
                width -= 1
                if COL[p] == 0:
                    shift = -1
        else:
            row = ROW[q]
            if row < 0:
                shift, height = _PAD, height + 1
            elif row == height:
                height += 1
            elif not occ & ROW_MASK[ROW[p]]:
                height -= 1
                if ROW[p] == 0:
                    shift = -_PAD
        cells = bytearray(board)
        cells[f] = 0
        if shift > 0:
            x, o, bar, occ = x << shift, o << shift, bar << shift, occ << shift
            moved = FRAME if shift == _PAD else 1
            cells = bytearray(moved) + cells[:-moved]
        elif shift < 0:
            x, o, bar, occ = x >> -shift, o >> -shift, bar >> -shift, occ >> -shift
            moved = FRAME if shift == -_PAD else 1
            cells = cells[moved:] + bytearray(moved)
        target = FRAME_CELL[q + shift]
        cells[target] = k + 1
        last = target << 2 | d
        if won:
            return Tris2State(bytes(cells), x, o, bar, height, width, 1 - mover, last, mover, 0)
        legal = _GEOMETRIC.get(occ)
        if legal is None:
            legal = _geometric_rolls(occ, height)
        if height >= self._limit or width >= self._limit:
            legal &= ~(self._blocked.get((height, width)) or self._blocked_rolls(height, width))
        legal &= ~(1 << (last ^ 2))
        return Tris2State(bytes(cells), x, o, bar, height, width, 1 - mover, last,
                          ONGOING if legal else DRAW, legal)

    def _place(self, state: Tris2State, action: int) -> Tris2State:
        cell, k = divmod(action - PLACEMENT_BASE, 6)
        f = BLOCK_F[cell]
        cells = bytearray(state.board)
        cells[f] = k + 1
        tops = [state.top_x, state.top_o, state.top_bar]
        tops[k >> 1] |= 1 << CELL_P[f]
        return self._position(bytes(cells), (tops[0], tops[1], tops[2]), 3, 3,
                              1 - state.to_move, -1)

    def explain_illegal(self, state: Tris2State, action: int) -> str:
        occ = state.occupied
        if action >= PLACEMENT_BASE:
            if not state.placing:
                return "placements are only legal while the dice are being placed (setup)"
            cell, k = divmod(action - PLACEMENT_BASE, 6)
            if state.board[BLOCK_F[cell]]:
                return f"cell {cell // 3},{cell % 3} of the block already holds a die"
            return f"it would make a line of three {ORIENTATIONS[k][0]!r}"
        if state.placing:
            return ("the dice are still being placed: use placement actions "
                    f"{PLACEMENT_BASE}..{NUM_ACTIONS - 1}")
        f, d = divmod(action, 4)
        p = CELL_P[f]
        if not occ >> p & 1:
            return f"there is no die at frame cell {f // FRAME},{f % FRAME}"
        q = p + STEP[d]
        if occ >> q & 1:
            return f"the target cell {ROW[q]},{COL[q]} is occupied"
        if not _connected(occ ^ 1 << p | 1 << q):
            return "the dice would not all be in contact afterwards (an island would form)"
        if action == state.last ^ 2:
            return ("it undoes the opponent's last move (the same die rolled straight back); "
                    "that die may move in another direction")
        height = state.height + (ROW[q] in (-1, state.height))
        width = state.width + (COL[q] in (-1, state.width))
        return (f"the dice's bounding box would be {height} high and {width} wide, over "
                f"max_side={self.max_side}")

    def returns(self, state: Tris2State) -> tuple[float, float]:
        if state.result in (ONGOING, DRAW):
            return (0.0, 0.0)
        return (1.0, -1.0) if state.result == 0 else (-1.0, 1.0)

    # ----- views ---------------------------------------------------------------------
    def observation(self, state: Tris2State, player: int) -> np.ndarray:
        """Planes on the frame: occupied; top X, O, /; north-south X, O, /; east-west X,
        O, /; the die moved last. The same for both players (nobody owns a symbol)."""
        obs = _PLANES.take(np.frombuffer(state.board, dtype=np.uint8), axis=0)
        if state.last >= 0:
            obs[state.last >> 2, LAST_PLANE] = 1
        return obs.reshape(OBSERVATION_SHAPE)

    def action_to_string(self, state: Tris2State, action: int) -> str:
        if not 0 <= action < NUM_ACTIONS:
            return f"out-of-range action {action}"
        if action >= PLACEMENT_BASE:
            cell, k = divmod(action - PLACEMENT_BASE, 6)
            return f"place {ORIENTATIONS[k]} at {cell // 3},{cell % 3}"
        f, d = divmod(action, 4)
        return f"roll {f // FRAME},{f % FRAME} {DIRECTIONS[d]}"

    def action_name(self, state: Tris2State, action: int) -> str:
        """A roll as the die's cell and direction (``1,2 N``); a placement as its block
        cell and orientation (``0,1 XO/``)."""
        if action >= PLACEMENT_BASE:
            cell, k = divmod(action - PLACEMENT_BASE, 6)
            return f"{cell // 3},{cell % 3} {ORIENTATIONS[k]}"
        f, d = divmod(action, 4)
        return f"{f // FRAME},{f % FRAME} {DIRECTIONS[d]}"

    @staticmethod
    def _token(state: Tris2State, r: int, c: int, empty: str) -> str:
        code = state.board[r * FRAME + c]
        return ORIENTATIONS[code - 1] if code else empty

    @staticmethod
    def _last_string(state: Tris2State) -> str:
        if state.last < 0:
            return "-"
        f, d = divmod(state.last, 4)
        return f"{f // FRAME},{f % FRAME},{DIRECTIONS[d]}"

    def to_notation(self, state: Tris2State) -> str:
        rows = ("".join(self._token(state, r, c, "...") for c in range(state.width))
                for r in range(state.height))
        return f"{'|'.join(rows)} {state.to_move} {self._last_string(state)}"

    def from_notation(self, text: str) -> Tris2State:
        def fail(why: str) -> ValueError:
            return ValueError(f"Tris 2 position {brief(text)}: {why}")

        fields = text.split(" ") if isinstance(text, str) else []
        if len(fields) != 3:
            raise fail("expected '<board> <0|1> <last>', e.g. "
                       "'XO/O/XX/O|/XOOX//OX|O/XXO/OX/ 0 -'")
        board_text, side, last_text = fields
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
                tops[k >> 1] |= 1 << _padded(r, c)
        if side not in ("0", "1"):
            raise fail(f"player to move {brief(side)} must be '0' or '1'")
        to_move = int(side)
        occ = tops[0] | tops[1] | tops[2]
        count = occ.bit_count()
        if count > NUM_DICE:
            raise fail(f"there are {count} dice; the game has {NUM_DICE}")
        if count < NUM_DICE:
            return self._placement_from_notation(cells, tops, (height, width), to_move,
                                                 last_text, fail)
        for name, edge in (("top row", ROW_MASK[0]), ("bottom row", ROW_MASK[height - 1]),
                           ("left column", COL_MASK[0]), ("right column", COL_MASK[width - 1])):
            if not occ & edge:
                raise fail(f"the frame must be the dice's bounding box, but its {name} is "
                           "empty")
        if not _connected(occ):
            raise fail("the dice are not all in contact (islands are impossible)")
        if max(height, width) > self._limit:
            raise fail(f"the dice span {height}x{width}, over max_side={self.max_side}")
        last = self._parse_last(last_text, occ, height, width, fail)
        board = bytes(cells)
        winning = any(_has_line(m) for m in tops)
        if last < 0:
            if winning:
                raise fail("there is a line of three equal top symbols but no last move "
                           "that made it")
            return self._position(board, (tops[0], tops[1], tops[2]), height, width, to_move,
                                  -1)
        q = CELL_P[last >> 2]
        if any(tops[t] & triple == triple and not triple >> q & 1
               for t in range(3) for triple in ALL_TRIPLES):
            raise fail("there is a line of three equal top symbols not through the die "
                       "moved last, so the game ended earlier")
        self._check_previous(board[last >> 2] - 1, tops, last, fail)
        if winning:
            return Tris2State(board, tops[0], tops[1], tops[2], height, width, to_move, last,
                              1 - to_move, 0)
        return self._position(board, (tops[0], tops[1], tops[2]), height, width, to_move,
                              last)

    def _placement_from_notation(self, cells: bytearray, tops: list[int],
                                 size: tuple[int, int], to_move: int, last_text: str,
                                 fail: Callable[[str], ValueError]) -> Tris2State:
        count = (tops[0] | tops[1] | tops[2]).bit_count()
        if size != (3, 3):
            raise fail(f"{count} dice: a position with fewer than {NUM_DICE} dice is in the "
                       "placement setup, whose frame is the 3x3 block")
        if last_text != "-":
            raise fail(f"last move {brief(last_text)} during the placement setup must be '-'")
        if to_move != count % 2:
            raise fail(f"with {count} dice placed, player {count % 2} places next "
                       "(player_0 places first)")
        if any(_has_line(m) for m in tops):
            raise fail("a placement may not make a line of three equal top symbols")
        return self._position(bytes(cells), (tops[0], tops[1], tops[2]), 3, 3, to_move, -1)

    @staticmethod
    def _parse_last(text: str, occ: int, height: int, width: int,
                    fail: Callable[[str], ValueError]) -> int:
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
        if r >= height or c >= width or not occ >> _padded(r, c) & 1:
            raise fail(f"last move {brief(text)}: there is no die at frame cell {r},{c}")
        if occ >> _padded(r, c) - STEP[d] & 1:
            raise fail(f"last move {brief(text)}: the die came from cell "
                       f"{r - ROW_STEP[d]},{c - COL_STEP[d]}, which is occupied")
        return (r * FRAME + c) << 2 | d

    def _check_previous(self, k: int, tops: list[int], last: int,
                        fail: Callable[[str], ValueError]) -> None:
        """The position before the last move (die now in orientation ``k``) must have
        been legal and not won."""
        f, d = divmod(last, 4)
        q = CELL_P[f]
        before = list(tops)
        before[k >> 1] ^= 1 << q
        before[ROLL[k][d ^ 2] >> 1] |= 1 << q - STEP[d]
        occ = before[0] | before[1] | before[2]
        if not _connected(occ):
            raise fail("before the last move the dice were not all in contact")
        if any(_has_line(m) for m in before):
            raise fail("before the last move there was already a line of three, so the "
                       "game had ended")
        height = sum(1 for r in ROW_MASK if occ & ROW_MASK[r])
        width = sum(1 for c in COL_MASK if occ & COL_MASK[c])
        if max(height, width) > self._limit:
            raise fail(f"before the last move the dice spanned {height}x{width}, over "
                       f"max_side={self.max_side}")

    def render_text(self, state: Tris2State, hidden: bool = False) -> str:
        """The frame with row and column numbers and each die's top symbol; the die moved
        last is in brackets. ``hidden=True`` shows each die's top, north-south and
        east-west symbols (e.g. ``XO/``) instead."""
        width = 5 if hidden else 3
        last_cell = state.last >> 2 if state.last >= 0 else -1
        lines = ["    " + "".join(f"{c:^{width}}" for c in range(state.width)).rstrip()]
        for r in range(state.height):
            row = ""
            for c in range(state.width):
                token = self._token(state, r, c, "..." if hidden else ".")
                text = token if hidden else token[0]
                row += f"[{text}]" if r * FRAME + c == last_cell else f" {text} "
            lines.append(f"{r:>3} {row}".rstrip())
        if hidden:
            lines.append("(each die: top, north-south, east-west symbol)")
        lines.append(self._status(state))
        return "\n".join(lines)

    def _status(self, state: Tris2State) -> str:
        last = self._last_string(state)
        moved = f"; last move {last}" if last != "-" else ""
        if state.result == DRAW:
            action = "placement" if state.placing else "roll"
            return f"Draw: {PLAYER_NAMES[state.to_move]} has no legal {action}{moved}"
        if state.result != ONGOING:
            return f"{PLAYER_NAMES[state.result]} wins with a line{moved}"
        if state.placing:
            placed = state.occupied.bit_count()
            return f"{PLAYER_NAMES[state.to_move]} to place a die ({placed} of 9 placed)"
        return f"{PLAYER_NAMES[state.to_move]} to roll{moved}"

    def picture_size(self, state: Tris2State) -> tuple[int, int]:
        return (480, 530)

    def draw(self, state: Tris2State, canvas: Canvas) -> None:
        """Dice seen from above: the top face with its symbol, and the four side faces
        showing the north-south (top and bottom) and east-west (left and right) symbols.
        The die moved last is outlined in red. The picture keeps its size; dice shrink
        when the frame grows."""
        canvas.fill(BACKGROUND)
        margin = 34.0
        side = canvas.width - 2 * margin
        cell = side / max(3, state.height, state.width)
        left = margin + (side - state.width * cell) / 2
        top = margin + (side - state.height * cell) / 2
        for c in range(state.width):
            canvas.text(str(c), left + (c + 0.5) * cell, top - margin / 2, 18, INK)
        for r in range(state.height):
            canvas.text(str(r), left - margin / 2, top + (r + 0.5) * cell, 18, INK)
        last_cell = state.last >> 2 if state.last >= 0 else -1
        for r in range(state.height):
            for c in range(state.width):
                x, y = left + c * cell, top + r * cell
                canvas.rect(x, y, cell, cell, _GRID_LINE, width=1)
                code = state.board[r * FRAME + c]
                if code:
                    _draw_die_3d(canvas, x, y, cell, ORIENTATIONS[code - 1],
                                 r * FRAME + c == last_cell)
        canvas.text(self._status(state), canvas.width / 2, canvas.height - 30, 20, INK)


_GRID_LINE = (222, 208, 178)
_SIDE_FACES = ((238, 235, 226), (212, 207, 194), (226, 222, 211), (220, 215, 203))
"""North, south, west and east faces: lit from the top left."""


def _draw_die_3d(canvas: Canvas, x: float, y: float, size: float, orientation: str,
                 highlight: bool) -> None:
    """A die seen from above in perspective: side faces around the top face."""
    outer, inner = size * 0.05, size * 0.2
    a, b = x + outer, y + outer
    ra, rb = x + size - outer, y + size - outer
    ia, ib = x + inner, y + inner
    ira, irb = x + size - inner, y + size - inner
    top, ns, ew = orientation
    faces = (
        ([(a, b), (ra, b), (ira, ib), (ia, ib)], ns, (x + size / 2, (b + ib) / 2)),
        ([(a, rb), (ra, rb), (ira, irb), (ia, irb)], ns, (x + size / 2, (rb + irb) / 2)),
        ([(a, b), (ia, ib), (ia, irb), (a, rb)], ew, ((a + ia) / 2, y + size / 2)),
        ([(ra, b), (ira, ib), (ira, irb), (ra, rb)], ew, ((ra + ira) / 2, y + size / 2)),
    )
    for (points, symbol, (cx, cy)), shade in zip(faces, _SIDE_FACES):
        canvas.polygon(points, shade)
        canvas.polygon(points, DIE_EDGE, width=1)
        draw_symbol(canvas, symbol, cx, cy, size * 0.2)
    canvas.rect(a, b, ra - a, rb - b, HIGHLIGHT if highlight else DIE_EDGE,
                width=3 if highlight else 1)
    pad = (inner - outer) * 0.2
    draw_die(canvas, ia - pad, ib - pad, ira - ia + 2 * pad, top, highlight)
