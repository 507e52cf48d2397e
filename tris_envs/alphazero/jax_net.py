"""The network of :mod:`tris_envs.agents.az_network` as a pure JAX function, for training.

The parameters are the very weights dict that :func:`~tris_envs.agents.az_network.save`
writes (convolution kernels ``(3, 3, in, out)``, JAX's HWIO), as JAX arrays, so a network
trained here plays as ``az:<path>`` with NumPy alone, and a saved network can be trained
further. Needs ``pip install "tris_envs[jax]"``.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

from tris_envs.agents.az_network import (
    NetConfig,
    Network,
    shown_planes,
    tactic_planes,
    tactic_slots,
)
from tris_envs.agents.search_settings import SearchSettings
from tris_envs.core.game import Game
from tris_envs.games import game_spec
from tris_envs.jax import TrisEnv
from tris_envs.jax.base import Array, GameState

Params = dict[str, Array]
"""The network's weights by name (:func:`params_of`)."""


def policy_index(game: Game) -> np.ndarray:
    """For each action of ``game``, its position in the head's flat output (the game's
    :class:`~tris_envs.games.PolicyLayout`)."""
    height, width, _ = game.info.observation_shape
    return np.array(game_spec(game.info.name).policy.index(game.info.num_actions, height,
                                                           width), dtype=np.int32)


def params_of(network: Network) -> Params:
    """The network's weights as JAX arrays (what :func:`forward` takes)."""
    return {name: jnp.asarray(weights) for name, weights in network.weights.items()}


def network_of(params: Params, game: Game, config: NetConfig,
               search: SearchSettings | None = None) -> Network:
    """A NumPy :class:`Network` with ``params``' weights (to save or to play), played with
    ``search`` (``None``: the defaults)."""
    return Network(game, config, {name: np.asarray(jax.device_get(w), dtype=np.float32)
                                  for name, w in params.items()}, search=search)


def input_of(env: TrisEnv, tactics: bool = False, trap_planes: bool = False,
             hide_roll: bool = False) -> Callable[[GameState], Array]:
    """``states -> [N, H, W, C]``: the network's input for a batch of JAX game states, their
    observations (the roll planes zeros when ``hide_roll``, :attr:`NetConfig.hide_roll`)
    with the tactics planes of :attr:`NetConfig.tactics` (the game's ``winning_moves`` and
    ``handovers``, as the rules core's ``tactical_moves``) when ``tactics``, and then the
    trap planes of :attr:`NetConfig.trap_planes` (the game's ``trap_moves``) when
    ``trap_planes``: one call of the game's ``tactic_flags``."""
    shown = shown_planes(env.game) if hide_roll else None

    def observed(states: GameState) -> Array:
        return states.observation if shown is None else states.observation * shown

    if not tactics:
        return observed
    slots = tactic_slots(env.game)
    board = env.game.info.observation_shape[:2]
    flags_of = jax.vmap(lambda state: env.tactic_flags(state, trap_planes))

    def inputs(states: GameState) -> Array:
        return jnp.concatenate([observed(states).astype(jnp.float32),
                                tactic_planes(flags_of(states), slots, board, jnp)], axis=-1)

    return inputs


def _conv(x: Array, kernel: Array, bias: Array) -> Array:
    """"Same" 3x3 convolution of ``x`` ``[N, H, W, Cin]`` with an HWIO kernel ``[3, 3, Cin,
    Cout]`` and ``bias`` ``[Cout]`` (to ``[N, H, W, Cout]``), as one matrix
    product over the nine shifted copies of the board. On the CPU, XLA's own convolution
    is a little faster in one compiled training step but many times slower where the
    learner trains, inside a ``lax.scan`` over minibatches (JAX 0.10.2)."""
    n, h, w, c = x.shape
    padded = jnp.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    patches = jnp.concatenate([padded[:, i:i + h, j:j + w] for i in range(3)
                               for j in range(3)], axis=-1)
    return patches @ kernel.reshape(9 * c, -1) + bias


def forward(params: Params, observation: Array, index: Array,
            blocks: int) -> tuple[Array, Array]:
    """Policy logits ``[N, A]`` (unmasked) and values ``[N]`` in [-1, 1] of a batch of
    ``observation`` ``[N, H, W, C]``, each from its player to move's view: the same function
    of the weights as :meth:`Network.__call__`. ``index`` ``[A]`` is :func:`policy_index`."""
    x = jax.nn.relu(_conv(observation.astype(jnp.float32), params["stem.w"], params["stem.b"]))
    for i in range(blocks):
        y = jax.nn.relu(_conv(x, params[f"block{i}.w1"], params[f"block{i}.b1"]))
        x = jax.nn.relu(x + _conv(y, params[f"block{i}.w2"], params[f"block{i}.b2"]))
    n = x.shape[0]
    pooled = x.mean(axis=(1, 2))
    cells = (x @ params["policy.w"] + params["policy.b"]).reshape(n, -1)
    flat = jnp.concatenate([cells, pooled @ params["global.w"] + params["global.b"]], axis=1)
    hidden = jax.nn.relu(x.reshape(n, -1) @ params["value.w1"] + params["value.b1"])
    value = jnp.tanh(hidden @ params["value.w2"] + params["value.b2"])[:, 0]
    return flat[:, index], value
