"""Training: PPO agents, the opponent pool, configs, and a short run per game (save / load / play).

The full runs of the shipped configs are ``slow`` (``pytest -m slow tests/test_training.py``);
they assert the targets of the training issue.
"""

from __future__ import annotations

import csv
import os
import pickle
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
import torch
from sb3_contrib import MaskablePPO

from tris_envs import cli
from tris_envs.agents import AGENT_SPECS, PolicyOpponent, PPOAgent, make_agent
from tris_envs.agents import ppo as ppo_module
from tris_envs.core.game import resolve_chance
from tris_envs.envs import SingleAgentEnv
from tris_envs.evaluation import play_match
from tris_envs.evaluation.targets import check_targets, target_report
from tris_envs.games import GAMES, make_game
from tris_envs.ppo.commands import CONFIG_DIR
from tris_envs.ppo.config import (
    Config,
    apply_overrides,
    default_config,
    game_options_from,
    load_config,
)
from tris_envs.ppo.pool import OpponentPool, OpponentPoolEnv, PoolTally
from tris_envs.ppo.train import train

torch.set_num_threads(1)


def train_ppo(args: list[str]) -> int:
    """``tris-envs train ppo ARGS``."""
    return cli.main(["train", "ppo", *args])


def evaluate_ppo(args: list[str]) -> int:
    """``tris-envs evaluate ARGS``."""
    return cli.main(["evaluate", *args])


def shipped_config(game: str) -> Config:
    """The config shipped in the package for ``game``, loaded."""
    return load_config(default_config(game, CONFIG_DIR))


def tiny_config(game: str) -> Config:
    """The game's shipped config shrunk to a few hundred steps and a handful of eval games."""
    opponents = '["random", "solver"]' if GAMES[game].solvable else '["random"]'
    return apply_overrides(shipped_config(game), [
        "train.timesteps=512", "train.n_envs=2", "ppo.n_steps=128", "ppo.batch_size=64",
        "ppo.n_epochs=1", "pool.snapshot_every=128", "pool.max_snapshots=2",
        "eval.evaluations=1", "eval.games=2", f"eval.opponents={opponents}"])


@pytest.fixture(scope="module")
def tris1_model(tmp_path_factory) -> Path:
    """An untrained tris1 policy file (its policy is still a valid one)."""
    path = tmp_path_factory.mktemp("models") / "tris1.pt"
    model = MaskablePPO("MlpPolicy", SingleAgentEnv("tris1", opponent="random"), n_steps=32,
                        batch_size=32, seed=0, device="cpu")
    return ppo_module.export_policy(model, path, "tris1")


# ----- a short run per game ------------------------------------------------------------------
@pytest.mark.parametrize("game", GAMES)
def test_short_run_saves_loads_and_plays(game, tmp_path):
    config = tiny_config(game)
    lines: list[str] = []
    run = train(config, tmp_path / "run", progress=False, report=lines.append)

    assert run.timesteps == 512 and run.timesteps == config.train.timesteps
    for path in (run.final, run.best, run.csv, run.curve, run.out / "config.json"):
        assert path.is_file(), path
    assert list((run.out / "tb").iterdir())
    started = (run.out / "machine.txt").read_text().splitlines()
    assert len(started) == 1 and " from step 0: " in started[0] and " CPUs" in started[0]
    # evaluated before training and at the end; one report line each
    with run.csv.open() as handle:
        rows = list(csv.DictReader(handle))
    assert [int(r["steps"]) for r in rows] == [0, 512] and len(lines) == 2
    assert all(0 <= float(r["score_random"]) <= 1 for r in rows)
    judged = GAMES[game].solvable and config.eval.judge_moves
    assert (rows[-1]["optimal_share"] != "") == judged
    # snapshots every 128 steps, taken between rollouts of 256: the newest two kept on disk
    assert sorted(p.name for p in run.snapshots.iterdir()) == [
        "step_000000000.pt", "step_000000256.pt"]
    # every policy the run wrote loads without unpickling (torch.load(weights_only=True))
    for path in (run.final, run.best, *run.checkpoints.iterdir(), *run.snapshots.iterdir()):
        assert set(torch.load(path, weights_only=True)) == {"header", "state_dict"}, path
    # the learner met pool members only (snapshots tallied together as "self")
    weighted = {label for label, w in config.pool.weights.items() if w > 0}
    assert set(run.pool_results) <= weighted and run.pool_results

    # load and play: PPOAgent, the ppo: spec, a match, and tris-envs evaluate
    state_game = make_game(game)
    agent = make_agent(f"ppo:{run.final}", np.random.default_rng(0))
    assert isinstance(agent, PPOAgent) and agent.name == "ppo:final"
    state = resolve_chance(state_game, state_game.initial_state(rng := np.random.default_rng(0)),
                           rng)
    assert state_game.legal_mask(state)[agent.act(state_game, state)]
    result = play_match(state_game, f"ppo:{run.final}", "random", 2, seed=3)
    assert result.n_games == 2 and result.names == ("ppo:final", "random")
    again = play_match(state_game, f"ppo:{run.final}", "random", 2, seed=3)
    assert again.by_seat == result.by_seat
    if game == "tant_fant":
        assert evaluate_ppo([str(run.best), "--game", game, "--games", "2",
                              "--opponents", "random,solver"]) == 0


