"""Tianshou: a masked DQN learner against a random player, through Tianshou's PettingZoo path.

Our AEC environments give ``Dict(observation, action_mask)`` observations, which Tianshou's
``PettingZooEnv`` turns into ``obs`` and ``mask``; its ``MultiAgentOffPolicyAlgorithm``
gives each agent its own algorithm (here a DQN learner and Tianshou's masked random
player), and its DQN takes only legal actions. One addition: :class:`Roles` names the
agents by role (``learner``, ``opponent``) and draws the learner's seat per episode, so
the learner plays first and second (Tianshou binds an algorithm to an agent name).

At the end the learner, as an agent of the package's harness (the legal action of highest
Q-value), plays :func:`tris_envs.evaluation.play_match` against ``random``::

    python examples/tianshou_dqn.py --game tris1 --epochs 20

It takes the cell contract of ``tris-envs baselines`` (:mod:`tris_envs.evaluation.cell`):
``--budget STEPS`` trains for ``2 * STEPS`` environment steps (the learner's moves and the
opponent's, in epochs of at most ``--epoch-steps``), and the learner's moves in its
training games are counted; with ``--json PATH`` the matches (against ``--opponents``,
default the ladder) are written to ``PATH``.

Needs ``pip install 'tris_envs[tianshou]'`` (Tianshou 2.0; PyTorch).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from typing import Any

import numpy as np
import torch
from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.env.pettingzoo_env import PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

from tris_envs.evaluation import play_match
from tris_envs.evaluation.cell import add_arguments, checked_opponents, write_cell
from tris_envs.evaluation.checkpoint import format_table
from tris_envs.games import game_spec, make_game


class Roles:
    """A two-player AEC environment whose agents are named ``learner`` and ``opponent``; the
    learner's seat is drawn at every reset (from the reset's seed)."""

    possible_agents = ["learner", "opponent"]

    def __init__(self, env: Any, tally: list[int] | None = None) -> None:
        self.env = env
        self.tally = tally          # tally[0] counts the learner's moves, where given
        self.rng = np.random.default_rng()
        self.seats = dict(zip(self.possible_agents, env.possible_agents))

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        names = list(self.env.possible_agents)
        if self.rng.random() < 0.5:
            names.reverse()
        self.seats = dict(zip(self.possible_agents, names))
        self.env.reset(seed=None if seed is None else seed, options=options)

    def _role(self, name: str) -> str:
        return next(role for role, seat in self.seats.items() if seat == name)

    @property
    def agent_selection(self) -> str:
        return self._role(self.env.agent_selection)

    @property
    def rewards(self) -> dict[str, float]:
        return {self._role(name): r for name, r in self.env.rewards.items()}

    def observation_space(self, agent: str) -> Any:
        return self.env.observation_space(self.env.possible_agents[0])

    def action_space(self, agent: str) -> Any:
        return self.env.action_space(self.env.possible_agents[0])

    def last(self, observe: bool = True) -> tuple:
        return self.env.last(observe)

    def step(self, action: Any) -> None:
        if self.tally is not None and self.agent_selection == "learner":
            self.tally[0] += 1
        self.env.step(action)

    def render(self) -> Any:
        return self.env.render()

    def close(self) -> None:
        self.env.close()


def make_env(game: str, tally: list[int] | None = None) -> PettingZooEnv:
    """Tianshou's view of our game's ``env()``, agents named by role (the learner's moves
    counted in ``tally[0]``, where given)."""
    import importlib

    module = importlib.import_module(game_spec(game).env_module)
    return PettingZooEnv(Roles(module.env(), tally))


class QAgent:
    """The learner in the package's harness: the legal action of highest Q-value."""

    name = "tianshou_dqn"

    def __init__(self, model: torch.nn.Module) -> None:
        self.model = model

    def act(self, game: Any, state: Any) -> int:
        obs = game.observation(state, game.current_player(state))[None]
        with torch.no_grad():
            q = self.model(obs)[0][0].numpy()
        legal = game.legal_mask(state).astype(bool)
        return int(np.flatnonzero(legal)[np.argmax(q[legal])])


