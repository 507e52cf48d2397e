"""PPO self-play written entirely in JAX (PureJaxRL-style) over ``tris_envs.jax``.

One network plays both seats of ``--envs`` games at once; every rollout, its GAE and all the
PPO epochs run inside one jitted function, so the games never leave JAX. Values are from the
view of the player to move, so the advantage recursion changes sign every ply (negamax GAE:
``A_t = delta_t - gamma * lambda * A_{t+1}``, ``delta_t = r_t - gamma * V(s_{t+1}) - V(s_t)``).
Afterwards the trained network plays the rules core's games in the evaluation harness
(``play_match``) against the scripted ladder, with the training targets of the PyTorch
learners: the observations are the same on both sides. With ``--search N`` it plays again
through a Gumbel MuZero search of ``N`` simulations (mctx) whose model is the game's own JAX
``step``, with the network's policy as prior and its value at the leaves.

Run: ``python examples/jax_ppo.py --game tris1`` (needs ``pip install "tris_envs[jax]"``;
``--search`` needs mctx, which that extra brings on Python 3.11 and newer).
"""

from __future__ import annotations

import argparse
import time
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax

from tris_envs.evaluation import play_match
from tris_envs.evaluation.checkpoint import OpponentResult, format_table
from tris_envs.evaluation.metrics import move_quality
from tris_envs.evaluation.targets import check_targets
from tris_envs.games import GAMES, make_game
from tris_envs.jax import make, restart


class Transition(NamedTuple):
    observation: Any
    mask: Any
    action: Any
    log_prob: Any
    value: Any
    reward: Any
    done: Any
    learns: Any


def init_network(key: Any, inputs: int, hidden: int, actions: int) -> dict[str, Any]:
    """An MLP with two hidden layers, a policy head and a value head."""
    sizes = [(inputs, hidden), (hidden, hidden), (hidden, actions), (hidden, 1)]
    keys = jax.random.split(key, len(sizes))
    return {f"w{i}": jax.random.normal(k, size) * np.sqrt(2 / size[0]) * (0.01 if i == 2 else 1)
            for i, (k, size) in enumerate(zip(keys, sizes))} | {
            f"b{i}": jnp.zeros(size[1]) for i, size in enumerate(sizes)}


def new_network(env: Any, args: argparse.Namespace, clip: float,
                learning_rate: Any = None) -> tuple[Any, ...]:
    """``(key, params, optimiser, opt_state, start)`` of a run: the network for ``env``
    (``--hidden`` units), Adam at ``learning_rate`` (a number or an optax schedule; ``--lr``
    by default) with gradients clipped to norm ``clip``, and the keys of the run and of its
    first games, all from ``--seed``."""
    key, network, start = jax.random.split(jax.random.PRNGKey(args.seed), 3)
    params = init_network(network, int(np.prod(env.observation_shape)), args.hidden,
                          env.num_actions)
    optimiser = optax.chain(optax.clip_by_global_norm(clip), optax.adam(
        args.lr if learning_rate is None else learning_rate))
    return key, params, optimiser, optimiser.init(params), start


def forward(params: dict[str, Any], observation: Any, mask: Any) -> tuple[Any, Any]:
    """Masked logits and the value (in [-1, 1], for the player to move) of observations."""
    x = observation.reshape(observation.shape[0], -1).astype(jnp.float32)
    x = jax.nn.relu(x @ params["w0"] + params["b0"])
    x = jax.nn.relu(x @ params["w1"] + params["b1"])
    logits = jnp.where(mask, x @ params["w2"] + params["b2"], -1e9)
    return logits, jnp.tanh(x @ params["w3"] + params["b3"])[:, 0]


