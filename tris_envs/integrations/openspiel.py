"""The games inside OpenSpiel: every game registered with ``pyspiel.register_game``.

Importing this module registers ``tris_envs_<game>`` for every game of
:data:`tris_envs.games.GAMES`; its options are game parameters with the core's defaults::

    import pyspiel
    import tris_envs.integrations.openspiel  # noqa: F401  (registers the games)

    game = pyspiel.load_game("tris_envs_tris2(max_side=4)")
    state = game.new_initial_state()        # a chance node: the random setup

What OpenSpiel sees (docs/openspiel.md):

- sequential, two players, perfect information, zero-sum with terminal rewards +1/-1/0
  (Tritoc's ``reward="points"``: general-sum, rewards on every move);
- explicit chance nodes where the game has randomness. Random setups (Tris 2's block,
  Doppia scelta's board, Tritoc's random layout) are the core's own
  ``initial_state(rng)`` run on a generator whose every uniform integer draw is a chance
  node, so their distribution is exactly the core's (its redraws included); Tritoc's dice
  are the core's chance nodes with the core's probabilities;
- the same action numbers as the environments, ``action_to_string`` the names people type
  (``b1-b2``: the rules core's ``action_name``) and ``string_to_action`` reading them back
  as the core's ``parse_action`` does, ``__str__`` the ``ansi`` drawing, observation
  tensors with the environments' planes in their ``(H, W, C)`` layout (float32),
  ``max_game_length`` = ``max_moves``: a game still going after ``max_moves`` plies ends as
  a draw, as the environments truncate;
- ``serialize_game_and_state`` through the position strings: a state pickles as the
  position string of its start and the actions since (the setup's draws before the start).

Parameters that are not plain values in the core are written as each game's option
declaration says (``OPTION_TYPES``, :mod:`tris_envs.core.options`): Tris 2's
``max_side=0`` is no limit (``None``); Doppia scelta's ``gates`` is the four gates separated
by spaces and ``board`` the board string, ``""`` for none; Tritoc's ``layout`` is a name or
the 81 characters ``3``-``9``, ``a``, ``b`` of the position strings.

Needs ``pip install "tris_envs[openspiel]"``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

try:
    import pyspiel
    from open_spiel.python.algorithms import mcts, minimax
    from open_spiel.python.observation import IIGObserverForPublicInfoGame
except ImportError as error:          # pragma: no cover - depends on the installed extras
    raise ImportError(f"tris_envs.integrations.openspiel needs OpenSpiel ({error}): "
                      'pip install "tris_envs[openspiel]"') from error

from tris_envs.agents import spec as spec_table
from tris_envs.agents.spec import AgentSpec
from tris_envs.core.errors import brief
from tris_envs.core.game import CHANCE, TERMINAL, Game
from tris_envs.core.options import Parameter
from tris_envs.games import GAMES, game_spec, make_game

PREFIX = "tris_envs_"
"""OpenSpiel's name of a game is ``PREFIX + name`` (``tris_envs_tant_fant``)."""

POINTS_MAX = 14
"""Largest Tritoc score with ``reward="points"``: 9 conquered fields and 5 for the win."""


# ----- parameters ------------------------------------------------------------------------
def _encode(name: str, option: str, value: Any) -> Parameter:
    """A core option value as the OpenSpiel parameter that stands for it (the option's
    declared ``to_parameter``)."""
    return GAMES[name].game_class.OPTION_TYPES[option].to_parameter(value)


def _decode(name: str, option: str, value: Parameter) -> Any:
    """The core option value an OpenSpiel parameter stands for (the option's declared
    ``from_parameter``; validated by the core)."""
    return GAMES[name].game_class.OPTION_TYPES[option].from_parameter(value)


def parameters(name: str, **options: Any) -> dict[str, bool | int | str]:
    """The OpenSpiel parameters of game ``name`` with core ``options`` (defaults filled in)."""
    game = make_game(name, **options)
    return {option: _encode(game.info.name, option, value)
            for option, value in game.options().items()}


