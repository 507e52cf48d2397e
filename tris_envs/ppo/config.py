"""Training configs: TOML tables read into dataclasses and checked before training starts.

A config file sets some keys of :class:`Config` (the shipped
``tris_envs/ppo/configs/tant_fant.toml`` shows them all); the others keep their
defaults. Every value is checked when read, and a bad one raises ``ValueError`` naming the key
and what it may be (``ppo.gamma=5: must be a number in [0, 1]``)::

    config = load_config("tris_envs/ppo/configs/tris1.toml")
    config = apply_overrides(config, ["ppo.ent_coef=0.02", 'eval.opponents=["random"]'])
    config.ppo.ent_coef     # 0.02

Importing this module imports neither PyTorch nor Stable-Baselines3.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tris_envs.agents import make_agent
from tris_envs.core.game import resolve_chance
from tris_envs.games import GAMES, make_game
from tris_envs.settings import (
    LIMITS,
    flag,
    integer,
    number,
    one_of,
    read_toml,
    setting,
    settings_from,
    shipped_config,
    sizes,
    specs,
    table,
    toml_module,
    weights,
)

SELF = "self"
"""Pool weight key of the learner's past snapshots."""


@dataclass
class TrainSettings:
    """``[train]``: the budget and the environments: ``n_envs`` games stepped together by
    ``vec_env``, ``"batched"`` (:class:`~tris_envs.ppo.batched.BatchedPoolEnv`: one
    process, the opponents' network moves of all games in one call per network) or SB3's
    ``"dummy"`` / ``"subproc"`` vector environments over one
    :class:`~tris_envs.ppo.pool.OpponentPoolEnv` per game."""

    timesteps: int = setting(100_000, integer(1))
    seed: int = setting(0, integer(0))
    n_envs: int = setting(32, integer(1))
    vec_env: str = setting("batched", one_of("batched", "dummy", "subproc"))


@dataclass
class NetworkSettings:
    """``[network]``: ``"cnn"`` (``BoardCNN``: ``channels`` 3x3 convolutions, a dense layer of
    ``features_dim``) or ``"mlp"`` (the planes flattened), then separate policy and value
    heads of widths ``net_arch``; each size within the bounds a policy file's header has
    (:data:`~tris_envs.settings.LIMITS`)."""

    extractor: str = setting("cnn", one_of("cnn", "mlp"))
    channels: list[int] = setting([32, 32], sizes(1))
    features_dim: int = setting(128, integer(1, LIMITS["width"]))
    net_arch: list[int] = setting([64, 64], sizes(0))


@dataclass
class PPOSettings:
    """``[ppo]``: the keyword arguments of ``sb3_contrib.MaskablePPO``."""

    learning_rate: float = setting(3e-4, number(0, strict=True))
    n_steps: int = setting(16, integer(1))
    batch_size: int = setting(128, integer(2))
    n_epochs: int = setting(4, integer(1))
    gamma: float = setting(0.99, number(0, 1))
    gae_lambda: float = setting(0.95, number(0, 1))
    clip_range: float = setting(0.2, number(0, strict=True))
    ent_coef: float = setting(0.01, number(0))
    vf_coef: float = setting(0.5, number(0))
    max_grad_norm: float = setting(0.5, number(0, strict=True))


@dataclass
class PoolSettings:
    """``[pool]``: the opponents of the training episodes (see
    :class:`~tris_envs.ppo.pool.OpponentPoolEnv`)."""

    snapshot_every: int = setting(20_000, integer(1))
    max_snapshots: int = setting(8, integer(1))
    snapshot_deterministic: bool = setting(False, flag)
    opening_prob: float = setting(0.0, number(0, 1))
    opening_plies: int = setting(0, integer(0))
    weights: dict[str, float] = setting({SELF: 0.5, "random": 0.2, "greedy": 0.3}, weights)


@dataclass
class EvalSettings:
    """``[eval]``: the evaluations during training: ``evaluations`` of them spread evenly over
    the run (after every ``train.timesteps / evaluations`` steps, at the first rollout's end
    past each point) and one before the first update, so a run's learning curve has
    ``evaluations + 1`` points where the rollouts are short enough."""

    evaluations: int = setting(10, integer(1))
    games: int = setting(100, integer(1))
    opponents: list[str] = setting(["random", "greedy"], specs)
    seed: int = setting(1_000_003, integer(0))
    processes: int = setting(1, integer(1))
    judge_moves: bool = setting(True, flag)


