"""The AlphaZero learner's command: configs, checkpoints, resume, logs and evaluation.

    tris-envs train az --config demo --out runs/demo          # the config the package ships
    tris-envs train az --config my_run.toml --out runs/mine   # or a TOML file of your own
    tris-envs train az --game tris1 --iterations 20 --out runs/tris1 --minutes 5
    tris-envs train az --resume runs/mine                     # continues where it stopped
    tris-envs train az --recipe az_tant_fant --out runs/tf    # a shipped network, from nothing

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
installed and, at the end, ``final.npz`` and then ``learning_curve.png``.

A run survives faults (:mod:`tris_envs.durable`): every file it rewrites is written whole
and renamed into place; SIGTERM stops it as Ctrl-C does (``resume.npz`` saved, exit
status 143); a checkpoint's row is in ``progress.csv`` before its evaluation starts, and a
``--resume`` evaluates a checkpoint whose evaluation was cut short; the network is saved
before the plot and TensorBoard, whose failure (matplotlib missing) is one warning. Losses
that stop being finite numbers end the run with an error (no network is saved from them).
On a terminal a progress line or bar shows the iterations, plies and time left (from
``--iterations`` and ``--minutes``); piped, or with ``--quiet``, it prints no progress.

Configs hold the keys of :class:`Config`; flags override them. A config may start from
another with ``base = "<name or path>"`` (:func:`read_config`): it then holds only what it
changes. The package ships ``demo`` (``make demo``) in :data:`CONFIG_DIR`; ``--config``
takes its name or a path. Each shipped network is made by its recipe, every stage from
nothing (:mod:`tris_envs.alphazero.recipes`, ``--recipe``). The command's arguments are declared
in :mod:`tris_envs.cli.train`; ``training/alphazero.py`` in a checkout is the loop as a
short script.
Needs ``pip install "tris_envs[jax]"``; the curve needs matplotlib, the TensorBoard logs
PyTorch (both in ``tris_envs[train]``).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import sys
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from tris_envs.agents import make_agent
from tris_envs.agents.az import AZAgent
from tris_envs.agents.az_network import (
    NetConfig,
    Network,
    load,
    save,
    shown_planes,
    with_inputs_of,
)
from tris_envs.agents.search_settings import SearchSettings
from tris_envs.core.errors import brief
from tris_envs.durable import (
    deferred_interrupts,
    replaced,
    write_text,
)
from tris_envs.evaluation import play_match
from tris_envs.evaluation.metrics import MoveQuality, move_quality
from tris_envs.games import GAMES, game_spec, make_game, require
from tris_envs.machine import record
from tris_envs.progress import Progress
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
    specs,
    table,
)

CONFIG_DIR = Path(__file__).resolve().parent / "configs"
"""The shipped configs (``demo``): where ``--config <name>`` finds ``<name>.toml``."""

ALGORITHMS = ("az", "ppo")
"""The values of :attr:`Config.algorithm`."""

PPO_DESCRIPTION = ("PPO in JAX, no search: the az learner's run (configs, --resume, "
                   "checkpoints, evaluations) with algorithm = \"ppo\"; its networks play as "
                   "ppo:<path>")
"""What ``tris-envs train jax-ppo --help`` says first."""


@dataclasses.dataclass
class Config:
    """Every setting of a run (the keys of a config file), each checked when read."""

    game: str = setting("tant_fant", one_of(*GAMES))
    options: dict[str, Any] = setting({}, table)
    algorithm: str = setting("az", one_of(*ALGORITHMS))    # az: self-play searches; ppo:
    # PPO with no search (tris_envs.ppo.jax_ppo), what tris-envs train jax-ppo runs
    seed: int = setting(0, integer(0, 2**32 - 1))            # JAX's keys hold 32 bits of it
    iterations: int = setting(100, integer(1))
    stop: int = setting(0, integer(0))      # end after this iteration (0: iterations); the
    # learning rate's schedule still spans iterations (a recipe's stage that ships net_<stop>)
    envs: int = setting(256, integer(1, LIMITS["envs"]))     # games played at once
    steps: int = setting(32, integer(1, LIMITS["steps"]))    # plies of each game per iteration
    simulations: int = setting(32, integer(1, LIMITS["simulations"]))  # each self-play search's
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
    hide_roll: bool = setting(False, flag)              # the network sees no dice roll
    expect_roll: bool = setting(False, flag)            # leaves valued over every roll
    explore: float = setting(0.0, number(0, 1))         # self-play moves played at random
    greedy: float = setting(0.0, number(0, 1))          # games with greedy in one seat
    wary: bool = setting(False, flag)                   # no trap handed over in the target
    play: SearchSettings = setting(SearchSettings(), table)  # the saved networks' search
    # play: the [play] table; its decisive and discount default to the training's
    learning_rate: float = setting(1e-3, number(0, strict=True))
    final_learning_rate: float = setting(1e-4, number(0, strict=True))  # cosine decay
    weight_decay: float = setting(0.0, number(0, 1))
    width: int = setting(32, integer(1, LIMITS["width"]))    # network channels
    blocks: int = setting(2, integer(0, LIMITS["layers"]))   # residual blocks
    init: str = setting("", lambda v: None if isinstance(v, str) else "must be a path")
    # init: a network .npz to start from ("": a random one)
    checkpoint_every: int = setting(10, integer(1))
    eval_games: int = setting(40, integer(0))           # per opponent and checkpoint
    eval_simulations: int = setting(0, integer(0))      # of the evaluated az agent
    opponents: list[str] = setting(["random", "greedy"], specs)
    minutes: float = setting(0.0, number(0))            # wall-clock budget; 0: none
    # the ppo algorithm's own (PPO in tris_envs.ppo.jax_ppo; its gamma is discount)
    gae_lambda: float = setting(0.95, number(0, 1))
    clip: float = setting(0.2, number(0, strict=True))  # the policy ratio's
    entropy: float = setting(0.01, number(0))           # the entropy bonus's weight
    value_coef: float = setting(0.5, number(0, strict=True))  # the value loss's weight
    random: float = setting(0.0, number(0, 1))          # games with random in one seat


SEARCH_ONLY = ("simulations", "considered", "noise", "alpha", "replay", "bootstrap",
               "decisive", "safe", "explore", "wary", "expect_roll")
"""The keys of :class:`Config` that only the ``az`` algorithm reads (its self-play search)."""

PPO_ONLY = ("gae_lambda", "clip", "entropy", "value_coef", "random")
"""The keys of :class:`Config` that only the ``ppo`` algorithm reads."""


FLAT_PLAY_KEYS = {"play_simulations": "simulations", "play_traps": "traps",
                  "play_mix": "mix", "play_batch": "batch"}
"""The keys of the ``[play]`` table that configs once held at the top as ``play_<key>``."""


def _refuse_flat_play_keys(values: dict[str, Any]) -> None:
    """A one-line ``ValueError`` for a ``play_<key>`` of :data:`FLAT_PLAY_KEYS`."""
    for key, value in values.items():
        if key in FLAT_PLAY_KEYS and value is not None:
            raise ValueError(f"{key} is now {FLAT_PLAY_KEYS[key]!r} in the [play] table: "
                             f"write [play] {FLAT_PLAY_KEYS[key]} = {value!r}")


def read_config(path: Path, seen: tuple[Path, ...] = ()) -> dict[str, Any]:
    """The keys of the config file at ``path``, laid over those of its ``base``.

    ``base`` names the config it starts from: a shipped config's name (``"demo"``) or a
    TOML file's path, relative to the folder of the file that names it. Its keys come
    first, then the file's own replace them one by one (an ``options`` table as a whole).
    A base may have a base of its own.

    Raises:
        ValueError: a ``base`` that is not a string, names no config, or leads back to a
            file already on the chain; a file that is not TOML; an unknown key or a bad
            value (named with the file that holds it).
        OSError: a file cannot be read.
    """
    values = read_toml(path)
    base = values.pop("base", None)
    try:
        _refuse_flat_play_keys(values)
        settings_from(Config, values, Config())
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None
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
    for key, value in overrides.items():
        if value is not None:                   # [play] keys over the file's [play]
            values[key] = ({**values[key], **value} if key == "play" and isinstance(
                values.get(key), dict) and isinstance(value, dict) else value)
    _refuse_flat_play_keys(values)
    config: Config = settings_from(Config, values, Config())
    play = values.get("play", {})
    config.play = dataclasses.replace(config.play, **{
        key: getattr(config, key) for key in ("decisive", "discount") if key not in play})
    game = make_game(config.game, **config.options)
    if config.init:
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
    if config.hide_roll:
        shown_planes(game)
    if config.expect_roll:
        game_spec(config.game).require_roll("expect_roll = true")
        if config.hide_roll:
            raise ValueError("expect_roll = true with hide_roll = true: a network that sees "
                             "no roll gives every roll one value; set one of them")
    if config.wary and not config.safe:
        raise ValueError("wary = true needs safe = true (the traps handed over are dropped "
                         "with the blunders)")
    for spec in config.opponents:
        make_agent(spec)
    if config.play.traps:
        require(config.game, "tactics", f"[play] traps = {config.play.traps}")
    for key, capability in (("decisive", "tactics"),
                            ("safe", "tactics"), ("tactics", "tactics"), ("greedy", "tactics"),
                            ("trap_planes", "traps"), ("wary", "wary")):
        value = getattr(config, key)
        if value:
            require(config.game, capability, f"{key} = {'true' if value is True else value}")
    if config.stop > config.iterations:
        raise ValueError(f"stop={config.stop} must be at most iterations={config.iterations}")
    defaults = Config()
    other = SEARCH_ONLY if config.algorithm == "ppo" else PPO_ONLY
    for key in other:
        if getattr(config, key) != getattr(defaults, key):
            raise ValueError(f"{key} = {getattr(config, key)!r}: algorithm = "
                             f"{config.algorithm!r} does not read it")
    if config.greedy + config.random > 1:
        raise ValueError(f"greedy = {config.greedy} and random = {config.random}: the shares "
                         "of games with a scripted seat add up to more than 1")
    if config.envs * config.steps % config.batch:
        raise ValueError(f"batch={config.batch} must divide envs * steps = "
                         f"{config.envs * config.steps}")
    return config


class Run:
    """A run directory's training state, built from its config (fresh or resumed)."""

    def __init__(self, config: Config, out: Path) -> None:
        import jax
        import optax

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
                                    config.tactics, config.trap_planes,
                                    hide_roll=config.hide_roll)
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
        self.state: tuple[Any, ...] = (
            jax.device_put(params, replicated), jax.device_put(optimiser.init(params), replicated),
            jax.device_put(states, games), jax.device_put(key, replicated))
        if config.algorithm == "ppo":
            from tris_envs.ppo.jax_ppo import PPO, make_update

            ppo = PPO(**{name: getattr(config, name) for name in PPO._fields})
            self.step = make_update(self.env, ppo, optimiser, policy_index(self.game),
                                    config.blocks)
        else:
            search = Search(**{name: getattr(config, name) for name in Search._fields})
            self.state += (jax.device_put(new_memory(self.env, search), replicated),)
            self.step = make_iteration(self.env, search, optimiser, policy_index(self.game),
                                       config.blocks)
        self.iteration_done = 0
        self.seconds = 0.0
        self.saved: int | None = None       # the iteration resume.npz holds

    def network(self) -> Any:
        """The current network, as the NumPy :class:`Network` the ``az`` agents play."""
        from tris_envs.alphazero.jax_net import network_of

        return network_of(self.state[0], self.game, self.net_config, self.config.play)

    def save(self) -> None:
        """``resume.npz``: every array of the training state, the iteration and the time."""
        import jax

        leaves = jax.tree_util.tree_leaves(jax.device_get(self.state))
        arrays: dict[str, Any] = {f"leaf{i}": np.asarray(leaf) for i, leaf in enumerate(leaves)}
        arrays |= {"iteration": self.iteration_done, "seconds": self.seconds}
        with replaced(self.out / "resume.npz", binary=True) as file:
            np.savez(file, **arrays)
        self.saved = self.iteration_done

    def restore(self) -> None:
        """The training state of ``resume.npz``.

        Raises:
            ValueError: no such file, a damaged one, or one whose arrays do not fit this
                config; the message says what a new run can start from.
        """
        import jax

        path = self.out / "resume.npz"
        if not path.is_file():
            raise ValueError(f"{self.out} has no resume.npz to continue from")
        leaves, treedef = jax.tree_util.tree_flatten(self.state)
        try:
            with path.open("rb") as file:
                start = file.read(4)
        except OSError as error:
            raise ValueError(f"{path} cannot be read ({_said(error)})") from None
        if start not in (b"PK\x03\x04", b"PK\x05\x06"):    # what np.load reads as an .npz
            raise ValueError(f"{path} is not a resume file (not an .npz archive): the run "
                             f"cannot continue; {self._restart_hint()}")
        try:
            with np.load(path, allow_pickle=False) as data:
                saved = [data[f"leaf{i}"] for i in range(len(leaves)) if f"leaf{i}" in data]
                iteration, seconds = data["iteration"], data["seconds"]
                if iteration.shape or seconds.shape or iteration.dtype.kind != "i":
                    raise ValueError("its iteration and seconds are not two numbers")
                self.iteration_done, self.seconds = int(iteration), float(seconds)
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as error:
            raise ValueError(f"{path} is damaged ({_said(error)}): the run cannot "
                             f"continue; {self._restart_hint()}") from None
        if len(saved) != len(leaves) or any(
                np.shape(a) != np.shape(b) or np.asarray(a).dtype != b.dtype
                for a, b in zip(saved, leaves)):
            raise ValueError(f"{path} does not fit the run's config.json: the run cannot "
                             f"continue; {self._restart_hint()}")
        if not (0 <= self.iteration_done <= self.config.iterations
                and np.isfinite(self.seconds) and self.seconds >= 0):
            raise ValueError(f"{path} is damaged (iteration {self.iteration_done}, "
                             f"{self.seconds} seconds): the run cannot continue; "
                             f"{self._restart_hint()}")
        restored = [jax.device_put(a, b.sharding) for a, b in zip(saved, leaves)]
        self.state = jax.tree_util.tree_unflatten(treedef, restored)
        self.saved = self.iteration_done

    def _restart_hint(self) -> str:
        """What a new run can start from when this one cannot continue."""
        saved = sorted((int(p.stem[4:]), p) for p in self.out.glob("net_*.npz")
                       if p.stem[4:].isdigit())
        if not saved:
            return "start it again with another --out"
        return (f"start a new run (another --out) from its last network with "
                f"init = \"{saved[-1][1]}\" in its config")


