"""Rules-core protocol, generic solver, properties of both foundation games, packaging."""

from __future__ import annotations

import ast
import dataclasses
import functools
from pathlib import Path

import numpy as np
import pettingzoo
import pytest
from hypothesis import given, settings

import tris_envs
from tris_envs import tant_fant_v0, tris1_v0
from tris_envs.core import TERMINAL, GameInfo, solve
from tris_envs.games.tant_fant import TantFant
from tris_envs.games.tris1 import Tris1

from checks import action_paths, check_state_invariants, follow_path

PACKAGE = Path(tris_envs.__file__).parent


def search(game, state, depth: int) -> int | None:
    """Plain depth-limited search: the result for player 0 if forced within ``depth`` plies."""
    player = game.current_player(state)
    if player == TERMINAL:
        r0, r1 = game.returns(state)
        return (r0 > r1) - (r0 < r1)
    if depth == 0:
        return None
    sign = 1 if player == 0 else -1
    results = [search(game, game.apply(state, a), depth - 1) for a in game.legal_actions(state)]
    for_mover = [None if r is None else r * sign for r in results]
    if 1 in for_mover:
        return sign
    if None in for_mover:
        return None
    return max(for_mover) * sign


@pytest.mark.parametrize("game", [TantFant(), TantFant(diagonal_only=True, stalemate="loss")],
                         ids=repr)
def test_solver_agrees_with_depth_limited_search(game):
    solution = solve(game, game.initial_state())
    rng = np.random.default_rng(0)
    decided = [i for i in range(len(solution)) if solution.plies[i] > 0]
    checked = 0
    for i in rng.permutation(decided):
        state, plies = solution.states[i], int(solution.plies[i])
        if plies > 5:
            continue
        assert search(game, state, plies) == solution.values[i]
        assert search(game, state, plies - 1) is None   # no faster win, no slower loss
        checked += 1
        if checked == 60:
            break
    assert checked == 60
    draws = [i for i in range(len(solution)) if solution.values[i] == 0 and
             solution.movers[i] != TERMINAL]
    for i in rng.choice(draws, size=30, replace=False):
        assert search(game, solution.states[i], 4) in (None, 0)


def test_solver_optimal_actions_keep_the_value():
    game = TantFant(diagonal_only=True)
    solution = solve(game, game.initial_state())
    for i, state in enumerate(solution.states[:500]):
        if solution.movers[i] == TERMINAL:
            assert solution.best_actions(state) == []
            continue
        best = solution.best_actions(state)
        assert best and set(best) <= set(solution.optimal_actions(state))
        for a in solution.optimal_actions(state):
            assert solution.value(game.apply(state, a)) == solution.value(state)


def test_solver_refuses_games_with_chance():
    class Dice(Tris1):
        def __init__(self) -> None:
            super().__init__()
            self.info = GameInfo("dice", 9, (3, 3, 2), 9, deterministic=False)

    with pytest.raises(ValueError, match="chance nodes"):
        solve(Dice(), Dice().initial_state())
    with pytest.raises(ValueError, match="more than max_states=100"):
        solve(Tris1(), Tris1().initial_state(), max_states=100)
    solution = solve(Tris1(), Tris1().initial_state())
    with pytest.raises(KeyError, match="not reachable"):
        solution.value(TantFant().initial_state())


GAMES = [TantFant(), TantFant(diagonal_only=True, stalemate="loss"), Tris1()]


def own_pieces(game, state, player) -> int:
    if isinstance(game, TantFant):
        return state.black if player else state.white
    return state.o if player else state.x


