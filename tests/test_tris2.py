"""Tris 2: scripted games from the rule texts, a slow reference move generator, perft,
random setups, notation, observation, rendering and the PettingZoo suite."""

from __future__ import annotations

import itertools
import random
import re

import numpy as np
import pytest
from hypothesis import given, settings

from tris_envs import IllegalActionError, tris2_v0
from tris_envs.core import TERMINAL
from tris_envs.games.tris2 import DRAW, ONGOING, ORIENTATIONS, SETUP_TOPS, Tris2
from tris_envs.games.tris2.drawing import status
from tris_envs.games.tris2.notation import last_move_name, winning_line

from checks import (
    action_paths,
    check_state_invariants,
    follow_path,
    fuzz_env,
    play_script,
    random_playouts,
)

# ----- a deliberately simple reference implementation of SPEC section 5 ---------------
# Positions are plain dicts {(row, col): "top north-south east-west"} in frame
# coordinates, read from and written to position strings by code of its own. Nothing here
# shares code or tables with tris_envs.games.tris2.

DIRS = "NESW"
DELTA = {"N": (-1, 0), "E": (0, 1), "S": (1, 0), "W": (0, -1)}
OPPOSITE = {"N": "S", "S": "N", "E": "W", "W": "E"}
BLOCK = [(r, c) for r in range(3) for c in range(3)]


def parse(text):
    """Position string -> (dice, player to move, last move (r, c, D) or None)."""
    board, side, last = text.split(" ")
    dice = {}
    for r, row in enumerate(board.split("|")):
        for c in range(len(row) // 3):
            if row[3 * c:3 * c + 3] != "...":
                dice[r, c] = row[3 * c:3 * c + 3]
    if last == "-":
        return dice, int(side), None
    r, c, d = last.split(",")
    return dice, int(side), (int(r), int(c), d)


def write(dice, to_move, last, placing):
    rows = 3 if placing else max(r for r, _ in dice) + 1
    cols = 3 if placing else max(c for _, c in dice) + 1
    board = "|".join("".join(dice.get((r, c), "...") for c in range(cols))
                     for r in range(rows))
    moved = "-" if last is None else ",".join(map(str, last))
    return f"{board} {to_move} {moved}"


def connected(cells):
    cells = set(cells)
    seen, todo = set(), [next(iter(cells))]
    while todo:
        r, c = todo.pop()
        if (r, c) in seen:
            continue
        seen.add((r, c))
        todo += [(r + dr, c + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)
                 if (r + dr, c + dc) in cells]
    return seen == cells


def has_line(dice):
    """Three equal top symbols in a row, column or diagonal, no gaps."""
    return any(all(dice.get((r + i * dr, c + i * dc), "...")[0] == top[0] for i in (1, 2))
               for (r, c), top in dice.items()
               for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)))


def side_lengths(cells):
    rows = [r for r, _ in cells]
    cols = [c for _, c in cells]
    return max(rows) - min(rows) + 1, max(cols) - min(cols) + 1


def rolled(token, d):
    top, ns, ew = token
    return ns + top + ew if d in "NS" else ew + ns + top


def ref_legal(text, max_side=None):
    """Every legal action of a position string, by trying each one as SPEC §5 words it."""
    dice, _, last = parse(text)
    if len(dice) < 9:
        return {324 + cell * 6 + k for cell, (r, c) in enumerate(BLOCK) if (r, c) not in dice
                for k, token in enumerate(ORIENTATIONS)
                if not has_line({**dice, (r, c): token})}
    if has_line(dice):
        return set()
    legal = set()
    for (r, c) in dice:
        for d, (dr, dc) in DELTA.items():
            target = (r + dr, c + dc)
            after = set(dice) - {(r, c)} | {target}
            if (target not in dice and connected(after)
                    and last != (r, c, OPPOSITE[d])
                    and (max_side is None or max(side_lengths(after)) <= max_side)):
                legal.add((r * 9 + c) * 4 + DIRS.index(d))
    return legal


