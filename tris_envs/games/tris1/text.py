"""Tris 1's rules as a prompt for a player who never saw the game (:mod:`tris_envs.core.text`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tris_envs.games.tris1.state import SYMBOLS

if TYPE_CHECKING:
    from tris_envs.games.tris1.rules import Tris1

FULL_GAME = 9
"""Plies in the longest game: a ``max_moves`` below it can cut a game short."""


def rules_prompt(game: Tris1) -> str:
    """The rules of Tris 1 (tic-tac-toe), with ``game.max_moves`` where it can end a game."""
    x, o = SYMBOLS
    lines = [
        "Game: Tris 1, tic-tac-toe played with dice.",
        "Board: a 3x3 grid of dice; every die starts showing / (empty). A cell is written "
        "'row,column': rows 0-2 from top to bottom, columns 0-2 from left to right; '0,0' is "
        "the top left, '1,1' the centre.",
        f"Players: player_0 plays {x} and moves first; player_1 plays {o}. They alternate.",
        "A move turns one empty die (showing /) to your symbol. Write it as its cell, e.g. "
        "'1,1'.",
        "Win: three of your symbols in a line (a row, a column or a diagonal) win at once. "
        "Draw: the board is full and nobody has a line.",
    ]
    if game.max_moves < FULL_GAME:
        lines.append(f"The game also ends as a draw after {game.max_moves} moves in all "
                     "(both players' moves counted) if nobody has won.")
    return "\n".join(lines)
