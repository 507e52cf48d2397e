"""tris_envs: PettingZoo environments for Tris 2, Tris 1, Tant Fant, Doppia scelta and Tritoc.

Environment modules follow PettingZoo's layout::

    from tris_envs import tant_fant_v0
    env = tant_fant_v0.env(render_mode="ansi", stalemate="loss")

Importing ``tris_envs`` itself is light: the rules cores (:mod:`tris_envs.games`,
:func:`make_game`) need neither PettingZoo, Gymnasium nor PyTorch. It registers every game
in PettingZoo's registry as ``tris_envs/tant_fant-v0`` and so on, and its single-agent view
in Gymnasium's as ``tris_envs/TantFant-v0``, each at once where the library is imported,
else as soon as it is (:mod:`tris_envs.registration`)::

    import pettingzoo
    import tris_envs

    env = pettingzoo.make("aec", "tris_envs/tant_fant-v0", render_mode="ansi")

    import gymnasium as gym
    gym.register_envs(tris_envs)
    env = gym.make("tris_envs/TantFant-v0", opponent="greedy")
"""

from __future__ import annotations

import importlib
from typing import Any

from tris_envs.core.errors import IllegalActionError
from tris_envs.games import GAMES, game_spec, make_game
from tris_envs.registration import register_on_import

# The version is written once, in pyproject.toml; the installed metadata is read on first
# use of ``tris_envs.__version__`` (importlib.metadata is kept out of ``import tris_envs``).
__version__: str
__all__ = ["GAMES", "IllegalActionError", "make_env", "make_game", "__version__"]

_ENV_MODULES = {spec.env_name for spec in GAMES.values()}

register_on_import()


def make_env(name: str, **kwargs: Any) -> Any:
    """``env()`` of game ``name`` (``"tant_fant"`` or ``"tant_fant_v0"``) with ``kwargs``.

    ``kwargs`` are the render mode and the game's options.
    """
    return importlib.import_module(game_spec(name).env_module).env(**kwargs)


def __getattr__(name: str) -> Any:
    """``tris_envs.tant_fant_v0`` and the other environment modules, imported on first use.

    ``tris_envs.__version__`` too: the installed distribution's version.
    """
    if name in _ENV_MODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if name == "__version__":
        from importlib.metadata import version

        globals()["__version__"] = found = version("tris_envs")
        return found
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
