"""Progress of a long command, shown only on a terminal.

One :class:`Progress` per long loop (a match's games, a trainer's iterations)::

    with Progress("eval tris2", total=200, unit="games", quiet=args.quiet) as progress:
        for ...:
            progress.advance()            # one more game; progress.update(n): n done
            progress.note("score 61.0%")  # text after the counts, on the next redraw
    # leaving the block prints "eval tris2: 200 games in 3m 12s" (with close(summary), more)

Where standard error is a terminal and ``quiet`` is false the progress is a bar (``tqdm``
where it is installed) or, without it, one plain line each ``every`` units (a tenth of the
total by default), with the elapsed time and the time left; the summary line at the end
gives the elapsed time. Elsewhere (output piped or redirected, ``quiet``) it prints nothing.
Counts are written with thousands separators; ``seconds`` (a time budget) bounds the time
left.
"""

from __future__ import annotations

import math
import sys
import time
from types import TracebackType
from typing import Any, TextIO

from tris_envs.durable import raise_if_terminated

__all__ = ["Progress", "duration_text"]


def duration_text(seconds: float) -> str:
    """``seconds`` as ``45s``, ``3m 12s`` or ``1h 05m``."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m {seconds:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m"


class Progress:
    """The progress of ``total`` units of work (``None``: unknown) on standard error.

    Args:
        label: What runs (``"eval tris2"``); it starts every line.
        total: Units to do; ``None`` when unknown (no percentage; the time left comes from
            ``seconds`` alone).
        unit: What is counted, plural (``"games"``, ``"iterations"``).
        quiet: Show nothing (``--quiet``).
        seconds: A time budget: the time left is at most what remains of it.
        every: Units between two plain lines (without tqdm); default a tenth of ``total``.
        stream: Where to write (default ``sys.stderr``); shown only if it is a terminal.
    """

    def __init__(self, label: str, total: int | None = None, unit: str = "games", *,
                 quiet: bool = False, seconds: float | None = None, every: int | None = None,
                 stream: TextIO | None = None) -> None:
        self.label, self.total, self.unit, self.seconds = label, total, unit, seconds
        self.stream = sys.stderr if stream is None else stream
        self.shown = not quiet and _is_terminal(self.stream)
        self.done = 0
        self.began = time.perf_counter()
        self._note = ""
        self._every = every or (max(1, math.ceil(total / 10)) if total else 1)
        self._next_line = self._every
        self._bar: Any = self._tqdm() if self.shown else None
        self._closed = False

    @property
    def elapsed(self) -> float:
        """Seconds since the progress began."""
        return time.perf_counter() - self.began

    def advance(self, n: int = 1) -> None:
        """``n`` more units done."""
        self.update(self.done + n)

    def update(self, done: int) -> None:
        """``done`` units done in all (where a SIGTERM's exception was dropped, raised
        again here: :func:`~tris_envs.durable.raise_if_terminated`)."""
        raise_if_terminated()
        step, self.done = done - self.done, done
        if self._bar is not None:
            self._bar.update(step)
        elif self.shown and done >= self._next_line:
            self._next_line = (done // self._every + 1) * self._every
            print(self._line(), file=self.stream, flush=True)

    def note(self, text: str) -> None:
        """Text shown after the counts (a score, a loss) from the next redraw on."""
        self._note = text
        if self._bar is not None:
            self._bar.set_postfix_str(self._with_budget(text), refresh=False)

    def write(self, line: str, file: TextIO | None = None) -> None:
        """Print ``line`` (to standard output by default) without breaking the bar."""
        file = sys.stdout if file is None else file
        if self._bar is not None:
            self._bar.clear()
        print(line, file=file, flush=True)
        if self._bar is not None:
            self._bar.refresh()

    def close(self, summary: str = "") -> None:
        """End the progress: where it is shown, one line ``label: N units in T[; summary]``."""
        if self._closed:
            return
        self._closed = True
        if self._bar is not None:
            self._bar.close()
        if self.shown:
            text = f"{self.label}: {self.done:,} {self.unit} in {duration_text(self.elapsed)}"
            print(text + (f"; {summary}" if summary else ""), file=self.stream, flush=True)

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        if kind is None:
            self.close()
        elif not self._closed:          # interrupted: take the bar away, no summary
            self._closed = True
            if self._bar is not None:
                self._bar.close()

    # ----- internals ------------------------------------------------------------------
    def _left(self) -> float | None:
        """Seconds left: from the rate so far and the total, bounded by the budget."""
        elapsed = self.elapsed
        left = None
        if self.total and self.done:
            left = elapsed / self.done * max(0, self.total - self.done)
        if self.seconds:
            budget = max(0.0, self.seconds - elapsed)
            left = budget if left is None else min(left, budget)
        return left

    def _line(self) -> str:
        counts = f"{self.done:,}" + (f"/{self.total:,}" if self.total else "")
        share = f" ({self.done / self.total:.0%})" if self.total else ""
        left = self._left()
        timing = f"{duration_text(self.elapsed)} elapsed" + (
            "" if left is None else f", {duration_text(left)} left")
        note = f", {self._note}" if self._note else ""
        return f"{self.label}: {counts} {self.unit}{share}, {timing}{note}"

    def _with_budget(self, text: str) -> str:
        """The note, and with a budget the time it leaves (tqdm's time left knows only the
    total)."""
        if not self.seconds:
            return text
        budget = f"{duration_text(max(0.0, self.seconds - self.elapsed))} of the budget left"
        return f"{text}, {budget}" if text else budget

    def _tqdm(self) -> Any:
        try:
            from tqdm import tqdm
        except ImportError:
            return None
        if self.total:
            form = ("{desc}: {percentage:3.0f}%|{bar}| {n:,}/{total:,} " + self.unit
                    + " [{elapsed}<{remaining}{postfix}]")
        else:
            form = "{desc}: {n:,} " + self.unit + " [{elapsed}{postfix}]"
        bar = tqdm(total=self.total, desc=self.label, file=self.stream, leave=False,
                   dynamic_ncols=True, mininterval=0.5, bar_format=form)
        if self.seconds:
            bar.set_postfix_str(self._with_budget(""), refresh=False)
        return bar


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):      # no isatty, or a closed file
        return False
