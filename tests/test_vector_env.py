"""The masked Gymnasium vector env: the episodes of N single-agent envs, in one object."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from gymnasium.vector.utils import batch_space

from tris_envs import IllegalActionError
from tris_envs.envs import SingleAgentEnv, vector
from tris_envs.envs.turns import BatchedPolicy
from tris_envs.envs.vector import SingleAgentVectorEnv
from tris_envs.games import GAMES

from checks import benchmark_script

MODES = [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP, AutoresetMode.DISABLED]


class LastLegal:
    """A policy of its own: the highest legal action."""

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> int:
        return int(np.flatnonzero(mask)[-1])


def random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A random legal action per row (0 where no action is legal)."""
    return np.argmax(rng.random(masks.shape) * masks, axis=1)


# the opponents and options of the lockstep cases: dice (Tritoc, Tris 2), a short
# max_moves (truncations), a spec drawing from the game's generator, a policy
CASES = {
    "tris1 random": ("tris1", "random", {}),
    "tant_fant greedy truncated": ("tant_fant", "greedy", {"max_moves": 8}),
    "tris2 random": ("tris2", "random", {"max_moves": 40}),
    "tritoc random points": ("tritoc", "random", {"reward": "points", "max_moves": 30}),
    "doppia_scelta policy": ("doppia_scelta", LastLegal(), {}),
    "tant_fant mcts seat 1": ("tant_fant", "mcts:5", {"seat": 1, "max_moves": 12}),
}


def both(case: str, n: int, mode: AutoresetMode):
    game, opponent, options = CASES[case]
    ours = SingleAgentVectorEnv(game, n, opponent=opponent, autoreset_mode=mode, **options)
    sync = SyncVectorEnv([lambda: SingleAgentEnv(game, opponent=opponent, **options)
                          for _ in range(n)], autoreset_mode=mode)
    return ours, sync


@pytest.mark.parametrize("mode", MODES, ids=[m.value for m in MODES])
@pytest.mark.parametrize("case", CASES)
def test_steps_as_sync_vector_env_of_single_agent_envs(case, mode):
    steps_as_sync_vector_env(case, mode)


@pytest.mark.parametrize("mode", MODES, ids=[m.value for m in MODES])
def test_views_without_their_memo(monkeypatch, mode):
    """Where positions rarely repeat (Tris 2's random starts) the memo of views is dropped
    after VIEW_TRIAL look-ups, and the steps stay SyncVectorEnv's."""
    monkeypatch.setattr(vector, "VIEW_TRIAL", 30)
    assert steps_as_sync_vector_env("tris2 random", mode)._views is None


def test_views_through_a_full_memo(monkeypatch):
    """A memo that fills up is emptied and refilled (its tables grown first), and the steps
    stay SyncVectorEnv's."""
    monkeypatch.setattr(vector, "VIEW_MEMO", 40)
    sizes = []
    look_up = vector.ViewMemo.look_up

    def looking(memo, duels):
        rows = look_up(memo, duels)
        sizes.append(len(memo))
        assert memo.observations.shape[0] <= 40 and max(rows) < len(memo)
        return rows

    monkeypatch.setattr(vector.ViewMemo, "look_up", looking)
    steps_as_sync_vector_env("tant_fant greedy truncated", AutoresetMode.NEXT_STEP)
    assert max(sizes) > 34 and any(b < a for a, b in zip(sizes, sizes[1:]))   # emptied


def steps_as_sync_vector_env(case: str, mode: AutoresetMode) -> SingleAgentVectorEnv:
    """Step the vector env and SyncVectorEnv of ``case`` together, checking every step;
    returns the vector env."""
    n = 6
    ours, sync = both(case, n, mode)
    assert ours.metadata["autoreset_mode"] == sync.metadata["autoreset_mode"] == mode
    first = ours.reset(seed=11)
    assert data_equivalence(first, sync.reset(seed=11), exact=True)
    infos = first[1]
    rng = np.random.default_rng(0)
    ended = 0
    for t in range(120):
        actions = random_actions(infos["action_mask"], rng)
        if t % 17 == 3:
            actions[t % n] = ours.num_actions - 1  # mostly illegal: a loss
        step = ours.step(actions)
        assert data_equivalence(step, sync.step(actions), exact=True), t
        infos = step[4]
        done = step[2] | step[3]
        ended += int(done.sum())
        if mode is AutoresetMode.DISABLED and done.any():
            reset = ours.reset(options={"reset_mask": done})
            assert data_equivalence(reset, sync.reset(options={"reset_mask": done.copy()}),
                                    exact=True)
            infos = dict(infos, action_mask=reset[1]["action_mask"] | infos["action_mask"])
    assert ended >= 5
    return ours