def train(config: Config, out: Path, resume: bool = False, quiet: bool = False) -> Path:
    """Run (or, with ``resume``, continue) the learner in ``out``; the final network's path.

    Raises:
        ValueError: ``out`` holds another run (without ``resume``) or no resumable one, a
            damaged ``progress.csv`` or ``resume.npz``, or losses that are not finite (the
            training diverged).
        KeyboardInterrupt: Ctrl-C or SIGTERM (:class:`~tris_envs.durable.Terminated`),
            once ``resume.npz`` holds the last whole iteration.
    """
    if not resume and (out / "resume.npz").exists():
        raise ValueError(f"{out} already holds a run: continue it with --resume {out} or "
                         "choose another --out")
    rows = _read_rows(out) if resume else []
    run = Run(config, out)                  # what the config asks for, before any file
    out.mkdir(parents=True, exist_ok=True)
    write_text(out / "config.json", json.dumps(dataclasses.asdict(config), indent=2) + "\n")
    if resume:
        run.restore()
        rows = [r for r in rows if r["iteration"] <= run.iteration_done]
    machine = record(out, f"from iteration {run.iteration_done}")
    if not quiet:
        print(f"machine: {machine}", flush=True)
    writer = _optional("TensorBoard", lambda: _tensorboard(out))
    budget = config.minutes * 60                     # for this invocation's training time
    spent = run.seconds
    end = config.stop or config.iterations
    progress = Progress("train az", end - run.iteration_done, "iterations",
                        quiet=quiet, seconds=budget or None)
    say = (lambda line: None) if quiet else progress.write
    try:
        with progress:
            if rows and _unevaluated(run, rows[-1]):     # a kill cut its evaluation short
                say(f"iteration {run.iteration_done}: evaluating the checkpoint again (its "
                    "evaluation was cut short)")
                writer = _scored(run, rows, writer, say)
            began = time.perf_counter() - run.seconds
            while run.iteration_done < end:
                *state, metrics = _ready(run.step(*run.state))
                _check_losses(metrics, run)
                with deferred_interrupts():     # the state, its count and its row together
                    run.state, run.iteration_done = tuple(state), run.iteration_done + 1
                    run.seconds = time.perf_counter() - began
                    row = _row(run, metrics)
                    stop = bool(budget) and run.seconds - spent >= budget
                    k = run.iteration_done
                    checkpoint = k % config.checkpoint_every == 0 or k == end
                    rows.append(row)             # before the checkpoint: a kill between the
                    _write_progress(out, rows)   # two resumes from the checkpoint before
                    if checkpoint or stop:
                        _checkpoint(run)
                progress.note(f"iteration {k:,}/{end:,}, {row['plies']:,} "
                              f"plies, policy loss {row['policy_loss']:.3f}, value loss "
                              f"{row['value_loss']:.3f}")
                progress.advance()
                if (checkpoint or stop) and config.eval_games:
                    writer = _scored(run, rows, writer, say)
                    began = time.perf_counter() - run.seconds   # the evaluation is not timed
                else:
                    writer = _logged(writer, row)
                if stop:
                    say(f"stopped at the budget of {config.minutes:g} minutes; continue with "
                        f"--resume {out}")
                    break
            final = _save_network(run.network(), out / "final.npz")
            progress.close(f"{run.iteration_done * config.envs * config.steps:,} plies, "
                           f"iteration {run.iteration_done:,}/{end:,}")
    except KeyboardInterrupt:
        run.save()
        print(f"interrupted after iteration {run.iteration_done}; continue with --resume "
              f"{out}", file=sys.stderr, flush=True)
        raise
    except OSError as error:                 # a full disk: what is kept, how to go on
        kept = (f"its resume.npz keeps iteration {run.saved}: make room, then continue with "
                f"--resume {out}" if run.saved is not None
                else "nothing to resume yet: make room, then start again")
        raise OSError(f"{error}; {kept}") from error
    if writer is not None:
        _optional("TensorBoard", writer.close)
    _optional("the learning curve", lambda: _plot(out, rows))
    return final