def ref_apply(text, action):
    """The position string after ``action`` and the winner (None while the game goes on)."""
    dice, to_move, _ = parse(text)
    dice = dict(dice)
    if action >= 324:
        cell, k = divmod(action - 324, 6)
        dice[BLOCK[cell]] = ORIENTATIONS[k]
        return write(dice, 1 - to_move, None, len(dice) < 9), None
    (r, c), d = divmod(action // 4, 9), DIRS[action % 4]
    token = dice.pop((r, c))
    r, c = r + DELTA[d][0], c + DELTA[d][1]
    dice[r, c] = rolled(token, d)
    top = min(row for row, _ in dice)
    left = min(col for _, col in dice)
    dice = {(row - top, col - left): t for (row, col), t in dice.items()}
    after = write(dice, 1 - to_move, (r - top, c - left, d), False)
    return after, (to_move if has_line(dice) else None)


def ref_perft(text, depth, max_side=None):
    """Legal move sequences of exactly ``depth`` plies (a finished game has no moves)."""
    if depth == 0:
        return 1
    return sum(ref_perft(ref_apply(text, action)[0], depth - 1, max_side)
               for action in ref_legal(text, max_side))


def perft(game, state, depth):
    """:func:`ref_perft` with the fast generator."""
    if depth == 1:
        return len(game.legal_actions(state))
    return sum(perft(game, game.apply(state, action), depth - 1)
               for action in game.legal_actions(state))


# ----- helpers -----------------------------------------------------------------------
EXAMPLE = "XO/O/XX/O|/XOOX//OX|O/XXO/OX/ 0 -"      # SPEC §8: a legal random setup
EMPTY_BLOCK = ".........|.........|......... 0 -"


def act(move):
    """``"r,c,D"`` -> roll action; ``"XO/@r,c"`` -> placement action."""
    if "@" in move:
        token, cell = move.split("@")
        r, c = map(int, cell.split(","))
        return 324 + (r * 3 + c) * 6 + ORIENTATIONS.index(token)
    r, c, d = move.split(",")
    return (int(r) * 9 + int(c)) * 4 + DIRS.index(d)


# ----- scripted games ------------------------------------------------------------------
# (name, options, start, [(move, position after)], result at the end)
SCRIPTS = [
    ("X rolled east shows the face on its west; frame grows up, left, shrinks; row of O",
     {}, EXAMPLE, [
         ("0,2,E", "XO/O/X...O/X|/XOOX//OX...|O/XXO/OX/... 1 0,3,E"),    # X/O -> O/X
         ("0,0,N", "OX/.........|...O/X...O/X|/XOOX//OX...|O/XXO/OX/... 0 0,0,N"),
         ("2,0,W", "...OX/.........|......O/X...O/X|OX/...OX//OX...|...O/XXO/OX/... 1 2,0,W"),
         ("0,1,S", "...XO/O/X...O/X|OX/...OX//OX...|...O/XXO/OX/... 0 0,1,S"),
         ("1,0,E", "XO/O/X...O/X|/XOOX//OX...|O/XXO/OX/... 1 1,0,E"),
         ("1,2,N", "XO/O/XO/XO/X|/XOOX/......|O/XXO/OX/... 0 0,2,N"),    # X O O O
     ], 1),
    ("diagonal of O (the seeds' winning example)", {},
     "OX/XO//XO...|X/OO/XXO/...|/OXX/O.../XO 0 -", [
         ("2,3,W", "OX/XO//XO|X/OO/XXO/|/OXX/OOX/ 1 2,2,W"),
     ], 0),
    ("two touching bars in the setup let the first move win", {},
     "XO//XOO/X|/OXOX/X/O|XO/O/XOX/ 0 -", [
         ("0,2,N", "....../OX|XO//XO...|/OXOX/X/O|XO/O/XOX/ 1 0,2,N"),   # / / / diagonal
     ], 0),
    ("placement setup, then player_1 rolls first", {"setup": "placement"}, EMPTY_BLOCK, [
        ("OX/@1,1", ".........|...OX/...|......... 1 -"),
        ("XO/@0,0", "XO/......|...OX/...|......... 0 -"),
        ("/XO@2,2", "XO/......|...OX/...|....../XO 1 -"),
        ("X/O@0,2", "XO/...X/O|...OX/...|....../XO 0 -"),
        ("/OX@2,0", "XO/...X/O|...OX/...|/OX.../XO 1 -"),
        ("O/X@0,1", "XO/O/XX/O|...OX/...|/OX.../XO 0 -"),
        ("XO/@2,1", "XO/O/XX/O|...OX/...|/OXXO//XO 1 -"),
        ("/XO@1,0", "XO/O/XX/O|/XOOX/...|/OXXO//XO 0 -"),
        ("OX/@1,2", "XO/O/XX/O|/XOOX/OX/|/OXXO//XO 1 -"),
        ("1,2,E", "XO/O/XX/O...|/XOOX/.../XO|/OXXO//XO... 0 1,3,E"),
    ], ONGOING),
    ("max_side=3: after the ninth placement no roll fits, a draw",
     {"setup": "placement", "max_side": 3},
     "XO/O/XX/O|/XOOX/...|/OXXO//XO 0 -", [
         ("OX/@1,2", "XO/O/XX/O|/XOOX/OX/|/OXXO//XO 1 -"),    # no roll fits: a draw
     ], DRAW),
]


@pytest.mark.parametrize("name, options, start, moves, result", SCRIPTS,
                         ids=[s[0] for s in SCRIPTS])
def test_scripted_game(name, options, start, moves, result):
    game = Tris2(**options)

    def agrees_with_the_reference(before, action, after):
        assert ref_apply(game.to_notation(before), action)[0] == game.to_notation(after)

    state = play_script(game, start, [(act(move), expected) for move, expected in moves],
                        check=agrees_with_the_reference)
    assert state.result == result
    if result in (0, 1):
        assert game.returns(state)[result] == 1.0 and game.returns(state)[1 - result] == -1.0
        assert game.current_player(state) == TERMINAL and not game.legal_actions(state)
    elif result == DRAW:
        assert game.returns(state) == (0.0, 0.0) and not game.legal_actions(state)


def test_rolling_swaps_the_top_with_the_axis_of_the_roll():
    """Every orientation rolled every way from a corner of a block whose lines cannot
    close: N and S swap top and north-south, E and W swap top and east-west."""
    game = Tris2()
    north_west = "{}O/XX/O|/XOXO//OX|O/XXO/OX/ 0 -"       # corner (0,0) free to vary
    south_east = "XO/O/XX/O|/XOOX//OX|O/XXO/{} 0 -"       # corner (2,2) free to vary
    for token in ORIENTATIONS:
        top, ns, ew = token
        for start, move, cell in ((north_west, "0,0,N", (0, 0)), (north_west, "0,0,W", (0, 0)),
                                  (south_east, "2,2,S", (3, 2)), (south_east, "2,2,E", (2, 3))):
            state = game.apply(game.from_notation(start.format(token)), act(move))
            dice, _, last = parse(game.to_notation(state))
            expected = ns + top + ew if move[-1] in "NS" else ew + ns + top
            assert dice[cell] == expected and last == (*cell, move[-1])
            assert state.result == ONGOING


def test_the_die_moved_last_may_not_roll_straight_back():
    game = Tris2()
    state = game.apply(game.from_notation(EXAMPLE), act("0,2,E"))
    back = act("0,3,W")
    assert back not in game.legal_actions(state)
    assert back in ref_legal("XO/O/X...O/X|/XOOX//OX...|O/XXO/OX/... 1 -")   # only the rule
    with pytest.raises(IllegalActionError, match="undoes the opponent's last move"):
        game.apply(state, back)
    assert act("0,3,S") in game.legal_actions(state)     # the same die, another way
    # after the frame moved, the reversal is still found in the new coordinates
    state = game.apply(state, act("0,0,N"))
    assert "0,0,N" in game.to_notation(state) and act("0,0,S") not in game.legal_actions(state)


# ----- random setups -------------------------------------------------------------------
LINES3 = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8),
          (2, 4, 6)]
