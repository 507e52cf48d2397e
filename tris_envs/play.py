"""``tris-envs play``: a person against an agent in the terminal.

The board is printed with its coordinates as the game's ``render_text`` draws it (Tris 2's
dice with their side faces, Tritoc's roll as two dice); moves are typed in each game's short
notation (:meth:`~tris_envs.core.game.Game.action_name`): Tant Fant ``b1-b2``, Tris 1 ``row,col``,
Tris 2 the die's cell and direction ``row,col D`` (``row,col XO/`` while placing), Tritoc
the hole ``row,col`` or ``pass``, Doppia scelta ``left`` / ``straight`` / ``right``
(``row,col Y`` while coloring). The agent's moves are announced, and the board's status
line shows the last move, in the same notation; the longer descriptions the board prints
(Doppia scelta's ``turn right (red)``) are accepted too. Commands: ``moves``, ``hint``,
``help``, ``quit``. In a terminal the prompt has line editing and history (``readline``),
and the final status line (the result, with the winning line) is printed in bold.

The session names the person's seat (White, X, ...) and, where the exact solver covers the
start (Tant Fant, Tris 1, Doppia scelta's moves), its value under perfect play; every prompt
names the seat again (``you play Black, second; your move>``). ``hint``
lists every legal move with its value, the best first (:func:`move_values`): by the solver
its result under perfect play (``win in 5 plies``, ``draw``, ``loss in 8 plies``), else by
an MCTS search of :data:`HINT_SIMULATIONS` simulations its mean return and share of the
visits. A move that gives up the position's value by the solver is played only when typed
a second time, after a warning that names the moves keeping it (``warn=False``,
``tris-envs play --no-warn``: played at once).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from tris_envs.agents import AgentSpec, MCTSAgent, make_agent
from tris_envs.agents.protocol import Forfeit
from tris_envs.agents.solver_agent import move_result, result_text, solution_for
from tris_envs.core.game import TERMINAL, Game, resolve_chance, seeded_generator
from tris_envs.games import GAMES
from tris_envs.games.doppia_scelta import PLAYER_NAMES as DOPPIA_SCELTA_NAMES
from tris_envs.games.tant_fant import COLOR_NAMES as TANT_FANT_COLORS
from tris_envs.games.tris1 import SYMBOLS as TRIS1_SYMBOLS
from tris_envs.games.tris2 import PLAYER_NAMES as TRIS2_NAMES
from tris_envs.games.tritoc import COLOR_NAMES as TRITOC_COLORS

HELP = ("Type a move ({example}), or: moves (list the legal moves), hint (every legal "
        "move's value), help, quit.")
HINT_SIMULATIONS = 2000
_BOLD, _RESET = "\x1b[1m", "\x1b[0m"

SEAT_NAMES: dict[str, tuple[str, str]] = {
    "tris2": TRIS2_NAMES, "tris1": TRIS1_SYMBOLS, "tant_fant": TANT_FANT_COLORS,
    "doppia_scelta": DOPPIA_SCELTA_NAMES, "tritoc": TRITOC_COLORS}
"""The name of each seat, by game, as its board and status line show it."""


@dataclass(frozen=True)
class MoveValue:
    """What one legal move is worth to the player who makes it.

    Attributes:
        action: The move.
        name: Its short notation (:meth:`~tris_envs.core.game.Game.action_name`).
        value: By the solver: the result under perfect play after it, +1, 0 or -1; by the
            search: its mean return in [-1, 1].
        plies: By the solver: plies to the end under perfect play, this move included
            (``-1``: a draw). By the search: ``-1``.
        share: By the search: its share of the root's visits; by the solver ``None``.
    """

    action: int
    name: str
    value: float
    plies: int = -1
    share: float | None = None

    def text(self) -> str:
        """``win in 3 plies``, ``draw``, ``loss in 8 plies``; or the search's
        ``value +0.32, 41% of the visits``."""
        if self.share is None:
            return result_text(int(self.value), self.plies)
        return f"value {self.value:+.2f}, {self.share:.0%} of the visits"


def move_values(game: Game, state: Any, rng: np.random.Generator) -> tuple[str, list[MoveValue]]:
    """Every legal move's value for the player to move, in legal-action order, and who
    judged them: ``"solver"`` where the exact solver covers the position, else an MCTS
    search of :data:`HINT_SIMULATIONS` simulations (``"mcts:2000"``)."""
    if GAMES[game.info.name].solvable:
        with contextlib.suppress(ValueError):       # a phase the solver does not cover
            return "solver", [solved_move(game, state, a) for a in game.legal_actions(state)]
    search = MCTSAgent(HINT_SIMULATIONS, rng=rng)
    children = {child.action: child for child in search.search(game, state).children}
    total = sum(child.visits for child in children.values()) or 1
    moves = []
    for action in game.legal_actions(state):
        child = children.get(action)
        moves.append(MoveValue(action, game.action_name(state, action),
                               child.value if child else 0.0,
                               share=child.visits / total if child else 0.0))
    return f"mcts:{HINT_SIMULATIONS}", moves


def solved_move(game: Game, state: Any, action: int) -> MoveValue:
    """``action``'s result under perfect play for the player to move in ``state``.

    Raises:
        ValueError: the solver does not cover the position after it.
    """
    value, plies = move_result(game, state, action, game.current_player(state))
    return MoveValue(int(action), game.action_name(state, action), value, plies)


def best_first(moves: list[MoveValue]) -> list[MoveValue]:
    """The moves from the best: by value (a win sooner, a loss later), or by visits."""
    def rank(move: MoveValue) -> tuple[float, float]:
        if move.share is not None:
            return (-move.share, -move.value)
        plies = move.plies if move.plies >= 0 else 0
        return (-move.value, plies if move.value > 0 else -plies)
    return sorted(moves, key=rank)


def hint_lines(game: Game, state: Any, rng: np.random.Generator) -> list[str]:
    """The ``hint`` command's answer: the best move first, then every legal move's value."""
    source, moves = move_values(game, state, rng)
    moves = best_first(moves)
    seat = SEAT_NAMES[game.info.name][game.current_player(state)]
    how = ("under perfect play" if source == "solver"
           else "the search's mean return and share of its visits")
    lines = [f"hint ({source}): {moves[0].name}; every move for {seat}, {how}:"]
    width = max(len(move.name) for move in moves)
    lines += [f"  {move.name:<{width}}  {move.text()}" for move in moves]
    return lines


def play_session(game: Game, opponent: AgentSpec | str, human_seat: int, seed: int | None = None,
                 read: Callable[[str], str] = input,
                 write: Callable[[str], None] = print, warn: bool = True) -> int:
    """Run one game between a person (``human_seat``) and the ``opponent`` agent spec.

    The session names the person's seat and, where the exact solver covers the start, its
    value under perfect play. With ``warn``, a move that gives up the value of the position
    (by the solver) is not played at once: the session says what it gives up and plays it
    when it is typed again.

    Returns the person's result: +1, 0 (draw, truncation or quit) or -1.
    """
    rng = np.random.default_rng() if seed is None else seeded_generator(seed)
    agent = make_agent(opponent, rng)
    # ppo and az: load before the board, once the file is known to exist (a missing one is
    # refused without the loading line)
    for find, load in (("checkpoint_for", "policy_for"), ("network_file", "network_for")):
        if hasattr(agent, load):
            getattr(agent, find)(game)
            write(f"loading the {agent.name} network ...")
            getattr(agent, load)(game)
    state = resolve_chance(game, game.initial_state(rng), rng)
    names = {human_seat: "you", 1 - human_seat: agent.name}
    seat = SEAT_NAMES[game.info.name][human_seat]
    order = "first" if human_seat == 0 else "second"
    write(f"{game.info.name}: you play {seat} (seat {human_seat}, moving {order}) against "
          f"{agent.name}.")
    prompt = f"you play {seat}, {order}; your move> "
    start = _solved_value(game, state, human_seat)
    if start is not None:
        value, plies = start
        write(f"With perfect play on both sides this start is "
              f"{_for_you(value, plies)} (the exact solver).")
    plies = 0
    while game.current_player(state) != TERMINAL and plies < game.info.max_moves:
        write("")
        write(game.render_text(state))
        player = game.current_player(state)
        if player == human_seat:
            action = _ask(game, state, rng, read, write, prompt, warn)
            if action is None:
                write("You left the game.")
                return 0
        else:
            try:
                action = agent.act(game, state)
            except Forfeit as forfeit:               # an llm agent that named no legal move
                write(f"{forfeit}. You win!")
                return 1
        after = game.apply(state, action)
        if player != human_seat:
            write(f"{names[player]} plays {game.played_name(state, action, after)}")
        state = resolve_chance(game, after, rng)
        plies += 1
    write("")
    board, _, status = game.render_text(state).rpartition("\n")
    if write is print and sys.stdout.isatty():
        status = f"{_BOLD}{status}{_RESET}"
    write(f"{board}\n{status}")
    if game.current_player(state) != TERMINAL:
        write(f"Stopped after {plies} plies (max_moves): a draw.")
        return 0
    result = int(np.sign(game.returns(state)[human_seat]))
    write({1: "You win!", 0: "Draw.", -1: "You lose."}[result])
    return result


def _solved_value(game: Game, state: Any, player: int) -> tuple[int, int] | None:
    """``state``'s value for ``player`` under perfect play and the plies to the end, where
    the exact solver covers it; else ``None``."""
    if not GAMES[game.info.name].solvable:
        return None
    try:
        solution, lookup = solution_for(game, state)
    except ValueError:                              # a phase the solver does not cover
        return None
    return solution.value(lookup, player), int(solution.plies[solution.row(lookup)])


def _for_you(value: int, plies: int) -> str:
    """``"a draw"``, ``"a win for you in 7 plies"``, ``"a loss for you in 8 plies"``."""
    if value == 0:
        return "a draw"
    return f"a {'win' if value > 0 else 'loss'} for you" + (f" in {plies} plies"
                                                           if plies >= 0 else "")


def _warning(game: Game, state: Any, action: int) -> str | None:
    """What ``action`` gives up by the solver (the position's value for the mover is lost
    with it), with the moves that keep it; ``None`` if it keeps the value or the solver
    does not cover the position."""
    mover = game.current_player(state)
    now = _solved_value(game, state, mover)
    if now is None:
        return None
    try:
        move = solved_move(game, state, action)
    except ValueError:
        return None
    if move.value >= now[0]:
        return None
    keep = [game.action_name(state, a) for a in game.legal_actions(state)
            if solved_move(game, state, a).value == now[0]]
    kept = "the win" if now[0] > 0 else "the draw"
    after = ("it draws" if move.value == 0 else "it loses"
             + (f" in {move.plies} plies" if move.plies >= 0 else ""))
    return (f"{move.name} gives up {kept}: against perfect play {after}. Moves that keep "
            f"{kept}: {'; '.join(keep)}. Type {move.name} again to play it anyway.")


def _ask(game: Game, state: Any, rng: np.random.Generator, read: Callable[[str], str],
         write: Callable[[str], None], prompt: str, warn: bool = True) -> int | None:
    """Read commands after ``prompt`` until the person names a legal move (``None``: quit
    or end of input); with ``warn``, a move that gives up the position's value is played
    once it is named twice in a row (commands between the two allowed)."""
    legal = game.legal_actions(state)
    example = game.action_name(state, legal[0])
    warned: int | None = None
    if read is input:
        with contextlib.suppress(ImportError):      # not on Windows
            import readline  # noqa: F401  (line editing and history for input())
    while True:
        try:
            text = read(prompt).strip()
        except EOFError:
            return None
        command = text.lower()
        if any(not ch.isprintable() for ch in text):
            write(f"Not played: arrow and control keys do not name a move; type one ({example}).")
            continue
        if command in ("quit", "exit", "q"):
            return None
        if command in ("help", "?", ""):
            write(HELP.format(example=example))
        elif command == "moves":
            write("legal moves: " + game.legal_names(state))
        elif command == "hint":
            for line in hint_lines(game, state, rng):
                write(line)
        else:
            try:
                action = game.parse_action(state, text)
            except ValueError as error:
                write(f"Not played: {error}")
                continue
            warning = _warning(game, state, action) if warn and action != warned else None
            if warning is None:
                return action
            write(f"Not played yet: {warning}")
            warned = action
