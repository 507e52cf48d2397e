"""Single-agent Gymnasium view of a two-player game: a learner against a fixed opponent.

:class:`SingleAgentEnv` plays the learner's action, then the opponent's actions until the
learner is to move again or the game ends, so every result of the game (a loss on the
opponent's move included) reaches the learner as its own reward::

    from tris_envs.envs.single_agent import SingleAgentEnv

    env = SingleAgentEnv("tant_fant_v0", opponent="greedy", seat="random")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(int(info["action_mask"].argmax()))

sb3-contrib's ``MaskablePPO`` reads the legal actions from :meth:`SingleAgentEnv.action_masks`.
The environment runs on the rules core directly (no AEC loop): one immutable game state, the
Gymnasium generator ``np_random`` for the seat, the setup and the dice, and truncation after
``max_moves`` plies of both players, as in the PettingZoo environments.

:func:`~tris_envs.registration.register_gymnasium` registers ``tris_envs/TantFant-v0``,
``tris_envs/Tris1-v0``, ... for ``gymnasium.make``.
"""

from __future__ import annotations

import warnings
from typing import Any, cast

import gymnasium
import numpy as np
from gymnasium import spaces

from tris_envs.agents.protocol import Agent
from tris_envs.agents.spec import AgentSpec
from tris_envs.core.game import Game, as_action
from tris_envs.core.options import check_choice
from tris_envs.envs.turns import Duel, OpponentPlayer, Policy, play_opponents
from tris_envs.games import make_game

Opponent = AgentSpec | str | Agent | Policy
"""An agent spec (an :class:`~tris_envs.agents.AgentSpec` or its text: ``"random"``,
``"greedy"``, ``"mcts:<simulations>"``, ``"solver"``, ...), an
:class:`~tris_envs.agents.Agent` or a :data:`Policy` (see
:class:`~tris_envs.envs.turns.OpponentPlayer`)."""

RENDER_MODES = ("ansi", "rgb_array")
SEATS = (0, 1, "random")
ILLEGAL_ACTIONS = ("raise", "lose")


