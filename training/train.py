"""Train MaskablePPO on one game: self-play against a pool of snapshots and baselines.

Usage::

    python training/train.py --game tant_fant
    python training/train.py --game tris2 --timesteps 2000000 --seed 1 --out runs/tris2-s1
    python training/train.py --game tris1 --config my.toml --set ppo.ent_coef=0.02

The learner is :class:`tris_envs.envs.SingleAgentEnv` with ``seat="random"``, so it plays both
seats and gets its win, draw and loss rewards even when the game ends on the opponent's move.
Its settings come from ``training/configs/<game>.toml`` (or ``--config``), see
``training/configs/tant_fant.toml`` for every key; ``--timesteps``, ``--seed``, ``--n-envs`` and
``--set section.key=value`` (a TOML value) override it.

**Opponents.** Each episode the learner meets one member of a pool, drawn with the
configured weights (``[pool.weights]``): ``self`` (past snapshots of the learner, saved every
``pool.snapshot_every`` steps, the newest ``pool.max_snapshots`` kept, the weight split evenly
between them; the untrained policy is the first) and agent specs (``random``, ``greedy``,
``mcts:<N>``, ``solver`` where the game has an exact solver). The draw happens in
:class:`OpponentPoolEnv`, a Gymnasium wrapper that calls ``SingleAgentEnv.set_opponent`` at
every ``reset`` before the opponent may open; new snapshots reach every environment, in
``SubprocVecEnv`` workers too, through ``env_method("add_snapshot", path)``.

**Network.** ``[network] extractor = "cnn"``: :class:`tris_envs.agents.ppo.BoardCNN` (3x3
convolutions with padding 1 over the ``(H, W, C)`` planes, flattened into a dense layer) with
separate policy and value heads (``net_arch``); ``"mlp"``: the planes flattened into the
heads.

**Outputs** in ``--out`` (default ``runs/<game>``): ``config.json`` (the resolved config),
``checkpoints/step_<N>.zip`` at every evaluation, ``final.zip``, ``best.zip`` (the highest mean
score over the evaluation opponents), ``final.pt`` and ``best.pt`` (their policies alone,
without the optimizer state: the form shipped in ``tris_envs/checkpoints``),
``progress.csv`` (steps, wall time, score and loss rate against each evaluation opponent,
share of solver-optimal moves), ``tb/`` (TensorBoard: SB3's losses, ``eval/*``, ``pool/*``
results per pool member), ``learning_curve.png``.
Evaluations (:func:`evaluate.evaluate_checkpoint`, i.e. ``play_match`` with seats
alternating) run every ``eval.every`` steps, before the first update and at the end.

Torch runs on one thread: on shared cores two threads are many times slower.
"""

from __future__ import annotations

import argparse
import copy
import csv
import functools
import json
import math
import shutil
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from evaluate import OpponentResult, evaluate_checkpoint

from tris_envs.agents import PolicyOpponent, make_agent
from tris_envs.agents.ppo import export_policy
from tris_envs.core.game import resolve_chance
from tris_envs.envs import SingleAgentEnv
from tris_envs.games import GAMES, make_game

CONFIG_DIR = Path(__file__).resolve().parent / "configs"
"""Where ``--game <name>`` finds ``<name>.toml``."""

SELF = "self"
"""Pool weight key of the learner's past snapshots."""

POOL_STREAM = 0x706F6F6C
"""Mixed into the pool's seed to keep its random stream apart from the environment's."""

DEFAULTS: dict[str, Any] = {
    "game": "",
    "game_options": {},
    "train": {"timesteps": 100_000, "seed": 0, "n_envs": 2, "vec_env": "dummy"},
    "network": {"extractor": "cnn", "channels": [32, 32], "features_dim": 128,
                "net_arch": [64, 64]},
    "ppo": {"learning_rate": 3e-4, "n_steps": 256, "batch_size": 128, "n_epochs": 4,
            "gamma": 0.99, "gae_lambda": 0.95, "clip_range": 0.2, "ent_coef": 0.01,
            "vf_coef": 0.5, "max_grad_norm": 0.5},
    "pool": {"snapshot_every": 20_000, "max_snapshots": 8, "snapshot_deterministic": False,
             "opening_prob": 0.0, "opening_plies": 0,
             "weights": {SELF: 0.5, "random": 0.2, "greedy": 0.3}},
    "eval": {"every": 20_000, "games": 100, "opponents": ["random", "greedy"],
             "seed": 1_000_003, "processes": 1, "judge_moves": True},
}
"""Every config key with its default; a config file overrides some of them."""

