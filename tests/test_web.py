"""``tris-envs serve``: the server's routes, and the page played in a real browser.

The server tests run in-process on a free port. The browser tests drive Debian's
chromium (``/usr/bin/chromium``; ``.ci/run`` installs it) headless through the DevTools
protocol over a pipe (``--remote-debugging-pipe``): nothing is downloaded and no Python
package beyond the standard library is needed (:mod:`browser`). Clicks are real mouse
events at the buttons' places; a page of another origin frames the app, and an address only
fills in the setup. Without chromium the browser tests are skipped, unless
``CI`` is set: then they fail. tests/test_web_board.py plays on the board itself and takes
the screenshots of docs/play.md.
"""

from __future__ import annotations

import http.server
import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import Browser, open_address, start_browser, start_game
from test_llm_agent import FakeServer

from tris_envs.agents.llm import LLMServer
from tris_envs.cli import main
from tris_envs.evaluation.records import GameRecord, replay
from tris_envs.games import GAMES, make_game
from tris_envs.web import make_server
from tris_envs.web.server import Sessions
from tris_envs.web.session import Limits, Session


@pytest.fixture(scope="module")
def served() -> Iterator[http.server.ThreadingHTTPServer]:
    app = make_server("127.0.0.1", 0)
    thread = threading.Thread(target=app.serve_forever, daemon=True)
    thread.start()
    yield app
    app.shutdown()
    app.server_close()


@pytest.fixture(scope="module")
def server(served: http.server.ThreadingHTTPServer) -> str:
    return f"http://127.0.0.1:{served.server_address[1]}"


@pytest.fixture(scope="module")
def sessions(served: Any) -> Sessions:
    """The server's games."""
    held: Sessions = served.RequestHandlerClass.sessions
    return held


