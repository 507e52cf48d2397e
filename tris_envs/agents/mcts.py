"""Monte Carlo tree search (UCT) with chance nodes and proven values (MCTS-Solver).

Four roles, as OpenSpiel's ``algorithms/mcts.py`` has them: an **evaluator** values a new
node (:class:`RandomRollout`, the default; a learned :class:`Evaluator` gives values and
priors, the ``az`` agents' network), a **node** is one position of the tree
(:class:`MCTSNode`), the **search** grows one tree from a root (:class:`Search`, with its
options: the provers of new nodes, :class:`WinsAtOnce` and :class:`RulesProof`, the
discount, the batch of leaves per evaluator call, root noise) and the **bot** plays the
move its search chooses (:class:`MCTSAgent`, the ``mcts`` agents).

Each simulation descends the tree from the root:

* a player node with untried actions expands one of them, drawn at random; once all are
  expanded, UCT picks the child maximising ``mean + c * sqrt(ln N / n)``, the mean taken
  from the view of the node's mover (the player who moved into the child), skipping
  children proven lost for the mover;
* at a chance node, an outcome is drawn with its probability; its child is created the
  first time that outcome is drawn.

A new node is evaluated by a random rollout, :meth:`Game.random_playout
<tris_envs.core.game.Game.random_playout>` (uniformly random legal actions, chance outcomes
drawn with their probabilities, at most ``game.info.max_moves`` player plies; a rollout
that reaches the limit counts as a draw, as truncation does in the environments)
and the game's returns are added along the path, each node taking the return of its
*owner*: the player who moved into it (``current_player`` of its parent, so a player who
moves twice in a row is handled like any other move; a chance outcome's child inherits the
owner of its chance node; the root's owner is its own mover).

Proven values (MCTS-Solver) are backed up from terminal nodes: a player node is proven won
for its mover as soon as one child is proven won for that mover, and proven once every
action is expanded and proven (its value is then the mover's best); a chance node is proven
only when every outcome is expanded and proven with the same value. A simulation that
reaches a proven node adds that node's proven result instead of a rollout. The search ends
early when the root is proven; the agent then plays the shortest proven win (or the longest
proven loss), so a proven win is played at once.

**Memory bound.** A tree holds at most ``max_nodes`` nodes (default
:data:`MAX_NODES`, about 0.5 to 2 kB each depending on the game): :meth:`MCTSAgent.search`
stops, as if its budget were spent, once the tree has grown to ``max_nodes`` nodes, and
the move is chosen from that tree. Each simulation adds at most one node (two when it
passes through a new chance node to an evaluated player node), so ordinary budgets never
reach the bound; it stops long time budgets (``mcts:300s``) from filling the memory.
Code that drives :meth:`MCTSAgent.select_leaf` itself keeps its own limit.

Each move searches a fresh tree (no transpositions), unless the search is handed the tree
of its previous move (below). Random numbers come from the injected generator in batches
of uniforms, which keeps the rollout loop free of per-call generator overhead; games with
a fast rollout path draw the same uniforms as the generic one, so a seeded search builds
the same tree on either path.

**Decisive moves** (``decisive=True``, spec ``mcts:<simulations>:decisive``): a new node
whose player to move can win at once is proven at creation, lost for the player who moved
into it (won when that player moves again), without a rollout (the "decisive moves" check
of Teytaud & Teytaud 2010). Under a losing move every non-winning reply looks good for the
mover in random rollouts; the check removes those blunders.

**Rules-core proofs** (``proofs=True``, the ``az`` agents): a new node whose position the
rules core proves won by force (:meth:`Game.proven_winner
<tris_envs.core.game.Game.proven_winner>`: in Tris 2, the last placements searched
exactly) is proven at creation, with the proof's length as its depth. The proofs of one
search share one cache.

**A learned evaluator** (``evaluator=...``, the ``az`` agents): the same search, with a new
player node valued by the evaluator instead of a rollout, and the evaluator's priors over
the node's actions steering the selection by PUCT: ``Q + c * P * sqrt(N) / (1 + n)``
(unvisited actions count ``Q = 0``). Chance nodes keep their exact outcome probabilities;
the search passes through a new chance node to a player node before evaluating.
:meth:`MCTSAgent.select_leaf` and :meth:`MCTSAgent.backup` split a simulation in two so that
several leaves can be evaluated in one network call (below).

**Discount** (``discount=g`` below 1): a return reached ``k`` player moves below a node
(a rollout's or an evaluation's at the leaf, a proven result ``depth`` moves below a proven
leaf) adds ``g ** k`` times itself to that node's total, so that of two ways to the same
result the shorter is worth more: a won position near its win is worth more than one far
from it, and a lost one further from its loss. Chance outcomes count no move. Proofs and
the choice between proven moves are unchanged. A network trained with the learner's
``discount`` learns values discounted the same way; the ``az`` agents play it with its
discount (:attr:`~tris_envs.agents.search_settings.SearchSettings.discount`).

**Batched leaves** (``batch_size=B`` with an evaluator, the ``az`` agents' default): one
search gathers up to ``B`` new leaves per evaluator call, as AlphaZero implementations do.
Each descent leaves a *virtual loss* on its path (a visit and a return of -1 for each node's
owner) so that the next descent of the round prefers other moves; a descent that runs into
a leaf already waiting in the round (a *collision*) counts no simulation, keeps its virtual
loss until the round ends, and after ``B`` collisions the round stops gathering (``B`` is
taken as the search's simulations where it is larger, and a search with a time budget
stops gathering once its deadline has passed). Descents
that end on a terminal or proven node are backed up at once. Then the gathered leaves are
evaluated in one call, every virtual loss is taken back and the evaluations are backed up
in the order the leaves were reached. ``batch_size=1`` is the one-leaf-at-a-time search
above, without virtual losses: the same tree for the same seed.

**Kept subtrees** (``Search.run(..., kept=node)``, the ``az`` agents' ``reuse`` setting):
handed the child of the move it played last, the search looks for the new position among
that node's descendants, at most :data:`KEPT_PLIES` plies down (the opponent's moves, the
chance outcomes and the single moves played without search in between), and goes on from
it: the node becomes the root, with its visits, values, priors and proofs, and the new
simulations are added to them. Its owner becomes its own mover (its total and proof
turned to that view), the rest of the old tree is dropped, and the bound on the nodes
counts the kept ones. A position the old tree never reached, or reached but never
evaluated, gets a new root. Root noise is mixed into new roots only.
"""

