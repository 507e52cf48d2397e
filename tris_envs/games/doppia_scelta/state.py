"""Doppia scelta boards, gates, poses, CodyColor paths and positions
(docs/games/doppia_scelta.md)."""

from __future__ import annotations

from typing import Any, NamedTuple, Protocol

import numpy as np

from tris_envs.core.errors import brief
from tris_envs.core.policy import PolicyLayout, Slot

SIZE = 5
CELLS = SIZE * SIZE
WHITE, BLACK = 0, 1
ONGOING, DRAW = -1, 2
PLAYER_NAMES = ("White", "Black")
DIRECTIONS = "NESW"
DELTAS = ((-1, 0), (0, 1), (1, 0), (0, -1))
COLORS = "YGR"
"""Color letters; a color's index is its instruction and its coloring-action offset."""
COLOR_NAMES = ("yellow", "gray", "red")
INSTRUCTIONS = ("turn left", "straight", "turn right")
UNCOLORED = "."
NOT_ENTERED = -1
"""Robot pose before the opening (coloring phase)."""
EXITED = 100
"""Robot pose after it left through its goal gate."""
NUM_ACTIONS = 3 + CELLS * 3
MAX_FAIR_ATTEMPTS = 1000
EXAMPLE_BOARD = "YGRGY/GGRYY/RRGGY/YYGGR/GRYGR"

SCHEMES: dict[str, tuple[str, str, str, str]] = {
    "crossing": ("4,0,S", "0,4,N", "4,4,S", "0,0,N"),
    "shared_goal": ("4,1,S", "0,2,N", "4,3,S", "0,2,N"),
    "swap": ("4,0,S", "0,4,N", "0,4,N", "4,0,S"),
}
"""Gates per scheme: white start, white goal, black start, black goal."""
GATE_ROLES = ("white start", "white goal", "black start", "black goal")


def ahead(pose: int) -> int:
    r, c = divmod(pose >> 2, SIZE)
    dr, dc = DELTAS[pose & 3]
    r, c = r + dr, c + dc
    return ((r * SIZE + c) << 2 | pose & 3) if 0 <= r < SIZE and 0 <= c < SIZE else -1


FORWARD: tuple[int, ...] = tuple(ahead(pose) for pose in range(CELLS * 4))
"""Pose one step ahead (same facing), ``-1`` when the robot faces the border."""
TURN = {"Y": 3, "G": 0, "R": 1}
INSTRUCTION_BIT = {"Y": 1, "G": 2, "R": 4}
LETTERS = np.frombuffer(COLORS.encode("ascii"), dtype=np.uint8)
# character code -> (yellow, gray, red, uncolored) observation planes
COLOR_PLANES = np.zeros((256, 4), dtype=np.int8)
for _i, _ch in enumerate(COLORS + UNCOLORED):
    COLOR_PLANES[ord(_ch), _i] = 1
CELL_ACTIONS = tuple(tuple(range(3 + cell * 3, 6 + cell * 3)) for cell in range(CELLS))
EXIT, STOPPED = 0, 1


def cell_name(cell: int) -> str:
    return f"{cell // SIZE},{cell % SIZE}"


def pose_name(pose: int) -> str:
    """``r,c,D`` of a robot pose ``cell*4 + facing``."""
    return f"{cell_name(pose >> 2)},{DIRECTIONS[pose & 3]}"


def trace(colors: str, pose: int, visited: list[int] | None = None) -> tuple[int, int]:
    """Follow the CodyColor rules from ``pose`` (a robot just arrived on its cell).

    Returns ``(EXIT, pose turned toward the border)`` when the robot leaves the board and
    ``(STOPPED, pose)`` when it arrives on an uncolored cell. ``visited`` collects the
    cells whose instruction ran.

    A robot that entered through a gate never circles forever: a cell's turn is fixed, so
    the pose-to-next-pose map is one-to-one, and the entry pose has no predecessor on the
    board (it would stand beyond the gate); a cycle through it is impossible.
    """
    while True:
        cell = pose >> 2
        ch = colors[cell]
        if ch == UNCOLORED:
            return STOPPED, pose
        if visited is not None:
            visited.append(cell)
        turned = cell << 2 | (pose + TURN[ch]) & 3
        pose = FORWARD[turned]
        if pose < 0:
            return EXIT, turned


def parse_gate(text: Any) -> int:
    """The exit pose ``cell*4 + D`` of gate ``"r,c,D"``.

    Raises:
        ValueError: not of the form ``r,c,D`` with ``r, c`` in 0..4 and ``D`` in N E S W,
            or the cell is not on the board's edge in direction ``D``.
    """
    parts = text.split(",") if isinstance(text, str) else []
    if (len(parts) != 3 or not all(p in "01234" and len(p) == 1 for p in parts[:2])
            or parts[2] not in ("N", "E", "S", "W")):
        raise ValueError(f"gate {brief(text)}: expected 'r,c,D' with r and c in 0..4 and D one of "
                         "N, E, S, W, e.g. '4,0,S'")
    pose = (int(parts[0]) * SIZE + int(parts[1])) << 2 | DIRECTIONS.index(parts[2])
    if FORWARD[pose] >= 0:
        raise ValueError(f"gate {brief(text)}: cell {parts[0]},{parts[1]} is not on the board's "
                         f"{parts[2]} edge; a gate is an edge cell and its outward direction")
    return pose


