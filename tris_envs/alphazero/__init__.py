"""Search-guided self-play in the AlphaZero family, in one place.

* :mod:`~tris_envs.alphazero.network`: the versioned ``.npz`` network every back end reads
  and writes, evaluated with NumPy alone (what the ``az`` agents play, so playing needs
  neither JAX nor PyTorch);
* :mod:`~tris_envs.alphazero.agent`: the ``az`` agents (the network guiding the package's
  MCTS);
* :mod:`~tris_envs.alphazero.jax_net`: the same network as a pure JAX function;
* :mod:`~tris_envs.alphazero.learner`: self-play through mctx searches over the JAX games
  and the updates, one jitted function per iteration, sharded over the local devices;
* :mod:`~tris_envs.alphazero.train`: the training command (configs, checkpoints, resume,
  logs, evaluation), ``training/alphazero.py``.

The last three need ``pip install "tris_envs[jax]"``.
"""
