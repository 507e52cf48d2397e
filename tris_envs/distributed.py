"""Ray as the engine across machines (optional extra ``distributed``; docs/distributed.md).

:func:`ray_session` connects to a Ray cluster for the length of a run:
:func:`~tris_envs.evaluation.play_match` and :func:`~tris_envs.evaluation.round_robin` with
``ray=`` and ``tris-envs eval|tournament --ray`` go through it. Ray is imported here,
lazily, so that ``tris_envs`` imports without it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

INSTALL_HINT = 'pip install "tris_envs[distributed]"'

RayAddress = bool | str
"""Where to run: ``False`` (not on Ray); ``True`` (Ray's default: the cluster named by
``RAY_ADDRESS`` or started on this machine with ``ray start``, else a new local Ray for
this run); or an address for ``ray.init``, e.g. ``"auto"``, ``"10.0.0.5:6379"`` or
``"ray://10.0.0.5:10001"``."""


def import_ray() -> Any:
    """The ``ray`` module.

    Raises:
        ImportError: Ray is not installed (the message says how to install it).
    """
    try:
        import ray
    except ImportError as error:
        raise ImportError(f"running on Ray needs Ray: {INSTALL_HINT}") from error
    return ray


@contextlib.contextmanager
def ray_session(address: RayAddress) -> Iterator[Any]:
    """Yield the ``ray`` module connected to a cluster.

    When this process is already connected (``ray.init`` was called before), that
    connection is used and left open. Otherwise ``ray.init(address)`` joins the cluster at
    ``address`` (or, for ``True``, the one Ray finds, else a new local one) and
    ``ray.shutdown()`` at the end disconnects: a cluster that was joined keeps running, a
    local Ray started here stops.

    Raises:
        ImportError: Ray is not installed.
        ValueError: ``address`` is neither ``True`` nor a non-empty string.
        ConnectionError: Ray could not start, or not reach the cluster (one line saying
            why; the original error is its ``__cause__``).
    """
    if address is not True and not (isinstance(address, str) and address):
        raise ValueError(f"ray must be True or a cluster address, got {address!r}")
    ray = import_ray()
    if ray.is_initialized():
        yield ray
        return
    try:
        ray.init(address=None if address is True else address, include_dashboard=False,
                 log_to_driver=False)
    except Exception as error:     # Ray raises many kinds (RuntimeError, ConnectionError, ...)
        where = "start a local Ray" if address is True else f"connect to Ray at {address!r}"
        reason = (str(error).strip().splitlines() or [""])[0][:200]
        raise ConnectionError(f"could not {where} ({type(error).__name__}: {reason})"
                              ) from error
    try:
        yield ray
    finally:
        ray.shutdown()
