"""What keeps a run's files whole through faults: a kill, Ctrl-C, a full disk, a second run.

* :func:`replaced`: a file rewritten whole (a journal on resume, ``progress.csv``,
  ``resume.npz``, checkpoints, ``final.npz``) is written to a temporary file in the same
  folder, flushed to disk and renamed over the old one, so a fault at any moment leaves
  either the old file or the new one, never a part of either. The file keeps its mode, and
  a file reached through a symbolic link is rewritten where the link points (the link
  stays).
* :func:`exclusive`: a lock held while a run writes a file (a ``--records`` journal), so
  that a second run on the same file is refused instead of interleaving its games.
* :func:`sigterm_as_interrupt`: SIGTERM (a ``kill``, a batch system's time limit) raised as
  :class:`Terminated`, a ``KeyboardInterrupt``, so that it saves what Ctrl-C saves.
* :func:`deferred_interrupts`: Ctrl-C and SIGTERM held back over a few lines of
  bookkeeping (an iteration's state, its count and its row), then raised.

Imports the standard library only.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import stat
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any


@contextlib.contextmanager
def replaced(path: str | Path, binary: bool = False) -> Iterator[IO[Any]]:
    """A file open for writing whose content replaces ``path`` when the block ends.

    The content goes to a temporary file beside ``path`` (same folder, so the rename stays
    on one file system), is flushed to disk (``fsync``) and renamed over ``path``
    (``os.replace``, atomic). If the block raises, the temporary file is removed and
    ``path`` is left as it was. A ``path`` that is a symbolic link (or lies in a linked
    folder) is resolved first: the file it points to is replaced, in its own folder, and
    the link stays. The new file gets the permission bits of the file it replaces, or,
    where there was none, those a plain ``open`` would give it (``0o666`` less the umask).

    Raises:
        OSError: the folder is not writable, or the disk is full (``path`` then unchanged;
            the error names it).
    """
    path = Path(path)
    target = Path(os.path.realpath(path))       # a link stays: its file is replaced
    try:
        mode: int | None = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = None
    temporary = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(handle, "wb" if binary else "w", encoding=None if binary else "utf-8",
                       newline=None if binary else "") as file:
            if mode is not None:
                os.fchmod(file.fileno(), mode)
            yield file
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, target)
    except BaseException as error:
        with contextlib.suppress(OSError):
            temporary.unlink()
        if isinstance(error, OSError) and error.filename is None:   # a write: name the file
            raise OSError(error.errno, error.strerror or str(error), str(path)) from error
        raise
    _sync_folder(target.parent)


def write_text(path: str | Path, text: str) -> Path:
    """``path`` replaced by ``text`` (UTF-8) as :func:`replaced` does; ``path``."""
    with replaced(path) as file:
        file.write(text)
    return Path(path)


def _sync_folder(folder: Path) -> None:
    """Flush a folder's entries (the rename) to disk, where the system allows it."""
    try:
        handle = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:
        pass
    finally:
        os.close(handle)


class Busy(ValueError):
    """Another process holds the lock of a file (:func:`exclusive`)."""


@contextlib.contextmanager
def exclusive(path: str | Path, what: str) -> Iterator[None]:
    """Hold the lock of ``path`` (``<path>.lock`` beside it, or beside the file it links
    to, so that every link to one file shares its lock; removed on release) over the
    block; never waits.

    The lock is an ``flock`` on the lock file, so the system releases it when the holder
    dies, however it dies. Where ``fcntl`` is missing (Windows) no lock is taken.

    Raises:
        Busy: another process holds it; the message names ``what`` (``"the journal"``)
            and the file.
        OSError: the lock file cannot be made (no such folder, a read-only one).
    """
    try:
        import fcntl
    except ImportError:                                          # pragma: no cover
        yield
        return
    lock = Path(f"{os.path.realpath(path)}.lock")
    while True:
        try:
            handle = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as error:
            raise OSError(f"cannot write {what} {str(path)!r} ({error.strerror or error})"
                          ) from error
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(handle)
            raise Busy(f"{what} {str(path)!r} is being written by another run (it holds "
                       f"{str(lock)!r}): wait for that run to end, or give another file"
                       ) from None
        except BaseException:
            os.close(handle)
            raise
        try:                 # the holder before may have removed the file in the meantime
            same = os.stat(lock).st_ino == os.fstat(handle).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(handle)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            lock.unlink()
        os.close(handle)


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised as Ctrl-C is (:func:`sigterm_as_interrupt`)."""


_terminating = [False]
"""Whether a SIGTERM came within :func:`sigterm_as_interrupt` (and its block is not left)."""


def _terminate(signum: int, frame: Any) -> None:
    _terminating[0] = True
    raise Terminated


def raise_if_terminated() -> None:
    """Raise :class:`Terminated` again where a SIGTERM came and its block goes on: Python
    runs the handler wherever the main thread is, and an exception raised inside a
    ``__del__`` or a weakref callback is printed and dropped (seen: a match that went on
    for two minutes after its SIGTERM). Called at each step of a long loop
    (:meth:`tris_envs.progress.Progress.update`)."""
    if _terminating[0]:
        raise Terminated


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Within it, SIGTERM raises :class:`Terminated` (a ``KeyboardInterrupt``: what
    handles Ctrl-C handles it too; exit status 143 where Ctrl-C's is 130), and again at the
    next step of a long loop where it was dropped (:func:`raise_if_terminated`). Outside
    the main thread, where no handler can be set, it changes nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
        _terminating[0] = False


@contextlib.contextmanager
def deferred_interrupts() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM back over the block, then deliver the first that came (to
    the handlers set before). For a few lines that must all run or none: a run's state,
    its iteration count and its log moving on together. Outside the main thread it
    changes nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    arrived: list[int] = []
    kinds = (signal.SIGINT, signal.SIGTERM)
    previous = {kind: signal.signal(kind, lambda signum, frame: arrived.append(signum))
                for kind in kinds}
    try:
        yield
    finally:
        for kind, handler in previous.items():
            signal.signal(kind, handler)
    if arrived:
        signal.raise_signal(arrived[0])
