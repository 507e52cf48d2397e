"""``tris-envs serve`` as a local service that trusts no page: a real HTTP client
(``http.client``, raw sockets) against the server on ``127.0.0.1``, on a free port, in a
thread. Requests from another origin, for another host or not of JSON are refused; every
answer forbids framing the page; the server listens on IPv6 and admits its own ``[::1]``; agent
specs are limited (no files unless the operator allows a folder, budgets capped, searches
with a deadline, language models only on the server the operator names, all their tries
within the deadline, never on a URL a page names); slow clients are cut off; seats are the
integers 0 and 1; a swap or a resignation while an agent thinks keeps the game consistent;
the sessions stay within their memory; a dropped connection is one line in the log. A
property test sends random agent specs and JSON bodies: 4xx with a message, never 5xx,
never a search past its cap.
"""

from __future__ import annotations

import gc
import http.client
import json
import select
import shutil
import socket
import struct
import threading
import time
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from test_llm_agent import FakeServer, first_legal, reply

from tris_envs.agents import MCTSAgent
from tris_envs.agents.alphabeta import AlphaBetaAgent
from tris_envs.agents.az import AZAgent, shipped_network
from tris_envs.agents.llm import LLMServer
from tris_envs.core.game import TERMINAL
from tris_envs.evaluation.records import GameRecord
from tris_envs.games import GAMES, make_game
from tris_envs.web import make_server
from tris_envs.web.server import MAX_BODY, Sessions
from tris_envs.web.session import MOVE_BYTES, Limits, Session

JSON = "application/json"


class App:
    """A running server: its port and its sessions."""

    def __init__(self, server: Any) -> None:
        self.server = server
        self.host: str = server.server_address[0]
        self.port: int = server.server_port
        self.sessions: Sessions = server.RequestHandlerClass.sessions

    def request(self, method: str, path: str, body: Any = None,
                headers: dict[str, str] | None = None) -> tuple[int, Any]:
        """``(status, JSON answer)``; a body is sent as JSON unless it is ``bytes``."""
        connection = http.client.HTTPConnection(self.host, self.port, timeout=30)
        sent = dict(headers or {})
        if body is not None and not isinstance(body, bytes):
            body = json.dumps(body).encode()
            sent.setdefault("Content-Type", JSON)
        try:
            connection.request(method, path, body, sent)
            response = connection.getresponse()
            raw = response.read()
            kind = response.getheader("Content-Type")
        finally:
            connection.close()
        return response.status, json.loads(raw) if kind == JSON else raw.decode()

    def post(self, path: str, body: Any = None, **headers: str) -> tuple[int, Any]:
        return self.request("POST", path, {} if body is None else body,
                            {name.replace("_", "-"): value for name, value in headers.items()})

    def new(self, seats: list[str], game: str = "tris1") -> dict[str, Any]:
        status, view = self.post("/api/new", {"game": game, "seats": seats, "seed": 0})
        assert status == 200, view
        return dict(view)


@contextmanager
def running(host: str = "127.0.0.1", **settings: Any) -> Iterator[App]:
    server = make_server(host, 0, **settings)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield App(server)
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def app() -> Iterator[App]:
    with running(limits=Limits(simulations=1000, seconds=2.0, depth=3)) as served:
        yield served


class Blocking:
    """An agent whose search ends only when the test says so (``release``)."""

    name = "blocking"

    def __init__(self) -> None:
        self.thinking, self.release = threading.Event(), threading.Event()

    def act(self, game: Any, state: Any) -> int:
        self.thinking.set()
        assert self.release.wait(30)
        return int(game.legal_actions(state)[0])


def thinking_agent(app: App) -> tuple[str, Blocking, threading.Thread, list[Any]]:
    """A Tris 1 session whose agent (seat 0) is searching when this returns: its id, the
    agent, the thread of the ``/agent`` request and the list its answer lands in."""
    key = app.new(["greedy", "human"])["id"]
    agent = Blocking()
    app.sessions.get(key).agents[0] = agent
    answer: list[Any] = []
    thread = threading.Thread(target=lambda: answer.append(app.post(f"/api/session/{key}/agent")))
    thread.start()
    assert agent.thinking.wait(30)
    return key, agent, thread, answer


