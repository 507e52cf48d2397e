"""Typed settings read from TOML: the config machinery of both learners.

A learner's config is a dataclass of :func:`setting` fields (a default and a :data:`Check`
each), or of such dataclasses (the TOML tables). :func:`settings_from` reads
a dictionary (:func:`read_toml`) over a base config and checks every value, naming the key
and what it may be in the ``ValueError`` (``ppo.gamma=5: must be a number in [0, 1]``)::

    @dataclass
    class Settings:
        games: int = setting(100, integer(1))
        opponents: list[str] = setting(["random"], specs)

    settings = settings_from(Settings, read_toml(Path("run.toml")), Settings())

Used by :mod:`tris_envs.ppo.config` (``tris-envs train ppo``) and
:mod:`tris_envs.alphazero.train` (the AlphaZero learner). Imports the standard library only
(neither the rest of the package nor NumPy, PyTorch or JAX).
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import importlib
import math
from collections.abc import Callable
from dataclasses import field
from pathlib import Path
from typing import Any

Check = Callable[[Any], "str | None"]
"""A value's check: what is wrong with it, or ``None``."""

LIMITS: dict[str, int] = {
    "width": 4096,
    "layers": 64,
    "kernel": 15,
    "axes": 8,
    "observation": 1 << 16,
    "actions": 1 << 16,
    "parameters": 1 << 26,
    "header": 1 << 16,
    "batch": 4096,
    "envs": 1 << 16,
    "steps": 1 << 12,
    "simulations": 1 << 14,
}
"""The bounds on the sizes and budgets that a file (a network's or a policy's header, a
config) or a flag gives, checked where they are read, before anything is allocated:

* ``width``: the units of one layer (a dense layer, a convolution's channels, an ``az``
  network's trunk);
* ``layers``: the layers of a list (a PPO head, ``BoardCNN``'s convolutions) and an ``az``
  network's residual blocks;
* ``kernel``: a convolution's kernel size;
* ``axes`` and ``observation``: the axes of an observation and the numbers in it;
* ``actions``: the actions of a policy;
* ``parameters``: the weights of one network (256 MiB as ``float32``), counted from its
  header before its weights are read;
* ``header``: the characters of a network file's JSON header;
* ``batch``: the leaves a search evaluates per network call (a batch above the
  simulations gathers nothing more; 4096 fills a network call many times over);
* ``envs``, ``steps`` and ``simulations``: the AlphaZero learner's games played at once,
  plies of each per iteration, and simulations of each self-play move's search (its
  arrays grow with their product).

Each is far above what the games and the shipped networks need (the largest shipped
network has about 0.5 million weights)."""


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    """An int or a finite float (TOML and JSON read ``inf`` and ``nan`` as floats)."""
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or isinstance(value, float) and math.isfinite(value)


def integer(low: int, high: int | None = None) -> Check:
    """An integer ``>= low`` (and ``<= high``, where given)."""
    if high is None:
        return lambda v: None if _is_int(v) and v >= low else f"must be an integer >= {low}"
    return lambda v: (None if _is_int(v) and low <= v <= high
                      else f"must be an integer in [{low}, {high}]")


def number(low: float, high: float | None = None, strict: bool = False) -> Check:
    """A finite number in ``[low, high]``, or ``>= low`` (``> low`` if ``strict``) without
    ``high``."""
    def check(v: Any) -> str | None:
        if isinstance(v, float) and not math.isfinite(v):
            return "must be a finite number"
        if high is not None:
            return (None if _is_number(v) and low <= v <= high
                    else f"must be a number in [{low:g}, {high:g}]")
        if strict:
            return None if _is_number(v) and v > low else f"must be a number > {low:g}"
        return None if _is_number(v) and v >= low else f"must be a number >= {low:g}"

    return check


def one_of(*choices: str) -> Check:
    """One of the strings ``choices``."""
    return lambda v: None if v in choices else f"must be one of {', '.join(map(repr, choices))}"


def flag(value: Any) -> str | None:
    """A boolean."""
    return None if isinstance(value, bool) else "must be true or false"


def sizes(minimum: int) -> Check:
    """A list of ``minimum`` to ``LIMITS["layers"]`` layer widths, integers in ``[1,
    LIMITS["width"]]``."""
    most, widest = LIMITS["layers"], LIMITS["width"]
    return lambda v: (None if isinstance(v, list) and minimum <= len(v) <= most
                      and all(_is_int(x) and 1 <= x <= widest for x in v)
                      else f"must be a list of {minimum} to {most} integers in [1, {widest}]")


