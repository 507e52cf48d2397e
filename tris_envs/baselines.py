"""``tris-envs baselines``: every model-free learner trained on every game at one stated
budget, then played against the ladder; one table, JSON and Markdown, with its provenance.

A *cell* is one learner on one game. Each runs as a process of its own: the learner's
script (:data:`LEARNERS`) with the cell contract of :mod:`tris_envs.evaluation.cell`
(``--game G --budget STEPS --seed S --games N --opponents ... --json PATH``), its output in
``cells/<learner>-<game>.log`` beside the table. A crash or a kill of one cell loses
nothing else: each finished cell goes into the table at once (``baselines.json`` and
``baselines.md``, each replaced whole: :func:`tris_envs.durable.write_text`), and
``--resume`` runs only the cells the table lacks (or that failed, or could not run).

A learner whose library is missing, whose environment (AgileRL's ``.venv-agilerl``) is
absent, or whose script is not here (the scripts in ``examples/`` come with a checkout of
the repository, not with the wheel) gets its row with the reason, and the other cells run.

The budget is *learner steps*: the moves the learning policy makes in its training games
(both seats of a self-play game, its own seat against a fixed opponent), the same for every
cell; each script stops at a whole rollout or update and reports the steps it trained on,
which the table gives beside its training time.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from tris_envs.durable import write_text
from tris_envs.evaluation.cell import CellError, check_cell, ladder, read_cell
from tris_envs.games import GAMES
from tris_envs.machine import describe, package_version
from tris_envs.progress import Progress, duration_text

ROOT = Path(__file__).resolve().parents[1]
"""The checkout the package runs from (where ``examples/`` is, if anywhere)."""

TABLE = "baselines.json"
"""The table's file in ``--out`` (the Markdown beside it: :data:`MARKDOWN`)."""

MARKDOWN = "baselines.md"

CELLS = "cells"
"""The folder of ``--out`` where each cell's process writes its JSON and its log."""


@dataclass(frozen=True)
class Learner:
    """One row family of the table: a learner and the script that trains it.

    Attributes:
        name: Its name in the table and on the command line (``cleanrl_ppo``).
        label: Its name for people (``CleanRL PPO``).
        what: What it is, in a line (the docs' page lists them).
        command: What follows the interpreter: ``("-m", module)``, or a script of the
            checkout (``("examples/cleanrl_ppo.py",)``, the one part ending in ``.py``).
        needs: The modules the interpreter must find.
        setup: How to get them.
        python: An interpreter of its own in the checkout (``.venv-agilerl/bin/python``);
            ``None``: this one.
    """

    name: str
    label: str
    what: str
    command: tuple[str, ...]
    needs: tuple[str, ...]
    setup: str
    python: str | None = None

    def script(self) -> Path | None:
        """The checkout's script it runs, or ``None`` (a module of the package)."""
        return ROOT / self.command[0] if self.command[0].endswith(".py") else None

    def missing(self) -> str | None:
        """Why it cannot run here, or ``None``."""
        script = self.script()
        if script is not None and not script.is_file():
            return (f"{self.command[0]} is not here (the learner scripts come with a checkout "
                    "of the repository, not with the wheel)")
        if self.python is not None:
            environment = (ROOT / self.python).parents[1]
            if not (environment / ".installed").is_file():    # the Makefile's last step
                return (f"{self.setup}'s environment ({environment.name}) is absent or not "
                        "fully installed")
            return None
        for module in self.needs:
            if importlib.util.find_spec(module) is None:
                return f"{module} is not installed ({self.setup})"
        return None

    def argv(self, game: str, settings: Settings, json_path: Path) -> list[str]:
        """The command line of its cell on ``game``."""
        python = sys.executable if self.python is None else str(ROOT / self.python)
        command = [str(ROOT / part) if part.endswith(".py") else part for part in self.command]
        return [python, *command, "--game", game, "--budget", str(settings.budget),
                "--seed", str(settings.seed), "--games", str(settings.games),
                "--opponents", ",".join(ladder(game)), "--json", str(json_path)]


