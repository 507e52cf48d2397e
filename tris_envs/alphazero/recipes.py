"""Recipes: the whole path from nothing to a shipped network, one TOML file each.

    tris-envs train az --recipe az_tritoc --out runs/tritoc     # every stage, then the file
    tris-envs train az --resume runs/tritoc                     # on from where it stopped
    tris-envs train az --recipe az_tritoc --check               # the acceptance matches
    tris-envs train az --recipe all --out runs/all              # every shipped network

A recipe (:data:`RECIPE_DIR`, named as the network it makes: ``az_tritoc.toml`` makes
``az_tritoc.npz``) holds, at its top, the ``game`` and its ``options``, the ``[play]`` table
(the search the network is played with, written into every stage's networks and so into the
shipped file's header), optionally ``after`` (the recipe whose network its first stage
starts from) and ``base`` (a recipe it repeats, its keys replacing those of the base one by
one: the Tant Fant variants are Tant Fant's recipe with other ``options``); then

- ``[[stages]]``, in order: each a table with a ``name`` and a ``kind``: ``"az"`` (the
  default) holds keys of :class:`~tris_envs.alphazero.train.Config`, laid over the stage
  before's (the first stage's over the defaults), and trains the network of the stage
  before on (``init`` is implied; the first stage's is ``after``'s network, else a random
  one); ``"wary"`` holds keys of :class:`~tris_envs.alphazero.wary.Settings` and teaches the
  network of the stage before its wary planes (:mod:`tris_envs.alphazero.wary`). A stage
  runs to its iterations (no ``minutes``: a recipe's result does not depend on the
  machine's speed); ``stop = k`` ends it after iteration ``k`` of a schedule that spans all
  its iterations.
- ``ship``: ``"final"`` (the default: the last stage's network), or a table
  ``{ best_of = ["net_20", "final"], opponent = "solver", games = 200, seed = 0 }``: the one
  of those networks of the last stage that scores most against ``opponent`` (played by
  :attr:`Recipe.family`'s agent, the first on a tie): a rule, never a hand pick.
- ``[[checks]]``: the acceptance matches, each ``agent`` (``"az"``: the network with its
  search; ``"az:0"``: alone; ``"ppo"``: alone, as the ``ppo`` agents play it),
  ``opponent``, ``games`` and ``seeds``, and the target: a score ``at_least``, at most
  ``max_losses`` losses, or a score within ``margin`` of ``reference``'s own against the
  same opponent (Doppia scelta: the solver's).

Every stage, ``ship`` and ``checks`` is checked when the recipe is read (:func:`read_recipe`),
before any stage trains. A recipe is named, never a path: the run writes only in its
directory, which gets ``recipe.json`` (the recipe as it was read: ``--resume`` goes on
with it), a folder per stage (``1_base/``, ``2_finetune/``, ...: each a run of its
learner), a folder per recipe named in ``after`` that no other run of the command made, and
the network ``<recipe>.npz``, whose header names the recipe and the package version (a
resumed run that had finished keeps it as it is). A kill loses no finished stage;
``--resume`` continues the stage it cut short from its last checkpoint and ends
byte-identical to a run never stopped.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import shutil
import signal
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from multiprocessing import active_children, get_context
from pathlib import Path
from typing import Any

import numpy as np

from tris_envs.agents import AgentSpec
from tris_envs.agents.az_network import load, save
from tris_envs.alphazero import wary
from tris_envs.alphazero.train import Config, load_config, train
from tris_envs.core.game import Game
from tris_envs.durable import sigterm_as_interrupt, write_text
from tris_envs.evaluation import play_match
from tris_envs.games import make_game
from tris_envs.machine import describe, package_version
from tris_envs.progress import duration_text
from tris_envs.settings import config_names, read_toml

RECIPE_DIR = Path(__file__).resolve().parent / "recipes"
"""The shipped recipes: ``<network name>.toml``."""

ALL = "all"
"""``--recipe all``: every recipe in :data:`RECIPE_DIR`."""

TOP_KEYS = ("base", "after", "game", "options", "play", "ship", "stages", "checks")
"""The keys of a recipe's top level."""

