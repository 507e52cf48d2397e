"""Many games of the single-agent view stepped in one process: a masked Gymnasium ``VectorEnv``.

:class:`SingleAgentVectorEnv` is ``num_envs`` copies of
:class:`~tris_envs.envs.SingleAgentEnv` (the learner against an opponent) behind Gymnasium's
vector API, without a Python environment object per game: the games are
:class:`~tris_envs.envs.turns.Duel` objects of the rules core, the turn-taking the
single-agent environment uses, and the batch's observations, masks and infos are built as
arrays directly::

    import gymnasium
    import tris_envs.envs  # registers the ids

    envs = gymnasium.make_vec("tris_envs/TantFant-v0", num_envs=64,
                              vectorization_mode="vector_entry_point", opponent="greedy")
    obs, infos = envs.reset(seed=0)                 # game k seeded with 0 + k
    masks = infos["action_mask"]                     # (64, 81) bool, the learner's legal moves
    obs, rewards, terminations, truncations, infos = envs.step(actions)

It plays what ``gymnasium.vector.SyncVectorEnv`` over ``num_envs`` single-agent environments
plays: from the same seeds and the same actions, the same observations, rewards,
terminations, truncations and infos (tests/test_vector_env.py compares them step by step),
in each of Gymnasium's autoreset modes. An opponent that is a network (a
:class:`~tris_envs.agents.PolicyOpponent` snapshot, a ``ppo`` agent) or a
:class:`~tris_envs.envs.turns.BatchedPolicy` answers all the games where it is to move in
one call per round.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any, cast

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from tris_envs.core.errors import brief
from tris_envs.core.game import Game, as_action
from tris_envs.core.options import check_choice
from tris_envs.envs.single_agent import (
    ILLEGAL_ACTIONS,
    RENDER_MODES,
    SEATS,
    Opponent,
    _game_of,
)
from tris_envs.envs.turns import Duel, OpponentPlayer, play_opponents

AUTORESET_MODES = tuple(mode.value for mode in AutoresetMode)

VIEW_MEMO = 65_536
"""Positions whose learner observation and mask are kept (then the memo starts again):
the states of the rules core are immutable and hashable, and a batch of games keeps
meeting the same positions (every Tant Fant position fits)."""

VIEW_TRIAL = 2_048
"""Look-ups after which the memo of views is dropped if fewer than a quarter of them found
their position in it: in a game whose positions rarely repeat (Tris 2, with its random
starts) hashing and keeping the views costs more than it saves, and the views are built
for all games at once (:meth:`~tris_envs.core.game.Game.observations`). 2,048 look-ups
are 32 steps of 64 games: enough to tell Tant Fant and Tris 1, whose positions repeat,
from Tris 2, Doppia scelta and Tritoc, whose positions almost never do."""


class ViewMemo:
    """The learner's views (observation and mask) of positions met before, as rows of two
    arrays that grow as needed: a batch's views are gathered in one indexing operation.
    Emptied when it would pass :data:`VIEW_MEMO` positions.

    Attributes:
        looked: Look-ups counted until the trial's :data:`VIEW_TRIAL`.
        useless: Set when the trial ends with fewer than a quarter of its look-ups having
            found their position: the owner should drop the memo.
    """

    def __init__(self, game: Game) -> None:
        self.game = game
        self.rows: dict[tuple[Any, int], int] = {}
        self.observations = np.zeros((0, *game.info.observation_shape), dtype=np.int8)
        self.masks = np.zeros((0, game.info.num_actions), dtype=bool)
        self.looked = 0
        self.useless = False

    def __len__(self) -> int:
        return len(self.rows)

    def look_up(self, duels: Sequence[Duel]) -> np.ndarray:
        """The row of each duel's current view, computing the views not yet kept."""
        rows = self.rows
        if len(rows) + len(duels) > VIEW_MEMO:
            rows.clear()
        found = np.empty(len(duels), dtype=np.intp)
        for i, duel in enumerate(duels):
            key = (duel.state, duel.seat)
            row = rows.get(key)
            if row is None:
                row = rows[key] = len(rows)
                if row == len(self.observations):
                    self._grow()
                self.observations[row] = self.game.observation(duel.state, duel.seat)
                self.masks[row] = self.game.legal_mask(duel.state)
            found[i] = row
        if self.looked < VIEW_TRIAL:
            self.looked += len(duels)
            self.useless = self.looked >= VIEW_TRIAL and len(rows) > 0.75 * self.looked
        return found

    def _grow(self) -> None:
        size = min(max(2 * len(self.observations), 1024), VIEW_MEMO)
        self.observations = np.resize(self.observations, (size, *self.observations.shape[1:]))
        self.masks = np.resize(self.masks, (size, self.masks.shape[1]))


