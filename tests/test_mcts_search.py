"""MCTS with the decisive-move check, with an evaluator (priors, values, PUCT), and the
games' fast rollouts against the generic ones."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from tris_envs.agents.mcts import MCTSAgent
from tris_envs.bench.engines import generic_playouts, playout_speedups
from tris_envs.core import solve
from tris_envs.core.game import CHANCE, TERMINAL, Game, resolve_chance
from tris_envs.core.legal import nth_action
from tris_envs.games import make_game

from checks import benchmark_script


def test_decisive_check_proves_new_nodes_at_once():
    game = make_game("tris1")
    state = game.from_notation("XX./OO./...")    # X wins at 2; else O wins next
    root = MCTSAgent(50, rng=np.random.default_rng(0), decisive=True).search(game, state)
    assert root.proven == 1
    losing = [c for c in root.children if c.action in (6, 7, 8)]
    assert losing and all(c.proven == -1 and c.depth == 1 for c in losing)


def placement_positions(left: tuple[int, ...], count: int, seed: int) -> list:
    """Tris 2 placement positions with ``left`` placements to go, reached by random
    placements."""
    game = make_game("tris2", setup="placement")
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        state = game.initial_state(rng)
        for _ in range(9 - int(rng.choice(left))):
            state = game.apply(state, int(rng.choice(game.legal_actions(state))))
        if not game.is_terminal(state):
            found.append(state)
    return found


def test_rules_core_proofs_steer_the_search_through_the_last_placements():
    """With ``proofs`` the search proves what ``Tris2.proven_winner`` proves (the last six
    placements, searched exactly): with three to six placements left it plays a move
    that wins by force for ``player_1`` whenever there is one, and a move that is not lost
    by force for ``player_0`` whenever there is one (``Tris2.placement_safe`` of each
    move, worked out here). The same search without proofs misses some."""
    game = make_game("tris2", setup="placement")
    misses = checked = 0
    for state in placement_positions((3, 4, 5, 6), 24, seed=2):
        memo: dict = {}
        safe = {a: game.placement_safe(game.apply(state, a), memo)
                for a in game.legal_actions(state)}
        good = {a for a, s in safe.items() if s != (state.to_move == 1)}
        if not good or len(good) == len(safe):
            continue
        checked += 1
        move = MCTSAgent(40, rng=np.random.default_rng(0), decisive=True,
                         proofs=True).act(game, state)
        assert move in good
        plain = MCTSAgent(40, rng=np.random.default_rng(0), decisive=True).act(game, state)
        misses += plain not in good
    assert checked >= 8 and misses


def test_a_discount_shrinks_each_return_once_per_move_between_leaf_and_node():
    from tris_envs.agents.mcts import MCTSNode

    game = make_game("tris1")
    start = game.from_notation("XX./OO./...")
    for discount, worth in ((1.0, (1.0, 1.0, 1.0)), (0.5, (0.25, 0.5, 1.0))):
        root = MCTSNode(game, start, None, 0)
        child = MCTSNode(game, game.apply(start, 6), 6, 0)
        grandchild = MCTSNode(game, game.apply(child.state, 8), 8, 1)
        MCTSAgent(10, discount=discount).backup([root, child, grandchild], (-0.8, 0.8))
        assert [n.total for n in (root, child, grandchild)] == pytest.approx(
            [-0.8 * worth[0], -0.8 * worth[1], 0.8 * worth[2]])
        assert all(n.visits == 1 for n in (root, child, grandchild))
    # a proven leaf's result lies its proof's depth below it
    root = MCTSNode(game, start, None, 0)
    lost = MCTSNode(game, game.apply(start, 6), 6, 0)
    lost.proven, lost.depth = -1, 1
    MCTSAgent(10, discount=0.5).backup([root, lost], (-1.0, 1.0))
    assert (root.total, lost.total) == (-0.25, -0.5)


def test_a_search_with_the_values_discount_finds_the_shortest_wins_more_often():
    """Values discounted as a network trained with a discount learns them (the solver's,
    times 0.9 per ply to the end): on won Tant Fant positions with a slower way to win
    too, the search that backs up with the same discount plays a shortest win more often
    than the undiscounted one."""
    game = make_game("tant_fant")
    solution = solve(game, game.initial_state(np.random.default_rng(0)))

    class Discounted(CountingEvaluator):
        def evaluate(self, game, states):
            out = []
            for state, (returns, priors) in zip(states, super().evaluate(game, states)):
                worth = 0.9 ** solution.plies[solution.row(state)]
                out.append(((returns[0] * worth, returns[1] * worth), priors))
            return out

    won = [state for i, state in enumerate(solution.states) if solution.movers[i] >= 0
           and solution.value(state, solution.movers[i]) == 1 and 5 <= solution.plies[i] <= 15
           and len(solution.best_actions(state)) < len(solution.optimal_actions(state))]
    shortest = {}
    for discount in (1.0, 0.9):
        shortest[discount] = sum(
            MCTSAgent(100, rng=np.random.default_rng(1), evaluator=Discounted(solution),
                      discount=discount).act(game, state) in solution.best_actions(state)
            for state in won)
    assert len(won) > 50 and shortest[0.9] > shortest[1.0]


@pytest.mark.parametrize("discount", [0, 1.5, -0.1, True, "0.9"])
def test_bad_discounts_are_refused(discount):
    with pytest.raises(ValueError, match="discount"):
        MCTSAgent(10, discount=discount)


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


# ----- fast rollouts: the same playouts as the generic path ----------------------------------
PLAYOUT_GAMES = [
    ("tris2", {}), ("tris2", {"max_side": 4}), ("tris2", {"setup": "placement"}),
    ("tris2", {"fair": True}),
    ("tritoc", {}), ("tritoc", {"dice": "equal", "layout": "magic"}),
    ("tritoc", {"layout": "random", "max_rerolls": 0, "reward": "points"}),
]


class Uniforms:
    """A seeded stream of uniforms that counts its draws."""

    def __init__(self, seed):
        self.values = np.random.default_rng(seed).random(100_000).tolist()
        self.drawn = 0

    def __call__(self):
        self.drawn += 1
        return self.values[self.drawn - 1]


def playout_starts(game, seed, count):
    """Positions of seeded random games at every depth: player, chance and terminal nodes."""
    rng = np.random.default_rng(seed)
    starts = []
    while len(starts) < count:
        state = game.initial_state(rng)
        for _ in range(int(rng.integers(0, 60))):
            starts.append(state)
            if game.current_player(state) == TERMINAL:
                break
            state = resolve_chance(game, state, rng) if game.current_player(state) == CHANCE \
                else game.apply(state, int(rng.choice(game.legal_actions(state))))
        starts.append(state)
    return starts[:count]


@pytest.mark.parametrize("name, options", PLAYOUT_GAMES, ids=str)
def test_fast_playouts_match_the_generic_path(name, options):
    """Each game's own random_playout gives the generic one's result with the same draws,
    whole and cut short (so the playouts end at the same ply)."""
    game = make_game(name, **options)
    assert type(game).random_playout is not Game.random_playout
    rng = np.random.default_rng(1)
    ended = Counter()
    for k, state in enumerate(playout_starts(game, seed=0, count=30)):
        for max_plies in (game.info.max_moves, int(rng.integers(0, 12))):
            fast, generic = Uniforms(k), Uniforms(k)
            result = game.random_playout(state, fast, max_plies)
            assert result == Game.random_playout(game, state, generic, max_plies)
            assert fast.drawn == generic.drawn
            ended[result] += 1
    assert len(ended) == 3   # both wins and draws


@pytest.mark.parametrize("name, options", [("tris2", {}), ("tritoc", {})], ids=str)
def test_searches_build_the_same_tree_on_either_rollout_path(name, options):
    game = make_game(name, **options)
    state = resolve_chance(game, game.initial_state(np.random.default_rng(2)),
                           np.random.default_rng(2))
    trees = []
    for path in (game, generic_playouts(game)):
        root = MCTSAgent(150, rng=np.random.default_rng(3)).search(path, state)
        trees.append([(c.action, c.visits, c.total, c.proven) for c in root.children])
    assert trees[0] == trees[1]


def test_nth_action_picks_from_the_ascending_actions():
    rng = np.random.default_rng(4)
    for _ in range(200):
        actions = sorted(set(rng.integers(0, 378, size=int(rng.integers(1, 60))).tolist()))
        bits = sum(1 << a for a in actions)
        assert [nth_action(bits, n) for n in range(len(actions))] == actions


def test_playout_speedups_compare_both_paths():
    rows = playout_speedups(simulations=40, rounds=1)
    assert [label for label, *_ in rows] == ["tris2", "tris2 max_side=4", "tritoc"]
    assert all(generic > 0 and fast > 0 for _, generic, fast, _ in rows)
    assert playout_speedups(simulations=40, rounds=1, names=["tris1_v0"]) == []


def test_mcts_speed_script_times_both_paths():
    script = benchmark_script("mcts_speed")
    generic, fast, played = script.seconds_per_move(simulations=30, moves=2, seed=0)
    assert played == 2 and generic > 0 and fast > 0
