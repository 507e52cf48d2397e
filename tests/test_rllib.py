"""The RLlib adapter: a turn-based MultiAgentEnv with action masks, and trained modules as
agents of the evaluation harness."""

from __future__ import annotations

import re

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

from test_examples import run_example  # noqa: E402

from tris_envs import IllegalActionError  # noqa: E402
from tris_envs.core.game import TERMINAL  # noqa: E402
from tris_envs.evaluation import play_match  # noqa: E402
from tris_envs.games import GAMES, make_game  # noqa: E402
from tris_envs.integrations.rllib import (  # noqa: E402
    RLlibAgent,
    RLlibEnv,
    masked_module_spec,
)


def random_episode(env: RLlibEnv, seed: int) -> tuple[list, dict, int]:
    """Plays uniformly random legal moves; returns the actions, the summed rewards and the
    plies, checking every observation against the rules core on the way."""
    observations, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    actions, totals, plies = [], dict.fromkeys(env.possible_agents, 0.0), 0
    while True:
        assert len(observations) == 1                    # only the mover observes
        (agent, obs), = observations.items()
        player = env.game.current_player(env.state)
        assert agent == f"player_{player}"
        assert env.observation_spaces[agent].contains(obs)
        assert (obs["action_mask"] == env.game.legal_mask(env.state)).all()
        assert (obs["observations"] == env.game.observation(env.state, player).ravel()).all()
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        actions.append(action)
        observations, rewards, terminated, truncated, _ = env.step({agent: action})
        plies += 1
        for name, reward in rewards.items():
            totals[name] += reward
        assert terminated["__all__"] == terminated["player_0"] == terminated["player_1"]
        if terminated["__all__"] or truncated["__all__"]:
            assert set(observations) == set(env.possible_agents)   # a last one for each
            for player, agent in enumerate(env.possible_agents):
                final = observations[agent]
                assert env.observation_spaces[agent].contains(final)
                assert (final["observations"]
                        == env.game.observation(env.state, player).ravel()).all()
                if terminated["__all__"]:
                    assert not final["action_mask"].any()
            return actions, totals, plies


@pytest.mark.parametrize("name", list(GAMES))
def test_random_games_follow_the_rules_core(name):
    env = RLlibEnv({"game": name})
    for seed in range(3):
        actions, totals, plies = random_episode(env, seed)
        if env.game.current_player(env.state) == TERMINAL:
            returns = env.game.returns(env.state)
            assert totals == {"player_0": returns[0], "player_1": returns[1]}
        else:
            assert plies == env.game.max_moves
        assert random_episode(env, seed)[0] == actions   # the seed fixes setup and dice


def test_options_and_truncation():
    env = RLlibEnv({"game": "tant_fant", "options": {"max_moves": 3}})
    _, totals, plies = random_episode(env, 0)
    assert plies == 3 and totals == {"player_0": 0.0, "player_1": 0.0}
    with pytest.raises(ValueError, match="colour"):
        RLlibEnv({"game": "tant_fant", "options": {"colour": "red"}})


@pytest.mark.parametrize("config", [{"game": "doppia_scelta"},   # 1 in 5 random games cut
                                    {"game": "tant_fant", "options": {"max_moves": 1}},
                                    {"game": "tant_fant", "options": {"max_moves": 4}}])
def test_rllib_episodes_close_on_every_ending(config):
    """RLlib's own episode bookkeeping accepts every game, truncated ones included."""
    from ray.rllib.env.multi_agent_episode import MultiAgentEpisode

    env = RLlibEnv(config)
    for seed in range(10):
        observations, infos = env.reset(seed=seed)
        episode = MultiAgentEpisode(observation_space=env.observation_spaces,
                                    action_space=env.action_spaces,
                                    agent_to_module_mapping_fn=lambda agent, episode: "main")
        episode.add_env_reset(observations=observations, infos=infos)
        rng = np.random.default_rng(seed)
        while not episode.is_done:
            (agent, obs), = observations.items()
            actions = {agent: int(rng.choice(np.flatnonzero(obs["action_mask"])))}
            observations, rewards, terminated, truncated, infos = env.step(actions)
            episode.add_env_step(observations=observations, actions=actions, rewards=rewards,
                                 infos=infos, terminateds=terminated, truncateds=truncated)
        returns = [sum(single.get_rewards()) for single in episode.agent_episodes.values()]
        assert sum(returns) == 0.0


def test_bad_actions_are_refused():
    env = RLlibEnv({"game": "tris1"})
    env.reset(seed=0)
    env.step({"player_0": 4})
    with pytest.raises(IllegalActionError, match="already"):
        env.step({"player_1": 4})
    with pytest.raises(ValueError, match="needs the action of player_1"):
        env.step({"player_0": 0})


def test_reset_from_a_position():
    env = RLlibEnv({"game": "tris1"})
    observations, _ = env.reset(options={"position": "O.O/.X./..X"})
    assert list(observations) == ["player_0"]
    assert np.flatnonzero(observations["player_0"]["action_mask"]).tolist() == [1, 3, 5, 6, 7]
    observations, rewards, terminated, _, _ = env.step({"player_0": 6})
    observations, rewards, terminated, _, _ = env.step({"player_1": 1})
    assert terminated["__all__"] and rewards == {"player_0": -1.0, "player_1": 1.0}
    with pytest.raises(ValueError, match="finished game"):
        env.reset(options={"position": "OOO/.X./X.X"})


def test_a_module_plays_legal_moves_in_play_match():
    env = RLlibEnv({"game": "tant_fant"})
    spec = masked_module_spec((16,))
    spec.observation_space = env.observation_spaces["player_0"]
    spec.action_space = env.action_spaces["player_0"]
    module = spec.build()
    result = play_match(make_game("tant_fant"), RLlibAgent(module, "untrained"), "random",
                        n_games=4, seed=0)
    assert result.names[0] == "untrained" and result.wins + result.draws + result.losses == 4


@pytest.mark.slow
def test_self_play_example_trains_and_evaluates():
    out = run_example("rllib_self_play.py", "--iterations", "2", "--refresh", "1",
                      "--batch", "200", "--games", "4")
    steps = re.search(r"^iteration 2: (\d+) steps", out, re.MULTILINE)
    assert steps and int(steps[1]) >= 400      # 8 games at a time may overshoot the batch
    assert "rllib-ppo vs random: " in out and "rllib-ppo vs greedy: " in out