STAGE_KINDS = ("az", "wary")
AZ_REFUSED = {"init": "the stage before's network is its init",
              "minutes": "a recipe's stages run to their iterations",
              "play": "the [play] table is the recipe's, at its top",
              "game": "game is the recipe's, at its top",
              "options": "options are the recipe's, at its top"}
"""Config keys a stage table may not hold, and why."""
WARY_KEYS = tuple(f.name for f in dataclasses.fields(wary.Settings)
                  if f.name not in ("init", "game", "options"))
CHECK_KEYS = ("agent", "opponent", "games", "seeds", "at_least", "max_losses", "reference",
              "margin")
SHIP_KEYS = ("best_of", "opponent", "games", "seed")


@dataclasses.dataclass(frozen=True)
class Stage:
    """One step of a recipe.

    Attributes:
        name: Its name (its folder is ``<number>_<name>``).
        kind: ``"az"`` (the learner) or ``"wary"`` (:mod:`tris_envs.alphazero.wary`).
        config: For ``"az"``: the run's settings (its ``init`` filled in when it runs).
        settings: For ``"wary"``: the teacher's settings (its ``init`` filled in likewise).
    """

    name: str
    kind: str
    config: Config | None = None
    settings: wary.Settings | None = None

    @property
    def checkpoints(self) -> tuple[str, ...]:
        """The networks the stage saves: ``net_<k>`` and ``final`` (a wary stage: final)."""
        if self.config is None:
            return ("final",)
        end = self.config.stop or self.config.iterations
        every = self.config.checkpoint_every
        return (*(f"net_{k}" for k in range(every, end + 1, every)),
                *((f"net_{end}",) if end % every else ()), "final")


@dataclasses.dataclass(frozen=True)
class Check:
    """An acceptance match: ``agent`` (the recipe's network) against ``opponent``."""

    agent: AgentSpec
    opponent: AgentSpec
    games: int
    seeds: tuple[int, ...]
    at_least: float | None = None
    max_losses: int | None = None
    reference: AgentSpec | None = None
    margin: float = 0.0

    def target(self) -> str:
        """The target in words: ``≥ 70.0%``, ``no loss``, ``≥ solver's - 0.03``."""
        if self.reference is not None:
            return f">= {self.reference}'s own - {self.margin:g}"
        if self.max_losses is not None:
            return "no loss" if self.max_losses == 0 else f"<= {self.max_losses} losses"
        return f">= {self.at_least:.1%}"


@dataclasses.dataclass(frozen=True)
class Ship:
    """Which of the last stage's networks the recipe ships (:attr:`best_of` empty: its
    final one)."""

    best_of: tuple[str, ...] = ()
    opponent: AgentSpec | None = None
    games: int = 200
    seed: int = 0


@dataclasses.dataclass(frozen=True)
class Recipe:
    """A parsed recipe (see the module).

    Attributes:
        name: The network it makes (its file's stem).
        table: The recipe as read, its bases resolved (``recipe.json`` holds it).
        after: The recipe whose network the first stage starts from, or ``None``.
        stages: The stages, in order.
        ship: The rule for the network shipped.
        checks: The acceptance matches.
    """

    name: str
    table: dict[str, Any]
    after: str | None
    stages: tuple[Stage, ...]
    ship: Ship
    checks: tuple[Check, ...]

    @property
    def work(self) -> int:
        """The network calls of its learner stages' self-play (iterations x environments x
        steps, times the simulations of each search where the algorithm searches): how
        ``--recipe all`` with ``--processes`` orders the recipes, the longest first."""
        return sum((c.stop or c.iterations) * c.envs * c.steps
                   * (c.simulations if c.algorithm == "az" else 1)
                   for c in (s.config for s in self.stages) if c is not None)

    @property
    def family(self) -> str:
        """The agents that play its network: ``"ppo"`` (the policy alone) where its last
        learner stage trains with ``algorithm = "ppo"``, else ``"az"`` (with its search)."""
        last = [s.config for s in self.stages if s.config is not None][-1]
        return "ppo" if last.algorithm == "ppo" else "az"

    def game(self) -> Game:
        """The rules core with the recipe's options."""
        return make_game(self.table["game"], **self.table.get("options", {}))


