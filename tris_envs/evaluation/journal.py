"""The journal of a match: every finished game appended to a file as it ends.

With ``records=path`` (:func:`~tris_envs.evaluation.play_match`,
:func:`~tris_envs.evaluation.round_robin`) every finished game is appended to ``path`` as one
JSON line the moment it ends (after a header line naming the game, the agents, the seed and
the games per pair), so an interrupted match loses nothing; ``resume=True`` reads the file
and plays only the games it lacks. The result equals an uninterrupted run's. The header
identifies an agent that plays a file (a PPO checkpoint, an AlphaZero network) by a hash of
the file's content (:func:`identify`), so a resume with another file of the same name is
refused; an existing journal is never overwritten unless ``overwrite=True``. Each game's
record holds the requests of the agents that ask a language model for their moves (its
``dialogues``) even where the match keeps no moves, so a resume asks no finished game's
prompts again.

A journal is locked while a match writes it (:func:`~tris_envs.durable.exclusive`: a second
match on the same file is refused), rewritten only whole (:func:`~tris_envs.durable.replaced`:
a resume drops a line cut short without ever leaving the file half written), and a game that
cannot be appended (a full disk) ends the match with :class:`JournalWriteError`, which names
the file, the games it keeps and how to continue.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tris_envs.agents.az import shipped_network
from tris_envs.agents.protocol import Agent
from tris_envs.core.game import Game
from tris_envs.durable import exclusive, write_text
from tris_envs.evaluation.engine import AgentSource, Schedule, build_agent
from tris_envs.evaluation.records import GameRecord


class JournalWriteError(OSError):
    """A finished game could not be appended to the journal (a full disk, say); the message
    names the file, the games it keeps and how to continue."""


@dataclass
class Journal:
    """The journal file of a match, the games it held when the run began (by task key) and
    the games it holds now (``kept``)."""

    path: Path
    done: dict[tuple[int, ...], tuple[int, GameRecord]]
    kept: int = 0

    @classmethod
    @contextlib.contextmanager
    def open(cls, path: str | Path | None, resume: bool, overwrite: bool, game: Game,
             names: list[str], files: list[str | None], seed: int, n_games: int,
             schedule: Schedule) -> Iterator[Journal | None]:
        """The journal at ``path`` begun afresh, or read back for ``resume`` (a line cut
        short ends it), locked over the block; ``None`` without a path.

        Raises:
            ValueError: ``resume`` without a path, a journal of another match, a file that
                holds games without ``resume`` or ``overwrite``, or one that another match
                is writing (:class:`~tris_envs.durable.Busy`).
            OSError: the journal cannot be written (it is then as it was).
        """
        if path is None:
            if resume:
                raise ValueError("resume needs the journal file of the interrupted run")
            yield None
            return
        path = Path(path)
        if path.is_dir():
            raise ValueError(f"{str(path)!r} is a folder: the journal is a file")
        with exclusive(path, "the journal"):
            yield cls._begun(path, resume, overwrite, game, names, files, seed, n_games,
                             schedule)

    @classmethod
    def _begun(cls, path: Path, resume: bool, overwrite: bool, game: Game, names: list[str],
               files: list[str | None], seed: int, n_games: int, schedule: Schedule) -> Journal:
        """:meth:`open`'s journal, once the lock is held."""
        header = {"game": game.info.name, "options": repr(sorted(game.options().items())),
                  "agents": names, "files": files, "seed": seed, "games": n_games}
        done: dict[tuple[int, ...], tuple[int, GameRecord]] = {}
        if resume:
            lines = cls._header_checked(path, header)
            for line in lines[1:]:
                try:
                    entry = json.loads(line)
                    key = tuple(entry["task"])
                    seat = entry["seat"]
                    if schedule.pair_index(key) is None or key in done or seat not in (0, 1):
                        raise ValueError("not a game of this match")
                    done[key] = (seat, GameRecord.from_json(entry["record"]))
                except (ValueError, KeyError, TypeError):
                    break   # a line cut short by the interruption: play that game again
            # whole, so that a line cut short is dropped and the next game starts a line
            cls._written(path, "\n".join(lines[:1 + len(done)]) + "\n", "it is unchanged")
        else:
            if not overwrite and _holds_data(path):
                raise ValueError(f"{str(path)!r} already exists: continue the run it records "
                                 "with --resume (resume=True), or overwrite it with --force "
                                 "(overwrite=True)")
            cls._written(path, json.dumps(header) + "\n", "no game was played")
        return cls(path, done, len(done))

    @staticmethod
    def _written(path: Path, text: str, kept: str) -> None:
        """``path`` replaced whole by ``text``; else an ``OSError`` naming it."""
        try:
            write_text(path, text)
        except OSError as error:
            raise OSError(f"cannot write the journal {str(path)!r} "
                          f"({error.strerror or error}): {kept}") from error

    @staticmethod
    def _header_checked(path: Path, header: dict[str, Any]) -> list[str]:
        """The journal's lines, once its header is this match's; else ``ValueError``."""
        try:
            lines = path.read_text().splitlines()
            found = json.loads(lines[0]) if lines else None
        except OSError as error:
            raise ValueError(f"cannot resume from {str(path)!r}: {error}") from None
        except ValueError:       # not UTF-8 text, or a first line that is not JSON
            found = None
        if found == header:
            return lines
        differ = ""
        if isinstance(found, dict) and found.get("game") is not None:
            fields = [name for name in header if found.get(name) != header[name]]
            if fields == ["files"] and found.get("agents") == header["agents"]:
                changed = [name for name, was, now in zip(
                    header["agents"], found.get("files") or [None] * len(header["agents"]),
                    header["files"]) if was != now]
                differ = (f" (the file played by {', '.join(changed)} is not the one the "
                          "journal was written with)")
            elif fields:
                differ = f" (it differs in: {', '.join(fields)})"
        raise ValueError(f"{str(path)!r} is not the journal of this match: its first line must "
                         "name the same game, options, agents (and the files they play), seed "
                         f"and games{differ}")

    def add(self, key: tuple[int, ...], seat: int, record: GameRecord) -> None:
        """Append one finished game.

        Raises:
            JournalWriteError: it could not be written (a line cut short, if any, is
                dropped by the resume the message names).
        """
        line = json.dumps({"task": list(key), "seat": seat, "record": record.to_json()})
        try:
            with self.path.open("a") as file:
                file.write(line + "\n")
        except OSError as error:
            raise JournalWriteError(
                f"cannot write to the journal {str(self.path)!r} ({error.strerror or error}): "
                f"its {self.kept} finished games are kept; make room, then continue with "
                f"--records {self.path} --resume (resume=True)") from error
        self.kept += 1


