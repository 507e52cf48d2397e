"""The learner's turns and the opponent's: one game of the learner against an opponent.

Three environments put a learner in one seat of a two-player game and let an opponent play
the other: :class:`~tris_envs.envs.SingleAgentEnv` (one game),
:class:`~tris_envs.envs.vector.SingleAgentVectorEnv` (many games, Gymnasium's vector API)
and :class:`~tris_envs.ppo.batched.BatchedPoolEnv` (many games against opponent
pools, Stable-Baselines3's ``VecEnv``). They share what this module holds, so that the same
seed and the same learner actions give the same episode in all three:

* :class:`Duel`: one game's state, the learner's seat, the plies played, the rewards of
  the last step and how the episode ended; it deals a start, plays the learner's move and
  the opponent's, and says whose turn it is. Random numbers are drawn from the duel's
  ``np_random`` in one order: the seat (where drawn), the start, the dice after each move,
  and the opponent's choices when it draws from the same generator.
* :class:`OpponentPlayer`: the opponent in one of its three forms: an agent spec, an
  :class:`~tris_envs.agents.Agent` (the trained networks among them) or a
  ``policy(observation, action_mask)`` (a :class:`BatchedPolicy` among them).
* :func:`play_opponents`: lets the opponents of many duels move until each waits for the
  learner or has ended, in rounds of one move per duel; the duels whose opponent is a
  network or a :class:`BatchedPolicy` are answered in one call per opponent and round.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from time import perf_counter
from typing import Any

import numpy as np
from gymnasium.utils import seeding

from tris_envs.agents.factory import make_agent
from tris_envs.agents.ppo import (
    PolicyOpponent,
    PPOAgent,
    check_policy_fits,
    choose_action,
    masked_probabilities,
)
from tris_envs.agents.protocol import Agent
from tris_envs.agents.spec import AgentSpec
from tris_envs.core.errors import IllegalActionError, brief
from tris_envs.core.game import TERMINAL, Game, advance, as_action, resolve_chance

Policy = Callable[[np.ndarray, np.ndarray], int]
"""``policy(observation, action_mask) -> action`` for the player to move.

