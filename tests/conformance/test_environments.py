"""Every environment of the registry, with every option set: PettingZoo's own tests, random
play through ``env()``, pickling, the wrapper chain, third-party wrappers."""

from __future__ import annotations

import random

import numpy as np
import pytest
import supersuit

from tris_envs.bench.engines import pettingzoo_chain

from cases import CASES, SPECS, module_of
from checks import check_pickle_midgame, fuzz_env, run_pettingzoo_tests


@pytest.mark.parametrize("spec, options", CASES)
def test_pettingzoo_api_seed_and_render_tests(spec, options):
    run_pettingzoo_tests(module_of(spec), options, cycles=150)


@pytest.mark.parametrize("spec, options", CASES)
def test_random_play_through_env_keeps_the_aec_invariants(spec, options):
    fuzz_env(module_of(spec), options, n_games=40, seed=7)


@pytest.mark.parametrize("spec, options", CASES)
def test_pickled_and_copied_envs_continue_like_the_original(spec, options):
    check_pickle_midgame(module_of(spec), options, plies=12, seed=5)


def _snapshot(env):
    observations = {a: {k: v.tolist() for k, v in env.observe(a).items()} for a in env.agents}
    return (list(env.agents), env.agent_selection if env.agents else None, dict(env.rewards),
            dict(env._cumulative_rewards), dict(env.terminations), dict(env.truncations),
            dict(env.infos), observations, env.unwrapped.position)


def _outcome(env, action):
    try:
        env.step(action)
    except AssertionError:
        return ("AssertionError", _snapshot(env))
    return ("ok", _snapshot(env))


@pytest.mark.parametrize("spec, options", CASES)
def test_env_behaves_like_pettingzoos_wrapper_chain(spec, options):
    """``env()``'s one wrapper against ``TerminateIllegal``/``AssertOutOfBounds``/
    ``OrderEnforcing`` on the same raw env: legal, illegal, out-of-range and late actions."""
    module = module_of(spec)
    rnd = random.Random(0)
    ours = module.env(**options, max_moves=40)
    theirs = pettingzoo_chain(module.raw_env(**options, max_moves=40))
    n = ours.action_space("player_0").n
    for game in range(15):
        ours.reset(seed=game)
        theirs.reset(seed=game)
        assert _snapshot(ours) == _snapshot(theirs)
        for _ in range(60):
            if not ours.agents:
                assert _outcome(ours, 0) == _outcome(theirs, 0)
                break
            obs, _, term, trunc, _ = ours.last()
            assert theirs.last()[1:] == ours.last()[1:]
            legal = np.flatnonzero(obs["action_mask"]).tolist()
            roll = rnd.random()
            if term or trunc:
                action = None
            elif roll < 0.04:
                action = rnd.choice([n, -1, n + 7])
            elif roll < 0.06:
                action = None
            elif roll < 0.10 and len(legal) < n:
                action = rnd.choice([a for a in range(n) if a not in legal])
            else:
                action = rnd.choice(legal)
            assert _outcome(ours, action) == _outcome(theirs, action)


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("wrap", [lambda env: supersuit.sticky_actions_v0(env, 0.25),
                                  lambda env: supersuit.delay_observations_v0(env, 2)],
                         ids=["sticky_actions", "delay_observations"])
def test_supersuit_wrappers_play_whole_games(spec, wrap):
    env = wrap(module_of(spec).env(max_moves=60))
    for seed in range(3):
        env.reset(seed=seed)
        rnd = random.Random(seed)
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc
                     else rnd.choice(np.flatnonzero(obs["action_mask"]).tolist()))
        assert not env.agents


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("make", ["env", "raw_env"])
def test_observe_works_after_the_game_is_over(spec, make):
    env = getattr(module_of(spec), make)(max_moves=30)
    env.reset(seed=0)
    rnd = random.Random(0)
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc
                 else rnd.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    for agent in env.possible_agents:
        observation = env.observe(agent)
        assert not observation["action_mask"].any()
        assert observation["observation"].shape == env.unwrapped.game.info.observation_shape
