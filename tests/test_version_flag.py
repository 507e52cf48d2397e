"""``tris-envs --version`` prints the installed package's version."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version


def test_version_prints_the_package_version():
    done = subprocess.run([sys.executable, "-m", "tris_envs", "--version"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout == f"tris-envs {version('tris_envs')}\n"
