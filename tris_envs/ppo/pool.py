"""The learner's opponents: a weighted pool drawn from each episode, and one game against it.

:class:`OpponentPool` holds the members, the learner's snapshots, the random openings and
the results tally; :class:`OpponentPoolEnv` is one game against a pool (the environment of
``train.vec_env = "dummy"`` or ``"subproc"``), as
:class:`~tris_envs.ppo.batched.BatchedPoolEnv` holds many.

Importing this module imports neither PyTorch nor Stable-Baselines3.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import gymnasium
import numpy as np

from tris_envs.agents import AgentSpec, PolicyOpponent
from tris_envs.core.game import Game, resolve_chance
from tris_envs.envs import SingleAgentEnv
from tris_envs.ppo.config import SELF, Config, PoolSettings
from tris_envs.settings import weights as weight_table

POOL_STREAM = 0x706F6F6C
"""Mixed into the pool's seed to keep its random stream apart from the environment's."""


@dataclass
class PoolTally:
    """Episode results per pool member (snapshots together under ``"self"``)."""

    results: dict[str, Counter] = field(default_factory=dict)

    def add(self, episode: dict[str, Any]) -> None:
        """Count one ``info["pool_episode"]`` as a win, draw or loss (its ``result``)."""
        label = episode["opponent"]
        if label.startswith(f"{SELF}:"):
            label = SELF
        outcome = {1: "wins", 0: "draws", -1: "losses"}[episode["result"]]
        self.results.setdefault(label, Counter())[outcome] += 1

    def merge(self, other: PoolTally) -> None:
        """Add the counts of ``other``."""
        for label, counts in other.results.items():
            self.results.setdefault(label, Counter()).update(counts)

    def scores(self) -> dict[str, tuple[int, float]]:
        """Label -> (episodes, score rate with draws counting half)."""
        out = {}
        for label, c in sorted(self.results.items()):
            n = c["wins"] + c["draws"] + c["losses"]
            out[label] = (n, (c["wins"] + 0.5 * c["draws"]) / n)
        return out


class OpponentPool:
    """The opponents of the learner's episodes: a weighted pool, drawn from per episode.

    Members are agent specs and the learner's snapshots, which share the weight of
    ``"self"`` evenly; while there is no snapshot that weight is left out. The pool also
    draws the random openings and tallies the episodes' results per member. It is the
    common part of :class:`OpponentPoolEnv` (one game) and
    :class:`~tris_envs.ppo.batched.BatchedPoolEnv` (many games stepped together), which
    draw from it in the same order, so both play the same episodes from the same seed.

    Args:
        weights: Agent spec text (or ``"self"``) -> non-negative weight, their sum positive
            and finite; each spec is parsed here, once (``ValueError`` for one of no agent
            spec form, or for such weights).
        max_snapshots: Snapshots kept; adding one more drops the oldest.
        seed: Seeds the draws and the snapshots' sampling (a stream apart from the one
            ``env.reset(seed=seed)`` would give, so that seat and opponent draws are
            independent when both get the same number).
        snapshot_deterministic: Snapshots play their most probable move instead of sampling.
        opening_prob: Share of episodes that start from a random opening instead of the
            game's start: 1 to ``opening_plies`` uniformly random moves of both sides (dice
            rolled as usual) from a fresh start, stopping before any move that would end the
            game. The learner then meets positions that its own play rarely reaches, where a
            policy that has stopped exploring would otherwise keep its mistakes.
        opening_plies: The most moves of a random opening.
    """

    OPENING_TRIES = 8
    """Random openings tried before an episode starts from the game's start instead (an
    opening is dropped when the opponent's reply to it ends the game)."""

    def __init__(self, weights: dict[str, float], max_snapshots: int = 8,
                 seed: int | None = None, snapshot_deterministic: bool = False,
                 opening_prob: float = 0.0, opening_plies: int = 0) -> None:
        problem = weight_table(weights)
        if problem:
            raise ValueError(f"pool weights {problem}")
        self.weights = {spec: float(w) for spec, w in weights.items() if w > 0}
        self.specs = {text: AgentSpec.parse(text) for text in self.weights if text != SELF}
        self.max_snapshots = max_snapshots
        self.snapshot_deterministic = snapshot_deterministic
        self.opening_prob = opening_prob
        self.opening_plies = opening_plies
        self.snapshots: list[PolicyOpponent] = []
        self.rng = np.random.default_rng(None if seed is None else [seed, POOL_STREAM])
        self.tally = PoolTally()

    @classmethod
    def from_settings(cls, settings: PoolSettings, seed: int | None) -> OpponentPool:
        """The pool of a config's ``[pool]`` table."""
        return cls(settings.weights, settings.max_snapshots, seed,
                   settings.snapshot_deterministic, settings.opening_prob,
                   settings.opening_plies)

    def add_snapshot(self, path: str) -> None:
        """Add the learner's checkpoint at ``path`` (loaded now) and drop the oldest if full."""
        snapshot = PolicyOpponent(path, deterministic=self.snapshot_deterministic,
                                  rng=self.rng, label=f"{SELF}:{Path(path).stem}")
        snapshot.policy  # noqa: B018  (load now: the file may be deleted once evicted)
        self.snapshots.append(snapshot)
        del self.snapshots[:-self.max_snapshots]

    def members(self) -> list[tuple[str, Any, float]]:
        """``(label, opponent, probability)`` of every member that can be drawn now."""
        members: list[tuple[str, Any, float]] = []
        for spec, weight in self.weights.items():
            if spec == SELF:
                members += [(s.label, s, weight / len(self.snapshots)) for s in self.snapshots]
            else:
                members.append((spec, self.specs[spec], weight))
        total = sum(w for _, _, w in members)
        if total <= 0:
            raise ValueError("the opponent pool is empty: give an agent spec a weight, or "
                             "add a snapshot before the first reset")
        return [(label, opponent, w / total) for label, opponent, w in members]

    def draw(self) -> tuple[str, Any]:
        """An episode's opponent, drawn with the members' weights: its label and the agent
        spec or snapshot."""
        members = self.members()
        index = int(self.rng.choice(len(members), p=[w for _, _, w in members]))
        label, opponent, _ = members[index]
        return label, opponent

    def wants_opening(self, options: dict[str, Any] | None) -> bool:
        """Whether the episode starts from a random opening (drawn with ``opening_prob``;
        never when ``options`` give a position)."""
        return bool(self.opening_plies) and "position" not in (options or {}) and (
            self.rng.random() < self.opening_prob)

    def random_opening(self, game: Game) -> str:
        """The position string of a random opening (see ``opening_prob``); the game is live."""
        state = resolve_chance(game, game.initial_state(self.rng), self.rng)
        for _ in range(int(self.rng.integers(1, self.opening_plies + 1))):
            action = int(self.rng.choice(game.legal_actions(state)))
            following = resolve_chance(game, game.apply(state, action), self.rng)
            if game.is_terminal(following):
                break
            state = following
        return game.to_notation(state)

    def book(self, label: str, episode_return: float, result: int) -> dict[str, Any]:
        """Tally a finished episode; returns its ``info["pool_episode"]``."""
        episode = {"opponent": label, "return": episode_return, "result": result}
        self.tally.add(episode)
        return episode

    def take_tally(self) -> PoolTally:
        """The results of the episodes finished since the last call."""
        tally, self.tally = self.tally, PoolTally()
        return tally


