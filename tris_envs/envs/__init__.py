"""Environment adapters over the rules core: the PettingZoo AEC env and the single-agent view.

``import tris_envs`` registers every game of :data:`tris_envs.games.GAMES` with PettingZoo
(``pettingzoo.make("aec", "tris_envs/tant_fant-v0")``) and its single-agent view with
Gymnasium (``gymnasium.make("tris_envs/TantFant-v0", opponent="greedy")``), whichever is
imported first (:mod:`tris_envs.registration`).
"""

from tris_envs.envs.aec import GameEnv
from tris_envs.envs.single_agent import SingleAgentEnv
from tris_envs.registration import register_gymnasium, register_pettingzoo

__all__ = ["GameEnv", "SingleAgentEnv", "register_gymnasium", "register_pettingzoo"]
