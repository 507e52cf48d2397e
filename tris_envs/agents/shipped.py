"""Where the trained networks shipped with the package live."""

from pathlib import Path

SHIPPED_DIR = Path(__file__).resolve().parent.parent / "checkpoints"
"""``tris_envs/checkpoints/``: the PPO policies (``<game>.pt``) and the AlphaZero networks
(``az_<game>[__<option>=<value>...].npz``) shipped with the package."""
