"""Masked PPO with self-play snapshots in one file, CleanRL style, on the Gymnasium vector env.

The whole algorithm is here, top to bottom: the arguments, the network, the rollout over
``num_envs`` games of :class:`~tris_envs.envs.vector.SingleAgentVectorEnv` (the learner in a
random seat; ``"SameStep"`` autoreset, so an ended game's next observation is its new
episode's first), generalised advantage estimation, the clipped PPO update, and self-play:
every ``snapshot_every`` updates a frozen copy of the policy joins the snapshot list, and
``self_play_share`` of the games play the snapshots (round robin over the last
``max_snapshots``, each answering all its games in one forward pass through a
:class:`~tris_envs.envs.turns.BatchedPolicy`), the other games play ``base_opponents``.
Illegal actions get probability 0: the logits of masked actions are set to a large
negative number (``infos["action_mask"]``).

At the end the policy, as an agent (its most probable legal move), plays matches in the
package's harness (:func:`tris_envs.evaluation.play_match`) and the script prints its
learner steps per second (environment steps of the learner, updates included)::

    python examples/cleanrl_ppo.py --game tris1 --total-timesteps 200000
    python examples/cleanrl_ppo.py --game tant_fant --total-timesteps 500000

It takes the cell contract of ``tris-envs baselines`` (:mod:`tris_envs.evaluation.cell`):
``--budget`` is ``--total-timesteps`` (a budget under one rollout of ``num_envs`` games
shortens the rollout to fit), ``--games`` is ``--eval-games``, and with ``--json PATH`` the
matches (against ``--opponents``, default the ladder) are written to ``PATH``.

Needs PyTorch (``pip install 'tris_envs[train]'`` brings it).
"""

from __future__ import annotations

import argparse
import copy
import time
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from tris_envs.envs.turns import BatchedPolicy
from tris_envs.envs.vector import SingleAgentVectorEnv
from tris_envs.evaluation import play_match
from tris_envs.evaluation.cell import add_arguments, checked_opponents, write_cell
from tris_envs.evaluation.checkpoint import format_table


@dataclass
class Args:
    game: str = "tris1"
    seed: int = 0
    total_timesteps: int = 200_000
    num_envs: int = 64
    num_steps: int = 32             # steps per game per rollout
    learning_rate: float = 3e-4
    anneal_lr: bool = True
    gamma: float = 0.99
    gae_lambda: float = 0.95
    num_minibatches: int = 8
    update_epochs: int = 10
    clip_coef: float = 0.2
    ent_coef: float = 0.003
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden: int = 128
    base_opponents: str = "random,greedy"   # the games that do not play snapshots
    self_play_share: float = 0.5
    snapshot_every: int = 10         # updates
    max_snapshots: int = 5
    eval_games: int = 200
    eval_opponents: str = "random,greedy"
    save: str = ""                   # a path for the network's state_dict


ALIASES = {"eval_games": "--games"}
"""A flag of the cell contract (tris_envs.evaluation.cell) that is a field here."""


