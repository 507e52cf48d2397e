"""Where the games of a match run: in this process, in a process pool, or on a Ray cluster.

With ``processes > 1`` the games run in a ``concurrent.futures`` process pool of the
``spawn`` start method; the game and the sources must be picklable, and a script using it
needs the usual ``if __name__ == "__main__":`` guard and a file (without them the match
fails at once, saying so). A worker that dies while playing (killed, out of memory), even
one holding a queue's lock, stops the match at once with a ``ChildProcessError``: the pool
is broken and no other game comes back. The pool never has more processes than games or
CPUs (:func:`pool_size`). Workers ignore Ctrl-C (the parent stops them), unwind on the
SIGTERM with which the parent stops them early, and end by themselves within a second when
their parent dies (SIGTERM, kill).

With ``ray=True`` or ``ray=ADDRESS`` the games run as Ray tasks on the cluster's CPUs
instead (optional extra ``distributed``; see :func:`tris_envs.distributed.ray_session` and
docs/distributed.md): the game, the sources and the seed go to the object store once, chunks
of game numbers go to the tasks, the agents are built on the workers and the records come
back. The sources must survive cloudpickle (spec strings always do); ``processes`` stays 1.

Either way each finished game comes back as it ends, in any order
(:data:`~tris_envs.evaluation.engine.Played`).
"""

from __future__ import annotations

import contextlib
import itertools
import math
import multiprocessing
import multiprocessing.util
import os
import select
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from tris_envs.distributed import RayAddress, ray_session
from tris_envs.evaluation.engine import Played, Task, init_worker, play_each, play_keyed
from tris_envs.machine import usable_cpus


def pool_size(processes: int, games: int) -> int:
    """Worker processes actually started: at most one per game and one per CPU this process
    may run on (its affinity, which a container or ``taskset`` can set below the machine's)."""
    return max(1, min(processes, games, usable_cpus()))


_WINDOW = 10_000
"""Games handed to a process pool at a time (a huge match is never listed whole)."""
_MAX_CHUNK = 1_000
"""Games per chunk of work at most."""


def local_results(context: tuple[Any, ...], tasks: Iterator[Task], count: int,
                  processes: int) -> Iterator[Played]:
    """``(key, seat, record)`` of each of the ``count`` tasks as it finishes, here or in a
    process pool (fed :data:`_WINDOW` tasks at a time)."""
    processes = pool_size(processes, count)
    if processes == 1:
        yield from play_each(context, tasks)
        return
    _refuse_an_unguarded_start()
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if getattr(main, "__spec__", None) is None and path is not None and not os.path.isfile(path):
        raise ValueError(f"processes={processes}: the worker processes re-import the main "
                         f"script, and {path!r} is not a file they can read; run the script "
                         "from a file, or play with processes=1")
    spawn = multiprocessing.get_context("spawn")
    with tempfile.TemporaryDirectory(prefix="tris-envs-pool-") as folder, \
            _environment(_START_FLAG, str(Path(folder) / "unguarded")):
        pool = ProcessPoolExecutor(processes, mp_context=spawn, initializer=_init_pool_worker,
                                   initargs=context)
        try:
            while window := list(itertools.islice(tasks, _WINDOW)):
                size = _chunk_size(len(window), processes)
                pending = {pool.submit(_play_keyed_chunk, window[i:i + size])
                           for i in range(0, len(window), size)}
                while pending:
                    done, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for chunk in done:
                        yield from _chunk_result(chunk, Path(folder))
        except BaseException:           # an error, Ctrl-C, the caller leaving: stop the games
            _stop_workers(Path(folder))
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


def _chunk_result(chunk: Future[list[Played]], folder: Path) -> list[Played]:
    """A finished chunk's games; ``ValueError`` with the workers' words where one said that
    the main script is not guarded (:data:`_START_FLAG`), ``ChildProcessError`` where a
    worker died (killed, out of memory): the pool is broken and no other game comes back."""
    try:
        return chunk.result()
    except BrokenProcessPool:
        flag = folder / "unguarded"
        if flag.exists():
            raise ValueError(flag.read_text(encoding="utf-8")) from None
        raise ChildProcessError("a worker process of the match died while playing (killed, "
                                "or out of memory), so the match stops: its games would "
                                "never come back") from None


def _stop_workers(folder: Path) -> None:
    """SIGTERM to the pool's workers still running (each wrote ``worker-<pid>`` into
    ``folder`` as it started, and only this process's unreaped children are signalled), so
    that they stop playing; they unwind (:func:`_exit_on_sigterm`) and the pool, seeing
    them gone, shuts down without waiting for their games."""
    started = {int(path.name.removeprefix("worker-")) for path in folder.glob("worker-*")}
    for child in multiprocessing.active_children():
        if child.pid in started:
            with contextlib.suppress(ProcessLookupError):
                os.kill(child.pid, signal.SIGTERM)


_START_FLAG = "TRIS_ENVS_POOL_FLAG"
"""The environment variable naming the file where a starting worker says that the main
script played at its top level (:func:`_refuse_an_unguarded_start`); each worker that
starts writes ``worker-<pid>`` beside it (:func:`_init_pool_worker`)."""


