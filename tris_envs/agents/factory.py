"""Agents from their specs (:class:`~tris_envs.agents.spec.AgentSpec`, or its text:
``"greedy"``, ``"mcts:300"``, ``"ppo:run/final.pt"``)."""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any, cast

import numpy as np

from tris_envs.agents.alphabeta import AlphaBetaAgent
from tris_envs.agents.az import AZAgent
from tris_envs.agents.llm import LLMAgent, LLMServer, LLMSettings
from tris_envs.agents.mcts import MCTSAgent
from tris_envs.agents.ppo import PPOAgent
from tris_envs.agents.protocol import Agent
from tris_envs.agents.scripted import GreedyAgent, RandomAgent
from tris_envs.agents.solver_agent import SolverAgent
from tris_envs.agents.spec import AGENT_HELP, AGENT_SPECS, AgentSpec

__all__ = ["AGENT_HELP", "AGENT_SPECS", "SPEC_PLUGINS", "make_agent"]

SPEC_PLUGINS: dict[str, str] = {
    "openspiel-mcts": "tris_envs.integrations.openspiel:mcts_agent",
    "openspiel-minimax": "tris_envs.integrations.openspiel:minimax_agent",
}
"""The agent families built outside this package layer: ``"module:function"`` of a
``(count, rng) -> Agent`` builder (the family's simulations or plies), imported on first use
(as the registry imports the rules), so that the agents never import the integrations that
build on them."""


SIMPLE: dict[str, Callable[..., Agent]] = {"random": RandomAgent, "greedy": GreedyAgent,
                                           "solver": SolverAgent}
"""The families without a budget, by name."""


def make_agent(spec: AgentSpec | str, rng: np.random.Generator | None = None) -> Agent:
    """The agent ``spec`` names, drawing from ``rng``.

    Args:
        spec: An :class:`~tris_envs.agents.spec.AgentSpec`, or its text (one of
            :data:`~tris_envs.agents.spec.AGENT_SPECS`, parsed here at once).
        rng: The agent's generator.

    Raises:
        ValueError: a text not of the spec forms, listing the allowed ones.
        ImportError: a ``ppo`` spec without the train extra installed.
        FileNotFoundError: a ``ppo:`` spec naming no file (``"ppo"`` raises it at the first
            move of a game no policy is shipped for).

    An ``llm`` spec without a server (:attr:`AgentSpec.server`) asks the one
    ``OPENAI_BASE_URL`` names, with the key of ``OPENAI_API_KEY``
    (:meth:`~tris_envs.agents.llm.LLMServer.from_environment`: ``ValueError`` where none is
    set); making the agent sends no request.
    """
    if not isinstance(spec, AgentSpec):
        spec = AgentSpec.parse(spec)
    family = spec.family
    if family in SPEC_PLUGINS:
        module, _, function = SPEC_PLUGINS[family].partition(":")
        make: Callable[..., Agent] = getattr(import_module(module), function)
        count = spec.simulations if spec.simulations is not None else spec.plies
        return make(count, rng=rng)
    if family == "az":
        return AZAgent(spec.path, spec.simulations, rng=rng, settings=dict(spec.settings))
    if family == "llm":
        server = spec.server if spec.server is not None else LLMServer.from_environment()
        settings: dict[str, Any] = dict(spec.settings)
        return LLMAgent(cast(str, spec.model), server, LLMSettings(**settings), rng=rng,
                        name=str(spec))
    if family == "ppo":
        return PPOAgent(spec.path, rng=rng, trust_pickle=spec.trust_pickle)
    if family == "mcts":
        if spec.simulations is None and spec.seconds is None:
            return MCTSAgent(rng=rng)
        return MCTSAgent(simulations=spec.simulations, time_budget=spec.seconds, rng=rng,
                         decisive=spec.decisive)
    if family == "alphabeta":
        if spec.plies is None and spec.seconds is None:
            return AlphaBetaAgent(rng=rng)
        return AlphaBetaAgent(plies=spec.plies, time_budget=spec.seconds, rng=rng)
    return SIMPLE[family](rng=rng)