LEARNERS: tuple[Learner, ...] = (
    Learner("sb3_ppo", "SB3 MaskablePPO",
            "Stable-Baselines3's MaskablePPO as tris-envs train ppo trains it: the game's "
            "shipped config, self-play snapshots and the scripted ladder as opponents",
            ("-m", "tris_envs.ppo.baseline"), ("torch", "sb3_contrib"),
            'pip install "tris_envs[train]"'),
    Learner("cleanrl_ppo", "CleanRL PPO",
            "a one-file CleanRL-style masked PPO on the vector env, against random, greedy "
            "and its own snapshots", ("examples/cleanrl_ppo.py",), ("torch",),
            'pip install "tris_envs[train]"'),
    Learner("jax_ppo", "JAX PPO",
            "PPO self-play written in JAX over tris_envs.jax (PureJaxRL style)",
            ("examples/jax_ppo.py",), ("jax", "optax"), 'pip install "tris_envs[jax]"'),
    Learner("tianshou_dqn", "Tianshou DQN",
            "Tianshou 2's masked DQN through its PettingZoo path, against a random player",
            ("examples/tianshou_dqn.py",), ("torch", "tianshou"),
            'pip install "tris_envs[tianshou]"'),
    Learner("torchrl_ppo", "TorchRL PPO",
            "masked PPO through TorchRL's PettingZooWrapper, against a random player",
            ("examples/torchrl_ppo.py",), ("torch", "torchrl"),
            'pip install "tris_envs[torchrl]"'),
    Learner("rllib_ppo", "RLlib PPO",
            "RLlib's action-masking PPO (new API stack), self-play against a frozen copy",
            ("examples/rllib_self_play.py",), ("torch", "ray"), 'pip install "tris_envs[rllib]"'),
    Learner("agilerl_dqn", "AgileRL DQN",
            "AgileRL's DQN by self-play, one network in both seats",
            ("examples/agilerl_dqn.py",), (), "make agilerl",
            python=".venv-agilerl/bin/python"),
)
"""Every model-free learner of the table, in its row order."""

GAME_ORDER = ("tris1", "tant_fant", "doppia_scelta", "tris2", "tritoc")
"""The games of the table, in its order (the default selection)."""

BUDGET = 100_000
"""The default learner steps of a cell."""

GAMES_PER_OPPONENT = 200
"""The default games of each match."""

QUICK_BUDGET, QUICK_GAMES, QUICK_GAME_NAMES = 300, 4, ("tris1", "tant_fant")
"""What ``--quick`` (the smoke run) sets where ``--budget``, ``--games`` and ``--game`` are
not given: a few hundred learner steps, four games per opponent, two games."""


@dataclass(frozen=True)
class Settings:
    """What every cell of one table shares: a resumed table keeps them."""

    budget: int = BUDGET
    games: int = GAMES_PER_OPPONENT
    seed: int = 0
    quick: bool = False


