"""The az agents' search with batched leaf evaluation: legal moves, the same tree as the
sequential search at batch size 1, proven and winning moves, chance and terminal nodes,
bad batch sizes. (Speed is measured by ``tris-envs bench``, not here.)"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_agents import ROLL, WALK, DiceRace

from tris_envs.agents.az import (
    BATCH_SIZE,
    SHIPPED_DIR,
    AZAgent,
    NetworkEvaluator,
    PlayoutMixEvaluator,
)
from tris_envs.agents.az_network import NetConfig, Network, initial_weights
from tris_envs.agents.mcts import MCTSAgent, MCTSNode, Search, Uniforms
from tris_envs.agents.search_settings import SearchSettings
from tris_envs.bench.engines import (
    az_report,
    az_seconds_per_move,
    shipped_az_report,
    shipped_az_seconds_per_move,
)
from tris_envs.core import solve
from tris_envs.core.game import CHANCE, TERMINAL, resolve_chance
from tris_envs.games import make_game

GAMES = ["tris1", "tant_fant", "tris2", "doppia_scelta", "tritoc"]


def positions(game, seed, count):
    """Positions of a seeded random game (a new one when it ends) with several legal moves."""
    rng = np.random.default_rng(seed)
    found = []
    state = resolve_chance(game, game.initial_state(rng), rng)
    while len(found) < count:
        if game.current_player(state) < 0:
            state = resolve_chance(game, game.initial_state(rng), rng)
            continue
        legal = game.legal_actions(state)
        if len(legal) > 1:
            found.append(state)
        state = resolve_chance(game, game.apply(state, legal[int(rng.integers(len(legal)))]),
                               rng)
    return found


def small_network(name, seed=7):
    game = make_game(name)
    return game, Network(game, NetConfig(name, {}, 8, 1), rng=np.random.default_rng(seed))


def nodes(root):
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack += [child for child in node.children if child is not None]


def check_tree(root: MCTSNode, simulations: int) -> None:
    """Every visit is accounted for: no virtual loss is left behind and no leaf still
    waits for its evaluation."""
    assert root.visits == simulations + 1          # + the root's own evaluation
    for node in nodes(root):
        if node.visits:
            assert -1 - 1e-9 <= node.value <= 1 + 1e-9
        if node.proven is not None:
            continue
        children = sum(child.visits for child in node.children if child is not None)
        if node.player == CHANCE:
            assert node.visits == children
        elif node.visits:
            assert node.priors is not None and node.visits == 1 + children


class CountingEvaluator:
    """Uniform priors and exact values from the solver (or zero); records what it sees."""

    def __init__(self, solution=None):
        self.solution = solution
        self.calls = []

    def evaluate(self, game, states):
        self.calls.append(len(states))
        out = []
        for state in states:
            assert game.current_player(state) >= 0
            value = 0.0 if self.solution is None else float(self.solution.value(state, 0))
            n = len(game.legal_actions(state))
            out.append(((value, -value), [1.0 / n] * n))
        return out


# ----- legal moves, whole trees -------------------------------------------------------------
@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("batch_size", [2, 8])
def test_batched_search_plays_legal_moves_and_accounts_for_every_visit(name, batch_size):
    game, network = small_network(name)
    for i, state in enumerate(positions(game, seed=1, count=4)):
        search = MCTSAgent(24, rng=np.random.default_rng(i), exploration=1.25,
                           evaluator=NetworkEvaluator(network), batch_size=batch_size)
        root = search.search(game, state)
        if root.proven is None:
            assert search.last_simulations == 24
            check_tree(root, 24)
        assert MCTSAgent.best_action(root) in game.legal_actions(state)
        agent = AZAgent(network, 24, rng=np.random.default_rng(i), batch=batch_size)
        assert agent.act(game, state) in game.legal_actions(state)


def test_leaves_are_evaluated_in_batches_of_the_given_size():
    game = make_game("tris2")
    state = positions(game, seed=2, count=1)[0]
    evaluator = CountingEvaluator()
    search = MCTSAgent(40, rng=np.random.default_rng(0), evaluator=evaluator, batch_size=8)
    search.search(game, state)
    root_call, *calls = evaluator.calls
    assert root_call == 1 and search.last_simulations == 40
    # simulations that end on a terminal node are backed up without the evaluator
    assert calls[0] == 8 and max(calls) == 8 and 30 <= sum(calls) <= 40


def test_a_time_budget_stops_a_batched_search():
    game, network = small_network("tris2")
    search = MCTSAgent(None, time_budget=0.05, rng=np.random.default_rng(0),
                       evaluator=NetworkEvaluator(network), batch_size=4)
    root = search.search(game, positions(game, seed=3, count=1)[0])
    assert search.last_simulations >= 1 and root.visits == search.last_simulations + 1


def narrow_position(game, seed=0):
    """A position of ``game`` with exactly two legal moves (every later descent collides)."""
    rng = np.random.default_rng(seed)
    while True:
        for state in positions(game, seed=int(rng.integers(1 << 30)), count=30):
            if len(game.legal_actions(state)) == 2:
                return state


def test_a_batch_larger_than_the_simulations_gathers_no_more_than_them(monkeypatch):
    game = make_game("tant_fant")
    state = narrow_position(game)
    evaluator = CountingEvaluator()
    search = Search(1.25, evaluator, batch_size=4096, rng=np.random.default_rng(0))
    descents = []
    select = search.select_leaf
    monkeypatch.setattr(search, "select_leaf", lambda root: descents.append(1) or select(root))
    root = search.run(game, state, Uniforms(np.random.default_rng(0)).draw, 10)
    assert search.last_simulations <= 10 and sum(evaluator.calls) <= 11
    # with two moves each round collides at once: no more collisions than simulations
    assert len(descents) <= 2 * 10 + 2, len(descents)
    assert root.visits == search.last_simulations + 1


def test_a_batched_search_stops_gathering_once_its_deadline_has_passed(monkeypatch):
    """A clock that moves a second a reading: the deadline passes during the first round,
    which stops gathering there, not after the batch's 4096 leaves."""
    game, network = small_network("tris2")
    evaluator = CountingEvaluator()
    search = Search(1.25, evaluator, batch_size=4096, rng=np.random.default_rng(0))
    clock = iter(range(10**6))
    monkeypatch.setattr("tris_envs.agents.mcts.time.perf_counter", lambda: float(next(clock)))
    state = positions(game, seed=3, count=1)[0]
    root = search.run(game, state, Uniforms(np.random.default_rng(0)).draw, None,
                      time_budget=2.5)
    assert 1 <= search.last_simulations <= 4 and sum(evaluator.calls) <= 5, evaluator.calls
    assert root.visits == search.last_simulations + 1


