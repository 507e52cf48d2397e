"""Headless chromium driven through the DevTools protocol on a pipe, for the browser tests.

Debian's chromium (``/usr/bin/chromium``; ``.ci/run`` installs it) is started headless with
``--remote-debugging-pipe``: nothing is downloaded and no Python package beyond the
standard library is needed. Clicks are real mouse events at an element's place.
:func:`start_browser` is what a test module's fixture calls: without chromium it skips,
unless ``CI`` is set, then it fails.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


class Browser:
    """Headless chromium driven through the DevTools protocol on a pipe."""

    def __init__(self, profile: Path) -> None:
        assert CHROMIUM is not None
        reader, self._to_browser = os.pipe()
        self._from_browser, writer = os.pipe()
        self.process = subprocess.Popen(
            ["nice", "-n", "19", CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
             "--remote-debugging-pipe", f"--user-data-dir={profile}", "--no-first-run",
             "--disable-extensions", "--disable-background-networking", "about:blank"],
            close_fds=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=lambda: _pipe_fds(reader, writer))   # close_fds would close 3 and 4
        os.close(reader)
        os.close(writer)
        self._buffer = b""
        self._next = 0
        target = self.command("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.command("Target.attachToTarget", targetId=target,
                                    flatten=True)["sessionId"]
        self.page("Page.enable")
        self.resize(1100, 900)

    def resize(self, width: int, height: int) -> None:
        """The page's viewport, ``width`` x ``height`` CSS pixels; below 500 a phone's,
        with touch: clicks are then taps."""
        self.mobile = width < 500
        self.page("Emulation.setDeviceMetricsOverride", width=width, height=height,
                  deviceScaleFactor=1, mobile=self.mobile)
        self.page("Emulation.setTouchEmulationEnabled", enabled=self.mobile)

    def command(self, method: str, session: str | None = None, **params: Any) -> Any:
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in self._buffer:
                chunk = os.read(self._from_browser, 1 << 16)
                if not chunk:
                    raise RuntimeError("chromium closed the pipe")
                self._buffer += chunk
            raw, _, self._buffer = self._buffer.partition(b"\0")
            reply = json.loads(raw)
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def page(self, method: str, **params: Any) -> Any:
        return self.command(method, self.session, **params)

    def js(self, expression: str) -> Any:
        result = self.page("Runtime.evaluate", expression=expression, returnByValue=True,
                           awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait(self, expression: str, timeout: float = 60.0) -> Any:
        """The value of ``expression`` once it is truthy (polled; the page works async)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                value = self.js(expression)
            except RuntimeError:            # the page is being replaced (a navigation)
                value = None
            if value:
                return value
            time.sleep(0.05)
        error = self.js("document.getElementById('error').textContent")
        raise AssertionError(f"waited {timeout} s for {expression}; page error: {error!r}")

    def click(self, selector: str) -> None:
        """A real mouse click in the middle of the element ``selector``, which must be
        the element there (or hold it), not covered by another."""
        box = self.js(f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
                      " if (!e) return null; e.scrollIntoView({block: 'center'});"
                      " const r = e.getBoundingClientRect();"
                      " const x = r.x + r.width / 2, y = r.y + r.height / 2;"
                      " const top = document.elementFromPoint(x, y);"
                      " return [x, y, top !== null && (e === top || e.contains(top))]; })()")
        assert box is not None, f"no element {selector}"
        assert box[2], f"{selector} is covered at its middle"
        if self.mobile:
            for kind, points in (("touchStart", [{"x": box[0], "y": box[1]}]),
                                 ("touchEnd", [])):
                self.page("Input.dispatchTouchEvent", type=kind, touchPoints=points)
            return
        for kind in ("mousePressed", "mouseReleased"):
            self.page("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1],
                      button="left", clickCount=1)

    def key(self, key: str) -> None:
        """A key pressed and released (``"Enter"``, ``"ArrowLeft"``, ``"u"``)."""
        codes = {"Enter": 13, "Escape": 27, "ArrowLeft": 37, "ArrowRight": 39, "Tab": 9}
        text = "\r" if key == "Enter" else key if len(key) == 1 else ""
        for kind in ("keyDown", "keyUp"):
            self.page("Input.dispatchKeyEvent", type=kind, key=key, text=text if
                      kind == "keyDown" else "", windowsVirtualKeyCode=codes.get(
                          key, ord(key.upper()) if len(key) == 1 else 0))

    def close(self) -> None:
        try:
            self.command("Browser.close")
        except (RuntimeError, OSError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)


def open_address(browser: Browser, url: str) -> None:
    """Open the app's address ``url`` (``/?game=...``), which only fills in the setup, and
    wait until it has (the page then focuses **New game**)."""
    browser.page("Page.navigate", url=url)
    browser.wait("typeof catalogue !== 'undefined' && catalogue !== null && "
                 "document.activeElement !== null && document.activeElement.id === 'new'")


def start_game(browser: Browser, url: str) -> None:
    """Open the app's address ``url`` and press **New game**: the game it names starts."""
    open_address(browser, url)
    browser.click("#new")


def _pipe_fds(reader: int, writer: int) -> None:
    """In chromium's process: its DevTools pipe on fds 3 (commands in) and 4 (replies out)."""
    high_reader, high_writer = os.dup(reader), os.dup(writer)   # neither is 3 or 4 now
    os.dup2(high_reader, 3)
    os.dup2(high_writer, 4)


def start_browser(profile: Path) -> Browser:
    """A headless chromium with its profile in ``profile``; skips (fails under ``CI``)
    without chromium."""
    if CHROMIUM is None and os.environ.get("CI"):
        pytest.fail("chromium is missing, and CI must run the browser tests (.ci/run)")
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (apt-get install chromium; .ci/run does)")
    return Browser(profile)
