"""Tritoc's rules as a prompt for a player who never saw the game (:mod:`tris_envs.core.text`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tris_envs.games.tritoc.rules import Tritoc

LAYOUTS = {
    "ordered": "every field numbered 3 4 5 / 6 7 8 / 9 10 11, row by row",
    "magic": "every field numbered 6 11 4 / 5 7 9 / 10 3 8, row by row (a magic square)",
    "random": "each field's numbers shuffled at random for this game",
}
DICE = {
    "2d6": "two six-sided dice; their sum counts (7 most likely, 2 and 12 least)",
    "equal": "dice on which the sums 3 to 11 are equally likely and 2 and 12 each a third "
             "as likely",
}


def rules_prompt(game: Tritoc) -> str:
    """The rules of Tritoc with ``game``'s layout, dice, rerolls, scoring and move limit."""
    layout = (LAYOUTS[game.layout] if isinstance(game.layout, str)
              else "a fixed layout of its own")
    rerolls = game.max_rerolls
    if rerolls:
        reroll = (f"A roll that allows nothing is rolled again, up to {rerolls} more "
                  f"time{'s' if rerolls > 1 else ''}; if still nothing is allowed")
    else:
        reroll = "If the roll allows nothing"
    if game.reward == "points":
        aim = ("Scoring: 1 point for each field you conquer and 5 more for the win; aim for "
               "the most points.")
    else:
        aim = "Only the win counts (no points)."
    return "\n".join((
        "Game: Tritoc, tic-tac-toe on two levels driven by dice.",
        "Board: 81 holes in 9 rows and 9 columns, written 'row,column': rows 0-8 from top "
        "to bottom, columns 0-8 from left to right. It is split into nine fields of 3x3 "
        "holes. Every hole carries a number from 3 to 11, each number once in every field "
        f"({layout}); the drawing shows the number in each empty hole, W and B for stones.",
        "Players: player_0 is White (W) and moves first, player_1 is Black (B); they "
        "alternate.",
        f"Dice: each turn starts with a roll of {DICE[game.dice]}; it is shown with the "
        "position. On 3 to 11 place one of your stones on any empty hole with that number. "
        "On 12 remove one opponent stone, on 2 one of your own (compulsory), only from a "
        f"field not yet conquered. {reroll}, you must pass: write 'pass'.",
        "A move is written as the hole, e.g. '4,4', whether you place or remove there.",
        "Conquest: three of your stones in a row, column or diagonal inside a field conquer "
        "it: all nine holes become yours and it never changes again. A full field without "
        "such a line stays open.",
        "Win: three of your conquered fields in a row, column or diagonal of the 3x3 "
        "fields. " + aim,
        f"Draw: four passes in a row (by either player), or no winner after "
        f"{game.max_moves} moves in all (both players', passes included).",
    ))
