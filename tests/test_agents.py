"""MCTS, the solver agent and the agent factory, at fixed seeds.

``DiceRace`` (below) is a tiny game with chance nodes and double moves, used here and in
``test_evaluation.py`` to exercise chance handling without depending on a real dice game.
"""

from __future__ import annotations

import time
from typing import Any, NamedTuple

import numpy as np
import pytest

from tris_envs.agents import (
    AGENT_SPECS,
    GreedyAgent,
    MCTSAgent,
    RandomAgent,
    SolverAgent,
    make_agent,
)
from tris_envs.agents.alphabeta import AlphaBetaAgent
from tris_envs.agents.solver_agent import solution_for
from tris_envs.core import CHANCE, TERMINAL, Game, GameInfo, solve
from tris_envs.evaluation import play_match
from tris_envs.games.tant_fant import TantFant
from tris_envs.games.tris1 import Tris1

# ----- a tiny chance game ------------------------------------------------------------------
WALK, ROLL = 0, 1
FACES = ((1, 0.2), (2, 0.3), (3, 0.5))


class RaceState(NamedTuple):
    pos: tuple[int, int]
    to_move: int
    rolling: bool = False


class DiceRace(Game[RaceState]):
    """First to ``target`` wins. Walk one step, or roll a die showing 1/2/3 with
    probabilities 0.2/0.3/0.5; a 3 earns another turn (the mover moves twice in a row).
    With ``exact`` a roll past the target leaves the runner where it was. Without ``walk``
    rolling is the only move."""

    OPTIONS = {"target": 6, "exact": False, "walk": True, "max_moves": 60}

    def __init__(self, target: int = 6, exact: bool = False, walk: bool = True,
                 max_moves: int = 60) -> None:
        self.target, self.exact, self.walk = target, exact, walk
        super().__init__(GameInfo("dice_race", 2, (1, 1, 1), max_moves, False))

    def options(self) -> dict[str, Any]:
        return {"target": self.target, "exact": self.exact, "walk": self.walk,
                "max_moves": self.info.max_moves}

    def initial_state(self, rng: np.random.Generator | None = None) -> RaceState:
        return RaceState((0, 0), 0)

    def current_player(self, state: RaceState) -> int:
        if max(state.pos) >= self.target:
            return TERMINAL
        return CHANCE if state.rolling else state.to_move

    def legal_actions(self, state: RaceState) -> tuple[int, ...]:
        if self.current_player(state) < 0:
            return ()
        return (WALK, ROLL) if self.walk else (ROLL,)

    def chance_outcomes(self, state: RaceState) -> list[tuple[int, float]]:
        return list(FACES)

    def apply(self, state: RaceState, action: int) -> RaceState:
        me = state.to_move
        if state.rolling:
            if action not in (1, 2, 3):
                raise self.illegal_action_error(state, action)
            new = state.pos[me] + action
            if self.exact and new > self.target:
                new = state.pos[me]
            pos = (new, state.pos[1]) if me == 0 else (state.pos[0], new)
            return RaceState(pos, me if action == 3 else 1 - me)
        if action not in self.legal_actions(state):
            raise self.illegal_action_error(state, action)
        if action == ROLL:
            return RaceState(state.pos, me, True)
        pos = (state.pos[0] + 1, state.pos[1]) if me == 0 else (state.pos[0], state.pos[1] + 1)
        return RaceState(pos, 1 - me)

    def returns(self, state: RaceState) -> tuple[float, float]:
        if state.pos[0] >= self.target:
            return (1.0, -1.0)
        if state.pos[1] >= self.target:
            return (-1.0, 1.0)
        return (0.0, 0.0)

    def observation(self, state: RaceState, player: int) -> np.ndarray:
        return np.zeros((1, 1, 1), dtype=np.int8)

    def to_notation(self, state: RaceState) -> str:
        return f"{state.pos[0]} {state.pos[1]} {state.to_move} {'r' if state.rolling else '-'}"

    def from_notation(self, text: str) -> RaceState:
        a, b, mover, rolling = text.split(" ")
        return RaceState((int(a), int(b)), int(mover), rolling == "r")

    def render_text(self, state: RaceState) -> str:
        return self.to_notation(state)

    def action_to_string(self, state: RaceState, action: int) -> str:
        return f"die {action}" if state.rolling else ("walk", "roll")[action]


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def won_by(game: Game, state: Any, player: int) -> bool:
    return game.current_player(state) == TERMINAL and game.returns(state)[player] > 0


