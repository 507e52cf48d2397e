"""Registration of every game of the registry with PettingZoo and Gymnasium."""

from __future__ import annotations

import gymnasium
import pettingzoo

from tris_envs.games import GAMES


def register_pettingzoo() -> None:
    """Register every environment as ``tris_envs/<name>-v<version>`` in PettingZoo's registry.

    PettingZoo >= 1.26 has a registry (``pettingzoo.make("aec", "tris_envs/tant_fant-v0")``);
    with older versions this does nothing. Calling it again does nothing.
    """
    if not hasattr(pettingzoo, "register"):
        return
    registered = getattr(pettingzoo, "aec_registry", {})
    for spec in GAMES.values():
        if spec.pettingzoo_id not in registered:
            pettingzoo.register("aec", spec.pettingzoo_id, entry_point=f"{spec.env_module}:env")


def register_gymnasium() -> None:
    """Register the single-agent view of every game with Gymnasium.

    Ids are :attr:`~tris_envs.games.GameSpec.gymnasium_id` (``tris_envs/TantFant-v0``,
    ``tris_envs/Tris1-v0``, ...); ``gymnasium.make`` passes its keyword arguments
    (opponent, seat, render mode, game options) to
    :class:`~tris_envs.envs.single_agent.SingleAgentEnv`, and
    ``gymnasium.make_vec(id, num_envs, vectorization_mode="vector_entry_point", ...)`` to
    :class:`~tris_envs.envs.vector.SingleAgentVectorEnv` (the other vectorization modes
    wrap single-agent environments). Calling it again does nothing.
    """
    for spec in GAMES.values():
        if spec.gymnasium_id not in gymnasium.registry:
            gymnasium.register(spec.gymnasium_id,
                               entry_point="tris_envs.envs.single_agent:SingleAgentEnv",
                               vector_entry_point="tris_envs.envs.vector:SingleAgentVectorEnv",
                               kwargs={"game_env": spec.name})
