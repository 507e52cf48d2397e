"""The ``az`` agents: a policy/value network guiding the same MCTS the scripted agents use.

Specs (:func:`~tris_envs.agents.make_agent`):

* ``az``: the network shipped for the game (and its options, see below) with its search
  budget: :data:`DEFAULT_SIMULATIONS` simulations per move unless the network's header
  names another (:attr:`SearchSettings.simulations`, for a game that needs a deeper search),
  each new leaf valued by the network, or partly by a random playout where the header
  says so (:attr:`SearchSettings.mix`, :class:`PlayoutMixEvaluator`: Tritoc's network);
* ``az:<simulations>``: the shipped network with that search budget; ``az:0`` plays the
  network's own policy (its most probable legal action) without search;
* ``az:<path>`` / ``az:<path>:<simulations>``: a network file (``.npz``).

Shipped networks live in ``tris_envs/checkpoints/az_<game>.npz``; a network trained for a
variant is ``az_<game>__<option>=<value>[__...].npz`` (options that differ from the
defaults, ``max_moves`` aside, sorted by name) and is preferred when the game has exactly
those options. Playing needs NumPy only. The search evaluates its new leaves
:data:`BATCH_SIZE` at a time, in one network call, unless the network's header names
another batch (:attr:`SearchSettings.batch`: 1, the plain sequential search, for Tritoc's
network; see :class:`AZAgent`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from itertools import chain
from pathlib import Path
from typing import Any, cast

import numpy as np

from tris_envs.agents.az_network import Network, load
from tris_envs.agents.cache import LRUCache
from tris_envs.agents.mcts import (
    Evaluation,
    MCTSAgent,
    MCTSNode,
    RulesProof,
    Search,
    Uniforms,
    WinsAtOnce,
)
from tris_envs.agents.search_settings import SearchSettings, setting_text
from tris_envs.agents.shipped import SHIPPED_DIR, changed_options, shipped_variant
from tris_envs.core.game import Game, wins_at_once
from tris_envs.games import tactics_of

DEFAULT_SIMULATIONS = SearchSettings().simulations
EXPLORATION = SearchSettings().exploration
BATCH_SIZE = SearchSettings().batch
"""New leaves a search evaluates per network call where neither the agent nor the
network's header names a batch (see :class:`AZAgent`)."""

_NETWORKS: LRUCache[tuple[str, str], Network] = LRUCache(8)


class NetworkEvaluator:
    """:class:`~tris_envs.agents.mcts.Evaluator` of a network: each state's value for its
    player to move, as returns, and its policy over the legal actions as priors.

    One network call for all the states; the priors are a softmax over each state's legal
    actions' logits (what :meth:`Network.evaluate` gives, without the full masked rows),
    computed for the whole batch in a few array operations.
    """

    def __init__(self, network: Network) -> None:
        self.network = network

    def evaluate(self, game: Game, states: Sequence[Any]) -> list[Evaluation]:
        if not states:
            return []
        players = [game.current_player(state) for state in states]
        legal = [game.legal_actions(state) for state in states]
        logits, values = self.network(self.network.inputs(states))
        sizes = np.fromiter(map(len, legal), dtype=np.intp, count=len(legal))
        starts = np.zeros(len(legal), dtype=np.intp)
        np.cumsum(sizes[:-1], out=starts[1:])
        chosen = logits[np.repeat(np.arange(len(legal)), sizes),
                        np.fromiter(chain.from_iterable(legal), dtype=np.intp,
                                    count=int(starts[-1] + sizes[-1]))]
        exp = np.exp(chosen - np.repeat(np.maximum.reduceat(chosen, starts), sizes))
        priors = (exp / np.repeat(np.add.reduceat(exp, starts), sizes)).tolist()
        out: list[Evaluation] = []
        for player, start, size, v in zip(players, starts.tolist(), sizes.tolist(),
                                          values.tolist()):
            out.append(((v, -v) if player == 0 else (-v, v), priors[start:start + size]))
        return out