EDGE_PAIRS = [(1, 3), (1, 5), (3, 7), (5, 7)]


def setup_allowed(pattern):
    """The seed's two conditions on the top symbols of the 3x3 block (cells r*3 + c)."""
    return (not any(pattern[a] == pattern[b] == pattern[c] for a, b, c in LINES3)
            and all(pattern[a] != pattern[b] for a, b in EDGE_PAIRS))


def test_setup_patterns_are_exactly_the_allowed_ones():
    allowed = {p for p in itertools.product("XO/", repeat=9) if setup_allowed(p)}
    table = {tuple("XO/"[t] for t in row) for row in SETUP_TOPS.tolist()}
    assert table == allowed and len(allowed) == 1020
    assert tuple("X/O/OXXOO") not in allowed                 # two touching bars
    assert tuple("XOX/O/OXO") in allowed                     # SPEC §8 example


def test_random_setups():
    game = Tris2()
    rng = np.random.default_rng(2024)
    patterns, hidden = set(), set()
    for _ in range(300):
        state = game.initial_state(rng)
        text = game.to_notation(state)
        dice, to_move, last = parse(text)
        assert (state.height, state.width, to_move, last) == (3, 3, 0, None)
        assert sorted(dice) == BLOCK and all(t in ORIENTATIONS for t in dice.values())
        pattern = tuple(dice[cell][0] for cell in BLOCK)
        assert setup_allowed(pattern)
        patterns.add(pattern)
        hidden.update(dice.values())
        assert set(game.legal_actions(state)) == ref_legal(text)
        for action in game.legal_actions(state):      # no first move wins
            child = game.apply(state, action)
            assert child.result == ONGOING
            assert connected(parse(game.to_notation(child))[0])
    assert len(patterns) > 250 and hidden == set(ORIENTATIONS)


def test_same_seed_same_setup():
    first = [tris2_v0.env() for _ in range(2)]
    positions = []
    for env in first:
        env.reset(seed=17)
        positions.append(env.unwrapped.position)
    assert positions[0] == positions[1]
    env = tris2_v0.env()
    others = set()
    for seed in range(20):
        env.reset(seed=seed)
        others.add(env.unwrapped.position)
    assert len(others) == 20


# ----- the fast move generator against the reference ------------------------------------
def random_shape(rnd, n=9):
    cells = {(0, 0)}
    while len(cells) < n:
        r, c = rnd.choice(sorted(cells))
        cells.add((r + rnd.choice((-1, 0, 1)), c + rnd.choice((-1, 0, 1))))
    top, left = min(r for r, _ in cells), min(c for _, c in cells)
    return [(r - top, c - left) for r, c in cells]


def random_positions(count, seed, max_side=None):
    """Position strings: random king-connected shapes (many with holes) and their
    children (which carry a last move)."""
    rnd = random.Random(seed)
    game = Tris2(max_side=max_side)
    texts = []
    while len(texts) < count:
        shape = random_shape(rnd)
        if max(side_lengths(shape)) > (max_side or 9):
            continue
        dice = {cell: rnd.choice(ORIENTATIONS) for cell in shape}
        if has_line(dice):
            continue
        text = write(dice, rnd.randint(0, 1), None, False)
        texts.append(text)
        state = game.from_notation(text)
        if game.legal_actions(state):
            child = game.apply(state, rnd.choice(game.legal_actions(state)))
            if child.result == ONGOING:
                texts.append(game.to_notation(child))
    return texts


def playout_positions(options, count, seed):
    game = Tris2(**options)
    rng = np.random.default_rng(seed)
    rnd = random.Random(seed)
    texts = []
    while len(texts) < count:
        state = game.initial_state(rng)
        while state.result == ONGOING and len(texts) < count:
            texts.append(game.to_notation(state))
            state = game.apply(state, rnd.choice(game.legal_actions(state)))
    return texts


@pytest.mark.parametrize("max_side", [None, 4, 5])
def test_fast_generator_matches_reference_in_play(max_side):
    game = Tris2(max_side=max_side)
    setup = "placement" if max_side == 5 else "random"
    texts = playout_positions({"max_side": max_side, "setup": setup}, 1200, seed=9)
    spans = [max(side_lengths(parse(t)[0])) for t in texts if t.count("/") >= 9]
    assert max(spans) == (max_side or max(spans)) and max(spans) >= 4     # dice spread out
    for text in texts:
        assert set(game.legal_actions(game.from_notation(text))) == ref_legal(text, max_side)