# ----- MCTS: tactics -----------------------------------------------------------------------
WIN_IN_ONE = [
    (Tris1(), "XX./OO./...", {2}),              # X completes the top row
    (Tris1(), "XO./XO./...", {6}),              # X completes the left column
    (TantFant(), "BBB/WW./..W w", {2 * 9 + 5}),  # c1-c2 completes rank 2
]


@pytest.mark.parametrize("game,position,wins", WIN_IN_ONE)
def test_mcts_wins_in_one(game, position, wins):
    state = game.from_notation(position)
    for seed in range(3):
        action = MCTSAgent(200, rng=rng(seed)).act(game, state)
        assert action in wins
        assert won_by(game, game.apply(state, action), game.current_player(state))


BLOCKS = [
    (Tris1(), "XX./.O./...", 2),                 # O must take the top right corner
    (Tris1(), "X.O/.X./...", 8),                 # O must block the diagonal
    (TantFant(), ".WB/BB./W.W w", 2 * 9 + 5),    # White c1-c2 stops Black's c3-c2
]


@pytest.mark.parametrize("game,position,block", BLOCKS)
def test_mcts_blocks_an_immediate_loss(game, position, block):
    state = game.from_notation(position)
    assert solve(game, state).best_actions(state) == [block]  # and blocking draws
    # every other move lets the opponent win at once
    for action in game.legal_actions(state):
        child = game.apply(state, action)
        threats = [a for a in game.legal_actions(child)
                   if won_by(game, game.apply(child, a), game.current_player(child))]
        assert bool(threats) == (action != block)
    for seed in range(3):
        assert MCTSAgent(300, rng=rng(seed)).act(game, state) == block


PROVEN_WINS = [
    (Tris1(), "XOX/.../O..", 3, {8}),
    (Tris1(), "X.O/.../...", 5, {3, 6, 8}),
    (TantFant(), "WBB/B../.WW b", 3, {67}),
    (TantFant(), "WBB/.B./.WW w", 5, {23}),
]


@pytest.mark.parametrize("game,position,plies,fastest", PROVEN_WINS)
def test_mcts_solver_proves_a_win_and_plays_the_fastest(game, position, plies, fastest):
    state = game.from_notation(position)
    solution = solve(game, state)
    assert solution.plies[0] == plies and set(solution.best_actions(state)) == fastest
    agent = MCTSAgent(5000, rng=rng(1))
    root = agent.search(game, state)
    assert root.proven == 1 and root.depth == plies
    assert agent.last_simulations < 1000  # stopped once proven
    assert agent.best_action(root) in fastest


@pytest.mark.parametrize("game,position,slowest", [
    (Tris1(), "XO./X../...", 6),
    (TantFant(), "BBW/.BW/.W. b", 38),
])
def test_mcts_solver_proves_a_loss_and_resists_longest(game, position, slowest):
    state = game.from_notation(position)
    agent = MCTSAgent(5000, rng=rng(2))
    root = agent.search(game, state)
    assert root.proven == -1 and root.depth == 4
    assert all(child.proven == -1 for child in root.children)
    assert agent.best_action(root) == slowest