def parse_board(text: Any, allow_uncolored: bool = False, allow_flat: bool = False) -> str:
    """The 25 cell letters (row-major) of a board string such as ``YGRGY/GGRYY/...``.

    Args:
        text: Five rows of five letters ``Y`` ``G`` ``R`` (``.`` uncolored), top to bottom,
            separated by ``/``.
        allow_uncolored: accept ``.`` (positions of the coloring phase).
        allow_flat: also accept the 25 letters in reading order without ``/`` (the
            ``board`` option; position strings always separate the rows).

    Raises:
        ValueError: saying what is wrong and where.
    """
    allowed = COLORS + UNCOLORED if allow_uncolored else COLORS
    forms = "five rows of five letters separated by '/'" + (
        " or 25 letters in reading order" if allow_flat else "")
    if not isinstance(text, str):
        raise ValueError(f"board {brief(text)} must be a string of {forms}, "
                         f"e.g. {EXAMPLE_BOARD!r}")
    flat = allow_flat and len(text) == CELLS and "/" not in text
    rows = [text[r * SIZE:(r + 1) * SIZE] for r in range(SIZE)] if flat else text.split("/")
    if len(rows) != SIZE or any(len(row) != SIZE for row in rows):
        hint = (" (the five rows must be separated by '/')"
                if len(text) == CELLS and "/" not in text else "")
        raise ValueError(f"board {brief(text)}: expected {forms}, e.g. {EXAMPLE_BOARD!r}{hint}")
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            if ch not in allowed:
                names = "Y (yellow), G (gray), R (red)" + (", . (uncolored)"
                                                           if allow_uncolored else "")
                raise ValueError(f"board {brief(text)}: cell {r},{c} holds {ch!r}; use {names}")
    return "".join(rows)


def format_board(colors: str) -> str:
    """Board string (rows separated by ``/``) of 25 row-major cell letters."""
    return "/".join(colors[r * SIZE:(r + 1) * SIZE] for r in range(SIZE))


class CodyColorPath(NamedTuple):
    """Where a robot goes under the plain CodyColor rules.

    Attributes:
        cells: ``(row, col)`` of every cell whose instruction the robot ran, in order,
            starting with the start cell.
        end: ``"goal"`` (left through the goal gate), ``"elsewhere"`` (left through another
            edge) or ``"uncolored"`` (reached an uncolored cell). A robot entering through a
            gate never circles forever.
        exit: The gate ``r,c,D`` through which it left the board, ``None`` if it did not.
    """

    cells: tuple[tuple[int, int], ...]
    end: str
    exit: str | None

    @property
    def reaches_goal(self) -> bool:
        """Whether this is a CodyColor path from the start gate to the goal gate."""
        return self.end == "goal"


def codycolor_path(board: str, start: str, goal: str) -> CodyColorPath:
    """Follow the CodyColor rules from gate ``start`` and report whether they reach ``goal``.

    The robot enters the start gate's cell facing inward, then on every cell (the first
    included) turns by the cell's color and steps forward, until it leaves the board or
    reaches an uncolored cell.

    Args:
        board: Board string (``/``-separated rows or 25 letters; ``.`` cells allowed).
        start: Start gate ``r,c,D``.
        goal: Goal gate ``r,c,D``.
    """
    colors = parse_board(board, allow_uncolored=True, allow_flat=True)
    goal_pose = parse_gate(goal)
    visited: list[int] = []
    end, pose = trace(colors, parse_gate(start) ^ 2, visited)
    cells = tuple(divmod(cell, SIZE) for cell in visited)
    if end == STOPPED:
        return CodyColorPath(cells, "uncolored", None)
    return CodyColorPath(cells, "goal" if pose == goal_pose else "elsewhere", pose_name(pose))


class DoppiaSceltaState(NamedTuple):
    """A Doppia scelta position.

    Attributes:
        colors: 25 letters ``Y`` ``G`` ``R`` ``.``, row-major, row 0 = top.
        white: White robot's pose ``cell*4 + facing`` (:data:`NOT_ENTERED` in the coloring
            phase, :data:`EXITED` after it left through its goal gate).
        black: Black robot's pose.
        to_move: ``0`` White, ``1`` Black (at a terminal state: who would act next).
        result: ``-1`` ongoing, ``0`` White won, ``1`` Black won, ``2`` draw.
    """

    colors: str
    white: int
    black: int
    to_move: int
    result: int = ONGOING


class Rules(Protocol):
    """What position strings and drawings ask of the rules
    (:class:`tris_envs.games.doppia_scelta.DoppiaScelta`)."""

    @property
    def gates(self) -> tuple[str, str, str, str]:
        """White start, white goal, black start, black goal, as ``r,c,D``."""

    def path_owner(self, colors: str) -> int | None:
        """The first robot with a CodyColor path on ``colors``, or None."""

    def legal_actions(self, state: DoppiaSceltaState) -> tuple[int, ...]:
        """The legal actions of ``state``."""

    def action_name(self, state: DoppiaSceltaState, action: int) -> str:
        """``action``'s name in the game's notation."""

    def is_stalemate(self, colors: str, white: int, black: int) -> bool:
        """Both robots on gray, each facing the border and not its own goal exit."""

    def entry_pose(self, player: int) -> int:
        """The pose in which ``player``'s robot enters."""

    def beyond_goal(self, player: int) -> str:
        """``r,c,D`` of the off-board cell beyond ``player``'s goal gate."""


def _policy_slot(action: int) -> Slot:
    """Turns: global logits 0-2; colorings: the cell, channel = color."""
    if action < 3:
        return (action,)
    cell, color = divmod(action - 3, 3)
    return (cell // SIZE, cell % SIZE, color)


POLICY_LAYOUT = PolicyLayout(3, 3, _policy_slot)
"""The policy head's cells, channels and global logits for each action
(:class:`~tris_envs.core.policy.PolicyLayout`)."""
