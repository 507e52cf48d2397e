"""A game as text, for training language models with reinforcement learning.

:class:`TextEnv` is one seat of a game as a Gymnasium environment whose observation is a
prompt and whose action is the model's reply, the verifiable-reward shape that LLM-RL
trainers (TRL, verifiers, TextArena-style loops) step: the reward is the game's outcome,
checked by the rules, plus an optional dense reward from the exact solver::

    from tris_envs.envs.text import TextEnv

    env = TextEnv("tant_fant", opponent="greedy", dense_reward=0.1)
    prompt, info = env.reset(seed=0)
    prompt, reward, terminated, truncated, info = env.step('{"move": "a1-b2"}')

Each observation is self-contained, a single-turn prompt: the rules
(:func:`~tris_envs.core.text.rules_prompt`), a blank line, then the position
(:func:`~tris_envs.core.text.position_prompt`: the drawing, whose turn, the legal moves and
how to answer). ``info["rules"]`` and ``info["position_prompt"]`` hold the two parts, for a
trainer that puts the rules in a system message and the positions in the turns.
``gymnasium.make("tris_envs/TantFantText-v0", ...)`` makes one
(:func:`~tris_envs.registration.register_gymnasium`). docs/llm.md, "The text environment".
"""

from __future__ import annotations

import string
import warnings
from typing import Any

import gymnasium
from gymnasium import spaces

from tris_envs.agents.solver_agent import is_value_keeping
from tris_envs.core.errors import brief
from tris_envs.core.options import check_choice, check_int
from tris_envs.core.text import (
    MAX_REPLY_CHARS,
    ReplyError,
    parse_reply,
    position_prompt,
    rules_prompt,
)
from tris_envs.envs.single_agent import SEATS, Opponent, _game_of
from tris_envs.envs.turns import Duel, play_opponents
from tris_envs.games import GAMES
from tris_envs.settings import number

CHARSET = string.printable + "".join(map(chr, range(0x2500, 0x2600)))
"""The characters of the prompts, the charset of both ``Text`` spaces: printable ASCII with
its white space, and Unicode's box drawing and geometric shapes (U+2500 to U+25FF: the
boards' lines, Tant Fant's arrows, the pieces). A reply may hold any character: ``step``
reads every ``str``; ``action_space.sample()`` draws from these."""
OBSERVATION_CHARS = 32_768
"""The longest observation (characters): several times the longest prompt of any game,
a refusal's reason included."""
REFUSED = "Your previous reply was refused: "
"""What an observation after a refused reply adds after the prompt, before the reason."""


