"""``tris-envs bench --learner``: the AlphaZero learner's self-play throughput beside Pgx's
``connect_four``, and its self-play search with mctx's own backups and with the batched
ones (:func:`tris_envs.alphazero.search.backward`).

Throughput (:func:`throughput_report`): plies per second of whole iterations of
:func:`~tris_envs.alphazero.learner.make_iteration` (self-play and updates, ``jax.jit``-
compiled; compilation timed apart) on Tris 2 and Tritoc with their shipped networks' sizes
and first stages' self-play settings (:data:`CASES`), and of the same learner code on Pgx's
``connect_four`` with a network of the same size and settings: the network's trunk on its
6x7 board, one logit map whose top row gives the columns' logits. The iterations run in
turn, ``rounds`` each after one untimed, the order alternating from one round to the next
(:func:`tris_envs.bench.fair.schedule`), each row's games drawn from a seed of its own, and
each one's best is kept.

Backups (:func:`backups_report`): each timed call is one move's Gumbel search
(:func:`~tris_envs.alphazero.learner.gumbel_search`, ``jax.jit``-compiled) for a batch of
Tritoc positions, 20 random plies into their games, with the shipped Tritoc network as the
prior and the leaves' value (the learner's self-play search without its root noise). At
each simulation count the two searches run in turn (the order alternating), ``rounds`` calls
each, and each one's best call is kept; the two searches' policies are compared too.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, cast

import jax
import jax.numpy as jnp
import mctx
import numpy as np
import optax
import pgx

from tris_envs.agents.az_network import NetConfig, Network, initial_weights, load
from tris_envs.agents.shipped import SHIPPED_DIR
from tris_envs.alphazero.jax_net import Params, forward, input_of, params_of, policy_index
from tris_envs.alphazero.learner import (
    Search,
    gumbel_search,
    make_iteration,
    make_recurrent,
    new_memory,
)
from tris_envs.alphazero.train import Config
from tris_envs.bench.fair import schedule
from tris_envs.bench.jax_games import random_play
from tris_envs.core.game import Game
from tris_envs.core.policy import PolicyLayout
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


def backups_report(simulations: Sequence[int] = SIMULATIONS, envs: int = 64,
                   rounds: int = 3) -> list[str]:
    """Markdown lines: per simulation count, the seconds of one search with either backups
    (the best of ``rounds`` calls), their ratio, and whether the policies agree."""
    lines = ["| simulations | mctx's backups, s | batched backups, s | speed-up | same policy |",
             "|---|---|---|---|---|"]
    for n in simulations:
        search = searches(envs, n)
        policies = {batched: np.asarray(call()) for batched, call in search.items()}
        best = {batched: float("inf") for batched in search}
        for _, batched, _ in schedule(list(search), rounds):
            began = time.perf_counter()
            search[batched]()
            best[batched] = min(best[batched], time.perf_counter() - began)
        same = "yes" if np.array_equal(policies[False], policies[True]) else "**no**"
        lines.append(f"| {n:,} | {best[False]:.3f} | {best[True]:.3f} | "
                     f"{best[False] / best[True]:.1f}x | {same} |")
    lines.append(f"\none move's Gumbel search for {envs} {GAME} positions ({CONSIDERED} "
                 f"actions considered at the root), the shipped {GAME} network; best of "
                 f"{rounds} calls each, the two timed in turn, the order alternating; "
                 f"JAX {jax.__version__} on {jax.devices()[0].platform}, mctx {mctx.__version__}")
    return lines


ENVS, STEPS = 64, 32
"""Games of a learner's iteration and the plies of each (the shipped configs' sizes)."""


@dataclass(frozen=True)
class Case:
    """One of our games' rows of :func:`throughput_report`: the network's size and the
    self-play settings of a shipped network's stage; Pgx's ``connect_four`` runs the same
    settings (less ``decisive``, which needs the game's ``winning_moves``) with a network
    of the same size."""

    label: str
    game: str
    width: int
    blocks: int
    epochs: int
    decisive: bool = False
    tactics: bool = False

    def search(self, envs: int, steps: int, decisive: bool, tactics: bool) -> Search:
        """The learner's settings: ``envs`` games of ``steps`` plies, 16 simulations a
        move, 8 actions considered, minibatches of 512 (at most an iteration's plies) from
        the last 4 iterations' plies, ``epochs`` passes, ``decisive`` and ``tactics`` as
        given, the rest the learner's defaults."""
        config = Config(game=self.game, envs=envs, steps=steps, simulations=16,
                        considered=8, batch=min(512, envs * steps), epochs=self.epochs,
                        replay=4, width=self.width, blocks=self.blocks, decisive=decisive,
                        tactics=tactics)
        return Search(**{name: getattr(config, name) for name in Search._fields})


CASES = (
    Case("tris2", "tris2", 16, 2, epochs=2, decisive=True),
    Case("tris2, tactics planes", "tris2", 16, 2, epochs=2, decisive=True, tactics=True),
    Case("tritoc", "tritoc", 32, 2, epochs=4),
)
"""The rows: Tris 2's first stage and its second (the shipped network's input, with the
tactics planes), Tritoc's first stage."""

PGX_GAME = "connect_four"
THROUGHPUT_TARGET = 0.6
"""Target: our plies per second at least this share of ``connect_four``'s (issue 67)."""


def connect_four_params(width: int, blocks: int, rng: np.random.Generator) -> Params:
    """A random network for Pgx's ``connect_four`` (``[6, 7, 2]`` observations) of
    ``width`` channels and ``blocks`` blocks: :meth:`NetConfig.shapes` of a game whose
    policy head has one logit map and no global logits (Tris 1's layout) on that board."""
    board = cast(Game, SimpleNamespace(info=SimpleNamespace(observation_shape=(6, 7, 2))))
    shapes = NetConfig("tris1", {}, width, blocks).shapes(board)
    return {name: jnp.asarray(w) for name, w in initial_weights(shapes, rng).items()}


CONNECT_FOUR_INDEX = PolicyLayout(1, 0, lambda action: (0, action, 0)).index(7, 6, 7)
"""``connect_four``'s columns in the head's flat output: each column's top cell."""


def iteration_timer(env: Any, params: Params, index: Any, search: Search,
                    blocks: int, seed: int = 0) -> tuple[float, Callable[[], float]]:
    """The seconds compiling :func:`make_iteration` for ``env`` took, and a function that
    runs one more iteration (the games, memory and network carried on from the last) and
    returns its seconds. The games and keys are drawn from ``seed``; one iteration runs
    untimed first."""
    optimiser = optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(1e-3))
    key, start = jax.random.split(jax.random.PRNGKey(seed))
    states = jax.vmap(env.init)(jax.random.split(start, search.envs))
    carry = (params, optimiser.init(params), states, key, new_memory(env, search))
    began = time.perf_counter()
    jitted = cast(Any, make_iteration(env, search, optimiser, index, blocks))  # a jax.jit
    iteration = jitted.lower(*carry).compile()
    compiled = time.perf_counter() - began

    def timed() -> float:
        nonlocal carry
        began = time.perf_counter()
        carry = jax.block_until_ready(iteration(*carry))[:5]
        return time.perf_counter() - began

    timed()
    return compiled, timed


def throughput_report(cases: Sequence[Case] = CASES, rounds: int = 3, envs: int = ENVS,
                      steps: int = STEPS) -> list[str]:
    """Markdown lines: per :data:`CASES` row, and per ``connect_four`` network of the same
    size and epochs, the seconds compiling an iteration (``envs`` games of ``steps``
    plies), the best of ``rounds`` iterations and its plies per second; our rows' ratio to
    their ``connect_four`` row, against :data:`THROUGHPUT_TARGET`."""
    rng = np.random.default_rng(0)
    rows: dict[tuple[str, int, int, int], tuple[float, Callable[[], float]]] = {}
    beside = {}
    for case in cases:
        game = make_game(case.game)
        params = params_of(Network(game, NetConfig(case.game, {}, case.width, case.blocks,
                                                   case.tactics), rng=rng))
        ours = (case.label, case.width, case.blocks, case.epochs)
        rows[ours] = iteration_timer(make(case.game), params, policy_index(game),
                                     case.search(envs, steps, case.decisive, case.tactics),
                                     case.blocks, seed=len(rows))
        beside[ours] = theirs = (f"Pgx {PGX_GAME}", case.width, case.blocks, case.epochs)
        if theirs not in rows:
            rows[theirs] = iteration_timer(
                pgx.make(PGX_GAME), connect_four_params(case.width, case.blocks, rng),
                CONNECT_FOUR_INDEX, case.search(envs, steps, False, False), case.blocks,
                seed=len(rows))
    best = dict.fromkeys(rows, float("inf"))
    for _, row, _ in schedule(list(rows), rounds):
        best[row] = min(best[row], rows[row][1]())
    plies = envs * steps
    lines = ["| game | network | epochs | compile, s | iteration, s | plies/s "
             "| ratio to connect_four | target |", "|---|---|---:|---:|---:|---:|---:|---|"]
    for row, (compiled, _) in rows.items():
        label, width, blocks, epochs = row
        ratio = verdict = ""
        if row in beside:
            share = best[beside[row]] / best[row]
            ratio = f"{share:.2f}×"
            met = "met" if share >= THROUGHPUT_TARGET else "NOT met"
            verdict = f"≥ {THROUGHPUT_TARGET:g}× {met}"
        lines.append(f"| {label} | {width} × {blocks} | {epochs} | {compiled:.1f} | "
                     f"{best[row]:.3f} | {plies / best[row]:,.0f} | {ratio} | {verdict} |")
    lines.append(f"\none iteration of the learner (self-play and updates): {plies:,} plies "
                 f"({envs} games x {steps}), 16 simulations a move, minibatches from the last "
                 f"4 iterations' plies; best of {rounds} after one untimed, the rows in turn, "
                 f"the order alternating; {PGX_GAME} without decisive; JAX {jax.__version__} on "
                 f"{jax.devices()[0].platform}, Pgx {pgx.__version__}")
    return lines


def run(rounds: int = 3) -> str:
    """The Markdown report: :func:`throughput_report`, then :func:`backups_report`."""
    return "\n".join(throughput_report(rounds=rounds) + [""] + backups_report(rounds=rounds))