LEAF_TABLES = {("game_options",), ("pool", "weights")}
"""Tables a config replaces whole instead of merging key by key."""


# ----- configuration ----------------------------------------------------------------------
def load_config(path: str | Path) -> dict[str, Any]:
    """The TOML file at ``path`` merged over :data:`DEFAULTS` and checked.

    Raises:
        ValueError: unknown keys, bad values (see :func:`check_config`).
        RuntimeError: Python 3.10 without ``tomli`` (``tomllib`` is stdlib from 3.11).
    """
    return check_config(merge(DEFAULTS, _read_toml(Path(path))))


def _toml_module() -> Any:
    try:
        import tomllib
    except ModuleNotFoundError:
        try:
            import tomli as tomllib
        except ModuleNotFoundError:
            raise RuntimeError("reading the TOML training configs needs Python >= 3.11 "
                               "(tomllib) or, on Python 3.10, pip install tomli") from None
    return tomllib


def _read_toml(path: Path) -> dict[str, Any]:
    toml = _toml_module()
    try:
        return toml.loads(path.read_text())
    except toml.TOMLDecodeError as error:
        raise ValueError(f"{path}: {error}") from None


def merge(base: dict[str, Any], override: dict[str, Any],
          where: tuple[str, ...] = ()) -> dict[str, Any]:
    """``override`` merged into a copy of ``base``, table by table.

    Raises:
        ValueError: a key of ``override`` that ``base`` lacks (a typo), named with its table.
    """
    merged = copy.deepcopy(base)
    for key, value in override.items():
        path = (*where, key)
        if key not in base:
            raise ValueError(f"unknown config key {'.'.join(path)!r}; known in this table: "
                             f"{', '.join(sorted(base)) or '(none)'}")
        if isinstance(base[key], dict) and path not in LEAF_TABLES:
            if not isinstance(value, dict):
                raise ValueError(f"config key {'.'.join(path)!r} must be a table")
            merged[key] = merge(base[key], value, path)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def apply_overrides(config: dict[str, Any], assignments: Sequence[str]) -> dict[str, Any]:
    """``config`` with ``section.key=value`` assignments applied (values parsed as TOML).

    A value that is not valid TOML is taken as a string (``--set eval.opponents='["random"]'``
    gives a list, ``--set game_options.layout=random`` the string ``"random"``).

    Raises:
        ValueError: an assignment without ``=`` or naming an unknown key.
    """
    toml = _toml_module()
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
        table = override
        for key in keys[:-1]:
            table = table.setdefault(key, {})
        table[keys[-1]] = value
    return check_config(merge(config, override))


