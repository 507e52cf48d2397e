"""A network that does not see the dice roll (``hide_roll = true``, Tritoc): the moves of
different rolls never overlap, so the masked policy loses nothing; the input is the
observation with the roll planes zeroed, in NumPy and in JAX alike, so every roll of one
position gets one value; the header keeps the flag; the learner trains such a network and
its memory holds no roll; a game without a roll in its observation refuses the flag."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from tris_envs.agents.az_network import NetConfig, Network, load, save
from tris_envs.alphazero.train import Run, load_config
from tris_envs.games import GAMES, make_game

from checks import chance_nodes

ROLL_PLANES = list(GAMES["tritoc"].roll_planes)


@pytest.mark.parametrize("options", [{}, {"layout": "random", "dice": "equal"}])
def test_the_moves_of_different_rolls_never_overlap(options):
    game = make_game("tritoc", **options)
    nodes = chance_nodes(game, 6, seed=len(options))
    pairs = 0
    for state in nodes:
        masks = [game.legal_mask(game.apply(state, outcome)).astype(bool)
                 for outcome, _ in game.chance_outcomes(state)]
        for first, second in itertools.combinations(masks, 2):
            assert not (first & second).any()
            pairs += 1
    assert len(nodes) > 100 and pairs > 1000


def test_the_input_hides_only_the_roll_and_every_roll_gets_one_value():
    game = make_game("tritoc")
    weights = Network(game, NetConfig("tritoc", {}, 8, 1), rng=np.random.default_rng(3)).weights
    seeing = Network(game, NetConfig("tritoc", {}, 8, 1), weights)
    blind = Network(game, NetConfig("tritoc", {}, 8, 1, hide_roll=True), weights)
    state = chance_nodes(game, 1, seed=4)[12]
    rolled = [game.apply(state, outcome) for outcome, _ in game.chance_outcomes(state)]
    shown, hidden = seeing.inputs(rolled), blind.inputs(rolled)
    assert shown[..., ROLL_PLANES].any() and not hidden[..., ROLL_PLANES].any()
    others = [p for p in range(shown.shape[-1]) if p not in ROLL_PLANES]
    assert np.array_equal(shown[..., others], hidden[..., others])
    assert len(set(seeing(shown)[1].round(6))) > 1
    assert len(set(blind(hidden)[1].round(6))) == 1


def test_the_jax_input_hides_the_same_planes():
    import jax

    from tris_envs.alphazero.jax_net import input_of
    from tris_envs.jax import make

    game, env = make_game("tritoc"), make("tritoc")
    blind = Network(game, NetConfig("tritoc", {}, 4, 1, hide_roll=True))
    states = [game.apply(s, game.chance_outcomes(s)[-1][0])
              for s in chance_nodes(game, 2, seed=5)[::7]]
    jax_states = [env.from_core(s) for s in states]
    batch = jax.tree.map(lambda *x: np.stack(x), *jax_states)
    assert np.array_equal(np.asarray(input_of(env, hide_roll=True)(batch)),
                          blind.inputs(states))


def test_the_header_keeps_the_flag(tmp_path):
    game = make_game("tritoc")
    blind = save(Network(game, NetConfig("tritoc", {}, 4, 1, hide_roll=True)),
                 tmp_path / "blind.npz")
    seeing = save(Network(game, NetConfig("tritoc", {}, 4, 1)), tmp_path / "seeing.npz")
    assert load(blind, game).config.hide_roll and not load(seeing, game).config.hide_roll
    with np.load(seeing) as data:
        assert "hide_roll" not in str(data["__config__"])


def test_the_learner_trains_a_network_that_sees_no_roll(tmp_path):
    config = load_config(None, {"game": "tritoc", "hide_roll": True, "envs": 4, "steps": 2,
                                "simulations": 2, "considered": 2, "batch": 8, "width": 4,
                                "blocks": 1, "iterations": 1, "eval_games": 0})
    run = Run(config, tmp_path)
    *run.state, _ = run.step(*run.state)
    observations = np.asarray(run.state[4].samples.observation)
    assert observations.any() and not observations[..., ROLL_PLANES].any()
    network = run.network()
    assert network.config.hide_roll and network.shown is not None


@pytest.mark.parametrize("game", [g for g, spec in GAMES.items() if not spec.roll_planes])
def test_a_game_without_a_roll_refuses_the_flag(game):
    with pytest.raises(ValueError, match="shows no dice roll in its observation.*tritoc"):
        load_config(None, {"game": game, "hide_roll": True})
    with pytest.raises(ValueError, match="shows no dice roll"):
        Network(make_game(game), NetConfig(game, {}, 4, 1, hide_roll=True))