def recipe_names() -> list[str]:
    """The shipped recipes' names, sorted."""
    return config_names(RECIPE_DIR)


def read_recipe(name: str, directory: Path = RECIPE_DIR) -> Recipe:
    """The recipe ``<directory>/<name>.toml``, its ``base`` chain resolved and every stage
    checked.

    Raises:
        ValueError: ``name`` not one of ``directory``'s recipes (a path is none), a ``base``
            or ``after`` chain that names a missing recipe or leads back to itself, or a
            bad key or value (one line naming the file, the stage and the key).
    """
    table = _resolved(name, directory, ())
    recipe = parse(name, table, directory / f"{name}.toml")
    _check_after(recipe, directory, (name,))
    return recipe


def _path(name: str, directory: Path, named_by: str) -> Path:
    """The file of the recipe ``name``, one of ``directory``'s by its name (never a path:
    its network is written as ``<out>/<name>.npz``)."""
    have = config_names(directory)
    if name not in have:
        raise ValueError(f"{named_by}no recipe {name!r} in {directory} (have: "
                         f"{', '.join(have) or 'none'})")
    return directory / f"{name}.toml"


def _resolved(name: str, directory: Path, chain: tuple[str, ...]) -> dict[str, Any]:
    """The table of recipe ``name`` laid over its bases'."""
    path = _path(name, directory, f"{directory / chain[-1]}.toml: base: " if chain else "")
    table = read_toml(path)
    base = table.pop("base", None)
    if base is None:
        return table
    if not isinstance(base, str):
        raise ValueError(f"{path}: base={base!r} must be a recipe's name")
    if base in (*chain, name):
        raise ValueError(f"{path}: base={base!r} leads back to itself "
                         f"({' -> '.join((*chain, name, base))})")
    return _resolved(base, directory, (*chain, name)) | table


def _check_after(recipe: Recipe, directory: Path, chain: tuple[str, ...]) -> None:
    """Refuse an ``after`` chain that names a missing recipe or comes back to one on it."""
    if recipe.after is None:
        return
    if recipe.after in chain:
        raise ValueError(f"{directory / recipe.name}.toml: after={recipe.after!r} leads back "
                         f"to itself ({' -> '.join((*chain, recipe.after))})")
    _path(recipe.after, directory, f"{directory / recipe.name}.toml: after: ")
    before = parse(recipe.after, _resolved(recipe.after, directory, ()),
                   directory / f"{recipe.after}.toml")
    _follow(before.stages[-1], recipe.stages[0],
            lambda text: ValueError(f"{directory / recipe.name}.toml: {text}"),
            f"the last stage of {recipe.after}")
    _check_after(before, directory, (*chain, recipe.after))