def check_config(config: dict[str, Any]) -> dict[str, Any]:
    """``config`` after checking its values; ``ValueError`` naming the bad key.

    Checks the game and its options, positive counts, the network kind, PPO's batch size
    against the rollout, and every pool and evaluation spec (``"solver"`` only where the
    solver can play the game's start position).
    """
    game = make_game(config["game"], **config["game_options"]) if config["game"] else None
    if game is None:
        raise ValueError("config key 'game' is missing (e.g. game = \"tant_fant\")")
    train, net, ppo, pool, ev = (config[k] for k in ("train", "network", "ppo", "pool", "eval"))
    for where, table, keys in (("train", train, ("timesteps", "n_envs")),
                               ("ppo", ppo, ("n_steps", "batch_size", "n_epochs")),
                               ("pool", pool, ("snapshot_every", "max_snapshots")),
                               ("eval", ev, ("every", "games", "processes"))):
        for key in keys:
            value = table[key]
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"config key {where}.{key} = {value!r} must be an integer "
                                 ">= 1")
    plies, share = pool["opening_plies"], pool["opening_prob"]
    if isinstance(plies, bool) or not isinstance(plies, int) or plies < 0:
        raise ValueError(f"config key pool.opening_plies = {plies!r} must be an integer >= 0")
    if isinstance(share, bool) or not isinstance(share, (int, float)) or not 0 <= share <= 1:
        raise ValueError(f"config key pool.opening_prob = {share!r} must be a number in "
                         "[0, 1]")
    if train["vec_env"] not in ("dummy", "subproc"):
        raise ValueError(f"config key train.vec_env = {train['vec_env']!r}: choose 'dummy' "
                         "or 'subproc'")
    if net["extractor"] not in ("cnn", "mlp"):
        raise ValueError(f"config key network.extractor = {net['extractor']!r}: choose "
                         "'cnn' or 'mlp'")
    if ppo["batch_size"] > ppo["n_steps"] * train["n_envs"]:
        raise ValueError(f"config key ppo.batch_size = {ppo['batch_size']} exceeds the "
                         f"rollout (ppo.n_steps x train.n_envs = "
                         f"{ppo['n_steps'] * train['n_envs']})")
    weights = pool["weights"]
    if not weights or any(not isinstance(w, (int, float)) or isinstance(w, bool) or w < 0
                          for w in weights.values()) or sum(weights.values()) <= 0:
        raise ValueError(f"config table pool.weights = {weights!r} needs non-negative "
                         "numbers with a positive sum")
    specs = [s for s in weights if s != SELF] + list(ev["opponents"])
    for spec in specs:
        make_agent(spec)
    if "solver" in specs:
        if not GAMES[game.info.name].solvable:
            raise ValueError(f"{game.info.name} has no exact solver: remove 'solver' from "
                             f"pool.weights and eval.opponents (solvable: "
                             f"{', '.join(n for n, s in GAMES.items() if s.solvable)})")
        rng = np.random.default_rng(0)  # e.g. Doppia scelta's coloring phase is not solvable
        make_agent("solver", rng).act(game, resolve_chance(game, game.initial_state(rng), rng))
    if not ev["opponents"]:
        raise ValueError("config key eval.opponents needs at least one agent spec")
    return config


def default_config(game: str) -> Path:
    """``training/configs/<game>.toml``; ``ValueError`` listing the configs if absent."""
    name = game[:-3] if game.endswith("_v0") else game
    path = CONFIG_DIR / f"{name}.toml"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in CONFIG_DIR.glob("*.toml")))
        raise ValueError(f"no training config for {game!r} in {CONFIG_DIR} (have: {known}); "
                         "pass --config")
    return path


