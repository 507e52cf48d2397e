"""The self-play training loop: MaskablePPO against a pool of its snapshots and baselines.

Read :func:`train` top to bottom: one rollout and one PPO update per turn of the loop, with
a snapshot of the learner joining the opponent pool every ``pool.snapshot_every`` steps and
``eval.evaluations`` evaluations spread evenly over the run (and one before the first
update), both taken between rollouts. The rollouts play ``train.n_envs`` games against the
pool: in one :class:`~tris_envs.ppo.batched.BatchedPoolEnv` (``train.vec_env = "batched"``)
or in SB3's ``DummyVecEnv`` / ``SubprocVecEnv`` of :func:`~tris_envs.ppo.pool.make_env`.

Outputs in the run directory, every policy a weights-only policy file
(:mod:`tris_envs.agents.ppo_file`, the form shipped in ``tris_envs/checkpoints``):
``config.json`` (the resolved config), ``machine.txt`` (the machine of each start:
:func:`tris_envs.machine.record`), ``checkpoints/step_<N>.pt`` at every evaluation,
``final.pt``, ``best.pt`` (the highest mean score over the evaluation opponents),
``snapshots/`` (the pool's newest snapshots), ``progress.csv`` (steps, wall time, score and
loss rate against each evaluation opponent, share of solver-optimal moves), ``tb/``
(TensorBoard: SB3's losses, ``eval/*``, ``pool/*`` results per pool member),
``learning_curve.png``. A directory that holds a run's outputs is refused unless ``force``
(then they are removed first).

Ctrl-C, or SIGTERM within :func:`~tris_envs.durable.sigterm_as_interrupt` (as ``tris-envs
train ppo`` runs it), stops the run: the policy so far is written to ``interrupted.pt``
(in place of ``final.pt``), one line on standard error names it, the worker processes of
``train.vec_env = "subproc"`` are ended, and the interrupt goes on to the caller. A run
does not resume: ``interrupted.pt`` plays (``ppo:<file>``) and the evaluations so far stay
in ``progress.csv`` and ``checkpoints/``.

Needs the train extra (``pip install 'tris_envs[train]'``).
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import functools
import json
import math
import shutil
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

try:
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv
except ImportError as error:
    raise ImportError("training needs the train extra: pip install 'tris_envs[train]'"
                      ) from error

from tris_envs.agents.ppo import BoardCNN, export_policy
from tris_envs.core.game import Game
from tris_envs.durable import replaced, write_text
from tris_envs.evaluation.checkpoint import OpponentResult, evaluate_checkpoint
from tris_envs.games import make_game
from tris_envs.machine import record
from tris_envs.ppo.batched import BatchedPoolEnv
from tris_envs.ppo.config import Config, NetworkSettings
from tris_envs.ppo.pool import PoolTally, make_env
from tris_envs.progress import Progress

if TYPE_CHECKING:
    import gymnasium


@dataclass
class TrainingRun:
    """Where a run writes, and what it found.

    Attributes:
        out: The run directory.
        config: The config trained with.
        game: The rules core trained on.
        final_results: The last evaluation (per evaluation opponent).
        pool_results: Training episodes per pool member: label -> (episodes, score).
        timesteps: Steps trained.
        seconds: Wall time of the training loop (evaluations included).
        evaluation_seconds: The part of ``seconds`` spent in evaluations.
        opponent_seconds: Time the opponents took to move, per pool label (snapshots
            together as ``"self"``), measured by the batched environment only.
    """

    out: Path
    config: Config
    game: Game
    final_results: list[OpponentResult] = field(default_factory=list)
    pool_results: dict[str, tuple[int, float]] = field(default_factory=dict)
    timesteps: int = 0
    seconds: float = 0.0
    evaluation_seconds: float = 0.0
    opponent_seconds: dict[str, float] = field(default_factory=dict)

    @property
    def checkpoints(self) -> Path:
        """Directory of the evaluated checkpoints."""
        return self.out / "checkpoints"

    @property
    def snapshots(self) -> Path:
        """Directory of the pool's snapshots."""
        return self.out / "snapshots"

    @property
    def final(self) -> Path:
        """The last checkpoint."""
        return self.out / "final.pt"

    @property
    def interrupted(self) -> Path:
        """The policy of a run stopped by Ctrl-C or SIGTERM."""
        return self.out / "interrupted.pt"

    @property
    def best(self) -> Path:
        """The checkpoint with the best mean evaluation score."""
        return self.out / "best.pt"

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