# ----- who may ask -----------------------------------------------------------------------
def test_a_post_from_another_origin_is_refused(app: App) -> None:
    before = len(app.sessions)
    for origin in ("http://evil.example", f"http://evil.example:{app.port}", "null",
                   f"https://127.0.0.1:{app.port}", "http://127.0.0.1:1"):
        status, answer = app.post("/api/new", {"game": "tris1"}, Origin=origin)
        assert status == 403 and "refused" in answer["error"], (origin, answer)
    assert len(app.sessions) == before                 # nothing was created
    key = app.new(["human", "random"])["id"]
    status, answer = app.post(f"/api/session/{key}/resign", {"seat": 0},
                              Origin="http://evil.example")
    assert status == 403 and app.request("GET", f"/api/session/{key}")[1]["result"] == ""
    for origin in (f"http://127.0.0.1:{app.port}", f"http://localhost:{app.port}",
                   f"http://[::1]:{app.port}"):
        assert app.post("/api/new", {"game": "tris1"}, Origin=origin)[0] == 200


def test_a_request_for_a_foreign_host_is_refused_on_every_route(app: App) -> None:
    key = app.new(["human", "random"])["id"]
    for host in ("evil.example", f"evil.example:{app.port}", "127.0.0.1:1", f"1.2.3.4:{app.port}"):
        for method, path in (("GET", "/"), ("GET", "/api/games"), ("GET", f"/api/session/{key}"),
                             ("GET", f"/api/session/{key}/record"),
                             ("POST", f"/api/session/{key}/swap")):
            status, answer = app.request(method, path, {} if method == "POST" else None,
                                         {"Host": host})
            assert status == 403 and "host" in answer["error"], (host, path, answer)
    for host in (f"127.0.0.1:{app.port}", f"LOCALHOST:{app.port}", f"[::1]:{app.port}"):
        assert app.request("GET", "/api/games", None, {"Host": host})[0] == 200


def test_listening_on_every_address_a_host_may_be_an_ip_address_not_a_name() -> None:
    with running() as app:
        handler = app.server.RequestHandlerClass
        handler.any_address = True          # as --host 0.0.0.0 sets it, without listening so
        for host, status in ((f"192.168.1.7:{app.port}", 200), (f"[fe80::1]:{app.port}", 200),
                             ("192.168.1.7:1", 403), (f"rebound.example:{app.port}", 403)):
            assert app.request("GET", "/api/games", None, {"Host": host})[0] == status, host


def _ipv6_loopback() -> bool:
    """Whether this machine can listen on ``::1``."""
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.skipif(not _ipv6_loopback(), reason="this machine has no IPv6 loopback (::1)")
def test_the_server_listens_on_ipv6_and_admits_its_own_bracketed_host() -> None:
    with running("::1") as app:
        assert app.server.address_family == socket.AF_INET6
        status, view = app.post("/api/new", {"game": "tris1"}, Origin=f"http://[::1]:{app.port}")
        assert status == 200 and view["game"] == "tris1"        # Host: [::1]:port
        status, answer = app.request("GET", "/api/games", None, {"Host": f"[::2]:{app.port}"})
        assert status == 403 and "host" in answer["error"]


