"""The optional extras a feature needs, and the one line that names a missing one.

:data:`EXTRA_MODULES` lists, per extra of ``pyproject.toml``, the modules its features
import; :func:`require` says, in one line, which extra to install when one of them is
absent. The command line checks every extra a command needs this way before the command
runs (:func:`tris_envs.cli.arguments.needs_extra`), so a missing extra stops it before it
writes anything.
"""

from __future__ import annotations

import importlib.util
import sys

EXTRA_MODULES: dict[str, tuple[str, ...]] = {
    "train": ("torch", "stable_baselines3", "sb3_contrib"),
    "jax": ("jax", "optax", "pgx") + (("mctx",) if sys.version_info >= (3, 11) else ()),
    "openspiel": ("pyspiel",),
    "distributed": ("ray",),
    "render": ("pygame",),
}
"""The modules each extra brings that the package's features import."""

CPU_TORCH = "pip install torch --index-url https://download.pytorch.org/whl/cpu"
"""PyTorch's CPU-only build: installed before an extra that brings PyTorch, it keeps PyPI's
CUDA build (several GB on Linux) away."""

BRINGS_TORCH = frozenset({"train"})
"""The extras of :data:`EXTRA_MODULES` that bring PyTorch."""


class MissingExtra(ImportError):
    """An extra a feature needs is not installed; the message names it and how to install
    it, in one line."""


def missing_module(extra: str) -> str | None:
    """The first of ``extra``'s modules that is not installed, or ``None``."""
    for module in EXTRA_MODULES[extra]:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):           # a parent package missing or broken
            found = False
        if not found:
            return module
    return None


def install_hint(extra: str) -> str:
    """The command that installs ``extra`` (PyTorch's CPU-only build first where it brings
    PyTorch)."""
    command = f'pip install "tris_envs[{extra}]"'
    return f"{CPU_TORCH}, then {command}" if extra in BRINGS_TORCH else command


def require(extra: str, what: str) -> None:
    """Return if ``extra``'s modules are installed.

    Raises:
        MissingExtra: one is not: ``what`` (``"train az"``, ``"--ray"``) needs the extra,
            the module missing and the command that installs it, in one line.
    """
    module = missing_module(extra)
    if module is not None:
        raise MissingExtra(f"{what} needs the {extra} extra ({module} is not installed): "
                           f"{install_hint(extra)}")