def learner_result(game: Game, state: Any, seat: int, illegal: bool) -> int:
    """The learner's final result: +1 / 0 / -1 by ``game.returns`` (0 when the game is not
    over, i.e. truncated), -1 after an illegal action."""
    return -1 if illegal else int(np.sign(game.returns(state)[seat]))


class OpponentPoolEnv(gymnasium.Wrapper):
    """One game against an :class:`OpponentPool`, drawn from per episode (Gymnasium wrapper).

    At every :meth:`reset` a member is drawn with its weight and installed with
    ``SingleAgentEnv.set_opponent`` before the episode starts (so it also plays the opening
    when the learner sits second). Every step's ``info["opponent"]`` names the episode's
    opponent; the last step's ``info["pool_episode"]`` is ``{"opponent": label, "return":
    the episode's summed reward, "result": +1 / 0 / -1}``, the result being the learner's
    final result in the game (``game.returns``; 0 when truncated, -1 for an illegal action),
    which differs from the return only with Tritoc's ``reward="points"``. The pool tallies
    these results until :meth:`take_tally` collects them.

    Args:
        env: A :class:`~tris_envs.envs.SingleAgentEnv`.
        pool: The opponents (this game's own pool: it holds the random stream of the draws).
    """

    def __init__(self, env: SingleAgentEnv, pool: OpponentPool) -> None:
        super().__init__(env)
        self.game_env = cast(SingleAgentEnv, env.unwrapped)
        self.pool = pool
        self.opponent_label = ""
        self._return = 0.0

    def add_snapshot(self, path: str) -> None:
        """:meth:`OpponentPool.add_snapshot` (``env_method`` calls it)."""
        self.pool.add_snapshot(path)

    def take_tally(self) -> PoolTally:
        """:meth:`OpponentPool.take_tally` (``env_method`` calls it)."""
        return self.pool.take_tally()

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Draw this episode's opponent, then reset the game."""
        pool = self.pool
        self.opponent_label, opponent = pool.draw()
        self.game_env.set_opponent(opponent)
        self._return = 0.0
        if pool.wants_opening(options):
            for _ in range(pool.OPENING_TRIES):
                try:
                    obs, info = self.env.reset(seed=seed, options={
                        **(options or {}), "position": pool.random_opening(self.game_env.game)})
                    break
                except ValueError:  # the opponent's reply ended the game
                    seed = None
            else:
                obs, info = self.env.reset(options=options)
        else:
            obs, info = self.env.reset(seed=seed, options=options)
        info["opponent"] = self.opponent_label
        return obs, info

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Step the game; the episode's opponent and, at its end, its return go in ``info``."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._return += float(reward)
        info["opponent"] = self.opponent_label
        if terminated or truncated:
            env = self.game_env
            result = learner_result(env.game, env.game_state, env.seat,
                                    bool(info.get("illegal_action")))
            info["pool_episode"] = self.pool.book(self.opponent_label, self._return, result)
        return obs, float(reward), terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions (``MaskablePPO`` calls this)."""
        return self.game_env.action_masks()


def make_env(config: Config, seed: int) -> gymnasium.Env:
    """One training environment of ``config``: the learner in a random seat against the
    pool, monitored (SB3's ``Monitor``)."""
    from stable_baselines3.common.monitor import Monitor

    env = SingleAgentEnv(config.game, opponent="random", seat="random", **config.game_options)
    return Monitor(OpponentPoolEnv(env, OpponentPool.from_settings(config.pool, seed)))
