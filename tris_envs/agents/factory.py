"""Agents from spec strings (``"greedy"``, ``"mcts:300"``, ``"ppo:run/final.pt"``)."""

from __future__ import annotations

import re
from collections.abc import Callable
from importlib import import_module
from typing import Any

import numpy as np

from tris_envs.agents.protocol import Agent
from tris_envs.core.errors import brief

AGENT_SPECS = ("random", "greedy", "mcts", "mcts:<simulations>", "mcts:<seconds>s",
               "mcts:<simulations>:decisive", "mcts:<seconds>s:decisive", "alphabeta",
               "alphabeta:<plies>", "alphabeta:<seconds>s", "solver", "ppo", "ppo:<path>",
               "az", "az:<simulations>", "az:<path>", "az:<path>:<simulations>",
               "openspiel-mcts:<simulations>", "openspiel-minimax:<plies>")
"""The forms :func:`make_agent` accepts."""

SPEC_PLUGINS: dict[str, str] = {
    "openspiel-": "tris_envs.integrations.openspiel:make_openspiel_agent",
}
"""Agent specs built outside this package layer, by prefix: ``"module:function"`` of a
``(spec, rng) -> Agent`` builder, imported on first use (as the registry imports the rules),
so that the agents never import the integrations that build on them."""

AGENT_HELP = """\
agent specs:
  random                      a uniformly random legal move
  greedy                      wins at once if it can, else avoids handing the opponent
                              a win in one, else random
  mcts                        Monte Carlo tree search, 1000 simulations per move
  mcts:N, mcts:Ss             N simulations, or S seconds, per move (mcts:300, mcts:0.5s)
  mcts:N:decisive             proves positions won in one move without a rollout
                              (also mcts:Ss:decisive)
  alphabeta                   alpha-beta search, 4 plies deep
  alphabeta:N, alphabeta:Ss   N plies, or deepening within S seconds per move
  solver                      perfect play (Tris 1, Tant Fant, Doppia scelta)
  ppo, ppo:PATH               the shipped MaskablePPO policy of the game, or a trained
                              .pt policy file (needs the train extra; a pickled SB3
                              .zip only with --trust-pickle)
  az, az:N                    the shipped AlphaZero-style network with its search
                              budget (100 simulations unless the network names
                              another), or N (az:0: the network alone, no search)
  az:PATH, az:PATH:N          a trained network file (.npz), with its budget or N
  openspiel-mcts:N            OpenSpiel's Python MCTSBot, N simulations (openspiel extra)
  openspiel-minimax:N         OpenSpiel's alpha-beta / expectiminimax, N plies"""
"""What ``tris-envs play``, ``eval`` and ``tournament`` print under ``--help``."""


