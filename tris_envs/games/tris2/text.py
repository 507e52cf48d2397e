"""Tris 2's rules as a prompt for a player who never saw the game (:mod:`tris_envs.core.text`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tris_envs.games.tris2.rules import Tris2


def rules_prompt(game: Tris2) -> str:
    """The rules of Tris 2 with ``game``'s setup, box limit (``max_side``) and move limit."""
    if game.setup == "placement":
        setup = ("Start: an empty 3x3 block. player_0, then player_1, alternately place a die "
                 "on an empty cell of the block in any orientation, written 'row,column' and "
                 "its top, north-south and east-west symbols, e.g. '0,1 XO/'. A placement "
                 "making three equal top symbols in a line is illegal. After the ninth "
                 "(player_0's), player_1 rolls first; then they alternate.")
    else:
        setup = ("Start: the dice fill a 3x3 block in random orientations, with no line of "
                 "three; player_0 rolls first, then player_1, and so on.")
    legal = ["the target cell is empty",
             "afterwards all nine dice form one group, each touching another at a side or a "
             "corner",
             "it does not roll the die the opponent just rolled straight back"]
    if game.max_side is None:
        limit = " The dice may spread out without limit."
    else:
        side = game.max_side
        legal.append(f"afterwards the smallest box around the dice is at most {side}x{side} "
                     f"cells (the rule of {side})")
        limit = ""
    placements = ", placements included" if game.setup == "placement" else ""
    return "\n".join((
        "Game: Tris 2, three in a row with rolling dice.",
        "Dice: nine dice on a grid. Each has three pairs of equal opposite faces, X, O and / "
        "(blank), so a die shows a top symbol, a north-south symbol and an east-west symbol. "
        "Nobody owns a symbol.",
        "Coordinates: 'row,column' in the smallest box around the dice, row 0 at the top, "
        "column 0 at the left; north is up. The box follows the dice, so coordinates can "
        "change after any move: read them from the current drawing.",
        setup,
        "A roll tips one die over an edge into the next cell, N (up), E, S or W, written as "
        "its cell before the roll and the direction, e.g. '1,2 N'. N or S swaps its top and "
        "north-south symbols; E or W swaps its top and east-west symbols. Legal only if "
        + "; ".join(legal) + "." + limit,
        "Win: if after your move three or more adjacent dice in a row, column or diagonal "
        "show the same top symbol, any symbol, you win.",
        "Draw: a player with no legal move draws; so does a game with no winner after "
        f"{game.max_moves} moves in all (both players'{placements}).",
    ))