def test_train_ppo_command_line(tmp_path, capsys):
    out = tmp_path / "cli"
    run = ["--game", "tris1", "--timesteps", "640", "--seed", "5", "--out", str(out),
           "--n-envs", "2", "--set", "ppo.n_steps=32", "--set", "ppo.batch_size=64",
           "--set", "ppo.n_epochs=1", "--set", "eval.games=2",
           "--set", 'eval.opponents=["random"]']
    assert train_ppo(run) == 0
    printed = capsys.readouterr().out
    assert "trained 640 steps in " in printed and (out / "final.pt").is_file()
    assert "of the wall time); opponents' moves: " in printed  # batched: each member's share
    assert '"seed": 5' in (out / "config.json").read_text()
    # ten evaluations over the run (one per rollout of 64 steps here) and one before it
    with (out / "progress.csv").open() as handle:
        steps = [int(row["steps"]) for row in csv.DictReader(handle)]
    assert steps == list(range(0, 641, 64)) and printed.count("step ") == 11
    # the directory holds a run now: refused, unless --force, which replaces it
    (out / "mine.txt").write_text("not the run's")
    assert train_ppo(run) == 2
    assert f"{out} already holds a run (config.json, machine.txt, progress.csv" in \
        capsys.readouterr().err
    assert train_ppo([*run, "--force", "--quiet", "--timesteps", "64"]) == 0
    printed = capsys.readouterr().out
    assert "trained 64 steps in " in printed and "step " not in printed.split("trained")[0]
    assert len((out / "progress.csv").read_text().splitlines()) == 3  # header, 0, 64
    assert len((out / "machine.txt").read_text().splitlines()) == 1
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == [
        "step_000000000.pt", "step_000000064.pt"]
    assert (out / "mine.txt").read_text() == "not the run's"   # --force removes runs' files only
    assert train_ppo(["--game", "tris1", "--set", "ppo.gama=0.9"]) == 2
    assert "unknown config key 'ppo.gama'" in capsys.readouterr().err
    assert train_ppo(["--game", "tris1", "--config",
                              str(CONFIG_DIR / "tant_fant.toml")]) == 2
    assert "--game tris1 but the config trains 'tant_fant'" in capsys.readouterr().err


