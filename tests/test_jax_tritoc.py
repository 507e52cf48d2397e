"""Tritoc in JAX (``tris_envs.jax.tritoc``) beyond the generic lockstep tests of test_jax.py:
the law of the random layouts, the dice law (rerolls folded in) by sampling from fixed
positions, scripted positions through the bridges (a conquest, a win with both rewards,
removals next to conquered fields, must-pass and the draw by four passes), every roll of a
position with its chance (``roll_outcomes``) against the core's, and the errors (a chance
node, a step without a key, bad options)."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("pgx")

from tris_envs.core.game import TERMINAL  # noqa: E402
from tris_envs.games.tritoc import FIELD_CELLS, MUST_PASS, PASS, SUMS, check_layout  # noqa: E402
from tris_envs.games.tritoc import Tritoc as CoreTritoc  # noqa: E402
from tris_envs.jax import from_position, make, to_position  # noqa: E402

from checks import chance_nodes, check_bridge  # noqa: E402

DRAWS = 4000


@cache
def env_of(**options):
    """The JAX env, its compiled ``step``, ``step`` over a batch of keys, and the rules core
    for ``options`` (compiled once per module)."""
    env = make("tritoc", **options)
    return (env, jax.jit(env.step), jax.jit(jax.vmap(env.step, in_axes=(None, None, 0))),
            CoreTritoc(**options))


def position(stones: dict[int, str], side: str, roll: str, passes: int = 0) -> str:
    """A position string of the ordered layout from ``{hole: "W" | "B"}``."""
    cells = ["."] * 81
    for hole, color in stones.items():
        cells[hole] = color
    rows = "/".join("".join(cells[r * 9:r * 9 + 9]) for r in range(9))
    return f"{rows} {side} {roll} {passes}"


def fields(colors: str) -> dict[int, str]:
    """Whole fields of stones: ``colors[f]`` is ``W``, ``B`` or ``.`` for field ``f``."""
    return {h: c for f, c in enumerate(colors) if c != "." for h in FIELD_CELLS[f]}


def cell(f: int, k: int) -> int:
    """Hole of cell ``k`` (reading order, number ``3 + k`` in the ordered layout) of field
    ``f``."""
    return FIELD_CELLS[f][k]


OPEN_LAST = fields("WBWWBBBW.") | {cell(8, k): c for k, c in enumerate("WBWB.W")}
"""Eight conquered fields without a line; in field 8 the holes 3-8 hold stones but 7."""
BEFORE_PARTIAL = position(OPEN_LAST, "b", "7")
"""Black places on the 7 of field 8; then White can play 9, 10, 11 (empty), 2 and 12."""
ALL_CONQUERED = fields("WBWWBBBWW")
"""Nine conquered fields without a line: no roll allows anything."""
BEFORE_WIN = position(fields("WW.") | {cell(2, 0): "W", cell(2, 1): "W", cell(4, 4): "B",
                                       cell(4, 0): "W", cell(4, 8): "W", cell(5, 3): "B"},
                      "w", "5")


def sample(options: dict, text: str, action: int) -> tuple[np.ndarray, list]:
    """The rolls of the next player after ``action`` from ``text`` over DRAWS keys, and the
    core's chance outcomes there."""
    env, _, steps, game = env_of(**options)
    keys = jax.random.split(jax.random.PRNGKey(3), DRAWS)
    states = steps(from_position(env, text), action, keys)
    chance = game.apply(game.from_notation(text), action)
    for b in range(5):
        one = jax.tree_util.tree_map(lambda x, b=b: x[b], states)
        reached = game.apply(chance, int(one._roll))
        assert to_position(env, one) == game.to_notation(reached)
    return np.asarray(states._roll).astype(int), game.chance_outcomes(chance)


def assert_law(rolls: np.ndarray, outcomes: list) -> None:
    """Frequencies of ``rolls`` within 4.5 standard errors of the outcomes' probabilities;
    nothing outside them."""
    law = dict(outcomes)
    assert set(np.unique(rolls)) <= set(law)
    for outcome, p in law.items():
        frequency = (rolls == outcome).mean()
        assert abs(frequency - p) <= 4.5 * np.sqrt(p * (1 - p) / len(rolls)) + 1e-9, (
            outcome, frequency, p)


@pytest.mark.parametrize("options", [{}, {"dice": "equal", "max_rerolls": 0}], ids=str)
def test_the_dice_follow_the_law_of_the_chance_outcomes(options):
    rolls, outcomes = sample(options, BEFORE_PARTIAL, cell(8, 4))
    law = dict(outcomes)
    assert set(law) == {MUST_PASS, 2, 9, 10, 11, 12}
    assert_law(rolls, outcomes)


