"""Tant Fant: scripted games for every rule, solved values, env behaviour."""

from __future__ import annotations

import itertools

import pytest

from tris_envs import IllegalActionError, tant_fant_v0
from tris_envs.core import solve
from tris_envs.games.tant_fant import DRAW, NEIGHBOURS, ONGOING, POINT_NAMES, TantFant

from checks import fuzz_env, play_script, random_playouts

START = "BBB/.../WWW w"
ALL_OPTIONS = [
    {"stalemate": s, "repetition_draw": r, "diagonal_only": d}
    for s, r, d in itertools.product(("draw", "loss"), (False, True), (False, True))
]


def action(move: str) -> int:
    frm, to = move.split("-")
    return POINT_NAMES.index(frm) * 9 + POINT_NAMES.index(to)


# (name, options, start, [(move, position after)], (result, ending) at the end)
SCRIPTS = [
    ("rank-2 line wins for White", {}, START, [
        ("c1-c2", "BBB/..W/WW. b"),
        ("b3-b2", "B.B/.BW/WW. w"),
        ("a1-a2", "B.B/WBW/.W. b"),
        ("b2-b3", "BBB/W.W/.W. w"),    # Black back on its own base: no win
        ("b1-b2", "BBB/WWW/... b"),
    ], (0, "line")),
    ("diagonal only: same game ends in stalemate, drawn", {"diagonal_only": True}, START, [
        ("c1-c2", "BBB/..W/WW. b"),
        ("b3-b2", "B.B/.BW/WW. w"),
        ("a1-a2", "B.B/WBW/.W. b"),
        ("b2-b3", "BBB/W.W/.W. w"),
        ("b1-b2", "BBB/WWW/... b"),    # rank 2 does not win; Black cannot move
    ], (DRAW, "stalemate")),
    ("diagonal only, stalemate loss", {"diagonal_only": True, "stalemate": "loss"}, START, [
        ("c1-c2", "BBB/..W/WW. b"),
        ("b3-b2", "B.B/.BW/WW. w"),
        ("a1-a2", "B.B/WBW/.W. b"),
        ("b2-b3", "BBB/W.W/.W. w"),
        ("b1-b2", "BBB/WWW/... b"),
    ], (0, "stalemate")),
    ("White back on its own base rank does not win", {}, START, [
        ("b1-b2", "BBB/.W./W.W b"),
        ("a3-a2", ".BB/BW./W.W w"),
        ("b2-b1", ".BB/B../WWW b"),
    ], (ONGOING, "")),
    ("Black wins on White's base rank", {}, "W.W/WB./B.B b", [
        ("b2-b1", "W.W/W../BBB w"),
    ], (1, "line")),
    ("White wins on Black's base rank", {}, "W.W/BWB/..B w", [
        ("b2-b3", "WWW/B.B/..B b"),
    ], (0, "line")),
    ("diagonal wins with all lines", {}, "BB./BWW/W.. w", [
        ("c2-c3", "BBW/BW./W.. b"),
    ], (0, "line")),
    ("diagonal wins with diagonal_only", {"diagonal_only": True}, "BB./BWW/W.. w", [
        ("c2-c3", "BBW/BW./W.. b"),
    ], (0, "line")),
]
REPETITION = [
    ("c1-c2", "BBB/..W/WW. b"),
    ("a3-a2", ".BB/B.W/WW. w"),
    ("c2-c1", ".BB/B../WWW b"),
    ("a2-a3", "BBB/.../WWW w"),    # second occurrence of the start
    ("c1-c2", "BBB/..W/WW. b"),
    ("a3-a2", ".BB/B.W/WW. w"),
    ("c2-c1", ".BB/B../WWW b"),
    ("a2-a3", "BBB/.../WWW w"),    # third occurrence
]
SCRIPTS += [
    ("threefold repetition draws", {"repetition_draw": True}, START, REPETITION,
     (DRAW, "repetition")),
    ("repetition ignored by default", {}, START, REPETITION, (ONGOING, "")),
]


@pytest.mark.parametrize("name, options, start, moves, outcome",
                         [s for s in SCRIPTS if s[4] is not None], ids=lambda x: x
                         if isinstance(x, str) else "")
def test_scripted_game(name, options, start, moves, outcome):
    state = play_script(TantFant(**options), start, moves)
    assert (state.result, state.ending) == outcome


def test_file_wins_only_with_all_lines():
    position, move, after = "BBW/..W/BW. w", "b1-c1", "BBW/..W/B.W b"
    for options, outcome in (({}, (0, "line")), ({"diagonal_only": True}, (ONGOING, ""))):
        game = TantFant(**options)
        state = game.apply(game.from_notation(position), action(move))
        assert game.to_notation(state) == after
        assert (state.result, state.ending) == outcome