@pytest.mark.parametrize("max_side", [None, 5])
def test_fast_generator_matches_reference_on_random_shapes(max_side):
    game = Tris2(max_side=max_side)
    texts = random_positions(1000, seed=4, max_side=max_side)
    for text in texts:
        state = game.from_notation(text)
        assert set(game.legal_actions(state)) == ref_legal(text, max_side), text
    assert sum(" - " not in text for text in texts) > 300      # with a last move


def test_hole_shapes_match_reference():
    """Dice around one-cell and larger holes: the topological shortcuts must agree."""
    game = Tris2()
    shapes = [
        [(0, 1), (1, 0), (1, 2), (2, 1), (2, 2), (3, 2), (4, 2), (4, 3), (5, 4)],   # diamond
        [(0, 1), (0, 2), (1, 0), (1, 3), (2, 1), (2, 2), (2, 3), (3, 3), (4, 4)],   # domino
        [(0, 1), (1, 0), (1, 2), (2, 1), (2, 3), (3, 2), (1, 4), (0, 3), (3, 0)],   # two
        [(0, 2), (1, 1), (1, 3), (2, 0), (2, 4), (3, 1), (3, 3), (4, 2), (5, 2)],   # plus
    ]
    rnd = random.Random(1)
    for shape in shapes:
        for _ in range(20):
            dice = {cell: rnd.choice(ORIENTATIONS) for cell in shape}
            if has_line(dice):
                continue
            text = write(dice, 0, None, False)
            assert set(game.legal_actions(game.from_notation(text))) == ref_legal(text)


def test_transitions_match_reference():
    for options in ({}, {"max_side": 4}, {"setup": "placement"}):
        game = Tris2(**options)
        rng = np.random.default_rng(5)
        rnd = random.Random(5)
        for _ in range(60):
            state = game.initial_state(rng)
            while state.result == ONGOING:
                text = game.to_notation(state)
                action = rnd.choice(game.legal_actions(state))
                state = game.apply(state, action)
                expected, winner = ref_apply(text, action)
                assert game.to_notation(state) == expected
                assert state.result == (winner if winner is not None else
                                        ONGOING if ref_legal(expected, options.get("max_side"))
                                        else DRAW)


# perft: legal move sequences of exactly 1, 2, 3 plies, counted with ref_perft
PERFT = [
    (EXAMPLE, None, [12, 168, 2334]),
    ("XO/O/X...O/X|/XOOX//OX...|O/XXO/OX/... 1 0,3,E", None, [13, 169, 2231]),
    (EXAMPLE, 4, [12, 132, 1223]),
    ("...XO/......|X/O...XO/...|...OX/XO/...|/OXX/O.../XO|/OX......... 0 3,3,E", None,
     [20, 270, 3565]),
    ("...XO/......|X/O...XO/...|...OX/XO/...|/OXX/O.../XO|/OX......... 0 3,3,E", 5,
     [20, 266, 3432]),
    ("...O/XX/O......|/OX......XO/...|...X/OXO/OX/...|.........O/X...|............X/O 0 -",
     None, [21, 308, 4197]),
    ("OX/...O/X............|...X/O...X/O.........|............XO/......|.........X/O......"
     "...|............/XO...O/X|.............../XO... 0 -", None, [9, 84, 854]),
    ("|".join("." * 3 * i + t + "." * 3 * (8 - i) for i, t in enumerate(
        ("O/X", "/XO", "XO/", "/XO", "X/O", "XO/", "/OX", "X/O", "O/X"))) + " 0 -",
     None, [4, 16, 76]),
    (EMPTY_BLOCK, None, [54, 2592, 107712]),
]


@pytest.mark.parametrize("text, max_side, counts", PERFT)
def test_perft(text, max_side, counts):
    game = Tris2(max_side=max_side)
    state = game.from_notation(text)
    assert [perft(game, state, depth) for depth in (1, 2, 3)] == counts
    assert [ref_perft(text, depth, max_side) for depth in (1, 2)] == counts[:2]


# ----- invariants over random play ------------------------------------------------------
def check_tris2(game, state):
    """The frame is the dice's bounding box, dice touch, tokens are orientations, the
    observation shows the board, and the legal actions are those of the reference."""
    text = game.to_notation(state)
    dice, to_move, last = parse(text)
    placing = len(dice) < 9
    legal = game.legal_actions(state)
    assert isinstance(legal, tuple) and list(legal) == sorted(set(legal))
    assert all(token in ORIENTATIONS for token in dice.values())
    if placing:
        assert (state.height, state.width) == (3, 3) and last is None
        assert to_move == len(dice) % 2
    else:
        assert connected(dice)
        rows = {r for r, _ in dice}
        cols = {c for _, c in dice}
        assert min(rows) == min(cols) == 0
        assert (max(rows) + 1, max(cols) + 1) == (state.height, state.width)
        if game.max_side:
            assert max(state.height, state.width) <= game.max_side
    obs = game.observation(state, 0)
    assert (obs == game.observation(state, 1)).all()
    occupied = {(int(r), int(c)) for r, c in zip(*np.nonzero(obs[:, :, 0]))}
    assert occupied == set(dice)
    for (r, c), token in dice.items():
        planes = np.flatnonzero(obs[r, c, 1:10])
        assert [p % 3 for p in planes] == ["XO/".index(s) for s in token]
    marked = {(int(r), int(c)) for r, c in zip(*np.nonzero(obs[:, :, 10]))}
    assert marked == (set() if last is None else {last[:2]})
    if state.result in (ONGOING, DRAW):
        assert set(game.legal_actions(state)) == ref_legal(text, game.max_side)


