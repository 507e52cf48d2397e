"""``tris-envs play`` teaches: the session names the player's seat and the solved value of
the start, ``hint`` gives every legal move's value (the solver's result, else the search's
value and visit share), and a move that gives up the game's value is played only when typed
again after a warning."""

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