# ----- batch size 1: the sequential search --------------------------------------------------
def sequential_search(agent, game, state):
    """The search loop before batching, through the public steps (one leaf per call)."""
    root = agent.new_root(game, state)
    for _ in range(agent.simulations):
        if root.proven is not None:
            break
        path, returns = agent.select_leaf(root)
        if returns is None:
            returns = agent.expand(path[-1], agent.evaluator.evaluate(game, [path[-1].state])[0])
        agent.backup(path, returns)
    return root


def summary(root):
    return [(c.action, c.visits, c.total, c.proven) for c in root.children]


@pytest.mark.parametrize("name", ["tris2", "tritoc", "tant_fant"])
def test_batch_size_one_builds_the_sequential_searchs_tree(name):
    game, network = small_network(name)
    for i, state in enumerate(positions(game, seed=4, count=3)):
        trees = []
        for batched in (True, False):
            agent = MCTSAgent(40, rng=np.random.default_rng(i), exploration=1.25,
                              evaluator=NetworkEvaluator(network), batch_size=1)
            root = agent.search(game, state) if batched else sequential_search(agent, game,
                                                                                 state)
            trees.append(summary(root))
        assert trees[0] == trees[1]


# The choices of AZAgent at commit 93b9efd (before batching and the im2col network), on the
# positions of positions(game, 11, 8), agent i seeded with i: the shipped Tris 1 network with
# 30 simulations, random networks (width 8, 1 block, seed 7; format_1_network) with 20
# elsewhere.
BEFORE_BATCHING = {
    "tris1": [6, 4, 4, 4, 6, 6, 6, 4],
    "tris2": [82, 115, 115, 110, 6, 6, 43, 43],
    "tritoc": [55, 44, 54, 80, 27, 26, 65, 37],
    "doppia_scelta": [2, 0, 0, 0, 2, 0, 0, 2],
}


