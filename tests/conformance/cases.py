"""The (game, options) cases of the conformance suite, derived from the registry."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

import pytest

from tris_envs.games import GAMES, GameSpec

CASES = [pytest.param(spec, dict(options), id=f"{spec.name}-{i}")
         for spec in GAMES.values() for i, options in enumerate(spec.option_sets)]
"""Every game with every option set its registry entry lists."""

SPECS = [pytest.param(spec, id=spec.name) for spec in GAMES.values()]


def module_of(spec: GameSpec) -> Any:
    """The environment module (``env()``, ``raw_env``) of ``spec``."""
    return importlib.import_module(spec.env_module)


def history_free(options: Mapping[str, Any]) -> bool:
    """Whether position strings carry everything the result depends on.

    Tant Fant's repetition draw depends on the history, which position strings leave out.
    """
    return not options.get("repetition_draw", False)
