"""What a person clicks on a game's picture to move, and what the picture marks.

Every legal move is one or two clicks on the board, read from the move's name in the
game's notation and the places the game's drawing gives (:meth:`Game.picture_places
<tris_envs.core.game.Game.picture_places>`):

* a one-part name (a Tris 1 cell ``1,2``, a Tritoc hole ``3,4``) is one click on its place;
* a two-part name is a click on what moves (a Tant Fant point ``b1``, a Tris 2 die ``2,0``,
  a cell to place on or to color), then on where or how: a place (``b1-b2``), an arrow on
  the die's side (``2,0 S``), or a chip beside the cell for an orientation or a color
  (``0,1 XO/``, ``3,4 Y``);
* Doppia scelta's instructions (``left``, ``straight``, ``right``) are the color under a
  robot, then the cell the mover's robot goes to;
* a move with no place (``pass``) is a chip under the board.

:func:`last_marks` gives the places of the move just played and :func:`won_marks` those of
a winning line, for :func:`tris_envs.web.svg.board_svg` to outline; :func:`dice_faces` the
faces of Tritoc's roll, for it to draw.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tris_envs.core.drawing import Box
from tris_envs.core.game import Game
from tris_envs.games.doppia_scelta.state import COLORS
from tris_envs.games.tant_fant.state import POINT_NAMES
from tris_envs.games.tant_fant.state import winning_line as tant_fant_line
from tris_envs.games.tris1.notation import cell_name
from tris_envs.games.tris1.state import winning_line as tris1_line
from tris_envs.games.tris2.notation import winning_line as tris2_line
from tris_envs.games.tritoc.drawing import roll_faces
from tris_envs.games.tritoc.state import FIELD_LINE_MASKS, ONGOING, TTT_LINES, WHITE

DIRECTIONS = "NESW"
"""Tris 2's roll directions: a second part naming one is an arrow on the die's side."""
CHIP_HEIGHT = 34.0
"""A chip's height in picture pixels (its width follows its label)."""


@dataclass(frozen=True)
class Target:
    """A place to click for one step of a move.

    Attributes:
        key: The step's name (``b1``, ``2,0``, ``S``, ``XO/``).
        box: Where it lies in the picture.
        shape: ``"cell"`` (a square), ``"point"`` (a circle), ``"arrow"`` (a triangle
            pointing ``key``'s direction) or ``"chip"`` (a labelled button).
    """

    key: str
    box: Box
    shape: str


@dataclass(frozen=True)
class Click:
    """A legal move as clicks: ``first``, then ``second`` (``None``: one click plays)."""

    action: int
    name: str
    first: Target
    second: Target | None


def status_line(game: Game, state: Any) -> str:
    """The status line under the game's text board (who moves, the roll, the result):
    what the page shows under the board, and what :func:`~tris_envs.web.svg.board_svg`
    leaves out of the picture."""
    return game.render_text(state).rsplit("\n", 1)[-1]


def parts(name: str) -> tuple[str, str | None]:
    """A move's name as what moves and where or how: ``b1-b2`` -> ``(b1, b2)``, ``2,0 S``
    -> ``(2,0, S)``; a one-part name (``1,2``, ``pass``) -> ``(name, None)``."""
    match = re.fullmatch(r"(\S+?)[- ](.+)", name)
    return (match.group(1), match.group(2)) if match else (name, None)


def clicks(game: Game, state: Any) -> list[Click]:
    """Every legal move of ``state`` as clicks on its picture (an action may be reached
    from more than one first place: Doppia scelta's robots on one color)."""
    places = game.picture_places(state)
    width, height = game.picture_size(state)
    out: list[Click] = []
    loose: list[tuple[int, str]] = []
    for action in game.legal_actions(state):
        name = game.action_name(state, action)
        if game.info.name == "doppia_scelta" and name in _INSTRUCTIONS:
            out.extend(_instruction_clicks(game, state, action, name, places))
            continue
        first, second = parts(name)
        if first not in places:
            loose.append((action, name))
            continue
        box = places[first]
        shape = _shape(game)
        step = None
        if second is not None:
            if second in places:
                step = Target(second, places[second], shape)
            elif second in DIRECTIONS:
                step = Target(second, _side(box, second), "arrow")
            else:
                step = Target(second, box, "chip")         # laid out below
        out.append(Click(action, name, Target(first, box, shape), step))
    out = _lay_out_chips(out, width, height)
    bottom = max((y + h for _, y, _, h in places.values()), default=0.0) + 8
    widths = [_chip_width(name) for _, name in loose]
    x = (width - sum(widths) - 8 * (len(widths) - 1)) / 2
    for (action, name), w in zip(loose, widths):
        out.append(Click(action, name, Target(name, (x, bottom, w, CHIP_HEIGHT), "chip"),
                         None))
        x += w + 8
    return out


def last_marks(game: Game, before: Any, action: int, after: Any) -> list[Box]:
    """The places, in ``after``'s picture, of the move ``action`` that led from
    ``before`` to ``after``: where the piece came from and went (a Tris 2 die: where it
    stands now; Doppia scelta: the robot's cells)."""
    places = game.picture_places(after)
    name = game.played_name(before, action, after)
    now = re.search(r"\(now ([^)]+)\)", name)            # Tris 2: "0,2 E (now 0,3)"
    if now:
        keys: list[str] = [now.group(1)]
    elif game.info.name == "doppia_scelta" and name in _INSTRUCTIONS:
        mover = game.current_player(before)
        keys = [_robot_cell(game.to_notation(state), mover) for state in (before, after)]
    else:
        keys = [key for key in parts(name) if key is not None]
    return [places[key] for key in keys if key in places]