FORMAT_1_TRIS1 = Path(__file__).parent / "data" / "az_tris1_format1.npz"
"""The Tris 1 network shipped before the recipes (trained by a PyTorch learner since gone):
a format 1 file."""


def format_1_network(name, seed=7):
    """small_network as 93b9efd drew it: format 1's value head (``value.w1`` of shape
    ``(width, width)`` over the mean of the cells), then read as format 2 the way
    :func:`~tris_envs.agents.az_network.load` reads a format 1 file."""
    game = make_game(name)
    config = NetConfig(name, {}, 8, 1)
    shapes = config.shapes(game) | {"value.w1": (8, 8)}
    weights = initial_weights(shapes, np.random.default_rng(seed))
    cells = int(np.prod(game.info.observation_shape[:2]))
    weights["value.w1"] = np.tile(weights["value.w1"], (cells, 1)) / cells
    return game, Network(game, config, weights)


@pytest.mark.parametrize("name", sorted(BEFORE_BATCHING))
def test_batch_size_one_chooses_what_the_unbatched_search_chose(name):
    if name == "tris1":     # the Tris 1 network shipped then, a format 1 file
        game, network, simulations = make_game(name), FORMAT_1_TRIS1, 30
    else:
        (game, network), simulations = format_1_network(name), 20
    choices = [AZAgent(network, simulations, rng=np.random.default_rng(i), batch=1)
               .act(game, state) for i, state in enumerate(positions(game, 11, 8))]
    assert choices == BEFORE_BATCHING[name]


def test_plain_mcts_keeps_its_seeded_trees():
    """Random rollouts are not batched: mcts:200's trees are those of commit 93b9efd."""
    game = make_game("tris2")
    before = [[(74, 3), (82, 27), (9, 28), (0, 5), (3, 11), (8, 11)],
              [(75, 8), (111, 9), (110, 7), (5, 15), (76, 6), (45, 17)]]
    for i, state in enumerate(positions(game, 3, 2)):
        root = MCTSAgent(200, rng=np.random.default_rng(i)).search(game, state)
        assert [(c.action, c.visits) for c in root.children][:6] == before[i]


# ----- what the search finds ----------------------------------------------------------------
def test_batched_search_with_exact_values_keeps_the_solvers_value():
    game = make_game("tant_fant")
    solution = solve(game, game.initial_state(np.random.default_rng(0)))
    rng = np.random.default_rng(2)
    movers = [i for i in range(len(solution)) if solution.movers[i] >= 0
              and len(solution.actions[i]) > 1]
    for i in rng.choice(movers, size=30, replace=False):
        state = solution.states[i]
        agent = MCTSAgent(60, rng=np.random.default_rng(3), exploration=1.0,
                          evaluator=CountingEvaluator(solution), batch_size=8)
        assert agent.act(game, state) in solution.optimal_actions(state)


def winning_moves(game, state):
    mover = game.current_player(state)
    return [a for a in game.legal_actions(state)
            if game.returns(game.apply(state, a))[mover] > 0]


def test_a_network_that_knows_the_winning_moves_plays_them():
    """The shipped Tris 1 network, 8 simulations in one batch: every position of seeded
    random games where the mover can win at once."""
    game = make_game("tris1")
    found = [s for s in positions(game, seed=6, count=300) if winning_moves(game, s)]
    assert len(found) >= 20
    for i, state in enumerate(found):
        agent = AZAgent(SHIPPED_DIR / "az_tris1.npz", 8, rng=np.random.default_rng(i),
                        batch=8)
        assert agent.act(game, state) in winning_moves(game, state)


def test_a_proven_win_ends_the_batched_search_at_once():
    game = make_game("tris1")
    state = game.from_notation("XX./OO./...")      # X wins at 2; else O wins next
    evaluator = CountingEvaluator()
    search = MCTSAgent(400, rng=np.random.default_rng(0), evaluator=evaluator, batch_size=16)
    root = search.search(game, state)
    assert root.proven == 1 and MCTSAgent.best_action(root) == 2
    assert search.last_simulations < 400 and sum(evaluator.calls) < 60


