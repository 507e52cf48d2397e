"""Registration of every game of the registry with PettingZoo and Gymnasium.

Importing this module imports neither library; each function imports its own.
``import tris_envs`` calls :func:`register_on_import`: PettingZoo's ids
(``tris_envs/tant_fant-v0``) and Gymnasium's (``tris_envs/TantFant-v0``) are registered at
once where the library is imported already, else as soon as it is, so either import order
works and ``import tris_envs`` alone imports neither::

    import pettingzoo
    import tris_envs

    env = pettingzoo.make("aec", "tris_envs/tant_fant-v0", render_mode="ansi")

    import gymnasium as gym
    gym.register_envs(tris_envs)      # a no-op that names the import as used
    env = gym.make("tris_envs/TantFant-v0", opponent="greedy")
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

from tris_envs.games import GAMES, GameSpec

if TYPE_CHECKING:
    from importlib.abc import Loader


def register_pettingzoo() -> None:
    """Register every environment as ``tris_envs/<name>-v<version>`` in PettingZoo's registry.

    ``pettingzoo.make("aec", "tris_envs/tant_fant-v0", **kwargs)`` is then the module's
    ``env(**kwargs)``. A PettingZoo without a registry (no ``pettingzoo.register``) is
    left alone: its users import the ``*_v0`` modules. Calling it again does nothing.
    """
    import pettingzoo

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
    wrap single-agent environments). Each game's text environment, whose observation is a
    prompt and whose action a language model's reply, is :func:`text_gymnasium_id`
    (``tris_envs/TantFantText-v0``), made as :class:`~tris_envs.envs.text.TextEnv`.
    Calling it again does nothing.
    """
    import gymnasium

    for spec in GAMES.values():
        if spec.gymnasium_id not in gymnasium.registry:
            gymnasium.register(spec.gymnasium_id,
                               entry_point="tris_envs.envs.single_agent:SingleAgentEnv",
                               vector_entry_point="tris_envs.envs.vector:SingleAgentVectorEnv",
                               kwargs={"game_env": spec.name})
        if text_gymnasium_id(spec) not in gymnasium.registry:
            gymnasium.register(text_gymnasium_id(spec), entry_point="tris_envs.envs.text:TextEnv",
                               kwargs={"game_env": spec.name})


def text_gymnasium_id(spec: GameSpec) -> str:
    """The id of a game's text environment: ``tris_envs/TantFantText-v0``."""
    return spec.gymnasium_id.removesuffix(f"-v{spec.version}") + f"Text-v{spec.version}"


def register_on_import() -> None:
    """:func:`register_gymnasium` and :func:`register_pettingzoo`, each now if its library is
    imported, else as soon as it is (an import hook that leaves ``sys.meta_path`` when the
    library loads): ``import tris_envs`` calls it and imports neither library."""
    for library, register in (("gymnasium", register_gymnasium),
                              ("pettingzoo", register_pettingzoo)):
        if library in sys.modules:
            register()
        elif not any(isinstance(finder, _RegisterOnImport) and finder.library == library
                     for finder in sys.meta_path):
            sys.meta_path.insert(0, _RegisterOnImport(library, register))


class _RegisterOnImport:
    """A finder that finds nothing itself: when ``library`` is about to be imported it
    leaves ``sys.meta_path``, lets the other finders find it, and has its loader call
    ``register`` once the module has run."""

    def __init__(self, library: str, register: Callable[[], None]) -> None:
        self.library = library
        self.register = register

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> ModuleSpec | None:
        if name != self.library:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.loader is not None:
            spec.loader = cast("Loader", _RegisteringLoader(spec.loader, self.register))
        return spec


class _RegisteringLoader:
    """The library's own loader, then ``register``; the module keeps its own loader."""

    def __init__(self, loader: Any, register: Callable[[], None]) -> None:
        self.loader = loader
        self.register = register

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self.loader.exec_module(module)
        module.__loader__ = self.loader
        if module.__spec__ is not None:
            module.__spec__.loader = self.loader
        self.register()

    def __getattr__(self, name: str) -> Any:      # get_resource_reader, is_package, ...
        return getattr(self.loader, name)
