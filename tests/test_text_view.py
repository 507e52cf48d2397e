"""The text view of every game (tris_envs.core.text): the rules prompt with the options in
force, the position prompt, and the reply parser that reads a move back or refuses it."""

from __future__ import annotations

import json
import time
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tris_envs.core.game import Game, resolve_chance
from tris_envs.core.text import (
    MAX_REPLY_CHARS,
    ReplyError,
    parse_reply,
    position_prompt,
    rules_prompt,
)
from tris_envs.games import GAMES, make_game

from checks import action_paths, follow_path

EXTRA_OPTIONS: dict[str, list[dict[str, Any]]] = {
    "tris1": [{"max_moves": 5}],
    "tris2": [{"setup": "placement", "max_side": 5}],
    "doppia_scelta": [{"gates": ("4,2,S", "0,2,N", "2,4,E", "2,0,W")}],
    "tritoc": [{"max_rerolls": 1}],
}
CASES = [(name, options) for name, spec in GAMES.items()
         for options in [*spec.option_sets, *EXTRA_OPTIONS.get(name, [])]]
IDS = [" ".join([name, *(f"{k}={v}"[:24] for k, v in options.items())])
       for name, options in CASES]
PROPERTY = settings(max_examples=5, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def player_position(game: Game, path: list[int], seed: int) -> Any:
    """The last position with a player to move on the random path (the start's if none)."""
    states = follow_path(game, path, seed)
    return next((s for s in reversed(states) if game.current_player(s) >= 0), None)


def first_position(game: Game) -> Any:
    """The start, with its dice rolled."""
    rng = np.random.default_rng(0)
    return resolve_chance(game, game.initial_state(rng), rng)


def reshaped(text: str, draw: st.DataObject) -> str:
    """``text`` with its case and spacing changed as a person might type it."""
    spaced = draw.draw(st.sampled_from([text, text.replace(" ", ""), text.replace(" ", "   "),
                                        text.replace(",", " , ")]))
    cased = draw.draw(st.sampled_from([spaced.upper(), spaced.lower(), spaced.swapcase()]))
    return f"  {cased}\n"


def refused(game: Game, state: Any, reply: str) -> str:
    """The reason ``parse_reply`` gives for refusing ``reply``; it must name the legal moves."""
    with pytest.raises(ReplyError) as caught:
        parse_reply(game, state, reply)
    reason = str(caught.value)
    assert f"Legal moves: {game.legal_names(state)}." in reason
    return reason


# ----- the parser ---------------------------------------------------------------------------
@pytest.mark.parametrize("name, options", CASES, ids=IDS)
@PROPERTY
@given(path=action_paths(80), seed=st.integers(0, 2**16), data=st.data())
def test_every_legal_move_parses_back(name: str, options: dict, path: list[int], seed: int,
                                      data: st.DataObject) -> None:
    game = make_game(name, **options)
    state = player_position(game, path, seed)
    if state is None:
        return
    legal = list(game.legal_actions(state))
    for action in legal:
        assert parse_reply(game, state, game.action_name(state, action)) == action
        assert parse_reply(game, state, game.action_to_string(state, action)) == action
    for action in data.draw(st.lists(st.sampled_from(legal), min_size=1, max_size=3)):
        for text in (game.action_name(state, action), game.action_to_string(state, action)):
            typed = reshaped(text, data)
            assert parse_reply(game, state, typed) == action
            wrapped = json.dumps({"move": typed})
            assert parse_reply(game, state, f"I think this is best.\n{wrapped}\nDone.") == action
            fenced = f"Reasoning: {{the centre}}...\n```json\n{wrapped}\n```"
            assert parse_reply(game, state, fenced) == action


@pytest.mark.parametrize("name, options", CASES, ids=IDS)
@PROPERTY
@given(path=action_paths(80), seed=st.integers(0, 2**16), data=st.data())
def test_illegal_moves_are_refused_with_why(name: str, options: dict, path: list[int],
                                            seed: int, data: st.DataObject) -> None:
    game = make_game(name, **options)
    state = player_position(game, path, seed)
    if state is None:
        return
    legal = set(game.legal_actions(state))
    names = {game.action_name(state, a).lower() for a in legal}
    illegal = [a for a in range(game.info.num_actions) if a not in legal
               and game.action_name(state, a).lower() not in names]
    if illegal:
        action = data.draw(st.sampled_from(illegal))
        move = game.action_name(state, action)
        why = game.explain_illegal(state, action)
        assert f"{move} is illegal: {why}" in refused(game, state, move)
        assert why in refused(game, state, f'OK: {{"move": "{move}"}}')


@pytest.mark.parametrize("name", list(GAMES))
def test_junk_and_malformed_replies_are_refused_with_a_reason(name: str) -> None:
    game = make_game(name)
    state = first_position(game)
    move = game.action_name(state, game.legal_actions(state)[0])
    assert "is not a move" in refused(game, state, "I resign, good game!")
    assert "is not a move of this game" in refused(game, state, '{"move": "z9 nowhere"}')
    assert "is not a string" in refused(game, state, '{"move": 4}')
    assert "is not a string" in refused(game, state, json.dumps({"move": [move]}))
    assert "not valid JSON" in refused(game, state, f"{{'move': '{move}'}}")
    assert 'has no "move" key' in refused(game, state, json.dumps({"action": move}))
    assert "empty" in refused(game, state, " \n ")
    assert "characters long" in refused(game, state, " " * (MAX_REPLY_CHARS + 1))
    assert "not text" in refused(game, state, None)  # type: ignore[arg-type]


def test_the_last_move_object_counts() -> None:
    game = make_game("tris1")
    state = game.initial_state(np.random.default_rng(0))
    reply = 'First {"move": "0,0"}, no: {"reason": "centre", "move": "1,1"} {"note": 1}'
    assert parse_reply(game, state, reply) == 4
    assert parse_reply(game, state, '{"answer": {"move": "2,2"}}') == 8
    assert parse_reply(game, state, 'Braces {in prose {"move": "0,2"} stay} fine') == 2
    assert parse_reply(game, state, 'A "quote" and {"move": "2,0 (a corner)"}') == 6
    reason = refused(game, state, '{"move": "1,1"} then {"move": "1,1", "move": "7,7"}')
    assert "'7,7' is not a move of this game" in reason


def test_pathological_replies_are_refused_quickly() -> None:
    game = make_game("tris1")
    state = game.initial_state(np.random.default_rng(0))
    n = MAX_REPLY_CHARS // 10
    replies = ['{"a":' * n, '{"move": "' + "{" * (MAX_REPLY_CHARS - 20),
               "{" * n + "}" * n, '{"a":' * n + "1" + "}" * n, '{"a": ' + "[" * n + "]" * n + "}",
               '{"move": "\\' * (n // 2), ('{"move"' + "{}" * 3) * (n // 2)]
    start = time.perf_counter()
    for reply in replies:
        assert len(reply) <= MAX_REPLY_CHARS
        refused(game, state, reply)
    assert time.perf_counter() - start < 2.0


@pytest.mark.parametrize("name", list(GAMES))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pieces=st.lists(st.one_of(
    st.text(max_size=12),
    st.sampled_from(['{', '}', '"', '\\', ':', ',', '"move"', '{"move": "', '"}', '```',
                     "move", "[", "]", "(", ")", "0,0", "1,1 N", "a1-b2", "right", "pass"])),
    max_size=30))
def test_fuzzed_replies_give_a_legal_action_or_a_reply_error(name: str,
                                                             pieces: list[str]) -> None:
    game = make_game(name)
    state = first_position(game)
    try:
        action = parse_reply(game, state, "".join(pieces))
    except ReplyError as error:
        assert "Legal moves:" in str(error)
    else:
        assert type(action) is int and action in game.legal_actions(state)


def test_no_move_is_due_at_the_end_or_at_the_dice() -> None:
    tris1 = make_game("tris1")
    with pytest.raises(ReplyError, match="the game is over"):
        parse_reply(tris1, tris1.from_notation("XXX/OO./..."), '{"move": "2,2"}')
    assert position_prompt(tris1, tris1.from_notation("XXX/OO./...")).endswith(
        "X wins with the line 0,0 0,1 0,2\n\nThe game is over.")
    tritoc = make_game("tritoc")
    start = tritoc.initial_state(np.random.default_rng(0))
    with pytest.raises(ReplyError, match="the dice are to be rolled"):
        parse_reply(tritoc, start, '{"move": "pass"}')
    assert position_prompt(tritoc, start).endswith("no player moves now.")


# ----- the prompts --------------------------------------------------------------------------
@pytest.mark.parametrize("name", list(GAMES))
def test_every_game_writes_its_own_rules_prompt(name: str) -> None:
    cls = GAMES[name].game_class
    assert cls.rules_prompt is not Game.rules_prompt, f"{cls.__name__} has no rules prompt"
    with pytest.raises(NotImplementedError, match="has no rules prompt"):
        Game.rules_prompt(make_game(name))


@pytest.mark.parametrize("name, options", CASES, ids=IDS)
def test_rules_prompts_are_short_and_name_the_seats(name: str, options: dict) -> None:
    game = make_game(name, **options)
    text = rules_prompt(game)
    assert len(text.split()) < 300
    assert "player_0" in text and "player_1" in text
    assert f"{game.max_moves} moves" in text or name == "tris1"


@pytest.mark.parametrize("name, options, says", [
    ("tris1", {}, ["'row,column'", "'1,1'", "player_0 plays X"]),
    ("tris1", {"max_moves": 5}, ["after 5 moves"]),
    ("tris2", {}, ["random orientations", "without limit", "'1,2 N'", "after 200 moves"]),
    ("tris2", {"max_side": 4}, ["at most 4x4 cells (the rule of 4)"]),
    ("tris2", {"max_side": 6, "max_moves": 80}, ["at most 6x6", "after 80 moves"]),
    ("tris2", {"setup": "placement"}, ["empty 3x3 block", "'0,1 XO/'", "placements included"]),
    ("tant_fant", {}, ["other than your own starting rank", "cannot move draws",
                       "'b1-b2'", "after 100 moves"]),
    ("tant_fant", {"stalemate": "loss"}, ["cannot move loses"]),
    ("tant_fant", {"diagonal_only": True}, ["Ranks and files do not win"]),
    ("tant_fant", {"repetition_draw": True}, ["third time the same position"]),
    ("doppia_scelta", {}, ["White (player_0) starts on 4,0 facing north and must exit from "
                           "0,4 northwards", "Black (player_1) starts on 4,4", "'right'"]),
    ("doppia_scelta", {"scheme": "shared_goal"}, ["starts on 4,1", "exit from 0,2"]),
    ("doppia_scelta", {"scheme": "swap"}, ["starts on 0,4 facing south and must exit from "
                                           "4,0 southwards"]),
    ("doppia_scelta", {"gates": ("4,2,S", "0,2,N", "2,4,E", "2,0,W")},
     ["starts on 2,4 facing west and must exit from 2,0 westwards"]),
    ("doppia_scelta", {"setup": "coloring"}, ["uncolored", "'2,3 R'"]),
    ("tritoc", {}, ["3 4 5 / 6 7 8 / 9 10 11", "two six-sided dice", "up to 3 more times",
                    "Only the win counts", "after 500 moves"]),
    ("tritoc", {"layout": "magic"}, ["6 11 4 / 5 7 9 / 10 3 8"]),
    ("tritoc", {"layout": "random"}, ["shuffled at random"]),
    ("tritoc", {"dice": "equal"}, ["sums 3 to 11 are equally likely"]),
    ("tritoc", {"max_rerolls": 1}, ["up to 1 more time;"]),
    ("tritoc", {"max_rerolls": 0}, ["If the roll allows nothing, you must pass"]),
    ("tritoc", {"reward": "points"}, ["1 point for each field you conquer and 5 more"]),
])
def test_rules_prompt_states_the_options_in_force(name: str, options: dict,
                                                  says: list[str]) -> None:
    text = rules_prompt(make_game(name, **options))
    for words in says:
        assert words in text


def test_position_prompt_of_tris1_exactly() -> None:
    game = make_game("tris1")
    assert position_prompt(game, game.from_notation("X../.O./...")) == """\
The position:
     0   1   2
  0  X │ / │ /
    ───┼───┼───
  1  / │ O │ /
    ───┼───┼───
  2  / │ / │ /
X to move (/ = empty die)

You are player_0 (X) and it is your turn.
Legal moves (7): 0,1; 0,2; 1,0; 1,2; 2,0; 2,1; 2,2
Answer with one JSON object naming one legal move as listed, e.g. {"move": "0,1"}."""


def test_position_prompt_of_tant_fant_exactly() -> None:
    game = make_game("tant_fant")
    assert position_prompt(game, game.from_notation("BBB/.../WWW w")) == """\
The position:
3  B ─ B ─ B
   │ ╲ │ ╱ │
2  . ─ . ─ .
   │ ╱ │ ╲ │
1  W ─ W ─ W
   a   b   c
White to move

You are player_0 (White) and it is your turn.
Legal moves (5): a1-a2; a1-b2; b1-b2; c1-b2; c1-c2
Answer with one JSON object naming one legal move as listed, e.g. {"move": "a1-a2"}."""


def test_position_prompt_of_tris2_shows_every_face() -> None:
    game = make_game("tris2")
    state = game.from_notation("XO/O/XX/O|/XOOX//OX|O/XXO/OX/ 0 -")
    assert position_prompt(game, state) == """\
The position:
      0       1       2
    ┌─O─┐   ┌─/─┐   ┌─/─┐
  0 / X /   X O X   O X O
    └─O─┘   └─/─┘   └─/─┘
    ┌─X─┐   ┌─X─┐   ┌─O─┐
  1 O / O   / O /   X / X
    └─X─┘   └─X─┘   └─O─┘
    ┌─/─┐   ┌─O─┐   ┌─X─┐
  2 X O X   / X /   / O /
    └─/─┘   └─O─┘   └─X─┘
(each die: top in the middle; a roll N or S brings up the symbol above and below, E or W the \
one beside)
player_0 to roll

You are player_0 and it is your turn.
Legal moves (12): 0,0 N; 0,0 W; 0,1 N; 0,2 N; 0,2 E; 1,0 W; 1,2 E; 2,0 S; 2,0 W; 2,1 S; 2,2 E; \
2,2 S
Answer with one JSON object naming one legal move as listed, e.g. {"move": "0,0 N"}."""


def test_position_prompt_of_doppia_scelta_exactly() -> None:
    game = make_game("doppia_scelta", board="YGRGY/GGRYY/RRGGY/YYGGR/GRYGR")
    assert position_prompt(game, game.initial_state(np.random.default_rng(0))) == """\
The position:
      0   1   2   3   4
      Bg              Wg
0     Y   G   R   G   Y
1     G   G   R   Y   Y
2     R   R   G   G   Y
3     Y   Y   G   G   R
4     G△  R   Y   G   R▲
      Ws              Bs
White △▷▽◁  Black ▲▶▼◀  gates: Ws/Bs start, Wg/Bg goal
White to move: straight (gray), right (red)

You are player_0 (White) and it is your turn.
Legal moves (2): straight; right
Answer with one JSON object naming one legal move as listed, e.g. {"move": "straight"}."""


def test_position_prompt_of_tritoc_shows_the_roll() -> None:
    game = make_game("tritoc")
    rows = "/".join(["W........", *["........."] * 7, "........B"])
    text = position_prompt(game, game.from_notation(f"{rows} b 12 0"))
    assert text.endswith("""\
W = White (player_0) 0 pts, B = Black (player_1) 0 pts; passes 0
   ┌───────┐ ┌───────┐
   │ ●   ● │ │ ●   ● │
   │ ●   ● │ │ ●   ● │  the dice: 6 and 6, 12
   │ ●   ● │ │ ●   ● │
   └───────┘ └───────┘
Black rolled 12: remove a White stone

You are player_1 (Black) and it is your turn.
Legal moves (1): 0,0
Answer with one JSON object naming one legal move as listed, e.g. {"move": "0,0"}.""")
    assert " 0 │  W  4  5 │  3  4  5 │  3  4  5 │" in text


@pytest.mark.parametrize("name, options", CASES, ids=IDS)
def test_position_prompt_lists_the_legal_moves_and_the_drawing(name: str,
                                                               options: dict) -> None:
    game = make_game(name, **options)
    state = player_position(game, [7, 3, 11, 2, 5], 1)
    text = position_prompt(game, state)
    assert game.render_text(state) in text
    assert f": {game.legal_names(state)}\n" in text
    assert f"You are player_{game.current_player(state)}" in text
    if name == "tritoc":
        assert "the dice:" in text or "must pass" in text
