"""Learner throughput of MaskablePPO self-play, against the game's own speed, in one run.

For each game, with its shipped config (``tris_envs/ppo/configs/<game>.toml``, ``--set``
overrides applied), measures:

* ``env()`` random play: steps per second of the PettingZoo environment
  (:func:`tris_envs.bench.engines.aec_steps_per_second`), the median of three rounds taken
  before, between and after the training runs;
* the learner's steps per second with SB3's ``DummyVecEnv`` over 2 games (the training
  path before ``vec_env = "batched"``) and with the config's own environment: a ``train()``
  run of ``--steps`` steps each, its evaluations left out of the time (one at the start and
  one at the end, 2 games against random), snapshots and PPO updates in. Both runs keep the
  config's rollout (``ppo.n_steps x train.n_envs`` steps per update);
* where the config's run spent its time on the opponents' moves (share per pool label);
* one evaluation as the config sets it (``[eval]``: its opponents, games, move judging),
  of the policy shipped for the game, and the share of a run's wall time that the config's
  evaluations would take at the measured learner speed (``--no-eval`` skips it);

and prints a Markdown table, the learner's ratios to the ``env()`` rate and the speed-up
between the two paths included::

    python benchmarks/training_throughput.py --games tant_fant,tris2 --steps 20000
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass

from tris_envs.agents.ppo import shipped_checkpoint
from tris_envs.bench.engines import aec_steps_per_second, env_module
from tris_envs.evaluation.checkpoint import evaluate_checkpoint
from tris_envs.games import make_game
from tris_envs.ppo.commands import CONFIG_DIR
from tris_envs.ppo.config import Config, apply_overrides, default_config, load_config
from tris_envs.ppo.train import train

OLD_ENVS = 2
"""Games of the ``DummyVecEnv`` path (the shipped configs' ``n_envs`` before batching)."""


def learner_steps_per_second(config: Config, steps: int) -> tuple[float, dict[str, float]]:
    """Steps per second of a ``train()`` run of ``steps`` steps (evaluations left out), and
    the share of that time each pool label's moves took (batched environment only)."""
    config = apply_overrides(config, [
        f"train.timesteps={steps}", "eval.evaluations=1", "eval.games=2",
        'eval.opponents=["random"]', "eval.judge_moves=false"])
    with tempfile.TemporaryDirectory() as out:
        run = train(config, out, progress=False, report=lambda line: None)
    seconds = run.seconds - run.evaluation_seconds
    return run.timesteps / seconds, {label: spent / seconds
                                     for label, spent in run.opponent_seconds.items()}


def old_path(config: Config) -> Config:
    """``config`` on ``DummyVecEnv`` with :data:`OLD_ENVS` games, the rollout kept."""
    rollout = config.ppo.n_steps * config.train.n_envs
    return apply_overrides(config, ['train.vec_env="dummy"', f"train.n_envs={OLD_ENVS}",
                                    f"ppo.n_steps={max(1, rollout // OLD_ENVS)}"])


@dataclass
class Row:
    """One game's measurements (steps per second, seconds)."""

    game: str
    config: Config
    env: float
    old: float
    new: float
    shares: dict[str, float]
    evaluation: float | None

    def evaluation_share(self) -> float:
        """The share of a full run's wall time its evaluations take: one at the start and
        ``eval.evaluations`` over the run."""
        assert self.evaluation is not None
        total = self.config.train.timesteps
        evaluating = (1 + self.config.eval.evaluations) * self.evaluation
        return evaluating / (evaluating + total / self.new)

    def cells(self) -> list[str]:
        """The table's cells."""
        env, old, new, train = self.env, self.old, self.new, self.config.train
        spent = ", ".join(f"{label} {share:.0%}" for label, share in
                          sorted(self.shares.items(), key=lambda item: -item[1]))
        cells = [self.game, f"{env:,.0f}", f"{old:,.0f} ({old / env:.2%})",
                 f"{new:,.0f} ({new / env:.2%}; {train.vec_env}, {train.n_envs} games)",
                 f"{new / old:.2f}x", spent or "not measured"]
        if self.evaluation is not None:
            cells.append(f"{self.evaluation:.1f} s; {self.evaluation_share():.1%} of "
                         f"{train.timesteps:,} steps' wall time")
        return cells


def measure(game: str, steps: int, overrides: Sequence[str], evaluate: bool) -> Row:
    """One game's row (see the module docstring)."""
    config = apply_overrides(load_config(default_config(game, CONFIG_DIR)), overrides)
    make_env = env_module(game).env
    env_rates = [aec_steps_per_second(make_env, 20_000)]
    old, _ = learner_steps_per_second(old_path(config), steps)
    env_rates.append(aec_steps_per_second(make_env, 20_000, seed=1))
    new, shares = learner_steps_per_second(config, steps)
    env_rates.append(aec_steps_per_second(make_env, 20_000, seed=2))
    return Row(game, config, statistics.median(env_rates), old, new, shares,
               evaluation_seconds(config) if evaluate else None)


def evaluation_seconds(config: Config) -> float:
    """Seconds of one evaluation as ``config`` sets it, of the game's shipped policy (its
    solver tables and networks loaded before the clock starts)."""
    ev = config.eval
    game = make_game(config.game, **config.game_options)
    policy = shipped_checkpoint(game)
    evaluate_checkpoint(policy, game, ev.opponents, 2, ev.seed, judge_moves=ev.judge_moves)
    began = time.perf_counter()
    evaluate_checkpoint(policy, game, ev.opponents, ev.games, ev.seed, ev.processes,
                        judge_moves=ev.judge_moves)
    return time.perf_counter() - began


def main(argv: Sequence[str] | None = None) -> int:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="tant_fant,tris2", help="comma-separated games")
    parser.add_argument("--steps", type=int, default=20_000, help="learner steps per run")
    parser.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE",
                        help="override a config value of both runs (TOML syntax)")
    parser.add_argument("--no-eval", action="store_true", help="skip the evaluation timing")
    args = parser.parse_args(argv)
    header = ["game", "env() random play, steps/s", "DummyVecEnv, 2 games: learner steps/s "
              "(ratio)", "config's environment: learner steps/s (ratio)", "speed-up",
              "opponents' share of the config's run"]
    if not args.no_eval:
        header.append("one evaluation; evaluations' share of a full run")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for game in args.games.split(","):
        row = measure(game, args.steps, args.set, not args.no_eval)
        print("| " + " | ".join(row.cells()) + " |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
