"""Search-guided self-play in the AlphaZero family, in one place.

* :mod:`~tris_envs.alphazero.jax_net`: the network of the ``az`` agents
  (:mod:`tris_envs.agents.az_network`, the versioned ``.npz`` every back end reads and writes)
  as a pure JAX function;
* :mod:`~tris_envs.alphazero.learner`: self-play through mctx searches over the JAX games
  and the updates, one jitted function per iteration, sharded over the local devices;
* :mod:`~tris_envs.alphazero.train`: a training run (configs, checkpoints, resume, logs,
  evaluation) of ``tris-envs train az``.

These need ``pip install "tris_envs[jax]"``. The ``az`` agents themselves (the network
guiding the package's MCTS, NumPy only) live beside the other agents, in
:mod:`tris_envs.agents.az`; the names below are re-exported from there and from
:mod:`tris_envs.agents.az_network` (formerly ``tris_envs.alphazero.agent`` and
``tris_envs.alphazero.network``).
"""

from tris_envs.agents.az import (
    BATCH_SIZE,
    DEFAULT_SIMULATIONS,
    AZAgent,
    NetworkEvaluator,
    shipped_network,
)
from tris_envs.agents.az_network import NetConfig, Network, load, save
from tris_envs.agents.shipped import variant_name

__all__ = ["BATCH_SIZE", "DEFAULT_SIMULATIONS", "AZAgent", "NetConfig", "Network",
           "NetworkEvaluator", "load", "save", "shipped_network", "variant_name"]