@contextlib.contextmanager
def _environment(name: str, value: str) -> Iterator[None]:
    """``os.environ[name]`` is ``value`` inside (the pool's workers, spawned as the work
    is handed out, inherit it)."""
    before = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = before


def _refuse_an_unguarded_start() -> None:
    """In a worker that is still importing the main script (spawn runs it as a module
    ``__mp_main__`` apart from ``__main__``, before it sets the worker's parent process), a
    pool being started means that the script plays at its top level, without the ``if
    __name__ == "__main__":`` guard: the worker writes why into the file :data:`_START_FLAG`
    names, for the parent to raise in place of the broken pool's own error, and fails."""
    if multiprocessing.parent_process() is not None or \
            sys.modules.get("__mp_main__", sys.modules["__main__"]) is sys.modules["__main__"]:
        return              # the parent, or a process that has started (its parent is set)
    message = ("the worker processes of processes > 1 re-import the main script, and it "
               "started a match again at its top level: put the code that plays under "
               "if __name__ == \"__main__\": (or play with processes=1)")
    flag = os.environ.get(_START_FLAG)
    if flag:
        with contextlib.suppress(OSError):
            Path(flag).write_text(message, encoding="utf-8")
    raise RuntimeError(message)


def _play_keyed_chunk(tasks: list[Task]) -> list[Played]:
    """A pool worker's chunk of games, played in turn."""
    return [play_keyed(task) for task in tasks]


def ray_results(context: tuple[Any, ...], tasks: Iterator[Task], count: int,
                address: RayAddress) -> Iterator[Played]:
    """``(key, seat, record)`` of each task as it finishes, from Ray tasks on a cluster
    (a few chunks per CPU in flight at a time)."""
    with ray_session(address) as ray:
        _, sources, names, _, _ = context
        for name, source in zip(names, sources):
            try:
                ray.cloudpickle.dumps(source)
            except Exception as error:   # cloudpickle raises whatever the object raises
                raise ValueError(f"agent {name!r} cannot be sent to Ray workers ({error}); "
                                 "give it as a spec string or a picklable factory") from None
        shared = ray.put(context)
        play = ray.remote(num_cpus=1)(_play_chunk)
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        size = _chunk_size(count, cpus)
        pending: list[Any] = []
        try:
            while True:
                while len(pending) < 4 * cpus and (chunk := list(itertools.islice(tasks, size))):
                    pending.append(play.remote(shared, chunk))
                if not pending:
                    break
                finished, pending = ray.wait(pending, num_returns=1)
                yield from ray.get(finished[0])
        finally:
            for reference in pending:      # interrupted: stop the games still running
                ray.cancel(reference, force=True)


def _chunk_size(tasks: int, workers: int) -> int:
    """Games per chunk handed to a worker: about 16 chunks per worker, at most
    :data:`_MAX_CHUNK`."""
    return max(1, min(_MAX_CHUNK, math.ceil(tasks / (16 * workers))))


def _init_pool_worker(*arguments: Any) -> None:
    """A pool worker: ignores Ctrl-C (the parent stops the pool), exits when orphaned, and
    leaves on the parent's SIGTERM by unwinding (:func:`_exit_on_sigterm`), or a second
    later outright where the unwinding does not happen; says it started beside the file
    :data:`_START_FLAG` names (where the parent finds the workers to stop,
    :func:`_stop_workers`)."""
    flag = os.environ.get(_START_FLAG)
    if flag:
        Path(flag).with_name(f"worker-{os.getpid()}").touch()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    signals, alarm = os.pipe()
    os.set_blocking(alarm, False)
    signal.set_wakeup_fd(alarm, warn_on_full_buffer=False)
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            if (select.select([signals], [], [], 0.5)[0]
                    and signal.SIGTERM in os.read(signals, 64)):
                time.sleep(1.0)
                break
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()
    init_worker(*arguments)


def _exit_on_sigterm(signum: int, frame: Any) -> None:
    """The parent leaving the pool early (an error, Ctrl-C) sends its workers SIGTERM
    (:func:`_stop_workers`). Unwinding by ``SystemExit`` releases the queue locks a worker
    holds, where one killed outright (by a person, or out of memory) leaves them held; the
    pool then sees it gone and stops without waiting for its games. A worker already on
    its way out (``multiprocessing.util``'s exiting flag) is left to finish.

    Python runs the handler in the main thread, and only once that thread is back in
    Python code: a signal that lands on another thread, or just before the main thread
    blocks on a lock, leaves it waiting (seen: a worker waiting for a queue's lock that a
    stopped pool never releases). So the watching thread of
    :func:`_init_pool_worker`, woken by the signal's wakeup file, ends the worker outright
    a second after the SIGTERM, as it does one whose ``SystemExit`` was swallowed (raised
    inside a ``__del__``)."""
    if getattr(multiprocessing.util, "_exiting", False):
        return
    raise SystemExit(1)


def _play_chunk(context: tuple[Any, ...], tasks: list[Task]) -> list[Played]:
    """A Ray task's body: play ``tasks`` and return them all."""
    return list(play_each(context, tasks))
