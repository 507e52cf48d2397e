"""MaskablePPO with self-play on one game: the settings as one dataclass, the run in view.

    python training/ppo_selfplay.py --game tris1 --timesteps 200000 --out runs/tris1

The learner plays both seats of :class:`tris_envs.envs.SingleAgentEnv` against a pool of
its own snapshots and the baselines, with ``config`` or the shipped config of ``game``
(:func:`tris_envs.ppo.commands.config_from`; ``timesteps``, ``seed`` and ``n_envs``
override it, 0: the config's), and is evaluated against the baselines along the way
(:func:`tris_envs.ppo.train.train`). The run ends with the weights-only policy files
``final.pt`` and ``best.pt`` in ``out``, played by ``ppo:<path>``. ``tris-envs train ppo``
is the full command (``--set section.key=value``, ``--quiet``). Needs
``pip install "tris_envs[train]"``.
"""

from dataclasses import dataclass, field
from pathlib import Path

from arguments import run

from tris_envs.ppo.commands import config_from
from tris_envs.ppo.train import train


@dataclass
class Args:
    """MaskablePPO with self-play on one game."""

    game: str = field(default="tant_fant", metadata={"help": "the game"})
    config: str = field(default="", metadata={"help": "a config TOML (default: the game's)"})
    timesteps: int = field(default=0, metadata={"help": "learner steps (0: the config's)"})
    seed: int = field(default=0, metadata={"help": "training seed"})
    n_envs: int = field(default=0, metadata={"help": "games at once (0: the config's)"})
    out: str = field(default="runs/ppo", metadata={"help": "the run directory"})
    force: bool = field(default=False, metadata={"help": "replace a run already in out"})


def main(args: Args) -> None:
    config = config_from(args.game, Path(args.config) if args.config else None,
                         timesteps=args.timesteps or None, seed=args.seed,
                         n_envs=args.n_envs or None)
    result = train(config, Path(args.out), force=args.force)
    for label, (games, score) in result.pool_results.items():
        print(f"training games vs {label}: {games}, score {score:.1%}")
    print(f"trained {result.timesteps:,} steps: final {result.final}, best {result.best}, "
          f"progress {result.csv}")


if __name__ == "__main__":
    run(main, Args)
