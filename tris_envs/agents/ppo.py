"""Trained ``MaskablePPO`` policies as agents, as self-play opponents, and their board CNN.

:class:`PPOAgent` plays a trained policy through the :class:`Agent` protocol, so matches,
tournaments and ``tris-envs play`` take it like the baselines::

    from tris_envs.agents import make_agent

    agent = make_agent("ppo")                             # the shipped policy of each game
    agent = make_agent("ppo:runs/tant_fant/final.pt")    # = PPOAgent("runs/.../final.pt")
    action = agent.act(game, state)

A policy is read from a policy file (``.pt``): its weights and a JSON header, read with
``torch.load(weights_only=True)``, so reading it runs no code from it
(:mod:`tris_envs.agents.ppo_file`). ``tris-envs train ppo`` writes them (``final.pt``,
``best.pt``, the checkpoints), :func:`export_policy` writes one from a model, and the policies
shipped in ``tris_envs/checkpoints/<game>.pt`` (:func:`shipped_checkpoint`) are such files.

Stable-Baselines3's own files (a ``MaskablePPO`` zip of ``model.save``, a ``.pt`` of
``policy.save``, which this package wrote before) are pickles: loading one runs code from
it. They load only where the call says so, ``trust_pickle=True`` on each call (a
:class:`PPOAgent` keeps it, and a spec carries it to a match's workers:
:attr:`AgentSpec.trust_pickle <tris_envs.agents.AgentSpec.trust_pickle>`, which the
commands' ``--trust-pickle`` sets, :func:`trusted_specs`); nothing else, no environment
variable nor an earlier trusted load, makes a call trust a file. :func:`convert` rewrites
one as a policy file once.

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

import dataclasses
import importlib.util
import io
import zipfile
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union, cast

import numpy as np

from tris_envs.agents.az_network import Network, load
from tris_envs.agents.board_cnn import board_cnn
from tris_envs.agents.cache import LRUCache
from tris_envs.agents.ppo_file import (
    PICKLE_HINT,
    CheckpointError,
    PickledPolicyError,
    read_pickled,
    read_policy,
    write_policy,
)
from tris_envs.agents.shipped import SHIPPED_DIR, shipped_variant
from tris_envs.agents.spec import AgentSpec
from tris_envs.core.game import Game
from tris_envs.games import make_game

if TYPE_CHECKING:
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

__all__ = ["CheckpointError", "PickledPolicyError", "PolicyOpponent", "PPOAgent", "convert",
           "load_policy", "export_policy", "require_extra_for", "shipped_checkpoint",
           "trusted_specs"]

TRAIN_EXTRA = "pip install 'tris_envs[train]'"
"""How to install what this module needs."""

BOARD_NETWORK = ".npz"
"""The suffix of a policy that is a board network (:mod:`tris_envs.agents.az_network`'s
format, what the JAX learner writes with ``learner = "ppo"``): played with NumPy alone."""

Policy = Union["MaskableActorCriticPolicy", Network]
"""What a :class:`PPOAgent` plays: a Stable-Baselines3 policy or a board network."""
MODEL_CACHE_SIZE = 32
"""Loaded policies kept per process (least recently used dropped first)."""

_POLICIES: LRUCache[tuple[str, int, int, bool], MaskableActorCriticPolicy] = LRUCache(
    MODEL_CACHE_SIZE)


def _require_train_extra() -> None:
    """Raise a clear ``ImportError`` unless torch, SB3 and sb3-contrib are importable."""
    missing = [name for name in ("torch", "stable_baselines3", "sb3_contrib")
               if importlib.util.find_spec(name) is None]
    if missing:
        raise ImportError(f"PPO agents need {', '.join(missing)}, from the train extra: "
                          f"{TRAIN_EXTRA}")


def require_extra_for(path: Path) -> None:
    """Raise a clear ``ImportError`` unless this machine can play the policy at ``path``: a
    board network (``.npz``) needs NumPy alone, any other file the train extra."""
    if path.suffix != BOARD_NETWORK:
        _require_train_extra()


def _checkpoint_path(path: str | Path) -> Path:
    """``path`` resolved; ``FileNotFoundError`` unless it is a file."""
    resolved = Path(path).expanduser().resolve()
    if not resolved.is_file():
        raise FileNotFoundError(f"PPO checkpoint {str(path)!r} not found (a .pt policy "
                                "written by tris-envs train ppo or export_policy, or a "
                                "board network .npz of the JAX learner)")
    return resolved


def shipped_checkpoint(game: Game) -> Path:
    """The trained policy shipped for ``game``: the JAX learner's board network for its
    options' variant, else for the game's defaults (``ppo_<game>[__<opt>=<val>...].npz``,
    :func:`~tris_envs.agents.shipped.shipped_variant`), else Stable-Baselines3's policy of
    the game (``<game>.pt``).

    Raises:
        FileNotFoundError: no policy is shipped for ``game``; the message lists those that are.
    """
    path = shipped_variant(game, "ppo") or SHIPPED_DIR / f"{game.info.name}.pt"
    if not path.is_file():
        have = ", ".join(sorted(p.name for p in SHIPPED_DIR.iterdir()
                                if p.suffix == ".pt" or p.name.startswith("ppo_"))) or "none"
        raise FileNotFoundError(f"no trained policy is shipped for {game.info.name!r} "
                                f"(shipped: {have}); train one with tris-envs train ppo and "
                                "pass ppo:<path>")
    return path


def trusted_specs(specs: Iterable[AgentSpec]) -> list[AgentSpec]:
    """``specs`` with each ``ppo`` spec's agent trusted to load a pickled file
    (:attr:`AgentSpec.trust_pickle <tris_envs.agents.AgentSpec.trust_pickle>`:
    ``--trust-pickle``); the others as they are."""
    return [dataclasses.replace(spec, trust_pickle=True) if spec.family == "ppo" else spec
            for spec in specs]


def load_policy(path: str | Path, trust_pickle: bool = False) -> MaskableActorCriticPolicy:
    """The policy saved at ``path``, on the CPU. Cached per process.

    A policy file (weights and header) loads as it is. A Stable-Baselines3 pickle (a
    ``MaskablePPO`` zip, a ``policy.save`` ``.pt``) loads only with ``trust_pickle``, this
    call's: unpickling runs code from the file.

    Raises:
        ImportError: the train extra is not installed.
        FileNotFoundError: no file at ``path``.
        PickledPolicyError: a pickle, not trusted.
        CheckpointError: the file is not a policy this package can read.
    """
    _require_train_extra()
    resolved = _checkpoint_path(path)
    if resolved.suffix == BOARD_NETWORK:
        raise CheckpointError(f"{str(path)!r} is a board network (.npz), not a policy file: "
                              "play it with PPOAgent or ppo:<path>")
    stat = resolved.stat()
    key = (str(resolved), stat.st_size, stat.st_mtime_ns, trust_pickle)
    return _POLICIES.get(key, lambda: _load_file(resolved, str(path), trust_pickle))


def _load_file(path: Path, shown: str, trusted: bool) -> MaskableActorCriticPolicy:
    """The policy of the file at ``path``, torch on one thread: a policy file, else with
    ``trusted`` a Stable-Baselines3 pickle (whose loaders' errors become a
    :class:`CheckpointError` naming the file)."""
    import torch

    torch.set_num_threads(1)
    if path.suffix != ".zip":
        try:
            return read_policy(path, shown)
        except PickledPolicyError:
            if not trusted:
                raise
    elif not zipfile.is_zipfile(path):
        raise CheckpointError(f"checkpoint {shown!r} cannot be read (not a zip archive)")
    elif not trusted:                  # a MaskablePPO zip: pickles inside a zip archive
        raise PickledPolicyError(f"PPO file {shown!r} is a MaskablePPO zip, a pickle, and "
                                 f"loading it runs code from the file: {PICKLE_HINT}")
    try:
        return read_pickled(path)
    except Exception as error:  # the loaders raise many types (zip, pickle, torch, numpy)
        raise CheckpointError(
            f"checkpoint {shown!r} cannot be read ({type(error).__name__}: "
            f"{str(error)[:200] or 'no detail'}); expected a policy .pt written by "
            "tris-envs train ppo, or with --trust-pickle a MaskablePPO .zip") from None


def export_policy(model: MaskablePPO | MaskableActorCriticPolicy, destination: str | Path,
                game: str | None = None, game_options: dict[str, Any] | None = None) -> Path:
    """Write the policy of ``model`` (a ``MaskablePPO`` or its policy) as a policy file:
    weights and header, without the optimizer state (:mod:`tris_envs.agents.ppo_file`).
    ``game`` and ``game_options`` (the rules it was trained on) go into the header.
    Returns the destination.

    Raises:
        ImportError: the train extra is not installed.
        ValueError: a network the format cannot describe, or an unknown ``game``.
    """
    _require_train_extra()
    destination = Path(destination)
    write_policy(getattr(model, "policy", cast(Any, model)), destination, game, game_options)
    return destination


def convert(source: str | Path, destination: str | Path, game: str | None = None,
            game_options: dict[str, Any] | None = None) -> Path:
    """Rewrite a Stable-Baselines3 pickle (a ``MaskablePPO`` zip, a ``policy.save`` ``.pt``)
    as a policy file that loads without running code, and check that both give the same
    probabilities. This unpickles ``source``, which runs code from it: convert only a
    file you trust. ``game`` and ``game_options`` (the rules it was trained on) go into the
    header, and the policy must fit that game's observations and actions.

    Returns:
        The destination.

    Raises:
        ImportError: the train extra is not installed.
        FileNotFoundError: no file at ``source``.
        CheckpointError: ``source`` cannot be read.
        ValueError: a network the format cannot describe, or one that does not fit ``game``.
    """
    old = load_policy(source, trust_pickle=True)
    if game is not None:
        info = make_game(game, **(game_options or {})).info
        check_policy_fits(old, info.observation_shape, info.num_actions)
    path = export_policy(old, destination, game, game_options)
    new = load_policy(path)
    space = cast(Any, old.observation_space)
    rng = np.random.default_rng(0)
    observations = rng.integers(int(space.low.min()), int(space.high.max()) + 1,
                                (64, *space.shape)).astype(space.dtype)
    masks = rng.random((64, int(cast(Any, old.action_space).n))) < 0.5
    masks[:, 0] = True
    if not np.array_equal(masked_probabilities(old, observations, masks),
                          masked_probabilities(new, observations, masks)):
        path.unlink()
        raise ValueError(f"converting {str(source)!r}: the written policy does not give the "
                         "same probabilities (nothing written)")
    return path


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
    """A trained PPO policy playing through the :class:`Agent` protocol: a ``MaskablePPO``
    policy or a board network of the JAX learner.

    The agent builds the mover's own observation (``game.observation(state, player)``, the
    view the learner had in :class:`~tris_envs.envs.SingleAgentEnv`; a board network builds
    its own input) and its legal mask, and plays the policy's most probable legal action
    (``deterministic=True``) or samples the masked distribution with ``rng``: no search. A
    policy given by path loads at the first move.

    Args:
        source: A policy file (``.pt``) or a board network (``.npz``, NumPy alone); a
            ``MaskablePPO`` model or its policy in memory (played as it is, also while it
            trains on); ``None`` plays the policy shipped for the game and options it is
            asked to move in (:func:`shipped_checkpoint`).
        rng: Generator for stochastic play.
        deterministic: Play the most probable legal action instead of sampling.
        trust_pickle: Also load a Stable-Baselines3 pickle at ``source`` (a ``MaskablePPO``
            zip, a ``policy.save`` ``.pt``): unpickling runs code from the file, so pass it
            only for a file you trust. A pickled copy of the agent (a match's worker) keeps
            it.

    Raises:
        ImportError: the train extra is not installed (``pip install 'tris_envs[train]'``)
            for a ``.pt`` file or a model (for the shipped policy: at the first move).
        FileNotFoundError: no file at the path ``source``.
    """

    def __init__(self, source: str | Path | MaskablePPO | MaskableActorCriticPolicy | None = None,
                 rng: np.random.Generator | None = None, deterministic: bool = True,
                 trust_pickle: bool = False) -> None:
        self.trust_pickle = trust_pickle
        self.path: Path | None = None
        self._policy: MaskableActorCriticPolicy | None = None
        self._loaded: tuple[str, Policy] | None = None
        if isinstance(source, (str, Path)):
            self.path = _checkpoint_path(source)
            require_extra_for(self.path)
            self.name = f"ppo:{self.path.stem}"
        elif source is not None:
            _require_train_extra()
            self._policy = getattr(source, "policy", cast(Any, source))
            self.name = "ppo:model"
        else:
            self.name = "ppo"
        self.rng = rng if rng is not None else np.random.default_rng()
        self.deterministic = deterministic

    def policy_for(self, game: Game) -> Policy:
        """The policy this agent plays in ``game`` (a file loads once per process).

        The agent keeps the policy it found for the latest game (by name), so later moves
        neither resolve nor stat the file again; a pickled copy drops it.

        Raises:
            FileNotFoundError: no source was given and no policy is shipped for ``game``.
            PickledPolicyError: the file is a pickle, not trusted.
            CheckpointError: the file cannot be read.
        """
        if self._policy is not None:
            return self._policy
        name = game.info.name
        if self._loaded is None or self._loaded[0] != name:
            path = self.path or shipped_checkpoint(game)
            require_extra_for(path)
            self._loaded = (name, load(path, game) if path.suffix == BOARD_NETWORK
                            else load_policy(path, self.trust_pickle))
        return self._loaded[1]

    def checkpoint_for(self, game: Game) -> Path | None:
        """The file of the policy this agent plays in ``game`` (its own, else the shipped
        one); ``None`` for a policy in memory or a game no policy is shipped for."""
        if self._policy is not None:
            return None
        if self.path is not None:
            return self.path
        try:
            return shipped_checkpoint(game)
        except FileNotFoundError:
            return None

    def act(self, game: Game, state: Any) -> int:
        """The policy's legal action for ``game.current_player(state)``.

        Raises:
            ValueError: the policy's spaces do not fit ``game``.
            FileNotFoundError: no source was given and no policy is shipped for ``game``.
        """
        policy = self.policy_for(game)
        mask = game.legal_mask(state).astype(bool)
        if isinstance(policy, Network):
            return choose_action(policy.evaluate([state])[0][0], mask, self.deterministic,
                                 self.rng)
        observation = game.observation(state, game.current_player(state))
        return policy_action(policy, observation, mask, self.deterministic, self.rng)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_loaded"] = None   # a file's policy loads again (through the cache) there
        return state


class PolicyOpponent:
    """A trained policy as a :class:`~tris_envs.envs.SingleAgentEnv` opponent (self-play).

    Called as ``opponent(observation, action_mask) -> action`` with the opponent seat's own
    observation. It pickles (for ``SubprocVecEnv`` and ``env_method``): a path-backed opponent
    as its path, a model-backed one as the bytes of its policy file; the receiving process
    loads the policy at its first move.

    Args:
        source: A policy file (``.pt``), a ``MaskablePPO`` model or its policy.
        deterministic: Play the most probable legal action; by default the opponent samples,
            which gives the learner more varied games.
        rng: Generator for sampling.
        label: A name for logs (default: ``"ppo:<file stem>"`` or ``"ppo:model"``).
        trust_pickle: Also load a Stable-Baselines3 pickle at ``source``, as
            :class:`PPOAgent` does.

    Raises:
        ImportError: the train extra is not installed.
        FileNotFoundError: ``source`` is a path to no file.
    """

    def __init__(self, source: str | Path | MaskablePPO | MaskableActorCriticPolicy,
                 deterministic: bool = False, rng: np.random.Generator | None = None,
                 label: str | None = None, trust_pickle: bool = False) -> None:
        _require_train_extra()
        self.trust_pickle = trust_pickle
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
                self._policy = load_policy(self.path, self.trust_pickle)
            else:
                self._policy = read_policy(io.BytesIO(self._policy_bytes or b""), self.label)
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
            write_policy(cast(Any, self._policy), buffer)
            state["_policy_bytes"] = buffer.getvalue()
        state["_policy"] = None
        return state

    def __repr__(self) -> str:
        return f"PolicyOpponent({self.label!r}, deterministic={self.deterministic})"


def __getattr__(name: str) -> Any:
    """Define :class:`BoardCNN` on first access, so that importing this module needs no torch.

    Stable-Baselines3's pickles name the class ``tris_envs.agents.ppo.BoardCNN``; unpickling
    them (``trust_pickle``) resolves it through this hook.
    """
    if name == "BoardCNN":
        _require_train_extra()
        cls = board_cnn()
        globals()["BoardCNN"] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