RUN_OUTPUTS = ("config.json", "machine.txt", "progress.csv", "final.pt", "best.pt",
               "interrupted.pt", "learning_curve.png", "checkpoints", "snapshots", "tb")
"""What a run writes in its directory: a directory holding any of them holds a run."""


def train(config: Config, out: str | Path, progress: bool = True,
          report: Callable[[str], None] | None = None, force: bool = False) -> TrainingRun:
    """Train as ``config`` says, writing into ``out`` (see the module docstring).

    Args:
        config: A checked config (:func:`~tris_envs.ppo.config.load_config`).
        out: The run directory (created).
        progress: Show the progress on a terminal (:class:`~tris_envs.progress.Progress`:
            steps, steps/s, time left; nothing where standard error is not a terminal).
        report: Receives a line per evaluation (default: printed).
        force: Replace the run ``out`` holds (its :data:`RUN_OUTPUTS`, removed first).

    Returns:
        The run: paths, last evaluation, pool tallies.

    Raises:
        ValueError: ``out`` holds a run and not ``force``; a checkpoint in
            ``eval.opponents`` cannot be read.
        OSError: ``out`` cannot be created or written.
        KeyboardInterrupt: Ctrl-C or SIGTERM (:class:`~tris_envs.durable.Terminated`), once
            ``interrupted.pt`` holds the policy so far.
    """
    torch.set_num_threads(1)  # tiny networks on shared cores: more threads are slower
    out = Path(out)
    _claim(out, force)
    write_text(out / "config.json", json.dumps(config.to_dict(), indent=2) + "\n")
    record(out, "from step 0")
    run = TrainingRun(out, config, make_game(config.game, **config.game_options))
    for directory in (run.checkpoints, run.snapshots):
        directory.mkdir(exist_ok=True)

    seed, n_envs, total = config.train.seed, config.train.n_envs, config.train.timesteps
    vec_env: VecEnv
    if config.train.vec_env == "batched":
        vec_env = BatchedPoolEnv.from_config(config, n_envs, seed)
    else:
        env_fns: list[Callable[[], gymnasium.Env]] = [
            functools.partial(make_env, config, seed + rank) for rank in range(n_envs)]
        vec_env = (SubprocVecEnv if config.train.vec_env == "subproc" else DummyVecEnv)(env_fns)
    model = MaskablePPO("MlpPolicy", vec_env, policy_kwargs=policy_kwargs(config.network),
                        seed=seed, device="cpu", verbose=0, **dataclasses.asdict(config.ppo))
    model.set_logger(configure(str(out / "tb" / "ppo"), ["tensorboard"]))
    rollout = config.ppo.n_steps * n_envs
    save = functools.partial(export_policy, game=run.game.info.name,
                             game_options=config.game_options)

    snapshots: list[Path] = []
    pool_total = PoolTally()
    best_score = -math.inf
    next_snapshot = next_evaluation = 0
    eval_seconds = 0.0
    began = time.perf_counter()
    with _closing(vec_env), _kept_when_interrupted(model, run, save), \
            Progress(f"train ppo {config.game}", total, "steps", quiet=not progress) as bar:
        if report is None:
            report = bar.write
        while True:
            steps = model.num_timesteps
            if steps >= next_evaluation or steps >= total:
                evaluated = time.perf_counter()
                checkpoint = save(model, run.checkpoints / f"step_{steps:09d}.pt")
                ev = config.eval
                run.final_results = evaluate_checkpoint(checkpoint, run.game, ev.opponents,
                                                        ev.games, ev.seed, ev.processes,
                                                        judge_moves=ev.judge_moves)
                eval_seconds += time.perf_counter() - evaluated
                wall = time.perf_counter() - began
                row = progress_row(steps, wall, wall - eval_seconds, run.final_results)
                run.append_row(row)
                for key in row.keys() - {"steps", "wall_s", "train_s"}:
                    if row[key] != "":
                        model.logger.record(f"eval/{key}", row[key])
                score = float(np.mean([r.match.score for r in run.final_results]))
                if score > best_score:
                    best_score = score
                    _copy(checkpoint, run.best)
                report(summary_line(row, ev.opponents))
                next_evaluation = evaluation_after(steps, total, ev.evaluations)
            if steps >= total:
                break
            if steps >= next_snapshot:
                snapshot = save(model, run.snapshots / f"step_{steps:09d}.pt")
                vec_env.env_method("add_snapshot", str(snapshot))
                snapshots.append(snapshot)
                if len(snapshots) > config.pool.max_snapshots:
                    snapshots.pop(0).unlink()  # the environments loaded it when it joined
                next_snapshot = steps + config.pool.snapshot_every

            model.learn(rollout, reset_num_timesteps=False)  # one rollout, one update

            window = PoolTally()
            for tally in vec_env.env_method("take_tally"):
                window.merge(tally)
            pool_total.merge(window)
            for label, (n, score) in window.scores().items():
                model.logger.record(f"pool/score_{label}", score)
                model.logger.record(f"pool/episodes_{label}", n)
            model.logger.dump(model.num_timesteps)
            bar.update(min(model.num_timesteps, total))
            bar.note(f"{model.num_timesteps / (time.perf_counter() - began):,.0f} steps/s")
        model.logger.dump(model.num_timesteps)

    run.seconds = time.perf_counter() - began
    run.evaluation_seconds = eval_seconds
    run.timesteps = model.num_timesteps
    if isinstance(vec_env, BatchedPoolEnv):
        run.opponent_seconds = dict(vec_env.opponent_seconds)
    run.pool_results = pool_total.scores()
    _copy(run.checkpoints / f"step_{model.num_timesteps:09d}.pt", run.final)
    plot_learning_curve(run.csv, run.curve, f"{run.game.info.name}: MaskablePPO vs baselines")
    return run


