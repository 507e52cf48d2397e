"""Environment adapters over the rules core: the PettingZoo AEC env and the single-agent view.

Importing this package registers every game of :data:`tris_envs.games.GAMES` with
PettingZoo (``pettingzoo.make("aec", "tris_envs/tant_fant-v0")``) and its single-agent
view with Gymnasium (``gymnasium.make("tris_envs/TantFant-v0", opponent="greedy")``).
Gymnasium can also import it for you: ``gymnasium.make("tris_envs.envs:tris_envs/TantFant-v0")``.
"""

from tris_envs.envs.aec import GameEnv
from tris_envs.envs.registration import register_gymnasium, register_pettingzoo
from tris_envs.envs.single_agent import SingleAgentEnv

__all__ = ["GameEnv", "SingleAgentEnv", "register_gymnasium", "register_pettingzoo"]

register_pettingzoo()
register_gymnasium()
