"""ClassicWrapper behaves exactly like PettingZoo's three-wrapper chain of classic games."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from tris_envs import tant_fant_v0, tris1_v0
from tris_envs.bench.engines import pettingzoo_chain
from tris_envs.envs.classic import ClassicWrapper, OutOfBoundsActionError


def pettingzoo_chain_of(module: Any, **options: Any) -> Any:
    return pettingzoo_chain(module.raw_env(**options))


def test_agent_iter_loop_matches():
    for module in (tant_fant_v0, tris1_v0):
        results = []
        for env in (module.env(), pettingzoo_chain_of(module)):
            rnd = random.Random(3)
            env.reset(seed=3)
            trace = []
            for agent in env.agent_iter():
                obs, reward, term, trunc, _ = env.last()
                action = None if term or trunc else rnd.choice(
                    np.flatnonzero(obs["action_mask"]).tolist())
                trace.append((agent, reward, term, trunc, action))
                env.step(action)
            results.append(trace)
        assert results[0] == results[1]


@pytest.mark.parametrize("name", ["agents", "rewards", "terminations", "truncations", "infos",
                                  "agent_selection", "num_agents"])
def test_attributes_before_reset(name):
    for env in (tant_fant_v0.env(), pettingzoo_chain_of(tant_fant_v0)):
        with pytest.raises(AttributeError, match=f"{name} cannot be accessed before reset"):
            getattr(env, name)


@pytest.mark.parametrize("call, message", [
    (lambda e: e.step(0), "reset\\(\\) needs to be called before step"),
    (lambda e: e.observe("player_0"), "reset\\(\\) needs to be called before observe"),
    (lambda e: e.render(), "reset\\(\\) needs to be called before render"),
    (lambda e: e.agent_iter(), "reset\\(\\) needs to be called before agent_iter"),
])
def test_calls_before_reset(call, message):
    for env in (tant_fant_v0.env(render_mode="ansi"),
                pettingzoo_chain_of(tant_fant_v0, render_mode="ansi")):
        with pytest.raises(AssertionError, match=message):
            call(env)


def test_agent_iter_requires_a_step_between_agents():
    for env in (tant_fant_v0.env(), pettingzoo_chain_of(tant_fant_v0)):
        env.reset()
        iterator = iter(env.agent_iter())
        next(iterator)
        with pytest.raises(AssertionError, match="need to call step\\(\\) or reset\\(\\)"):
            next(iterator)


def test_out_of_bounds_error_is_clear_and_an_assertion():
    env = tant_fant_v0.env()
    env.reset()
    with pytest.raises(OutOfBoundsActionError, match="action 81 is not in the action space"):
        env.step(81)
    assert issubclass(OutOfBoundsActionError, AssertionError)
    assert issubclass(OutOfBoundsActionError, ValueError)


def test_wrapper_is_a_single_layer_over_the_raw_env():
    env = tris1_v0.env()
    assert isinstance(env, ClassicWrapper)
    assert env.env is env.unwrapped
