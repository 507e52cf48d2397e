"""The games as RLlib multi-agent environments (new API stack), with action masking.

:class:`RLlibEnv` presents any registered game as a turn-based
``ray.rllib.env.multi_agent_env.MultiAgentEnv``: only the player to move receives an
observation, a dict with the keys RLlib's action-masking RL modules read,
``"observations"`` (the game's observation tensor, flattened to ``float32``) and
``"action_mask"`` (``float32``, 1 for each legal action). Rewards go to both seats on every
step (win/loss games pay +1/-1 at the end); ``terminateds`` / ``truncateds`` carry
``"__all__"``, and the step that ends a game (won, drawn or cut at ``max_moves``) gives both
seats a last observation, which RLlib needs to close each seat's episode; chance nodes
(Tris 2's random setup, Tritoc's dice) are resolved inside the environment with its seeded
generator. :func:`masked_module_spec` gives the RL module spec
to train on it, :class:`RLlibAgent` turns a trained module into an agent of the evaluation
harness (``play_match(game, RLlibAgent(module), "greedy")``).

Needs ``pip install "tris_envs[rllib]"``. ``examples/rllib_self_play.py`` trains by
self-play against a frozen copy; docs/rllib.md has the figures.
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    import gymnasium as gym
    import torch
    from ray.rllib.core.rl_module.rl_module import RLModule, RLModuleSpec
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )
    from ray.tune.registry import register_env
except ImportError as error:          # pragma: no cover - depends on the installed extras
    raise ImportError(f"tris_envs.integrations.rllib needs RLlib ({error}): "
                      'pip install "tris_envs[rllib]"') from error

from tris_envs.core.game import TERMINAL, Game, advance, resolve_chance, seeded_generator
from tris_envs.envs.aec import AGENTS
from tris_envs.games import make_game

ENV_NAME = "tris_envs"
"""The name :func:`register` gives the environment creator (``config.environment(ENV_NAME,
env_config={"game": "tant_fant", "options": {...}})``)."""


def observation_dict(game: Game, state: Any, player: int) -> dict[str, np.ndarray]:
    """``{"observations", "action_mask"}`` of ``player`` in ``state``, as the env gives it;
    the mask is all zeros unless ``player`` is to move."""
    to_move = game.current_player(state) == player
    mask = game.legal_mask(state) if to_move else np.zeros(game.info.num_actions)
    return {"observations": game.observation(state, player).astype(np.float32).ravel(),
            "action_mask": mask.astype(np.float32)}


class RLlibEnv(MultiAgentEnv):
    """A game of the registry as a turn-based RLlib ``MultiAgentEnv``.

    Args:
        config: ``{"game": <registry name>, "options": {<game options>}}`` (RLlib passes
            its ``env_config`` here); the game defaults to ``tris1``.

    Raises:
        ValueError: an unknown game or option (the registry's message).
    """

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        config = dict(config or {})
        self.game = make_game(config.get("game", "tris1"), **dict(config.get("options", {})))
        info = self.game.info
        self.agents = self.possible_agents = list(AGENTS)
        space = gym.spaces.Dict({
            "observations": gym.spaces.Box(0.0, 1.0, (int(np.prod(info.observation_shape)),),
                                           np.float32),
            "action_mask": gym.spaces.Box(0.0, 1.0, (info.num_actions,), np.float32),
        })
        self.observation_spaces = dict.fromkeys(AGENTS, space)
        self.action_spaces = dict.fromkeys(AGENTS, gym.spaces.Discrete(info.num_actions))
        self._rng = np.random.default_rng()
        self.state: Any = None
        self.plies = 0

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[Any, Any]:
        """A new game (``seed`` reseeds the setup and dice); the first mover observes.

        ``options={"position": s}`` starts from position string ``s``, as in the PettingZoo
        environments.

        Raises:
            ValueError: a malformed position string, or a finished game.
        """
        if seed is not None:
            self._rng = seeded_generator(seed)
        position = (options or {}).get("position")
        state = (self.game.initial_state(self._rng) if position is None
                 else self.game.from_notation(position))
        self.state = resolve_chance(self.game, state, self._rng)
        if self.game.current_player(self.state) == TERMINAL:
            raise ValueError(f"position {position!r} is a finished game: an RLlib episode "
                             "starts with a player to move")
        self.plies = 0
        return self._observe(), {}

    def step(self, action_dict: Any) -> tuple[Any, Any, Any, Any, Any]:
        """Play the mover's action (``IllegalActionError`` if it is illegal: masked modules
        never choose one); dice are rolled before the next observation."""
        player = self.game.current_player(self.state)
        mover = AGENTS[player]
        if mover not in action_dict:
            raise ValueError(f"step() needs the action of {mover}, the player to move; got "
                             f"actions for {sorted(action_dict)}")
        self.state, rewards = advance(self.game, self.state, action_dict[mover], self._rng)
        self.plies += 1
        over = self.game.current_player(self.state) == TERMINAL
        cut = not over and self.plies >= self.game.max_moves
        terminateds = dict.fromkeys(AGENTS, over) | {"__all__": over}
        truncateds = dict.fromkeys(AGENTS, cut) | {"__all__": cut}
        if over or cut:     # without it RLlib refuses a seat that acted, then got truncated
            observations = {agent: observation_dict(self.game, self.state, player)
                            for player, agent in enumerate(AGENTS)}
        else:
            observations = self._observe()
        return (observations, {agent: float(r) for agent, r in zip(AGENTS, rewards)},
                terminateds, truncateds, {})

    def _observe(self) -> dict[str, dict[str, np.ndarray]]:
        player = self.game.current_player(self.state)
        return {AGENTS[player]: observation_dict(self.game, self.state, player)}


def register(name: str = ENV_NAME) -> str:
    """Register :class:`RLlibEnv` with Ray Tune under ``name`` and return the name."""
    register_env(name, RLlibEnv)
    return name


def masked_module_spec(hidden: tuple[int, ...] = (256, 256)) -> RLModuleSpec:
    """An RL module spec with RLlib's ``ActionMaskingTorchRLModule`` (PPO's default
    model with the illegal actions' logits masked), ``hidden`` units per dense layer."""
    return RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                        model_config={"head_fcnet_hiddens": list(hidden),
                                      "fcnet_hiddens": list(hidden)})


class RLlibAgent:
    """A trained RLlib RL module (from :class:`RLlibEnv`) as an agent of the evaluation
    harness: it plays the masked greedy action (the highest logit among legal moves).

    Args:
        module: the trained module, e.g. ``algorithm.get_module("main")``.
        name: how results name it.
    """

    def __init__(self, module: RLModule, name: str = "rllib") -> None:
        self.module = module
        self.name = name

    def act(self, game: Game, state: Any) -> int:
        """The legal action with the highest logit for the player to move."""
        obs = observation_dict(game, state, game.current_player(state))
        batch = {"obs": {key: torch.from_numpy(value)[None] for key, value in obs.items()}}
        with torch.no_grad():
            logits = self.module.forward_inference(batch)["action_dist_inputs"][0].numpy()
        return int(np.argmax(np.where(obs["action_mask"] > 0, logits, -np.inf)))
