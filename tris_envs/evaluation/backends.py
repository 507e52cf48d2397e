"""Where the games of a match run: in this process, in a process pool, or on a Ray cluster.

With ``processes > 1`` the games run in a ``multiprocessing`` pool of the ``spawn``
start method; the game and the sources must be picklable, and a script using it needs the
usual ``if __name__ == "__main__":`` guard. The pool never has more processes than games
or CPUs (:func:`pool_size`). Workers ignore Ctrl-C (the parent stops the pool), unwind on
the SIGTERM with which the pool stops them early (so none dies holding a queue's lock), and
end by themselves within a second when their parent dies (SIGTERM, kill).

With ``ray=True`` or ``ray=ADDRESS`` the games run as Ray tasks on the cluster's CPUs
instead (optional extra ``distributed``; see :func:`tris_envs.distributed.ray_session` and
docs/distributed.md): the game, the sources and the seed go to the object store once, chunks
of game numbers go to the tasks, the agents are built on the workers and the records come
back. The sources must survive cloudpickle (spec strings always do); ``processes`` stays 1.

Either way each finished game comes back as it ends, in any order
(:data:`~tris_envs.evaluation.engine.Played`).
"""

from __future__ import annotations

import itertools
import math
import multiprocessing
import multiprocessing.util
import os
import select
import signal
import threading
import time
from collections.abc import Iterator
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
    spawn = multiprocessing.get_context("spawn")
    with spawn.Pool(processes, _init_pool_worker, context) as pool:
        while window := list(itertools.islice(tasks, _WINDOW)):
            yield from pool.imap_unordered(play_keyed, window,
                                           chunksize=_chunk_size(len(window), processes))
        pool.close()            # every game played: the workers leave on their own, no SIGTERM
        pool.join()


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
    leaves on the pool's SIGTERM by unwinding (:func:`_exit_on_sigterm`), or a second later
    outright where the unwinding does not happen."""
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
    """``Pool.terminate`` (the parent leaving the pool early: an error, Ctrl-C) sends its
    workers SIGTERM. Killed outright, a worker that was sending a result died holding the
    result queue's lock, and the parent then waited for that lock forever (CPython's pool
    puts a sentinel on the same queue); unwinding by ``SystemExit`` releases it first. A
    worker already on its way out (``multiprocessing.util``'s exiting flag) is left to
    finish.

    Python runs the handler in the main thread, and only once that thread is back in
    Python code: a signal that lands on another thread, or just before the main thread
    blocks on a lock, leaves it waiting (seen: a worker waiting for the task queue's lock,
    which ``terminate`` takes for good, never left). So the watching thread of
    :func:`_init_pool_worker`, woken by the signal's wakeup file, ends the worker outright
    a second after the SIGTERM, as it does one whose ``SystemExit`` was swallowed (raised
    inside a ``__del__``)."""
    if getattr(multiprocessing.util, "_exiting", False):
        return
    raise SystemExit(1)


def _play_chunk(context: tuple[Any, ...], tasks: list[Task]) -> list[Played]:
    """A Ray task's body: play ``tasks`` and return them all."""
    return list(play_each(context, tasks))
