"""AlphaZero-style self-play written entirely in JAX over ``tris_envs.jax`` and mctx.

``--envs`` games are played at once, every move chosen by an mctx Gumbel MuZero search of
``--simulations`` simulations whose model is the game's own JAX ``step`` (the network's
policy as prior, its value at the leaves, AlphaZero's Dirichlet noise mixed into the
prior at the root). The network, the MLP of ``jax_ppo.py``, learns
the search's improved policy (mctx's ``action_weights``) and the games' outcomes from the
view of the player to move (a draw, by repetition or by truncation, is 0), with Adam whose
learning rate falls from ``--lr`` to ``--lr-end`` (cosine). Self-play, the
targets and the training of one iteration run inside one jitted function. Afterwards the
network plays the rules core's games in the evaluation harness against the scripted
ladder, on its own (its most probable move) and through searches of ``--search``
simulations without Gumbel noise, with the PyTorch learners' targets.

Run: ``python examples/jax_az.py --game tant_fant`` (needs ``pip install "tris_envs[jax]"``
on Python 3.11 or newer, for mctx).
"""

from __future__ import annotations

import argparse
import time
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import mctx
import optax
from jax_ppo import JaxPolicy, SearchPolicy, forward, make_recurrent, new_network, report

from tris_envs.jax import make, restart


class Sample(NamedTuple):
    """One ply of self-play per game: what the mover saw, the search's improved policy, the
    mover's reward and whether the move ended the game."""

    observation: Any
    mask: Any
    policy: Any
    reward: Any
    done: Any


def value_targets(reward: Any, done: Any) -> tuple[Any, Any]:
    """The value target of every ply of a window (plies first, games second) and whether
    the ply's game ended inside the window (only those plies train the value).

    ``reward`` is the mover's reward, ``done`` whether the move ended the game. The target
    is the mover's final reward: the reward of the ply that ended the game, with the sign
    changing every ply before it."""
    def back(carry: tuple[Any, Any], ply: tuple[Any, Any]) -> tuple[tuple[Any, Any], Any]:
        later, ended = carry
        reward, done = ply
        target = jnp.where(done, reward, -later)
        ended = done | ended
        return (target, ended), (target, ended)

    start = (jnp.zeros(reward.shape[1:]), jnp.zeros(reward.shape[1:], bool))
    return jax.lax.scan(back, start, (reward, done), reverse=True)[1]


