"""The single-agent Gymnasium view: API checkers, reward bookkeeping, seeding, opponents, SB3."""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from test_agents import DiceRace

from tris_envs import IllegalActionError, tant_fant_v0
from tris_envs.agents import GreedyAgent
from tris_envs.core import TERMINAL
from tris_envs.envs import register_gymnasium
from tris_envs.envs.single_agent import SingleAgentEnv
from tris_envs.games import GAMES as REGISTRY

try:  # Stable-Baselines3 runs on torch; 2 threads on shared cores are ~25x slower
    import torch

    torch.set_num_threads(1)
except ImportError:  # the train extra is not installed: the SB3 tests skip
    pass

GAMES = [spec.env_name for spec in REGISTRY.values()]
IDS = ["tris_envs/DoppiaScelta-v0", "tris_envs/TantFant-v0", "tris_envs/Tris1-v0",
       "tris_envs/Tris2-v0", "tris_envs/Tritoc-v0"]
# SB3 takes every 3-D Box for a candidate image and says so; our observations are not images.
SB3_IMAGE_HINTS = ("is an image but", "minimal resolution for an image")


class ScriptedAgent:
    """Plays the given actions in order and records the positions it was asked about."""

    name = "scripted"

    def __init__(self, actions: list[int]) -> None:
        self.actions = list(actions)
        self.asked: list[str] = []

    def act(self, game: Any, state: Any) -> int:
        self.asked.append(game.to_notation(state))
        return self.actions.pop(0)


class LastLegal:
    """A picklable policy: the highest legal action."""

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> int:
        return int(np.flatnonzero(mask)[-1])


