"""The rules of doppia_scelta as a prompt for a player who never saw the game."""

from __future__ import annotations

from typing import Any


def rules_prompt(game: Any) -> str:
    """The rules, with the options of ``game`` in force."""
    return (f"You are playing doppia_scelta with options {game.options()}.")
