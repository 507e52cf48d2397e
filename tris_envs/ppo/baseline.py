"""``tris-envs train ppo`` as a cell of ``tris-envs baselines``: the learner script of the
Stable-Baselines3 ``MaskablePPO`` row, with the cell contract of
:mod:`tris_envs.evaluation.cell`::

    python -m tris_envs.ppo.baseline --game tris2 --budget 100000 --seed 0 --games 200 \\
        --opponents random,greedy,mcts:100 --json tris2.json

It trains as ``tris-envs train ppo --game G --timesteps STEPS --seed S`` does (the config
shipped for the game: its network, PPO settings and opponent pool), in a temporary run
directory, with the run's own evaluations cut to one game against ``random`` at its start
and end (the cell's matches are the evaluation); ``train_seconds`` leaves them out. Then
the final policy, its most probable legal move, plays the cell's matches. Needs the train
extra.
"""

from __future__ import annotations

import argparse
import sys
import tempfile

from tris_envs.evaluation.cell import add_arguments, checked_opponents, write_cell
from tris_envs.evaluation.checkpoint import checkpoint_agent, format_table
from tris_envs.ppo.commands import config_from

LEARNER = "sb3_ppo"
"""The row's name in the table."""

QUIET_EVALUATIONS = ("eval.evaluations=1", "eval.games=1", 'eval.opponents=["random"]',
                     "eval.judge_moves=false")
"""The overrides that cut the training run's own evaluations to a game at each end."""


def main(argv: list[str] | None = None) -> int:
    """Train, play the matches, write ``--json``; the exit status."""
    parser = argparse.ArgumentParser(prog="python -m tris_envs.ppo.baseline",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--game", required=True, help="game name, e.g. tris2")
    parser.add_argument("--seed", type=int, default=0, help="training and match seed")
    parser.add_argument("--games", type=int, default=200, help="games per opponent")
    add_arguments(parser, json_required=True)
    args = parser.parse_args(argv)
    opponents = checked_opponents(parser, args)
    try:
        from tris_envs.ppo.train import train  # torch: the train extra

        config = config_from(args.game, overrides=QUIET_EVALUATIONS, timesteps=args.budget,
                             seed=args.seed)
        with tempfile.TemporaryDirectory(prefix="baseline-ppo-") as folder:
            run = train(config, folder, progress=False, report=lambda line: None)
            seconds = run.seconds - run.evaluation_seconds
            print(f"trained {run.timesteps:,} steps in {seconds:.0f} s", flush=True)
            details = {"rollout": config.ppo.n_steps * config.train.n_envs}
            results = write_cell(args.json, learner=LEARNER, game=run.game,
                                 agent=checkpoint_agent(run.final, run.game),
                                 steps=run.timesteps, train_seconds=seconds,
                                 n_games=args.games, seed=args.seed, opponents=opponents,
                                 budget=args.budget, details=details)
    except (ValueError, OSError, ImportError) as error:
        parser.exit(2, f"{parser.prog}: error: {error}\n")
    print(format_table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