def masked_random(mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


# ----- API checkers ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", GAMES)
def test_gymnasium_check_env(name):
    """Every render mode included (the checker remakes the env from its spec for each)."""
    register_gymnasium()
    env = gymnasium.make(REGISTRY[name.removesuffix("_v0")].gymnasium_id, render_mode="ansi")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert [str(w.message) for w in caught] == []


@pytest.mark.parametrize("name", GAMES)
def test_sb3_check_env(name):
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sb3_check_env(SingleAgentEnv(name, opponent="greedy"))
    other = [str(w.message) for w in caught
             if not any(hint in str(w.message) for hint in SB3_IMAGE_HINTS)]
    assert other == []


def test_spaces_and_info():
    env = SingleAgentEnv("tritoc_v0", opponent="random", seat=1)
    assert env.observation_space == gymnasium.spaces.Box(0, 1, (9, 9, 24), np.int8)
    assert env.action_space == gymnasium.spaces.Discrete(82)
    obs, info = env.reset(seed=3)
    assert obs.dtype == np.int8 and obs in env.observation_space
    assert info["seat"] == env.seat == 1
    assert env.game.current_player(env.game_state) == 1
    assert np.array_equal(obs, env.game.observation(env.game_state, 1))
    mask = env.action_masks()
    assert mask.dtype == bool and np.array_equal(mask, info["action_mask"])
    assert np.array_equal(mask, env.game.legal_mask(env.game_state).astype(bool))
    assert env.action_masks() is not mask


# ----- reward bookkeeping on scripted games ---------------------------------------------------
# Tris 1 cells are row-major, row 0 on top; the side to move follows from the counts.
SCRIPTS = [
    # (position, seat, learner action, opponent actions, reward, position after)
    ("XX./OO./...", 0, 2, [], 1.0, "XXX/OO./..."),          # the learner completes a row
    ("XX./OO./...", 0, 8, [5], -1.0, "XX./OOO/..X"),        # the opponent completes a row
    ("XOX/XOO/OX.", 0, 8, [], 0.0, "XOX/XOO/OXX"),          # the learner fills the board
    ("XOX/XOO/.X.", 1, 6, [8], 0.0, "XOX/XOO/OXX"),         # the opponent fills the board
]


@pytest.mark.parametrize("position,seat,action,replies,reward,after", SCRIPTS)
def test_episode_end_rewards(position, seat, action, replies, reward, after):
    opponent = ScriptedAgent(replies)
    env = SingleAgentEnv("tris1_v0", opponent=opponent, seat=seat)
    obs, info = env.reset(options={"position": position})
    assert info["seat"] == seat and env.position == position
    obs, r, terminated, truncated, info = env.step(action)
    assert (r, terminated, truncated) == (reward, True, False)
    assert type(r) is float
    assert env.position == after and opponent.actions == []
    assert not info["action_mask"].any() and not env.action_masks().any()
    assert np.array_equal(obs, env.game.observation(env.game_state, seat))
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_learner_seat_one_lets_the_opponent_open():
    opponent = ScriptedAgent([4, 0])
    env = SingleAgentEnv("tris1_v0", opponent=opponent, seat=1)
    obs, info = env.reset(seed=0)
    assert opponent.asked == [".../.../..."]
    assert env.position == ".../.X./..." and env.num_moves == 1 and info["seat"] == 1
    assert obs[1, 1].tolist() == [0, 1]  # mine, theirs: the center is the opponent's
    assert info["action_mask"].tolist() == [True] * 4 + [False] + [True] * 4
    obs, reward, terminated, truncated, info = env.step(8)
    assert env.position == "X../.X./..O" and env.num_moves == 3
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert obs[2, 2].tolist() == [1, 0] and obs[0, 0].tolist() == [0, 1]


def test_truncation_counts_both_players_plies():
    # Tant Fant points are row * 3 + col with row 0 = rank 1; Black answers c3-c2 (8 -> 5)
    env = SingleAgentEnv("tant_fant_v0", opponent=ScriptedAgent([8 * 9 + 5]), seat=0,
                         max_moves=2)
    _, info = env.reset(seed=0)
    first = int(np.flatnonzero(info["action_mask"])[0])
    _, reward, terminated, truncated, info = env.step(first)
    assert (reward, terminated, truncated) == (0.0, False, True)
    assert env.num_moves == 2 and not info["action_mask"].any()

    # with max_moves=3 the learner's second ply truncates before the opponent replies
    opponent = ScriptedAgent([8 * 9 + 5])
    env = SingleAgentEnv("tant_fant_v0", opponent=opponent, seat=0, max_moves=3)
    _, info = env.reset(seed=0)
    _, _, _, truncated, info = env.step(first)
    assert not truncated and env.num_moves == 2
    second = int(np.flatnonzero(info["action_mask"])[0])
    _, reward, terminated, truncated, _ = env.step(second)
    assert (reward, terminated, truncated) == (0.0, False, True)
    assert env.num_moves == 3 and len(opponent.asked) == 1


def test_a_win_on_the_last_allowed_ply_terminates():
    env = SingleAgentEnv("tris1_v0", opponent="random", seat=0, max_moves=1)
    env.reset(options={"position": "XX./OO./..."})
    assert env.step(2)[1:4] == (1.0, True, False)


def test_dice_and_double_moves():
    """DiceRace: a roll of 3 moves again, so either side may act twice in a row."""

    class CountingRoller:
        name = "roller"
        calls = 0

        def act(self, game, state):
            self.calls += 1
            return 1  # roll

    opponent = CountingRoller()
    env = SingleAgentEnv(DiceRace(), opponent=opponent, seat=0)
    steps, results = [], []
    for seed in range(40):
        env.reset(seed=seed)
        total, done = 0.0, False
        while not done:
            before = opponent.calls
            _, reward, terminated, truncated, info = env.step(1)
            total += reward
            done = terminated or truncated
            steps.append((opponent.calls - before, done))
            player = env.game.current_player(env.game_state)
            assert player == (TERMINAL if terminated else 0)
            assert info["action_mask"].any() == (not done)
        assert total == env.game.returns(env.game_state)[0]
        results.append(total)
    assert (0, False) in steps  # the learner rolled a 3 and moves again
    assert max(calls for calls, _ in steps) >= 2  # the opponent acted twice in one step
    assert {1.0, -1.0} <= set(results)


def test_tritoc_points_are_the_learners_own():
    rows = ["WWWWWWWW.", "WWWWWW...", "WWWWWW...", "WW.......", ".........", "BB.......",
            ".........", ".........", "B........"]
    position = "/".join(rows) + " w 5 0"
    for reward_mode, conquest, win in (("points", 1.0, 6.0), ("win_loss", 0.0, 1.0)):
        for seed in range(5):
            env = SingleAgentEnv("tritoc_v0", opponent="greedy", seat=0, reward=reward_mode)
            env.reset(seed=seed, options={"position": position})
            _, reward, terminated, _, _ = env.step(3 * 9 + 2)  # completes 3 4 5: a field
            assert (reward, terminated) == (conquest, False)
        env.reset(seed=0, options={"position": position})
        assert env.step(8)[1:3] == (win, True)  # the third field of the top row


# ----- illegal actions ------------------------------------------------------------------------
def test_illegal_learner_action_raises_and_changes_nothing():
    env = SingleAgentEnv("tris1_v0", opponent=ScriptedAgent([6]), seat=0,
                         illegal_action="raise")
    env.reset(options={"position": "XX./OO./..."})
    for action in (0, 9, -1, 2.0, "2", None):
        with pytest.raises(IllegalActionError):
            env.step(action)
        assert env.position == "XX./OO./..." and env.num_moves == 0
    with pytest.raises(IllegalActionError, match="already shows a symbol"):
        env.step(np.int64(3))
    assert env.step(np.array(8))[1:3] == (0.0, False)  # numpy scalars and 0-d arrays work
    assert env.position == "XX./OO./O.X"


def test_illegal_action_loses_by_default():
    env = SingleAgentEnv("tris1_v0", opponent="random", seat=0)
    env.reset(options={"position": "XX./OO./..."})
    obs, reward, terminated, truncated, info = env.step(0)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["illegal_action"] and not info["action_mask"].any()
    assert env.position == "XX./OO./..."
    with pytest.raises(RuntimeError):
        env.step(2)


def test_step_before_reset():
    with pytest.raises(RuntimeError, match="reset"):
        SingleAgentEnv("tris1_v0").step(0)


def test_opponent_illegal_action_raises_and_changes_nothing():
    env = SingleAgentEnv("tris1_v0", opponent=lambda obs, mask: 0, seat=0)
    env.reset(options={"position": "X../.O./..."})
    with pytest.raises(IllegalActionError, match="opponent"):
        env.step(8)
    assert env.position == "X../.O./..." and env.num_moves == 0
    env.set_opponent(ScriptedAgent([1]))
    env.step(8)
    assert env.position == "XO./.O./..X"


def test_reset_refuses_a_finished_game():
    env = SingleAgentEnv("tris1_v0", seat=0)
    with pytest.raises(ValueError, match="ends before the learner"):
        env.reset(options={"position": "XXX/OO./..."})
    with pytest.raises(ValueError):
        env.reset(options={"position": "XX?/.../..."})


# ----- opponents ------------------------------------------------------------------------------
def test_policy_opponent_sees_its_own_view():
    seen = []

    def policy(obs, mask):
        seen.append((obs.copy(), mask.copy()))
        return np.int64(np.flatnonzero(mask)[0])

    env = SingleAgentEnv("tris1_v0", opponent=policy, seat=1)
    env.reset(seed=0)
    env.step(8)
    (obs0, mask0), (obs1, mask1) = seen
    assert obs0.shape == (3, 3, 2) and not obs0.any() and mask0.dtype == bool and mask0.all()
    assert obs1[0, 0].tolist() == [1, 0] and obs1[2, 2].tolist() == [0, 1]  # mine, theirs
    assert mask1.tolist() == [False] + [True] * 7 + [False]
    assert env.position == "XX./.../..O"


@pytest.mark.parametrize("make_opponent", [
    lambda: "greedy",
    lambda: GreedyAgent(rng=np.random.default_rng(0)),
    LastLegal,
], ids=["spec", "agent", "policy"])
def test_opponent_forms_play_whole_games(make_opponent):
    env = SingleAgentEnv("tant_fant_v0", opponent=make_opponent(), seat="random")
    rng = np.random.default_rng(1)
    for seed in range(5):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            obs, reward, terminated, truncated, info = env.step(
                masked_random(info["action_mask"], rng))
            assert reward == 0.0 or terminated
            done = terminated or truncated
        assert reward in (-1.0, 0.0, 1.0)


def test_greedy_opponent_takes_a_win():
    env = SingleAgentEnv("tris1_v0", opponent="greedy", seat=0)
    env.reset(options={"position": "XX./OO./..."})
    assert env.step(6)[1:3] == (-1.0, True)
    assert env.position == "XX./OOO/X.."


def test_seeded_episodes_repeat():
    def episode(env, seed):
        obs, info = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        trace = [(info["seat"], env.position, obs.tobytes())]
        done = False
        while not done:
            obs, reward, terminated, truncated, info = env.step(
                masked_random(info["action_mask"], rng))
            trace.append((env.position, obs.tobytes(), reward, terminated, truncated))
            done = terminated or truncated
        return trace

    for name, opponent in (("tris2_v0", "random"), ("tritoc_v0", "greedy"),
                           ("doppia_scelta_v0", "random")):
        env = SingleAgentEnv(name, opponent=opponent, seat="random", max_moves=60)
        first = episode(env, 7)
        episode(env, 8)
        assert episode(env, 7) == first
        assert episode(SingleAgentEnv(name, opponent=opponent, max_moves=60), 7) == first
        traces = [episode(env, seed) for seed in range(6)]
        assert len({str(t) for t in traces}) == 6
        assert {t[0][0] for t in traces} == {0, 1}  # both seats drawn


# ----- construction, rendering, registration --------------------------------------------------
def test_game_env_forms():
    assert SingleAgentEnv(tant_fant_v0.env(stalemate="loss")).game.options()["stalemate"] \
        == "loss"
    assert SingleAgentEnv(tant_fant_v0.raw_env(diagonal_only=True)).game.diagonal_only
    assert SingleAgentEnv("tant_fant", max_moves=7).game.info.max_moves == 7
    assert SingleAgentEnv(DiceRace(target=3)).game.target == 3


@pytest.mark.parametrize("args,kwargs,error,match", [
    (("chess_v0",), {}, ValueError, "unknown game"),
    (("tris1_v0",), {"seat": 2}, ValueError, "seat"),
    (("tris1_v0",), {"seat": True}, ValueError, "seat"),
    (("tris1_v0",), {"render_mode": "human"}, ValueError, "render_mode"),
    (("tris1_v0",), {"illegal_action": "ignore"}, ValueError, "illegal_action"),
    (("tris1_v0",), {"opponent": "grandmaster"}, ValueError, "agent spec"),
    (("tris1_v0",), {"opponent": 42}, TypeError, "opponent"),
    (("tris1_v0",), {"colour": "red"}, ValueError, "colour"),
    ((tant_fant_v0.env(),), {"max_moves": 5}, ValueError, "already built"),
    ((42,), {}, ValueError, "not an environment name"),
])
def test_bad_arguments(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        SingleAgentEnv(*args, **kwargs)


def test_render():
    env = SingleAgentEnv("tant_fant_v0", render_mode="ansi")
    env.reset(seed=0)
    assert env.render() == env.game.render_text(env.game_state)
    picture = SingleAgentEnv("tris1_v0", render_mode="rgb_array")
    picture.reset(seed=0)
    image = picture.render()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    silent = SingleAgentEnv("tris1_v0")
    silent.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode"):
        assert silent.render() is None


def test_gymnasium_make():
    register_gymnasium()
    register_gymnasium()  # idempotent
    assert set(IDS) <= set(gymnasium.registry)
    env = gymnasium.make("tris_envs/TantFant-v0", opponent="greedy")
    obs, info = env.reset(seed=0)
    assert obs.shape == (3, 3, 4)
    env.step(masked_random(info["action_mask"], np.random.default_rng(0)))
    assert env.unwrapped.game.info.name == "tant_fant"
    tritoc = gymnasium.make("tris_envs/Tritoc-v0", reward="points", seat=1)
    assert tritoc.unwrapped.game.options()["reward"] == "points"
    assert tritoc.reset(seed=0)[1]["seat"] == 1


# ----- vectorised environments and MaskablePPO -----------------------------------------------
def run_vec_env(vec_env, steps: int) -> int:
    rng = np.random.default_rng(0)
    vec_env.seed(0)
    vec_env.reset()
    finished = 0
    for _ in range(steps):
        masks = vec_env.env_method("action_masks")
        actions = np.array([masked_random(mask, rng) for mask in masks])
        _, rewards, dones, infos = vec_env.step(actions)
        assert set(rewards.tolist()) <= {-1.0, 0.0, 1.0}
        finished += int(dones.sum())
        for done, info in zip(dones, infos):
            if done:
                assert "terminal_observation" in info
    vec_env.close()
    return finished


def test_dummy_vec_env():
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.vec_env import DummyVecEnv

    register_gymnasium()
    vec_env = DummyVecEnv([lambda: SingleAgentEnv("tris1_v0", opponent="random"),
                           lambda: gymnasium.make("tris_envs/Tris1-v0", opponent="greedy")])
    assert run_vec_env(vec_env, 60) >= 10


def test_subproc_vec_env():
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.vec_env import SubprocVecEnv

    # forkserver, not fork: a test before this one in the same worker may have started
    # JAX's threads, and a forked child can deadlock on their locks
    vec_env = SubprocVecEnv([lambda: SingleAgentEnv("tris1_v0", opponent="random")] * 2,
                            start_method="forkserver")
    assert run_vec_env(vec_env, 30) >= 5

    # a self-play opponent swapped in through env_method: it opens in the last cell
    vec_env = SubprocVecEnv([lambda: SingleAgentEnv("tris1_v0", seat=1)] * 2,
                            start_method="forkserver")
    vec_env.env_method("set_opponent", LastLegal())
    obs = vec_env.reset()
    assert obs[:, 2, 2].tolist() == [[0, 1], [0, 1]]  # theirs
    assert obs.sum() == 2
    vec_env.close()


@pytest.mark.parametrize("name", ["tant_fant_v0", "tris1_v0"])
def test_maskable_ppo_smoke(name):
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    env = SingleAgentEnv(name, opponent="random")
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, seed=0, device="cpu")
    model.learn(256)
    obs, info = env.reset(seed=1)
    for _ in range(3):
        action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
        assert info["action_mask"][int(action)]
        obs, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            obs, info = env.reset()