def test_the_first_roll_follows_the_law_of_the_start():
    env, _, _, game = env_of()
    states = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(5), DRAWS))
    outcomes = game.chance_outcomes(game.initial_state())
    assert {s for s, _ in outcomes} == {MUST_PASS, *range(3, 12)}    # pass: (2/36) ** 4
    assert_law(np.asarray(states._roll).astype(int), outcomes)
    first = jax.tree_util.tree_map(lambda x: x[0], states)
    assert to_position(env, first) == game.to_notation(game.apply(game.initial_state(),
                                                                  int(first._roll)))


def test_random_layouts_follow_the_cores_law():
    env, _, _, game = env_of(layout="random")
    states = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(11), DRAWS))
    numbers = np.array([env.to_core(jax.tree_util.tree_map(lambda x, b=b: x[b], states))
                        .layout.numbers for b in range(400)])
    for drawn in numbers:
        check_layout(drawn.tolist(), "drawn layout")        # each field a permutation
    rng = np.random.default_rng(0)
    cores = np.array([game.initial_state(rng).layout.numbers for _ in range(400)])
    for drawn in (numbers, cores):
        counts = np.stack([(drawn == n).sum(0) for n in range(3, 12)])    # [number, hole]
        assert abs(counts - 400 / 9).max() < 30      # every number ~ uniform on every hole
    assert len({tuple(row) for row in numbers}) == len(numbers)
    holes = np.asarray(states.legal_action_mask)[:, :81]
    rolls = np.asarray(states._roll).astype(int)
    assert (holes.sum(1) == 9).all()                 # one hole of the rolled number per field
    assert all(numbers[b][holes[b]].tolist() == [rolls[b]] * 9 for b in range(400))


def play(options: dict, text: str, action: int, key: int = 0):
    """The JAX state after ``action`` from ``text`` and the core's state after it, checked
    to agree (position, termination, rewards, the next mask and observation)."""
    env, step, _, game = env_of(**options)
    state = step(from_position(env, text), action, jax.random.PRNGKey(key))
    core = game.apply(game.from_notation(text), action)
    if game.current_player(core) != TERMINAL:
        core = game.apply(core, int(state._roll))
    assert to_position(env, state) == game.to_notation(core)
    assert bool(state.terminated) == (game.current_player(core) == TERMINAL)
    if not state.terminated:
        assert (np.asarray(state.legal_action_mask) == game.legal_mask(core).astype(bool)).all()
        player = game.current_player(core)
        assert (np.asarray(state.observation) == game.observation(core, player)).all()
    return state, core


@pytest.mark.parametrize("reward, expected", [("win_loss", (1.0, -1.0)),
                                              ("points", (6.0, 0.0))])
def test_a_third_field_in_a_row_wins(reward, expected):
    state, core = play({"reward": reward}, BEFORE_WIN, cell(2, 2))
    assert bool(state.terminated) and core.result == 0
    assert tuple(np.asarray(state.rewards)) == expected
    assert env_of()[3].to_notation(core).split(" ")[1:] == ["b", "-", "0"]


@pytest.mark.parametrize("reward, expected", [("win_loss", (0.0, 0.0)),
                                              ("points", (1.0, 0.0))])
def test_a_conquest_takes_the_whole_field(reward, expected):
    text = position(fields("WW.") | {cell(4, 0): "W", cell(4, 8): "W", cell(4, 1): "B",
                                     cell(4, 2): "B"}, "w", "7")
    state, core = play({"reward": reward}, text, cell(4, 4))
    assert not state.terminated and core.white_fields == 0b10011
    assert all(core.white >> h & 1 for h in FIELD_CELLS[4]) and core.black == 0
    assert tuple(np.asarray(state.rewards)) == expected
    state, core = play({"reward": reward}, text, cell(5, 4))      # no line: nothing earned
    assert tuple(np.asarray(state.rewards)) == (0.0, 0.0) and core.white_fields == 0b11


def test_removals_spare_conquered_fields():
    env, step, _, game = env_of()
    text = position(fields("W.B") | {cell(4, 0): "W", cell(4, 1): "B", cell(6, 5): "B"},
                    "w", "12")
    state = from_position(env, text)
    mask = np.asarray(state.legal_action_mask)
    assert set(np.flatnonzero(mask)) == {cell(4, 1), cell(6, 5)}
    play({}, text, cell(6, 5))
    own = from_position(env, text.replace(" 12 ", " 2 "))
    assert set(np.flatnonzero(np.asarray(own.legal_action_mask))) == {cell(4, 0)}
    play({}, text.replace(" 12 ", " 2 "), cell(4, 0))


