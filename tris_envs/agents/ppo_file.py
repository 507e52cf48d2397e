"""PPO policy files: a state dict and a JSON header, read with ``torch.load(weights_only=True)``.

A policy file (``.pt``, what ``tris-envs train ppo`` writes and ``tris_envs/checkpoints``
ships) is one dictionary of two entries, saved with ``torch.save``::

    {"header": "<JSON text>", "state_dict": {"mlp_extractor.policy_net.0.weight": <tensor>, ...}}

:func:`read_policy` reads it with ``torch.load(..., weights_only=True)``: PyTorch's restricted
unpickler takes tensors, dictionaries and strings, never a class or a function, so reading a
file runs no code from it. The header says what the network is and what it was trained on::

    {"format": "tris_envs-ppo-policy", "version": 1, "package_version": "0.9.0",
     "game": "tris1", "game_options": {},
     "observation": {"shape": [3, 3, 2], "dtype": "int8", "low": 0, "high": 1},
     "actions": 9,
     "network": {"extractor": "mlp", "pi": [128, 128], "vf": [128, 128],
                 "activation": "tanh", "share_features_extractor": true,
                 "normalize_images": true}}

(``game`` is ``null`` where the writer did not name one; an ``"extractor": "cnn"`` network,
:class:`~tris_envs.agents.ppo.BoardCNN`, adds ``channels``, ``features_dim`` and
``kernel_size``). Every field is checked when the file is read, every size within
:data:`~tris_envs.settings.LIMITS`, and a bad one is named in one line
(:class:`CheckpointError`); the weights must be finite and have exactly the names and shapes
of the header's network, compared before the network is built. The archive's records must
be stored as ``torch.save`` stores them (not compressed), so reading a file never takes
more memory than the file's own size.

Stable-Baselines3's own files (a ``MaskablePPO`` zip of ``model.save``, a ``.pt`` of
``policy.save``, the format of this package's earlier versions) are pickles: loading one runs
whatever code it names. :func:`read_pickled` loads them, only where the caller says it
trusts the file; reading one without that raises :class:`PickledPolicyError`.
"""

from __future__ import annotations

import io
import json
import math
import pickle
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from tris_envs.agents.az_network import weights_misfit
from tris_envs.agents.board_cnn import board_cnn
from tris_envs.durable import replaced
from tris_envs.games import GAMES
from tris_envs.machine import package_version
from tris_envs.settings import LIMITS, Check, flag, integer, one_of, sizes

if TYPE_CHECKING:
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

FORMAT = "tris_envs-ppo-policy"
"""The header's ``format``."""

VERSION = 1
"""The header's ``version``: the one this package writes and reads."""

OBSERVATION_DTYPES = ("int8", "uint8", "float32")
"""Observation dtypes a header may name."""

ACTIVATIONS = ("tanh", "relu")
"""Activations a header may name (``torch.nn.Tanh``, ``torch.nn.ReLU``)."""

PICKLE_HINT = ("pass --trust-pickle (trust_pickle=True) only for a file you trust, or "
               "convert it once with tris_envs.agents.ppo.convert")
"""What to do with a pickled policy file."""


class CheckpointError(ValueError):
    """A checkpoint file that cannot be read (empty, truncated, corrupt, another format)."""


class PickledPolicyError(CheckpointError):
    """A pickled policy file (Stable-Baselines3's format), read without trusting it."""


