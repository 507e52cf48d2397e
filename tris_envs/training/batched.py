"""Many games of the learner against its opponent pool, stepped together in one process.

:class:`BatchedPoolEnv` is the learner's environment of ``train.vec_env = "batched"``: a
Stable-Baselines3 ``VecEnv`` over ``n_envs`` games of the rules core. Game ``k`` plays the
episodes that ``make_env(config, seed + k)`` (an
:class:`~tris_envs.training.pool.OpponentPoolEnv` over a
:class:`~tris_envs.envs.SingleAgentEnv`, monitored) would play from the same seed and the
same learner actions: the same observations, masks, rewards, infos and random streams.

What changes is who waits for whom. After the learner's actions, every game whose opponent
is to move is collected; the opponents that are networks (the learner's snapshots, ``ppo``
agents) choose for all the games they play in one forward pass per network, the scripted
ones (``random``, ``greedy``, ``mcts:<N>``, ``solver``, ...) act game by game. This repeats
until every game waits for the learner or has ended. Ended games are booked (pool tally,
``info["pool_episode"]``, and ``info["episode"]`` as SB3's ``Monitor`` writes it) and start
again at once, their openings played the same way; as in every SB3 ``VecEnv``, the returned
observation of an ended game is the next episode's first and ``info["terminal_observation"]``
holds the last.

Importing this module imports Stable-Baselines3 (and PyTorch).
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvStepReturn

from tris_envs.agents import PolicyOpponent, PPOAgent, make_agent
from tris_envs.agents.ppo import check_policy_fits, choose_action, masked_probabilities
from tris_envs.core.game import TERMINAL, Game, advance, resolve_chance
from tris_envs.games import make_game
from tris_envs.training.config import SELF, Config
from tris_envs.training.pool import OpponentPool, PoolTally, learner_result


class PoolGame:
    """One game of a :class:`BatchedPoolEnv`: an episode against an opponent of its pool.

    It holds what a :class:`~tris_envs.envs.SingleAgentEnv` in an
    :class:`~tris_envs.training.pool.OpponentPoolEnv` holds (the state, the learner's seat,
    plies played, ``np_random``, this game's own pool) and draws from its generators in the
    same order. ``env_method`` calls reach these objects: :meth:`add_snapshot`,
    :meth:`take_tally`, :meth:`action_masks`.
    """

    render_mode = None

    def __init__(self, game: Game, pool: OpponentPool) -> None:
        self.game = game
        self.pool = pool
        self.np_random: np.random.Generator = seeding.np_random()[0]
        self.opponent_label = ""
        self.opponent: Any = None
        self.network: Any = None  # the opponent's policy where it is a network
        self.state: Any = None
        self.seat = 0
        self.moves = 0
        self.mask = np.zeros(game.info.num_actions, dtype=bool)
        self.learner_reward = self.opponent_reward = 0.0
        self.episode_return = 0.0
        self.episode_length = 0
        self.terminated = self.truncated = self.illegal = False
        self.learner_moved = False  # in this episode; until then, the start is being dealt
        self._spec: str | None = None
        self._options: dict[str, Any] | None = None
        self._openings_left = 0  # openings still to try; -1: none tried (a plain start)

    # ----- env_method ----------------------------------------------------------------
    def add_snapshot(self, path: str) -> None:
        """:meth:`OpponentPool.add_snapshot` of this game's pool."""
        self.pool.add_snapshot(path)

    def take_tally(self) -> PoolTally:
        """:meth:`OpponentPool.take_tally` of this game's pool."""
        return self.pool.take_tally()

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now (all ``False`` only between episodes)."""
        return self.mask

    # ----- episode -------------------------------------------------------------------
    @property
    def over(self) -> bool:
        """Whether the episode has ended."""
        return self.terminated or self.truncated

    def start(self, seed: int | None, options: dict[str, Any] | None) -> None:
        """Draw the episode's opponent and deal the start (``OpponentPoolEnv.reset``); the
        opponent's opening moves are left to :meth:`opponent_turn`."""
        pool = self.pool
        self.opponent_label, member = pool.draw()
        self._spec = member if isinstance(member, str) else None
        self.opponent = make_agent(member, rng=self.np_random) if self._spec else member
        self.episode_return = 0.0
        self.episode_length = 0
        self._options = options
        if pool.wants_opening(options):
            self._openings_left = pool.OPENING_TRIES
            self._deal_opening(seed)
        else:
            self._openings_left = -1
            self._deal(seed, (options or {}).get("position"))

    def _deal_opening(self, seed: int | None) -> None:
        self._openings_left -= 1
        self._deal(seed, self.pool.random_opening(self.game))

    def _deal(self, seed: int | None, position: str | None) -> None:
        """``SingleAgentEnv.reset`` up to the opponent's moves."""
        game = self.game
        if seed is not None:
            self.np_random = seeding.np_random(seed)[0]
            if self._spec is not None:
                self.opponent = make_agent(self._spec, rng=self.np_random)
        self.network = (self.opponent.policy_for(game)
                        if isinstance(self.opponent, (PolicyOpponent, PPOAgent)) else None)
        if self.network is not None:
            check_policy_fits(self.network, game.info.observation_shape,
                              game.info.num_actions)
        self.seat = int(self.np_random.integers(2))
        state = game.initial_state(self.np_random) if position is None else (
            game.from_notation(position))
        self.state = resolve_chance(game, state, self.np_random)
        self.moves = 0
        self.learner_reward = self.opponent_reward = 0.0
        self.terminated = self.truncated = self.illegal = self.learner_moved = False

    def play(self, action: int) -> None:
        """The learner's move (an illegal one ends the episode as a loss)."""
        self.opponent_reward = 0.0
        self.learner_moved = True
        if not (0 <= action < self.mask.size and self.mask[action]):
            self.learner_reward = -1.0
            self.terminated = self.illegal = True
            return
        self.state, rewards = advance(self.game, self.state, action, self.np_random)
        self.learner_reward = rewards[self.seat]
        self.moves += 1

    def opponent_turn(self) -> int | None:
        """The opponent's seat if it is to move now, else ``None`` (the learner is to move,
        or the episode is over). A start where the game ends before the learner's first
        move is dealt again, as ``OpponentPoolEnv.reset`` does (the next opening, at last the
        game's start).

        Raises:
            ValueError: a start without an opening ends before the learner moves.
        """
        game = self.game
        while True:
            player = game.current_player(self.state)
            ended = player == TERMINAL
            if not ended and self.moves < game.info.max_moves:
                return None if player == self.seat else player
            if self.learner_moved:
                self.terminated, self.truncated = ended, not ended
                return None
            if self._openings_left > 0:
                self._deal_opening(None)
            elif self._openings_left == 0:
                self._openings_left = -1
                self._deal(None, (self._options or {}).get("position"))
            else:
                how = "ends" if ended else "is truncated"
                raise ValueError(f"the game {how} before the learner (seat {self.seat}) "
                                 f"moves: {game.to_notation(self.state)!r}")

    def play_opponent(self, action: int) -> None:
        """The opponent's move."""
        self.state, rewards = advance(self.game, self.state, action, self.np_random)
        self.opponent_reward += rewards[self.seat]
        self.moves += 1

    def view(self) -> np.ndarray:
        """The learner's observation; refreshes :attr:`mask`."""
        game = self.game
        self.mask = (np.zeros(game.info.num_actions, dtype=bool) if self.over
                     else game.legal_mask(self.state).astype(bool))
        return game.observation(self.state, self.seat)

    def info(self) -> dict[str, Any]:
        """The step's ``info`` as ``OpponentPoolEnv`` gives it (after :meth:`view`)."""
        info = {"action_mask": self.mask, "seat": self.seat, "opponent": self.opponent_label}
        if self.illegal:
            info["illegal_action"] = True
        return info


class BatchedPoolEnv(VecEnv):
    """``n_envs`` games against their opponent pools, opponents' network moves batched.

    See the module docstring. Each game has its own :class:`OpponentPool` (game ``k`` seeded
    with ``seed + k``); ``env_method("add_snapshot", path)`` adds a snapshot to every pool
    (the network loads once and is shared), ``env_method("take_tally")`` collects their
    tallies, ``env_method("action_masks")`` (``MaskablePPO``) the learner's masks.
    :attr:`opponent_seconds` adds up the time the opponents took, per pool label
    (snapshots together under ``"self"``; a batched call's time shared among its games).

    Args:
        game: The rules core, options fixed.
        pools: One pool per game.
    """

    def __init__(self, game: Game, pools: Sequence[OpponentPool]) -> None:
        self.game = game
        self.games = [PoolGame(game, pool) for pool in pools]
        self.opponent_seconds: defaultdict[str, float] = defaultdict(float)
        self._actions = np.zeros(len(self.games), dtype=np.int64)
        self._began = time.time()
        info = game.info
        super().__init__(len(self.games), spaces.Box(0, 1, info.observation_shape, np.int8),
                         spaces.Discrete(info.num_actions))

    @classmethod
    def from_config(cls, config: Config, n_envs: int, seed: int) -> BatchedPoolEnv:
        """``n_envs`` games of ``config``, game ``k``'s pool seeded with ``seed + k``."""
        return cls(make_game(config.game, **config.game_options),
                   [OpponentPool.from_settings(config.pool, seed + k) for k in range(n_envs)])

    def reset(self) -> np.ndarray:
        """Start every game (with the seeds and options of ``seed``/``set_options``)."""
        for k, pool_game in enumerate(self.games):
            pool_game.start(self._seeds[k], self._options[k] or None)
        self._settle(self.games)
        self._reset_seeds()
        self._reset_options()
        observations = []
        for k, pool_game in enumerate(self.games):
            observations.append(pool_game.view())
            self.reset_infos[k] = pool_game.info()
        return np.stack(observations)

    def step_async(self, actions: np.ndarray) -> None:
        """Keep the learner's actions for :meth:`step_wait`."""
        self._actions = np.asarray(actions)

    def step_wait(self) -> VecEnvStepReturn:
        """Play the learner's actions, the opponents' replies, and restart ended games."""
        games = self.games
        for pool_game, action in zip(games, self._actions.tolist()):
            pool_game.play(int(action))
        self._settle([g for g in games if not g.over])
        n = len(games)
        observations: list[np.ndarray] = []
        rewards = np.zeros(n, dtype=np.float32)
        dones = np.zeros(n, dtype=bool)
        infos: list[dict[str, Any]] = []
        ended = []
        for k, pool_game in enumerate(games):
            reward = float(pool_game.learner_reward + pool_game.opponent_reward)
            pool_game.episode_return += reward
            pool_game.episode_length += 1
            observation = pool_game.view()
            info = pool_game.info()
            info["TimeLimit.truncated"] = pool_game.truncated and not pool_game.terminated
            rewards[k] = reward
            if pool_game.over:
                dones[k] = True
                info.update(self._book(pool_game))
                info["terminal_observation"] = observation
                pool_game.start(None, None)
                ended.append(pool_game)
            observations.append(observation)
            infos.append(info)
        if ended:
            self._settle(ended)
            for k, pool_game in enumerate(games):
                if dones[k]:
                    observations[k] = pool_game.view()
        return np.stack(observations), rewards, dones, infos

    def _book(self, pool_game: PoolGame) -> dict[str, Any]:
        """The ``info`` entries of an ended episode; tallies it in its pool."""
        result = learner_result(self.game, pool_game.state, pool_game.seat, pool_game.illegal)
        episode_return = pool_game.episode_return
        return {
            "pool_episode": pool_game.pool.book(pool_game.opponent_label, episode_return,
                                                result),
            "episode": {"r": round(episode_return, 6), "l": pool_game.episode_length,
                        "t": round(time.time() - self._began, 6)}}

    def _settle(self, games: Iterable[PoolGame]) -> None:
        """Let the opponents move until each of ``games`` waits for the learner or has
        ended: in rounds of one move per game, the games of one network in one call."""
        game = self.game
        seconds = self.opponent_seconds
        waiting = list(games)
        while waiting:
            movers = []
            batches: dict[int, tuple[Any, list[tuple[PoolGame, int]]]] = {}
            for pool_game in waiting:
                player = pool_game.opponent_turn()
                if player is None:
                    continue
                movers.append(pool_game)
                if pool_game.network is not None:
                    batches.setdefault(id(pool_game.network), (pool_game.network, []))[1].append(
                        (pool_game, player))
                    continue
                began = time.perf_counter()
                action = pool_game.opponent.act(game, pool_game.state)
                seconds[pool_game.opponent_label] += time.perf_counter() - began
                pool_game.play_opponent(action)
            for network, batch in batches.values():
                began = time.perf_counter()
                observations = np.stack([game.observation(g.state, player) for g, player in batch])
                masks = np.stack([game.legal_mask(g.state).astype(bool) for g, _ in batch])
                probabilities = masked_probabilities(network, observations, masks)
                for (pool_game, _), row, mask in zip(batch, probabilities, masks):
                    opponent = pool_game.opponent
                    pool_game.play_opponent(choose_action(row, mask, opponent.deterministic,
                                                          opponent.rng))
                share = (time.perf_counter() - began) / len(batch)
                for pool_game, _ in batch:
                    label = pool_game.opponent_label
                    seconds[SELF if label.startswith(f"{SELF}:") else label] += share
            waiting = movers

    # ----- VecEnv plumbing -----------------------------------------------------------
    def close(self) -> None:
        """Nothing to release (one process)."""

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """An attribute of each :class:`PoolGame`."""
        return [getattr(self.games[k], attr_name) for k in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set an attribute of each :class:`PoolGame`."""
        for k in self._get_indices(indices):
            setattr(self.games[k], attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None,
                   **method_kwargs: Any) -> list[Any]:
        """Call a method of each :class:`PoolGame`."""
        return [getattr(self.games[k], method_name)(*method_args, **method_kwargs)
                for k in self._get_indices(indices)]

    def env_is_wrapped(self, wrapper_class: type[gymnasium.Wrapper],
                       indices: VecEnvIndices = None) -> list[bool]:
        """No game is a wrapped Gymnasium environment."""
        return [False for _ in self._get_indices(indices)]

    def action_masks(self) -> np.ndarray:
        """The learner's masks of all games, stacked."""
        return np.stack([g.mask for g in self.games])
