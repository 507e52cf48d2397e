"""The browser app's evaluation of a position: one shape for every game.

:func:`analyse` values the position and every legal move for the player to move, from the
best source there is for it:

* ``solver``: the exact solver (Tris 1, Tant Fant, Doppia scelta once its coloring phase is
  over): each result under perfect play (+1, 0, -1) and the plies to the end;
* ``az``: the search the ``az`` agent plays with (its shipped network, settings and budget,
  :meth:`AZAgent.search_root <tris_envs.agents.az.AZAgent.search_root>`): each move's mean
  return and share of the root's visits, the position's the root's mean return;
* ``mcts``: where no network loads, an MCTS search of
  :data:`~tris_envs.play.HINT_SIMULATIONS` simulations with the decisive check, read the
  same way.

A search's values (:func:`searched`) are made exact where one ply of the rules decides: a
move that wins at once is won (+1), a move after which the opponent can win at once is
lost (-1), and a move the search proved (a won, drawn or lost subtree) takes its proof.
Where dice come between (Tritoc), a move after which the opponent's roll brings a win in
one with probability ``p`` is worth at most ``1 - 2p`` (lost when every roll does). So a
blunder shows as lost even where the network's value head is flat (both Tris 2 networks
value every position about 0). The position's value is exact when its moves decide it
(one won, or all exact), else the root's mean return, never above its best move.

The answer::

    {"source": "solver" | "az" | "mcts", "label": "...", "player": 0,
     "value": 0.0, "plies": 9 | None, "text": "draw",
     "moves": [{"action": 4, "name": "1,1", "value": 0.0, "plies": 9 | None,
                "share": 0.31 | None, "text": "draw"}, ...]}

``value`` is from the view of ``player`` (the player to move, or the player about to roll:
then the one move is ``roll``, with action ``None``), from -1 (lost) to +1 (won); ``plies``
is given where the value is exact (a win or loss, with the plies to the end); the moves
come best first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from tris_envs.agents import MCTSAgent, MCTSNode
from tris_envs.agents.az import AZAgent, shipped_network
from tris_envs.agents.az_network import Network
from tris_envs.agents.solver_agent import move_result, outcome, result_text, solution_for
from tris_envs.core.game import CHANCE, TERMINAL, Game, can_win_at_once
from tris_envs.games import GAMES
from tris_envs.play import HINT_SIMULATIONS

ROLL = "roll"
"""The name of the one "move" of a player about to roll the dice."""


def analyse(game: Game, state: Any, rng: np.random.Generator,
            seconds: float | None = None) -> dict[str, Any]:
    """The value of ``state`` and of each legal move, for the player to move (or to roll):
    the exact solver's where it covers the position, else :func:`searched`.

    Args:
        game: The rules.
        state: A position where a player is to move, or dice are to be rolled for one.
        rng: Draws the search's expansions, playouts and chance outcomes.
        seconds: The most the search may take (``None``: its simulations only).

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
    return searched(game, state, rng, seconds)


def searched(game: Game, state: Any, rng: np.random.Generator,
             seconds: float | None = None) -> dict[str, Any]:
    """The value of ``state`` and of each legal move by the search the game's ``az`` agent
    plays with (``mcts`` with the decisive check where no network loads), wins in one,
    handovers and proofs exact (see the module); at a chance node the dice's outcomes
    weighed, the budget and ``seconds`` shared among them.

    Raises:
        ValueError: the game is over.
    """
    player = acting_player(game, state)
    if player == TERMINAL:
        raise ValueError("the game is over: there is nothing to analyse")
    search = _search_for(game, rng, seconds)
    if game.current_player(state) != CHANCE:
        value, plies, text, moves = _position(game, state, search, 1)
        return _answer(search.source, search.label, player, value, plies, text, moves)
    leaves = _leaves(game, state, 1.0)
    value = 0.0
    for leaf, weight in leaves:
        if game.current_player(leaf) == TERMINAL:
            value += weight * float(np.sign(game.returns(leaf)[player]))
            continue
        leaf_value = _position(game, leaf, search, len(leaves))[0]
        value += weight * (leaf_value if game.current_player(leaf) == player else -leaf_value)
    moves = [{"action": None, "name": ROLL, "value": value, "plies": None, "share": 1.0,
              "text": _signed(value)}]
    return _answer(search.source, search.label, player, value, None, _signed(value), moves)


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
            "text": _result_text(value, plies)}


def _signed(value: float) -> str:
    """``+0.35``, ``-0.12``, ``+0.00`` (never ``-0.00``)."""
    return f"{round(value, 2) + 0.0:+.2f}"


def _result_text(value: int, plies: int) -> str:
    """An exact result in words: ``win at once``, ``loss in 4 plies``, ``draw``."""
    return f"{outcome(value)} at once" if value and plies == 1 else result_text(value, plies)


def _answer(source: str, label: str, player: int, value: float, plies: int | None,
            text: str, moves: list[dict[str, Any]]) -> dict[str, Any]:
    def rank(move: dict[str, Any]) -> tuple[float, float, int]:
        plies = move["plies"] or 0           # a win sooner, a loss later
        return -move["value"], -(move["share"] or 0.0), plies if move["value"] > 0 else -plies

    moves.sort(key=rank)
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
                   value, plies if plies >= 0 else None, _result_text(value, plies), moves)