def test_train_ppo_shows_progress_on_a_terminal_only(tmp_path):
    import pexpect

    args = ["-m", "tris_envs.cli", "train", "ppo", "--game", "tris1", "--timesteps", "512",
            "--n-envs", "2", "--set", "ppo.n_steps=64", "--set", "ppo.batch_size=64",
            "--set", "ppo.n_epochs=1", "--set", "eval.games=2", "--set", "eval.evaluations=2",
            "--set", 'eval.opponents=["random"]']
    piped = subprocess.run([sys.executable, *args, "--out", str(tmp_path / "piped")],
                           capture_output=True, text=True, timeout=300)
    assert piped.returncode == 0, piped.stderr
    assert "steps/s]" not in piped.stderr and "train ppo tris1:" not in piped.stderr
    assert piped.stdout.count("step ") == 3 and "trained 512 steps in " in piped.stdout
    child = pexpect.spawn(sys.executable, [*args, "--out", str(tmp_path / "terminal")],
                          encoding="utf-8", timeout=300, dimensions=(50, 200))
    child.expect(r"train ppo tris1: +\d+%\|.*\| [\d,]+/512 steps")     # the bar
    child.expect(r"train ppo tris1: 512 steps in \d+s")               # the summary line
    child.expect("trained 512 steps in ")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


TINY_RUN = ["--game", "tris1", "--timesteps", "256", "--quiet", "--n-envs", "2",
            "--set", "ppo.n_steps=64", "--set", "ppo.batch_size=64", "--set", "eval.games=2",
            "--set", 'eval.opponents=["random"]']


def _started(argv: list[str]) -> subprocess.Popen:
    """``tris-envs argv`` in a session of its own (a terminal's Ctrl-C reaches its whole
    group), with Python's Ctrl-C handler even where the suite runs in a shell's background
    (which starts it with SIGINT ignored, as its children would be)."""
    inherited = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return subprocess.Popen([sys.executable, "-m", "tris_envs.cli", *argv],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)
    finally:
        signal.signal(signal.SIGINT, inherited)