def make_update(env: Any, args: argparse.Namespace, optimiser: Any) -> Any:
    """The jitted ``(params, opt_state, states, key) -> (..., metrics)`` of one PPO update."""
    init, step = jax.vmap(env.init), jax.vmap(env.step)

    def random_seats(key: Any) -> Any:
        """Per game: the seat that plays uniformly random moves, or -1 (pure self-play)."""
        seat = jax.random.randint(key, (args.envs,), 0, 2)
        return jnp.where(jax.random.uniform(key, (args.envs,)) < args.random_games, seat, -1)

    def act(carry: tuple[Any, ...], _: Any) -> tuple[tuple[Any, ...], Transition]:
        params, (states, random_seat), key = carry
        key, choose, uniform, chance, again, seats = jax.random.split(key, 6)
        logits, value = forward(params, states.observation, states.legal_action_mask)
        player = states.current_player
        learns = player != random_seat
        action = jnp.where(learns, jax.random.categorical(choose, logits),
                           jax.random.categorical(uniform, jnp.where(
                               states.legal_action_mask, 0.0, -1e9)))
        log_prob = jax.nn.log_softmax(logits)[jnp.arange(args.envs), action]
        after = step(states, action, jax.random.split(chance, args.envs))
        done = after.terminated | after.truncated
        reward = after.rewards[jnp.arange(args.envs), player]
        fresh = init(jax.random.split(again, args.envs))
        after = restart(done, fresh, after)
        random_seat = jnp.where(done, random_seats(seats), random_seat)
        return (params, (after, random_seat), key), Transition(
            states.observation, states.legal_action_mask, action, log_prob, value, reward,
            done, learns)

    def advantages(batch: Transition, last_value: Any) -> tuple[Any, Any]:
        def back(carry: tuple[Any, Any], t: Transition) -> tuple[tuple[Any, Any], Any]:
            advantage, next_value = carry
            going = 1.0 - t.done
            delta = t.reward - args.gamma * next_value * going - t.value
            advantage = delta - args.gamma * args.gae_lambda * going * advantage
            return (advantage, t.value), advantage

        _, result = jax.lax.scan(back, (jnp.zeros_like(last_value), last_value), batch,
                                 reverse=True)
        return result, result + batch.value

    def loss(params: dict[str, Any], t: Transition, advantage: Any, target: Any) -> Any:
        logits, value = forward(params, t.observation, t.mask)
        log_probs = jax.nn.log_softmax(logits)
        log_prob = log_probs[jnp.arange(t.action.shape[0]), t.action]
        ratio = jnp.exp(log_prob - t.log_prob)
        weight = t.learns / jnp.maximum(t.learns.sum(), 1)   # the random seat's moves: value only
        advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
        policy = -jnp.minimum(ratio * advantage, jnp.clip(ratio, 1 - args.clip, 1 + args.clip)
                              * advantage)
        probs = jnp.exp(log_probs)
        entropy = -jnp.sum(jnp.where(t.mask, probs * log_probs, 0.0), -1)
        return ((policy - args.entropy * entropy) * weight).sum() + 0.5 * (
            (value - target) ** 2).mean()

    @jax.jit
    def update(params: Any, opt_state: Any, states: Any, key: Any) -> tuple[Any, ...]:
        key, rollout = jax.random.split(key)
        (_, states, _), batch = jax.lax.scan(act, (params, states, rollout), None, args.steps)
        _, last_value = forward(params, states[0].observation, states[0].legal_action_mask)
        advantage, target = advantages(batch, last_value)
        size = args.steps * args.envs
        flat = jax.tree_util.tree_map(lambda x: x.reshape((size,) + x.shape[2:]),
                                      (batch, advantage, target))

        def epoch(carry: tuple[Any, Any, Any], _: Any) -> tuple[tuple[Any, Any, Any], None]:
            params, opt_state, key = carry
            key, shuffle = jax.random.split(key)
            order = jax.random.permutation(shuffle, size).reshape(args.minibatches, -1)

            def minibatch(carry: tuple[Any, Any], rows: Any) -> tuple[tuple[Any, Any], Any]:
                params, opt_state = carry
                grads = jax.grad(loss)(params, *jax.tree_util.tree_map(lambda x: x[rows], flat))
                changes, opt_state = optimiser.update(grads, opt_state)
                return (optax.apply_updates(params, changes), opt_state), None

            (params, opt_state), _ = jax.lax.scan(minibatch, (params, opt_state), order)
            return (params, opt_state, key), None

        (params, opt_state, key), _ = jax.lax.scan(epoch, (params, opt_state, key), None,
                                                   args.epochs)
        games = batch.done.sum()
        return params, opt_state, states, key, games, batch.done.size / jnp.maximum(games, 1)

    return update


class JaxPolicy:
    """The trained network as an agent of the harness: its most probable legal move."""

    def __init__(self, params: dict[str, Any], name: str = "jax-ppo") -> None:
        self.name = name
        self._params = params
        self._logits = jax.jit(lambda obs, mask: forward(params, obs, mask)[0])

    def act(self, game: Any, state: Any) -> int:
        player = game.current_player(state)
        observation = game.observation(state, player)[None]
        mask = game.legal_mask(state).astype(bool)[None]
        return int(np.argmax(np.asarray(self._logits(observation, mask))[0]))


