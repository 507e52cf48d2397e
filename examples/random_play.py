"""Random play in 10 lines: one Tris 2 game through the PettingZoo AEC loop."""
import numpy as np

from tris_envs import tris2_v0

env, rng, returns = tris2_v0.env(render_mode="ansi"), np.random.default_rng(0), {}
env.reset(seed=0)
for agent in env.agent_iter():
    obs, reward, termination, truncation, info = env.last()
    returns[agent] = returns.get(agent, 0) + reward
    legal = np.flatnonzero(obs["action_mask"])
    env.step(None if termination or truncation else int(rng.choice(legal)))
print(env.render(), "\nreturns:", returns)
