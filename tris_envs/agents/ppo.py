"""Trained ``MaskablePPO`` policies as agents, as self-play opponents, and their board CNN.

:class:`PPOAgent` plays a trained policy through the :class:`Agent` protocol, so matches,
tournaments and ``tris-envs play`` take it like the baselines::

    from tris_envs.agents import make_agent

    agent = make_agent("ppo")                             # the shipped policy of each game
    agent = make_agent("ppo:runs/tant_fant/final.zip")   # = PPOAgent("runs/.../final.zip")
    action = agent.act(game, state)

A policy is read from either of two files:

- a ``MaskablePPO`` zip (``model.save``; ``tris-envs train ppo`` writes ``final.zip``,
  ``best.zip`` and the checkpoints), which also holds the optimizer state to resume training;
- a policy file (``.pt``, :func:`export_policy`, i.e. SB3's ``policy.save``): the network
  and its spaces only, about a third of the zip. ``tris-envs train ppo`` writes ``final.pt``
  and ``best.pt``; the checkpoints shipped in ``tris_envs/checkpoints/<game>.pt``
  (:func:`shipped_checkpoint`) are such files.

:class:`PolicyOpponent` is the same policy in the ``policy(observation, action_mask)`` form that
:class:`~tris_envs.envs.SingleAgentEnv` accepts as an opponent (self-play snapshots); it
pickles, so ``SubprocVecEnv`` can send it to its workers.

:class:`BoardCNN` is the Stable-Baselines3 features extractor of the training configurations:
3x3 convolutions with padding 1 over the ``(H, W, C)`` observation planes, flattened into a
dense layer.

Stable-Baselines3, sb3-contrib and torch come with the ``train`` extra (``pip install
'tris_envs[train]'``). This module imports them only when a policy is loaded or
:class:`BoardCNN` is first used, so the rest of the package works without them. Loading a
policy sets torch to one thread (``torch.set_num_threads(1)``): these networks are tiny,
intra-op threads do not speed them up, and on shared cores they slow torch down many times.
Loaded policies are cached per process (keyed by path, size and modification time), so
the agents a match builds for each game share one network.
"""

from __future__ import annotations

import importlib.util
import io
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from tris_envs.agents.cache import LRUCache
from tris_envs.agents.shipped import SHIPPED_DIR
from tris_envs.core.game import Game

if TYPE_CHECKING:
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

TRAIN_EXTRA = "pip install 'tris_envs[train]'"
"""How to install what this module needs."""

MODEL_CACHE_SIZE = 32
"""Loaded policies kept per process (least recently used dropped first)."""

_POLICIES: LRUCache[tuple[str, int, int], MaskableActorCriticPolicy] = LRUCache(
    MODEL_CACHE_SIZE)


def _require_train_extra() -> None:
    """Raise a clear ``ImportError`` unless torch, SB3 and sb3-contrib are importable."""
    missing = [name for name in ("torch", "stable_baselines3", "sb3_contrib")
               if importlib.util.find_spec(name) is None]
    if missing:
        raise ImportError(f"PPO agents need {', '.join(missing)}, from the train extra: "
                          f"{TRAIN_EXTRA}")


def _checkpoint_path(path: str | Path) -> Path:
    """``path`` resolved; ``FileNotFoundError`` unless it is a file."""
    resolved = Path(path).expanduser().resolve()
    if not resolved.is_file():
        raise FileNotFoundError(f"PPO checkpoint {str(path)!r} not found (a .zip written by "
                                "MaskablePPO.save or tris-envs train ppo, or a .pt policy "
                                "written by export_policy)")
    return resolved


def shipped_checkpoint(game: str) -> Path:
    """The trained policy shipped for ``game`` (a rules-core name such as ``"tant_fant"``).

    Raises:
        FileNotFoundError: no policy is shipped for ``game``; the message lists those that are.
    """
    path = SHIPPED_DIR / f"{game}.pt"
    if not path.is_file():
        have = ", ".join(sorted(p.stem for p in SHIPPED_DIR.glob("*.pt"))) or "none"
        raise FileNotFoundError(f"no trained policy is shipped for {game!r} (shipped: {have}); "
                                "train one with tris-envs train ppo and pass ppo:<path>")
    return path


