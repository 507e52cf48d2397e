"""Self-play training of ``MaskablePPO`` agents: the pieces behind ``tris-envs train ppo``.

- :mod:`tris_envs.training.config`: the typed config (TOML tables as dataclasses), checked up
  front;
- :mod:`tris_envs.training.pool`: :class:`~tris_envs.training.pool.OpponentPool`, the
  learner's opponents drawn from a weighted pool each episode, and
  :class:`~tris_envs.training.pool.OpponentPoolEnv`, one game against it;
- :mod:`tris_envs.training.batched`: :class:`~tris_envs.training.batched.BatchedPoolEnv`,
  many such games stepped together, the opponents' network moves batched (needs the train
  extra);
- :mod:`tris_envs.training.targets`: the training targets per game and their check;
- :mod:`tris_envs.training.train`: the training loop (needs the train extra);
- :mod:`tris_envs.training.commands`: ``tris-envs train ppo`` and ``tris-envs evaluate``, with
  the shipped configs in ``tris_envs/training/configs/``.

Only :mod:`~tris_envs.training.train` and :mod:`~tris_envs.training.batched` import PyTorch
and Stable-Baselines3 when imported; the other modules load them, if at all, when a policy is
first played.
"""
