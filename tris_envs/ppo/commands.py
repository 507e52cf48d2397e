"""``tris-envs train ppo`` and ``tris-envs evaluate``: MaskablePPO training and its scores.

Train with self-play against a pool of snapshots and baselines::

    tris-envs train ppo --game tant_fant
    tris-envs train ppo --game tris2 --timesteps 2000000 --seed 1 --out runs/tris2-s1
    tris-envs train ppo --game tris1 --config my.toml --set ppo.ent_coef=0.02

The learner is :class:`tris_envs.envs.SingleAgentEnv` with ``seat="random"``, so it plays both
seats and gets its win, draw and loss rewards even when the game ends on the opponent's move.
Its settings come from the config shipped in the package for ``--game`` (:data:`CONFIG_DIR`,
``<game>.toml``; ``tant_fant.toml`` shows every key) or from ``--config``; ``--timesteps``,
``--seed``, ``--n-envs`` and ``--set section.key=value`` (a TOML value) override them. Every
value is checked before training starts.

**Opponents.** Each episode the learner meets one member of a pool, drawn with the
configured weights (``[pool.weights]``): ``self`` (past snapshots of the learner, taken every
``pool.snapshot_every`` steps, the newest ``pool.max_snapshots`` kept, the weight split evenly
between them; the untrained policy is the first) and agent specs (``random``, ``greedy``,
``mcts:<N>``, ``solver`` where the game has an exact solver); see
:class:`tris_envs.ppo.pool.OpponentPool`. With ``train.vec_env = "batched"`` (the
shipped configs) the ``train.n_envs`` games run in one process and the snapshots choose their
moves for all their games in one forward pass
(:class:`tris_envs.ppo.batched.BatchedPoolEnv`); the run's last lines say what share of
the time went to evaluations and to each opponent's moves.

**Network.** ``[network] extractor = "cnn"``: :class:`tris_envs.agents.ppo.BoardCNN` (3x3
convolutions with padding 1 over the ``(H, W, C)`` planes, flattened into a dense layer) with
separate policy and value heads (``net_arch``); ``"mlp"``: the planes flattened into the heads.

**Outputs** in ``--out`` (default ``runs/<game>``): the checkpoints, ``final.pt`` and
``best.pt`` (weights-only policy files: :mod:`tris_envs.agents.ppo_file`), ``progress.csv``,
TensorBoard logs in ``tb/``, ``learning_curve.png`` (see :mod:`tris_envs.ppo.train`). A
directory that already holds a run is refused unless ``--force`` (which replaces it).
``eval.evaluations`` evaluations (10 in the shipped configs) are spread over the run, and
one runs before the first update. On a terminal a progress bar shows the steps, steps/s and
the time left (``--quiet``: neither it nor the evaluation lines); the last lines sum up the
run with its elapsed time.

Score a checkpoint against the baselines, both seats, and judge its moves::

    tris-envs evaluate runs/tant_fant/final.pt --game tant_fant
    tris-envs evaluate best.pt --game tris1 --games 400 \\
        --opponents random,greedy,mcts:100,solver --seed 7 --processes 2
    tris-envs evaluate runs/az/final.npz --game tant_fant --opponents solver
    tris-envs evaluate old/final.zip --game tris1 --trust-pickle   # runs code from the file

An AlphaZero network (``.npz``, ``tris-envs train az``) plays as the ``az`` agent does, with
``--simulations`` simulations per move (default: the network's budget, 100 unless its
header names another; 0: the network alone); it needs no PyTorch.

Every opponent plays ``--games`` games against the checkpoint with
:func:`tris_envs.evaluation.play_match` (seats alternating, the checkpoint first in even
games; the same seed gives the same games). The checkpoint plays its most probable legal
move unless ``--stochastic``. Where the game has an exact solver (``GameSpec.solvable``:
Tant Fant, Tris 1, Doppia scelta) the table also gives the share of the checkpoint's moves
that keep the solver's game value (``Solution.optimal_actions``) over the positions it
reached in these games (``--no-judge`` skips it), and the solver's own score against the
solver in the same games, the reference a perfect player would reach. ``--targets`` checks
the results against the game's training targets
(``GameSpec.targets``). Game options come from ``--config`` (a
training TOML or the ``config.json`` a run writes), else the game's defaults.

Both exit with 2 and a one-line message on a bad config, an unusable ``--out``, an unreadable
checkpoint or a missing extra (both need ``pip install 'tris_envs[train]'``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tris_envs.ppo.config import Config

CONFIG_DIR = Path(__file__).resolve().parent / "configs"
"""The shipped PPO configs: where ``--game <name>`` finds ``<name>.toml``."""

TRUST_PICKLE_HELP = ("also load the pickled PPO files (a Stable-Baselines3 .zip, a .pt of "
                     "policy.save) named on this command line: unpickling runs code from the "
                     "file, so give it only for files you trust")
"""The help of ``--trust-pickle``."""

DEFAULT_OPPONENTS = ("random", "greedy", "mcts:100", "solver")
"""``tris-envs evaluate``'s opponents without ``--opponents`` (``solver`` where one exists)."""


