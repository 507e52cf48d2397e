"""AlphaZero-style self-play and training, one jitted function per iteration, in JAX.

``envs`` games of :mod:`tris_envs.jax` are played at once, every move chosen by an mctx
Gumbel MuZero search of ``simulations`` simulations whose model is the game's own JAX
``step`` (the network's policy as prior, its value at the leaves, AlphaZero's Dirichlet
noise mixed into the prior at the root; each backup batched by
:func:`tris_envs.alphazero.search.backward`, whose cost, unlike that of mctx's own, does not
grow with the tree). The network
(:mod:`tris_envs.alphazero.jax_net`, the same weights as the NumPy ``az`` agents) learns
the search's improved policy (mctx's ``action_weights``) and the games' outcomes from the
view of the player to move (a draw, by repetition or by truncation, is 0). Plies of games
still going at the end of an iteration learn the network's value of the position the
iteration left them in, or only the policy (``Search.bootstrap``).

The games are sharded over all local devices (:func:`game_sharding`), the parameters
replicated; the same seed gives the same network on one device or several, up to float
rounding. Needs ``pip install "tris_envs[jax]"`` on Python 3.11 or newer (mctx).

Shapes: ``B`` the games played at once (``Search.envs``), ``T`` the plies of an iteration
(``Search.steps``), ``R`` the rows of the memory, ``A`` the actions, ``[H, W, C]`` the
network's input of one position.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import mctx
import numpy as np
import optax
from jax.sharding import Mesh, NamedSharding, PartitionSpec
from jax.typing import ArrayLike

from tris_envs.alphazero.jax_net import Params, forward, input_of
from tris_envs.alphazero.search import Recurrent, gumbel_policy
from tris_envs.jax import TrisEnv, restart
from tris_envs.jax.base import Array, GameState, PRNGKey


class Sample(NamedTuple):
    """One ply of self-play per game: what the mover saw, the search's improved policy, the
    mover's reward and whether the move ended the game. The shapes of one ply of a batch;
    an iteration's plies stack them (``[T, B, ...]``), the memory's rows (``[R, ...]``).

    observation: ``[B, H, W, C]`` the network's input.
    mask: ``[B, A]`` the legal actions.
    policy: ``[B, A]`` the policy target.
    reward: ``[B]`` the mover's reward.
    done: ``[B]`` whether the move ended the game.
    """

    observation: Array  # [B, H, W, C]
    mask: Array         # [B, A]
    policy: Array       # [B, A]
    reward: Array       # [B]
    done: Array         # [B]


class Memory(NamedTuple):
    """The plies the updates draw from: the last ``Search.replay`` iterations' samples with
    their value targets (rows ``k * plies`` to ``(k + 1) * plies`` hold iteration ``k``
    modulo ``replay``), and the iterations stored so far."""

    samples: Sample     # [R, ...]
    target: Array       # [R] the value targets
    ended: Array        # [R] whether a row has one
    count: Any          # [] iterations stored (an Array; Any: tuple.count's name)


class Metrics(NamedTuple):
    """What one iteration measured: games ended in it, their mean length in plies, and the
    mean policy and value losses of its updates."""

    games: Array        # []
    plies: Array        # []
    policy_loss: Array  # []
    value_loss: Array   # []


class Search(NamedTuple):
    """The self-play settings of :func:`make_iteration`.

    Attributes:
        envs: Games played at once.
        steps: Plies of each game per iteration.
        simulations: Of each move's search.
        considered: Actions Gumbel's root considers (mctx's ``max_num_considered_actions``).
        noise: Share of Dirichlet noise in the root's prior.
        alpha: Of the Dirichlet noise.
        batch: Plies per minibatch.
        epochs: Passes of ``plies`` minibatch rows per iteration, each drawn without
            replacement from the memory.
        replay: Iterations of plies the memory keeps (1: only the iteration's own).
        bootstrap: Whether plies of games still going at the end of an iteration learn the
            network's value of the position where the iteration left them (else they
            train only the policy).
        decisive: Wins in one seen by the search (the game's ``winning_moves``): a node
            whose player to move can win at once is lost for the player who moved into it
            (reward -1, no value below it), and at the root a winning move is played and
            is the policy target (uniform over the winning moves).
        safe: Blunders kept out of the root's policy target (the game's ``blunders``:
            moves after which the opponent can win at once): where the mover has another
            move, the target drops them (renormalised; uniform over the other moves if it
            put no weight on those). It teaches the network alone not to hand over the
            lines that a search of few simulations never visits. The move played stays
            the search's: were blunders never played, self-play between two such players
            would end only by truncation, and the values would learn nothing.
        discount: Worth of a result one ply later (1: a win is a win however late). Below
            1 the value targets and the search's backups shrink by it every ply, so that
            of two won positions the one nearer the win is worth more: a network whose
            won positions are all worth +1 gives the search nothing that hurries it.
        tactics: The network's input has the tactics planes (the game's ``winning_moves``
            and ``handovers``; :attr:`~tris_envs.agents.az_network.NetConfig.tactics`).
        explore: Share of self-play moves played uniformly at random among the legal
            moves instead of the search's choice (:func:`explored`; a win in one is still
            played where ``decisive`` sees it). The policy target stays the search's; the
            values learn the results of games in which either side may slip, so that of
            two positions the one where a slip of the opponent's loses is worth more:
            between players that never hand over a line, every value is a draw.
        trap_planes: With ``tactics``, the trap planes after them (the game's ``trap_moves``;
            :attr:`~tris_envs.agents.az_network.NetConfig.trap_planes`).
        greedy: Share of the games (the first ``round(greedy * envs)`` slots) in which one
            seat, the first in even slots and the second in odd ones, plays the ``greedy``
            rung's moves instead of the search's (:func:`greedy_moves`: a win in one if it
            has one, else a random move that hands over no win in one; the game's
            ``winning_moves`` and ``blunders``). Its plies train as the others do (the
            search still runs there and gives the policy target); the values learn the
            results of games against a player that never blunders but sets no trap on
            purpose.
        wary: With ``safe``, the root's policy target also drops, of its ``considered``
            heaviest moves, those that hand the opponent a trap (the game's
            ``hands_over_traps``: a move after which the opponent has a roll that leaves
            every reply handing over a line), where the mover has a move that is neither
            such nor a blunder. Only those few are looked at: each costs 46,656 positions.
        hide_roll: The network's input has no roll planes (the game's ``roll_planes``;
            :attr:`~tris_envs.agents.az_network.NetConfig.hide_roll`): its values learn the
            position's worth before the roll, from the outcomes of every roll drawn there,
            and a leaf of the search reached by a move is valued by that expectation rather
            than by the one roll its node drew.
        expect_roll: A leaf of the search is valued by the exact expectation over its
            player's rolls (the game's ``roll_outcomes``, the law of the rules core's
            ``chance_outcomes``) of the network's values of every rolled position, rather
            than by the one roll its node drew (:func:`make_recurrent`); each leaf costs a
            network call per outcome (Tritoc's 12). The walk below the node keeps its roll.
    """

    envs: int
    steps: int
    simulations: int
    considered: int
    noise: float
    alpha: float
    batch: int
    epochs: int
    bootstrap: bool
    replay: int
    decisive: bool = False
    safe: bool = False
    discount: float = 1.0
    tactics: bool = False
    explore: float = 0.0
    trap_planes: bool = False
    greedy: float = 0.0
    wary: bool = False
    hide_roll: bool = False
    expect_roll: bool = False


def explored(action: Array, mask: Array, share: float, key: PRNGKey) -> Array:
    """``action`` ``[B]`` with each move replaced, with probability ``share``, by one drawn
    uniformly from the legal moves of its row of ``mask`` ``[B, A]``
    (:attr:`Search.explore`)."""
    pick, chance = jax.random.split(key)
    drawn = jax.random.categorical(pick, jnp.where(mask, 0.0, -jnp.inf), axis=-1)
    return jnp.where(jax.random.uniform(chance, action.shape) < share, drawn, action)


def greedy_moves(wins: Array, blunders: Array, mask: Array, key: PRNGKey) -> Array:
    """The ``greedy`` rung's move ``[B]`` in each row of a batch (:attr:`Search.greedy`): a
    winning move (``wins`` ``[B, A]``) drawn uniformly if the row has one, else one of the
    legal moves (``mask`` ``[B, A]``) outside ``blunders`` ``[B, A]``, else any legal
    move."""
    safe = mask & ~blunders
    choice = jnp.where(wins.any(-1, keepdims=True), wins,
                       jnp.where(safe.any(-1, keepdims=True), safe, mask))
    return jax.random.categorical(key, jnp.where(choice, 0.0, -jnp.inf), axis=-1)


def value_targets(reward: Array, done: Array, last: Array | None = None,
                  discount: float = 1.0) -> tuple[Array, Array]:
    """The value target ``[T, B]`` of every ply of a window (plies first, games second) and
    whether it has one ``[T, B]``.

    ``reward`` ``[T, B]`` is the mover's reward, ``done`` ``[T, B]`` whether the move ended
    the game. The target is the mover's final reward: the reward of the ply that ended the
    game, with the sign changing every ply before it. Plies of games still going at the end
    of the window have a target only given ``last`` ``[B]``, the value of each game's next
    position for its player to move (bootstrapping, as n-step returns do); without it they
    train no value. Each ply before the result multiplies it by ``discount``
    (:attr:`Search.discount`)."""
    def back(carry: tuple[Array, Array],
             ply: tuple[Array, Array]) -> tuple[tuple[Array, Array], tuple[Array, Array]]:
        later, ended = carry
        reward, done = ply
        target = jnp.where(done, reward, -discount * later)
        ended = done | ended
        return (target, ended), (target, ended)

    if last is None:
        start = (jnp.zeros(reward.shape[1:]), jnp.zeros(reward.shape[1:], bool))
    else:
        start = (last, jnp.ones(reward.shape[1:], bool))
    return jax.lax.scan(back, start, (reward, done), reverse=True)[1]


def without_blunders(weights: Array | np.ndarray, safe: Array | np.ndarray) -> Array:
    """The root's policy targets ``[B, A]`` (JAX or NumPy) with the moves outside ``safe``
    ``[B, A]`` (the legal moves that hand the opponent no win in one) dropped, where a row
    has a safe move: renormalised over the safe moves, uniform over them if the target put
    no weight there. Rows without a safe move are left as they are (:attr:`Search.safe`)."""
    kept = weights * safe
    kept = jnp.where(kept.sum(-1, keepdims=True) > 0, kept, safe)
    return jnp.where(safe.any(-1, keepdims=True),
                     kept / jnp.maximum(kept.sum(-1, keepdims=True), 1e-30), weights)


def without_traps_handed_over(weights: Array, safe: Array, states: GameState,
                              hands_over_traps: Callable[[GameState, Array], Array],
                              considered: int) -> Array:
    """:func:`without_blunders` with ``safe`` ``[B, A]`` (a batch's moves that hand over no
    line) less those of each row's ``considered`` heaviest moves that
    ``hands_over_traps(state, actions [considered]) -> [considered]`` flags
    (:attr:`Search.wary`); the lighter moves are not looked at."""
    heaviest = jax.lax.top_k(weights, considered)[1]
    rows = jnp.arange(weights.shape[0])[:, None]
    risky = jnp.zeros_like(safe).at[rows, heaviest].set(
        jax.vmap(hands_over_traps)(states, heaviest))
    return without_blunders(weights, safe & ~risky)


def gumbel_search(params: Params, key: PRNGKey, root: mctx.RootFnOutput,
                  recurrent: Recurrent, mask: Array, simulations: int, considered: int,
                  batched: bool = True) -> mctx.PolicyOutput:
    """The Gumbel MuZero policy of the self-play moves (``mask`` ``[B, A]``: the legal
    actions of the roots): :func:`tris_envs.alphazero.search.gumbel_policy`, whose backups
    are batched (``batched``), or mctx's own ``gumbel_muzero_policy`` (the same results, slower:
    ``tris-envs bench --learner``)."""
    if batched:
        return gumbel_policy(params, key, root, recurrent, simulations, ~mask, considered)
    return mctx.gumbel_muzero_policy(params, key, root, recurrent, simulations,
                                     invalid_actions=~mask,
                                     max_num_considered_actions=considered,
                                     qtransform=mctx.qtransform_completed_by_mix_value)


def make_recurrent(env: TrisEnv, network: Callable[[Params, Array], tuple[Array, Array]],
                   decisive: bool = False, discount: float = 1.0,
                   inputs: Callable[[GameState], Array] | None = None,
                   expect_roll: bool = False) -> Recurrent:
    """mctx's ``recurrent_fn`` over the JAX game's own ``step`` (the real rules as the
    model), with ``network(params, inputs(states)) -> (logits [B, A], values [B])``'s
    priors (masked
    to the legal actions) and its value (for the player to move) at the leaves; each move's
    reward is the mover's, and the value changes sign (times ``discount``) every ply.
    ``inputs``: the network's input of the states (default: their observations).

    With ``decisive``, a move after which the opponent can win at once (the game's
    ``winning_moves``) is scored as lost: reward -1 for its mover and discount 0, as if the
    game ended there (it is lost: the win is there to take).

    With ``expect_roll``, a leaf's value is the expectation of the network's values over
    every roll its player may get (the game's ``roll_outcomes``: one network call per
    outcome, Tritoc's 12), its priors those of the roll its node drew, which the walk
    below it keeps."""
    step = jax.vmap(env.step)
    winning = jax.vmap(env.winning_moves) if decisive else None
    inputs = inputs or input_of(env)
    outcomes_of = jax.vmap(env.roll_outcomes) if expect_roll else None

    def evaluate(params: Params, state: GameState) -> tuple[Array, Array]:
        if outcomes_of is None:
            return network(params, inputs(state))
        outcomes, chances, drawn = outcomes_of(state)                   # [B, K, ...]
        batch, k = chances.shape
        logits, values = network(params, inputs(jax.tree_util.tree_map(
            lambda x: x.reshape((batch * k,) + x.shape[2:]), outcomes)))
        logits = logits.reshape(batch, k, -1)[jnp.arange(batch), drawn]
        return logits, (chances * values.reshape(batch, k)).sum(-1)

    def recurrent(params: Params, key: PRNGKey, action: Array,
                  state: GameState) -> tuple[mctx.RecurrentFnOutput, GameState]:
        player = state.current_player
        state = step(state, action, jax.random.split(key, action.shape[0]))
        logits, value = evaluate(params, state)
        over = state.terminated | state.truncated
        reward = state.rewards[jnp.arange(action.shape[0]), player]
        if winning is not None:
            lost = winning(state).any(-1)
            reward = jnp.where(lost, -1.0, reward)
            over = over | lost
        return mctx.RecurrentFnOutput(
            reward=reward, discount=jnp.where(over, 0.0, -discount),
            prior_logits=jnp.where(state.legal_action_mask, logits, -1e9),
            value=jnp.where(over, 0.0, value)), state

    return recurrent


def new_memory(env: TrisEnv, search: Search) -> Memory:
    """An empty :class:`Memory` for ``env``'s plies (filled by the first iteration)."""
    rows = search.replay * search.steps * search.envs
    inputs = input_of(env, search.tactics, search.trap_planes, search.hide_roll)
    observation = jax.eval_shape(lambda key: inputs(jax.vmap(env.init)(key[None]))[0],
                                 jax.random.PRNGKey(0))
    actions = (rows, env.num_actions)
    samples = Sample(jnp.zeros((rows,) + observation.shape, observation.dtype),
                     jnp.zeros(actions, bool), jnp.zeros(actions, jnp.float32),
                     jnp.zeros(rows, jnp.float32), jnp.zeros(rows, bool))
    return Memory(samples, jnp.zeros(rows, jnp.float32), jnp.zeros(rows, bool),
                  jnp.zeros((), jnp.int32))


def game_sharding() -> tuple[NamedSharding, NamedSharding]:
    """``(games, replicated)``: shardings that split a batch of games over every local
    device and that copy the parameters to each."""
    mesh = Mesh(np.array(jax.devices()), ("games",))
    return NamedSharding(mesh, PartitionSpec("games")), NamedSharding(mesh, PartitionSpec())


def minibatch_steps(loss: Callable[..., tuple[Array, Array]],
                    optimiser: optax.GradientTransformation, params: Params, opt_state: Any,
                    data: Any, rows: Array) -> tuple[Params, Any, Array]:
    """One optimiser step per row of ``rows`` ``[M, batch]`` (one ``lax.scan``), each on
    ``loss``'s gradient over those rows of every array of ``data``: the updated ``params``
    and ``opt_state``, and ``loss``'s auxiliary losses ``[M, ...]``."""
    def step(carry: tuple[Params, Any], chosen: Array) -> tuple[tuple[Params, Any], Array]:
        params, opt_state = carry
        grads, losses = jax.grad(loss, has_aux=True)(
            params, *jax.tree_util.tree_map(lambda x: x[chosen], data))
        changes, opt_state = optimiser.update(grads, opt_state, params)
        return (optax.apply_updates(params, changes), opt_state), losses

    (params, opt_state), losses = jax.lax.scan(step, (params, opt_state), rows)
    return params, opt_state, losses


def make_iteration(env: TrisEnv, search: Search, optimiser: optax.GradientTransformation,
                   index: ArrayLike, blocks: int) -> Callable[..., tuple[Any, ...]]:
    """The jitted ``(params, opt_state, states, key, memory) -> (params, opt_state, states,
    key, memory, metrics)`` of one iteration: ``search.steps`` plies of self-play in every
    game (finished games restart), stored in the memory (:func:`new_memory`; the first
    iteration fills every slot), then ``search.epochs`` passes of minibatch updates, each
    over as many plies drawn from the memory."""
    init, step = jax.vmap(env.init), jax.vmap(env.step)
    index = jnp.asarray(index)
    inputs = input_of(env, search.tactics, search.trap_planes, search.hide_roll)
    recurrent = make_recurrent(env, lambda params, x: forward(params, x, index, blocks),
                               search.decisive, search.discount, inputs, search.expect_roll)
    winning = jax.vmap(env.winning_moves) if search.decisive else None
    blunders = jax.vmap(env.blunders) if search.safe else None
    slots = jnp.arange(search.envs)
    greedy_seat = jnp.where(slots < round(search.greedy * search.envs), slots % 2, -1)

    def noisy(logits: Array, mask: Array, key: PRNGKey) -> Array:
        """AlphaZero's exploration at the root: the prior ``logits`` ``[B, A]`` mixed with
        Dirichlet noise over the legal actions ``mask`` ``[B, A]``."""
        shares = jax.random.dirichlet(key, jnp.full(logits.shape, search.alpha)) * mask
        shares = shares / shares.sum(-1, keepdims=True)
        prior = jax.nn.softmax(jnp.where(mask, logits, -1e9))
        prior = (1 - search.noise) * prior + search.noise * shares
        return jnp.where(mask, jnp.log(prior), -1e9)

    def play(carry: tuple[Params, GameState, PRNGKey],
             _: None) -> tuple[tuple[Params, GameState, PRNGKey], Sample]:
        params, states, key = carry
        key, root_key, chance, again, noise = jax.random.split(key, 5)
        mask = states.legal_action_mask
        observation = inputs(states)
        logits, value = forward(params, observation, index, blocks)
        root = mctx.RootFnOutput(prior_logits=noisy(logits, mask, noise), value=value,
                                 embedding=states)
        policy = gumbel_search(params, root_key, root, recurrent, mask, search.simulations,
                               search.considered)
        action, weights = policy.action, policy.action_weights
        if blunders is not None:
            safe = mask & ~blunders(states)
            weights = without_blunders(weights, safe)
            if search.wary:
                weights = without_traps_handed_over(weights, safe, states,
                                                    env.hands_over_traps, search.considered)
        if search.explore:
            action = explored(action, mask, search.explore, jax.random.fold_in(chance, 1))
        if winning is not None:           # a win in one is played, and is the target
            wins = winning(states)
            can = wins.any(-1, keepdims=True)
            weights = jnp.where(can, wins / jnp.maximum(wins.sum(-1, keepdims=True), 1),
                                weights)
            action = jnp.where(can[:, 0], jnp.argmax(wins, -1), action)
        player = states.current_player
        if search.greedy:
            scripted = greedy_moves(jax.vmap(env.winning_moves)(states),
                                    jax.vmap(env.blunders)(states), mask,
                                    jax.random.fold_in(chance, 2))
            action = jnp.where(greedy_seat == player, scripted, action)
        after = step(states, action, jax.random.split(chance, search.envs))
        done = after.terminated | after.truncated
        reward = after.rewards[jnp.arange(search.envs), player]
        after = restart(done, init(jax.random.split(again, search.envs)), after)
        return (params, after, key), Sample(observation, mask, weights, reward, done)

    def loss(params: Params, sample: Sample, target: Array,
             ended: Array) -> tuple[Array, Array]:
        logits, value = forward(params, sample.observation, index, blocks)
        logits = jnp.where(sample.mask, logits, -1e9)
        policy = optax.softmax_cross_entropy(logits, sample.policy).mean()
        value = ((value - target) ** 2 * ended).sum() / jnp.maximum(ended.sum(), 1)
        return policy + value, jnp.stack([policy, value])

    size = search.steps * search.envs

    @jax.jit
    def iteration(params: Params, opt_state: Any, states: GameState, key: PRNGKey,
                  memory: Memory) -> tuple[Any, ...]:
        key, rollout, shuffle = jax.random.split(key, 3)
        (_, states, _), samples = jax.lax.scan(play, (params, states, rollout), None,
                                               search.steps)
        last = None
        if search.bootstrap:
            last = jax.lax.stop_gradient(
                forward(params, inputs(states), index, blocks)[1])
        target, ended = value_targets(samples.reward, samples.done, last, search.discount)
        new = jax.tree_util.tree_map(lambda x: x.reshape((size,) + x.shape[2:]),
                                     (samples, target, ended))

        def store(old: Array, x: Array) -> Array:
            stored = jax.lax.dynamic_update_slice_in_dim(
                old, x, memory.count % search.replay * size, 0)
            return jnp.where(memory.count == 0,
                             jnp.tile(x, (search.replay,) + (1,) * (x.ndim - 1)), stored)

        flat = jax.tree_util.tree_map(store, (memory.samples, memory.target, memory.ended),
                                      new)
        memory = Memory(flat[0], flat[1], flat[2], memory.count + 1)
        rows = search.replay * size
        order = jnp.concatenate([jax.random.permutation(k, rows)[:size] for k in
                                 jax.random.split(shuffle, search.epochs)])

        params, opt_state, losses = minibatch_steps(loss, optimiser, params, opt_state, flat,
                                                    order.reshape(-1, search.batch))
        games = samples.done.sum()
        metrics = Metrics(games, size / jnp.maximum(games, 1), *losses.mean(0))
        return params, opt_state, states, key, memory, metrics

    return iteration
