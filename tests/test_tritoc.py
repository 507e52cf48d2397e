"""Tritoc: scripted positions for every rule, exact and sampled dice, env behaviour."""

from __future__ import annotations

import copy
import random
import re
from collections import Counter, defaultdict
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tris_envs import IllegalActionError, tritoc_v0
from tris_envs.core import CHANCE, TERMINAL
from tris_envs.games.tritoc import (
    ALL_PLAYABLE,
    DRAW,
    MAGIC,
    MUST_PASS,
    ONGOING,
    ORDERED,
    PASS,
    Tritoc,
)

from checks import (
    action_paths,
    benchmark_script,
    check_state_invariants,
    follow_path,
    fuzz_env,
    play_script,
    random_playouts,
)

EMPTY = "."
SUMS = range(2, 13)
# 81 numbers: field f holds the ordered field 3..11 rotated by f places
CUSTOM = [0] * 81
for _f in range(9):
    for _k in range(9):
        CUSTOM[(_f // 3 * 3 + _k // 3) * 9 + _f % 3 * 3 + _k % 3] = 3 + (_k + _f) % 9
OPTION_SETS = [
    {},
    {"layout": "magic"},
    {"layout": "random"},
    {"layout": CUSTOM},
    {"dice": "equal"},
    {"dice": "equal", "layout": "random", "reward": "points", "max_rerolls": 0},
]
DICE = {
    "2d6": {s: Fraction(6 - abs(s - 7), 36) for s in SUMS},
    "equal": {s: Fraction(1 if s in (2, 12) else 3, 29) for s in SUMS},
}


def hole(r: int, c: int) -> int:
    return r * 9 + c


def board(fields: str = "." * 9, stones: dict[tuple[int, int], str] | None = None) -> str:
    """Rows part of a position: ``fields`` fills whole fields (W/B/.), then single stones."""
    cells = [fields[(h // 27) * 3 + (h % 9) // 3] for h in range(81)]
    for (r, c), stone in (stones or {}).items():
        cells[hole(r, c)] = stone
    return "/".join("".join(cells[r * 9:r * 9 + 9]) for r in range(9))


def position(rows: str, side: str = "w", roll: str = "?", passes: int = 0,
             layout: str | None = None) -> str:
    text = f"{rows} {side} {roll} {passes}"
    return f"{text} {layout}" if layout else text


EMPTY_BOARD = board()
# White two on a diagonal of field 0, Black two stones in it and one far away
CONQUEST = board(stones={(0, 0): "W", (1, 1): "W", (0, 1): "B", (1, 0): "B", (8, 8): "B"})
# field 0 full without a line:  W B W / W B B / B W W
FULL_OPEN = board(stones={(0, 0): "W", (0, 1): "B", (0, 2): "W", (1, 0): "W", (1, 1): "B",
                          (1, 2): "B", (2, 0): "B", (2, 1): "W", (2, 2): "W", (8, 8): "B"})
# fields conquered in the pattern W B W / W B B / B W W: no three in a row for anyone
ALL_CONQUERED = board("WBWWBBBWW")
# holes numbered 6, 7, 8 (the middle row of every field) filled W B W: no line anywhere
MIDDLE = "/".join([".........", "WBWWBWWBW", "........."] * 3)
# holes numbered 5..9 filled: ..W / WBW / B.. in every field, no line
FORCED = "/".join(["..W..W..W", "WBWWBWWBW", "B..B..B.."] * 3)


def parse(text: str) -> tuple[str, str, str, int, list[int]]:
    """Independent reading of a position string: cells, side, roll, passes, numbers."""
    rows, side, roll, passes, *rest = text.split(" ")
    cells = rows.replace("/", "")
    numbers = ([int(ch, 16) for ch in rest[0]] if rest
               else [3 + 3 * (h // 9 % 3) + h % 3 for h in range(81)])
    return cells, side, roll, int(passes), numbers


def field_holes(f: int) -> list[int]:
    return [hole(f // 3 * 3 + k // 3, f % 3 * 3 + k % 3) for k in range(9)]


def conquered_by(cells: str, stone: str) -> list[int]:
    return [f for f in range(9) if all(cells[h] == stone for h in field_holes(f))]


def brute_targets(text: str, roll: int) -> list[int]:
    """Holes where ``roll`` lets the side to move act, by a plain scan of the string."""
    cells, side, _, _, numbers = parse(text)
    me, them = ("W", "B") if side == "w" else ("B", "W")
    locked = {h for s in "WB" for f in conquered_by(cells, s) for h in field_holes(f)}
    if roll in (2, 12):
        wanted = me if roll == 2 else them
        return [h for h in range(81) if cells[h] == wanted and h not in locked]
    return [h for h in range(81) if cells[h] == EMPTY and numbers[h] == roll]


def physical_distribution(text: str, dice: str, rerolls: int) -> dict[int, Fraction]:
    """Exact outcome law of "roll, reroll up to ``rerolls`` times while unplayable"."""
    weights = DICE[dice]
    playable = {s for s in SUMS if brute_targets(text, s)}
    law: dict[int, Fraction] = defaultdict(Fraction)
    reach = Fraction(1)
    for _ in range(rerolls + 1):
        for s in playable:
            law[s] += reach * weights[s]
        reach *= sum(weights[s] for s in SUMS if s not in playable)
    if reach:
        law[MUST_PASS] = reach
    return dict(law)


def check_tritoc(game: Tritoc, state) -> None:
    """Invariants of every reachable state, checked against a plain reading of its string."""
    text = game.to_notation(state)
    cells, side, roll, passes, numbers = parse(text)
    assert state.white & state.black == 0
    for stone, fields in (("W", state.white_fields), ("B", state.black_fields)):
        assert fields == sum(1 << f for f in conquered_by(cells, stone))
    assert game.scores(state) == (state.white_fields.bit_count() + 5 * (state.result == 0),
                                  state.black_fields.bit_count() + 5 * (state.result == 1))
    player = game.current_player(state)
    legal = list(game.legal_actions(state))
    if player == CHANCE:
        assert roll == "?" and not legal
        expected = physical_distribution(text, game.dice, game.max_rerolls)
        got = game.chance_outcomes(state)
        assert [o for o, _ in got] == sorted(expected)
        assert all(abs(p - float(expected[o])) < 1e-12 for o, p in got)
    elif player == TERMINAL:
        assert roll == "-" and not legal
        assert (passes == 4) == (state.result == DRAW)
    else:
        assert passes < 4
        if roll == "p":
            assert legal == [PASS]
        else:
            assert legal == brute_targets(text, int(roll)) and legal
    for observer in (0, 1):
        obs = game.observation(state, observer).reshape(81, 24)
        mine, theirs = ("W", "B") if observer == 0 else ("B", "W")
        assert obs[:, 0].tolist() == [int(ch == mine) for ch in cells]
        assert obs[:, 1].tolist() == [int(ch == theirs) for ch in cells]
        assert (obs[:, 2:11].argmax(axis=1) + 3).tolist() == numbers
        assert (obs[:, 2:11].sum(axis=1) == 1).all()
        for plane, stone in ((11, mine), (12, theirs)):
            locked = {h for f in conquered_by(cells, stone) for h in field_holes(f)}
            assert obs[:, plane].tolist() == [int(h in locked) for h in range(81)]
        dice = np.zeros((81, 11), dtype=np.int8)
        if roll.isdigit():
            dice[:, int(roll) - 2] = 1
        assert (obs[:, 13:] == dice).all()


# ----- scripted positions --------------------------------------------------------------
def E(rows: str = EMPTY_BOARD, side: str = "w", roll: str = "?", passes: int = 0) -> str:
    return position(rows, side, roll, passes)


# (name, options, start, [(chance outcome or action, position after)], result at the end)
SCRIPTS = [
    ("rolls, placement, removal and passes", {}, E(), [
        (7, E(roll="7")),
        (hole(4, 4), E(board(stones={(4, 4): "W"}), "b")),
        (12, E(board(stones={(4, 4): "W"}), "b", "12")),
        (hole(4, 4), E()),                                   # Black removes it again
        (MUST_PASS, E(roll="p")),                            # 2 and 12 failed four times
        (PASS, E(side="b", passes=1)),
        (MUST_PASS, E(side="b", roll="p", passes=1)),
        (PASS, E(passes=2)),
        (3, E(roll="3", passes=2)),
        (hole(0, 0), E(board(stones={(0, 0): "W"}), "b")),   # a move resets the passes
        (4, E(board(stones={(0, 0): "W"}), "b", "4")),
        (hole(0, 1), E(board(stones={(0, 0): "W", (0, 1): "B"}))),
        (2, E(board(stones={(0, 0): "W", (0, 1): "B"}), roll="2")),
        (hole(0, 0), E(board(stones={(0, 1): "B"}), "b")),   # White removes its own stone
    ], ONGOING),
    ("conquest fills the field, replacing Black stones", {}, E(CONQUEST, roll="11"), [
        (hole(2, 2), E(board("W........", {(8, 8): "B"}), "b")),
    ], ONGOING),
    ("conquest by a row in field 4 for Black", {},
     E(board(stones={(4, 3): "B", (4, 5): "B", (3, 3): "W"}), "b", "7"), [
         (hole(4, 4), E(board("....B...."))),
     ], ONGOING),
    ("full field without a line loses stones to 12 and 2", {}, E(FULL_OPEN, roll="12"), [
        (hole(1, 1), E(FULL_OPEN.replace("WBB", "W.B", 1), "b")),
        (7, E(FULL_OPEN.replace("WBB", "W.B", 1), "b", "7")),
        (hole(1, 1), E(FULL_OPEN, "w")),                    # refilled, still no line
        (2, E(FULL_OPEN, roll="2")),
        (hole(2, 2), E(FULL_OPEN.replace("BWW", "BW.", 1), "b")),
    ], ONGOING),
    ("three conquered fields in a row win", {},
     E(board("WW.......", {(0, 6): "W", (0, 7): "W"}), roll="5"), [
         (hole(0, 8), E(board("WWW......"), "b", "-")),
     ], 0),
    ("two conquered fields in a row do not win", {},
     E(board("W...W....", {(0, 3): "W", (0, 4): "W"}), roll="5"), [
         (hole(0, 5), E(board("WW..W...."), "b")),
     ], ONGOING),
    ("a diagonal of fields wins for Black", {},
     E(board("B...B....", {(6, 6): "B", (7, 7): "B", (8, 0): "W"}), "b", "11"), [
         (hole(8, 8), E(board("B...B...B", {(8, 0): "W"}), "w", "-")),
     ], 1),
    ("nothing playable: forced passes, the fourth draws", {}, E(ALL_CONQUERED), [
        (MUST_PASS, E(ALL_CONQUERED, roll="p")),
        (PASS, E(ALL_CONQUERED, "b", passes=1)),
        (MUST_PASS, E(ALL_CONQUERED, "b", "p", 1)),
        (PASS, E(ALL_CONQUERED, passes=2)),
        (MUST_PASS, E(ALL_CONQUERED, roll="p", passes=2)),
        (PASS, E(ALL_CONQUERED, "b", passes=3)),
        (MUST_PASS, E(ALL_CONQUERED, "b", "p", 3)),
        (PASS, E(ALL_CONQUERED, "w", "-", 4)),
    ], DRAW),
    ("a move after three passes resets the count", {}, E(passes=3), [
        (7, E(roll="7", passes=3)),
        (hole(1, 1), E(board(stones={(1, 1): "W"}), "b")),
    ], ONGOING),
]


@pytest.mark.parametrize("name, options, start, moves, result", SCRIPTS,
                         ids=[s[0] for s in SCRIPTS])
def test_scripted_positions(name, options, start, moves, result):
    game = Tritoc(**options)
    state = play_script(game, start, moves,
                        check=lambda before, action, after: check_tritoc(game, after))
    assert state.result == result
    assert game.is_terminal(state) == (result != ONGOING)


def test_legal_actions_follow_the_roll():
    game = Tritoc()

    def full(roll: str, side: str = "w") -> tuple[int, ...]:
        return game.legal_actions(game.from_notation(E(FULL_OPEN, side, roll)))

    # 12 removes Black stones, also from the full open field; 2 removes White's own
    assert full("12") == (1, 10, 11, 18, 80)
    assert full("2") == (0, 2, 9, 19, 20)
    assert full("2", "b") == (1, 10, 11, 18, 80)
    # the numbers of field 0 are all taken there: a 3 goes to the other fields' 3-holes
    assert full("3") == tuple(hole(r, c) for r in (0, 3, 6) for c in (0, 3, 6) if (r, c) != (0, 0))


def test_removal_never_offered_inside_conquered_fields():
    game = Tritoc()
    rows = board("W...B....", {(0, 8): "W", (8, 8): "B"})
    assert game.legal_actions(game.from_notation(E(rows, "w", "12"))) == (hole(8, 8),)
    assert game.legal_actions(game.from_notation(E(rows, "w", "2"))) == (hole(0, 8),)
    assert game.legal_actions(game.from_notation(E(rows, "b", "12"))) == (hole(0, 8),)
    assert game.legal_actions(game.from_notation(E(rows, "b", "2"))) == (hole(8, 8),)
    state = game.from_notation(E(rows, "w", "12"))
    with pytest.raises(IllegalActionError, match=r"hole \(4,4\) lies in field 4, which is "
                                                 "conquered"):
        game.apply(state, hole(4, 4))
    # only conquered Black stones: a 12 is no outcome for White, nor a 2 for Black
    only_conquered = board("W...B....", {(0, 8): "W"})
    white = [o for o, _ in game.chance_outcomes(game.from_notation(E(only_conquered)))]
    black = [o for o, _ in game.chance_outcomes(game.from_notation(E(only_conquered, "b")))]
    assert 12 not in white and 2 in white
    assert 2 not in black and 12 in black
    with pytest.raises(ValueError, match="roll 12 is impossible"):
        game.from_notation(E(only_conquered, "w", "12"))


def test_two_without_own_removable_stone_rerolls_then_passes():
    game = Tritoc()
    # every field conquered: no roll ever allows an action, all four attempts fail
    stuck = game.from_notation(E(ALL_CONQUERED))
    assert game.chance_outcomes(stuck) == [(MUST_PASS, 1.0)]
    with pytest.raises(IllegalActionError, match=r"chance outcome 2 is not one of \[1\]"):
        game.apply(stuck, 2)
    passing = game.apply(stuck, MUST_PASS)
    assert game.legal_actions(passing) == (PASS,)
    with pytest.raises(IllegalActionError, match="White must pass"):
        game.apply(passing, hole(0, 0))
    # White without stones: the 2 is rerolled, its weight goes to the playable sums
    lone = game.from_notation(E(board(stones={(0, 0): "B"})))
    outcomes = dict(game.chance_outcomes(lone))
    q = 1 / 36
    assert set(outcomes) == {MUST_PASS, *range(3, 13)}
    assert outcomes[MUST_PASS] == pytest.approx(q ** 4, rel=1e-12)
    assert outcomes[7] == pytest.approx(6 / 36 * (1 + q + q ** 2 + q ** 3), rel=1e-12)


def test_no_rerolls_option():
    game = Tritoc(max_rerolls=0)
    outcomes = dict(game.chance_outcomes(game.from_notation(E(FORCED))))
    assert outcomes[MUST_PASS] == pytest.approx(24 / 36)
    assert outcomes[4] == pytest.approx(3 / 36)


# ----- rewards, scores, truncation --------------------------------------------------------
def test_points_rewards_and_scores_in_infos():
    env = tritoc_v0.env(reward="points")
    env.reset(seed=3, options={"position": E(CONQUEST, roll="11")})
    assert env.infos == {"player_0": {"score": 0}, "player_1": {"score": 0}}
    env.step(hole(2, 2))
    assert env.rewards == {"player_0": 1.0, "player_1": 0.0}
    assert env.infos["player_0"] == {"score": 1} and env.infos["player_1"] == {"score": 0}
    assert not any(env.terminations.values())

    env.reset(options={"position": E(board("WW.BB....", {(0, 6): "W", (0, 7): "W"}),
                                       roll="5")})
    assert env.infos == {"player_0": {"score": 2}, "player_1": {"score": 2}}
    env.step(hole(0, 8))
    assert env.rewards == {"player_0": 6.0, "player_1": 0.0}      # field + win
    assert env.infos == {"player_0": {"score": 8}, "player_1": {"score": 2}}
    assert all(env.terminations.values())


def test_win_loss_rewards():
    env = tritoc_v0.env()
    env.reset(options={"position": E(CONQUEST, roll="11")})
    env.step(hole(2, 2))
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}
    assert env.infos["player_0"] == {"score": 1}
    env.reset(options={"position": E(board("B...B....", {(6, 6): "B", (7, 7): "B"}), "b",
                                       "11")})
    assert env.agent_selection == "player_1"
    env.step(hole(8, 8))
    assert env._cumulative_rewards == {"player_0": -1.0, "player_1": 1.0}
    assert env.infos == {"player_0": {"score": 0}, "player_1": {"score": 8}}
    assert env.unwrapped.position == E(board("B...B...B"), "w", "-")


def test_returns_stay_win_loss_with_points_rewards():
    game = Tritoc(reward="points")
    state = game.apply(game.from_notation(E(board("WW.......", {(0, 6): "W", (0, 7): "W"}),
                                            roll="5")), hole(0, 8))
    assert game.returns(state) == (1.0, -1.0)
    assert game.rewards(state) == (6.0, 0.0)
    conquered = game.apply(game.from_notation(E(CONQUEST, roll="11")), hole(2, 2))
    assert game.rewards(conquered) == (1.0, 0.0) and game.returns(conquered) == (0.0, 0.0)
    rolled = game.apply(conquered, 7)                  # a chance outcome earns nothing
    assert game.rewards(rolled) == (0.0, 0.0)


def test_truncation_after_max_moves():
    env = tritoc_v0.env(max_moves=3)
    env.reset(seed=0)
    for _ in range(3):
        env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}


# ----- dice ------------------------------------------------------------------------------------
DICE_POSITIONS = [E(), E(MIDDLE), E(FORCED), E(FORCED, "b"), E(board(stones={(0, 0): "B"})),
                  E(ALL_CONQUERED), E(FULL_OPEN, "b"),
                  position(EMPTY_BOARD, "w", "?", 0, MAGIC.text)]


@pytest.mark.parametrize("dice", ["2d6", "equal"])
@pytest.mark.parametrize("rerolls", [0, 1, 3, 5])
def test_chance_outcomes_are_the_exact_physical_law(dice, rerolls):
    game = Tritoc(dice=dice, max_rerolls=rerolls)
    for text in DICE_POSITIONS:
        outcomes = game.chance_outcomes(game.from_notation(text))
        expected = physical_distribution(text, dice, rerolls)
        assert len({o for o, _ in outcomes}) == len(outcomes)
        assert sum(p for _, p in outcomes) == pytest.approx(1.0, abs=1e-12)
        assert {o: p for o, p in outcomes} == pytest.approx(
            {o: float(p) for o, p in expected.items()}, rel=1e-12, abs=1e-15)


def test_single_roll_tables():
    game = Tritoc(max_rerolls=0)
    # every sum playable: the table of one roll itself
    rows = board(stones={(0, 0): "W", (0, 3): "B"})
    assert dict(game.chance_outcomes(game.from_notation(E(rows)))) == pytest.approx(
        {s: (6 - abs(s - 7)) / 36 for s in SUMS})
    equal = Tritoc(dice="equal", max_rerolls=0)
    assert dict(equal.chance_outcomes(equal.from_notation(E(rows)))) == pytest.approx(
        {s: (1 if s in (2, 12) else 3) / 29 for s in SUMS})


# upper 0.1% points of the chi-square distribution, by degrees of freedom
CHI2_999 = {1: 10.828, 2: 13.816, 3: 16.266, 4: 18.467, 5: 20.515, 6: 22.458, 7: 24.322,
            8: 26.124, 9: 27.877, 10: 29.588, 11: 31.264, 12: 32.909}


def chi_square(counts: Counter, expected: dict[int, float]) -> tuple[float, int]:
    """Pearson's statistic and degrees of freedom.

    Outcomes expecting fewer than 5 draws join the bin with the smallest expectation.
    """
    small = [o for o, e in expected.items() if e < 5]
    bins = sorted(([o], expected[o]) for o in expected if o not in small)
    if small:
        least = min(range(len(bins)), key=lambda i: bins[i][1])
        group, e = bins[least]
        bins[least] = (group + small, e + sum(expected[o] for o in small))
    stat = sum((sum(counts[o] for o in group) - e) ** 2 / e for group, e in bins)
    return stat, len(bins) - 1


def sample_rolls(options: dict, text: str, n: int, seed: int) -> Counter:
    """Rolls the environment draws for the same position over ``n`` seeded resets."""
    env = tritoc_v0.raw_env(**options)
    counts: Counter = Counter()
    for i in range(n):
        env.reset(seed=seed if i == 0 else None, options={"position": text})
        counts[env.game_state.roll] += 1
    return counts


@pytest.mark.parametrize("dice", ["2d6", "equal"])
def test_sampled_rolls_pass_chi_square(dice):
    game = Tritoc(dice=dice)
    n = 20_000
    for text in (E(MIDDLE), E()):
        law = dict(game.chance_outcomes(game.from_notation(text)))
        counts = sample_rolls({"dice": dice}, text, n, seed=2024)
        assert sum(counts.values()) == n
        stat, df = chi_square(counts, {o: n * p for o, p in law.items()})
        assert stat < CHI2_999[df], (text, counts)
    # the same sample is far from the law without rerolls: the test can tell
    one_roll = dict(Tritoc(dice=dice, max_rerolls=0).chance_outcomes(
        game.from_notation(E(MIDDLE))))
    counts = sample_rolls({"dice": dice}, E(MIDDLE), n, seed=2024)
    stat, df = chi_square(counts, {o: n * p for o, p in one_roll.items()})
    assert stat > 10 * CHI2_999[df]


def test_rolls_in_seeded_games_pass_chi_square():
    env = tritoc_v0.env()
    game = env.unwrapped.game
    counts: Counter = Counter()
    expected: dict[int, float] = defaultdict(float)
    for seed in range(250):
        env.reset(seed=seed)
        rnd = random.Random(seed)
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            fields = env.unwrapped.position.split(" ")
            roll = env.unwrapped.game_state.roll
            fields[2] = "?"                       # the chance node the roll came from
            for o, p in game.chance_outcomes(game.from_notation(" ".join(fields))):
                expected[o] += p
            counts[roll] += 1
            env.step(rnd.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    assert sum(counts.values()) > 10_000 and counts[MUST_PASS] > 0
    stat, df = chi_square(counts, expected)
    assert stat < CHI2_999[df], (counts, dict(expected))


@pytest.mark.parametrize("dice, q", [("2d6", 24 / 36), ("equal", 15 / 29)])
def test_forced_pass_probability_matches_sampling(dice, q):
    game = Tritoc(dice=dice)
    text = E(FORCED)
    p_pass = dict(game.chance_outcomes(game.from_notation(text)))[MUST_PASS]
    assert p_pass == pytest.approx(q ** 4, rel=1e-12)
    # the physical process with an independent generator: 4 rolls, all unplayable (5..9)
    rng = np.random.default_rng(99)
    n = 200_000
    if dice == "2d6":
        rolls = rng.integers(1, 7, size=(n, 4, 2)).sum(axis=2)
    else:
        probs = [float(DICE[dice][s]) for s in SUMS]
        rolls = rng.choice(np.arange(2, 13), p=probs, size=(n, 4))
    physical = ((rolls >= 5) & (rolls <= 9)).all(axis=1).mean()
    assert abs(physical - p_pass) < 4 * (p_pass * (1 - p_pass) / n) ** 0.5
    # the environment's draws
    m = 20_000
    sampled = sample_rolls({"dice": dice}, text, m, seed=7)[MUST_PASS] / m
    assert abs(sampled - p_pass) < 4 * (p_pass * (1 - p_pass) / m) ** 0.5


@pytest.mark.parametrize("options", [{}, {"layout": "random", "dice": "equal"}], ids=str)
def test_same_seed_same_dice(options):
    def game_record(seed: int) -> list[str]:
        env = tritoc_v0.raw_env(**options)
        env.reset(seed=seed)
        seen = [env.position]
        while not (any(env.terminations.values()) or any(env.truncations.values())):
            env.step(env.game.legal_actions(env.game_state)[0])
            seen.append(env.position)
        return seen

    first = game_record(11)
    assert game_record(11) == first
    assert game_record(12) != first


def test_random_layout_drawn_from_the_generator():
    game = Tritoc(layout="random")
    a = game.initial_state(np.random.default_rng(5))
    b = game.initial_state(np.random.default_rng(5))
    c = game.initial_state(np.random.default_rng(6))
    assert a == b and a.layout == b.layout and a.layout != c.layout
    for f in range(9):
        assert sorted(a.layout.numbers[h] for h in field_holes(f)) == list(range(3, 12))
    assert len({tuple(a.layout.numbers[h] for h in field_holes(f)) for f in range(9)}) > 1
    assert game.to_notation(a).endswith(" " + a.layout.text)


# ----- encodings ---------------------------------------------------------------------------------
def test_start_positions_and_layouts():
    assert Tritoc().to_notation(Tritoc().initial_state()) == E()
    magic = Tritoc(layout="magic")
    assert magic.to_notation(magic.initial_state()) == position(EMPTY_BOARD, "w", "?", 0,
                                                                MAGIC.text)
    assert MAGIC.text[:27] == "6b46b46b4579579579a38a38a38"
    assert ORDERED.text[:27] == "3453453456786786789ab9ab9ab"
    custom = Tritoc(layout=CUSTOM)
    assert custom.initial_state().layout.numbers == tuple(CUSTOM)
    assert custom.options()["layout"] == tuple(CUSTOM)
    # a position string carries its layout: no layout field means "ordered"
    assert magic.from_notation(E()).layout == ORDERED


def test_observation_planes():
    game = Tritoc()
    state = game.from_notation(E(board("B........", {(4, 4): "W", (8, 8): "B"}), "w", "7"))
    obs = game.observation(state, 0)
    assert obs.shape == (9, 9, 24) and obs.dtype == np.int8
    assert obs[4, 4, 0] == 1 and obs[:, :, 0].sum() == 1
    assert obs[:, :, 1].sum() == 10 and obs[8, 8, 1] == 1
    assert obs[0, 0, 2] == 1 and obs[4, 4, 6] == 1 and obs[8, 8, 10] == 1   # numbers 3, 7, 11
    assert obs[:, :, 11].sum() == 0 and obs[:3, :3, 12].all() and obs[:, :, 12].sum() == 9
    assert obs[:, :, 18].all() and obs[:, :, 13:].sum() == 81                 # sum 7
    theirs = game.observation(state, 1)
    assert (theirs[:, :, 0] == obs[:, :, 1]).all() and (theirs[:, :, 11] == obs[:, :, 12]).all()
    passing = game.observation(game.from_notation(E(ALL_CONQUERED, roll="p")), 0)
    assert not passing[:, :, 13:].any()


def test_ansi_render():
    env = tritoc_v0.env(render_mode="ansi")
    env.reset(options={"position": E(board("B........", {(4, 4): "W"}), "w", "7")})
    assert env.render() == "\n".join([
        "      0  1  2    3  4  5    6  7  8",
        "   ┌──────────┬──────────┬──────────┐",
        " 0 │  B  B  B │  3  4  5 │  3  4  5 │",
        " 1 │  B  B  B │  6  7  8 │  6  7  8 │",
        " 2 │  B  B  B │  9 10 11 │  9 10 11 │",
        "   ├──────────┼──────────┼──────────┤",
        " 3 │  3  4  5 │  3  4  5 │  3  4  5 │",
        " 4 │  6  7  8 │  6  W  8 │  6  7  8 │",
        " 5 │  9 10 11 │  9 10 11 │  9 10 11 │",
        "   ├──────────┼──────────┼──────────┤",
        " 6 │  3  4  5 │  3  4  5 │  3  4  5 │",
        " 7 │  6  7  8 │  6  7  8 │  6  7  8 │",
        " 8 │  9 10 11 │  9 10 11 │  9 10 11 │",
        "   └──────────┴──────────┴──────────┘",
        "W = White (player_0) 0 pts, B = Black (player_1) 1 pts; passes 0",
        "   ┌───────┐ ┌───────┐",                 # the roll as two dice: 3 and 4
        "   │ ●     │ │ ●   ● │",
        "   │   ●   │ │       │  the dice: 3 and 4, 7",
        "   │     ● │ │ ●   ● │",
        "   └───────┘ └───────┘",
        "White rolled 7: place on an empty 7",
    ])
    game = Tritoc()
    assert game.render_text(game.from_notation(E())).endswith("White to roll")
    assert game.render_text(game.from_notation(E(ALL_CONQUERED, "b", "-", 4))).endswith(
        "Draw (four consecutive passes)")


def test_rgb_render_shows_the_position():
    env = tritoc_v0.env(render_mode="rgb_array")
    env.reset(options={"position": E(roll="7")})
    before = env.render()
    assert before.shape == (510, 460, 3) and before.dtype == np.uint8
    env.step(hole(4, 4))
    assert (env.render() != before).any()


def test_position_round_trip_and_terminal_strings():
    game = Tritoc()
    won = game.from_notation(E(board("WWW......"), "b", "-"))
    assert won.result == 0 and game.returns(won) == (1.0, -1.0)
    assert game.render_text(won).endswith("White wins with the fields 0, 1, 2 in a row")
    drawn = game.from_notation(E(ALL_CONQUERED, "b", "-", 4))
    assert drawn.result == DRAW and game.returns(drawn) == (0.0, 0.0)
    for text in DICE_POSITIONS + [E(FULL_OPEN, "b", "12"), E(FORCED, "w", "p", 2)]:
        assert game.to_notation(game.from_notation(text)) == text


# ----- bad input ---------------------------------------------------------------------------------
@pytest.mark.parametrize("options, message", [
    ({"layout": "square"}, "layout='square' is not allowed; choose 'ordered', 'magic', "
                           "'random' or a sequence of 81 numbers"),
    ({"layout": list(range(80))}, "expected 81 numbers"),
    ({"layout": [3] * 81}, r"field 0 \(rows 0-2, cols 0-2\) holds \[3, 3, 3"),
    ({"layout": CUSTOM[:-1] + [12]}, r"hole \(8,8\) has 12; hole numbers are integers 3-11"),
    ({"layout": 5}, "expected a sequence of 81 numbers"),
    ({"dice": "3d6"}, "dice='3d6' is not allowed; choose one of '2d6', 'equal'"),
    ({"max_rerolls": -1}, "max_rerolls=-1 must be an integer >= 0"),
    ({"reward": "score"}, "reward='score' is not allowed; choose one of 'win_loss', 'points'"),
    ({"max_moves": 0}, "max_moves=0 must be an integer >= 1"),
    ({"rerolls": 2}, "unknown option.*'rerolls'.*allowed: dice, layout, max_moves"),
])
def test_bad_options(options, message):
    with pytest.raises(ValueError, match=message):
        tritoc_v0.env(**options)


@pytest.mark.parametrize("text, message", [
    (EMPTY_BOARD + " w ?", re.escape("expected '<rows> <w|b> <roll> <passes> [<layout>]'")),
    ("/".join(["."] * 9) + " w ? 0", "row 0 '.' has 1 characters; each row has 9"),
    ("/".join(["........."] * 8) + " w ? 0", "has 8 rows"),
    (E(board(stones={(2, 3): "X"})), r"hole \(2,3\) holds 'X'"),
    (E(side="x"), "side to move 'x' must be 'w' or 'b'"),
    (E(roll="13"), "roll '13' must be a sum 2-12, 'p'"),
    (E(passes=5), "passes '5' must be 0-4"),
    (E() + " 345", "layout '345' must be 81 characters"),
    (E() + " " + "3" * 81, r"layout: field 0 .* holds \[3, 3"),
    (E(board(stones={(0, 0): "W", (0, 1): "W", (0, 2): "W"})),
     "field 0 holds a White line but is not filled"),
    (E(board("WWW......"), "w", "-"), "White, to move, already has three conquered fields"),
    (E(board("WWWBBB..."), "b", "-"), "both players have three conquered fields in a row"),
    (E(board("WWW......"), "b", "?"), "White has won .* the roll must be '-'"),
    (E(roll="-"), "roll '-' marks a finished game"),
    (E(passes=4), "4 consecutive passes end the game: the roll must be '-'"),
    (E(roll="12"), "roll 12 is impossible: it allows White no action"),
    (E(board(stones={(0, 0): "B", (0, 3): "W"}), roll="p"), "roll 'p' is impossible"),
    (E(CONQUEST, passes=1), "1 consecutive passes are impossible: .* every roll allows "
                            "either player an action"),
    (E(CONQUEST, "b", passes=3), "3 consecutive passes are impossible"),
    (E(CONQUEST, "b", "-", passes=4), "4 consecutive passes are impossible"),
    (42, "expected '<rows>"),
])
def test_bad_position_strings(text, message):
    with pytest.raises(ValueError, match=message):
        Tritoc().from_notation(text)


@pytest.mark.parametrize("text, action, message", [
    (E(CONQUEST, roll="11"), hole(0, 0), r"action 0 \(place a White stone at 0,0 "
                                         r"\(number 3\)\) is illegal: hole \(0,0\) is occupied"),
    (E(CONQUEST, roll="11"), hole(1, 2), r"hole \(1,2\) has number 8, but the roll is 11"),
    (E(CONQUEST, roll="11"), PASS, "passing is only allowed when no roll allows an action"),
    (E(CONQUEST, roll="12"), hole(0, 0), r"hole \(0,0\) holds a White stone; a 12 removes a "
                                         "Black stone"),
    (E(CONQUEST, roll="2"), hole(5, 5), r"hole \(5,5\) is empty; a 2 removes a White stone"),
    (E(ALL_CONQUERED, roll="p"), hole(3, 3), "White must pass"),
    (E(CONQUEST, roll="11"), 82, "out of range 0..81"),
    (E(CONQUEST, roll="11"), True, "is not an integer"),
    (E(CONQUEST, roll="11"), 2.0, "is not an integer"),
    (E(CONQUEST), 13, r"chance outcome 13 is not one of \[2, 3, 4"),
    (E(board("WWW......"), "b", "-"), 40, "the game is over"),
])
def test_illegal_actions_explained_and_state_unchanged(text, action, message):
    game = Tritoc()
    state = game.from_notation(text)
    before = copy.deepcopy(state)
    with pytest.raises(IllegalActionError, match=message):
        game.apply(state, action)
    assert state == before and game.to_notation(state) == text


def test_raw_env_raises_and_wrapped_env_loses():
    raw = tritoc_v0.raw_env()
    raw.reset(options={"position": E(CONQUEST, roll="11")})
    with pytest.raises(IllegalActionError, match="is occupied"):
        raw.step(hole(0, 0))
    assert raw.position == E(CONQUEST, roll="11") and raw.num_moves == 0
    wrapped = tritoc_v0.env()
    wrapped.reset(options={"position": E(CONQUEST, roll="11")})
    wrapped.step(hole(0, 0))
    assert wrapped._cumulative_rewards == {"player_0": -1, "player_1": 0}
    assert all(wrapped.terminations.values())


# ----- suites, fuzzing, properties ---------------------------------------------------------------

@pytest.mark.parametrize("options", OPTION_SETS, ids=[str(i) for i in range(len(OPTION_SETS))])
def test_fuzz(options):
    fuzz_env(tritoc_v0, options, n_games=400, seed=7)
    game = Tritoc(**options)
    finals = random_playouts(game, n_games=25, seed=3, check=check_tritoc)
    assert all(game.is_terminal(s) for s in finals)
    assert {s.result for s in finals} >= {0, 1}



# action_paths() draws mostly short paths; a game lasts ~70 plies (~140 states with the
# rolls), so the prefix below takes every example well into the game first
@settings(max_examples=40, deadline=None)
@given(prefix=st.lists(st.integers(0, 10_000), min_size=100, max_size=100),
       path=action_paths(200), seed=st.integers(0, 2 ** 16),
       options=st.sampled_from(OPTION_SETS))
def test_property_states(prefix, path, seed, options):
    game = Tritoc(**options)
    states = follow_path(game, prefix + path, seed)
    for state in states:
        check_state_invariants(game, state)
        check_tritoc(game, state)
        again = game.from_notation(game.to_notation(state))
        assert again == state._replace(gained=0)
        player = game.current_player(state)
        if player != TERMINAL:
            before = copy.deepcopy(state)
            choice = (game.chance_outcomes(state)[0][0] if player == CHANCE
                      else game.legal_actions(state)[-1])
            game.apply(state, choice)
            assert state == before


@pytest.mark.parametrize("rerolls", [64, 65, 100_000, 10**9])
def test_any_number_of_rerolls_costs_the_same_and_keeps_the_law(rerolls):
    """The geometric sum is taken in closed form: huge ``max_rerolls`` no longer hang."""
    from fractions import Fraction

    from tris_envs.games.tritoc import DICE_WEIGHTS, SUMS

    game = Tritoc(max_rerolls=rerolls)
    env = tritoc_v0.env(max_rerolls=rerolls)
    env.reset(seed=0)
    only_four = 1 << 4                          # only the sum 4 is playable
    outcomes = dict(game._distribution(only_four))
    q = float(sum((w for s, w in DICE_WEIGHTS["2d6"].items() if s != 4), Fraction(0)))
    assert set(SUMS) >= set(outcomes) - {MUST_PASS}
    assert outcomes[4] == pytest.approx(1 - q ** (rerolls + 1), abs=1e-12)
    assert outcomes.get(MUST_PASS, 0.0) == pytest.approx(q ** (rerolls + 1), abs=1e-12)
    assert all(p > 0 for p in outcomes.values())
    assert sum(outcomes.values()) == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("rows, allowed", [
    (EMPTY_BOARD, True),                                     # no stone to remove: 2, 12
    (board(stones={(0, 0): "W"}), True),                     # no Black stone: 12 for White
    (board(stones={(0, 0): "W", (8, 8): "B"}), False),       # every roll playable for both
    (CONQUEST, False),
    (ALL_CONQUERED, True),
])
def test_passes_only_where_a_roll_can_be_unplayable(rows, allowed):
    """A pass leaves the board unchanged, so passes > 0 need a roll unplayable on it."""
    game = Tritoc()
    for side in "wb":
        assert (game.playable(game.from_notation(E(rows, side))) != ALL_PLAYABLE) == allowed
        for passes in (1, 2, 3):
            text = E(rows, side, passes=passes)
            if allowed:
                assert game.to_notation(game.from_notation(text)) == text
            else:
                with pytest.raises(ValueError, match="consecutive passes are impossible"):
                    game.from_notation(text)


def test_heuristic_counts_conquered_fields_for_the_search():
    from tris_envs.evaluation import play_match

    game = Tritoc()
    state = game.initial_state()._replace(white_fields=0b000_010_011, black_fields=0b100_000_000)
    assert game.heuristic(state, 0) == pytest.approx(0.2)
    assert game.heuristic(state, 1) == pytest.approx(-0.2)
    assert play_match(game, "alphabeta:1", "random", n_games=20, seed=0).score > 0.6


def test_facts_count_the_first_player_and_the_plies():
    from tris_envs.evaluation.records import GameRecord

    def record(returns, plies, truncated=False):
        moves = [(-1, 7), *[(k % 2, 40) for k in range(plies)]]   # one roll, then plies
        return GameRecord("tritoc", {}, ["a", "b"], "", moves, [], returns, truncated)

    records = [record((1.0, -1.0), 40), record((1.0, -1.0), 50), record((-1.0, 1.0), 30),
               record((0.0, 0.0), 60, truncated=True)]
    # first player: 2 wins, 1 draw, 1 loss -> 62.5%, Wilson interval over 4 games
    row = benchmark_script("tritoc_facts").first_player_row(records)
    assert row == "2 | 1 | 1 | 62% [22%, 91%] | 45 | 1 |"


def test_facts_script_prints_every_option_set(capsys):
    benchmark_script("tritoc_facts").main(["--games", "1", "--simulations", "3"])
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| 2d6")
            or line.startswith("| equal")]
    assert len(rows) == 6 and all("| 1 |" in row for row in rows)