@dataclass
class Table:
    """A table being made: its settings, its runs (one per start or resume) and its cells
    (``(learner, game)`` -> the cell's record)."""

    settings: Settings
    runs: list[dict[str, Any]] = field(default_factory=list)
    cells: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The table as ``baselines.json`` holds it, cells in row order."""
        return {"what": "tris-envs baselines: model-free learners trained at one budget, "
                        "played against the ladder",
                "settings": asdict(self.settings), "runs": self.runs,
                "cells": [self.cells[key] for key in sorted(self.cells, key=_order)]}

    def save(self, out: Path) -> None:
        """Write ``baselines.json`` and ``baselines.md`` into ``out``, each replaced whole."""
        write_text(out / TABLE, json.dumps(self.to_json(), indent=2) + "\n")
        write_text(out / MARKDOWN, markdown(self))


def _order(key: tuple[str, str]) -> tuple[int, int]:
    learners = [learner.name for learner in LEARNERS]
    learner, game = key
    return (learners.index(learner) if learner in learners else len(learners),
            GAME_ORDER.index(game) if game in GAME_ORDER else len(GAME_ORDER))


def absent_scripts(learners: Sequence[Learner]) -> list[Learner]:
    """Those of ``learners`` whose script is not here (outside a checkout)."""
    return [learner for learner in learners
            if (script := learner.script()) is not None and not script.is_file()]


def learners_named(text: str | None) -> list[Learner]:
    """The learners of ``--learners`` (comma-separated names; ``None``: all).

    Raises:
        ValueError: an unknown name, or none.
    """
    if text is None:
        return list(LEARNERS)
    by_name = {learner.name: learner for learner in LEARNERS}
    names = [name.strip() for name in text.split(",") if name.strip()]
    for name in names:
        if name not in by_name:
            raise ValueError(f"--learners: no learner {name!r} (the learners: "
                             f"{', '.join(by_name)})")
    if not names:
        raise ValueError(f"--learners {text!r} names no learner")
    return [by_name[name] for name in dict.fromkeys(names)]


def games_named(text: str | None, quick: bool = False) -> list[str]:
    """The games of ``--game`` (comma-separated; ``None``: :data:`GAME_ORDER`, or
    :data:`QUICK_GAME_NAMES` with ``quick``).

    Raises:
        ValueError: an unknown game, or none.
    """
    if text is None:
        return list(QUICK_GAME_NAMES if quick else GAME_ORDER)
    names = [name.strip() for name in text.split(",") if name.strip()]
    for name in names:
        if name not in GAMES:
            raise ValueError(f"--game: no game {name!r} (the games: {', '.join(GAMES)})")
    if not names:
        raise ValueError(f"--game {text!r} names no game")
    return list(dict.fromkeys(names))


def open_table(out: Path, settings: Settings, given: dict[str, bool], resume: bool,
               force: bool) -> Table:
    """The table to fill in ``out``: a new one, or with ``resume`` the one there, whose
    settings must agree with the flags ``given`` (the others come from the file).

    Raises:
        ValueError: a table there without ``resume`` or ``force``; ``resume`` with no table
            there, an unreadable one, or settings that differ from the flags given.
    """
    path = out / TABLE
    if resume and force:
        raise ValueError("give --resume (continue the table) or --force (start it again), "
                         "not both")
    if not resume:
        if path.exists() and not force:
            raise ValueError(f"{path} holds a table: --resume continues it, --force starts it "
                             "again")
        return Table(settings)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        kept = Settings(**data["settings"])
        runs = list(data["runs"])
        cells = {(cell["learner"], cell["game"]): cell for cell in data["cells"]}
    except FileNotFoundError:
        raise ValueError(f"--resume: no table to continue in {out} ({TABLE} is absent)"
                         ) from None
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(f"{path}: not a table of tris-envs baselines ({error!r})") from None
    for name, kind in (("budget", int), ("games", int), ("seed", int), ("quick", bool)):
        value = getattr(kept, name)
        if type(value) is not kind:
            raise ValueError(f"{path}: settings.{name} is {value!r}, not {kind.__name__}")
    for key, cell in cells.items():
        _check_record(cell, f"{path}: the cell {key[0]} on {key[1]}")
    for name, was_given in given.items():
        if not was_given or getattr(settings, name) == getattr(kept, name):
            continue
        if name == "quick":
            raise ValueError(f"{path} is a full table, not a --quick one: resume it without "
                             "--quick, or give another --out")
        raise ValueError(f"{path} was made with {name} {getattr(kept, name)}: resume it with "
                         f"the same --{name} (or without it), or give another --out")
    return Table(kept, runs, cells)


def _check_record(cell: dict[str, Any], where: str) -> None:
    """A cell of a table read back: a finished one has a cell file's fields, the others
    their reason.

    Raises:
        ValueError: a field missing or of the wrong type.
    """
    for name in ("learner", "game", "status"):
        if not isinstance(cell.get(name), str):
            raise ValueError(f"{where}: the field {name!r} is {cell.get(name)!r}, not str")
    if cell["status"] == "done":
        check_cell(cell, where)
    elif cell["status"] in ("failed", "not run"):
        if not isinstance(cell.get("reason"), str):
            raise ValueError(f"{where}: the field 'reason' is {cell.get('reason')!r}, not str")
    else:
        raise ValueError(f"{where}: the status {cell['status']!r} is not done, failed or "
                         "not run")


def run(learners: Sequence[Learner], games: Sequence[str], table: Table, out: Path,
        command: str, processes: int = 1, quiet: bool = False,
        report: Callable[[str], None] | None = None) -> Table:
    """Fill ``table`` in ``out``: every cell of ``learners`` x ``games`` it lacks, or that
    failed or could not run, ``processes`` at a time, each saved as it ends.

    Args:
        command: The command line, for the provenance.
        report: Receives a line per finished cell (default: printed, around the progress).

    Raises:
        ValueError: ``processes`` below 1.
        OSError: ``out`` cannot be written.
        KeyboardInterrupt: Ctrl-C or SIGTERM, once the running cells are stopped (the
            finished ones are in the table).
    """
    if processes < 1:
        raise ValueError(f"--processes {processes} must be at least 1")
    (out / CELLS).mkdir(parents=True, exist_ok=True)
    began = time.perf_counter()
    entry: dict[str, Any] = {
        "command": command, "started": _now(), "machine": describe(),
        "tris_envs": package_version(), "processes": processes, "wall_seconds": 0.0,
        "cells": 0}
    table.runs.append(entry)
    table.save(out)
    todo = [(learner, game) for learner in learners for game in games
            if table.cells.get((learner.name, game), {}).get("status") != "done"]
    running: dict[subprocess.Popen[bytes], tuple[Learner, str, float]] = {}
    with Progress("baselines", len(todo), "cells", quiet=quiet) as progress:
        say = report or progress.write

        def finish(learner: Learner, game: str, record: dict[str, Any]) -> None:
            table.cells[(learner.name, game)] = record
            entry["cells"] += 1
            entry["wall_seconds"] = round(time.perf_counter() - began, 1)
            table.save(out)
            say(cell_line(learner, record))
            progress.advance()

        try:
            while todo or running:
                while todo and len(running) < processes:
                    learner, game = todo.pop(0)
                    reason = learner.missing()
                    if reason is not None:
                        finish(learner, game, _not_run(learner, game, table.settings, reason))
                        continue
                    running[_start(learner, game, table.settings, out)] = (
                        learner, game, time.perf_counter())
                    progress.note(_running(running.values()))
                for process in [p for p in running if p.poll() is not None]:
                    learner, game, started = running.pop(process)
                    progress.note(_running(running.values()))
                    finish(learner, game, _ended(learner, game, table.settings, out, process,
                                                 time.perf_counter() - started))
                if running:
                    time.sleep(0.2)
        except BaseException:
            for process in running:
                _stop(process)
            raise
    entry["wall_seconds"] = round(time.perf_counter() - began, 1)
    table.save(out)
    return table


def _running(cells: Iterable[tuple[Learner, str, float]]) -> str:
    """The progress note: the cells running."""
    names = [f"{learner.name} on {game}" for learner, game, _ in cells]
    return "running " + ", ".join(names) if names else ""


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _paths(learner: Learner, game: str, out: Path) -> tuple[Path, Path]:
    """A cell's JSON and log."""
    stem = out / CELLS / f"{learner.name}-{game}"
    return stem.with_suffix(".json"), stem.with_suffix(".log")