def test_lockstep_with_single_agent_envs_of_the_same_seeds():
    """Game k plays what SingleAgentEnv reset with seed 5 + k plays, episode after episode."""
    n = 8
    ours = SingleAgentVectorEnv("tritoc", n, opponent="random", autoreset_mode="SameStep",
                                max_moves=40)
    singles = [SingleAgentEnv("tritoc", opponent="random", max_moves=40) for _ in range(n)]
    obs, infos = ours.reset(seed=5)
    for k, env in enumerate(singles):
        single_obs, single_info = env.reset(seed=5 + k)
        assert (obs[k] == single_obs).all() and infos["seat"][k] == single_info["seat"]
        assert (infos["action_mask"][k] == single_info["action_mask"]).all()
    rng = np.random.default_rng(1)
    episodes = 0
    for _ in range(150):
        actions = random_actions(infos["action_mask"], rng)
        obs, rewards, terminations, truncations, infos = ours.step(actions)
        for k, env in enumerate(singles):
            single_obs, reward, terminated, truncated, info = env.step(int(actions[k]))
            assert (reward, terminated, truncated) == (rewards[k], terminations[k],
                                                       truncations[k])
            if terminated or truncated:
                episodes += 1
                assert (infos["final_obs"][k] == single_obs).all()
                single_obs, info = env.reset()
            assert (obs[k] == single_obs).all() and env.position == ours.positions[k]
            assert (infos["action_mask"][k] == info["action_mask"]).all()
            assert infos["seat"][k] == info["seat"]
    assert episodes >= 20


@pytest.mark.parametrize("spec", GAMES.values(), ids=lambda spec: spec.name)
def test_make_vec_and_spaces(spec):
    envs = gymnasium.make_vec(spec.gymnasium_id, num_envs=4,
                              vectorization_mode="vector_entry_point", opponent="greedy")
    single = gymnasium.make(spec.gymnasium_id)
    assert isinstance(envs, SingleAgentVectorEnv) and envs.num_envs == 4
    assert envs.single_observation_space == single.observation_space
    assert envs.single_action_space == single.action_space
    assert envs.observation_space == batch_space(single.observation_space, 4)
    assert envs.action_space == batch_space(single.action_space, 4)
    assert isinstance(envs.action_space, spaces.MultiDiscrete)
    obs, infos = envs.reset(seed=0)
    assert obs in envs.observation_space
    assert infos["action_mask"].shape == (4, single.action_space.n)
    assert infos["action_mask"].dtype == bool and infos["action_mask"].any(axis=1).all()
    assert (envs.action_masks() == infos["action_mask"]).all()
    for _ in range(5):
        obs, rewards, terminations, truncations, infos = envs.step(
            random_actions(infos["action_mask"], np.random.default_rng(0)))
        assert obs in envs.observation_space and rewards.dtype == np.float64
        assert terminations.dtype == truncations.dtype == bool
    envs.close()
    assert envs.closed


def test_gymnasium_make_vec_modes_agree():
    """make_vec's sync mode (SingleAgentEnv copies) and our entry point play alike."""
    kwargs = {"num_envs": 3, "opponent": "greedy"}
    ours = gymnasium.make_vec("tris_envs/TantFant-v0", vectorization_mode="vector_entry_point",
                              **kwargs)
    sync = gymnasium.make_vec("tris_envs/TantFant-v0", vectorization_mode="sync", **kwargs)
    assert data_equivalence(ours.reset(seed=3), sync.reset(seed=3), exact=True)
    rng = np.random.default_rng(0)
    masks = ours.action_masks()
    for _ in range(30):
        actions = random_actions(masks, rng)
        step = ours.step(actions)
        assert data_equivalence(step, sync.step(actions), exact=True)
        masks = step[4]["action_mask"]


def test_gymnasium_vector_wrappers():
    envs = gymnasium.wrappers.vector.RecordEpisodeStatistics(
        SingleAgentVectorEnv("tris1", 8, opponent="random"))
    _, infos = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    returns = []
    for _ in range(40):
        _, _, _, _, infos = envs.step(random_actions(infos["action_mask"], rng))
        if "episode" in infos:
            returns += infos["episode"]["r"][infos["_episode"]].tolist()
    assert len(returns) > 10 and set(returns) <= {-1.0, 0.0, 1.0}
    listed = gymnasium.wrappers.vector.DictInfoToList(SingleAgentVectorEnv("tris1", 2))
    _, info_list = listed.reset(seed=0)
    assert [sorted(info) for info in info_list] == [["action_mask", "seat"]] * 2


