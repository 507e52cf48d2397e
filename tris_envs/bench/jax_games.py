"""``tris-envs bench --jax``: steps per second of the JAX games, next to Pgx's games.

Every game plays uniformly random legal moves in batches of 1, 64 and 1,024 (``jax.vmap``),
``length`` steps per call inside one ``jax.lax.scan`` (finished games restart at once),
the whole call ``jax.jit``-compiled. Compilation is timed apart; the best timed call is
kept. Pgx's ``tic_tac_toe`` and ``connect_four`` run the same loop in the same process, and
each game's figure at the largest batch is also given as a ratio to Pgx's ``tic_tac_toe``
there, all games being timed in turn at that batch, the order alternating from one round
to the next (:func:`tris_envs.bench.fair.schedule`), each game playing from a key of its
own (:func:`run`). Every step draws a fresh
start state for every game and keeps it where the game has just ended (as Pgx's
``auto_reset`` does), so ``init`` counts; Doppia scelta also runs on one fixed board, where
``init`` draws nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import pgx

from tris_envs.bench.fair import provenance, schedule
from tris_envs.jax import GAMES, make, restart

BATCHES = (1, 64, 1024)
PGX_GAMES = ("tic_tac_toe", "connect_four")
FIXED_BOARD = "YGRGY/GGRYY/RRGGY/YYGGR/GRYGR"
"""Doppia scelta's extra row: one fixed board, so ``init`` draws nothing and the row shows
what the random boards' redraw walk costs."""