# ----- chance and terminal nodes ------------------------------------------------------------
def test_chance_nodes_and_double_moves_in_a_narrow_tree():
    """DiceRace: two moves, chance nodes after a roll, a 3 moves again; the tree is narrow,
    so descents collide with leaves already waiting in their batch."""
    game = DiceRace()
    evaluator = CountingEvaluator()
    state = game.initial_state()
    for seed in range(4):
        search = MCTSAgent(120, rng=np.random.default_rng(seed), evaluator=evaluator,
                           batch_size=8)
        root = search.search(game, state)
        if root.proven is None:
            check_tree(root, search.last_simulations)
        assert search.last_simulations == 120 or root.proven is not None
        assert any(node.player == CHANCE for node in nodes(root))
        assert any(node.player == TERMINAL for node in nodes(root))
    assert max(evaluator.calls) <= 8


def test_tritoc_searches_pass_chance_nodes_to_player_nodes():
    game, network = small_network("tritoc")
    evaluator = CountingEvaluator()
    state = positions(game, seed=5, count=1)[0]
    root = MCTSAgent(60, rng=np.random.default_rng(0), evaluator=evaluator,
                     batch_size=8).search(game, state)
    check_tree(root, 60)
    assert any(node.player == CHANCE for node in nodes(root))


# ----- kept subtrees ------------------------------------------------------------------------
def test_a_kept_subtree_goes_on_from_the_position_reached():
    """Handed the child of the move played, the search finds the opponent's reply below it
    and goes on from that node: its visits, total and priors kept, the total turned to its
    own mover's view, the new simulations added."""
    game, network = small_network("tris2")
    state = positions(game, seed=8, count=1)[0]
    search = Search(1.25, NetworkEvaluator(network), batch_size=8)
    uniform = Uniforms(np.random.default_rng(0)).draw
    root = search.run(game, state, uniform, 300)
    played = max(root.children, key=lambda c: c.visits)
    reply = max((c for c in played.children if c.priors is not None), key=lambda c: c.visits)
    assert reply.visits > 1 and reply.owner != reply.player
    visits, total, priors = reply.visits, reply.total, dict(reply.priors)
    again = search.run(game, reply.state, uniform, 0, kept=played)
    assert again is reply and again.owner == again.player and again.action is None
    assert (again.visits, again.total, again.priors) == (visits, -total, priors)
    assert search.run(game, reply.state, uniform, 50, kept=again) is again
    assert search.last_simulations == 50 and search.last_nodes == sum(1 for _ in nodes(again))
    check_tree(again, visits + 49)


def test_the_kept_root_takes_its_movers_view_of_a_proof():
    """Tris 1, X to move must block O's row at 5; every other move is proven lost for X,
    who moved into it. Kept as the root of O's search, such a node is proven won for O, and
    O plays its win."""
    game = make_game("tris1")
    state = game.from_notation("X../OO./X..")
    search = Search(1.0, CountingEvaluator(), batch_size=1)
    uniform = Uniforms(np.random.default_rng(0)).draw
    root = search.run(game, state, uniform, 200)
    blunder = next(c for c in root.children if c.action != 5 and c.proven == -1)
    total = blunder.total
    again = search.run(game, blunder.state, uniform, 10, kept=blunder)
    assert again is blunder and again.proven == 1 and again.total == -total
    assert search.last_simulations == 0 and MCTSAgent.best_action(again) == 5


def test_a_position_outside_the_kept_subtree_gets_a_new_root():
    game, network = small_network("tris2")
    first, other = positions(game, seed=9, count=2)
    search = Search(1.25, NetworkEvaluator(network), batch_size=8)
    uniform = Uniforms(np.random.default_rng(0)).draw
    root = search.run(game, first, uniform, 100)
    again = search.run(game, other, uniform, 40, kept=root.children[0])
    assert again.state == other
    check_tree(again, 40)


def test_a_kept_subtree_is_found_through_chance_nodes_and_double_moves():
    """DiceRace: after a roll of 3 the roller moves again (the kept node's own child, no
    change of view); after a 1, the opponent's walk leads back to the roller."""
    game = DiceRace()
    search = Search(1.25, CountingEvaluator(), batch_size=1)
    uniform = Uniforms(np.random.default_rng(0)).draw
    root = search.run(game, game.initial_state(), uniform, 300)
    rolled = next(c for c in root.children if c.action == ROLL)
    three = rolled.children[rolled.outcomes.index(3)]
    assert three.player == three.owner == root.player
    visits = three.visits
    assert search.run(game, three.state, uniform, 5, kept=rolled) is three
    assert three.visits == visits + 5
    root = search.run(game, game.initial_state(), uniform, 300)
    rolled = next(c for c in root.children if c.action == ROLL)
    one = rolled.children[rolled.outcomes.index(1)]
    back = next(c for c in one.children if c.action == WALK)
    assert back.player == root.player and back.priors is not None
    assert search.run(game, back.state, uniform, 5, kept=rolled) is back


