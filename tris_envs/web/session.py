"""One game in the browser app: the position, its history, the seats, evaluations and
records.

A :class:`Session` holds everything one page (one tab) plays: the rules core with its
options, who sits in each seat (``"human"`` or an agent spec of
:func:`~tris_envs.agents.make_agent`), the state, and the game record in the harness's
format (:class:`~tris_envs.evaluation.records.GameRecord`), so a downloaded game opens in
``tris-envs replay`` and back in the page. The rules core says what is legal and how each
move is written; the page only shows what :meth:`Session.view` returns.

Every method takes the session's lock, so requests from one page are applied in order
and a view is never of a half-made move; an agent's search runs outside the lock
(:meth:`Session.agent_move`), so the page can still be read while the agent thinks, and
its move is dropped if the game changed meanwhile (a move, undo, swap or resignation).

A session made for a web page carries the server's :class:`Limits`: which agent specs it
plays (no files but from one folder, language models only on the operator's server), the
most each search or model may spend, and the most memory the session may hold.
"""

from __future__ import annotations

import dataclasses
import json
import math
import secrets
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tris_envs.agents import MCTSAgent, SolverAgent, make_agent
from tris_envs.agents.alphabeta import MAX_PLIES, AlphaBetaAgent
from tris_envs.agents.az import AZAgent
from tris_envs.agents.llm import LLMAgent, LLMServer, LLMSettings
from tris_envs.agents.protocol import Agent, Dialogue, Forfeit, Talking
from tris_envs.agents.solver_agent import outcome, result_text
from tris_envs.agents.spec import PLUGIN_FAMILIES, AgentSpec
from tris_envs.core.errors import brief
from tris_envs.core.game import CHANCE, TERMINAL, Game, sample_outcome, seeded_generator
from tris_envs.core.options import parse_options
from tris_envs.evaluation.records import GameRecord, replay_steps
from tris_envs.games import GAMES, game_spec, make_game
from tris_envs.play import SEAT_NAMES
from tris_envs.web.analysis import acting_player, analyse
from tris_envs.web.board import clicks, last_marks, status_line, won_marks
from tris_envs.web.svg import board_svg

HUMAN = "human"
"""The seat value for a person playing in the page."""


_ORDER = ("first", "second")
"""Each seat's turn at the start: seat 0 moves first."""


class Conflict(ValueError):
    """The game changed while an agent was thinking (a move, undo, swap or resignation)."""


class TooLarge(ValueError):
    """A game larger than a session may hold (:attr:`Limits.session_bytes`)."""


MOVE_BYTES = 2048
"""An upper estimate of the memory one recorded move costs a session: its state, undo
entry, position string and name (0.5 to 1 KiB measured with ``tracemalloc``)."""
SESSION_BYTES = 32 * 1024
"""An upper estimate of a session's memory before its first move (rules, seats, record)."""


