"""The browser app as a game board: moves by clicks on the picture, the setup's controls
from the games' declarations, watching, the evaluation panel, shared positions, records
stepped through, and the layout on a desktop and a phone.

The browser tests drive Debian's chromium headless (:mod:`browser`). With
``TRIS_ENVS_WEB_SCREENSHOTS=<folder>`` the layout test saves each page it checks there
(docs/screenshots/board_*.png and landing*.png come from
``TRIS_ENVS_WEB_SCREENSHOTS=docs/screenshots pytest tests/test_web_board.py -k layout``).
"""

from __future__ import annotations

import base64
import json
import os
import threading
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from browser import Browser, start_browser, start_game

from tris_envs.core.game import CHANCE, allows_win, can_win_at_once, resolve_chance, wins_at_once
from tris_envs.evaluation.records import GameRecord, replay
from tris_envs.games import GAMES, make_game
from tris_envs.web import make_server
from tris_envs.web.analysis import analyse, searched
from tris_envs.web.board import clicks, last_marks, status_line, won_marks
from tris_envs.web.catalogue import OPTION_HELP, agents
from tris_envs.web.session import Limits, Session
from tris_envs.web.svg import board_svg


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    app = make_server("127.0.0.1", 0)
    thread = threading.Thread(target=app.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{app.server_address[1]}"
    app.shutdown()
    app.server_close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    chromium = start_browser(tmp_path_factory.mktemp("chromium"))
    yield chromium
    chromium.close()


def get(base: str, path: str) -> Any:
    with urllib.request.urlopen(base + path, timeout=60) as response:
        text = response.read().decode()
        kind = response.headers["Content-Type"]
    return json.loads(text) if kind == "application/json" else text


def post(base: str, path: str, body: dict[str, Any]) -> Any:
    """The decoded JSON answer of a JSON POST (the page's way)."""
    request = urllib.request.Request(base + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read().decode())


def playouts(game: str, options: dict[str, Any], plies: int, seed: int) -> Iterator[Any]:
    """``(rules, state, before, action)`` along a random game: each position where a
    player is to move, with the move that led to it (``None`` at the start)."""
    rules = make_game(game, **options)
    rng = np.random.default_rng(seed)
    state = resolve_chance(rules, rules.initial_state(rng), rng)
    before: tuple[Any, int] | None = None
    for _ in range(plies):
        yield rules, state, before
        if rules.is_terminal(state):
            return
        legal = rules.legal_actions(state)
        action = int(legal[int(rng.integers(len(legal)))])
        before = (state, action)
        state = resolve_chance(rules, rules.apply(state, action), rng)


# ----- the board's targets, in-process -------------------------------------------------
SETS = [(name, options) for name, spec in GAMES.items() for options in spec.option_sets[:2]]
SETS += [("tris2", {"setup": "placement"}), ("doppia_scelta", {"setup": "coloring"})]


@pytest.mark.parametrize(("game", "options"), SETS)
def test_every_legal_move_is_clicks_on_the_board(game: str, options: dict[str, Any]) -> None:
    for rules, state, before in playouts(game, options, 120, seed=1):
        width, height = rules.picture_size(state)
        moves = clicks(rules, state)
        assert {move.action for move in moves} == set(rules.legal_actions(state))
        for move in moves:
            for target in filter(None, (move.first, move.second)):
                x, y, w, h = target.box
                assert -0.5 <= x and x + w <= width + 0.5 and y >= -0.5, (move, target)
                assert y + h <= height + 0.5, (move, target)
            firsts = [m for m in moves if m.first.key == move.first.key]
            assert all((m.second is None) == (move.second is None) for m in firsts)
        picture = board_svg(rules, state, "status", moves)
        for action in rules.legal_actions(state):
            assert f'data-action="{action}"' in picture
        if before is not None:
            assert last_marks(rules, before[0], before[1], state) or \
                rules.action_name(*before) == "pass"


def test_won_lines_are_outlined_and_statuses_left_to_the_page() -> None:
    for game in ("tris1", "tris2", "tant_fant", "tritoc"):
        won = 0
        for seed in range(40):
            *_, (rules, state, _) = playouts(game, {}, 600, seed)
            if rules.is_terminal(state) and rules.returns(state)[0] != 0:
                marks = won_marks(rules, state)
                assert len(marks) == 3, (game, rules.to_notation(state))
                status = status_line(rules, state)
                picture = board_svg(rules, state, status, (), (), marks)
                assert picture.count('class="won"') == 4 and status not in picture
                won += 1
                break
        assert won, game


def test_tritoc_dice_wait_for_the_person_and_roll_on_the_board() -> None:
    session = Session.new("tritoc", seats=("human", "random"), seed=3)
    view = session.view()
    assert view["roll"] and view["human_to_move"] and view["legal"] == []
    assert 'data-roll="1"' in view["svg"] and "data-action" not in view["svg"]
    with pytest.raises(ValueError, match="roll the dice first"):
        session.play(0)
    assert 'class="dice"' not in view["svg"]
    session.roll()
    view = session.view()
    assert not view["roll"] and view["legal"] and view["moves"][0]["actor"] == CHANCE
    roll = session.state.roll                # the roll drawn as two dice making its sum
    assert f'class="dice" data-sum="{roll}"' in view["svg"]
    assert f'aria-label="the roll: {roll // 2} and {roll - roll // 2}, {roll}"' in view["svg"]
    with pytest.raises(ValueError, match="no dice to roll"):
        session.roll()
    session.play(view["legal"][0]["action"])
    session.agent_move()                    # the agent rolls its own dice, then moves
    assert session.view()["roll"]
    session.swap()                          # the agent takes the seat that was to roll
    session.agent_move()
    assert [actor for actor, _ in session.record.moves] == [-1, 0, -1, 1, -1, 0]


def test_positions_open_from_strings_are_looked_at_and_played_on_from() -> None:
    session = Session.new("tant_fant", seats=("human", "human"), seed=0)
    for _ in range(4):
        session.play(session.view()["legal"][0]["action"])
    record = session.record
    assert session.at(0)["position"] == record.start
    assert [session.at(k)["position"] for k in (1, 4)] == [record.positions[0],
                                                          record.positions[3]]
    with pytest.raises(ValueError, match="positions 0 to 4"):
        session.at(5)
    assert session.analyse(1)["player"] == 1 and session.analyse(0)["player"] == 0
    session.back_to(2)
    assert session.view()["position"] == record.positions[1] and len(record.moves) == 2
    again = Session.new("tant_fant", seats=("human", "random"), position=record.positions[1])
    assert again.record.start == record.positions[1] and again.view()["moves"] == []
    with pytest.raises(ValueError, match="Tant Fant position"):
        Session.new("tant_fant", position="BBB/WWW w")


def test_a_journal_opens_at_any_of_its_games() -> None:
    lines = []
    for seed in (1, 2):
        session = Session.new("tris1", seats=("random", "random"), seed=seed)
        while session.to_move() >= 0:
            session.agent_move()
        lines.append(session.record_line())
    second = Session.open("".join(lines), index=1)
    assert second.opened == (1, 2)
    assert second.view()["position"] == GameRecord.from_json(lines[1]).positions[-1]
    with pytest.raises(ValueError, match="games 0 to 1"):
        Session.open("".join(lines), index=2)


@pytest.mark.parametrize("game", list(GAMES))
def test_the_evaluation_has_one_shape_for_every_game(game: str) -> None:
    rules = make_game(game)
    rng = np.random.default_rng(0)
    state = rules.initial_state(rng)          # Tritoc: the first roll still to come
    answer = analyse(rules, state, rng)
    expected = "solver" if GAMES[game].solvable else "az"
    assert answer["source"] == expected and answer["player"] == 0
    assert set(answer) == {"source", "label", "player", "value", "plies", "text", "moves"}
    legal = rules.legal_actions(state) if rules.current_player(state) != CHANCE else [None]
    assert sorted(map(str, (m["action"] for m in answer["moves"]))) == sorted(map(str, legal))
    values = [m["value"] for m in answer["moves"]]
    assert values == sorted(values, reverse=True) and all(-1 <= v <= 1 for v in values)
    for move in answer["moves"]:
        assert set(move) == {"action", "name", "value", "plies", "share", "text"}
    if expected == "solver":
        assert max(values) == answer["value"]          # perfect play keeps the value
    else:
        assert sum(m["share"] for m in answer["moves"]) == pytest.approx(1.0)


TACTICS = [
    ("tris2", "/XOO/XO/X...|/XOXO/...OX/|X/OXO/O/X... 1 1,3,E",
     "/XOO/XO/X|/XOXO//XO|X/OXO/O/X 0 -"),
    ("tris1", ".../.XO/.XO", "OOX/XXO/.X."),
    ("tant_fant", "BB./BWW/..W w", "B.B/BWW/..W b"),
    ("doppia_scelta", "GGRRY/YRRYY/RGYRY/GGGYY/RRRGR 4,0,S 0,0,N 4,0,S 0,4,N 4,4,S 0,0,N b",
     "YRYYR/YGYGR/YRRYR/YYYRR/YGGYG 0,4,E 1,1,S 4,0,S 0,4,N 4,4,S 0,0,N b"),
]
"""Per game: a position where a move wins at once, and one where a move hands the opponent
a win in one (and another does not)."""


@pytest.mark.parametrize(("game", "win", "handover"), TACTICS)
def test_wins_in_one_and_handovers_are_marked_won_and_lost(server: str, game: str, win: str,
                                                           handover: str) -> None:
    rules = make_game(game)
    for position in (win, handover):
        state = rules.from_notation(position)
        key = post(server, "/api/new", {"game": game, "seats": ["human", "human"],
                                        "position": position})["id"]
        served = post(server, f"/api/session/{key}/analyse", {})      # the solver's, if any
        search = searched(rules, state, np.random.default_rng(0), 5.0)
        assert search["source"] == "az"
        for answer in (served, search):
            values = {m["action"]: (m["value"], m["plies"]) for m in answer["moves"]}
            wins = [a for a in rules.legal_actions(state) if wins_at_once(rules, state, a)]
            handed = [a for a in rules.legal_actions(state) if allows_win(rules, state, a)]
            assert (wins or handed) and len(wins) + len(handed) < len(values)
            assert all(values[a] == (1.0, 1) for a in wins), answer
            assert all(values[a] == (-1.0, 2) for a in handed), answer
            assert answer["value"] == 1.0 or not wins
    assert "hands the opponent a win in one" in [m["text"] for m in search["moves"]]


def test_tritoc_wins_in_one_and_rolls_that_hand_one_over() -> None:
    rules = make_game("tritoc")
    state = rules.from_notation("WWWW..BBB/WWWW.WBBB/WWWBB.BBB/..WBBBBBB/BBWBBBBBB/WBBBBBBBB/"
                                "..WBBBWWW/BWBBBBWWW/.B.BBBWWW b 4 0")
    answer = analyse(rules, state, np.random.default_rng(0), 5.0)
    assert answer["moves"][0] == {"action": 28, "name": "3,1", "share": 1.0, "value": 1.0,
                                  "plies": 1, "text": "wins at once"}
    assert answer["value"] == 1.0 and answer["text"] == "win at once"
    state = rules.from_notation("WWWBBBBBB/WWWBBBBBB/WWWBBBBBB/WWWBBB.W./WWWBBBWBB/WWWBBBWWB/"
                                ".W.WWW.B./.BBWWW.BB/.W.WWW..W w 6 0")
    answer = analyse(rules, state, np.random.default_rng(0), 5.0)
    for move in answer["moves"]:
        after = rules.apply(state, move["action"])
        handed = sum(p for roll, p in rules.chance_outcomes(after)
                     if can_win_at_once(rules, rules.apply(after, roll)))
        assert (f"{handed:.0%} of the rolls give the opponent a win in one" in move["text"]) \
            == (handed > 0)
        assert move["value"] <= 1 - 2 * handed and move["plies"] is None
    assert any("rolls" in move["text"] for move in answer["moves"])


def test_the_catalogue_declares_the_options_and_lists_the_agents(server: str) -> None:
    games = get(server, "/api/catalogue")["games"]
    assert [game["name"] for game in games] == list(GAMES)
    for game in games:
        declared = GAMES[game["name"]].game_class.OPTION_TYPES
        assert {o["name"]: o["type"] for o in game["options"]} == \
            {name: kind.to_data()["type"] for name, kind in declared.items()}
        assert game["picture"].startswith("<svg")
    tris2 = [a["spec"] for a in get(server, "/api/agents?game=tris2&option=max_side=4")["agents"]]
    assert tris2[:3] == ["human", "random", "greedy"] and "solver" not in tris2
    assert {"mcts:{}", "mcts:{}s:decisive", "alphabeta:{}", "az", "az:{}"} <= set(tris2)
    assert not any("path" in spec or spec.startswith("openspiel") for spec in tris2)
    listed = {a["spec"]: a for a in agents("tris2", ["max_side=4"], Limits(simulations=500))}
    assert "az_tris2__max_side=4.npz" in listed["az"]["label"]
    assert listed["mcts:{}"]["budget"]["maximum"] == 500
    assert listed["mcts:{}"]["budget"]["default"] == 500          # 1000, capped
    assert "solver" in [a["spec"] for a in agents("tant_fant", [], Limits())]
    assert "solver" not in [a["spec"] for a in agents("doppia_scelta", ["setup=coloring"],
                                                          Limits())]
    assert get(server, "/favicon.ico").startswith("<svg")


def test_every_option_is_explained_in_the_setup_and_the_rules(server: str) -> None:
    games = get(server, "/api/catalogue")["games"]
    for game in games:
        assert OPTION_HELP[game["name"]].keys() == {o["name"] for o in game["options"]}
        for option in game["options"]:
            assert option["help"] == OPTION_HELP[game["name"]][option["name"]]
            assert option["help"].endswith(".") and len(option["help"]) > 30, option
    rules = get(server, "/static/rules.html")
    articles = {part.split('"', 1)[0]: part for part in rules.split('<article id="')[1:]}
    for game in games:
        if any(option["name"] == "fair" for option in game["options"]):
            assert "<code>fair</code>" in articles[game["name"]], game["name"]
    app = get(server, "/static/app.js")
    assert "option.help" in app and "rules-options" in app


# ----- the page in chromium ------------------------------------------------------------
MOVES = "document.querySelectorAll('#moves li').length"
RESULT = "document.getElementById('result').textContent"
POSITION = "document.getElementById('position').textContent"
READY = ("typeof view !== 'undefined' && view !== null && "
         "document.getElementById('thinking').hidden && "
         "(view.to_move < 0 || view.human_to_move)")

CONTROLS = [
    ("tris1", []),
    ("tris2", [("max_side", "4"), ("max_moves", "30")]),
    ("tris2", [("setup", "placement"), ("max_moves", "30")]),
    ("tant_fant", [("stalemate", "loss"), ("repetition_draw", True), ("max_moves", "30")]),
    ("doppia_scelta", [("scheme", "swap"), ("max_moves", "40")]),
    ("doppia_scelta", [("setup", "coloring"), ("max_moves", "40")]),
    ("tritoc", [("layout", "magic"), ("dice", "equal"), ("max_moves", "40")]),
]
"""Options set through the setup's controls before each game (short games: max_moves);
the setup phases are clicks on a cell, then on a chip (an orientation, a color)."""


def set_option(browser: Browser, name: str, value: Any) -> None:
    """An option set as a person does: a checkbox clicked, a number typed, a select's
    entry chosen (its value set and its change announced, as the list's popup would)."""
    selector = f'#options [data-option="{name}"]'
    kind = browser.js(f"(() => {{ const e = document.querySelector({json.dumps(selector)}); "
                      "return e.tagName === 'SELECT' ? 'select' : e.type; })()")
    if kind == "checkbox":
        if browser.js(f"document.querySelector({json.dumps(selector)}).checked") != value:
            browser.click(selector)
    elif kind == "select":
        browser.js(f"(() => {{ const e = document.querySelector({json.dumps(selector)}); "
                   f"e.value = {json.dumps(value)}; "
                   "e.dispatchEvent(new Event('change')); })()")
    else:
        browser.click(selector)
        browser.js(f"document.querySelector({json.dumps(selector)}).select()")
        browser.page("Input.insertText", text=value)
        browser.js(f"document.querySelector({json.dumps(selector)})"
                   ".dispatchEvent(new Event('change'))")


def choose_agent(browser: Browser, seat: int, spec: str) -> None:
    """The seat's select set to the entry of ``spec`` (its budget left at its default)."""
    index = browser.wait(f"(() => {{ const i = agents[{seat}].findIndex("
                         f"(a) => a.spec === {json.dumps(spec)}); return i < 0 ? null "
                         f": String(i); }})()")
    browser.js(f"(() => {{ const e = document.getElementById('seat{seat}-agent'); "
               f"e.value = {index}; e.dispatchEvent(new Event('change')); }})()")


def click_a_move(browser: Browser, rng: np.random.Generator) -> None:
    """One move by clicks on the board: the roll, or a first target then (when it takes
    two) one of the targets that lit up."""
    if browser.js("document.querySelector('#board [data-roll]') !== null"):
        browser.click("#board [data-roll]")
        return
    firsts = browser.js("[...document.querySelectorAll('#board .target.first')]"
                        ".map((e) => [e.dataset.first, e.dataset.action !== undefined])")
    assert firsts, "no move to click on the board"
    key, one = firsts[int(rng.integers(len(firsts)))]
    browser.click(f"#board .target.first[data-first={json.dumps(key)}]")
    if one:
        return
    seconds = browser.wait("[...document.querySelectorAll('#board .target.second.on')]"
                           ".map((e) => e.dataset.action)", timeout=10)
    action = seconds[int(rng.integers(len(seconds)))]
    browser.click(f"#board .target.second.on[data-action=\"{action}\"]")


def rules_result(server: str, key: str) -> tuple[str, str, dict[str, Any]]:
    """What the rules core says of the session's game, replayed from its record: the
    final position string, the result in the page's words, the options."""
    record = GameRecord.from_json(get(server, f"/api/session/{key}/record"))
    rules = make_game(record.game, **record.options)
    final = replay(rules, record)
    if rules.is_terminal(final):
        first, second = rules.returns(final)
        winner = 0 if first > second else 1
        result = "draw" if first == second else f"{record.players[winner]} (seat {winner}) wins"
    else:
        plies = sum(1 for actor, _ in record.moves if actor >= 0)
        assert plies == rules.info.max_moves
        result = f"stopped after {plies} plies (max_moves): a draw"
    return rules.to_notation(final), result, record.options


@pytest.mark.parametrize(("game", "controls"), CONTROLS,
                         ids=[f"{game}-{controls[0][0]}={controls[0][1]}" if controls
                              else game for game, controls in CONTROLS])
def test_browser_plays_every_game_by_clicks_on_the_board(browser: Browser, server: str,
                                                         game: str, controls: list[Any]) -> None:
    browser.resize(1280, 900)
    browser.page("Page.navigate", url=f"{server}/")
    browser.wait(f"document.querySelector('.card[data-game={game}] button.play') !== null")
    browser.click(f".card[data-game={game}] button.play")
    browser.wait(f"typeof view !== 'undefined' && view !== null && view.game === '{game}'")
    for name, value in controls:
        set_option(browser, name, value)
    choose_agent(browser, 1, "random")
    browser.click("#seed")
    browser.page("Input.insertText", text="7")
    first = browser.js("view.id")
    browser.click("#new")
    browser.wait(f"view.id !== '{first}' && view.seats[1] === 'random' && ({READY})")
    rng = np.random.default_rng(0)
    for _ in range(200):
        if browser.js(RESULT):
            break
        count = browser.js("view.moves.length")
        click_a_move(browser, rng)
        browser.wait(f"view.moves.length > {count} && ({READY})")
    result = browser.js(RESULT)
    assert result, "the game did not end"
    position, expected, options = rules_result(server, browser.js("view.id"))
    assert (browser.js(POSITION), result) == (position, expected)
    for name, value in controls:
        assert str(options[name]) == str(value)
    assert browser.js("document.getElementById('error').hidden")


def test_browser_watches_two_agents_with_pause_and_step(browser: Browser, server: str) -> None:
    browser.resize(1280, 900)
    start_game(browser, f"{server}/?game=tris1&seat0=human&seat1=random")
    browser.wait(f"typeof view !== 'undefined' && view !== null && ({READY})")
    choose_agent(browser, 0, "greedy")
    browser.js("document.getElementById('speed').value = 400")
    browser.click("#new")
    browser.wait("view.seats[0] === 'greedy' && !document.getElementById('watch').hidden")
    browser.click("#pause")
    browser.wait("document.getElementById('thinking').hidden && "
                 "!document.getElementById('step').disabled")
    paused_at = browser.js(MOVES)
    browser.click("#step")
    browser.wait(f"{MOVES} === {paused_at + 1} && document.getElementById('thinking').hidden")
    assert browser.js(MOVES) == paused_at + 1          # one move, then still paused
    browser.js("document.getElementById('speed').value = 0")
    browser.click("#pause")
    result = browser.wait(RESULT)
    position, expected, _ = rules_result(server, browser.js("view.id"))
    assert (browser.js(POSITION), result) == (position, expected)


@pytest.mark.parametrize(("game", "option"), [("tritoc", "layout=random"),
                                              ("tris2", "max_side=4")])
def test_a_shared_address_reopens_the_position(browser: Browser, server: str, game: str,
                                               option: str) -> None:
    browser.resize(1280, 900)
    start_game(browser, f"{server}/?game={game}&option={option}&seat0=human&seat1=random"
                        "&seed=5")
    browser.wait(f"typeof view !== 'undefined' && view !== null && ({READY})")
    rng = np.random.default_rng(1)
    for _ in range(3):
        if browser.js(RESULT):
            break
        count = browser.js("view.moves.length")
        click_a_move(browser, rng)
        browser.wait(f"view.moves.length > {count} && ({READY})")
    shown = browser.js(f"[{POSITION}, view.status, JSON.stringify(view.options), view.id]")
    address = browser.js("location.href")
    assert "position=" in address
    start_game(browser, address)
    browser.wait(f"typeof view !== 'undefined' && view !== null && view.id !== '{shown[3]}'"
                 f" && ({READY})")
    again = browser.js(f"[{POSITION}, view.status, JSON.stringify(view.options), view.id]")
    assert again[:3] == shown[:3] and browser.js(MOVES) == 0


def test_browser_steps_through_an_opened_journal(browser: Browser, server: str,
                                                 tmp_path: Path) -> None:
    lines = []
    for seed in (1, 2):
        session = Session.new("tant_fant", seats=("greedy", "random"), seed=seed)
        while session.to_move() >= 0:
            session.agent_move()
        lines.append(session.record_line())
    journal = tmp_path / "games.jsonl"
    journal.write_text("".join(lines))
    record = GameRecord.from_json(lines[1])
    browser.resize(1280, 900)
    start_game(browser, f"{server}/?game=tant_fant&seat0=human&seat1=random")
    browser.wait(f"typeof view !== 'undefined' && view !== null && ({READY})")
    document = browser.page("DOM.getDocument")["root"]["nodeId"]
    node = browser.page("DOM.querySelector", nodeId=document, selector="#open")["nodeId"]
    browser.page("DOM.setFileInputFiles", nodeId=node, files=[str(journal)])
    browser.wait("!document.getElementById('journal').hidden")
    browser.js("(() => { const e = document.getElementById('journal-game'); e.value = 1; "
               "e.dispatchEvent(new Event('change')); })()")
    n = len(record.moves)
    browser.wait(f"{POSITION} === {json.dumps(record.positions[-1])} && {MOVES} === {n}")
    browser.js("document.activeElement.blur()")
    for _ in range(3):
        browser.key("ArrowLeft")
    browser.wait(f"{POSITION} === {json.dumps(record.positions[n - 4])}")
    assert not browser.js("document.getElementById('browse').hidden")
    browser.click("#hint")                        # the evaluation of the position looked at
    rules = make_game("tant_fant")
    legal = rules.legal_actions(rules.from_notation(record.positions[n - 4]))
    browser.wait(f"document.querySelectorAll('#hint-list li').length === {len(legal)}")
    browser.click(f"#moves li[data-index='{n - 1}']")
    browser.wait(f"{POSITION} === {json.dumps(record.positions[n - 2])}")
    browser.click("#prev")
    browser.wait(f"{POSITION} === {json.dumps(record.positions[n - 3])}")
    browser.click("#resume")
    browser.wait(f"{MOVES} === {n - 2} && document.getElementById('browse').hidden")
    assert browser.js(POSITION) == record.positions[n - 3]


def test_browser_plays_by_keyboard(browser: Browser, server: str) -> None:
    browser.resize(1280, 900)
    start_game(browser, f"{server}/?game=tant_fant&seat0=human&seat1=random&seed=3")
    browser.wait(f"typeof view !== 'undefined' && view !== null && ({READY})")
    assert browser.js("document.getElementById('side').textContent") == \
        "You play White, first, against random."
    browser.js("document.querySelector('#board .target.first').focus()")
    browser.key("Enter")                          # the piece: its targets light up
    assert browser.wait("document.activeElement.classList.contains('second')")
    browser.key("Enter")                          # the point it goes to
    browser.wait(f"{MOVES} === 2 && ({READY})")
    browser.js("document.querySelector('#first-step button').focus()")
    browser.key("Enter")
    browser.wait("document.getElementById('second-step') !== null")
    browser.js("document.querySelector('#second-step button').focus()")
    browser.key("Enter")
    browser.wait(f"{MOVES} === 4 && ({READY})")
    browser.js("document.activeElement.blur()")
    browser.key("u")
    browser.wait(f"{MOVES} === 2 && ({READY})")


HANDOVER = "/XOO/XO/X|/XOXO//XO|X/OXO/O/X 0 -"
"""Tris 2, player_0 to move: rolling the die at 2,2 east lets player_1 win at once."""
EVALUATED = ("!document.getElementById('analysis').hidden && "
             "document.getElementById('analysis-title').textContent !== 'thinking …' && "
             "document.querySelectorAll('#hint-list li').length")


def test_browser_marks_a_handover_before_and_after_it_is_played(browser: Browser,
                                                                server: str) -> None:
    browser.resize(1280, 900)
    start_game(browser, f"{server}/?game=tris2&seat0=human&seat1=human&position="
                        f"{urllib.parse.quote(HANDOVER, safe='')}")
    browser.wait(f"typeof view !== 'undefined' && view !== null && view.game === 'tris2' && "
                 f"({READY})")
    assert "win at once" in browser.js(
        "document.querySelector('#options [data-option=\"fair\"]').title")
    browser.click("#rules")                       # the rules explain every option
    assert browser.js("[...document.querySelectorAll('#rules-options dt')]"
                      ".map((e) => e.textContent)") == ["setup", "max_side", "fair", "max_moves"]
    browser.click("#rules-close")
    browser.click("#hint")
    browser.wait(EVALUATED)
    item = "document.querySelector('#hint-list li[data-action=\"81\"]')"
    assert browser.js(f"{item}.className") == "lost"
    assert browser.js(f"{item}.textContent") == "2,2 E: hands the opponent a win in one"
    browser.click('#board .target.first[data-first="2,2"]')
    arrow = '#board .target.second.on[data-action="81"]'
    browser.wait(f"document.querySelector({json.dumps(arrow)}) !== null")
    assert "lost" in browser.js(f"document.querySelector({json.dumps(arrow)}).className.baseVal")
    assert "hands the opponent" in browser.js(
        f"document.querySelector({json.dumps(arrow)}).querySelector('title').textContent")
    browser.click(arrow)                          # played: player_1 now wins in one
    browser.wait(f"{MOVES} === 1 && ({READY})")
    browser.click("#hint")
    browser.wait(EVALUATED)
    assert browser.js("document.getElementById('analysis-title').textContent").endswith(
        "For seat 1 (human): win at once")
    assert browser.js("document.querySelector('#hint-list li').className") == "won"
    assert browser.js("document.querySelector('#hint-list li').textContent").endswith(
        ": wins at once")
    assert browser.js("document.getElementById('bar-fill').style.width") == "0%"   # seat 1 wins


NOT_BLANK = """new Promise((done) => {
  const image = new Image();
  image.onload = () => {
    const canvas = document.createElement('canvas');
    canvas.width = image.width; canvas.height = image.height;
    const context = canvas.getContext('2d');
    context.drawImage(image, 0, 0);
    const pixels = context.getImageData(0, 0, image.width, image.height).data;
    const colours = new Set();
    let ink = 0;
    for (let i = 0; i < pixels.length; i += 4 * 97) {
      colours.add(pixels[i] << 16 | pixels[i + 1] << 8 | pixels[i + 2]);
      if (pixels[i] + pixels[i + 1] + pixels[i + 2] < 600) ink += 1;
    }
    done([image.width, image.height, colours.size, ink / (pixels.length / 4 / 97)]);
  };
  image.src = 'data:image/png;base64,' + DATA;
})"""
FITS = """(() => {
  const status = document.getElementById('status');
  const box = status.getBoundingClientRect();
  const svg = document.querySelector('#board svg');
  return [status.scrollWidth <= status.clientWidth, box.left >= 0,
          box.right <= window.innerWidth, document.documentElement.scrollWidth <=
          window.innerWidth && window.innerWidth === WIDTH, status.textContent !== '' &&
          !svg.textContent.includes(status.textContent), svg.getBoundingClientRect().width];
})()"""


@pytest.mark.parametrize(("width", "height"), [(1280, 900), (390, 844)])
def test_layout_fits_a_desktop_and_a_phone(browser: Browser, server: str, width: int,
                                           height: int) -> None:
    shots = os.environ.get("TRIS_ENVS_WEB_SCREENSHOTS")
    suffix = "" if width > 500 else "_phone"
    browser.resize(width, height)

    def shoot(name: str) -> None:
        data = browser.page("Page.captureScreenshot", format="png")["data"]
        size, colours, ink = (lambda r: (r[:2], r[2], r[3]))(
            browser.js(NOT_BLANK.replace("DATA", json.dumps(data))))
        assert size == [width, height] and colours > 20 and ink > 0.02, (name, colours, ink)
        if shots:
            Path(shots).mkdir(parents=True, exist_ok=True)
            Path(shots, f"{name}{suffix}.png").write_bytes(base64.b64decode(data))

    browser.page("Page.navigate", url=f"{server}/")
    browser.wait("document.querySelectorAll('.card svg').length === 5")
    assert browser.js(f"window.innerWidth === {width} && "
                      "document.documentElement.scrollWidth <= window.innerWidth")
    shoot("landing")
    for game in GAMES:
        start_game(browser, f"{server}/?game={game}&seat0=human&seat1=random&seed=2")
        browser.wait(f"typeof view !== 'undefined' && view !== null && view.game === "
                     f"'{game}' && ({READY})")
        if browser.js("view.roll"):
            browser.click("#board [data-roll]")
            browser.wait(f"!view.roll && ({READY})")
        browser.click("#hint")
        browser.wait("document.querySelectorAll('#hint-list li').length > 0")
        if browser.js("document.querySelector('#board .target.first:not([data-action])') "
                      "!== null"):
            browser.click("#board .target.first:not([data-action])")
            browser.wait("document.querySelector('#board .target.second.on') !== null")
        browser.js("window.scrollTo(0, 0)")
        fits = browser.js(FITS.replace("WIDTH", str(width)))
        assert fits[:5] == [True] * 5 and fits[5] > 0.8 * min(width, 520), (game, fits)
        shoot(f"board_{game}")