def _descendants(pid: int) -> list[int]:
    """The processes below ``pid``: its children, theirs, and so on."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as file:
            children = [int(child) for child in file.read().split()]
    except OSError:
        return []
    return children + [below for child in children for below in _descendants(child)]


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as file:
            return file.read().split()[2] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("stop, status, vec_env", [
    (signal.SIGINT, 130, "batched"), (signal.SIGTERM, 143, "batched"),
    pytest.param(signal.SIGINT, 130, "subproc", marks=pytest.mark.slow)])
def test_train_ppo_stopped_keeps_the_policy_so_far_and_says_where(stop, status, vec_env,
                                                                  tmp_path):
    """Ctrl-C printed a traceback and SIGTERM killed the run outright; neither kept the
    policy. Ctrl-C goes to the whole group, as a terminal sends it: the subproc workers too."""
    out = tmp_path / "run"
    process = _started(["train", "ppo", *TINY_RUN, "--timesteps", "10000000", "--out", str(out),
                        "--set", f'train.vec_env="{vec_env}"'])
    began = time.monotonic()
    while not (out / "progress.csv").is_file():     # the first evaluation: learning starts
        assert process.poll() is None, process.communicate()[1]
        assert time.monotonic() - began < 120, "the run did not start in time"
        time.sleep(0.05)
    time.sleep(0.5)                                 # into the rollouts
    workers = _descendants(process.pid)
    assert len(workers) >= (2 if vec_env == "subproc" else 0)
    if stop == signal.SIGINT:
        os.killpg(process.pid, stop)
    else:
        process.send_signal(stop)                  # to the command alone, as `kill` sends it
    _, err = process.communicate(timeout=120)
    kept = out / "interrupted.pt"
    assert process.returncode == status and "Traceback" not in err, err
    line = err.strip().splitlines()[-1]
    assert re.fullmatch(rf"interrupted at step [\d,]+ of 10,000,000: the policy so far is in "
                        rf"{re.escape(str(kept))} \(it plays as ppo:{re.escape(str(kept))}\), "
                        rf"the evaluations in {re.escape(str(out / 'progress.csv'))}", line), err
    assert not (out / "final.pt").exists()
    assert play_match(make_game("tris1"), f"ppo:{kept}", "random", n_games=2,
                      seed=0).n_games == 2
    deadline = time.monotonic() + 10
    while any(map(_alive, workers)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(map(_alive, workers)), "a worker outlived the run"
    assert train_ppo([*TINY_RUN, "--out", str(out)]) == 2           # a run is there


@pytest.mark.parametrize("args, message", [
    (["--config", "{tmp}/missing.toml"], "No such file or directory: '{tmp}/missing.toml'"),
    (["--config", "{tmp}/file"], "(at line 1, column 5)"),
    (["--out", "{tmp}/file"], "File exists: '{tmp}/file'"),
    (["--out", "{tmp}/file/run"], "Not a directory: '{tmp}/file/run'"),
    (["--set", "ppo.learning_rate=abc"], "ppo.learning_rate='abc': must be a number > 0"),
    (["--set", "ppo.gamma=5"], "ppo.gamma=5: must be a number in [0, 1]"),
    (["--set", 'eval.opponents=["ppo:/nonexistent"]'],
     "eval.opponents: PPO checkpoint '/nonexistent' not found"),
    (["--set", 'eval.opponents=["ppo:{tmp}/file"]'], "checkpoint '{tmp}/file' cannot be read"),
])
def test_train_ppo_rejects_bad_input_in_one_line(args, message, tmp_path, capsys):
    (tmp_path / "file").write_text("not a config, not a checkpoint\n")
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    out = ["--out", str(tmp_path / "run")] if "--out" not in args else []
    assert train_ppo([*TINY_RUN, *out, *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tris-envs train ppo: error: ") and err.count("\n") == 1
    assert message.replace("{tmp}", str(tmp_path)) in err


def test_evaluate_names_an_unreadable_checkpoint(tmp_path, capsys):
    corrupt = tmp_path / "corrupt.zip"
    corrupt.write_bytes(b"PK\x03\x04 truncated")
    (tmp_path / "corrupt.pt").write_bytes(b"PK\x03\x04 truncated")
    for path, message in ((tmp_path / "missing.pt", "PPO checkpoint '{}' not found"),
                          (corrupt, "checkpoint '{}' cannot be read"),
                          (tmp_path / "corrupt.pt", "checkpoint '{}' cannot be read")):
        assert evaluate_ppo([str(path), "--game", "tris1", "--games", "2",
                                     "--opponents", "random"]) == 2
        err = capsys.readouterr().err
        assert err.startswith("tris-envs evaluate: error: ") and message.format(path) in err


def test_the_package_imports_torch_only_to_train():
    code = ("import sys\n"
            "import tris_envs.cli, tris_envs.ppo.config, tris_envs.ppo.pool\n"
            "import tris_envs.evaluation.checkpoint, tris_envs.evaluation.targets\n"
            "print(sorted({'torch', 'stable_baselines3', 'sb3_contrib'} & set(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=True)
    assert done.stdout == "[]\n"


def test_evaluate_prints_a_table(tris1_model, capsys):
    assert evaluate_ppo([str(tris1_model), "--game", "tris1", "--games", "4",
                          "--opponents", "random,greedy,solver"]) == 0
    out = capsys.readouterr().out
    assert "| opponent | games | wins | draws | losses | score | 95% interval | optimal moves |" \
        in out
    assert "| greedy | 4 |" in out and "optimal moves over all games:" in out
    assert "the solver's own score against the solver in the same games" in out
    assert "training targets" not in out
    assert evaluate_ppo([str(tris1_model), "--game", "tris1", "--games", "2",
                          "--opponents", "random,solver", "--targets"]) == 0
    out = capsys.readouterr().out
    assert "training targets:\n  no loss against solver: " in out
    assert "optimal moves >= 99%: " in out
    assert evaluate_ppo([str(tris1_model), "--game", "tris2", "--games", "2",
                          "--opponents", "random"]) == 2
    assert "expects observations of shape (3, 3, 2)" in capsys.readouterr().err
    assert evaluate_ppo(["missing.pt", "--game", "tris1"]) == 2
    capsys.readouterr()
    assert evaluate_ppo([str(tris1_model), "--game", "tris1", "--games", "2", "--no-judge",
                          "--opponents", "solver"]) == 0
    assert "optimal moves" not in capsys.readouterr().out
    assert game_options_from(CONFIG_DIR / "tritoc.toml") == {}


# ----- the opponent pool ---------------------------------------------------------------------
def snapshots(tris1_model: Path, tmp_path: Path, n: int) -> list[str]:
    paths = []
    for k in range(n):
        path = tmp_path / f"snap{k}.pt"
        path.write_bytes(tris1_model.read_bytes())
        paths.append(str(path))
    return paths


def test_pool_draws_every_member_and_books_rewards(tris1_model, tmp_path):
    pool = OpponentPoolEnv(SingleAgentEnv("tris1"), OpponentPool(
        {"random": 1, "greedy": 1, "self": 1, "mcts:50": 0}, seed=0))
    for path in snapshots(tris1_model, tmp_path, 2):
        pool.add_snapshot(path)
    assert [(label, round(p, 3)) for label, _, p in pool.pool.members()] == [
        ("random", 0.333), ("greedy", 0.333), ("self:snap0", 0.167), ("self:snap1", 0.167)]
    met: Counter = Counter()
    results: Counter = Counter()
    rng = np.random.default_rng(1)
    for _ in range(120):
        obs, info = pool.reset()
        label, total = info["opponent"], 0.0
        while True:
            action = int(rng.choice(np.flatnonzero(pool.action_masks())))
            obs, reward, terminated, truncated, info = pool.step(action)
            total += reward
            assert info["opponent"] == label
            if terminated or truncated:
                break
        episode = info["pool_episode"]
        env = pool.unwrapped
        # the booked return and result are the learner's result in the final position
        assert episode == {"opponent": label, "return": total, "result": total}
        assert total == env.game.returns(env.game_state)[env.seat]
        met[label] += 1
        results[np.sign(total)] += 1
    assert set(met) == {"random", "greedy", "self:snap0", "self:snap1"}
    assert met["random"] > met["self:snap0"] and met["greedy"] > met["self:snap1"]
    assert set(results) == {-1.0, 0.0, 1.0}


def test_pool_books_a_truncated_episode_as_zero():
    pool = OpponentPoolEnv(SingleAgentEnv("tant_fant", max_moves=4),
                           OpponentPool({"random": 1}, seed=0))
    obs, info = pool.reset(seed=0)
    rewards, truncated = [], False
    while not truncated:
        obs, reward, terminated, truncated, info = pool.step(
            int(np.flatnonzero(pool.action_masks())[0]))
        rewards.append(reward)
        assert not terminated
    assert info["pool_episode"] == {"opponent": "random", "return": 0.0, "result": 0}
    assert len(rewards) == 2 and pool.unwrapped.num_moves == 4


def test_pool_books_results_apart_from_tritoc_points():
    pool = OpponentPoolEnv(SingleAgentEnv("tritoc", reward="points"),
                           OpponentPool({"greedy": 1}, seed=0))
    rng = np.random.default_rng(0)
    differ = 0
    for seed in range(8):
        pool.reset(seed=seed)
        done = False
        while not done:
            _, _, terminated, truncated, info = pool.step(
                int(rng.choice(np.flatnonzero(pool.action_masks()))))
            done = terminated or truncated
        episode = info["pool_episode"]
        env = pool.unwrapped
        assert episode["result"] == np.sign(env.game.returns(env.game_state)[env.seat])
        differ += episode["result"] != episode["return"]
    assert differ > 0  # conquered fields pay points even in a lost game


def test_random_openings_start_live_positions_within_the_ply_limit():
    pool = OpponentPoolEnv(SingleAgentEnv("tris1"), OpponentPool(
        {"random": 1}, seed=0, opening_prob=1.0, opening_plies=3))
    game = pool.unwrapped.game
    pieces = Counter()
    for _ in range(200):
        opening = game.from_notation(pool.pool.random_opening(game))
        assert not game.is_terminal(opening)
        pieces[9 - len(game.legal_actions(opening))] += 1
    assert set(pieces) == {1, 2, 3}  # 1 to opening_plies moves, each length drawn
    # a learner's first observation follows the opening (and the opponent's reply to it)
    counts = Counter()
    for seed in range(100):
        obs, info = pool.reset(seed=seed)
        counts[int(obs.sum())] += 1
    assert min(counts) >= 1 and max(counts) <= 4
    plain = OpponentPoolEnv(SingleAgentEnv("tris1"), OpponentPool({"random": 1}, seed=0))
    assert {int(plain.reset(seed=seed)[0].sum()) for seed in range(40)} == {0, 1}


def test_snapshots_are_capped_and_the_pool_needs_a_member(tris1_model, tmp_path):
    pool = OpponentPoolEnv(SingleAgentEnv("tris1"), OpponentPool({"self": 1}, max_snapshots=2))
    with pytest.raises(ValueError, match="the opponent pool is empty"):
        pool.reset()
    for path in snapshots(tris1_model, tmp_path, 3):
        pool.add_snapshot(path)
    assert [label for label, _, _ in pool.pool.members()] == ["self:snap1", "self:snap2"]
    obs, info = pool.reset(seed=0)
    assert info["opponent"] in ("self:snap1", "self:snap2")


def test_pool_tally_groups_snapshots():
    tally = PoolTally()
    for label, result in (("self:step_1", 1), ("self:step_2", -1), ("greedy", 0),
                          ("greedy", 1), ("mcts:50", -1)):
        tally.add({"opponent": label, "return": 3.0, "result": result})
    assert tally.scores() == {"greedy": (2, 0.75), "mcts:50": (1, 0.0), "self": (2, 0.5)}


# ----- configs -------------------------------------------------------------------------------
@pytest.mark.parametrize("game", GAMES)
def test_shipped_configs_load(game):
    config = shipped_config(game)
    assert make_game(config.game).info.name == game
    assert ("solver" in config.pool.weights) == GAMES[game].solvable
    assert config.network.extractor == ("mlp" if game in ("tris1", "tant_fant") else "cnn")


@pytest.mark.parametrize("override, message", [
    ("ppo.gama=0.9", "unknown config key 'ppo.gama'"),
    ("train.n_envs=0", "train.n_envs=0: must be an integer >= 1"),
    ("ppo.batch_size=4096", "ppo.batch_size=4096: must be at most the rollout"),
    ("network.extractor=\"resnet\"", "network.extractor='resnet': must be one of 'cnn', 'mlp'"),
    ("pool.weights={ random = -1 }", "pool.weights=.*non-negative numbers"),
    ("eval.opponents=[\"alphazero\"]", "eval.opponents: unknown agent spec 'alphazero'"),
    ("game_options.max_moves=0", "game_options: option max_moves=0"),
    ("pool.opening_prob=1.5", r"pool.opening_prob=1.5: must be a number in \[0, 1\]"),
    ("pool.opening_plies=-1", "pool.opening_plies=-1: must be an integer >= 0"),
    ("ppo.gamma=5", r"ppo.gamma=5: must be a number in \[0, 1\]"),
    ("ppo.learning_rate=abc", "ppo.learning_rate='abc': must be a number > 0"),
    ("ppo.clip_range=0", "ppo.clip_range=0: must be a number > 0"),
    ("eval.judge_moves=1", "eval.judge_moves=1: must be true or false"),
    ("eval.opponents=[]", "eval.opponents=.*non-empty list"),
    ("network.net_arch=[64, 0]", r"network.net_arch=.*integers in \[1, 4096\]"),
    ("network.net_arch=[5000]", r"network.net_arch=\[5000\]: must be a list of 0 to 64 "
                                r"integers in \[1, 4096\]"),
    ("network.features_dim=100000", r"network.features_dim=100000: must be an integer in "
                                    r"\[1, 4096\]"),
    ("ppo=1", "config key 'ppo' must be a table"),
])
def test_bad_configs_are_named(override, message):
    with pytest.raises(ValueError, match=message):
        apply_overrides(shipped_config("tris1"), [override])


def test_solver_only_where_the_game_has_one():
    with pytest.raises(ValueError, match="eval.opponents: tris2 has no exact solver"):
        apply_overrides(shipped_config("tris2"), ['eval.opponents=["solver"]'])


def test_solver_cannot_join_a_coloring_phase():
    with pytest.raises(ValueError, match="coloring phase"):
        apply_overrides(shipped_config("doppia_scelta"), ['game_options.setup="coloring"'])


def test_overrides_parse_toml_values():
    config = apply_overrides(shipped_config("tritoc"), [
        "game_options.reward=points", "ppo.gamma=0.9", "pool.weights={ greedy = 1 }"])
    assert config.game_options == {"reward": "points"}
    assert config.ppo.gamma == 0.9 and config.pool.weights == {"greedy": 1}
    assert config.to_dict()["ppo"]["gamma"] == 0.9


# ----- PPO agents ------------------------------------------------------------------------------
def test_ppo_agent_plays_legal_moves_reproducibly(tris1_model):
    game = make_game("tris1")
    state = game.from_notation("XO./.X./..O")
    legal = game.legal_actions(state)
    greedy_play = PPOAgent(tris1_model).act(game, state)
    assert greedy_play in legal and PPOAgent(tris1_model).act(game, state) == greedy_play
    draws = [PPOAgent(tris1_model, np.random.default_rng(7), deterministic=False).act(game, state)
             for _ in range(2)]
    assert draws[0] == draws[1] and draws[0] in legal
    sampled = {PPOAgent(tris1_model, np.random.default_rng(k), deterministic=False).act(
        game, state) for k in range(40)}
    assert sampled <= set(legal) and len(sampled) > 1


def test_ppo_agent_errors(tris1_model, monkeypatch):
    with pytest.raises(FileNotFoundError, match="PPO checkpoint 'nowhere.pt' not found"):
        make_agent("ppo:nowhere.pt")
    with pytest.raises(ValueError, match="allowed: .*ppo:PATH"):
        make_agent("ppo:")
    assert "ppo:<path>" in AGENT_SPECS
    game = make_game("tant_fant")
    with pytest.raises(ValueError, match=r"shape \(3, 3, 2\) and 9 actions, got \(3, 3, 4\)"):
        PPOAgent(tris1_model).act(game, game.initial_state(np.random.default_rng(0)))
    real = ppo_module.importlib.util.find_spec
    monkeypatch.setattr(ppo_module.importlib.util, "find_spec",
                        lambda name: None if name == "sb3_contrib" else real(name))
    with pytest.raises(ImportError, match=r"sb3_contrib.*pip install 'tris_envs\[train\]'"):
        PPOAgent(tris1_model)


def test_an_exported_policy_plays_like_its_model(tmp_path):
    model = MaskablePPO("MlpPolicy", SingleAgentEnv("tris1", opponent="random"), n_steps=32,
                        batch_size=32, seed=3, device="cpu")
    exported = ppo_module.export_policy(model, tmp_path / "tris1.pt", "tris1")
    archive = tmp_path / "tris1.zip"
    model.save(archive)
    assert exported.stat().st_size < archive.stat().st_size   # no optimizer state
    game = make_game("tris1")
    rng = np.random.default_rng(4)
    agents = [PPOAgent(exported), PPOAgent(model)]
    assert [a.name for a in agents] == ["ppo:tris1", "ppo:model"]
    for _ in range(30):
        state = game.initial_state(rng)
        for _ in range(int(rng.integers(0, 7))):
            if not game.is_terminal(state):
                state = game.apply(state, int(rng.choice(game.legal_actions(state))))
        if not game.is_terminal(state):
            assert len({agent.act(game, state) for agent in agents}) == 1
    # an in-memory model is played as it is: training it on changes the agent's moves
    live = PPOAgent(model)
    assert live.policy_for(game) is model.policy


def test_policy_opponent_pickles_and_plays(tris1_model):
    model = ppo_module.load_policy(tris1_model)
    obs = np.zeros((3, 3, 2), dtype=np.int8)
    mask = np.ones(9, dtype=bool)
    for source in (tris1_model, model):
        opponent = PolicyOpponent(source, deterministic=True)
        copy = pickle.loads(pickle.dumps(opponent))
        assert copy(obs, mask) == opponent(obs, mask)
    assert PolicyOpponent(model).label == "ppo:model"
    opponent = PolicyOpponent(tris1_model, rng=np.random.default_rng(0))
    env = SingleAgentEnv("tris1", opponent=opponent)
    for seed in range(6):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            obs, _, terminated, truncated, info = env.step(int(np.flatnonzero(
                env.action_masks())[0]))
            done = terminated or truncated


def test_board_cnn_shapes():
    from gymnasium import spaces

    from tris_envs.agents.ppo import BoardCNN

    space = spaces.Box(0, 1, (9, 9, 11), np.int8)
    net = BoardCNN(space, channels=[8, 4], features_dim=16)
    assert net(torch.zeros(5, 9, 9, 11)).shape == (5, 16) and net.features_dim == 16
    assert pickle.loads(pickle.dumps(BoardCNN)) is BoardCNN
    with pytest.raises(ValueError, match="odd kernel size"):
        BoardCNN(space, channels=[8], kernel_size=2)


def test_targets_are_checked_per_game():
    from types import SimpleNamespace

    def result(opponent, score, losses=0, optimal=0, judged=0):
        return SimpleNamespace(opponent=opponent, optimal=optimal, judged=judged,
                               match=SimpleNamespace(score=score, losses=losses))

    tris2 = check_targets("tris2", [result("random", 0.95), result("greedy", 0.449),
                                             result("mcts:100", 0.6)])
    assert [met for _, met in tris2] == [True, False, True]  # SPEC 14's targets, inclusive
    assert tris2[1][0] == "score against greedy >= 45%: 44.9%"
    tant_fant = check_targets("tant_fant", [result("solver", 0.5, 1, 99, 100)])
    assert tant_fant == [("no loss against solver: 1 losses", False),
                         ("optimal moves >= 99%: 99.00%", True)]
    doppia = [result("random", 0.62), result("solver", 0.34)]
    assert [met for _, met in check_targets("doppia_scelta", doppia)] == [True, False]
    assert check_targets("tritoc", [])[0] == ("greedy: not played", None)


# ----- full runs (slow): the targets of the training issue ----------------------------------------
MISSED = pytest.mark.xfail(strict=True, reason="target missed with the shipped config; the "
                                               "README reports the figures reached")


@pytest.mark.slow
@pytest.mark.parametrize("game", [pytest.param(g, marks=MISSED)
                                  if g in ("tris2", "doppia_scelta", "tritoc") else g
                                  for g in GAMES])
def test_full_training_reaches_the_targets(game, tmp_path):
    run = train(shipped_config(game), tmp_path / "run", progress=False)
    report = target_report(run.final, game, n_games=400, seed=99)
    assert report and all(met for _, met in report), report


def test_evaluations_are_spread_over_the_run():
    from tris_envs.ppo.train import evaluation_after

    def evaluated(total: int, rollout: int, evaluations: int) -> list[int]:
        """The steps train() evaluates at, with rollouts of ``rollout`` steps."""
        steps, next_evaluation, points = 0, 0, []
        while True:
            if steps >= next_evaluation or steps >= total:
                points.append(steps)
                next_evaluation = evaluation_after(steps, total, evaluations)
            if steps >= total:
                return points
            steps += rollout

    assert evaluated(1000, 100, 10) == list(range(0, 1001, 100))
    assert evaluated(1_000_000, 2048, 10)[:3] == [0, 100_352, 200_704]
    assert len(evaluated(1_000_000, 2048, 10)) == 11
    assert evaluated(500, 256, 10) == [0, 256, 512]     # at most one per rollout
    assert evaluated(300, 100, 1) == [0, 300]