def test_serve_prints_an_ipv6_address_in_brackets(monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from tris_envs.web import server

    class Stub:
        server_port = 8000

        def serve_forever(self) -> None:
            pass

        def server_close(self) -> None:
            pass

    monkeypatch.setattr(server, "make_server", lambda *args: Stub())
    for host, url, reach in (("::1", "http://[::1]:8000/", "loopback only"),
                             ("::", "http://[::]:8000/", "other machines can reach"),
                             ("127.0.0.1", "http://127.0.0.1:8000/", "loopback only")):
        server.serve(host)
        out = capsys.readouterr().out
        assert f"listening on {url} " in out and reach in out, (host, out)


def test_every_answer_forbids_framing_the_page(app: App) -> None:
    key = app.new(["human", "random"])["id"]
    host = f"Host: 127.0.0.1:{app.port}\r\n"
    requests = [                                           # (what, raw request, status)
        ("page", f"GET /?game=tris1&seat0=mcts HTTP/1.1\r\n{host}", 200),
        ("static file", f"GET /static/app.js HTTP/1.1\r\n{host}", 200),
        ("icon", f"GET /favicon.ico HTTP/1.1\r\n{host}", 200),
        ("JSON", f"GET /api/games HTTP/1.1\r\n{host}", 200),
        ("record", f"GET /api/session/{key}/record HTTP/1.1\r\n{host}", 200),
        ("POST", f"POST /api/session/{key}/swap HTTP/1.1\r\n{host}Content-Type: {JSON}\r\n"
                 "Content-Length: 2\r\n\r\n{}", 200),
        ("no such page", f"GET /nowhere HTTP/1.1\r\n{host}", 404),
        ("foreign host", "GET / HTTP/1.1\r\nHost: evil.example\r\n", 403),
        ("foreign origin", f"POST /api/new HTTP/1.1\r\n{host}Origin: http://evil.example\r\n"
                           f"Content-Type: {JSON}\r\nContent-Length: 2\r\n\r\n{{}}", 403),
        ("unknown method", f"PUT / HTTP/1.1\r\n{host}", 501),          # http.server's own
        ("bad request line", "GET /a b HTTP/1.1\r\n", 400),
    ]
    for what, raw, status in requests:
        with socket.create_connection(("127.0.0.1", app.port), timeout=30) as client:
            client.sendall(raw.encode() + (b"" if raw.endswith("}") else b"\r\n"))
            client.shutdown(socket.SHUT_WR)
            answer = b""
            while chunk := client.recv(65536):
                answer += chunk
        head = answer.split(b"\r\n\r\n", 1)[0].decode().split("\r\n")
        headers = {line.split(":", 1)[0].lower(): line.split(":", 1)[1].strip()
                   for line in head[1:]}
        assert head[0].split()[1] == str(status), (what, head)
        assert headers.get("content-security-policy") == "frame-ancestors 'none'", (what, head)
        assert headers.get("x-frame-options") == "DENY", (what, head)


def test_a_post_that_is_not_json_is_refused(app: App) -> None:
    body = json.dumps({"game": "tris1"}).encode()
    for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data",
                 None):
        status, answer = app.request("POST", "/api/new", body,
                                     {} if kind is None else {"Content-Type": kind})
        assert status == 415 and "application/json" in answer["error"], (kind, answer)
    status, _ = app.request("POST", "/api/new", body,
                            {"Content-Type": "application/json; charset=utf-8"})
    assert status == 200


# ----- which agents -----------------------------------------------------------------------
def test_agent_files_are_refused_without_allow_files(app: App, tmp_path: Path) -> None:
    network = tmp_path / "net.npz"
    shutil.copy(shipped_network(make_game("tris1")), network)
    for spec in (f"az:{network}", f"az:{network}:5", "az:net.npz", f"ppo:{tmp_path}/x.pt",
                 "ppo:~/policy.pt", "az:../x.npz"):
        status, answer = app.post("/api/new", {"game": "tris1", "seats": [spec, "human"]})
        assert status == 400 and "--allow-files" in answer["error"], (spec, answer)
    for spec in ("openspiel-mcts:10", "openspiel-minimax:2"):
        status, answer = app.post("/api/new", {"game": "tris1", "seats": [spec, "human"]})
        assert status == 400 and "OpenSpiel" in answer["error"], answer
    for spec in ("az:5:batch=1", "az:100:exploration=0.6:mix=1"):
        status, answer = app.post("/api/new", {"game": "tris1", "seats": [spec, "human"]})
        assert status == 400 and "search settings" in answer["error"], (spec, answer)
    for spec in ("az", "az:5", "az:0", "ppo", "mcts:50", "solver"):
        assert app.new([spec, "human"])["seats"][0] == spec


def test_allow_files_plays_the_files_inside_the_folder_only(tmp_path: Path) -> None:
    folder, outside = tmp_path / "allowed", tmp_path / "outside"
    (folder / "runs").mkdir(parents=True)
    outside.mkdir()
    for place in (folder / "runs" / "net.npz", outside / "net.npz"):
        shutil.copy(shipped_network(make_game("tris1")), place)
    (folder / "link.npz").symlink_to(outside / "net.npz")
    with running(limits=Limits(files=folder)) as app:
        for spec in ("az:runs/net.npz:5", f"az:{folder}/runs/net.npz", "az:runs/../runs/net.npz"):
            view = app.new([spec, "human"])
            status, moved = app.post(f"/api/session/{view['id']}/agent")
            assert status == 200 and len(moved["moves"]) == 1, spec
        for spec in ("az:../outside/net.npz", f"az:{outside}/net.npz", "az:link.npz",
                     "ppo:../outside/policy.pt"):
            status, answer = app.post("/api/new", {"game": "tris1", "seats": [spec, "human"]})
            assert status == 400 and "outside" in answer["error"], (spec, answer)


