"""Tris 2 rules core (docs/games/tris2.md): nine dice rolled across an open grid.

Each die has three pairs of equal opposite faces (``X``, ``O``, ``/``); its orientation is
the symbol on top, the one on the north-south axis and the one on the east-west axis::

    k   top  N-S  E-W         roll N or S: swap top and N-S   (t, n, e) -> (n, t, e)
    0    X    O    /          roll E or W: swap top and E-W   (t, n, e) -> (e, n, t)
    1    X    /    O
    2    O    X    /          e.g. X / O rolled east shows O on top: O / X
    3    O    /    X
    4    /    X    O
    5    /    O    X

The dice move on an unbounded grid seen through a frame, their bounding box: geometry and move
generation live in :mod:`~tris_envs.games.tris2.moves`, the position in
:mod:`~tris_envs.games.tris2.state`, position strings in :mod:`~tris_envs.games.tris2.notation`,
text and pictures in :mod:`~tris_envs.games.tris2.drawing`; the :class:`Tris2` methods delegate.
The tactics a network reads are in :mod:`~tris_envs.games.tris2.tactics`, over these rules.

Actions: roll ``f*4 + d`` (0..323) for frame cell ``f = r*9 + c`` and direction ``d`` (N E S W
= 0 1 2 3); placement ``324 + cell*6 + k`` (324..377) with
``cell = r*3 + c`` in the block and ``k`` the orientation above.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tris_envs.core.drawing import Box, Canvas
from tris_envs.core.errors import brief
from tris_envs.core.game import TERMINAL, Game, GameInfo, allows_win
from tris_envs.core.legal import nth_action
from tris_envs.core.options import Choice, Flag, Integer, check_bool, check_choice, check_int
from tris_envs.games.tris2.drawing import draw, places, render_text
from tris_envs.games.tris2.moves import (
    BLOCK_F,
    BLOCK_LINES,
    CELL_P,
    COL,
    DIRECTIONS,
    FRAME,
    FRAME_CELL,
    GEOMETRIC,
    ORIENTATIONS,
    PAD,
    ROLL,
    ROW,
    STEP,
    E,
    N,
    S,
    W,
    can_win,
    connected,
    geometric_rolls,
    has_line,
    reframe,
)
from tris_envs.games.tris2.notation import from_notation, last_move_name, to_notation
from tris_envs.games.tris2.state import (
    DRAW,
    LAST_PLANE,
    NUM_ACTIONS,
    NUM_DICE,
    OBSERVATION_SHAPE,
    ONGOING,
    PLACEMENT_BASE,
    PLANES,
    SETUP_TOPS,
    Tris2State,
)
from tris_envs.games.tris2.text import rules_prompt

PROOF_PLACEMENTS = 6
"""Placements left up to which :meth:`Tris2.proven_winner` searches them all."""
SETUPS = Choice(("random", "placement"))


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

    SETUP_OPTIONS = frozenset({"setup", "fair"})
    OPTION_TYPES = {"setup": SETUPS,
                    "max_side": Integer(3, none="no limit"), "fair": Flag(),
                    "max_moves": Integer(1)}

    def __init__(self, setup: str = "random", max_side: int | None = None, fair: bool = False,
                 max_moves: int = 200) -> None:
        self.setup = check_choice("setup", setup, SETUPS.values)
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
        self.side_limit = FRAME if self.max_side is None else min(self.max_side, FRAME)
        """Largest allowed height and width of the dice's bounding box (9 without a limit)."""
        super().__init__(GameInfo("tris2", NUM_ACTIONS, OBSERVATION_SHAPE,
                                  check_int("max_moves", max_moves), True))
        self._blocked: dict[tuple[int, int], int] = {}


    # ----- move generation -----------------------------------------------------------
    def _blocked_rolls(self, height: int, width: int) -> int:
        """Rolls out of a frame side that already has ``max_side`` cells (memoized mask)."""
        blocked = 0
        for i in range(FRAME):
            if height >= self.side_limit:
                blocked |= 1 << (i << 2 | N) | 1 << (((height - 1) * FRAME + i) << 2 | S)
            if width >= self.side_limit:
                blocked |= 1 << ((i * FRAME) << 2 | W) | 1 << ((i * FRAME + width - 1) << 2 | E)
        self._blocked[height, width] = blocked
        return blocked

    def legal_rolls(self, occ: int, height: int, width: int, last: int) -> int:
        """Legal rolls as an action bit mask, on a position's occupancy ``occ`` (padded
        grid), frame size and ``last`` roll: the geometric ones, within ``max_side`` and
        not undoing the last move."""
        legal = GEOMETRIC.get(occ)
        if legal is None:
            legal = geometric_rolls(occ, height)
        if height >= self.side_limit or width >= self.side_limit:
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
        return self.legal_sets.from_bits(state.legal)[0]

    def legal_mask(self, state: Tris2State) -> np.ndarray:
        """Read-only ``int8`` vector of length 378, 1 for each legal action, shared by the
        states with the same action bit mask (``state.legal``)."""
        return self.legal_sets.from_bits(state.legal)[1]

    def legal_masks(self, states: Sequence[Tris2State]) -> np.ndarray:
        """:meth:`Game.legal_masks` in one pass over the action bit masks, without the memo
        (positions rarely repeat)."""
        return self.legal_sets.masks_from_bits([state.legal for state in states])

    def placement_safe(self, state: Tris2State, memo: dict[Tris2State, bool]) -> bool:
        """Whether ``player_0`` can finish the placements from ``state`` so that
        ``player_1``'s first roll wins nothing, whatever ``player_1`` places (an exact
        search; ``memo`` caches positions). A finished game is safe (a player with no legal
        placement ends it in a draw); after the ninth placement it is safe when
        ``player_1`` has no roll that wins at once. In the rolling phase: that test alone.
        """
        safe = memo.get(state)
        if safe is not None:
            return safe
        if state.result != ONGOING:
            safe = True
        elif not state.placing:
            safe = not can_win((state.top_x, state.top_o, state.top_bar), state.odd,
                               state.legal)
        elif state.to_move == 0:
            safe = any(self.placement_safe(self.apply(state, a), memo)
                       for a in self.legal_actions(state))
        else:
            safe = all(self.placement_safe(self.apply(state, a), memo)
                       for a in self.legal_actions(state))
        memo[state] = safe
        return safe

    def proven_winner(self, state: Tris2State, memo: dict[Any, Any]
                      ) -> tuple[int, int] | None:
        """:meth:`Game.proven_winner`: with ``n`` ≤ :data:`PROOF_PLACEMENTS` placements
        left, ``(1, n + 1)`` when every way ``player_0`` finishes them leaves ``player_1`` a
        roll that wins at once (:meth:`placement_safe`); else, and in the rolling phase,
        ``None``."""
        left = NUM_DICE - state.occupied.bit_count()
        if state.result != ONGOING or not 0 < left <= PROOF_PLACEMENTS:
            return None
        return None if self.placement_safe(state, memo) else (1, left + 1)

    def random_playout(self, state: Tris2State, uniform: Callable[[], float],
                       max_plies: int) -> tuple[float, float]:
        """:meth:`Game.random_playout` on the bit masks alone: a roll builds no board, no
        state and no tuple of legal actions. Placements go through :meth:`apply`."""
        while state.result == ONGOING and state.legal >> PLACEMENT_BASE:
            u = uniform()
            if max_plies == 0:
                return (0.0, 0.0)
            max_plies -= 1
            state = self.apply(state, nth_action(state.legal, int(u * state.legal.bit_count())))
        if state.result != ONGOING:
            return self.returns(state)
        _, x, o, bar, height, width, mover, _, _, legal = state
        tops, odd = [x, o, bar], state.odd
        rolls = self.legal_rolls
        while True:     # _roll's steps written out: a call per roll made playouts 20-30% slower
            u = uniform()
            if max_plies == 0:
                return (0.0, 0.0)
            max_plies -= 1
            action = nth_action(legal, int(u * legal.bit_count()))
            d = action & 3
            p = CELL_P[action >> 2]
            q = p + STEP[d]
            t = 0 if tops[0] >> p & 1 else 1 if tops[1] >> p & 1 else 2
            k = ROLL[2 * t + (odd >> p & 1)][d]
            tops[t] ^= 1 << p
            tops[k >> 1] |= 1 << q
            if has_line(tops[k >> 1]):
                return (1.0, -1.0) if mover == 0 else (-1.0, 1.0)
            odd = odd & ~(1 << p) | (k & 1) << q
            occ = tops[0] | tops[1] | tops[2]
            shift, height, width = reframe(occ, p, q, d, height, width)
            if shift > 0:
                tops = [tops[0] << shift, tops[1] << shift, tops[2] << shift]
                occ, odd = occ << shift, odd << shift
            elif shift < 0:
                tops = [tops[0] >> -shift, tops[1] >> -shift, tops[2] >> -shift]
                occ, odd = occ >> -shift, odd >> -shift
            legal = rolls(occ, height, width, FRAME_CELL[q + shift] << 2 | d)
            if not legal:
                return (0.0, 0.0)
            mover = 1 - mover

    # ----- rules ---------------------------------------------------------------------
    def initial_state(self, rng: np.random.Generator | None = None) -> Tris2State:
        """The empty block (placement setup) or a random legal block drawn from ``rng``
        (a fresh generator when ``None``)."""
        if self.setup == "placement":
            return self.make_state(bytes(FRAME * FRAME), (0, 0, 0), 3, 3, 0, -1)
        if rng is None:
            rng = np.random.default_rng()
        while True:
            state = self._random_setup(rng)
            legal = self.legal_actions(state)
            if not (self.fair and legal and all(allows_win(self, state, a) for a in legal)):
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
        return self.make_state(bytes(board), (masks[0], masks[1], masks[2]), 3, 3, 0, -1)

    def make_state(self, board: bytes, tops: tuple[int, int, int], height: int, width: int,
                   to_move: int, last: int) -> Tris2State:
        """A position without a line, with its legal actions; a draw when there are none."""
        occ = tops[0] | tops[1] | tops[2]
        if occ.bit_count() < NUM_DICE:
            legal = self._placements(tops)
        else:
            legal = self.legal_rolls(occ, height, width, last)
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
        won = has_line(tops[k >> 1])
        x, o, bar = tops
        occ = x | o | bar
        shift, height, width = reframe(occ, p, q, d, height, width)
        cells = bytearray(board)
        cells[f] = 0
        if shift > 0:
            x, o, bar, occ = x << shift, o << shift, bar << shift, occ << shift
            moved = FRAME if shift == PAD else 1
            cells = bytearray(moved) + cells[:-moved]
        elif shift < 0:
            x, o, bar, occ = x >> -shift, o >> -shift, bar >> -shift, occ >> -shift
            moved = FRAME if shift == -PAD else 1
            cells = cells[moved:] + bytearray(moved)
        target = FRAME_CELL[q + shift]
        cells[target] = k + 1
        last = target << 2 | d
        if won:
            return Tris2State(bytes(cells), x, o, bar, height, width, 1 - mover, last, mover, 0)
        legal = self.legal_rolls(occ, height, width, last)
        return Tris2State(bytes(cells), x, o, bar, height, width, 1 - mover, last,
                          ONGOING if legal else DRAW, legal)

    def _place(self, state: Tris2State, action: int) -> Tris2State:
        cell, k = divmod(action - PLACEMENT_BASE, 6)
        f = BLOCK_F[cell]
        cells = bytearray(state.board)
        cells[f] = k + 1
        tops = [state.top_x, state.top_o, state.top_bar]
        tops[k >> 1] |= 1 << CELL_P[f]
        return self.make_state(bytes(cells), (tops[0], tops[1], tops[2]), 3, 3,
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
        if not connected(occ ^ 1 << p | 1 << q):
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
        obs = PLANES.take(np.frombuffer(state.board, dtype=np.uint8), axis=0)
        if state.last >= 0:
            obs[state.last >> 2, LAST_PLANE] = 1
        return obs.reshape(OBSERVATION_SHAPE)

    def observations(self, states: Sequence[Tris2State], players: Sequence[int]
                     ) -> np.ndarray:
        """:meth:`Game.observations` in one pass: the boards' bytes joined, one table
        look-up, then the last-move plane."""
        boards = np.frombuffer(b"".join([state.board for state in states]), dtype=np.uint8)
        obs = PLANES.take(boards, axis=0).reshape(len(states), FRAME * FRAME, PLANES.shape[1])
        for row, state in enumerate(states):
            if state.last >= 0:
                obs[row, state.last >> 2, LAST_PLANE] = 1
        return obs.reshape((len(states),) + OBSERVATION_SHAPE)

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

    def played_name(self, before: Tris2State, action: int, after: Tris2State) -> str:
        """A roll as it was typed and where its die stands now, in the frame after it
        (the position string's ``<last>`` cell): ``0,2 E (now 0,3)``; a placement by its
        :meth:`action_name`."""
        if action >= PLACEMENT_BASE:
            return self.action_name(before, action)
        return last_move_name(after)

    def to_notation(self, state: Tris2State) -> str:
        return to_notation(state)

    def from_notation(self, text: str) -> Tris2State:
        """Parse a position string (docs/games/tris2.md); see
        :mod:`~tris_envs.games.tris2.notation`.

        Checked: the format (rows of equal width, cells ``...`` or a die's three symbols,
        the player ``0`` or ``1``, the last move ``-`` or ``r,c,D`` with ``r`` and ``c``
        one ASCII digit each). Fewer than nine dice: the placement setup, so a 3x3 frame,
        no last move, the player whose turn the count gives, no line. Nine dice: the frame
        is their bounding box, within ``max_side``, all in contact; a line of three equal
        tops needs a last move through it, and no other line may exist; the last move's die
        stands in the frame and came from an empty cell, and the position before it was in
        contact, within ``max_side`` and without a line. A line through the die moved last
        makes the position won by the player who moved it.

        Raises:
            ValueError: saying what is malformed or impossible.
        """
        return from_notation(self, text)

    def rules_prompt(self) -> str:
        return rules_prompt(self)

    # ----- pictures ------------------------------------------------------------------
    def render_text(self, state: Tris2State, hidden: bool = False) -> str:
        """The frame with row and column numbers and each die drawn from above as
        :meth:`draw` paints it: its top symbol in the middle, its north-south symbol on its
        upper and lower edges, its east-west symbol on its sides; the die moved last has a
        double edge. ``hidden=True``: one line per row, each die as its token (top,
        north-south, east-west: ``XO/``), the die moved last in brackets."""
        return render_text(state, hidden)

    def picture_size(self, state: Tris2State) -> tuple[int, int]:
        return (480, 530)

    def picture_places(self, state: Tris2State) -> dict[str, Box]:
        return places(state, self.picture_size(state)[0])

    def draw(self, state: Tris2State, canvas: Canvas) -> None:
        """Dice seen from above: the top face with its symbol, and the four side faces
        showing the north-south (top and bottom) and east-west (left and right) symbols.
        The die moved last is outlined in red. The picture keeps its size; dice shrink
        when the frame grows."""
        draw(state, canvas)