class PlayoutMixEvaluator(NetworkEvaluator):
    """:class:`NetworkEvaluator` whose values are mixed with one random playout from each
    state, AlphaGo's leaf evaluation: ``(1 - mix) * v + mix * z``, ``v`` the network's value
    and ``z`` the playout's return (:meth:`Game.random_playout
    <tris_envs.core.game.Game.random_playout>`, as ``mcts`` values its leaves: at most
    ``game.info.max_moves`` plies, then a draw). The priors are the network's.

    Where a network's priors are worth more than its values (Tritoc's: the game turns on
    dice far ahead), the search keeps the priors' guidance and takes half its values from
    the playouts that make ``mcts`` strong at the same budget.

    Args:
        network: The network.
        mix: The playouts' share of each value, in [0, 1].
        rng: Generator of the playouts.
    """

    def __init__(self, network: Network, mix: float, rng: np.random.Generator) -> None:
        super().__init__(network)
        self.mix = mix
        self.rng = rng
        self.uniform = Uniforms(rng).draw

    def restart(self) -> None:
        """Fresh uniforms for the playouts, as each search starts (so that a seeded agent
        plays the same moves whatever it played before with another generator state)."""
        self.uniform = Uniforms(self.rng).draw

    def evaluate(self, game: Game, states: Sequence[Any]) -> list[Evaluation]:
        keep, mix = 1.0 - self.mix, self.mix
        out: list[Evaluation] = []
        for state, ((v0, v1), priors) in zip(states, super().evaluate(game, states)):
            z0, z1 = game.random_playout(state, self.uniform, game.info.max_moves)
            out.append(((keep * v0 + mix * z0, keep * v1 + mix * z1), priors))
        return out


def plays_as_trained(game: Game, network: Network) -> bool:
    """Whether ``game``, once its setup is over, is the variant ``network`` was trained
    on: the same options, ``max_moves`` and those that change only the start
    (:attr:`Game.SETUP_OPTIONS <tris_envs.core.game.Game.SETUP_OPTIONS>`) aside."""
    def play(options: dict[str, Any] | None) -> dict[str, Any]:
        return {k: v for k, v in changed_options(game, options).items()
                if k not in game.SETUP_OPTIONS}

    return play(network.config.options) == play(None)


def shipped_network(game: Game) -> Path:
    """The shipped network for ``game``: its variant's if shipped, else the game's default.

    Raises:
        FileNotFoundError: no network is shipped for this game.
    """
    path = shipped_variant(game, "az")
    if path is not None:
        return path
    have = ", ".join(sorted(p.stem for p in SHIPPED_DIR.glob("az_*.npz"))) or "none"
    raise FileNotFoundError(f"no AlphaZero network is shipped for {game.info.name!r} (shipped: "
                            f"{have}); train one with tris-envs train az and pass "
                            "az:<path>")


def trap_move(game: Game, state: Any, root: MCTSNode, share: float) -> int:
    """The move of a searched ``root`` chosen by the trap rule (:attr:`SearchSettings.traps`).

    The candidates are the moves the search rates alike: visited at least ``share`` times
    as often as the most visited move, not proven lost, and handing the opponent no win in
    one. Among them the move played is the one after which the largest share of the
    opponent's legal moves hand the win back (the game's ``tactical_moves``), the search's
    own choice on ties; with a proven win, or no candidate, the search's choice (in Tris
    2's placements ``tactical_moves`` marks nothing, so every tie goes to the search).

    Between players that never hand over a line a search values every safe move alike, as
    a draw; the rule then picks the one where a fallible opponent, whose chance to slip
    grows with the share of its moves that lose, is likeliest to slip."""
    best = MCTSAgent.best_action(root)
    if any(child.proven == 1 for child in root.children):      # a proven win is played
        return best
    tactical = tactics_of(game, "the trap rule").tactical_moves
    handovers = tactical(state)[1]
    top = max(child.visits for child in root.children)
    candidates = [child.action for child in root.children
                  if child.proven != -1 and not handovers[child.action]
                  and child.visits >= share * top]

    def slips(action: int) -> float:
        after = game.apply(state, action)
        legal = game.legal_actions(after)
        if game.is_terminal(after) or not legal:
            return -1.0
        return float(tactical(after)[1][list(legal)].mean())

    if not candidates:
        return best
    return max(candidates, key=lambda action: (slips(action), action == best))


def hardest_loss(game: Game, state: Any, root: MCTSNode, memo: dict[Any, Any]) -> int:
    """The move of a ``root`` proven lost that leaves the opponent the smallest share of
    replies that keep its win: replies that win at once or after which the rules core
    proves the win (:meth:`~tris_envs.core.game.Game.proven_winner`, with the search's
    cache ``memo``); ties, and moves after which the opponent is not simply to move, go to
    the search's choice (the longest loss).

    Every move loses against perfect play; a fallible opponent is likeliest to let the
    win go where few of its replies keep it. (In Tris 2's placements the opponent's
    random placements then find the winning line far less often.)"""
    best = MCTSAgent.best_action(root)
    mover = game.current_player(state)
    afters = {a: game.apply(state, a) for a in game.legal_actions(state)}
    if any(game.current_player(after) != 1 - mover for after in afters.values()):
        return best

    def kept(after: Any) -> float:
        replies = game.legal_actions(after)
        keep = 0
        for reply in replies:
            then = game.apply(after, reply)
            if game.is_terminal(then):
                keep += game.returns(then)[1 - mover] > 0
            else:
                proof = game.proven_winner(then, memo)
                keep += proof is not None and proof[0] == 1 - mover
        return keep / len(replies)

    return min(afters, key=lambda a: (kept(afters[a]), a != best))