def won_marks(game: Game, state: Any) -> list[Box]:
    """The places of the winning line of a won ``state``, in order along it (``[]`` when
    the game was not won by a line)."""
    if not game.is_terminal(state):
        return []
    places = game.picture_places(state)
    line = _WINNING_LINES.get(game.info.name)
    keys = line(state) if line else []
    return [places[key] for key in keys if key in places]


def dice_faces(game: Game, state: Any) -> tuple[int, int] | None:
    """The two dice of the roll a player has to play (Tritoc), as faces that make its sum
    (:func:`~tris_envs.games.tritoc.drawing.roll_faces`, as the terminal draws them too);
    ``None`` where there is no roll to play (before the roll, a pass, another game)."""
    if game.info.name != "tritoc" or state.result != ONGOING or not 2 <= state.roll <= 12:
        return None
    return roll_faces(state.roll)


# ----- per game ------------------------------------------------------------------------
_INSTRUCTIONS = ("left", "straight", "right")
"""Doppia scelta's play moves by action (0, 1, 2), coded by the colors ``Y``, ``G``, ``R``."""


def _shape(game: Game) -> str:
    return "point" if game.info.name in ("tant_fant", "tritoc") else "cell"


def _robot_cell(position: str, player: int) -> str:
    """Doppia scelta: the cell ``r,c`` of ``player``'s robot in a position string (the
    margin cell beyond the goal once it has left)."""
    return position.split()[1 + player].rpartition(",")[0]


def _instruction_clicks(game: Game, state: Any, action: int, name: str,
                        places: dict[str, Box]) -> list[Click]:
    """Doppia scelta: the instruction ``name`` as the cell under a robot whose color codes
    it, then the cell the mover's robot reaches."""
    position = game.to_notation(state)
    rows = position.split()[0].split("/")
    mover = game.current_player(state)
    to = _robot_cell(game.to_notation(game.apply(state, action)), mover)
    second = Target(f"to {to}", places[to], "cell")
    out: list[Click] = []
    for player in (mover, 1 - mover):
        cell = _robot_cell(position, player)
        r, c = map(int, cell.split(","))
        if COLORS.index(rows[r][c]) == action and cell not in [k.first.key for k in out]:
            out.append(Click(action, name, Target(cell, places[cell], "cell"), second))
    return out


def _tritoc_line(state: Any) -> list[str]:
    fields = state.white_fields if state.result == WHITE else state.black_fields
    return next(([f"field {f}" for f in line] for line, mask in zip(TTT_LINES, FIELD_LINE_MASKS)
                 if fields & mask == mask), [])


_WINNING_LINES: dict[str, Callable[[Any], list[str]]] = {
    "tris1": lambda state: [cell_name(cell) for cell in tris1_line(state)],
    "tris2": lambda state: tris2_line(state).split(),
    "tant_fant": lambda state: [POINT_NAMES[p] for p in tant_fant_line(state)],
    "tritoc": _tritoc_line,
}
"""The places of each game's winning line (Doppia scelta is won by leaving the board)."""


# ----- layout --------------------------------------------------------------------------
def _side(box: Box, direction: str) -> Box:
    """Where an arrow pointing out of ``box``'s ``direction`` side is drawn: across that
    edge, its tip out over the empty cell the die rolls to."""
    x, y, w, h = box
    across, along = 0.26, 0.36
    sides = {"N": (x + w * (1 - along) / 2, y - h * 0.1, w * along, h * across),
             "S": (x + w * (1 - along) / 2, y + h * (1.1 - across), w * along, h * across),
             "W": (x - w * 0.1, y + h * (1 - along) / 2, w * across, h * along),
             "E": (x + w * (1.1 - across), y + h * (1 - along) / 2, w * across, h * along)}
    return sides[direction]


def _chip_width(label: str) -> float:
    return 16.0 + 11.0 * len(label)


def _lay_out_chips(moves: list[Click], width: float, height: float) -> list[Click]:
    """Second steps that are chips, in a row under their first place (above it when there
    is no room under), kept inside the picture."""
    rows: dict[str, list[tuple[int, Target]]] = {}
    for index, move in enumerate(moves):
        if move.second is not None and move.second.shape == "chip":
            rows.setdefault(move.first.key, []).append((index, move.second))
    out = list(moves)
    for row in rows.values():
        x0, y0, w0, h0 = moves[row[0][0]].first.box
        widths = [_chip_width(chip.key) for _, chip in row]
        total = sum(widths) + 6 * (len(widths) - 1)
        x = min(max(2.0, x0 + w0 / 2 - total / 2), width - total - 2)
        y = y0 + h0 + 2 if y0 + h0 + 2 + CHIP_HEIGHT <= height else y0 - CHIP_HEIGHT - 2
        for (index, chip), w in zip(row, widths):
            move = moves[index]
            out[index] = Click(move.action, move.name, move.first,
                               Target(chip.key, (x, y, w, CHIP_HEIGHT), "chip"))
            x += w + 6
    return out
