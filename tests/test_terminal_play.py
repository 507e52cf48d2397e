"""``tris-envs play`` teaches: the session names the player's seat and the solved value of
the start, every prompt names the seat again, ``hint`` gives every legal move's value (the
solver's result, else the search's value and visit share), and a move that gives up the
game's value is played only when typed again after a warning. The terminal draws what the
picture draws: Tris 2's dice with their side faces, Tritoc's roll as two dice."""

from __future__ import annotations

import re
import sys

import numpy as np
import pexpect

from tris_envs.games import make_game
from tris_envs.play import HINT_SIMULATIONS, hint_lines, play_session


def _session(game: str, seat: int, typed: list[str], opponent: str = "random",
             **options) -> str:
    lines = iter(typed)
    shown: list[str] = []

    def read(prompt: str) -> str:
        try:
            return next(lines)
        except StopIteration:
            raise EOFError from None

    play_session(make_game(game), opponent, seat, seed=0, read=read, write=shown.append,
                 **options)
    return "\n".join(shown)


def test_hint_gives_the_solvers_value_of_every_move():
    game = make_game("tant_fant")
    state = game.from_notation("BBB/W../.WW b")              # White played a1-a2
    assert hint_lines(game, state, np.random.default_rng(0)) == [
        "hint (solver): c3-c2; every move for Black, under perfect play:",
        "  c3-c2  draw",
        "  a3-b2  loss in 10 plies",
        "  c3-b2  loss in 10 plies",
        "  b3-b2  loss in 8 plies"]


def test_hint_gives_the_searchs_value_and_visit_share_without_a_solver():
    game = make_game("tris2")
    state = game.from_notation("/XOO/XO/X|/XOXO//XO|X/OXO/O/X 0 -")
    lines = hint_lines(game, state, np.random.default_rng(0))
    assert lines[0].startswith(f"hint (mcts:{HINT_SIMULATIONS}): ")
    assert lines[0].endswith("every move for player_0, the search's mean return and share "
                             "of its visits:")
    rows = [re.fullmatch(r"  (\d,\d [NESW]) +value ([+-]\d\.\d\d), (\d+)% of the visits",
                         line) for line in lines[1:]]
    assert all(rows), lines
    names = [row.group(1) for row in rows]
    assert sorted(names) == sorted(game.action_name(state, a) for a in game.legal_actions(state))
    shares = [int(row.group(3)) for row in rows]
    assert shares == sorted(shares, reverse=True) and 95 <= sum(shares) <= 105
    assert lines[0].split(": ")[1].startswith(names[0] + ";")     # the most visited first


def test_the_session_names_the_seat_and_the_solved_start():
    text = _session("tant_fant", 0, [])
    assert text.startswith("tant_fant: you play White (seat 0, moving first) against random.\n"
                           "With perfect play on both sides this start is a draw (the exact "
                           "solver).\n")
    text = _session("tris1", 1, [])
    assert "you play O (seat 1, moving second) against random." in text
    assert "this start is a draw" in text
    text = _session("tris2", 1, [])
    assert "you play player_1 (seat 1, moving second)" in text
    assert "perfect play" not in text                         # no solver for Tris 2
    text = _session("doppia_scelta", 0, [])
    assert re.search(r"you play White \(seat 0, moving first\) against random\.\n"
                     r"With perfect play on both sides this start is (a draw|a (win|loss) "
                     r"for you in \d+ plies) \(the exact solver\)\.", text)


def test_a_move_that_gives_up_the_draw_is_played_when_typed_again():
    text = _session("tant_fant", 0, ["a1-b2", "moves", "a1-b2"])
    assert ("Not played yet: a1-b2 gives up the draw: against perfect play it loses in 12 "
            "plies. Moves that keep the draw: a1-a2; b1-b2; c1-c2. Type a1-b2 again to play "
            "it anyway.") in text
    assert text.count("Not played yet") == 1
    assert re.search(r"random plays [a-c]3-", text)            # a1-b2 was played
    quiet = _session("tant_fant", 0, ["a1-b2"], warn=False)
    assert "Not played yet" not in quiet and re.search(r"random plays [a-c]3-", quiet)
    kept = _session("tant_fant", 0, ["b1-b2"])
    assert "Not played yet" not in kept and re.search(r"random plays [a-c]3-", kept)


