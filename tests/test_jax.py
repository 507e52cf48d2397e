"""The JAX games against the rules core: random games in lockstep (masks, both players'
observations, rewards, termination, truncation, positions), every legal action's next
position, the position bridges and Pgx's conventions. Random setups and dice are drawn on
the JAX side; the core follows them, and each drawn position must be one the core's chance
outcomes reach. Each game's own file (``test_jax_<game>.py``) checks the laws of its draws."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

jax = pytest.importorskip("jax")
pytest.importorskip("pgx")

import jax.numpy as jnp  # noqa: E402

from tris_envs.core.game import CHANCE, TERMINAL  # noqa: E402
from tris_envs.games import GAMES, make_game  # noqa: E402
from tris_envs.jax import GAMES as JAX_GAMES  # noqa: E402
from tris_envs.jax import make, restart, to_position  # noqa: E402

from checks import check_bridge  # noqa: E402

CASES = [(name, dict(options)) for name in JAX_GAMES for options in GAMES[name].option_sets]
CASES.append(("tant_fant", {"max_moves": 12, "repetition_draw": True}))


ONE_PER_GAME = [next(case for case in CASES if case[0] == name) for name in JAX_GAMES]


def unbatch(state, b):
    return jax.tree_util.tree_map(lambda x: x[b], state)


def after_chance(game, state):
    """Every decision or finished state that chance can lead to from ``state``, by position
    string (``{position: state}``; just ``state`` itself when it is not a chance node)."""
    if game.current_player(state) != CHANCE:
        return {game.to_notation(state): state}
    reached = {}
    for outcome, probability in game.chance_outcomes(state):
        if probability > 0:
            reached.update(after_chance(game, game.apply(state, outcome)))
    return reached


def follow(game, state, text):
    """The core's state matching the JAX state's position ``text``, reached from ``state``
    through chance; fails when chance cannot lead there."""
    reached = after_chance(game, state)
    assert text in reached, f"{text!r} is not among the outcomes {sorted(reached)}"
    return reached[text]


def start(env, game, states, batch):
    """The core states of a batch of JAX start states (random setups and first rolls are
    drawn by ``init``), each checked to be a decision or finished state."""
    cores = []
    for b in range(batch):
        core = game.from_notation(to_position(env, unbatch(states, b)))
        assert game.current_player(core) != CHANCE
        cores.append(core)
    return cores


@pytest.mark.parametrize("name, options", CASES, ids=str)
def test_random_games_agree_with_the_rules_core(name, options):
    batch, rng = 12, np.random.default_rng(0)
    env, game = make(name, **options), make_game(name, **options)
    init = jax.jit(jax.vmap(env.init))
    step = jax.jit(jax.vmap(env.step))
    observe = jax.jit(jax.vmap(env.observe_for))
    key, play = jax.random.split(jax.random.PRNGKey(0))
    states = init(jax.random.split(key, batch))
    cores = start(env, game, states, batch)
    plies = [0] * batch
    done = [False] * batch
    while not all(done):
        for b, core in enumerate(cores):
            if done[b]:
                continue
            one = unbatch(states, b)
            assert to_position(env, one) == game.to_notation(core)
            assert bool(one.terminated) == (game.current_player(core) == TERMINAL)
            assert bool(one.truncated) == (not one.terminated and plies[b] >= game.max_moves)
            if one.terminated or one.truncated:
                done[b] = True
                continue
            player = game.current_player(core)
            assert int(one.current_player) == player
            assert (np.asarray(one.legal_action_mask) == game.legal_mask(core).astype(bool)).all()
            assert (np.asarray(one.observation) == game.observation(core, player)).all()
        for seat in (0, 1):
            seen = np.asarray(observe(states, jnp.full(batch, seat)))
            for b, core in enumerate(cores):
                assert (seen[b] == game.observation(core, seat)).all()
        actions = np.zeros(batch, np.int32)
        moved = [None] * batch
        for b, core in enumerate(cores):
            if not done[b]:
                actions[b] = rng.choice(game.legal_actions(core))
                moved[b] = game.apply(core, int(actions[b]))
                plies[b] += 1
        play, key = jax.random.split(play)
        states = step(states, jnp.asarray(actions), jax.random.split(key, batch))
        for b, after in enumerate(moved):
            if after is not None:
                assert tuple(np.asarray(states.rewards[b])) == game.rewards(after)
                cores[b] = follow(game, after, to_position(env, unbatch(states, b)))


@pytest.mark.parametrize("name, options", ONE_PER_GAME, ids=str)
def test_every_legal_action_leads_to_the_cores_next_position(name, options):
    env, game = make(name, **options), make_game(name, **options)
    step_all = jax.jit(jax.vmap(env.step, in_axes=(None, 0, None)))
    everything = jnp.arange(game.info.num_actions, dtype=jnp.int32)
    step = jax.jit(env.step)
    key = jax.random.PRNGKey(0)
    rng = np.random.default_rng(1)
    for _ in range(6):
        key, first = jax.random.split(key)
        state = env.init(first)
        core, plies = start(env, game, jax.tree_util.tree_map(lambda x: x[None], state), 1)[0], 0
        while game.current_player(core) != TERMINAL and plies < 20:
            legal = game.legal_actions(core)
            key, chance, move = jax.random.split(key, 3)
            children = jax.device_get(step_all(state, everything, chance))  # one compile
            for action in legal:
                child = follow(game, game.apply(core, action),
                               to_position(env, unbatch(children, action)))
                assert bool(children.terminated[action]) == (
                    game.current_player(child) == TERMINAL)
            action = int(rng.choice(legal))
            state, plies = step(state, action, move), plies + 1
            core = follow(game, game.apply(core, action), to_position(env, state))


@pytest.mark.parametrize("name, text", [("tris1", "XO./.X./..."), ("tris1", "XXX/OO./..."),
                                        ("tant_fant", "WB./BWB/W.. w"),
                                        ("tant_fant", "WWW/B.B/..B b")])
def test_position_bridges_round_trip(name, text):
    check_bridge(make(name), make_game(name), text)


def test_pgx_conventions_and_bad_input():
    env = make("tris1")
    state = env.step(env.init(jax.random.PRNGKey(0)), 4)
    lost = env.step(state, 4)                         # occupied: the mover loses at once
    assert bool(lost.terminated) and tuple(np.asarray(lost.rewards)) == (1.0, -1.0)
    assert bool(lost.legal_action_mask.all())
    after = env.step(lost, 0)                         # a finished game does not change
    assert tuple(np.asarray(after.rewards)) == (0.0, 0.0) and bool(after.terminated)
    with pytest.raises(ValueError, match="no JAX version of 'chess'"):
        make("chess")
    with pytest.raises(ValueError, match="stalemate"):
        make("tant_fant", stalemate="lose")
    assert set(JAX_GAMES) <= set(GAMES)


@pytest.mark.parametrize("name", JAX_GAMES)
def test_every_kind_of_key_draws_and_steps(name):
    env = make(name)
    init, step = jax.jit(env.init), jax.jit(env.step)
    for key in (jax.random.PRNGKey(3), jax.random.key(3), jax.random.key(3, impl="rbg")):
        state = init(key)
        state = step(state, jnp.argmax(state.legal_action_mask), key)
        assert int(state._step_count) == 1 and bool(state.legal_action_mask.any())
        batch = jax.vmap(env.init)(jax.random.split(key, 3))
        assert batch.legal_action_mask.shape == (3, env.num_actions)
        assert bool(batch.legal_action_mask.any(-1).all())


def test_restart_replaces_only_the_ended_games():
    env = make("tris1")
    keys = jax.random.split(jax.random.PRNGKey(0), 3)
    fresh = jax.vmap(env.init)(keys)
    moved = jax.vmap(env.step)(fresh, jnp.array([0, 4, 8]))
    state = restart(jnp.array([False, True, False]), fresh, moved)
    assert np.asarray(state._step_count).tolist() == [1, 0, 1]
    assert np.asarray(state.observation[:, 1, 1].sum(-1)).tolist() == [0, 0, 0]
    assert np.asarray(state.observation[:, 0, 0].sum(-1)).tolist() == [1, 0, 0]
    assert np.asarray(state.current_player).tolist() == [1, 0, 1]


def test_benchmark_loop_plays_and_restarts_games():
    from tris_envs.bench.jax_games import measure, random_play

    env = make("tris1")
    state = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(0), 4))
    state, _ = random_play(env, 4, 30)(state, jax.random.PRNGKey(1))   # > 9 plies: restarts
    assert not bool(state.terminated.any()) and int(state._step_count.max()) <= 9
    compile_seconds, rate = measure(env, 2, 5, 1)
    assert compile_seconds > 0 and rate > 0


def test_benchmark_loop_rolls_dice_inside_step():
    from tris_envs.bench.jax_games import random_play

    env = make("tritoc")
    state = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(0), 2))
    after, _ = random_play(env, 2, 3)(state, jax.random.PRNGKey(1))
    assert int(after._step_count.min()) >= 1 and bool(after.legal_action_mask.any(-1).all())
    assert not bool((after.terminated | after.truncated).any())


@pytest.mark.slow
def test_benchmark_table():
    from tris_envs.bench.jax_games import run

    table = run(batches=(1, 8), length=5, rounds=1, ratio_rounds=2)
    assert "| pgx tic_tac_toe |" in table and "1.00x" in table
    assert all(f"| {name} |" in table for name in JAX_GAMES)


@pytest.mark.parametrize("actions, legal", [(9, [0, 4, 8]), (81, [2, 40, 80]),
                                             (378, [31, 32, 377])])
def test_benchmark_draws_legal_actions_uniformly(actions, legal):
    from tris_envs.bench.jax_games import uniform_legal

    mask = jnp.zeros((3000, actions), dtype=bool).at[:, jnp.array(legal)].set(True)
    counts = np.bincount(np.asarray(uniform_legal(jax.random.PRNGKey(0), mask)),
                         minlength=actions)
    assert set(np.flatnonzero(counts)) == set(legal)
    assert all(900 < counts[a] < 1100 for a in legal)


def test_benchmark_draws_only_legal_actions():
    from tris_envs.bench.jax_games import uniform_legal

    key = jax.random.PRNGKey(1)
    mask = jax.random.bernoulli(key, 0.1, (2000, 100)).at[:, 99].set(True)
    chosen = np.asarray(uniform_legal(key, mask))
    assert np.asarray(mask)[np.arange(2000), chosen].all()


# ----- illegal and out-of-range actions (issue #31) -------------------------------------
MUST_PASS = "/".join(["........."] * 9) + " w p 0"
"""A Tritoc position where White must pass (action 81 the only legal one)."""


def penalised(env, step, before, after):
    """``after`` is ``before`` ended by an illegal action of its player: -1 for it, +1 for
    the other, the position unchanged (a valid state), every action masked legal; stepping
    on changes nothing (``step``: the env's, jitted)."""
    player = int(before.current_player)
    assert bool(after.terminated) and not bool(after.truncated)
    assert tuple(np.asarray(after.rewards)) == ((-1.0, 1.0) if player == 0 else (1.0, -1.0))
    assert to_position(env, after) == to_position(env, before)
    assert bool(after.legal_action_mask.all())
    again = step(after, jnp.int32(0), jax.random.PRNGKey(1))
    assert tuple(np.asarray(again.rewards)) == (0.0, 0.0)
    assert to_position(env, again) == to_position(env, before)


def test_the_issue_reproducer_ends_the_game():
    env = make("tris1")
    state = env.init(jax.random.PRNGKey(0))
    penalised(env, jax.jit(env.step), state, env.step(state, 9))    # unjitted, a plain int


@pytest.mark.parametrize("name, options, position, actions", [
    ("tris1", {}, None, [9, 14, 90, -1, -9, 2**31 - 1, -2**31]),
    ("tris2", {}, None, [-378, -1, 378, 10**6]),
    ("tris2", {"setup": "placement"}, None, [-54, 378, 5]),
    ("tant_fant", {}, None, [0, 81, -81, 2**31 - 1]),
    ("doppia_scelta", {"setup": "coloring"}, None, [78, 1000, -1, 0, 2]),
    ("tritoc", {}, MUST_PASS, [82, 5000, -1, 0, 80]),
], ids=str)
def test_out_of_range_and_illegal_actions_lose_and_keep_the_position(name, options, position,
                                                                     actions):
    from tris_envs.jax import from_position

    env = make(name, **options)
    step, key = jax.jit(env.step), jax.random.PRNGKey(0)
    state = env.init(key) if position is None else from_position(env, position)
    for action in actions:
        penalised(env, step, state, step(state, jnp.int32(action), key))


def test_actions_of_any_integer_type_and_size():
    from tris_envs.jax.base import _as_action

    for value, expected in [(2**40, 2**31 - 1), (-2**40, -2**31), (5, 5),
                            (np.int64(2**40), 2**31 - 1), (np.int64(-2**40), -2**31),
                            (np.uint64(2**63), 2**31 - 1), (np.uint32(2**32 - 1), 2**31 - 1),
                            (jnp.uint32(2**32 - 1), 2**31 - 1), (np.int8(-3), -3),
                            (jnp.int32(-7), -7), (np.array(4), 4)]:
        action = _as_action(value)
        assert action.dtype == jnp.int32 and action.shape == () and int(action) == expected


def test_illegal_actions_in_a_batch_and_legal_ones_beside_them():
    env = make("tris1")
    states = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(0), 4))
    after = jax.jit(jax.vmap(env.step))(states, jnp.array([4, 9, -1, 2**31 - 1]))
    assert after.terminated.tolist() == [False, True, True, True]
    assert after.rewards[:, 0].tolist() == [0.0, -1.0, -1.0, -1.0]
    assert [to_position(env, unbatch(after, b)) for b in range(4)] == [
        ".../.X./...", ".../.../...", ".../.../...", ".../.../..."]