# ----- the search's values -----------------------------------------------------------
@dataclass(frozen=True)
class _Search:
    """The search an evaluation reads.

    Attributes:
        source: ``"az"`` or ``"mcts"``.
        label: What the panel says it shows.
        run: ``(state, parts)`` -> the root of a search from ``state`` (a player to move)
            with ``1 / parts`` of the budget and of the time.
        unsearched: ``(after, mover)`` -> the value for ``mover`` of a move the search
            left unvisited, ``after`` the position it leads to.
    """

    source: str
    label: str
    run: Callable[[Any, int], MCTSNode]
    unsearched: Callable[[Any, int], float]


def _search_for(game: Game, rng: np.random.Generator, seconds: float | None) -> _Search:
    """The ``az`` agent's search for ``game``, else (no network loads) ``mcts``'s."""
    def share(parts: int) -> float | None:
        return None if seconds is None else seconds / parts

    try:
        name = shipped_network(game).name
        network = AZAgent().network_for(game)
    except (FileNotFoundError, ValueError):
        def rollouts(state: Any, parts: int) -> MCTSNode:
            return MCTSAgent(max(1, HINT_SIMULATIONS // parts), share(parts), rng=rng,
                             decisive=True).search(game, state)

        return _Search("mcts", f"MCTS, {HINT_SIMULATIONS} simulations with the decisive "
                       "check: each move's mean return and share of the visits, wins in one "
                       "and handovers exact", rollouts, lambda after, mover: 0.0)
    budget = AZAgent().budget(network)

    def run(state: Any, parts: int) -> MCTSNode:
        agent = AZAgent(simulations=max(1, budget // parts), rng=rng)
        agent.time_budget = share(parts)
        return agent.search_root(game, state)

    def unsearched(after: Any, mover: int) -> float:
        return _value(game, network, _leaves(game, after, 1.0), mover)

    return _Search("az", f"the az agent's search ({name}, {budget} simulations): each move's "
                   "mean return and share of the visits, wins in one, handovers and proofs "
                   "exact", run, unsearched)


def _position(game: Game, state: Any, search: _Search,
              parts: int) -> tuple[float, int | None, str, list[dict[str, Any]]]:
    """``state``'s value for its player to move, the plies to the end where the value is
    an exact win or loss (else ``None``), the value in words, and its moves' entries."""
    root = search.run(state, parts)
    children = {child.action: child for child in root.children}
    total = sum(child.visits for child in root.children) or 1
    moves: list[dict[str, Any]] = []
    exact: list[bool] = []
    for action in game.legal_actions(state):
        move, known = _move(game, state, int(action), children.get(action), total, search)
        moves.append(move)
        exact.append(known)
    won = [m["plies"] for m, known in zip(moves, exact) if known and m["value"] == 1]
    if won:
        return 1.0, min(won), _result_text(1, min(won)), moves
    best = max(m["value"] for m in moves)
    if all(exact):
        ends = [m["plies"] for m in moves if m["value"] == best and m["plies"] is not None]
        plies = max(ends) if ends else None
        return best, plies, _result_text(int(best), -1 if plies is None else plies), moves
    value = min(root.value, best)
    return value, None, _signed(value), moves


def _move(game: Game, state: Any, action: int, child: MCTSNode | None, total: int,
          search: _Search) -> tuple[dict[str, Any], bool]:
    """One move's entry for the player to move, and whether its value is exact: a move
    that ends the game, a handover (:func:`_handover`), a move the search proved; else
    the search's mean return (capped by a handover that the dice may bring)."""
    mover = game.current_player(state)
    share = child.visits / total if child is not None else 0.0
    after = game.apply(state, action)
    entry = {"action": action, "name": game.action_name(state, action), "share": share}
    if game.current_player(after) == TERMINAL:
        result = int(np.sign(game.returns(after)[mover]))
        text = {1: "wins at once", 0: "ends the game in a draw", -1: "loses at once"}[result]
        return {**entry, "value": float(result), "plies": 1 if result else None,
                "text": text}, True
    handed, certain = _handover(game, after, mover)
    if certain:
        return {**entry, "value": -1.0, "plies": 2,
                "text": "hands the opponent a win in one"}, True
    if child is not None and child.proven is not None:
        plies = child.depth + 1
        return {**entry, "value": float(child.proven),
                "plies": plies if child.proven else None,
                "text": f"proven {result_text(child.proven, plies)}"}, True
    if child is not None and child.visits:
        value, text = child.value, f"{_signed(child.value)}, {share:.0%} of the visits"
    else:
        value = search.unsearched(after, mover)
        text = f"{_signed(value)}, not searched"
    if handed:
        value = min(value, 1.0 - 2.0 * handed)
        text = (f"{_signed(value)}: {handed:.0%} of the rolls give the opponent a win in one, "
                f"{share:.0%} of the visits")
    return {**entry, "value": value, "plies": None, "text": text}, False


def _handover(game: Game, after: Any, mover: int) -> tuple[float, bool]:
    """The probability that after ``mover``'s move, which led to ``after``, the opponent
    is to move and can win at once (the dice between weighed), and whether that is
    certain."""
    hits = [(weight, game.current_player(leaf) == 1 - mover and can_win_at_once(game, leaf))
            for leaf, weight in _leaves(game, after, 1.0)]
    return sum(weight for weight, hit in hits if hit), all(hit for _, hit in hits)


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
