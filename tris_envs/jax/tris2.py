"""Tris 2 as pure JAX functions, every option of the rules core; see :mod:`tris_envs.jax`.

The nine dice are kept as lists (frame row, column and orientation code per die) beside
the board code of each frame cell: who touches whom is a 9-bit mask per die, connectivity a
closure on nine nodes, a line a test of the 5x5 window around the rolled die, and
re-anchoring the frame after a roll shifts it by at most one row and column. The action
mask and the board come from one scatter of per-die bytes onto the cells, the observation
from a table of the cells' values.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from tris_envs.games.tris2 import (
    LAST_PLANE,
    NUM_ACTIONS,
    NUM_DICE,
    ONGOING,
    PLACEMENT_BASE,
    PLANES,
    SETUP_TOPS,
)
from tris_envs.games.tris2 import Tris2 as CoreTris2
from tris_envs.games.tris2 import Tris2State as CoreState
from tris_envs.games.tris2.moves import (
    BLOCK_F,
    BLOCK_LINES,
    CELL_P,
    COL_STEP,
    DIRECTIONS,
    FRAME,
    ORIENTATIONS,
    ROLL,
    ROW_STEP,
)
from tris_envs.jax.base import Array, PRNGKey, TrisEnv, dataclass, random_words, seat_rewards

_DICE = jnp.arange(NUM_DICE)
_BIT = jnp.int32(1) << _DICE
_ALL = (1 << NUM_DICE) - 1
_SLOTS = jnp.arange(3) * NUM_DICE
_SPREAD = sum(1 << slot for slot in range(0, 3 * NUM_DICE, NUM_DICE))
"""Bit 0 of each 9-bit slot of a word; times ``_ALL``, a bit of each slot fills its slot."""
_SELF = jnp.eye(NUM_DICE, dtype=jnp.bool_)
_DR = jnp.array(ROW_STEP, dtype=jnp.int8)
_DC = jnp.array(COL_STEP, dtype=jnp.int8)
_ROLLED = jnp.array([sum(1 + rolled[d] << 3 * (1 + k) for k, rolled in enumerate(ROLL))
                     for d in range(4)])
"""Per direction, the board code (``1 + k``) after the roll of each code, three bits each."""
_LAST = 8
"""Added to the board code of the die moved last."""


def _cell_planes() -> np.ndarray:
    """Observation channels of each cell value (board code, plus :data:`_LAST` for the die
    moved last)."""
    planes = np.zeros((2 * _LAST, PLANES.shape[1]), np.int8)
    planes[:len(PLANES)] = planes[_LAST:_LAST + len(PLANES)] = PLANES
    planes[_LAST:, LAST_PLANE] = 1
    return planes


_CELL_PLANES = jnp.asarray(_cell_planes())
"""``int8[16, 11]``: :func:`_cell_planes`."""
_CELLS = -(-NUM_ACTIONS // 4)
"""Frame cells and the empty cells whose roll actions stand for the placements (81..94)."""
_BLOCK_ROWS = jnp.array([f // FRAME for f in BLOCK_F], dtype=jnp.int8)
_BLOCK_COLS = jnp.array([f % FRAME for f in BLOCK_F], dtype=jnp.int8)
_BLOCK_LINES = jnp.array([[[others >> CELL_P[f] & 1 for f in BLOCK_F] for others in lines]
                          + [[0] * NUM_DICE] * (4 - len(lines)) for _, lines in BLOCK_LINES],
                         dtype=jnp.bool_)
"""``[cell, line, other]``: the other two cells of each line of the block through a cell
(padded to four lines with empty ones)."""
_AXES = ((0, 1), (1, 0), (1, 1), (1, -1))
_LINES = jnp.array([sum(1 << (2 + m * dr) * 5 + 2 + m * dc for m in pair)
                    for dr, dc in _AXES for pair in ((-2, -1), (-1, 1), (1, 2))])
"""The pairs of cells that complete a line through the middle of a 5x5 window (bit
``(r+2)*5 + c+2`` for offset ``r, c``)."""
_SETUP_TOPS = jnp.asarray((SETUP_TOPS.astype(np.int32) << 2 * np.arange(NUM_DICE)).sum(-1))
"""The allowed top patterns of a random block, two bits per cell."""


@dataclass
class State:
    """Pgx's fields; per die its frame row and column and its board code (0 not placed yet,
    ``1 + k`` orientation ``k``; during the placement setup die ``i`` is block cell ``i``);
    the die moved last and its direction (``-1`` before the first roll); per frame cell its
    board code, plus :data:`_LAST` for the die moved last (``uint8``: the observation's
    table lookup then needs no check for negative indices)."""

    current_player: Array = jnp.int32(0)                                # []
    observation: Array = jnp.zeros((FRAME, FRAME, 11), dtype=jnp.int8)  # [9, 9, 11]
    rewards: Array = jnp.zeros(2, dtype=jnp.float32)                    # [2]
    terminated: Array = jnp.bool_(False)                                # []
    truncated: Array = jnp.bool_(False)                                 # []
    legal_action_mask: Array = jnp.zeros(NUM_ACTIONS, dtype=jnp.bool_)  # [378]
    _step_count: Array = jnp.int32(0)                                   # []
    _rows: Array = _BLOCK_ROWS                                          # [9] per die
    _cols: Array = _BLOCK_COLS                                          # [9]
    _codes: Array = jnp.zeros(NUM_DICE, dtype=jnp.int8)                 # [9]
    _last_die: Array = jnp.int8(-1)                                     # []
    _last_dir: Array = jnp.int8(0)                                      # []
    _board: Array = jnp.zeros(FRAME * FRAME, dtype=jnp.uint8)           # [81] per cell

    @property
    def env_id(self) -> str:
        return "tris2"


def _tops(codes: Array) -> Array:
    """Top symbol index (0 X, 1 O, 2 /) of each code; -1 for no die."""
    return jnp.where(codes > 0, (codes - 1) >> 1, -1)


def _bits(cells: Array) -> Array:
    """Boolean ``[..., die]`` as 9-bit masks (bit ``j`` for die ``j``)."""
    return jnp.sum(jnp.where(cells, _BIT, 0), -1)


def _packed(masks: Array) -> Array:
    """``[die, ...]`` 9-bit masks as ``[word, ...]``: dice ``3w .. 3w+2`` in the three 9-bit
    slots of word ``w``."""
    slots = _SLOTS.reshape((1, 3) + (1,) * (masks.ndim - 1))
    return jnp.sum(masks.reshape((3, 3) + masks.shape[1:]) << slots, 1)


def _union(chosen: Array, masks: Array) -> Array:
    """Slot by slot, the union of ``masks[..., a]`` over the dice ``a`` set in ``chosen``
    (both packed)."""
    spread = ((chosen[..., None] >> _DICE) & _SPREAD) * _ALL    # a bit of a slot fills it
    return jnp.bitwise_or.reduce(spread & masks, axis=-1)


def _connected_rolls(rows: Array, cols: Array) -> Array:
    """``[die, direction]``: the roll goes to an empty cell and keeps all dice in contact.

    Without die ``i`` the others fall into groups: the closure of the contact masks, three
    such graphs per ``int32``, squared twice (paths of up to 4 contacts), then applied twice
    to the dice touching the target (up to 8). The roll is legal iff that reaches every
    die."""
    offsets = jnp.arange(-2, 3, dtype=jnp.int8)[:, None, None]
    dy = _bits(rows - rows[:, None] == offsets)     # [k, i]: the dice k - 2 rows south of i
    dx = _bits(cols - cols[:, None] == offsets)     # [k, i]: the dice k - 2 columns east of i
    north, level, south = dy[0] | dy[1] | dy[2], dy[1] | dy[2] | dy[3], dy[2] | dy[3] | dy[4]
    west, column, east = dx[0] | dx[1] | dx[2], dx[1] | dx[2] | dx[3], dx[2] | dx[3] | dx[4]
    touch = jnp.stack([north & column, level & east, south & column, level & west], -1)
    occupied = jnp.stack([dy[1] & dx[2], dy[2] & dx[3], dy[3] & dx[2], dy[2] & dx[1]], -1) != 0
    reach = _packed(jnp.where(_SELF, _BIT, level & column & ~_BIT[:, None]))   # [word, die]
    for _ in range(2):
        reach = _union(reach, reach[:, None, :])
    covered = _packed(touch | _BIT[:, None])                             # [word, d]
    for _ in range(2):
        covered = _union(covered, reach[:, None, :])
    linked = ((covered[:, None, :] >> _SLOTS[:, None]) & _ALL) == _ALL
    return ~occupied & linked.reshape(NUM_DICE, 4)


def _lines_made(rows: Array, cols: Array, codes: Array) -> Array:
    """``[die, direction]``: the roll makes a line, legal or not (the rolled die's new cell
    and top symbol, the other dice of that symbol as bits of the 5x5 window around the new
    cell, and a line when both other cells of one of :data:`_LINES` are set, as
    :meth:`Tris2._roll` tests one roll)."""
    rows, cols, codes = (x.astype(jnp.int32) for x in (rows, cols, codes))
    row, col = rows[:, None] + _DR, cols[:, None] + _DC                       # [die, d]
    top = ((_ROLLED[None, :] >> 3 * codes[:, None] & 7) - 1) >> 1
    tops = (codes - 1) >> 1                                                    # -1: no die
    dr = rows[None, None, :] - row[..., None]                             # [die, d, other]
    dc = cols[None, None, :] - col[..., None]
    same = (tops[None, None, :] == top[..., None]) & ~_SELF[:, None, :] \
        & (codes[:, None] > 0)[..., None]
    near = jnp.bitwise_or.reduce(jnp.where(
        same & (abs(dr) <= 2) & (abs(dc) <= 2), 1 << (dr + 2) * 5 + dc + 2, 0), axis=-1)
    return ((near[..., None] & _LINES) == _LINES).any(-1)


class Tris2(TrisEnv):
    """Tris 2 with the rules core's options (``setup``, ``max_side``, ``fair``,
    ``max_moves``): static, checked by the core."""

    def __init__(self, **options: Any) -> None:
        core = CoreTris2(**options)
        super().__init__(core)
        self._core = core
        self._placement = core.setup == "placement"
        grid = np.zeros(FRAME * FRAME, np.int8)
        grid[list(BLOCK_F)] = 1
        block = core.make_state(bytes(grid), (sum(1 << CELL_P[f] for f in BLOCK_F), 0, 0),
                                3, 3, 0, -1)                # the rolls depend on geometry alone
        self._block_mask = jnp.asarray(core.legal_mask(block), dtype=jnp.bool_)
        if core.fair:
            self._opening_rolls = self._openings()

    # ----- rules ---------------------------------------------------------------------
    def _rolls(self, rows: Array, cols: Array) -> Array:
        """``[die, direction]``: legal rolls before the undo rule (contact, ``max_side``)."""
        legal = _connected_rolls(rows, cols)
        limit = self._core.side_limit
        if limit < FRAME:
            top, bottom, left, right = rows.min(), rows.max(), cols.min(), cols.max()
            target_r, target_c = rows[:, None] + _DR, cols[:, None] + _DC
            legal &= ~((bottom - top + 1 >= limit) & ((target_r < top) | (target_r > bottom)))
            legal &= ~((right - left + 1 >= limit) & ((target_c < left) | (target_c > right)))
        return legal

    def _legal_rolls(self, rows: Array, cols: Array, last_die: Array, last_dir: Array) -> Array:
        """``[die, direction]``: the legal rolls (:meth:`_rolls` and the undo rule)."""
        undo = (_DICE == last_die)[:, None] & (jnp.arange(4) == (last_dir ^ 2))
        return self._rolls(rows, cols) & ~undo

    def _cells(self, rows: Array, cols: Array, codes: Array, last_die: Array, last_dir: Array
               ) -> tuple[Array, Array]:
        """Per frame cell, its board code (plus :data:`_LAST` for the die moved last), and
        the action mask of the legal rolls (the frame anchored at row 0, column 0)."""
        legal = self._legal_rolls(rows, cols, last_die, last_dir)
        directions = jnp.sum(jnp.where(legal, 16 << jnp.arange(4), 0), -1)  # bits 4..7
        value = (codes + jnp.where(_DICE == last_die, _LAST, 0) + directions).astype(jnp.uint8)
        # a scatter of one byte per die (a comparison of every cell with every die costs
        # more); the cells 81.. stay empty, so the placements' actions come out false
        cells = jnp.zeros(_CELLS, jnp.uint8).at[rows * FRAME + cols].set(
            value, unique_indices=True, mode="promise_in_bounds")
        mask = (cells[:, None].astype(jnp.int32) >> 4 + jnp.arange(4)) & 1 == 1
        board = cells[:FRAME * FRAME] & 2 * _LAST - 1
        return board, mask.reshape(-1)[:NUM_ACTIONS]

    @staticmethod
    def _placement_mask(codes: Array) -> Array:
        """The action mask of the legal placements: an empty block cell, a top symbol that
        makes no line."""
        tops = _tops(codes)
        lines = (_BLOCK_LINES[None] & (tops == jnp.arange(3)[:, None])[:, None, None]).sum(-1)
        legal = (codes == 0)[None] & ~(lines == 2).any(-1)                 # [top, cell]
        legal = jnp.repeat(legal.T, 2, axis=1).reshape(-1)
        return jnp.concatenate([jnp.zeros(PLACEMENT_BASE, dtype=jnp.bool_), legal])

    @staticmethod
    def _roll(rows: Array, cols: Array, codes: Array, die: Array, d: Array
              ) -> tuple[Array, Array, Array, Array, Array, Array]:
        """The dice after die ``die`` (one-hot) rolls in direction ``d``, re-anchored at row
        0, column 0; the die's index and the direction (``int8``), and whether the roll
        makes a line."""
        wide = rows.astype(jnp.int32), cols.astype(jnp.int32), codes.astype(jnp.int32)
        # one pass over the dice: the rolling die, and whether another die stays in the
        # frame's top row and left column. What follows reads the action only from this
        # word: XLA would otherwise redo its choice in every later comparison of two dice.
        found = jnp.bitwise_or.reduce(jnp.where(
            die, _DICE << 12 | wide[2] << 8 | wide[0] << 4 | wide[1],
            (wide[0] == 0) << 16 | (wide[1] == 0) << 17) | d << 18)
        index, d = found >> 12 & 15, found >> 18
        dr, dc = (d - 1) * (1 - (d & 1)), (2 - d) * (d & 1)          # ROW_STEP[d], COL_STEP[d]
        row, col = (found >> 4 & 15) + dr, (found & 15) + dc
        code = _ROLLED[d] >> 3 * (found >> 8 & 15) & 7
        dr, dc = wide[0] - row, wide[1] - col
        same = ((wide[2] - 1) >> 1 == (code - 1) >> 1) & (_DICE != index)
        near = jnp.bitwise_or.reduce(jnp.where(same & (abs(dr) <= 2) & (abs(dc) <= 2),
                                               1 << (dr + 2) * 5 + dc + 2, 0))
        won = ((near & _LINES) == _LINES).any()
        # the new top row and left column: -1, 0 or 1 (the die left a line it stood alone in)
        top = jnp.where(row < 0, -1, (row > 0) & (found >> 16 & 1 == 0)).astype(jnp.int8)
        left = jnp.where(col < 0, -1, (col > 0) & (found >> 17 & 1 == 0)).astype(jnp.int8)
        # scatters, not selects: XLA keeps their results instead of redoing the roll
        rows = (rows - top).at[index].set(row.astype(jnp.int8) - top)
        cols = (cols - left).at[index].set(col.astype(jnp.int8) - left)
        codes = codes.at[index].set(code.astype(jnp.int8))
        return rows, cols, codes, index.astype(jnp.int8), d.astype(jnp.int8), won

    @staticmethod
    def _children(rows: Array, cols: Array, codes: Array) -> tuple[Array, ...]:
        """:meth:`_roll` of each die in each direction (legal or not): its results with a
        leading axis of 36, die-major (the order of the dice's actions)."""
        dice, directions = jnp.repeat(_DICE, 4), jnp.tile(jnp.arange(4), NUM_DICE)
        return jax.vmap(lambda die, d: Tris2._roll(rows, cols, codes, _DICE == die, d))(
            dice, directions)

    def _openings(self) -> tuple[np.ndarray, np.ndarray]:
        """The legal first rolls from the block (``die*4 + direction``) and every legal
        answer to each, as rows ``[first die, direction, second die, direction]`` (the
        start's geometry is fixed)."""

        def answers(die: Array, d: Array) -> Array:
            one = _DICE == die
            rows, cols, *_ = self._roll(_BLOCK_ROWS, _BLOCK_COLS, jnp.ones(NUM_DICE, jnp.int8),
                                        one, d)
            return self._rolls(rows, cols) & ~(one[:, None] & (jnp.arange(4) == d ^ 2))

        first = np.asarray(self._block_mask[:PLACEMENT_BASE]).reshape(-1, 4)[BLOCK_F, :]
        dice, directions = np.nonzero(first)
        replies = np.asarray(jax.jit(jax.vmap(answers))(dice, directions))
        pairs = [(i, d, j, e) for i, d, reply in zip(dice, directions, replies)
                 for j, e in zip(*np.nonzero(reply))]
        return dice * 4 + directions, np.array(pairs, dtype=np.int32).reshape(-1, 4)

    def _fair(self, codes: Array) -> Array:
        """Whether the random block ``codes`` gives the first player a roll after which the
        second cannot win at once (``fair=True`` redraws the others)."""
        first, pairs = self._opening_rolls
        if not first.size:                                  # max_side=3: no roll at all
            return jnp.bool_(True)

        def opening(i: Array, d: Array, j: Array, e: Array) -> tuple[Array, Array]:
            rows, cols, after, *_, won = self._roll(_BLOCK_ROWS, _BLOCK_COLS, codes, _DICE == i, d)
            return won, self._roll(rows, cols, after, _DICE == j, e)[-1]

        won, answered = jax.vmap(opening)(*pairs.T)
        of_roll = jnp.asarray(pairs[:, 0] * 4 + pairs[:, 1] == first[:, None])  # [first, pair]
        return ~(of_roll & answered & ~won).any(-1).all()

    def _draw_setup(self, key: PRNGKey) -> Array:
        """Board codes of a random block by the seeds' rule (no line, no first-move win)."""
        # two random words (randint draws twice as much); the modulo's bias is < 3e-7
        pattern, hidden = random_words(key)
        tops = (_SETUP_TOPS[pattern % len(SETUP_TOPS)] >> 2 * _DICE) & 3
        hidden = hidden.astype(jnp.int32)
        return (1 + 2 * tops + ((hidden >> _DICE) & 1)).astype(jnp.int8)

    def _init(self, key: PRNGKey) -> State:
        if self._placement:
            return State(legal_action_mask=self._placement_mask(jnp.zeros(NUM_DICE, jnp.int8)))
        if self._core.fair:
            def redraw(carry: tuple[PRNGKey, Array | None]) -> tuple[PRNGKey, Array]:
                key, draw = jax.random.split(carry[0])
                return key, self._draw_setup(draw)

            codes = jax.lax.while_loop(lambda carry: ~self._fair(carry[1]), redraw,
                                       redraw((key, None)))[1]
        else:
            codes = self._draw_setup(key)
        stuck = ~self._block_mask.any()           # max_side=3: no roll leaves the block
        board = jnp.pad(codes.astype(jnp.uint8).reshape(3, 3), ((0, FRAME - 3), (0, FRAME - 3)))
        return State(_codes=codes, _board=board.reshape(-1),
                     legal_action_mask=self._block_mask | stuck, terminated=stuck)

    def _play(self, state: State, action: Array, key: PRNGKey | None) -> State:
        player, action = state.current_player, jnp.asarray(action, dtype=jnp.int32)
        rows, cols, codes, last_die, last_dir, won = self._rolled(state, action)
        if self._placement:
            placed = action - PLACEMENT_BASE
            placing = placed >= 0
            # a placement rolls no die: what the roll made of die 0 is dropped
            filled = jnp.where(_DICE == placed // 6, (1 + placed % 6).astype(jnp.int8),
                               state._codes)
            codes = jnp.where(placing, filled, codes)
            rows = jnp.where(placing, _BLOCK_ROWS, rows)
            cols = jnp.where(placing, _BLOCK_COLS, cols)
            won &= ~placing
            last_die = jnp.where(placing, jnp.int8(-1), last_die)
            last_dir = jnp.where(placing, jnp.int8(0), last_dir)
        board, mask = self._cells(rows, cols, codes, last_die, last_dir)
        if self._placement:
            mask = jnp.where(placing & (codes == 0).any(), self._placement_mask(codes), mask)
        return state.replace(current_player=1 - player, _rows=rows, _cols=cols, _codes=codes,
                             _last_die=last_die, _last_dir=last_dir, _board=board,
                             legal_action_mask=mask,
                             terminated=won | ~mask.any(),
                             rewards=seat_rewards(jnp.where(won, player, -1)))

    def winning_moves(self, state: State) -> Array:
        """``bool[NUM_ACTIONS]``: the legal actions after which the player to move wins at
        once (none in a finished game or during the placement phase: a placement never
        makes a line)."""
        return self._as_actions(state, _lines_made(state._rows, state._cols, state._codes))

    def handovers(self, state: State) -> Array:
        """``bool[NUM_ACTIONS]``: the legal rolls after which the game goes on and the
        opponent can win at once (:meth:`winning_moves` of the position each leaves; the
        rules core's :meth:`~tris_envs.games.tris2.tactics.Tris2Tactics.tactical_moves`).
        A placement is none (the setup phase has no lines to hand over, and the roll that
        follows the last one is not looked at); none in a finished game."""
        return self.tactic_flags(state)[1]

    def trap_moves(self, state: State) -> Array:
        """``bool[NUM_ACTIONS]``: the legal rolls after which the game goes on and every
        legal move of the opponent (at least one) hands a win in one back (its
        :meth:`handovers` are its legal moves), a zugzwang (the rules core's
        :meth:`~tris_envs.games.tris2.tactics.Tris2Tactics.trap_moves`). A placement is
        none; none in a finished game."""
        return self.tactic_flags(state, traps=True)[2]

    def tactic_flags(self, state: State, traps: bool = False) -> Array:
        """:meth:`winning_moves`, :meth:`handovers` and, with ``traps`` (static),
        :meth:`trap_moves` as the rows of one ``bool[2 or 3, NUM_ACTIONS]`` (the rules
        core's :meth:`~tris_envs.games.tris2.tactics.Tris2Tactics.tactic_flags`).

        Each die's four rolls are played out on the dice lists (36 children), and with
        ``traps`` each child's 36 (1,296 grandchildren), with per die and direction only
        its legality and whether it makes a line: no boards, masks or observations."""
        children = self._children(state._rows, state._cols, state._codes)    # [36, ...]
        replies, handed = self._replies(children)
        groups = [children[-1], handed]
        if traps:
            groups.append(self._traps(children, replies))
        return jax.vmap(lambda flags: self._as_actions(state, flags))(jnp.stack(groups))

    def trap_handovers(self, state: State) -> Array:
        """``bool[NUM_ACTIONS]``: the legal rolls after which the game goes on and the
        opponent has a trap (:meth:`trap_moves` of the position each leaves), a zugzwang
        handed over; :meth:`hands_over_traps` of every roll. A placement is none; none in a
        finished game."""
        return self._as_actions(state, self.hands_over_traps(state, self._roll_actions(state)))

    def hands_over_traps(self, state: State, actions: Array) -> Array:
        """``bool[k]`` for ``int[k]`` ``actions``: whether each is a legal roll after which
        the game goes on and the opponent has a trap (false for any other action).

        Each roll's 1,296 grandchildren are played out as :meth:`tactic_flags` plays a
        position's (46,656 positions per roll), one roll after another (``lax.map``) to
        bound the memory."""
        def allows(action: Array) -> Array:
            rows, cols, codes, die, d, won = self._rolled(state, action)
            grandchildren = self._children(rows, cols, codes)
            traps = self._traps(grandchildren, self._replies(grandchildren)[0])
            legal = self._legal_rolls(rows, cols, die, d).reshape(-1)
            return ~won & (traps & legal).any()

        known = (actions >= 0) & (actions < NUM_ACTIONS)
        legal = state.legal_action_mask[jnp.clip(actions, 0, NUM_ACTIONS - 1)] & known
        live = ~(state.terminated | state.truncated) & (actions < PLACEMENT_BASE)
        return legal & live & jax.lax.map(allows, actions)

    def _traps(self, children: tuple[Array, ...], replies: Array) -> Array:
        """For the positions :meth:`_children` leaves and their movers' legal replies
        (:meth:`_replies`): whether the roll made no line and every legal reply (at least
        one) hands a win in one back."""
        def trapped(rows: Array, cols: Array, codes: Array, replies: Array) -> Array:
            handed = self._replies(self._children(rows, cols, codes))[1]
            replies = replies.reshape(-1)
            return replies.any() & (handed | ~replies).all()

        return ~children[-1] & jax.vmap(trapped)(*children[:3], replies)

    def _replies(self, children: tuple[Array, ...]) -> tuple[Array, Array]:
        """For the positions :meth:`_children` leaves: each one's legal replies ``[36, die,
        direction]``, and whether the game goes on there with a win in one for its mover."""
        rows, cols, codes, die, d, won = children
        legal = jax.vmap(self._legal_rolls)(rows, cols, die, d)
        return legal, ~won & (jax.vmap(_lines_made)(rows, cols, codes) & legal).any((1, 2))

    @staticmethod
    def _roll_actions(state: State) -> Array:
        """``int32[36]``: the action of each die's roll in each direction, die-major."""
        return ((state._rows.astype(jnp.int32) * FRAME + state._cols)[:, None] * 4
                + jnp.arange(4)).reshape(-1)

    def _rolled(self, state: State,
                action: Array) -> tuple[Array, Array, Array, Array, Array, Array]:
        """:meth:`_roll` of the roll ``action`` (the die on its cell, its direction)."""
        die = state._rows * FRAME + state._cols == action >> 2
        return self._roll(state._rows, state._cols, state._codes, die, action & 3)

    def _as_actions(self, state: State, flags: Array) -> Array:
        """``bool[NUM_ACTIONS]`` of per-die-and-direction ``flags`` (``[die, direction]`` or
        die-major ``[36]``), kept where legal in an unfinished game."""
        flags = jnp.zeros(NUM_ACTIONS, jnp.bool_).at[self._roll_actions(state)].set(
            flags.reshape(-1), mode="drop")
        return flags & state.legal_action_mask & ~(state.terminated | state.truncated)

    def blunders(self, state: State) -> Array:
        """``bool[NUM_ACTIONS]``: the legal moves after which the opponent can win at once
        (:meth:`handovers`; the rules core's :func:`~tris_envs.core.game.allows_win`). A
        move that ends the game (a win, or the ``max_moves``-th ply) is none; so is a
        placement; none in a finished game."""
        return self.handovers(state) & (state._step_count + 1 < self._max_moves)

    # ----- views and bridges -----------------------------------------------------------
    def _observe(self, state: State, player_id: Array) -> Array:
        return _CELL_PLANES[state._board].reshape(FRAME, FRAME, -1)

    def _from_core(self, state: CoreState) -> State:
        board = np.frombuffer(state.board, dtype=np.uint8)
        cells = np.array(BLOCK_F) if state.placing else np.flatnonzero(board)
        last_die, last_dir = -1, 0
        if state.last >= 0:
            last_die, last_dir = int(np.flatnonzero(cells == state.last >> 2)[0]), state.last & 3
        codes = board[cells]
        values = np.zeros(FRAME * FRAME, np.uint8)
        values[cells] = codes
        if last_die >= 0:
            values[cells[last_die]] += _LAST
        over = state.result != ONGOING
        return State(current_player=jnp.int32(state.to_move),
                     _rows=jnp.asarray(cells // FRAME, dtype=jnp.int8),
                     _cols=jnp.asarray(cells % FRAME, dtype=jnp.int8),
                     _codes=jnp.asarray(codes, dtype=jnp.int8), _last_die=jnp.int8(last_die),
                     _last_dir=jnp.int8(last_dir), _board=jnp.asarray(values),
                     terminated=jnp.bool_(over),
                     legal_action_mask=jnp.asarray(self._core.legal_mask(state) | over,
                                                   dtype=jnp.bool_))

    def to_core(self, state: State) -> CoreState:
        rows, cols = np.asarray(state._rows), np.asarray(state._cols)
        codes, last_die = np.asarray(state._codes), int(state._last_die)
        size = 3 if (codes == 0).any() else None
        height, width = size or int(rows.max()) + 1, size or int(cols.max()) + 1
        grid = [["..."] * width for _ in range(height)]
        for r, c, code in zip(rows, cols, codes):
            if code:
                grid[r][c] = ORIENTATIONS[code - 1]
        last = "-" if last_die < 0 else (
            f"{rows[last_die]},{cols[last_die]},{DIRECTIONS[int(state._last_dir)]}")
        board = "|".join("".join(row) for row in grid)
        return self._core.from_notation(f"{board} {int(state.current_player)} {last}")