@dataclass
class Config:
    """A whole training config: the game, its options, and one field per table."""

    game: str = setting("", one_of(*GAMES))
    game_options: dict[str, Any] = setting({}, table)
    train: TrainSettings = field(default_factory=TrainSettings)
    network: NetworkSettings = field(default_factory=NetworkSettings)
    ppo: PPOSettings = field(default_factory=PPOSettings)
    pool: PoolSettings = field(default_factory=PoolSettings)
    eval: EvalSettings = field(default_factory=EvalSettings)

    def to_dict(self) -> dict[str, Any]:
        """The config as nested tables (the form of ``config.json``)."""
        return dataclasses.asdict(self)


def load_config(path: str | Path) -> Config:
    """The TOML file at ``path`` over the defaults, checked.

    Raises:
        ValueError: invalid TOML, an unknown key, a bad value (named with its key).
        OSError: the file cannot be read.
    """
    return check_config(settings_from(Config, read_toml(Path(path)), Config()))


def apply_overrides(config: Config, assignments: Sequence[str]) -> Config:
    """``config`` with ``section.key=value`` assignments applied (values parsed as TOML).

    A value that is not valid TOML is taken as a string (``--set eval.opponents='["random"]'``
    gives a list, ``--set game_options.layout=random`` the string ``"random"``).

    Raises:
        ValueError: an assignment without ``=``, an unknown key, a bad value.
    """
    toml = toml_module()
    override: dict[str, Any] = {}
    for text in assignments:
        name, sep, raw = text.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"--set {text!r}: expected section.key=value")
        try:
            value = toml.loads(f"v = {raw}")["v"]
        except toml.TOMLDecodeError:
            value = raw
        keys = name.strip().split(".")
        place = override
        for key in keys[:-1]:
            place = place.setdefault(key, {})
        place[keys[-1]] = value
    return check_config(settings_from(Config, override, config))


def default_config(game: str, directory: str | Path) -> Path:
    """``<directory>/<game>.toml`` (a ``_v0`` suffix dropped).

    Raises:
        ValueError: no such file; the message lists the configs in ``directory``.
    """
    return shipped_config(game.removesuffix("_v0"), Path(directory))


def check_config(config: Config) -> Config:
    """``config`` after the checks that span keys; ``ValueError`` naming the keys.

    The game's options, PPO's batch against the rollout, the pool and evaluation agent
    specs, and ``"solver"`` only where the solver can play the game's start position.
    """
    if not config.game:
        raise ValueError(f"config key 'game' is missing (e.g. game = \"tant_fant\"; games: "
                         f"{', '.join(GAMES)})")
    try:
        game = make_game(config.game, **config.game_options)
    except ValueError as error:
        raise ValueError(f"game_options: {error}") from None
    rollout = config.ppo.n_steps * config.train.n_envs
    if config.ppo.batch_size > rollout:
        raise ValueError(f"ppo.batch_size={config.ppo.batch_size}: must be at most the rollout, "
                         f"ppo.n_steps x train.n_envs = {rollout}")
    members = [s for s in config.pool.weights if s != SELF]
    for key, agents in (("pool.weights", members), ("eval.opponents", config.eval.opponents)):
        for spec in agents:
            try:
                make_agent(spec)
            except (ValueError, OSError) as error:
                raise ValueError(f"{key}: {error}") from None
        if "solver" in agents:
            _check_solver(game, key)
    return config


def game_options_from(config: str | Path | None) -> dict[str, Any]:
    """The ``game_options`` table of a training config (TOML) or a run's ``config.json``.

    Raises:
        ValueError: invalid TOML or JSON, or a TOML file on Python 3.10 without ``tomli``.
        OSError: the file cannot be read.
    """
    if config is None:
        return {}
    path = Path(config)
    if path.suffix != ".json":
        return dict(read_toml(path).get("game_options", {}))
    try:
        return dict(json.loads(path.read_text()).get("game_options", {}))
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}: {error}") from None


def _check_solver(game: Any, key: str) -> None:
    name = game.info.name
    if not GAMES[name].solvable:
        solvable = ", ".join(n for n, spec in GAMES.items() if spec.solvable)
        raise ValueError(f"{key}: {name} has no exact solver, remove 'solver' (solvable: "
                         f"{solvable})")
    rng = np.random.default_rng(0)  # e.g. Doppia scelta's coloring phase is not solvable
    try:
        make_agent("solver", rng).act(game, resolve_chance(game, game.initial_state(rng), rng))
    except ValueError as error:
        raise ValueError(f"{key}: {error}") from None