``observation`` is that player's own view (``game.observation(state, player)``, the same
layout the learner sees) and ``action_mask`` a ``bool`` vector of its legal actions.
"""


class BatchedPolicy:
    """A policy that chooses for many games in one call: ``fn(observations, masks) -> actions``.

    ``observations`` has shape ``(B, *observation_shape)`` (each row the mover's own view),
    ``masks`` is ``bool`` of shape ``(B, num_actions)``, and ``fn`` returns ``B`` legal
    actions. A vector environment gives it every game where its seat is to move in one call
    per round (a network's forward pass over the batch); anywhere else it plays as an
    ordinary :data:`Policy`, one game at a time::

        snapshot = BatchedPolicy(lambda obs, masks: network.act(obs, masks))
        vector_env.set_opponent(snapshot)          # one call per round for all games
        SingleAgentEnv("tris1", opponent=snapshot)  # a batch of one

    Args:
        fn: The batched policy.
        label: A name for logs.
    """

    def __init__(self, fn: Callable[[np.ndarray, np.ndarray], Any], label: str = "batched"
                 ) -> None:
        self.fn = fn
        self.label = label

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The actions of ``fn`` for a batch, as an integer array of length ``B``."""
        return np.asarray(self.fn(observations, masks)).reshape(len(observations))

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The action for one game (a batch of one)."""
        return int(self.act_batch(observation[None], np.asarray(action_mask, bool)[None])[0])

    def __repr__(self) -> str:
        return f"BatchedPolicy({self.label!r})"


class OpponentPlayer:
    """One game's opponent, in one of three forms:

    * an agent spec (an :class:`~tris_envs.agents.AgentSpec` or its text, parsed here
      once): the agent draws from the generator given (the duel's ``np_random``) and is
      rebuilt by :meth:`reseed`, so that seeded episodes repeat;
    * an :class:`~tris_envs.agents.Agent` (``act(game, state)``), played as it is;
    * a :data:`Policy` ``policy(observation, action_mask)``; one with
      ``act_batch(observations, masks)`` (a :class:`BatchedPolicy`) is played in batches.

    A trained network (a :class:`~tris_envs.agents.PPOAgent`, a
    :class:`~tris_envs.agents.PolicyOpponent` policy, or a ``ppo`` spec: :attr:`network`
    once :meth:`prepare` has loaded it) is played in batches too.

    Raises:
        ValueError: an unknown agent spec.
        TypeError: ``opponent`` is none of the forms.
    """

    def __init__(self, opponent: AgentSpec | str | Agent | Policy,
                 rng: np.random.Generator) -> None:
        self.source = opponent
        self.spec: AgentSpec | None = None
        self.agent: Agent | None = None
        self.policy: Policy | None = None
        self.batched: BatchedPolicy | None = None
        self.network: Any = None
        if isinstance(opponent, (AgentSpec, str)):
            self.spec = opponent if isinstance(opponent, AgentSpec) else AgentSpec.parse(opponent)
            self.agent = make_agent(self.spec, rng=rng)
        elif isinstance(opponent, Agent):
            self.agent = opponent
        elif callable(opponent):
            self.policy = opponent
            if callable(getattr(opponent, "act_batch", None)):
                self.batched = opponent  # type: ignore[assignment]
        else:
            raise TypeError(f"opponent {brief(opponent)} is none of an agent spec, an Agent "
                            "(act(game, state)) or a policy(observation, action_mask)")
        self._player = self.agent if self.agent is not None else self.policy
        self._is_network = _is_network(self._player)

    def reseed(self, rng: np.random.Generator) -> None:
        """Rebuild a spec's agent on ``rng`` (after the duel's generator was seeded)."""
        if self.spec is not None:
            self.agent = self._player = make_agent(self.spec, rng=rng)

    def prepare(self, game: Game) -> None:
        """Load a network opponent's policy and check that it fits ``game``.

        Raises:
            ValueError: the network takes other observations or actions.
        """
        if self._is_network and self.network is None:
            network = self._player.policy_for(game)  # type: ignore[union-attr]
            check_policy_fits(network, game.info.observation_shape, game.info.num_actions)
            self.network = network

    def batch_key(self, game: Game) -> Any:
        """What the games answered in one call share (the loaded network, which snapshots
        of one file share, or the batched policy); ``None`` for an opponent that plays game
        by game."""
        if self.batched is not None:
            return self.batched
        if not self._is_network:
            return None
        self.prepare(game)
        return self.network

    def act(self, game: Game, state: Any, player: int) -> int:
        """The opponent's legal action in ``state``, ``player`` to move.

        Raises:
            IllegalActionError: the opponent played an illegal action.
        """
        if self.agent is not None:
            played = self.agent.act(game, state)
            if self.spec is not None:  # the package's own agents play legal actions
                return played
        else:
            mask = game.legal_mask(state).astype(bool)
            played = self.policy(game.observation(state, player), mask)  # type: ignore[misc]
        return checked_action(game, state, played)


def checked_action(game: Game, state: Any, played: Any) -> int:
    """``played`` as an action index if it is legal in ``state``.

    Raises:
        IllegalActionError: it is not (the opponent played it).
    """
    action = as_action(played)
    if action is None or not (0 <= action < game.info.num_actions
                              and game.legal_mask(state)[action]):
        error = game.illegal_action_error(state, played)
        raise IllegalActionError(f"the opponent played an illegal action: {error}")
    return action


def _is_network(player: Any) -> bool:
    """Whether ``player`` is a trained network of :mod:`tris_envs.agents.ppo`."""
    return isinstance(player, (PolicyOpponent, PPOAgent))


class Duel:
    """One game of the learner, in :attr:`seat`, against :attr:`opponent`.

    :meth:`deal` starts an episode; then :meth:`opponent_turn` says whether the opponent is
    to move (and marks the episode over when it is), :meth:`opponent_move` plays its
    action, and :meth:`learner_move` (or :meth:`lose`, for an illegal action) the
    learner's. Dice are drawn from :attr:`np_random` after every move.

    Attributes:
        game: The rules core.
        np_random: The generator of the seat, the start, the dice (and a spec opponent).
        opponent: The :class:`OpponentPlayer`.
        state: The game state.
        seat: The learner's seat (0 moves first).
        moves: Plies of both players played in the episode (truncation at
            ``game.info.max_moves``).
        learner_reward: The learner's reward on its last move (-1 for an illegal one).
        opponent_reward: The learner's reward summed over the opponent's moves since.
        terminated: The game is over (or the learner played an illegal action).
        truncated: ``max_moves`` plies were played before the game ended.
        illegal: The episode ended on the learner's illegal action.
        learner_moved: The learner has moved in this episode.
    """

    __slots__ = ("game", "np_random", "opponent", "state", "seat", "moves", "learner_reward",
                 "opponent_reward", "terminated", "truncated", "illegal", "learner_moved")

    def __init__(self, game: Game, np_random: np.random.Generator | None = None,
                 opponent: Any = "random") -> None:
        self.game = game
        self.np_random: np.random.Generator = (np_random if np_random is not None
                                               else seeding.np_random()[0])
        self.opponent = (opponent if isinstance(opponent, OpponentPlayer)
                         else OpponentPlayer(opponent, self.np_random))
        self.state: Any = None
        self.seat = 0
        self.moves = 0
        self.learner_reward = self.opponent_reward = 0.0
        self.terminated = self.truncated = self.illegal = self.learner_moved = False

    def copy(self) -> Duel:
        """A shallow copy (the same game, generator and opponent)."""
        other = Duel.__new__(Duel)
        for name in Duel.__slots__:
            setattr(other, name, getattr(self, name))
        return other

    def seed(self, seed: int) -> None:
        """Seed :attr:`np_random` anew (a spec opponent is rebuilt on it)."""
        self.np_random = seeding.np_random(seed)[0]
        self.opponent.reseed(self.np_random)

    # ----- turns ---------------------------------------------------------------------
    @property
    def over(self) -> bool:
        """Whether the episode has ended."""
        return self.terminated or self.truncated

    @property
    def reward(self) -> float:
        """The learner's reward over its last move and the opponent's replies."""
        return float(self.learner_reward + self.opponent_reward)

    def deal(self, seat: int | None = None, position: str | None = None) -> None:
        """Start an episode: the seat (drawn when ``None``), the start (the game's, or
        ``position``) and its dice; the opponent's opening moves are left to
        :func:`play_opponents`.

        Raises:
            ValueError: a malformed position string.
        """
        rng = self.np_random
        game = self.game
        self.seat = int(rng.integers(2)) if seat is None else seat
        state = game.initial_state(rng) if position is None else game.from_notation(position)
        self.state = resolve_chance(game, state, rng)
        self.moves = 0
        self.learner_reward = self.opponent_reward = 0.0
        self.terminated = self.truncated = self.illegal = self.learner_moved = False

    def is_legal(self, action: int | None) -> bool:
        """Whether ``action`` (an index, ``None`` for none) is legal for the learner now."""
        return action is not None and 0 <= action < self.game.info.num_actions and bool(
            self.game.legal_mask(self.state)[action])

    def learner_move(self, action: int) -> None:
        """Play the learner's legal ``action`` and its dice."""
        self.opponent_reward = 0.0
        self.learner_moved = True
        self.state, rewards = advance(self.game, self.state, action, self.np_random)
        self.learner_reward = rewards[self.seat]
        self.moves += 1

    def lose(self) -> None:
        """End the episode on the learner's illegal action: reward -1, the state as it is."""
        self.opponent_reward = 0.0
        self.learner_moved = True
        self.learner_reward = -1.0
        self.terminated = self.illegal = True

    def opponent_turn(self) -> int | None:
        """The opponent's seat if it is to move now, else ``None``: the learner is to move,
        or the episode is over (then :attr:`terminated` or :attr:`truncated` is set)."""
        if self.illegal:
            return None
        player = self.game.current_player(self.state)
        ended = player == TERMINAL
        if not ended and self.moves < self.game.info.max_moves:
            return None if player == self.seat else player
        self.terminated, self.truncated = ended, not ended
        return None

    def opponent_move(self, action: int) -> None:
        """Play the opponent's ``action`` and its dice."""
        self.state, rewards = advance(self.game, self.state, action, self.np_random)
        self.opponent_reward += rewards[self.seat]
        self.moves += 1

    def started(self, np_random: np.random.Generator, seed: int | None, seat: str | int,
                options: Any) -> Duel:
        """A copy dealt for an environment's ``reset(seed=seed, options=options)``: drawing
        from ``np_random`` (a spec opponent reseeded on it where ``seed`` is given), the
        learner in ``seat`` (``"random"``: drawn), from ``options["position"]`` if given,
        the opponent's opening moves played.

        Raises:
            TypeError: ``options`` is not a dict.
            ValueError: a malformed position string, or a start where the game is over
                before the learner's first move.
        """
        if options is not None and not isinstance(options, Mapping):
            raise TypeError(f"reset options must be a dict such as {{'position': ...}}, got "
                            f"{brief(options)}")
        duel = self.copy()
        duel.np_random = np_random
        if seed is not None:
            duel.opponent.reseed(np_random)
        duel.deal(None if seat == "random" else int(seat), (options or {}).get("position"))
        play_opponents([duel])
        if duel.over:
            raise duel.start_error()
        return duel

    def start_error(self) -> ValueError:
        """The error of a start where the game is over before the learner's first move."""
        how = "ends" if self.terminated else "is truncated"
        return ValueError(f"the game {how} before the learner (seat {self.seat}) moves: "
                          f"{self.game.to_notation(self.state)!r}")

    # ----- views ---------------------------------------------------------------------
    def observation(self) -> np.ndarray:
        """The learner's observation."""
        return self.game.observation(self.state, self.seat)

    def mask(self) -> np.ndarray:
        """``bool`` vector of the learner's legal actions (all ``False`` once over)."""
        if self.over:
            return np.zeros(self.game.info.num_actions, dtype=bool)
        return self.game.legal_mask(self.state).astype(bool)


Timer = Callable[[Duel, float], None]
"""``timer(duel, seconds)``: the time an opponent took for one move of ``duel``."""


def play_opponents(duels: Iterable[Duel], timer: Timer | None = None) -> None:
    """Let the opponents move until each of ``duels`` waits for the learner or is over.

    In rounds of one move per duel: every duel asks :meth:`Duel.opponent_turn`; the
    opponents that play game by game move at once, those that share a network or a
    :class:`BatchedPolicy` are answered in one call per round. Each duel's random numbers
    are drawn in the order of its own moves, so the result does not depend on which other
    duels are stepped with it.

    Args:
        duels: The games (a subclass may redeal a start in ``opponent_turn``).
        timer: Called with each duel and the seconds its opponent's move took (a batched
            call's time shared evenly among its games).

    Raises:
        IllegalActionError: an opponent played an illegal action (the duel has not moved).
    """
    waiting = list(duels)
    while waiting:
        movers = []
        batches: dict[int, list[tuple[Duel, int]]] = {}
        for duel in waiting:
            player = duel.opponent_turn()
            if player is None:
                continue
            movers.append(duel)
            opponent = duel.opponent
            key = opponent.batch_key(duel.game)
            if key is not None:
                batches.setdefault(id(key), []).append((duel, player))
                continue
            began = perf_counter()
            action = opponent.act(duel.game, duel.state, player)
            if timer is not None:
                timer(duel, perf_counter() - began)
            duel.opponent_move(action)
        for batch in batches.values():
            began = perf_counter()
            _play_batch(batch)
            if timer is not None:
                share = (perf_counter() - began) / len(batch)
                for duel, _ in batch:
                    timer(duel, share)
        waiting = movers


def _play_batch(batch: Sequence[tuple[Duel, int]]) -> None:
    """One move in each duel of ``batch``, whose opponents share a network or policy."""
    game = batch[0][0].game
    opponent = batch[0][0].opponent
    states = [duel.state for duel, _ in batch]
    observations = game.observations(states, [player for _, player in batch])
    masks = game.legal_masks(states).astype(bool)
    if opponent.batched is not None:
        actions = opponent.batched.act_batch(observations, masks)
        chosen = [checked_action(game, d.state, a) for (d, _), a in zip(batch, actions)]
        for (duel, _), action in zip(batch, chosen):
            duel.opponent_move(action)
        return
    probabilities = masked_probabilities(opponent.network, observations, masks)
    for (duel, _), row, mask in zip(batch, probabilities, masks):
        agent: Any = duel.opponent._player   # a PolicyOpponent or PPOAgent (a network)
        duel.opponent_move(choose_action(row, mask, agent.deterministic, agent.rng))