def load(name: str, **options: Any) -> pyspiel.Game:
    """``pyspiel.load_game`` of game ``name`` with core ``options`` (``load("tris2",
    max_side=4)``); non-default options only, so the game's string stays short."""
    defaults = parameters(name)
    given = {k: v for k, v in parameters(name, **options).items() if defaults[k] != v}
    return pyspiel.load_game(PREFIX + game_spec(name).name, given)


# ----- random setups as chance nodes -----------------------------------------------------
class _NeedDraw(Exception):
    """Raised by :class:`_ScriptedDraws` when the core asks for a draw not made yet."""

    def __init__(self, size: int) -> None:
        super().__init__(size)
        self.size = size


class _ScriptedDraws:
    """A stand-in for ``numpy.random.Generator`` that answers uniform integer draws from
    a script: the chance outcomes chosen so far. The draw after the script raises
    :class:`_NeedDraw` with the number of outcomes it has (all equally likely)."""

    def __init__(self, draws: Sequence[int]) -> None:
        self._draws = draws
        self._next = 0

    def _draw(self, size: int) -> int:
        if self._next == len(self._draws):
            raise _NeedDraw(size)
        value = self._draws[self._next]
        self._next += 1
        return value

    def integers(self, low: int, high: int | None = None, size: Any = None,
                 dtype: Any = np.int64, endpoint: bool = False) -> Any:
        """``Generator.integers``, one chance node per integer drawn."""
        if high is None:
            low, high = 0, low
        span = int(high) - int(low) + (1 if endpoint else 0)
        if size is None:
            return int(low) + self._draw(span)
        shape = (size,) if np.isscalar(size) else tuple(size)
        values = [int(low) + self._draw(span) for _ in range(int(np.prod(shape)))]
        return np.array(values, dtype=dtype).reshape(shape)

    def permuted(self, x: Any, axis: int | None = None) -> np.ndarray:
        """``Generator.permuted``: each slice shuffled by Fisher-Yates (uniformly)."""
        out = np.array(x, copy=True)
        rows = out.reshape(1, -1) if axis is None else np.moveaxis(out, axis, -1)   # views
        for index in np.ndindex(*rows.shape[:-1]):
            row = rows[index]
            for i in range(len(row) - 1, 0, -1):
                j = self._draw(i + 1)
                row[i], row[j] = row[j], row[i]
        return out

    def __getattr__(self, name: str) -> Any:
        raise NotImplementedError(
            f"the game draws its setup with Generator.{name}, which "
            "tris_envs.integrations.openspiel cannot turn into chance nodes yet")


class _SizeRecorder(_ScriptedDraws):
    """Draws from a real generator and records how many outcomes each draw had."""

    def __init__(self, rng: np.random.Generator) -> None:
        super().__init__(())
        self._rng = rng
        self.sizes: list[int] = []

    def _draw(self, size: int) -> int:
        self.sizes.append(size)
        return int(self._rng.integers(size))


# ----- positions ---------------------------------------------------------------------------
class _Rules:
    """One option set of one game: the core, OpenSpiel's facts about it, its start."""

    def __init__(self, key: tuple[str, tuple[tuple[str, Any], ...]]) -> None:
        name, params = key
        self.key = key
        self.game: Game = make_game(name, **{option: _decode(name, option, value)
                                             for option, value in params})
        self.max_moves = self.game.info.max_moves
        recorder = _SizeRecorder(np.random.default_rng(0))
        self.game.initial_state(recorder)                    # type: ignore[arg-type]
        self.setup_sizes = recorder.sizes
        self.start = _Position.setup(self, ())

    @property
    def stochastic(self) -> bool:
        """Whether the game has chance nodes (a random setup or dice)."""
        return bool(self.setup_sizes) or not self.game.info.deterministic