@dataclass(frozen=True)
class Limits:
    """What the agents and the record of a session made for a web page may cost: the caps
    of ``tris-envs serve`` (a session made in Python has none).

    Attributes:
        simulations: The most simulations per move of ``mcts`` and ``az`` (with an ``az``
            network's own budget).
        seconds: The most seconds per move, also the deadline of every ``mcts``,
            ``alphabeta`` and ``az`` search given simulations or plies, of an
            evaluation's MCTS search, and of an ``llm`` agent's requests for one move (all
            its tries together).
        depth: The deepest ``alphabeta`` search (plies).
        files: The one folder agent files (``ppo:<path>``, ``az:<path>``) are read from,
            a relative path taken inside it; ``None``: no files, only the shipped agents.
        session_bytes: The most memory a session may hold (:meth:`Session.footprint`).
        llm: The server every ``llm`` agent asks (``tris-envs serve --llm-url``, with
            ``--llm-key``); ``None``: ``llm`` specs are refused. A spec's text never names
            a server.
    """

    simulations: int = 20_000
    seconds: float = 10.0
    depth: int = MAX_PLIES
    files: Path | None = None
    session_bytes: int = 4 << 20
    llm: LLMServer | None = None

    def __post_init__(self) -> None:
        for name, least in (("simulations", 1), ("depth", 1), ("session_bytes", SESSION_BYTES)):
            value = getattr(self, name)
            if type(value) is not int or value < least:
                raise ValueError(f"limit {name}={brief(value)} must be an integer >= {least}")
        if self.depth > MAX_PLIES:
            raise ValueError(f"limit depth={self.depth} (--max-depth) must be at most "
                             f"{MAX_PLIES} plies")
        if (isinstance(self.seconds, bool) or not isinstance(self.seconds, (int, float))
                or not 0 < self.seconds < float("inf")):
            raise ValueError(f"limit seconds={brief(self.seconds)} (--max-seconds) must be a "
                             "positive number")
        if self.files is not None and not Path(self.files).is_dir():
            raise ValueError(f"--allow-files {brief(str(self.files))}: no such folder")
        if self.llm is not None and not isinstance(self.llm, LLMServer):
            raise ValueError(f"limit llm={brief(self.llm)} must be an LLMServer or None")

    def admit(self, text: str) -> AgentSpec:
        """The spec ``text`` names, as the session builds it: the file it names (if any)
        resolved.

        An ``llm`` spec asks :attr:`llm`, the operator's server (a model's name holding a
        URL is refused: a page never names one); where it sets no
        ``timeout``, each of its requests gets an equal share of :attr:`seconds` (rounded
        down to the millisecond), so that all its tries end within the deadline.

        Raises:
            ValueError: no agent spec, an OpenSpiel spec (its search has no deadline), an
                ``az`` spec with search settings, a file while no folder is allowed, a
                file that resolves (``..``, links) outside it, an ``az`` file whose
                resolved path holds ``:``, an ``llm`` spec where the operator named no
                server, or one whose model's name holds ``://``.
        """
        spec = AgentSpec.parse(text)
        if spec.family in PLUGIN_FAMILIES:
            raise ValueError(f"{brief(text)}: OpenSpiel's agents are not played in the "
                             "browser app (their searches have no deadline); use tris-envs "
                             "eval or tournament")
        if spec.family == "llm":
            return self._served(spec)
        if spec.settings:
            raise ValueError(f"{brief(text)}: an az agent plays its network's search settings "
                             "in the browser app; use tris-envs eval or play to set them")
        if spec.path is None:
            return spec
        if self.files is None:
            raise ValueError(f"agent spec {brief(text)} names a file; this server plays only "
                             "the shipped agents (tris-envs serve --allow-files DIR plays "
                             "files in DIR)")
        folder = self.files.resolve()
        resolved = (folder / spec.path).resolve()
        if not resolved.is_relative_to(folder):
            raise ValueError(f"agent file {brief(spec.path)} lies outside {folder}, the one "
                             "folder this server reads agent files from (--allow-files)")
        return dataclasses.replace(spec, path=str(resolved))

    def _served(self, spec: AgentSpec) -> AgentSpec:
        """An ``llm`` spec asking the operator's server, its requests timed to the
        deadline where it sets no timeout."""
        if self.llm is None:
            raise ValueError(f"{brief(str(spec))}: this server plays no language models; the "
                             "operator starts tris-envs serve --llm-url URL to play them")
        if "://" in str(spec.model):
            raise ValueError(f"{brief(str(spec))}: a model's name holds no URL; this server "
                             "asks only the server its operator named (--llm-url)")
        told = dict(spec.settings)
        if "timeout" not in told:
            tries = 1 + int(told.get("retries", LLMSettings().retries))
            share = math.floor(self.seconds * 1000 / tries) / 1000
            if share <= 0:
                raise ValueError(f"{brief(str(spec))}: {tries} requests do not fit in "
                                 f"{self.seconds:g} s per move (tris-envs serve --max-seconds)")
            told["timeout"] = share
        return dataclasses.replace(spec, server=self.llm, settings=tuple(told.items()))

    def cap(self, agent: Agent, game: Game) -> None:
        """Refuse ``agent`` if its budget passes a cap; else give its search the deadline
        (:attr:`seconds`), and a timed ``mcts`` search the most simulations
        (:attr:`simulations`). An ``az`` agent's network must be loaded (its budget may be
        the network's).

        An ``llm`` agent is refused where its tries, each waiting up to its timeout, could
        take longer than :attr:`seconds` in all.

        Raises:
            ValueError: a budget over a cap, naming it and the server's option.
        """
        if isinstance(agent, LLMAgent):
            tries, timeout = 1 + agent.settings.retries, agent.settings.timeout
            if tries * timeout > self.seconds * (1 + 1e-9):      # 3 x 0.2 s fit in 0.6 s
                raise _over(agent, f"{tries} requests of up to {timeout:g} s per move",
                            f"{self.seconds:g} s", "--max-seconds")
            return
        timed = getattr(agent, "time_budget", None)
        if timed is not None and timed > self.seconds:
            raise _over(agent, f"{timed:g} s per move", f"{self.seconds:g} s", "--max-seconds")
        simulations = (agent.simulations if isinstance(agent, MCTSAgent)
                       else agent.budget(agent.network_for(game))
                       if isinstance(agent, AZAgent) else None)
        if simulations is not None and simulations > self.simulations:
            raise _over(agent, f"{simulations} simulations per move", str(self.simulations),
                        "--max-simulations")
        if isinstance(agent, MCTSAgent) and simulations is None:
            agent.simulations = self.simulations    # a timed search stops at the cap too
        if isinstance(agent, AlphaBetaAgent) and agent.plies > self.depth:
            if timed is None:
                raise _over(agent, f"{agent.plies} plies", str(self.depth), "--max-depth")
            agent.plies = self.depth         # the deepest iteration of a timed search
        if isinstance(agent, (MCTSAgent, AlphaBetaAgent, AZAgent)) and timed is None:
            agent.time_budget = self.seconds     # the deadline; the spec's budget may come first


