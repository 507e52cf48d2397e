"""``tris-envs bench --learner``: the learner's self-play search with mctx's own backups
and with the batched ones (:func:`tris_envs.alphazero.search.backward`).

Each timed call is one move's Gumbel search (:func:`~tris_envs.alphazero.learner.gumbel_search`,
``jax.jit``-compiled) for a batch of Tritoc positions, 20 random plies into their games,
with the shipped Tritoc network as the prior and the leaves' value (the learner's
self-play search without its root noise). At each simulation count the two searches run
in turn, ``rounds`` calls each, and each one's best call is kept; the two searches'
policies are compared too.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import mctx
import numpy as np

from tris_envs.agents.az_network import load
from tris_envs.agents.shipped import SHIPPED_DIR
from tris_envs.alphazero.jax_net import forward, input_of, params_of, policy_index
from tris_envs.alphazero.learner import gumbel_search, make_recurrent
from tris_envs.bench.jax_games import random_play
from tris_envs.games import make_game
from tris_envs.jax import make

SIMULATIONS = (32, 128, 256, 512)
GAME = "tritoc"
CONSIDERED = 16
"""Actions Gumbel's root considers (the later Tritoc stages' setting)."""


def searches(envs: int, simulations: int) -> dict[bool, Callable[[], Any]]:
    """For mctx's backups (``False``) and the batched ones (``True``): a function running
    one compiled search of ``simulations`` simulations for ``envs`` positions."""
    game, env = make_game(GAME), make(GAME)
    network = load(SHIPPED_DIR / f"az_{GAME}.npz", game)
    config = network.config
    params, index = params_of(network), jnp.asarray(policy_index(game))
    inputs = input_of(env, config.tactics, config.trap_planes)

    def net(params: Any, x: Any) -> Any:
        return forward(params, x, index, config.blocks)

    recurrent = make_recurrent(env, net, network.search.decisive, network.search.discount,
                               inputs)
    key = jax.random.PRNGKey(0)
    states = jax.jit(jax.vmap(env.init))(jax.random.split(key, envs))
    states, _ = random_play(env, envs, 20)(states, key)
    logits, value = net(params, inputs(states))
    root = mctx.RootFnOutput(prior_logits=logits, value=value, embedding=states)

    def compiled(batched: bool) -> Callable[[], Any]:
        search = jax.jit(lambda key: gumbel_search(
            params, key, root, recurrent, states.legal_action_mask, simulations,
            CONSIDERED, batched).action_weights)
        return lambda: jax.block_until_ready(search(key))

    return {batched: compiled(batched) for batched in (False, True)}


def run(simulations: Sequence[int] = SIMULATIONS, envs: int = 64, rounds: int = 3) -> str:
    """The Markdown table: per simulation count, the seconds of one search with either
    backups (the best of ``rounds`` calls), their ratio, and whether the policies agree."""
    lines = ["| simulations | mctx's backups, s | batched backups, s | speed-up | same policy |",
             "|---|---|---|---|---|"]
    for n in simulations:
        search = searches(envs, n)
        policies = {batched: np.asarray(call()) for batched, call in search.items()}
        best = {batched: float("inf") for batched in search}
        for _ in range(rounds):
            for batched, call in search.items():
                began = time.perf_counter()
                call()
                best[batched] = min(best[batched], time.perf_counter() - began)
        same = "yes" if np.array_equal(policies[False], policies[True]) else "**no**"
        lines.append(f"| {n:,} | {best[False]:.3f} | {best[True]:.3f} | "
                     f"{best[False] / best[True]:.1f}x | {same} |")
    lines.append(f"\none move's Gumbel search for {envs} {GAME} positions ({CONSIDERED} "
                 f"actions considered at the root), the shipped {GAME} network; best of "
                 f"{rounds} calls each, the two timed in turn; JAX {jax.__version__} on "
                 f"{jax.devices()[0].platform}, mctx {mctx.__version__}")
    return "\n".join(lines)