class SingleAgentVectorEnv(VectorEnv):
    """``num_envs`` games of the learner against an opponent, as one Gymnasium ``VectorEnv``.

    **Spaces.** ``single_observation_space`` is the single-agent view's ``Box(0, 1, shape,
    int8)`` and ``observation_space`` its batch ``(num_envs, *shape)``;
    ``single_action_space`` is ``Discrete(num_actions)``, ``action_space`` a
    ``MultiDiscrete``.

    **Masks.** ``infos["action_mask"]`` (``bool``, ``(num_envs, num_actions)``) holds each
    game's legal actions for the learner, all ``False`` in a row whose episode has just
    ended (with ``"NextStep"`` autoreset, the action given to that game on the next step is
    ignored). :meth:`action_masks` returns the same array. ``infos["seat"]`` is each game's
    learner seat.

    **Autoreset** (``metadata["autoreset_mode"]``, Gymnasium >= 1.0): ``"NextStep"`` (the
    default, as ``SyncVectorEnv``): the step after a game's episode ended starts its next
    episode (reward 0, its action ignored). ``"SameStep"``: an ended game starts again in
    the same step; the returned observation and infos are the new episode's and
    ``infos["final_obs"]`` / ``infos["final_info"]`` hold the last ones (the choice for PPO
    loops). ``"Disabled"``: ended games wait for ``reset(options={"reset_mask": mask})``.

    **Seeding.** ``reset(seed=s)`` seeds game ``k`` with ``s + k`` (a list gives one seed
    per game; ``None`` goes on with each game's generator): game ``k`` then plays the
    episodes that ``SingleAgentEnv`` reset with seed ``s + k`` would play. A spec opponent
    draws from its game's generator; an ``Agent`` instance or a policy keeps its own
    randomness (and, shared by the games, sees them in a different order than separate
    environments would).

    **Rewards, turns, illegal actions** are those of
    :class:`~tris_envs.envs.SingleAgentEnv`. With ``illegal_action="raise"`` a step with an
    illegal action raises before any game moves.

    Args:
        game_env: An environment name (``"tant_fant"``), an environment of this package or
            a rules-core :class:`~tris_envs.core.game.Game`.
        num_envs: Games stepped together.
        opponent: An agent spec string, an ``Agent``, a policy, a
            :class:`~tris_envs.envs.turns.BatchedPolicy`, or a list of ``num_envs`` of
            these (one per game; :meth:`set_opponent` changes them later).
        seat: The learner's seat, ``0``, ``1`` or ``"random"`` (drawn per episode).
        render_mode: ``None``, ``"ansi"`` or ``"rgb_array"``: :meth:`render` shows game
            :attr:`render_index` (0 unless set).
        illegal_action: ``"lose"`` (default) or ``"raise"``.
        autoreset_mode: ``"NextStep"``, ``"SameStep"`` or ``"Disabled"`` (or an
            ``AutoresetMode``).
        **game_options: The game's options, only with a name.

    Raises:
        ValueError: an unknown name, option, seat, render mode, autoreset mode, agent spec;
            ``num_envs`` below 1; a list of opponents of another length.
        TypeError: an opponent of none of the forms.
    """

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 2,
                "autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, game_env: str | Game | Any, num_envs: int = 8,
                 opponent: Opponent | Sequence[Opponent] = "random",
                 seat: int | str = "random", render_mode: str | None = None,
                 illegal_action: str = "lose",
                 autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
                 **game_options: Any) -> None:
        self.game: Game = _game_of(game_env, game_options)
        if type(num_envs) is not int or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {brief(num_envs)}")
        self.num_envs = num_envs
        self._seat_option = check_choice("seat", seat, SEATS)
        self._seat = None if self._seat_option == "random" else int(self._seat_option)
        if render_mode is not None:
            check_choice("render_mode", render_mode, RENDER_MODES)
        self.render_mode = render_mode
        self.render_index = 0
        self.illegal_action = check_choice("illegal_action", illegal_action, ILLEGAL_ACTIONS)
        mode = autoreset_mode.value if isinstance(autoreset_mode, AutoresetMode) else (
            autoreset_mode)
        self.autoreset_mode = AutoresetMode(check_choice("autoreset_mode", mode,
                                                         AUTORESET_MODES))
        self.metadata = {**type(self).metadata, "autoreset_mode": self.autoreset_mode}
        info = self.game.info
        self.num_actions = info.num_actions
        self.single_observation_space = spaces.Box(0, 1, info.observation_shape, dtype=np.int8)
        self.single_action_space = spaces.Discrete(info.num_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.duels = [Duel(self.game) for _ in range(num_envs)]
        self.set_opponent(opponent)
        self._masks = np.zeros((num_envs, info.num_actions), dtype=bool)
        self._rows = np.arange(num_envs)
        self._observations = np.zeros((num_envs, *info.observation_shape), dtype=np.int8)
        self._ended = np.ones(num_envs, dtype=bool)   # waiting for a reset
        self._views: ViewMemo | None = ViewMemo(self.game)
        self._started = False
        self.closed = False

    # ----- opponents -----------------------------------------------------------------
    def set_opponent(self, opponent: Opponent | Sequence[Opponent],
                     indices: Sequence[int] | None = None) -> None:
        """Play against ``opponent`` in the games ``indices`` (all by default) from their
        next opponent move on; a list gives one opponent per game of ``indices``.

        A spec string becomes an agent of each game drawing from that game's generator;
        a network is loaded and checked against the game now.

        Raises:
            ValueError: an unknown spec, a list of another length, a network that does not
                fit the game.
            TypeError: an opponent of none of the forms.
        """
        chosen = range(self.num_envs) if indices is None else list(indices)
        if isinstance(opponent, (list, tuple)):
            if len(opponent) != len(chosen):
                raise ValueError(f"{len(opponent)} opponents given for {len(chosen)} games")
            opponents = list(opponent)
        else:
            opponents = [opponent] * len(chosen)
        players = [OpponentPlayer(o, self.duels[k].np_random) for k, o in zip(chosen, opponents)]
        for player in players:
            player.prepare(self.game)
        for k, player in zip(chosen, players):
            self.duels[k].opponent = player

    # ----- episodes ------------------------------------------------------------------
    def reset(self, *, seed: int | Sequence[int | None] | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Start an episode in every game (or in those of ``options["reset_mask"]``).

        Args:
            seed: ``int`` (game ``k`` gets ``seed + k``), one seed per game, or ``None``.
            options: ``{"position": s}`` starts every game from position string ``s``;
                ``{"reset_mask": m}`` (``bool``, one per game) resets only those games.

        Raises:
            ValueError: a malformed position, a start where a game is over before the
                learner moves, seeds or a mask of the wrong length.
        """
        n = self.num_envs
        seeds = _seeds(seed, n)
        options = dict(options or {})
        reset_mask = options.pop("reset_mask", None)
        if reset_mask is None:
            chosen = list(range(n))
        else:
            reset_mask = np.asarray(reset_mask)
            if reset_mask.shape != (n,) or reset_mask.dtype != np.bool_:
                raise ValueError(f"reset_mask must be a bool array of shape ({n},)")
            chosen = np.flatnonzero(reset_mask).tolist()
        position = options.get("position")
        for k in chosen:
            seed_k = seeds[k]
            if seed_k is not None:
                self.duels[k].seed(seed_k)
        self._deal(chosen, position)
        self._started = True
        infos: dict[str, Any] = {}
        observations = self._view(chosen, infos)
        return observations, infos

    def _deal(self, chosen: Sequence[int], position: str | None = None) -> None:
        """Start new episodes in the games ``chosen`` (the opponents' openings played)."""
        duels = [self.duels[k] for k in chosen]
        for duel in duels:
            duel.deal(self._seat, position)
        play_opponents(duels)
        for k, duel in zip(chosen, duels):
            if duel.over:
                raise duel.start_error()
            self._ended[k] = False

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                          dict[str, Any]]:
        """Play the learner's action in every game, then the opponents' replies.

        Raises:
            RuntimeError: before :meth:`reset`; with ``"Disabled"`` autoreset, an action for
                a game whose episode is over.
            IllegalActionError: with ``illegal_action="raise"``, an illegal action (no game
                moves); an opponent's illegal action.
        """
        if not self._started:
            raise RuntimeError("step() before reset(): call reset() first")
        n = self.num_envs
        actions = np.asarray(actions)
        if actions.shape != (n,):
            raise ValueError(f"expected {n} actions, got an array of shape {actions.shape}")
        duels = self.duels
        restarting = np.flatnonzero(self._ended).tolist()
        if restarting and self.autoreset_mode is AutoresetMode.DISABLED:
            raise RuntimeError(f"the episodes of games {restarting} are over: reset them with "
                               "reset(options={'reset_mask': mask}) (autoreset is disabled)")
        playing = np.flatnonzero(~self._ended).tolist()
        if actions.dtype.kind in "iu":
            moves, indices = actions.tolist(), actions
        else:
            moves = [as_action(a) for a in actions]
            indices = np.array([-1 if a is None or not 0 <= a < self.num_actions else a
                                for a in moves], dtype=np.int64)
        legal = self._legal(indices)[playing].tolist()
        if self.illegal_action == "raise" and not all(legal):
            k = playing[legal.index(False)]
            raise self.game.illegal_action_error(duels[k].state, actions[k])
        moved = []
        for k, ok in zip(playing, legal):
            duel = duels[k]
            if ok:
                duel.learner_move(moves[k])
                moved.append(duel)
            else:
                duel.lose()
        if restarting:
            for k in restarting:
                duels[k].deal(self._seat)
            moved += [duels[k] for k in restarting]
        play_opponents(moved)
        for k in restarting:
            if duels[k].over:
                raise duels[k].start_error()
            self._ended[k] = False
        rewards = np.zeros(n, dtype=np.float64)
        terminations = np.zeros(n, dtype=bool)
        truncations = np.zeros(n, dtype=bool)
        played = [duels[k] for k in playing]
        rewards[playing] = [d.learner_reward + d.opponent_reward for d in played]
        terminations[playing] = [d.terminated for d in played]
        truncations[playing] = [d.truncated for d in played]
        ended = [k for k, d in zip(playing, played) if d.terminated or d.truncated]
        infos: dict[str, Any] = {}
        if ended and self.autoreset_mode is AutoresetMode.SAME_STEP:
            final_infos: dict[str, Any] = {}
            final_observations = self._view(ended, final_infos)
            final_obs = np.full(n, None, dtype=object)
            for k in ended:
                final_obs[k] = final_observations[k]
            flags = np.zeros(n, dtype=bool)
            flags[ended] = True
            infos["final_obs"], infos["_final_obs"] = final_obs, flags
            infos["final_info"], infos["_final_info"] = final_infos, flags.copy()
            self._deal(ended)
        else:
            self._ended[ended] = True
        observations = self._view(range(n), infos)
        return observations, rewards, terminations, truncations, infos

    def _legal(self, moves: np.ndarray) -> np.ndarray:
        """``bool`` per game: its action in ``moves`` (integers) is a legal move of the
        learner now: in range and set in its mask row (all ``False`` once over)."""
        inside = (moves >= 0) & (moves < self.num_actions)
        return inside & self._masks[self._rows, np.where(inside, moves, 0)]

    def _view(self, chosen: Sequence[int] | range, infos: dict[str, Any]) -> np.ndarray:
        """Refresh the observations and masks of the games ``chosen``; fill ``infos`` as
        ``SyncVectorEnv`` does for them; return every game's observation (a copy)."""
        n = self.num_envs
        game = self.game
        games = list(chosen)
        duels = [self.duels[k] for k in games]
        views = self._views
        observations, masks = self._observations, self._masks
        if views is None:
            if games:
                states = [duel.state for duel in duels]
                observations[games] = game.observations(states, [d.seat for d in duels])
                masks[games] = game.legal_masks(states)
        elif games:
            found = views.look_up(duels)
            observations[games] = views.observations[found]
            masks[games] = views.masks[found]
            if views.useless:
                self._views = None
        over = [k for k, duel in zip(games, duels) if duel.terminated or duel.truncated]
        masks[over] = False
        rows = np.zeros(n, dtype=bool)
        rows[games] = True
        seats = np.zeros(n, dtype=np.int64)
        seats[games] = [duel.seat for duel in duels]
        infos["action_mask"] = masks.copy() if len(games) == n else np.where(rows[:, None],
                                                                              masks, False)
        infos["_action_mask"] = rows
        infos["seat"], infos["_seat"] = seats, rows.copy()
        illegal = [k for k in over if self.duels[k].illegal]
        if illegal:
            flags = np.zeros(n, dtype=bool)
            flags[illegal] = True
            infos["illegal_action"], infos["_illegal_action"] = flags, flags.copy()
        return observations.copy()

    def action_masks(self) -> np.ndarray:
        """``bool`` array ``(num_envs, num_actions)`` of the learner's legal actions now
        (all ``False`` in a game whose episode is over)."""
        return self._masks.copy()

    # ----- views ---------------------------------------------------------------------
    @property
    def positions(self) -> list[str]:
        """Every game's position string."""
        return [self.game.to_notation(duel.state) for duel in self.duels]

    def render(self) -> str | np.ndarray | None:  # type: ignore[override,unused-ignore]
        """Game :attr:`render_index`'s text board (``"ansi"``) or picture (``"rgb_array"``)."""
        if self.render_mode is None:
            warnings.warn("render() without a render_mode: pass render_mode='ansi' or "
                          "'rgb_array'", stacklevel=2)
            return None
        if not self._started:
            raise RuntimeError("render() before reset(): call reset() first")
        state = self.duels[self.render_index].state
        if self.render_mode == "ansi":
            return self.game.render_text(state)
        from tris_envs.envs.rendering import draw_picture

        return draw_picture(self.game, state)

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release (one process)."""

    def __repr__(self) -> str:
        return f"SingleAgentVectorEnv({self.game.info.name!r}, num_envs={self.num_envs})"


def _seeds(seed: int | Sequence[int | None] | None, n: int) -> list[int | None]:
    """One seed (or ``None``) per game, as ``SyncVectorEnv.reset`` spreads them."""
    if seed is None:
        return [None] * n
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        return [int(seed) + k for k in range(n)]
    seeds = list(cast(Sequence["int | None"], seed))
    if len(seeds) != n:
        raise ValueError(f"{len(seeds)} seeds given for {n} games")
    return seeds
