"""One PettingZoo AEC adapter for every game of the rules core.

A per-game environment module only names its :class:`~tris_envs.core.game.Game` class::

    class raw_env(GameEnv):
        game_class = TantFant
        metadata = GameEnv.make_metadata("tant_fant_v0")

The adapter resolves chance nodes with the environment's seeded generator, pays rewards,
truncates after ``max_moves`` plies, accepts ``reset(options={"position": ...})`` and
renders in the ``ansi``, ``rgb_array`` and ``human`` modes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from tris_envs.core.errors import brief
from tris_envs.core.game import (
    TERMINAL,
    Game,
    advance,
    as_action,
    resolve_chance,
    seeded_generator,
)
from tris_envs.core.options import check_choice

AGENTS = ("player_0", "player_1")
RENDER_MODES = ("ansi", "rgb_array", "human")


class GameEnv(AECEnv):
    """PettingZoo AEC environment over a rules-core game (the ``raw_env`` of every module).

    Args:
        render_mode: ``None``, ``"ansi"``, ``"rgb_array"`` or ``"human"``.
        **options: The game's options (``game_class.OPTIONS``), ``max_moves`` included.

    Attributes:
        game: The rules core with this environment's options.
        game_state: The current (immutable) state of the rules core.
        num_moves: Plies played since the last reset (chance outcomes not counted).
    """

    game_class: ClassVar[type[Game]]
    metadata: ClassVar[dict[str, Any]]

    @staticmethod
    def make_metadata(name: str) -> dict[str, Any]:
        """PettingZoo metadata for an environment called ``name``."""
        return {"name": name, "render_modes": list(RENDER_MODES), "render_fps": 2,
                "is_parallelizable": False}

    def __init__(self, render_mode: str | None = None, **options: Any) -> None:
        super().__init__()
        self.game_class.check_option_names(options)
        if render_mode is not None:
            check_choice("render_mode", render_mode, RENDER_MODES)
        self.game: Game = self.game_class(**options)
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        info = self.game.info
        self._n_actions = info.num_actions
        obs_space = spaces.Dict({
            "observation": spaces.Box(0, 1, info.observation_shape, dtype=np.int8),
            "action_mask": spaces.Box(0, 1, (info.num_actions,), dtype=np.int8),
        })
        self.observation_spaces = dict.fromkeys(AGENTS, obs_space)
        self.action_spaces: dict[str, spaces.Space] = dict.fromkeys(
            AGENTS, spaces.Discrete(info.num_actions))
        self._zero_mask = np.zeros(info.num_actions, dtype=np.int8)
        self._rng = np.random.default_rng()
        self._has_infos = type(self.game).env_info is not Game.env_info
        self._window: Any = None
        self.game_state: Any = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ----- episode -------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a game; ``options={"position": s}`` starts from position string ``s``.

        A seed makes everything random in the episode (setup, dice) reproducible. Other
        option keys are ignored, as in Gymnasium (PettingZoo's ``api_test`` passes some).
        """
        if options is not None and not isinstance(options, Mapping):
            raise TypeError(f"reset options must be a dict such as {{'position': ...}}, got "
                            f"{brief(options)}")
        if seed is not None:
            self._rng = seeded_generator(seed)
        position = (options or {}).get("position")
        if position is None:
            state = self.game.initial_state(self._rng)
        else:
            state = self.game.from_notation(position)
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.num_moves = 0
        self.game_state = resolve_chance(self.game, state, self._rng)
        self.infos = self._infos()
        player = self.game.current_player(self.game_state)
        if player == TERMINAL:
            self.agent_selection = AGENTS[0]
            self.terminations = dict.fromkeys(AGENTS, True)
        else:
            self.agent_selection = AGENTS[player]
        if self.render_mode == "human":
            self.render()

    def step(self, action: int | None) -> None:
        """Play ``action`` for the selected agent (``None`` for a finished agent).

        Raises:
            IllegalActionError: the action is out of range or not legal; nothing changes.
        """
        self._check_started("step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        state = self.game_state
        index = as_action(action)
        if index is None or not (0 <= index < self._n_actions and game.legal_mask(state)[index]):
            raise game.illegal_action_error(state, action)
        state, rewards = advance(game, state, index, self._rng)
        self.game_state = state
        self.num_moves += 1
        if self._has_infos:
            self.infos = self._infos()
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {AGENTS[0]: rewards[0], AGENTS[1]: rewards[1]}
        player = game.current_player(state)
        if player == TERMINAL:
            self.terminations = dict.fromkeys(AGENTS, True)
            self.agent_selection = AGENTS[1 - AGENTS.index(agent)]
        else:
            if self.num_moves >= game.info.max_moves:
                self.truncations = dict.fromkeys(AGENTS, True)
            self.agent_selection = AGENTS[player]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _infos(self) -> dict[str, dict[str, Any]]:
        state = self.game_state
        return {agent: self.game.env_info(state, player) for player, agent in enumerate(AGENTS)}

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s observation and action mask; the mask is all zeros unless it is to move.

        Works after the game is over too (PettingZoo then removes finished agents from
        ``terminations``; wrappers such as SuperSuit's still observe them).
        """
        if agent not in AGENTS:
            raise ValueError(f"unknown agent {brief(agent)}; the agents are "
                             f"{', '.join(map(repr, AGENTS))}")
        self._check_started("observe()")
        player = AGENTS.index(agent)
        state = self.game_state
        to_move = (self.agent_selection == agent and agent in self.agents
                   and not self.terminations.get(agent, True)
                   and not self.truncations.get(agent, True))
        mask = self.game.legal_mask(state).copy() if to_move else self._zero_mask.copy()
        return {"observation": self.game.observation(state, player), "action_mask": mask}

    def _check_started(self, what: str) -> None:
        if self.game_state is None:
            raise RuntimeError(f"{what} before reset(): call reset() to start a game")

    # ----- views ---------------------------------------------------------------------
    @property
    def position(self) -> str:
        """The current position string (docs/games/<game>.md, "Position strings")."""
        self._check_started("position")
        return self.game.to_notation(self.game_state)

    def render(self) -> str | np.ndarray | None:
        """The text board (``ansi``), the picture (``rgb_array``) or a window (``human``).

        Without a render mode it warns and returns ``None``, as PettingZoo's games do.
        """
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render "
                                  "mode: pass render_mode='ansi', 'rgb_array' or 'human'")
            return None
        self._check_started("render()")
        if self.render_mode == "ansi":
            return self.game.render_text(self.game_state)
        from tris_envs.envs.rendering import draw_picture, show_picture

        picture = draw_picture(self.game, self.game_state)
        if self.render_mode == "rgb_array":
            return picture
        self._window = show_picture(picture, self._window, self.metadata["name"])
        return None

    def close(self) -> None:
        if self._window is not None:
            from tris_envs.envs.rendering import close_window

            close_window()
            self._window = None

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_window"] = None
        return state