def test_must_pass_and_the_fourth_pass_draws():
    env, step, _, game = env_of()
    state = from_position(env, position(ALL_CONQUERED, "w", "p"))
    assert np.flatnonzero(np.asarray(state.legal_action_mask)).tolist() == [PASS]
    assert not np.asarray(state.observation)[..., 13:].any()
    for passes in range(1, 5):
        state = step(state, PASS, jax.random.PRNGKey(passes))
        side = "wb"[passes % 2]
        roll = "-" if passes == 4 else "p"
        assert to_position(env, state) == position(ALL_CONQUERED, side, roll, passes)
        assert tuple(np.asarray(state.rewards)) == (0.0, 0.0)
    assert bool(state.terminated)
    core = game.from_notation(to_position(env, state))
    assert game.current_player(core) == TERMINAL and game.returns(core) == (0.0, 0.0)


OTHER_LAYOUT = position({0: "W", 1: "B"}, "w", "8") + " " + CoreTritoc(
    layout="random").initial_state(np.random.default_rng(1)).layout.text
"""A position of a layout that is not the env's: it plays with its own layout."""


def test_a_position_keeps_its_own_layout():
    state, _ = play({}, OTHER_LAYOUT, int(np.flatnonzero(np.asarray(
        from_position(env_of()[0], OTHER_LAYOUT).legal_action_mask))[0]))
    assert to_position(env_of()[0], state).endswith(OTHER_LAYOUT[-81:])


@pytest.mark.parametrize("text", [
    BEFORE_PARTIAL, BEFORE_WIN, position(ALL_CONQUERED, "b", "p", 2),
    position(ALL_CONQUERED, "w", "-", 4), position(fields("WWW"), "b", "-", 0), OTHER_LAYOUT,
])
def test_position_bridges_round_trip(text):
    env, _, _, game = env_of()
    check_bridge(env, game, text)


@pytest.mark.parametrize("options", [{}, {"dice": "equal", "max_rerolls": 0}], ids=str)
def test_roll_outcomes_are_the_cores_rolled_positions_and_its_law(options):
    env, _, _, game = env_of(**options)
    outcomes_of = jax.jit(env.roll_outcomes)
    nodes = chance_nodes(game, 3, seed=7)[::5]
    nodes.append(game.apply(game.from_notation(BEFORE_PARTIAL), cell(8, 4)))
    nodes.append(game.from_notation(position(ALL_CONQUERED, "b", "?")))
    rolls = (MUST_PASS, *SUMS)
    passes = 0
    for node in nodes:
        law = dict(game.chance_outcomes(node))
        drawn = max(law, key=law.get)
        outcomes, chances, index = outcomes_of(env.from_core(game.apply(node, drawn)))
        assert rolls[int(index)] == drawn
        assert np.allclose(np.asarray(chances), [law.get(r, 0.0) for r in rolls], atol=1e-6)
        for k, roll in enumerate(rolls):
            if roll not in law:
                continue
            one = jax.tree_util.tree_map(lambda x, k=k: x[k], outcomes)
            rolled = game.apply(node, roll)
            assert to_position(env, one) == game.to_notation(rolled)
            assert (np.asarray(one.legal_action_mask) == game.legal_mask(rolled)).all()
            assert (np.asarray(one.observation)
                    == game.observation(rolled, game.current_player(rolled))).all()
        passes += MUST_PASS in law
    assert len(nodes) > 20 and passes >= 2


def test_a_finished_games_roll_outcomes_are_itself():
    env, _, _, game = env_of()
    state = from_position(env, position(fields("WWW"), "b", "-", 0))
    outcomes, chances, _ = jax.jit(env.roll_outcomes)(state)
    assert np.asarray(chances).tolist() == [1.0] + [0.0] * len(SUMS)
    assert all(to_position(env, jax.tree_util.tree_map(lambda x, k=k: x[k], outcomes))
               == to_position(env, state) for k in range(len(SUMS) + 1))


def test_errors():
    env, _, _, game = env_of()
    with pytest.raises(ValueError, match="chance node"):
        env.from_core(game.initial_state())
    state = env.init(jax.random.PRNGKey(0))
    with pytest.raises(ValueError, match="step needs a key"):
        env.step(state, int(np.flatnonzero(np.asarray(state.legal_action_mask))[0]))
    with pytest.raises(ValueError, match="dice"):
        make("tritoc", dice="3d6")
    with pytest.raises(ValueError, match="layout"):
        make("tritoc", layout=[3] * 81)
