"""``python -m tris_envs``: the ``tris-envs`` command line (:func:`tris_envs.cli.main`)."""

from __future__ import annotations

import sys

from tris_envs.cli import main

if __name__ == "__main__":
    sys.exit(main())