def parse(name: str, table: dict[str, Any], where: Path | str) -> Recipe:
    """The :class:`Recipe` of ``table`` (a recipe file's keys, its bases resolved).

    Raises:
        ValueError: one line, starting with ``where`` and the stage, for each problem.
    """
    def fail(text: str) -> ValueError:
        return ValueError(f"{where}: {text}")

    if not isinstance(name, str) or name in ("", ".", "..") or Path(name).name != name:
        raise fail(f"recipe {name!r}: a recipe's name is a file's, without a folder (its "
                   "network is <out>/<name>.npz)")
    unknown = sorted(set(table) - set(TOP_KEYS))
    if unknown:
        raise fail(f"unknown key {unknown[0]!r}; a recipe's top holds {', '.join(TOP_KEYS)}")
    after = table.get("after")
    if after is not None and not isinstance(after, str):
        raise fail(f"after={after!r} must be a recipe's name")
    if not isinstance(table.get("game"), str):
        raise fail("game: every recipe names its game (game = \"tritoc\")")
    for key in ("options", "play"):
        if not isinstance(table.get(key, {}), dict):
            raise fail(f"{key} must be a table")
    stages_table = table.get("stages")
    if not isinstance(stages_table, list) or not stages_table:
        raise fail("no stages: a recipe holds at least one [[stages]] table")
    common = {"game": table["game"], "options": table.get("options", {}),
              "play": table.get("play", {})}
    stages: list[Stage] = []
    values: dict[str, Any] = {}
    for number, stage_table in enumerate(stages_table, 1):
        if not isinstance(stage_table, dict):
            raise fail(f"stage {number} is not a table")
        stage_table = dict(stage_table)
        label = stage_table.pop("name", None)
        if not isinstance(label, str) or not label.isidentifier():
            raise fail(f"stage {number}: name={label!r}: every stage has a name (a word: "
                       "name = \"finetune\")")
        if label in (s.name for s in stages):
            raise fail(f"stage {number}: a second stage named {label!r}")
        kind = stage_table.pop("kind", "az")
        here = f"stage {number} ({label}): "
        if kind not in STAGE_KINDS:
            raise fail(f"{here}kind={kind!r} must be one of {', '.join(STAGE_KINDS)}")
        if kind == "wary":
            if number == 1 and after is None:
                raise fail(f"{here}a wary stage trains a network on: it cannot come first "
                           "without after")
            bad = sorted(set(stage_table) - set(WARY_KEYS))
            if bad:
                raise fail(f"{here}unknown key {bad[0]!r}; a wary stage holds "
                           f"{', '.join(WARY_KEYS)}")
            try:
                settings = wary.checked({**stage_table, "init": "", "game": common["game"],
                                         "options": copy.deepcopy(common["options"])})
            except ValueError as error:
                raise fail(f"{here}{error}") from None
            stages.append(Stage(label, kind, settings=settings))
            if number > 1:
                _follow(stages[-2], stages[-1], fail)
            continue
        for key, why in AZ_REFUSED.items():
            if key in stage_table:
                raise fail(f"{here}{key}: {why}")
        values = {k: v for k, v in values.items() if k != "stop"} | stage_table
        try:
            config = load_config(None, {**values, **copy.deepcopy(common)})
        except ValueError as error:
            raise fail(f"{here}{error}") from None
        stages.append(Stage(label, kind, config=config))
        if number > 1:
            _follow(stages[-2], stages[-1], fail)
    return Recipe(name, table, after, tuple(stages),
                  _ship(table.get("ship", "final"), stages[-1], fail),
                  tuple(_check(c, n, fail) for n, c in enumerate(table.get("checks", []), 1)))


def _follow(before: Stage, stage: Stage, fail: Callable[[str], ValueError],
            where: str = "the stage before") -> None:
    """Refuse ``stage`` if it cannot train ``before``'s network on."""
    here = f"stage {stage.name}: "
    if before.config is None:
        raise fail(f"{here}{where} ({before.name}) ends with the wary planes, which "
                   "nothing trains on")
    if stage.config is None:
        if not before.config.trap_planes:
            raise fail(f"{here}a wary stage needs a network with trap planes; {where} "
                       f"({before.name}) has none (trap_planes = true)")
        return
    a, b = before.config, stage.config
    if (a.width, a.blocks) != (b.width, b.blocks):
        raise fail(f"{here}width {b.width} and {b.blocks} blocks, but {where} ({before.name})"
                   f" trains width {a.width} and {a.blocks} blocks")
    for key in ("tactics", "trap_planes"):
        if getattr(a, key) and not getattr(b, key):
            raise fail(f"{here}{where} ({before.name}) reads {key} planes; this stage says "
                       f"{key} = false")


def _spec(text: Any, what: str, fail: Callable[[str], ValueError]) -> AgentSpec:
    try:
        return AgentSpec.parse(text)
    except ValueError as error:
        raise fail(f"{what}: {error}") from None


def _ship(value: Any, last: Stage, fail: Callable[[str], ValueError]) -> Ship:
    if value == "final":
        return Ship()
    if not isinstance(value, dict):
        raise fail(f"ship={value!r} must be \"final\" or a table with best_of")
    bad = sorted(set(value) - set(SHIP_KEYS))
    if bad:
        raise fail(f"ship: unknown key {bad[0]!r}; it holds {', '.join(SHIP_KEYS)}")
    best_of = value.get("best_of")
    if not isinstance(best_of, list) or not best_of:
        raise fail("ship: best_of must list the last stage's networks (\"net_20\", \"final\")")
    for network in best_of:
        if network not in last.checkpoints:
            raise fail(f"ship: best_of names {network!r}, which stage {last.name!r} does not "
                       f"save (it saves {', '.join(last.checkpoints)})")
    games, seed = value.get("games", 200), value.get("seed", 0)
    if type(games) is not int or games < 1 or type(seed) is not int or seed < 0:
        raise fail("ship: games must be a positive integer and seed a non-negative one")
    return Ship(tuple(best_of), _spec(value.get("opponent"), "ship: opponent", fail), games,
                seed)


