"""Every environment survives ``copy.deepcopy`` and a pickle round-trip mid-game, in every game
and option set: the copy plays on exactly as the original does under the same actions
(observations, masks, rewards, terminations, truncations, infos; resets included, so the
random generators travel with it), and playing the copy leaves the original unchanged."""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gymnasium
import numpy as np
import pettingzoo
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tris_envs
from tris_envs.games import GAMES, GameSpec
from tris_envs.registration import text_gymnasium_id

CASES = [pytest.param(spec, dict(options), id=f"{spec.name}-{i}")
         for spec in GAMES.values() for i, options in enumerate(spec.option_sets)]

COPIES: dict[str, Callable[[Any], Any]] = {
    "deepcopy": copy.deepcopy,
    "pickle": lambda play: pickle.loads(pickle.dumps(play)),
}

PLAY_ON = 20
"""Steps each copy plays after the copy is made, a new game started whenever one ends."""


def plain(value: Any) -> Any:
    """``value`` with its arrays as (dtype, shape, items), for ``==``."""
    if isinstance(value, np.ndarray):
        return value.dtype.str, value.shape, value.tolist()
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    return value


def pick(mask: np.ndarray, rng: np.random.Generator) -> int:
    """A legal action drawn by ``rng`` (0 where nothing is legal: the vector env's reset
    step ignores it)."""
    legal = np.flatnonzero(mask)
    return int(legal[rng.integers(len(legal))]) if len(legal) else 0


@dataclass
class Play:
    """An environment, the seed of its first reset, and the last info its player saw."""

    env: Any
    seed: int | None
    info: Any = None

    def reset(self) -> Any:
        """The environment's ``reset``, seeded the first time."""
        shown = self.env.reset(seed=self.seed)
        self.seed = None
        return shown


# ----- one step of each kind of environment, returning what it shows ---------------------------
def aec_step(play: Play, rng: np.random.Generator) -> Any:
    env = play.env
    action: str | int | None
    if play.seed is not None or not env.agents:
        play.reset()
        action = "reset"
    else:
        _, _, terminated, truncated, _ = env.last()
        action = None if terminated or truncated else pick(
            env.observe(env.agent_selection)["action_mask"], rng)
        env.step(action)
    return plain([action, env.agents, env.agent_selection,
                  {agent: env.observe(agent) for agent in env.possible_agents},
                  env.rewards, env._cumulative_rewards, env.terminations, env.truncations,
                  env.infos, env.unwrapped.position])


def single_step(play: Play, rng: np.random.Generator) -> Any:
    if play.info is None or not play.info["action_mask"].any():
        observation, play.info = play.reset()
        return plain(["reset", observation, play.info])
    shown = play.env.step(pick(play.info["action_mask"], rng))
    play.info = shown[-1]
    return plain(shown)


def text_step(play: Play, rng: np.random.Generator) -> Any:
    if play.info is None or not play.info["legal_moves"]:
        prompt, play.info = play.reset()
        return plain(["reset", prompt, play.info])
    moves = play.info["legal_moves"]
    shown = play.env.step(moves[rng.integers(len(moves))])
    play.info = shown[-1]
    return plain(shown)


def vector_step(play: Play, rng: np.random.Generator) -> Any:
    if play.seed is not None:
        observations, play.info = play.reset()
        return plain(["reset", observations, play.info])
    shown = play.env.step(np.array([pick(mask, rng) for mask in play.info["action_mask"]]))
    play.info = shown[-1]
    return plain(shown)


def module_of(spec: GameSpec) -> Any:
    return getattr(tris_envs, spec.env_name)


KINDS: dict[str, tuple[Callable[[GameSpec, dict[str, Any], str], Any],
                       Callable[[Play, np.random.Generator], Any]]] = {
    "env()": (lambda spec, options, _: pettingzoo.make("aec", spec.pettingzoo_id, **options),
              aec_step),
    "raw_env": (lambda spec, options, _: module_of(spec).raw_env(**options), aec_step),
    "gymnasium": (lambda spec, options, opponent: gymnasium.make(
        spec.gymnasium_id, opponent=opponent, **options), single_step),
    "text": (lambda spec, options, opponent: gymnasium.make(
        text_gymnasium_id(spec), opponent=opponent, **options), text_step),
    "vector": (lambda spec, options, opponent: gymnasium.make_vec(
        spec.gymnasium_id, num_envs=2, opponent=opponent, **options), vector_step),
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("spec", "options"), CASES)
@settings(max_examples=2, deadline=None, database=None)
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 20),
       opponent=st.sampled_from(["random", "greedy", "mcts:4"]))
def test_a_copy_mid_game_plays_on_identically_and_leaves_the_original_alone(
        kind, spec, options, seed, steps, opponent):
    make, step = KINDS[kind]
    original = Play(make(spec, options, opponent), seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        step(original, rng)
    state = rng.bit_generator.state
    saved = pickle.dumps(original)
    copies = {how: make_copy(original) for how, make_copy in COPIES.items()}
    played = {}
    for how, clone in copies.items():
        rng.bit_generator.state = state
        played[how] = [step(clone, rng) for _ in range(PLAY_ON)]
        assert pickle.dumps(original) == saved, f"playing its {how} changed the original"
    rng.bit_generator.state = state
    expected = [step(original, rng) for _ in range(PLAY_ON)]
    for how, shown in played.items():
        assert shown == expected, f"the {how} played on differently"
