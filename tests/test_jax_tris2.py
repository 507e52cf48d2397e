"""Tris 2 in JAX (``tris_envs.jax.tris2``) beyond the generic lockstep tests of test_jax.py:
the law of the random setups (with and without ``fair``), scripted positions through the
bridges (a win, the undo rule, the frame moving, ``max_side``, the placement setup and its
draw), and the options the rules core refuses."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("pgx")

from tris_envs.core.game import TERMINAL, allows_win  # noqa: E402
from tris_envs.games.tris2 import ORIENTATIONS, SETUP_TOPS  # noqa: E402
from tris_envs.games.tris2 import Tris2 as CoreTris2  # noqa: E402
from tris_envs.jax import from_position, make, to_position  # noqa: E402

from checks import TRIS2_BEFORE_WIN as BEFORE_WIN  # noqa: E402
from checks import check_bridge  # noqa: E402

DRAWS = 3000
EXAMPLE = "XO/O/XX/O|/XOOX//OX|O/XXO/OX/ 0 -"
WIDE = "/OX...O/XX/O|.../XOOX//OX|...O/XXO/OX/ 1 0,0,W"
"""EXAMPLE after its die at 0,0 rolled west: four columns."""
UNFAIR = ("X/OOX/X/O|/OXX/O/OX|/XOO/X/OX 0 -", "OX/OX//XO|/OXXO//OX|/OXOX/OX/ 0 -",
          "/OXX/OX/O|OX/XO/O/X|/XO/XOOX/ 0 -", "XO//XOX/O|O/XXO/O/X|OX//OXOX/ 0 -")
"""Random setups allowed by the seeds' rule in which every first roll hands the second
player a line (found with the rules core)."""


@cache
def env_of(**options):
    """The JAX env, its compiled ``step`` and the rules core for ``options`` (compiled once
    per module)."""
    env = make("tris2", **options)
    return env, jax.jit(env.step), CoreTris2(**options)


@pytest.fixture(scope="module")
def setups():
    """Board codes (1 + orientation, block cell order) of DRAWS random setups, per option
    set, drawn by the JAX ``init``."""
    drawn = {}
    for name, options in (("random", {}), ("fair", {"fair": True})):
        env = make("tris2", **options)
        states = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(7), DRAWS))
        assert (np.asarray(states._rows) == np.arange(9) // 3).all()
        assert (np.asarray(states._cols) == np.arange(9) % 3).all()
        assert not np.asarray(states.terminated).any()
        assert (np.asarray(states._last_die) == -1).all()
        drawn[name] = np.asarray(states._codes).astype(int)
    return drawn


def block_position(codes) -> str:
    """The position string of a 3x3 block of dice (``codes`` = 1 + orientation)."""
    rows = ("".join(ORIENTATIONS[k - 1] for k in codes[r * 3:r * 3 + 3]) for r in range(3))
    return f"{'|'.join(rows)} 0 -"


def top_marginals(tops: np.ndarray) -> np.ndarray:
    """``[cell, symbol]``: how often each cell shows each top symbol."""
    return np.stack([(tops == t).mean(0) for t in range(3)], -1)


def test_random_setups_are_drawn_like_the_core(setups):
    codes = setups["random"]
    tops, hidden = (codes - 1) // 2, (codes - 1) % 2
    allowed = {tuple(row) for row in SETUP_TOPS.tolist()}
    patterns = [tuple(row) for row in tops.tolist()]
    assert set(patterns) <= allowed                        # rules (a) and (b)
    assert len(set(patterns)) > 900                        # ~966 of the 1,020 expected
    expected = top_marginals(SETUP_TOPS)                   # uniform over the allowed patterns
    sigma = np.sqrt(expected * (1 - expected) / DRAWS)
    assert (np.abs(top_marginals(tops) - expected) < 5 * sigma).all()
    assert (np.abs(hidden.mean(0) - 0.5) < 5 * np.sqrt(0.25 / DRAWS)).all()
    game, rng = CoreTris2(), np.random.default_rng(0)    # the core's sampler agrees
    core = np.array([[b for b in game.initial_state(rng).board if b] for _ in range(DRAWS)])
    assert (np.abs(top_marginals((core - 1) // 2) - expected) < 5 * sigma).all()
    env = env_of()[0]
    start = env.init(jax.random.PRNGKey(3))
    mask = game.legal_mask(game.from_notation(to_position(env, start))).astype(bool)
    assert (np.asarray(start.legal_action_mask) == mask).all()


def test_fair_setups_hand_no_forced_line(setups):
    game = CoreTris2(fair=True)
    codes = setups["fair"]
    assert {tuple(row) for row in ((codes - 1) // 2).tolist()} <= {
        tuple(row) for row in SETUP_TOPS.tolist()}
    for row in codes:                                       # 0.6% would fail without redraws
        state = game.from_notation(block_position(row))
        assert not all(allows_win(game, state, a) for a in game.legal_actions(state))
    env = make("tris2", fair=True)
    fair = jax.jit(env._fair)
    for text in UNFAIR:
        state = game.from_notation(text)
        assert all(allows_win(game, state, a) for a in game.legal_actions(state))
        assert not bool(fair(from_position(env, text)._codes))
    assert bool(fair(from_position(env, EXAMPLE)._codes))


@pytest.mark.parametrize("options, text", [
    ({}, EXAMPLE),
    ({}, BEFORE_WIN),
    ({}, "XO/......|X/O...X/O|XO//XO/XO|OX/.../OX|/OX...... 0 1,0,W"),   # won by player 1
    ({"setup": "placement"}, "/XOOX/XO/|XO/...XO/|OX/OX//XO 0 -"),      # no placement: draw
    ({"setup": "placement"}, "XO/X/O...|...OX/...|......... 1 -"),
    ({"max_side": 4}, WIDE),
])
def test_position_bridges(options, text):
    env, _, game = env_of(**options)
    state = check_bridge(env, game, text)
    for seat in (0, 1):                                     # both seats see the same planes
        assert (np.asarray(env.observe_for(state, seat))
                == game.observation(game.from_notation(text), 0)).all()


def test_a_roll_that_makes_a_line_wins():
    env, step, game = env_of()
    state = from_position(env, BEFORE_WIN)
    action = 43                                             # die at 1,1 rolls west
    after = step(state, action)
    expected = game.apply(game.from_notation(BEFORE_WIN), action)
    assert bool(after.terminated) and expected.result == 1
    assert tuple(np.asarray(after.rewards)) == (-1.0, 1.0) == game.rewards(expected)
    assert to_position(env, after) == game.to_notation(expected)


def test_undo_rule_and_frame_moves():
    env, step, game = env_of()
    state = from_position(env, BEFORE_WIN)                  # the die at 0,0 just rolled N
    mask = np.asarray(state.legal_action_mask)
    assert not mask[0 * 4 + 2] and mask[0 * 4 + 1]          # not straight back S; E is fine
    state = from_position(env, EXAMPLE)
    core = game.from_notation(EXAMPLE)
    for action in (0, 75):                                  # 0,0 north, then 2,0 west
        state, core = step(state, action), game.apply(core, action)
        assert to_position(env, state) == game.to_notation(core)
        assert (np.asarray(state.legal_action_mask) == game.legal_mask(core).astype(bool)).all()
    text = to_position(env, state)
    assert text.count("|") == 3 and len(text.split("|")[0]) == 12   # a row and a column more


def test_max_side():
    game = CoreTris2(max_side=3)
    env = make("tris2", max_side=3)                        # no roll leaves the 3x3 block
    start = env.init(jax.random.PRNGKey(0))
    assert bool(start.terminated) and bool(start.legal_action_mask.all())
    assert game.current_player(game.from_notation(to_position(env, start))) == TERMINAL
    unlimited = np.asarray(from_position(env_of()[0], WIDE).legal_action_mask)
    env, step, game = env_of(max_side=4)
    state = step(from_position(env, EXAMPLE), 3)            # 0,0 west: 4 wide
    core = game.apply(game.from_notation(EXAMPLE), 3)
    assert to_position(env, state) == game.to_notation(core) == WIDE
    mask = np.asarray(state.legal_action_mask)
    assert (mask == game.legal_mask(core).astype(bool)).all()
    east = [(r * 9 + 3) * 4 + 1 for r in range(3)]         # out of the right column
    assert unlimited[east].all() and not mask[east].any()


def test_placement_setup():
    env, step, game = env_of(setup="placement")
    state, core = env.init(jax.random.PRNGKey(0)), game.initial_state()
    assert to_position(env, state) == game.to_notation(core)
    # player 0 places X at 0,0 and 0,1 ... a third X on the top row would be a line
    for action in (324 + 0 * 6 + 0, 324 + 4 * 6 + 2, 324 + 1 * 6 + 1):
        state, core = step(state, action), game.apply(core, action)
        assert to_position(env, state) == game.to_notation(core)
    mask = np.asarray(state.legal_action_mask)
    assert not mask[324 + 2 * 6 + 0] and not mask[324 + 2 * 6 + 1] and mask[324 + 2 * 6 + 2]
    assert (mask == game.legal_mask(core).astype(bool)).all()
    seven = "/XOOX/XO/|XO/...XO/|OX/OX/... 1 -"
    state = step(from_position(env, seven), 324 + 8 * 6 + 4)   # the eighth die: stuck
    assert bool(state.terminated) and tuple(np.asarray(state.rewards)) == (0.0, 0.0)
    assert to_position(env, state) == "/XOOX/XO/|XO/...XO/|OX/OX//XO 0 -"


def test_ninth_placement_starts_the_rolls():
    env, step, game = env_of(setup="placement")
    eight = "XO/O/XOX/|O/XX/OXO/|XO/O/X... 0 -"
    state = step(from_position(env, eight), 324 + 8 * 6 + 2)
    core = game.apply(game.from_notation(eight), 324 + 8 * 6 + 2)
    assert int(state.current_player) == 1 == core.to_move
    assert (np.asarray(state.legal_action_mask) == game.legal_mask(core).astype(bool)).all()
    assert not np.asarray(state.legal_action_mask)[324:].any()


@pytest.mark.parametrize("options, message", [
    ({"setup": "placement", "fair": True}, "fair"),
    ({"max_side": 2}, "max_side"),
    ({"setup": "spiral"}, "setup"),
])
def test_the_cores_option_errors(options, message):
    with pytest.raises(ValueError, match=message):
        make("tris2", **options)
