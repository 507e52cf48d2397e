"""``tris-envs train ppo`` in a checkout: MaskablePPO with self-play on one game.

    python training/train.py --game tant_fant

The command and its arguments: :mod:`tris_envs.ppo.commands`.
"""

import sys

from tris_envs.ppo.commands import train_main

if __name__ == "__main__":
    sys.exit(train_main(prog="train.py"))
