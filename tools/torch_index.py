"""Which package index ``make`` installs PyTorch from; prints pip arguments.

PyPI's Linux ``torch`` wheels are CUDA builds (several GB with their NVIDIA packages).
PyTorch's own CPU index serves CPU-only builds, so where it answers we install from it.
Where it does not answer within a few seconds (offline machines, mirrors, CI behind a
proxy) pip keeps its configured index, which on such machines serves a CPU build
already. Choose with ``TORCH_INDEX``:

* ``auto`` (default): the CPU index if it answers, else pip's configured index;
* ``cpu``: the CPU index, without probing;
* ``default``: pip's configured index (PyPI: a CUDA build on Linux);
* any URL: that index (e.g. one of PyTorch's CUDA indexes).

Usage: ``pip install $(python tools/torch_index.py) torch==2.13.0``.
"""

from __future__ import annotations

import os
import sys
import urllib.request
from collections.abc import Callable

CPU_INDEX = "https://download.pytorch.org/whl/cpu"
PROBE_SECONDS = 4.0


def answers(url: str, timeout: float = PROBE_SECONDS) -> bool:
    """Whether ``url`` answers an HTTP request within ``timeout`` seconds."""
    try:
        with urllib.request.urlopen(f"{url}/torch/", timeout=timeout):
            return True
    except (OSError, ValueError):
        return False


def pip_arguments(choice: str, probe: Callable[[str], bool] = answers) -> list[str]:
    """The ``pip install`` arguments that select PyTorch's index for ``choice``.

    Raises:
        ValueError: ``choice`` is neither a keyword nor a URL.
    """
    if choice == "default":
        return []
    if choice == "cpu":
        return ["--index-url", CPU_INDEX]
    if choice == "auto":
        return ["--index-url", CPU_INDEX] if probe(CPU_INDEX) else []
    if choice.startswith(("https://", "http://", "file://")):
        return ["--index-url", choice]
    raise ValueError(f"TORCH_INDEX={choice!r}: use auto, cpu, default or an index URL")


def main() -> int:
    """Print the pip arguments for ``$TORCH_INDEX``; say on stderr which index it is."""
    choice = os.environ.get("TORCH_INDEX", "auto") or "auto"
    try:
        arguments = pip_arguments(choice)
    except ValueError as error:
        print(f"torch_index.py: {error}", file=sys.stderr)
        return 2
    where = arguments[1] if arguments else "pip's configured index"
    print(f"PyTorch from {where} (TORCH_INDEX={choice})", file=sys.stderr)
    print(" ".join(arguments))
    return 0


if __name__ == "__main__":
    sys.exit(main())
