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
