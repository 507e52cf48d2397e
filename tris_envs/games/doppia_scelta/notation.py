"""Doppia scelta position strings (docs/games/doppia_scelta.md).

``<colors> <white robot> <black robot> <white start> <white goal> <black start> <black goal>
<w|b>``: colors = 5 rows of ``Y G R`` (``.`` uncolored) separated by ``/``, top to bottom; a
robot is ``r,c,D`` (its cell and facing), ``-`` before it enters, the off-board cell beyond
its goal gate once it has left; gates are ``r,c,D``.
"""

from __future__ import annotations

from tris_envs.core.errors import brief
from tris_envs.games.doppia_scelta.state import (
    BLACK,
    CELLS,
    DELTAS,
    DIRECTIONS,
    DRAW,
    EXAMPLE_BOARD,
    EXITED,
    GATE_ROLES,
    NOT_ENTERED,
    ONGOING,
    PLAYER_NAMES,
    SIZE,
    UNCOLORED,
    WHITE,
    DoppiaSceltaState,
    Rules,
    format_board,
    parse_board,
    parse_gate,
    pose_name,
)


def to_notation(game: Rules, state: DoppiaSceltaState) -> str:
    """The position string of ``state``."""
    return " ".join((format_board(state.colors), _robot_notation(game, state.white, WHITE),
                     _robot_notation(game, state.black, BLACK), *game.gates,
                     "wb"[state.to_move]))


def _robot_notation(game: Rules, pose: int, player: int) -> str:
    if pose == NOT_ENTERED:
        return "-"
    if pose == EXITED:
        return game.beyond_goal(player)
    return pose_name(pose)


def from_notation(game: Rules, text: str) -> DoppiaSceltaState:
    """Parse a position string for ``game`` (its gates must be the string's gates).

    Raises:
        ValueError: saying what is malformed or impossible: a board giving a robot a
            CodyColor path, robots written as entered (or not) against the colored cells,
            the wrong side to color, a pose no play reaches, both robots gone, a winner
            to move.
    """
    where = f"Doppia scelta position {brief(text)}"
    board, white_text, black_text, *gates, side = _fields(game, text, where)
    try:
        colors = parse_board(board, allow_uncolored=True)
    except ValueError as error:
        raise ValueError(f"{where}: {error}") from None
    _check_gates(game, gates, where)
    if side not in ("w", "b"):
        raise ValueError(f"{where}: side to move {brief(side)} must be 'w' or 'b'")
    to_move = "wb".index(side)
    owner = game.path_owner(colors)
    if owner is not None:
        raise ValueError(f"{where} is impossible: {PLAYER_NAMES[owner]} has a CodyColor "
                         f"path from {game.gates[2 * owner]} to {game.gates[2 * owner + 1]} "
                         "over the colored cells; no board may offer one")
    if UNCOLORED in colors:
        return _coloring_phase(game, colors, (white_text, black_text), to_move, where)
    if "-" in (white_text, black_text):
        raise ValueError(f"{where}: the board is fully colored, so both robots have "
                         "entered; write each robot as 'r,c,D'")
    white = _parse_robot(game, white_text, WHITE, where)
    black = _parse_robot(game, black_text, BLACK, where)
    return _with_result(game, DoppiaSceltaState(colors, white, black, to_move), where)


def _fields(game: Rules, text: str, where: str) -> list[str]:
    fields = text.split(" ") if isinstance(text, str) else []
    if len(fields) != 8:
        opening = DoppiaSceltaState(parse_board(EXAMPLE_BOARD), game.entry_pose(WHITE),
                                    game.entry_pose(BLACK), WHITE)
        example = to_notation(game, opening)
        raise ValueError(f"{where}: expected 8 fields '<colors> <white robot> <black robot> "
                         "<white start> <white goal> <black start> <black goal> <w|b>', "
                         f"e.g. {example!r}")
    return fields


def _check_gates(game: Rules, gates: list[str], where: str) -> None:
    if tuple(gates) == game.gates:
        return
    for role, gate in zip(GATE_ROLES, gates):
        try:
            parse_gate(gate)
        except ValueError as error:
            raise ValueError(f"{where}: {role} {error}") from None
    raise ValueError(f"{where}: gates {' '.join(gates)} differ from this game's gates "
                     f"{' '.join(game.gates)}; build the game with gates={tuple(gates)!r}")


