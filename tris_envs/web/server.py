"""``tris-envs serve``: the browser app's HTTP server (standard library only).

The page (``static/``: HTML, JavaScript, CSS; no build step, nothing from the network) talks
JSON to these routes:

=============================================  ==================================================
``GET /``                                      the page
``GET /static/<file>``                         its script, style sheet, rules and icon
``GET /favicon.ico``                           the icon
``GET /api/games``                             the games, their options and defaults, agent specs
``GET /api/catalogue``                         the games: declared options, pictures
``GET /api/agents?game=G&option=name=value``   the agents that play ``G`` with those options
``POST /api/new``                              ``{game, options: ["name=value"], seats, seed,
                                               position}`` (``position``: a position string)
``POST /api/open``                             ``{text, seats, index}``: a session at the end of
                                               a record (``index``: a journal's game)
``GET /api/session/<id>``                      the session's view (picture, legal moves, ...)
``GET /api/session/<id>/at/<n>``               the position after ``n`` moves, to look at
``POST /api/session/<id>/move``                ``{action}``: a person's move
``POST /api/session/<id>/agent``               the agent to move plays (its search may take time)
``POST /api/session/<id>/undo``                take back to the last position a person moved in
``POST /api/session/<id>/resign``              ``{seat}``
``POST /api/session/<id>/swap``                the seats change players
``POST /api/session/<id>/analyse``             ``{index}``: the evaluation panel of the position
                                               (after ``index`` moves; none: the game's)
``POST /api/session/<id>/roll``                a person rolls the dice (Tritoc)
``POST /api/session/<id>/back``                ``{index}``: play on from the position after
                                               ``index`` moves
``GET /api/session/<id>/record``               the game record, one JSON line (``.jsonl``)
=============================================  ==================================================

Each request runs in its own thread (:class:`~http.server.ThreadingHTTPServer`), so an
agent thinking in one game holds up no other page. Sessions are independent (one per
``/api/new``), kept in memory, the oldest dropped beyond :data:`MAX_SESSIONS`. A request
the rules or the agent factory refuse (an illegal move, an unknown spec, a bad option)
is answered ``400`` with ``{"error": message}``; an unknown session ``404``; a move that
raced an agent's search ``409``.

The server is a local service that trusts no web page (docs/play.md, "Threat model"):
every request must name the server's own address in ``Host`` (against DNS rebinding),
every ``POST`` must come from its own origin (``Origin``, when sent) with a
``Content-Type: application/json`` body, else ``403`` / ``415`` (:meth:`Handler._admit`,
the one place every route goes through). No other site may show the page in a frame: every
answer says so (:data:`NO_FRAMES`, sent by :meth:`Handler.send_response`), and the page
itself starts nothing before the person asks (an address only fills in the setup form).
The agents a page asks for are limited by the
server's :class:`~tris_envs.web.session.Limits` (no files unless the operator names a
folder, budgets capped, searches with a deadline, language models only on the server the
operator names with ``--llm-url``: a page never names a URL), the sessions by their total
memory (:class:`Sessions`), and each connection by a timeout.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import socket
import sys
import threading
import traceback
import urllib.parse
from collections import OrderedDict
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any

from tris_envs.agents.factory import AGENT_HELP
from tris_envs.core.errors import brief
from tris_envs.games import GAMES
from tris_envs.web import catalogue
from tris_envs.web.session import HUMAN, Conflict, Limits, Session, TooLarge

MAX_SESSIONS = 200
"""Sessions kept in memory; beyond it the least recently used is dropped."""
MAX_SESSION_BYTES = 64 << 20
"""The sessions' memory kept in all (their :meth:`~tris_envs.web.session.Session.footprint`);
beyond it the least recently used are dropped."""
MAX_BODY = 1 << 20
"""Largest request body accepted (bytes): a record of the longest game fits."""
TIMEOUT = 30.0
"""Seconds a connection may take to send its request (and each read or write may wait)."""
LOOPBACK = ("localhost", "127.0.0.1", "::1")
"""The names of this machine a request may give in ``Host`` and ``Origin`` (an IPv6
address in brackets there: ``[::1]``)."""
ANY_ADDRESS = ("", "0.0.0.0", "::")
"""``--host`` values that listen on every address (then a ``Host`` may be any IP address)."""
NO_FRAMES = {"Content-Security-Policy": "frame-ancestors 'none'", "X-Frame-Options": "DENY"}
"""Headers of every answer: no page, of this origin or another, may show this one in a frame
(a hidden frame would otherwise act for a site the person is visiting)."""
STATIC_TYPES = {".svg": "image/svg+xml",
                ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
                ".css": "text/css; charset=utf-8"}


class RequestError(Exception):
    """A request the server refuses with ``status`` and a message for the page."""

    def __init__(self, status: HTTPStatus, message: str) -> None:
        super().__init__(message)
        self.status = status


class Sessions:
    """The server's sessions by id, the least recently used dropped beyond ``limit``
    sessions or ``max_bytes`` of memory in all (each session's
    :meth:`~tris_envs.web.session.Session.footprint`, counted again at every use, so a
    session that grows makes room too); the session in use is never dropped."""

    def __init__(self, limit: int = MAX_SESSIONS, max_bytes: int = MAX_SESSION_BYTES) -> None:
        self.limit = limit
        self.max_bytes = max_bytes
        self._items: OrderedDict[str, Session] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, session: Session) -> Session:
        """Keep ``session``; return it."""
        with self._lock:
            self._items[session.id] = session
            self._make_room()
        return session

    def get(self, key: str) -> Session:
        """The session ``key``; :class:`RequestError` 404 if there is none."""
        with self._lock:
            session = self._items.get(key)
            if session is None:
                raise RequestError(HTTPStatus.NOT_FOUND, "no such game on this server (it "
                                   "was restarted, or the game is too old): start a new game")
            self._items.move_to_end(key)
            self._make_room()
        return session

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    def footprint(self) -> int:
        """The memory the sessions hold in all (bytes, an upper estimate)."""
        with self._lock:
            return sum(session.footprint() for session in self._items.values())

    def _make_room(self) -> None:
        """Drop the least recently used sessions, never the last one used."""
        total = sum(session.footprint() for session in self._items.values())
        while len(self._items) > 1 and (len(self._items) > self.limit
                                        or total > self.max_bytes):
            _, dropped = self._items.popitem(last=False)
            total -= dropped.footprint()


def games_catalogue() -> dict[str, Any]:
    """What the page's setup form offers: each game's options with their defaults (as
    the ``name=value`` text ``tris-envs play --option`` takes) and the agent specs."""
    games = []
    for spec in GAMES.values():
        options = {name: _option_text(value) for name, value in spec.game_class.OPTIONS.items()}
        games.append({"name": spec.name, "title": spec.title, "options": options,
                      "solvable": spec.solvable})
    return {"games": games, "human": HUMAN, "agent_help": AGENT_HELP}


def _option_text(value: Any) -> str:
    return value if isinstance(value, str) else repr(value)


class Handler(BaseHTTPRequestHandler):
    """Routes the page's requests to :class:`~tris_envs.web.session.Session` methods.

    Every request goes through :meth:`_admit` before its route. A connection gets
    :attr:`timeout` seconds to send its request, in all (a watchdog then shuts its reading
    side), and each later write may wait as long.
    """

    sessions: Sessions
    limits: Limits
    hosts: frozenset[str]
    """The ``host:port`` names of this server a request may give (lower case)."""
    any_address: bool
    """Listening on every address: a ``Host`` may also be any IP address with the port."""
    port: int
    """The port the server listens on."""
    timeout = TIMEOUT
    server_version = "tris-envs"

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the server prints its address, not every request."""

    def setup(self) -> None:
        super().setup()
        self._body_data: dict[str, Any] = {}
        self._late = False
        self._watchdog = threading.Timer(self.timeout, self._hang_up)
        self._watchdog.daemon = True
        self._watchdog.start()

    def _hang_up(self) -> None:
        """The request took longer than :attr:`timeout` to arrive: stop reading it."""
        self._late = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RD)

    def handle(self) -> None:
        """Serve the connection; one that the client drops is reported in one line."""
        try:
            super().handle()
        except ConnectionError as error:
            request = f"{getattr(self, 'command', None) or 'request'} " \
                      f"{brief(getattr(self, 'path', ''), 80)}"
            print(f"tris-envs serve: {request}: the client closed the connection "
                  f"({type(error).__name__})", file=sys.stderr, flush=True)
        finally:
            self._watchdog.cancel()

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        self._respond(self._get, post=False)

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        self._respond(self._post, post=True)

    # ----- routes --------------------------------------------------------------------
    def _get(self) -> Any:
        path = self.path.split("?", 1)[0]
        if path in ("/", "/index.html"):
            return _Static("index.html")
        if path.startswith("/static/"):
            return _Static(path[len("/static/"):])
        if path == "/favicon.ico":
            return _Static("favicon.svg")
        if path == "/api/games":
            return games_catalogue()
        if path == "/api/catalogue":
            return {"games": catalogue.games(), "human": HUMAN, "agent_help": AGENT_HELP}
        if path == "/api/agents":
            query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
            return {"agents": catalogue.agents(query.get("game", [""])[0],
                                               query.get("option", []), self.limits)}
        parts = path.split("/")
        if len(parts) == 4 and parts[:3] == ["", "api", "session"]:
            return self.sessions.get(parts[3]).view()
        if len(parts) == 6 and parts[:3] == ["", "api", "session"] and parts[4] == "at":
            if not (parts[5].isascii() and parts[5].isdigit()):
                raise ValueError(f"position {brief(parts[5])}: give a number of moves")
            return self.sessions.get(parts[3]).at(int(parts[5]))
        if len(parts) == 5 and parts[:3] == ["", "api", "session"] and parts[4] == "record":
            session = self.sessions.get(parts[3])
            return _Download(session.record_line(), f"{session.game.info.name}.jsonl")
        raise RequestError(HTTPStatus.NOT_FOUND, f"no page {brief(path)}")

    def _post(self) -> Any:
        path = self.path.split("?", 1)[0]
        body = self._body()
        if path == "/api/new":
            seats = body.get("seats", [HUMAN, "mcts"])
            options = body.get("options", [])
            if not (isinstance(options, list) and all(isinstance(o, str) for o in options)):
                raise ValueError(f"options must be a list of name=value texts, got "
                                 f"{brief(options)}")
            seed = body.get("seed")
            position = body.get("position")
            if position is not None and not isinstance(position, str):
                raise ValueError(f"position must be a position string, got {brief(position)}")
            return self.sessions.add(Session.new(str(body.get("game")), options,
                                                 _seats(seats), seed, self.limits,
                                                 position)).view()
        if path == "/api/open":
            text = body.get("text")
            if not isinstance(text, str):
                raise ValueError("open: send the record file's text")
            seats = _seats(body.get("seats", [HUMAN, HUMAN]))
            del body["text"]                # the text is not kept beyond the record
            return self.sessions.add(Session.open(text, seats, self.limits,
                                                  body.get("index", 0))).view()
        parts = path.split("/")
        if len(parts) != 5 or parts[:3] != ["", "api", "session"]:
            raise RequestError(HTTPStatus.NOT_FOUND, f"no action {brief(path)}")
        session, verb = self.sessions.get(parts[3]), parts[4]
        if verb == "analyse":
            return session.analyse(body.get("index"))
        actions: dict[str, Callable[[], None]] = {
            "move": lambda: session.play(body.get("action")),
            "roll": session.roll,
            "back": lambda: session.back_to(body.get("index")),
            "agent": session.agent_move,
            "undo": session.undo,
            "resign": lambda: session.resign(body.get("seat")),
            "swap": session.swap,
        }
        if verb not in actions:
            raise RequestError(HTTPStatus.NOT_FOUND, f"no action {brief(verb)}")
        actions[verb]()
        return session.view()

    # ----- plumbing ------------------------------------------------------------------
    def _admit(self, post: bool) -> None:
        """Refuse a request not for this server (``Host``), and a ``POST`` from another
        origin (``Origin``, when sent) or not of JSON (``Content-Type``); read a POST's body
        (:meth:`_body`). Every route goes through here.

        Raises:
            RequestError: 408, 403, 415, 413 or 400, saying why.
        """
        if self._late:
            raise RequestError(HTTPStatus.REQUEST_TIMEOUT, f"the request did not arrive "
                               f"within {self.timeout:g} s")
        host = self.headers.get("Host")
        if host is None or not self._own(host):
            raise RequestError(HTTPStatus.FORBIDDEN, f"request for host {brief(host)} refused: "
                               f"this server answers to {', '.join(sorted(self.hosts))}")
        if not post:
            self._watchdog.cancel()
            return
        origin = self.headers.get("Origin")
        if origin is not None and not (origin.lower().startswith("http://")
                                       and self._own(origin[len("http://"):])):
            raise RequestError(HTTPStatus.FORBIDDEN, f"request from the page of "
                               f"{brief(origin)} refused: only this server's own page may "
                               "change its games")
        kind = self.headers.get("Content-Type", "").split(";", 1)[0].strip().lower()
        if kind != "application/json":
            raise RequestError(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, f"request of type "
                               f"{brief(kind or 'none')} refused: send application/json")
        self._body_data = self._read_body()
        self._watchdog.cancel()

    def _own(self, host: str) -> bool:
        """Whether ``host`` (the ``name:port`` of a ``Host`` or an ``Origin``) is this
        server: one of :attr:`hosts`, or listening on every address, an IP address (a
        DNS name could be rebound) with the server's port."""
        text = host.strip().lower()
        colon, bracket = text.rfind(":"), text.rfind("]")
        if colon > bracket and (bracket >= 0 or text.count(":") == 1):
            name, port = text[:colon], text[colon + 1:]
        else:
            name, port = text, "80"                     # no port: HTTP's
        if f"{name}:{port}" in self.hosts:
            return True
        if not self.any_address or port != str(self.port):
            return False
        try:
            ipaddress.ip_address(name.removeprefix("[").removesuffix("]"))
        except ValueError:
            return False
        return True

    def _read_body(self) -> dict[str, Any]:
        try:
            length = int(self.headers.get("Content-Length", "0"))
        except ValueError:
            raise RequestError(HTTPStatus.BAD_REQUEST, "bad Content-Length") from None
        if length > MAX_BODY:
            raise RequestError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                               f"request of {length} bytes; at most {MAX_BODY}")
        raw = self.rfile.read(length) if length > 0 else b"{}"
        if len(raw) < length:
            raise RequestError(HTTPStatus.REQUEST_TIMEOUT, f"the request did not arrive "
                               f"within {self.timeout:g} s (or the client stopped sending)")
        try:
            body = json.loads(raw)
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            raise RequestError(HTTPStatus.BAD_REQUEST, "the request is not JSON") from None
        if not isinstance(body, dict):
            raise RequestError(HTTPStatus.BAD_REQUEST, "the request must be a JSON object")
        return body

    def _body(self) -> dict[str, Any]:
        """The request's JSON object (read by :meth:`_admit`; ``{}`` for a GET)."""
        return self._body_data

    def _respond(self, route: Callable[[], Any], post: bool) -> None:
        try:
            self._admit(post)
            result = route()
        except RequestError as error:
            self._send_json(error.status, {"error": str(error)})
        except Conflict as error:
            self._send_json(HTTPStatus.CONFLICT, {"error": str(error)})
        except TooLarge as error:
            self._send_json(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, {"error": str(error)})
        except (ValueError, FileNotFoundError, ImportError) as error:
            self._send_json(HTTPStatus.BAD_REQUEST, {"error": str(error)})
        except ConnectionError:
            raise
        except Exception as error:      # a defect: the page still gets a message
            traceback.print_exc()
            self._send_json(HTTPStatus.INTERNAL_SERVER_ERROR,
                            {"error": f"the server failed ({type(error).__name__}): "
                                      f"{brief(str(error))}"})
        else:
            if isinstance(result, (_Static, _Download)):
                result.send(self)
            else:
                self._send_json(HTTPStatus.OK, result)

    def _send_json(self, status: HTTPStatus, data: Any) -> None:
        self.send_bytes(status, json.dumps(data).encode(), "application/json")

    def send_response(self, code: int, message: str | None = None) -> None:
        """Start an answer, any answer (http.server's own errors too), with
        :data:`NO_FRAMES`."""
        super().send_response(code, message)
        for name, value in NO_FRAMES.items():
            self.send_header(name, value)

    def send_bytes(self, status: HTTPStatus, payload: bytes, content_type: str,
                   headers: dict[str, str] | None = None) -> None:
        """Answer with ``payload``; no caching, so a new version of the page is seen."""
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("Cache-Control", "no-store")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)