def _over(agent: Agent, asked: str, most: str, option: str) -> ValueError:
    return ValueError(f"{agent.name} asks for {asked}; this server allows at most {most} "
                      f"(tris-envs serve {option})")


def _record_bytes(record: GameRecord) -> int:
    """An upper estimate of the memory a session holding ``record`` takes."""
    return (SESSION_BYTES + MOVE_BYTES * len(record.moves) + sum(map(len, record.players))
            + len(record.start))


@dataclass
class _Ply:
    """What undo restores: the state before a player's move and the record's length then."""

    state: Any
    moves: int
    evaluation: str


@dataclass
class Session:
    """One game played in the page.

    Attributes:
        game: The rules core with the session's options.
        seats: ``"human"`` or an agent spec per seat.
        agents: The agent of each seat (``None`` for a person).
        rng: Draws the dice and seeds the agents.
        state: The current position (a player to move, or the end).
        record: The game so far, chance outcomes included.
        move_names: Each recorded move in the game's notation.
        history: One entry per player move, for undo.
        resigned: The seat that resigned, if one did.
        evaluation: The last agent's own evaluation of its move ("" if it has none).
        id: The session's key in the server.
        lock: Held by every method (reentrant).
        limits: The server's caps (``None``: none).
        changes: Counts the changes to the game (moves, undos, swaps, resignations), so
            an agent's search finds out whether the game changed while it thought.
        opened: For a game opened from a file: its index among the file's games and
            their count.

    Dice a person rolls (Tritoc's) wait for :meth:`roll`; an agent's are rolled at once.
    """

    game: Game
    seats: list[str]
    agents: list[Agent | None]
    rng: np.random.Generator
    state: Any
    record: GameRecord
    move_names: list[str] = field(default_factory=list)
    history: list[_Ply] = field(default_factory=list)
    resigned: int | None = None
    evaluation: str = ""
    id: str = field(default_factory=lambda: secrets.token_urlsafe(12))
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False)
    limits: Limits | None = None
    changes: int = 0
    opened: tuple[int, int] | None = None

    # ----- construction ------------------------------------------------------------
    @classmethod
    def new(cls, game: str, options: list[str] | None = None,
            seats: tuple[str, str] = (HUMAN, "mcts"), seed: int | None = None,
            limits: Limits | None = None, position: str | None = None) -> Session:
        """A new game.

        Args:
            game: A game name of the registry (``"tant_fant"``).
            options: ``name=value`` strings, as ``tris-envs play --option`` takes them.
            seats: ``"human"`` or an agent spec for seat 0 (moves first) and seat 1.
            seed: Seed of the dice, the setup and the agents (``None``: fresh entropy).
            limits: The server's caps on the agents (``None``: none).
            position: A position string to start from (the game's notation) instead of
                the start.

        Raises:
            ValueError: an unknown game, option, option value or agent spec, an agent
                spec the limits refuse, the solver in a game (or phase) it cannot solve,
                or a position string the game refuses.
            FileNotFoundError: an agent file that does not exist, or no network shipped.
            ImportError: a ``ppo`` agent without the ``train`` extra.
        """
        rules = make_game(game, **parse_options(options))
        rng = np.random.default_rng() if seed is None else seeded_generator(seed)
        agents = _agents(rules, seats, rng, limits)
        state = rules.initial_state(rng) if position is None else rules.from_notation(position)
        record = GameRecord(rules.info.name, rules.options(), _names(agents),
                            rules.to_notation(state))
        session = cls(rules, list(seats), agents, rng, state, record, limits=limits)
        session._resolve_chance()
        if any(isinstance(agent, SolverAgent) for agent in agents):
            rules.solver_root(session.state)     # refuses a game or phase it cannot solve
        return session

    @classmethod
    def open(cls, text: str, seats: tuple[str, str] = (HUMAN, HUMAN),
             limits: Limits | None = None, index: int = 0) -> Session:
        """A session at the end of a recorded game (a line of a records file or a
        record's JSON; ``index``: which of a journal's games), every move checked by
        replaying it; the moves can be undone.

        Raises:
            ValueError: not a game record, one that does not replay, or no game
                ``index`` in the file.
            TooLarge: a record larger than the limits let a session hold (refused before
                it is replayed).
        """
        records = _parse_records(text)
        if type(index) is not int or not 0 <= index < len(records):
            raise ValueError(f"game {brief(index)}: the file holds games 0 to "
                             f"{len(records) - 1}")
        record = records[index]
        if limits is not None and _record_bytes(record) > limits.session_bytes:
            raise TooLarge(f"a game of {len(record.moves)} moves takes about "
                           f"{_record_bytes(record) >> 10} KiB, more than the "
                           f"{limits.session_bytes >> 10} KiB this server keeps per game")
        game = make_game(record.game, **record.options)
        rng = np.random.default_rng()
        agents = _agents(game, seats, rng, limits)
        steps = list(replay_steps(game, record))
        session = cls(game, list(seats), agents, rng, steps[0][0],
                      GameRecord(record.game, record.options, list(record.players),
                                 record.start), limits=limits,
                      opened=(index, len(records)))
        for state, actor, action in steps[1:]:
            if actor >= 0:
                session.history.append(_Ply(session.state, len(session.record.moves), ""))
            session._append(actor, action, state)
        return session

    # ----- what the page shows -------------------------------------------------------
    def to_move(self) -> int:
        """The seat to move, or :data:`~tris_envs.core.game.TERMINAL` when the game is
        over (finished, resigned or at its ply limit)."""
        if self.resigned is not None or self.truncated():
            return TERMINAL
        if self.game.current_player(self.state) == CHANCE:     # dice a person rolls
            return acting_player(self.game, self.state)
        return self.game.current_player(self.state)

    def truncated(self) -> bool:
        """Whether the game stopped unfinished at its ply limit (``max_moves``)."""
        return (self.game.current_player(self.state) != TERMINAL
                and len(self.history) >= self.game.info.max_moves)

    def view(self) -> dict[str, Any]:
        """Everything the page draws: picture, status, legal moves, move list, result."""
        with self.lock:
            return self._view()

    def footprint(self) -> int:
        """An upper estimate of the memory the session holds (bytes), from its moves and
        names (:data:`MOVE_BYTES` a move). Read without the lock, so that the server's
        sessions never wait for one of them; it may lag a move being made."""
        return _record_bytes(self.record)

    def _view(self) -> dict[str, Any]:
        game, state = self.game, self.state
        mover = self.to_move()
        legal = game.legal_actions(state) if mover >= 0 else []
        person = mover >= 0 and self.agents[mover] is None
        roll = person and game.current_player(state) == CHANCE
        picture = board_svg(game, state, status_line(game, state),
                            clicks(game, state) if person and not roll else (),
                            self._last_marks(len(self.record.moves), state),
                            won_marks(game, state), roll)
        return {
            "id": self.id, "game": game.info.name, "title": GAMES[game.info.name].title,
            "options": _json_options(game.options()), "seats": self.seats,
            "players": self.record.players, "position": game.to_notation(state),
            "svg": picture, "status": status_line(game, state), "roll": roll,
            "points": [ply.moves for ply in self.history] + [len(self.record.moves)],
            "opened": self.opened,
            "to_move": mover, "human_to_move": mover >= 0 and self.agents[mover] is None,
            "legal": [{"action": int(a), "name": game.action_name(state, a)} for a in legal],
            "moves": [{"actor": actor, "name": name}
                      for (actor, _), name in zip(self.record.moves, self.move_names)],
            "result": self.result(), "evaluation": self.evaluation,
            "can_undo": bool(self.history), "side": self.side(),
        }

    def side(self) -> str:
        """Who plays which side, in the game's own seat names (its status line's): "You
        play Black, second, against mcts.", "Two people: White first, Black second.",
        "Watching az as White, first, against mcts as Black, second." """
        names = SEAT_NAMES[self.game.info.name]
        players = self.record.players
        people = [seat for seat, agent in enumerate(self.agents) if agent is None]
        if len(people) == 2:
            return f"Two people: {names[0]} first, {names[1]} second."
        if people:
            seat = people[0]
            return (f"You play {names[seat]}, {_ORDER[seat]}, against "
                    f"{players[1 - seat]}.")
        return (f"Watching {players[0]} as {names[0]}, first, against {players[1]} as "
                f"{names[1]}, second.")

    def result(self) -> str:
        """How the game ended, in words ("" while it goes on)."""
        players = self.record.players
        if self.resigned is not None:
            return (f"{players[self.resigned]} (seat {self.resigned}) resigned: "
                    f"{players[1 - self.resigned]} wins")
        if self.truncated():
            return f"stopped after {len(self.history)} plies (max_moves): a draw"
        if self.game.current_player(self.state) != TERMINAL:
            return ""
        first, second = self.game.returns(self.state)
        if first == second:
            return "draw"
        winner = 0 if first > second else 1
        return f"{players[winner]} (seat {winner}) wins"

    def record_line(self) -> str:
        """The game record as one line of JSON (a ``--records`` journal line)."""
        with self.lock:
            record = self.record
            if self.to_move() == TERMINAL:
                if self.resigned is not None:
                    record.returns = (-1.0, 1.0) if self.resigned == 0 else (1.0, -1.0)
                elif self.truncated():
                    record.returns, record.truncated = (0.0, 0.0), True
                else:
                    first, second = self.game.returns(self.state)
                    record.returns = (float(first), float(second))
            return record.to_json() + "\n"

    # ----- moves ---------------------------------------------------------------------
    def play(self, action: Any) -> None:
        """A person's move.

        Raises:
            ValueError: the game is over, an agent is to move, or the move is illegal
                (:class:`~tris_envs.core.errors.IllegalActionError`, saying why).
        """
        with self.lock:
            mover = self._mover()
            if self.agents[mover] is not None:
                raise ValueError(f"seat {mover} is played by {self.seats[mover]}, not by you")
            if type(action) is not int:
                raise ValueError(f"a move is an action number, got {brief(action)}")
            if self.game.current_player(self.state) == CHANCE:
                raise ValueError("roll the dice first")
            self._move(mover, action, "")

    def roll(self) -> None:
        """Roll the dice for the person who is to roll them (Tritoc's roll).

        Raises:
            ValueError: no dice are to be rolled, or the game is over.
        """
        with self.lock:
            self._mover()
            if self.game.current_player(self.state) != CHANCE:
                raise ValueError("there are no dice to roll now: it is a move")
            self.changes += 1
            self._resolve_chance(rolled=True)

    def agent_move(self) -> None:
        """The move of the agent to move (its search runs without the lock). An agent
        that gives the game up (an ``llm`` agent with no legal reply:
        :class:`~tris_envs.agents.protocol.Forfeit`) resigns, saying why.

        Raises:
            ValueError: the game is over or a person is to move.
            Conflict: the game changed during the search (a move, undo, swap or
                resignation): the agent's move is not played.
        """
        with self.lock:
            mover = self._mover()
            agent = self.agents[mover]
            if agent is None:
                raise ValueError(f"seat {mover} is yours to move")
            if self.game.current_player(self.state) == CHANCE:     # a person's dice, swapped
                self.changes += 1
                self._resolve_chance(rolled=True)
                mover = self._mover()
                agent = self.agents[mover]
                if agent is None:
                    raise ValueError(f"seat {mover} is yours to move")
            state, changes, ply = self.state, self.changes, len(self.record.moves)
        try:
            action, evaluation = _act(agent, self.game, state, ply)
        except Forfeit as forfeit:
            action, evaluation = None, str(forfeit)
        with self.lock:
            if self.changes != changes:
                raise Conflict("the game changed while the agent was thinking (a move, undo, "
                               "swap or resignation): its move is not played")
            if action is None:
                self.resigned, self.evaluation = mover, evaluation
                self.changes += 1
                return
            self._move(mover, action, f"{agent.name}: {evaluation}" if evaluation else "")

    def undo(self) -> None:
        """Take back a resignation, else the moves back to the last position where a
        person was to move (both seats agents: one move). ``ValueError`` when there is
        nothing to undo."""
        with self.lock:
            self.changes += 1
            if self.resigned is not None:
                self.resigned = None
                return
            if not self.history:
                raise ValueError("nothing to undo: no move has been played")
            humans = {seat for seat, agent in enumerate(self.agents) if agent is None}
            ply = self.history.pop()
            while (humans and self.history
                   and self.game.current_player(ply.state) not in humans):
                ply = self.history.pop()
            self._restore(ply)

    def back_to(self, index: Any) -> None:
        """Take back every move after the first ``index`` recorded moves (a resignation
        too), to play on from there: a position where a player was to move (one of the
        view's ``points``).

        Raises:
            ValueError: ``index`` is no such position.
        """
        with self.lock:
            points = [k for k, ply in enumerate(self.history) if ply.moves == index]
            if type(index) is not int or not (points or index == len(self.record.moves)):
                raise ValueError(f"no position to play on from after {brief(index)} moves: "
                                 "choose one where a player was to move")
            self.changes += 1
            self.resigned = None
            if points:
                ply = self.history[points[0]]
                del self.history[points[0]:]
                self._restore(ply)

    def at(self, index: Any) -> dict[str, Any]:
        """The position after the first ``index`` recorded moves (0: the start), to look
        at: its picture (the move that led there outlined), status and position string.

        Raises:
            ValueError: ``index`` is not from 0 to the number of recorded moves.
        """
        with self.lock:
            state = self._position(self._index(index))
            game = self.game
            status = status_line(game, state)
            return {"index": index, "position": game.to_notation(state), "status": status,
                    "svg": board_svg(game, state, status, (), self._last_marks(index, state),
                                     won_marks(game, state))}

    def analyse(self, index: Any = None) -> dict[str, Any]:
        """The evaluation of the position (``index``: the one after that many recorded
        moves, as :meth:`at` shows it) and of every legal move, in one shape for every game
        (:func:`tris_envs.web.analysis.analyse`).

        Raises:
            ValueError: the game is over there, or ``index`` is no position of the game.
        """
        with self.lock:
            if index is None:
                self._mover()
                state = self.state
            else:
                state = self._position(self._index(index))
        return analyse(self.game, state, self.rng,
                       None if self.limits is None else self.limits.seconds)

    def resign(self, seat: Any) -> None:
        """``seat`` (the integer 0 or 1) gives up; ``ValueError`` if the game is over or
        ``seat`` is no seat."""
        with self.lock:
            self._mover()
            if type(seat) is not int or seat not in (0, 1):
                raise ValueError(f"seat must be the integer 0 or 1, got {brief(seat)}")
            self.resigned = seat
            self.changes += 1

    def swap(self) -> None:
        """The two seats change players (a person takes the agent's side)."""
        with self.lock:
            self.seats.reverse()
            self.agents.reverse()
            self.record.players.reverse()
            self.changes += 1

    # ----- internals -----------------------------------------------------------------
    def _restore(self, ply: _Ply) -> None:
        """Back to the position before the player move ``ply`` (its later moves dropped)."""
        self.state, self.evaluation = ply.state, ply.evaluation
        del self.record.moves[ply.moves:], self.record.positions[ply.moves:]
        del self.move_names[ply.moves:]
        self.record.returns, self.record.truncated = (0.0, 0.0), False

    def _mover(self) -> int:
        mover = self.to_move()
        if mover == TERMINAL:
            raise ValueError("the game is over: start a new game or undo")
        return mover

    def _move(self, mover: int, action: int, evaluation: str) -> None:
        if self.limits is not None and (self.footprint() + MOVE_BYTES
                                        > self.limits.session_bytes):
            raise TooLarge(f"this game holds {len(self.record.moves)} moves, about "
                           f"{self.footprint() >> 10} KiB, the most this server keeps per "
                           "game: download its record (tris-envs replay shows it)")
        after = self.game.apply(self.state, action)       # IllegalActionError says why
        self.changes += 1
        self.history.append(_Ply(self.state, len(self.record.moves), self.evaluation))
        self._append(mover, action, after)
        self.evaluation = evaluation
        self._resolve_chance()

    def _append(self, actor: int, action: int, after: Any) -> None:
        game, before = self.game, self.state
        name = (status_line(game, after) if actor == CHANCE      # Tritoc: "White rolled 7: ..."
                else game.played_name(before, action, after))
        self.record.moves.append((int(actor), int(action)))
        self.record.positions.append(game.to_notation(after))
        self.move_names.append(name)
        self.state = after

    def _resolve_chance(self, rolled: bool = False) -> None:
        """Roll the dice now due, unless a person rolls them (``rolled``: the person does)."""
        while self.game.current_player(self.state) == CHANCE:
            roller = acting_player(self.game, self.state)
            if not rolled and roller >= 0 and self.agents[roller] is None:
                return
            drawn = sample_outcome(self.game.chance_outcomes(self.state), self.rng.random())
            self._append(CHANCE, drawn, self.game.apply(self.state, drawn))

    def _last_marks(self, index: int, state: Any) -> list[Any]:
        """The places, in ``state``'s picture, of the last player move among the first
        ``index`` recorded moves."""
        last = next((i for i in range(index - 1, -1, -1) if self.record.moves[i][0] >= 0), None)
        if last is None:
            return []
        before = self._position(last)
        action = self.record.moves[last][1]
        return last_marks(self.game, before, action, self.game.apply(before, action))

    def _index(self, index: Any) -> int:
        """``index`` if it is a position of the game (0 to the recorded moves), else
        ``ValueError``."""
        if type(index) is not int or not 0 <= index <= len(self.record.moves):
            raise ValueError(f"position {brief(index)}: the game has positions 0 to "
                             f"{len(self.record.moves)}")
        return index

    def _position(self, index: int) -> Any:
        """The position after the first ``index`` recorded moves."""
        text = self.record.positions[index - 1] if index else self.record.start
        return self.game.from_notation(text)


