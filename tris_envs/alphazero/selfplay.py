"""Self-play games for the AlphaZero learner, many at once with batched evaluation.

:func:`self_play` runs ``games`` games side by side. Every simulation round takes one new
leaf from each game's search tree and evaluates all of them in **one** network call; the
trees are the scripted agents' own MCTS (:class:`~tris_envs.agents.mcts.MCTSAgent` with an
evaluator). Dice and setup phases need nothing special: chance nodes are resolved by the
search and by :func:`~tris_envs.core.game.resolve_chance`, setup turns are ordinary moves.

Each position where a player moved becomes a :class:`Sample`: the mover's observation and
legal mask, the search's visit distribution (the policy target), and the game's final
result for the mover (the value target; 0 for a draw or a truncated game).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tris_envs.agents.mcts import MCTSAgent, MCTSNode
from tris_envs.alphazero.agent import NetworkEvaluator
from tris_envs.alphazero.network import NetConfig, Network
from tris_envs.core.game import TERMINAL, Game, resolve_chance


@dataclass
class Sample:
    """One training example.

    Attributes:
        observation: The mover's observation, ``(H, W, C)`` int8.
        mask: Legal actions, ``(num_actions,)`` bool.
        policy: Visit distribution of the search, ``(num_actions,)`` float32.
        value: Final result for the mover (+1, 0, -1).
    """

    observation: np.ndarray
    mask: np.ndarray
    policy: np.ndarray
    value: float


@dataclass
class SelfPlayConfig:
    """Search settings of self-play.

    Attributes:
        simulations: Simulations per move.
        exploration: PUCT constant.
        noise: ``(alpha, fraction)`` of the Dirichlet noise at each root.
        sampled_plies: The first plies of a game pick moves in proportion to their visits
            (exploration); later plies pick the most visited move.
    """

    simulations: int = 50
    exploration: float = 1.25
    noise: tuple[float, float] = (0.3, 0.25)
    sampled_plies: int = 8


def self_play(game: Game, network: Network, games: int, config: SelfPlayConfig,
              rng: np.random.Generator) -> tuple[list[Sample], list[tuple[float, float]]]:
    """Play ``games`` self-play games at once; their samples and their final returns."""
    evaluator = NetworkEvaluator(network)
    searches = [MCTSAgent(config.simulations, rng=rng, exploration=config.exploration,
                          evaluator=evaluator, root_noise=config.noise) for _ in range(games)]
    states = [resolve_chance(game, game.initial_state(rng), rng) for _ in range(games)]
    plies = [0] * games
    pending: list[list[tuple[np.ndarray, np.ndarray, np.ndarray, int]]] = [[] for _ in
                                                                          range(games)]
    samples: list[Sample] = []
    results: list[tuple[float, float]] = []
    active = [i for i in range(games) if game.current_player(states[i]) != TERMINAL]
    while active:
        roots = {i: searches[i].new_root(game, states[i]) for i in active}
        for _ in range(config.simulations):
            _simulation_round(game, evaluator, searches, roots)
        for i in active:
            root = roots[i]
            state = states[i]
            player = game.current_player(state)
            policy = _visit_policy(game, root)
            pending[i].append((game.observation(state, player),
                               game.legal_mask(state).astype(bool), policy, player))
            action = _choose(root, policy, plies[i] < config.sampled_plies, rng)
            states[i] = resolve_chance(game, game.apply(state, action), rng)
            plies[i] += 1
        still = []
        for i in active:
            state = states[i]
            if game.current_player(state) == TERMINAL or plies[i] >= game.info.max_moves:
                returns = (game.returns(state) if game.current_player(state) == TERMINAL
                           else (0.0, 0.0))
                results.append(returns)
                samples += [Sample(obs, mask, policy, float(returns[player]))
                            for obs, mask, policy, player in pending[i]]
            else:
                still.append(i)
        active = still
    return samples, results


class SelfPlayWorker:
    """Plays self-play games for a learner in another process (a Ray actor of
    ``training/alphazero.py --ray``): it keeps the game and the search settings, and every
    call brings the network's current weights.

    Args:
        game: The rules core.
        config: The search settings.
    """

    def __init__(self, game: Game, config: SelfPlayConfig) -> None:
        self.game = game
        self.config = config

    def play(self, weights: dict[str, np.ndarray], net_config: NetConfig, games: int,
             seed: int) -> tuple[list[Sample], list[tuple[float, float]]]:
        """:func:`self_play` of ``games`` games with these weights and a generator seeded
        with ``seed``."""
        network = Network(self.game, net_config, weights)
        return self_play(self.game, network, games, self.config, np.random.default_rng(seed))


def _simulation_round(game: Game, evaluator: NetworkEvaluator, searches: list[MCTSAgent],
                      roots: dict[int, MCTSNode]) -> None:
    """One simulation in every unproven tree, the new leaves evaluated in one call."""
    waiting = []
    for i, root in roots.items():
        if root.proven is not None:
            continue
        path, returns = searches[i].select_leaf(root)
        if returns is None:
            waiting.append((i, path))
        else:
            searches[i].backup(path, returns)
    if not waiting:
        return
    evaluations = evaluator.evaluate(game, [path[-1].state for _, path in waiting])
    for (i, path), evaluation in zip(waiting, evaluations):
        searches[i].backup(path, searches[i].expand(path[-1], evaluation))


def _visit_policy(game: Game, root: MCTSNode) -> np.ndarray:
    """The root's visit distribution over all actions; a proven root: its best move."""
    policy = np.zeros(game.info.num_actions, dtype=np.float32)
    if root.proven is not None and root.children:
        policy[MCTSAgent.best_action(root)] = 1.0
        return policy
    for action, visits in MCTSAgent.visit_counts(root).items():
        policy[action] = visits
    if policy.sum() == 0:          # a single legal move and no simulation reached it
        policy[list(game.legal_actions(root.state))] = 1.0
    return policy / policy.sum()


def _choose(root: MCTSNode, policy: np.ndarray, sample: bool, rng: np.random.Generator) -> Any:
    if root.proven is not None and root.children:
        return MCTSAgent.best_action(root)
    if sample:
        return int(rng.choice(len(policy), p=policy))
    return int(np.argmax(policy))