def _check(value: Any, number: int, fail: Callable[[str], ValueError]) -> Check:
    here = f"check {number}: "
    if not isinstance(value, dict):
        raise fail(f"{here}not a table")
    bad = sorted(set(value) - set(CHECK_KEYS))
    if bad:
        raise fail(f"{here}unknown key {bad[0]!r}; a check holds {', '.join(CHECK_KEYS)}")
    agent = _spec(value.get("agent", "az"), f"{here}agent", fail)
    if agent.family not in ("az", "ppo") or agent.path is not None:
        raise fail(f"{here}agent={value.get('agent')!r} must be az, az:<simulations> or ppo "
                   "(the recipe's network)")
    games, seeds = value.get("games", 200), value.get("seeds", [0])
    if type(games) is not int or games < 1:
        raise fail(f"{here}games={games!r} must be a positive integer")
    if not isinstance(seeds, list) or not seeds or any(type(s) is not int or s < 0
                                                         for s in seeds):
        raise fail(f"{here}seeds={seeds!r} must list non-negative integers")
    targets = [key for key in ("at_least", "max_losses", "reference") if key in value]
    if len(targets) != 1:
        raise fail(f"{here}give one target: at_least, max_losses or reference (with margin)")
    at_least, max_losses, margin = (value.get("at_least"), value.get("max_losses"),
                                    value.get("margin", 0.0))
    if at_least is not None and (type(at_least) not in (int, float) or not 0 <= at_least <= 1):
        raise fail(f"{here}at_least={at_least!r} must be a score from 0 to 1")
    if max_losses is not None and (type(max_losses) is not int or max_losses < 0):
        raise fail(f"{here}max_losses={max_losses!r} must be a non-negative integer")
    if type(margin) not in (int, float) or not 0 <= margin <= 1:
        raise fail(f"{here}margin={margin!r} must be a number from 0 to 1")
    reference = (_spec(value["reference"], f"{here}reference", fail) if "reference" in value
                 else None)
    return Check(agent, _spec(value.get("opponent"), f"{here}opponent", fail), games,
                 tuple(seeds), at_least, max_losses, reference, float(margin))


# ----- running ----------------------------------------------------------------------------

def run(recipe: Recipe, out: Path, resume: bool = False, quiet: bool = False,
        made: dict[str, Path] | None = None) -> Path:
    """Run ``recipe`` in ``out`` (with ``resume``: on from where a run there stopped); the
    path of the network it ships, ``out/<recipe>.npz`` (one there already, of a run that
    finished, is kept as it is).

    ``made`` maps recipes to networks made already (``--recipe all``): a recipe named in
    ``after`` that it lacks is run first, in ``out/<that recipe>``.

    Raises:
        ValueError: ``out`` holds a run (without ``resume``), another recipe's run, or a
            damaged one; a bad stage setting.
        KeyboardInterrupt: Ctrl-C or SIGTERM; every finished stage is kept.
    """
    made = {} if made is None else made
    shipped = out / f"{recipe.name}.npz"
    _claim(recipe, out, resume)
    say = (lambda text: None) if quiet else (lambda text: print(text, flush=True))
    if shipped.exists():                # a run done before: its network stays as it is
        say(f"recipe {recipe.name}: done ({shipped})")
        return shipped
    init = ""
    if recipe.after is not None:
        if recipe.after not in made:
            before = read_recipe(recipe.after)
            folder = out / recipe.after
            say(f"recipe {recipe.name}: first {recipe.after} (its network starts stage 1)")
            made[recipe.after] = run(before, folder, resume=(folder / "recipe.json").is_file(),
                                     quiet=quiet, made=made)
        init = str(made[recipe.after])
    for number, stage in enumerate(recipe.stages, 1):
        folder = out / f"{number}_{stage.name}"
        final = folder / "final.npz"
        if final.is_file():
            say(f"stage {number}/{len(recipe.stages)} {stage.name}: done ({final})")
        else:
            say(f"stage {number}/{len(recipe.stages)} {stage.name}: {_describe(stage)}"
                f"{' from ' + init if init else ' from a random network'}")
            try:
                _run_stage(stage, folder, init, quiet)
            except KeyboardInterrupt:
                print(f"recipe {recipe.name}: stage {number} cut short; the recipe goes on "
                      f"from it with tris-envs train az --resume {out}", file=sys.stderr,
                      flush=True)
                raise
        init = str(final)
    network = load(_chosen(recipe, out, quiet), recipe.game())
    network.recipe, network.version = recipe.name, package_version()
    return save(network, shipped)