def _agents(game: Game, seats: tuple[str, str] | list[str], rng: np.random.Generator,
            limits: Limits | None = None) -> list[Agent | None]:
    """The agents of the seats, their networks loaded now so a missing file is reported
    when the game is set up, not at the agent's first move; with ``limits``, specs and
    budgets they refuse are refused and the searches get their deadline."""
    if len(seats) != 2 or not all(isinstance(seat, str) for seat in seats):
        raise ValueError(f"seats must be two of 'human' or an agent spec, got {brief(seats)}")
    agents: list[Agent | None] = []
    for seat in seats:
        if seat == HUMAN:
            agents.append(None)
            continue
        agent = make_agent(seat if limits is None else limits.admit(seat), rng)
        for load in ("policy_for", "network_for"):
            if hasattr(agent, load):
                getattr(agent, load)(game)
        if limits is not None:
            limits.cap(agent, game)
        agents.append(agent)
    return agents


def _names(agents: list[Agent | None]) -> list[str]:
    return [HUMAN if agent is None else agent.name for agent in agents]


def _act(agent: Agent, game: Game, state: Any, ply: int) -> tuple[int, str]:
    """The agent's move (the game's move ``ply``) and, where it has one, its own
    evaluation of the position, or what its requests came to (a language model's)."""
    legal = game.legal_actions(state)
    if isinstance(agent, MCTSAgent) and len(legal) > 1:
        root = agent.search(game, state)            # what act() does, keeping the tree
        action = agent.best_action(root)
        chosen = next(child for child in root.children if child.action == action)
        if root.proven is not None:
            return action, f"proven {outcome(root.proven)}"
        share = chosen.visits / max(1, sum(child.visits for child in root.children))
        return action, (f"{share:.0%} of {agent.last_simulations} simulations, "
                        f"mean return {chosen.value:+.2f}")
    if isinstance(agent, SolverAgent):
        value, plies = agent.evaluate(game, state)
        return agent.act(game, state), result_text(value, plies)
    action = int(agent.act(game, state))
    if isinstance(agent, Talking):
        return action, _tries_text(agent.take_dialogue(game.current_player(state), ply))
    if hasattr(agent, "network_for"):
        _, values = agent.network_for(game).evaluate([state])
        return action, f"network value {float(values[0]):+.2f}"
    return action, ""


