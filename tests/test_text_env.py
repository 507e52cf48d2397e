"""The text environment: Gymnasium's checker, prompts inside the observation space in every
game and option set, seeded episodes that repeat, refused replies (a forfeit, or retries
with the refusal shown), the solver's dense reward, and its Gymnasium ids."""

from __future__ import annotations

import json
import math
import warnings
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from tris_envs.agents.solver_agent import is_value_keeping
from tris_envs.core.text import rules_prompt
from tris_envs.envs.text import REFUSED, TextEnv
from tris_envs.games import GAMES
from tris_envs.registration import register_gymnasium, text_gymnasium_id

CASES = [(spec.name, dict(options)) for spec in GAMES.values() for options in spec.option_sets]


def reply(move: str) -> str:
    return f'I play this. {json.dumps({"move": move})}'


def first_legal(info: dict[str, Any]) -> str:
    return reply(info["legal_moves"][0])


@pytest.mark.parametrize("name", list(GAMES))
def test_gymnasium_check_env(name):
    """Gymnasium's checker takes Text spaces: it steps a reply sampled from the action space
    (random characters: refused, a forfeit) and checks seeding, spaces and rendering."""
    register_gymnasium()
    env = gymnasium.make(text_gymnasium_id(GAMES[name]), render_mode="ansi")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert [str(w.message) for w in caught] == []