class _Runs:
    """Unpickling this object writes a file: the mark that a pickle ran code."""

    def __init__(self, mark: Path) -> None:
        self.mark = mark

    def __reduce__(self) -> tuple[Any, ...]:
        return (Path.write_text, (self.mark, "the pickle ran"))


def test_pickled_ppo_files_are_never_loaded_even_inside_the_folder(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    import pickle

    mark = tmp_path / "ran"
    torch.save({"policy": _Runs(mark)}, tmp_path / "policy.pt")
    (tmp_path / "raw.pt").write_bytes(pickle.dumps(_Runs(mark)))
    with running(limits=Limits(files=tmp_path)) as app:
        for spec in ("ppo:policy.pt", "ppo:raw.pt"):
            status, answer = app.post("/api/new", {"game": "tris1", "seats": [spec, "human"]})
            assert 400 <= status < 500 and answer["error"], (spec, answer)
    assert not mark.exists()


def test_budgets_over_the_servers_caps_are_refused(app: App) -> None:
    cases = [("mcts:1001", "--max-simulations"), ("mcts:1001:decisive", "--max-simulations"),
             ("mcts:2.5s", "--max-seconds"), ("mcts:1000000000s", "--max-seconds"),
             ("alphabeta:4", "--max-depth"), ("alphabeta:3s", "--max-seconds"),
             ("az:1001", "--max-simulations"), ("mcts:100000000", "--max-simulations")]
    for spec, option in cases:
        status, answer = app.post("/api/new", {"game": "tris1", "seats": ["human", spec]})
        assert status == 400 and "at most" in answer["error"] and option in answer["error"], \
            (spec, answer)
    # the shipped Doppia scelta network's own budget is 6400 simulations
    status, answer = app.post("/api/new", {"game": "doppia_scelta", "seats": ["az", "human"]})
    assert status == 400 and "6400 simulations" in answer["error"], answer
    for spec in ("mcts", "mcts:2s", "alphabeta:3", "alphabeta:2s", "az:1000", "az:0"):
        assert app.post("/api/new", {"game": "tris1", "seats": ["human", spec]})[0] == 200, spec


def test_every_search_gets_the_deadline_and_the_depth_cap() -> None:
    limits = Limits(simulations=200, seconds=2.0, depth=3)
    session = Session.new("tris1", seats=("mcts:50", "alphabeta:2"), seed=0, limits=limits)
    mcts, alphabeta = session.agents
    assert isinstance(mcts, MCTSAgent) and isinstance(alphabeta, AlphaBetaAgent)
    assert (mcts.simulations, mcts.time_budget, mcts.name) == (50, 2.0, "mcts:50")
    assert (alphabeta.plies, alphabeta.time_budget) == (2, 2.0)
    timed = Session.new("tris1", seats=("alphabeta:1s", "mcts:1s"), seed=0, limits=limits)
    assert isinstance(timed.agents[0], AlphaBetaAgent) and timed.agents[0].plies == 3
    assert isinstance(timed.agents[1], MCTSAgent) and timed.agents[1].time_budget == 1.0
    assert timed.agents[1].simulations == 200     # a timed search stops at the cap as well
    timed.agents[1].act(timed.game, timed.state)
    assert timed.agents[1].last_simulations <= 200
    network = Session.new("tris1", seats=("az:10", "human"), seed=0, limits=limits)
    assert isinstance(network.agents[0], AZAgent) and network.agents[0].time_budget == 2.0
    free = Session.new("tris1", seats=("mcts:50", "alphabeta:2"), seed=0)   # Python: no caps
    assert [getattr(agent, "time_budget", None) for agent in free.agents] == [None, None]


# ----- connections -------------------------------------------------------------------------
# ----- language models ----------------------------------------------------------------------
KEY = "sk-operator-7d1e"


@pytest.fixture
def model_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeServer]:
    """A scripted chat-completions server on 127.0.0.1 (answers the first legal move)."""
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    fake = FakeServer()
    yield fake
    fake.close()


