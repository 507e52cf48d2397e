"""Doppia scelta rules: two robots on a CodyColor board, one choice.

Rules as implemented: docs/games/doppia_scelta.md.

Board cells ``r*5 + c``, row 0 = top; a cell is written ``r,c``::

               N
          0    1    2    3    4
        ┌────┬────┬────┬────┬────┐
      0 │  0 │  1 │  2 │  3 │  4 │
        ├────┼────┼────┼────┼────┤
      1 │  5 │  6 │  7 │  8 │  9 │
        ├────┼────┼────┼────┼────┤
    W 2 │ 10 │ 11 │ 12 │ 13 │ 14 │ E
        ├────┼────┼────┼────┼────┤
      3 │ 15 │ 16 │ 17 │ 18 │ 19 │
        ├────┼────┼────┼────┼────┤
      4 │ 20 │ 21 │ 22 │ 23 │ 24 │
        └────┴────┴────┴────┴────┘
               S

Each cell is yellow ``Y`` (turn left 90°), gray ``G`` (no turn) or red ``R`` (turn right
90°); ``.`` is an uncolored cell of the coloring phase. A robot's *pose* is
``cell*4 + facing`` with facing 0 N, 1 E, 2 S, 3 W. A *gate* ``r,c,D`` is an edge cell and
the outward direction ``D``; each robot enters through its start gate (standing on the
cell, facing inward) and wins by leaving through its goal gate.

Actions (78): ``0`` turn left (yellow), ``1`` straight (gray), ``2`` turn right (red) --
the mover may play the instruction of the color under its own robot or under the
opponent's robot; ``3 + cell*3 + color`` colors an uncolored cell in the coloring phase
(color 0 yellow, 1 gray, 2 red).

Observation (5, 5, 23), ``[row, col, plane]`` from the observer's view: 0-2 the cell is
yellow / gray / red; 3 my robot; 4-7 my facing N E S W (at my robot's cell); 8 their robot;
9-12 their facing; 13-16 my goal gate's exit direction N E S W (at the goal cell); 17-20
theirs; 21 uncolored cell; 22 coloring phase (constant). Before the opening the robot
planes show the entry cells and inward facing.

Board strings (the ``board`` option and the first field of a position string) are the five
rows top to bottom separated by ``/``, e.g. ``YGRGY/GGRYY/RRGGY/YYGGR/GRYGR``; the ``board``
option also takes the 25 letters in reading order, ``YGRGYGGRYYRRGGYYYGGRGRYGR``.

Boards, gates, poses and positions live in :mod:`~tris_envs.games.doppia_scelta.state`, movement
tables in :mod:`~tris_envs.games.doppia_scelta.moves`, position strings in
:mod:`~tris_envs.games.doppia_scelta.notation`, text and pictures in
:mod:`~tris_envs.games.doppia_scelta.drawing`; the :class:`DoppiaScelta` methods delegate.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain
from typing import Any

import numpy as np

from tris_envs.core.drawing import Box, Canvas
from tris_envs.core.errors import brief
from tris_envs.core.game import TERMINAL, Game, GameInfo
from tris_envs.core.options import Choice, Flag, Integer, Text, check_bool, check_choice, check_int
from tris_envs.core.solver import Solution, solve
from tris_envs.games.doppia_scelta.drawing import draw, places, render_text
from tris_envs.games.doppia_scelta.moves import (
    move_tables,
)
from tris_envs.games.doppia_scelta.notation import from_notation, to_notation
from tris_envs.games.doppia_scelta.state import (
    BLACK,
    CELL_ACTIONS,
    CELLS,
    COLOR_NAMES,
    COLOR_PLANES,
    COLORS,
    DELTAS,
    DIRECTIONS,
    DRAW,
    EXAMPLE_BOARD,
    EXIT,
    EXITED,
    GATE_ROLES,
    INSTRUCTION_BIT,
    INSTRUCTIONS,
    LETTERS,
    MAX_FAIR_ATTEMPTS,
    NOT_ENTERED,
    NUM_ACTIONS,
    ONGOING,
    PLAYER_NAMES,
    SCHEMES,
    SIZE,
    STOPPED,
    UNCOLORED,
    WHITE,
    DoppiaSceltaState,
    cell_name,
    format_board,
    parse_board,
    parse_gate,
    trace,
)
from tris_envs.games.doppia_scelta.text import rules_prompt

SETUPS = Choice(("random", "coloring"))


class DoppiaScelta(Game[DoppiaSceltaState]):
    """Doppia scelta: move your robot by the color under either robot; reach your goal.

    Args:
        scheme: ``"crossing"`` (default), ``"shared_goal"`` or ``"swap"``: the gates.
        gates: Four gates ``("r,c,D", ...)`` -- white start, white goal, black start, black
            goal -- instead of a scheme (``scheme`` must then stay at its default).
        setup: ``"random"`` (default): a uniformly random board without a CodyColor path
            for either robot; ``"coloring"``: the players color the board first.
        board: A fixed board without a CodyColor path: five ``/``-separated rows of
            ``Y G R`` or the 25 letters in reading order.
        fair: With random boards, redraw until the board is a draw under perfect play.
        max_moves: Truncation limit in plies for environments (coloring plies count).
    """

    SETUP_OPTIONS = frozenset({"setup", "board", "fair"})
    OPTION_TYPES = {"scheme": Choice(tuple(SCHEMES)),
                    "gates": Text("the scheme's gates", repr(SCHEMES["crossing"]), words=True),
                    "setup": SETUPS,
                    "board": Text("a random board", EXAMPLE_BOARD),
                    "fair": Flag(), "max_moves": Integer(1)}

    SEAT_NAMES = PLAYER_NAMES

    def __init__(self, scheme: str = "crossing", gates: Sequence[str] | None = None,
                 setup: str = "random", board: str | None = None, fair: bool = False,
                 max_moves: int = 100) -> None:
        self.scheme = check_choice("scheme", scheme, tuple(SCHEMES))
        self.setup = check_choice("setup", setup, SETUPS.values)
        self.fair = check_bool("fair", fair)
        self.custom_gates: tuple[str, str, str, str] | None = None
        if gates is not None:
            if scheme != "crossing":
                raise ValueError(f"options scheme={scheme!r} and gates={gates!r}: give either "
                                 "a scheme or custom gates, not both")
            self.custom_gates = self._check_gates(gates)
        self.gates = self.custom_gates or SCHEMES[scheme]
        poses = [parse_gate(g) for g in self.gates]
        self._goal = (poses[1], poses[3])
        self._entry = (poses[0] ^ 2, poses[2] ^ 2)
        white, black = move_tables(poses[1]), move_tables(poses[3])
        self._after = (white.after, black.after)
        self._stuck = (white.stuck, black.stuck)
        self._legal = (white.legal, black.legal)
        self.board: str | None = None
        self._board_colors: str | None = None
        if board is not None:
            if setup == "coloring":
                raise ValueError("option board=... gives a fixed board; it cannot be combined "
                                 "with setup='coloring'")
            self._board_colors = self._check_board(board, "option board")
            self.board = board
        if fair and (setup == "coloring" or board is not None):
            raise ValueError("option fair=True redraws random boards; it needs setup='random' "
                             "and no board=...")
        super().__init__(GameInfo("doppia_scelta", NUM_ACTIONS, (SIZE, SIZE, 23),
                                  check_int("max_moves", max_moves), True))
        self._coloring_cache: dict[str, tuple[tuple[int, ...], np.ndarray]] = {}
        self._obs_cache: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        goal_planes = np.zeros((2, CELLS, 4), dtype=np.int8)
        for player, goal in enumerate(self._goal):
            goal_planes[player, goal >> 2, goal & 3] = 1
        self._goal_planes = (np.concatenate([goal_planes[0], goal_planes[1]], axis=1),
                             np.concatenate([goal_planes[1], goal_planes[0]], axis=1))

    @staticmethod
    def _check_gates(gates: Any) -> tuple[str, str, str, str]:
        if isinstance(gates, str) or not isinstance(gates, Sequence) or len(gates) != 4:
            raise ValueError(f"option gates={gates!r} must be four gate strings (white start, "
                             "white goal, black start, black goal), e.g. "
                             f"{SCHEMES['crossing']!r}")
        for role, gate in zip(GATE_ROLES, gates):
            try:
                parse_gate(gate)
            except ValueError as error:
                raise ValueError(f"option gates: {role} {error}") from None
        for player in (WHITE, BLACK):
            if gates[2 * player] == gates[2 * player + 1]:
                raise ValueError(f"option gates={tuple(gates)!r}: {PLAYER_NAMES[player]}'s "
                                 f"start and goal are the same gate {gates[2 * player]!r}")
        return (gates[0], gates[1], gates[2], gates[3])

    def options(self) -> dict[str, Any]:
        return {"scheme": self.scheme, "gates": self.custom_gates, "setup": self.setup,
                "board": self.board, "fair": self.fair, "max_moves": self.info.max_moves}

    # ----- boards --------------------------------------------------------------------
    def path_owner(self, colors: str) -> int | None:
        """The first robot (0 White, 1 Black) with a CodyColor path on ``colors``, or None.

        ``colors`` is 25 row-major letters; on a partly colored board the path must run
        over colored cells only.
        """
        for player in (WHITE, BLACK):
            end, pose = trace(colors, self._entry[player])
            if end == EXIT and pose == self._goal[player]:
                return player
        return None

    def _check_board(self, text: str, what: str) -> str:
        colors = parse_board(text, allow_flat=True)
        owner = self.path_owner(colors)
        if owner is not None:
            raise ValueError(f"{what} {brief(text)}: {PLAYER_NAMES[owner]} has a CodyColor path "
                             f"from {self.gates[2 * owner]} to {self.gates[2 * owner + 1]} "
                             "(boards must not offer one)")
        return colors

    def opening(self, board: str) -> DoppiaSceltaState:
        """The position after the robots entered ``board`` (a board string), White to move.

        Raises:
            ValueError: malformed board, or it gives a robot a CodyColor path.
        """
        return self._opening(self._check_board(board, "board"))

    def _opening(self, colors: str) -> DoppiaSceltaState:
        return DoppiaSceltaState(colors, self._entry[WHITE], self._entry[BLACK], WHITE)

    def random_board(self, rng: np.random.Generator) -> str:
        """25 uniformly random cell letters, redrawn until no robot has a CodyColor path."""
        while True:
            colors = LETTERS[rng.integers(0, 3, CELLS)].tobytes().decode("ascii")
            if self.path_owner(colors) is None:
                return colors

    # ----- rules ---------------------------------------------------------------------
    def initial_state(self, rng: np.random.Generator) -> DoppiaSceltaState:
        if self.setup == "coloring":
            return DoppiaSceltaState(UNCOLORED * CELLS, NOT_ENTERED, NOT_ENTERED, WHITE)
        if self._board_colors is not None:
            return self._opening(self._board_colors)
        if not self.fair:
            return self._opening(self.random_board(rng))
        for _ in range(MAX_FAIR_ATTEMPTS):
            state = self._opening(self.random_board(rng))
            if solve(self, state).values[0] == 0:
                return state
        raise ValueError(f"fair=True: none of {MAX_FAIR_ATTEMPTS} random boards is a draw "
                         f"with gates {self.gates}")

    def current_player(self, state: DoppiaSceltaState) -> int:
        return state.to_move if state.result == ONGOING else TERMINAL

    def legal_actions(self, state: DoppiaSceltaState) -> tuple[int, ...]:
        if state.result != ONGOING:
            return ()
        if state.white < 0:
            return self._coloring(state.colors)[0]
        colors = state.colors
        if state.to_move == WHITE:
            own, other = state.white, state.black
        else:
            own, other = state.black, state.white
        return self._legal[state.to_move][own * 8 + (INSTRUCTION_BIT[colors[own >> 2]]
                                                     | INSTRUCTION_BIT[colors[other >> 2]])]

    def legal_mask(self, state: DoppiaSceltaState) -> np.ndarray:
        """Read-only ``int8`` mask of the legal actions.

        Coloring-phase masks are kept with their action tuples in a small cache of their
        own: the base class's cache, keyed by action tuples, would fill with thousands of
        long tuples.
        """
        if state.white < 0 and state.result == ONGOING:
            return self._coloring(state.colors)[1]
        return super().legal_mask(state)

    def _coloring(self, colors: str) -> tuple[tuple[int, ...], np.ndarray]:
        """Legal coloring actions on ``colors`` and their mask (cached per board)."""
        entry = self._coloring_cache.get(colors)
        if entry is None:
            actions = tuple(chain.from_iterable(CELL_ACTIONS[cell] for cell, ch
                                                in enumerate(colors) if ch == UNCOLORED))
            forbidden = {3 + cell * 3 + k for cell, k, _ in self._path_colorings(colors)}
            if forbidden:
                actions = tuple(a for a in actions if a not in forbidden)
            mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
            mask[list(actions)] = 1
            mask.flags.writeable = False
            if len(self._coloring_cache) >= 4096:
                self._coloring_cache.clear()
            entry = self._coloring_cache[colors] = (actions, mask)
        return entry

    def _path_colorings(self, colors: str) -> list[tuple[int, int, int]]:
        """``(cell, color, player)``: colorings that would give ``player`` a CodyColor path.

        Only the uncolored cell where a robot's path now stops can change that path.
        """
        found = []
        for player in (WHITE, BLACK):
            end, pose = trace(colors, self._entry[player])
            if end != STOPPED:
                continue
            cell = pose >> 2
            for k, ch in enumerate(COLORS):
                end2, exit_pose = trace(colors[:cell] + ch + colors[cell + 1:], pose)
                if end2 == EXIT and exit_pose == self._goal[player]:
                    found.append((cell, k, player))
        return found

    def apply(self, state: DoppiaSceltaState, action: int) -> DoppiaSceltaState:
        if type(action) is not int:
            action = self.action_index(state, action)
        if action not in self.legal_actions(state):
            raise self.illegal_action_error(state, action)
        mover = state.to_move
        colors = state.colors
        if state.white < 0:
            cell = (action - 3) // 3
            colors = colors[:cell] + COLORS[(action - 3) % 3] + colors[cell + 1:]
            if UNCOLORED not in colors:
                return self._opening(colors)
            result = ONGOING if self._coloring(colors)[0] else DRAW
            return DoppiaSceltaState(colors, NOT_ENTERED, NOT_ENTERED, 1 - mover, result)
        if mover == WHITE:
            white = self._after[WHITE][state.white * 3 + action]
            black = state.black
            if white == EXITED:
                return DoppiaSceltaState(colors, white, black, BLACK, WHITE)
        else:
            white = state.white
            black = self._after[BLACK][state.black * 3 + action]
            if black == EXITED:
                return DoppiaSceltaState(colors, white, black, WHITE, BLACK)
        return DoppiaSceltaState(colors, white, black, 1 - mover,
                                 DRAW if self.is_stalemate(colors, white, black) else ONGOING)

    def is_stalemate(self, colors: str, white: int, black: int) -> bool:
        """Both robots on gray, each facing the border and not its own goal exit."""
        return (colors[white >> 2] == "G" and colors[black >> 2] == "G"
                and self._stuck[WHITE][white] and self._stuck[BLACK][black])

    def explain_illegal(self, state: DoppiaSceltaState, action: int) -> str:
        colors = state.colors
        name = PLAYER_NAMES[state.to_move]
        if state.white < 0:
            uncolored = colors.count(UNCOLORED)
            if action < 3:
                return (f"the robots have not entered yet: {uncolored} cells are still "
                        "uncolored; color one (actions 3..77)")
            cell, k = divmod(action - 3, 3)
            if colors[cell] != UNCOLORED:
                return (f"cell {cell_name(cell)} is already "
                        f"{COLOR_NAMES[COLORS.index(colors[cell])]}")
            player = next(p for c, color, p in self._path_colorings(colors)
                          if (c, color) == (cell, k))
            return (f"it would give {PLAYER_NAMES[player]} a CodyColor path from "
                    f"{self.gates[2 * player]} to {self.gates[2 * player + 1]}")
        if action >= 3:
            return "the board is fully colored; coloring actions belong to the coloring phase"
        own, other = (state.white, state.black) if state.to_move == WHITE else (state.black,
                                                                                 state.white)
        under_own, under_other = colors[own >> 2], colors[other >> 2]
        if COLORS[action] not in (under_own, under_other):
            return (f"{INSTRUCTIONS[action]} needs {COLOR_NAMES[action]} under a robot, but "
                    f"{name}'s robot stands on {COLOR_NAMES[COLORS.index(under_own)]} and the "
                    f"opponent's on {COLOR_NAMES[COLORS.index(under_other)]}")
        going = [INSTRUCTIONS[a] for a in self.legal_actions(state)]
        return (f"{name}'s robot would face the border at {cell_name(own >> 2)} while "
                f"{' / '.join(going)} lets it proceed (forced move)")

    def solver_root(self, state: DoppiaSceltaState) -> tuple[Game[Any], Any, Any]:
        """The board of ``state`` from its opening; not during the coloring phase."""
        if state.white == NOT_ENTERED:
            raise ValueError("the solver cannot play Doppia scelta's coloring phase: it solves "
                             "a board once it is fully colored")
        return self, self.opening(format_board(state.colors)), state

    def returns(self, state: DoppiaSceltaState) -> tuple[float, float]:
        if state.result == WHITE:
            return (1.0, -1.0)
        if state.result == BLACK:
            return (-1.0, 1.0)
        return (0.0, 0.0)

    # ----- views ---------------------------------------------------------------------
    def observation(self, state: DoppiaSceltaState, player: int) -> np.ndarray:
        """The (5, 5, 23) planes from ``player``'s view (layout in the module docstring)."""
        bases = self._obs_cache.get(state.colors)
        if bases is None:
            bases = self._observation_bases(state.colors)
        obs = bases[player].copy()
        mine, theirs = (state.white, state.black) if player == WHITE else (state.black,
                                                                            state.white)
        if mine == NOT_ENTERED:
            mine, theirs = self._entry[player], self._entry[1 - player]
        if mine != EXITED:
            obs[mine >> 2, 3] = 1
            obs[mine >> 2, 4 + (mine & 3)] = 1
        if theirs != EXITED:
            obs[theirs >> 2, 8] = 1
            obs[theirs >> 2, 9 + (theirs & 3)] = 1
        return obs.reshape(SIZE, SIZE, 23)

    def _observation_bases(self, colors: str) -> tuple[np.ndarray, np.ndarray]:
        planes = COLOR_PLANES[np.frombuffer(colors.encode("ascii"), dtype=np.uint8)]
        bases = []
        for player in (WHITE, BLACK):
            base = np.zeros((CELLS, 23), dtype=np.int8)
            base[:, 0:3] = planes[:, 0:3]
            base[:, 13:21] = self._goal_planes[player]
            base[:, 21] = planes[:, 3]
            base[:, 22] = UNCOLORED in colors
            bases.append(base)
        if len(self._obs_cache) >= 64:
            self._obs_cache.clear()
        self._obs_cache[colors] = (bases[0], bases[1])
        return self._obs_cache[colors]

    def action_to_string(self, state: DoppiaSceltaState, action: int) -> str:
        if not 0 <= action < NUM_ACTIONS:
            return f"out-of-range action {action}"
        if action < 3:
            return f"{INSTRUCTIONS[action]} ({COLOR_NAMES[action]})"
        cell, k = divmod(action - 3, 3)
        return f"color {cell_name(cell)} {COLOR_NAMES[k]}"

    def action_name(self, state: DoppiaSceltaState, action: int) -> str:
        """``left``, ``straight``, ``right``; coloring ``r,c Y`` (or ``G``, ``R``)."""
        if action < 3:
            return ("left", "straight", "right")[action]
        cell, k = divmod(action - 3, 3)
        return f"{cell_name(cell)} {COLORS[k]}"

    # ----- position strings ----------------------------------------------------------
    def entry_pose(self, player: int) -> int:
        """The pose in which ``player``'s robot enters: its start cell, facing inward."""
        return self._entry[player]

    def beyond_goal(self, player: int) -> str:
        """``r,c,D`` of the off-board cell a robot reaches through its goal gate."""
        goal = self._goal[player]
        r, c = divmod(goal >> 2, SIZE)
        dr, dc = DELTAS[goal & 3]
        return f"{r + dr},{c + dc},{DIRECTIONS[goal & 3]}"

    def to_notation(self, state: DoppiaSceltaState) -> str:
        return to_notation(self, state)

    def from_notation(self, text: str) -> DoppiaSceltaState:
        """Parse a position string; see :mod:`~tris_envs.games.doppia_scelta.notation`.

        Raises:
            ValueError: saying what is malformed or impossible.
        """
        return from_notation(self, text)

    def rules_prompt(self) -> str:
        return rules_prompt(self)

    # ----- pictures ------------------------------------------------------------------
    def render_text(self, state: DoppiaSceltaState) -> str:
        """The board as text: color letters, robots as arrows, gates in the margin; ANSI
        background colors only where asked for (``drawing.render_text``)."""
        return render_text(self, state)

    def picture_size(self, state: DoppiaSceltaState) -> tuple[int, int]:
        return (448, 512)

    def picture_places(self, state: DoppiaSceltaState) -> dict[str, Box]:
        return places(self.picture_size(state)[0])

    def draw(self, state: DoppiaSceltaState, canvas: Canvas) -> None:
        draw(self, state, canvas)


def solve_board(game: DoppiaScelta, board: str) -> Solution[DoppiaSceltaState]:
    """Solve every position reachable from the opening on ``board`` (a board string).

    Uses the generic retrograde solver: ``values`` (+1 White wins, -1 Black wins, 0 draw,
    endless play included), ``plies`` (fastest win / slowest loss) and ``best_actions``
    for every reachable position. For another root use
    :func:`tris_envs.core.solver.solve` directly.

    Raises:
        ValueError: malformed board, or it gives a robot a CodyColor path.
    """
    return solve(game, game.opening(board))