def _start(learner: Learner, game: str, settings: Settings, out: Path
           ) -> subprocess.Popen[bytes]:
    """A cell's process, started (in a session of its own, so that stopping it stops what
    it started), its output to its log."""
    json_path, log_path = _paths(learner, game, out)
    json_path.unlink(missing_ok=True)
    argv = learner.argv(game, settings, json_path)
    with open(log_path, "w", encoding="utf-8") as log:
        log.write(shlex.join(argv) + "\n")
        log.flush()
        return subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL,
                                env={**os.environ, "PYTHONUNBUFFERED": "1"},
                                start_new_session=hasattr(os, "killpg"))


def _stop(process: subprocess.Popen[bytes]) -> None:
    """End a cell's process and what it started (SIGTERM, then SIGKILL after 10 s)."""
    for kind, wait in ((signal.SIGTERM, 10.0), (getattr(signal, "SIGKILL", signal.SIGTERM),
                                                  5.0)):
        try:
            if hasattr(os, "killpg"):
                os.killpg(process.pid, kind)
            else:                                               # pragma: no cover
                process.send_signal(kind)
        except ProcessLookupError:
            return
        try:
            process.wait(wait)
            return
        except subprocess.TimeoutExpired:
            continue


def _base(learner: Learner, game: str, settings: Settings) -> dict[str, Any]:
    return {"learner": learner.name, "game": game, "budget": settings.budget}


def _not_run(learner: Learner, game: str, settings: Settings, reason: str) -> dict[str, Any]:
    return {**_base(learner, game, settings), "status": "not run", "reason": reason,
            "date": _now()}


def _ended(learner: Learner, game: str, settings: Settings, out: Path,
           process: subprocess.Popen[bytes], seconds: float) -> dict[str, Any]:
    """The record of a cell whose process has ended: its cell file's, or why it failed."""
    json_path, log_path = _paths(learner, game, out)
    log = log_path.relative_to(out).as_posix()
    failed = {**_base(learner, game, settings), "status": "failed",
              "wall_seconds": round(seconds, 1), "log": log, "date": _now()}
    if process.returncode != 0:
        return {**failed, "reason": f"exit status {process.returncode}: "
                                    f"{_last_line(log_path)} (see {log})"}
    try:
        cell = read_cell(json_path)
    except CellError as error:
        return {**failed, "reason": str(error)}
    if cell["game"] != game or cell["games"] != settings.games or cell["seed"] != settings.seed:
        return {**failed, "reason": f"{json_path.name} is a cell of {cell['game']}, "
                                    f"{cell['games']} games, seed {cell['seed']}"}
    return {**cell, "learner": learner.name, "status": "done",
            "wall_seconds": round(seconds, 1), "log": log}