def _claim(recipe: Recipe, out: Path, resume: bool) -> None:
    """Write ``out/recipe.json`` for a new run; for ``resume``, check it is this recipe's."""
    record = out / "recipe.json"
    if resume:
        if not record.is_file():
            raise ValueError(f"{out} holds no recipe's run (recipe.json missing)")
        return
    if record.exists() or (out.is_dir() and any(out.iterdir())):
        raise ValueError(f"{out} is not empty: continue its run with --resume {out}, or "
                         "choose another --out")
    out.mkdir(parents=True, exist_ok=True)
    write_text(record, json.dumps({"recipe": recipe.name, "table": recipe.table},
                                  indent=2) + "\n")


def resumed(out: Path) -> Recipe:
    """The recipe of the run in ``out``, as its ``recipe.json`` holds it.

    Raises:
        ValueError: no ``recipe.json``, or a damaged one.
    """
    record = out / "recipe.json"
    if not record.is_file():
        raise ValueError(f"{out} holds no recipe's run (recipe.json missing)")
    try:
        data = json.loads(record.read_text())
        name, table = data["recipe"], data["table"]
        if not isinstance(name, str) or not isinstance(table, dict):
            raise ValueError("not a recipe's record")
    except (ValueError, KeyError, TypeError) as error:
        raise ValueError(f"{record} is damaged ({str(error)[:80]}): restore it, or start "
                         "again in another --out") from None
    return parse(name, table, record)


def _describe(stage: Stage) -> str:
    if stage.config is not None:
        c = stage.config
        stop = f", stopping after {c.stop}" if c.stop else ""
        search = f"{c.simulations} simulations" if c.algorithm == "az" else "PPO, no search"
        return f"{c.iterations} iterations{stop} of {c.envs} games x {c.steps} plies, {search}"
    settings = stage.settings
    assert settings is not None
    return f"the wary planes from {settings.games} games against {settings.opponent}"


def _run_stage(stage: Stage, folder: Path, init: str, quiet: bool) -> Path:
    if stage.config is not None:
        config = dataclasses.replace(stage.config, init=init)
        return train(config, folder, resume=(folder / "resume.npz").is_file(), quiet=quiet)
    assert stage.settings is not None
    settings = dataclasses.replace(stage.settings, init=init)
    if folder.exists():             # a wary stage cut short: it has no checkpoint, again
        shutil.rmtree(folder)
    return wary.train(settings, folder, quiet=quiet)


def _chosen(recipe: Recipe, out: Path, quiet: bool) -> Path:
    """The last stage's network that the recipe ships (:class:`Ship`)."""
    folder = out / f"{len(recipe.stages)}_{recipe.stages[-1].name}"
    ship = recipe.ship
    if not ship.best_of:
        return folder / "final.npz"
    assert ship.opponent is not None
    game = recipe.game()
    scores = []
    for name in ship.best_of:
        path = folder / f"{name}.npz"
        match = play_match(game, AgentSpec(recipe.family, path=str(path)), ship.opponent,
                           ship.games, seed=ship.seed)
        scores.append(match.score)
        if not quiet:
            print(f"ship: {name} scores {match.score:.1%} against {ship.opponent}", flush=True)
    return folder / f"{ship.best_of[int(np.argmax(scores))]}.npz"