from __future__ import annotations

import math
import time
from bisect import bisect_right
from collections.abc import Callable, Sequence
from itertools import accumulate
from typing import Any, Protocol

import numpy as np

from tris_envs.core.errors import brief
from tris_envs.core.game import CHANCE, TERMINAL, Game, can_win_at_once

_UNIFORM_BATCH = 4096
MAX_NODES = 1_000_000
"""Default bound on the nodes of one search tree (see "Memory bound" above)."""
KEPT_PLIES = 24
"""How far below the kept node a search looks for its new root (see "Kept subtrees")."""
# backed-up returns of a proven value v for owner o: _PROVEN_RETURNS[o][v]
_PROVEN_RETURNS = (
    {1: (1.0, -1.0), 0: (0.0, 0.0), -1: (-1.0, 1.0)},
    {1: (-1.0, 1.0), 0: (0.0, 0.0), -1: (1.0, -1.0)},
)

Evaluation = tuple[tuple[float, float], Sequence[float]]
"""The returns a state is expected to give each player, and the prior probability of each
of its legal actions (in ``game.legal_actions`` order)."""


class Uniforms:
    """Uniform draws in [0, 1) from ``rng``, one per :meth:`draw`, taken from the generator
    in batches (the rollout loop draws once a ply, and a generator call per draw would cost
    more than the ply). Pass the bound ``draw`` where a ``uniform()`` callable is wanted: it
    calls faster than an instance with ``__call__``."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self._draws: list[float] = []
        self._next = 0

    def draw(self) -> float:
        """The next uniform draw."""
        if self._next >= len(self._draws):
            self._draws = self.rng.random(_UNIFORM_BATCH).tolist()
            self._next = 0
        u = self._draws[self._next]
        self._next += 1
        return u


class Evaluator(Protocol):
    """Values and priors for states where a player is to move (a network, say)."""

    def evaluate(self, game: Game, states: Sequence[Any]) -> list[Evaluation]:
        """One :data:`Evaluation` per state."""
        ...


class MCTSNode:
    """One node of the search tree.

    Attributes:
        state: The game state of this node.
        action: The action (or chance outcome) that led here from the parent; ``None`` at
            the root.
        owner: The player whose view ``total`` and ``proven`` take: the player who moved
            into this node (the root's owner is its own mover).
        player: ``game.current_player(state)``.
        children: Player node: the expanded children in expansion order. Chance node: one
            slot per outcome (``None`` until that outcome is first drawn).
        untried: Player node: the legal actions not expanded yet.
        outcomes: Chance node: the outcomes, in ``game.chance_outcomes`` order.
        cumulative: Chance node: the cumulative outcome probabilities.
        visits: Simulations through this node.
        total: Sum of the owner's returns over those simulations.
        proven: ``None`` while unknown, else the proven result for the owner (+1, 0, -1).
        depth: Plies of the proof below a proven node (0 at a terminal state).
        priors: Player node valued by an evaluator: its actions' prior probabilities.
    """

    __slots__ = ("state", "action", "owner", "player", "children", "untried", "outcomes",
                 "cumulative", "visits", "total", "proven", "depth", "priors")

    def __init__(self, game: Game, state: Any, action: int | None, owner: int) -> None:
        self.state = state
        self.action = action
        self.owner = owner
        self.player = player = game.current_player(state)
        self.visits = 0
        self.total = 0.0
        self.proven: int | None = None
        self.depth = 0
        self.priors: dict[int, float] | None = None
        self.children: list[Any] = []
        self.untried: list[int] = []
        self.outcomes: list[int] = []
        self.cumulative: list[float] = []
        if player >= 0:
            self.untried = list(game.legal_actions(state))
        elif player == CHANCE:
            outcomes = game.chance_outcomes(state)
            self.outcomes = [o for o, _ in outcomes]
            self.cumulative = list(accumulate(p for _, p in outcomes))
            self.children = [None] * len(outcomes)
        else:
            r = game.returns(state)[owner]
            self.proven = (r > 0) - (r < 0)

    @property
    def value(self) -> float:
        """Mean return for the owner (0 before any visit)."""
        return self.total / self.visits if self.visits else 0.0

    def __repr__(self) -> str:
        return (f"MCTSNode(action={self.action}, owner={self.owner}, visits={self.visits}, "
                f"value={self.value:+.3f}, proven={self.proven})")


class RandomRollout:
    """The rollout evaluator: a new node's returns are those of one random playout from it
    (:meth:`Game.random_playout <tris_envs.core.game.Game.random_playout>`, at most
    ``game.info.max_moves`` player plies, then a draw), drawn with the search's uniforms; no
    priors, so the search expands a node's actions in random order and selects by UCT."""

    def returns(self, game: Game, state: Any, uniform: Callable[[], float]) -> tuple[float, float]:
        """The returns of one random playout from ``state``."""
        return game.random_playout(state, uniform, game.info.max_moves)


class Prover(Protocol):
    """A check that proves some new nodes at creation, without evaluating them."""

    def prove(self, game: Game, state: Any, memo: dict[Any, Any]) -> tuple[int, int] | None:
        """``(winner, plies)`` when the player ``winner`` wins ``state`` by force in
        ``plies`` plies, else ``None``; ``memo``: the search's cache."""
        ...


class WinsAtOnce:
    """The decisive-moves check (see "Decisive moves" above): the player to move can win
    at once."""

    def prove(self, game: Game, state: Any, memo: dict[Any, Any]) -> tuple[int, int] | None:
        return (game.current_player(state), 1) if can_win_at_once(game, state) else None


class RulesProof:
    """The rules core's proofs (see "Rules-core proofs" above,
    :meth:`Game.proven_winner <tris_envs.core.game.Game.proven_winner>`)."""

    def prove(self, game: Game, state: Any, memo: dict[Any, Any]) -> tuple[int, int] | None:
        return game.proven_winner(state, memo)


class Search:
    """The search role: grows one tree per :meth:`run` from a root, with its options.

    Args:
        exploration: The UCT constant ``c`` (returns lie in [-1, 1]); with a learned
            evaluator, the PUCT constant.
        evaluator: Values and priors of new player nodes (a network); ``None``: random
            rollouts (:class:`RandomRollout`).
        provers: Checks that prove new player nodes at creation, tried in order
            (:class:`WinsAtOnce`, :class:`RulesProof`).
        root_noise: ``(alpha, fraction)``: mix Dirichlet(``alpha``) noise into the root's
            priors with weight ``fraction`` (AlphaZero's exploration; evaluator only),
            drawn from ``rng``.
        max_nodes: The search stops once its tree holds this many nodes.
        batch_size: New leaves evaluated per evaluator call, gathered with virtual losses
            (see "Batched leaves" above); more than 1 needs an evaluator.
        discount: Worth of a return one move later (see "Discount" above).
        rng: Generator of the root noise.

    Attributes:
        memo: The cache of the latest search's proofs.
        last_simulations: Simulations run by the latest search.
        last_nodes: Nodes in the tree of the latest search.
    """

    def __init__(self, exploration: float, evaluator: Evaluator | None = None,
                 provers: Sequence[Prover] = (), root_noise: tuple[float, float] | None = None,
                 max_nodes: int = MAX_NODES, batch_size: int = 1, discount: float = 1.0,
                 rng: np.random.Generator | None = None) -> None:
        self.exploration = float(exploration)
        self.evaluator = evaluator
        self.rollout = RandomRollout()
        self.provers = tuple(provers)
        self.root_noise = root_noise
        self.max_nodes = int(max_nodes)
        self.batch_size = int(batch_size)
        self.discount = float(discount)
        self.rng = rng if rng is not None else np.random.default_rng()
        self.memo: dict[Any, Any] = {}
        self.last_simulations = 0
        self.last_nodes = 0
        self._nodes = 0
        self._game: Game
        self._uniform: Callable[[], float]

    def run(self, game: Game, state: Any, uniform: Callable[[], float],
            simulations: int | None, time_budget: float | None = None,
            kept: MCTSNode | None = None) -> MCTSNode:
        """Search from ``state`` until ``simulations`` simulations, ``time_budget`` seconds
        (the first reached; at least one simulation), a full tree or a proven root; the
        root of the tree. ``uniform``: the draws of the expansions, rollouts and chance
        outcomes. ``kept``: a node of this search's previous tree (the child of the move
        played); when ``state`` is in its subtree a few plies down, the search goes on from
        that node (see "Kept subtrees" above) instead of a new root.

        Raises:
            ValueError: ``state`` is terminal or a chance node.
        """
        player = game.current_player(state)
        if player < 0:
            what = "is over" if player == TERMINAL else "is at a chance node"
            raise ValueError(f"MCTS: no player to move, the game {what}: "
                             f"{game.to_notation(state)!r}")
        root = None if kept is None else self._reroot(game, kept, state, uniform)
        if root is None:
            root = self.new_root(game, state, uniform)
        limit = simulations
        deadline = None if time_budget is None else time.perf_counter() + time_budget
        batch = self.batch_size if limit is None else min(self.batch_size, limit)
        count = 0
        while root.proven is None:
            if limit is not None and count >= limit:
                break
            if deadline is not None and count and time.perf_counter() >= deadline:
                break
            if self._nodes >= self.max_nodes:
                break
            if self.batch_size > 1:
                count += self._batch_round(root, batch if limit is None
                                           else min(batch, limit - count), batch, deadline)
                continue
            path, returns = self.select_leaf(root)
            if returns is None and self.evaluator is not None:
                returns = self.expand(path[-1], self.evaluator.evaluate(game, [path[-1].state])[0])
            assert returns is not None  # select_leaf waits for an evaluator only with one
            self.backup(path, returns)
            count += 1
        self.last_simulations = count
        self.last_nodes = self._nodes
        return root

    def new_root(self, game: Game, state: Any, uniform: Callable[[], float]) -> MCTSNode:
        """The root of a search from ``state``; with an evaluator, its priors set (noise
        mixed in as ``root_noise`` says)."""
        self._game = game
        self._uniform = uniform
        self.memo = {}
        self._nodes = 1
        root = MCTSNode(game, state, None, game.current_player(state))
        if self.evaluator is not None:
            returns = self.expand(root, self.evaluator.evaluate(game, [state])[0])
            self.backup([root], returns)
            if self.root_noise is not None and root.priors:
                alpha, fraction = self.root_noise
                noise = self.rng.dirichlet([alpha] * len(root.priors))
                root.priors = {a: (1 - fraction) * p + fraction * n
                               for (a, p), n in zip(root.priors.items(), noise)}
        return root

    def _reroot(self, game: Game, kept: MCTSNode, state: Any,
                uniform: Callable[[], float]) -> MCTSNode | None:
        """The node of ``kept``'s subtree, at most :data:`KEPT_PLIES` plies below it,
        whose state is ``state``, made the root of this search; ``None`` if there is none
        (or it was never evaluated, or the tree is of another game)."""
        if self._game is not game:
            return None
        level = [kept]
        for _ in range(KEPT_PLIES):
            found = next((n for n in level if n.state == state), None)
            if found is not None:
                break
            level = [c for n in level for c in n.children if c is not None]
        else:
            return None
        if found.priors is None or not found.children:
            return None
        if found.owner != found.player:   # the root takes its own mover's view
            found.owner = found.player
            found.total = -found.total
            if found.proven is not None:
                found.proven = -found.proven
        found.action = None
        self._uniform = uniform
        count, stack = 0, [found]
        while stack:
            node = stack.pop()
            count += 1
            stack.extend(c for c in node.children if c is not None)
        self._nodes = count
        return found

    @staticmethod
    def expand(node: MCTSNode, evaluation: Evaluation) -> tuple[float, float]:
        """Give a leaf its evaluator's priors; return the evaluated returns to back up."""
        returns, priors = evaluation
        node.priors = dict(zip(node.untried, priors))
        node.untried.sort(key=node.priors.__getitem__)   # the likeliest last, popped first
        return returns

    # ----- one simulation -------------------------------------------------------------
    def select_leaf(self, root: MCTSNode) -> tuple[list[MCTSNode], tuple[float, float] | None]:
        """Descend from ``root`` to a new node; the path and the returns to back up.

        The returns are ``None`` when the new node waits for the evaluator: pass its
        evaluation through :meth:`expand`, then :meth:`backup` the path. (In a batched
        search the path may also end on a leaf that already waits: a collision.)
        """
        node = root
        path = [root]
        evaluated = self.evaluator is not None
        ret: tuple[float, float] | None
        while True:
            if node.proven is not None:
                ret = _PROVEN_RETURNS[node.owner][node.proven]
                break
            children = node.children
            if node.player == CHANCE:
                cumulative = node.cumulative
                i = min(bisect_right(cumulative, self._uniform() * cumulative[-1]),
                        len(children) - 1)
                child = children[i]
                if child is None:
                    outcome = node.outcomes[i]
                    child = children[i] = self._new_node(node.state, outcome, node.owner)
                    path.append(child)
                    if evaluated and child.player == CHANCE:
                        node = child
                        continue
                    ret = self._leaf_returns(child)
                    break
                node = child
                path.append(node)
                continue
            untried = node.untried
            if node.priors is not None:
                chosen = self._select_puct(node)
                if isinstance(chosen, MCTSNode):
                    node = chosen
                    path.append(node)
                    continue
                untried.remove(chosen)
                child = self._new_node(node.state, chosen, node.player)
                children.append(child)
                path.append(child)
                if child.player == CHANCE:
                    node = child
                    continue
                ret = self._leaf_returns(child)
                break
            if evaluated:   # a leaf still waiting for its evaluation: a batch's collision
                ret = None
                break
            if untried:
                j = int(self._uniform() * len(untried))
                action = untried[j]
                untried[j] = untried[-1]
                untried.pop()
                child = self._new_node(node.state, action, node.player)
                children.append(child)
                path.append(child)
                ret = self._leaf_returns(child)
                break
            node = self._select(node)
            path.append(node)
        return path, ret

    def backup(self, path: list[MCTSNode], ret: tuple[float, float]) -> None:
        """Add the returns ``ret`` of the last node of ``path`` to every node of the path
        (times ``discount`` for every move between them); prove what they now prove."""
        if self.discount == 1.0:
            for n in path:
                n.visits += 1
                n.total += ret[n.owner]
        else:
            leaf = path[-1]
            worth = self.discount ** leaf.depth if leaf.proven else 1.0
            for i in range(len(path) - 1, -1, -1):
                n = path[i]
                n.visits += 1
                n.total += worth * ret[n.owner]
                if i and path[i - 1].player >= 0:
                    worth *= self.discount
        if path[-1].proven is not None:
            for n in reversed(path[:-1]):
                if not self._prove(n):
                    break

    def _batch_round(self, root: MCTSNode, budget: int, batch: int,
                     deadline: float | None) -> int:
        """Up to ``budget`` simulations with their new leaves evaluated in one evaluator
        call (see "Batched leaves" above); the number of simulations run. The round stops
        gathering after ``batch`` collisions, and once ``deadline`` (a
        ``time.perf_counter()``) has passed with a simulation in it."""
        waiting: list[list[MCTSNode]] = []
        leaves: set[MCTSNode] = set()
        collided: list[list[MCTSNode]] = []
        done = 0
        while (done + len(waiting) < budget and len(collided) < batch
               and root.proven is None and self._nodes < self.max_nodes
               and (deadline is None or not done + len(waiting)
                    or time.perf_counter() < deadline)):
            path, returns = self.select_leaf(root)
            if returns is not None:
                self.backup(path, returns)
                done += 1
                continue
            leaf = path[-1]
            if leaf in leaves:
                collided.append(path)
            else:
                waiting.append(path)
                leaves.add(leaf)
            for node in path:
                node.visits += 1
                node.total -= 1.0
        for path in collided:
            for node in path:
                node.visits -= 1
                node.total += 1.0
        if not waiting:
            return done
        assert self.evaluator is not None  # batch_size > 1 needs one
        evaluations = self.evaluator.evaluate(self._game, [path[-1].state for path in waiting])
        for path, evaluation in zip(waiting, evaluations):
            for node in path:
                node.visits -= 1
                node.total += 1.0
            self.backup(path, self.expand(path[-1], evaluation))
        return done + len(waiting)

    def _new_node(self, state: Any, action: int, owner: int) -> MCTSNode:
        """The child reached by ``action``, proven by the first of the provers that proves
        it."""
        game = self._game
        self._nodes += 1
        child = MCTSNode(game, game.apply(state, action), action, owner)
        if child.player >= 0:
            for prover in self.provers:
                proof = prover.prove(game, child.state, self.memo)
                if proof is not None:
                    child.proven = 1 if proof[0] == owner else -1
                    child.depth = proof[1]
                    break
        return child

    def _leaf_returns(self, node: MCTSNode) -> tuple[float, float] | None:
        """Returns of a new node: proven, a rollout, or ``None`` (wait for the evaluator)."""
        if node.proven is not None:
            return _PROVEN_RETURNS[node.owner][node.proven]
        if self.evaluator is not None and node.player >= 0:
            return None
        return self._evaluate(node)

    def _select_puct(self, node: MCTSNode) -> MCTSNode | int:
        """PUCT choice at a node with priors: a child, or an untried action to expand."""
        priors = node.priors
        assert priors is not None  # callers check
        c = self.exploration * math.sqrt(node.visits)
        best: MCTSNode | int | None = None
        best_score = -math.inf
        for child in node.children:
            if child.proven == -1:
                continue
            visits = child.visits
            score = child.total / visits + c * priors[child.action] / (1 + visits)
            if score > best_score:
                best, best_score = child, score
        if node.untried:
            action = node.untried[-1]   # sorted by prior: the likeliest untried action
            if c * priors[action] > best_score or best is None:
                best = action
        if best is None:   # every child proven lost: take the least bad
            best = max(node.children, key=lambda child: child.depth)
        return best

    def _select(self, node: MCTSNode) -> MCTSNode:
        """UCT choice among the children of an expanded player node."""
        c = self.exploration * math.sqrt(math.log(node.visits))
        sqrt = math.sqrt
        best = None
        best_score = -math.inf
        for child in node.children:
            if child.proven == -1:
                continue
            visits = child.visits
            score = child.total / visits + c / sqrt(visits)
            if score > best_score:
                best, best_score = child, score
        assert best is not None  # an unproven node has a child not proven lost
        return best

    def _prove(self, node: MCTSNode) -> bool:
        """Mark ``node`` proven if its children now prove it; whether it is proven."""
        children = node.children
        if node.player == CHANCE:
            first = children[0]
            if first is None or first.proven is None:
                return False
            value = first.proven
            for child in children:
                if child is None or child.proven != value:
                    return False
            node.proven = value
            node.depth = 1 + max(child.depth for child in children)
            return True
        sign = 1 if node.owner == node.player else -1
        wins = [child.depth for child in children if child.proven == 1]
        if wins:
            node.proven = sign
            node.depth = 1 + min(wins)
            return True
        if node.untried or any(child.proven is None for child in children):
            return False
        best = max(child.proven for child in children)
        node.proven = sign * best
        node.depth = 1 + max(child.depth for child in children) if best == -1 else 0
        return True

    def _evaluate(self, node: MCTSNode) -> tuple[float, float]:
        """Returns of a random rollout from a new node (its own returns when terminal)."""
        return self.rollout.returns(self._game, node.state, self._uniform)


class MCTSAgent:
    """The bot role: UCT with random rollouts, chance nodes and proven wins / losses (or
    a learned evaluator), playing the move its :class:`Search` chooses.

    Args:
        simulations: Simulations per move (``None``: no limit; then ``time_budget`` is
            required). The search stops earlier when the root is proven.
        time_budget: Seconds per move (``None``: no limit; at least one simulation runs).
            With both limits, the first reached stops the search. A time budget makes play
            depend on machine speed.
        exploration: The UCT constant ``c`` (returns lie in [-1, 1]); with an evaluator,
            the PUCT constant.
        rng: Generator for expansion order, rollouts and chance outcomes; with a fixed
            seed and a simulation limit the agent plays reproducibly.
        decisive: Prove new nodes whose player to move can win at once (see above).
        evaluator: Values and priors for new player nodes instead of random rollouts.
        root_noise: ``(alpha, fraction)``: mix Dirichlet(``alpha``) noise into the root's
            priors with weight ``fraction`` (AlphaZero's exploration; evaluator only).
        max_nodes: The search stops once its tree holds this many nodes (see "Memory
            bound" above).
        batch_size: New leaves evaluated per evaluator call, gathered with virtual losses
            (see "Batched leaves" above); more than 1 needs an evaluator.
        discount: Worth of a return one move later (see "Discount" above); 1, the
            default, backs up every return as it is.
        proofs: Prove new nodes that the rules core proves won by force
            (:meth:`~tris_envs.core.game.Game.proven_winner`: Tris 2's last placements);
            off by default, so ``mcts`` keeps its published results.

    Attributes:
        name: ``"mcts:<simulations>"``, or ``"mcts:<seconds>s"`` with a time budget (and
            ``":decisive"`` with the check): the spec
            :func:`~tris_envs.agents.make_agent` builds this agent from.
        last_simulations: Simulations run by the latest search.
        last_nodes: Nodes in the tree of the latest search.
        memo: The cache of the latest search's proofs (``proofs``).

    Raises:
        ValueError: a limit that is not positive, or neither limit given; a
            ``batch_size`` that is not a positive integer, or above 1 without an
            evaluator.
    """

    def __init__(self, simulations: int | None = 1000, time_budget: float | None = None,
                 exploration: float = 1.4, rng: np.random.Generator | None = None,
                 decisive: bool = False, evaluator: Evaluator | None = None,
                 root_noise: tuple[float, float] | None = None,
                 max_nodes: int = MAX_NODES, batch_size: int = 1,
                 discount: float = 1.0, proofs: bool = False) -> None:
        if simulations is None and time_budget is None:
            raise ValueError("MCTSAgent needs a limit: simulations, time_budget or both")
        if simulations is not None and (isinstance(simulations, bool)
                                        or not isinstance(simulations, (int, np.integer))
                                        or simulations < 1):
            raise ValueError(f"simulations={brief(simulations)} must be a positive integer")
        if (isinstance(max_nodes, bool) or not isinstance(max_nodes, (int, np.integer))
                or max_nodes < 1):
            raise ValueError(f"max_nodes={brief(max_nodes)} must be a positive integer")
        if (isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer))
                or batch_size < 1):
            raise ValueError(f"batch_size={brief(batch_size)} must be a positive integer (new "
                             "leaves per evaluator call)")
        if batch_size > 1 and evaluator is None:
            raise ValueError(f"batch_size={batch_size} needs an evaluator: random rollouts "
                             "are not batched")
        if time_budget is not None and not (isinstance(time_budget, (int, float))
                                            and time_budget > 0):
            raise ValueError(f"time_budget={brief(time_budget)} must be a positive number of "
                             "seconds")
        if not (isinstance(exploration, (int, float)) and exploration >= 0):
            raise ValueError(f"exploration={brief(exploration)} must be a number >= 0")
        if (isinstance(discount, bool) or not isinstance(discount, (int, float))
                or not 0 < discount <= 1):
            raise ValueError(f"discount={brief(discount)} must be a number in (0, 1]")
        self.simulations = None if simulations is None else int(simulations)
        self.time_budget = None if time_budget is None else float(time_budget)
        self.exploration = float(exploration)
        self.rng = rng if rng is not None else np.random.default_rng()
        self.name = (f"mcts:{self.simulations}" if time_budget is None
                     else f"mcts:{self.time_budget:g}s") + (":decisive" if decisive else "")
        self.decisive = bool(decisive)
        self.proofs = bool(proofs)
        self.tree = Search(exploration, evaluator,
                           (WinsAtOnce(),) * self.decisive + (RulesProof(),) * self.proofs,
                           root_noise, max_nodes, batch_size, discount, self.rng)
        self._uniform = Uniforms(self.rng).draw

    # ----- public --------------------------------------------------------------------
    def act(self, game: Game, state: Any) -> int:
        """The move chosen by a search from ``state`` (a single legal move is played at once).

        Raises:
            ValueError: ``state`` is terminal or a chance node.
        """
        legal = game.legal_actions(state)
        if len(legal) == 1:
            return int(legal[0])
        return self.best_action(self.search(game, state))

    def search(self, game: Game, state: Any) -> MCTSNode:
        """Run the search from ``state`` and return the root of its tree.

        Raises:
            ValueError: ``state`` is terminal or a chance node.
        """
        return self.tree.run(game, state, self._uniform, self.simulations, self.time_budget)

    def new_root(self, game: Game, state: Any) -> MCTSNode:
        """The root of a search from ``state`` (:meth:`Search.new_root`), for code that
        drives :meth:`select_leaf` and :meth:`backup` itself."""
        return self.tree.new_root(game, state, self._uniform)

    def select_leaf(self, root: MCTSNode) -> tuple[list[MCTSNode], tuple[float, float] | None]:
        """One descent of the search (:meth:`Search.select_leaf`)."""
        return self.tree.select_leaf(root)

    def backup(self, path: list[MCTSNode], ret: tuple[float, float]) -> None:
        """One backup of the search (:meth:`Search.backup`)."""
        self.tree.backup(path, ret)

    expand = staticmethod(Search.expand)

    @property
    def evaluator(self) -> Evaluator | None:
        return self.tree.evaluator

    @property
    def batch_size(self) -> int:
        return self.tree.batch_size

    @property
    def discount(self) -> float:
        return self.tree.discount

    @property
    def max_nodes(self) -> int:
        return self.tree.max_nodes

    @property
    def memo(self) -> dict[Any, Any]:
        return self.tree.memo

    @property
    def last_simulations(self) -> int:
        return self.tree.last_simulations

    @property
    def last_nodes(self) -> int:
        return self.tree.last_nodes

    @staticmethod
    def visit_counts(root: MCTSNode) -> dict[int, int]:
        """Visits of each expanded root action (the search's policy)."""
        return {child.action: child.visits for child in root.children}

    @staticmethod
    def best_action(root: MCTSNode) -> int:
        """The move to play from a searched root.

        Proven root: the shortest proven win, else (a proven draw) the most visited
        drawing move, else (a proven loss) the longest proven loss. Otherwise the most
        visited move not proven lost (ties: the higher mean), as long as there is one.
        """
        children = root.children
        if root.proven == 1:
            return min((c for c in children if c.proven == 1), key=lambda c: c.depth).action
        if root.proven == -1:
            return max(children, key=lambda c: c.depth).action
        if root.proven == 0:
            children = [c for c in children if c.proven == 0]
        else:
            alive = [c for c in children if c.proven != -1]
            children = alive or children
        return max(children, key=lambda c: (c.visits, c.value)).action
