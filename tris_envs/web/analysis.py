"""The browser app's evaluation of a position: one shape for every game.

:func:`analyse` values the position and every legal move for the player to move, from the
best source there is for it:

* ``solver``: the exact solver (Tris 1, Tant Fant, Doppia scelta once its coloring phase is
  over): each result under perfect play (+1, 0, -1) and the plies to the end;
* ``az``: the AlphaZero network shipped for the game and its options: its value of the
  position, its policy's probability of each move, and each move's value one ply ahead
  (the network's value of the position after it, the dice's outcomes weighed by their
  probabilities, a finished game by its result);
* ``mcts``: where no network loads, the share of the visits of an MCTS search of
  :data:`~tris_envs.play.HINT_SIMULATIONS` simulations, and the mean return under each move.

The answer::

    {"source": "solver" | "az" | "mcts", "label": "...", "player": 0,
     "value": 0.0, "plies": 9 | None, "text": "draw",
     "moves": [{"action": 4, "name": "1,1", "value": 0.0, "plies": 9 | None,
                "share": 0.31 | None, "text": "draw"}, ...]}

``value`` is from the view of ``player`` (the player to move, or the player about to roll:
then the one move is ``roll``, with action ``None``), from -1 (lost) to +1 (won); the
moves come best first.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tris_envs.agents import MCTSAgent
from tris_envs.agents.az import AZAgent, shipped_network
from tris_envs.agents.az_network import Network
from tris_envs.agents.solver_agent import move_result, result_text, solution_for
from tris_envs.core.game import CHANCE, TERMINAL, Game
from tris_envs.games import GAMES
from tris_envs.play import HINT_SIMULATIONS

ROLL = "roll"
"""The name of the one "move" of a player about to roll the dice."""


def analyse(game: Game, state: Any, rng: np.random.Generator,
            seconds: float | None = None) -> dict[str, Any]:
    """The value of ``state`` and of each legal move, for the player to move (or to roll).

    Args:
        game: The rules.
        state: A position where a player is to move, or dice are to be rolled for one.
        rng: Draws the MCTS search's playouts.
        seconds: The most an MCTS search may take (``None``: its simulations only).

    Raises:
        ValueError: the game is over.
    """
    player = acting_player(game, state)
    if player == TERMINAL:
        raise ValueError("the game is over: there is nothing to analyse")
    if GAMES[game.info.name].solvable:
        try:
            return _solver(game, state, player)
        except ValueError:
            pass                                  # a phase the solver does not cover
    try:
        name = shipped_network(game).name
        network = AZAgent().network_for(game)
    except (FileNotFoundError, ValueError):
        return _mcts(game, state, player, rng, seconds)
    return _network(game, state, player, network, name)


def acting_player(game: Game, state: Any) -> int:
    """The player to move in ``state``, or at a chance node the player who acts after the
    dice (the one who rolls them); :data:`~tris_envs.core.game.TERMINAL` once the game is
    over (or ends with the dice)."""
    while game.current_player(state) == CHANCE:
        state = game.apply(state, game.chance_outcomes(state)[0][0])
    return game.current_player(state)


def solved_move(game: Game, state: Any, player: int, action: int) -> dict[str, Any]:
    """A move's result under perfect play for ``player`` and the plies to the end;
    ``ValueError`` where the solver does not cover the position after it."""
    value, plies = move_result(game, state, action, player)
    return {"action": int(action), "name": game.action_name(state, action), "value": value,
            "plies": plies if plies >= 0 else None, "share": None,
            "text": result_text(value, plies)}


def _signed(value: float) -> str:
    """``+0.35``, ``-0.12``, ``+0.00`` (never ``-0.00``)."""
    return f"{round(value, 2) + 0.0:+.2f}"


def _answer(source: str, label: str, player: int, value: float, plies: int | None,
            text: str, moves: list[dict[str, Any]]) -> dict[str, Any]:
    moves.sort(key=lambda m: (-m["value"], -(m["share"] or 0.0),
                              m["plies"] if m["plies"] is not None else 0))
    return {"source": source, "label": label, "player": player, "value": float(value),
            "plies": plies, "text": text, "moves": moves}


def _solver(game: Game, state: Any, player: int) -> dict[str, Any]:
    if game.current_player(state) == CHANCE:
        raise ValueError("the solver's games have no dice")
    solution, lookup = solution_for(game, state)
    value = solution.value(lookup, player)
    plies = int(solution.plies[solution.row(lookup)])
    moves = [solved_move(game, state, player, a) for a in game.legal_actions(state)]
    return _answer("solver", "the exact solver: the result under perfect play", player,
                   value, plies if plies >= 0 else None, result_text(value, plies), moves)


def _network(game: Game, state: Any, player: int, network: Network,
             name: str) -> dict[str, Any]:
    """The network's value and policy of ``state``, and each move's value one ply on."""
    if game.current_player(state) == CHANCE:
        value = _value(game, network, _leaves(game, state, 1.0), player)
        moves = [{"action": None, "name": ROLL, "value": value, "plies": None, "share": 1.0,
                  "text": _signed(value)}]
    else:
        probabilities, values = network.evaluate([state])
        value = float(values[0])
        moves = []
        for action in game.legal_actions(state):
            after = _value(game, network, _leaves(game, game.apply(state, action), 1.0),
                           player)
            moves.append({"action": int(action), "name": game.action_name(state, action),
                          "value": after, "plies": None,
                          "share": float(probabilities[0][action]),
                          "text": _signed(after)})
    label = f"the AlphaZero network {name}: its value and policy, each move's value one ply on"
    return _answer("az", label, player, value, None, _signed(value), moves)


def _leaves(game: Game, state: Any, weight: float) -> list[tuple[Any, float]]:
    """``state`` as positions to value and their weights: a chance node's outcomes (and
    theirs) weighed by their probabilities."""
    if game.current_player(state) != CHANCE:
        return [(state, weight)]
    return [leaf for outcome_, p in game.chance_outcomes(state)
            for leaf in _leaves(game, game.apply(state, outcome_), weight * p)]


def _value(game: Game, network: Network, leaves: list[tuple[Any, float]],
           player: int) -> float:
    """The weighed value of ``leaves`` for ``player``: a finished game's result, else the
    network's value for the player to move, negated for the opponent."""
    total = 0.0
    open_leaves = [(s, w) for s, w in leaves if game.current_player(s) != TERMINAL]
    for state, weight in leaves:
        if game.current_player(state) == TERMINAL:
            total += weight * float(np.sign(game.returns(state)[player]))
    if open_leaves:
        _, values = network.evaluate([s for s, _ in open_leaves])
        for (state, weight), v in zip(open_leaves, values.tolist()):
            total += weight * (v if game.current_player(state) == player else -v)
    return total


