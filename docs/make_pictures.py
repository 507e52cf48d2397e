"""Draw one picture per game with the package's own renderer and save it as a PNG.

    python docs/make_pictures.py [OUT_DIR]        # default: docs/pictures

Each picture is the position after a few random moves (seeded, so the files are the same
on every run) of ``<game>_v0.env(render_mode="rgb_array")``. The documentation build
(``docs/conf.py``) runs this into ``docs/pictures``; the README shows the committed copies.
Needs the ``render`` extra (pygame). PNGs are written with :mod:`zlib` only.
"""

from __future__ import annotations

import importlib
import os
import struct
import sys
import zlib
from pathlib import Path

import numpy as np

# game -> random plies played from reset(seed=0) before the picture is taken
PLIES = {"tris2": 4, "tris1": 4, "tant_fant": 4, "doppia_scelta": 6, "tritoc": 40}
DEFAULT_OUT = Path(__file__).resolve().parent / "pictures"


def write_png(path: Path, image: np.ndarray) -> None:
    """Save an ``(H, W, 3)`` ``uint8`` array as an 8-bit RGB PNG (deterministic bytes)."""
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise ValueError(f"expected an (H, W, 3) uint8 image, got {image.shape} {image.dtype}")
    height, width, _ = image.shape
    rows = np.zeros((height, width * 3 + 1), dtype=np.uint8)  # filter byte 0 per row
    rows[:, 1:] = image.reshape(height, width * 3)

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
                     + chunk(b"IDAT", zlib.compress(rows.tobytes(), 9)) + chunk(b"IEND", b""))


def picture(game: str, plies: int) -> np.ndarray:
    """The ``rgb_array`` render of ``game`` after ``plies`` seeded random moves."""
    module = importlib.import_module(f"tris_envs.{game}_v0")
    env = module.env(render_mode="rgb_array")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(plies):
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            break
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    image = env.render()
    env.close()
    return np.asarray(image, dtype=np.uint8)


def main(out: Path = DEFAULT_OUT) -> list[Path]:
    """Write ``<game>.png`` for every game into ``out``; return the paths."""
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")  # no window, also without a display
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for game, plies in PLIES.items():
        path = out / f"{game}.png"
        write_png(path, picture(game, plies))
        paths.append(path)
    return paths


if __name__ == "__main__":
    for written in main(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_OUT):
        print(written)
