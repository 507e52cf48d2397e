"""Rewrite network files' headers into this version's layout, their weights as they are.

Usage::

    python tools/rewrite_network_headers.py tris_envs/checkpoints/az_*.npz

Each file is read with :func:`tris_envs.agents.az_network.load` (which reads every format)
and written again with the header :func:`~tris_envs.agents.az_network.header_text` gives
it and the very arrays the file held (same names, dtypes, shapes and bytes; checked after
the write). A file named as a shipped recipe (:mod:`tris_envs.alphazero.recipes`) whose
header names none gets that recipe and the package version. A format 1 file is left as it
is: its value head has format 1's shape, which only its header's format number tells a
reader.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from tris_envs.agents.az_network import FORMAT, header_text, load
from tris_envs.alphazero.recipes import recipe_names
from tris_envs.durable import replaced
from tris_envs.games import make_game
from tris_envs.machine import package_version


def arrays_of(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as data:
        return {name: data[name] for name in data.files}


def rewrite(path: Path) -> str:
    """Rewrite ``path``'s header; what was done, in one line."""
    arrays = arrays_of(path)
    header = json.loads(str(arrays["__config__"]))
    if header["format"] == 1:
        return f"{path}: format 1, left as it is"
    network = load(path, make_game(header["game"], **header["options"]))
    if not network.recipe and path.stem in recipe_names():
        network.recipe, network.version = path.stem, package_version()
    text = header_text(network)
    weights = {name: array for name, array in arrays.items() if name != "__config__"}
    written: dict[str, Any] = {"__config__": np.array(text), **weights}
    with replaced(path, binary=True) as file:
        np.savez_compressed(file, **written)
    after = arrays_of(path)
    same = sorted(after) == sorted(arrays) and all(
        after[k].dtype == a.dtype and after[k].shape == a.shape
        and after[k].tobytes() == a.tobytes() for k, a in weights.items())
    if not same:
        raise SystemExit(f"{path}: the weights changed in the rewrite")
    return f"{path}: format {header['format']} -> {FORMAT}: {text}"


if __name__ == "__main__":
    for name in sys.argv[1:]:
        print(rewrite(Path(name)))