class TextEnv(gymnasium.Env):
    """One seat of a game as text: the observation is a prompt, the action the reply.

    **Observation and action.** ``observation_space`` and ``action_space`` are
    Gymnasium's ``Text`` spaces. An observation is the rules prompt, a blank line and the
    position prompt (module docstring); after the game it is the last position (``The
    game is over.``). An action is the model's reply as a ``str``, read by
    :func:`~tris_envs.core.text.parse_reply`: a ``{"move": "..."}`` JSON object anywhere in
    it, or the move alone, written loosely (case, spaces); replies of up to
    :data:`~tris_envs.core.text.MAX_REPLY_CHARS` characters are read (``action_space``'s
    ``max_length``).

    **Rewards.** At the end, the game's outcome for the learner's seat, as
    :class:`~tris_envs.envs.SingleAgentEnv` pays it (+1 win, -1 loss, a loss on the
    opponent's move included, 0 draw or truncation after ``max_moves``; Tritoc's
    ``reward="points"`` pays its points). With ``dense_reward=d > 0`` (games with an exact
    solver: Tris 1, Tant Fant, Doppia scelta once its board is colored) each of the
    learner's moves in a position with more than one legal move also earns ``+d`` where it
    keeps the solver's game value of the position and ``-d`` where it loses it
    (:func:`~tris_envs.agents.solver_agent.is_value_keeping`); ``info["value_kept"]`` says
    which (``None``: not judged, a forced move or the coloring phase).

    **Refused replies.** A reply that names no legal move (not JSON, no move, an illegal
    move, too long) is refused: ``info["reply_error"]`` is the reason, written for the
    model (what was wrong, the legal moves, how to answer), and nothing is played. With
    ``retries=0`` (the default) the episode ends there as a forfeit: reward -1,
    ``terminated``, ``info["forfeit"] = True``. With ``retries=n`` the first ``n`` refused
    replies of each move leave the game where it is, with reward 0: the next observation
    is the same prompt followed by ``Your previous reply was refused: <reason>``, and
    ``info["tries_left"]`` counts down; the next refusal forfeits. A reply that is not a
    ``str`` is a ``TypeError`` (a bug of the caller, not the model's move).

    **Seats and seeding.** ``seat`` is 0 (moves first), 1 or ``"random"`` (drawn per
    episode). ``reset(seed=...)`` seeds ``np_random``, which draws the seat, the setup, the
    dice and, for an opponent given as an agent spec, the opponent's choices: the same seed
    and the same replies give the same episode. ``reset(options={"position": s})`` starts
    from position string ``s``.

    Args:
        game_env: A game or environment name (``"tant_fant"``, ``"tant_fant_v0"``), an
            environment of this package, or a rules-core
            :class:`~tris_envs.core.game.Game`.
        opponent: The other seat: an agent spec of the ladder (``"random"``, ``"greedy"``,
            ``"mcts:100"``, ``"solver"``, ...; :func:`~tris_envs.agents.make_agent`), an
            :class:`~tris_envs.agents.Agent` or a policy (see
            :class:`~tris_envs.envs.turns.OpponentPlayer`).
        seat: The learner's seat.
        dense_reward: ``d`` above, a number >= 0 (0: off).
        retries: Refused replies forgiven per move (an integer >= 0).
        render_mode: ``None`` or ``"ansi"`` (the game's text board).
        **game_options: The game's options (``max_moves`` included), only with a name.

    Raises:
        ValueError: an unknown game, option, seat, render mode or agent spec; a negative or
            non-finite ``dense_reward``, or a positive one for a game the solver cannot
            play (Tris 2, Tritoc); a negative ``retries``.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 2}

    def __init__(self, game_env: Any, opponent: Opponent = "random",
                 seat: int | str = "random", dense_reward: float = 0.0, retries: int = 0,
                 render_mode: str | None = None, **game_options: Any) -> None:
        self.game = _game_of(game_env, game_options)
        self._seat_option = check_choice("seat", seat, SEATS)
        problem = number(0)(dense_reward)
        if problem is not None:
            raise ValueError(f"option dense_reward={brief(dense_reward)} {problem}")
        if dense_reward and not GAMES[self.game.info.name].solvable:
            solvable = ", ".join(name for name, spec in GAMES.items() if spec.solvable)
            raise ValueError(f"option dense_reward={dense_reward:g} needs the exact solver, "
                             f"which cannot play {self.game.info.name} (it plays {solvable})")
        self.dense_reward = float(dense_reward)
        self.retries = check_int("retries", retries, minimum=0)
        if render_mode is not None:
            check_choice("render_mode", render_mode, tuple(self.metadata["render_modes"]))
        self.render_mode = render_mode
        self.rules = rules_prompt(self.game)
        self.observation_space = spaces.Text(OBSERVATION_CHARS, min_length=1, charset=CHARSET)
        self.action_space = spaces.Text(MAX_REPLY_CHARS, min_length=0, charset=CHARSET)
        self._duel = Duel(self.game, self.np_random, opponent)
        self._duel.seat = 0 if self._seat_option == "random" else int(self._seat_option)
        self._tries_left = self.retries
        self._done = True

    # ----- episode -------------------------------------------------------------------
    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        """Start an episode; the opponent opens when the learner sits second.

        Args:
            seed: Seeds ``np_random`` (seat, setup, dice, an agent-spec opponent).
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
        self._tries_left = self.retries
        return self._observe()

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Read the learner's reply, play its move, then the opponent's until the learner is
        to move again or the game ends.

        Raises:
            TypeError: ``action`` is not a ``str``.
            RuntimeError: the episode is over (or not started): call ``reset()``.
        """
        if self._done:
            raise RuntimeError("the episode is over (or was never started): call reset()")
        if not isinstance(action, str):
            raise TypeError(f"a reply is a str, got {brief(action)}")
        duel = self._duel.copy()
        try:
            move = parse_reply(self.game, duel.state, action)
        except ReplyError as error:
            return self._refused(duel, str(error))
        kept = (is_value_keeping(self.game, duel.state, move) if self.dense_reward
                and len(self.game.legal_actions(duel.state)) > 1 else None)
        name = self.game.action_name(duel.state, move)
        duel.learner_move(move)
        play_opponents([duel])
        self._duel = duel
        self._done = duel.over
        self._tries_left = self.retries
        reward = duel.reward + (0.0 if kept is None else self.dense_reward if kept
                                else -self.dense_reward)
        prompt, info = self._observe()
        info.update(action=move, move=name)
        if self.dense_reward:
            info["value_kept"] = kept
        return prompt, reward, duel.terminated, duel.truncated, info

    def _refused(self, duel: Duel, reason: str) -> tuple[str, float, bool, bool,
                                                          dict[str, Any]]:
        """The step of a refused reply: a retry while tries are left, else a forfeit."""
        if self._tries_left > 0:
            self._tries_left -= 1
            prompt, info = self._observe()
            return (f"{prompt}\n\n{REFUSED}{reason}", 0.0, False, False,
                    {**info, "reply_error": reason})
        duel.lose()
        self._duel = duel
        self._done = True
        prompt, info = self._observe()
        return prompt, duel.reward, True, False, {**info, "reply_error": reason,
                                                  "forfeit": True}

    # ----- views ---------------------------------------------------------------------
    @property
    def game_state(self) -> Any:
        """The game state (``None`` before the first reset)."""
        return self._duel.state

    @property
    def seat(self) -> int:
        """The learner's seat in this episode (0 moves first)."""
        return self._duel.seat

    @property
    def position(self) -> str:
        """The current position string (docs/games/<game>.md, "Position strings")."""
        return self.game.to_notation(self.game_state)

    def _observe(self) -> tuple[str, dict[str, Any]]:
        """The prompt, and the info: the seat, the prompt's two parts, the legal moves'
        names (none once the episode is over), the position string and the refused
        replies still forgiven in this move."""
        game, state = self.game, self._duel.state
        position = position_prompt(game, state)
        legal = [] if self._done else [game.action_name(state, a)
                                       for a in game.legal_actions(state)]
        return f"{self.rules}\n\n{position}", {
            "seat": self.seat, "rules": self.rules, "position_prompt": position,
            "legal_moves": legal, "position": game.to_notation(state),
            "tries_left": self._tries_left}

    def render(self) -> str | None:  # type: ignore[override,unused-ignore]
        """The game's text board (``render_mode="ansi"``)."""
        if self.render_mode is None:
            warnings.warn("render() without a render_mode: pass render_mode='ansi' to "
                          "TextEnv", stacklevel=2)
            return None
        return self.game.render_text(self.game_state)
