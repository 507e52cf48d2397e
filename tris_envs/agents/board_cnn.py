"""``BoardCNN``, the Stable-Baselines3 features extractor of the PPO configs: 3x3 convolutions
over a board's ``(H, W, C)`` planes, flattened into a dense layer. Defined at first use
(:func:`board_cnn`), so that importing this module needs no torch; users reach it as
``tris_envs.agents.ppo.BoardCNN``."""

from __future__ import annotations

import functools
from collections.abc import Sequence


@functools.cache
def board_cnn() -> type:
    """The :class:`BoardCNN` class, defined at the first call (imports torch and
    Stable-Baselines3); it names itself ``tris_envs.agents.ppo.BoardCNN``, where pickles and
    users find it."""
    import torch
    from gymnasium import spaces
    from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

    class BoardCNN(BaseFeaturesExtractor):
        """Convolutions over a board's ``(H, W, C)`` planes, flattened into a dense layer.

        Each layer is a ``kernel_size`` convolution with "same" padding (the board keeps its
        size, edges are seen as zeros) and a ReLU; the last layer's maps are flattened into
        ``features_dim`` units with a ReLU. The policy and value heads (``net_arch``) sit on
        top.

        Args:
            observation_space: ``Box`` of shape ``(H, W, C)``, channels last.
            channels: Output channels of each convolution.
            features_dim: Units of the dense layer after the flattening.
            kernel_size: Odd kernel size of the convolutions.
        """

        def __init__(self, observation_space: spaces.Box, channels: Sequence[int] = (32, 32),
                     features_dim: int = 128, kernel_size: int = 3) -> None:
            super().__init__(observation_space, features_dim)
            if len(observation_space.shape) != 3:
                raise ValueError(f"BoardCNN needs (H, W, C) observations, got shape "
                                 f"{observation_space.shape}")
            if not channels or kernel_size % 2 == 0 or kernel_size < 1:
                raise ValueError(f"BoardCNN needs at least one layer and an odd kernel size, "
                                 f"got channels={list(channels)}, kernel_size={kernel_size}")
            height, width, depth = observation_space.shape
            layers: list[torch.nn.Module] = []
            for out in channels:
                layers += [torch.nn.Conv2d(depth, out, kernel_size, padding=kernel_size // 2),
                           torch.nn.ReLU()]
                depth = out
            self.convolutions = torch.nn.Sequential(*layers, torch.nn.Flatten())
            self.dense = torch.nn.Sequential(
                torch.nn.Linear(depth * height * width, features_dim), torch.nn.ReLU())

        def forward(self, observations: torch.Tensor) -> torch.Tensor:
            """Features of a batch of ``(N, H, W, C)`` observations."""
            return self.dense(self.convolutions(observations.permute(0, 3, 1, 2)))

    BoardCNN.__module__ = "tris_envs.agents.ppo"
    BoardCNN.__qualname__ = "BoardCNN"
    return BoardCNN
