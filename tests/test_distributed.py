"""Ray as the engine across machines: the same results as local runs for the same seed.

One local Ray of 2 CPUs serves the whole module (started once: it takes seconds) and is shut
down at its end; the code under test finds it connected and leaves it open.
"""

from __future__ import annotations

import re
import sys
import threading

import pytest

from tris_envs.agents import RandomAgent
from tris_envs.distributed import INSTALL_HINT, ray_session
from tris_envs.evaluation import play_match, round_robin
from tris_envs.games import make_game

ray = pytest.importorskip("ray")


@pytest.fixture(scope="module")
def cluster():
    """The module's local Ray; yields its address (for commands run in other processes)."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             namespace="tris_envs_tests")
    yield ray.get_runtime_context().gcs_address
    ray.shutdown()


def test_play_match_on_ray_equals_the_local_run(cluster):
    game = make_game("tant_fant")
    local = play_match(game, "mcts:10", "random", n_games=6, seed=4, keep_records=True)
    remote = play_match(game, "mcts:10", "random", n_games=6, seed=4, keep_records=True,
                        ray=True)
    assert remote == local and len(remote.records) == 6
    assert ray.is_initialized(), "a connection made before the match is left open"


def test_round_robin_on_ray_equals_the_local_run(cluster):
    game = make_game("tris1")
    agents = ["random", "greedy", "mcts:10"]
    local = round_robin(game, agents, n_games=4, seed=2)
    remote = round_robin(game, agents, n_games=4, seed=2, ray=True)
    assert remote.matches == local.matches
    assert remote.to_markdown() == local.to_markdown()


def test_a_journal_written_on_ray_resumes_to_the_same_result(cluster, tmp_path):
    game = make_game("tris1")
    path = tmp_path / "games.jsonl"
    whole = play_match(game, "random", "mcts:10", n_games=6, seed=9, records=path, ray=True)
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:4]) + "\n")      # header and 3 of the 6 games
    resumed = play_match(game, "random", "mcts:10", n_games=6, seed=9, records=path,
                         resume=True, ray=True)
    assert resumed == whole == play_match(game, "random", "mcts:10", n_games=6, seed=9)


def test_ray_refuses_processes_and_agents_it_cannot_send(cluster):
    game = make_game("tris1")
    with pytest.raises(ValueError, match="leave processes at 1"):
        play_match(game, "random", "greedy", n_games=2, seed=0, processes=2, ray=True)
    agent = RandomAgent()
    agent.lock = threading.Lock()
    with pytest.raises(ValueError, match="agent 'random' cannot be sent to Ray workers"):
        play_match(game, agent, "greedy", n_games=2, seed=0, ray=True)


def test_without_ray_the_error_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(ImportError, match=re.escape(INSTALL_HINT)):
        with ray_session(True):
            pass
    with pytest.raises(ValueError, match="ray must be True or a cluster address"):
        with ray_session(""):
            pass


@pytest.mark.parametrize("command", [
    ["eval", "tant_fant", "random", "greedy", "--games", "4", "--seed", "3"],
    ["tournament", "tris1", "random", "greedy", "mcts:10", "--games", "2"],
])
def test_the_cli_prints_the_same_table_with_ray(cluster, command, capsys):
    from tris_envs import cli

    assert cli.main(command) == 0
    local = capsys.readouterr().out
    assert cli.main([*command, "--ray"]) == 0
    assert capsys.readouterr().out == local
    assert cli.main([*command, "--ray", cluster]) == 0     # the address given: same
    assert capsys.readouterr().out == local


def _learner(out, *extra):
    import subprocess

    command = [sys.executable, "training/alphazero.py", "--game", "tris1", "--out", str(out),
               "--iterations", "1", "--games", "4", "--simulations", "3", "--steps", "2",
               "--eval-games", "2", "--opponents", "random", "--workers", "2", "--quiet",
               *extra]
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


def test_a_self_play_actor_plays_the_games_of_a_local_self_play(cluster):
    """The fast check of the learner's Ray path: weights through the object store to a
    :class:`SelfPlayWorker` actor give the games :func:`self_play` gives here."""
    import numpy as np

    from tris_envs.alphazero.network import NetConfig, Network
    from tris_envs.alphazero.selfplay import SelfPlayConfig, SelfPlayWorker, self_play

    game, search = make_game("tris1"), SelfPlayConfig(3, sampled_plies=2)
    network = Network(game, NetConfig("tris1", {}, width=4, blocks=1),
                      rng=np.random.default_rng(0))
    actor = ray.remote(num_cpus=1)(SelfPlayWorker).remote(game, search)
    samples, results = ray.get(actor.play.remote(ray.put(network.weights), network.config,
                                                 2, 7))
    ray.kill(actor)
    local_samples, local_results = self_play(game, network, 2, search,
                                             np.random.default_rng(7))
    assert results == local_results and len(samples) == len(local_samples) > 0
    for sample, local in zip(samples, local_samples):
        assert np.array_equal(sample.observation, local.observation)
        assert np.array_equal(sample.policy, local.policy) and sample.value == local.value


@pytest.mark.slow
def test_the_learner_on_ray_actors_equals_its_local_run(cluster, tmp_path):
    """Local worker processes and Ray actors (the command joins the module's Ray at its
    address) play the same games: the same progress and the same network."""
    import numpy as np

    local, remote = _learner(tmp_path / "local"), _learner(tmp_path / "ray", "--ray", cluster)
    assert local.returncode == 0 and remote.returncode == 0, local.stderr + remote.stderr
    rows = {}
    for run in ("local", "ray"):
        lines = (tmp_path / run / "progress.csv").read_text().splitlines()
        rows[run] = [line.split(",")[:1] + line.split(",")[2:] for line in lines]  # no seconds
    assert rows["ray"] == rows["local"]
    with np.load(tmp_path / "local" / "final.npz") as a, np.load(tmp_path / "ray" /
                                                                 "final.npz") as b:
        assert sorted(a.files) == sorted(b.files)
        assert all(np.array_equal(a[name], b[name]) for name in a.files)


def test_the_learner_on_ray_needs_two_workers(tmp_path):
    result = _learner(tmp_path / "run", "--ray", "--workers", "1")
    assert result.returncode == 2 and "needs workers=2 or more" in result.stderr
