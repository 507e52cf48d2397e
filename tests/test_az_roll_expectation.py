"""The learner's search leaves valued over every roll (``expect_roll = true``, Tritoc): a
leaf's value is the rules core's law of the roll times the network's value of each rolled
position, its priors those of the roll its node drew; the learner trains with it; a game
without a roll, or a network that sees none, refuses the flag."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("mctx")

from tris_envs.alphazero.learner import make_recurrent  # noqa: E402
from tris_envs.alphazero.train import Run, load_config  # noqa: E402
from tris_envs.core.game import CHANCE, TERMINAL  # noqa: E402
from tris_envs.games import GAMES, make_game  # noqa: E402
from tris_envs.games.tritoc import MUST_PASS, SUMS  # noqa: E402
from tris_envs.jax import make  # noqa: E402

from checks import random_playouts  # noqa: E402

ROLL_PLANES = list(GAMES["tritoc"].roll_planes)
WORTH = dict(zip(SUMS, np.linspace(-0.9, 0.9, len(SUMS)))) | {MUST_PASS: 0.0}
"""The fake network's value of a position by its roll (the roll planes show the sums)."""


def network(params, observation):
    """Values ``WORTH[roll]`` and logits that name the roll (``roll * 10`` on every action)."""
    shown = np.asarray(observation)[:, 0, 0, ROLL_PLANES].astype(np.float32)     # [N, 11]
    values = shown @ np.array([WORTH[s] for s in SUMS], np.float32)
    rolls = shown @ np.array(SUMS, np.float32) + MUST_PASS * (shown.sum(-1) == 0)
    return np.repeat(rolls[:, None] * 10, 82, -1), values


def leaves(expect_roll: bool):
    """The recurrent's output after a legal move from 16 positions of random games, and per
    position the core's chance node that the move leads to and the roll the JAX step drew."""
    env, game = make("tritoc"), make_game("tritoc")
    seen: list = []
    random_playouts(game, 2, 3, check=lambda _, state: seen.append(state)
                    if game.current_player(state) not in (CHANCE, TERMINAL) else None)
    positions = seen[::len(seen) // 16][:16]
    actions = np.array([np.flatnonzero(game.legal_mask(state))[-1] for state in positions])
    states = jax.tree_util.tree_map(lambda *x: np.stack(x),
                                    *[env.from_core(state) for state in positions])
    recurrent = make_recurrent(env, network, expect_roll=expect_roll)
    out, children = recurrent(None, jax.random.PRNGKey(1), actions, states)
    nodes = [game.apply(state, int(action)) for state, action in zip(positions, actions)]
    return out, nodes, np.asarray(children._roll).astype(int)


def test_a_leaf_is_worth_the_laws_expectation_over_the_rolls():
    game = make_game("tritoc")
    out, nodes, drawn = leaves(expect_roll=True)
    expected = [sum(p * WORTH[roll] for roll, p in game.chance_outcomes(node))
                if game.current_player(node) == CHANCE else 0.0 for node in nodes]
    assert np.allclose(np.asarray(out.value), expected, atol=1e-5)
    # the priors are the drawn roll's, masked to its moves
    logits = np.asarray(out.prior_logits)
    assert all((row[row > -1e8] == roll * 10).all() for row, roll in zip(logits, drawn))
    assert len(set(drawn)) > 3 and len({round(v, 4) for v in expected}) > 3


def test_without_it_a_leaf_is_worth_its_drawn_roll():
    out, _, drawn = leaves(expect_roll=False)
    assert np.allclose(np.asarray(out.value), [WORTH[roll] for roll in drawn], atol=1e-6)


def test_the_learner_trains_with_leaves_valued_over_every_roll(tmp_path):
    settings = {"game": "tritoc", "envs": 4, "steps": 2, "simulations": 4, "considered": 2,
                "batch": 8, "width": 4, "blocks": 1, "iterations": 1, "eval_games": 0}
    policies = []
    for expect_roll in (False, True):
        run = Run(load_config(None, settings | {"expect_roll": expect_roll}),
                  tmp_path / str(expect_roll))
        *run.state, _ = run.step(*run.state)
        policies.append(np.asarray(run.state[4].samples.policy))
    assert np.isfinite(policies[1]).all() and not np.allclose(*policies)


@pytest.mark.parametrize("game", [g for g, spec in GAMES.items() if not spec.roll_planes])
def test_a_game_without_a_roll_refuses_the_flag(game):
    with pytest.raises(ValueError, match="expect_roll = true: .* shows no dice roll.*tritoc"):
        load_config(None, {"game": game, "expect_roll": True})


def test_a_network_that_sees_no_roll_refuses_it():
    with pytest.raises(ValueError, match="every roll one value"):
        load_config(None, {"game": "tritoc", "expect_roll": True, "hide_roll": True})


def test_every_game_with_a_roll_has_its_outcomes_in_jax():
    for name, spec in GAMES.items():
        assert (spec.roll_planes != ()) == hasattr(make(name), "roll_outcomes"), name