def make_agent(spec: str, rng: np.random.Generator | None = None) -> Agent:
    """An agent from its spec string.

    Specs: ``"random"``, ``"greedy"``, ``"mcts"`` (1000 simulations per move),
    ``"mcts:<simulations>"`` (e.g. ``"mcts:300"``), ``"mcts:<seconds>s"`` (a time budget
    per move, e.g. ``"mcts:0.5s"``), either with ``":decisive"`` appended (MCTS with the
    decisive-move check, e.g. ``"mcts:100:decisive"``), ``"alphabeta"`` (a 4-ply alpha-beta search),
    ``"alphabeta:<plies>"``, ``"alphabeta:<seconds>s"`` (iterative deepening within a time
    budget), ``"solver"`` (perfect play where an exact solver
    exists), ``"ppo"`` (the trained policy shipped for the game it plays),
    ``"ppo:<path>"`` (a trained policy file; both see
    :class:`~tris_envs.agents.ppo.PPOAgent` and need ``pip install 'tris_envs[train]'``).

    Raises:
        ValueError: a spec not of these forms, listing the allowed ones.
        ImportError: a ``ppo`` spec without the train extra installed.
        FileNotFoundError: a ``ppo:`` spec naming no file (``"ppo"`` raises it at the first
            move of a game no policy is shipped for).
    """
    from tris_envs.agents.alphabeta import MAX_PLIES, AlphaBetaAgent
    from tris_envs.agents.mcts import MCTSAgent
    from tris_envs.agents.scripted import GreedyAgent, RandomAgent
    from tris_envs.agents.solver_agent import SolverAgent

    simple = {"random": RandomAgent, "greedy": GreedyAgent, "solver": SolverAgent,
              "mcts": MCTSAgent, "alphabeta": AlphaBetaAgent}
    if isinstance(spec, str):
        if spec in simple:
            return simple[spec](rng=rng)
        for prefix, builder in SPEC_PLUGINS.items():
            if spec.startswith(prefix):
                module, _, function = builder.partition(":")
                make: Callable[[str, Any], Agent] = getattr(import_module(module), function)
                return make(spec, rng)
        if spec == "az" or spec.startswith("az:"):
            return _az_agent(spec, rng)
        if spec == "ppo" or (spec.startswith("ppo:") and len(spec) > len("ppo:")):
            from tris_envs.agents.ppo import PPOAgent

            return PPOAgent(spec[len("ppo:"):] or None, rng=rng)
        name, _, limit = spec.partition(":")
        decisive = name == "mcts" and limit.endswith(":decisive")
        limit = limit.removesuffix(":decisive") if decisive else limit
        count = _count(limit)
        seconds = _seconds(limit)
        if name == "mcts" and count is not None:
            return MCTSAgent(simulations=count, rng=rng, decisive=decisive)
        if name == "mcts" and seconds is not None:
            return MCTSAgent(simulations=None, time_budget=seconds, rng=rng, decisive=decisive)
        if name == "alphabeta" and count is not None and count <= MAX_PLIES:
            return AlphaBetaAgent(plies=count, rng=rng)
        if name == "alphabeta" and seconds is not None:
            return AlphaBetaAgent(plies=None, time_budget=seconds, rng=rng)
    allowed = ", ".join(repr(s) for s in AGENT_SPECS)
    raise ValueError(f"unknown agent spec {brief(spec)}; allowed: {allowed} "
                     "(e.g. 'mcts:1000', 'mcts:0.5s', 'alphabeta:4', "
                     "'ppo:runs/tant_fant/final.pt')")


def spec_file(spec: str) -> str | None:
    """The file an agent spec names, as written (``ppo:<path>``, ``az:<path>``,
    ``az:<path>:<simulations>``); ``None`` for a spec that names none.

    Raises:
        ValueError: a malformed ``az`` spec.
    """
    if any(spec.startswith(prefix) for prefix in SPEC_PLUGINS):
        return None
    if spec.startswith("ppo:") and len(spec) > len("ppo:"):
        return spec[len("ppo:"):]
    if spec == "az" or spec.startswith("az:"):
        return _az_parts(spec)[0]
    return None


def _az_agent(spec: str, rng: np.random.Generator | None) -> Agent:
    """``az``, ``az:<simulations>``, ``az:<path>``, ``az:<path>:<simulations>``."""
    from tris_envs.agents.az import AZAgent

    path, simulations = _az_parts(spec)
    return AZAgent(path, simulations, rng=rng)


def _az_parts(spec: str) -> tuple[str | None, int | None]:
    """An ``az`` spec's network file (``None``: the shipped one) and search budget
    (``None``: the network's); ``ValueError`` for a malformed one."""
    rest = spec[len("az:"):] if spec != "az" else ""
    path, _, budget = rest.rpartition(":")
    if not path and _count(budget) is None and budget != "0":
        path, budget = budget, ""           # az:<path> without a budget
    simulations = 0 if budget == "0" else _count(budget) if budget else None
    if ((budget and simulations is None) or (spec != "az" and not rest)
            or (":" in rest and not path) or _is_number(path)):
        raise ValueError(f"unknown agent spec {brief(spec)}: use az, az:<simulations>, "
                         "az:<path> or az:<path>:<simulations>")
    return path or None, simulations


def _is_number(text: str) -> bool:
    return re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", text) is not None


def _count(text: str) -> int | None:
    """``"300"`` -> 300; ``None`` unless a positive integer in plain ASCII digits."""
    if not text.isascii() or not text.isdigit() or text.startswith("0"):
        return None
    return int(text)


def _seconds(text: str) -> float | None:
    """``"0.5s"`` -> 0.5; ``None`` unless a positive finite number followed by ``s``."""
    if not text.endswith("s"):
        return None
    try:
        seconds = float(text[:-1])
    except ValueError:
        return None
    return seconds if 0 < seconds < float("inf") else None
