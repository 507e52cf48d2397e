"""``tris-envs train ppo|az|wary``: the learners' arguments, and the end of a training run
(the final network, or one error line and exit status 2).

The learners (:mod:`tris_envs.ppo.train`, :mod:`tris_envs.alphazero.train`,
:mod:`tris_envs.alphazero.wary`) and their configs are documented in their modules and in
:mod:`tris_envs.ppo.commands`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tris_envs.agents.shipped import SHIPPED_DIR
from tris_envs.alphazero import recipes, wary
from tris_envs.alphazero import train as az
from tris_envs.cli.arguments import needs_extra
from tris_envs.core.options import parse_options
from tris_envs.durable import Terminated, sigterm_as_interrupt, write_text
from tris_envs.machine import describe
from tris_envs.ppo.commands import config_from
from tris_envs.progress import duration_text
from tris_envs.settings import config_names

AZ_INTEGER_FLAGS = ("iterations", "envs", "steps", "simulations", "checkpoint_every",
                    "eval_games", "eval_simulations", "width", "blocks", "batch", "epochs",
                    "seed")
"""The integer keys of :class:`tris_envs.alphazero.train.Config` that ``train az`` takes as
flags (``--checkpoint-every`` for ``checkpoint_every``); ``--play-simulations`` sets the
``[play]`` table's ``simulations``."""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    train = subparsers.add_parser(
        "train", help="train a network: tris-envs train ppo|jax-ppo|az|wary --help",
        description="Train a network; each learner has its own arguments "
                    "(tris-envs train ppo --help lists them).")
    learners = train.add_subparsers(
        dest="learner", required=True,
        help="ppo: MaskablePPO with self-play (needs the train extra); jax-ppo: PPO in JAX, "
             "the az learner's run with algorithm = \"ppo\" (needs the jax extra); az: the "
             "AlphaZero learner in JAX (needs the jax and train extras); wary: teach an az "
             "network the wary planes (needs the jax extra)")
    _add_ppo(learners).set_defaults(run=run_ppo)
    _add_az(learners, "jax-ppo", az.PPO_DESCRIPTION).set_defaults(run=run_az,
                                                                  algorithm="ppo")
    _add_az(learners).set_defaults(run=run_az, algorithm=None)
    _add_wary(learners).set_defaults(run=run_wary)
    return train


def run(args: argparse.Namespace) -> int:
    """The learner's run; its exit status."""
    status: int = args.run(args)
    return status


def _add_ppo(learners: Any) -> argparse.ArgumentParser:
    parser = learners.add_parser("ppo", description="Train MaskablePPO with self-play on one "
                                 "of the tris_envs games.")
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
    parser.set_defaults(prog=parser.prog)
    needs_extra(parser, "train")
    return parser