def _ready(outputs: Any) -> Any:
    """``outputs`` once JAX has computed them (it returns before the work is done, and the
    run's clock reads right after)."""
    import jax

    return jax.block_until_ready(outputs)


def _save_network(network: Any, path: Path) -> Path:
    """:func:`tris_envs.agents.az_network.save` (refuses weights that are not finite)."""
    return save(network, path)


def _check_losses(metrics: Any, run: Run) -> None:
    """Refuse an iteration whose losses are not finite numbers: the training diverged, and
    its network is not saved (the last checkpoint stays as it was)."""
    losses = float(metrics.policy_loss), float(metrics.value_loss)
    if not all(np.isfinite(losses)):
        raise ValueError(f"iteration {run.iteration_done + 1}: the losses are not finite "
                         f"(policy {losses[0]}, value {losses[1]}): the training diverged; "
                         f"nothing of it was saved in {run.out} (a lower learning_rate may "
                         "help)")


def _row(run: Run, metrics: Any) -> dict[str, Any]:
    """The ``progress.csv`` row of the iteration just done."""
    config = run.config
    return {"iteration": run.iteration_done,
            "plies": run.iteration_done * config.envs * config.steps,
            "seconds": round(run.seconds, 1), "games": int(metrics.games),
            "game_length": round(float(metrics.plies), 1),
            "policy_loss": round(float(metrics.policy_loss), 4),
            "value_loss": round(float(metrics.value_loss), 4)}


