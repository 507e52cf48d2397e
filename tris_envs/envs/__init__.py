"""Environment adapters over the rules core."""

from tris_envs.envs.aec import GameEnv

__all__ = ["GameEnv"]