def load_policy(path: str | Path) -> MaskableActorCriticPolicy:
    """The policy saved at ``path`` (a ``MaskablePPO`` zip or a ``.pt`` policy), on the CPU.

    Cached per process.

    Raises:
        ImportError: the train extra is not installed.
        FileNotFoundError: no file at ``path``.
        CheckpointError: the file is not a policy this package can read.
    """
    _require_train_extra()
    resolved = _checkpoint_path(path)
    stat = resolved.stat()
    key = (str(resolved), stat.st_size, stat.st_mtime_ns)
    return _POLICIES.get(key, lambda: _load_file(resolved, str(path)))


class CheckpointError(ValueError):
    """A checkpoint file that cannot be read (empty, truncated, corrupt, another format)."""


def _load_file(path: Path, shown: str) -> MaskableActorCriticPolicy:
    """:func:`_load` of a file; anything the loaders raise becomes a
    :class:`CheckpointError` naming the file."""
    try:
        return _load(path)
    except Exception as error:  # the loaders raise many types (zip, pickle, torch, numpy)
        raise CheckpointError(
            f"checkpoint {shown!r} cannot be read ({type(error).__name__}: "
            f"{str(error)[:200] or 'no detail'}); expected a .zip from MaskablePPO.save or "
            "tris-envs train ppo, or a .pt from export_policy") from None


def _load(source: Path | io.BytesIO) -> MaskableActorCriticPolicy:
    """Load a policy from a zip or ``.pt`` file, or in-memory ``.pt`` bytes, with torch on
    one thread."""
    _require_train_extra()
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    torch.set_num_threads(1)
    if isinstance(source, Path) and source.suffix == ".zip":
        policy = MaskablePPO.load(source, device="cpu").policy
    else:
        policy = MaskableActorCriticPolicy.load(cast(Any, source), device="cpu")
    policy.set_training_mode(False)
    return policy


def export_policy(model: MaskablePPO | str | Path, destination: str | Path) -> Path:
    """Write the policy of ``model`` (a ``MaskablePPO`` or the path of its zip) to a ``.pt``
    file: the network and its spaces without the optimizer state, which :func:`load_policy`
    and :class:`PPOAgent` read. Returns the destination.

    Raises:
        ImportError: the train extra is not installed.
        FileNotFoundError: ``model`` is a path to no file.
    """
    policy = load_policy(model) if isinstance(model, (str, Path)) else model.policy
    destination = Path(destination)
    destination.parent.mkdir(parents=True, exist_ok=True)
    policy.save(str(destination))
    return destination


def policy_action(policy: MaskableActorCriticPolicy, observation: np.ndarray, mask: np.ndarray,
                  deterministic: bool, rng: np.random.Generator) -> int:
    """The policy's action for one observation, restricted to ``mask``.

    Deterministic play takes the most probable legal action; otherwise the action is drawn
    from the policy's masked distribution with ``rng`` (so seeded matches repeat).

    Raises:
        ValueError: the observation or mask does not fit the policy, or no action is legal.
    """
    check_policy_fits(policy, observation.shape, mask.shape[0])
    if not mask.any():
        raise ValueError("the PPO policy was asked to move where no action is legal")
    probabilities = masked_probabilities(policy, observation[None], mask[None])[0]
    return choose_action(probabilities, mask, deterministic, rng)


def check_policy_fits(policy: MaskableActorCriticPolicy, shape: tuple[int, ...],
                      n_actions: int) -> None:
    """``ValueError`` unless the policy takes observations of ``shape`` and ``n_actions``."""
    expected = policy.observation_space.shape
    actions = int(cast(Any, policy.action_space).n)
    if shape != expected or n_actions != actions:
        raise ValueError(f"the PPO policy expects observations of shape {expected} and "
                         f"{actions} actions, got {shape} and {n_actions}: "
                         "was it trained on this game with these options?")


