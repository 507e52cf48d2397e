"""TorchRL: masked PPO through ``PettingZooWrapper(use_mask=True)`` on our AEC environment.

TorchRL wraps our turn-based ``env()`` as a multi-agent environment with one group per
agent (``player_0``, ``player_1``): every group's tensordict carries ``observation``,
``action_mask`` (the legal actions) and ``mask`` (whether that agent acts now). The
learner takes a random seat per episode against a random legal player; its policy samples
TorchRL's ``MaskedCategorical`` over the legal actions; each of its moves is credited with
its own group's rewards until its next move (a loss on the opponent's move included).
The update is the clipped PPO objective with generalised advantage estimation, written out
below.

At the end the policy, as an agent of the package's harness (its most probable legal move),
plays :func:`tris_envs.evaluation.play_match` against ``random``::

    python examples/torchrl_ppo.py --game tris1 --episodes 12000

It takes the cell contract of ``tris-envs baselines`` (:mod:`tris_envs.evaluation.cell`):
``--budget STEPS`` trains until the learner has made ``STEPS`` moves (at the end of an
update of ``episodes_per_update`` games) instead of ``--episodes``; with ``--json PATH`` the
matches (against ``--opponents``, default the ladder) are written to ``PATH``.

Needs ``pip install 'tris_envs[torchrl]'`` (TorchRL 0.14, TensorDict; PyTorch).
"""

from __future__ import annotations

import argparse
import importlib
import time
from typing import Any

import numpy as np
import torch
from tensordict import TensorDict
from torch import nn
from torchrl.envs.libs.pettingzoo import PettingZooWrapper
from torchrl.envs.utils import MarlGroupMapType, step_mdp
from torchrl.modules import MaskedCategorical

from tris_envs.evaluation import play_match
from tris_envs.evaluation.cell import add_arguments, checked_opponents, write_cell
from tris_envs.evaluation.checkpoint import format_table
from tris_envs.games import game_spec, make_game


def make_env(game: str, seed: int) -> PettingZooWrapper:
    """TorchRL's view of our game's ``env()``: one group per agent, masks on."""
    module = importlib.import_module(game_spec(game).env_module)
    return PettingZooWrapper(module.env(), use_mask=True, seed=seed,
                             group_map=MarlGroupMapType.ONE_GROUP_PER_AGENT)


class ActorCritic(nn.Module):
    def __init__(self, obs_size: int, n_actions: int, hidden: int = 128) -> None:
        super().__init__()
        self.actor = nn.Sequential(nn.Linear(obs_size, hidden), nn.Tanh(),
                                   nn.Linear(hidden, hidden), nn.Tanh(),
                                   nn.Linear(hidden, n_actions))
        self.critic = nn.Sequential(nn.Linear(obs_size, hidden), nn.Tanh(),
                                    nn.Linear(hidden, 1))

    def dist(self, obs: torch.Tensor, mask: torch.Tensor) -> MaskedCategorical:
        return MaskedCategorical(logits=self.actor(obs), mask=mask)

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.critic(obs).squeeze(-1)


def play_episode(env: PettingZooWrapper, model: ActorCritic, rng: np.random.Generator
                 ) -> tuple[list[dict[str, torch.Tensor]], float]:
    """One episode, the learner in a random seat: its moves and its return."""
    groups = list(env.group_map)
    learner = groups[int(rng.integers(2))]
    td = env.reset()
    moves: list[dict[str, torch.Tensor]] = []
    total = 0.0
    while True:
        mover = next(g for g in groups if bool(td[g, "mask"].any()))
        for group in groups:   # every group needs an action; only the mover's is played
            legal = td[group, "action_mask"][0]
            if group == mover == learner:
                obs = td[group, "observation", "observation"].float().flatten(1)
                with torch.no_grad():
                    dist = model.dist(obs, legal[None])
                    action = dist.sample()
                    moves.append({"obs": obs[0], "mask": legal, "action": action[0],
                                  "logp": dist.log_prob(action)[0],
                                  "value": model.value(obs)[0], "reward": torch.tensor(0.0)})
            else:
                choices = torch.nonzero(legal).flatten()
                action = choices[int(rng.integers(len(choices)))][None] if len(choices) else (
                    torch.zeros(1, dtype=torch.long))
            td[group, "action"] = action
        td = env.step(td)
        reward = float(td["next", learner, "reward"].sum())
        total += reward
        if moves:
            moves[-1]["reward"] = moves[-1]["reward"] + reward
        if bool(td["next", "done"].any()):
            return moves, total
        td = step_mdp(td)