def test_hint_and_warning_in_a_terminal():
    child = pexpect.spawn(sys.executable, ["-m", "tris_envs.cli", "play", "tant_fant",
                                           "--opponent", "solver", "--first", "--seed", "1"],
                          encoding="utf-8", timeout=60, dimensions=(50, 200))
    child.expect(r"you play White \(seat 0, moving first\) against solver\.")
    child.expect("this start is a draw")
    child.expect("your move> ")
    child.sendline("hint")
    child.expect("  a1-b2  loss in 12 plies")
    child.expect("your move> ")
    child.sendline("c1-b2")
    child.expect("Not played yet: c1-b2 gives up the draw")
    child.expect("your move> ")
    child.sendline("quit")
    child.expect("You left the game.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_every_prompt_names_the_players_seat():
    prompts: list[str] = []

    def read(prompt: str) -> str:
        prompts.append(prompt)
        if len(prompts) == 3:
            raise EOFError
        return "moves"

    play_session(make_game("tris1"), "random", 1, seed=0, read=read, write=lambda line: None)
    assert prompts == ["you play O, second; your move> "] * 3


def test_a_tris2_terminal_shows_each_dies_side_faces_and_the_seat():
    child = pexpect.spawn(sys.executable, ["-m", "tris_envs.cli", "play", "tris2",
                                           "--opponent", "random", "--seed", "3"],
                          encoding="utf-8", timeout=60, dimensions=(60, 200))
    child.expect(r"you play player_1 \(seat 1, moving second\) against random\.")
    child.expect(r"random plays \d,\d [NESW] \(now (\d),(\d)\)")
    moved = int(child.match.group(1)), int(child.match.group(2))
    child.expect(r"\(each die: top in the middle; a roll N or S brings up the symbol above "
                 r"and below, E or W the one beside\)")
    board = child.before.splitlines()
    child.expect_exact("you play player_1, second; your move> ")
    # the die rolled last: its north-south symbol on a double edge above and below its row,
    # its east-west symbol on both sides of its top
    column = 4 + 8 * moved[1]
    rows = [line for line in board if line.strip()][1:]             # after the column numbers
    upper, middle, lower = (rows[3 * moved[0] + k][column:column + 5] for k in range(3))
    assert re.fullmatch(r"╔═([XO/])═╗", upper) and lower == upper.replace("╔", "╚").replace(
        "╗", "╝"), board
    side, top = middle[0], middle[2]
    assert re.fullmatch(r"([XO/]) [XO/] \1", middle) and len({upper[2], side, top}) == 3, board
    child.sendline("quit")
    child.expect("You left the game.")
    child.expect(pexpect.EOF)


def test_a_tritoc_terminal_draws_the_roll_as_two_dice():
    child = pexpect.spawn(sys.executable, ["-m", "tris_envs.cli", "play", "tritoc",
                                           "--opponent", "random", "--first", "--seed", "0"],
                          encoding="utf-8", timeout=60, dimensions=(60, 200))
    child.expect(r"   ┌───────┐ ┌───────┐\r\n((?:   │ [● ]{5} │ │ [● ]{5} │.*\r\n){3})"
                 r"   └───────┘ └───────┘\r\nWhite rolled (\d+): ")
    rows, roll = child.match.group(1).splitlines(), int(child.match.group(2))
    assert rows[1].endswith(f"  the dice: {roll // 2} and {roll - roll // 2}, {roll}")
    assert "".join(rows).count("●") == roll                      # the pips make the sum
    child.expect_exact("you play White, first; your move> ")
    child.sendline("quit")
    child.expect("You left the game.")
    child.expect(pexpect.EOF)