def evaluation_after(steps: int, total: int, evaluations: int) -> int:
    """The step of the next evaluation after one at ``steps``: the first of the
    ``evaluations`` evenly spaced points of a ``total``-step run (``k * total /
    evaluations``, rounded up) beyond ``steps``."""
    index = steps * evaluations // total + 1
    return -(-index * total // evaluations)


@contextlib.contextmanager
def _closing(vec_env: VecEnv) -> Iterator[None]:
    """``vec_env`` closed when the block ends. On Ctrl-C or SIGTERM the worker processes of
    a ``SubprocVecEnv`` are ended instead of asked to close: a Ctrl-C at a terminal reaches
    them too, and they leave without answering."""
    workers: list[Any] = []
    try:
        yield
    except KeyboardInterrupt:
        workers = list(getattr(vec_env, "processes", []))
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.join()
        raise
    finally:
        if not workers:
            vec_env.close()


@contextlib.contextmanager
def _kept_when_interrupted(model: MaskablePPO, run: TrainingRun,
                           save: Callable[..., Path]) -> Iterator[None]:
    """On Ctrl-C or SIGTERM in the block, the policy so far saved as ``interrupted.pt`` and
    named in one line on standard error; then the interrupt goes on."""
    try:
        yield
    except KeyboardInterrupt:
        kept = save(model, run.interrupted)
        evaluations = f", the evaluations in {run.csv}" if run.csv.is_file() else ""
        print(f"interrupted at step {model.num_timesteps:,} of {run.config.train.timesteps:,}:"
              f" the policy so far is in {kept} (it plays as ppo:{kept}){evaluations}",
              file=sys.stderr, flush=True)
        raise


def _copy(source: Path, destination: Path) -> None:
    """``destination`` replaced by a copy of ``source``, whole or not at all."""
    with replaced(destination, binary=True) as file:
        file.write(source.read_bytes())


def _claim(out: Path, force: bool) -> None:
    """Make ``out`` the run's directory: refused if it holds a run's outputs, unless
    ``force``, which removes them (and nothing else)."""
    held = [name for name in RUN_OUTPUTS if (out / name).exists()]
    if held and not force:
        raise ValueError(f"{out} already holds a run ({', '.join(held)}): choose another "
                         "--out, or pass --force to replace it")
    for name in held:
        path = out / name
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    out.mkdir(parents=True, exist_ok=True)


def policy_kwargs(network: NetworkSettings) -> dict[str, Any]:
    """SB3 ``policy_kwargs`` of a ``[network]`` table."""
    heads = {"pi": list(network.net_arch), "vf": list(network.net_arch)}
    if network.extractor == "mlp":
        return {"net_arch": heads}
    return {"features_extractor_class": BoardCNN,
            "features_extractor_kwargs": {"channels": list(network.channels),
                                          "features_dim": network.features_dim},
            "net_arch": heads}


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