def request(base: str, path: str, body: Any = None) -> tuple[int, Any]:
    """``(status, decoded JSON or text)`` of a GET (``body`` None) or a JSON POST."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method="GET" if body is None
                                 else "POST", headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as response:
            status, raw, kind = response.status, response.read(), response.headers
    except urllib.error.HTTPError as error:
        status, raw, kind = error.code, error.read(), error.headers
    text = raw.decode()
    return status, json.loads(text) if kind["Content-Type"] == "application/json" else text


# ----- the server ----------------------------------------------------------------------
def test_page_and_assets_are_served_by_the_package(server: str) -> None:
    status, page = request(server, "/")
    assert status == 200 and '<script src="/static/app.js">' in page
    assert "http" not in page.replace("http://www.w3.org", "")     # nothing from a CDN
    for name in ("app.js", "app.css"):
        status, text = request(server, f"/static/{name}")
        assert status == 200 and len(text) > 100 and "://" not in text
    assert request(server, "/static/../server.py")[0] == 404
    status, catalogue = request(server, "/api/games")
    assert [game["name"] for game in catalogue["games"]] == list(GAMES)


def test_a_game_against_an_agent_to_its_end_then_the_record_replays(server: str) -> None:
    status, view = request(server, "/api/new", {"game": "tris1", "seats": ["human", "random"],
                                                "seed": 3})
    assert status == 200 and view["human_to_move"] and len(view["legal"]) == 9
    assert view["svg"].startswith("<svg") and view["status"] == "X to move (/ = empty die)"
    key = view["id"]
    while view["to_move"] >= 0:
        if view["human_to_move"]:
            status, view = request(server, f"/api/session/{key}/move",
                                   {"action": view["legal"][0]["action"]})
        else:
            status, view = request(server, f"/api/session/{key}/agent", {})
        assert status == 200
    assert view["result"] and len(view["moves"]) >= 5
    status, text = request(server, f"/api/session/{key}/record")
    record = GameRecord.from_json(text)
    assert make_game("tris1").to_notation(replay(make_game("tris1"), record)) == view["position"]
    assert record.players == ["human", "random"] and record.returns != (0.0, 0.0) or \
        view["result"] == "draw"
    status, opened = request(server, "/api/open", {"text": text})
    assert status == 200 and opened["position"] == view["position"]
    assert opened["id"] != key and len(opened["moves"]) == len(view["moves"])


def test_bad_requests_get_a_message_and_a_4xx(server: str) -> None:
    cases = [("/api/new", {"game": "chess"}, 400, "unknown game"),
             ("/api/new", {"game": "tant_fant", "seats": ["human", "mtcs"]}, 400,
              "unknown agent spec"),
             ("/api/new", {"game": "tant_fant", "options": ["stalemate=lose"]}, 400,
              "choose one of 'draw', 'loss'"),
             ("/api/new", {"game": "tant_fant", "seats": ["human", "ppo:/no/such.zip"]}, 400,
              "no/such.zip"),
             ("/api/session/nope/move", {"action": 1}, 404, "no such game"),
             ("/api/open", {"text": "{}"}, 400, "no game record")]
    for path, body, code, words in cases:
        status, answer = request(server, path, body)
        assert (status, words in answer["error"]) == (code, True), (path, answer)
    _, view = request(server, "/api/new", {"game": "tant_fant", "seats": ["human", "greedy"]})
    key = view["id"]
    status, answer = request(server, f"/api/session/{key}/move", {"action": 0})
    assert status == 400 and "illegal" in answer["error"]
    status, answer = request(server, f"/api/session/{key}/agent", {})
    assert status == 400 and "yours to move" in answer["error"]
    status, answer = request(server, f"/api/session/{key}/undo", {})
    assert status == 400 and "nothing to undo" in answer["error"]
    assert request(server, f"/api/session/{key}", None)[1]["moves"] == []   # unchanged


def test_hints_solver_values_and_network_shares(server: str) -> None:
    _, view = request(server, "/api/new", {"game": "tant_fant", "seats": ["human", "solver"]})
    status, hint = request(server, f"/api/session/{view['id']}/analyse", {})
    assert status == 200 and hint["source"] == "solver"
    assert {move["name"] for move in hint["moves"]} == {m["name"] for m in view["legal"]}
    assert max(move["value"] for move in hint["moves"]) == 0      # the start is a draw
    session = Session.new("tritoc", seats=("human", "random"), seed=1)
    session.roll()                               # a person rolls the dice
    hint = session.analyse()
    assert hint["source"] == "az"
    assert sum(move["share"] for move in hint["moves"]) == pytest.approx(1.0)


def test_undo_goes_back_to_the_persons_turn_and_swap_hands_over_the_seat() -> None:
    session = Session.new("tant_fant", seats=("human", "greedy"), seed=0)
    start = session.view()["position"]
    session.play(session.view()["legal"][0]["action"])
    session.agent_move()
    assert len(session.record.moves) == 2 and session.view()["human_to_move"]
    session.undo()
    assert session.view()["position"] == start and session.record.moves == []
    session.swap()
    assert session.seats == ["greedy", "human"] and not session.view()["human_to_move"]
    session.agent_move()
    session.resign(1)
    assert session.view()["result"] == "human (seat 1) resigned: greedy wins"
    assert GameRecord.from_json(session.record_line()).returns == (1.0, -1.0)


def test_the_view_names_the_sides_in_the_games_own_words() -> None:
    session = Session.new("tant_fant", seats=("greedy", "human"), seed=0)
    assert session.view()["side"] == "You play Black, second, against greedy."
    session.swap()
    assert session.view()["side"] == "You play White, first, against greedy."
    assert Session.new("tris2", seats=("human", "human")).view()["side"] == \
        "Two people: player_0 first, player_1 second."
    assert Session.new("tris1", seats=("random", "greedy")).view()["side"] == \
        "Watching random as X, first, against greedy as O, second."


def test_agents_report_their_own_evaluation() -> None:
    session = Session.new("tant_fant", seats=("solver", "mcts:50"), seed=0)
    session.agent_move()
    assert session.evaluation == "solver: draw"
    session.agent_move()
    assert session.evaluation.startswith("mcts:50: ") and "simulations" in session.evaluation


@pytest.mark.parametrize("game", list(GAMES))
def test_every_game_against_the_scripted_agents(game: str) -> None:
    for spec in ("random", "greedy", "mcts:20", "mcts:20:decisive", "alphabeta:1"):
        session = Session.new(game, seats=(spec, "human"), seed=0)
        session.agent_move()
        assert session.record.players[0] == spec
        assert [move[0] for move in session.record.moves if move[0] >= 0] == [0]
        assert session.view()["human_to_move"]


@pytest.mark.slow
@pytest.mark.parametrize("game", list(GAMES))
def test_every_game_against_the_solver_and_the_trained_agents(game: str) -> None:
    for spec in ("solver", "ppo", "az", "az:0"):
        if spec == "solver" and not GAMES[game].solvable:
            with pytest.raises(ValueError, match="cannot play"):
                Session.new(game, seats=(spec, "human"), seed=0)
            continue
        session = Session.new(game, seats=(spec, "human"), seed=0)
        session.agent_move()
        assert session.view()["human_to_move"] and session.record.moves


def test_serve_refuses_a_port_out_of_range(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["serve", "--port", "70000"])
    assert stop.value.code == 2 and "not a port number" in capsys.readouterr().err


# ----- the page in chromium ------------------------------------------------------------
@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    chromium = start_browser(tmp_path_factory.mktemp("chromium"))
    yield chromium
    chromium.close()


MOVES = "document.querySelectorAll('#moves li').length"
RESULT = "document.getElementById('result').textContent"
POSITION = "document.getElementById('position').textContent"
READY = (f"({RESULT} !== '' || document.getElementById('first-step') !== null) && "
         "document.getElementById('thinking').hidden")


def play_in_browser(browser: Browser, server: str, game: str, tmp_path: Path,
                    seed: int, option: str = "") -> None:
    """A person (seat 0) against ``random``, all by clicks: a hint, a move, undo, the game
    to its end, the record downloaded, replayed here, and opened in the page again."""
    extra = f"&option={option}" if option else ""
    start_game(browser, f"{server}/?game={game}&seat0=human&seat1=random&seed={seed}{extra}")
    browser.wait(f"typeof view !== 'undefined' && view !== null && view.game === '{game}' "
                 f"&& location.search.includes('game={game}') && ({READY})")
    if browser.js("view.roll"):                  # Tritoc: a person rolls the dice first
        browser.click("#first-step button")
        browser.wait(f"!view.roll && ({READY})")
    legal = browser.js("document.querySelectorAll('#first-step button').length")
    browser.click("#hint")
    hinted = browser.wait("document.querySelectorAll('#hint-list li').length")
    assert hinted >= legal >= 1
    before = browser.js(MOVES)
    first_position = browser.js(POSITION)
    browser.click("#first-step button")
    if browser.js("document.getElementById('second-step') !== null"):
        browser.click("#second-step button")
    browser.wait(f"{MOVES} > {before} && ({READY})")
    browser.click("#undo")
    browser.wait(f"{MOVES} === {before} && ({READY})")
    assert browser.js(POSITION) == first_position
    for _ in range(1000):
        if browser.js(RESULT):
            break
        count = browser.js(MOVES)
        browser.click("#first-step button:last-child")
        if browser.js("document.getElementById('second-step') !== null"):
            browser.click("#second-step button")
        browser.wait(f"{MOVES} > {count} && ({READY})")
    final = browser.js(POSITION)
    assert browser.js(RESULT), "the game did not end"
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    if option:
        assert browser.js("JSON.stringify(view.options)").find(
            json.dumps(option.split("=")[1])) > 0
    browser.command("Browser.setDownloadBehavior", behavior="allow",
                    downloadPath=str(downloads))
    browser.click("#download")
    saved = downloads / f"{game}.jsonl"
    deadline = time.monotonic() + 30
    while not saved.is_file() and time.monotonic() < deadline:
        time.sleep(0.05)
    record = GameRecord.from_json(saved.read_text())
    rules = make_game(game, **record.options)
    assert rules.to_notation(replay(rules, record)) == final
    open_address(browser, browser.js("location.href"))
    document = browser.page("DOM.getDocument")["root"]["nodeId"]
    node = browser.page("DOM.querySelector", nodeId=document, selector="#open")["nodeId"]
    browser.page("DOM.setFileInputFiles", nodeId=node, files=[str(saved)])
    browser.wait(f"{POSITION} === {json.dumps(final)} && {MOVES} === {len(record.moves)}")


def test_browser_plays_tris1_to_the_end(browser: Browser, server: str,
                                        tmp_path: Path) -> None:
    play_in_browser(browser, server, "tris1", tmp_path, seed=1)


@pytest.mark.slow
@pytest.mark.parametrize("game", list(GAMES))
def test_browser_plays_every_game_to_the_end(browser: Browser, server: str, tmp_path: Path,
                                             game: str) -> None:
    play_in_browser(browser, server, game, tmp_path, seed=2)


def test_a_thinking_agent_holds_up_no_other_game(server: str) -> None:
    _, slow = request(server, "/api/new", {"game": "tant_fant", "seats": ["mcts:1s", "human"]})
    _, other = request(server, "/api/new", {"game": "tris1", "seats": ["human", "random"]})
    answers: list[Any] = []
    thinking = threading.Thread(target=lambda: answers.append(
        request(server, f"/api/session/{slow['id']}/agent", {})))
    thinking.start()
    status, view = request(server, f"/api/session/{other['id']}/move", {"action": 4})
    assert status == 200 and view["moves"][0]["name"] == "1,1"
    assert thinking.is_alive()                   # the search of 1 s is still running
    thinking.join()
    assert answers[0][0] == 200 and len(answers[0][1]["moves"]) == 1


def test_browser_watches_two_agents(browser: Browser, server: str) -> None:
    start_game(browser, f"{server}/?game=tant_fant&seat0=greedy&seat1=random&seed=4")
    browser.wait("typeof view !== 'undefined' && view !== null && view.game === 'tant_fant'"
                 " && !document.getElementById('watch').hidden")
    browser.click("#pause")
    browser.wait("document.getElementById('thinking').hidden")
    paused_at = browser.js(MOVES)
    assert browser.js(RESULT) == "" and browser.js(MOVES) == paused_at
    browser.js("document.getElementById('speed').value = 0")
    browser.click("#pause")
    browser.wait(RESULT)
    assert browser.js(MOVES) > paused_at


def test_browser_shows_thinking_and_undo_wins_over_a_late_reply(browser: Browser,
                                                                 server: str) -> None:
    start_game(browser, f"{server}/?game=tant_fant&seat0=human&seat1=mcts:1s&seed=5")
    browser.wait("typeof view !== 'undefined' && view !== null && view.game === 'tant_fant'"
                 f" && ({READY})")
    browser.click("#first-step button")
    browser.click("#second-step button")
    browser.wait("!document.getElementById('thinking').hidden")
    browser.click("#undo")                       # while the agent still thinks
    browser.wait(f"{MOVES} === 0 && ({READY})")
    time.sleep(1.5)                              # the agent's late answer arrives, unused
    assert browser.js(MOVES) == 0 and browser.js(RESULT) == ""
    assert browser.js("document.getElementById('error').hidden")


def test_browser_shows_a_bad_spec_as_a_message(browser: Browser, server: str) -> None:
    start_game(browser, f"{server}/?game=tris1&seat0=human&seat1=mtcs")
    message = browser.wait("!document.getElementById('error').hidden && "
                           "document.getElementById('error').textContent")
    assert "unknown agent spec 'mtcs'" in message


@pytest.fixture
def requests_seen(served: http.server.ThreadingHTTPServer,
                  monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """The server's log of this test's requests: ``(method, path)`` of each answered."""
    seen: list[tuple[str, str]] = []
    monkeypatch.setattr(served.RequestHandlerClass, "log_request",
                        lambda handler, *_: seen.append((handler.command, handler.path)))
    return seen


def test_a_page_of_another_origin_cannot_frame_the_app(
        browser: Browser, server: str, sessions: Sessions,
        requests_seen: list[tuple[str, str]]) -> None:
    address = f"{server}/?game=tant_fant&seat0=mcts&seat1=mcts&seed=1"
    framing = (f'<iframe src="{address}" onload="window.framed = true" width="600" '
               'height="400"></iframe>').encode()

    class Other(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(framing)))
            self.end_headers()
            self.wfile.write(framing)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    other = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Other)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    before = len(sessions)
    try:
        browser.page("Page.navigate", url=f"http://127.0.0.1:{other.server_port}/")
        browser.wait("window.framed === true")
        time.sleep(1.0)                 # what a framed page would ask for by now
    finally:
        other.shutdown()
        other.server_close()
    # the frame's page was asked for, and refused by the browser: neither its script ran
    # nor did any game start
    assert ("GET", address.removeprefix(server)) in requests_seen
    assert requests_seen == [("GET", address.removeprefix(server))], requests_seen
    assert len(sessions) == before


def test_an_address_fills_in_the_setup_and_starts_nothing_until_new_game(
        browser: Browser, server: str, sessions: Sessions,
        requests_seen: list[tuple[str, str]]) -> None:
    opening = Session.new("tant_fant", seats=("human", "human"), seed=0)
    opening.play(opening.view()["legal"][0]["action"])
    position = opening.view()["position"]           # seat 1, greedy, is to move
    before = len(sessions)
    query = urllib.parse.urlencode({"game": "tant_fant", "seat0": "human", "seat1": "greedy",
                                    "seed": 4, "position": position})
    open_address(browser, f"{server}/?{query}")
    time.sleep(1.0)                     # what the page would have played by now
    form = browser.js("['game', 'seat0', 'seat1', 'seed', 'from']"
                      ".map((id) => document.getElementById(id).value)")
    assert form == ["tant_fant", "human", "greedy", "4", position]
    assert browser.js("view === null && document.getElementById('play').hidden")
    assert [method for method, _ in requests_seen if method != "GET"] == []
    assert len(sessions) == before
    browser.click("#new")
    browser.wait(f"view !== null && {MOVES} === 1 && ({READY})")
    assert [path for method, path in requests_seen if method == "POST"][:2] == [
        "/api/new", f"/api/session/{browser.js('view.id')}/agent"]
    assert len(sessions) == before + 1
    assert sessions.get(browser.js("view.id")).record.start == position


@pytest.mark.slow
@pytest.mark.parametrize(("game", "option"), [("tris2", "setup=placement"),
                                              ("doppia_scelta", "setup=coloring")])
def test_browser_plays_the_setup_phases(browser: Browser, server: str, tmp_path: Path,
                                        game: str, option: str) -> None:
    play_in_browser(browser, server, game, tmp_path, seed=3, option=option)


def test_browser_plays_a_language_model_named_in_the_text_box(
        browser: Browser, monkeypatch: pytest.MonkeyPatch) -> None:
    """With --llm-url the seats offer llm:<model>: an address fills the model's text box,
    and choosing the entry anew empties it for the person to type a model."""
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    fake = FakeServer()
    app = make_server("127.0.0.1", 0, Limits(seconds=3.0, llm=LLMServer(fake.url)))
    threading.Thread(target=app.serve_forever, daemon=True).start()
    box = "document.getElementById('seat0-budget')"
    pick = ("(() => {{ const s = document.getElementById('seat0-agent'); s.value = "
            "String([...s.options].findIndex((o) => o.textContent.startsWith('{}'))); "
            "s.onchange(); }})()")
    try:
        open_address(browser, f"http://127.0.0.1:{app.server_port}/?game=tris1"
                              "&seat0=llm:tiny&seat1=human")
        assert browser.js(f"[{box}.type, {box}.value, {box}.hidden]") == ["text", "tiny", False]
        browser.js(pick.format("random"))
        assert browser.js(f"{box}.hidden")
        browser.js(pick.format("llm:"))
        assert browser.js(f"[{box}.type, {box}.value, {box}.hidden]") == ["text", "", False]
        browser.js(f"{box}.value = 'tiny'")
        browser.click("#new")
        browser.wait(f"view !== null && {MOVES} === 1 && ({READY})")
        assert browser.js("view.players[0]") == "llm:tiny:timeout=1"
        assert fake.requests[-1][1]["model"] == "tiny"
    finally:
        app.shutdown()
        app.server_close()
        fake.close()