def test_moves_follow_lines_only():
    game = TantFant()
    start = game.from_notation(START)
    moves = {game.action_to_string(start, a) for a in game.legal_actions(start)}
    assert moves == {"a1-a2", "a1-b2", "b1-b2", "c1-b2", "c1-c2"}
    assert NEIGHBOURS[4] == (0, 1, 2, 3, 5, 6, 7, 8)        # b2: every point
    assert NEIGHBOURS[1] == (0, 2, 4)                        # b1: no a2 / c2
    assert NEIGHBOURS[0] == (1, 3, 4)                        # a1: b1, a2, b2
    assert NEIGHBOURS[3] == (0, 4, 6)                        # a2: a1, b2, a3


@pytest.mark.parametrize("start, move, reason", [
    (START, "b1-a2", "b1 and a2 are not adjacent on a line"),
    (START, "a1-b1", "b1 is occupied"),
    (START, "a3-a2", "no White piece on a3"),
    (START, "a2-a3", "no White piece on a2"),
    ("W.W/WB./B.B b", "a2-b2", "no Black piece on a2"),
])
def test_illegal_moves_explained_and_state_unchanged(start, move, reason):
    game = TantFant()
    state = game.from_notation(start)
    with pytest.raises(IllegalActionError, match=reason):
        game.apply(state, action(move))
    assert game.to_notation(state) == start


def test_reset_position_counts_as_first_occurrence():
    game = TantFant(repetition_draw=True)
    state = game.from_notation(".BB/B.W/WW. w")
    for move, _ in REPETITION[2:6]:         # back to ".BB/B.W/WW. w": second occurrence
        state = game.apply(state, action(move))
    assert state.result == ONGOING and game.to_notation(state) == ".BB/B.W/WW. w"
    for move, _ in REPETITION[2:6]:         # and again: third occurrence
        state = game.apply(state, action(move))
    assert (state.result, state.ending) == (DRAW, "repetition")


@pytest.mark.parametrize("diagonal_only, reachable", [(False, 3080), (True, 3272)])
@pytest.mark.parametrize("stalemate", ["draw", "loss"])
def test_start_is_a_draw_under_perfect_play(stalemate, diagonal_only, reachable):
    game = TantFant(stalemate=stalemate, diagonal_only=diagonal_only)
    solution = solve(game, game.initial_state())
    assert solution.value(game.initial_state()) == 0
    assert len(solution) == reachable
    # of the 3,360 positions with side to move (C(9,3) * C(6,3) * 2), these are reachable
    assert reachable < 3360


def test_stalemate_never_arises_with_all_lines():
    game = TantFant()
    solution = solve(game, game.initial_state())
    assert not [s for s in solution.states if s.ending == "stalemate"]
    diagonal = TantFant(diagonal_only=True)
    stalemates = [s for s in solve(diagonal, diagonal.initial_state()).states
                  if s.ending == "stalemate"]
    assert len(stalemates) == 8


def test_solver_wins_are_fastest():
    game = TantFant()
    solution = solve(game, game.initial_state())
    state = game.from_notation("BB./BWW/W.. w")
    assert solution.value(state) == 1
    assert solution.best_actions(state) == [action("c2-c3")]
    assert solution.plies[solution.row(state)] == 1


@pytest.mark.parametrize("text, message", [
    ("BBB/.../WWW", "expected '<rank3>/<rank2>/<rank1> <w|b>'"),
    ("BBB/.../WWW x", "side to move 'x'"),
    ("BBB/..../WW w", "three ranks of three"),
    ("BBB/.X./WWW w", "b2 holds 'X'"),
    ("BBB/.W./WWW w", "White has 4 pieces"),
    ("BB./.../WWW w", "Black has 2 pieces"),
    ("BB./WWW/..B w", "White, to move, already has a winning line"),
    ("BBB/.../WWW  w", "expected"),
])
def test_bad_position_strings(text, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace("|", r"\|")):
        TantFant().from_notation(text)


@pytest.mark.parametrize("text", [".../BBB/WWW b", ".../WWW/BBB w", ".BW/.BW/.BW b",
                                  ".WB/.WB/.WB w", "BBB/WWW/... w", "BW./BW./BW. w",
                                  "WB./WB./WB. b", "WWW/BBB/... b"])
def test_last_mover_must_have_come_from_an_empty_point(text):
    # with all lines the side to move has a line here; with diagonal_only they parsed
    with pytest.raises(ValueError, match="moved last but has no piece next to an empty point"):
        TantFant(diagonal_only=True).from_notation(text)


@pytest.mark.parametrize("diagonal_only", [False, True])
def test_position_strings_accept_exactly_the_reachable_positions(diagonal_only):
    game = TantFant(diagonal_only=diagonal_only)
    reachable = {(s.white, s.black, s.to_move)
                 for s in solve(game, game.initial_state()).states}
    accepted = set()
    for white in itertools.combinations(range(9), 3):
        for black in itertools.combinations(sorted(set(range(9)) - set(white)), 3):
            cells = ["W" if p in white else "B" if p in black else "." for p in range(9)]
            board = "/".join("".join(cells[r * 3:r * 3 + 3]) for r in (2, 1, 0))
            for side in "wb":
                try:
                    state = game.from_notation(f"{board} {side}")
                except ValueError:
                    continue
                accepted.add((state.white, state.black, state.to_move))
    assert accepted == reachable
    assert len(accepted) == (3272 if diagonal_only else 3080)


