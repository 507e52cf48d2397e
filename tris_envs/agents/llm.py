"""A language model as an agent, over any OpenAI-compatible chat-completions server
(Ollama, llama.cpp's server, vLLM, a hosted API), with the standard library alone.

Each move is one conversation (``POST {url}/chat/completions``): the system message is the
game's rules (:func:`~tris_envs.core.text.rules_prompt`), the user message the position
(:func:`~tris_envs.core.text.position_prompt`), and the model answers with a JSON move that
:func:`~tris_envs.core.text.parse_reply` reads. Kaggle Game Arena's conventions: a reply
that names no legal move is refused, and the model gets up to ``retries`` more tries, each
after its reply and the refusal's reason; a request that fails (an HTTP error, a timeout, a
response that is not a chat completion) is a try too, its reason kept. When every try has
failed the move is forfeited, a loss (``on_illegal="forfeit"``: :class:`Forfeit`), or a
random legal move is played (``on_illegal="random"``); the record counts both
(:class:`~tris_envs.agents.protocol.Dialogue`).

The server's URL and key come from the operator (``--llm-url`` / ``--llm-key``, or
``OPENAI_BASE_URL`` / ``OPENAI_API_KEY``: :meth:`LLMServer.from_environment`), never from
an agent spec's text. The key is sent as ``Authorization: Bearer`` and never written
anywhere: not in a spec's text, a name, a record or an error.
"""

from __future__ import annotations

import contextlib
import dataclasses
import http.client
import json
import os
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

import numpy as np

from tris_envs.agents.protocol import Dialogue, Exchange, Forfeit
from tris_envs.core.errors import brief
from tris_envs.core.game import Game
from tris_envs.core.text import ReplyError, parse_reply, position_prompt, rules_prompt
from tris_envs.settings import integer, number, one_of, setting

URL_VARIABLE = "OPENAI_BASE_URL"
KEY_VARIABLE = "OPENAI_API_KEY"
MAX_RESPONSE_BYTES = 1 << 20
"""The most a response may hold; a longer one is a failed request."""


def _tokens(value: Any) -> str | None:
    """``None`` (the server's own limit) or an integer in [1, 2**20]."""
    return None if value is None else integer(1, 1 << 20)(value)


def _timeout(value: Any) -> str | None:
    """A number of seconds in (0, 3600]."""
    problem = number(0, 3600)(value)
    return problem or (None if value > 0 else "must be a number in (0, 3600]")


@dataclasses.dataclass(frozen=True)
class LLMSettings:
    """How an ``llm`` agent asks for its moves (a spec's ``:<name>=<value>`` parts).

    Attributes:
        temperature: The sampling temperature sent (0: the likeliest reply).
        max_tokens: The reply's token limit sent; ``None``: none sent (the server's).
        timeout: Seconds one request may take in all (a reply trickled a byte at a time
            included) before it counts as failed.
        retries: Tries after the first, each with the refusal's reason shown.
        on_illegal: What follows the last failed try: ``"forfeit"`` (the game is lost) or
            ``"random"`` (a random legal move is played).

    Raises:
        ValueError: a value out of its range (the setting named, one line).
    """

    temperature: float = setting(0.0, number(0, 2))
    max_tokens: int | None = setting(None, _tokens)
    timeout: float = setting(120.0, _timeout)
    retries: int = setting(2, integer(0, 10))
    on_illegal: str = setting("forfeit", one_of("forfeit", "random"))

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            check_llm_setting(field.name, getattr(self, field.name))


LLM_SETTINGS = tuple(field.name for field in dataclasses.fields(LLMSettings))
"""The settings an ``llm`` agent spec sets after its model (``llm:qwen3:retries=0``)."""

_CHECKS = {field.name: field.metadata["check"] for field in dataclasses.fields(LLMSettings)}


def check_llm_setting(name: Any, value: Any) -> None:
    """Refuse a pair that is not a setting of :data:`LLM_SETTINGS` and one of its values.

    Raises:
        ValueError: an unknown name or a bad value, in one line naming the setting.
    """
    if name not in LLM_SETTINGS:
        raise ValueError(f"{brief(name)} is not a setting of an llm agent "
                         f"({', '.join(LLM_SETTINGS)})")
    problem = _CHECKS[name](value)
    if problem:
        raise ValueError(f"llm setting {name}={brief(value, 60)} {problem}")


def read_llm_setting(name: str, text: str) -> int | float | str:
    """The value of ``llm`` setting ``name`` written as ``text`` in a spec, checked.

    Raises:
        ValueError: an unknown name, a text of no value of the setting, or a value out of
            range; one line naming the setting.
    """
    value: int | float | str | None = text
    if name in ("max_tokens", "retries"):
        value = int(text) if text.isascii() and text.isdigit() else None
    elif name in ("temperature", "timeout"):
        value = None
        with contextlib.suppress(ValueError):
            value = float(text)
    if value is None:
        what = "an integer" if name in ("max_tokens", "retries") else "a number"
        raise ValueError(f"llm setting {name}={brief(text, 60)} must be {what}")
    check_llm_setting(name, value)
    return value


