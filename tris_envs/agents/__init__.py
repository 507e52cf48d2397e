"""Agents that see only the rules core: ``act(game, state) -> action``.

Importing this package needs neither PyTorch nor Stable-Baselines3: the PPO agents load
them when a policy is first used.
"""

from tris_envs.agents.alphabeta import AlphaBetaAgent
from tris_envs.agents.az import AZAgent
from tris_envs.agents.factory import AGENT_SPECS, make_agent
from tris_envs.agents.llm import LLMAgent, LLMServer, LLMSettings
from tris_envs.agents.mcts import MCTSAgent, MCTSNode
from tris_envs.agents.ppo import PolicyOpponent, PPOAgent
from tris_envs.agents.protocol import Agent
from tris_envs.agents.scripted import GreedyAgent, RandomAgent
from tris_envs.agents.search_settings import SearchSettings
from tris_envs.agents.solver_agent import SolverAgent
from tris_envs.agents.spec import AgentSpec

__all__ = ["AGENT_SPECS", "AZAgent", "Agent", "AgentSpec", "AlphaBetaAgent", "GreedyAgent",
           "LLMAgent", "LLMServer", "LLMSettings", "MCTSAgent", "MCTSNode", "PPOAgent",
           "PolicyOpponent", "RandomAgent", "SearchSettings", "SolverAgent", "make_agent"]