def parse_args() -> tuple[Args, list[str], Path | None]:
    """The arguments (``--budget`` sets ``total_timesteps``), the opponents to play after
    training, and ``--json``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for field in fields(Args):
        flags = ["--" + field.name.replace("_", "-")] + (
            [ALIASES[field.name]] if field.name in ALIASES else [])
        if field.type == "bool":
            parser.add_argument(*flags, type=lambda s: s.lower() in ("1", "true", "yes"),
                                default=field.default)
        else:
            parser.add_argument(*flags, type=type(field.default), default=field.default)
    add_arguments(parser)
    options = parser.parse_args()
    opponents = checked_opponents(parser, options, options.eval_opponents.split(","))
    if options.budget is not None:
        options.total_timesteps = options.budget
    args = Args(**{field.name: getattr(options, field.name) for field in fields(Args)})
    return args, opponents, options.json


class Agent(nn.Module):
    """An actor and a critic over the flattened observation planes."""

    def __init__(self, obs_size: int, n_actions: int, hidden: int) -> None:
        super().__init__()

        def mlp(out: int, std: float) -> nn.Sequential:
            layers = [nn.Linear(obs_size, hidden), nn.Tanh(), nn.Linear(hidden, hidden),
                      nn.Tanh(), nn.Linear(hidden, out)]
            for layer in layers:
                if isinstance(layer, nn.Linear):
                    nn.init.orthogonal_(layer.weight, np.sqrt(2))
                    nn.init.zeros_(layer.bias)
            nn.init.orthogonal_(layers[-1].weight, std)
            return nn.Sequential(*layers)

        self.actor = mlp(n_actions, 0.01)
        self.critic = mlp(1, 1.0)

    def value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x).squeeze(-1)

    def distribution(self, x: torch.Tensor, mask: torch.Tensor) -> torch.distributions.Categorical:
        logits = self.actor(x).masked_fill(~mask, -1e8)
        return torch.distributions.Categorical(logits=logits)


def as_input(obs: np.ndarray) -> torch.Tensor:
    """A batch of int8 observation planes as a float tensor of flat rows."""
    return torch.as_tensor(obs.reshape(len(obs), -1), dtype=torch.float32)


class Snapshot:
    """A frozen copy of the policy as an opponent: samples its masked distribution."""

    def __init__(self, agent: Agent, seed: int) -> None:
        self.agent = copy.deepcopy(agent).eval()
        self.generator = torch.Generator().manual_seed(seed)

    def __call__(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            dist = self.agent.distribution(as_input(observations), torch.as_tensor(masks))
            probs = dist.probs
        return torch.multinomial(probs, 1, generator=self.generator).squeeze(1).numpy()


class NetworkPlayer:
    """The policy in the package's harness: ``act(game, state)``, its most probable legal move."""

    name = "cleanrl_ppo"

    def __init__(self, agent: Agent) -> None:
        self.agent = agent

    def act(self, game: Any, state: Any) -> int:
        player = game.current_player(state)
        obs = game.observation(state, player)[None]
        mask = torch.as_tensor(game.legal_mask(state).astype(bool))[None]
        with torch.no_grad():
            logits = self.agent.distribution(as_input(obs), mask).logits
        return int(logits.argmax())


def assign_opponents(envs: SingleAgentVectorEnv, args: Args, snapshots: list[BatchedPolicy]
                     ) -> None:
    """``self_play_share`` of the games to the snapshots (round robin), the rest to the
    base opponents (round robin)."""
    base = args.base_opponents.split(",")
    n_self = int(round(args.num_envs * args.self_play_share)) if snapshots else 0
    opponents = [snapshots[k % len(snapshots)] for k in range(n_self)]
    opponents += [base[k % len(base)] for k in range(args.num_envs - n_self)]
    envs.set_opponent(opponents)


