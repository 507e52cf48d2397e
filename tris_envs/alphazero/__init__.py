"""Search-guided self-play in the AlphaZero family: the policy/value network and its agent.

:mod:`tris_envs.alphazero.network` evaluates a network with NumPy alone (what the ``az``
agents use, so playing needs no PyTorch); :mod:`tris_envs.alphazero.torch_net` is the same
network in PyTorch for training (the ``train`` extra).
"""