class AZAgent:
    """A network with MCTS (``simulations > 0``) or alone (``simulations == 0``).

    The search settings (:class:`~tris_envs.agents.search_settings.SearchSettings`) are
    ``search``, else the network's (its header's ``"search"`` table), with each argument
    below that is not ``None`` in place of the setting of that name; they are merged once
    per network (at its first move with a network it loads: :meth:`settings_for`).

    Args:
        network: A :class:`Network`, a path of a network file, or ``None`` for the network
            shipped for the game being played.
        simulations: Search budget per move; 0 plays the network's most probable move.
        rng: Generator of the search.
        search: The search settings, instead of the network's.
        exploration: The PUCT constant.
        batch: New leaves the search gathers (with virtual losses) and evaluates in
            one network call (``batch``); 1 evaluates each leaf alone, the plain sequential
            search. See "Batched leaves" in :mod:`tris_envs.agents.mcts`.
        decisive: See wins in one (the rules core's :func:`~tris_envs.core.game.wins_at_once`,
            as ``greedy`` does): a move that wins at once is played without search, and the
            search proves a new node lost for the player who moved into it when its player
            to move can win at once (``mcts:...:decisive``'s check).
        discount: The search's discount of a return per move (see "Discount" in
            :mod:`tris_envs.agents.mcts`).
        traps: The trap rule's share (:func:`trap_move`; 0: off). The network's (not
            ``search``'s) is played only when the game plays, after its setup, the variant
            the network was trained on (:func:`plays_as_trained`), else off: the shipped
            Tris 2 network, trained on the default options, plays the placement setup with
            it and the rule of 4 without it (the rule cost it there, see docs/results.md).
        mix: The share of each new leaf's value taken from one random playout
            (:class:`PlayoutMixEvaluator`; 0: the network's value alone).
        reuse: Keep the tree from move to move: a search goes on from the node of the
            previous search's tree that holds the position, its visits kept, and adds its
            simulations to them (see "Kept subtrees" in :mod:`tris_envs.agents.mcts`).
        settings: Settings by their :class:`SearchSettings` names (what an ``az`` spec's
            ``<setting>=<value>`` parts give), each in place of the network's as the
            arguments above are; an argument above that is not ``None`` comes over it.
        proofs: Let the search prove the positions the rules core proves won by force
            (:class:`~tris_envs.agents.mcts.RulesProof`: Tris 2's last six placements
            searched exactly), and in a position proven lost play the :func:`hardest_loss`;
            without search (``az:0``) nothing is proven.

    Attributes:
        time_budget: Seconds a search may take at most (``None``, the default: no limit);
            it stops at the first of its simulations and this (``tris-envs serve`` sets it).

    Raises:
        ValueError: a setting out of its range (named in one line).
        FileNotFoundError: ``network`` names no file.
    """

    def __init__(self, network: Network | str | Path | None = None,
                 simulations: int | None = None,
                 rng: np.random.Generator | None = None, *,
                 search: SearchSettings | None = None,
                 exploration: float | None = None, batch: int | None = None,
                 decisive: bool | None = None, discount: float | None = None,
                 traps: float | None = None, mix: float | None = None,
                 reuse: bool | None = None, settings: Mapping[str, Any] | None = None,
                 proofs: bool = True) -> None:
        given: dict[str, Any] = {
            "simulations": simulations, "exploration": exploration, "batch": batch,
            "decisive": decisive, "discount": discount, "traps": traps, "mix": mix,
            "reuse": reuse}
        self.overrides = {**(settings or {}),
                          **{k: v for k, v in given.items() if v is not None}}
        try:
            replace(search or SearchSettings(), **self.overrides)
        except ValueError as error:
            raise ValueError(f"az {error}") from None
        if isinstance(network, (str, Path)) and not Path(network).is_file():
            raise FileNotFoundError(f"AlphaZero network {str(network)!r} not found (an .npz "
                                    "written by tris-envs train az)")
        self.network = network
        self.search = search
        self.simulations = simulations
        self.rng = rng if rng is not None else np.random.default_rng()
        self.proofs = proofs
        self.time_budget: float | None = None
        self._merged: tuple[Network, dict[str, Any], SearchSettings, Search] | None = None
        self._kept: MCTSNode | None = None
        source = ("" if network is None else
                  f":{network}" if not isinstance(network, Network) else ":<network>")
        budget = ("" if simulations is None or simulations == DEFAULT_SIMULATIONS
                  and not source and not settings else f":{simulations}")
        self.name = f"az{source}{budget}" + "".join(
            f":{name}={setting_text(value)}" for name, value in (settings or {}).items())

    def network_file(self, game: Game) -> Path | None:
        """The file of the network that plays ``game`` (its own, else the shipped one), not
        read; ``None`` for a network in memory.

        Raises:
            FileNotFoundError: no network was given and none is shipped for ``game``.
        """
        if isinstance(self.network, Network):
            return None
        return shipped_network(game) if self.network is None else Path(self.network)

    def network_for(self, game: Game) -> Network:
        """The network that plays ``game`` (loaded once per process and file)."""
        path = self.network_file(game)
        if path is None:
            return cast(Network, self.network)
        key = (str(path.resolve()), repr(sorted(game.options().items())))
        return _NETWORKS.get(key, lambda: load(path, game))

    def budget(self, network: Network) -> int:
        """Simulations per move with ``network``: the one asked for, else the network's."""
        return int(self.overrides.get("simulations",
                                      (self.search or network.search).simulations))

    def settings_for(self, game: Game) -> SearchSettings:
        """The search settings this agent plays ``game`` with (see the class)."""
        return self._merge(game, self.network_for(game))[2]

    def _merge(self, game: Game, network: Network
               ) -> tuple[Network, dict[str, Any], SearchSettings, Search]:
        """The settings and the search for ``network`` on ``game``'s options, merged at
        the first move with them and kept."""
        options = game.options()
        merged = self._merged
        if merged is not None and merged[0] is network and merged[1] == options:
            return merged
        base = self.search or network.search
        if self.search is None and not plays_as_trained(game, network):
            base = replace(base, traps=0.0)    # the header's rule, for the variant it learned
        settings = replace(base, **self.overrides)
        evaluator = (PlayoutMixEvaluator(network, settings.mix, self.rng) if settings.mix
                     else NetworkEvaluator(network))
        provers = (WinsAtOnce(),) * settings.decisive + (RulesProof(),) * self.proofs
        search = Search(settings.exploration, evaluator, provers,
                        batch_size=settings.batch, discount=settings.discount, rng=self.rng)
        self._merged = merged = (network, options, settings, search)
        self._kept = None     # a tree of another search
        return merged

    def search_root(self, game: Game, state: Any, kept: MCTSNode | None = None) -> MCTSNode:
        """The root of this agent's search from ``state`` (its network, settings, budget
        and :attr:`time_budget`), the tree :meth:`act` chooses its move from: its
        children's visits, values and proofs. ``kept``: a node of the previous tree to go
        on from (see "Kept subtrees" in :mod:`tris_envs.agents.mcts`).

        Raises:
            ValueError: ``state`` is terminal or a chance node.
        """
        _, _, settings, search = self._merge(game, self.network_for(game))
        if isinstance(search.evaluator, PlayoutMixEvaluator):
            search.evaluator.restart()
        return search.run(game, state, Uniforms(self.rng).draw, settings.simulations,
                          self.time_budget, kept=kept)

    def act(self, game: Game, state: Any) -> int:
        """The search's move, or with ``simulations == 0`` the network's likeliest move."""
        network = self.network_for(game)
        legal = game.legal_actions(state)
        if len(legal) == 1:
            return int(legal[0])
        _, _, settings, search = self._merge(game, network)
        if settings.decisive:
            for action in legal:
                if wins_at_once(game, state, action):
                    return int(action)
        if settings.simulations == 0:
            probabilities, _ = network.evaluate([state])
            return int(np.argmax(probabilities[0]))
        root = self.search_root(game, state, self._kept)
        if root.proven == -1 and self.proofs:
            action = hardest_loss(game, state, root, search.memo)
        elif not settings.traps:
            action = MCTSAgent.best_action(root)
        else:
            action = trap_move(game, state, root, settings.traps)
        if settings.reuse:
            self._kept = next((c for c in root.children if c.action == action), None)
        return action
