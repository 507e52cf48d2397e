"""AgileRL: a self-play DQN with action masks on our PettingZoo AEC environment.

One AgileRL ``DQN`` plays both seats of ``n_envs`` copies of the game's ``env()`` (our
observations are the mover's own view, so one network serves both players). Each tick, every
game's mover is found with ``env.last()``; their flattened observations and
``action_mask``s go through ``DQN.get_action(obs, epsilon, action_mask)`` in one batch
(epsilon-greedy over the legal actions only). A player's transition runs from its move to
its next turn (the reward ``env.last()`` gives it then, a loss on the opponent's move
included) and goes to AgileRL's ``ReplayBuffer``; ``DQN.learn`` samples it every
``learn_step`` transitions. Epsilon falls linearly from 1 to ``eps_end`` over the first
``eps_decay`` share of the episodes.

At the end the learner, as an agent of the package's harness (the legal action of highest
Q-value), plays :func:`tris_envs.evaluation.play_match` against ``random`` and ``greedy``::

    python examples/agilerl_dqn.py --game tris1 --episodes 6000

It takes the cell contract of ``tris-envs baselines`` (:mod:`tris_envs.evaluation.cell`):
``--budget STEPS`` trains until ``STEPS`` transitions (moves of either seat) are stored
instead of ``--episodes`` games, epsilon falling over the first ``eps_decay`` share of
them; with ``--json PATH`` the matches (against ``--opponents``, default the ladder) are
written to ``PATH``.

AgileRL cannot share the package's test environment (it pins ``tensordict==0.13.0`` and
``pettingzoo<1.27``): ``make agilerl`` builds ``.venv-agilerl`` from
``examples/requirements-agilerl.txt`` and runs this script (docs/integrations.md).
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from agilerl.algorithms.dqn import DQN
from agilerl.components.replay_buffer import ReplayBuffer
from gymnasium import spaces
from tensordict import TensorDict

from tris_envs.evaluation import play_match
from tris_envs.evaluation.cell import add_arguments, checked_opponents, write_cell
from tris_envs.evaluation.checkpoint import format_table
from tris_envs.games import game_spec, make_game

OPPONENTS = ("random", "greedy")


@dataclass
class Args:
    game: str = "tris1"
    seed: int = 0
    episodes: int = 6000
    transitions: int = 0            # > 0: train until this many are stored, not by episodes
    n_envs: int = 16
    lr: float = 1e-3
    batch_size: int = 128
    learn_step: int = 4             # transitions between two updates
    gamma: float = 0.9
    tau: float = 0.01               # soft update of the target network at every update
    eps_end: float = 0.1
    eps_decay: float = 0.6          # share of the episodes over which epsilon falls to eps_end
    buffer_size: int = 50_000
    hidden: int = 128


def flat(observation: np.ndarray) -> np.ndarray:
    """The network's input: an observation as one float vector."""
    return np.asarray(observation, dtype=np.float32).reshape(-1)


