"""Every rules core of the registry, with every option set: invariants along random games and
hypothesis-chosen paths, options, the solver hook, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

from tris_envs import IllegalActionError
from tris_envs.core.game import CHANCE, TERMINAL, as_action

from cases import CASES, SPECS, history_free, module_of
from checks import action_paths, check_state_invariants, follow_path, random_playouts


@pytest.mark.parametrize("spec, options", CASES)
def test_random_playouts_keep_every_invariant(spec, options):
    finals = random_playouts(spec.make(**options), n_games=30, seed=3,
                             notation_complete=history_free(options))
    assert finals


@pytest.mark.parametrize("spec, options", CASES)
def test_batched_views_are_the_single_views_stacked(spec, options):
    """``observations`` and ``legal_masks`` (one pass over many states, Tris 2's own) give
    what ``observation`` and ``legal_mask`` give state by state, terminal states included."""
    game = spec.make(**options)
    states: list = []
    random_playouts(game, n_games=3, seed=5, check=lambda _, state: states.append(state),
                    max_plies=80, notation_complete=history_free(options))
    players = [k % 2 for k in range(len(states))]
    observations = game.observations(states, players)
    assert observations.dtype == np.int8
    assert np.array_equal(observations, np.stack([game.observation(state, player)
                                                  for state, player in zip(states, players)]))
    masks = game.legal_masks(states)
    assert masks.shape == (len(states), game.info.num_actions)
    assert np.array_equal(masks, np.stack([game.legal_mask(state) for state in states]))
    assert game.observations([], []).shape == (0,) + game.info.observation_shape
    assert game.legal_masks([]).shape == (0, game.info.num_actions)


@pytest.mark.parametrize("spec", SPECS)
@settings(max_examples=40, deadline=None)
@given(path=action_paths(max_len=60))
def test_properties_along_any_path(spec, path):
    """Invariants at every state; ``apply`` never changes its input; a legal action always
    leads somewhere new and an illegal one raises, leaving the state as it was."""
    game = spec.make()
    states = follow_path(game, path)
    for before, after in zip(states, states[1:]):
        check_state_invariants(game, before)
        notation = game.to_notation(before)
        assert after != before
        if game.current_player(before) not in (CHANCE, TERMINAL):
            illegal = np.flatnonzero(game.legal_mask(before) == 0)
            if illegal.size:
                with pytest.raises(IllegalActionError):
                    game.apply(before, int(illegal[path[0] % illegal.size]))
        assert game.to_notation(before) == notation
    check_state_invariants(game, states[-1])


@pytest.mark.parametrize("spec, options", CASES)
def test_options_are_declared_once_and_round_trip(spec, options):
    game = spec.make(**options)
    cls = spec.game_class
    assert set(game.options()) == set(cls.OPTIONS) and "max_moves" in cls.OPTIONS
    assert cls(**game.options()).options() == game.options()
    assert spec.make().options() == dict(cls.OPTIONS)


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("integer", [np.int64(37), np.int32(37), np.uint16(37)], ids=repr)
def test_numpy_integers_are_accepted_as_integer_options(spec, integer):
    game = spec.make(max_moves=integer)
    assert game.max_moves == 37 and type(game.options()["max_moves"]) is int
    env = module_of(spec).env(max_moves=integer)
    env.reset(seed=0)
    assert env.unwrapped.game.max_moves == 37


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("value", [True, np.bool_(True), 3.0, "9", 0, -4, None], ids=repr)
def test_bad_integer_options_are_refused(spec, value):
    with pytest.raises(ValueError, match="max_moves"):
        spec.make(max_moves=value)


@pytest.mark.parametrize("spec", SPECS)
def test_unknown_options_name_the_allowed_ones(spec):
    with pytest.raises(ValueError, match="unknown option.*'colour'.*allowed: .*max_moves"):
        spec.make(colour="red")
    with pytest.raises(ValueError, match="unknown option"):
        module_of(spec).env(colour="red")


@pytest.mark.parametrize("spec", SPECS)
def test_solver_hook_matches_the_registry(spec):
    game = spec.make()
    state = game.initial_state(np.random.default_rng(0))
    while game.current_player(state) == CHANCE:
        state = game.apply(state, game.chance_outcomes(state)[0][0])
    if spec.solvable:
        solved, root, lookup = game.solver_root(state)
        assert solved.info.name == spec.name and solved.current_player(root) != TERMINAL
    else:
        with pytest.raises(ValueError, match=f"cannot play '{spec.name}'"):
            game.solver_root(state)


def _live_start(spec, options, make="raw_env"):
    env = getattr(module_of(spec), make)(**options)
    env.reset(seed=1)
    return env


@pytest.mark.parametrize("spec, options", CASES)
def test_integral_actions_of_every_kind_are_accepted(spec, options):
    for kind in (int, np.int64, np.int16, np.uint32, lambda a: np.array(a),
                 lambda a: np.array(a, dtype=np.int16)):
        for make in ("raw_env", "env"):
            env = _live_start(spec, options, make)
            legal = int(np.flatnonzero(env.unwrapped.game.legal_mask(
                env.unwrapped.game_state))[0])
            assert as_action(kind(legal)) == legal
            env.step(kind(legal))
            assert env.unwrapped.num_moves == 1


@pytest.mark.parametrize("spec, options", CASES)
@pytest.mark.parametrize("action, message", [
    (True, "True is not an integer"), (np.bool_(True), "True_? is not an integer"),
    (1.0, "1.0 is not an integer"), ("3", "'3' is not an integer"),
    (np.array([1]), "is not an integer"), (np.array(1.0), "is not an integer"),
    (-1, "out of range"), (10_000, "out of range"),
], ids=repr)
def test_bad_actions_raise_and_change_nothing(spec, options, action, message):
    env = _live_start(spec, options)
    before = env.unwrapped.position
    with pytest.raises(IllegalActionError, match=message):
        env.step(action)
    assert env.unwrapped.position == before and env.unwrapped.num_moves == 0


@pytest.mark.parametrize("spec, options", CASES)
def test_illegal_action_message_says_why(spec, options):
    env = _live_start(spec, options)
    game, state = env.unwrapped.game, env.unwrapped.game_state
    illegal = np.flatnonzero(game.legal_mask(state) == 0)
    if not illegal.size:
        pytest.skip("every action is legal here")
    with pytest.raises(IllegalActionError, match=rf"action {illegal[0]} \(.+\) is illegal: .+"):
        env.step(int(illegal[0]))


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("text", ["", " ", "x" * 1_000_000, "\u0663" * 40, "a b c d e f g h i"],
                         ids=["empty", "space", "huge", "arabic digits", "fields"])
def test_malformed_positions_give_short_value_errors(spec, text):
    game = spec.make()
    with pytest.raises(ValueError) as error:
        game.from_notation(text)
    assert 0 < len(str(error.value)) < 1_000
    env = module_of(spec).env()
    with pytest.raises(ValueError):
        env.reset(options={"position": text})


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("seed", [-1, 1.5, "1"], ids=repr)
def test_bad_seeds_are_refused_clearly(spec, seed):
    env = module_of(spec).raw_env()
    with pytest.raises(ValueError, match="seed must be None or a non-negative integer"):
        env.reset(seed=seed)