def llm_specs(app: App) -> list[str]:
    status, listed = app.request("GET", "/api/agents?game=tris1")
    assert status == 200
    return [entry["spec"] for entry in listed["agents"] if entry["spec"].startswith("llm")]


def test_llm_specs_are_refused_without_llm_url_even_with_openai_base_url(
        app: App, model_server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", model_server.url)
    for spec in ("llm:tiny", "llm:tiny:retries=0", "llm:llama3.2:1b"):
        status, answer = app.post("/api/new", {"game": "tris1", "seats": [spec, "human"]})
        assert status == 400 and "--llm-url" in answer["error"], (spec, answer)
    assert llm_specs(app) == [] and model_server.requests == []


def test_llm_agents_play_on_the_operators_server_within_the_deadline(
        model_server: FakeServer) -> None:
    with running(limits=Limits(seconds=3.0, llm=LLMServer(model_server.url, KEY))) as app:
        status, listed = app.request("GET", "/api/agents?game=tris1")
        entry = next(e for e in listed["agents"] if e["spec"].startswith("llm"))
        assert entry["spec"] == "llm:{}" and entry["text"] == {"name": "model"}
        view = app.new(["llm:tiny", "human"])
        agent = app.sessions.get(view["id"]).agents[0]
        assert agent.settings.timeout == 1.0          # 3 tries share --max-seconds 3
        assert view["players"][0] == "llm:tiny:timeout=1"
        status, moved = app.post(f"/api/session/{view['id']}/agent")
        assert status == 200 and len(moved["moves"]) == 1, moved
        headers, body = model_server.requests[-1]
        assert body["model"] == "tiny" and headers["Authorization"] == f"Bearer {KEY}"
        assert KEY not in json.dumps(moved) + json.dumps(listed)
        for spec, option in (("llm:tiny:timeout=1.5", "--max-seconds"),
                             ("llm:tiny:timeout=2:retries=1", "--max-seconds")):
            status, answer = app.post("/api/new", {"game": "tris1", "seats": [spec, "human"]})
            assert status == 400 and option in answer["error"], (spec, answer)
        assert app.new(["llm:tiny:timeout=1:retries=2", "human"])["seats"][0] \
            == "llm:tiny:timeout=1:retries=2"
        agent = app.sessions.get(app.new(["llm:tiny:retries=5", "human"])["id"]).agents[0]
        assert agent.settings.timeout == 0.5


def test_a_page_cannot_name_the_server_an_llm_agent_asks(model_server: FakeServer) -> None:
    with running(limits=Limits(seconds=3.0, llm=LLMServer(model_server.url))) as app:
        for spec, words in (("llm:x:url=http://127.0.0.1:9/v1", "never names the server"),
                            ("llm:http://evil.test/v1", "holds no URL"),
                            ("llm:x:base_url=evil.test", "not a setting of an llm agent"),
                            ("llm:x:server=evil.test", "not a setting of an llm agent"),
                            ("llm:x:key=sk-stolen", "not a setting of an llm agent")):
            status, answer = app.post("/api/new", {"game": "tris1", "seats": [spec, "human"]})
            assert status == 400 and words in answer["error"], (spec, answer)
        assert model_server.requests == []


def test_an_llm_agent_with_no_legal_reply_resigns_or_plays_a_random_move(
        model_server: FakeServer) -> None:
    replies = iter(["I pass.", '{"move": "9,9"}', "{move: 1,1}"] * 2)
    model_server.script = lambda body: reply(next(replies))
    with running(limits=Limits(seconds=3.0, llm=LLMServer(model_server.url))) as app:
        key = app.new(["llm:tiny", "human"])["id"]
        status, view = app.post(f"/api/session/{key}/agent")
        assert status == 200 and view["to_move"] == TERMINAL and view["moves"] == []
        assert view["result"].startswith("llm:tiny:timeout=1 (seat 0) resigned")
        assert "forfeits: no legal move in 3 tries" in view["evaluation"]
        assert json.loads(app.request("GET", f"/api/session/{key}/record")[1])["returns"] \
            == [-1.0, 1.0]
        key = app.new(["llm:tiny:on_illegal=random", "human"])["id"]
        status, view = app.post(f"/api/session/{key}/agent")
        assert status == 200 and len(view["moves"]) == 1
        assert "no legal move in 3 tries: a random legal move" in view["evaluation"]
        replies = iter([reply("pass")])
        model_server.script = lambda body: next(replies, None) or first_legal(body)
        key = app.new(["llm:tiny", "human"])["id"]
        status, view = app.post(f"/api/session/{key}/agent")
        assert status == 200 and len(view["moves"]) == 1
        assert "a legal move at try 2 (before: " in view["evaluation"]


def test_a_slow_model_forfeits_within_the_servers_deadline(model_server: FakeServer) -> None:
    model_server.script = lambda body: (*first_legal(body)[:2], 3.0)
    with running(limits=Limits(seconds=0.6, llm=LLMServer(model_server.url))) as app:
        key = app.new(["llm:tiny", "human"])["id"]
        began = time.monotonic()
        status, view = app.post(f"/api/session/{key}/agent")
        assert status == 200 and "no response within the timeout" in view["evaluation"]
        assert time.monotonic() - began < 1.5 and view["to_move"] == TERMINAL


def test_serve_names_the_llm_server_without_its_key(monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    from tris_envs.cli import main
    from tris_envs.web import server

    monkeypatch.setattr(server, "make_server", lambda *args: type(
        "Stub", (), {"server_port": 8000, "serve_forever": lambda self: None,
                     "server_close": lambda self: None})())
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    main(["serve", "--llm-url", "http://user:pw@127.0.0.1:11434/v1", "--max-seconds", "20"])
    out = capsys.readouterr().out
    assert "language models (llm:<model>) asked at http://127.0.0.1:11434/v1, all tries of " \
           "a move within 20 s" in out and KEY not in out and "pw" not in out
    main(["serve"])
    assert "no language models (--llm-url URL plays llm:<model>)" in capsys.readouterr().out
    with pytest.raises(SystemExit) as stop:
        main(["serve", "--llm-key", "k"])
    assert stop.value.code == 2 and "give --llm-url too" in capsys.readouterr().err


def test_a_slow_or_idle_client_is_cut_off() -> None:
    with running(timeout=0.3) as app:
        idle = socket.create_connection(("127.0.0.1", app.port), timeout=30)
        assert idle.recv(1024) == b""                  # closed by the server, nothing sent
        idle.close()
        for head in (b"POST /api/new HTTP/1.1\r\nHost: 127.0.0.1\r\n",
                     f"POST /api/new HTTP/1.1\r\nHost: 127.0.0.1:{app.port}\r\nContent-Type: "
                     f"{JSON}\r\nContent-Length: 100000\r\n\r\n".encode()):
            slow = socket.create_connection(("127.0.0.1", app.port), timeout=30)
            slow.sendall(head)
            answer = b""
            for _ in range(2000):                      # one byte each 10 ms: 20 s in all
                readable, _, _ = select.select([slow], [], [], 0.01)
                if readable:
                    answer = slow.recv(65536)
                    break
                try:
                    slow.sendall(b"X-a: b\r\n" if head.endswith(b"1\r\n") else b" ")
                except (BrokenPipeError, ConnectionResetError):
                    break
            else:
                pytest.fail("the server kept reading a trickling request for 20 s")
            slow.close()
            assert answer == b"" or answer.startswith(b"HTTP/1.0 408"), answer
        assert app.post("/api/new", {"game": "tris1"})[0] == 200   # it still serves


def test_a_dropped_connection_is_one_line_in_the_log(app: App,
                                                     capfd: pytest.CaptureFixture[str]) -> None:
    key = app.new(["greedy", "human"])["id"]
    agent = Blocking()
    app.sessions.get(key).agents[0] = agent
    client = socket.create_connection(("127.0.0.1", app.port), timeout=30)
    body = b"{}"
    client.sendall(f"POST /api/session/{key}/agent HTTP/1.1\r\nHost: 127.0.0.1:{app.port}\r\n"
                   f"Content-Type: {JSON}\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
    assert agent.thinking.wait(30)
    client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    client.close()                                     # a reset: the page went away
    capfd.readouterr()
    agent.release.set()
    log = ""
    for _ in range(300):
        log += capfd.readouterr().err
        if log:
            break
        threading.Event().wait(0.1)
    lines = log.strip().splitlines()
    assert len(lines) == 1 and "closed the connection" in lines[0], log
    assert f"/api/session/{key}/agent" in lines[0] and "Traceback" not in log


# ----- the games -------------------------------------------------------------------------
def test_a_seat_must_be_the_integer_0_or_1(app: App) -> None:
    key = app.new(["human", "random"])["id"]
    for seat in (0.0, 1.0, True, False, "0", None, 2, -1, [0]):
        status, answer = app.post(f"/api/session/{key}/resign", {"seat": seat})
        assert status == 400 and "integer 0 or 1" in answer["error"], (seat, answer)
    status, view = app.request("GET", f"/api/session/{key}")
    assert status == 200 and view["result"] == "" and view["to_move"] == 0
    status, view = app.post(f"/api/session/{key}/resign", {"seat": 1})
    assert status == 200 and view["result"].startswith("random (seat 1) resigned")
    assert app.request("GET", f"/api/session/{key}/record")[0] == 200


def test_a_swap_during_a_search_keeps_the_agents_move_out_of_the_persons_seat(app: App) -> None:
    key, agent, thread, answer = thinking_agent(app)
    status, view = app.post(f"/api/session/{key}/swap")       # not held up by the search
    assert status == 200 and view["seats"] == ["human", "greedy"] and view["human_to_move"]
    agent.release.set()
    thread.join(30)
    status, late = answer[0]
    assert status == 409 and "not played" in late["error"]
    view = app.request("GET", f"/api/session/{key}")[1]
    assert view["moves"] == [] and view["human_to_move"] and view["to_move"] == 0
    assert view["players"] == ["human", "greedy"]


def test_a_resignation_during_a_search_ends_the_game_without_the_agents_move(app: App) -> None:
    key, agent, thread, answer = thinking_agent(app)
    status, view = app.post(f"/api/session/{key}/resign", {"seat": 1})
    assert status == 200 and view["to_move"] == TERMINAL
    agent.release.set()
    thread.join(30)
    assert answer[0][0] == 409
    view = app.request("GET", f"/api/session/{key}")[1]
    assert view["moves"] == [] and view["result"].startswith("human (seat 1) resigned")


def cycling_record(moves: int) -> GameRecord:
    """A Tant Fant game of ``moves`` moves that only shuffles pieces back and forth."""
    game = make_game("tant_fant", max_moves=moves + 10)
    state = game.initial_state(np.random.default_rng(0))
    record = GameRecord("tant_fant", game.options(), ["a", "b"], game.to_notation(state))
    cycle = [3, 58, 27, 42]               # back where it started after four moves
    for ply in range(moves):
        mover = game.current_player(state)
        state = game.apply(state, cycle[ply % 4])
        record.moves.append((mover, cycle[ply % 4]))
        record.positions.append(game.to_notation(state))
    return record


def test_sessions_stay_within_their_memory_and_a_huge_record_is_not_kept() -> None:
    line = cycling_record(96).to_json()
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        kept = [Session.open(line) for _ in range(5)]
        gc.collect()
        used = sum(stat.size_diff for stat in
                   tracemalloc.take_snapshot().compare_to(before, "filename"))
    finally:
        tracemalloc.stop()
    assert 0 < used <= sum(session.footprint() for session in kept)   # an upper estimate
    each = kept[0].footprint()
    limits = Limits(session_bytes=each + MOVE_BYTES)
    with running(limits=limits, max_bytes=4 * each) as app:
        keys = []
        for _ in range(12):
            status, view = app.post("/api/open", {"text": line})
            assert status == 200, view
            keys.append(view["id"])
        assert len(app.sessions) == 4 and app.sessions.footprint() <= 4 * each
        assert [app.request("GET", f"/api/session/{key}")[0] for key in keys] == \
            [404] * 8 + [200] * 4
        huge = cycling_record(30_000).to_json()         # the largest body taken, nearly
        assert 800_000 < len(json.dumps({"text": huge})) <= MAX_BODY
        status, answer = app.post("/api/open", {"text": huge})
        assert status == 413 and "a game of 30000 moves" in answer["error"], answer
        assert len(app.sessions) == 4 and app.sessions.footprint() <= 4 * each


def test_a_game_that_outgrows_its_session_is_refused_more_moves() -> None:
    record = cycling_record(96)
    limits = Limits(session_bytes=Session.open(record.to_json()).footprint() + 2 * MOVE_BYTES)
    session = Session.open(record.to_json(), ("human", "human"), limits)
    session.play(3)
    session.play(58)
    with pytest.raises(ValueError, match="the most this server keeps per game"):
        session.play(27)
    assert len(session.record.moves) == 98


# ----- anything a page may send ----------------------------------------------------------
NUMBERS = st.one_of(st.integers(-3, 10**12).map(str), st.floats(allow_nan=True).map(repr),
                    st.sampled_from(["", "0", "0.0s", "1e9s", "infs", "nans", "-1s", "05"]))
FAMILIES = st.sampled_from(["mcts", "alphabeta", "az", "openspiel-mcts", "openspiel-minimax"])
SPECS = st.one_of(
    st.builds(lambda family, count, tail: f"{family}:{count}{tail}", FAMILIES,
              st.integers(0, 1200), st.sampled_from(["", ":decisive"])),
    st.builds(lambda family, seconds: f"{family}:{seconds}s", FAMILIES,
              st.sampled_from(["0.01", "0.02", "2.5", "1e9", "0", "-1"])),
    st.builds(lambda family, budget, tail: f"{family}:{budget}{tail}",
              st.sampled_from(["mcts", "alphabeta", "az", "ppo", "openspiel-mcts",
                               "openspiel-minimax", "random", "solver"]),
              NUMBERS, st.sampled_from(["", "s", ":decisive", "s:decisive", ":5", ":x"])),
    st.sampled_from(["human", "random", "greedy", "mcts", "alphabeta", "az", "solver",
                     "az:0", "ppo", "az:/etc/passwd", "ppo:../../x.zip", "az:~/x.npz:3"]),
    st.text(max_size=30))
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-2, 200) | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4), max_leaves=12)
BODIES = st.one_of(
    st.dictionaries(st.sampled_from(["game", "seats", "options", "seed", "text", "action",
                                     "seat"]), JSON_VALUES, max_size=5),
    JSON_VALUES)