def _checkpoint(run: Run) -> None:
    """Save the network (``net_<iteration>.npz``) and the training state."""
    _save_network(run.network(), run.out / f"net_{run.iteration_done}.npz")
    run.save()


def _unevaluated(run: Run, row: dict[str, Any]) -> bool:
    """Whether ``row`` is the resumed iteration's checkpoint row without its evaluation."""
    return (row["iteration"] == run.iteration_done and bool(run.config.eval_games)
            and (run.out / f"net_{run.iteration_done}.npz").is_file()
            and not any(key.startswith("vs ") for key in row))


def _scored(run: Run, rows: list[dict[str, Any]], writer: Any, say: Callable[[str], None]
            ) -> Any:
    """The last row (the checkpoint's) with its evaluation, written and logged; the
    TensorBoard writer (``None`` once it failed)."""
    row = rows[-1]
    row |= _evaluate(run)
    _write_progress(run.out, rows)
    end = run.config.stop or run.config.iterations
    say(f"iteration {row['iteration']:,}/{end:,}: {row['plies']:,} plies, "
        + ", ".join(f"{key} {value:g}" for key, value in row.items()
                    if key.startswith("vs ") or key == "value_kept"))
    return _logged(writer, row)


def _evaluate(run: Run) -> dict[str, Any]:
    """The network's scores against the opponents (and, where the game has a solver, the
    share of its moves with a choice that keep the solver's value: ``tris-envs eval
    --metrics``'s value-keeping moves)."""
    network = run.network()
    config, scores = run.config, dict[str, Any]()
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
    """The rows of a run's ``progress.csv`` (none without the file), numbers read. A last
    row cut short (fields missing, or its line not ended: the writer ends every row) is
    dropped, the file rewritten with the complete rows before it, and one line says so.

    Raises:
        ValueError: a damaged file: the line named, and what to do.
    """
    path = out / "progress.csv"
    if not path.is_file():
        return []
    remedy = f"restore the file, or delete that line and those after it, then --resume {out}"
    try:
        text = path.read_text()
        reader = csv.DictReader(io.StringIO(text, newline=""))
        if "iteration" not in (reader.fieldnames or []):
            raise ValueError(f"{path} is damaged (its header names no iteration column): "
                             f"restore it, or remove it, then --resume {out}")
        lines = [(reader.line_num, row) for row in reader]
    except (UnicodeDecodeError, csv.Error) as error:
        raise ValueError(f"{path} is damaged ({_said(error)}): restore it, or remove "
                         f"it, then --resume {out}") from None
    rows: list[dict[str, Any]] = []
    for line, row in lines:
        if line == lines[-1][0] and None not in row and (None in row.values()
                                                         or not text.endswith("\n")):
            print(f"warning: {path}, line {line}: the last row is cut short; the run goes "
                  f"on with the {len(rows)} complete rows before it", file=sys.stderr,
                  flush=True)
            if rows:
                _write_progress(out, rows)
            else:
                path.unlink()
            break
        try:
            rows.append(_values(row, len(reader.fieldnames or [])))
        except ValueError as error:
            raise ValueError(f"{path}, line {line}: {error}: {remedy}") from None
    return rows