class SelfPlay:
    """``n_envs`` AEC games whose movers all act through one DQN; collects transitions."""

    def __init__(self, game: str, n_envs: int, seed: int) -> None:
        module = importlib.import_module(game_spec(game).env_module)
        self.envs = [module.env() for _ in range(n_envs)]
        self.next_seed = seed
        self.pending: list[dict[str, tuple[np.ndarray, int]]] = [{} for _ in self.envs]
        self.transitions: list[tuple[np.ndarray, int, float, np.ndarray, float]] = []
        self.episodes = 0
        for env in self.envs:
            self._reset(env)

    def _reset(self, env: Any) -> None:
        env.reset(seed=self.next_seed)
        self.next_seed += 1

    def _to_move(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """Game ``i``'s mover's observation and mask, after closing any finished game."""
        env, pending = self.envs[i], self.pending[i]
        while True:
            agent = env.agent_selection
            observation, reward, termination, truncation, _ = env.last()
            obs = flat(observation["observation"])
            if agent in pending:
                before, action = pending.pop(agent)
                self.transitions.append((before, action, float(reward), obs, float(termination)))
            if not (termination or truncation):
                return obs, observation["action_mask"]
            env.step(None)
            if not env.agents:
                self.episodes += 1
                self._reset(env)

    def tick(self, dqn: DQN, epsilon: float) -> None:
        """One move in every game."""
        movers = [self._to_move(i) for i in range(len(self.envs))]
        obs = np.stack([o for o, _ in movers])
        masks = np.stack([m for _, m in movers])
        actions = dqn.get_action(obs, epsilon=epsilon, action_mask=masks)
        for i, (env, action) in enumerate(zip(self.envs, actions)):
            self.pending[i][env.agent_selection] = (obs[i], int(action))
            env.step(int(action))

    def drain(self) -> TensorDict | None:
        """The transitions collected since the last call, as one batch for the buffer."""
        if not self.transitions:
            return None
        before, action, reward, after, done = zip(*self.transitions)
        self.transitions = []
        return TensorDict({
            "obs": torch.from_numpy(np.stack(before)),
            "action": torch.tensor(action, dtype=torch.int64),
            "reward": torch.tensor(reward, dtype=torch.float32),
            "next_obs": torch.from_numpy(np.stack(after)),
            "done": torch.tensor(done, dtype=torch.float32),
        }, batch_size=[len(before)])


class DQNPlayer:
    """The learner in the package's harness: the legal action of highest Q-value."""

    name = "agilerl_dqn"

    def __init__(self, dqn: DQN) -> None:
        self.dqn = dqn

    def act(self, game: Any, state: Any) -> int:
        obs = flat(game.observation(state, game.current_player(state)))[None]
        mask = np.array(game.legal_mask(state))[None]   # the rules core's mask is read-only
        return int(self.dqn.get_action(obs, epsilon=0.0, action_mask=mask)[0])


def make_dqn(game: str, args: Args) -> DQN:
    info = make_game(game).info
    size = int(np.prod(info.observation_shape))
    return DQN(observation_space=spaces.Box(0.0, 1.0, (size,), np.float32),
               action_space=spaces.Discrete(info.num_actions),
               net_config={"encoder_config": {"hidden_size": [args.hidden, args.hidden]},
                           "head_config": {"hidden_size": [args.hidden // 2]}},
               batch_size=args.batch_size, lr=args.lr, learn_step=args.learn_step,
               gamma=args.gamma, tau=args.tau)


def train(args: Args, quiet: bool = False) -> tuple[DQN, dict[str, float]]:
    """Self-play training; returns the DQN and the run's counts and wall seconds."""
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    dqn = make_dqn(args.game, args)
    buffer = ReplayBuffer(max_size=args.buffer_size)
    games = SelfPlay(args.game, args.n_envs, args.seed)
    began = time.perf_counter()
    stored = updates = 0
    since_update = 0
    # the run's length: episodes, or transitions where args.transitions is given
    total = args.transitions or args.episodes
    report_every = max(1, total // 10)
    next_report = report_every
    loss = float("nan")

    def done() -> int:
        return stored if args.transitions else games.episodes

    while done() < total:
        epsilon = max(args.eps_end, 1.0 - (1.0 - args.eps_end) * done() / max(
            1.0, args.eps_decay * total))
        dqn.set_training_mode(True)
        games.tick(dqn, epsilon)
        batch = games.drain()
        if batch is not None:
            buffer.add(batch)
            stored += batch.shape[0]
            since_update += batch.shape[0]
        while since_update >= args.learn_step and len(buffer) >= args.batch_size:
            loss = dqn.learn(buffer.sample(args.batch_size))
            updates += 1
            since_update -= args.learn_step
        if not quiet and done() >= next_report:
            seconds = time.perf_counter() - began
            print(f"episodes {games.episodes:,}  epsilon {epsilon:.2f}  loss {loss:.4f}  "
                  f"transitions {stored:,}  {seconds:.0f} s", file=sys.stderr)
            next_report += report_every
    dqn.set_training_mode(False)
    seconds = time.perf_counter() - began
    return dqn, {"episodes": games.episodes, "transitions": stored, "updates": updates,
                 "seconds": seconds}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default=Args.game)
    parser.add_argument("--episodes", type=int, default=Args.episodes,
                        help="self-play games to train on (default %(default)s: about a "
                             "minute on two cores for Tris 1)")
    parser.add_argument("--seed", type=int, default=Args.seed)
    parser.add_argument("--games", type=int, default=200, help="games against each opponent")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    add_arguments(parser)
    options = parser.parse_args()
    opponents = checked_opponents(parser, options, OPPONENTS)
    torch.set_num_threads(1)
    args = Args(game=options.game, episodes=options.episodes, seed=options.seed,
                transitions=options.budget or 0)
    quiet = options.quiet or not sys.stderr.isatty()
    dqn, run = train(args, quiet=quiet)
    print(f"trained {run['episodes']:,} self-play games ({run['transitions']:,} transitions, "
          f"{run['updates']:,} updates) in {run['seconds']:.0f} s, seed {args.seed}")
    game, player = make_game(args.game), DQNPlayer(dqn)
    if options.json is not None:
        results = write_cell(options.json, learner=player.name, game=game, agent=player,
                             steps=run["transitions"], train_seconds=run["seconds"],
                             n_games=options.games, seed=args.seed, opponents=opponents,
                             budget=options.budget, details={
                                 "episodes": run["episodes"], "updates": run["updates"]})
        print(format_table(results))
        return
    for opponent in opponents:
        print(play_match(game, player, opponent, n_games=options.games, seed=1))


if __name__ == "__main__":
    main()