class _Static:
    """A file of the package's ``static`` folder."""

    def __init__(self, name: str) -> None:
        suffix = name[name.rfind("."):] if "." in name else ""
        if "/" in name or name.startswith(".") or suffix not in STATIC_TYPES:
            raise RequestError(HTTPStatus.NOT_FOUND, f"no file {brief(name)}")
        resource = resources.files("tris_envs.web") / "static" / name
        if not resource.is_file():
            raise RequestError(HTTPStatus.NOT_FOUND, f"no file {brief(name)}")
        self.payload = resource.read_bytes()
        self.content_type = STATIC_TYPES[suffix]

    def send(self, handler: Handler) -> None:
        handler.send_bytes(HTTPStatus.OK, self.payload, self.content_type)


class _Download:
    """A game record sent as a file to save."""

    def __init__(self, text: str, filename: str) -> None:
        self.payload = text.encode()
        self.filename = filename

    def send(self, handler: Handler) -> None:
        handler.send_bytes(HTTPStatus.OK, self.payload, "application/x-ndjson",
                           {"Content-Disposition": f'attachment; filename="{self.filename}"'})


def _seats(value: Any) -> tuple[str, str]:
    if not (isinstance(value, list) and len(value) == 2
            and all(isinstance(seat, str) and seat.strip() for seat in value)):
        raise ValueError(f"seats must be two of 'human' or an agent spec, got {brief(value)}")
    return (value[0].strip(), value[1].strip())


