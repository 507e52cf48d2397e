"""Agents that see only the rules core: ``act(game, state) -> action``."""

from tris_envs.agents.base import AGENT_SPECS, Agent, make_agent
from tris_envs.agents.mcts import MCTSAgent, MCTSNode
from tris_envs.agents.ppo import PolicyOpponent, PPOAgent
from tris_envs.agents.scripted import GreedyAgent, RandomAgent
from tris_envs.agents.solver_agent import SOLVABLE, SolverAgent

__all__ = ["AGENT_SPECS", "SOLVABLE", "Agent", "GreedyAgent", "MCTSAgent", "MCTSNode",
           "PPOAgent", "PolicyOpponent", "RandomAgent", "SolverAgent", "make_agent"]