@functools.cache
def _rules(key: tuple[str, tuple[tuple[str, Any], ...]]) -> _Rules:
    return _Rules(key)


class _Position:
    """An immutable OpenSpiel-side position: the core state (``None`` while the setup is
    drawn), the plies played, the returns so far, and how it was reached.

    ``copy.deepcopy`` (OpenSpiel's ``clone``) returns the position itself; pickling goes
    through the start's position string and the actions since (:func:`_restore`).
    """

    __slots__ = ("rules", "state", "draws", "need", "player", "plies", "totals", "last",
                 "parent", "action")

    rules: _Rules
    state: Any
    draws: tuple[int, ...]
    need: int
    player: int
    plies: int
    totals: tuple[float, float]
    last: tuple[float, float]
    parent: _Position | None
    action: int

    @classmethod
    def at(cls, rules: _Rules, state: Any, plies: int, draws: tuple[int, ...]) -> _Position:
        """The position of core ``state`` after ``plies`` moves (a start: no parent)."""
        position = cls()
        position.rules, position.state, position.draws = rules, state, draws
        position.plies, position.need = plies, 0
        position.totals = position.last = (0.0, 0.0)
        position.parent, position.action = None, -1
        position.player = position._player()
        return position

    @classmethod
    def setup(cls, rules: _Rules, draws: tuple[int, ...]) -> _Position:
        """The position after the setup draws ``draws`` (a chance node until complete)."""
        try:
            state = rules.game.initial_state(_ScriptedDraws(draws))  # type: ignore[arg-type]
        except _NeedDraw as need:
            position = cls.at(rules, None, 0, draws)
            position.need = need.size
            return position
        return cls.at(rules, state, 0, draws)

    def _player(self) -> int:
        if self.state is None:
            return pyspiel.PlayerId.CHANCE
        player = self.rules.game.current_player(self.state)
        if player == TERMINAL or self.plies >= self.rules.max_moves:
            return pyspiel.PlayerId.TERMINAL
        return pyspiel.PlayerId.CHANCE if player == CHANCE else player

    def child(self, action: int) -> _Position:
        """The position after ``action`` (a player's action or a chance outcome)."""
        if self.state is None:
            if not 0 <= action < self.need:
                raise ValueError(f"setup draw {action} is not one of 0..{self.need - 1}")
            return _Position.setup(self.rules, (*self.draws, action))
        game = self.rules.game
        position = _Position()
        position.rules, position.draws = self.rules, self.draws
        position.state = game.apply(self.state, action)
        position.plies = self.plies + (self.player >= 0)
        earned = game.rewards(position.state)
        position.totals = (self.totals[0] + earned[0], self.totals[1] + earned[1])
        if self.player < 0:           # OpenSpiel reads rewards at decision nodes only
            earned = (self.last[0] + earned[0], self.last[1] + earned[1])
        position.last = earned
        position.parent, position.action, position.need = self, action, 0
        position.player = position._player()
        return position

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.state is None:
            return [(outcome, 1.0 / self.need) for outcome in range(self.need)]
        return list(self.rules.game.chance_outcomes(self.state))

    def __deepcopy__(self, memo: dict[int, Any]) -> _Position:
        return self

    def __reduce__(self) -> tuple[Callable[..., _Position], tuple[Any, ...]]:
        actions = []
        position = self
        while position.parent is not None:
            actions.append(position.action)
            position = position.parent
        start = None if position.state is None else self.rules.game.to_notation(position.state)
        return _restore, (self.rules.key, self.draws, start, position.plies,
                          tuple(reversed(actions)))


def _restore(key: tuple[str, tuple[tuple[str, Any], ...]], draws: tuple[int, ...],
             start: str | None, plies: int, actions: tuple[int, ...]) -> _Position:
    """The position a pickled :class:`_Position` stands for (see its ``__reduce__``)."""
    rules = _rules(key)
    position = (_Position.setup(rules, draws) if start is None
                else _Position.at(rules, rules.game.from_notation(start), plies, draws))
    for action in actions:
        position = position.child(action)
    return position