def test_doppia_scelta_coloring_takes_plain_python_actions():
    env = make("doppia_scelta", setup="coloring")
    step = jax.jit(env.step, static_argnums=1)                  # the action a Python int
    state = step(env.init(jax.random.PRNGKey(0)), 3)            # cell 0 yellow
    assert not bool(state.terminated) and int(state.current_player) == 1
    assert to_position(env, state).startswith("Y..../")


def test_a_non_integer_action_is_refused():
    env = make("tris1")
    state = env.init(jax.random.PRNGKey(0))
    for action in (1.5, True, np.bool_(True), jnp.float32(1), "3", None, np.array([1, 2])):
        with pytest.raises(TypeError, match="is not an integer"):
            env.step(state, action)


@pytest.mark.parametrize("name", JAX_GAMES)
def test_a_huge_max_moves_steps(name):
    env = make(name, max_moves=2**31)
    key = jax.random.PRNGKey(0)
    state = env.init(key)
    state = jax.jit(env.step)(state, jnp.argmax(state.legal_action_mask), key)
    assert int(state._step_count) == 1 and not bool(state.truncated)


def test_tant_fant_repetition_history_is_bounded():
    env = make("tant_fant", repetition_draw=True, max_moves=10**10)
    state = env.init(jax.random.PRNGKey(0))
    # two of each of the 3,360 positions and the third occurrence, whatever max_moves is
    assert state._history.shape == (2 * 3360 + 1,)
    assert make("tant_fant", repetition_draw=True, max_moves=12).init(
        jax.random.PRNGKey(0))._history.shape == (13,)