def test_seeding():
    envs = SingleAgentVectorEnv("tris2", 4, opponent="random")

    def trace(seed):
        obs, infos = envs.reset(seed=seed)
        rng = np.random.default_rng(0)
        out = [obs]
        for _ in range(10):
            obs, *_, infos = envs.step(random_actions(infos["action_mask"], rng))
            out.append(obs)
        return np.stack(out)

    first = trace(7)
    assert (trace(7) == first).all() and not (trace(8) == first).all()
    assert (trace([7, 8, 9, 10]) == first).all()
    envs.reset(seed=[None, 1, None, 2])  # seeds per game, None keeps the generator
    with pytest.raises(ValueError, match="seeds"):
        envs.reset(seed=[1, 2])


def test_fixed_seat_and_opponents_per_game():
    envs = SingleAgentVectorEnv("tris1", 4, opponent=["random", "greedy", LastLegal(), "random"],
                                seat=1)
    obs, infos = envs.reset(seed=0)
    assert (infos["seat"] == 1).all() and (obs.reshape(4, -1).sum(axis=1) == 1).all()
    assert envs.positions[2] == ".../.../..X"   # LastLegal opened on the last square
    envs.set_opponent(LastLegal(), indices=[0])
    assert isinstance(envs.duels[0].opponent.policy, LastLegal)
    with pytest.raises(ValueError, match="2 opponents given for 4 games"):
        envs.set_opponent(["random", "random"])
    with pytest.raises(ValueError):
        envs.set_opponent("nobody")
    with pytest.raises(TypeError):
        envs.set_opponent(3)


def test_batched_policy_answers_a_round_in_one_call():
    sizes = []

    def first_legal(observations, masks):
        sizes.append(len(observations))
        assert observations.shape[1:] == (3, 3, 2) and masks.dtype == bool
        return masks.argmax(axis=1)

    policy = BatchedPolicy(first_legal, label="first")
    envs = SingleAgentVectorEnv("tris1", 16, opponent=policy)
    _, infos = envs.reset(seed=0)
    openers = int((infos["seat"] == 1).sum())
    assert sizes == ([openers] if openers else [])
    sizes.clear()
    envs.step(infos["action_mask"].argmax(axis=1))   # no Tris 1 game ends on the 1st/2nd ply
    assert sizes == [16]
    # a BatchedPolicy is a policy too: a SingleAgentEnv plays it as a batch of one
    env = SingleAgentEnv("tris1", opponent=policy, seat=1)
    env.reset(seed=0)
    assert env.position == "X../.../..." and sizes[-1] == 1
    bad = SingleAgentVectorEnv("tris1", 2, seat=0,
                               opponent=BatchedPolicy(lambda o, m: np.zeros(2, dtype=int)))
    bad.reset(seed=0)
    with pytest.raises(IllegalActionError, match="the opponent played an illegal action"):
        bad.step(np.array([0, 0]))  # the opponent's 0 is taken


def test_policy_snapshots_play_in_batches(tmp_path, monkeypatch):
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO

    from tris_envs.agents import PolicyOpponent
    from tris_envs.agents.ppo import export_policy
    from tris_envs.envs import turns

    torch.set_num_threads(1)
    model = MaskablePPO("MlpPolicy", SingleAgentEnv("tris1"), n_steps=32, batch_size=32,
                        seed=0, device="cpu", policy_kwargs={"net_arch": [16]})
    export_policy(model, tmp_path / "snapshot.pt", "tris1")
    calls = []
    real = turns.masked_probabilities

    def counting(network, observations, masks):
        calls.append(len(observations))
        return real(network, observations, masks)

    monkeypatch.setattr(turns, "masked_probabilities", counting)
    opponent = PolicyOpponent(tmp_path / "snapshot.pt", rng=np.random.default_rng(0))
    ours = SingleAgentVectorEnv("tris1", 8, opponent=opponent, seat=0,
                                autoreset_mode="SameStep")
    _, infos = ours.reset(seed=0)
    ours.step(infos["action_mask"].argmax(axis=1))
    assert calls == [8]
    with pytest.raises(ValueError, match="expects observations of shape"):
        SingleAgentVectorEnv("tant_fant", 2, opponent=opponent)


