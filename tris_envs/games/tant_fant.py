"""Tant Fant rules core (docs/games/tant_fant.md).

Board and indices (``p = row*3 + col``, row 0 = rank 1)::

    rank 3   6 ─ 7 ─ 8        a3 ─ b3 ─ c3     Black's base (start)
             │ ╲ │ ╱ │
    rank 2   3 ─ 4 ─ 5        a2 ─ b2 ─ c2
             │ ╱ │ ╲ │
    rank 1   0 ─ 1 ─ 2        a1 ─ b1 ─ c1     White's base (start)

Lines: three ranks, three files, two long diagonals. A move takes one own piece along a
line to the adjacent empty point: action ``from*9 + to``. The mover wins with its three
pieces on a line other than its own base rank (only the diagonals with
``diagonal_only=True``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from tris_envs.core.drawing import (
    BACKGROUND,
    BLACK_STONE,
    HIGHLIGHT,
    INK,
    WHITE_STONE,
    Canvas,
    draw_line_board,
    draw_stone,
)
from tris_envs.core.errors import brief
from tris_envs.core.game import TERMINAL, Game, GameInfo
from tris_envs.core.options import check_bool, check_choice, check_int

WHITE, BLACK = 0, 1
ONGOING, DRAW = -1, 2
COLOR_NAMES = ("White", "Black")
POINT_NAMES = tuple(f"{'abc'[p % 3]}{p // 3 + 1}" for p in range(9))

LINES: tuple[tuple[int, int, int], ...] = (
    (0, 1, 2), (3, 4, 5), (6, 7, 8),
    (0, 3, 6), (1, 4, 7), (2, 5, 8),
    (0, 4, 8), (2, 4, 6),
)
DIAGONALS = LINES[6:]
BASE_RANK = (0b000_000_111, 0b111_000_000)
START = (BASE_RANK[WHITE], BASE_RANK[BLACK])


def _mask(points: tuple[int, ...]) -> int:
    return sum(1 << p for p in points)


NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(
    tuple(sorted({line[i + d] for line in LINES for i in range(3)
                  if line[i] == p for d in (-1, 1) if 0 <= i + d < 3}))
    for p in range(9)
)
_BITS = np.array([[(m >> p) & 1 for p in range(9)] for m in range(512)], dtype=np.int8)
_BASE_PLANES = (_BITS[BASE_RANK[WHITE]], _BITS[BASE_RANK[BLACK]])
# (own, occupied) -> legal actions; shared by every TantFant instance (movement has no options)
_MOVES: dict[tuple[int, int], tuple[int, ...]] = {}


def _moves(own: int, occupied: int) -> tuple[int, ...]:
    key = (own, occupied)
    moves = _MOVES.get(key)
    if moves is None:
        moves = tuple(sorted(p * 9 + q for p in range(9) if own >> p & 1
                             for q in NEIGHBOURS[p] if not occupied >> q & 1))
        _MOVES[key] = moves
    return moves


class TantFantState(NamedTuple):
    """A Tant Fant position.

    Attributes:
        white: Bit mask of White's points (bit ``p`` = point ``p``).
        black: Bit mask of Black's points.
        to_move: ``0`` White, ``1`` Black (at a terminal state: who would move next).
        result: ``-1`` ongoing, ``0`` White won, ``1`` Black won, ``2`` draw.
        ending: How the game ended: ``""``, ``"line"``, ``"stalemate"``, ``"repetition"``.
        history: Position keys since reset (only with ``repetition_draw=True``).
    """

    white: int
    black: int
    to_move: int
    result: int = ONGOING
    ending: str = ""
    history: tuple[int, ...] = ()


class TantFant(Game[TantFantState]):
    """Tant Fant with the seed's variants as options.

    Args:
        stalemate: ``"draw"`` (default) or ``"loss"``: result for a player with no move.
        repetition_draw: third occurrence of a position (board + side to move) draws.
        diagonal_only: only the two long diagonals win.
        max_moves: default truncation limit in plies for environments.
    """


    def __init__(self, stalemate: str = "draw", repetition_draw: bool = False,
                 diagonal_only: bool = False, max_moves: int = 100) -> None:
        self.stalemate = check_choice("stalemate", stalemate, ("draw", "loss"))
        self.repetition_draw = check_bool("repetition_draw", repetition_draw)
        self.diagonal_only = check_bool("diagonal_only", diagonal_only)
        super().__init__(GameInfo("tant_fant", 81, (3, 3, 4),
                                  check_int("max_moves", max_moves), True))
        winning = DIAGONALS if diagonal_only else LINES
        self._wins = tuple(frozenset(_mask(line) for line in winning) - {BASE_RANK[color]}
                           for color in (WHITE, BLACK))


    # ----- rules ---------------------------------------------------------------------
    def initial_state(self, rng: np.random.Generator | None = None) -> TantFantState:
        return self._position(START[WHITE], START[BLACK], WHITE)

    def _position(self, white: int, black: int, to_move: int,
                  history: tuple[int, ...] = ()) -> TantFantState:
        """The position with ``to_move`` to play, its result decided (no line checks)."""
        own = black if to_move else white
        if not _moves(own, white | black):
            winner = DRAW if self.stalemate == "draw" else 1 - to_move
            return TantFantState(white, black, to_move, winner, "stalemate")
        if self.repetition_draw:
            key = white | black << 9 | to_move << 18
            history = history + (key,)
            if history.count(key) >= 3:
                return TantFantState(white, black, to_move, DRAW, "repetition", history)
        return TantFantState(white, black, to_move, ONGOING, "", history)

    def current_player(self, state: TantFantState) -> int:
        return state.to_move if state.result == ONGOING else TERMINAL

    def legal_actions(self, state: TantFantState) -> tuple[int, ...]:
        if state.result != ONGOING:
            return ()
        own = state.black if state.to_move else state.white
        return _moves(own, state.white | state.black)

    def apply(self, state: TantFantState, action: int) -> TantFantState:
        if type(action) is not int:
            action = self.action_index(state, action)
        if action not in self.legal_actions(state):
            raise self.illegal_action_error(state, action)
        mover = state.to_move
        step = 1 << (action // 9) | 1 << (action % 9)
        white, black = state.white, state.black
        if mover == WHITE:
            white ^= step
            own = white
        else:
            black ^= step
            own = black
        if own in self._wins[mover]:
            return TantFantState(white, black, 1 - mover, mover, "line", state.history)
        return self._position(white, black, 1 - mover, state.history)

    def explain_illegal(self, state: TantFantState, action: int) -> str:
        frm, to = divmod(action, 9)
        own = state.black if state.to_move else state.white
        color = COLOR_NAMES[state.to_move]
        if not own >> frm & 1:
            return f"no {color} piece on {POINT_NAMES[frm]}"
        if to not in NEIGHBOURS[frm]:
            return f"{POINT_NAMES[frm]} and {POINT_NAMES[to]} are not adjacent on a line"
        return f"{POINT_NAMES[to]} is occupied"

    def solver_root(self, state: TantFantState) -> tuple[Game[Any], Any, Any]:
        """The game from its start; with ``repetition_draw`` the repetition-free game.

        With ``repetition_draw=True`` positions are looked up with their history stripped.
        The values agree for the solver's own play: once a game reaches a position won for
        the solver's side, the fastest win strictly lowers the distance to the end on every
        ply, whatever the opponent does, so no later position repeats, and none equals an
        earlier position (those were not won for that side, or the game would already be
        over). A drawn position stays a draw (each side can still avoid losing, and a
        repetition is a draw), and a lost position is met with the slowest loss, which
        leaves the opponent the most chances to repeat. Only when the solver takes over a
        game whose history already passed twice through a position won for its side can
        the stripped value be optimistic.
        """
        if not self.repetition_draw:
            return self, self.initial_state(), state
        plain = TantFant(**dict(self.options(), repetition_draw=False))
        return plain, plain.initial_state(), state._replace(history=())

    def returns(self, state: TantFantState) -> tuple[float, float]:
        if state.result in (ONGOING, DRAW):
            return (0.0, 0.0)
        return (1.0, -1.0) if state.result == WHITE else (-1.0, 1.0)

    # ----- views ---------------------------------------------------------------------
    def observation(self, state: TantFantState, player: int) -> np.ndarray:
        mine, theirs = (state.white, state.black) if player == WHITE else (state.black, state.white)
        obs = np.empty((9, 4), dtype=np.int8)
        obs[:, 0] = _BITS[mine]
        obs[:, 1] = _BITS[theirs]
        obs[:, 2] = _BASE_PLANES[player]
        obs[:, 3] = _BASE_PLANES[1 - player]
        return obs.reshape(3, 3, 4)

    def action_to_string(self, state: TantFantState, action: int) -> str:
        if not 0 <= action < 81:
            return f"out-of-range action {action}"
        frm, to = divmod(action, 9)
        return f"{POINT_NAMES[frm]}-{POINT_NAMES[to]}"

    def to_notation(self, state: TantFantState) -> str:
        def cell(p: int) -> str:
            return "W" if state.white >> p & 1 else "B" if state.black >> p & 1 else "."
        ranks = ("".join(cell(row * 3 + col) for col in range(3)) for row in (2, 1, 0))
        return f"{'/'.join(ranks)} {'wb'[state.to_move]}"

    def from_notation(self, text: str) -> TantFantState:
        """Parse a position string (docs/games/tant_fant.md), e.g. ``BBB/.../WWW w``.

        Checked: the format; three pieces per color; the side to move has no winning line
        (its line would have ended the game on its previous move); the side that moved last
        has a piece next to an empty point, where that piece came from. Together these
        accept exactly the positions reachable from the start under this game's options
        (3,080 with all lines winning, 3,272 with ``diagonal_only``; a test compares with
        the solver). A position where the last mover has a line is returned as won.

        Raises:
            ValueError: naming what is malformed or impossible.
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
        to_move = "wb".index(side)
        mover_mask, last_mask = (white, black) if to_move == WHITE else (black, white)
        if mover_mask in self._wins[to_move]:
            raise ValueError(f"Tant Fant position {brief(text)} is impossible: "
                             f"{COLOR_NAMES[to_move]}, to move, already has a winning line")
        if not _moves(last_mask, white | black):
            raise ValueError(f"Tant Fant position {brief(text)} is impossible: "
                             f"{COLOR_NAMES[1 - to_move]} moved last but has no piece next to "
                             "an empty point it could have come from")
        if last_mask in self._wins[1 - to_move]:
            return TantFantState(white, black, to_move, 1 - to_move, "line")
        return self._position(white, black, to_move)

    def render_text(self, state: TantFantState) -> str:
        def cell(p: int) -> str:
            return "W" if state.white >> p & 1 else "B" if state.black >> p & 1 else "."
        rows = [f"{r + 1}  " + " ─ ".join(cell(r * 3 + c) for c in range(3)) for r in (2, 1, 0)]
        lines = [rows[0], "   │ ╲ │ ╱ │", rows[1], "   │ ╱ │ ╲ │", rows[2], "   a   b   c",
                 self.status(state)]
        return "\n".join(lines)

    def winning_line(self, state: TantFantState) -> tuple[int, ...]:
        """The points of the winner's line (``()`` unless the game was won by a line)."""
        if state.ending != "line":
            return ()
        own = state.white if state.result == WHITE else state.black
        return tuple(p for p in range(9) if own >> p & 1)

    def status(self, state: TantFantState) -> str:
        """The line under the board: who moves, or the result and how it came."""
        if state.result == ONGOING:
            return f"{COLOR_NAMES[state.to_move]} to move"
        if state.result == DRAW:
            return f"Draw ({state.ending})"
        if state.ending == "line":
            points = " ".join(POINT_NAMES[p] for p in self.winning_line(state))
            return f"{COLOR_NAMES[state.result]} wins with the line {points}"
        return f"{COLOR_NAMES[state.result]} wins ({state.ending})"

    def draw(self, state: TantFantState, canvas: Canvas) -> None:
        canvas.fill(BACKGROUND)
        step = canvas.width * 0.32
        origin = canvas.width * 0.18
        points = [(origin + (p % 3) * step, origin + (2 - p // 3) * step) for p in range(9)]
        edges = [(a, b) for line in LINES for a, b in zip(line, line[1:])]
        draw_line_board(canvas, points, edges)
        label = step * 0.38          # in the margin, clear of the lines and the stones
        for k in range(3):
            canvas.text("abc"[k], points[k][0], points[0][1] + label, 18, INK)
            canvas.text(str(k + 1), points[0][0] - label, points[3 * k][1], 18, INK)
        line = self.winning_line(state)
        for p, (x, y) in enumerate(points):
            if p in line:
                canvas.circle(x, y, step * 0.28, HIGHLIGHT)
            if state.white >> p & 1:
                draw_stone(canvas, x, y, step * 0.22, WHITE_STONE)
            elif state.black >> p & 1:
                draw_stone(canvas, x, y, step * 0.22, BLACK_STONE)
        canvas.text(self.status(state), canvas.width / 2, canvas.height - 24, 20, INK)

    def picture_size(self, state: TantFantState) -> tuple[int, int]:
        return (400, 440)
