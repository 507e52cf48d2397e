"""Adapters for other reinforcement-learning libraries.

Each adapter is its own module and imports its library only when it is imported itself, so
this package imports nothing:

- :mod:`tris_envs.integrations.rllib`: any game as an RLlib ``MultiAgentEnv`` for RLlib's
  action-masking PPO module, and a trained RLlib module as an agent
  (``pip install "tris_envs[rllib]"``).
"""
