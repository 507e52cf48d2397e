"""The rules of tant_fant as a prompt for a player who never saw the game (tris_envs.core.text)."""

from __future__ import annotations

from typing import Any


def rules_prompt(game: Any) -> str:
    """The rules, with the options of ``game`` in force."""
    return (f"You are playing tant_fant with options {game.options()}.")
