"""The trained policies shipped in ``tris_envs/checkpoints``: small, playable by the ``ppo``
spec everywhere, and as strong as the README reports (``tris-envs evaluate --targets``)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
import torch

from tris_envs import cli
from tris_envs.agents import make_agent
from tris_envs.agents import ppo as ppo_module
from tris_envs.core.game import resolve_chance
from tris_envs.evaluation.targets import target_report
from tris_envs.games import make_game

torch.set_num_threads(1)

GAMES = ["tris2", "tris1", "tant_fant", "doppia_scelta", "tritoc"]
DATA = Path(__file__).resolve().parent / "data"


def plays_legal_games(agent, rules, games: int, rng: np.random.Generator) -> None:
    """``agent`` against itself, ``games`` games up to the game's move limit: every move
    legal."""
    for _ in range(games):
        state = resolve_chance(rules, rules.initial_state(rng), rng)
        for _ in range(rules.info.max_moves):
            if rules.is_terminal(state):
                break
            action = agent.act(rules, state)
            assert rules.legal_mask(state)[action]
            state = resolve_chance(rules, rules.apply(state, action), rng)


def sb3_policy(game: str) -> Path:
    """The Stable-Baselines3 policy shipped for ``game``."""
    return ppo_module.SHIPPED_DIR / f"{game}.pt"


@pytest.mark.parametrize("game", GAMES)
def test_shipped_policy_is_small_and_plays(game):
    rules = make_game(game)
    path = ppo_module.shipped_checkpoint(rules)
    assert path.stat().st_size <= 2 * 1024 * 1024
    rng = np.random.default_rng(0)
    agent = make_agent("ppo", rng)
    assert agent.name == "ppo"
    if path.suffix == ".pt":
        assert agent.policy_for(rules) is ppo_module.load_policy(path)
    plays_legal_games(agent, rules, 3, rng)


@pytest.mark.parametrize("game", GAMES)
def test_shipped_policy_plays_as_it_did_before_its_conversion(game):
    """``tests/data/shipped_ppo_probabilities.npz``: 32 positions per game (the mover's
    observation and legal mask, from random games) and the probabilities the shipped policies
    gave there when they were Stable-Baselines3 pickles; the weights-only files that replaced
    them load without trusting anything and give the same: bit for bit on the CPU that made
    the data, within float32 rounding (a relative 1e-5) on others, whose kernels add up in
    another order (seen: 4e-6 on an AMD EPYC)."""
    path = sb3_policy(game)
    saved = torch.load(path, weights_only=True)
    assert set(saved) == {"header", "state_dict"}
    assert json.loads(saved["header"])["game"] == game
    before = np.load(DATA / "shipped_ppo_probabilities.npz")
    observations, masks = before[f"{game}.observations"], before[f"{game}.masks"]
    policy = ppo_module.load_policy(path)
    probabilities = ppo_module.masked_probabilities(policy, observations, masks)
    np.testing.assert_allclose(probabilities, before[f"{game}.probabilities"], rtol=1e-5, atol=0)


def test_a_game_without_a_shipped_policy_is_named(tmp_path, monkeypatch):
    from tris_envs.agents import shipped

    (tmp_path / "tris1.pt").write_bytes(b"")
    monkeypatch.setattr(ppo_module, "SHIPPED_DIR", tmp_path)
    monkeypatch.setattr(shipped, "SHIPPED_DIR", tmp_path)
    with pytest.raises(FileNotFoundError, match=r"no trained policy is shipped for 'tant_fant' "
                                                r"\(shipped: tris1.pt\)"):
        ppo_module.shipped_checkpoint(make_game("tant_fant"))


def test_an_agent_keeps_its_policy_after_the_first_move(monkeypatch):
    import pickle

    loads = []
    real = ppo_module.load_policy
    monkeypatch.setattr(ppo_module, "load_policy",
                        lambda path, trust=False: loads.append(path) or real(path, trust))
    tris1, tant_fant = make_game("tris1"), make_game("tant_fant")
    agent = ppo_module.PPOAgent(sb3_policy("tris1"))
    for _ in range(5):
        agent.act(tris1, tris1.initial_state())
    assert len(loads) == 1                   # no path resolved nor stat-ed after the first move
    shipped = ppo_module.PPOAgent()          # the shipped policy of whichever game it plays
    assert shipped.policy_for(tris1) is real(sb3_policy("tris1"))
    assert shipped.policy_for(tant_fant) is real(sb3_policy("tant_fant"))
    assert shipped.policy_for(tris1) is real(sb3_policy("tris1"))
    pickled = pickle.dumps(agent)            # a copy for a worker carries the path, not the net
    assert len(pickled) < 10_000
    assert pickle.loads(pickled).act(tris1, tris1.initial_state()) == \
        agent.act(tris1, tris1.initial_state())


def test_command_line_evaluates_the_shipped_policy(capsys):
    cli.main(["eval", "tris1", "ppo", "random", "--games", "4"])
    assert capsys.readouterr().out.startswith("ppo vs random: ")


@pytest.mark.parametrize("path", sorted(ppo_module.SHIPPED_DIR.glob("ppo_*.npz")),
                         ids=lambda path: path.stem)
def test_a_board_policy_is_the_spec_ppo_of_its_options_and_plays_legal_games(path):
    """The JAX learner's policies: weights only, each the policy ``ppo`` plays under the
    options of its recipe, playing legal games there, with NumPy alone."""
    from tris_envs.alphazero.recipes import read_recipe

    rules = read_recipe(path.stem).game()
    assert ppo_module.shipped_checkpoint(rules) == path
    with np.load(path, allow_pickle=False) as saved:
        assert all(saved[name].dtype.kind in "fU" for name in saved.files)
    rng = np.random.default_rng(0)
    agent = make_agent("ppo", rng)
    plays_legal_games(agent, rules, 2, rng)


SB3_MISSED = {
    "tris2": "66.8% against random, 0.0% against greedy, 1.8% against mcts:100 (400 games)",
    "doppia_scelta": "54.8% against random, 27.3% against the solver (400 games)",
    "tritoc": "83.2% against greedy, 57.8% against mcts:100 (400 games)",
}
"""The Stable-Baselines3 policies that miss SPEC 14's targets, and their figures
(docs/training.md)."""


@pytest.mark.parametrize("game", [
    "tris1", "tant_fant",
    *[pytest.param(game, marks=[pytest.mark.slow, pytest.mark.xfail(strict=True, reason=why)])
      for game, why in SB3_MISSED.items()]])
def test_shipped_sb3_policy_reaches_the_targets(game):
    """The training table's figures (400 games, seed 0): Tris 1 and Tant Fant never lose to
    the solver with >= 99% optimal moves; the others miss SPEC 14's targets."""
    report = target_report(sb3_policy(game), game, n_games=400, seed=0)
    assert report and all(met for _, met in report), report
