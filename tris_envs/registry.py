"""Names of the environments and their registration with PettingZoo's registry."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

ENV_MODULES: dict[str, str] = {
    "doppia_scelta_v0": "tris_envs.doppia_scelta_v0",
    "tant_fant_v0": "tris_envs.tant_fant_v0",
    "tris1_v0": "tris_envs.tris1_v0",
    "tris2_v0": "tris_envs.tris2_v0",
    "tritoc_v0": "tris_envs.tritoc_v0",
}
"""Environment name -> module with ``env()`` and ``raw_env``."""

NAMESPACE = "tris_envs"


def env_module(name: str) -> ModuleType:
    """The module of environment ``name`` (e.g. ``"tant_fant_v0"``)."""
    if name not in ENV_MODULES:
        raise ValueError(f"unknown environment {name!r}; choose one of {sorted(ENV_MODULES)}")
    return importlib.import_module(ENV_MODULES[name])


def make_game(name: str, **options: Any) -> Any:
    """The rules core of environment ``name`` (``"tant_fant"`` or ``"tant_fant_v0"``)."""
    if name not in ENV_MODULES and f"{name}_v0" in ENV_MODULES:
        name = f"{name}_v0"
    game_class = env_module(name).raw_env.game_class
    game_class.check_option_names(options)
    return game_class(**options)


def make_env(name: str, **kwargs: Any) -> Any:
    """``env()`` of environment ``name`` with ``kwargs`` (render mode and game options)."""
    return env_module(name).env(**kwargs)


def register_pettingzoo() -> None:
    """Register every environment as ``tris_envs/<name>`` in PettingZoo's registry.

    PettingZoo >= 1.26 has a registry (``pettingzoo.make("aec", "tris_envs/tant_fant-v0")``);
    with older versions this does nothing.
    """
    import pettingzoo

    if not hasattr(pettingzoo, "register"):
        return
    for name, module in ENV_MODULES.items():
        env_id = f"{NAMESPACE}/{name}"
        if env_id.replace("_v", "-v") not in getattr(pettingzoo, "aec_registry", {}):
            pettingzoo.register("aec", env_id, entry_point=f"{module}:env")
