"""A custom opponent: any object with ``name`` and ``act(game, state)`` is an agent.

It plays matches like the built-in agents, sits opposite a learner in the single-agent
Gymnasium view, and a plain ``policy(observation, action_mask)`` callable does too.

Run: ``python examples/custom_opponent.py``.
"""
import numpy as np

from tris_envs.envs import SingleAgentEnv
from tris_envs.evaluation import play_match
from tris_envs.games import make_game


class CentreFirst:
    """Tris 1: takes the centre, then a corner, then any cell (first in reading order)."""

    name = "centre-first"
    PREFERENCE = (4, 0, 2, 6, 8, 1, 3, 5, 7)   # cells in reading order: a3 b3 c3 / ... / c1

    def act(self, game, state):
        legal = game.legal_actions(state)
        return next(cell for cell in self.PREFERENCE if cell in legal)


game = make_game("tris1")
print(play_match(game, CentreFirst(), "random", n_games=200, seed=0))
print(play_match(game, CentreFirst(), "solver", n_games=20, seed=0))

# The same opponent in the single-agent view; here the learner is a random policy.
env = SingleAgentEnv("tris1", opponent=CentreFirst(), seat="random")
rng = np.random.default_rng(0)
returns = []
for episode in range(100):
    obs, info = env.reset(seed=episode)
    done, total = False, 0.0
    while not done:
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        obs, reward, terminated, truncated, info = env.step(action)
        total, done = total + reward, terminated or truncated
    returns.append(total)
print(f"random learner vs centre-first: mean return {np.mean(returns):+.2f} over 100 episodes")

# A policy callable gets the opponent's own observation and legal mask.
env.set_opponent(lambda observation, mask: int(np.flatnonzero(mask)[-1]))
obs, info = env.reset(seed=0)
print("opponent set to a callable; learner to move:", env.action_masks().nonzero()[0])
