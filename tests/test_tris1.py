"""Tris 1: plays exactly like PettingZoo's tictactoe_v3; solved value; bad input."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest

from tris_envs import IllegalActionError, tris1_v0
from tris_envs.core import solve
from tris_envs.core.drawing import HIGHLIGHT
from tris_envs.games.tris1 import DRAW, Tris1

from checks import fuzz_env, play_script, random_playouts

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from pettingzoo.classic import tictactoe_v3


def to_pettingzoo(action: int) -> int:
    """Our row-major cell -> tictactoe_v3's column-major cell."""
    row, col = divmod(action, 3)
    return col * 3 + row


@pytest.mark.parametrize("seed", range(4))
def test_plays_exactly_like_tictactoe_v3(seed):
    rnd = random.Random(seed)
    ours, theirs = tris1_v0.env(), tictactoe_v3.env()
    for _ in range(150):
        ours.reset()
        theirs.reset()
        while True:
            obs, reward, term, trunc, _ = ours.last()
            ref_obs, ref_reward, ref_term, ref_trunc, _ = theirs.last()
            # tictactoe_v3's observation is indexed [col, row]
            assert (obs["observation"] == ref_obs["observation"].transpose(1, 0, 2)).all()
            assert (reward, term, trunc) == (ref_reward, ref_term, ref_trunc)
            if term or trunc:
                # tictactoe_v3 still lists empty cells after the end; SPEC §2 wants zeros
                assert not obs["action_mask"].any()
                break
            assert [obs["action_mask"][a] for a in range(9)] == [
                ref_obs["action_mask"][to_pettingzoo(a)] for a in range(9)]
            move = rnd.choice(np.flatnonzero(obs["action_mask"]).tolist())
            ours.step(move)
            theirs.step(to_pettingzoo(move))
        assert ours._cumulative_rewards == dict(zip(ours.possible_agents,
                                                    theirs._cumulative_rewards.values()))


def test_solved_value_is_a_draw():
    game = Tris1()
    solution = solve(game, game.initial_state())
    assert len(solution) == 5478
    assert solution.value(game.initial_state()) == 0
    # every first move keeps the draw; after an edge opening O must answer next to it,
    # in the centre or on the opposite edge
    assert solution.optimal_actions(game.initial_state()) == list(range(9))
    after_edge = game.from_notation(".X./.../...")
    assert sorted(solution.optimal_actions(after_edge)) == [0, 2, 4, 7]


SCRIPTS = [
    ("X wins on a row", [0, 3, 1, 4, 2], ["X../.../...", "X../O../...", "XX./O../...",
                                         "XX./OO./...", "XXX/OO./..."], 0),
    ("O wins on a diagonal", [1, 0, 2, 4, 3, 8], ["", "", "", "", "", "OXX/XO./..O"], 1),
    ("full board draws", [0, 1, 2, 4, 3, 5, 7, 6, 8], [""] * 8 + ["XOX/XOO/OXX"], DRAW),
]


@pytest.mark.parametrize("name, moves, positions, result", SCRIPTS, ids=[s[0] for s in SCRIPTS])
def test_scripted_games(name, moves, positions, result):
    state = play_script(Tris1(), None, [(m, p or None) for m, p in zip(moves, positions)])
    assert state.result == result


@pytest.mark.parametrize("text, message", [
    ("XX./.../", "three rows of three"),
    ("XX./.../..", "three rows of three"),
    ("XA./.../...", "row 0, column 1 holds 'A'"),
    ("OO./.../...", "0 X and 2 O"),
    ("XXX/O../...", "3 X and 1 O"),
    ("XXX/OOO/...", "X completed a line, but play went on"),
    ("OOO/XX./XX.", "O completed a line, but play went on"),
])
def test_bad_position_strings(text, message):
    with pytest.raises(ValueError, match=message):
        Tris1().from_notation(text)


def test_terminal_positions_from_strings():
    game = Tris1()
    assert game.from_notation("XXX/OO./...").result == 0
    assert game.from_notation("OOO/XX./X..").result == 1
    assert game.from_notation("XOX/XOO/OXX").result == DRAW


def test_illegal_move_on_raw_env():
    env = tris1_v0.raw_env()
    env.reset(options={"position": "X../.../..."})
    with pytest.raises(IllegalActionError, match="row 0, column 0 already shows a symbol"):
        env.step(0)
    with pytest.raises(IllegalActionError, match="out of range 0..8"):
        env.step(9)
    with pytest.raises(IllegalActionError, match="not an integer"):
        env.step(None)
    assert env.unwrapped.position == "X../.../..." and env.agent_selection == "player_1"


def test_observation_is_row_major_from_the_observers_view():
    game = Tris1()
    state = game.from_notation("X.O/.X./...")
    assert game.observation(state, 0)[:, :, 0].tolist() == [[1, 0, 0], [0, 1, 0], [0, 0, 0]]
    assert game.observation(state, 1)[:, :, 0].tolist() == [[0, 0, 1], [0, 0, 0], [0, 0, 0]]
    assert game.observation(state, 1)[:, :, 1].tolist() == [[1, 0, 0], [0, 1, 0], [0, 0, 0]]



def test_fuzz():
    fuzz_env(tris1_v0, {}, n_games=1000, seed=11)
    finals = random_playouts(Tris1(), n_games=1000, seed=12)
    assert {s.result for s in finals} == {0, 1, DRAW}


def test_status_names_the_winning_line_and_the_picture_shows_it():
    game = Tris1()
    won = game.from_notation("XO./OX./..X")
    assert game.render_text(won).splitlines()[-1] == "X wins with the line 0,0 1,1 2,2"
    assert game.render_text(game.from_notation("XOX/XOO/OXX")).splitlines()[-1] == "Draw"
    env = tris1_v0.env(render_mode="rgb_array")
    env.reset(options={"position": "XO./OX./..X"})
    picture = env.render()
    assert picture.shape == (440, 400, 3)
    assert (picture[405:] != picture[405, 0]).any()           # the status band has text
    outlined = (picture == HIGHLIGHT).all(axis=-1)
    side = 400 / 3.4
    corner = (400 - 3 * side) / 2
    per_die = [[outlined[int(corner + r * side):int(corner + (r + 1) * side),
                         int(corner + c * side):int(corner + (c + 1) * side)].any()
                for c in range(3)] for r in range(3)]
    assert per_die == [[True, False, False], [False, True, False], [False, False, True]]


def test_ansi_render_shows_blank_dice():
    env = tris1_v0.env(render_mode="ansi")
    env.reset(options={"position": "X../.O./..."})
    assert env.render().splitlines()[1:4] == ["  0  X │ / │ /", "    ───┼───┼───",
                                              "  1  / │ O │ /"]