def llm_setting_text(value: int | float | str) -> str:
    """``value`` as :func:`read_llm_setting` reads it back: ``3``, ``0.2``, ``random``."""
    if isinstance(value, float):
        short = f"{value:g}"
        return short if float(short) == value else repr(value)
    return str(value)


@dataclasses.dataclass(frozen=True)
class LLMServer:
    """Where an ``llm`` agent sends its requests: the server's base URL (the part before
    ``/chat/completions``, such as ``http://127.0.0.1:11434/v1``) and its key (``None``:
    none sent). The key is not shown in the server's ``repr``.

    Raises:
        ValueError: a URL that is not ``http://`` or ``https://`` with a host, or a key that
            is not a line of text.
    """

    url: str
    key: str | None = dataclasses.field(default=None, repr=False)

    def __post_init__(self) -> None:
        parts = urllib.parse.urlsplit(self.url) if isinstance(self.url, str) else None
        if parts is None or parts.scheme not in ("http", "https") or not parts.hostname \
                or any(ch.isspace() for ch in self.url):
            raise ValueError(f"the llm server's URL {brief(self.url)} (--llm-url or "
                             f"{URL_VARIABLE}) must be an http:// or https:// URL, such as "
                             "http://127.0.0.1:11434/v1")
        object.__setattr__(self, "url", self.url.rstrip("/"))
        if self.key is not None and (not isinstance(self.key, str) or not self.key
                                     or not self.key.isprintable()):
            raise ValueError(f"the llm server's key (--llm-key or {KEY_VARIABLE}) must be "
                             "a non-empty line of printable text")

    @classmethod
    def from_environment(cls, url: str | None = None, key: str | None = None) -> LLMServer:
        """The server ``url`` and ``key`` name (a command's ``--llm-url``, ``--llm-key``),
        else ``OPENAI_BASE_URL`` and ``OPENAI_API_KEY``, the usual conventions.

        Raises:
            ValueError: no URL given or set, or a bad one (one line naming the flag and the
                variable).
        """
        url = url or os.environ.get(URL_VARIABLE) or None
        if url is None:
            raise ValueError(f"an llm agent needs its server's URL: give --llm-url URL or set "
                             f"{URL_VARIABLE} (Ollama: http://127.0.0.1:11434/v1)")
        return cls(url, key or os.environ.get(KEY_VARIABLE) or None)


class LLMAgent:
    """Plays the moves a language model names, asked over the chat-completions API.

    Args:
        model: The model's name on the server (``"llama3.2:1b"``, ``"gpt-4o-mini"``).
        server: The server's URL and key.
        settings: How to ask (:class:`LLMSettings`; default: its defaults).
        rng: Draws the random legal move of ``on_illegal="random"``.
        name: The agent's name (default ``llm:<model>``; the factory gives the spec's text).
    """

    def __init__(self, model: str, server: LLMServer, settings: LLMSettings | None = None,
                 rng: np.random.Generator | None = None, name: str | None = None) -> None:
        self.model, self.server = model, server
        self.settings = settings if settings is not None else LLMSettings()
        self.rng = rng if rng is not None else np.random.default_rng()
        self.name = name if name is not None else f"llm:{model}"
        self._tries: list[Exchange] = []
        self._outcome = "move"

    def act(self, game: Game, state: Any) -> int:
        """The move the model names, after up to ``retries`` more tries; then a random
        legal move, or :class:`Forfeit`.

        Raises:
            Forfeit: no try named a legal move and ``on_illegal`` is ``"forfeit"``.
        """
        messages = [{"role": "system", "content": rules_prompt(game)},
                    {"role": "user", "content": position_prompt(game, state)}]
        self._tries = []
        for _ in range(1 + self.settings.retries):
            exchange, action = self._ask(game, state, messages)
            self._tries.append(exchange)
            if action is not None:
                self._outcome = "move"
                return action
            if exchange.reply is not None:
                messages = [*messages, {"role": "assistant", "content": exchange.reply},
                            {"role": "user", "content": exchange.reason}]
        self._outcome = self.settings.on_illegal
        if self.settings.on_illegal == "random":
            legal = game.legal_actions(state)
            return int(legal[int(self.rng.integers(len(legal)))])
        tries = len(self._tries)
        raise Forfeit(f"{self.name} forfeits: no legal move in {tries} "
                      f"{'try' if tries == 1 else 'tries'} (the last: "
                      f"{_clip(self._tries[-1].reason)})")

    def take_dialogue(self, seat: int, ply: int) -> Dialogue | None:
        """The requests of the last move (:class:`~tris_envs.agents.protocol.Talking`)."""
        if not self._tries:
            return None
        dialogue = Dialogue(seat, ply, tuple(self._tries), self._outcome)
        self._tries = []
        return dialogue

    def _ask(self, game: Game, state: Any,
             messages: list[dict[str, str]]) -> tuple[Exchange, int | None]:
        """One request: its exchange, and the legal action its reply names (or ``None``)."""
        sent = tuple(dict(message) for message in messages)
        start = time.monotonic()
        reply, usage, failure = self._request(messages)
        seconds = time.monotonic() - start
        action, verdict, reason = None, "error", failure
        if reply is not None:
            try:
                action, verdict, reason = parse_reply(game, state, reply), "legal", ""
            except ReplyError as error:
                verdict, reason = "illegal", str(error)
        if self.server.key:
            reason = reason.replace(self.server.key, "<key>")
        prompt, completion = (usage.get(name) for name in ("prompt_tokens",
                                                            "completion_tokens"))
        return Exchange(sent, reply, verdict, reason, _count(prompt), _count(completion),
                        seconds), action

    def _request(self, messages: list[dict[str, str]]) -> tuple[str | None, dict[str, Any], str]:
        """POST the conversation: the reply's text, the response's ``usage`` and ``""``; or
        ``None``, ``{}`` and why no reply came."""
        body: dict[str, Any] = {"model": self.model, "messages": messages,
                                "temperature": self.settings.temperature, "stream": False}
        if self.settings.max_tokens is not None:
            body["max_tokens"] = self.settings.max_tokens
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.server.key:
            headers["Authorization"] = f"Bearer {self.server.key}"
        request = urllib.request.Request(f"{self.server.url}/chat/completions",
                                         json.dumps(body).encode(), headers, method="POST")
        timeout = self.settings.timeout
        # the socket's timeout bounds each wait, not a reply trickled a few bytes at a time:
        # the request runs in a thread, and the whole of it gets ``timeout`` seconds
        answer: list[tuple[str | None, dict[str, Any], str]] = []
        worker = threading.Thread(target=lambda: answer.append(_post(request, timeout)),
                                  daemon=True)
        worker.start()
        worker.join(timeout)
        if not answer:
            return None, {}, f"no response within the timeout ({timeout:g} s)"
        return answer[0]