def train(game: str = "tris1", epochs: int = 20, epoch_steps: int = 2000, seed: int = 0,
          n_envs: int = 8, lr: float = 1e-3, hidden: tuple[int, ...] = (128, 128),
          quiet: bool = False, budget: int | None = None) -> tuple[QAgent, dict[str, Any]]:
    """Train the DQN learner (``budget``: for ``2 * budget`` environment steps, in epochs
    of at most ``epoch_steps``, instead of ``epochs``); returns it as an agent and the
    run's figures: wall seconds, epochs, the learner's moves in its training games."""
    if budget is not None:
        epoch_steps = min(epoch_steps, 2 * budget)
        epochs = math.ceil(2 * budget / epoch_steps)
    torch.manual_seed(seed)
    np.random.seed(seed)
    env = make_env(game)
    observation_space = env.observation_space["observation"]
    net = Net(state_shape=observation_space.shape, action_shape=env.action_space.n,
              hidden_sizes=list(hidden))
    learner = DQN(policy=DiscreteQLearningPolicy(model=net, action_space=env.action_space,
                                                 eps_training=0.2, eps_inference=0.0),
                  optim=AdamOptimizerFactory(lr=lr), gamma=0.9, n_step_return_horizon=2,
                  target_update_freq=320)
    opponent = MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=[learner, opponent], env=env)
    learner_moves = [0]
    train_envs = DummyVectorEnv([lambda: make_env(game, learner_moves) for _ in range(n_envs)])
    test_envs = DummyVectorEnv([lambda: make_env(game) for _ in range(n_envs)])
    train_envs.seed(seed)
    test_envs.seed(seed + 10_000)
    train_collector = Collector[CollectStats](
        algorithm, train_envs, VectorReplayBuffer(20_000, n_envs), exploration_noise=True)
    test_collector = Collector[CollectStats](algorithm, test_envs, exploration_noise=True)
    train_collector.reset()
    train_collector.collect(n_step=64 * n_envs)
    began = time.perf_counter()
    algorithm.run_training(OffPolicyTrainerParams(
        training_collector=train_collector, test_collector=test_collector,
        max_epochs=epochs, epoch_num_steps=epoch_steps,
        collection_step_num_env_steps=10 * n_envs, test_step_num_episodes=n_envs,
        batch_size=64, update_step_num_gradient_steps_per_sample=0.2,
        test_in_training=False, show_progress=not quiet,
        multi_agent_return_reduction=lambda rews: rews[:, 0]))
    return QAgent(net.eval()), {"seconds": time.perf_counter() - began, "epochs": epochs,
                                "epoch_steps": epoch_steps, "learner_moves": learner_moves[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="tris1")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--epoch-steps", type=int, default=2000)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    add_arguments(parser)
    args = parser.parse_args()
    opponents = checked_opponents(parser, args, ["random"])
    torch.set_num_threads(1)
    agent, run = train(args.game, args.epochs, args.epoch_steps, args.seed,
                       quiet=not sys.stderr.isatty(), budget=args.budget)
    print(f"trained {run['epochs']} x {run['epoch_steps']} steps ({run['learner_moves']:,} "
          f"learner moves) in {run['seconds']:.0f} s")
    game = make_game(args.game)
    if args.json is not None:
        results = write_cell(args.json, learner=agent.name, game=game, agent=agent,
                             steps=run["learner_moves"], train_seconds=run["seconds"],
                             n_games=args.games, seed=args.seed, opponents=opponents,
                             budget=args.budget, details={
                                 "epochs": run["epochs"], "epoch_steps": run["epoch_steps"]})
        print(format_table(results))
        return
    for opponent in opponents:
        print(play_match(game, agent, opponent, n_games=args.games, seed=1))


if __name__ == "__main__":
    main()