def make_server(host: str = "127.0.0.1", port: int = 8000, limits: Limits | None = None,
                timeout: float = TIMEOUT,
                max_bytes: int = MAX_SESSION_BYTES) -> ThreadingHTTPServer:
    """The app's server bound to ``host:port`` (port 0: a free port), not yet serving.

    Args:
        host: The address to listen on (loopback by default: this machine only).
        port: The port; 0 picks a free one (``server.server_port``).
        limits: The caps on the agents and sessions pages ask for (default
            :class:`~tris_envs.web.session.Limits`: no files, 20,000 simulations, 10 s).
        timeout: Seconds a connection may take to send its request.
        max_bytes: The memory all sessions may hold (:class:`Sessions`).

    Raises:
        ValueError: ``port`` is out of range.
        OSError: the address is in use or cannot be bound.
    """
    if not 0 <= port <= 65535:
        raise ValueError(f"port {port} is not a port number (0 to 65535)")
    handler: type[Handler] = type("AppHandler", (Handler,), {
        "sessions": Sessions(max_bytes=max_bytes), "limits": limits or Limits(),
        "timeout": timeout, "any_address": host in ANY_ADDRESS})
    server = AppServer((host, port), handler)
    names = {*LOOPBACK, *({host} - set(ANY_ADDRESS))}
    handler.port = server.server_port
    handler.hosts = frozenset(f"{url_host(name).lower()}:{server.server_port}"
                              for name in names)
    return server


