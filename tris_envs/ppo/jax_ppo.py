"""PPO in JAX over :mod:`tris_envs.jax`: the fastest model-free learner shipped.

Every game of a batch steps inside one jitted update (PureJaxRL's shape): the rollout, the
advantages and every PPO epoch run in JAX, so the games never leave it. The network is the
board network of :mod:`tris_envs.agents.az_network` (a residual trunk with the policy laid
on the action grid), trained here with no search, and the run around it is the AlphaZero
learner's (:mod:`tris_envs.alphazero.train` with ``learner = "ppo"``: configs, checkpoints,
``--resume``, evaluations, ``final.npz``). The ``ppo`` agents play the result, its most
probable legal move (:class:`~tris_envs.agents.ppo.PPOAgent`).

Values are from the view of the player to move, so the advantage recursion changes sign
every ply (negamax GAE: ``A_t = delta_t - gamma * lambda * A_{t+1}``, ``delta_t = r_t -
gamma * V(s_{t+1}) - V(s_t)``). One network plays both seats; in a share of the games one
seat is the ``greedy`` rung (where the JAX game has its one-move tactics: Tris 2) or a
uniformly random player, whose moves train the value alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import optax
from jax.typing import ArrayLike

from tris_envs.alphazero.jax_net import forward, input_of
from tris_envs.alphazero.learner import Metrics, greedy_moves, minibatch_steps
from tris_envs.jax import TrisEnv, restart
from tris_envs.jax.base import Array, GameState, PRNGKey

Params = dict[str, Array]


class PPO(NamedTuple):
    """The settings of :func:`make_update` (the keys of the learner's config of the same
    names, :class:`tris_envs.alphazero.train.Config`).

    Attributes:
        envs: Games played at once.
        steps: Plies of each game per update.
        batch: Plies per minibatch (a divisor of ``envs * steps``).
        epochs: Passes over an update's plies.
        discount: PPO's gamma, per ply.
        gae_lambda: GAE's lambda.
        clip: The policy ratio's clip.
        entropy: Weight of the entropy bonus.
        value_coef: Weight of the value loss.
        tactics: The network's input has the tactics planes
            (:attr:`~tris_envs.agents.az_network.NetConfig.tactics`).
        trap_planes: And the trap planes after them
            (:attr:`~tris_envs.agents.az_network.NetConfig.trap_planes`).
        hide_roll: The input's roll planes are zeros
            (:attr:`~tris_envs.agents.az_network.NetConfig.hide_roll`).
        greedy: Share of the games (the first ``round(greedy * envs)`` slots) in which one
            seat, the first in even slots and the second in odd ones, plays the ``greedy``
            rung's moves (:func:`~tris_envs.alphazero.learner.greedy_moves`).
        random: Share of the games (the next ``round(random * envs)`` slots) in which one
            seat plays uniformly random legal moves.
    """

    envs: int
    steps: int
    batch: int
    epochs: int
    discount: float = 1.0
    gae_lambda: float = 0.95
    clip: float = 0.2
    entropy: float = 0.01
    value_coef: float = 0.5
    tactics: bool = False
    trap_planes: bool = False
    hide_roll: bool = False
    greedy: float = 0.0
    random: float = 0.0


class Ply(NamedTuple):
    inputs: Array       # [B, H, W, C]
    mask: Array         # [B, A]
    action: Array       # [B]
    log_prob: Array     # [B]
    value: Array        # [B]
    reward: Array       # [B] the mover's
    done: Array         # [B]
    learns: Array       # [B] the network chose the move


def scripted_seats(ppo: PPO) -> tuple[Array, Array]:
    """Per game slot ``[envs]``: the seat the ``greedy`` rung plays and the seat the random
    player plays (-1: none)."""
    slots = jnp.arange(ppo.envs)
    greedy = round(ppo.greedy * ppo.envs)
    random = greedy + round(ppo.random * ppo.envs)
    return (jnp.where(slots < greedy, slots % 2, -1),
            jnp.where((slots >= greedy) & (slots < random), slots % 2, -1))


def advantages(plies: Ply, last_value: Array, discount: float, gae_lambda: float
               ) -> tuple[Array, Array]:
    """Negamax GAE: the advantage ``[T, B]`` of every ply and its value target, each for
    the ply's mover; ``last_value`` ``[B]`` is the value of each game's next position for
    its player to move."""
    def back(carry: tuple[Array, Array], ply: Ply) -> tuple[tuple[Array, Array], Array]:
        advantage, next_value = carry
        going = 1.0 - ply.done
        delta = ply.reward - discount * next_value * going - ply.value
        advantage = delta - discount * gae_lambda * going * advantage
        return (advantage, ply.value), advantage

    _, result = jax.lax.scan(back, (jnp.zeros_like(last_value), last_value), plies,
                             reverse=True)
    return result, result + plies.value


def make_update(env: TrisEnv, ppo: PPO, optimiser: optax.GradientTransformation,
                index: ArrayLike, blocks: int) -> Callable[..., tuple[Any, ...]]:
    """The jitted ``(params, opt_state, states, key) -> (params, opt_state, states, key,
    metrics)`` of one update: ``ppo.steps`` plies of every game (finished games restart),
    then ``ppo.epochs`` passes of minibatches over them."""
    init, step = jax.vmap(env.init), jax.vmap(env.step)
    index = jnp.asarray(index)
    inputs_of = input_of(env, ppo.tactics, ppo.trap_planes, ppo.hide_roll)
    greedy_seat, random_seat = scripted_seats(ppo)
    tactics = jax.vmap(lambda state: env.tactic_flags(state)) if ppo.greedy else None
    n, size = ppo.envs, ppo.envs * ppo.steps

    def policy(params: Params, x: Array, mask: Array) -> tuple[Array, Array]:
        logits, value = forward(params, x, index, blocks)
        return jnp.where(mask, logits, -1e9), value

    def play(carry: tuple[Params, GameState, PRNGKey], _: None
             ) -> tuple[tuple[Params, GameState, PRNGKey], Ply]:
        params, states, key = carry
        key, choose, scripted, chance, again = jax.random.split(key, 5)
        x, mask = inputs_of(states), states.legal_action_mask
        logits, value = policy(params, x, mask)
        player = states.current_player
        action = jax.random.categorical(choose, logits)
        action = jnp.where(random_seat == player, jax.random.categorical(
            scripted, jnp.where(mask, 0.0, -1e9)), action)
        if tactics is not None:
            flags = tactics(states)
            action = jnp.where(greedy_seat == player, greedy_moves(
                flags[:, 0], flags[:, 1], mask, jax.random.fold_in(scripted, 1)), action)
        learns = (player != greedy_seat) & (player != random_seat)
        log_prob = jax.nn.log_softmax(logits)[jnp.arange(n), action]
        after = step(states, action, jax.random.split(chance, n))
        done = after.terminated | after.truncated
        reward = after.rewards[jnp.arange(n), player]
        after = restart(done, init(jax.random.split(again, n)), after)
        return (params, after, key), Ply(x, mask, action, log_prob, value, reward, done,
                                         learns)

    def loss(params: Params, ply: Ply, advantage: Array, target: Array
             ) -> tuple[Array, Array]:
        logits, value = policy(params, ply.inputs, ply.mask)
        log_probs = jax.nn.log_softmax(logits)
        ratio = jnp.exp(log_probs[jnp.arange(ply.action.shape[0]), ply.action] - ply.log_prob)
        weight = ply.learns / jnp.maximum(ply.learns.sum(), 1)     # scripted moves: value only
        mean = (advantage * weight).sum()
        advantage = (advantage - mean) / (jnp.sqrt(((advantage - mean) ** 2 * weight).sum())
                                          + 1e-8)
        surrogate = -jnp.minimum(ratio * advantage, jnp.clip(ratio, 1 - ppo.clip, 1 + ppo.clip)
                                 * advantage)
        entropy = -jnp.sum(jnp.where(ply.mask, jnp.exp(log_probs) * log_probs, 0.0), -1)
        policy_loss = ((surrogate - ppo.entropy * entropy) * weight).sum()
        value_loss = ((value - target) ** 2).mean()
        return policy_loss + ppo.value_coef * value_loss, jnp.stack([policy_loss, value_loss])

    @jax.jit
    def update(params: Params, opt_state: Any, states: GameState, key: PRNGKey
               ) -> tuple[Any, ...]:
        key, rollout, shuffle = jax.random.split(key, 3)
        (_, states, _), plies = jax.lax.scan(play, (params, states, rollout), None, ppo.steps)
        last_value = policy(params, inputs_of(states), states.legal_action_mask)[1]
        advantage, target = advantages(plies, last_value, ppo.discount, ppo.gae_lambda)
        flat = jax.tree_util.tree_map(lambda x: x.reshape((size,) + x.shape[2:]),
                                      (plies, advantage, target))
        order = jnp.concatenate([jax.random.permutation(k, size)
                                 for k in jax.random.split(shuffle, ppo.epochs)])

        params, opt_state, losses = minibatch_steps(loss, optimiser, params, opt_state, flat,
                                                    order.reshape(-1, ppo.batch))
        games = plies.done.sum()
        return (params, opt_state, states, key,
                Metrics(games, size / jnp.maximum(games, 1), *losses.mean(0)))

    return update
