"""The batched training environment: the per-game episodes, the network moves batched."""

from __future__ import annotations

import functools
from collections import Counter

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import DummyVecEnv

from tris_envs.agents.ppo import export_policy
from tris_envs.envs import SingleAgentEnv, turns
from tris_envs.games import make_game
from tris_envs.ppo.batched import BatchedPoolEnv
from tris_envs.ppo.config import Config, apply_overrides
from tris_envs.ppo.pool import OpponentPool, PoolTally, make_env
from tris_envs.ppo.train import train

torch.set_num_threads(1)


@pytest.fixture(scope="module")
def snapshot_paths(tmp_path_factory) -> dict[str, list[str]]:
    """Two untrained checkpoints per game (different seeds: two different networks)."""
    folder = tmp_path_factory.mktemp("snapshots")
    paths: dict[str, list[str]] = {}
    for game in ("tris1", "tant_fant", "tritoc"):
        for seed in range(2):
            model = MaskablePPO("MlpPolicy", SingleAgentEnv(game), n_steps=32, batch_size=32,
                                seed=seed, device="cpu", policy_kwargs={"net_arch": [16]})
            path = export_policy(model, folder / f"{game}_{seed}.pt", game)
            paths.setdefault(game, []).append(str(path))
    return paths


def config_of(game: str, *overrides: str) -> Config:
    return apply_overrides(Config(game=game), list(overrides))


def both(config: Config, n: int, seed: int, snapshots: list[str]):
    """The per-game path (DummyVecEnv of make_env) and the batched one, seeded alike."""
    old = DummyVecEnv([functools.partial(make_env, config, seed + k) for k in range(n)])
    new = BatchedPoolEnv.from_config(config, n, seed)
    for env in (old, new):
        for path in snapshots:
            env.env_method("add_snapshot", path)
        env.seed(seed)
    return old, new


def split_info(info: dict) -> tuple[dict, dict]:
    """``info`` without its arrays and Monitor's clock, and those apart."""
    info = dict(info)
    arrays = {key: info.pop(key) for key in ("action_mask", "terminal_observation")
              if key in info}
    episode = info.pop("episode", None)
    if episode is not None:
        info["episode"] = (episode["r"], episode["l"])
    return info, arrays


CASES = {
    # random openings, some dropped when the greedy reply wins at once
    "tris1 openings": ("tris1", ['pool.weights={ random = 1, greedy = 2, self = 1 }',
                                 "pool.opening_prob=1.0", "pool.opening_plies=8"]),
    # truncation after 6 plies; the solver and sampling snapshots
    "tant_fant truncated": ("tant_fant", ["game_options.max_moves=6",
                                          'pool.weights={ solver = 1, "mcts:5" = 1, self = 2 }']),
    # dice, points rewards, greedy and most-probable-move snapshots
    "tritoc points": ("tritoc", ['game_options.reward="points"', "pool.snapshot_deterministic=true",
                                 'pool.weights={ greedy = 1, self = 1 }']),
}


@pytest.mark.parametrize("case", CASES)
def test_batched_games_play_the_per_game_episodes(case, snapshot_paths):
    game, overrides = CASES[case]
    old, new = both(config_of(game, *overrides), 5, 11, snapshot_paths[game])
    assert (old.reset() == new.reset()).all()
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(150 if game == "tritoc" else 400):
        masks = np.stack(old.env_method("action_masks"))
        assert (masks == np.stack(new.env_method("action_masks"))).all()
        assert (masks == new.action_masks()).all()
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])
        (obs_a, rew_a, done_a, infos_a), (obs_b, rew_b, done_b, infos_b) = (
            old.step(actions), new.step(actions))
        assert (obs_a == obs_b).all() and (rew_a == rew_b).all() and (done_a == done_b).all()
        for info_a, info_b in zip(infos_a, infos_b):
            (plain_a, arrays_a), (plain_b, arrays_b) = split_info(info_a), split_info(info_b)
            assert plain_a == plain_b and arrays_a.keys() == arrays_b.keys()
            assert all((arrays_a[key] == arrays_b[key]).all() for key in arrays_a)
        ended += int(done_a.sum())
    assert ended >= 20
    tallies = [PoolTally(), PoolTally()]
    for tally, env in zip(tallies, (old, new)):
        for part in env.env_method("take_tally"):
            tally.merge(part)
    assert tallies[0].results == tallies[1].results
    assert sum(n for n, _ in tallies[1].scores().values()) == ended


def test_one_forward_pass_per_network_and_round(snapshot_paths, monkeypatch):
    calls: list[tuple[int, int]] = []
    real = turns.masked_probabilities

    def counting(network, observations, masks):
        calls.append((id(network), len(observations)))
        return real(network, observations, masks)

    monkeypatch.setattr(turns, "masked_probabilities", counting)
    env = BatchedPoolEnv.from_config(config_of("tris1", "pool.weights={ self = 1 }"), 16, 0)
    for path in snapshot_paths["tris1"]:
        env.env_method("add_snapshot", path)
    env.seed(0)
    env.reset()
    networks = {id(g.network) for g in env.games}
    assert len(networks) == 2
    # the reset: the opponents open where the learner sits second, one round
    openers = [g for g in env.games if g.seat == 1]
    assert sorted(size for _, size in calls) == sorted(
        Counter(id(g.network) for g in openers).values())
    # a learner's move ends no Tris 1 game here: every opponent replies, in one round
    calls.clear()
    env.step(np.array([np.flatnonzero(mask)[0] for mask in env.action_masks()]))
    assert sorted(calls) == sorted(Counter(id(g.network) for g in env.games).items())
    assert sum(size for _, size in calls) == 16 and len(calls) == 2