# ----- OpenSpiel classes -------------------------------------------------------------------
class TrisEnvsState(pyspiel.State):
    """A position of one of the games, as an OpenSpiel state.

    Attributes:
        game_state: The rules core's state (``None`` while a random setup is drawn).
    """

    def __init__(self, game: TrisEnvsGame, position: _Position | None = None) -> None:
        super().__init__(game)
        self._position = position or game.rules.start

    @property
    def game_state(self) -> Any:
        return self._position.state

    @property
    def core(self) -> Game:
        """The rules core of this state's game."""
        return self._position.rules.game

    @property
    def plies(self) -> int:
        """Player moves since the start (the setup's chance nodes not counted)."""
        return self._position.plies

    def current_player(self) -> int:
        return self._position.player

    def _legal_actions(self, player: int) -> list[int]:
        return list(self._position.rules.game.legal_actions(self._position.state))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self._position.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        self._position = self._position.child(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        position = self._position
        if position.state is None:
            return f"setup draw {action} of {position.need}"
        game = position.rules.game
        if player == pyspiel.PlayerId.CHANCE:
            roll = game.to_notation(game.apply(position.state, action)).split()[2]
            return "roll: no playable sum, pass" if roll == "p" else f"roll {roll}"
        return game.action_name(position.state, action)

    def string_to_action(self, *args: Any) -> int:
        """The legal action a name gives: ``string_to_action(text)`` for the player to move
        (or the chance outcome), ``string_to_action(player, text)`` as in OpenSpiel.

        A player's move is read as the rules core's
        :meth:`~tris_envs.core.game.Game.parse_action` reads it, in the notation
        :meth:`action_to_string` writes (case, spaces and a remark in parentheses do not
        matter); a chance outcome by its exact name (``roll 7``). This Python method shadows
        OpenSpiel's; OpenSpiel's C++ code, which cannot see it, matches the exact names.

        Raises:
            pyspiel.SpielError: no legal action has that name; the message says why and,
                for a player's move, lists the legal moves.
            TypeError: not one or two arguments.
        """
        if len(args) not in (1, 2):
            raise TypeError(f"string_to_action takes (text) or (player, text), got {len(args)} "
                            "arguments")
        text = args[-1]
        player = int(args[0]) if len(args) == 2 else self.current_player()
        position = self._position
        if player == pyspiel.PlayerId.CHANCE or position.player == pyspiel.PlayerId.CHANCE:
            for outcome, _ in self.chance_outcomes():
                if self._action_to_string(player, outcome) == text:
                    return int(outcome)
            raise pyspiel.SpielError(f"no chance outcome is named {brief(text)}")
        try:
            return position.rules.game.parse_action(position.state, text)
        except ValueError as error:
            raise pyspiel.SpielError(str(error)) from None

    def is_terminal(self) -> bool:
        return self._position.player == pyspiel.PlayerId.TERMINAL

    def returns(self) -> list[float]:
        return list(self._position.totals)

    def rewards(self) -> list[float]:
        """What each player earned since the previous decision node (the last move and
        the chance outcomes after it), as the environments pay one step."""
        return list(self._position.last)

    def __str__(self) -> str:
        position = self._position
        if position.state is None:
            return f"setup: {len(position.draws)} draws so far, next of {position.need}"
        return position.rules.game.render_text(position.state)


class TrisEnvsGame(pyspiel.Game):
    """One game of the package with one option set, as an OpenSpiel game.

    Each game is a subclass naming it (:data:`GAME_CLASSES`); OpenSpiel's ``load_game``
    creates them.

    Args:
        params: The OpenSpiel parameters (defaults filled in by OpenSpiel).

    Attributes:
        name: The game (``"tris2"``), set by each subclass.
        rules: The core game and the facts derived from it.
    """

    name: ClassVar[str]

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        name = self.name
        values = dict(GAME_TYPES[name].parameter_specification)
        values.update(params or {})
        self.rules = _rules((name, tuple(sorted(values.items()))))
        game = self.rules.game
        points = game.options().get("reward") == "points"
        game_type = _game_type(name, self.rules.stochastic, points)
        # the core's own chance outcomes are numbered below its action count (Tritoc's:
        # sums 2-12 and 1 for a pass), setup draws below their number of outcomes
        chance_outcomes = max([*self.rules.setup_sizes, 0 if game.info.deterministic
                               else game.info.num_actions])
        info = pyspiel.GameInfo(
            num_distinct_actions=game.info.num_actions, max_chance_outcomes=chance_outcomes,
            num_players=2, min_utility=0.0 if points else -1.0,
            max_utility=float(POINTS_MAX) if points else 1.0,
            utility_sum=None if points else 0.0, max_game_length=self.rules.max_moves)
        super().__init__(game_type, info, values)

    @property
    def core(self) -> Game:
        """The rules core this game plays."""
        return self.rules.game

    def new_initial_state(self) -> TrisEnvsState:
        """The start: a chance node while a random setup is to be drawn."""
        return TrisEnvsState(self)

    def state_from_position(self, position: str, plies: int = 0) -> TrisEnvsState:
        """The state of position string ``position`` (the environments' notation), as if
        ``plies`` moves had been played (they count towards ``max_moves``)."""
        state = self.rules.game.from_notation(position)
        return TrisEnvsState(self, _Position.at(self.rules, state, plies, ()))

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Any:
        """The board planes (perfect information), or OpenSpiel's public-information
        observer for information states with perfect recall (the history)."""
        if iig_obs_type is None or (iig_obs_type.public_info
                                    and not iig_obs_type.perfect_recall):
            return PlanesObserver(self.rules.game, params)
        return IIGObserverForPublicInfoGame(iig_obs_type, params)


class PlanesObserver:
    """OpenSpiel observer of the environments' observation planes.

    ``tensor`` is the flat float32 view of ``dict["observation"]``, shaped like the
    environments' observations ``(H, W, C)``; all zeros while a random setup is drawn. The
    observation string is the position string.
    """

    def __init__(self, game: Game, params: Any = None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        self._game = game
        shape = game.info.observation_shape
        self.tensor = np.zeros(int(np.prod(shape)), np.float32)
        self.dict = {"observation": self.tensor.reshape(shape)}

    def set_from(self, state: TrisEnvsState, player: int) -> None:
        core = state.game_state
        if core is None:
            self.tensor.fill(0.0)
        else:
            self.dict["observation"][...] = self._game.observation(core, player)

    def string_from(self, state: TrisEnvsState, player: int) -> str:
        core = state.game_state
        if core is None:
            return str(state)
        return self._game.to_notation(core)


# ----- agents both ways ----------------------------------------------------------------------
_LOADED: dict[tuple[str, tuple[tuple[str, Any], ...]], TrisEnvsGame] = {}


def openspiel_game(core: Game) -> TrisEnvsGame:
    """The OpenSpiel game with the options of rules core ``core`` (loaded once)."""
    name = core.info.name
    key = (name, tuple(sorted((option, _encode(name, option, value))
                              for option, value in core.options().items())))
    game = _LOADED.get(key)
    if game is None:
        game = _LOADED[key] = pyspiel.load_game(PREFIX + name, dict(key[1]))
    return game


def openspiel_state(core: Game, state: Any) -> TrisEnvsState:
    """Core ``state`` of ``core`` as an OpenSpiel state (no plies played yet: the whole
    ``max_moves`` ahead of it)."""
    game = openspiel_game(core)
    return TrisEnvsState(game, _Position.at(game.rules, state, 0, ()))


class OpenSpielAgent:
    """An OpenSpiel bot as an agent of the harness: ``act(game, state)`` hands the bot the
    position as an OpenSpiel state and plays its choice.

    Args:
        name: The agent's name (its spec, ``"openspiel-mcts:100"``).
        make_bot: ``(OpenSpiel game, player, numpy RandomState) -> bot``, called once per
            game and seat.
        rng: Seeds the bots' ``RandomState``.
    """

    def __init__(self, name: str,
                 make_bot: Callable[[pyspiel.Game, int, np.random.RandomState], Any],
                 rng: np.random.Generator | None = None) -> None:
        self.name = name
        self._make_bot = make_bot
        self._rng = rng if rng is not None else np.random.default_rng()
        self._bots: dict[tuple[int, int], Any] = {}

    def act(self, game: Game, state: Any) -> int:
        spiel_state = openspiel_state(game, state)
        spiel_game = spiel_state.get_game()
        player = spiel_state.current_player()
        bot = self._bots.get((id(spiel_game), player))
        if bot is None:
            seed = int(self._rng.integers(2**31))
            bot = self._bots[id(spiel_game), player] = self._make_bot(
                spiel_game, player, np.random.RandomState(seed))
        return int(bot.step(spiel_state))


def mcts_agent(simulations: int, exploration: float = 1.4,
               rng: np.random.Generator | None = None) -> OpenSpielAgent:
    """OpenSpiel's Python ``MCTSBot`` with random rollouts (one per leaf) and its solver,
    ``simulations`` per move, UCT constant ``exploration`` (our ``mcts`` uses 1.4 too)."""
    def make_bot(game: pyspiel.Game, player: int, random: np.random.RandomState) -> Any:
        return mcts.MCTSBot(game, uct_c=exploration, max_simulations=simulations,
                            evaluator=mcts.RandomRolloutEvaluator(1, random), solve=True,
                            random_state=random)

    return OpenSpielAgent(f"openspiel-mcts:{simulations}", make_bot, rng)


class _MinimaxBot:
    """OpenSpiel's ``alpha_beta_search`` (deterministic games) or ``expectiminimax``
    (games with chance nodes), ``plies`` deep, the core's heuristic at the depth limit."""

    def __init__(self, game: pyspiel.Game, player: int, plies: int) -> None:
        self._game, self._player, self._plies = game, player, plies
        self._deterministic = (game.get_type().chance_mode
                               == pyspiel.GameType.ChanceMode.DETERMINISTIC)

    def _value(self, state: TrisEnvsState) -> float:
        return self._game.core.heuristic(state.game_state, self._player)

    def step(self, state: TrisEnvsState) -> int:
        if self._deterministic:
            _, action = minimax.alpha_beta_search(self._game, state, self._value,
                                                  self._plies, self._player)
        else:
            _, action = minimax.expectiminimax(state, self._plies, self._value, self._player)
        return int(action)


def minimax_agent(plies: int, rng: np.random.Generator | None = None) -> OpenSpielAgent:
    """OpenSpiel's minimax (alpha-beta, or expectiminimax with chance nodes), ``plies``
    player moves deep; exact when it reaches the ends of the game."""
    return OpenSpielAgent(f"openspiel-minimax:{plies}",
                          lambda game, player, _: _MinimaxBot(game, player, plies), rng)


AGENT_SPECS = tuple(form for form in spec_table.AGENT_SPECS
                    if form.split(":", 1)[0] in spec_table.PLUGIN_FAMILIES)
"""The agent specs of :func:`make_openspiel_agent` (and of ``make_agent``)."""


def make_openspiel_agent(spec: AgentSpec | str,
                         rng: np.random.Generator | None = None) -> OpenSpielAgent:
    """``openspiel-mcts:<simulations>`` or ``openspiel-minimax:<plies>`` (text or an
    :class:`~tris_envs.agents.spec.AgentSpec`).

    Raises:
        ValueError: another spec; the message lists these.
    """
    parsed = spec if isinstance(spec, AgentSpec) else AgentSpec.parse(spec)
    if parsed.family == "openspiel-mcts" and parsed.simulations is not None:
        return mcts_agent(parsed.simulations, rng=rng)
    if parsed.family == "openspiel-minimax" and parsed.plies is not None:
        return minimax_agent(parsed.plies, rng=rng)
    raise ValueError(f"unknown agent spec {brief(str(parsed))}; OpenSpiel's agents are "
                     f"{', '.join(AGENT_SPECS)} (e.g. 'openspiel-mcts:100')")


class AgentBot(pyspiel.Bot):
    """An agent of the package as an OpenSpiel bot (for ``evaluate_bots``): each step it
    chooses from the state's rules-core position (``state.game_state``)."""

    def __init__(self, agent: Any) -> None:
        super().__init__()
        self.agent = agent

    def step(self, state: TrisEnvsState) -> int:
        return int(self.agent.act(state.core, state.game_state))

    def restart_at(self, state: TrisEnvsState) -> None:
        """Nothing to reset: agents choose from the position alone."""

    def inform_action(self, state: TrisEnvsState, player_id: int, action: int) -> None:
        """Nothing to follow: agents choose from the position alone."""


# ----- registration --------------------------------------------------------------------------
def _game_type(name: str, stochastic: bool, points: bool = False) -> pyspiel.GameType:
    """OpenSpiel's facts about game ``name``: with chance nodes or not, zero-sum with
    terminal rewards or (Tritoc's ``points``) general-sum with rewards on the way."""
    return pyspiel.GameType(
        short_name=PREFIX + name, long_name=f"tris_envs {GAMES[name].title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=(pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC if stochastic
                     else pyspiel.GameType.ChanceMode.DETERMINISTIC),
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=(pyspiel.GameType.Utility.GENERAL_SUM if points
                 else pyspiel.GameType.Utility.ZERO_SUM),
        reward_model=(pyspiel.GameType.RewardModel.REWARDS if points
                      else pyspiel.GameType.RewardModel.TERMINAL),
        max_num_players=2, min_num_players=2,
        provides_information_state_string=True, provides_information_state_tensor=False,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification=parameters(name))


def _registered_type(name: str) -> pyspiel.GameType:
    """The type registered for game ``name``: stochastic if any option set of the
    registry's conformance sets has chance nodes."""
    stochastic = any(_rules((name, tuple(sorted(parameters(name, **options).items()))))
                     .stochastic for options in GAMES[name].option_sets)
    return _game_type(name, stochastic)


GAME_TYPES: dict[str, pyspiel.GameType] = {name: _registered_type(name) for name in GAMES}
"""The registered game type of each game, by the package's name (``"tris2"``)."""

GAME_CLASSES: dict[str, type[TrisEnvsGame]] = {
    name: type(f"{''.join(w.capitalize() for w in name.split('_'))}Game", (TrisEnvsGame,),
               {"name": name, "__doc__": f"{GAMES[name].title} as an OpenSpiel game."})
    for name in GAMES}
"""The OpenSpiel game class of each game (OpenSpiel's registry holds a class, not a
closure: a closure it keeps alive past the interpreter's shutdown crashes it)."""

for _name, _type in GAME_TYPES.items():
    if _type.short_name not in pyspiel.registered_names():
        pyspiel.register_game(_type, GAME_CLASSES[_name])

__all__ = ["AGENT_SPECS", "GAME_CLASSES", "GAME_TYPES", "PREFIX", "AgentBot", "OpenSpielAgent",
           "PlanesObserver", "TrisEnvsGame", "TrisEnvsState", "load", "make_openspiel_agent",
           "mcts_agent", "minimax_agent", "openspiel_game", "openspiel_state", "parameters"]