# ----- the opponent pool ------------------------------------------------------------------
class OpponentPoolEnv(gymnasium.Wrapper):
    """Draws the opponent of each episode from a weighted pool (Gymnasium wrapper).

    At every :meth:`reset` a member is drawn with its weight and installed with
    ``SingleAgentEnv.set_opponent`` before the episode starts (so it also plays the opening
    when the learner sits second). Members are agent specs and the learner's snapshots,
    which share the weight of ``"self"`` evenly; while there is no snapshot that weight is
    left out. Every step's ``info["opponent"]`` names the episode's opponent; the last
    step's ``info["pool_episode"]`` is ``{"opponent": label, "return": the episode's summed
    reward, "result": +1 / 0 / -1}``, the result being the learner's final result in the
    game (``game.returns``; 0 when truncated, -1 for an illegal action), which differs from
    the return only with Tritoc's ``reward="points"``.

    Args:
        env: A :class:`~tris_envs.envs.SingleAgentEnv`.
        weights: Agent spec (or ``"self"``) -> non-negative weight.
        max_snapshots: Snapshots kept; adding one more drops the oldest.
        seed: Seeds the draws and the snapshots' sampling (a stream apart from the one
            ``env.reset(seed=seed)`` would give, so that seat and opponent draws are
            independent when both get the same number).
        snapshot_deterministic: Snapshots play their most probable move instead of sampling.
        opening_prob: Share of episodes that start from a random opening instead of the
            game's start: 1 to ``opening_plies`` uniformly random moves of both sides (dice
            rolled as usual) from a fresh start, stopping before any move that would end the
            game. The learner then meets positions that its own play rarely reaches, where a
            policy that has stopped exploring would otherwise keep its mistakes.
        opening_plies: The most moves of a random opening.
    """

    OPENING_TRIES = 8
    """Random openings tried before an episode starts from the game's start instead (an
    opening is dropped when the opponent's reply to it ends the game)."""

    def __init__(self, env: SingleAgentEnv, weights: dict[str, float], max_snapshots: int = 8,
                 seed: int | None = None, snapshot_deterministic: bool = False,
                 opening_prob: float = 0.0, opening_plies: int = 0) -> None:
        super().__init__(env)
        self.weights = {spec: float(w) for spec, w in weights.items() if w > 0}
        self.max_snapshots = max_snapshots
        self.snapshot_deterministic = snapshot_deterministic
        self.opening_prob = opening_prob
        self.opening_plies = opening_plies
        self.snapshots: list[PolicyOpponent] = []
        self.rng = np.random.default_rng(None if seed is None else [seed, POOL_STREAM])
        self.opponent_label = ""
        self._return = 0.0

    def add_snapshot(self, path: str) -> None:
        """Add the learner's checkpoint at ``path`` (loaded now) and drop the oldest if full."""
        snapshot = PolicyOpponent(path, deterministic=self.snapshot_deterministic,
                                  rng=self.rng, label=f"{SELF}:{Path(path).stem}")
        snapshot.policy  # noqa: B018  (load now: the file may be deleted once evicted)
        self.snapshots.append(snapshot)
        del self.snapshots[:-self.max_snapshots]

    def members(self) -> list[tuple[str, Any, float]]:
        """``(label, opponent, probability)`` of every member that can be drawn now."""
        members: list[tuple[str, Any, float]] = []
        for spec, weight in self.weights.items():
            if spec == SELF:
                members += [(s.label, s, weight / len(self.snapshots)) for s in self.snapshots]
            else:
                members.append((spec, spec, weight))
        total = sum(w for _, _, w in members)
        if total <= 0:
            raise ValueError("the opponent pool is empty: give an agent spec a weight, or "
                             "add a snapshot before the first reset")
        return [(label, opponent, w / total) for label, opponent, w in members]

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Draw this episode's opponent, then reset the game."""
        members = self.members()
        index = int(self.rng.choice(len(members), p=[w for _, _, w in members]))
        self.opponent_label, opponent, _ = members[index]
        self.env.unwrapped.set_opponent(opponent)
        self._return = 0.0
        if self.opening_plies and "position" not in (options or {}) and (
                self.rng.random() < self.opening_prob):
            for _ in range(self.OPENING_TRIES):
                try:
                    obs, info = self.env.reset(seed=seed, options={
                        **(options or {}), "position": self.random_opening()})
                    break
                except ValueError:  # the opponent's reply ended the game
                    seed = None
            else:
                obs, info = self.env.reset(options=options)
        else:
            obs, info = self.env.reset(seed=seed, options=options)
        info["opponent"] = self.opponent_label
        return obs, info

    def random_opening(self) -> str:
        """The position string of a random opening (see ``opening_prob``); the game is live."""
        game = self.env.unwrapped.game
        state = resolve_chance(game, game.initial_state(self.rng), self.rng)
        for _ in range(int(self.rng.integers(1, self.opening_plies + 1))):
            action = int(self.rng.choice(game.legal_actions(state)))
            following = resolve_chance(game, game.apply(state, action), self.rng)
            if game.is_terminal(following):
                break
            state = following
        return game.to_notation(state)

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Step the game; the episode's opponent and, at its end, its return go in ``info``."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._return += reward
        info["opponent"] = self.opponent_label
        if terminated or truncated:
            env = self.env.unwrapped
            result = -1 if info.get("illegal_action") else int(
                np.sign(env.game.returns(env.game_state)[env.seat]))
            info["pool_episode"] = {"opponent": self.opponent_label, "return": self._return,
                                    "result": result}
        return obs, reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions (``MaskablePPO`` calls this)."""
        return self.env.unwrapped.action_masks()


def make_env(game: str, game_options: dict[str, Any], pool: dict[str, Any],
             seed: int) -> gymnasium.Env:
    """One training environment: the learner in a random seat against the pool (a
    ``[pool]`` config table), monitored."""
    from stable_baselines3.common.monitor import Monitor

    env = SingleAgentEnv(game, opponent="random", seat="random", **game_options)
    return Monitor(OpponentPoolEnv(env, pool["weights"], pool["max_snapshots"], seed,
                                   pool["snapshot_deterministic"], pool["opening_prob"],
                                   pool["opening_plies"]))


@dataclass
class PoolTally:
    """Episode results per pool member (snapshots together under ``"self"``)."""

    results: dict[str, Counter] = field(default_factory=dict)

    def add(self, episode: dict[str, Any]) -> None:
        """Count one ``info["pool_episode"]`` as a win, draw or loss (its ``result``)."""
        label = episode["opponent"]
        if label.startswith(f"{SELF}:"):
            label = SELF
        outcome = {1: "wins", 0: "draws", -1: "losses"}[episode["result"]]
        self.results.setdefault(label, Counter())[outcome] += 1

    def scores(self) -> dict[str, tuple[int, float]]:
        """Label -> (episodes, score rate with draws counting half)."""
        out = {}
        for label, c in sorted(self.results.items()):
            n = c["wins"] + c["draws"] + c["losses"]
            out[label] = (n, (c["wins"] + 0.5 * c["draws"]) / n)
        return out


# ----- callbacks --------------------------------------------------------------------------
def _callbacks() -> Any:
    """The callback classes (defined on demand: they subclass SB3's ``BaseCallback``)."""
    from stable_baselines3.common.callbacks import BaseCallback

    class SelfPlayCallback(BaseCallback):
        """Adds a snapshot of the learner to every environment's pool every ``every`` steps.

        The first snapshot is the untrained policy. Files of snapshots dropped from the pool
        are deleted. Also tallies the training episodes per pool member and logs their
        score rates (``pool/score_<member>``) at the end of each rollout.
        """

        def __init__(self, directory: Path, every: int, max_snapshots: int) -> None:
            super().__init__()
            self.directory = directory
            self.every = every
            self.max_snapshots = max_snapshots
            self.paths: list[Path] = []
            self.window = PoolTally()
            self.total = PoolTally()
            self._next = 0

        def _on_training_start(self) -> None:
            self.directory.mkdir(parents=True, exist_ok=True)
            self._snapshot()

        def _on_step(self) -> bool:
            for info in self.locals["infos"]:
                episode = info.get("pool_episode")
                if episode is not None:
                    self.window.add(episode)
                    self.total.add(episode)
            if self.num_timesteps >= self._next:
                self._snapshot()
            return True

        def _on_rollout_end(self) -> None:
            for label, (n, score) in self.window.scores().items():
                self.logger.record(f"pool/score_{label}", score)
                self.logger.record(f"pool/episodes_{label}", n)
            self.window = PoolTally()

        def _snapshot(self) -> None:
            path = self.directory / f"step_{self.num_timesteps:09d}.zip"
            self.model.save(path)
            self.training_env.env_method("add_snapshot", str(path))
            self.paths.append(path)
            while len(self.paths) > self.max_snapshots:
                self.paths.pop(0).unlink()
            self._next = self.num_timesteps + self.every

    class EvaluationCallback(BaseCallback):
        """Checkpoints and evaluates the learner every ``every`` steps, at start and end.

        Each evaluation saves ``checkpoints/step_<N>.zip``, plays it against every
        evaluation opponent, appends a row to ``progress.csv``, records ``eval/*`` for
        TensorBoard, copies the checkpoint to ``best.zip`` when its mean score is the best
        so far, and reports a summary line.
        """

        def __init__(self, run: TrainingRun, ev: dict[str, Any],
                     report: Callable[[str], None]) -> None:
            super().__init__()
            self.run = run
            self.ev = ev
            self.report = report
            self.eval_seconds = 0.0
            self.best = -math.inf
            self._next = 0
            self._last = -1
            self._start = 0.0

        def _on_training_start(self) -> None:
            self._start = time.perf_counter()
            self.run.checkpoints.mkdir(parents=True, exist_ok=True)
            self._evaluate()

        def _on_step(self) -> bool:
            if self.num_timesteps >= self._next:
                self._evaluate()
            return True

        def _on_training_end(self) -> None:
            if self._last != self.num_timesteps:
                self._evaluate()
                self.logger.dump(self.num_timesteps)

        def _evaluate(self) -> None:
            began = time.perf_counter()
            steps = self.num_timesteps
            path = self.run.checkpoints / f"step_{steps:09d}.zip"
            self.model.save(path)
            results = evaluate_checkpoint(path, self.run.game, self.ev["opponents"],
                                          self.ev["games"], self.ev["seed"],
                                          self.ev["processes"],
                                          judge_moves=self.ev["judge_moves"])
            self.eval_seconds += time.perf_counter() - began
            wall = time.perf_counter() - self._start
            row = progress_row(steps, wall, wall - self.eval_seconds, results)
            self.run.append_row(row)
            for key, value in row.items():
                if key not in ("steps", "wall_s", "train_s") and value != "":
                    self.logger.record(f"eval/{key}", value)
            mean = float(np.mean([r.match.score for r in results]))
            if mean > self.best:
                self.best = mean
                shutil.copyfile(path, self.run.best)
            self.run.final_results = results
            self._last = steps
            self._next = steps + self.ev["every"]
            self.report(summary_line(row, self.ev["opponents"]))

    class ProgressCallback(BaseCallback):
        """A rich progress bar: steps, steps per second, elapsed and remaining time."""

        def __init__(self, total: int) -> None:
            super().__init__()
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self.total = total
            self.progress = Progress(TextColumn("[bold]training"), BarColumn(),
                                     MofNCompleteColumn(), TextColumn("{task.fields[rate]}"),
                                     TimeElapsedColumn(), TimeRemainingColumn())
            self.task = self.progress.add_task("training", total=total, rate="")
            self._start = 0.0

        def _on_training_start(self) -> None:
            self._start = time.perf_counter()
            self.progress.start()

        def _on_step(self) -> bool:
            elapsed = time.perf_counter() - self._start
            rate = f"{self.num_timesteps / elapsed:,.0f} steps/s" if elapsed > 0 else ""
            self.progress.update(self.task, completed=min(self.num_timesteps, self.total),
                                 rate=rate)
            return True

        def _on_training_end(self) -> None:
            self.progress.stop()

    return SelfPlayCallback, EvaluationCallback, ProgressCallback


def progress_row(steps: int, wall: float, train_s: float,
                 results: Sequence[OpponentResult]) -> dict[str, Any]:
    """One ``progress.csv`` row: steps, times, score and loss rate per opponent, optimal share.

    ``optimal_share`` is over every evaluation game, empty where no move was judged.
    """
    row: dict[str, Any] = {"steps": steps, "wall_s": round(wall, 1), "train_s": round(train_s, 1)}
    for r in results:
        row[f"score_{r.opponent}"] = round(r.match.score, 4)
        row[f"loss_{r.opponent}"] = round(r.match.losses / r.match.n_games, 4)
    judged = sum(r.judged for r in results)
    row["optimal_share"] = round(sum(r.optimal for r in results) / judged, 4) if judged else ""
    return row


def summary_line(row: dict[str, Any], opponents: Sequence[str]) -> str:
    """A one-line report of a progress row."""
    parts = [f"step {row['steps']:>9,}", f"{row['wall_s']:>7.0f} s"]
    for spec in opponents:
        parts.append(f"{spec} {row[f'score_{spec}']:.0%} (lost {row[f'loss_{spec}']:.0%})")
    if row["optimal_share"] != "":
        parts.append(f"optimal moves {row['optimal_share']:.1%}")
    return " | ".join(parts)


# ----- training ---------------------------------------------------------------------------
@dataclass
class TrainingRun:
    """Where a run writes, and what its last evaluation found.

    Attributes:
        out: The run directory.
        config: The resolved config.
        game: The rules core trained on.
        final_results: The last evaluation (per evaluation opponent).
        pool_results: Training episodes per pool member: label -> (episodes, score).
        timesteps: Steps trained.
        seconds: Wall time of ``model.learn`` (evaluations included).
    """

    out: Path
    config: dict[str, Any]
    game: Any
    final_results: list[OpponentResult] = field(default_factory=list)
    pool_results: dict[str, tuple[int, float]] = field(default_factory=dict)
    timesteps: int = 0
    seconds: float = 0.0

    @property
    def checkpoints(self) -> Path:
        """Directory of the evaluated checkpoints."""
        return self.out / "checkpoints"

    @property
    def final(self) -> Path:
        """The last checkpoint."""
        return self.out / "final.zip"

    @property
    def best(self) -> Path:
        """The checkpoint with the best mean evaluation score."""
        return self.out / "best.zip"

    @property
    def csv(self) -> Path:
        """The evaluation log."""
        return self.out / "progress.csv"

    @property
    def curve(self) -> Path:
        """The learning-curve plot."""
        return self.out / "learning_curve.png"

    def append_row(self, row: dict[str, Any]) -> None:
        """Append ``row`` to ``progress.csv`` (header first)."""
        new = not self.csv.exists()
        with self.csv.open("a", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(row))
            if new:
                writer.writeheader()
            writer.writerow(row)


def policy_kwargs(network: dict[str, Any]) -> dict[str, Any]:
    """SB3 ``policy_kwargs`` of a ``[network]`` table."""
    heads = {"pi": list(network["net_arch"]), "vf": list(network["net_arch"])}
    if network["extractor"] == "mlp":
        return {"net_arch": heads}
    from tris_envs.agents.ppo import BoardCNN

    return {"features_extractor_class": BoardCNN,
            "features_extractor_kwargs": {"channels": list(network["channels"]),
                                          "features_dim": network["features_dim"]},
            "net_arch": heads}


def train(config: dict[str, Any], out: str | Path, progress: bool = True,
          report: Callable[[str], None] | None = None) -> TrainingRun:
    """Train as ``config`` says, writing into ``out`` (see the module docstring).

    Args:
        config: A checked config (:func:`load_config`).
        out: The run directory (created; an existing ``progress.csv`` is replaced).
        progress: Show a progress bar.
        report: Receives a line per evaluation (default: printed).

    Returns:
        The run: paths, last evaluation, pool tallies.

    Raises:
        ImportError: the train extra is not installed.
    """
    try:
        import torch
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.callbacks import CallbackList
        from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv
    except ImportError as error:
        raise ImportError("training needs the train extra: pip install 'tris_envs[train]'"
                          ) from error
    torch.set_num_threads(1)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    game = make_game(config["game"], **config["game_options"])
    run = TrainingRun(out, config, game)
    run.csv.unlink(missing_ok=True)
    tr, pool = config["train"], config["pool"]
    seed = tr["seed"]
    env_fns = [_env_factory(config, seed + rank) for rank in range(tr["n_envs"])]
    vec_env = (SubprocVecEnv if tr["vec_env"] == "subproc" else DummyVecEnv)(env_fns)
    model = MaskablePPO("MlpPolicy", vec_env, policy_kwargs=policy_kwargs(config["network"]),
                        seed=seed, device="cpu", tensorboard_log=str(out / "tb"), verbose=0,
                        **config["ppo"])
    self_play_cls, evaluation_cls, progress_cls = _callbacks()
    self_play = self_play_cls(out / "snapshots", pool["snapshot_every"], pool["max_snapshots"])
    callbacks = [self_play]
    bar = progress_cls(tr["timesteps"]) if progress else None
    if report is None:
        report = (functools.partial(print, flush=True) if bar is None else
                  functools.partial(bar.progress.console.print, highlight=False))
    callbacks.append(evaluation_cls(run, config["eval"], report))
    if bar is not None:
        callbacks.append(bar)
    began = time.perf_counter()
    try:
        model.learn(tr["timesteps"], callback=CallbackList(callbacks), tb_log_name="ppo")
    finally:
        vec_env.close()
    run.seconds = time.perf_counter() - began
    run.timesteps = model.num_timesteps
    shutil.copyfile(run.checkpoints / f"step_{model.num_timesteps:09d}.zip", run.final)
    for checkpoint in (run.final, run.best):
        export_policy(checkpoint, checkpoint.with_suffix(".pt"))
    run.pool_results = self_play.total.scores()
    plot_learning_curve(run.csv, run.curve, f"{game.info.name}: MaskablePPO vs baselines")
    return run


def _env_factory(config: dict[str, Any], seed: int) -> Callable[[], gymnasium.Env]:
    pool = config["pool"]

    def factory() -> gymnasium.Env:
        return make_env(config["game"], config["game_options"], pool, seed)

    return factory


def plot_learning_curve(csv_path: Path, png_path: Path, title: str) -> None:
    """Plot score (solid) and loss rate (dashed) per evaluation opponent against steps."""
    from matplotlib.figure import Figure

    with csv_path.open() as handle:
        rows = list(csv.DictReader(handle))
    steps = [int(r["steps"]) for r in rows]
    fig = Figure(figsize=(10, 4.5))
    ax = fig.add_subplot()
    for key in rows[0]:
        if key.startswith("score_"):
            line, = ax.plot(steps, [float(r[key]) for r in rows], marker="o", markersize=3,
                            label=f"score vs {key[6:]}")
            ax.plot(steps, [float(r["loss_" + key[6:]]) for r in rows], linestyle="--",
                    color=line.get_color(), alpha=0.6, label=f"losses vs {key[6:]}")
    if rows[0].get("optimal_share"):
        ax.plot(steps, [float(r["optimal_share"]) for r in rows], color="black",
                linestyle=":", label="solver-optimal moves")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("training steps (learner moves)")
    ax.set_ylabel("rate (draws count ½ in the score)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    fig.savefig(png_path, dpi=100)


# ----- command line -----------------------------------------------------------------------
def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(prog="train.py", description="Train MaskablePPO with "
                                     "self-play on one of the tris_envs games.")
    parser.add_argument("--game", required=True, help="game name, e.g. tant_fant")
    parser.add_argument("--timesteps", type=int, default=None, help="learner steps")
    parser.add_argument("--config", type=Path, default=None,
                        help="config TOML (default training/configs/<game>.toml)")
    parser.add_argument("--seed", type=int, default=None, help="training seed")
    parser.add_argument("--n-envs", type=int, default=None, help="parallel environments")
    parser.add_argument("--out", type=Path, default=None, help="run directory "
                        "(default runs/<game>)")
    parser.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE",
                        help="override a config value (TOML syntax), repeatable")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Train from the command line; 2 on a configuration error."""
    args = parse_args(argv)
    try:
        config = load_config(args.config or default_config(args.game))
        game = make_game(args.game)
        if make_game(config["game"]).info.name != game.info.name:
            raise ValueError(f"--game {args.game} but the config trains {config['game']!r}")
        overrides = list(args.set)
        for key, value in (("train.timesteps", args.timesteps), ("train.seed", args.seed),
                           ("train.n_envs", args.n_envs)):
            if value is not None:
                overrides.append(f"{key}={value}")
        config = apply_overrides(config, overrides)
    except (ValueError, RuntimeError) as error:
        print(f"train.py: error: {error}", file=sys.stderr)
        return 2
    out = args.out or Path("runs") / game.info.name
    run = train(config, out, progress=not args.no_progress)
    rate = run.timesteps / run.seconds if run.seconds else float("nan")
    print(f"trained {run.timesteps:,} steps in {run.seconds:.0f} s ({rate:.0f} steps/s, "
          f"evaluations included) -> {run.final}")
    for label, (n, score) in run.pool_results.items():
        print(f"  training games vs {label}: {n}, score {score:.1%}")
    print(f"progress: {run.csv}; learning curve: {run.curve}; best: {run.best}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
