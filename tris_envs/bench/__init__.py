"""The benchmarks of ``tris-envs bench``, one module for each thing measured:

- :mod:`tris_envs.bench.engines`: the rules engines and their environments against
  PettingZoo's ``tictactoe_v3``, the solver, our MCTS beside OpenSpiel's and the ``az``
  agent per move (``tris-envs bench``, ``--mcts``);
- :mod:`tris_envs.bench.jax_games`: the JAX games beside Pgx's (``--jax``, the jax extra);
- :mod:`tris_envs.bench.learner`: the AlphaZero learner's self-play iterations beside Pgx's
  connect_four, and its search (``--learner``, the jax extra);
- :mod:`tris_envs.bench.networks`: the default ``az`` agent's time per move with each
  shipped network (``--networks``);
- :mod:`tris_envs.bench.fair`: what makes a comparison fair, shared by all of them: the
  order the contenders are timed in, alternating round by round, a seed of its own for
  each timing, and the line of provenance under a table.

The scripts in the checkout's ``benchmarks/`` call these. An application (the top layer of
``tools/import_graph.py``): no module of the package below it imports it.
"""