def _tries_text(dialogue: Dialogue | None) -> str:
    """What the requests for one move came to, where it took more than one try."""
    if dialogue is None or len(dialogue.tries) == 1:
        return ""
    count = len(dialogue.tries)
    if dialogue.outcome == "random":
        return f"no legal move in {count} tries: a random legal move"
    return f"a legal move at try {count} (before: {brief(dialogue.tries[-2].reason, 120)})"


def _json_options(options: dict[str, Any]) -> dict[str, Any]:
    return {name: list(value) if isinstance(value, tuple) else value
            for name, value in options.items()}


def _parse_records(text: str) -> list[GameRecord]:
    """The game records in ``text``: a record's JSON, journal lines, or a JSON list."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise ValueError("the file is empty: open a game record (.jsonl)")
    items: list[Any] = []
    for line in lines if not text.lstrip().startswith("[") else [text]:
        try:
            item = json.loads(line)
        except (json.JSONDecodeError, RecursionError) as error:
            raise ValueError(f"not a game record: {brief(str(error), 120)}") from None
        items.extend(item if isinstance(item, list) else [item])
    records = []
    for item in items:
        if isinstance(item, dict) and "record" in item:          # a journal entry
            data = item["record"]
            records.append(GameRecord.from_json(data) if isinstance(data, str)
                           else GameRecord.from_data(data))
        elif isinstance(item, dict) and "moves" in item:
            record = GameRecord.from_data(item)
            game_spec(record.game)
            records.append(record)
    if records:
        return records
    raise ValueError("no game record in the file (a line of tris-envs eval --records, or "
                     "the page's download)")