@pytest.mark.parametrize("options", [{}, {"max_side": 4}, {"setup": "placement"}], ids=str)
def test_random_playouts(options):
    game = Tris2(**options)
    finals = random_playouts(game, n_games=40, seed=8, check=check_tris2)
    finals += random_playouts(game, n_games=600, seed=9)
    results = [s.result for s in finals]
    assert results.count(0) > 100 and results.count(1) > 100


@settings(max_examples=60, deadline=None)
@given(path=action_paths(60))
def test_property_paths(path):
    for options in ({}, {"setup": "placement", "max_side": 4}):
        game = Tris2(**options)
        for state in follow_path(game, path, seed=len(path)):
            check_state_invariants(game, state)
            check_tris2(game, state)
            child_states = [game.apply(state, a) for a in game.legal_actions(state)[:3]]
            assert all(c.to_move != state.to_move for c in child_states)


# ----- illegal actions and bad input ----------------------------------------------------
AFTER_EAST = "XO/O/X...O/X|/XOOX//OX...|O/XXO/OX/... 1 0,3,E"


@pytest.mark.parametrize("options, start, action, reason", [
    ({}, EXAMPLE, act("1,1,N"), r"the target cell 0,1 is occupied"),
    ({}, AFTER_EAST, act("0,3,E"), r"not all be in contact afterwards \(an island"),
    ({}, AFTER_EAST, act("0,3,N"), r"an island"),
    ({}, AFTER_EAST, act("0,3,W"), r"undoes the opponent's last move"),
    ({"max_side": 4}, AFTER_EAST, act("0,3,E"), r"an island"),
    ({"max_side": 4}, "XO/O/X...O/X|/XOOX//OX/XO|O/XXO/...... 0 -", act("1,3,E"),
     r"bounding box would be 3 high and 5 wide, over max_side=4"),
    ({"max_side": 3}, "XO/O/XX/O|/XOOX//OX|O/XXO/OX/ 0 -", act("0,0,N"), None),
    ({}, EXAMPLE, act("0,5,S"), r"there is no die at frame cell 0,5"),
    ({}, EXAMPLE, act("XO/@1,1"), r"placements are only legal while the dice are being "),
    ({}, "XO/......|.........|......... 1 -", act("0,0,E"), r"still being placed"),
    ({}, "XO/......|.........|......... 1 -", act("OX/@0,0"), r"cell 0,0 of the block already"),
    ({}, "XO/XO/...|.........|......... 0 -", act("X/O@0,2"), r"line of three 'X'"),
])
def test_illegal_actions_explained_and_state_unchanged(options, start, action, reason):
    game = Tris2(**options)
    state = game.from_notation(start)
    if reason is None:                        # max_side=3: the block has no move at all
        assert state.result == DRAW and game.current_player(state) == TERMINAL
        reason = "the game is over"
    name = game.action_to_string(state, action)
    with pytest.raises(IllegalActionError, match=reason):
        game.apply(state, action)
    if state.result == ONGOING:
        with pytest.raises(IllegalActionError, match=re.escape(f"action {action} ({name})")):
            game.apply(state, action)
    assert game.to_notation(state) == start


def test_actions_named():
    game = Tris2()
    state = game.from_notation(EXAMPLE)
    assert game.action_to_string(state, act("0,2,E")) == "roll 0,2 E"
    assert game.action_to_string(state, act("/OX@2,1")) == "place /OX at 2,1"
    assert game.action_to_string(state, 378) == "out-of-range action 378"
    for bad in (-1, 378, 1.5, True, "3"):
        with pytest.raises(IllegalActionError):
            game.apply(state, bad)
    assert game.apply(state, np.int64(act("0,2,E"))) == game.apply(state, act("0,2,E"))