def specs(value: Any) -> str | None:
    """A non-empty list of agent specs (see :func:`tris_envs.agents.make_agent`)."""
    if not isinstance(value, list) or not value or not all(isinstance(s, str) for s in value):
        return "must be a non-empty list of agent specs such as \"random\""
    return None


def weights(value: Any) -> str | None:
    """A table of non-negative numbers whose sum, as a float, is positive and finite (the
    probabilities drawn from them are each weight over the sum)."""
    problem = "must be a table of non-negative numbers with a positive, finite sum"
    if not isinstance(value, dict) or not value or not all(
            _is_number(w) and w >= 0 for w in value.values()):
        return problem
    try:
        total = sum(float(w) for w in value.values())
    except OverflowError:               # an integer beyond the floats
        return problem
    return None if 0 < total < math.inf else problem


def table(value: Any) -> str | None:
    """A TOML table."""
    return None if isinstance(value, dict) else "must be a table"


def setting(default: Any, check: Check) -> Any:
    """A dataclass field with a default and its :data:`Check`."""
    if isinstance(default, (list, dict)):
        return field(default_factory=lambda: type(default)(default), metadata={"check": check})
    return field(default=default, metadata={"check": check})


def read_toml(path: Path) -> dict[str, Any]:
    """The TOML file at ``path`` as a dictionary.

    Raises:
        ValueError: invalid TOML, or Python 3.10 without ``tomli``.
        OSError: the file cannot be read.
    """
    toml = toml_module()
    try:
        return toml.loads(path.read_text())
    except toml.TOMLDecodeError as error:
        raise ValueError(f"{path}: {error}") from None


def config_names(directory: Path) -> list[str]:
    """The names of the configs in ``directory`` (its ``*.toml`` files' stems), sorted."""
    return sorted(path.stem for path in directory.glob("*.toml"))


def shipped_config(name: str, directory: Path) -> Path:
    """The config ``<directory>/<name>.toml`` that the package ships.

    Raises:
        ValueError: no such file; the message lists the configs in ``directory``.
    """
    path = directory / f"{name}.toml"
    if not path.is_file():
        known = ", ".join(config_names(directory)) or "none"
        raise ValueError(f"no shipped config {name!r} in {directory} (have: {known}); "
                         "pass --config with a TOML file")
    return path


def toml_module() -> Any:
    """The TOML reader: ``tomllib``, or ``tomli`` on Python 3.10.

    Raises:
        ValueError: neither is installed.
    """
    for name in ("tomllib", "tomli"):  # tomllib is in the standard library from Python 3.11
        with contextlib.suppress(ModuleNotFoundError):
            return importlib.import_module(name)
    raise ValueError("reading the TOML training configs needs Python >= 3.11 (tomllib) or, "
                     "on Python 3.10, pip install tomli")


def settings_from(cls: type, data: dict[str, Any], base: Any, where: str = "") -> Any:
    """A ``cls`` (a dataclass of :func:`setting` fields, or of such dataclasses as tables)
    with the keys of ``data`` over those of ``base``, each value checked.

    Raises:
        ValueError: an unknown key or a bad value, named with ``where`` and its key.
    """
    known = {f.name: f for f in dataclasses.fields(cls)}
    for key in data:
        if key not in known:
            raise ValueError(f"unknown config key {where + key!r}; known in this table: "
                             f"{', '.join(known)}")
    values = {}
    for name, spec in known.items():
        key = where + name
        current = getattr(base, name)
        if name not in data:
            values[name] = copy.deepcopy(current)
        elif dataclasses.is_dataclass(current):
            if not isinstance(data[name], dict):
                raise ValueError(f"config key {key!r} must be a table")
            values[name] = settings_from(type(current), data[name], current, f"{key}.")
        else:
            problem = spec.metadata["check"](data[name])
            if problem:
                raise ValueError(f"{key}={_show(data[name])}: {problem}")
            values[name] = data[name]
    return cls(**values)


def _show(value: Any) -> str:
    """``value`` as TOML would write it (near enough for a message)."""
    if isinstance(value, bool):
        return str(value).lower()
    return repr(value)
