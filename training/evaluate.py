"""``tris-envs evaluate`` in a checkout: a MaskablePPO checkpoint against the baselines.

    python training/evaluate.py runs/tant_fant/final.pt --game tant_fant

The command and its arguments: :mod:`tris_envs.ppo.commands`.
"""

import sys

from tris_envs.ppo.commands import evaluate_main

if __name__ == "__main__":
    sys.exit(evaluate_main(prog="evaluate.py"))
