"""Tritoc rules core (docs/games/tritoc.md): dice-driven 9×9 tic-tac-toe.

Nine fields in a 3×3 arrangement, each a 3×3 block of holes. Hole ``h = row*9 + col``
(row 0 = top), field ``(row//3)*3 + col//3``; each hole carries a number 3-11, each field
holding every number once (``ordered`` layout shown; hole numbers on the left, hole indices
of field 0 and field indices on the right)::

           0  1  2    3  4  5    6  7  8         field 0 holes      fields
        ┌──────────┬──────────┬──────────┐
      0 │  3  4  5 │  3  4  5 │  3  4  5 │        0 │  1 │  2      0 │ 1 │ 2
      1 │  6  7  8 │  6  7  8 │  6  7  8 │        9 │ 10 │ 11      ──┼───┼──
      2 │  9 10 11 │  9 10 11 │  9 10 11 │       18 │ 19 │ 20      3 │ 4 │ 5
        ├──────────┼──────────┼──────────┤                         ──┼───┼──
      3 │  3  4  5 │  3  4  5 │  3  4  5 │                         6 │ 7 │ 8
        ⋮     (rows 3-5 and 6-8 repeat rows 0-2)

Turn: a chance node rolls two dice for the player to move (``roll`` pending). The
outcome is the sum to play, with the automatic rerolls folded in exactly (see
:meth:`Tritoc.chance_outcomes`), or "must pass". Then the player acts: 3-11 places a stone
on an empty hole with that number, 12 removes an opponent stone and 2 an own stone (both only
outside conquered fields), "must pass" allows only the pass (action 81). Three own stones in
a row inside a field conquer it (all its holes become the conqueror's); three conquered fields
in a row win; the fourth consecutive pass draws.

Position strings live in :mod:`tris_envs.games.tritoc_notation`, text and pictures in
:mod:`tris_envs.games.tritoc_drawing`; the :class:`Tritoc` methods delegate to them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np

from tris_envs.core.drawing import Canvas
from tris_envs.core.game import CHANCE, TERMINAL, Game, GameInfo, sample_outcome
from tris_envs.core.legal import nth_action
from tris_envs.core.options import check_choice, check_int

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
_FIELD_PLANES = np.array([[CONQUERED_HOLES[fm] >> h & 1 for h in range(81)]
                          for fm in range(512)], dtype=np.int8)
_CACHE_SIZE = 1 << 16
_ACTION_TUPLES: dict[int, tuple[int, ...]] = {}
_ACTION_MASKS: dict[int, np.ndarray] = {}


def _actions(bits: int) -> tuple[int, ...]:
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


def _action_mask(bits: int) -> np.ndarray:
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


def _bits(first: int, second: int) -> np.ndarray:
    """The bits of two 81-bit masks: ``first`` at ``[0:81]``, ``second`` at ``[88:169]``."""
    raw = np.frombuffer((first | second << 88).to_bytes(22, "little"), dtype=np.uint8)
    return np.unpackbits(raw, bitorder="little")


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
        base[np.arange(81), np.array(numbers) - 1] = 1
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


def _targets_of(white: int, black: int, fields: int, mover: int, roll: int,
                masks: tuple[int, ...]) -> int:
    """81-bit mask of the holes where ``roll`` lets ``mover`` act (``fields``: the 9-bit
    mask of conquered fields, ``masks``: the layout's holes per number)."""
    if roll == 12 or roll == 2:
        stones = black if (roll == 12) == (mover == WHITE) else white
        return stones & ~CONQUERED_HOLES[fields]
    return masks[roll] & ~(white | black)


def _playable_of(white: int, black: int, fields: int, mover: int,
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


def _move(white: int, black: int, white_fields: int, black_fields: int, mover: int,
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


def stone_letter(state: TritocState, h: int, empty: str) -> str:
    """``W`` or ``B`` for the stone on hole ``h``, ``empty`` when there is none."""
    return "W" if state.white >> h & 1 else "B" if state.black >> h & 1 else empty


class Tritoc(Game[TritocState]):
    """Tritoc with the options of docs/games/tritoc.md.

    Args:
        layout: ``"ordered"`` (default), ``"magic"``, ``"random"`` (a random permutation per
            field, drawn by :meth:`initial_state`) or 81 numbers 3-11 (row-major).
        dice: ``"2d6"`` (default) or ``"equal"`` (sums 3-11 weight 3, 2 and 12 weight 1).
        max_rerolls: automatic rerolls when a roll allows no action (default 3); any
            integer >= 0, no upper bound: the roll law is computed in closed form, so its
            cost does not grow with ``max_rerolls`` (exact fractions up to
            :data:`EXACT_REROLLS`, floating point beyond, see :meth:`_distribution`).
        reward: ``"win_loss"`` (default: +1/-1/0 at the end) or ``"points"`` (+1 for each
            conquered field, +5 for the win, paid to the mover when earned).
        max_moves: default truncation limit in plies for environments (passes count).
    """


    def __init__(self, layout: str | Sequence[int] = "ordered", dice: str = "2d6",
                 max_rerolls: int = 3, reward: str = "win_loss", max_moves: int = 500) -> None:
        if isinstance(layout, str):
            if layout not in LAYOUT_NAMES:
                raise ValueError(f"option layout={layout!r} is not allowed; choose 'ordered', "
                                 "'magic', 'random' or a sequence of 81 numbers 3-11")
            self.layout: str | tuple[int, ...] = layout
            self._layout = {"ordered": ORDERED, "magic": MAGIC}.get(layout)
        else:
            self.layout = check_layout(layout, "option layout")
            self._layout = Layout(self.layout)
        self.dice = check_choice("dice", dice, tuple(DICE_WEIGHTS))
        self.max_rerolls = check_int("max_rerolls", max_rerolls, minimum=0)
        self.reward = check_choice("reward", reward, ("win_loss", "points"))
        super().__init__(GameInfo("tritoc", 82, (9, 9, 24),
                                  check_int("max_moves", max_moves), False))
        self._weights = DICE_WEIGHTS[dice]
        self._outcomes: dict[int, list[tuple[int, float]]] = {}
        # (state, answer) of the latest queries: environments ask several times per step
        self._last_legal: tuple[TritocState | None, tuple[int, ...]] = (None, ())
        self._last_mask: tuple[TritocState | None, np.ndarray | None] = (None, None)


    # ----- rules ---------------------------------------------------------------------
    def initial_state(self, rng: np.random.Generator | None = None) -> TritocState:
        """The empty board, White to roll; a ``random`` layout is drawn from ``rng``.

        Without ``rng`` a random layout comes from a fresh unseeded generator.
        """
        layout = self._layout
        if layout is None:
            rng = rng if rng is not None else np.random.default_rng()
            perms = rng.permuted(np.tile(np.arange(3, 12), (9, 1)), axis=1)
            numbers = [0] * 81
            for cells, perm in zip(FIELD_CELLS, perms.tolist()):
                for h, n in zip(cells, perm):
                    numbers[h] = n
            layout = Layout(tuple(numbers))
        return TritocState(0, 0, 0, 0, WHITE, PENDING, 0, layout)

    def current_player(self, state: TritocState) -> int:
        if state.result != ONGOING:
            return TERMINAL
        return CHANCE if state.roll == PENDING else state.to_move

    def _targets(self, state: TritocState, roll: int) -> int:
        """81-bit mask of the holes where ``roll`` lets the player to move act."""
        return _targets_of(state.white, state.black, state.white_fields | state.black_fields,
                           state.to_move, roll, state.layout.masks)

    def playable(self, state: TritocState) -> int:
        """Bit mask over sums 2-12 (bit ``s``) of the rolls that allow the mover an action."""
        return _playable_of(state.white, state.black, state.white_fields | state.black_fields,
                            state.to_move, state.layout.masks)

    def _legal_bits(self, state: TritocState) -> int:
        """82-bit mask of the legal actions (bit ``a`` = action ``a``)."""
        roll = state.roll
        if roll >= 2:
            return self._targets(state, roll)
        return 1 << PASS if roll == MUST_PASS else 0

    def legal_actions(self, state: TritocState) -> tuple[int, ...]:
        last_state, legal = self._last_legal
        if last_state is not state:
            legal = _actions(self._legal_bits(state))
            self._last_legal = (state, legal)
        return legal

    def legal_mask(self, state: TritocState) -> np.ndarray:
        """Read-only ``int8`` vector, 1 for each legal action (memoized by bit mask)."""
        last_state, mask = self._last_mask
        if last_state is not state or mask is None:
            mask = _action_mask(self._legal_bits(state))
            self._last_mask = (state, mask)
        return mask

    def chance_outcomes(self, state: TritocState) -> list[tuple[int, float]]:
        """The roll the player gets, rerolls folded in: ``(sum or MUST_PASS, probability)``.

        With ``q`` the probability that one roll allows no action, a playable sum ``s``
        comes with ``p(s) * (1 + q + ... + q**max_rerolls)`` and :data:`MUST_PASS` with
        ``q**(max_rerolls + 1)`` -- exactly the physical process of rolling until a roll
        is playable or the rerolls are used up. Only outcomes of positive probability
        are listed, sums ascending, :data:`MUST_PASS` first.
        """
        if state.roll != PENDING:
            raise ValueError(f"tritoc: not a chance node ({self.to_notation(state)!r})")
        return list(self._roll_law(self.playable(state)))

    def _roll_law(self, key: int) -> list[tuple[int, float]]:
        """The outcomes for the playable sums ``key`` (memoized; callers do not modify it)."""
        outcomes = self._outcomes.get(key)
        if outcomes is None:
            outcomes = self._outcomes[key] = self._distribution(key)
        return outcomes

    def _distribution(self, key: int) -> list[tuple[int, float]]:
        """Outcomes for the playable sums ``key``.

        ``1 + q + ... + q**n`` is summed in closed form, ``(1 - q**(n+1)) / (1 - q)``:
        exactly in fractions up to :data:`EXACT_REROLLS` rerolls, in floating point beyond
        (where ``q**(n+1)`` may underflow to 0), so any ``max_rerolls`` costs the same.
        """
        weights = self._weights
        q = sum((weights[s] for s in SUMS if not key >> s & 1), Fraction(0))
        if q == 1:
            return [(MUST_PASS, 1.0)]
        n = self.max_rerolls
        power: Fraction | float = q ** (n + 1) if n <= EXACT_REROLLS else float(q) ** (n + 1)
        repeat = (1 - power) / (1 - q)
        outcomes = [(MUST_PASS, float(power))] if float(power) > 0 else []
        outcomes += [(s, float(weights[s] * repeat)) for s in SUMS if key >> s & 1]
        return outcomes

    def apply(self, state: TritocState, action: int) -> TritocState:
        if type(action) is not int:
            action = self.action_index(state, action)
        roll = state.roll
        if roll == PENDING:
            if not (2 <= action <= 12 and self._targets(state, action)
                    or action == MUST_PASS and self.playable(state) != ALL_PLAYABLE):
                raise self.illegal_action_error(state, action)
            return TritocState(state.white, state.black, state.white_fields,
                               state.black_fields, state.to_move, action, state.passes,
                               state.layout)
        if roll == MUST_PASS and action == PASS:
            passes = state.passes + 1
            if passes == DRAW_PASSES:
                return state._replace(to_move=1 - state.to_move, roll=NO_ROLL, passes=passes,
                                      result=DRAW, gained=0)
            return state._replace(to_move=1 - state.to_move, roll=PENDING, passes=passes,
                                  gained=0)
        if roll < 2 or not 0 <= action < 81 or not self._targets(state, roll) >> action & 1:
            raise self.illegal_action_error(state, action)
        white, black, white_fields, black_fields, gained, result = _move(
            state.white, state.black, state.white_fields, state.black_fields, state.to_move,
            roll, action)
        return TritocState(white, black, white_fields, black_fields, 1 - state.to_move,
                           PENDING if result == ONGOING else NO_ROLL, 0, state.layout, result,
                           gained)

    def random_playout(self, state: TritocState, uniform: Callable[[], float],
                       max_plies: int) -> tuple[float, float]:
        """:meth:`Game.random_playout` on the stone masks: no states, no tuples of legal
        actions, the memoized roll laws shared instead of copied."""
        if state.result != ONGOING:
            return self.returns(state)
        white, black, white_fields, black_fields, mover, roll, passes, layout = state[:8]
        masks, numbers = layout.masks, layout.numbers
        laws = self._outcomes
        # sums 3-11 with an empty hole, kept up to date move by move
        open_sums = _playable_of(white, black, 0, mover, masks) & PLACING_SUMS
        while True:
            if roll == PENDING:
                removable = ~CONQUERED_HOLES[white_fields | black_fields]
                own, other = (white, black) if mover == WHITE else (black, white)
                key = open_sums | bool(own & removable) << 2 | bool(other & removable) << 12
                law = laws.get(key) or self._roll_law(key)
                roll = sample_outcome(law, uniform())
            u = uniform()
            if max_plies == 0:
                return (0.0, 0.0)
            max_plies -= 1
            if roll == MUST_PASS:
                passes += 1
                if passes == DRAW_PASSES:
                    return (0.0, 0.0)
            else:
                targets = _targets_of(white, black, white_fields | black_fields, mover, roll,
                                      masks)
                hole = nth_action(targets, int(u * targets.bit_count()))
                fields = white_fields | black_fields
                white, black, white_fields, black_fields, _, result = _move(
                    white, black, white_fields, black_fields, mover, roll, hole)
                if result != ONGOING:
                    return (1.0, -1.0) if result == WHITE else (-1.0, 1.0)
                if fields != white_fields | black_fields:   # a conquest filled a field
                    open_sums = _playable_of(white, black, 0, mover, masks) & PLACING_SUMS
                elif roll == 12 or roll == 2:
                    open_sums |= 1 << numbers[hole]
                elif not masks[roll] & ~(white | black):
                    open_sums ^= 1 << roll
                passes = 0
            mover = 1 - mover
            roll = PENDING

    def explain_illegal(self, state: TritocState, action: int) -> str:
        roll, color = state.roll, COLOR_NAMES[state.to_move]
        if roll == MUST_PASS:
            return f"{color} must pass (no roll allowed an action); only action 81 is legal"
        if action == PASS:
            return f"passing is only allowed when no roll allows an action; the roll is {roll}"
        bit = 1 << action
        owner = ("White" if state.white & bit else "Black" if state.black & bit else None)
        where = f"hole {hole_name(action)}"
        if roll in (2, 12):
            wanted = color if roll == 2 else COLOR_NAMES[1 - state.to_move]
            if owner is None:
                return f"{where} is empty; a {roll} removes a {wanted} stone"
            if owner != wanted:
                return f"{where} holds a {owner} stone; a {roll} removes a {wanted} stone"
            return (f"{where} lies in field {HOLE_FIELD[action]}, which is conquered; stones "
                    "in conquered fields cannot be removed")
        number = state.layout.numbers[action]
        if owner is not None:
            return f"{where} is occupied by a {owner} stone"
        return f"{where} has number {number}, but the roll is {roll}"

    def returns(self, state: TritocState) -> tuple[float, float]:
        if state.result in (ONGOING, DRAW):
            return (0.0, 0.0)
        return (1.0, -1.0) if state.result == WHITE else (-1.0, 1.0)

    def rewards(self, state: TritocState) -> tuple[float, float]:
        """``win_loss``: the final result; ``points``: what the last move earned its mover."""
        if self.reward == "win_loss":
            return self.returns(state)
        if not state.gained:
            return (0.0, 0.0)
        # the move that produced ``state`` was made by the player not to move now
        return (0.0, float(state.gained)) if state.to_move == WHITE \
            else (float(state.gained), 0.0)

    def heuristic(self, state: TritocState, player: int) -> float:
        """Conquered fields, own minus the opponent's, over 10 (a win is 3 in a row)."""
        mine, theirs = ((state.white_fields, state.black_fields) if player == 0
                        else (state.black_fields, state.white_fields))
        return (mine.bit_count() - theirs.bit_count()) / 10

    def env_info(self, state: TritocState, player: int) -> dict[str, Any]:
        """``{"score": ...}``: the player's score (1 per conquered field, 5 for the win)."""
        return {"score": self.scores(state)[player]}

    def scores(self, state: TritocState) -> tuple[int, int]:
        """Points of White and Black: 1 per conquered field, 5 for winning."""
        return (state.white_fields.bit_count() + WIN_POINTS * (state.result == WHITE),
                state.black_fields.bit_count() + WIN_POINTS * (state.result == BLACK))

    # ----- views ---------------------------------------------------------------------
    def observation(self, state: TritocState, player: int) -> np.ndarray:
        if player == WHITE:
            mine, theirs = state.white, state.black
            my_fields, their_fields = state.white_fields, state.black_fields
        else:
            mine, theirs = state.black, state.white
            my_fields, their_fields = state.black_fields, state.white_fields
        obs = state.layout.base.copy()
        bits = _bits(mine, theirs)
        obs[:, 0] = bits[:81]
        obs[:, 1] = bits[88:169]
        if my_fields:
            obs[:, 11] = _FIELD_PLANES[my_fields]
        if their_fields:
            obs[:, 12] = _FIELD_PLANES[their_fields]
        if state.roll >= 2:
            obs[:, 11 + state.roll] = 1
        return obs.reshape(9, 9, 24)

    def action_to_string(self, state: TritocState, action: int) -> str:
        if action == PASS:
            return "pass"
        if not 0 <= action < 81:
            return f"out-of-range action {action}"
        roll = state.roll
        if roll == 12:
            return f"remove the {COLOR_NAMES[1 - state.to_move]} stone at {hole_name(action)}"
        if roll == 2:
            return f"remove the {COLOR_NAMES[state.to_move]} stone at {hole_name(action)}"
        return (f"place a {COLOR_NAMES[state.to_move]} stone at {hole_name(action)} "
                f"(number {state.layout.numbers[action]})")

    def action_name(self, state: TritocState, action: int) -> str:
        """The hole ``r,c`` (place or remove, as the roll says) or ``pass``."""
        return "pass" if action == PASS else f"{action // 9},{action % 9}"

    def to_notation(self, state: TritocState) -> str:
        from tris_envs.games.tritoc_notation import to_notation

        return to_notation(state)

    def from_notation(self, text: str) -> TritocState:
        """Parse ``<rows> <w|b> <roll> <passes> [<layout>]``.

        ``<roll>``: ``2``-``12``, ``p`` (must pass), ``?`` (dice not rolled yet: a chance
        node) or ``-`` (the game is over). Without ``<layout>`` the layout is ``ordered``.

        Besides the syntax, the checks are exact but local: no field with lines of both
        colors, a field with a line is full of its color, at most one winner and not the
        player to move, a ``-`` roll exactly when the game is over, a roll ``2``-``12`` that
        allows an action and ``p`` only when some roll allows none. Passes > 0 need a board
        where some roll allows no action: the passes left the board unchanged, and a roll
        is unplayable for one player exactly when one is for the other (2 and 12 swap).
        Not checked: whether the stones can be reached by play at all (stone counts, the
        order of conquests, stones removed by 2 and 12).

        Raises:
            ValueError: saying what is malformed or impossible.
        """
        from tris_envs.games.tritoc_notation import from_notation

        return from_notation(self, text)

    def render_text(self, state: TritocState) -> str:
        from tris_envs.games.tritoc_drawing import render_text

        return render_text(state, self.scores(state))

    def picture_size(self, state: TritocState) -> tuple[int, int]:
        return (460, 510)

    def draw(self, state: TritocState, canvas: Canvas) -> None:
        from tris_envs.games.tritoc_drawing import draw

        draw(state, canvas, self._targets(state, state.roll) if state.roll >= 2 else 0)