@pytest.mark.parametrize("text, message", [
    ("XO/O/XX/O|/XOOX//OX|O/XXO/OX/ 0", "expected '<board> <0|1> <last>'"),
    ("XO/O/XX/O|/XOOX//OX|O/XXO/OX/  0 -", "expected"),
    (None, "expected"),
    ("XO/O/XX/O|/XOOX//OX|O/XXO/OX 0 -", "same number of 3-character cells"),
    ("XO/O/XX/O|/XOOX//OX|O/XXO/OXX 0 -", r"cell 2,2 holds 'OXX'"),
    ("XO/O/XX/O|/XOOX//OX|O/XXO/O.X 0 -", r"cell 2,2 holds 'O.X'"),
    ("XO/O/XX/O|/XOOX//OX|O/XXO/OX/ 2 -", "player to move '2'"),
    ("XO/O/XX/O|/XOOX//OX|O/XXO/OX/ 0 1,1", "'r,c,D' with D one of N, E, S, W"),
    ("XO/O/XX/O|/XOOX//OX|O/XXO/OX/ 0 1,1,Q", "'r,c,D'"),
    ("XO/O/XX/O|/XOOX//OX|O/XXO/OX/ 0 5,1,N", "no die at frame cell 5,1"),
    ("XO/O/XX/O|/XOOX//OX|O/XXO/OX/ 0 1,1,N", r"came from cell 2,1, which is occupied"),
    # frame cells in ASCII digits only (int() also reads '٣' and '02'; '²' it refuses badly)
    ("OX/XO//XO|X/OO/XXO/|/OXX/OOX/ 1 0,\u0663,E", "the column '\u0663' must be one ASCII digit"),
    ("OX/XO//XO|X/OO/XXO/|/OXX/OOX/ 1 0,\u00b2,E", "the column '\u00b2' must be one ASCII digit"),
    ("OX/XO//XO|X/OO/XXO/|/OXX/OOX/ 1 2,02,W", "the column '02' must be one ASCII digit"),
    ("OX/XO//XO|X/OO/XXO/|/OXX/OOX/ 1 00,2,W", "the row '00' must be one ASCII digit"),
    ("OX/XO//XO|X/OO/XXO/|/OXX/OOX/ 1 10,0,E", r"the row '10' must be one ASCII digit 0-8"),
    ("XO/O/XX/O...|/XOOX//OX...|O/XXO/OX/... 0 -", "its right column is empty"),
    ("...XO/O/XX/O|.../XOOX//OX|...O/XXO/OX/ 0 -", "its left column is empty"),
    ("XO/O/XX/O...|/XOOX//OX...|O/XXO/OX/...|.../XO...... 0 -", "there are 10 dice"),
    ("XO/O/XX/O...|/XOOX//OX...|O/XXO/......|........./XO 0 -", "not all in contact"),
    ("XO/XO/XO/|/XOOX//OX|O/XXO/OX/ 0 -", "line of three equal top symbols but no last"),
    ("XO/XO/XO/|/XOOX//OX|O/XXO/...|......OX/ 1 3,2,S",
     "line of three equal top symbols not through the die moved last"),
    ("XO/O/X...O/X|/XOOX//OX...|O/XXO/OX/... 1 0,3,W",
     "before the last move the dice were not all in contact"),
    ("....../XO|XO/XO/...|/XOOX//OX|O/XXO/OX/ 1 0,2,N",
     "before the last move there was already a line of three"),
    ("XO/XO/...|.........|......... 1 -", "player 0 places next"),
    ("XO/XO/...|.........|......... 0 1,1,N", "during the placement setup must be '-'"),
    ("XO/XO/XO/|.........|......... 1 -", "may not make a line of three"),
    ("XO/XO/......|............|............ 0 -", "whose frame is the 3x3 block"),
    ("|".join(["XO/" + "..." * 9] * 2) + " 0 -", "the board has 10 columns"),
])
def test_bad_position_strings(text, message):
    with pytest.raises(ValueError, match=message):
        Tris2().from_notation(text)


def test_position_over_max_side_is_refused():
    text = "XO/O/X...O/X|/XOOX//OX...|O/XXO/OX/... 1 0,3,E"
    with pytest.raises(ValueError, match=r"span 3x4, over max_side=3"):
        Tris2(max_side=3).from_notation(text)
    assert Tris2(max_side=4).from_notation(text).result == ONGOING
    came_from_outside = "XO/O/X...O/X|/XOOX//OX...|O/XXO/OX/... 1 0,0,E"
    assert Tris2().from_notation(came_from_outside).result == ONGOING
    with pytest.raises(ValueError, match=r"before the last move the dice spanned 3x5, over "):
        Tris2(max_side=4).from_notation(came_from_outside)


def test_terminal_positions_from_strings():
    game = Tris2()
    won = game.from_notation("OX/XO//XO|X/OO/XXO/|/OXX/OOX/ 1 2,2,W")
    assert won.result == 0 and game.returns(won) == (1.0, -1.0)
    assert not game.legal_actions(won) and not game.legal_mask(won).any()
    stuck = game.from_notation("/XOOX/XO/|X/O...XO/|XO/O/X/OX 0 -")   # centre blocked for all
    assert stuck.result == DRAW and game.returns(stuck) == (0.0, 0.0)
    assert ref_legal("/XOOX/XO/|X/O...XO/|XO/O/X/OX 0 -") == set()


@pytest.mark.parametrize("options, message", [
    ({"setup": "advanced"}, r"setup='advanced' is not allowed; choose one of 'random', "),
    ({"max_side": 2}, r"max_side=2 must be None \(no limit\) or an integer >= 3"),
    ({"max_side": True}, r"max_side=True must be None"),
    ({"max_side": "4"}, r"max_side='4' must be None"),
    ({"max_side": 4.0}, r"max_side=4.0 must be None"),
    ({"max_moves": 0}, r"max_moves=0 must be an integer >= 1"),
    ({"rule_of_four": True}, r"unknown option.*'rule_of_four'.*allowed: fair, max_moves, max_side"),
])
def test_bad_options(options, message):
    with pytest.raises(ValueError, match=message):
        tris2_v0.env(**options)


def test_max_side_three_leaves_no_move():
    env = tris2_v0.env(max_side=3)
    env.reset(seed=3)
    assert all(env.terminations.values())
    assert env.unwrapped.game_state.result == DRAW
    obs, reward, term, trunc, _ = env.last()
    assert term and reward == 0 and not obs["action_mask"].any()


# ----- views ---------------------------------------------------------------------------
def test_observation_planes():
    game = Tris2()
    state = game.from_notation(AFTER_EAST)
    obs = game.observation(state, 1)
    assert obs.shape == (9, 9, 11) and obs.dtype == np.int8
    assert (obs == game.observation(state, 0)).all()
    assert obs[:, :, 0].sum() == 9 and obs[:3, :4, 0].tolist() == [
        [1, 1, 0, 1], [1, 1, 1, 0], [1, 1, 1, 0]]
    assert obs[0, 0].tolist() == [1, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0]      # XO/
    assert obs[0, 3].tolist() == [1, 0, 1, 0, 0, 0, 1, 1, 0, 0, 1]      # O/X, moved last
    assert not obs[0, 2].any() and not obs[3:].any() and not obs[:, 4:].any()
    placing = game.from_notation("XO/......|.........|......... 1 -")
    assert game.observation(placing, 0)[:, :, 0].sum() == 1
    assert not game.observation(placing, 0)[:, :, 10].any()