# ----- checks -----------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Checked:
    """One acceptance match played: the check, its seed, the score and losses, the target's
    score, and whether it was met."""

    check: Check
    seed: int
    score: float
    losses: int
    needed: float | None
    met: bool

    def row(self) -> dict[str, Any]:
        """The result as ``check.json`` holds it."""
        return {"agent": str(self.check.agent), "opponent": str(self.check.opponent),
                "seed": self.seed, "games": self.check.games, "score": round(self.score, 4),
                "losses": self.losses, "target": self.check.target(),
                "needed": None if self.needed is None else round(self.needed, 4),
                "met": self.met}

    def line(self) -> str:
        agent = str(self.check.agent)
        return (f"{agent} vs {self.check.opponent}, seed {self.seed}, "
                f"{self.check.games} games: {self.score:.1%}, {self.losses} lost; target "
                f"{self.check.target()}"
                + (f" ({self.needed:.1%})" if self.check.reference is not None else "")
                + f": {'met' if self.met else 'MISSED'}")


def check(recipe: Recipe, network: Path, processes: int = 1,
          report: Callable[[str], None] = print) -> list[Checked]:
    """Play ``recipe``'s acceptance matches with the network at ``network``; each result,
    also given to ``report`` as one line when played."""
    game = recipe.game()
    results = []
    for item in recipe.checks:
        agent = dataclasses.replace(item.agent, path=str(network))
        for seed in item.seeds:
            match = play_match(game, agent, item.opponent, item.games, seed,
                               processes=processes)
            needed = item.at_least
            if item.reference is not None:
                own = play_match(game, item.reference, item.opponent, item.games, seed,
                                 processes=processes)
                needed = own.score - item.margin
            met = (match.losses <= item.max_losses if item.max_losses is not None
                   else match.score >= (needed or 0.0))
            results.append(Checked(item, seed, match.score, match.losses, needed, met))
            report(results[-1].line())
    return results


# ----- every recipe -----------------------------------------------------------------------

def run_all(out: Path, resume: bool = False, quiet: bool = False, processes: int = 1,
            names: Sequence[str] | None = None) -> dict[str, Path]:
    """Run every recipe (or those of ``names``), each in ``out/<name>``, a recipe named in
    another's ``after`` before it, ``processes`` at once; their networks by name. Of the
    recipes ready, the one that heads the most :attr:`Recipe.work` (its own and that of the
    recipes after it) starts first: the long ones do not wait for the short. Writes
    ``out/all.json`` as it starts and after each recipe: each one's wall time (over a kill
    and its resume too: :func:`_timed`), the machine, the total so far and the recipes
    left.

    Raises:
        ValueError: as :func:`run`, for the first recipe that fails.
    """
    recipes = {name: read_recipe(name) for name in (names or recipe_names())}
    out.mkdir(parents=True, exist_ok=True)
    began, seconds = time.perf_counter(), dict[str, float]()
    made: dict[str, Path] = {}
    say = (lambda text: None) if quiet else (lambda text: print(text, flush=True))

    def heads(name: str) -> int:
        return recipes[name].work + max(
            (heads(n) for n, r in recipes.items() if r.after == name), default=0)

    def ready() -> list[str]:
        return sorted((n for n, r in recipes.items() if n not in made
                       and n not in running.values()
                       and (r.after is None or r.after in made or r.after not in recipes)),
                      key=heads, reverse=True)

    def arguments(name: str) -> tuple[Recipe, Path, bool, bool, dict[str, Path]]:
        folder = out / name
        say(f"recipe {name}: starting in {folder}")
        return (recipes[name], folder, resume and (folder / "recipe.json").is_file(),
                quiet or processes > 1, dict(made))

    record = out / "all.json"
    if resume and record.is_file():     # the times of the recipes done before the kill
        seconds |= json.loads(record.read_text()).get("seconds", {})

    def write() -> None:
        """``all.json`` as things stand: at the start, then after each recipe (a kill
        keeps the times, and ``--resume`` finds the list in it)."""
        write_text(record, json.dumps({
            "machine": describe(), "date": time.strftime("%Y-%m-%d", time.gmtime()),
            "processes": processes, "seconds": {n: round(s, 1) for n, s in seconds.items()},
            "wall_seconds": round(time.perf_counter() - began, 1),
            "left": sorted(set(recipes) - set(seconds))}, indent=2) + "\n")

    def done(name: str, result: tuple[Path, float]) -> None:
        made[name] = result[0]
        seconds.setdefault(name, result[1])
        say(f"recipe {name}: {made[name]} in {duration_text(seconds[name])}")
        write()

    write()

    running: dict[Future[tuple[Path, float]], str] = {}
    try:
        if processes == 1:          # in this process: its progress lines show
            while len(made) < len(recipes):
                name = ready()[0]
                done(name, _timed(*arguments(name)))
        else:
            with ProcessPoolExecutor(processes, mp_context=get_context("spawn"),
                                     initializer=_start_worker) as pool:
                try:
                    while len(made) < len(recipes):
                        for name in ready()[:processes - len(running)]:
                            running[pool.submit(_timed_in_worker, *arguments(name))] = name
                        finished, _ = wait(running, return_when=FIRST_COMPLETED)
                        for future in finished:
                            done(running.pop(future), future.result())
                except KeyboardInterrupt:       # each recipe running stops as it would here
                    for worker in active_children():
                        worker.terminate()      # SIGTERM
                    raise
    except KeyboardInterrupt:
        print(f"the recipes go on with tris-envs train az --resume {out}", file=sys.stderr,
              flush=True)
        raise
    say(f"{len(made)} networks in {duration_text(time.perf_counter() - began)} -> {out}")
    return made