def train_parser(prog: str) -> argparse.ArgumentParser:
    """The arguments of ``tris-envs train ppo`` (see the module docstring)."""
    parser = argparse.ArgumentParser(prog=prog, description="Train MaskablePPO with "
                                     "self-play on one of the tris_envs games.")
    parser.add_argument("--game", required=True, help="game name, e.g. tant_fant")
    parser.add_argument("--timesteps", type=int, default=None, help="learner steps")
    parser.add_argument("--config", type=Path, default=None,
                        help="config TOML (default: the one shipped for --game)")
    parser.add_argument("--seed", type=int, default=None, help="training seed")
    parser.add_argument("--n-envs", type=int, default=None, help="parallel environments")
    parser.add_argument("--out", type=Path, default=None, help="run directory "
                        "(default runs/<game>)")
    parser.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE",
                        help="override a config value (TOML syntax), repeatable")
    parser.add_argument("--force", action="store_true",
                        help="replace the run --out holds (without it such a directory is "
                             "refused)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--quiet", action="store_true",
                        help="no progress bar and no evaluation lines, only the summary")
    return parser


def config_from(args: argparse.Namespace) -> Config:
    """The config ``tris-envs train ppo`` asks for: the file, then the flags, checked.

    Raises:
        ValueError: a bad config, override, or a config for another game than ``--game``.
        OSError: the config file cannot be read.
    """
    from tris_envs.games import make_game
    from tris_envs.ppo.config import apply_overrides, default_config, load_config

    config = load_config(args.config or default_config(args.game, CONFIG_DIR))
    if make_game(config.game).info.name != make_game(args.game).info.name:
        raise ValueError(f"--game {args.game} but the config trains {config.game!r}")
    overrides = list(args.set)
    for key, value in (("train.timesteps", args.timesteps), ("train.seed", args.seed),
                       ("train.n_envs", args.n_envs)):
        if value is not None:
            overrides.append(f"{key}={value}")
    return apply_overrides(config, overrides)


def train_main(argv: Sequence[str] | None = None, prog: str = "tris-envs train ppo") -> int:
    """Train from the command line; 2 on a bad config, ``--out``, checkpoint or extra."""
    parser = train_parser(prog)
    args = parser.parse_args(argv)
    try:
        config = config_from(args)
        from tris_envs.ppo.train import train

        run = train(config, args.out or Path("runs") / config.game,
                    progress=not (args.no_progress or args.quiet),
                    report=(lambda line: None) if args.quiet else None, force=args.force)
    except (ValueError, OSError, ImportError) as error:  # checkpoint errors are ValueErrors
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return 2
    from tris_envs.progress import duration_text

    rate = run.timesteps / run.seconds if run.seconds else float("nan")
    print(f"trained {run.timesteps:,} steps in {duration_text(run.seconds)} ({rate:,.0f} "
          f"steps/s, evaluations included) -> {run.final}")
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


