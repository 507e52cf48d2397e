"""Doppia scelta in JAX: the random setup's law against the core's sampler, scripted
positions (bridges, a win, a stalemate, forced moves, a forbidden coloring, White's double
turn), custom gates and fixed boards in lockstep with the core, and the refused option."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("pgx")

import jax.numpy as jnp  # noqa: E402

from tris_envs.core.game import TERMINAL  # noqa: E402
from tris_envs.games import make_game  # noqa: E402
from tris_envs.games.doppia_scelta import codycolor_path, format_board  # noqa: E402
from tris_envs.jax import from_position, make, to_position  # noqa: E402

from checks import check_bridge  # noqa: E402

DRAWS = 2000
CORNER_GATES = ("4,0,S", "4,0,W", "0,4,N", "0,4,E")
"""Start and goal on one corner cell each: coloring it yellow at once opens the path."""


@pytest.fixture(scope="module")
def envs():
    return {}


def env_of(envs, **options):
    key = tuple(sorted(options.items()))
    if key not in envs:
        env = make("doppia_scelta", **options)
        envs[key] = (env, make_game("doppia_scelta", **options), jax.jit(jax.vmap(env.init)),
                     jax.jit(jax.vmap(env.step)), jax.jit(env.step))
    return envs[key]


def unbatch(states, b):
    return jax.tree_util.tree_map(lambda x: x[b], states)


def boards(env, states):
    return ["".join("YGR."[c] for c in row) for row in np.asarray(states._colors)]


@pytest.mark.parametrize("scheme", ["crossing", "shared_goal"])
def test_random_boards_follow_the_cores_law(envs, scheme):
    env, game, init, _, _ = env_of(envs, scheme=scheme)
    states = init(jax.random.split(jax.random.PRNGKey(7), DRAWS))
    drawn = boards(env, states)
    assert all(game.path_owner(colors) is None for colors in drawn)
    assert len(set(drawn)) == DRAWS
    rng = np.random.default_rng(7)
    reference = [game.random_board(rng) for _ in range(DRAWS)]

    def law(sample):
        counts = np.array([[colors[cell] == ch for ch in "YGR"] for colors in sample
                           for cell in range(25)]).reshape(len(sample), 25, 3).mean(0)
        lengths = [len(codycolor_path(format_board(colors), start, goal).cells)
                   for colors in sample for start, goal in (game.gates[:2], game.gates[2:])]
        return counts, np.mean(lengths)

    (counts, length), (expected, expected_length) = law(drawn), law(reference)
    assert np.abs(counts - expected).max() < 0.06       # about 4 standard deviations
    assert abs(length - expected_length) < 0.4
    assert np.asarray(states._robots).tolist() == [[game.entry_pose(0), game.entry_pose(1)]] * DRAWS


@pytest.mark.parametrize("size", [1024, 2048])
def test_batched_boards_are_the_unbatched_boards(envs, size):
    """A batch draws per key the board that ``init`` alone draws (``lax.map`` runs it key
    by key): in a batch of 1,024 the few keys whose first board is not settled after the
    first walk steps are redrawn apart; in one of 2,048 they are too many, and the whole
    batch takes the loop."""
    env, _, init, _, _ = env_of(envs)
    keys = jax.random.split(jax.random.PRNGKey(11), size)
    one_by_one = jax.jit(lambda keys: jax.lax.map(env.init, keys)._colors)(keys)
    assert (np.asarray(init(keys)._colors) == np.asarray(one_by_one)).all()


@pytest.mark.parametrize("text", [
    "RGGYY/YYYYR/GRGGR/RGGGR/YRRYG 3,0,N 4,4,N 4,0,S 0,4,N 4,4,S 0,0,N b",
    "RGGYY/YYYYR/GRGGR/RGGGR/YRRYG -1,4,N 0,2,E 4,0,S 0,4,N 4,4,S 0,0,N b",
    "RGGYG/RGGRR/RGRRG/RRRGR/YGRRG 4,1,S 4,4,S 4,0,S 0,4,N 4,4,S 0,0,N w",
])
def test_bridges_of_movement_positions(envs, text):
    env, game, *_ = env_of(envs)
    check_bridge(env, game, text)


@pytest.mark.parametrize("before, action, after, rewards", [
    ("RGGYY/YYYYR/GRGGR/RGGGR/YRRYG 0,4,E 0,2,E 4,0,S 0,4,N 4,4,S 0,0,N w", 0,
     "RGGYY/YYYYR/GRGGR/RGGGR/YRRYG -1,4,N 0,2,E 4,0,S 0,4,N 4,4,S 0,0,N b", (1.0, -1.0)),
    ("RGGYG/RGGRR/RGRRG/RRRGR/YGRRG 4,1,S 3,4,E 4,0,S 0,4,N 4,4,S 0,0,N b", 2,
     "RGGYG/RGGRR/RGRRG/RRRGR/YGRRG 4,1,S 4,4,S 4,0,S 0,4,N 4,4,S 0,0,N w", (0.0, 0.0)),
])
def test_a_win_and_a_stalemate(envs, before, action, after, rewards):
    env, game, _, _, step = env_of(envs)
    state = step(from_position(env, before), action)
    assert to_position(env, state) == after
    assert bool(state.terminated) and tuple(np.asarray(state.rewards)) == rewards


def test_forced_moves():
    env = make("doppia_scelta")
    # black on gray facing north at 4,4, white on red: turning right would face the border
    forced = from_position(env, "RGGYY/YYYYR/GRGGR/RGGGR/YRRYG 3,0,N 4,4,N 4,0,S 0,4,N 4,4,S "
                                "0,0,N b")
    assert np.flatnonzero(forced.legal_action_mask).tolist() == [1]
    # both on gray, white faces the border: "straight" is legal and changes nothing
    blocked = "GGGGG/GGGGG/GGGGG/GGGGR/GGGGG 0,1,N 2,2,E 4,0,S 0,4,N 4,4,S 0,0,N w"
    state = from_position(env, blocked)
    assert np.flatnonzero(state.legal_action_mask).tolist() == [1]
    after = env.step(state, 1)
    assert to_position(env, after).split(" ")[:3] == blocked.split(" ")[:3]


def test_coloring_phase_positions(envs):
    env, game, init, _, step = env_of(envs, setup="coloring")
    text = "GRGRG/YGGYY/RYRGR/.GRY./GGGYR - - 4,0,S 0,4,N 4,4,S 0,0,N b"
    state, core = from_position(env, text), game.from_notation(text)
    assert to_position(env, state) == text
    mask = np.asarray(state.legal_action_mask)
    assert not mask[49] and (mask == game.legal_mask(core)).all()
    last = "GRGRG/YGGYY/RYRGR/YGRY./GGGYR - - 4,0,S 0,4,N 4,4,S 0,0,N w"
    opened = step(from_position(env, last), 3 + 19 * 3 + 2)
    assert int(opened.current_player) == 0 and not bool(opened.terminated)
    assert to_position(env, opened) == game.to_notation(game.apply(game.from_notation(last),
                                                                   3 + 19 * 3 + 2))
    start = init(jax.random.split(jax.random.PRNGKey(0), 1))
    assert to_position(env, unbatch(start, 0)) == (
        "...../...../...../...../..... - - 4,0,S 0,4,N 4,4,S 0,0,N w")


def test_corner_gates_forbid_the_opening_coloring(envs):
    env, game, init, _, _ = env_of(envs, setup="coloring", gates=CORNER_GATES)
    mask = np.asarray(init(jax.random.split(jax.random.PRNGKey(0), 1)).legal_action_mask[0])
    white_yellow, black_yellow = 3 + 20 * 3, 3 + 4 * 3
    assert not mask[white_yellow] and not mask[black_yellow] and mask.sum() == 73
    assert (mask == game.legal_mask(game.initial_state(np.random.default_rng(0)))).all()


@pytest.mark.parametrize("options", [
    {"setup": "coloring", "gates": CORNER_GATES},
    {"gates": ("4,2,S", "2,4,E", "0,2,N", "2,0,W")},
    {"board": "YGRGY/GGRYY/RRGGY/YYGGR/GRYGR", "scheme": "swap"},
], ids=str)
def test_lockstep_with_the_core(envs, options):
    env, game, init, step, _ = env_of(envs, **options)
    batch, rng = 16, np.random.default_rng(3)
    states = init(jax.random.split(jax.random.PRNGKey(3), batch))
    cores = [game.from_notation(to_position(env, unbatch(states, b))) for b in range(batch)]
    for _ in range(60):
        actions = np.zeros(batch, np.int32)
        for b, core in enumerate(cores):
            one = unbatch(states, b)
            assert to_position(env, one) == game.to_notation(core)
            if game.current_player(core) != TERMINAL:
                assert (np.asarray(one.legal_action_mask) == game.legal_mask(core)).all()
                assert (np.asarray(one.observation) == game.observation(core,
                                                                        core.to_move)).all()
                actions[b] = rng.choice(game.legal_actions(core))
                cores[b] = game.apply(core, int(actions[b]))
        states = step(states, jnp.asarray(actions))


def test_fair_boards_are_refused():
    with pytest.raises(ValueError, match="fair=True is not available in the JAX version"):
        make("doppia_scelta", fair=True)
    with pytest.raises(ValueError, match="scheme"):
        make("doppia_scelta", scheme="diagonal")