@pytest.mark.parametrize(("name", "options"), CASES,
                         ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_every_prompt_lies_in_the_observation_space(name, options):
    """Random legal replies and a refused one now and then, to the end of two episodes."""
    env = TextEnv(name, retries=1, **options)
    rng = np.random.default_rng(0)
    for seed in range(2):
        prompt, info = env.reset(seed=seed)
        done = False
        while not done:
            assert env.observation_space.contains(prompt), set(prompt) - set(
                env.observation_space.character_set)
            assert prompt == f"{info['rules']}\n\n{info['position_prompt']}" or (
                prompt.startswith(f"{info['rules']}\n\n{info['position_prompt']}\n\n{REFUSED}"))
            text = ("pass" if rng.random() < 0.1 and info["tries_left"]
                    else reply(str(rng.choice(info["legal_moves"]))))
            prompt, _, terminated, truncated, info = env.step(text)
            done = terminated or truncated
        assert env.observation_space.contains(prompt) and info["legal_moves"] == []


def play(env: TextEnv, seed: int) -> list[Any]:
    """Everything an episode of first legal replies shows."""
    prompt, info = env.reset(seed=seed)
    seen: list[Any] = [prompt, info["seat"]]
    done = False
    while not done:
        prompt, reward, terminated, truncated, info = env.step(first_legal(info))
        seen += [prompt, reward]
        done = terminated or truncated
    return seen


def test_a_seed_repeats_the_seat_the_dice_and_the_opponents_moves():
    env = TextEnv("tritoc", opponent="random", max_moves=40)
    first = play(env, 3)
    assert play(env, 3) == first
    assert play(TextEnv("tritoc", opponent="random", max_moves=40), 3) == first
    assert play(env, 4) != first


def test_the_observation_is_the_rules_then_the_position():
    env = TextEnv("tant_fant", opponent="greedy", seat=1)
    prompt, info = env.reset(seed=0)
    assert prompt.startswith(rules_prompt(env.game) + "\n\n")
    assert info["seat"] == 1 and env.seat == 1 and len(env.position) > 0
    assert "player_1" in info["position_prompt"] and info["position"] == env.position
    assert info["legal_moves"] and all(move in prompt for move in info["legal_moves"])


def test_a_refused_reply_forfeits_by_default():
    env = TextEnv("tris1", seat=0)
    env.reset(seed=0)
    before = env.position
    prompt, reward, terminated, truncated, info = env.step("the centre, obviously")
    assert (reward, terminated, truncated, info["forfeit"]) == (-1.0, True, False, True)
    assert "Legal moves: " in info["reply_error"] and '{"move": ' in info["reply_error"]
    assert env.position == before and info["legal_moves"] == []
    with pytest.raises(RuntimeError, match="reset"):
        env.step(reply("1,1"))


def test_retries_show_the_refusal_and_count_per_move():
    env = TextEnv("tant_fant", seat=0, retries=2)
    prompt, info = env.reset(seed=0)
    before = env.position
    again, reward, terminated, _, refused = env.step('{move: "a1"}')
    assert (reward, terminated, refused["tries_left"]) == (0.0, False, 1)
    assert again == f"{prompt}\n\n{REFUSED}{refused['reply_error']}"
    assert "not valid JSON" in refused["reply_error"] and env.position == before
    _, _, _, _, info = env.step(first_legal(info))
    assert info["tries_left"] == 2 and "reply_error" not in info and env.position != before
    for left in (1, 0):
        _, reward, terminated, _, info = env.step("e9-e10")
        assert (reward, terminated, info["tries_left"]) == (0.0, False, left)
    _, reward, terminated, _, info = env.step("e9-e10")
    assert (reward, terminated, info["forfeit"]) == (-1.0, True, True)


@pytest.mark.parametrize("name", ["tris1", "tant_fant", "doppia_scelta"])
def test_the_dense_reward_grades_each_move_by_the_solver(name):
    """+d for a value-keeping move, -d for a value-losing one, nothing for a forced one;
    the game's outcome on top at the end."""
    d = 0.25
    env = TextEnv(name, opponent="random", dense_reward=d)
    rng = np.random.default_rng(1)
    seen = set()
    for seed in range(6):
        _, info = env.reset(seed=seed)
        done = False
        while not done:
            state, legal = env.game_state, env.game.legal_actions(env.game_state)
            action = int(rng.choice(legal))
            expected = is_value_keeping(env.game, state, action) if len(legal) > 1 else None
            _, reward, terminated, truncated, info = env.step(
                reply(env.game.action_name(state, action)))
            done = terminated or truncated
            assert info["value_kept"] is expected and info["action"] == action
            dense = 0.0 if expected is None else d if expected else -d
            outcome = env.game.rewards(env.game_state)[env.seat] if terminated else 0.0
            assert math.isclose(reward, outcome + dense), (reward, outcome, dense)
            seen.add(expected)
    assert {True, False} <= seen


def test_no_dense_reward_in_doppia_sceltas_coloring_phase():
    env = TextEnv("doppia_scelta", setup="coloring", seat=0, dense_reward=1.0)
    _, info = env.reset(seed=0)
    _, reward, _, _, info = env.step(first_legal(info))
    assert info["value_kept"] is None and reward == 0.0


def test_without_the_dense_reward_moves_are_not_graded():
    env = TextEnv("tris1")
    _, info = env.reset(seed=0)
    _, _, _, _, info = env.step(first_legal(info))
    assert "value_kept" not in info


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"game_env": "tris2", "dense_reward": 0.1}, "needs the exact solver"),
    ({"game_env": "tritoc", "dense_reward": 1}, "needs the exact solver"),
    ({"game_env": "tris1", "dense_reward": -0.5}, "dense_reward=-0.5 must be a number >= 0"),
    ({"game_env": "tris1", "dense_reward": float("nan")}, "dense_reward=nan"),
    ({"game_env": "tris1", "dense_reward": "1"}, "dense_reward="),
    ({"game_env": "tris1", "retries": -1}, "retries=-1"),
    ({"game_env": "tris1", "seat": 2}, "seat=2"),
    ({"game_env": "tris1", "render_mode": "rgb_array"}, "render_mode"),
])
def test_bad_settings_are_refused_in_one_line(kwargs, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")) as caught:
        TextEnv(**kwargs)
    assert "\n" not in str(caught.value)


def test_a_reply_that_is_not_text_is_a_type_error():
    env = TextEnv("tris1")
    env.reset(seed=0)
    with pytest.raises(TypeError, match="a reply is a str, got 4"):
        env.step(4)  # type: ignore[arg-type]


def test_gymnasium_make_passes_the_options():
    register_gymnasium()
    env = gymnasium.make("tris_envs/TantFantText-v0", opponent="greedy", stalemate="loss",
                         retries=1)
    assert isinstance(env.unwrapped, TextEnv)
    assert env.unwrapped.game.options()["stalemate"] == "loss" and env.unwrapped.retries == 1
    prompt, info = env.reset(seed=0)
    assert isinstance(prompt, str) and env.action_space.contains(first_legal(info))
    assert [text_gymnasium_id(spec) for spec in GAMES.values()] == [
        "tris_envs/Tris2Text-v0", "tris_envs/Tris1Text-v0", "tris_envs/TantFantText-v0",
        "tris_envs/DoppiaSceltaText-v0", "tris_envs/TritocText-v0"]