class AppServer(ThreadingHTTPServer):
    """The server on an IPv4 or an IPv6 address, whichever its host is: an IPv6 address
    (``::1``, ``::``) or a name with IPv6 addresses only listens on IPv6 (``::``, every
    address, on IPv4 too where the system allows); a name with both, on IPv4."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], handler: type[Handler]) -> None:
        self.address_family = _family(address[0])
        super().__init__(address, handler)

    def server_bind(self) -> None:
        if self.address_family == socket.AF_INET6:
            with contextlib.suppress(OSError):          # a system without IPv4 on IPv6
                self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        super().server_bind()


def _family(host: str) -> socket.AddressFamily:
    """The address family to listen on ``host`` with: IPv4 where the host has an IPv4
    address, else IPv6.

    Raises:
        OSError: ``host`` is no address of this machine's resolver.
    """
    try:
        found = socket.getaddrinfo(host or None, None, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    except socket.gaierror as error:
        raise OSError(f"host {brief(host)}: {error.strerror}") from None
    return (socket.AF_INET if any(family == socket.AF_INET for family, *_ in found)
            else socket.AF_INET6)


def _shown_url(url: str) -> str:
    """``url`` without a user name or password it may hold."""
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))


def url_host(host: str) -> str:
    """``host`` as a URL writes it: an IPv6 address in brackets (``[::1]``)."""
    return f"[{host}]" if ":" in host else host


def _loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address (``127.0.0.1``, ``::1``)."""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def serve(host: str = "127.0.0.1", port: int = 8000, limits: Limits | None = None) -> None:
    """Serve the app until interrupted (Ctrl-C), printing its address and limits.

    The server trusts no pickle: the specs it reads from a page never carry
    :attr:`~tris_envs.agents.AgentSpec.trust_pickle`."""
    limits = limits or Limits()
    server = make_server(host, port, limits)
    print(f"tris-envs serve: listening on http://{url_host(host)}:{server.server_port}/ "
          "(Ctrl-C stops)", flush=True)
    if host == "localhost" or _loopback(host):
        print("tris-envs serve: loopback only: no other machine can connect", flush=True)
    else:
        where = "every address" if host in ANY_ADDRESS else url_host(host)
        print(f"tris-envs serve: listening on {where}: other machines can reach this app "
              "(there is no login)", flush=True)
    files = ("no agent files (only the shipped agents)" if limits.files is None
             else f"agent files from {limits.files.resolve()} only")
    print(f"tris-envs serve: {files}; searches of at most {limits.simulations} simulations, "
          f"{limits.seconds:g} s, {limits.depth} plies", flush=True)
    if limits.llm is None:
        print("tris-envs serve: no language models (--llm-url URL plays llm:<model>)",
              flush=True)
    else:
        print(f"tris-envs serve: language models (llm:<model>) asked at "
              f"{_shown_url(limits.llm.url)}, all tries of a move within "
              f"{limits.seconds:g} s", flush=True)
    try:
        server.serve_forever()
    finally:
        server.server_close()
