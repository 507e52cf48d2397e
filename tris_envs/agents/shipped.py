"""Where the trained networks shipped with the package live, and which one plays a variant."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tris_envs.core.game import Game

SHIPPED_DIR = Path(__file__).resolve().parent.parent / "checkpoints"
"""``tris_envs/checkpoints/``: the AlphaZero networks (``az_<game>[__<option>=<value>...].npz``)
and the PPO policies (``ppo_<game>[...].npz`` from the JAX learner, ``<game>.pt`` from
Stable-Baselines3) shipped with the package."""


def changed_options(game: Game, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """The options (``game``'s, or ``options`` of the same game) that differ from the
    game's defaults, ``max_moves`` aside: what names a variant."""
    defaults = type(game).OPTIONS
    options = game.options() if options is None else options
    return {k: v for k, v in sorted(options.items())
            if k != "max_moves" and v != defaults.get(k)}


def variant_name(game: Game, family: str = "az") -> str:
    """File stem of the ``family``'s network for ``game``'s options:
    ``<family>_<game>[__<opt>=<val>...]``."""
    return "__".join([f"{family}_{game.info.name}"]
                     + [f"{k}={v}" for k, v in changed_options(game).items()])


def shipped_variant(game: Game, family: str) -> Path | None:
    """The ``family``'s shipped ``.npz`` for ``game``: its variant's if shipped, else the
    game's default; ``None`` if neither is."""
    for stem in (variant_name(game, family), f"{family}_{game.info.name}"):
        path = SHIPPED_DIR / f"{stem}.npz"
        if path.is_file():
            return path
    return None
