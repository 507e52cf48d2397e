"""Doppia scelta: the seed's numbered cases as scripted positions, CodyColor paths, the
coloring phase, the solver against a depth-limited search, env behaviour and bad input."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings

from tris_envs import IllegalActionError, doppia_scelta_v0
from tris_envs.core import TERMINAL, solve
from tris_envs.games.doppia_scelta import (
    BLACK,
    DRAW,
    EXITED,
    NOT_ENTERED,
    ONGOING,
    SCHEMES,
    WHITE,
    DoppiaScelta,
    DoppiaSceltaState,
    codycolor_path,
    format_board,
    solve_board,
)

from checks import (
    action_paths,
    follow_path,
    fuzz_env,
    play_script,
    random_playouts,
)

LEFT, STRAIGHT, RIGHT = 0, 1, 2
CROSSING = "4,0,S 0,4,N 4,4,S 0,0,N"
SHARED = "4,1,S 0,2,N 4,3,S 0,2,N"
SWAP = "4,0,S 0,4,N 0,4,N 4,0,S"
ALL_YELLOW = "YYYYY/YYYYY/YYYYY/YYYYY/YYYYY"


def color(r: int, c: int, k: str) -> int:
    """Coloring action for cell ``r,c`` and color letter ``k``."""
    return 3 + (r * 5 + c) * 3 + "YGR".index(k)


def uncolored_actions(board: str, without: tuple[int, ...] = ()) -> tuple[int, ...]:
    """Every coloring action of the uncolored cells of ``board``, except ``without``."""
    cells = board.replace("/", "")
    return tuple(a for a in range(3, 78) if cells[(a - 3) // 3] == "." and a not in without)


def pos(board: str, white: str, black: str, side: str, gates: str = CROSSING) -> str:
    return f"{board} {white} {black} {gates} {side}"


# Each script: name, options, start position, steps (legal actions expected before the
# step, action played, position after it), result at the end. Crossing gates unless said:
# White 4,0,S -> 0,4,N, Black 4,4,S -> 0,0,N. Mostly-yellow boards keep every robot's
# CodyColor path short: on yellow the robot entering at 4,0 (or 4,4) facing north turns west
# and leaves the board at once (at 4,0) or after one step (4,3, then south).
F1 = "YYYYY/YYGYY/YYGYY/YYYGY/YYYYY"
F2 = "YYYYY/YYYYY/GYYYY/YYYYY/YYYYY"
P1 = "GYYYY/YYYYY/YYRYY/YYYYY/YYYYY"
P2 = "YYYYR/YYYYY/YYYYY/YYYYY/YYYGR"
BL = "YGYYY/YYYYY/YYGYY/YYYYY/YYYYY"
ST = "GYYYY/YYYYY/YYYYG/YYYYY/YYYYY"
WN = "YYYYY/YYYYY/YYRYY/YYYYY/YYYYY"
W2 = "YYYYG/YYGYG/YYGYY/YYYYY/YYYYY"
SH = "YYGGY/YYYYY/YYYYY/YYYYY/YYYYY"
SCRIPTS = [
    # Mossa obbligata 1: both robots on gray, the only option is straight.
    ("forced move 1: same color under both robots", {}, pos(F1, "2,2,N", "3,3,N", "w"), [
        ((STRAIGHT,), STRAIGHT, pos(F1, "1,2,N", "3,3,N", "b")),
        ((STRAIGHT,), STRAIGHT, pos(F1, "1,2,N", "2,3,N", "w")),
        # White on gray, Black on yellow: both proceed, a free choice
        ((LEFT, STRAIGHT), LEFT, pos(F1, "1,1,W", "2,3,N", "b")),
    ], ONGOING),
    # Mossa obbligata 2: yellow would face the west border, gray proceeds: gray is forced.
    ("forced move 2: only the proceeding option", {}, pos(F2, "2,0,N", "2,2,N", "w"), [
        ((STRAIGHT,), STRAIGHT, pos(F2, "1,0,N", "2,2,N", "b")),
        ((LEFT,), LEFT, pos(F2, "1,0,N", "2,1,W", "w")),
    ], ONGOING),
    # Mossa parzialmente bloccata 1: gray (north) and red (north after west) both face the
    # border; White may pick either and stays. 0,0,N is Black's goal, not White's.
    ("partially blocked 1: free choice, robot stays", {}, pos(P1, "0,0,W", "2,2,N", "w"), [
        ((STRAIGHT, RIGHT), RIGHT, pos(P1, "0,0,N", "2,2,N", "b")),
        ((STRAIGHT, RIGHT), STRAIGHT, pos(P1, "0,0,N", "1,2,N", "w")),
        ((LEFT, STRAIGHT), STRAIGHT, pos(P1, "0,0,N", "1,2,N", "b")),   # nothing changes
    ], ONGOING),
    # Mossa parzialmente bloccata 2: both robots on red in corners; each keeps turning
    # right in place until it faces the board, then moves.
    # (Facing N on 4,4 or W on 0,4 would be impossible poses: no step leads there.)
    ("partially blocked 2: turning while stuck", {}, pos(P2, "4,4,E", "0,4,N", "w"), [
        ((RIGHT,), RIGHT, pos(P2, "4,4,S", "0,4,N", "b")),
        ((RIGHT,), RIGHT, pos(P2, "4,4,S", "0,4,E", "w")),
        ((RIGHT,), RIGHT, pos(P2, "4,3,W", "0,4,E", "b")),       # unblocked: steps west
        ((RIGHT,), RIGHT, pos(P2, "4,3,W", "1,4,S", "w")),       # gray would face east
    ], ONGOING),
    # Mossa bloccata: facing the border, both robots on gray: only straight, no change.
    ("blocked: straight changes nothing", {}, pos(BL, "0,1,N", "2,2,E", "w"), [
        ((STRAIGHT,), STRAIGHT, pos(BL, "0,1,N", "2,2,E", "b")),
        ((STRAIGHT,), STRAIGHT, pos(BL, "0,1,N", "2,3,E", "w")),
        ((LEFT,), LEFT, pos(BL, "0,0,W", "2,3,E", "b")),
    ], ONGOING),
    # Stallo e patta: White's forced step lands on gray facing the border; Black already
    # stands on gray facing the border: drawn.
    ("stalemate", {}, pos(ST, "1,0,N", "2,4,E", "w"), [
        ((STRAIGHT,), STRAIGHT, pos(ST, "0,0,N", "2,4,E", "b")),
    ], DRAW),
    # No stalemate when a robot on gray faces its own goal exit: it leaves and wins.
    ("gray facing the own goal is no stalemate", {}, pos(ST, "2,4,E", "0,0,N", "w"), [
        ((STRAIGHT,), STRAIGHT, pos(ST, "2,4,E", "0,0,N", "b")),
        ((STRAIGHT,), STRAIGHT, pos(ST, "2,4,E", "-1,0,N", "w")),
    ], BLACK),
    # Vittoria: on the goal cell, yellow turns White north through its goal gate.
    ("win through the goal by turning", {}, pos(WN, "0,4,E", "2,2,N", "w"), [
        ((LEFT, RIGHT), LEFT, pos(WN, "-1,4,N", "2,2,N", "b")),
    ], WHITE),
    ("arriving on the goal cell is not yet a win", {}, pos(W2, "1,4,N", "2,2,N", "w"), [
        ((STRAIGHT,), STRAIGHT, pos(W2, "0,4,N", "2,2,N", "b")),
        ((STRAIGHT,), STRAIGHT, pos(W2, "0,4,N", "1,2,N", "w")),
        ((STRAIGHT,), STRAIGHT, pos(W2, "-1,4,N", "1,2,N", "b")),
    ], WHITE),
    # Dalla scacchiera non si esce se non per raggiungere la meta: 0,0,N is Black's goal.
    ("no leaving through another gate", {}, pos(P1.replace("R", "G"), "0,0,N", "2,2,S", "w"),
     [
        ((STRAIGHT,), STRAIGHT, pos("GYYYY/YYYYY/YYGYY/YYYYY/YYYYY", "0,0,N", "2,2,S", "b")),
        ((STRAIGHT,), STRAIGHT, pos("GYYYY/YYYYY/YYGYY/YYYYY/YYYYY", "0,0,N", "3,2,S", "w")),
        ((LEFT, STRAIGHT), LEFT, pos("GYYYY/YYYYY/YYGYY/YYYYY/YYYYY", "0,0,W", "3,2,S", "b")),
    ], ONGOING),
    ("opening on an all-yellow board: stuck at the start gate", {},
     pos(ALL_YELLOW, "4,0,N", "4,4,N", "w"), [
        ((LEFT,), LEFT, pos(ALL_YELLOW, "4,0,W", "4,4,N", "b")),
        ((LEFT,), LEFT, pos(ALL_YELLOW, "4,0,W", "4,3,W", "w")),
        ((LEFT,), LEFT, pos(ALL_YELLOW, "4,0,S", "4,3,W", "b")),   # 4,0,S is its start
    ], ONGOING),
    ("shared goal: robots share a cell; Black exits", {"scheme": "shared_goal"},
     pos(SH, "0,2,E", "0,2,N", "w", SHARED), [
        ((STRAIGHT,), STRAIGHT, pos(SH, "0,3,E", "0,2,N", "b", SHARED)),
        ((STRAIGHT,), STRAIGHT, pos(SH, "0,3,E", "-1,2,N", "w", SHARED)),
    ], BLACK),
    ("swap: Black exits through White's start", {"scheme": "swap"},
     pos(ALL_YELLOW, "2,2,N", "4,0,W", "b", SWAP), [
        ((LEFT,), LEFT, pos(ALL_YELLOW, "2,2,N", "5,0,S", "w", SWAP)),
    ], BLACK),
    # Coloring phase: White colors first; a coloring giving a robot a path is refused.
    ("coloring from the empty board", {"setup": "coloring"},
     pos("...../...../...../...../.....", "-", "-", "w"), [
        (tuple(range(3, 78)), color(2, 2, "G"),
         pos("...../...../..G../...../.....", "-", "-", "b")),
        (tuple(range(3, 39)) + tuple(range(42, 78)), color(4, 0, "R"),
         pos("...../...../..G../...../R....", "-", "-", "w")),
    ], ONGOING),
    # White's colored path 4,0 north to 0,0, east along row 0 reaches 0,4 facing east:
    # yellow there would turn it north through its goal; gray (out east) is fine.
    ("coloring refused: path for White", {"setup": "coloring"},
     pos("RGGG./G..../G..../G..../G....", "-", "-", "w"), [
        (uncolored_actions("RGGG./G..../G..../G..../G....", without=(color(0, 4, "Y"),)),
         color(0, 4, "G"), pos("RGGGG/G..../G..../G..../G....", "-", "-", "b")),
    ], ONGOING),
    # The last uncolored cell 3,2: White arrives facing east (4,0 G, 3,0 R, 3,1 G); yellow
    # sends it north (2,2 1,2 0,2 R 0,3 0,4 Y: out north), gray east (3,3 Y 2,3 Y 2,2 2,1
    # Y 3,1 4,1 Y 4,2 Y back through 3,2 north ... out north), red south (4,2 Y 4,3 Y 3,3
    # Y back through 3,2 north ... out north): every coloring of 3,2 is refused.
    ("no legal coloring: drawn", {"setup": "coloring"},
     pos("YYRGY/YGGGY/RYGYG/RG.YG/GYYY.", "-", "-", "b"), [
        ((color(4, 4, "Y"), color(4, 4, "G"), color(4, 4, "R")), color(4, 4, "Y"),
         pos("YYRGY/YGGGY/RYGYG/RG.YG/GYYYY", "-", "-", "w")),
    ], DRAW),
    # White colors the 25th cell, the robots enter, and White moves again.
    ("white colors the last cell and moves", {"setup": "coloring"},
     pos("YYYYY/YYYYY/YYYYY/YYYYY/YYYY.", "-", "-", "w"), [
        ((color(4, 4, "Y"), color(4, 4, "G"), color(4, 4, "R")), color(4, 4, "Y"),
         pos(ALL_YELLOW, "4,0,N", "4,4,N", "w")),
        ((LEFT,), LEFT, pos(ALL_YELLOW, "4,0,W", "4,4,N", "b")),
    ], ONGOING),
]


@pytest.mark.parametrize("name, options, start, steps, result", SCRIPTS,
                         ids=[s[0] for s in SCRIPTS])
def test_scripted_positions(name, options, start, steps, result):
    game = DoppiaScelta(**options)
    state = play_script(game, start, [(action, expected, legal)
                                      for legal, action, expected in steps])
    assert state.result == result
    assert (game.current_player(state) == TERMINAL) == (result != ONGOING)
    if result != ONGOING:
        assert game.legal_actions(state) == ()
        again = game.from_notation(game.to_notation(state))
        assert again == state


def test_opening_robots_enter_facing_inward():
    board = "YGYGY/GGRYY/RRGGY/YYGGR/GRYGR"
    expected = {
        "crossing": ("4,0,N", "4,4,N"),
        "shared_goal": ("4,1,N", "4,3,N"),
        "swap": ("4,0,N", "0,4,S"),
    }
    for scheme, (white, black) in expected.items():
        game = DoppiaScelta(scheme=scheme, board=board)
        state = game.initial_state(np.random.default_rng(0))
        gates = " ".join(SCHEMES[scheme])
        assert game.to_notation(state) == f"{board} {white} {black} {gates} w"
        assert game.current_player(state) == WHITE


def test_winning_scores_and_stalemate_is_a_draw():
    game = DoppiaScelta()
    won = game.from_notation(pos(WN, "-1,4,N", "2,2,N", "b"))
    assert game.returns(won) == (1.0, -1.0)
    lost = game.from_notation(pos(ST, "2,4,E", "-1,0,N", "w"))
    assert game.returns(lost) == (-1.0, 1.0)
    drawn = game.from_notation(pos(ST, "0,0,N", "2,4,E", "w"))
    assert drawn.result == DRAW and game.returns(drawn) == (0.0, 0.0)


@pytest.mark.parametrize("start, action, reason", [
    (pos(F2, "2,0,N", "2,2,N", "w"), LEFT,
     r"action 0 \(turn left \(yellow\)\) is illegal: White's robot would face the border "
     r"at 2,0 while straight lets it proceed \(forced move\)"),
    (pos(F1, "2,2,N", "3,3,N", "w"), RIGHT,
     "turn right needs red under a robot, but White's robot stands on gray and the "
     "opponent's on gray"),
    (pos(F1, "2,2,N", "3,3,N", "w"), color(0, 0, "G"),
     "the board is fully colored; coloring actions belong to the coloring phase"),
    (pos("RGGG./G..../G..../G..../G....", "-", "-", "w"), color(0, 4, "Y"),
     r"action 15 \(color 0,4 yellow\) is illegal: it would give White a CodyColor path "
     "from 4,0,S to 0,4,N"),
    (pos("RGGG./....G/....G/....G/....G", "-", "-", "w"), color(0, 4, "Y"),
     "it would give Black a CodyColor path from 4,4,S to 0,0,N"),
    (pos("RGGG./G..../G..../G..../G....", "-", "-", "w"), color(0, 0, "Y"),
     "cell 0,0 is already red"),
    (pos("RGGG./G..../G..../G..../G....", "-", "-", "w"), STRAIGHT,
     "the robots have not entered yet: 17 cells are still uncolored"),
    (pos(WN, "-1,4,N", "2,2,N", "b"), LEFT, "the game is over"),
])
def test_illegal_actions_explained_and_state_unchanged(start, action, reason):
    game = DoppiaScelta()
    state = game.from_notation(start)
    with pytest.raises(IllegalActionError, match=reason):
        game.apply(state, action)
    assert game.to_notation(state) == start


# ----- CodyColor paths ---------------------------------------------------------------
@pytest.mark.parametrize("board, start, goal, end, exit_gate, cells", [
    # up column 0 on gray, red turns east at 0,0, along row 0, yellow turns north at 0,4
    ("RGGGY/GYYYY/GYYYY/GYYYY/GYYYY", "4,0,S", "0,4,N", "goal", "0,4,N",
     [(4, 0), (3, 0), (2, 0), (1, 0), (0, 0), (0, 1), (0, 2), (0, 3), (0, 4)]),
    # same, but gray at 0,4 leaves through its east side: not the goal
    ("RGGGG/GYYYY/GYYYY/GYYYY/GYYYY", "4,0,S", "0,4,N", "elsewhere", "0,4,E",
     [(4, 0), (3, 0), (2, 0), (1, 0), (0, 0), (0, 1), (0, 2), (0, 3), (0, 4)]),
    # yellow at the start cell turns west: out at once
    (ALL_YELLOW, "4,0,S", "0,4,N", "elsewhere", "4,0,W", [(4, 0)]),
    # Black: 4,4 yellow west, 4,3 yellow south: out
    (ALL_YELLOW, "4,4,S", "0,0,N", "elsewhere", "4,3,S", [(4, 4), (4, 3)]),
    # red at 0,4 entered from the north edge: west along row 0, yellow at 0,0 turns south,
    # down column 0 on gray, red at 4,0 turns west: out through 4,0,W, not 4,0,S
    ("YGGGR/GYYYY/GYYYY/GYYYY/RYYYY", "0,4,N", "4,0,S", "elsewhere", "4,0,W",
     [(0, 4), (0, 3), (0, 2), (0, 1), (0, 0), (1, 0), (2, 0), (3, 0), (4, 0)]),
    ("YGGGR/GYYYY/GYYYY/GYYYY/GYYYY", "0,4,N", "4,0,S", "goal", "4,0,S",
     [(0, 4), (0, 3), (0, 2), (0, 1), (0, 0), (1, 0), (2, 0), (3, 0), (4, 0)]),
    ("RGG../G..../G..../G..../G....", "4,0,S", "0,4,N", "uncolored", None,
     [(4, 0), (3, 0), (2, 0), (1, 0), (0, 0), (0, 1), (0, 2)]),
])
def test_codycolor_path(board, start, goal, end, exit_gate, cells):
    path = codycolor_path(board, start, goal)
    assert path.end == end and path.exit == exit_gate and list(path.cells) == cells
    assert path.reaches_goal == (end == "goal")


def test_boards_with_a_path_are_refused():
    with pytest.raises(ValueError, match="White has a CodyColor path from 4,0,S to 0,4,N"):
        DoppiaScelta(board="RGGGY/GYYYY/GYYYY/GYYYY/GYYYY")
    with pytest.raises(ValueError, match="impossible: Black has a CodyColor path"):
        DoppiaScelta(scheme="swap").from_notation(
            pos("YGGGR/GYYYY/GYYYY/GYYYY/GYYYY", "2,2,N", "2,2,N", "w", SWAP))


def test_random_boards_have_no_path():
    for scheme, gates in SCHEMES.items():
        game = DoppiaScelta(scheme=scheme)
        rng = np.random.default_rng(11)
        for _ in range(300):
            board = format_board(game.initial_state(rng).colors)
            assert not codycolor_path(board, gates[0], gates[1]).reaches_goal
            assert not codycolor_path(board, gates[2], gates[3]).reaches_goal


# ----- solver --------------------------------------------------------------------------
def depth_limited_value(game: DoppiaScelta, state: DoppiaSceltaState, depth: int) -> int:
    """+1 / -1 when White / Black can force a win within ``depth`` plies, else 0."""
    player = game.current_player(state)
    if player == TERMINAL:
        r0, r1 = game.returns(state)
        return (r0 > r1) - (r0 < r1)
    if depth == 0:
        return 0
    sign = 1 if player == WHITE else -1
    best = -1
    for action in game.legal_actions(state):
        best = max(best, sign * depth_limited_value(game, game.apply(state, action),
                                                     depth - 1))
        if best == 1:
            break
    return sign * best


@pytest.mark.parametrize("scheme, seed", [("crossing", 1), ("shared_goal", 2), ("swap", 3)])
def test_solver_agrees_with_depth_limited_search(scheme, seed):
    game = DoppiaScelta(scheme=scheme)
    rng = np.random.default_rng(seed)
    solution = solve_board(game, format_board(game.initial_state(rng).colors))
    rows = list(range(len(solution)))
    near = [i for i in rows if 0 <= solution.plies[i] <= 6]
    picked = random.Random(seed).sample(near, min(60, len(near)))
    picked += random.Random(seed).sample(rows, 60)
    assert any(solution.values[i] for i in picked)
    for i in picked:
        state = solution.states[i]
        for depth in range(7):
            plies = int(solution.plies[i])
            expected = int(solution.values[i]) if 0 <= plies <= depth else 0
            assert depth_limited_value(game, state, depth) == expected, (
                game.to_notation(state), depth)


def test_best_actions_win_in_the_solved_number_of_plies():
    game = DoppiaScelta()
    rng = np.random.default_rng(4)
    while True:
        solution = solve(game, game.initial_state(rng))
        if solution.values[0]:
            break
    state = solution.states[0]
    for _ in range(int(solution.plies[0])):
        state = game.apply(state, solution.best_actions(state)[0])
    assert state.result == (WHITE if solution.values[0] > 0 else BLACK)


def test_solve_board_starts_at_the_opening():
    game = DoppiaScelta()
    rng = np.random.default_rng(5)
    for _ in range(5):
        board = format_board(game.initial_state(rng).colors)
        assert solve_board(game, board).states[0] == game.opening(board)


def test_fair_boards_are_draws():
    game = DoppiaScelta(fair=True)
    rng = np.random.default_rng(6)
    for _ in range(4):
        state = game.initial_state(rng)
        assert solve(game, state).value(state) == 0


# ----- encodings -----------------------------------------------------------------------
def test_observation_planes():
    game = DoppiaScelta()
    state = game.from_notation(pos(P1, "0,0,W", "2,2,N", "w"))
    white, black = game.observation(state, WHITE), game.observation(state, BLACK)
    assert white[0, 0, 0:3].tolist() == [0, 1, 0] and white[2, 2, 0:3].tolist() == [0, 0, 1]
    assert white[1, 1, 0:3].tolist() == [1, 0, 0]
    assert np.argwhere(white[:, :, 3]).tolist() == [[0, 0]]
    assert np.argwhere(white[:, :, 4:8]).tolist() == [[0, 0, 3]]       # facing W
    assert np.argwhere(white[:, :, 8]).tolist() == [[2, 2]]
    assert np.argwhere(white[:, :, 9:13]).tolist() == [[2, 2, 0]]      # facing N
    assert np.argwhere(white[:, :, 13:17]).tolist() == [[0, 4, 0]]     # my goal 0,4,N
    assert np.argwhere(white[:, :, 17:21]).tolist() == [[0, 0, 0]]     # their goal 0,0,N
    assert not white[:, :, 21:23].any()
    assert (black[:, :, 3:8] == white[:, :, 8:13]).all()
    assert (black[:, :, 8:13] == white[:, :, 3:8]).all()
    assert (black[:, :, 13:17] == white[:, :, 17:21]).all()


def test_coloring_observation_shows_entry_cells():
    game = DoppiaScelta(scheme="swap", setup="coloring")
    state = game.from_notation(pos("R..../...../...../...../.....", "-", "-", "b", SWAP))
    obs = game.observation(state, BLACK)
    assert np.argwhere(obs[:, :, 3]).tolist() == [[0, 4]]
    assert np.argwhere(obs[:, :, 4:8]).tolist() == [[0, 4, 2]]         # inward: S
    assert np.argwhere(obs[:, :, 9:13]).tolist() == [[4, 0, 0]]        # White: N
    assert obs[:, :, 21].sum() == 24 and obs[0, 0, 2] == 1 and obs[0, 0, 21] == 0
    assert obs[:, :, 22].all()


def test_actions_named():
    game = DoppiaScelta()
    state = game.from_notation(pos(F1, "2,2,N", "3,3,N", "w"))
    assert [game.action_to_string(state, a) for a in (0, 1, 2, 3, 77)] == [
        "turn left (yellow)", "straight (gray)", "turn right (red)", "color 0,0 yellow",
        "color 4,4 red"]


# ----- bad input -----------------------------------------------------------------------
@pytest.mark.parametrize("options, message", [
    ({"scheme": "cross"}, "scheme='cross' is not allowed; choose one of 'crossing', "
                          "'shared_goal', 'swap'"),
    ({"setup": "placement"}, "setup='placement' is not allowed"),
    ({"fair": 1}, "fair=1 must be True or False"),
    ({"max_moves": 0}, "max_moves=0 must be an integer >= 1"),
    ({"board": "YGRGYGGRYYRRGGYYYGGRGRYG"}, "expected five rows of five letters separated "
                                            "by '/' or 25 letters in reading order"),
    ({"board": "YGRGYGGRYYRRXGYYYGGRGRYGR"}, "cell 2,2 holds 'X'"),
    ({"board": "YGRGY/GGRYY/RRGGY/YYGGR"}, "expected five rows of five letters"),
    ({"board": "YGRGY/GGRYY/RRXGY/YYGGR/GRYGR"}, "cell 2,2 holds 'X'; use Y"),
    ({"board": "YGRGY/GGRYY/RR.GY/YYGGR/GRYGR"}, "cell 2,2 holds '.'"),
    ({"board": 7}, "board 7 must be a string"),
    ({"board": ALL_YELLOW, "setup": "coloring"}, "cannot be combined with setup='coloring'"),
    ({"board": ALL_YELLOW, "fair": True}, "fair=True redraws random boards"),
    ({"setup": "coloring", "fair": True}, "fair=True redraws random boards"),
    ({"gates": ("4,0,S", "0,4,N", "4,4,S")}, "gates=.* must be four gate strings"),
    ({"gates": "4,0,S 0,4,N 4,4,S 0,0,N"}, "must be four gate strings"),
    ({"gates": ("4,0,S", "0,4,X", "4,4,S", "0,0,N")},
     r"white goal gate '0,4,X': expected 'r,c,D'"),
    ({"gates": ("2,2,N", "0,4,N", "4,4,S", "0,0,N")},
     "white start gate '2,2,N': cell 2,2 is not on the board's N edge"),
    ({"gates": ("4,0,S", "0,4,N", "4,4,E", "4,4,E")},
     "Black's start and goal are the same gate '4,4,E'"),
    ({"gates": ("4,0,S", "0,4,N", "4,4,S", "0,0,N"), "scheme": "swap"},
     "give either a scheme or custom gates"),
    ({"colors": "YGR"}, "unknown option.*'colors'"),
])
def test_bad_options(options, message):
    with pytest.raises(ValueError, match=message):
        doppia_scelta_v0.env(**options)


@pytest.mark.parametrize("text, message", [
    (pos(F1, "2,2,N", "3,3,N", "w").replace(" w", ""), "expected 8 fields"),
    (pos(F1, "2,2,N", "3,3,N", "x"), "side to move 'x'"),
    (pos(F1.replace("/", ""), "2,2,N", "3,3,N", "w"), "separated by '/'"),
    (pos(F1, "2,2,Q", "3,3,N", "w"), "White robot '2,2,Q' must be 'r,c,D'"),
    (pos(F1, "2,2,N", "7,3,N", "w"), "Black robot '7,3,N' must be 'r,c,D'"),
    (pos(F1, "2,2,N", "-1,3,N", "w"), "Black robot '-1,3,N' is off the board; .* written "
                                      "'-1,0,N'"),
    (pos(F1, "-", "3,3,N", "w"), "fully colored, so both robots have entered"),
    (pos(F1, "4,2,N", "3,3,N", "w"), "impossible: White's robot 4,2,N would have stepped in "
                                     "from 5,2, off the board; .* entry pose 4,0,N"),
    (pos(F1, "2,2,N", "1,0,E", "w"), "impossible: Black's robot 1,0,E would have stepped in "
                                     "from 1,-1"),
    (pos(F1, "2,2,N", "4,0,N", "w"), "impossible: Black's robot 4,0,N"),
    (pos("...../...../...../...../.....", "4,0,N", "4,4,N", "w"), "write both robots as '-'"),
    (pos("G..../...../...../...../.....", "-", "-", "w"), "colored cells: 1, so Black colors "
                                                          "next"),
    (pos(WN, "-1,4,N", "2,2,N", "w"), "White left through its goal on its own move"),
    (pos(F1, "2,2,N", "3,3,N", "w", SWAP), "gates 4,0,S 0,4,N 0,4,N 4,0,S differ from this "
                                           "game's gates 4,0,S 0,4,N 4,4,S 0,0,N"),
    (pos(F1, "2,2,N", "3,3,N", "w", "4,0,S 0,4,N 4,4,S 2,2,N"),
     "black goal gate '2,2,N': cell 2,2 is not on the board's N edge"),
    (pos("RGGGY/G..../G..../G..../G....", "-", "-", "w"),
     "impossible: White has a CodyColor path"),
    (pos(F1, "2,2,N", "3,3,N", "w") + " ", "expected 8 fields"),
])
def test_bad_position_strings(text, message):
    with pytest.raises(ValueError, match=message):
        DoppiaScelta().from_notation(text)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_poses_no_play_reaches_are_refused(scheme):
    """Per robot, 19 of the 100 on-board poses are refused: facing away from the edge it
    stands on, except its entry pose; positions reached in play are all accepted."""
    game = DoppiaScelta(scheme=scheme)
    gates = " ".join(SCHEMES[scheme])
    names = [f"{r},{c},{d}" for r in range(5) for c in range(5) for d in "NESW"]
    entry = [game.to_notation(game.opening(F1)).split(" ")[k] for k in (1, 2)]
    reached: list[set[str]] = [set(), set()]
    for board in (F1, P1, "GRYGR/RYGYG/YGRRY/GYYRG/RGGYY"):
        for state in solve_board(game, board).states:
            text = game.to_notation(state)
            assert game.from_notation(text) == state
            reached[0].add(text.split(" ")[1])
            reached[1].add(text.split(" ")[2])
    for player in (WHITE, BLACK):
        refused = set()
        for name in names:
            robots = [name, entry[1]] if player == WHITE else [entry[0], name]
            try:
                game.from_notation(pos(F1, *robots, "wb"[1 - player], gates))
            except ValueError as error:
                assert "impossible" in str(error)
                refused.add(name)
        assert len(refused) == 19
        assert entry[player] not in refused
        assert not refused & reached[player]
        assert all(int(n[0]) in (0, 4) or int(n[2]) in (0, 4) for n in refused)


def test_flat_board_option_gives_the_same_game():
    rows = "YGRGY/GGRYY/RRGGY/YYGGR/GRYGR"
    flat, split = DoppiaScelta(board=rows.replace("/", "")), DoppiaScelta(board=rows)
    assert flat.initial_state(None) == split.initial_state(None)
    assert flat.to_notation(flat.initial_state(None)) == split.to_notation(
        split.initial_state(None))
    env = doppia_scelta_v0.env(board=rows.replace("/", ""))
    env.reset(seed=0)
    assert env.unwrapped.position.split(" ")[0] == rows


# ----- environment ---------------------------------------------------------------------
OPTION_SETS = [{"scheme": s, "setup": setup} for s in SCHEMES for setup in ("random",
                                                                             "coloring")]



def check_doppia_invariants(game: DoppiaScelta, state: DoppiaSceltaState) -> None:
    """Reachable states: no CodyColor path; phase and robots agree; planes match."""
    assert game.path_owner(state.colors) is None
    coloring = "." in state.colors
    assert (state.white == NOT_ENTERED) == coloring == (state.black == NOT_ENTERED)
    assert (state.white == EXITED) == (state.result == WHITE)
    assert (state.black == EXITED) == (state.result == BLACK)
    for player in (WHITE, BLACK):
        obs = game.observation(state, player)
        assert (obs[:, :, [0, 1, 2, 21]].sum(axis=2) == 1).all()
        assert (obs[:, :, 22] == coloring).all()
        for robot, facing in ((3, 4), (8, 9)):
            on_board = obs[:, :, robot].sum()
            assert on_board == obs[:, :, facing:facing + 4].sum() <= 1
            assert (obs[:, :, facing:facing + 4].sum(axis=2) == obs[:, :, robot]).all()
        assert obs[:, :, 13:17].sum() == obs[:, :, 17:21].sum() == 1


@pytest.mark.parametrize("options", OPTION_SETS + [{"gates": ("2,0,W", "2,4,E", "0,2,N",
                                                             "4,2,S")}], ids=str)
def test_fuzz(options):
    game = DoppiaScelta(**options)
    finals = random_playouts(game, n_games=150, seed=3, check=check_doppia_invariants)
    assert {s.result for s in finals} >= {WHITE, BLACK}
    fuzz_env(doppia_scelta_v0, options, n_games=200, seed=7)


@settings(max_examples=60, deadline=None)
@given(action_paths(max_len=60))
def test_property_paths_in_the_coloring_phase(path):
    game = DoppiaScelta(setup="coloring")
    states = follow_path(game, path, seed=0)
    for state in states:
        check_doppia_invariants(game, state)
        assert game.from_notation(game.to_notation(state)) == state
        assert list(np.flatnonzero(game.legal_mask(state))) == list(game.legal_actions(state))
    for before, after in zip(states, states[1:]):
        assert before.colors.count(".") - after.colors.count(".") in (0, 1)



def test_truncation_after_max_moves():
    env = doppia_scelta_v0.env(max_moves=3)
    env.reset(options={"position": pos(ALL_YELLOW, "4,0,N", "4,4,N", "w")})
    for _ in range(3):
        env.step(LEFT)
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert env.unwrapped.position == pos(ALL_YELLOW, "4,0,S", "4,3,W", "b")


def test_env_win_rewards_and_reset_from_position():
    env = doppia_scelta_v0.env()
    env.reset(options={"position": pos(W2, "0,4,N", "1,2,N", "w")})
    env.step(STRAIGHT)
    assert all(env.terminations.values())
    assert env._cumulative_rewards == {"player_0": 1, "player_1": -1}
    assert env.unwrapped.position == pos(W2, "-1,4,N", "1,2,N", "b")


def test_raw_env_raises_and_keeps_state():
    env = doppia_scelta_v0.raw_env()
    start = pos(F2, "2,0,N", "2,2,N", "w")
    env.reset(options={"position": start})
    with pytest.raises(IllegalActionError, match="forced move"):
        env.step(LEFT)
    with pytest.raises(IllegalActionError, match="out of range 0..77"):
        env.step(78)
    assert env.unwrapped.position == start and env.num_moves == 0


def test_same_seed_same_board():
    a, b = doppia_scelta_v0.env(), doppia_scelta_v0.env()
    a.reset(seed=3)
    b.reset(seed=3)
    assert a.unwrapped.position == b.unwrapped.position
    b.reset(seed=4)
    assert a.unwrapped.position != b.unwrapped.position


def test_ansi_render_colors_robots_and_gates(monkeypatch):
    monkeypatch.setenv("FORCE_COLOR", "1")                     # colors asked for
    monkeypatch.delenv("NO_COLOR", raising=False)
    env = doppia_scelta_v0.env(render_mode="ansi")
    env.reset(options={"position": pos(P1, "0,0,W", "2,2,N", "w")})
    text = env.render()
    lines = text.split("\n")
    assert lines[1].split() == ["Bg", "Wg"]                    # goals above 0,0 and 0,4
    assert lines[-3].split() == ["Ws", "Bs"]                   # starts below 4,0 and 4,4
    assert "\x1b[30;47mG◁" in lines[2]                         # White on gray facing W
    assert "\x1b[30;41mR▲" in lines[4]                         # Black on red facing N
    assert "\x1b[30;43mY" in lines[3]
    assert lines[-1] == "White to move: straight (gray), right (red)"
    game, state = env.unwrapped.game, env.unwrapped.game_state
    for typed in ("right (red)", "right", "turn right", "Turn Right (red)"):
        assert game.parse_action(state, typed) == 2            # every name shown is accepted


def test_picture_shows_colors_and_robots():
    env = doppia_scelta_v0.env(render_mode="rgb_array")
    env.reset(options={"position": pos(P1, "0,0,W", "2,2,N", "w")})
    picture = env.render()
    assert picture.shape == (512, 448, 3) and picture.dtype == np.uint8
    cell = 448 // 7
    gray_corner = picture[cell + 6, cell + cell - 8]            # 0,0 away from the robot
    assert tuple(gray_corner) == (150, 150, 150)
    red = picture[3 * cell + 6, 3 * cell + 6]                   # 2,2 corner
    assert tuple(red) == (205, 50, 40)
