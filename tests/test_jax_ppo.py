"""PPO in JAX (``tris-envs train jax-ppo``, :mod:`tris_envs.ppo.jax_ppo`): negamax
advantages on scripted plies, tiny runs of every game whose networks the ``ppo`` agents
play, ``--resume`` bit for bit, and the settings only one algorithm reads refused."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("optax")

import jax.numpy as jnp

from tris_envs.agents import make_agent
from tris_envs.agents.az_network import load
from tris_envs.alphazero.train import load_config, train
from tris_envs.cli import main as cli_main
from tris_envs.evaluation import play_match
from tris_envs.games import GAMES
from tris_envs.ppo.jax_ppo import PPO, Ply, advantages, scripted_seats

TINY_FLAGS = ["--game", "tris1", "--envs", "4", "--steps", "4", "--batch", "8", "--width",
              "4", "--blocks", "1", "--iterations", "3", "--checkpoint-every", "2",
              "--eval-games", "2", "--opponents", "random"]


def arrays(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as data:
        return {name: data[name] for name in data.files}


def plies(reward: list[float], done: list[bool], value: list[float]) -> Ply:
    """One game's plies (a batch of one), only what the advantages read filled in."""
    column = lambda xs: jnp.asarray(xs, jnp.float32)[:, None]  # noqa: E731
    zeros = column([0.0] * len(reward))
    return Ply(zeros, zeros, zeros, zeros, column(value), column(reward),
               column([float(d) for d in done]), zeros)


def test_the_advantage_changes_sign_with_the_mover():
    """Three plies, the third wins for its mover (reward +1): gamma = lambda = 1, every
    value 0. The winner's plies (1st and 3rd) gain +1, the loser's (2nd) -1; the value
    targets are the movers' results."""
    advantage, target = advantages(plies([0, 0, 1], [False, False, True], [0, 0, 0]),
                                   jnp.zeros(1), discount=1.0, gae_lambda=1.0)
    assert advantage[:, 0].tolist() == [1.0, -1.0, 1.0]
    assert target[:, 0].tolist() == [1.0, -1.0, 1.0]


def test_the_advantage_bootstraps_from_the_next_movers_value():
    """One ply of a game still going: its advantage is minus the next mover's value (0.5)
    less its own (0.25), discounted; a finished game's ply does not look past its end."""
    advantage, _ = advantages(plies([0], [False], [0.25]), jnp.full(1, 0.5), discount=0.9,
                              gae_lambda=0.95)
    assert advantage[0, 0] == pytest.approx(-0.9 * 0.5 - 0.25)
    advantage, _ = advantages(plies([-1], [True], [0.25]), jnp.full(1, 0.5), discount=0.9,
                              gae_lambda=0.95)
    assert advantage[0, 0] == pytest.approx(-1.25)


def test_the_scripted_seats_fill_their_shares_of_the_slots_seats_alternating():
    greedy, random = scripted_seats(PPO(envs=8, steps=1, batch=8, epochs=1, greedy=0.25,
                                        random=0.5))
    assert greedy.tolist() == [0, 1, -1, -1, -1, -1, -1, -1]
    assert random.tolist() == [-1, -1, 0, 1, 0, 1, -1, -1]


@pytest.mark.parametrize("name", [n for n in GAMES if n != "tris1"])
def test_two_updates_of_every_game_save_a_network_the_ppo_agents_play(name, tmp_path):
    options = {"max_moves": 24} if name != "tris2" else {"max_moves": 24, "max_side": 4}
    greedy = 0.5 if name == "tris2" else 0.0
    config = load_config(None, {"game": name, "algorithm": "ppo", "envs": 4, "steps": 4,
                                "batch": 8, "width": 4, "blocks": 1, "iterations": 2,
                                "eval_games": 2, "opponents": ["random"], "options": options,
                                "greedy": greedy, "random": 0.25, "tactics": name == "tris2"})
    final = train(config, tmp_path, quiet=True)
    game = GAMES[name].make(**options)
    assert load(final, game).config.tactics == (name == "tris2")
    agent = make_agent(f"ppo:{final}")
    assert play_match(game, agent, "random", n_games=2, seed=0).n_games == 2


def test_a_run_stopped_at_its_budget_resumes_bit_for_bit(tmp_path):
    straight, out = tmp_path / "straight", tmp_path / "run"
    assert cli_main(["train", "jax-ppo", *TINY_FLAGS, "--out", str(straight), "--quiet"]) == 0
    result = subprocess.run([sys.executable, "-m", "tris_envs.cli", "train", "jax-ppo",
                             *TINY_FLAGS, "--out", str(out), "--minutes", "1e-6"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "stopped at the budget" in result.stdout
    assert f"(play it with ppo:{out / 'final.npz'})" in result.stdout
    assert cli_main(["train", "az", "--resume", str(out), "--quiet"]) == 0
    reference, again = arrays(straight / "final.npz"), arrays(out / "final.npz")
    assert again.keys() == reference.keys()
    assert all(np.array_equal(again[k], v) for k, v in reference.items())


@pytest.mark.parametrize("settings, said", [
    ({"algorithm": "ppo", "simulations": 64}, "simulations = 64: algorithm = 'ppo' does not "
                                              "read it"),
    ({"algorithm": "ppo", "decisive": True}, "decisive = True: algorithm = 'ppo'"),
    ({"clip": 0.1}, "clip = 0.1: algorithm = 'az' does not read it"),
    ({"algorithm": "ppo", "greedy": 0.75, "random": 0.5}, "add up to more than 1"),
    ({"algorithm": "sac"}, "algorithm"),
])
def test_a_setting_the_algorithm_does_not_read_is_refused(settings, said):
    with pytest.raises(ValueError, match=said):
        load_config(None, {"game": "tris2", **settings})