def _coloring_phase(game: Rules, colors: str, robots: tuple[str, str], to_move: int,
                    where: str) -> DoppiaSceltaState:
    """A position of the coloring phase: robots not entered, the right player colors."""
    uncolored = colors.count(UNCOLORED)
    if robots != ("-", "-"):
        raise ValueError(f"{where}: {uncolored} cells are uncolored, so the robots "
                         "have not entered; write both robots as '-'")
    colorer = (CELLS - uncolored) % 2
    if to_move != colorer:
        raise ValueError(f"{where}: colored cells: {CELLS - uncolored}, so "
                         f"{PLAYER_NAMES[colorer]} colors next (White colors first)")
    result = ONGOING if game.legal_actions(
        DoppiaSceltaState(colors, NOT_ENTERED, NOT_ENTERED, to_move)) else DRAW
    return DoppiaSceltaState(colors, NOT_ENTERED, NOT_ENTERED, to_move, result)


def _with_result(game: Rules, state: DoppiaSceltaState,
                 where: str) -> DoppiaSceltaState:
    """``state`` (robots entered) with its result: a win, a stalemate, or ongoing."""
    white, black = state.white, state.black
    if white == EXITED or black == EXITED:
        if white == black:
            raise ValueError(f"{where} is impossible: both robots left the board")
        winner = WHITE if white == EXITED else BLACK
        if state.to_move == winner:
            raise ValueError(f"{where} is impossible: {PLAYER_NAMES[winner]} left through "
                             f"its goal on its own move, so the side to move is "
                             f"{'wb'[1 - winner]!r}")
        return state._replace(result=winner)
    return state._replace(result=DRAW if game.is_stalemate(state.colors, white, black)
                          else ONGOING)


def _parse_robot(game: Rules, text: str, player: int, where: str) -> int:
    """The pose of a robot written ``r,c,D``, or :data:`EXITED` beyond its goal gate."""
    parts = text.split(",")
    name = PLAYER_NAMES[player]
    coordinates = ("-1", "0", "1", "2", "3", "4", "5")
    if (len(parts) != 3 or parts[0] not in coordinates or parts[1] not in coordinates
            or parts[2] not in ("N", "E", "S", "W")):
        raise ValueError(f"{where}: {name} robot {brief(text)} must be 'r,c,D' (row, column, "
                         "facing N/E/S/W) or '-' before it enters")
    r, c = int(parts[0]), int(parts[1])
    if 0 <= r < SIZE and 0 <= c < SIZE:
        pose = (r * SIZE + c) << 2 | DIRECTIONS.index(parts[2])
        _check_pose(game, pose, player, where)
        return pose
    if text == game.beyond_goal(player):
        return EXITED
    raise ValueError(f"{where}: {name} robot {brief(text)} is off the board; a robot leaves "
                     f"the board only through its goal gate {game.gates[2 * player + 1]}, "
                     f"written {game.beyond_goal(player)!r} once it has left")


def _check_pose(game: Rules, pose: int, player: int, where: str) -> None:
    """Refuse an on-board pose that no play reaches.

    A robot faces the way it last stepped, or the border after a turn that could not
    proceed, or inward on its entry pose before its first move. Facing away from an edge
    it stands on (e.g. ``4,c,N``), it came from off the board: only its entry pose does.
    """
    r, c = divmod(pose >> 2, SIZE)
    dr, dc = DELTAS[pose & 3]
    entry = game.entry_pose(player)
    if 0 <= r - dr < SIZE and 0 <= c - dc < SIZE or pose == entry:
        return
    name = PLAYER_NAMES[player]
    raise ValueError(f"{where} is impossible: {name}'s robot {pose_name(pose)} would have "
                     f"stepped in from {r - dr},{c - dc}, off the board; facing "
                     f"{DIRECTIONS[pose & 3]} on that edge cell only the entry pose "
                     f"{pose_name(entry)} (start gate {game.gates[2 * player]}) is possible")
