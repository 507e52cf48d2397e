"""What a measurement ran on, in one line: the CPU's model, how many CPUs the process may
use, its vector instructions and the software. ``tris-envs bench`` prints it first, and
every start of a training run (``tris-envs train az`` or ``ppo``) appends it to
``machine.txt`` in the run directory (:func:`record`): a time means little without its
machine, and two hosts that both look like "a 2-core machine" can differ by more than
twice in speed (docs/benchmark.md).
"""

from __future__ import annotations

import os
import platform
import sys
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

CPUINFO = Path("/proc/cpuinfo")


def cpu_facts(cpuinfo: str) -> tuple[str, list[str]]:
    """The CPU's model and which of AVX2 / AVX-512 it has, read from the text of Linux's
    ``/proc/cpuinfo`` (its first processor's ``model name``, with ``cpu family``, ``model``
    and ``cpu MHz`` in brackets, since a virtual machine's model name can be as short as
    "AMD EPYC", and ``flags``); an empty model and list where the text has no such fields
    (other systems)."""
    fields: dict[str, str] = {}
    for line in cpuinfo.splitlines():
        name, colon, value = line.partition(":")
        if not colon and fields:      # the blank line after the first processor
            break
        fields.setdefault(name.strip(), value.strip())
    details = [f"{label} {fields[name]}" for name, label in
               (("cpu family", "family"), ("model", "model")) if name in fields]
    if "cpu MHz" in fields:
        details.append(f"{float(fields['cpu MHz']):.0f} MHz")
    model = fields.get("model name", "")
    if model and details:
        model += f" ({', '.join(details)})"
    flags = set(fields.get("flags", "").split())
    vector = [label for flag, label in (("avx2", "AVX2"), ("avx512f", "AVX-512"))
              if flag in flags]
    if flags and "avx512f" not in flags:
        vector.append("no AVX-512")
    return model, vector


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity where the system tells it)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def describe() -> str:
    """One line, such as ``AMD EPYC (family 25, model 1, 2445 MHz), 2 CPUs (AVX2, no
    AVX-512), Linux x86_64, Python 3.11.7, numpy 2.4.6, jax 0.10.2`` (jax where this process
    has imported it)."""
    try:
        model, vector = cpu_facts(CPUINFO.read_text(errors="replace"))
    except OSError:
        model, vector = "", []
    model = model or platform.processor() or "unknown CPU"
    cpus = f"{usable_cpus()} CPUs" + (f" ({', '.join(vector)})" if vector else "")
    software = [f"Python {platform.python_version()}", f"numpy {np.__version__}"]
    jax = sys.modules.get("jax")
    if jax is not None:
        software.append(f"jax {jax.__version__}")
    return ", ".join([model, cpus, f"{platform.system()} {platform.machine()}", *software])


def record(folder: Path, start: str) -> str:
    """Append ``<UTC time> <start>: <describe()>`` to ``folder/machine.txt``, one line per
    start of a training run (``start`` says where it starts, as ``from iteration 40``), so
    that a run spread over several machines keeps each; return :func:`describe`'s line."""
    machine = describe()
    when = datetime.now(timezone.utc).isoformat(timespec="seconds")
    with open(folder / "machine.txt", "a", encoding="utf-8") as file:
        file.write(f"{when} {start}: {machine}\n")
    return machine


def package_version() -> str:
    """The installed tris_envs distribution's version (what files it writes record)."""
    from importlib.metadata import version

    return version("tris_envs")