def masked_probabilities(policy: MaskableActorCriticPolicy, observations: np.ndarray,
                         masks: np.ndarray) -> np.ndarray:
    """The policy's action probabilities for a batch of observations, each distribution
    restricted to its row of the ``bool`` ``masks``: one forward pass, shape
    ``(len(observations), actions)``, ``float32``."""
    import torch

    with torch.no_grad():
        obs = torch.as_tensor(observations, dtype=torch.float32)
        distribution = policy.get_distribution(obs, action_masks=masks)
        return cast(Any, distribution.distribution).probs.numpy()


def choose_action(probabilities: np.ndarray, mask: np.ndarray, deterministic: bool,
                  rng: np.random.Generator) -> int:
    """A legal action by the policy's ``probabilities`` (one row of
    :func:`masked_probabilities`): the most probable, or drawn with ``rng``."""
    legal = np.flatnonzero(mask)
    probs = probabilities[legal].astype(np.float64)
    if deterministic:
        return int(legal[np.argmax(probs)])
    return int(rng.choice(legal, p=probs / probs.sum()))


class PPOAgent:
    """A trained ``MaskablePPO`` policy playing through the :class:`Agent` protocol.

    The agent builds the mover's own observation (``game.observation(state, player)``, the
    view the learner had in :class:`~tris_envs.envs.SingleAgentEnv`) and its legal mask, and
    plays the policy's most probable legal action (``deterministic=True``) or samples the
    masked distribution with ``rng``. A policy given by path loads at the first move.

    Args:
        source: A ``MaskablePPO`` zip or a ``.pt`` policy; a ``MaskablePPO`` model or its
            policy in memory (played as it is, also while it trains on); ``None`` plays the
            policy shipped for the game it is asked to move in (:func:`shipped_checkpoint`),
            trained with the game's default options.
        rng: Generator for stochastic play.
        deterministic: Play the most probable legal action instead of sampling.

    Raises:
        ImportError: the train extra is not installed (``pip install 'tris_envs[train]'``).
        FileNotFoundError: no file at the path ``source``.
    """

    def __init__(self, source: str | Path | MaskablePPO | MaskableActorCriticPolicy | None = None,
                 rng: np.random.Generator | None = None, deterministic: bool = True) -> None:
        _require_train_extra()
        self.path: Path | None = None
        self._policy: MaskableActorCriticPolicy | None = None
        self._loaded: tuple[str, MaskableActorCriticPolicy] | None = None
        if isinstance(source, (str, Path)):
            self.path = _checkpoint_path(source)
            self.name = f"ppo:{self.path.stem}"
        elif source is not None:
            self._policy = getattr(source, "policy", cast(Any, source))
            self.name = "ppo:model"
        else:
            self.name = "ppo"
        self.rng = rng if rng is not None else np.random.default_rng()
        self.deterministic = deterministic

    def policy_for(self, game: Game) -> MaskableActorCriticPolicy:
        """The policy this agent plays in ``game`` (a file loads once per process).

        The agent keeps the policy it found for the latest game (by name), so later moves
        neither resolve nor stat the file again; a pickled copy drops it.

        Raises:
            FileNotFoundError: no source was given and no policy is shipped for ``game``.
            CheckpointError: the file cannot be read.
        """
        if self._policy is not None:
            return self._policy
        name = game.info.name
        if self._loaded is None or self._loaded[0] != name:
            self._loaded = (name, load_policy(self.path or shipped_checkpoint(name)))
        return self._loaded[1]

    def checkpoint_for(self, game: Game) -> Path | None:
        """The file of the policy this agent plays in ``game`` (its own, else the shipped
        one); ``None`` for a policy in memory or a game no policy is shipped for."""
        if self._policy is not None:
            return None
        if self.path is not None:
            return self.path
        try:
            return shipped_checkpoint(game.info.name)
        except FileNotFoundError:
            return None

    def act(self, game: Game, state: Any) -> int:
        """The policy's legal action for ``game.current_player(state)``.

        Raises:
            ValueError: the policy's spaces do not fit ``game``.
            FileNotFoundError: no source was given and no policy is shipped for ``game``.
        """
        player = game.current_player(state)
        observation = game.observation(state, player)
        mask = game.legal_mask(state).astype(bool)
        return policy_action(self.policy_for(game), observation, mask, self.deterministic,
                             self.rng)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_loaded"] = None   # a file's policy loads again (through the cache) there
        return state


