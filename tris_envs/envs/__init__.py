"""Environment adapters over the rules core: the PettingZoo AEC env and the single-agent view."""

from tris_envs.envs.aec import GameEnv
from tris_envs.envs.single_agent import SingleAgentEnv, register_gymnasium

__all__ = ["GameEnv", "SingleAgentEnv", "register_gymnasium"]