@pytest.mark.parametrize(("name", "share"), [("doppia_scelta", 0.25), ("tant_fant", 0.75)])
def test_az_with_reuse_plays_games_on_kept_trees(name, share, monkeypatch):
    """Through moves played without search (Doppia scelta) and returns to earlier
    positions (Tant Fant): legal moves, a share of the searches going on from kept nodes,
    the same moves again from the same seed."""
    from tris_envs.agents import az

    game, network = small_network(name)
    went_on = []

    class Spy(az.Search):
        def run(self, game, state, uniform, simulations, time_budget=None, kept=None):
            root = super().run(game, state, uniform, simulations, time_budget, kept=kept)
            went_on.append(root.visits > simulations + 1)
            return root

    monkeypatch.setattr(az, "Search", Spy)

    def play(seed):
        rng = np.random.default_rng(seed)
        agents = [AZAgent(network, 60, rng=np.random.default_rng(seed + i), reuse=True)
                  for i in range(2)]
        state = resolve_chance(game, game.initial_state(rng), rng)
        moves = []
        while game.current_player(state) >= 0 and len(moves) < 24:
            action = agents[game.current_player(state)].act(game, state)
            assert action in game.legal_actions(state)
            moves.append(action)
            state = resolve_chance(game, game.apply(state, action), rng)
        return moves

    assert play(2) == play(2)
    assert sum(went_on) >= share * len(went_on)


# ----- playout mix --------------------------------------------------------------------------
@pytest.mark.parametrize("mix", [0.0, 0.5, 1.0])
def test_the_playout_mix_weighs_the_network_against_one_playout_per_leaf(mix):
    """Each value is ``(1 - mix)`` times the network's plus ``mix`` times the return of one
    random playout drawn from the evaluator's generator; the priors stay the network's."""
    game, network = small_network("tritoc")
    states = positions(game, seed=3, count=6)
    plain = NetworkEvaluator(network).evaluate(game, states)
    mixed = PlayoutMixEvaluator(network, mix, np.random.default_rng(11)).evaluate(game, states)
    uniform = Uniforms(np.random.default_rng(11)).draw
    playouts = [game.random_playout(state, uniform, game.info.max_moves) for state in states]
    assert len({z for z, _ in playouts}) > 1            # the dice decide differently
    for ((v0, v1), priors), ((m0, m1), mixed_priors), (z0, z1) in zip(plain, mixed, playouts):
        assert mixed_priors == priors
        assert (m0, m1) == pytest.approx(((1 - mix) * v0 + mix * z0, (1 - mix) * v1 + mix * z1))


def test_the_shipped_tritoc_network_plays_with_the_playout_mix(monkeypatch):
    """``az`` on Tritoc searches its header's 1,000 simulations with half of each leaf's value
    from a playout, one leaf per network call; ``AZAgent(mix=0)`` turns the playouts off,
    ``mix`` and ``batch_size`` override the header, and a network whose header names no
    batch is searched in batches of ``BATCH_SIZE``."""
    from tris_envs.agents import az

    game = make_game("tritoc")
    used = []

    class Spy(az.Search):
        def run(self, game, state, uniform, simulations, time_budget=None, kept=None):
            used.append((simulations, self.evaluator, self.batch_size))
            return super().run(game, state, uniform, 4, time_budget)

    monkeypatch.setattr(az, "Search", Spy)
    state = positions(game, seed=1, count=1)[0]
    _, small = small_network("tritoc")
    for agent, budget, mix, batch in (
            (AZAgent(), 1000, 0.5, 1), (AZAgent(mix=0.0), 1000, None, 1),
            (AZAgent(batch=8), 1000, 0.5, 8), (AZAgent(small, 10), 10, None, BATCH_SIZE),
            (AZAgent(small, 10, mix=0.25, batch=2), 10, 0.25, 2)):
        agent.act(game, state)
        simulations, evaluator, batch_size = used[-1]
        assert (simulations, batch_size) == (budget, batch)
        assert isinstance(evaluator, PlayoutMixEvaluator) == (mix is not None)
        assert getattr(evaluator, "mix", None) == mix


