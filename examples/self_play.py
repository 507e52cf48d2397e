"""Self-play with the single-agent view: MaskablePPO against frozen copies of itself.

The learner plays a random seat of :class:`tris_envs.envs.SingleAgentEnv`; its opponent is
first a random player, then, every ``--rounds`` part of the budget, a frozen snapshot of the
learner itself (``PolicyOpponent``). ``tris-envs train ppo`` does the same at scale, with an
opponent pool (``tris_envs.ppo.pool``), evaluations and checkpoints.

Run: ``python examples/self_play.py [--game tris1] [--timesteps 60000] [--rounds 3]``.
Needs the train extra (``pip install 'tris_envs[train]'``).
"""
import argparse
import tempfile
from pathlib import Path

import torch
from sb3_contrib import MaskablePPO

from tris_envs.agents import PolicyOpponent, PPOAgent
from tris_envs.agents.ppo import export_policy
from tris_envs.envs import SingleAgentEnv
from tris_envs.evaluation import play_match
from tris_envs.games import make_game

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--game", default="tris1")
parser.add_argument("--timesteps", type=int, default=60_000)
parser.add_argument("--rounds", type=int, default=3)
args = parser.parse_args()

torch.set_num_threads(1)  # tiny networks: more threads only slow torch down on shared cores
env = SingleAgentEnv(args.game, opponent="random", seat="random")
model = MaskablePPO("MlpPolicy", env, n_steps=512, batch_size=128, seed=0, verbose=0)
game = make_game(args.game)
with tempfile.TemporaryDirectory() as snapshots:
    for round_ in range(1, args.rounds + 1):
        model.learn(args.timesteps // args.rounds, reset_num_timesteps=False)
        # the opponent from now on: this round's learner, frozen in a file
        snapshot = export_policy(model, Path(snapshots) / f"round_{round_}.pt")
        env.set_opponent(PolicyOpponent(snapshot, label=f"self:{round_}"))
        result = play_match(game, PPOAgent(model), "random", n_games=100, seed=round_)
        print(f"after {model.num_timesteps:,} steps: {result}")