def test_make_refuses_an_unknown_option_with_a_value_error():
    for name in JAX_GAMES:
        with pytest.raises(ValueError, match="unknown option.*'foo'"):
            make(name, foo=1)


FUZZ_CASES = ONE_PER_GAME + [("tris2", {"setup": "placement"}),
                             ("doppia_scelta", {"setup": "coloring"})]
_FUZZ: dict = {}


def fuzz_positions(name, options):
    """(env, game, jitted step, [(state, core)]) for a case: positions along a random game
    (the start included), and for Tritoc one where the player must pass; built once."""
    case = (name, repr(sorted(options.items())))
    if case not in _FUZZ:
        from tris_envs.jax import from_position

        env, game = make(name, **options), make_game(name, **options)
        step = jax.jit(env.step)
        key, rng = jax.random.PRNGKey(5), np.random.default_rng(5)
        state = env.init(key)
        core = start(env, game, jax.tree_util.tree_map(lambda x: x[None], state), 1)[0]
        positions = []
        while game.current_player(core) != TERMINAL and len(positions) < 6:
            positions.append((state, core))
            action = int(rng.choice(game.legal_actions(core)))
            key, move = jax.random.split(key)
            state = step(state, jnp.int32(action), move)
            core = follow(game, game.apply(core, action), to_position(env, state))
        if name == "tritoc":
            positions.append((from_position(env, MUST_PASS), game.from_notation(MUST_PASS)))
        _FUZZ[case] = env, game, step, positions
    return _FUZZ[case]


@pytest.mark.parametrize("name, options", FUZZ_CASES, ids=str)
@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(index=st.integers(0, 6),
       action=st.one_of(st.integers(-2**31, 2**31 - 1), st.integers(-400, 400)))
def test_fuzz_any_int32_action_gets_the_cores_verdict(name, options, index, action):
    env, game, step, positions = fuzz_positions(name, options)
    state, core = positions[index % len(positions)]
    legal = 0 <= action < game.info.num_actions and bool(game.legal_mask(core)[action])
    after = step(state, jnp.int32(action), jax.random.PRNGKey(index))
    if not legal:
        penalised(env, step, state, after)
        return
    moved = game.apply(core, action)
    assert tuple(np.asarray(after.rewards)) == game.rewards(moved)
    follow(game, moved, to_position(env, after))


@pytest.mark.parametrize("name, options", FUZZ_CASES, ids=str)
def test_from_core_gives_the_state_with_its_observation(name, options):
    env, game, _, positions = fuzz_positions(name, options)
    for state, core in positions:
        converted = env.from_core(core)
        assert np.array_equal(np.asarray(converted.observation), np.asarray(state.observation))
        assert np.array_equal(np.asarray(converted.observation),
                              game.observation(core, game.current_player(core)))
