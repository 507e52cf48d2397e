"""Environment adapters over the rules core: the PettingZoo AEC env and the single-agent view.

Importing this package registers every game of :data:`tris_envs.games.GAMES` with
PettingZoo (``pettingzoo.make("aec", "tris_envs/tant_fant-v0")``) and its single-agent
view with Gymnasium (``gymnasium.make("tris_envs/TantFant-v0", opponent="greedy")``); the
Gymnasium ids are registered by ``import tris_envs`` too, where Gymnasium is imported before
or after it (:mod:`tris_envs.registration`).
"""

from tris_envs.envs.aec import GameEnv
from tris_envs.envs.single_agent import SingleAgentEnv
from tris_envs.registration import register_gymnasium, register_pettingzoo

__all__ = ["GameEnv", "SingleAgentEnv", "register_gymnasium", "register_pettingzoo"]

register_pettingzoo()
register_gymnasium()