@pytest.mark.parametrize("game", GAMES, ids=repr)
@settings(max_examples=150, deadline=None)
@given(path=action_paths())
def test_properties_along_any_path(game, path):
    states = follow_path(game, path)
    for state in states:
        check_state_invariants(game, state)                 # mask = legal, notation round trip
        assert game.from_notation(game.to_notation(state)) == state
        for player in (0, 1):
            obs = game.observation(state, player)
            bits = obs[:, :, 0].reshape(9)
            assert [int(b) for b in bits] == [own_pieces(game, state, player) >> p & 1
                                             for p in range(9)]
            assert (obs[:, :, 0] & obs[:, :, 1]).sum() == 0
        if game.current_player(state) == TERMINAL:
            assert not game.legal_mask(state).any()
    # cloning independence: re-applying the path from a shared prefix changes nothing
    for before, after in zip(states, states[1:]):
        snapshot = game.to_notation(before)
        for a in game.legal_actions(before):
            game.apply(before, a)
        assert game.to_notation(before) == snapshot and after != before


def test_masks_are_read_only_and_env_observations_are_private():
    game = Tris1()
    mask = game.legal_mask(game.initial_state())
    with pytest.raises(ValueError):
        mask[0] = 0
    env = tris1_v0.env()
    env.reset()
    obs = env.observe("player_0")
    obs["action_mask"][:] = 0
    assert env.observe("player_0")["action_mask"].all()


def test_rules_core_imports_no_framework():
    for folder in ("core", "games"):
        for path in (PACKAGE / folder).glob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                         else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
                for name in names:
                    assert name.split(".")[0] not in {"gymnasium", "pettingzoo", "pygame"}, path


def test_setup_options_are_options_of_their_game():
    from tris_envs.games import GAMES, make_game

    setups = {name: type(make_game(name)).SETUP_OPTIONS for name in GAMES}
    for name, options in setups.items():
        assert options <= set(type(make_game(name)).OPTIONS) - {"max_moves"}, name
    assert setups["tris2"] == {"setup", "fair"}
    assert setups["doppia_scelta"] == {"setup", "board", "fair"}
    assert not setups["tritoc"]    # its layout changes every roll's holes


def test_pettingzoo_registry_and_make_env():
    env = pettingzoo.make("aec", "tris_envs/tant_fant-v0", diagonal_only=True)
    env.reset()
    assert env.unwrapped.game.diagonal_only
    assert pettingzoo.make("aec", "tris_envs/tris1_v0").unwrapped.metadata["name"] == "tris1_v0"
    assert tris_envs.make_env("tris1_v0").unwrapped.game.info.num_actions == 9
    with pytest.raises(ValueError, match="unknown game 'chess_v6'"):
        tris_envs.make_env("chess_v6")


@pytest.mark.parametrize("module", [tant_fant_v0, tris1_v0])
def test_picture_render_modes(module):
    env = module.env(render_mode="rgb_array")
    env.reset()
    picture = env.render()
    assert picture.dtype == np.uint8 and picture.ndim == 3 and picture.shape[2] == 3
    assert len(np.unique(picture.reshape(-1, 3), axis=0)) > 3
    first = picture.copy()
    env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
    assert (env.render() != first).any()
    human = module.env(render_mode="human")
    human.reset()
    assert human.render() is None
    human.close()


@pytest.mark.parametrize("make", [tant_fant_v0.env, tant_fant_v0.raw_env])
def test_render_without_mode_warns_and_returns_none(make):
    env = make()
    env.reset()
    with pytest.warns(UserWarning, match="without specifying any render mode"):
        assert env.render() is None


def test_metadata_is_static():
    game = TantFant()
    with pytest.raises(dataclasses.FrozenInstanceError):
        game.info.num_actions = 9
    assert game.info == TantFant(stalemate="loss").info and game.info.num_actions == 81
    assert functools.reduce(int.__mul__, game.info.observation_shape) == 36


def test_a_dice_roll_that_ends_the_game_pays_its_result():
    from test_agents import ROLL, DiceRace

    from tris_envs.envs.aec import GameEnv

    class RaceEnv(GameEnv):
        game_class = DiceRace
        metadata = GameEnv.make_metadata("dice_race")

    env = RaceEnv(target=1, walk=False)      # the first roll (any face) wins for player_0
    env.reset(seed=0)
    env.step(ROLL)
    assert all(env.terminations.values())
    assert env._cumulative_rewards == {"player_0": 1.0, "player_1": -1.0}
