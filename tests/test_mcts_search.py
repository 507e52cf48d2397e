"""MCTS with the decisive-move check and with an evaluator (priors, values, PUCT)."""

from __future__ import annotations

import numpy as np

from tris_envs.agents.mcts import MCTSAgent
from tris_envs.core import solve
from tris_envs.core.game import CHANCE, TERMINAL, resolve_chance
from tris_envs.games import make_game


def test_decisive_check_proves_new_nodes_at_once():
    game = make_game("tris1")
    state = game.from_notation("XX./OO./...")    # X wins at 2; else O wins next
    root = MCTSAgent(50, rng=np.random.default_rng(0), decisive=True).search(game, state)
    assert root.proven == 1
    losing = [c for c in root.children if c.action in (6, 7, 8)]
    assert losing and all(c.proven == -1 and c.depth == 1 for c in losing)


class CountingEvaluator:
    """Uniform priors and exact values from the solver (or zero), counting its calls."""

    def __init__(self, solution=None):
        self.solution = solution
        self.states = []

    def evaluate(self, game, states):
        out = []
        for state in states:
            self.states.append(state)
            player = game.current_player(state)
            value = 0.0 if self.solution is None else float(self.solution.value(state, 0))
            n = len(game.legal_actions(state))
            assert player >= 0
            out.append(((value, -value), [1.0 / n] * n))
        return out


def test_evaluator_search_with_exact_values_keeps_the_solvers_value():
    game = make_game("tant_fant")
    solution = solve(game, game.initial_state(np.random.default_rng(0)))
    rng = np.random.default_rng(2)
    movers = [i for i in range(len(solution)) if solution.movers[i] >= 0
              and len(solution.actions[i]) > 1]
    for i in rng.choice(movers, size=40, replace=False):
        state = solution.states[i]
        agent = MCTSAgent(60, rng=np.random.default_rng(3), exploration=1.0,
                          evaluator=CountingEvaluator(solution))
        assert agent.act(game, state) in solution.optimal_actions(state)


def test_evaluator_sees_only_player_nodes_and_visits_add_up():
    game = make_game("tritoc")
    rng = np.random.default_rng(4)
    state = resolve_chance(game, game.initial_state(rng), rng)
    evaluator = CountingEvaluator()
    agent = MCTSAgent(80, rng=np.random.default_rng(5), evaluator=evaluator,
                      root_noise=(0.3, 0.25))
    root = agent.search(game, state)
    assert root.visits == 81 and agent.last_simulations == 80     # + the root's evaluation
    assert all(game.current_player(s) not in (CHANCE, TERMINAL) for s in evaluator.states)
    assert sum(MCTSAgent.visit_counts(root).values()) == 80
    assert root.priors and abs(sum(root.priors.values()) - 1) < 1e-9


def test_priors_steer_the_search():
    """All visits go where the priors point when values are equal."""
    game = make_game("tris1")
    state = game.initial_state(np.random.default_rng(0))

    class Peaked(CountingEvaluator):
        def evaluate(self, game, states):
            out = []
            for s in states:
                legal = game.legal_actions(s)
                priors = [0.92 if a == legal[-1] else 0.08 / (len(legal) - 1) for a in legal]
                out.append(((0.0, 0.0), priors))
            return out

    root = MCTSAgent(30, rng=np.random.default_rng(6), evaluator=Peaked()).search(game, state)
    counts = MCTSAgent.visit_counts(root)
    assert max(counts, key=counts.get) == 8 and counts[8] > 15