def read_policy(source: Path | io.BytesIO, shown: str) -> MaskableActorCriticPolicy:
    """The policy of a weights-only policy file (or its bytes), on the CPU, in eval mode.

    Args:
        source: The file, or its bytes.
        shown: The file's name in messages.

    Raises:
        PickledPolicyError: the file is a pickle that needs code to load.
        CheckpointError: anything else that is not a policy file, named in one line.
    """
    import torch

    records = _zip_records(source)
    if records is None:
        raise CheckpointError(f"checkpoint {shown!r} cannot be read (not a PyTorch file); "
                              "expected a policy .pt written by tris-envs train ppo")
    if any(r.compress_type != zipfile.ZIP_STORED or r.compress_size != r.file_size
           for r in records) or sum(r.file_size for r in records) > _size(source):
        raise CheckpointError(f"checkpoint {shown!r} cannot be read (its records are "
                              "compressed or larger than the file: torch.save wrote no such "
                              "file)")
    try:
        payload = torch.load(source, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError:
        raise PickledPolicyError(
            f"PPO file {shown!r} is a pickle (Stable-Baselines3's format) and loading it runs "
            f"code from the file: {PICKLE_HINT}") from None
    except Exception as error:  # zip, torch and pickle errors of a damaged file
        raise CheckpointError(f"checkpoint {shown!r} cannot be read "
                              f"({type(error).__name__}: {str(error)[:200] or 'no detail'})"
                              ) from None
    if (not isinstance(payload, dict) or set(payload) != {"header", "state_dict"}
            or not isinstance(payload["header"], str)
            or not isinstance(payload["state_dict"], dict)):
        raise CheckpointError(f"checkpoint {shown!r} cannot be read (not a tris_envs PPO "
                              "policy: expected a header and a state dict)")
    header = check_header(_parse_header(payload["header"], shown), shown)
    return build_policy(header, payload["state_dict"], shown)


def write_policy(policy: MaskableActorCriticPolicy, destination: Path | io.BytesIO,
                 game: str | None = None, game_options: dict[str, Any] | None = None) -> None:
    """Write ``policy`` as a policy file (whole or not at all: :func:`~tris_envs.durable.replaced`).

    Raises:
        ValueError: the policy has a part the header cannot name (another features
            extractor, activation or space), or ``game`` is not a game's name.
    """
    import torch

    header = header_of(policy, game, game_options or {})
    payload = {"header": json.dumps(header, sort_keys=True, allow_nan=False),
               "state_dict": dict(policy.state_dict())}
    if isinstance(destination, io.BytesIO):
        torch.save(payload, destination)
        return
    destination.parent.mkdir(parents=True, exist_ok=True)
    with replaced(destination, binary=True) as file:
        torch.save(payload, file)


def read_pickled(path: Path) -> MaskableActorCriticPolicy:
    """The policy of a Stable-Baselines3 file: a ``MaskablePPO`` zip or a ``policy.save``
    ``.pt``. Unpickling runs code from the file: call this only for a file the user trusts.
    Errors are the loaders' own."""
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    if path.suffix == ".zip":
        policy = MaskablePPO.load(path, device="cpu").policy
    else:
        policy = MaskableActorCriticPolicy.load(str(path), device="cpu")
    policy.set_training_mode(False)
    return policy


def header_of(policy: MaskableActorCriticPolicy, game: str | None,
              game_options: dict[str, Any]) -> dict[str, Any]:
    """The header describing ``policy`` (see the module docstring).

    Raises:
        ValueError: a part the header cannot name, or ``game`` is not a game's name.
    """
    import torch
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from stable_baselines3.common.torch_layers import FlattenExtractor

    if game is not None and game not in GAMES:
        raise ValueError(f"unknown game {game!r} for a policy header; games: "
                         f"{', '.join(GAMES)}")
    space, actions = policy.observation_space, policy.action_space
    if type(policy) is not MaskableActorCriticPolicy:
        raise ValueError(f"a policy file holds a MaskableActorCriticPolicy, not a "
                         f"{type(policy).__name__}")
    if not isinstance(space, spaces.Box) or not isinstance(actions, spaces.Discrete):
        raise ValueError(f"a policy file needs Box observations and Discrete actions, got "
                         f"{space} and {actions}")
    lows, highs = np.unique(space.low), np.unique(space.high)
    if lows.size != 1 or highs.size != 1 or not np.isfinite([lows[0], highs[0]]).all():
        raise ValueError("a policy file needs observation bounds that are one finite number "
                         "each")
    if str(space.dtype) not in OBSERVATION_DTYPES:
        raise ValueError(f"observation dtype {space.dtype} is not one of "
                         f"{', '.join(OBSERVATION_DTYPES)}")
    params = policy._get_constructor_parameters()
    arch = params["net_arch"]
    pi, vf = (arch["pi"], arch["vf"]) if isinstance(arch, dict) else (arch, arch)
    activations = {torch.nn.Tanh: "tanh", torch.nn.ReLU: "relu"}
    if params["activation_fn"] not in activations:
        raise ValueError(f"activation {params['activation_fn'].__name__} is not one of "
                         f"{', '.join(ACTIVATIONS)}")
    network: dict[str, Any] = {
        "pi": [int(n) for n in pi], "vf": [int(n) for n in vf],
        "activation": activations[params["activation_fn"]],
        "share_features_extractor": bool(policy.share_features_extractor),
        "normalize_images": bool(params["normalize_images"])}
    extractor = policy.features_extractor if policy.share_features_extractor else \
        policy.pi_features_extractor
    if type(extractor) is FlattenExtractor:
        network["extractor"] = "mlp"
    elif type(extractor) is board_cnn():
        layers = cast(Any, extractor).convolutions
        convolutions = [m for m in layers if isinstance(m, torch.nn.Conv2d)]
        network |= {"extractor": "cnn", "channels": [c.out_channels for c in convolutions],
                    "features_dim": int(extractor.features_dim),
                    "kernel_size": int(convolutions[0].kernel_size[0])}
    else:
        raise ValueError(f"features extractor {type(extractor).__name__} is not one a policy "
                         "file names (FlattenExtractor, BoardCNN)")
    return {"format": FORMAT, "version": VERSION, "package_version": package_version(),
            "game": game, "game_options": dict(game_options),
            "observation": {"shape": [int(n) for n in space.shape], "dtype": str(space.dtype),
                            "low": _number(lows[0]), "high": _number(highs[0])},
            "actions": int(actions.n), "network": network}


def check_header(header: Any, shown: str) -> dict[str, Any]:
    """``header`` after checking every field; :class:`CheckpointError` naming the first bad
    one (``policy file 'x.pt': header field 'network.pi' must be ...``)."""
    def fail(key: str, problem: str) -> CheckpointError:
        return CheckpointError(f"policy file {shown!r}: header field {key!r} {problem}")

    def table(value: Any, key: str, required: dict[str, Check]) -> None:
        if not isinstance(value, dict):
            raise fail(key, "must be a JSON object")
        for name in value:
            if name not in required:
                raise fail(f"{key}.{str(name)[:60]}".lstrip("."), f"is not one this version "
                           f"reads (it reads {', '.join(required)})")
        for name, check in required.items():
            where = f"{key}.{name}".lstrip(".")
            if name not in value:
                raise fail(where, "is missing")
            problem = check(value[name])
            if problem:
                raise fail(where, f"{problem}, got {_shown(value[name])}")

    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise CheckpointError(f"checkpoint {shown!r} cannot be read (its header is not a "
                              f"{FORMAT} header)")
    if header.get("version") != VERSION:
        raise fail("version", f"is {_shown(header.get('version'))}; this version of "
                   f"tris_envs reads version {VERSION}")
    table(header, "", {
        "format": _anything, "version": _anything, "package_version": _text,
        "game": lambda v: None if v is None or v in GAMES else
        f"must be null or one of {', '.join(GAMES)}",
        "game_options": lambda v: None if isinstance(v, dict) else "must be a JSON object",
        "observation": _anything, "actions": integer(1, LIMITS["actions"]),
        "network": _anything})
    observation = header["observation"]
    table(observation, "observation", {"shape": _shape, "dtype": one_of(*OBSERVATION_DTYPES),
                                       "low": _finite, "high": _finite})
    if observation["low"] > observation["high"]:
        raise fail("observation.low", "must be at most observation.high")
    network = header["network"]
    if not isinstance(network, dict):
        raise fail("network", "must be a JSON object")
    fields: dict[str, Check] = {"extractor": one_of("mlp", "cnn"), "pi": sizes(0),
                                "vf": sizes(0), "activation": one_of(*ACTIVATIONS),
                                "share_features_extractor": flag, "normalize_images": flag}
    if network.get("extractor") == "cnn":
        fields |= {"channels": sizes(1), "features_dim": integer(1, LIMITS["width"]),
                   "kernel_size": _kernel}
    table(network, "network", fields)
    if network["extractor"] == "cnn" and len(observation["shape"]) != 3:
        raise fail("observation.shape", f"must be [height, width, channels] for a cnn "
                   f"network, got {_shown(observation['shape'])}")
    count = sum(math.prod(shape) for shape in policy_shapes(header).values())
    if count > LIMITS["parameters"]:
        raise fail("network", f"makes a policy of {count:,} weights; at most "
                   f"{LIMITS['parameters']:,}")
    return cast(dict[str, Any], header)


def policy_shapes(header: dict[str, Any]) -> dict[str, tuple[int, ...]]:
    """The name and shape of every weight of the policy a checked ``header`` describes, as
    its ``state_dict()`` holds them, computed from the header (nothing is built).

    Stable-Baselines3 registers the features extractor under three names
    (``features_extractor``, ``pi_features_extractor``, ``vf_features_extractor``), shared or
    not; a ``FlattenExtractor`` has no weights."""
    observation, network = header["observation"], header["network"]
    shapes: dict[str, tuple[int, ...]] = {}
    if network["extractor"] == "cnn":
        height, width, depth = observation["shape"]
        kernel, features = network["kernel_size"], network["features_dim"]
        extractor: dict[str, tuple[int, ...]] = {}
        for i, out in enumerate(network["channels"]):
            extractor |= {f"convolutions.{2 * i}.weight": (out, depth, kernel, kernel),
                          f"convolutions.{2 * i}.bias": (out,)}
            depth = out
        extractor |= {"dense.0.weight": (features, depth * height * width),
                      "dense.0.bias": (features,)}
        for prefix in ("features_extractor", "pi_features_extractor", "vf_features_extractor"):
            shapes |= {f"{prefix}.{name}": shape for name, shape in extractor.items()}
    else:
        features = math.prod(observation["shape"])
    latent = {}
    for head, widths in (("policy_net", network["pi"]), ("value_net", network["vf"])):
        last = features
        for i, out in enumerate(widths):
            shapes |= {f"mlp_extractor.{head}.{2 * i}.weight": (out, last),
                       f"mlp_extractor.{head}.{2 * i}.bias": (out,)}
            last = out
        latent[head] = last
    return shapes | {"action_net.weight": (header["actions"], latent["policy_net"]),
                     "action_net.bias": (header["actions"],),
                     "value_net.weight": (1, latent["value_net"]), "value_net.bias": (1,)}


def build_policy(header: dict[str, Any], state_dict: dict[str, Any],
                 shown: str) -> MaskableActorCriticPolicy:
    """The policy a checked ``header`` describes, with the weights of ``state_dict``.

    The weights' names and shapes are compared to the header's network
    (:func:`policy_shapes`) before it is built. Building it leaves torch's random generator
    as it was (the initial weights it draws are replaced).

    Raises:
        CheckpointError: weights that are not finite tensors or do not fit the network.
    """
    import torch
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from stable_baselines3.common.torch_layers import FlattenExtractor

    for name, tensor in state_dict.items():
        if not isinstance(name, str) or not isinstance(tensor, torch.Tensor):
            raise CheckpointError(f"checkpoint {shown!r} cannot be read (its state dict holds "
                                  f"{type(tensor).__name__} {str(name)[:80]!r}, not a tensor)")
    misfit = weights_misfit({name: tuple(tensor.shape) for name, tensor in state_dict.items()},
                            policy_shapes(header))
    if misfit:
        raise CheckpointError(f"checkpoint {shown!r}: its weights do not fit the network its "
                              f"header describes ({misfit})")
    for name, tensor in state_dict.items():
        if tensor.is_floating_point() and not bool(torch.isfinite(tensor).all()):
            raise CheckpointError(f"checkpoint {shown!r}: weight {name!r} is not finite "
                                  "(NaN or infinite)")
    observation, network = header["observation"], header["network"]
    extractor: dict[str, Any] = {"features_extractor_class": FlattenExtractor}
    if network["extractor"] == "cnn":
        extractor = {"features_extractor_class": board_cnn(), "features_extractor_kwargs": {
            key: network[key] for key in ("channels", "features_dim", "kernel_size")}}
    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[network["activation"]]
    try:
        with torch.random.fork_rng(devices=[]):
            policy = MaskableActorCriticPolicy(
                spaces.Box(observation["low"], observation["high"], tuple(observation["shape"]),
                           np.dtype(observation["dtype"])),
                spaces.Discrete(header["actions"]), _no_learning,
                net_arch={"pi": network["pi"], "vf": network["vf"]}, activation_fn=activation,
                ortho_init=False, normalize_images=network["normalize_images"],
                share_features_extractor=network["share_features_extractor"], **extractor)
        policy.load_state_dict(state_dict, strict=True)
    except (ValueError, RuntimeError) as error:  # BoardCNN's checks, load_state_dict's
        raise CheckpointError(f"checkpoint {shown!r}: its weights do not fit the network its "
                              f"header describes ({str(error).splitlines()[0][:200]})"
                              ) from None
    policy.set_training_mode(False)
    return policy


def _parse_header(text: str, shown: str) -> Any:
    def no_constant(name: str) -> Any:
        raise ValueError(f"{name} is not a number a header may hold")

    try:
        return json.loads(text, parse_constant=no_constant)
    except ValueError as error:
        raise CheckpointError(f"policy file {shown!r}: its header is not JSON ({error})"
                              ) from None


def _zip_records(source: Path | io.BytesIO) -> list[zipfile.ZipInfo] | None:
    """The records of ``source`` where it is a zip archive, as ``torch.save`` writes, else
    ``None`` (the position of bytes is put back)."""
    position = None if isinstance(source, Path) else source.tell()
    try:
        if not zipfile.is_zipfile(source):
            return None
        with zipfile.ZipFile(source) as archive:
            return archive.infolist()
    except (OSError, zipfile.BadZipFile):
        return None
    finally:
        if position is not None:
            cast(io.BytesIO, source).seek(position)


def _size(source: Path | io.BytesIO) -> int:
    """The bytes of a file, or of the bytes given."""
    return source.stat().st_size if isinstance(source, Path) else len(source.getbuffer())


def _no_learning(progress: float) -> float:
    """The learning-rate schedule of a loaded policy: it is played, not trained."""
    return 0.0


def _number(value: Any) -> int | float:
    value = float(value)
    return int(value) if value.is_integer() else value


def _shown(value: Any) -> str:
    """A header value as JSON writes it, cut to 80 characters."""
    return json.dumps(value, default=str)[:80]


def _anything(value: Any) -> str | None:
    return None


def _text(value: Any) -> str | None:
    return None if isinstance(value, str) else "must be a string"


def _finite(value: Any) -> str | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return None
    return "must be a finite number"


def _kernel(value: Any) -> str | None:
    """An odd kernel size, at most ``LIMITS["kernel"]``."""
    return integer(1, LIMITS["kernel"])(value) or (None if value % 2 else "must be odd")


def _shape(value: Any) -> str | None:
    """An observation's shape: 1 to ``LIMITS["axes"]`` sizes, at most
    ``LIMITS["observation"]`` numbers in all."""
    axes, most = LIMITS["axes"], LIMITS["observation"]
    if (isinstance(value, list) and 1 <= len(value) <= axes
            and all(integer(1)(size) is None for size in value) and math.prod(value) <= most):
        return None
    return f"must be a list of 1 to {axes} integers >= 1 whose product is at most {most}"