def make_iteration(env: Any, args: argparse.Namespace, optimiser: Any) -> Any:
    """The jitted ``(params, opt_state, states, key) -> (..., metrics)`` of one iteration:
    ``--steps`` plies of self-play in every game (finished games restart), then one pass of
    minibatch updates over all of them (the value only on plies whose game ended inside
    the window)."""
    init, step = jax.vmap(env.init), jax.vmap(env.step)
    recurrent = make_recurrent(env)

    def noisy(logits: Any, mask: Any, key: Any) -> Any:
        """AlphaZero's exploration at the root: the prior mixed with Dirichlet noise over
        the legal actions, ``--noise`` of it."""
        shares = jax.random.dirichlet(key, jnp.full(logits.shape, args.alpha)) * mask
        shares = shares / shares.sum(-1, keepdims=True)
        prior = (1 - args.noise) * jax.nn.softmax(logits) + args.noise * shares
        return jnp.where(mask, jnp.log(prior), -1e9)

    def play(carry: tuple[Any, Any, Any], _: Any) -> tuple[tuple[Any, Any, Any], Sample]:
        params, states, key = carry
        key, search, chance, again, noise = jax.random.split(key, 5)
        logits, value = forward(params, states.observation, states.legal_action_mask)
        root = mctx.RootFnOutput(prior_logits=noisy(logits, states.legal_action_mask, noise),
                                 value=value, embedding=states)
        policy = mctx.gumbel_muzero_policy(
            params, search, root, recurrent, args.simulations,
            invalid_actions=~states.legal_action_mask,
            qtransform=mctx.qtransform_completed_by_mix_value)
        player = states.current_player
        after = step(states, policy.action, jax.random.split(chance, args.envs))
        done = after.terminated | after.truncated
        reward = after.rewards[jnp.arange(args.envs), player]
        fresh = init(jax.random.split(again, args.envs))
        after = restart(done, fresh, after)
        return (params, after, key), Sample(
            states.observation, states.legal_action_mask, policy.action_weights, reward, done)

    def loss(params: Any, t: Sample, target: Any, ended: Any) -> Any:
        logits, value = forward(params, t.observation, t.mask)
        policy = optax.softmax_cross_entropy(logits, t.policy).mean()
        return policy + ((value - target) ** 2 * ended).sum() / jnp.maximum(ended.sum(), 1)

    @jax.jit
    def iteration(params: Any, opt_state: Any, states: Any, key: Any) -> tuple[Any, ...]:
        key, rollout, shuffle = jax.random.split(key, 3)
        (_, states, _), samples = jax.lax.scan(play, (params, states, rollout), None,
                                               args.steps)
        target, ended = value_targets(samples.reward, samples.done)
        size = args.steps * args.envs
        flat = jax.tree_util.tree_map(lambda x: x.reshape((size,) + x.shape[2:]),
                                      (samples, target, ended))
        order = jax.random.permutation(shuffle, size).reshape(-1, args.batch)

        def minibatch(carry: tuple[Any, Any], rows: Any) -> tuple[tuple[Any, Any], Any]:
            params, opt_state = carry
            value, grads = jax.value_and_grad(loss)(
                params, *jax.tree_util.tree_map(lambda x: x[rows], flat))
            changes, opt_state = optimiser.update(grads, opt_state)
            return (optax.apply_updates(params, changes), opt_state), value

        (params, opt_state), losses = jax.lax.scan(minibatch, (params, opt_state), order)
        return params, opt_state, states, key, samples.done.sum(), losses.mean()

    return iteration


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="tant_fant", choices=("tris1", "tant_fant"))
    parser.add_argument("--iterations", type=int, default=150)
    parser.add_argument("--envs", type=int, default=256, help="games played at once")
    parser.add_argument("--steps", type=int, default=32, help="plies per game per iteration")
    parser.add_argument("--simulations", type=int, default=32, help="per self-play move")
    parser.add_argument("--noise", type=float, default=0.25,
                        help="share of Dirichlet noise in the self-play root's prior")
    parser.add_argument("--alpha", type=float, default=0.3, help="of the Dirichlet noise")
    parser.add_argument("--batch", type=int, default=1024, help="plies per minibatch")
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--lr", type=float, default=1e-3, help="the first learning rate")
    parser.add_argument("--lr-end", type=float, default=1e-4, metavar="LR",
                        help="the last one (cosine decay from --lr)")
    parser.add_argument("--games", type=int, default=400, help="evaluation games per opponent")
    parser.add_argument("--search", type=int, nargs="*", default=[32, 64], metavar="N",
                        help="simulations of each evaluated search (none: the network only)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.envs * args.steps % args.batch:
        parser.error("--batch must divide --envs times --steps")

    env = make(args.game)
    updates = args.iterations * args.envs * args.steps // args.batch
    key, params, optimiser, opt_state, start = new_network(
        env, args, 1.0, optax.cosine_decay_schedule(args.lr, updates, args.lr_end / args.lr))
    states = jax.vmap(env.init)(jax.random.split(start, args.envs))
    iteration = make_iteration(env, args, optimiser)
    began = time.perf_counter()
    for k in range(1, args.iterations + 1):
        params, opt_state, states, key, games, loss = iteration(params, opt_state, states, key)
        if k % max(1, args.iterations // 10) == 0 or k == args.iterations:
            print(f"iteration {k:,}: {k * args.envs * args.steps:,} plies, {int(games):,} "
                  f"games ended in the last one, loss {float(loss):.3f}, "
                  f"{time.perf_counter() - began:.0f} s", flush=True)
    print(f"trained {args.iterations * args.envs * args.steps:,} plies in "
          f"{time.perf_counter() - began:.0f} s (JAX on {jax.devices()[0].platform})")
    report(args.game, [JaxPolicy(params, "jax-az")] + [
        SearchPolicy(env, params, simulations, "jax-az") for simulations in args.search],
        args.games, args.seed)


if __name__ == "__main__":
    main()
