"""The trained policy shipped with the package (``ppo``) against MCTS, seats alternating.

Run: ``python examples/trained_vs_mcts.py [--game tant_fant] [--mcts 100] [--games 40]``.
Needs the train extra (``pip install 'tris_envs[train]'``) for torch and sb3-contrib.
"""
import argparse

from tris_envs.agents import PPOAgent, make_agent
from tris_envs.evaluation import play_match
from tris_envs.games import make_game

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--game", default="tant_fant")
parser.add_argument("--mcts", type=int, default=100, help="MCTS simulations per move")
parser.add_argument("--games", type=int, default=40)
args = parser.parse_args()

game = make_game(args.game)
# PPOAgent() plays tris_envs/checkpoints/<game>.pt; PPOAgent("runs/.../final.pt") your own.
result = play_match(game, PPOAgent(), make_agent(f"mcts:{args.mcts}"), n_games=args.games,
                    seed=0)
print(result)
