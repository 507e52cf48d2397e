"""The AlphaZero learner's command: configs, checkpoints, resume, logs and evaluation.

    tris-envs train az --config az_tant_fant --out runs/tf      # a config the package ships
    tris-envs train az --config my_run.toml --out runs/mine   # or a TOML file of your own
    tris-envs train az --game tris1 --iterations 20 --out runs/tris1 --minutes 5
    tris-envs train az --resume runs/tf                       # continues where it stopped

Each iteration is :func:`tris_envs.alphazero.learner.make_iteration` (self-play through
mctx searches over the game's JAX ``step``, then the updates). Every ``checkpoint_every``
iterations, at the end, at the ``--minutes`` budget and on Ctrl-C, the run directory gets
``net_<iteration>.npz`` (play it with ``az:<path>``) and ``resume.npz`` (the whole
training state: ``--resume`` continues with the same results as a run never stopped); each
checkpoint's network plays ``eval_games`` games against each of ``opponents`` (the ``az``
agent with ``eval_simulations`` simulations; where the game has an exact solver, the share
of its moves that keep the solver's value is logged too). Also written: ``config.json``,
``machine.txt`` (one line per start: :func:`tris_envs.machine.record`),
``progress.csv`` (one row per iteration), TensorBoard logs where PyTorch's writer is
installed, ``learning_curve.png`` and, at the end, ``final.npz``.

Configs hold the keys of :class:`Config`; flags override them. A config may start from
another with ``base = "<name or path>"`` (:func:`read_config`): it then holds only what it
changes. The package ships the config of each of its networks in :data:`CONFIG_DIR`, named
as the network it trains (``az_<game>[__<option>=<value>...]``), and ``demo`` (``make
demo``); ``--config`` takes such a name or a path. ``training/alphazero.py`` in a checkout
is the same command.
Needs ``pip install "tris_envs[jax]"`` and matplotlib (the curve); TensorBoard logs
where PyTorch is installed (``tris_envs[train]``).
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from tris_envs.agents import make_agent
from tris_envs.core.options import parse_options
from tris_envs.games import GAMES, make_game
from tris_envs.machine import record
from tris_envs.settings import (
    config_names,
    flag,
    integer,
    number,
    one_of,
    read_toml,
    setting,
    settings_from,
    shipped_config,
    specs,
    table,
)

CONFIG_DIR = Path(__file__).resolve().parent / "configs"
"""The shipped configs: where ``--config <name>`` finds ``<name>.toml``."""


@dataclasses.dataclass
class Config:
    """Every setting of a run (the keys of a config file), each checked when read."""

    game: str = setting("tant_fant", one_of(*GAMES))
    options: dict[str, Any] = setting({}, table)
    seed: int = setting(0, integer(0))
    iterations: int = setting(100, integer(1))
    envs: int = setting(256, integer(1))                # games played at once
    steps: int = setting(32, integer(1))                # plies of each game per iteration
    simulations: int = setting(32, integer(1))          # of each self-play move's search
    considered: int = setting(16, integer(1))           # actions Gumbel's root considers
    noise: float = setting(0.25, number(0, 1))          # Dirichlet share at the root
    alpha: float = setting(0.3, number(0, strict=True))
    batch: int = setting(1024, integer(1))              # plies per minibatch
    epochs: int = setting(1, integer(1))                # passes over an iteration's plies
    bootstrap: bool = setting(True, flag)               # value targets of unfinished games
    replay: int = setting(1, integer(1))                # iterations of plies kept to learn
    decisive: bool = setting(False, flag)               # the search sees wins in one
    safe: bool = setting(False, flag)                   # no blunder in the policy target
    discount: float = setting(1.0, number(0, 1))        # a result's worth a ply later
    tactics: bool = setting(False, flag)                # one-move tactics as input planes
    trap_planes: bool = setting(False, flag)            # and two-move traps (with tactics)
    explore: float = setting(0.0, number(0, 1))         # self-play moves played at random
    greedy: float = setting(0.0, number(0, 1))          # games with greedy in one seat
    wary: bool = setting(False, flag)                   # no trap handed over in the target
    play_simulations: int = setting(0, integer(0))      # the saved networks' az budget
    play_traps: float = setting(0.0, number(0, 1))      # the saved networks' trap rule
    play_mix: float = setting(0.0, number(0, 1))        # the saved networks' playout share
    play_batch: int = setting(0, integer(0))            # and az's leaves per call (0: 8)
    learning_rate: float = setting(1e-3, number(0, strict=True))
    final_learning_rate: float = setting(1e-4, number(0, strict=True))  # cosine decay
    weight_decay: float = setting(0.0, number(0, 1))
    width: int = setting(32, integer(1))                # network channels
    blocks: int = setting(2, integer(0))                # residual blocks
    init: str = setting("", lambda v: None if isinstance(v, str) else "must be a path")
    # init: a network .npz to start from ("": a random one)
    checkpoint_every: int = setting(10, integer(1))
    eval_games: int = setting(40, integer(0))           # per opponent and checkpoint
    eval_simulations: int = setting(0, integer(0))      # of the evaluated az agent
    opponents: list[str] = setting(["random", "greedy"], specs)
    minutes: float = setting(0.0, number(0))            # wall-clock budget; 0: none


def read_config(path: Path, seen: tuple[Path, ...] = ()) -> dict[str, Any]:
    """The keys of the config file at ``path``, laid over those of its ``base``.

    ``base`` names the config it starts from: a shipped config's name (``"demo"``) or a
    TOML file's path, relative to the folder of the file that names it. Its keys come
    first, then the file's own replace them one by one (an ``options`` table as a whole).
    A base may have a base of its own.

    Raises:
        ValueError: a ``base`` that is not a string, names no config, or leads back to a
            file already on the chain; a file that is not TOML.
        OSError: a file cannot be read.
    """
    values = read_toml(path)
    base = values.pop("base", None)
    if base is None:
        return values
    if not isinstance(base, str):
        raise ValueError(f"{path}: base={base!r}: must be a config's name or a TOML file's "
                         "path")
    chain = (*seen, path.resolve())
    base_path = (path.parent / base if base.endswith(".toml")
                 else shipped_config(base, CONFIG_DIR))
    if base_path.resolve() in chain:
        loop = " -> ".join(str(p) for p in (*chain, base_path.resolve()))
        raise ValueError(f"{path}: base={base!r} leads back to itself ({loop})")
    return read_config(base_path, chain) | values


def load_config(path: Path | None, overrides: dict[str, Any]) -> Config:
    """Defaults, then the config file at ``path`` (over its base, :func:`read_config`),
    then ``overrides`` (``None`` values skipped); every value checked, the game made with
    its options, the opponents parsed.

    Raises:
        ValueError: an unknown key, a bad value (named with its key), an unknown game or
            option, an unknown agent spec, a batch that does not divide an iteration's
            plies, a bad ``base``, or a file that is not TOML.
        OSError: the file cannot be read.
    """
    values = read_config(path) if path is not None else {}
    values.update({k: v for k, v in overrides.items() if v is not None})
    config: Config = settings_from(Config, values, Config())
    game = make_game(config.game, **config.options)
    if config.init:
        from tris_envs.agents.az_network import load

        network = load(config.init, game)
        if (network.config.width, network.config.blocks) != (config.width, config.blocks):
            raise ValueError(f"init={config.init!r} has width {network.config.width} and "
                             f"{network.config.blocks} blocks; the config says {config.width} "
                             f"and {config.blocks}")
        if network.config.tactics and not config.tactics:
            raise ValueError(f"init={config.init!r} reads tactics planes; the config says "
                             "tactics = false")
        if network.config.trap_planes and not config.trap_planes:
            raise ValueError(f"init={config.init!r} reads trap planes; the config says "
                             "trap_planes = false")
        if network.config.wary_planes:
            raise ValueError(f"init={config.init!r} reads wary planes, which the learner does "
                             "not compute (46,656 positions a move in JAX); train it further "
                             "with tris-envs train wary")
    if config.trap_planes and not config.tactics:
        raise ValueError("trap_planes = true needs tactics = true (the trap planes come after "
                         "the tactics planes)")
    if config.wary and not config.safe:
        raise ValueError("wary = true needs safe = true (the traps handed over are dropped "
                         "with the blunders)")
    for spec in config.opponents:
        make_agent(spec)
    from tris_envs.agents.az_network import Tactical

    if config.play_traps and not isinstance(game, Tactical):
        raise ValueError(f"play_traps needs the rules core's tactical_moves, which "
                         f"{config.game!r} does not have")
    for key, method in (("decisive", "winning_moves"), ("safe", "blunders"),
                        ("tactics", "tactic_flags"), ("greedy", "blunders"),
                        ("wary", "hands_over_traps")):
        value = getattr(config, key)
        if value:
            from tris_envs.jax import make

            if not hasattr(make(config.game, **config.options), method):
                shown = "true" if value is True else value
                raise ValueError(f"{key} = {shown} needs the JAX game's {method}, which "
                                 f"{config.game!r} does not have")
    if config.envs * config.steps % config.batch:
        raise ValueError(f"batch={config.batch} must divide envs * steps = "
                         f"{config.envs * config.steps}")
    return config


class Run:
    """A run directory's training state, built from its config (fresh or resumed)."""

    def __init__(self, config: Config, out: Path) -> None:
        import jax
        import optax

        from tris_envs.agents.az_network import NetConfig, Network, load, with_inputs_of
        from tris_envs.alphazero.jax_net import params_of, policy_index
        from tris_envs.alphazero.learner import (
            Search,
            game_sharding,
            make_iteration,
            new_memory,
        )
        from tris_envs.jax import make

        self.config, self.out = config, out
        self.game = make_game(config.game, **config.options)
        self.env = make(config.game, **config.options)
        devices = jax.device_count()
        if config.envs % devices:
            raise ValueError(f"envs={config.envs} must be a multiple of the {devices} "
                             "devices the games are sharded over")
        self.net_config = NetConfig(config.game, config.options, config.width, config.blocks,
                                    config.decisive, config.play_simulations, config.discount,
                                    config.tactics, config.play_traps, config.trap_planes,
                                    config.play_mix, config.play_batch)
        rng = np.random.default_rng(config.seed)
        params = params_of(with_inputs_of(load(config.init, self.game), self.net_config)
                           if config.init else Network(self.game, self.net_config, rng=rng))
        updates = (config.iterations * config.epochs * config.envs * config.steps
                   // config.batch)
        schedule = optax.cosine_decay_schedule(
            config.learning_rate, updates, config.final_learning_rate / config.learning_rate)
        optimiser = optax.chain(optax.clip_by_global_norm(1.0),
                                optax.adamw(schedule, weight_decay=config.weight_decay))
        key, start = jax.random.split(jax.random.PRNGKey(config.seed))
        states = jax.vmap(self.env.init)(jax.random.split(start, config.envs))
        games, replicated = game_sharding()
        search = Search(**{name: getattr(config, name) for name in Search._fields})
        self.state = (jax.device_put(params, replicated),
                      jax.device_put(optimiser.init(params), replicated),
                      jax.device_put(states, games), jax.device_put(key, replicated),
                      jax.device_put(new_memory(self.env, search), replicated))
        self.iteration_done = 0
        self.seconds = 0.0
        self.step = make_iteration(self.env, search, optimiser, policy_index(self.game),
                                   config.blocks)

    def network(self) -> Any:
        """The current network, as the NumPy :class:`Network` the ``az`` agents play."""
        from tris_envs.alphazero.jax_net import network_of

        return network_of(self.state[0], self.game, self.net_config)

    def save(self) -> None:
        """``resume.npz``: every array of the training state, the iteration and the time."""
        import jax

        leaves = jax.tree_util.tree_leaves(jax.device_get(self.state))
        arrays: dict[str, Any] = {f"leaf{i}": np.asarray(leaf) for i, leaf in enumerate(leaves)}
        arrays |= {"iteration": self.iteration_done, "seconds": self.seconds}
        partial = self.out / "resume.partial.npz"
        with partial.open("wb") as file:
            np.savez(file, **arrays)
        partial.replace(self.out / "resume.npz")

    def restore(self) -> None:
        """The training state of ``resume.npz``.

        Raises:
            ValueError: no such file, or one whose arrays do not fit this config.
        """
        import jax

        path = self.out / "resume.npz"
        if not path.is_file():
            raise ValueError(f"{self.out} has no resume.npz to continue from")
        leaves, treedef = jax.tree_util.tree_flatten(self.state)
        with np.load(path) as data:
            saved = [data[f"leaf{i}"] for i in range(len(leaves)) if f"leaf{i}" in data]
            self.iteration_done = int(data["iteration"])
            self.seconds = float(data["seconds"])
        if len(saved) != len(leaves) or any(
                np.shape(a) != np.shape(b) for a, b in zip(saved, leaves)):
            raise ValueError(f"{path} does not fit the run's config.json")
        restored = [jax.device_put(a, b.sharding) for a, b in zip(saved, leaves)]
        self.state = jax.tree_util.tree_unflatten(treedef, restored)


def train(config: Config, out: Path, resume: bool = False, quiet: bool = False) -> Path:
    """Run (or, with ``resume``, continue) the learner in ``out``; the final network's path.

    Raises:
        ValueError: ``out`` holds another run (without ``resume``) or no resumable one.
    """
    out.mkdir(parents=True, exist_ok=True)
    if not resume and (out / "resume.npz").exists():
        raise ValueError(f"{out} already holds a run: continue it with --resume {out} or "
                         "choose another --out")
    (out / "config.json").write_text(json.dumps(dataclasses.asdict(config), indent=2) + "\n")
    run = Run(config, out)
    rows = _read_rows(out) if resume else []
    if resume:
        run.restore()
        rows = [r for r in rows if int(r["iteration"]) <= run.iteration_done]
    machine = record(out, f"from iteration {run.iteration_done}")
    if not quiet:
        print(f"machine: {machine}", flush=True)
    writer = _tensorboard(out)
    budget = config.minutes * 60
    began = time.perf_counter() - run.seconds
    try:
        while run.iteration_done < config.iterations:
            run.state, metrics = _advance(run)
            run.seconds = time.perf_counter() - began
            k = run.iteration_done
            plies = k * config.envs * config.steps
            row: dict[str, Any] = {
                "iteration": k, "plies": plies, "seconds": round(run.seconds, 1),
                "games": int(metrics.games), "game_length": round(float(metrics.plies), 1),
                "policy_loss": round(float(metrics.policy_loss), 4),
                "value_loss": round(float(metrics.value_loss), 4)}
            stop = bool(budget) and run.seconds >= budget
            if k % config.checkpoint_every == 0 or k == config.iterations or stop:
                row |= _checkpoint(run)
                began = time.perf_counter() - run.seconds     # the evaluation is not timed
            rows.append(row)
            _log(out, rows, writer, row)
            if not quiet:
                print(f"iteration {k}/{config.iterations}: " + ", ".join(
                    f"{name} {value:.4g}" for name, value in row.items()
                    if name != "iteration"), flush=True)
            if stop:
                print(f"stopped at the budget of {config.minutes:g} minutes; continue with "
                      f"--resume {out}", flush=True)
                break
    except KeyboardInterrupt:
        run.save()
        print(f"interrupted after iteration {run.iteration_done}; continue with --resume "
              f"{out}", file=sys.stderr, flush=True)
        raise
    _plot(out, rows)
    from tris_envs.agents.az_network import save

    return save(run.network(), out / "final.npz")


def _advance(run: Run) -> tuple[Any, Any]:
    """One iteration, waited for (JAX returns before the work is done, and the run's clock
    reads right after); the iteration count moves only once it is complete."""
    import jax

    *state, metrics = jax.block_until_ready(run.step(*run.state))
    run.iteration_done += 1
    return tuple(state), metrics


def _checkpoint(run: Run) -> dict[str, Any]:
    """Save the network and the training state; the network's scores against the
    opponents (and, where the game has a solver, the share of its moves with a choice that
    keep the solver's value: ``tris-envs eval --metrics``'s value-keeping moves)."""
    from tris_envs.agents.az import AZAgent
    from tris_envs.agents.az_network import save
    from tris_envs.evaluation import play_match
    from tris_envs.evaluation.metrics import MoveQuality, move_quality

    network = run.network()
    save(network, run.out / f"net_{run.iteration_done}.npz")
    run.save()
    config, scores = run.config, dict[str, Any]()
    if config.eval_games == 0:
        return scores
    quality = MoveQuality()
    for opponent in config.opponents:
        agent = AZAgent(network, config.eval_simulations,
                        rng=np.random.default_rng(run.iteration_done))
        match = play_match(run.game, agent, opponent, config.eval_games,
                           seed=run.iteration_done, keep_records=GAMES[config.game].solvable)
        scores[f"vs {opponent}"] = round(match.score, 3)
        if match.records:
            judged = move_quality(run.game, match.records, agent.name)
            quality.judged += judged.judged
            quality.value_kept += judged.value_kept
    if quality.judged:
        scores["value_kept"] = round(quality.value_kept / quality.judged, 4)
    return scores


def _read_rows(out: Path) -> list[dict[str, Any]]:
    path = out / "progress.csv"
    if not path.is_file():
        return []
    with path.open(newline="") as file:
        return [{k: _number(v) for k, v in row.items() if v != ""}
                for row in csv.DictReader(file)]


def _number(text: str) -> Any:
    try:
        return int(text)
    except ValueError:
        return float(text)


def _log(out: Path, rows: list[dict[str, Any]], writer: Any, row: dict[str, Any]) -> None:
    fields = list(dict.fromkeys(k for r in rows for k in r))
    with (out / "progress.csv").open("w", newline="") as file:
        table = csv.DictWriter(file, fields)
        table.writeheader()
        table.writerows(rows)
    if writer is not None:
        for key, value in row.items():
            if key != "iteration":
                writer.add_scalar(key.replace(" ", "_"), value, row["iteration"])
        writer.flush()


def _tensorboard(out: Path) -> Any:
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        return None
    return SummaryWriter(str(out / "tensorboard"))


def _plot(out: Path, rows: list[dict[str, Any]]) -> None:
    """``learning_curve.png``: losses per iteration, the checkpoints' scores."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    figure, (losses, scores) = pyplot.subplots(1, 2, figsize=(10, 4))
    iterations = [r["iteration"] for r in rows]
    for key in ("policy_loss", "value_loss"):
        losses.plot(iterations, [r[key] for r in rows], label=key)
    losses.set_xlabel("iteration")
    losses.legend()
    for key in sorted({k for r in rows for k in r if k.startswith("vs ") or k == "value_kept"}):
        points = [(r["iteration"], r[key]) for r in rows if key in r]
        scores.plot(*zip(*points), marker="o", label=key)
    scores.set_ylim(0, 1.02)
    scores.set_xlabel("iteration")
    scores.set_ylabel("score")
    if scores.lines:
        scores.legend()
    figure.tight_layout()
    figure.savefig(out / "learning_curve.png", dpi=100)
    pyplot.close(figure)


INTEGER_FLAGS = ("iterations", "envs", "steps", "simulations", "checkpoint_every",
                 "eval_games", "eval_simulations", "play_simulations", "width", "blocks",
                 "batch", "epochs", "seed")


def config_file(config: str | None) -> Path | None:
    """``--config``'s file: a path as given (one ending in ``.toml`` or naming a file),
    else the shipped config of that name.

    Raises:
        ValueError: neither a file nor a shipped config's name.
    """
    if config is None:
        return None
    path = Path(config)
    if path.suffix == ".toml" or path.is_file():
        return path
    return shipped_config(config, CONFIG_DIR)


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """Command line; errors in settings or files end with a message and exit status 2."""
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.splitlines()[0])
    parser.add_argument("--config", help="a TOML file with Config's keys, or the name of a "
                        f"config the package ships ({', '.join(config_names(CONFIG_DIR))})")
    parser.add_argument("--game")
    parser.add_argument("--option", action="append", help="game option name=value")
    parser.add_argument("--out", type=Path, help="the run directory")
    parser.add_argument("--resume", type=Path, metavar="RUN_DIR",
                        help="continue the run in RUN_DIR with its config.json")
    for name in INTEGER_FLAGS:
        parser.add_argument(f"--{name.replace('_', '-')}", type=int, dest=name)
    parser.add_argument("--minutes", type=float, help="stop (resumably) after this much "
                        "training time")
    parser.add_argument("--opponents", type=lambda text: text.split(","),
                        help="comma-separated agent specs for the evaluations")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    args = parser.parse_args(argv)

    def run() -> Path:
        if args.resume is not None:
            if args.out is not None or args.config is not None:
                raise ValueError("--resume RUN_DIR continues with RUN_DIR's config.json; "
                                 "give neither --out nor --config")
            saved = args.resume / "config.json"
            if not saved.is_file():
                raise ValueError(f"{args.resume} holds no run (config.json missing)")
            values = json.loads(saved.read_text())
            values["minutes"] = args.minutes or 0.0     # a budget is for one invocation
            config = load_config(None, values)
            out, resume = args.resume, True
        else:
            if args.out is None:
                raise ValueError("give --out RUN_DIR (or --resume RUN_DIR)")
            overrides = {k: getattr(args, k) for k in (*INTEGER_FLAGS, "game", "minutes",
                                                       "opponents")}
            if args.option:
                overrides["options"] = parse_options(args.option)
            config = load_config(config_file(args.config), overrides)
            out, resume = args.out, False
        return train(config, out, resume=resume, quiet=args.quiet)

    return command(parser.prog, run)


def command(prog: str, run: Callable[[], Path]) -> int:
    """A training command's end: ``run()``'s final network printed (exit status 0), or an
    error in its settings or files as one line (2), or Ctrl-C (130)."""
    try:
        final = run()
    except (ValueError, TypeError, OSError, ImportError) as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    print(f"final network: {final} (play it with az:{final})")
    return 0
