"""The AlphaZero learner in JAX (:mod:`tris_envs.alphazero.train`): see its ``--help``.

    python training/alphazero.py --config az_tant_fant --out runs/tf
"""

import sys

from tris_envs.alphazero.train import main

if __name__ == "__main__":
    sys.exit(main(prog="alphazero.py"))