def test_the_playout_mix_and_batch_are_saved_in_the_header_only_when_set(tmp_path):
    from tris_envs.agents.az_network import load, save

    game, network = small_network("tritoc")
    with np.load(save(network, tmp_path / "plain.npz")) as data:
        assert "mix" not in str(data["__config__"])
        assert "batch" not in str(data["__config__"])
    mixed = Network(game, NetConfig("tritoc", {}, 8, 1), network.weights,
                    search=SearchSettings(mix=0.25, batch=3))
    header = load(save(mixed, tmp_path / "mixed.npz"), game).search
    assert (header.mix, header.batch) == (0.25, 3)


@pytest.mark.parametrize("mix", [-0.1, 1.5, "0.5", True])
def test_bad_playout_mixes_are_refused(mix):
    with pytest.raises(ValueError, match="az search setting mix=.* must be a number in \\[0, 1\\]"):
        AZAgent(None, 10, mix=mix)


# ----- arguments ----------------------------------------------------------------------------
@pytest.mark.parametrize("batch_size", [0, -3, 1.5, "8", True, None, 4097])
def test_bad_batch_sizes_are_refused(batch_size):
    if batch_size is not None:              # az's None: the network's batch
        with pytest.raises(ValueError, match=r"az search setting batch=.* must be an integer "
                                             r"in \[1, 4096\]"):
            AZAgent(None, 10, batch=batch_size)
    if batch_size == 4097:                  # the search itself takes any: it caps its rounds
        return
    with pytest.raises(ValueError, match="batch_size=.* must be a positive integer"):
        MCTSAgent(10, evaluator=CountingEvaluator(), batch_size=batch_size)


def test_batches_need_an_evaluator():
    with pytest.raises(ValueError, match="batch_size=4 needs an evaluator"):
        MCTSAgent(10, batch_size=4)
    assert MCTSAgent(10, batch_size=1).batch_size == 1
    assert AZAgent().settings_for(make_game("tritoc")).batch == 1 < BATCH_SIZE  # the header's


# ----- the bench row ------------------------------------------------------------------------
def test_bench_times_az_moves():
    for tactics, traps in ((False, False), (True, False), (True, True)):
        seconds, cpu, simulations = az_seconds_per_move(6, 4, moves=3, seed=0, width=4,
                                                        blocks=1, tactics=tactics,
                                                        trap_planes=traps)
        assert seconds > 0 and cpu >= 0 and 1 <= simulations <= 6


def test_bench_report_has_its_four_rows(monkeypatch):
    import tris_envs.bench.engines as bench

    monkeypatch.setattr(bench, "AZ_CASE", ("tris2", 4, 1, 5, 0.1))
    lines = az_report(rounds=1, moves=2)
    assert lines[1].startswith("az:5 on tris2, a random network of width 4 and 1 blocks")
    assert lines[5].startswith("| 1 |") and lines[6].startswith(f"| {BATCH_SIZE} (default) |")
    assert lines[7].startswith(f"| {BATCH_SIZE} (default), tactics planes |")
    assert lines[8].startswith(f"| {BATCH_SIZE} (default), tactics and trap planes |")
    assert all(line.endswith("met |") for line in lines[5:9]) and len(lines) == 9


def test_bench_times_the_shipped_tritoc_network():
    seconds, cpu = shipped_az_seconds_per_move("tritoc", moves=2, seed=0, simulations=5, mix=0)
    assert seconds > 0 and cpu >= 0
    lines = shipped_az_report(rounds=1, moves=1)
    assert lines[1] == "az on tritoc with its shipped network, 1 moves of self-play, best of 1"
    assert lines[5].startswith("| as shipped (1000 simulations, playout mix 0.5, 1 leaf per "
                               "network call) |")
    assert lines[6].startswith(f"| 100 simulations, the network's values alone, {BATCH_SIZE} "
                               "leaves per call |")
    assert len(lines) == 7 and all(float(line.split("|")[2]) > 0 for line in lines[5:])