def test_ansi_render():
    env = tris2_v0.env(render_mode="ansi")
    env.reset(options={"position": AFTER_EAST})
    assert env.render() == "\n".join([               # each die with its side faces
        "      0       1       2       3",
        "    ┌─O─┐   ┌─/─┐           ╔═/═╗",
        "  0 / X /   X O X     .     X O X",
        "    └─O─┘   └─/─┘           ╚═/═╝",
        "    ┌─X─┐   ┌─X─┐   ┌─O─┐",
        "  1 O / O   / O /   X / X     .",
        "    └─X─┘   └─X─┘   └─O─┘",
        "    ┌─/─┐   ┌─O─┐   ┌─X─┐",
        "  2 X O X   / X /   / O /     .",
        "    └─/─┘   └─O─┘   └─X─┘",
        "(each die: top in the middle; a roll N or S brings up the symbol above and below, E "
        "or W the one beside)",
        "player_1 to roll; last move 0,2 E (now 0,3)",
    ])
    game = env.unwrapped.game
    assert game.render_text(env.unwrapped.game_state, hidden=True) == "\n".join([
        "      0    1    2    3",
        "  0  XO/  O/X  ... [O/X]",
        "  1  /XO  OX/  /OX  ...",
        "  2  O/X  XO/  OX/  ...",
        "(each die: top, north-south, east-west symbol)",
        "player_1 to roll; last move 0,2 E (now 0,3)",
    ])
    env.reset(options={"position": "XO/......|.........|......... 1 -"})
    assert env.render().splitlines()[-1] == "player_1 to place a die (1 of 9 placed)"
    env.step(act("OX/@2,2"))
    assert env.render().splitlines()[-1] == "player_0 to place a die (2 of 9 placed)"


@settings(max_examples=30, deadline=None)
@given(path=action_paths(60))
def test_status_names_the_last_move_as_it_was_typed(path):
    """One notation: the status line's last move is the roll's action_name in the position
    it was played from (the frame may move with the roll), then the cell its die stands on
    now: the position string's ``<last>`` cell; parse_action reads the announcement back."""
    for options in ({}, {"max_side": 4}):
        game = Tris2(**options)
        for state in follow_path(game, path, seed=len(path)):
            for action in game.legal_actions(state)[::7]:
                if action < 324:
                    child = game.apply(state, action)
                    r, c, d = game.to_notation(child).rsplit(" ", 1)[1].split(",")
                    name = f"{game.action_name(state, action)} (now {r},{c})"
                    assert d == name.split()[1]
                    assert last_move_name(child) == game.played_name(state, action, child) == name
                    assert f"last move {name}" in status(child)
                    assert game.parse_action(state, name) == action


def test_status_names_the_winning_line():
    game = Tris2()
    state = game.from_notation("OX/XO//XO|X/OO/XXO/|/OXX/OOX/ 1 2,2,W")
    assert winning_line(state) == "0,0 1,1 2,2"
    assert status(state) == "player_0 wins with the line 0,0 1,1 2,2; last move 2,3 W (now 2,2)"
    assert winning_line(game.from_notation(AFTER_EAST)) == ""


def test_picture_marks_the_last_die():
    env = tris2_v0.env(render_mode="rgb_array")
    env.reset(options={"position": AFTER_EAST})
    picture = env.render()
    assert picture.shape == (530, 480, 3) and picture.dtype == np.uint8
    red = (picture[:, :, 0] > 200) & (picture[:, :, 1] < 90) & (picture[:, :, 2] < 70)
    rows, cols = np.nonzero(red)
    # the highlight and the X symbols are red; the rightmost red is the frame of die 0,3
    assert cols.max() > 400 and rows[cols > 400].max() < 200
    env.reset(seed=1)
    assert env.render().shape == (530, 480, 3)      # one size whatever the frame


# ----- environment ---------------------------------------------------------------------
OPTION_SETS = [{}, {"setup": "placement"}, {"max_side": 4}]



@pytest.mark.parametrize("options", OPTION_SETS, ids=str)
def test_fuzz_env(options):
    fuzz_env(tris2_v0, options, n_games=1000, seed=11)



def test_truncation_after_max_moves():
    env = tris2_v0.env(max_moves=4)
    env.reset(options={"position": EXAMPLE})
    for move in ("0,2,E", "0,0,N", "2,0,W", "0,1,S"):
        env.step(act(move))
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert env.rewards == {"player_0": 0, "player_1": 0}
    assert env.unwrapped.position == "...XO/O/X...O/X|OX/...OX//OX...|...O/XXO/OX/... 0 0,1,S"


def test_env_win_rewards_and_reset_from_position():
    env = tris2_v0.env()
    env.reset(options={"position": "OX/XO//XO...|X/OO/XXO/...|/OXX/O.../XO 0 -"})
    assert env.agent_selection == "player_0"
    env.step(act("2,3,W"))
    assert all(env.terminations.values())
    assert env._cumulative_rewards == {"player_0": 1, "player_1": -1}
    assert env.unwrapped.position == "OX/XO//XO|X/OO/XXO/|/OXX/OOX/ 1 2,2,W"