def test_mcts_values_take_the_movers_view():
    game = Tris1()
    state = game.from_notation("XX./.O./...")  # O to move: 2 blocks (a draw), else X wins
    root = MCTSAgent(400, rng=rng(3)).search(game, state)
    assert root.owner == 1 and root.proven == 0  # the forced lines are proven a draw
    assert MCTSAgent.best_action(root) == 2
    by_action = {child.action: child for child in root.children}
    assert set(by_action) == {2, 3, 5, 6, 7, 8}
    assert by_action[2].owner == 1 and by_action[2].proven != -1
    for action in (3, 5, 6, 7, 8):
        child = by_action[action]
        assert child.owner == 1 and child.proven == -1
        assert all(grandchild.owner == 0 for grandchild in child.children)
        assert any(g.action == 2 and g.proven == 1 for g in child.children)


def test_mcts_is_reproducible_and_validates_its_arguments():
    game = TantFant()
    state = game.initial_state()
    visits = []
    for _ in range(2):
        root = MCTSAgent(300, rng=rng(7)).search(game, state)
        visits.append(sorted((c.action, c.visits, c.total) for c in root.children))
    assert visits[0] == visits[1]
    for kwargs in ({"simulations": 0}, {"simulations": None}, {"simulations": 1.5},
                   {"time_budget": -1.0}, {"exploration": -0.1}):
        with pytest.raises(ValueError):
            MCTSAgent(**kwargs)
    finished = Tris1().from_notation("XXX/OO./...")
    with pytest.raises(ValueError, match="game is over"):
        MCTSAgent(10).act(Tris1(), finished)


def test_mcts_time_budget_stops_the_search():
    game = TantFant()
    agent = MCTSAgent(simulations=None, time_budget=0.05, rng=rng(0))
    start = time.perf_counter()
    agent.search(game, game.initial_state())
    assert time.perf_counter() - start < 1.0
    assert agent.last_simulations > 0 and agent.name == "mcts:0.05s"


def _tree_size(node):
    return 1 + sum(_tree_size(child) for child in node.children if child is not None)


def test_mcts_tree_stops_growing_at_max_nodes():
    game = TantFant()
    state = game.initial_state()
    capped = MCTSAgent(simulations=None, time_budget=30.0, max_nodes=200, rng=rng(0))
    start = time.perf_counter()
    root = capped.search(game, state)
    assert time.perf_counter() - start < 5.0     # the cap, not the 30 s budget, ended it
    assert _tree_size(root) == capped.last_nodes == 200
    assert capped.best_action(root) in game.legal_actions(state)
    # the default bound is far above ordinary budgets: the same seeded search as before
    uncapped = MCTSAgent(300, rng=rng(7)).search(game, state)
    bounded = MCTSAgent(300, rng=rng(7), max_nodes=301).search(game, state)
    assert [(c.action, c.visits, c.total) for c in uncapped.children] == \
        [(c.action, c.visits, c.total) for c in bounded.children]
    for bad in (0, -5, 2.5, True, "1000"):
        with pytest.raises(ValueError, match="max_nodes=.* must be a positive integer"):
            MCTSAgent(max_nodes=bad)


def test_mcts_with_more_simulations_is_stronger():
    result = play_match(TantFant(), "mcts:300", "mcts:20", n_games=30, seed=0)
    assert result.score > 0.75 and result.score_interval[0] > 0.5
    result = play_match(Tris1(), "mcts:300", "mcts:20", n_games=30, seed=2)
    assert result.wins > 5 * result.losses and result.score > 0.6


# ----- MCTS: chance nodes ------------------------------------------------------------------
def test_mcts_chance_statistics_follow_the_probabilities():
    game = DiceRace(target=30)
    agent = MCTSAgent(3000, rng=rng(4))
    root = agent.search(game, game.initial_state())
    roll = next(child for child in root.children if child.action == ROLL)
    assert roll.player == CHANCE and roll.owner == 0 and roll.proven is None
    outcome_visits = np.array([child.visits for child in roll.children])
    assert outcome_visits.sum() == roll.visits - 1 > 1000  # its first visit was a rollout
    np.testing.assert_allclose(outcome_visits / roll.visits, [p for _, p in FACES], atol=0.04)
    # after a 3 the same player moves again: that node is owned by player 0 and so are
    # its children; after a 1 or 2 the opponent moves
    three = roll.children[2]
    assert three.owner == 0 and three.player == 0
    assert all(child.owner == 0 for child in three.children)
    assert roll.children[0].player == 1