def run_ppo(args: argparse.Namespace) -> int:
    """``train ppo``: the run, then its summary; 2 on a bad config, ``--out``, checkpoint or
    extra; Ctrl-C (130) or SIGTERM (143) once the policy so far is saved and named
    (:func:`tris_envs.ppo.train.train`)."""
    try:
        with sigterm_as_interrupt():
            config = config_from(args.game, args.config, args.set, timesteps=args.timesteps,
                                 seed=args.seed, n_envs=args.n_envs)
            from tris_envs.ppo.train import train  # torch: the train extra

            run = train(config, args.out or Path("runs") / config.game,
                        progress=not (args.no_progress or args.quiet),
                        report=(lambda line: None) if args.quiet else None, force=args.force)
    except (ValueError, OSError, ImportError) as error:  # checkpoint errors are ValueErrors
        print(f"{args.prog}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as interrupt:
        return 143 if isinstance(interrupt, Terminated) else 130
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


def _add_az(learners: Any, name: str = "az", description: str | None = None
            ) -> argparse.ArgumentParser:
    parser = learners.add_parser(name, description=description or _first_line(az.__doc__))
    parser.add_argument("--config", help="a TOML file with Config's keys, or the name of a "
                        f"config the package ships ({', '.join(config_names(az.CONFIG_DIR))})")
    parser.add_argument("--game")
    parser.add_argument("--option", action="append", help="game option name=value")
    parser.add_argument("--out", type=Path, help="the run directory")
    parser.add_argument("--resume", type=Path, metavar="RUN_DIR",
                        help="continue the run in RUN_DIR with its config.json")
    for name in AZ_INTEGER_FLAGS:
        parser.add_argument(f"--{name.replace('_', '-')}", type=int, dest=name)
    parser.add_argument("--play-simulations", type=int, help="the saved network's az "
                        "budget: [play] simulations")
    parser.add_argument("--minutes", type=float, help="stop (resumably) after this much "
                        "training time")
    parser.add_argument("--opponents", type=lambda text: text.split(","),
                        help="comma-separated agent specs for the evaluations")
    parser.add_argument("--recipe", help="train a shipped network from nothing, every stage "
                        f"({', '.join(recipes.recipe_names())}); several, comma-separated, "
                        f"each in a folder of --out; or all of them: {recipes.ALL}")
    parser.add_argument("--check", action="store_true", help="with --recipe: play its "
                        "acceptance matches on --out's network (default: the shipped one) "
                        "and print them beside the targets (exit status 1 if one is missed)")
    parser.add_argument("--processes", type=int, default=1, help="with --recipe: worker "
                        "processes (--recipe all: recipes at once; --check: each match's)")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    parser.set_defaults(prog=parser.prog)
    needs_extra(parser, "jax", when=lambda args: not args.check)  # --check: NumPy's agents
    return parser


RECIPE_FLAGS = ("out", "resume", "recipe", "check", "processes", "quiet", "prog", "run",
                "learner", "command", "parser", "algorithm", "needs")
"""The arguments a recipe's run takes; the others are the recipe's own settings."""


def run_az(args: argparse.Namespace) -> int:
    """``train az``: a new run in ``--out`` from ``--config`` and the flags, or ``--resume``;
    with ``--recipe`` (or ``--resume`` of a recipe's run), :func:`run_recipe`."""
    if args.recipe is not None or (args.resume is not None and any(
            (args.resume / name).is_file() for name in ("recipe.json", "all.json"))):
        return run_recipe(args)
    if args.check:
        print(f"{args.prog}: error: --check needs --recipe", file=sys.stderr)
        return 2

    def run() -> Path:
        if args.resume is not None:
            if args.out is not None or args.config is not None:
                raise ValueError("--resume RUN_DIR continues with RUN_DIR's config.json; "
                                 "give neither --out nor --config")
            config = az.resumed_config(args.resume, args.minutes)
            out, resume = args.resume, True
        else:
            if args.out is None:
                raise ValueError("give --out RUN_DIR (or --resume RUN_DIR)")
            overrides = {k: getattr(args, k) for k in (*AZ_INTEGER_FLAGS, "game", "minutes",
                                                       "opponents", "algorithm")}
            if args.option:
                overrides["options"] = parse_options(args.option)
            if args.play_simulations is not None:
                overrides["play"] = {"simulations": args.play_simulations}
            config = az.load_config(az.config_file(args.config), overrides)
            out, resume = args.out, False
        family = "ppo" if config.algorithm == "ppo" else "az"
        played.append(f"final network: {{}} (play it with {family}:{{}})")
        return az.train(config, out, resume=resume, quiet=args.quiet)

    played: list[str] = []
    return finish(args.prog, run, lambda: played[-1] if played else None)


def run_recipe(args: argparse.Namespace) -> int:
    """``train az --recipe NAME``: every stage in ``--out`` (or on in ``--resume``), the
    acceptance matches with ``--check``, every recipe with ``--recipe all``."""
    given = sorted(f"--{key.replace('_', '-')}" for key, value in vars(args).items()
                   if key not in RECIPE_FLAGS and value not in (None, False))
    if given:
        print(f"{args.prog}: error: {given[0]}: a recipe holds its own settings (with "
              "--recipe give only --out or --resume, --check, --processes, --quiet)",
              file=sys.stderr)
        return 2
    if args.check:
        return _check_recipe(args)

    many = (args.recipe == recipes.ALL or "," in (args.recipe or "")
            or args.recipe is None and (args.resume / "all.json").is_file())

    def run() -> Path:
        if args.processes < 1:
            raise ValueError(f"--processes {args.processes} must be at least 1")
        if (args.out is None) == (args.resume is None):
            raise ValueError("give --out RUN_DIR for a new run, or --resume RUN_DIR")
        out, resume = (args.out, False) if args.resume is None else (args.resume, True)
        if many:
            names: list[str] | None = None          # --recipe all
            if args.recipe is None:                 # --resume of a list: its all.json's
                names = recipes.listed(out)
            elif args.recipe != recipes.ALL:
                names = args.recipe.split(",")
            recipes.run_all(out, resume=resume, quiet=args.quiet, processes=args.processes,
                            names=names)
            return out / "all.json"
        recipe = recipes.resumed(out) if resume else recipes.read_recipe(args.recipe)
        if args.recipe is not None and recipe.name != args.recipe:
            raise ValueError(f"{out} holds a run of the recipe {recipe.name}, not "
                             f"{args.recipe}")
        return recipes.run(recipe, out, resume=resume, quiet=args.quiet)

    return finish(args.prog, run, "the networks, each in its folder; the times: {}" if many
                  else None)


def _check_recipe(args: argparse.Namespace) -> int:
    """``--recipe NAME --check``: the acceptance matches, one line each, and a summary (with
    ``--out``, also in ``check.json`` with the machine, date and wall time); 0 when every
    target is met, 1 when one is missed, 2 on a bad argument."""
    try:
        if args.recipe in (None, recipes.ALL) or "," in args.recipe or args.resume is not None:
            raise ValueError("--check takes --recipe NAME (one recipe) and optionally --out")
        recipe = recipes.read_recipe(args.recipe)
        network = (args.out / f"{recipe.name}.npz" if args.out is not None
                   else SHIPPED_DIR / f"{recipe.name}.npz")
        if not network.is_file():
            raise ValueError(f"{network} not found: train it first (--recipe {recipe.name} "
                             f"--out {args.out or 'RUN_DIR'})")
        if not recipe.checks:
            raise ValueError(f"the recipe {recipe.name} has no checks")
        print(f"{recipe.name}: {network}, {time.strftime('%Y-%m-%d', time.gmtime())}, "
              f"{describe()}", flush=True)
        began = time.perf_counter()
        with sigterm_as_interrupt():
            results = recipes.check(recipe, network, processes=args.processes)
    except (ValueError, OSError, ImportError) as error:
        print(f"{args.prog}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as interrupt:
        return 143 if isinstance(interrupt, Terminated) else 130
    met, seconds = sum(result.met for result in results), time.perf_counter() - began
    print(f"{met} of {len(results)} targets met in {duration_text(seconds)}")
    if args.out is not None:
        write_text(args.out / "check.json", json.dumps({
            "recipe": recipe.name, "network": str(network), "machine": describe(),
            "date": time.strftime("%Y-%m-%d", time.gmtime()), "wall_seconds": round(seconds, 1),
            "processes": args.processes, "results": [result.row() for result in results]},
            indent=2) + "\n")
    return 0 if met == len(results) else 1


def _add_wary(learners: Any) -> argparse.ArgumentParser:
    defaults = wary.Settings
    parser = learners.add_parser("wary", description=_first_line(wary.__doc__))
    parser.add_argument("--init", required=True, help="the starting network (.npz)")
    parser.add_argument("--out", type=Path, required=True, help="the run directory")
    parser.add_argument("--game", default=defaults.game)
    parser.add_argument("--option", action="append", help="game option name=value "
                        "(default: the options in the network's header)")
    parser.add_argument("--opponent", default=defaults.opponent, help="agent spec")
    for name in ("games", "seed", "epochs", "batch", "processes"):
        parser.add_argument(f"--{name}", type=int, default=getattr(defaults, name))
    parser.add_argument("--learning-rate", type=float, default=defaults.learning_rate)
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    parser.set_defaults(prog=parser.prog)
    needs_extra(parser, "jax")
    return parser


def run_wary(args: argparse.Namespace) -> int:
    """``train wary``: :func:`tris_envs.alphazero.wary.train` with the flags' settings."""
    def run() -> Path:
        options = parse_options(args.option) if args.option else None
        settings = wary.Settings(args.init, args.game, options, args.opponent, args.games,
                                 args.seed, args.epochs, args.learning_rate, args.batch,
                                 args.processes)
        return wary.train(settings, args.out, quiet=args.quiet)

    return finish(args.prog, run)


def _first_line(docstring: str | None) -> str:
    return (docstring or "").partition("\n")[0]


def finish(prog: str, run: Callable[[], Path],
           said: str | Callable[[], str | None] | None = None) -> int:
    """A training command's end: ``run()``'s final network printed (exit status 0; ``said``,
    or what it returns once ``run`` is done, formats another line with the path), or an
    error in its settings or files as one line (2), or Ctrl-C (130) or SIGTERM (143), which
    ``run`` handles alike (:func:`~tris_envs.durable.sigterm_as_interrupt`)."""
    try:
        with sigterm_as_interrupt():
            final = run()
    except (ValueError, TypeError, OSError, ImportError) as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as interrupt:
        return 143 if isinstance(interrupt, Terminated) else 130
    line = said() if callable(said) else said
    print(line.format(final, final) if line
          else f"final network: {final} (play it with az:{final})")
    return 0