def _last_line(path: Path, most: int = 300) -> str:
    """The last line of a log that says something, at most ``most`` characters."""
    try:
        lines = [line.strip() for line in path.read_text(errors="replace").splitlines()]
    except OSError as error:
        return f"no log ({error.strerror})"
    said = [line for line in lines if line]
    line = said[-1] if said else "no output"
    return line if len(line) <= most else line[:most - 3] + "..."


def cell_line(learner: Learner, cell: dict[str, Any]) -> str:
    """A finished cell in one line: its scores, or why it has none."""
    where = f"{learner.label} on {GAMES[cell['game']].title}"
    if cell["status"] != "done":
        return f"{where}: {cell['status']}: {cell['reason']}"
    scores = ", ".join(f"{r['opponent']} {r['score']:.1%}" for r in cell["results"])
    return (f"{where}: {cell['steps']:,} steps in {duration_text(cell['train_seconds'])}; "
            f"{scores} ({duration_text(cell['wall_seconds'])} in all)")


# ----- the Markdown table ----------------------------------------------------------------------
def markdown(table: Table) -> str:
    """The table as Markdown: a section per game, a row per learner, the provenance last."""
    s = table.settings
    lines = ["# Model-free baselines", ""]
    if s.quick:
        lines += ["**Smoke run** (`--quick`): a few hundred learner steps per cell and "
                  f"{s.games} games per opponent, to show that every learner runs; its "
                  "scores measure nothing.", ""]
    lines += [f"Budget: {s.budget:,} learner steps per cell (the moves the learning policy "
              "makes in its training games; each learner stops at a whole rollout or "
              "update, and its row gives the steps it trained on and its training time). "
              f"Then {s.games} games against each opponent, seats alternating, "
              f"match seed {s.seed}, the policy's most probable legal move, no search. "
              "Score: wins plus half the draws, with its 95% interval (Wilson). "
              "Value-keeping moves: the share of the learner's moves, over all its games, "
              "that keep the solver's game value (games with a solver).", ""]
    names = {learner.name: learner.label for learner in LEARNERS}
    games = [g for g in GAME_ORDER if any(game == g for _, game in table.cells)]
    games += sorted({game for _, game in table.cells} - set(games))
    for game in games:
        opponents = ladder(game)
        solvable = GAMES[game].solvable
        header = ["learner", "budget", "steps", "training"] + [f"vs {o}" for o in opponents]
        header += ["value-keeping moves"] if solvable else []
        lines += [f"## {GAMES[game].title}", "", "| " + " | ".join(header) + " |",
                  "|---|" + "---:|" * (len(header) - 1)]
        for key in sorted((k for k in table.cells if k[1] == game), key=_order):
            cell = table.cells[key]
            row = [names.get(cell["learner"], cell["learner"]), f"{cell['budget']:,}"]
            if cell["status"] != "done":
                reason = str(cell["reason"]).replace("|", "\\|")
                row += [f"{cell['status']}: {reason}"] + [""] * (len(header) - 3)
            else:
                by_opponent = {r["opponent"]: r for r in cell["results"]}
                row += [f"{cell['steps']:,}", duration_text(cell["train_seconds"])]
                row += [_score(by_opponent.get(o)) for o in opponents]
                if solvable:
                    row.append(_kept(cell["results"]))
            lines.append("| " + " | ".join(row) + " |")
        lines.append("")
    lines.append(provenance(table))
    return "\n".join(lines) + "\n"


def _score(result: dict[str, Any] | None) -> str:
    if result is None:
        return "—"
    low, high = result["interval"]
    return f"{result['score']:.1%} [{low:.1%}, {high:.1%}]"


def _kept(results: list[dict[str, Any]]) -> str:
    """The value-keeping share over all the cell's games (each match's share weighted by
    its judged moves)."""
    judged = sum(r["judged"] for r in results if r["value_kept"] is not None)
    if not judged:
        return "—"
    kept = sum(r["value_kept"] * r["judged"] for r in results if r["value_kept"] is not None)
    return f"{kept / judged:.1%}"


def provenance(table: Table) -> str:
    """One line: the commands that made the table, where, when, how long."""
    if not table.runs:
        return ""
    first, last = table.runs[0], table.runs[-1]
    wall = sum(r.get("wall_seconds", 0.0) for r in table.runs)
    machines = sorted({r["machine"] for r in table.runs})
    resumed = (f", resumed {len(table.runs) - 1} time{'s' * (len(table.runs) > 2)} "
               f"(last {last['started'][:10]})") if len(table.runs) > 1 else ""
    return (f"Made by `{first['command']}` on {first['started'][:10]}{resumed}, "
            f"{duration_text(wall)} in all, tris_envs {last['tris_envs']}, on "
            f"{'; '.join(machines)}.")
