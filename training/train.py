"""Train MaskablePPO on one game: self-play against a pool of snapshots and baselines.

Usage::

    python training/train.py --game tant_fant
    python training/train.py --game tris2 --timesteps 2000000 --seed 1 --out runs/tris2-s1
    python training/train.py --game tris1 --config my.toml --set ppo.ent_coef=0.02

The learner is :class:`tris_envs.envs.SingleAgentEnv` with ``seat="random"``, so it plays both
seats and gets its win, draw and loss rewards even when the game ends on the opponent's move.
Its settings come from ``training/configs/<game>.toml`` (or ``--config``; ``tant_fant.toml``
shows every key); ``--timesteps``, ``--seed``, ``--n-envs`` and ``--set section.key=value``
(a TOML value) override them. Every value is checked before training starts.

**Opponents.** Each episode the learner meets one member of a pool, drawn with the
configured weights (``[pool.weights]``): ``self`` (past snapshots of the learner, taken every
``pool.snapshot_every`` steps, the newest ``pool.max_snapshots`` kept, the weight split evenly
between them; the untrained policy is the first) and agent specs (``random``, ``greedy``,
``mcts:<N>``, ``solver`` where the game has an exact solver); see
:class:`tris_envs.training.pool.OpponentPool`. With ``train.vec_env = "batched"`` (the
shipped configs) the ``train.n_envs`` games run in one process and the snapshots choose their
moves for all their games in one forward pass
(:class:`tris_envs.training.batched.BatchedPoolEnv`); the run's last lines say what share of
the time went to evaluations and to each opponent's moves.

**Network.** ``[network] extractor = "cnn"``: :class:`tris_envs.agents.ppo.BoardCNN` (3x3
convolutions with padding 1 over the ``(H, W, C)`` planes, flattened into a dense layer) with
separate policy and value heads (``net_arch``); ``"mlp"``: the planes flattened into the heads.

**Outputs** in ``--out`` (default ``runs/<game>``): checkpoints, ``final.zip``, ``best.zip``
and their ``.pt`` policies, ``progress.csv``, TensorBoard logs in ``tb/``,
``learning_curve.png`` (see :mod:`tris_envs.training.train`). Evaluations
(:func:`tris_envs.evaluation.checkpoint.evaluate_checkpoint`) run every ``eval.every`` steps,
before the first update and at the end.

Exits with 2 and a one-line message on a bad config, an unusable ``--out`` or an unreadable
checkpoint.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from tris_envs.games import make_game
from tris_envs.training.config import Config, apply_overrides, default_config, load_config
from tris_envs.training.train import train

CONFIG_DIR = Path(__file__).resolve().parent / "configs"
"""Where ``--game <name>`` finds ``<name>.toml``."""


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


def config_from(args: argparse.Namespace) -> Config:
    """The config the command line asks for: the file, then the flags, checked.

    Raises:
        ValueError: a bad config, override, or a config for another game than ``--game``.
        OSError: the config file cannot be read.
    """
    config = load_config(args.config or default_config(args.game, CONFIG_DIR))
    if make_game(config.game).info.name != make_game(args.game).info.name:
        raise ValueError(f"--game {args.game} but the config trains {config.game!r}")
    overrides = list(args.set)
    for key, value in (("train.timesteps", args.timesteps), ("train.seed", args.seed),
                       ("train.n_envs", args.n_envs)):
        if value is not None:
            overrides.append(f"{key}={value}")
    return apply_overrides(config, overrides)


def main(argv: Sequence[str] | None = None) -> int:
    """Train from the command line; 2 on a bad config, ``--out`` or checkpoint."""
    args = parse_args(argv)
    try:
        config = config_from(args)
        run = train(config, args.out or Path("runs") / config.game,
                    progress=not args.no_progress)
    except (ValueError, OSError) as error:  # checkpoint errors are ValueErrors too
        print(f"train.py: error: {error}", file=sys.stderr)
        return 2
    rate = run.timesteps / run.seconds if run.seconds else float("nan")
    print(f"trained {run.timesteps:,} steps in {run.seconds:.0f} s ({rate:.0f} steps/s, "
          f"evaluations included) -> {run.final}")
    if run.seconds:
        training = run.seconds - run.evaluation_seconds
        spent = ", ".join(f"{label} {seconds / training:.0%}" for label, seconds in sorted(
            run.opponent_seconds.items(), key=lambda item: -item[1]))
        print(f"  evaluations: {run.evaluation_seconds:.0f} s "
              f"({run.evaluation_seconds / run.seconds:.1%} of the wall time)"
              + (f"; opponents' moves: {spent} of the training time" if spent else ""))
    for label, (n, score) in run.pool_results.items():
        print(f"  training games vs {label}: {n}, score {score:.1%}")
    print(f"progress: {run.csv}; learning curve: {run.curve}; best: {run.best}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
