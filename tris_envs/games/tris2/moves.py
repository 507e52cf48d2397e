"""Tris 2 geometry and move generation: the frame, the padded bit grid, rolls and lines.

The frame is the dice's bounding box (at most 9x9), anchored at its top-left cell and
re-anchored after every move, so coordinates shift when the box grows up or left. During
the placement setup the frame is the 3x3 block. Frame cell ``f = r*9 + c``::

            c=0  1   2   3   4   5   6   7   8              N (d=0)
      r=0     0  1   2   3   4   5   6   7   8               |
      r=1     9 10  11  12  13  14  15  16  17     W (d=3) --+-- E (d=1)
      ...                                                    |
      r=8    72 73  74  75  76  77  78  79  80              S (d=2)

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

SYMBOLS = "XO/"
ORIENTATIONS: tuple[str, ...] = ("XO/", "X/O", "OX/", "O/X", "/XO", "/OX")
"""Orientation ``k`` as (top, north-south, east-west) symbols."""
DIRECTIONS = "NESW"
N, E, S, W = range(4)

FRAME = 9
PAD = FRAME + 2
_CELLS = PAD * PAD
ROW_STEP = (-1, 0, 1, 0)
COL_STEP = (0, 1, 0, -1)
STEP = tuple(dr * PAD + dc for dr, dc in zip(ROW_STEP, COL_STEP))
"""Padded-grid index offset of one cell north, east, south, west."""


def padded(r: int, c: int) -> int:
    """Padded-grid index of frame cell ``r, c`` (rows and columns -1..9)."""
    return (r + 1) * PAD + c + 1


def _on_grid(r: int, c: int) -> bool:
    return -1 <= r <= FRAME and -1 <= c <= FRAME


def _rolled(k: int, d: int) -> int:
    top, ns, ew = tuple(ORIENTATIONS[k])
    return ORIENTATIONS.index(ns + top + ew if d in (N, S) else ew + ns + top)


ROLL: tuple[tuple[int, ...], ...] = tuple(tuple(_rolled(k, d) for d in range(4)) for k in range(6))
"""``ROLL[k][d]``: orientation of a die in orientation ``k`` after rolling in direction ``d``."""

ROW: tuple[int, ...] = tuple(p // PAD - 1 for p in range(_CELLS))
COL: tuple[int, ...] = tuple(p % PAD - 1 for p in range(_CELLS))
FRAME_CELL: tuple[int, ...] = tuple(
    ROW[p] * FRAME + COL[p] if 0 <= ROW[p] < FRAME and 0 <= COL[p] < FRAME else -1
    for p in range(_CELLS)
)
CELL_P: tuple[int, ...] = tuple(padded(f // FRAME, f % FRAME) for f in range(FRAME * FRAME))
BLOCK_F: tuple[int, ...] = tuple((cell // 3) * FRAME + cell % 3 for cell in range(9))
ROW_MASK: dict[int, int] = {r: sum(1 << padded(r, c) for c in range(-1, FRAME + 1))
                            for r in range(-1, FRAME + 1)}
COL_MASK: dict[int, int] = {c: sum(1 << padded(r, c) for r in range(-1, FRAME + 1))
                            for c in range(-1, FRAME + 1)}
NEIGH: tuple[int, ...] = tuple(
    sum(1 << padded(ROW[p] + dr, COL[p] + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)
        if (dr or dc) and _on_grid(ROW[p] + dr, COL[p] + dc))
    for p in range(_CELLS)
)
"""King neighbours of each padded cell."""
ORTHO: tuple[int, ...] = tuple(
    sum(1 << padded(ROW[p] + dr, COL[p] + dc) for dr, dc in zip(ROW_STEP, COL_STEP)
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
                mask = sum(1 << padded(r, c) for r, c in cells)
                every.append(mask)
                for r, c in cells:
                    through[padded(r, c)].append(mask)
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


_ORIGIN = 2 * PAD + 2
"""Shift of a window-relative mask: bit ``(dr+2)*11 + dc+2`` is the cell at offset
``(dr, dc)`` from a die, so ``(mask << p) >> _ORIGIN`` places it around padded cell ``p``.
Offsets off the padded grid fall below bit 0 or onto the padded border columns, where no
die ever stands in an anchored position."""


def _relative(cells: list[tuple[int, int]]) -> int:
    return sum(1 << (dr + 2) * PAD + dc + 2 for dr, dc in cells)


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
_BAND = (1 << 3 * PAD) - 1
_CACHE_SIZE = 50_000
"""Bound on each memo below (cleared when full)."""
GEOMETRIC: dict[int, int] = {}
"""Occupancy -> geometric rolls (before ``max_side`` and the undo rule)."""
_ROW_BITS = (1 << PAD) - 1
_SPREAD = tuple(sum(1 << 3 * j for j in range(PAD) if v >> j & 1) for v in range(1 << PAD))
"""Row bits spread out three apart: three rows spread and interleaved give, for each
column, its three cells top to bottom in consecutive bits."""
_TRANSPOSED = tuple(sum(1 << (j % 3) * 3 + j // 3 for j in range(9) if v >> j & 1)
                    for v in range(512))
"""Window with bit ``(dc+1)*3 + (dr+1)`` -> window with bit ``(dr+1)*3 + (dc+1)``."""
_COLUMNS = tuple(tuple(j for j in range(1, PAD - 1) if v >> j & 1) for v in range(1 << PAD))
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
    middle = band >> PAD & _ROW_BITS
    columns = (_SPREAD[band & _ROW_BITS] | _SPREAD[middle] << 1
               | _SPREAD[band >> 2 * PAD] << 2)
    sure = 0
    near: tuple[tuple[int, int], ...] = ()
    far: tuple[FarDie, ...] = ()
    for c in _COLUMNS[middle]:
        p = (r + 1) * PAD + c
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


def connected(occ: int) -> bool:
    """Whether the cells of ``occ`` form one king-connected group (``occ`` nonzero).

    Flood fill by 3x3 dilation. Row wrap-around of the horizontal shifts is harmless: it
    needs cells in both padded border columns, and at most one die is ever outside the
    frame.
    """
    reach = occ & -occ
    while True:
        grown = reach | reach << 1 | reach >> 1
        grown = (grown | grown << PAD | grown >> PAD) & occ
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
            grown = (grown | grown << PAD | grown >> PAD) & rest
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
    b, c, d = occ >> 1, occ >> PAD, occ >> (PAD + 1)
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
    parts: list[int] | None
    holes = _holes(occ)
    if not holes:
        for p, _, rolls, any_open in far_dice:
            if occ & any_open:
                parts = _parts_without(occ, p)
                for _, bit, q, _, opened in rolls:
                    if occ & opened and all(part & NEIGH[q] for part in parts):
                        legal |= bit
        return legal
    single = ~occ & occ << 1 & occ >> 1 & occ << PAD & occ >> PAD
    flood_all = single.bit_count() < holes
    for p, window, rolls, any_open in far_dice:
        hole_side = single & ORTHO[p]
        if not (flood_all or hole_side or occ & any_open):
            continue
        kinds = None
        if hole_side:
            closed = (single >> (p - PAD) & 1 | (single >> (p + 1) & 1) << 1
                      | (single >> (p + PAD) & 1) << 2 | (single >> (p - 1) & 1) << 3)
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


def geometric_rolls(occ: int, height: int) -> int:
    """Rolls into an empty cell that keep the dice in contact, as an action bit mask (see
    the module docstring for the method); memoized by ``occ`` in ``GEOMETRIC``."""
    legal = 0
    far_dice: tuple[FarDie, ...] = ()
    rows = occ
    for r in range(height):
        band = rows & _BAND
        rows >>= PAD
        sure, near, far = _ROW_ROLLS[r].get(band) or _row_rolls(r, band)
        legal |= sure
        for bit, beyond in near:
            if occ & beyond:
                legal |= bit
        if far:
            far_dice += far
    if far_dice:
        legal |= _far_rolls(occ, far_dice)
    if len(GEOMETRIC) >= _CACHE_SIZE:
        GEOMETRIC.clear()
    GEOMETRIC[occ] = legal
    return legal


def reframe(occ: int, p: int, q: int, d: int, height: int, width: int) -> tuple[int, int, int]:
    """The frame after the die on padded cell ``p`` rolled in direction ``d`` to ``q``.

    ``occ`` holds the dice after the roll, before re-anchoring. Returns ``(shift, height,
    width)``: the masks move by ``shift`` bits (``x << shift``, or ``x >> -shift`` when
    negative) so that the frame's top-left cell is the bounding box's again.
    """
    if d & 1:
        col = COL[q]
        if col < 0:
            return 1, height, width + 1
        if col == width:
            return 0, height, width + 1
        if not occ & COL_MASK[COL[p]]:
            return -(COL[p] == 0), height, width - 1
        return 0, height, width
    row = ROW[q]
    if row < 0:
        return PAD, height + 1, width
    if row == height:
        return 0, height + 1, width
    if not occ & ROW_MASK[ROW[p]]:
        return -PAD * (ROW[p] == 0), height - 1, width
    return 0, height, width


def has_line(mask: int) -> bool:
    """Whether ``mask`` holds three contiguous aligned cells (row, column or diagonal).

    Shifts by 1, 11, 12 and 10 step east, south, south-east and south-west; wrap-around
    needs cells in both padded border columns, which never happens.
    """
    a = mask & mask >> 1
    if a & a >> 1:
        return True
    a = mask & mask >> PAD
    if a & a >> PAD:
        return True
    a = mask & mask >> (PAD + 1)
    if a & a >> (PAD + 1):
        return True
    a = mask & mask >> (PAD - 1)
    return bool(a & a >> (PAD - 1))


def can_win(tops: tuple[int, int, int], odd: int, legal: int) -> bool:
    """Whether one of the rolls in ``legal`` makes a line, on a position's bit masks:
    ``tops`` (the dice per top symbol) and ``odd`` (the dice in an odd orientation ``k``).
    A roll's new top symbol always differs from the old one, so the die's old cell never
    counts."""
    x, o = tops[0], tops[1]
    while legal:
        low = legal & -legal
        legal ^= low
        action = low.bit_length() - 1
        d = action & 3
        p = CELL_P[action >> 2]
        t = 0 if x >> p & 1 else 1 if o >> p & 1 else 2
        if has_line(tops[ROLL[2 * t + (odd >> p & 1)][d] >> 1] | 1 << p + STEP[d]):
            return True
    return False