def _mcts(game: Game, state: Any, player: int, rng: np.random.Generator,
          seconds: float | None) -> dict[str, Any]:
    if game.current_player(state) == CHANCE:          # each outcome searched in turn
        outcomes = game.chance_outcomes(state)
        value = 0.0
        for outcome_, p in outcomes:
            after = game.apply(state, outcome_)
            if game.current_player(after) == TERMINAL:
                value += p * float(np.sign(game.returns(after)[player]))
                continue
            search = MCTSAgent(max(1, HINT_SIMULATIONS // len(outcomes)), seconds, rng=rng)
            root = search.search(game, after)
            value += p * (root.value if root.owner == player else -root.value)
        moves = [{"action": None, "name": ROLL, "value": value, "plies": None, "share": 1.0,
                  "text": _signed(value)}]
    else:
        search = MCTSAgent(HINT_SIMULATIONS, seconds, rng=rng)
        root = search.search(game, state)
        total = sum(child.visits for child in root.children) or 1
        children = {child.action: child for child in root.children}
        moves = []
        for action in game.legal_actions(state):
            child = children.get(action)
            share = child.visits / total if child is not None else 0.0
            value = child.value if child is not None else 0.0
            moves.append({"action": int(action), "name": game.action_name(state, action),
                          "value": value, "plies": None, "share": share,
                          "text": f"{share:.0%} of the visits, mean {_signed(value)}"})
        value = root.value
    return _answer("mcts", f"MCTS, {HINT_SIMULATIONS} simulations: each move's share of the "
                   "visits and mean return", player, value, None, _signed(value), moves)