def _post(request: urllib.request.Request,
          timeout: float) -> tuple[str | None, dict[str, Any], str]:
    """:meth:`LLMAgent._request`'s request sent, each wait at most ``timeout`` seconds."""
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            data = response.read(MAX_RESPONSE_BYTES + 1)
    except urllib.error.HTTPError as error:
        return None, {}, _http_failure(error)
    except (TimeoutError, urllib.error.URLError) as error:
        cause = getattr(error, "reason", error)
        if isinstance(cause, TimeoutError):
            return None, {}, f"no response within the timeout ({timeout:g} s)"
        return None, {}, f"cannot reach the llm server: {_clip(str(cause))}"
    except (http.client.HTTPException, OSError) as error:
        return None, {}, f"the connection to the llm server failed: {_clip(str(error))}"
    if len(data) > MAX_RESPONSE_BYTES:
        return None, {}, f"the response is longer than {MAX_RESPONSE_BYTES} bytes"
    return _completion(data)


def _http_failure(error: urllib.error.HTTPError) -> str:
    """Why an HTTP error status came, with the server's own message where it gave one."""
    try:
        said = error.read(4096).decode("utf-8", "replace").strip()
    except (OSError, http.client.HTTPException):
        said = ""
    with contextlib.suppress(ValueError):
        data = json.loads(said)
        found = data.get("error") if isinstance(data, dict) else None
        found = found.get("message") if isinstance(found, dict) else found
        said = found if isinstance(found, str) and found else said
    line = f"HTTP {error.code} {error.reason}" + (f": {_clip(said)}" if said else "")
    if error.code in (401, 403):
        line += (f" (the server refused the key: give it with --llm-key or "
                 f"{KEY_VARIABLE})")
    elif error.code == 404:
        line += " (check the model's name, and that the URL ends where /chat/completions goes)"
    return line


def _completion(data: bytes) -> tuple[str | None, dict[str, Any], str]:
    """A chat completion's first reply and its ``usage``, or why the response is not one."""
    try:
        body = json.loads(data)
    except (UnicodeDecodeError, ValueError):
        return None, {}, f"the response is not JSON: {_clip(data.decode('utf-8', 'replace'))}"
    choices = body.get("choices") if isinstance(body, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return None, {}, f"the response has no choices: {brief(body, 200)}"
    message = choices[0].get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, str):
        return None, {}, f"the response's first choice holds no message text: " \
                         f"{brief(choices[0], 200)}"
    usage = body.get("usage")
    return content, usage if isinstance(usage, dict) else {}, ""


def _clip(text: str, limit: int = 200) -> str:
    """``text`` on one line, cut to ``limit`` characters (``...`` marks a cut)."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[:limit] + "..."


def _count(value: Any) -> int | None:
    """A token count from ``usage``: a non-negative integer, else ``None``."""
    return value if type(value) is int and value >= 0 else None