def _holds_data(path: Path) -> bool:
    """Whether ``path`` is a file with something in it (an empty file loses nothing)."""
    try:
        return path.stat().st_size > 0
    except OSError:
        return False


def identify(sources: Sequence[AgentSource],
             game: Game | None) -> tuple[list[str], list[str | None]]:
    """Each agent's unique name, and a hash of the content of the file it plays in ``game``
    (a PPO checkpoint, an AlphaZero network; ``None`` for an agent that plays no file)."""
    names: list[str] = []
    files: list[str | None] = []
    for source in sources:
        agent = build_agent(source, np.random.default_rng(0))
        name = agent.name
        copies = sum(n == name or n.startswith(name + "#") for n in names)
        names.append(name if copies == 0 else f"{name}#{copies + 1}")
        files.append(_content_hash(_played_file(agent, game)) if game is not None else None)
    return names, files


def _played_file(agent: Agent, game: Game) -> Path | None:
    """The file whose weights ``agent`` plays ``game`` with, if any."""
    if hasattr(agent, "checkpoint_for"):                           # PPOAgent
        return agent.checkpoint_for(game)
    if hasattr(agent, "network_for") and hasattr(agent, "network"):  # AZAgent
        network = agent.network
        if isinstance(network, (str, Path)):
            return Path(network)
        if network is None:
            try:
                return shipped_network(game)
            except FileNotFoundError:
                return None
    return None


def _content_hash(path: Path | None) -> str | None:
    """``sha256:<first 16 hex digits>`` of the file's bytes; ``None`` without a readable
    file (the error then comes when the agent loads it)."""
    if path is None:
        return None
    digest = hashlib.sha256()
    try:
        with Path(path).open("rb") as file:
            for block in iter(lambda: file.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        return None
    return f"sha256:{digest.hexdigest()[:16]}"