def train(args: Args) -> tuple[Agent, dict[str, float]]:
    """PPO on ``args.game``; returns the agent and the run's figures."""
    torch.manual_seed(args.seed)
    envs = SingleAgentVectorEnv(args.game, args.num_envs, autoreset_mode="SameStep")
    snapshots: list[BatchedPolicy] = []
    assign_opponents(envs, args, snapshots)
    obs_shape = envs.single_observation_space.shape
    n_actions = int(envs.single_action_space.n)
    agent = Agent(int(np.prod(obs_shape)), n_actions, args.hidden)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    n = args.num_envs
    t_len = max(1, min(args.num_steps, args.total_timesteps // n))  # a rollout within budget
    batch_size = n * t_len
    minibatch_size = max(1, batch_size // args.num_minibatches)
    num_updates = max(1, args.total_timesteps // batch_size)
    obs_buf = torch.zeros((t_len, n, int(np.prod(obs_shape))))
    mask_buf = torch.zeros((t_len, n, n_actions), dtype=torch.bool)
    actions = torch.zeros((t_len, n), dtype=torch.long)
    logprobs = torch.zeros((t_len, n))
    rewards = torch.zeros((t_len, n))
    dones = torch.zeros((t_len, n))
    values = torch.zeros((t_len, n))

    next_obs_np, infos = envs.reset(seed=args.seed)
    next_obs = as_input(next_obs_np)
    next_mask = torch.as_tensor(infos["action_mask"])
    next_done = torch.zeros(n)
    episode_returns: list[float] = []
    running = np.zeros(n)
    began, began_cpu = time.perf_counter(), time.process_time()
    for update in range(1, num_updates + 1):
        if args.anneal_lr:
            optimizer.param_groups[0]["lr"] = args.learning_rate * (
                1.0 - (update - 1.0) / num_updates)
        for step in range(t_len):
            obs_buf[step], mask_buf[step], dones[step] = next_obs, next_mask, next_done
            with torch.no_grad():
                dist = agent.distribution(next_obs, next_mask)
                action = dist.sample()
                logprobs[step] = dist.log_prob(action)
                values[step] = agent.value(next_obs)
            actions[step] = action
            next_obs_np, reward, terminations, truncations, infos = envs.step(action.numpy())
            done = terminations | truncations
            rewards[step] = torch.as_tensor(reward, dtype=torch.float32)
            next_obs = as_input(next_obs_np)
            next_mask = torch.as_tensor(infos["action_mask"])
            next_done = torch.as_tensor(done, dtype=torch.float32)
            running += reward
            episode_returns += running[done].tolist()
            running[done] = 0.0

        with torch.no_grad():   # generalised advantage estimation
            next_value = agent.value(next_obs)
            advantages = torch.zeros_like(rewards)
            last = torch.zeros(n)
            for t in reversed(range(t_len)):
                if t == t_len - 1:
                    nonterminal, following = 1.0 - next_done, next_value
                else:
                    nonterminal, following = 1.0 - dones[t + 1], values[t + 1]
                delta = rewards[t] + args.gamma * following * nonterminal - values[t]
                last = delta + args.gamma * args.gae_lambda * nonterminal * last
                advantages[t] = last
            returns = advantages + values

        b_obs, b_masks = obs_buf.reshape(batch_size, -1), mask_buf.reshape(batch_size, -1)
        b_actions, b_logprobs = actions.reshape(-1), logprobs.reshape(-1)
        b_advantages, b_returns = advantages.reshape(-1), returns.reshape(-1)
        for _ in range(args.update_epochs):
            order = torch.randperm(batch_size)
            for start in range(0, batch_size, minibatch_size):
                idx = order[start:start + minibatch_size]
                dist = agent.distribution(b_obs[idx], b_masks[idx])
                ratio = (dist.log_prob(b_actions[idx]) - b_logprobs[idx]).exp()
                adv = b_advantages[idx]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                policy_loss = torch.max(-adv * ratio, -adv * ratio.clamp(
                    1 - args.clip_coef, 1 + args.clip_coef)).mean()
                value_loss = 0.5 * ((agent.value(b_obs[idx]) - b_returns[idx]) ** 2).mean()
                loss = policy_loss - args.ent_coef * dist.entropy().mean() + (
                    args.vf_coef * value_loss)
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()

        if args.self_play_share > 0 and update % args.snapshot_every == 0:
            snapshot = Snapshot(agent, seed=args.seed * 1000 + update)
            snapshots.append(BatchedPolicy(snapshot, label=f"self:{update}"))
            del snapshots[:-args.max_snapshots]
            assign_opponents(envs, args, snapshots)
        if update % max(1, num_updates // 10) == 0 or update == num_updates:
            recent = episode_returns[-500:]
            print(f"update {update}/{num_updates}: {update * batch_size} steps, "
                  f"mean return {np.mean(recent) if recent else float('nan'):+.3f} "
                  f"over {len(recent)} episodes, {len(snapshots)} snapshots", flush=True)
    seconds, cpu = time.perf_counter() - began, time.process_time() - began_cpu
    steps = num_updates * batch_size
    return agent, {"steps": steps, "seconds": seconds, "steps_per_second": steps / seconds,
                   "cpu_steps_per_second": steps / cpu, "rollout": batch_size}


def main() -> None:
    args, opponents, json_path = parse_args()
    torch.set_num_threads(1)  # small networks: more threads only slow torch down on shared cores
    agent, run = train(args)
    print(f"learner: {run['steps']} steps in {run['seconds']:.1f} s, "
          f"{run['steps_per_second']:,.0f} steps/s ({run['cpu_steps_per_second']:,.0f} per "
          "second of this process's CPU time)")
    if args.save:
        torch.save(agent.state_dict(), args.save)
    game = SingleAgentVectorEnv(args.game, 1).game
    if json_path is not None:
        results = write_cell(json_path, learner=NetworkPlayer.name, game=game,
                             agent=NetworkPlayer(agent), steps=run["steps"],
                             train_seconds=run["seconds"], n_games=args.eval_games,
                             seed=args.seed, opponents=opponents,
                             budget=args.total_timesteps, details={
                                 "num_envs": args.num_envs, "rollout": run["rollout"]})
        print(format_table(results))
        return
    for opponent in opponents:
        if args.eval_games > 0 and opponent:
            result = play_match(game, NetworkPlayer(agent), opponent, n_games=args.eval_games,
                                seed=args.seed)
            print(f"vs {opponent}: score {result.score:.1%} "
                  f"(+{result.wins} ={result.draws} -{result.losses})")


if __name__ == "__main__":
    main()
