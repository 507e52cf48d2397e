"""Self-play training of ``MaskablePPO`` agents: the pieces behind ``tris-envs train ppo``.

- :mod:`tris_envs.ppo.config`: the typed config (TOML tables as dataclasses, read and
  checked by :mod:`tris_envs.settings`, as the AlphaZero learner's), checked up front;
- :mod:`tris_envs.ppo.pool`: :class:`~tris_envs.ppo.pool.OpponentPool`, the
  learner's opponents drawn from a weighted pool each episode, and
  :class:`~tris_envs.ppo.pool.OpponentPoolEnv`, one game against it;
- :mod:`tris_envs.ppo.batched`: :class:`~tris_envs.ppo.batched.BatchedPoolEnv`,
  many such games stepped together, the opponents' network moves batched (needs the train
  extra);
- :mod:`tris_envs.ppo.train`: the training loop (needs the train extra);
- :mod:`tris_envs.ppo.commands`: the configs of ``tris-envs train ppo`` (shipped in
  ``tris_envs/ppo/configs/``) and ``tris-envs evaluate``'s opponents (their flags:
  :mod:`tris_envs.cli`); ``--targets`` checks the game's
  training targets (:mod:`tris_envs.evaluation.targets`).

Only :mod:`~tris_envs.ppo.train` and :mod:`~tris_envs.ppo.batched` import PyTorch
and Stable-Baselines3 when imported; the other modules load them, if at all, when a policy is
first played.
"""
