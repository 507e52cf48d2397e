"""Many games of the learner against its opponent pool, stepped together in one process.

:class:`BatchedPoolEnv` is the learner's environment of ``train.vec_env = "batched"``: a
Stable-Baselines3 ``VecEnv`` over ``n_envs`` games of the rules core. Game ``k`` plays the
episodes that ``make_env(config, seed + k)`` (an
:class:`~tris_envs.ppo.pool.OpponentPoolEnv` over a
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
from typing import Any, cast

import gymnasium
import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvStepReturn

from tris_envs.core.game import Game
from tris_envs.envs.turns import Duel, OpponentPlayer, play_opponents
from tris_envs.games import make_game
from tris_envs.ppo.config import SELF, Config
from tris_envs.ppo.pool import OpponentPool, PoolTally, learner_result


class PoolGame(Duel):
    """One game of a :class:`BatchedPoolEnv`: an episode against an opponent of its pool.

    A :class:`~tris_envs.envs.turns.Duel` (the turn-taking of
    :class:`~tris_envs.envs.SingleAgentEnv`) with this game's own pool: it draws the
    episode's opponent and the random openings as an
    :class:`~tris_envs.ppo.pool.OpponentPoolEnv` does, from the same generators in the
    same order. ``env_method`` calls reach these objects: :meth:`add_snapshot`,
    :meth:`take_tally`, :meth:`action_masks`.
    """

    render_mode = None

    def __init__(self, game: Game, pool: OpponentPool) -> None:
        super().__init__(game)
        self.pool = pool
        self.opponent_label = ""
        self.learner_mask = np.zeros(game.info.num_actions, dtype=bool)
        self.episode_return = 0.0
        self.episode_length = 0
        self._options: dict[str, Any] | None = None
        self._openings_left = 0  # openings still to try; -1: none tried (a plain start)

    @property
    def network(self) -> Any:
        """The opponent's policy where it is a network, else ``None``."""
        return self.opponent.network

    # ----- env_method ----------------------------------------------------------------
    def add_snapshot(self, path: str) -> None:
        """:meth:`OpponentPool.add_snapshot` of this game's pool."""
        self.pool.add_snapshot(path)

    def take_tally(self) -> PoolTally:
        """:meth:`OpponentPool.take_tally` of this game's pool."""
        return self.pool.take_tally()

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now (all ``False`` only between episodes)."""
        return self.learner_mask

    # ----- episode -------------------------------------------------------------------
    def start(self, seed: int | None, options: dict[str, Any] | None) -> None:
        """Draw the episode's opponent and deal the start (``OpponentPoolEnv.reset``); the
        opponent's opening moves are left to :meth:`opponent_turn`."""
        pool = self.pool
        self.opponent_label, member = pool.draw()
        self.opponent = OpponentPlayer(member, self.np_random)
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
        if seed is not None:
            self.seed(seed)
        self.opponent.prepare(self.game)
        self.deal(None, position)

    def play(self, action: int) -> None:
        """The learner's move (an illegal one ends the episode as a loss)."""
        if not (0 <= action < self.learner_mask.size and self.learner_mask[action]):
            self.lose()
        else:
            self.learner_move(action)

    def opponent_turn(self) -> int | None:
        """:meth:`Duel.opponent_turn`; a start where the game ends before the learner's
        first move is dealt again, as ``OpponentPoolEnv.reset`` does (the next opening, at
        last the game's start).

        Raises:
            ValueError: a start without an opening ends before the learner moves.
        """
        while True:
            player = super().opponent_turn()
            if player is not None or not self.over or self.learner_moved:
                return player
            if self._openings_left > 0:
                self._deal_opening(None)
            elif self._openings_left == 0:
                self._openings_left = -1
                self._deal(None, (self._options or {}).get("position"))
            else:
                raise self.start_error()

    def view(self) -> np.ndarray:
        """The learner's observation; refreshes :attr:`learner_mask`."""
        self.learner_mask = self.mask()
        return self.observation()

    def info(self) -> dict[str, Any]:
        """The step's ``info`` as ``OpponentPoolEnv`` gives it (after :meth:`view`)."""
        info = {"action_mask": self.learner_mask, "seat": self.seat,
                "opponent": self.opponent_label}
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
        ended (:func:`~tris_envs.envs.turns.play_opponents`: the games of one network in
        one call per round), their time added up per pool label."""
        seconds = self.opponent_seconds

        def timer(duel: Duel, spent: float) -> None:
            label = cast(PoolGame, duel).opponent_label
            seconds[SELF if label.startswith(f"{SELF}:") else label] += spent

        play_opponents(games, timer)

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
        return np.stack([g.learner_mask for g in self.games])
