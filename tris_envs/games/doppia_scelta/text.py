"""Doppia scelta's rules as a prompt for a player who never saw the game
(:mod:`tris_envs.core.text`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tris_envs.games.doppia_scelta.state import PLAYER_NAMES, SIZE, parse_gate

if TYPE_CHECKING:
    from tris_envs.games.doppia_scelta.rules import DoppiaScelta

WORDS = ("north", "east", "south", "west")


def gates_text(game: DoppiaScelta) -> str:
    """Where each robot enters and where it must leave, from ``game.gates``."""
    sentences = []
    for player, name in enumerate(PLAYER_NAMES):
        start, goal = (parse_gate(g) for g in game.gates[2 * player:2 * player + 2])
        sentences.append(f"{name} (player_{player}) starts on {_cell(start)} facing "
                         f"{WORDS[(start & 3) ^ 2]} and must exit from {_cell(goal)} "
                         f"{WORDS[goal & 3]}wards.")
    return " ".join(sentences)


def _cell(pose: int) -> str:
    return f"{(pose >> 2) // SIZE},{(pose >> 2) % SIZE}"


def rules_prompt(game: DoppiaScelta) -> str:
    """The rules of Doppia scelta with ``game``'s gates (its scheme or custom gates), setup
    and move limit."""
    if game.setup == "coloring":
        start = ("Start: the board begins uncolored (.). White first, the players alternately "
                 "color one cell, written 'row,column' and a letter, e.g. '2,3 R'. A coloring "
                 "is illegal if afterwards a robot that only obeyed the colors from its start "
                 "would exit through its goal over colored cells. No legal coloring: a draw. "
                 "White colors the 25th cell, then also makes the first robot move.")
    else:
        start = "Start: the board is colored; White moves first."
    return "\n".join((
        f"Game: Doppia scelta, a race of two robots on a {SIZE}x{SIZE} board of colored "
        "cells.",
        "Cells: yellow (Y), gray (G) or red (R), written 'row,column', row 0 at the top, "
        "column 0 at the left; north is up.",
        "Robots: " + gates_text(game) + " The drawing marks these gates Ws, Wg, Bs, Bg and "
        "shows White's robot as △▷▽◁, Black's as ▲▶▼◀, pointing where it faces. Robots may "
        "share a cell.",
        start,
        "Move: take the color under your robot or the one under the opponent's robot: "
        "yellow = turn left 90 degrees, gray = no turn, red = turn right 90 degrees. Your "
        "robot turns, then steps one cell forward. Write 'left', 'straight' or 'right'. A "
        "choice is usable if after the turn the cell ahead is on the board, or your robot "
        "stands on its goal cell facing out through its goal. If some choices are usable, "
        "only they are legal; otherwise all are, and the robot only turns. A robot never "
        "exits elsewhere.",
        "Win: your robot exits through its goal.",
        "Draw: both robots on gray cells facing the border, neither facing its own exit; or "
        f"no winner after {game.max_moves} moves in all (both players').",
    ))