def test_terminal_position_strings_are_recognised():
    game = TantFant()
    won = game.from_notation("WWW/B.B/..B b")
    assert (won.result, won.ending) == (0, "line")
    assert game.render_text(won).splitlines()[-1] == "White wins with the line a3 b3 c3"
    stalemated = TantFant(diagonal_only=True).from_notation("BBB/WWW/... b")
    assert (stalemated.result, stalemated.ending) == (DRAW, "stalemate")
    assert game.render_text(stalemated).splitlines()[-1] == "Draw (stalemate)"


def test_picture_has_a_status_line_and_marks_the_winning_line():
    env = tant_fant_v0.env(render_mode="rgb_array")
    env.reset(options={"position": "WWW/B.B/..B b"})
    won = env.render()
    env.reset(options={"position": "WW./BWB/..B b"})
    ongoing = env.render()
    assert won.shape == ongoing.shape == (440, 400, 3)
    assert (won[400:] != won[400, 0]).any()                   # the status band has text
    highlight = (won[:, :, 0] > 200) & (won[:, :, 1] < 90)
    assert highlight[:200].sum() > 500 and not highlight[200:].any()   # the top row


@pytest.mark.parametrize("options, message", [
    ({"stalemate": "lose"}, "stalemate='lose' is not allowed; choose one of 'draw', 'loss'"),
    ({"diagonal_only": 1}, "diagonal_only=1 must be True or False"),
    ({"repetition_draw": "yes"}, "repetition_draw='yes' must be True or False"),
    ({"max_moves": 0}, "max_moves=0 must be an integer >= 1"),
    ({"diagonals": True}, "unknown option.*'diagonals'.*allowed: diagonal_only, max_moves"),
    ({"render_mode": "text"}, "render_mode='text' is not allowed"),
])
def test_bad_options(options, message):
    with pytest.raises(ValueError, match=message):
        tant_fant_v0.env(**options)


def test_truncation_after_max_moves():
    env = tant_fant_v0.env(max_moves=4)
    env.reset(seed=1)
    for move, _ in REPETITION[:4]:
        env.step(action(move))
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert env.rewards == {"player_0": 0, "player_1": 0}
    assert env.unwrapped.position == START


def test_env_win_rewards_and_reset_from_position():
    env = tant_fant_v0.env()
    env.reset(options={"position": "W.W/WB./B.B b"})
    assert env.agent_selection == "player_1"
    env.step(action("b2-b1"))
    assert all(env.terminations.values())
    assert env._cumulative_rewards == {"player_0": -1, "player_1": 1}
    assert env.unwrapped.position == "W.W/W../BBB w"


def test_raw_env_raises_and_keeps_state():
    env = tant_fant_v0.raw_env()
    env.reset()
    with pytest.raises(IllegalActionError,
                       match=r"action 12 \(b1-a2\) is illegal: b1 and a2 are not adjacent"):
        env.step(action("b1-a2"))
    with pytest.raises(IllegalActionError, match="out of range 0..80"):
        env.step(81)
    assert env.unwrapped.position == START and env.num_moves == 0


def test_wrapped_env_illegal_move_loses():
    env = tant_fant_v0.env()
    env.reset()
    env.step(action("b1-a2"))
    assert env._cumulative_rewards == {"player_0": -1, "player_1": 0}
    assert all(env.terminations.values())
    with pytest.raises(AssertionError):
        env.step(200)


def test_observation_planes():
    game = TantFant()
    state = game.from_notation("W.W/WB./B.B b")
    obs = game.observation(state, 1)        # Black's view, row 0 = rank 1
    assert obs[:, :, 0].tolist() == [[1, 0, 1], [0, 1, 0], [0, 0, 0]]
    assert obs[:, :, 1].tolist() == [[0, 0, 0], [1, 0, 0], [1, 0, 1]]
    assert obs[:, :, 2].tolist() == [[0, 0, 0], [0, 0, 0], [1, 1, 1]]
    assert obs[:, :, 3].tolist() == [[1, 1, 1], [0, 0, 0], [0, 0, 0]]



@pytest.mark.parametrize("options", ALL_OPTIONS, ids=str)
def test_fuzz(options):
    fuzz_env(tant_fant_v0, options, n_games=300, seed=7)
    finals = random_playouts(TantFant(**options), n_games=300, seed=3,
                             notation_complete=not options["repetition_draw"])
    assert any(s.result != ONGOING for s in finals)



def test_ansi_render():
    env = tant_fant_v0.env(render_mode="ansi")
    env.reset()
    assert env.render() == "\n".join([
        "3  B ─ B ─ B",
        "   │ ╲ │ ╱ │",
        "2  . ─ . ─ .",
        "   │ ╱ │ ╲ │",
        "1  W ─ W ─ W",
        "   a   b   c",
        "White to move",
    ])
