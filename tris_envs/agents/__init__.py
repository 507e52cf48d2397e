"""Scripted agents that see only the rules core: ``act(game, state) -> action``."""

from tris_envs.agents.base import Agent, make_agent, play_game
from tris_envs.agents.scripted import GreedyAgent, RandomAgent

__all__ = ["Agent", "GreedyAgent", "RandomAgent", "make_agent", "play_game"]