def listed(out: Path) -> list[str]:
    """The recipes of the list run in ``out`` (its ``all.json``: those done, then those
    left), for ``--resume``.

    Raises:
        ValueError: ``out`` holds no list run, or its ``all.json`` is damaged.
    """
    record = out / "all.json"
    try:
        table = json.loads(record.read_text())
        names = [*table["seconds"], *table["left"]]
    except FileNotFoundError:
        raise ValueError(f"{out} holds no run of a list of recipes (all.json missing)") from None
    except (ValueError, KeyError, TypeError) as error:
        raise ValueError(f"{record} is damaged ({error}); restore it, or start the list "
                         "again in another --out") from None
    if not all(isinstance(name, str) for name in names):
        raise ValueError(f"{record} is damaged (a recipe name is not text); restore it, or "
                         "start the list again in another --out")
    return names


def _start_worker() -> None:
    """A worker of :func:`run_all`'s ``processes``: Ctrl-C at the terminal and a ``kill``
    reach it from :func:`run_all` alone, as one SIGTERM (a second would cut the first's
    unwinding), and only while it runs a recipe (:func:`_timed_in_worker`); idle, it waits
    for the pool to close."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def _timed_in_worker(*arguments: Any) -> tuple[Path, float]:
    """:func:`_timed` in a worker: SIGTERM stops the recipe as Ctrl-C would, keeping every
    finished stage and the seconds spent."""
    with sigterm_as_interrupt():
        return _timed(*arguments)


def _timed(recipe: Recipe, out: Path, resume: bool, quiet: bool, made: dict[str, Path]
           ) -> tuple[Path, float]:
    """:func:`run`, and the recipe's seconds: this call's wall time and, on a resume, that
    of the calls a kill cut before it (each call adds its own to ``out/seconds.txt``, also
    when cut).

    Raises:
        ValueError: a damaged ``seconds.txt`` (and as :func:`run`).
    """
    spent = out / "seconds.txt"
    before = 0.0
    if resume and spent.is_file():
        try:
            before = float(spent.read_text())
        except ValueError:
            raise ValueError(f"{spent} is damaged (not a number of seconds); restore it, or "
                             "delete it and the recipe's time counts from this run") from None
    began = time.perf_counter()
    try:
        path = run(recipe, out, resume, quiet, made)
    finally:
        seconds = before + time.perf_counter() - began
        if out.is_dir():
            write_text(spent, f"{seconds:.1f}\n")
    return path, seconds