class PolicyOpponent:
    """A trained policy as a :class:`~tris_envs.envs.SingleAgentEnv` opponent (self-play).

    Called as ``opponent(observation, action_mask) -> action`` with the opponent seat's own
    observation. It pickles (for ``SubprocVecEnv`` and ``env_method``): a path-backed opponent
    as its path, a model-backed one as its policy's bytes; the receiving process loads the
    policy at its first move.

    Args:
        source: A checkpoint path (zip or ``.pt``), a ``MaskablePPO`` model or its policy.
        deterministic: Play the most probable legal action; by default the opponent samples,
            which gives the learner more varied games.
        rng: Generator for sampling.
        label: A name for logs (default: ``"ppo:<file stem>"`` or ``"ppo:model"``).

    Raises:
        ImportError: the train extra is not installed.
        FileNotFoundError: ``source`` is a path to no file.
    """

    def __init__(self, source: str | Path | MaskablePPO | MaskableActorCriticPolicy,
                 deterministic: bool = False, rng: np.random.Generator | None = None,
                 label: str | None = None) -> None:
        _require_train_extra()
        self.deterministic = deterministic
        self.rng = rng if rng is not None else np.random.default_rng()
        self._policy_bytes: bytes | None = None
        if isinstance(source, (str, Path)):
            self.path: Path | None = _checkpoint_path(source)
            self._policy: MaskableActorCriticPolicy | None = None
            default_label = f"ppo:{self.path.stem}"
        else:
            self.path = None
            self._policy = getattr(source, "policy", cast(Any, source))
            default_label = "ppo:model"
        self.label = label if label is not None else default_label

    @property
    def policy(self) -> MaskableActorCriticPolicy:
        """The opponent's policy (loaded at first use)."""
        if self._policy is None:
            if self.path is not None:
                self._policy = load_policy(self.path)
            else:
                self._policy = _load(io.BytesIO(self._policy_bytes or b""))
        return self._policy

    def policy_for(self, game: Game) -> MaskableActorCriticPolicy:
        """The opponent's policy, in any game (as :meth:`PPOAgent.policy_for` has it)."""
        return self.policy

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The policy's action for the opponent's observation and mask."""
        return policy_action(self.policy, observation, np.asarray(action_mask, dtype=bool),
                             self.deterministic, self.rng)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        if self.path is None and self._policy_bytes is None:
            buffer = io.BytesIO()
            cast(Any, self._policy).save(buffer)
            state["_policy_bytes"] = buffer.getvalue()
        state["_policy"] = None
        return state

    def __repr__(self) -> str:
        return f"PolicyOpponent({self.label!r}, deterministic={self.deterministic})"


def _define_board_cnn() -> type:
    """Build the :class:`BoardCNN` class (imports torch and Stable-Baselines3)."""
    _require_train_extra()
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

    BoardCNN.__module__ = __name__
    BoardCNN.__qualname__ = "BoardCNN"
    return BoardCNN


def __getattr__(name: str) -> Any:
    """Define :class:`BoardCNN` on first access, so that importing this module needs no torch.

    Checkpoints name the class ``tris_envs.agents.ppo.BoardCNN``; unpickling them resolves it
    through this hook.
    """
    if name == "BoardCNN":
        cls = _define_board_cnn()
        globals()["BoardCNN"] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