def uniform_legal(key: Any, mask: Any) -> Any:
    """A uniformly random legal action per row of ``mask`` from one uniform number per row
    (a categorical draw needs one per action: 81 for Tant Fant, and the random numbers
    would cost more than the game).

    The ``n``-th legal action is found on the mask packed into 32-bit words: the word
    from the words' running population counts, then the bit inside it by a binary search
    over population counts of its low bits (five steps). Running counts over the whole
    mask (cumsum, or a product with a triangular matrix) cost more than Tant Fant's or
    Tris 2's step on CPU."""
    actions, lead = mask.shape[-1], mask.shape[:-1]
    words = -(-actions // 32)
    bits = jnp.pad(mask, [(0, 0)] * len(lead) + [(0, words * 32 - actions)])
    powers = jnp.left_shift(jnp.uint32(1), jnp.arange(32, dtype=jnp.uint32))
    packed = jnp.sum(jnp.where(bits.reshape(lead + (words, 32)), powers, jnp.uint32(0)), -1,
                     dtype=jnp.uint32)
    counts = jax.lax.population_count(packed).astype(jnp.int32)
    nth = jnp.floor(jax.random.uniform(key, lead) * counts.sum(-1)).astype(jnp.int32)
    index = jnp.arange(words)
    running = counts @ (index[:, None] <= index).astype(jnp.int32)
    word = jnp.sum(running <= nth[..., None], -1)
    rank = nth - jnp.sum(jnp.where(index < word[..., None], counts, 0), -1)
    chosen = jnp.sum(jnp.where(index == word[..., None], packed, jnp.uint32(0)), -1,
                     dtype=jnp.uint32)
    bit = jnp.zeros(lead, jnp.int32)
    for half in (16, 8, 4, 2, 1):
        below = chosen & (jnp.left_shift(jnp.uint32(1), (bit + half).astype(jnp.uint32))
                          - jnp.uint32(1))
        bit = jnp.where(jax.lax.population_count(below).astype(jnp.int32) <= rank,
                        bit + half, bit)
    return word * 32 + bit


def random_play(env: Any, batch: int, length: int) -> Callable[[Any, Any], Any]:
    """A compiled ``(state, key) -> (state, key)`` playing ``length`` uniformly random
    legal steps in each of ``batch`` games, restarting every game that ends. Every step
    gets a key per game (Tritoc rolls the next player's dice inside ``step``)."""
    init, step = jax.vmap(env.init), jax.vmap(env.step)

    def one_step(carry: tuple[Any, Any], _: Any) -> tuple[tuple[Any, Any], None]:
        state, key = carry
        key, choose, chance, again = jax.random.split(key, 4)
        state = step(state, uniform_legal(choose, state.legal_action_mask),
                     jax.random.split(chance, batch))
        fresh = init(jax.random.split(again, batch))
        return (restart(state.terminated | state.truncated, fresh, state), key), None

    @jax.jit
    def run(state: Any, key: Any) -> Any:
        return jax.lax.scan(one_step, (state, key), None, length)[0]

    return run


def timer(env: Any, batch: int, length: int, seed: int = 0
          ) -> tuple[float, Callable[[], float]]:
    """(compile seconds, a function timing one more call of :func:`random_play` in seconds,
    each call going on from the last one's games and key; the first games and key drawn
    from ``seed``)."""
    key = jax.random.PRNGKey(seed)
    state = jax.jit(jax.vmap(env.init))(jax.random.split(key, batch))
    run = random_play(env, batch, length)
    began = time.perf_counter()
    carry = [jax.block_until_ready(run(state, key))]
    compile_seconds = time.perf_counter() - began

    def timed() -> float:
        began = time.perf_counter()
        carry[0] = jax.block_until_ready(run(*carry[0]))
        return time.perf_counter() - began

    return compile_seconds, timed


def measure(env: Any, batch: int, length: int, rounds: int) -> tuple[float, float]:
    """(compile seconds, steps per second) of :func:`random_play`, the best of ``rounds``
    timed calls."""
    compile_seconds, timed = timer(env, batch, length)
    return compile_seconds, batch * length / min(timed() for _ in range(rounds))


def run(batches: Sequence[int] = BATCHES, length: int = 100, rounds: int = 3,
        ratio_rounds: int = 20) -> str:
    """The Markdown table of steps/s per game and batch, compile times, and the ratios.

    Below the largest batch each game is timed on its own, the best of ``rounds`` calls.
    At the largest batch, where the ratios are taken, the games are timed in turn,
    ``ratio_rounds`` calls each, and each game's best call is kept: every game, Pgx's
    included, is then timed across the same stretch of time, so other load on the
    machine moves the ratios less than when one game is timed after the other. The order
    alternates from one round to the next (:func:`~tris_envs.bench.fair.schedule`) and each
    game plays from a key of its own (its row's index). The table ends with its line of
    provenance."""
    began = time.perf_counter()
    envs = {name: make(name) for name in GAMES} | {
        "doppia_scelta, fixed board": make("doppia_scelta", board=FIXED_BOARD)} | {
        f"pgx {name}": pgx.make(name) for name in PGX_GAMES}
    cells: dict[str, list[str]] = {label: [] for label in envs}
    compiles: dict[str, list[str]] = {label: [] for label in envs}
    *smaller, largest = batches
    for label, env in envs.items():
        for batch in smaller:
            compile_seconds, rate = measure(env, batch, length, rounds)
            cells[label].append(f"{rate:,.0f}")
            compiles[label].append(f"{compile_seconds:.1f}")
    timers = {}
    for seed, (label, env) in enumerate(envs.items()):
        compile_seconds, timers[label] = timer(env, largest, length, seed)
        compiles[label].append(f"{compile_seconds:.1f}")
    best = {label: float("inf") for label in envs}
    for _, label, _ in schedule(list(timers), ratio_rounds):
        best[label] = min(best[label], timers[label]())
    top = {label: largest * length / seconds for label, seconds in best.items()}
    reference = top["pgx tic_tac_toe"]
    header = ("| game | " + " | ".join(f"batch {b:,}" for b in batches)
              + f" | ratio to pgx tic_tac_toe at batch {largest:,} | compile s |")
    lines = [header, "|---" * (len(batches) + 3) + "|"]
    for label in envs:
        lines.append(f"| {label} | " + " | ".join(cells[label] + [f"{top[label]:,.0f}"])
                     + f" | {top[label] / reference:.2f}x | {' / '.join(compiles[label])} |")
    lines.append(f"\nsteps/s of random play ({length} steps per jitted scan; best of {rounds} "
                 f"calls, at batch {largest:,} best of {ratio_rounds} calls taken in turn "
                 f"with the other games, the order alternating; JAX {jax.__version__} on "
                 f"{jax.devices()[0].platform}, Pgx {pgx.__version__})")
    return "\n".join([*lines, "", provenance(began, 0)])