def test_mcts_plays_legal_moves_and_uses_the_extra_turn():
    game = DiceRace(target=6, exact=True)
    # the opponent walks to 6 next turn; only rolling 3 twice (the extra turn) wins
    state = game.from_notation("0 5 0 -")
    agent = MCTSAgent(3000, rng=rng(5))
    root = agent.search(game, state)
    by_action = {child.action: child for child in root.children}
    assert by_action[WALK].proven == -1
    assert by_action[ROLL].proven is None
    assert by_action[ROLL].value == pytest.approx(0.25 * 1 - 0.75 * 1, abs=0.1)
    assert agent.best_action(root) == ROLL
    # whole games: every move legal
    for seed in range(5):
        state, g_rng = game.initial_state(), rng(seed)
        agents = [MCTSAgent(50, rng=rng(seed)), RandomAgent(rng(seed + 10))]
        while (player := game.current_player(state)) != TERMINAL:
            if player == CHANCE:
                outcomes = game.chance_outcomes(state)
                state = game.apply(state, outcomes[g_rng.choice(3, p=[p for _, p in outcomes])][0])
            else:
                action = agents[player].act(game, state)
                assert action in game.legal_actions(state)
                state = game.apply(state, action)


def test_mcts_proves_chance_nodes_only_when_all_outcomes_agree():
    game = DiceRace(target=6, walk=False)
    agent = MCTSAgent(1000, rng=rng(6))
    root = agent.search(game, game.from_notation("5 0 0 -"))  # any face reaches 6
    roll = root.children[0]
    assert roll.player == CHANCE and all(c is not None and c.proven == 1 for c in roll.children)
    assert roll.proven == 1 and root.proven == 1
    assert agent.last_simulations < 30  # until each face was drawn once
    exact = DiceRace(target=6, exact=True, walk=False)
    root = agent.search(exact, exact.from_notation("5 0 0 -"))  # only a 1 finishes
    roll = root.children[0]
    assert roll.children[0].proven == 1
    assert roll.proven is None and root.proven is None


def test_mcts_refuses_chance_and_terminal_roots():
    game = DiceRace()
    with pytest.raises(ValueError, match="chance node"):
        MCTSAgent(10).search(game, game.from_notation("0 0 0 r"))
    with pytest.raises(ValueError, match="over"):
        MCTSAgent(10).search(game, game.from_notation("6 0 1 -"))


# ----- solver agent ------------------------------------------------------------------------
@pytest.mark.parametrize("game", [Tris1(), TantFant()], ids=lambda g: g.info.name)
@pytest.mark.parametrize("opponent", ["random", "mcts:50"])
def test_solver_never_loses(game, opponent):
    result = play_match(game, "solver", opponent, n_games=20, seed=11)
    assert result.losses == 0
    assert result.by_seat[0][2] == result.by_seat[1][2] == 0
    assert sum(result.by_seat[0]) == sum(result.by_seat[1]) == 10
    if opponent == "random":
        assert result.wins >= 12


@pytest.mark.parametrize("options", [{"stalemate": "loss"}, {"diagonal_only": True},
                                     {"repetition_draw": True}])
def test_solver_plays_every_tant_fant_variant(options):
    game = TantFant(**options)
    result = play_match(game, "solver", "greedy", n_games=10, seed=3)
    assert result.losses == 0


@pytest.mark.parametrize("game,position,plies,fastest", PROVEN_WINS)
def test_solver_plays_the_fastest_win(game, position, plies, fastest):
    state = game.from_notation(position)
    agent = SolverAgent(rng(0))
    assert agent.evaluate(game, state) == (1, plies)
    seen = {agent.act(game, state) for _ in range(10)}
    assert seen <= fastest
    # playing it out against perfect defence takes exactly `plies` plies
    for _ in range(plies):
        state = game.apply(state, agent.act(game, state))
    assert game.current_player(state) == TERMINAL