class SearchPolicy:
    """The trained network inside an mctx Gumbel MuZero search over the JAX game's ``step``
    (:func:`tris_envs.alphazero.learner.make_recurrent`). Without Gumbel noise, so the move
    is a function of the position."""

    def __init__(self, env: Any, params: dict[str, Any], simulations: int,
                 name: str = "jax-ppo") -> None:
        import mctx  # mctx needs Python >= 3.11

        from tris_envs.alphazero.learner import make_recurrent

        self.name = f"{name}+mctx:{simulations}"
        self._env = env
        recurrent = make_recurrent(env, lambda p, x: forward(p, x, True))

        def search(state: Any) -> Any:
            state = jax.tree_util.tree_map(lambda x: x[None], state)
            state = state.replace(observation=jax.vmap(env.observe)(state))
            logits, value = forward(params, state.observation, state.legal_action_mask)
            root = mctx.RootFnOutput(prior_logits=logits, value=value, embedding=state)
            return mctx.gumbel_muzero_policy(
                params, jax.random.PRNGKey(0), root, recurrent, simulations,
                invalid_actions=~state.legal_action_mask, gumbel_scale=0.0).action[0]

        self._search = jax.jit(search)

    def act(self, game: Any, state: Any) -> int:
        return int(self._search(self._env.from_core(state)))


def report(game_name: str, agents: list[Any], games: int, seed: int) -> None:
    """Plays each agent against the ladder (random, greedy, mcts:100 and the solver where
    there is one) in the rules core's harness and prints the table and the PyTorch
    learners' targets."""
    game = make_game(game_name)
    opponents = ["random", "greedy", "mcts:100"] + (["solver"] if GAMES[game_name].solvable
                                                     else [])
    for agent in agents:
        began = time.perf_counter()
        results = []
        for opponent in opponents:
            match = play_match(game, agent, opponent, games, seed, keep_records=True)
            result = OpponentResult(opponent, match)
            if GAMES[game_name].solvable:
                quality = move_quality(game, match.records, match.names[0], one_move=False)
                result.optimal, result.judged = quality.value_kept_all, quality.judged_all
            results.append(result)
        print(f"\n{agent.name} ({time.perf_counter() - began:.0f} s):")
        print(format_table(results))
        for text, met in check_targets(game_name, results):
            print(f"target {'met' if met else 'missed' if met is False else 'not judged'}: "
                  f"{text}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="tris1", choices=("tris1", "tant_fant"))
    parser.add_argument("--updates", type=int, default=600, help="PPO updates")
    parser.add_argument("--envs", type=int, default=256, help="games stepped together")
    parser.add_argument("--steps", type=int, default=32, help="plies per game per update")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--minibatches", type=int, default=4)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--gae-lambda", type=float, default=0.95)
    parser.add_argument("--clip", type=float, default=0.2)
    parser.add_argument("--entropy", type=float, default=0.01)
    parser.add_argument("--random-games", type=float, default=0.5,
                        help="share of games in which one seat plays uniformly random moves")
    parser.add_argument("--games", type=int, default=400, help="evaluation games per opponent")
    parser.add_argument("--search", type=int, default=0, metavar="N",
                        help="also play the evaluation games through an mctx search of N "
                             "simulations (0: only the network's most probable move)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    env = make(args.game)
    key, params, optimiser, opt_state, start = new_network(env, args, 0.5)
    states = (jax.vmap(env.init)(jax.random.split(start, args.envs)),
              jnp.full(args.envs, -1))
    update = make_update(env, args, optimiser)
    began = time.perf_counter()
    for k in range(1, args.updates + 1):
        params, opt_state, states, key, games, length = update(params, opt_state, states, key)
        if k % max(1, args.updates // 10) == 0 or k == args.updates:
            print(f"update {k:,}: {k * args.envs * args.steps:,} plies, "
                  f"{int(games):,} games ended in the last rollout (mean "
                  f"{float(length):.1f} plies), {time.perf_counter() - began:.0f} s", flush=True)
    print(f"trained {args.updates * args.envs * args.steps:,} plies in "
          f"{time.perf_counter() - began:.0f} s (JAX on {jax.devices()[0].platform})")

    report(args.game, [JaxPolicy(params)] + (
        [SearchPolicy(env, params, args.search)] if args.search else []), args.games, args.seed)


if __name__ == "__main__":
    main()