def test_raw_env_raises_and_keeps_state():
    env = tris2_v0.raw_env()
    env.reset(options={"position": AFTER_EAST})
    with pytest.raises(IllegalActionError,
                       match=r"action 15 \(roll 0,3 W\) is illegal: it undoes the opponent"):
        env.step(act("0,3,W"))
    with pytest.raises(IllegalActionError, match="out of range 0..377"):
        env.step(378)
    assert env.unwrapped.position == AFTER_EAST and env.num_moves == 0


def test_wrapped_env_illegal_move_loses():
    env = tris2_v0.env()
    env.reset(options={"position": AFTER_EAST})
    env.step(act("0,3,W"))
    assert env._cumulative_rewards == {"player_0": 0, "player_1": -1}
    assert all(env.terminations.values())


def shapes_of_nine():
    """Every king-connected shape of nine cells up to translation (Redelmeier's method),
    anchored at the top-left of its bounding box."""
    steps = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc]

    def grow(cells, untried, seen):
        if len(cells) == 9:
            top = min(r for r, _ in cells)
            left = min(c for _, c in cells)
            yield [(r - top, c - left) for r, c in cells]
            return
        untried = list(untried)
        while untried:
            cell = untried.pop()
            new = [(cell[0] + dr, cell[1] + dc) for dr, dc in steps]
            new = [n for n in new if (n[0] > 0 or n[0] == 0 and n[1] >= 0) and n not in seen]
            yield from grow(cells + [cell], untried + new, seen | set(new))

    yield from grow([], [(0, 0)], {(0, 0)})


@pytest.mark.slow
def test_every_shape_has_a_roll():
    """940,982 shapes (OEIS A006770). Rolls keeping contact do not depend on the symbols,
    so the shapes go straight to the generator; the fewest, 4, belong to the diagonal:
    with any max_side >= 4 nobody is ever left without a roll."""
    from tris_envs.games.tris2.moves import padded
    games = {m: Tris2(max_side=m) for m in (None, 4, 5, 6, 7, 8)}
    fewest = dict.fromkeys(games, 99)
    count = 0
    for shape in shapes_of_nine():
        count += 1
        height, width = side_lengths(shape)
        occupied = sum(1 << padded(r, c) for r, c in shape)
        for max_side, game in games.items():
            if max(height, width) <= (max_side or 9):
                rolls = game._rolls(occupied, height, width, -1).bit_count()
                fewest[max_side] = min(fewest[max_side], rolls)
    assert count == 940_982
    assert fewest == dict.fromkeys(games, 4) | {4: 6, 5: 5}


def test_fair_setups_always_leave_the_first_player_a_safe_roll():
    from tris_envs.core.game import allows_win

    def unsafe(game, state):
        return all(allows_win(game, state, a) for a in game.legal_actions(state))

    plain, fair = Tris2(), Tris2(fair=True)
    rng = np.random.default_rng(0)
    assert sum(unsafe(plain, plain.initial_state(rng)) for _ in range(2000)) > 0
    rng = np.random.default_rng(0)
    assert not any(unsafe(fair, fair.initial_state(rng)) for _ in range(2000))
    with pytest.raises(ValueError, match="fair=True redraws random setups"):
        Tris2(setup="placement", fair=True)
    # with max_side=3 no roll exists: nothing to redraw, the setup is a draw at once
    stuck = Tris2(fair=True, max_side=3).initial_state(np.random.default_rng(0))
    assert stuck.result == DRAW and not stuck.legal


def test_proven_winner_covers_the_last_six_placements_only():
    """``proven_winner`` is ``(1, placements left + 1)`` exactly where ``placement_safe``
    says ``player_0`` cannot deny ``player_1`` a winning first roll, with at most six
    placements left; earlier, in the rolling phase and in finished games it proves
    nothing."""
    game = Tris2(setup="placement")
    rng = np.random.default_rng(5)
    proven = set()
    for _ in range(30):
        state = game.initial_state(rng)
        while not game.is_terminal(state):
            left = 9 - state.occupied.bit_count()
            proof = game.proven_winner(state, {})
            if not state.placing or left > 6:
                assert proof is None
            else:
                lost = not game.placement_safe(state, {})
                assert proof == ((1, left + 1) if lost else None)
                proven.add(proof is not None)
            state = game.apply(state, int(rng.choice(game.legal_actions(state))))
        assert game.proven_winner(state, {}) is None
    assert proven == {True, False}
    rolling = Tris2().initial_state(rng)
    assert Tris2().proven_winner(rolling, {}) is None


def test_the_placement_search_agrees_with_plain_minimax():
    """``Tris2.placement_safe`` solves the placement phase (``benchmarks/tris2_facts.py``,
    the ``az`` search's proofs); on positions with three placements left (``player_0``,
    ``player_1``, ``player_0``) it must give what the three nested loops give, and find
    both answers among them."""
    from tris_envs.core.game import can_win_at_once

    game = Tris2(setup="placement")

    def safe_after_last(state):
        return game.is_terminal(state) or not can_win_at_once(game, state)

    def plain(state):
        return any(game.is_terminal(s1) or all(
            game.is_terminal(s2) or any(safe_after_last(game.apply(s2, c))
                                        for c in game.legal_actions(s2))
            for s2 in (game.apply(s1, b) for b in game.legal_actions(s1)))
            for s1 in (game.apply(state, a) for a in game.legal_actions(state)))

    rng = random.Random(0)
    answers = set()
    for _ in range(12):
        state = game.initial_state(np.random.default_rng(0))
        for _ in range(6):
            state = game.apply(state, rng.choice(game.legal_actions(state)))
        answer = game.placement_safe(state, {})
        assert answer == plain(state)
        answers.add(answer)
    assert answers == {True, False}