def _values(row: dict[Any, Any], fields: int) -> dict[str, Any]:
    """A ``progress.csv`` row's numbers by column.

    Raises:
        ValueError: a field missing or one too many, a value that is not a number, or no
            iteration.
    """
    if None in row or None in row.values():
        given = sum(value is not None for value in row.values())
        raise ValueError(f"a row cut short or too long ({given} of {fields} fields)")
    values = {}
    for key, text in row.items():
        if text != "":
            value = _number(text)
            if value is None:
                raise ValueError(f"{key}={brief(text, 40)} is not a number")
            values[key] = value
    if not isinstance(values.get("iteration"), int):
        raise ValueError("no iteration")
    return values


def _number(text: str) -> int | float | None:
    """The number ``text`` writes (an integer where it is one); ``None`` for another text."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return None


def _write_progress(out: Path, rows: list[dict[str, Any]]) -> None:
    """``progress.csv``: every row, the columns of all of them."""
    fields = list(dict.fromkeys(k for r in rows for k in r))
    with replaced(out / "progress.csv") as file:
        table = csv.DictWriter(file, fields)
        table.writeheader()
        table.writerows(rows)


def _logged(writer: Any, row: dict[str, Any]) -> Any:
    """``row``'s values written to TensorBoard; the writer, or ``None`` once it failed."""
    if writer is None:
        return None

    def log() -> Any:
        for key, value in row.items():
            if key != "iteration":
                writer.add_scalar(key.replace(" ", "_"), value, row["iteration"])
        writer.flush()
        return writer

    return _optional("TensorBoard", log)


