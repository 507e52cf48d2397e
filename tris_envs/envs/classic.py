"""``env()`` behaviour shared by every module: PettingZoo's classic-game rules in one wrapper.

PettingZoo's classic games wrap their raw env in ``TerminateIllegalWrapper(illegal_reward=-1)``,
``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper``. That chain costs about three
times the raw environment's own time per step (each layer forwards every attribute and
``TerminateIllegalWrapper`` re-reads the observation to find the mask).
:class:`ClassicWrapper` gives the same behaviour in one layer that asks the rules core
for legality directly; ``tests/test_classic_wrapper.py`` checks it against the chain.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pettingzoo.utils.env import AECIterable, AECIterator
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import BaseWrapper

from tris_envs.core.errors import IllegalActionError, brief
from tris_envs.core.game import as_action
from tris_envs.envs.aec import GameEnv
from tris_envs.games import game_spec

_NEEDS_RESET = frozenset({"rewards", "terminations", "truncations", "infos",
                          "agent_selection", "num_agents", "agents"})


class OutOfBoundsActionError(IllegalActionError, AssertionError):
    """An action outside the action space given to ``env()``.

    An ``AssertionError`` too, as PettingZoo's ``AssertOutOfBoundsWrapper`` raises.
    """


class ClassicWrapper(BaseWrapper):
    """Order enforcement, out-of-bounds rejection and "illegal move loses" in one layer.

    * Before ``reset()``: reading ``agents``, ``rewards``, ... raises ``AttributeError``;
      ``step``, ``observe``, ``render``, ``state`` and ``agent_iter`` raise
      ``AssertionError``, as PettingZoo's ``OrderEnforcingWrapper`` does.
    * An action outside the action space raises :class:`OutOfBoundsActionError`.
    * An illegal action ends the game: the offender gets -1, every agent is terminated
      and truncated, as with PettingZoo's ``TerminateIllegalWrapper(illegal_reward=-1)``.
    """

    def __init__(self, env: GameEnv) -> None:
        super().__init__(env)
        self._has_reset = False
        self._has_updated = False

    def __getattr__(self, name: str) -> Any:
        if name in _NEEDS_RESET and not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return super().__getattr__(name)

    # Hot attributes read straight from the raw env (AECIterator and last() use them).
    @property
    def agents(self) -> list[str]:
        return self.env.agents

    @property
    def agent_selection(self) -> str:
        return self.env.agent_selection

    @property
    def terminations(self) -> dict[str, bool]:
        return self.env.terminations

    @property
    def truncations(self) -> dict[str, bool]:
        return self.env.truncations

    @property
    def rewards(self) -> dict[str, float]:
        return self.env.rewards

    @property
    def infos(self) -> dict[str, dict]:
        return self.env.infos

    @property
    def _cumulative_rewards(self) -> dict[str, float]:
        return self.env._cumulative_rewards

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._has_reset = True
        self._has_updated = True
        self.env.reset(seed=seed, options=options)

    def step(self, action: Any) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        env = self.env
        if not env.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
            return
        self._has_updated = True
        agent = env.agent_selection
        dead = env.terminations[agent] or env.truncations[agent]
        index = as_action(action)
        if not ((index is not None and 0 <= index < env._n_actions)
                or (action is None and dead)):
            what = "an integer in" if index is None and action is not None else "in"
            raise OutOfBoundsActionError(
                f"action {brief(action)} is not {what} the action space "
                f"{env.action_spaces[agent]}")
        if dead or env.game.legal_mask(env.game_state)[index]:
            env.step(action)
            return
        EnvLogger.warn_on_illegal_move()
        env._cumulative_rewards[agent] = 0
        env.terminations = dict.fromkeys(env.agents, True)
        env.truncations = dict.fromkeys(env.agents, True)
        env.rewards = dict.fromkeys(env.agents, 0)
        env.rewards[agent] = -1.0
        env._accumulate_rewards()
        env._deads_step_first()

    def observe(self, agent: str) -> Any:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self.env.observe(agent)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self.env.last(observe)

    def render(self) -> Any:
        if not self._has_reset:
            EnvLogger.error_render_before_reset()
        return self.env.render()

    def state(self) -> Any:
        if not self._has_reset:
            EnvLogger.error_state_before_reset()
        return self.env.state()

    def agent_iter(self, max_iter: int = 2**63) -> AECIterable:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _OrderedIterable(self, max_iter)

    def __str__(self) -> str:
        return str(self.env)


class _OrderedIterable(AECIterable):
    def __iter__(self) -> AECIterator:
        return _OrderedIterator(self.env, self.max_iter)


class _OrderedIterator(AECIterator):
    """Like PettingZoo's: each iteration must be followed by a ``step()`` or ``reset()``."""

    def __next__(self) -> str:
        agent = super().__next__()
        if not self.env._has_updated:
            raise AssertionError("need to call step() or reset() in a loop over `agent_iter`")
        self.env._has_updated = False
        return agent


def classic_env(raw_env_class: type[GameEnv], **kwargs: Any) -> ClassicWrapper:
    """``raw_env_class(**kwargs)`` with PettingZoo's classic-game behaviour."""
    return ClassicWrapper(raw_env_class(**kwargs))


def environment_module(name: str, module: str) -> tuple[type[GameEnv], Callable[..., Any]]:
    """``raw_env`` and ``env`` of the environment module ``module`` for registry game ``name``.

    Every ``tris_envs.<game>_v0`` module is its environment card (the docstring) and
    ``raw_env, env = environment_module("<game>", __name__)``: the class pickles under
    ``<module>.raw_env`` like a class written there.
    """
    spec = game_spec(name)
    raw_env = type("raw_env", (GameEnv,), {
        "__module__": module, "__qualname__": "raw_env",
        "__doc__": f"Unwrapped {spec.title} environment (illegal actions raise).",
        "game_class": spec.game_class, "metadata": GameEnv.make_metadata(spec.env_name)})

    def env(**kwargs: Any) -> ClassicWrapper:
        return classic_env(raw_env, **kwargs)

    env.__module__ = module
    env.__doc__ = (f"{spec.title} with PettingZoo's classic-game wrappers (an illegal move "
                   "loses: -1 and the game ends).")
    return raw_env, env
