"""Agents from spec strings (``"greedy"``, ``"mcts:300"``, ``"ppo:run/final.pt"``)."""

from __future__ import annotations

import numpy as np

from tris_envs.agents.protocol import Agent
from tris_envs.core.errors import brief

AGENT_SPECS = ("random", "greedy", "mcts", "mcts:<simulations>", "mcts:<seconds>s", "solver",
               "ppo", "ppo:<path>")
"""The forms :func:`make_agent` accepts."""


def make_agent(spec: str, rng: np.random.Generator | None = None) -> Agent:
    """An agent from its spec string.

    Specs: ``"random"``, ``"greedy"``, ``"mcts"`` (1000 simulations per move),
    ``"mcts:<simulations>"`` (e.g. ``"mcts:300"``), ``"mcts:<seconds>s"`` (a time budget
    per move, e.g. ``"mcts:0.5s"``), ``"solver"`` (perfect play where an exact solver
    exists), ``"ppo"`` (the trained policy shipped for the game it plays),
    ``"ppo:<path>"`` (a trained ``MaskablePPO`` zip or ``.pt`` policy; both see
    :class:`~tris_envs.agents.ppo.PPOAgent` and need ``pip install 'tris_envs[train]'``).

    Raises:
        ValueError: a spec not of these forms, listing the allowed ones.
        ImportError: a ``ppo`` spec without the train extra installed.
        FileNotFoundError: a ``ppo:`` spec naming no file (``"ppo"`` raises it at the first
            move of a game no policy is shipped for).
    """
    from tris_envs.agents.mcts import MCTSAgent
    from tris_envs.agents.scripted import GreedyAgent, RandomAgent
    from tris_envs.agents.solver_agent import SolverAgent

    simple = {"random": RandomAgent, "greedy": GreedyAgent, "solver": SolverAgent,
              "mcts": MCTSAgent}
    if isinstance(spec, str):
        if spec in simple:
            return simple[spec](rng=rng)
        if spec == "ppo" or (spec.startswith("ppo:") and len(spec) > len("ppo:")):
            from tris_envs.agents.ppo import PPOAgent

            return PPOAgent(spec[len("ppo:"):] or None, rng=rng)
        name, _, limit = spec.partition(":")
        if name == "mcts" and limit.isdigit() and int(limit) > 0:
            return MCTSAgent(simulations=int(limit), rng=rng)
        seconds = _seconds(limit) if name == "mcts" else None
        if seconds is not None:
            return MCTSAgent(simulations=None, time_budget=seconds, rng=rng)
    allowed = ", ".join(repr(s) for s in AGENT_SPECS)
    raise ValueError(f"unknown agent spec {brief(spec)}; allowed: {allowed} "
                     "(e.g. 'mcts:1000', 'mcts:0.5s', 'ppo:runs/tant_fant/final.zip')")


def _seconds(text: str) -> float | None:
    """``"0.5s"`` -> 0.5; ``None`` unless a positive finite number followed by ``s``."""
    if not text.endswith("s"):
        return None
    try:
        seconds = float(text[:-1])
    except ValueError:
        return None
    return seconds if 0 < seconds < float("inf") else None