def test_illegal_actions():
    envs = SingleAgentVectorEnv("tris1", 3, opponent="random", seat=0, illegal_action="raise")
    _, infos = envs.reset(seed=0)
    before = envs.positions
    with pytest.raises(IllegalActionError):
        envs.step(np.array([0, 0, 9]))
    assert envs.positions == before  # no game moved
    lose = SingleAgentVectorEnv("tris1", 3, opponent="random", seat=0)
    lose.reset(seed=0)
    _, rewards, terminations, _, infos = lose.step(np.array([0, -1, 4]))
    assert rewards[1] == -1.0 and terminations.tolist() == [False, True, False]
    assert infos["illegal_action"].tolist() == [False, True, False]
    assert not infos["action_mask"][1].any()
    # next step: game 1 starts again, its action ignored
    _, rewards, terminations, _, infos = lose.step(np.array([1, 123, 5]))
    assert rewards[1] == 0.0 and not terminations[1] and infos["action_mask"][1].all()


def test_errors_and_render():
    with pytest.raises(ValueError, match="num_envs"):
        SingleAgentVectorEnv("tris1", 0)
    with pytest.raises(ValueError, match="autoreset_mode"):
        SingleAgentVectorEnv("tris1", 2, autoreset_mode="sometimes")
    envs = SingleAgentVectorEnv("tris1", 2, render_mode="ansi", autoreset_mode="Disabled",
                                seat=0)
    with pytest.raises(RuntimeError, match="reset"):
        envs.step(np.array([0, 0]))
    with pytest.raises(ValueError, match="ends before the learner"):
        envs.reset(options={"position": "XXX/OO./..."})
    envs.reset(seed=0, options={"position": "XX./OO./..."})
    envs.render_index = 1
    assert envs.render() == SingleAgentEnv("tris1", render_mode="ansi").game.render_text(
        envs.duels[1].state)
    envs.step(np.array([2, 8]))   # game 0 wins
    with pytest.raises(RuntimeError, match="are over: reset them"):
        envs.step(np.array([0, 0]))
    with pytest.warns(UserWarning, match="render_mode"):
        assert SingleAgentVectorEnv("tris1", 1).render() is None


def test_benchmark_script_measures_both():
    script = benchmark_script("vector_env")
    table = script.report(["tris1"], ["random"], num_envs=4, steps=5, rounds=1)
    assert "| tris1 | random |" in table and "×" in table
    shares = script.profile_shares("tris1", "random", num_envs=4, steps=5)
    assert shares.count("% of") == 2 and "SingleAgentVectorEnv" in shares


def test_benchmark_alternates_the_order_and_gives_every_timing_games_of_its_own(monkeypatch):
    script = benchmark_script("vector_env")
    timed: list[tuple[str, int]] = []

    def steps_per_second(env, steps, seed):
        timed.append((type(env).__name__, seed))
        return 1.0, 1.0

    def core_rate(game, opponent, num_envs, steps, seed):
        timed.append(("core", seed))
        return 1.0

    monkeypatch.setattr(script, "steps_per_second", steps_per_second)
    monkeypatch.setattr(script, "core_rate", core_rate)
    script.compare("tris1", "random", num_envs=4, steps=1, rounds=4, seed=10)
    order = [name for name, _ in timed]
    first = ["SyncVectorEnv", "SingleAgentVectorEnv", "core"]
    assert order == first + first[::-1] + first + first[::-1]
    games = [set(range(seed, seed + 4)) for _, seed in timed]     # game k seeded seed + k
    assert len(set().union(*games)) == 4 * len(timed)             # no game played twice
    assert min(seed for _, seed in timed) == 10


def test_benchmark_ratio_does_not_depend_on_the_order_or_a_warmed_memo():
    """Two contenders as fast as each other, on a shared memo that doubles the speed of a
    timing whose games were all played before (what replaying another's seed gave): the
    benchmark reports the same ratio whichever goes first, and no timing is warmed."""
    script = benchmark_script("vector_env")

    def ratio(names: list[str]) -> float:
        played: set[int] = set()

        def timer(seed: int) -> tuple[float, float]:
            games = set(range(seed, seed + 8))
            rate = 2.0 if games <= played else 1.0
            played.update(games)
            return rate, rate

        best = script.best_rates({name: timer for name in names}, rounds=4, num_envs=8)
        return best["ours"][0] / best["theirs"][0]

    assert ratio(["theirs", "ours"]) == ratio(["ours", "theirs"]) == 1.0
