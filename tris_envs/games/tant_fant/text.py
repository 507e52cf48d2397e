"""Tant Fant's rules as a prompt for a player who never saw the game
(:mod:`tris_envs.core.text`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tris_envs.games.tant_fant.rules import TantFant


def rules_prompt(game: TantFant) -> str:
    """The rules of Tant Fant with ``game``'s variants: which lines win, what a stalemate
    gives, repetition draws and the move limit."""
    if game.diagonal_only:
        win = ("Win: at once when your three pieces stand on one of the two long diagonals "
               "(a1-b2-c3 or a3-b2-c1). Ranks and files do not win.")
    else:
        win = ("Win: at once when your three pieces stand on one line (a rank, a file or a "
               "long diagonal) other than your own starting rank (White's rank 1, Black's "
               "rank 3). Three pieces on the opponent's starting rank do win.")
    stalemate = ("draws the game" if game.stalemate == "draw"
                 else "loses the game")
    lines = [
        "Game: Tant Fant, a three-in-a-row game with moving pieces.",
        "Board: 9 points in a 3x3 grid, named by file a-c (left to right) and rank 1-3 "
        "(bottom to top): a1 bottom left, b2 the centre, c3 top right. Lines join "
        "neighbouring points along the ranks, the files and the two long diagonals "
        "(a1-b2-c3, a3-b2-c1); no other lines.",
        "Players: player_0 is White (W) with three pieces on a1, b1, c1 and moves first; "
        "player_1 is Black (B) with three pieces on a3, b3, c3. They alternate.",
        "A move takes one of your pieces along a line to the next point, which must be "
        "empty; no jumps, no captures. Write it as from-to, e.g. 'b1-b2' (b1 reaches a1, c1 "
        "and b2, not a2; b2 reaches every point).",
        win,
        f"A player who cannot move {stalemate}.",
    ]
    if game.repetition_draw:
        lines.append("The third time the same position (the pieces and the player to move) "
                     "occurs, the game is a draw at once.")
    lines.append(f"The game ends as a draw after {game.max_moves} moves in all (both "
                 "players' moves counted) if nobody has won.")
    return "\n".join(lines)