def add_evaluate_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``tris-envs evaluate`` (see the module docstring), on ``parser``."""
    parser.add_argument("checkpoint", type=Path,
                        help="a PPO policy file (e.g. runs/tant_fant/final.pt) or an "
                             "AlphaZero .npz network (tris-envs train az)")
    parser.add_argument("--game", required=True, help="game name, e.g. tant_fant")
    parser.add_argument("--games", type=int, default=200,
                        help="games per opponent, seats alternating (default 200)")
    parser.add_argument("--opponents", default=None,
                        help="comma-separated agent specs (default random,greedy,mcts:100 "
                             "and solver where the game has one)")
    parser.add_argument("--seed", type=int, default=0, help="match seed (default 0)")
    parser.add_argument("--processes", type=int, default=1, help="worker processes")
    parser.add_argument("--config", type=Path, default=None,
                        help="training config (.toml) or a run's config.json, for game "
                             "options")
    parser.add_argument("--stochastic", action="store_true",
                        help="sample the policy instead of playing its most probable move")
    parser.add_argument("--simulations", type=int, default=None,
                        help="an AlphaZero network's search simulations per move (default: "
                             "the network's, 100 unless it names another; 0: the network "
                             "alone)")
    parser.add_argument("--targets", action="store_true",
                        help="check the game's training targets (tris_envs.evaluation.targets) "
                             "against these results")
    parser.add_argument("--no-judge", action="store_true",
                        help="skip the share of solver-optimal moves (one solve per board "
                             "in Doppia scelta)")
    parser.add_argument("--quiet", action="store_true",
                        help="no progress bar (it shows only when standard error is a "
                             "terminal)")
    add_trust_pickle_argument(parser)


def add_trust_pickle_argument(parser: argparse.ArgumentParser) -> None:
    """``--trust-pickle`` on ``parser`` (``tris-envs evaluate``, ``eval``, ``tournament``,
    ``play``): see :func:`tris_envs.agents.ppo.trust_pickle_specs`."""
    parser.add_argument("--trust-pickle", action="store_true", help=TRUST_PICKLE_HELP)


def evaluate(args: argparse.Namespace, prog: str) -> int:
    """Run the evaluation ``args`` ask for and print the table; 2 on a bad value or file."""
    from tris_envs.agents import make_agent
    from tris_envs.agents.ppo import trust_pickle_files, trust_pickle_specs
    from tris_envs.evaluation.checkpoint import (
        evaluate_checkpoint,
        format_table,
        solver_reference,
    )
    from tris_envs.evaluation.targets import check_targets
    from tris_envs.games import GAMES, make_game
    from tris_envs.ppo.config import game_options_from
    from tris_envs.progress import Progress

    if args.checkpoint.suffix != ".npz":
        try:
            import torch
        except ImportError as error:
            print(f"{prog}: error: PPO checkpoints need the train extra ({error}): "
                  "pip install 'tris_envs[train]'", file=sys.stderr)
            return 2
        torch.set_num_threads(1)
    try:
        game = make_game(args.game, **game_options_from(args.config))
        if args.opponents is None:
            opponents = [s for s in DEFAULT_OPPONENTS
                         if s != "solver" or GAMES[game.info.name].solvable]
        else:
            opponents = [s.strip() for s in args.opponents.split(",") if s.strip()]
        if args.trust_pickle:
            trust_pickle_files([args.checkpoint])
            trust_pickle_specs(opponents)
        for spec in opponents:
            make_agent(spec)
        # the solver's reference match is played too where the solver is an opponent
        total = args.games * (len(opponents) + ("solver" in opponents))
        with Progress(prog, total, quiet=args.quiet) as progress:
            results = evaluate_checkpoint(args.checkpoint, game, opponents, args.games,
                                          args.seed, args.processes,
                                          deterministic=not args.stochastic,
                                          judge_moves=not args.no_judge,
                                          simulations=args.simulations,
                                          progress=progress.advance)
            reference = (solver_reference(game, args.games, args.seed, args.processes,
                                          progress.advance)
                         if "solver" in opponents else None)
    except (ValueError, OSError, ImportError) as error:  # checkpoint errors are ValueErrors
        print(f"{prog}: error: {error}", file=sys.stderr)
        return 2
    print(f"{args.checkpoint} on {game!r}, {args.games} games per opponent, seed {args.seed}")
    print(format_table(results))
    if reference is not None:
        print(f"the solver's own score against the solver in the same games (same seed, so "
              f"the same boards and dice): {reference:.1%}")
    targets = check_targets(game.info.name, results, reference) if args.targets else []
    if targets:
        print("training targets:")
        for text, met in targets:
            print(f"  {text} -> {'unknown' if met is None else 'met' if met else 'MISSED'}")
    return 0


def evaluate_main(argv: Sequence[str] | None = None, prog: str = "tris-envs evaluate") -> int:
    """``tris-envs evaluate`` on its own command line (``training/evaluate.py``)."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Score a MaskablePPO checkpoint or an AlphaZero network against baselines.")
    add_evaluate_arguments(parser)
    return evaluate(parser.parse_args(argv), parser.prog)