ROUTES = st.sampled_from(["/api/new", "/api/open", "move", "agent", "undo", "resign", "swap",
                          "hint", "nope"])


def within_caps(agent: Any, limits: Limits, game: Any) -> bool:
    """Whether ``agent`` searches within ``limits`` (its latest search included)."""
    if isinstance(agent, MCTSAgent):
        return (agent.time_budget is not None and agent.time_budget <= limits.seconds
                and agent.last_simulations <= limits.simulations)
    if isinstance(agent, AlphaBetaAgent):
        return (agent.time_budget is not None and agent.time_budget <= limits.seconds
                and agent.depth_reached <= limits.depth)
    if isinstance(agent, AZAgent):
        return (agent.time_budget is not None and agent.time_budget <= limits.seconds
                and agent.budget(agent.network_for(game)) <= limits.simulations)
    return True


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(spec=SPECS, game=st.sampled_from(list(GAMES)), route=ROUTES, body=BODIES)
def test_random_specs_and_bodies_get_a_4xx_with_a_message_never_a_5xx(
        app: App, spec: str, game: str, route: str, body: Any) -> None:
    limits = app.server.RequestHandlerClass.limits
    status, view = app.post("/api/new", {"game": game, "seats": [spec, "human"], "seed": 1})
    event(f"new game: {status}")
    assert status == 200 or (400 <= status < 500 and view["error"]), (spec, view)
    if status == 200:
        session = app.sessions.get(view["id"])
        if view["to_move"] == 0:
            status, answer = app.post(f"/api/session/{view['id']}/agent")
            assert status == 200 or (400 <= status < 500 and answer["error"]), (spec, answer)
        assert all(within_caps(agent, limits, session.game) for agent in session.agents), spec
    path = route if route.startswith("/") else f"/api/session/{view.get('id', 'x')}/{route}"
    status, answer = app.post(path, body)
    event(f"{route}: {status}")
    assert status == 200 or (400 <= status < 500 and answer["error"]), (path, body, answer)
