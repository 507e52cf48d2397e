"""The network of :mod:`tris_envs.alphazero.network` in PyTorch, for training.

:class:`TorchNetwork` has exactly the parameters of the NumPy network (convolution kernels
stored as ``(3, 3, in, out)``), so :meth:`TorchNetwork.to_numpy` hands a trained network to
the ``az`` agents, which need no PyTorch. Needs the ``train`` extra.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn
from torch.nn import functional

from tris_envs.alphazero.network import NetConfig, Network
from tris_envs.core.game import Game
from tris_envs.games import game_spec


class TorchNetwork(nn.Module):
    """Policy/value network for ``game`` with the sizes of ``config``.

    Args:
        game: The rules core.
        config: The sizes.
        initial: A NumPy network to copy the weights from (its random initialisation
            when ``None``, drawn from ``rng``).
        rng: Generator of the random initialisation.
    """

    def __init__(self, game: Game, config: NetConfig, initial: Network | None = None,
                 rng: np.random.Generator | None = None) -> None:
        super().__init__()
        self.game = game
        self.config = config
        source = initial if initial is not None else Network(game, config, rng=rng)
        self.params = nn.ParameterDict({name.replace(".", "__"): nn.Parameter(
            torch.from_numpy(np.array(value))) for name, value in source.weights.items()})
        height, width, _ = game.info.observation_shape
        index = game_spec(config.game).policy.index(game.info.num_actions, height, width)
        self.index: torch.Tensor
        self.register_buffer("index", torch.tensor(index, dtype=torch.long))

    def _w(self, name: str) -> torch.Tensor:
        return self.params[name.replace(".", "__")]

    def _conv(self, x: torch.Tensor, kernel: str, bias: str) -> torch.Tensor:
        return functional.conv2d(x, self._w(kernel).permute(3, 2, 0, 1), self._w(bias),
                                 padding=1)

    def forward(self, observations: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Logits ``(N, num_actions)`` and values ``(N,)`` of ``(N, H, W, C)`` observations."""
        x = observations.float().permute(0, 3, 1, 2)
        x = functional.relu(self._conv(x, "stem.w", "stem.b"))
        for i in range(self.config.blocks):
            y = functional.relu(self._conv(x, f"block{i}.w1", f"block{i}.b1"))
            x = functional.relu(x + self._conv(y, f"block{i}.w2", f"block{i}.b2"))
        n = x.shape[0]
        pooled = x.mean(dim=(2, 3))
        cells = (x.permute(0, 2, 3, 1) @ self._w("policy.w") + self._w("policy.b")).reshape(n, -1)
        flat = torch.cat([cells, pooled @ self._w("global.w") + self._w("global.b")], dim=1)
        hidden = functional.relu(pooled @ self._w("value.w1") + self._w("value.b1"))
        value = torch.tanh(hidden @ self._w("value.w2") + self._w("value.b2"))[:, 0]
        return flat[:, self.index], value

    def to_numpy(self) -> Network:
        """The same network for the NumPy evaluator (a copy of the current weights)."""
        weights = {name.replace("__", "."): p.detach().cpu().numpy().copy()
                   for name, p in self.params.items()}
        return Network(self.game, self.config, weights)
