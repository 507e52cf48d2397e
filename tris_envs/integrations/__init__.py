"""Adapters for other reinforcement-learning libraries.

Each adapter is its own module and imports its library only when it is imported itself, so
this package imports nothing:

- :mod:`tris_envs.integrations.rllib`: any game as an RLlib ``MultiAgentEnv`` for RLlib's
  action-masking PPO module, and a trained RLlib module as an agent
  (``pip install "tris_envs[rllib]"``);
- :mod:`tris_envs.integrations.openspiel`: every game registered in OpenSpiel as
  ``tris_envs_<game>``, with its options as game parameters and its chance nodes
  (``pip install "tris_envs[openspiel]"``).
"""
