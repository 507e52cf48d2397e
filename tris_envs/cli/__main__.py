"""``python -m tris_envs.cli``: the ``tris-envs`` command line."""

import sys

from tris_envs.cli import main

sys.exit(main())