def test_solver_with_repetition_draws_uses_the_repetition_free_solution():
    game = TantFant(repetition_draw=True)
    state = game.initial_state()
    for action in (1 * 9 + 4, 6 * 9 + 3):  # b1-b2, a3-a2
        state = game.apply(state, action)
    assert len(state.history) == 3  # the state carries its history ...
    solution, lookup = solution_for(game, state)
    assert lookup.history == () and not solution.states[0].history  # ... stripped for lookup
    plain = TantFant()
    assert solution.value(lookup) == solve(plain, plain.initial_state()).value(lookup)
    assert SolverAgent(rng(0)).act(game, state) in game.legal_actions(state)


def test_solver_refuses_games_without_a_solver_root_and_follows_the_hook():
    with pytest.raises(ValueError, match="cannot play 'dice_race'"):
        SolverAgent().act(DiceRace(), DiceRace().initial_state())

    class FromItself(Tris1):
        """Solved from the position itself (like Doppia scelta per board)."""

        def solver_root(self, state):
            return self, state, state

    game = FromItself()
    state = game.from_notation("X../.../...")
    assert SolverAgent(rng(0)).evaluate(game, state) == (0, -1)
    assert SolverAgent(rng(0)).act(game, state) == 4  # the only drawing reply


# ----- factory -----------------------------------------------------------------------------
def test_make_agent_builds_every_spec():
    cases = {"random": (RandomAgent, "random"), "greedy": (GreedyAgent, "greedy"),
             "solver": (SolverAgent, "solver"), "mcts": (MCTSAgent, "mcts:1000"),
             "mcts:250": (MCTSAgent, "mcts:250"), "mcts:0.5s": (MCTSAgent, "mcts:0.5s"),
             "mcts:2s": (MCTSAgent, "mcts:2s"), "alphabeta": (AlphaBetaAgent, "alphabeta:4"),
             "alphabeta:3": (AlphaBetaAgent, "alphabeta:3"),
             "alphabeta:1s": (AlphaBetaAgent, "alphabeta:1s")}
    for spec, (cls, name) in cases.items():
        agent = make_agent(spec, rng(0))
        assert isinstance(agent, cls) and agent.name == name
    assert make_agent("mcts:250").simulations == 250
    timed = make_agent("mcts:0.5s")
    assert timed.time_budget == 0.5 and timed.simulations is None
    # the ppo forms: tests/test_shipped_policies.py; the az forms: tests/test_alphazero.py;
    # the openspiel forms: tests/test_openspiel.py; the llm forms: tests/test_llm_agent.py
    assert len([s for s in AGENT_SPECS
                if not s.startswith(("ppo", "az", "openspiel", "llm"))]) == 11


@pytest.mark.parametrize("spec", ["", "Random", "mcts:", "mcts:0", "mcts:-5", "mcts:1.5",
                                  "mcts:xs", "mcts:0s", "mcts:infs", "alphazero", 3])
def test_make_agent_rejects_bad_specs(spec):
    with pytest.raises(ValueError, match="allowed: random, greedy, mcts, mcts:N, "):
        make_agent(spec)


def test_solver_agent_plays_doppia_scelta_per_board():
    from tris_envs.games.doppia_scelta import DoppiaScelta

    game = DoppiaScelta()
    rng = np.random.default_rng(3)
    agent = SolverAgent(np.random.default_rng(0))
    for _ in range(3):
        state = game.initial_state(rng)
        value, plies = agent.evaluate(game, state)
        for _ in range(plies if value else 20):
            if game.current_player(state) == TERMINAL:
                break
            state = game.apply(state, agent.act(game, state))
        if value:   # the fastest win ends exactly on time
            assert game.current_player(state) == TERMINAL
            assert game.returns(state)[0] == value
    with pytest.raises(ValueError, match="coloring phase"):
        agent.act(DoppiaScelta(setup="coloring"), DoppiaScelta(setup="coloring")
                  .initial_state(rng))
