"""``tris-envs play``: a person against an agent in the terminal.

The board is printed with its coordinates; moves are typed in each game's short notation
(:meth:`~tris_envs.core.game.Game.action_name`): Tant Fant ``b1-b2``, Tris 1 ``row,col``,
Tris 2 the die's cell and direction ``row,col D`` (``row,col XO/`` while placing), Tritoc
the hole ``row,col`` or ``pass``, Doppia scelta ``left`` / ``straight`` / ``right``
(``row,col Y`` while coloring). The agent's moves are announced, and the board's status
line shows the last move, in the same notation; the longer descriptions the board prints
(Doppia scelta's ``turn right (red)``) are accepted too. Commands: ``moves``, ``hint``,
``help``, ``quit``. In a terminal the prompt has line editing and history (``readline``),
and the final status line (the result, with the winning line) is printed in bold.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from tris_envs.agents import MCTSAgent, SolverAgent, make_agent
from tris_envs.core.game import TERMINAL, Game, resolve_chance, seeded_generator
from tris_envs.games import GAMES

HELP = ("Type a move ({example}), or: moves (list the legal moves), hint (suggest a move), "
        "help, quit.")
HINT_SIMULATIONS = 2000
_BOLD, _RESET = "\x1b[1m", "\x1b[0m"


def hint(game: Game, state: Any, rng: np.random.Generator) -> tuple[int, str]:
    """The best move by the exact solver where one exists, else by MCTS; and who said so."""
    if GAMES[game.info.name].solvable:
        try:
            return SolverAgent(rng).act(game, state), "solver"
        except ValueError:
            pass
    return MCTSAgent(HINT_SIMULATIONS, rng=rng).act(game, state), f"mcts:{HINT_SIMULATIONS}"


def play_session(game: Game, opponent: str, human_seat: int, seed: int | None = None,
                 read: Callable[[str], str] = input,
                 write: Callable[[str], None] = print) -> int:
    """Run one game between a person (``human_seat``) and the ``opponent`` agent spec.

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
    write(f"{game.info.name}: you play seat {human_seat} "
          f"({'first' if human_seat == 0 else 'second'}) against {agent.name}.")
    plies = 0
    while game.current_player(state) != TERMINAL and plies < game.info.max_moves:
        write("")
        write(game.render_text(state))
        player = game.current_player(state)
        if player == human_seat:
            action = _ask(game, state, rng, read, write)
            if action is None:
                write("You left the game.")
                return 0
        else:
            action = agent.act(game, state)
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


def _ask(game: Game, state: Any, rng: np.random.Generator, read: Callable[[str], str],
         write: Callable[[str], None]) -> int | None:
    """Read commands until the person names a legal move (``None``: quit or end of input)."""
    legal = game.legal_actions(state)
    example = game.action_name(state, legal[0])
    if read is input:
        with contextlib.suppress(ImportError):      # not on Windows
            import readline  # noqa: F401  (line editing and history for input())
    while True:
        try:
            text = read("your move> ").strip()
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
            action, source = hint(game, state, rng)
            write(f"hint ({source}): {game.action_name(state, action)}")
        else:
            try:
                return game.parse_action(state, text)
            except ValueError as error:
                write(f"Not played: {error}")