def _said(error: BaseException) -> str:
    """An error's message for one line of ours: its first line, at most 160 characters."""
    lines = str(error).splitlines() or [type(error).__name__]
    return lines[0][:160]


def _optional(what: str, step: Callable[[], Any]) -> Any:
    """``step()``'s result, for a part of a run that nothing else needs (the learning
    curve, TensorBoard); if it fails, one warning line and ``None``: the run goes on."""
    try:
        return step()
    except Exception as error:                 # whatever it is, the run's files are saved
        print(f"warning: {what} skipped ({type(error).__name__}: {_said(error)})",
              file=sys.stderr, flush=True)
        return None


def _tensorboard(out: Path) -> Any:
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        return None
    return SummaryWriter(str(out / "tensorboard"))


def _plot(out: Path, rows: list[dict[str, Any]]) -> None:
    """``learning_curve.png``: the losses and the checkpoints' scores against the self-play
    plies."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot
    from matplotlib.ticker import MaxNLocator, StrMethodFormatter

    figure, (losses, scores) = pyplot.subplots(1, 2, figsize=(10, 4))
    plies = [r["plies"] for r in rows]
    for key in ("policy_loss", "value_loss"):
        losses.plot(plies, [r[key] for r in rows], label=key)
    losses.set_xlabel("self-play plies")
    losses.legend()
    for key in sorted({k for r in rows for k in r if k.startswith("vs ") or k == "value_kept"}):
        points = [(r["plies"], r[key]) for r in rows if key in r]
        scores.plot(*zip(*points), marker="o", label=key)
    scores.set_ylim(0, 1.02)
    scores.set_xlabel("self-play plies")
    for panel in (losses, scores):
        panel.xaxis.set_major_locator(MaxNLocator(5, integer=True))
        panel.xaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
    scores.set_ylabel("score")
    if scores.lines:
        scores.legend()
    figure.tight_layout()
    figure.savefig(out / "learning_curve.png", dpi=100)
    pyplot.close(figure)


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


def resumed_config(run_dir: Path, minutes: float | None = None) -> Config:
    """The config of the run in ``run_dir`` (its ``config.json``) for ``--resume``, with a
    new budget of ``minutes`` (none: unlimited; a budget is for one invocation).

    Raises:
        ValueError: ``run_dir`` holds no run, or its ``config.json`` is damaged or invalid.
    """
    saved = run_dir / "config.json"
    if not saved.is_file():
        raise ValueError(f"{run_dir} holds no run (config.json missing)")
    try:
        values = json.loads(saved.read_text())
        if not isinstance(values, dict):
            raise ValueError("not a JSON object")
    except ValueError as error:            # not JSON, not UTF-8, not an object
        raise ValueError(f"{saved} is damaged ({_said(error)}): restore it "
                         "(the run's settings: those of the config and flags it "
                         "started with) to continue") from None
    values["minutes"] = minutes or 0.0
    try:
        return load_config(None, values)
    except ValueError as error:
        raise ValueError(f"{saved}: {error}") from None