def train(game: str = "tris1", episodes: int = 12000, episodes_per_update: int = 64,
          epochs: int = 10, lr: float = 1e-3, gamma: float = 0.99, lam: float = 0.95,
          clip: float = 0.2, ent_coef: float = 0.01, seed: int = 0, quiet: bool = False,
          budget: int | None = None) -> tuple[ActorCritic, dict[str, float]]:
    """Masked PPO against a random player, for ``episodes`` games or (``budget``) until
    the learner has made ``budget`` moves; returns the model and the run's figures."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    env = make_env(game, seed)
    group = next(iter(env.group_map))
    obs_shape = env.observation_spec[group, "observation", "observation"].shape[1:]
    n_actions = env.full_action_spec[group, "action"].space.n
    model = ActorCritic(int(np.prod(obs_shape)), n_actions)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    began = time.perf_counter()
    played = steps = 0
    returns: list[float] = []
    while played < episodes if budget is None else steps < budget:
        batch: list[dict[str, torch.Tensor]] = []
        for _ in range(episodes_per_update):
            moves, total = play_episode(env, model, rng)
            returns.append(total)
            # generalised advantage estimation over the learner's own moves
            advantage = torch.tensor(0.0)
            for k in reversed(range(len(moves))):
                following = moves[k + 1]["value"] if k + 1 < len(moves) else torch.tensor(0.0)
                delta = moves[k]["reward"] + gamma * following - moves[k]["value"]
                advantage = delta + gamma * lam * advantage
                moves[k]["advantage"] = advantage
                moves[k]["target"] = advantage + moves[k]["value"]
            batch += moves
            played += 1
        data = TensorDict({key: torch.stack([m[key] for m in batch]) for key in batch[0]},
                          batch_size=[len(batch)])
        steps += len(batch)
        for _ in range(epochs):
            for idx in torch.randperm(len(data)).split(128):
                part = data[idx]
                dist = model.dist(part["obs"], part["mask"])
                ratio = (dist.log_prob(part["action"]) - part["logp"]).exp()
                adv = part["advantage"]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8) if len(adv) > 1 else adv
                policy_loss = -torch.min(ratio * adv, ratio.clamp(1 - clip, 1 + clip) * adv).mean()
                value_loss = ((model.value(part["obs"]) - part["target"]) ** 2).mean()
                loss = policy_loss + 0.5 * value_loss - ent_coef * dist.entropy().mean()
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(model.parameters(), 0.5)
                optimizer.step()
        if not quiet:
            print(f"{played} episodes: mean return {np.mean(returns[-200:]):+.3f}", flush=True)
    seconds = time.perf_counter() - began
    return model, {"seconds": seconds, "learner_moves": steps, "episodes": played}


class PolicyAgent:
    """The policy in the package's harness: its most probable legal move."""

    name = "torchrl_ppo"

    def __init__(self, model: ActorCritic) -> None:
        self.model = model

    def act(self, game: Any, state: Any) -> int:
        obs = torch.as_tensor(game.observation(state, game.current_player(state)),
                              dtype=torch.float32).flatten()[None]
        mask = torch.as_tensor(game.legal_mask(state).astype(bool))[None]
        with torch.no_grad():
            logits = self.model.actor(obs).masked_fill(~mask, -torch.inf)
        return int(logits.argmax())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="tris1")
    parser.add_argument("--episodes", type=int, default=12000)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    add_arguments(parser)
    args = parser.parse_args()
    opponents = checked_opponents(parser, args, ["random"])
    torch.set_num_threads(1)
    model, run = train(args.game, args.episodes, seed=args.seed, budget=args.budget)
    print(f"trained {run['episodes']} episodes ({run['learner_moves']} learner moves) in "
          f"{run['seconds']:.0f} s")
    game, agent = make_game(args.game), PolicyAgent(model)
    if args.json is not None:
        results = write_cell(args.json, learner=agent.name, game=game, agent=agent,
                             steps=run["learner_moves"], train_seconds=run["seconds"],
                             n_games=args.games, seed=args.seed, opponents=opponents,
                             budget=args.budget, details={"episodes": run["episodes"]})
        print(format_table(results))
        return
    for opponent in opponents:
        print(play_match(game, agent, opponent, n_games=args.games, seed=1))


if __name__ == "__main__":
    main()