def test_episodes_are_counted_once(snapshot_paths):
    env = BatchedPoolEnv.from_config(
        config_of("tris1", "pool.weights={ random = 1, greedy = 1, self = 1 }"), 8, 3)
    env.env_method("add_snapshot", snapshot_paths["tris1"][0])
    env.seed(3)
    env.reset()
    rng = np.random.default_rng(1)
    lengths, results, steps = [], Counter(), 300
    for _ in range(steps):
        actions = [rng.choice(np.flatnonzero(mask)) for mask in env.action_masks()]
        _, _, dones, infos = env.step(np.array(actions))
        for done, info in zip(dones, infos):
            assert ("episode" in info) == ("pool_episode" in info) == done
            if done:
                assert not info["action_mask"].any()  # the ended episode's last mask
                assert info["episode"]["r"] == info["pool_episode"]["return"]
                lengths.append(info["episode"]["l"])
                results[(info["pool_episode"]["opponent"].split(":")[0],
                         info["pool_episode"]["result"])] += 1
    in_play = sum(g.episode_length for g in env.games)
    assert sum(lengths) + in_play == steps * 8
    tally = PoolTally()
    for part in env.env_method("take_tally"):
        tally.merge(part)
    assert {label: sum(c.values()) for label, c in tally.results.items()} == {
        label: sum(n for (name, _), n in results.items() if name == label)
        for label in ("random", "greedy", "self")}
    assert env.env_method("take_tally")[0].results == {}  # taken
    assert set(env.opponent_seconds) == {"random", "greedy", "self"}


def test_illegal_action_loses_and_bad_starts_are_refused(snapshot_paths):
    env = BatchedPoolEnv.from_config(config_of("tris1", "pool.weights={ random = 1 }"), 2, 0)
    env.seed(0)
    env.reset()
    game = make_game("tris1")
    for pool_game, mask in zip(env.games, env.action_masks()):
        assert (mask == game.legal_mask(pool_game.state).astype(bool)).all()
    legal = int(np.flatnonzero(env.action_masks()[1])[0])
    _, rewards, dones, infos = env.step(np.array([9, legal]))  # 9: no Tris 1 action
    assert rewards[0] == -1 and dones[0] and infos[0]["illegal_action"]
    assert infos[0]["pool_episode"]["result"] == -1
    env.set_options({"position": "XXX/OO./..."})  # already won: nobody moves
    with pytest.raises(ValueError, match="the game ends before the learner"):
        env.reset()
    other = BatchedPoolEnv.from_config(config_of("tant_fant", "pool.weights={ self = 1 }"), 2, 0)
    other.env_method("add_snapshot", snapshot_paths["tris1"][0])
    with pytest.raises(ValueError, match="expects observations of shape"):
        other.reset()


def test_pool_keeps_its_draws_apart_from_the_game():
    pools = [OpponentPool({"random": 1, "greedy": 1}, seed=5) for _ in range(2)]
    assert [pools[0].draw() for _ in range(20)] == [pools[1].draw() for _ in range(20)]
    assert OpponentPool({"random": 1}, seed=5).wants_opening(None) is False
    assert OpponentPool({"random": 1}, opening_prob=1.0, opening_plies=2).wants_opening(
        {"position": "X../.../..."}) is False


@pytest.mark.parametrize("weights", [{"random": 1e308, "greedy": 1e308}, {"random": 10**400},
                                     {"random": 0}, {"random": float("inf")}])
def test_pool_weights_whose_sum_is_not_a_positive_float_are_refused_at_once(weights):
    with pytest.raises(ValueError, match="pool weights must be a table of non-negative numbers "
                                         "with a positive, finite sum"):
        OpponentPool(weights, seed=0)
    with pytest.raises(ValueError, match=r"pool.weights=.*: must be a table of non-negative "
                                         r"numbers with a positive, finite sum"):
        apply_overrides(Config(), ["pool.weights={ random = 1e308, greedy = 1e308 }"])



@pytest.mark.parametrize("vec_env", ["batched", "dummy"])
def test_train_runs_on_either_environment(vec_env, tmp_path):
    config = config_of("tris1", f'train.vec_env="{vec_env}"', "train.timesteps=256",
                       "train.n_envs=4", "ppo.n_steps=32", "ppo.batch_size=64", "ppo.n_epochs=1",
                       "pool.snapshot_every=128", 'eval.opponents=["random"]', "eval.games=2",
                       "eval.judge_moves=false")
    run = train(config, tmp_path, progress=False, report=lambda line: None)
    assert run.timesteps == 256 and run.final.is_file()
    assert 0 < run.evaluation_seconds < run.seconds
    assert set(run.pool_results) == {"self", "random", "greedy"}
    # only the batched environment times the opponents' moves
    assert (set(run.opponent_seconds) == {"self", "random", "greedy"}) == (vec_env == "batched")
