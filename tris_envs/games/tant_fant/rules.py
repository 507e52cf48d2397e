"""Tant Fant rules (docs/games/tant_fant.md): the board is in
:mod:`~tris_envs.games.tant_fant.state`.

The mover wins with its three pieces on a line other than its own base rank (only the
diagonals with ``diagonal_only=True``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tris_envs.core.drawing import Box, Canvas
from tris_envs.core.errors import brief
from tris_envs.core.game import TERMINAL, Game, GameInfo
from tris_envs.core.options import Choice, Flag, Integer, check_bool, check_choice, check_int
from tris_envs.games.tant_fant.drawing import draw, places, render_text
from tris_envs.games.tant_fant.notation import parse_position, to_notation
from tris_envs.games.tant_fant.state import (
    BASE_PLANES,
    BASE_RANK,
    BITS,
    BLACK,
    COLOR_NAMES,
    DIAGONALS,
    DRAW,
    LINES,
    NEIGHBOURS,
    ONGOING,
    POINT_NAMES,
    START,
    WHITE,
    TantFantState,
    mask,
    moves,
)
from tris_envs.games.tant_fant.text import rules_prompt

STALEMATES = Choice(("draw", "loss"))


class TantFant(Game[TantFantState]):
    """Tant Fant with the seed's variants as options.

    Args:
        stalemate: ``"draw"`` (default) or ``"loss"``: result for a player with no move.
        repetition_draw: third occurrence of a position (board + side to move) draws.
        diagonal_only: only the two long diagonals win.
        max_moves: default truncation limit in plies for environments.
    """

    OPTION_TYPES = {"stalemate": STALEMATES, "repetition_draw": Flag(), "diagonal_only": Flag(),
                    "max_moves": Integer(1)}

    SEAT_NAMES = COLOR_NAMES

    def __init__(self, stalemate: str = "draw", repetition_draw: bool = False,
                 diagonal_only: bool = False, max_moves: int = 100) -> None:
        self.stalemate = check_choice("stalemate", stalemate, STALEMATES.values)
        self.repetition_draw = check_bool("repetition_draw", repetition_draw)
        self.diagonal_only = check_bool("diagonal_only", diagonal_only)
        super().__init__(GameInfo("tant_fant", 81, (3, 3, 4),
                                  check_int("max_moves", max_moves), True))
        winning = DIAGONALS if diagonal_only else LINES
        self._wins = tuple(frozenset(mask(line) for line in winning) - {BASE_RANK[color]}
                           for color in (WHITE, BLACK))


    # ----- rules ---------------------------------------------------------------------
    def initial_state(self, rng: np.random.Generator | None = None) -> TantFantState:
        return self._position(START[WHITE], START[BLACK], WHITE)

    def _position(self, white: int, black: int, to_move: int,
                  history: tuple[int, ...] = ()) -> TantFantState:
        """The position with ``to_move`` to play, its result decided (no line checks)."""
        own = black if to_move else white
        if not moves(own, white | black):
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
        return moves(own, state.white | state.black)

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
        obs[:, 0] = BITS[mine]
        obs[:, 1] = BITS[theirs]
        obs[:, 2] = BASE_PLANES[player]
        obs[:, 3] = BASE_PLANES[1 - player]
        return obs.reshape(3, 3, 4)

    def action_to_string(self, state: TantFantState, action: int) -> str:
        if not 0 <= action < 81:
            return f"out-of-range action {action}"
        frm, to = divmod(action, 9)
        return f"{POINT_NAMES[frm]}-{POINT_NAMES[to]}"

    def to_notation(self, state: TantFantState) -> str:
        return to_notation(state)

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
        white, black, to_move = parse_position(text)
        mover_mask, last_mask = (white, black) if to_move == WHITE else (black, white)
        if mover_mask in self._wins[to_move]:
            raise ValueError(f"Tant Fant position {brief(text)} is impossible: "
                             f"{COLOR_NAMES[to_move]}, to move, already has a winning line")
        if not moves(last_mask, white | black):
            raise ValueError(f"Tant Fant position {brief(text)} is impossible: "
                             f"{COLOR_NAMES[1 - to_move]} moved last but has no piece next to "
                             "an empty point it could have come from")
        if last_mask in self._wins[1 - to_move]:
            return TantFantState(white, black, to_move, 1 - to_move, "line")
        return self._position(white, black, to_move)

    def rules_prompt(self) -> str:
        return rules_prompt(self)

    def render_text(self, state: TantFantState) -> str:
        return render_text(state)

    def draw(self, state: TantFantState, canvas: Canvas) -> None:
        draw(state, canvas)

    def picture_size(self, state: TantFantState) -> tuple[int, int]:
        return (400, 440)

    def picture_places(self, state: TantFantState) -> dict[str, Box]:
        return places(self.picture_size(state)[0])