class SingleAgentEnv(gymnasium.Env):
    """One player of a two-player game as a Gymnasium environment; the other is the opponent.

    **What the learner sees.** ``observation_space`` is ``Box(0, 1, shape, int8)``: the
    learner's own observation of the rules core (``game.observation(state, seat)``, "mine" /
    "theirs" planes), without the action mask. The mask of the learner's legal actions comes
    from :meth:`action_masks` (``bool``, as ``MaskablePPO`` expects) and from
    ``info["action_mask"]``; it is all ``False`` once the episode is over. ``info["seat"]`` is
    the learner's seat in this episode (0 moves first).

    **Rewards.** A step's reward is the sum of ``game.rewards(state)[seat]`` over the plies it
    plays (the learner's and the opponent's): +1 for a win, -1 for a loss (also when the
    opponent's move ends the game), 0 for a draw or a truncation. With Tritoc's
    ``reward="points"`` the learner receives the points its own moves earn (+1 for a
    conquered field, +5 for the win); the opponent's points are not subtracted and a loss
    costs nothing, as in that game's PettingZoo environment.

    **Turns.** ``step`` plays the learner's action, resolves dice with ``np_random``, then lets
    the opponent act (several times in a row where the rules say so) until the learner is to
    move again, the game ends (``terminated``) or ``max_moves`` plies of both players have
    been played (``truncated``). When the learner sits second, ``reset`` lets the opponent
    open. ``reset(options={"position": s})`` starts from position string ``s``.

    **Seeding.** ``reset(seed=...)`` seeds ``np_random``, which draws the seat (``seat=
    "random"``), the random setup, the dice and, for an opponent given as a spec string, the
    opponent's choices: the same seed and the same learner actions give the same episode. An
    :class:`~tris_envs.agents.Agent` instance or a :data:`Policy` keeps its own randomness.

    **Illegal actions.** Gymnasium's environment contract wants every action of
    ``action_space`` accepted (its checker and Stable-Baselines3's step random actions), so
    by default (``illegal_action="lose"``) an illegal action ends the episode as a loss
    (reward -1, ``terminated``, the game state unchanged, ``info["illegal_action"]``), like
    PettingZoo's classic environments and our ``env()``. With ``illegal_action="raise"`` it
    raises :class:`~tris_envs.IllegalActionError` saying why, and nothing changes.
    ``MaskablePPO`` never plays an illegal action either way.

    **Self-play.** A snapshot of the learner plays as a :data:`Policy`: it receives the
    opponent's own observation, laid out exactly as the learner's, and its mask.
    :class:`~tris_envs.agents.PolicyOpponent` wraps a saved checkpoint (or a model) so::

        from tris_envs.agents import PolicyOpponent
        from tris_envs.agents.ppo import export_policy

        export_policy(model, "snapshot.pt")     # a frozen copy of the learner
        env.set_opponent(PolicyOpponent("snapshot.pt"))  # or vec_env.env_method(...)

    ``SubprocVecEnv`` sends ``env_method`` arguments with plain ``pickle``: there the policy
    must be picklable (an instance of a module-level class, not a lambda).

    Args:
        game_env: An environment name (``"tant_fant_v0"``, or ``"tant_fant"``), an environment
            built by one of this package's modules (``tant_fant_v0.env(...)`` or
            ``raw_env(...)``: its rules core and options are used), or a rules-core
            :class:`~tris_envs.core.game.Game`.
        opponent: The other player: an agent spec (or its text), an ``Agent`` or a
            ``Policy``.
        seat: The learner's seat, ``0`` (moves first), ``1``, or ``"random"`` (drawn per
            episode from ``np_random``).
        render_mode: ``None``, ``"ansi"`` (the game's text board) or ``"rgb_array"`` (its
            picture; needs pygame).
        illegal_action: ``"raise"`` or ``"lose"`` (see above).
        **game_options: The game's options (``max_moves`` included), only with a name.

    Raises:
        ValueError: An unknown environment name, option, seat, render mode, agent spec, or
            game options given with an already built environment or game.
        TypeError: ``opponent`` is not one of its three forms.
    """

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 2}

    def __init__(self, game_env: str | Game | Any, opponent: Opponent = "random",
                 seat: int | str = "random", render_mode: str | None = None,
                 illegal_action: str = "lose", **game_options: Any) -> None:
        self.game: Game = _game_of(game_env, game_options)
        self._seat_option = check_choice("seat", seat, SEATS)
        if render_mode is not None:
            check_choice("render_mode", render_mode, RENDER_MODES)
        self.render_mode = render_mode
        self.illegal_action = check_choice("illegal_action", illegal_action, ILLEGAL_ACTIONS)
        info = self.game.info
        self.observation_space = spaces.Box(0, 1, info.observation_shape, dtype=np.int8)
        self.action_space = spaces.Discrete(info.num_actions)
        self._n_actions = info.num_actions
        self._no_actions = np.zeros(info.num_actions, dtype=bool)
        self._duel = Duel(self.game, self.np_random, opponent)
        self._duel.seat = 0 if self._seat_option == "random" else int(self._seat_option)
        self._done = True

    # ----- opponent ------------------------------------------------------------------
    def set_opponent(self, opponent: Opponent) -> None:
        """Play against ``opponent`` from its next action on (an Agent, spec or Policy).

        A spec string is turned into an agent drawing from ``np_random``, rebuilt at every
        seeded reset so that seeded episodes repeat.

        Raises:
            ValueError: an unknown agent spec.
            TypeError: ``opponent`` is none of the three forms.
        """
        self._duel.opponent = OpponentPlayer(opponent, self.np_random)

    # ----- episode -------------------------------------------------------------------
    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Start an episode; the opponent opens when the learner sits second.

        Args:
            seed: Seeds ``np_random`` (seat, setup, dice, spec-string opponent).
            options: ``{"position": s}`` starts from position string ``s``; other keys are
                ignored.

        Raises:
            ValueError: a malformed position string, or a start where the game is over
                before the learner's first move.
        """
        self._done = True
        super().reset(seed=seed)
        self._duel = self._duel.started(self.np_random, seed, self._seat_option, options)
        self._done = False
        return self._duel.observation(), self._info(False)

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play the learner's ``action``, then the opponent's until the learner is to move.

        Raises:
            IllegalActionError: with ``illegal_action="raise"``, ``action`` is not legal;
                nothing changes. Also when the opponent plays an illegal action.
            RuntimeError: the episode is over (or not started): call ``reset()``.
        """
        if self._done:
            raise RuntimeError("the episode is over (or was never started): call reset()")
        duel = self._duel.copy()
        index = as_action(action)
        if not duel.is_legal(index):
            if self.illegal_action == "raise":
                raise self.game.illegal_action_error(duel.state, action)
            duel.lose()
        else:
            duel.learner_move(cast(int, index))
            play_opponents([duel])
        self._duel = duel
        self._done = duel.over
        info = self._info(self._done)
        if duel.illegal:
            info["illegal_action"] = True
        return duel.observation(), duel.reward, duel.terminated, duel.truncated, info

    # ----- the duel's state ------------------------------------------------------------
    @property
    def game_state(self) -> Any:
        """The game state (``None`` before the first reset)."""
        return self._duel.state

    @property
    def seat(self) -> int:
        """The learner's seat in this episode (0 moves first)."""
        return self._duel.seat

    @property
    def num_moves(self) -> int:
        """Plies of both players played in this episode."""
        return self._duel.moves

    def action_masks(self) -> np.ndarray:
        """``bool`` vector of the learner's legal actions (all ``False`` after the episode)."""
        if self._done:
            return self._no_actions.copy()
        return self._duel.mask()

    def _info(self, done: bool) -> dict[str, Any]:
        mask = self._no_actions.copy() if done else self._duel.mask()
        return {"action_mask": mask, "seat": self.seat}

    # ----- views ---------------------------------------------------------------------
    @property
    def position(self) -> str:
        """The current position string (docs/games/<game>.md, "Position strings")."""
        return self.game.to_notation(self.game_state)

    # gymnasium < 1.3 types render() with an unbound RenderFrame TypeVar
    def render(self) -> str | np.ndarray | None:  # type: ignore[override,unused-ignore]
        """The game's text board (``"ansi"``) or picture (``"rgb_array"``)."""
        if self.render_mode is None:
            warnings.warn("render() without a render_mode: pass render_mode='ansi' or "
                          "'rgb_array' to SingleAgentEnv", stacklevel=2)
            return None
        if self.render_mode == "ansi":
            return self.game.render_text(self.game_state)
        from tris_envs.envs.rendering import draw_picture

        return draw_picture(self.game, self.game_state)


def _game_of(game_env: str | Game | Any, options: dict[str, Any]) -> Game:
    """The rules core named by, or inside, ``game_env``."""
    if isinstance(game_env, str):
        return make_game(game_env, **options)
    game = game_env if isinstance(game_env, Game) else getattr(
        getattr(game_env, "unwrapped", None), "game", None)
    if not isinstance(game, Game):
        raise ValueError(f"game_env {game_env!r} is not an environment name, an environment "
                         "of tris_envs or a rules-core Game")
    if options:
        raise ValueError(f"game options {sorted(options)} given with an already built "
                         f"{type(game_env).__name__}; pass the environment's name instead")
    return game
