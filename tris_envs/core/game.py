"""The rules-core protocol every game implements.

A game is a stateless rules object (its options fixed at construction) plus immutable
states. ``Game.apply`` never mutates its input: it returns a new state, so a state is its
own cheap clone and can be shared freely between agents, solvers and environments.

Turn structure is expressed only through :meth:`Game.current_player`:

* ``0`` / ``1`` -- that player chooses an action from :meth:`Game.legal_actions`;
* :data:`CHANCE` -- the environment draws one of :meth:`Game.chance_outcomes`
  (dice) and passes it to :meth:`Game.apply`;
* :data:`TERMINAL` -- the game is over; :meth:`Game.returns` gives the result.

Setup phases (placing dice, coloring a board) are ordinary player turns with their own
actions; random setups are drawn by :meth:`Game.initial_state` from the generator it is
given. Environments, agents and solvers therefore need no per-game special cases.
"""

from __future__ import annotations

import inspect
import numbers
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

import numpy as np

from tris_envs.core.errors import IllegalActionError, brief
from tris_envs.core.legal import LegalSets
from tris_envs.core.options import OptionType

if TYPE_CHECKING:
    from tris_envs.core.drawing import Box, Canvas

CHANCE = -1
"""``current_player`` value of a state where the environment rolls dice."""

TERMINAL = -2
"""``current_player`` value of a finished game."""

S = TypeVar("S", bound=Hashable)


def as_action(value: Any) -> int | None:
    """``value`` as a Python ``int`` if it is an integral scalar, else ``None``.

    Integral scalars are Python ``int``, NumPy integers, any ``numbers.Integral`` and 0-d
    integer arrays (what ``MaskablePPO.predict`` returns). Booleans (Python's and NumPy's)
    and floats are not actions. The one check every entry point that takes an action uses.
    """
    if type(value) is int:
        return value
    if isinstance(value, np.ndarray):
        if value.shape != () or value.dtype.kind not in "iu":
            return None
        return int(value)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        return None
    return int(value)


@dataclass(frozen=True)
class GameInfo:
    """Static facts about a game, computed once per game object.

    Attributes:
        name: Short identifier, e.g. ``"tant_fant"``.
        num_actions: Size of the discrete action space.
        observation_shape: Shape ``(H, W, C)`` of :meth:`Game.observation`.
        max_moves: Default truncation limit in plies.
        deterministic: ``False`` when the game has chance nodes.
    """

    name: str
    num_actions: int
    observation_shape: tuple[int, ...]
    max_moves: int
    deterministic: bool


class Game(ABC, Generic[S]):
    """Rules of one game with fixed options. Subclasses are pure: no framework imports.

    The options are the keyword arguments of the subclass's ``__init__`` (``max_moves``
    among them); class attribute ``OPTIONS`` maps each to its default and is derived from
    that signature. The constructor validates values; :meth:`options` reports them.

    A game's results never change after construction. Implementations may memoize what they
    compute (legal sets, masks) in bounded caches; those change speed, not answers.
    """

    OPTIONS: ClassVar[Mapping[str, Any]] = {}
    OPTION_TYPES: ClassVar[Mapping[str, OptionType]] = {}
    """What each option takes (:mod:`tris_envs.core.options`), declared beside the
    options; the constructor still validates the values."""
    SETUP_OPTIONS: ClassVar[frozenset[str]] = frozenset()
    """Options that change only how a game starts: once the setup is over the game plays
    the same whatever their values (Tris 2's ``setup`` and ``fair``; Doppia scelta's
    ``setup``, ``board`` and ``fair``)."""
    MASK_CACHE_SIZE: ClassVar[int] = 4_096
    info: GameInfo

    def __init__(self, info: GameInfo) -> None:
        self.info = info
        self.legal_sets = LegalSets(info.num_actions, self.MASK_CACHE_SIZE)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "__init__" in cls.__dict__:
            parameters = inspect.signature(cls.__init__).parameters.values()
            cls.OPTIONS = {p.name: p.default for p in parameters
                           if p.name != "self" and p.default is not inspect.Parameter.empty}

    # ----- options -------------------------------------------------------------------
    @classmethod
    def check_option_names(cls, options: Mapping[str, Any]) -> None:
        """Raise ``ValueError`` naming any option this game does not have."""
        unknown = sorted(set(options) - set(cls.OPTIONS))
        if unknown:
            allowed = ", ".join(sorted(cls.OPTIONS)) or "none"
            raise ValueError(
                f"unknown option(s) {', '.join(map(repr, unknown))} for {cls.__name__}; "
                f"allowed: {allowed}"
            )

    def options(self) -> dict[str, Any]:
        """The option values this game was built with, keyed as in :attr:`OPTIONS`.

        By default each option is read from the attribute of the same name.
        """
        return {name: getattr(self, name) for name in self.OPTIONS}

    @property
    def max_moves(self) -> int:
        """Truncation limit in plies for environments (the ``max_moves`` option)."""
        return self.info.max_moves

    # ----- states --------------------------------------------------------------------
    @abstractmethod
    def initial_state(self, rng: np.random.Generator) -> S:
        """A start position; random setups draw from ``rng``."""

    @abstractmethod
    def current_player(self, state: S) -> int:
        """``0`` or ``1`` for the player to act, :data:`CHANCE` or :data:`TERMINAL`."""

    def is_terminal(self, state: S) -> bool:
        """Whether the game is over."""
        return self.current_player(state) == TERMINAL

    @abstractmethod
    def legal_actions(self, state: S) -> Sequence[int]:
        """Legal actions of the player to move, ascending; empty at chance and terminal."""

    def legal_mask(self, state: S) -> np.ndarray:
        """Read-only ``int8`` vector of length ``num_actions``, 1 for each legal action.

        Masks are shared between the states with the same legal set
        (:class:`~tris_envs.core.legal.LegalSets`).
        """
        return self.legal_sets.mask(self.legal_actions(state))

    @abstractmethod
    def apply(self, state: S, action: int) -> S:
        """The state after ``action`` (a player action, or a chance outcome at a chance node).

        ``state`` itself is never modified. Raises :class:`IllegalActionError` for an
        action that is not legal, with a message saying why.
        """

    def chance_outcomes(self, state: S) -> list[tuple[int, float]]:
        """``(outcome, probability)`` pairs at a chance node; probabilities sum to 1."""
        raise ValueError(f"{self.info.name}: not a chance node")

    @abstractmethod
    def returns(self, state: S) -> tuple[float, float]:
        """Final result per player (+1 win, -1 loss, 0 draw); zeros before the end."""

    def rewards(self, state: S) -> tuple[float, float]:
        """Reward each player earns on the move that produced ``state``.

        Win/loss games pay only at the end, which is the default.
        """
        return self.returns(state)

    # ----- views ---------------------------------------------------------------------
    @abstractmethod
    def observation(self, state: S, player: int) -> np.ndarray:
        """``int8`` array of shape ``info.observation_shape`` from ``player``'s view."""

    def observations(self, states: Sequence[S], players: Sequence[int]) -> np.ndarray:
        """The :meth:`observation` of each state from the player beside it, stacked into a
        new ``int8`` array ``(len(states),) + info.observation_shape``. A game whose states
        rarely repeat may build them in one pass."""
        if not states:
            return np.zeros((0,) + self.info.observation_shape, dtype=np.int8)
        return np.stack([self.observation(s, p) for s, p in zip(states, players)])

    def legal_masks(self, states: Sequence[S]) -> np.ndarray:
        """The :meth:`legal_mask` of each state, stacked into a new array
        ``(len(states), num_actions)`` of 0 and 1 (``int8`` or ``uint8``)."""
        if not states:
            return np.zeros((0, self.info.num_actions), dtype=np.int8)
        return np.stack([self.legal_mask(s) for s in states])

    @abstractmethod
    def to_notation(self, state: S) -> str:
        """The position string of ``state`` (docs/games/<game>.md, "Position strings")."""

    @abstractmethod
    def from_notation(self, text: str) -> S:
        """Parse a position string; ``ValueError`` saying what is wrong and where."""

    @abstractmethod
    def render_text(self, state: S) -> str:
        """A human-readable board (used by the ``ansi`` render mode)."""

    @abstractmethod
    def action_to_string(self, state: S, action: int) -> str:
        """A short human description of ``action`` in ``state`` (e.g. ``b1-b2``)."""

    def action_name(self, state: S, action: int) -> str:
        """The short name a person types for ``action`` (Tant Fant ``b1-b2``).

        Defaults to :meth:`action_to_string`; games with long descriptions override it.
        """
        return self.action_to_string(state, action)

    def played_name(self, before: S, action: int, after: S) -> str:
        """How a played move is announced beside the position ``after`` it: its
        :meth:`action_name` in ``before`` unless the game adds where it led (Tris 2's
        ``0,2 E (now 0,3)``: a remark in parentheses, so :meth:`parse_action` reads the
        announcement back as the move)."""
        return self.action_name(before, action)

    def parse_action(self, state: S, text: str) -> int:
        """The action a person named, by :meth:`action_name` or :meth:`action_to_string`.

        Case, spaces and a remark in parentheses do not matter: Doppia scelta's
        ``turn right (red)``, ``turn right`` and ``right`` name the same action.

        Raises:
            IllegalActionError: ``text`` names an action that is illegal here: the move by
                its name and why, without its action number.
            ValueError: ``text`` names no action; the message lists the legal names.
        """
        key = _normalise_name(text)
        for action in range(self.info.num_actions):
            if key in (_normalise_name(self.action_name(state, action)),
                       _normalise_name(self.action_to_string(state, action))):
                if action in self.legal_actions(state):
                    return action
                raise self.illegal_action_error(state, action, by_name=True)
        raise ValueError(f"{brief(text.strip())} is not a move; legal moves: "
                         f"{self.legal_names(state)}")

    def legal_names(self, state: S) -> str:
        """The legal moves' :meth:`action_name` s, separated by ``;`` (names such as Tris 1's
        ``0,1`` hold commas)."""
        return "; ".join(self.action_name(state, a) for a in self.legal_actions(state))

    # ----- text view (tris_envs.core.text) ------------------------------------------
    SEAT_NAMES: ClassVar[tuple[str, str]] = ("player_0", "player_1")
    """The name of each seat as the game's board and status line show it (Tant Fant's
    ``White``, ``Black``)."""

    def rules_prompt(self) -> str:
        """The rules as a short English prompt for a player who never saw the game, with
        the options in force: the board, the coordinates the move names use, how a move is
        written, the turns, the dice, how the game ends. Every game writes its own (its
        package's ``text`` module); :func:`tris_envs.core.text.rules_prompt` shows it."""
        raise NotImplementedError(f"{type(self).__name__} has no rules prompt: override "
                                  "Game.rules_prompt")

    # ----- per-game hooks ------------------------------------------------------------
    def env_info(self, state: S, player: int) -> dict[str, Any]:
        """Extra facts for ``infos[agent]`` of ``player`` in environments (Tritoc's scores).

        Nothing needed for legality goes here. Empty by default.
        """
        return {}

    def random_playout(self, state: S, uniform: Callable[[], float],
                       max_plies: int) -> tuple[float, float]:
        """The returns at the end of a random playout from ``state`` (MCTS rollouts).

        Each step draws one ``uniform()`` in [0, 1): a player plays
        ``legal[int(u * len(legal))]`` of the ascending legal actions, a chance node takes
        :func:`sample_outcome` of its outcomes. The playout counts as a draw (zeros) when a
        player is to move after ``max_plies`` player plies (that step's draw is still made).

        This default goes through :meth:`legal_actions` and :meth:`apply`. Games override
        it with a faster path that must give the same result for the same draws (and draw
        as many), so a seeded search does not depend on which path ran.
        """
        while True:
            player = self.current_player(state)
            if player == TERMINAL:
                return self.returns(state)
            u = uniform()
            if player >= 0:
                if max_plies == 0:
                    return (0.0, 0.0)
                max_plies -= 1
                legal = self.legal_actions(state)
                state = self.apply(state, legal[int(u * len(legal))])
            else:
                state = self.apply(state, sample_outcome(self.chance_outcomes(state), u))

    def heuristic(self, state: S, player: int) -> float:
        """An estimate in (-1, 1) of an unfinished ``state`` for ``player``.

        Depth-limited searches (``alphabeta``) value their leaves with it, chance nodes
        included: there it estimates the expectation over the outcomes. ``0.0`` by
        default: games define one only where a simple, sound estimate is known.
        """
        return 0.0

    def proven_winner(self, state: S, memo: dict[Any, Any]) -> tuple[int, int] | None:
        """``(player, plies)``: the player who wins ``state`` by force and the plies the win
        takes, where the rules core proves it with an exact search that is cheap here
        (Tris 2: the last placements); ``None`` when nothing is proven (by default, always).

        ``memo`` is the caller's cache, shared by the calls of one search (transpositions
        are searched once). Searches given ``proofs`` (``az``) prove their new nodes with
        it.
        """
        return None

    def solver_root(self, state: S) -> tuple[Game[Any], Any, Any]:
        """How the exact solver covers ``state``: ``(game to solve, root, state to look up)``.

        The solver solves the returned game from the root (once, cached) and looks the
        third element up in that solution. Games too large to solve raise ``ValueError``.
        """
        raise ValueError(f"the solver cannot play {self.info.name!r}: it is too large to "
                         "solve exactly")

    def picture_size(self, state: S) -> tuple[int, int]:
        """Width and height in pixels of :meth:`draw`'s picture."""
        return (400, 400)

    def draw(self, state: S, canvas: Canvas) -> None:
        """Draw the position on ``canvas`` (used by ``rgb_array`` / ``human``)."""
        raise NotImplementedError(f"{self.info.name} has no picture rendering")

    def picture_places(self, state: S) -> dict[str, Box]:
        """Where :meth:`draw` puts each place a move names (a cell ``1,2``, a point ``b1``,
        a hole), by that name: what a person clicks to move (the browser app). Empty by
        default."""
        return {}

    # ----- helpers shared by implementations ---------------------------------------
    def illegal_action_error(self, state: S, action: Any,
                             by_name: bool = False) -> IllegalActionError:
        """The error for an action that is not legal in ``state``, saying why; ``by_name``:
        a move a person named, told by its :meth:`action_name` without its number."""
        player = self.current_player(state)
        if player == TERMINAL:
            return IllegalActionError(f"action {action!r}: the game is over")
        if player == CHANCE:
            outcomes = [o for o, _ in self.chance_outcomes(state)]
            return IllegalActionError(f"chance outcome {brief(action)} is not one of {outcomes}")
        index = as_action(action)
        if index is None:
            return IllegalActionError(f"action {brief(action)} is not an integer")
        if not 0 <= index < self.info.num_actions:
            return IllegalActionError(
                f"action {index} is out of range 0..{self.info.num_actions - 1}"
            )
        move = (self.action_name(state, index) if by_name
                else f"action {index} ({self.action_to_string(state, index)})")
        return IllegalActionError(f"{move} is illegal: {self.explain_illegal(state, index)}")

    def action_index(self, state: S, action: Any) -> int:
        """``action`` as an ``int`` (see :func:`as_action`), else the illegal-action error.

        ``apply`` implementations call it for anything but a plain ``int``.
        """
        index = as_action(action)
        if index is None:
            raise self.illegal_action_error(state, action)
        return index

    def explain_illegal(self, state: S, action: int) -> str:
        """Why ``action`` is illegal in ``state`` (games override for precise reasons)."""
        return "not among the legal actions"

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self.options().items())
        return f"{type(self).__name__}({opts})"


def _normalise_name(text: str) -> str:
    return re.sub(r"\([^)]*\)|\s", "", text.lower())


def seeded_generator(seed: Any) -> np.random.Generator:
    """``numpy.random.default_rng(seed)`` for a seed that is a non-negative integer.

    Raises:
        ValueError: ``seed`` is negative, not integral, or a boolean.
    """
    if (isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Integral)
            or seed < 0):
        raise ValueError(f"seed must be None or a non-negative integer, got {brief(seed)}")
    return np.random.default_rng(int(seed))


def wins_at_once(game: Game[S], state: S, action: int) -> bool:
    """Whether ``action`` ends the game at once as a win for the player playing it."""
    player = game.current_player(state)
    child = game.apply(state, action)
    return game.current_player(child) == TERMINAL and game.returns(child)[player] > 0


def can_win_at_once(game: Game[S], state: S) -> bool:
    """Whether the player to move in ``state`` has a move that wins at once."""
    if game.current_player(state) < 0:
        return False
    return any(wins_at_once(game, state, a) for a in game.legal_actions(state))


def allows_win(game: Game[S], state: S, action: int) -> bool:
    """Whether after ``action`` the opponent is to move and can win at once."""
    mover = game.current_player(state)
    child = game.apply(state, action)
    return game.current_player(child) == 1 - mover and can_win_at_once(game, child)


def sample_outcome(outcomes: Sequence[tuple[int, float]], u: float) -> int:
    """The chance outcome that a uniform draw ``u`` in [0, 1) selects (inverse CDF)."""
    for outcome, probability in outcomes:
        u -= probability
        if u < 0:
            return outcome
    return outcomes[-1][0]


def resolve_chance(game: Game[S], state: S, rng: np.random.Generator) -> S:
    """Apply chance outcomes drawn from ``rng`` until a player is to act or the game ends."""
    while game.current_player(state) == CHANCE:
        state = game.apply(state, sample_outcome(game.chance_outcomes(state), rng.random()))
    return state


def advance(game: Game[S], state: S, action: int,
            rng: np.random.Generator) -> tuple[S, tuple[float, float]]:
    """Apply a player's ``action``, then chance outcomes drawn from ``rng``.

    Returns the state where a player is to act (or the game is over) and the rewards paid
    on the way: ``game.rewards`` of every state produced, so a chance outcome that ends the
    game pays its result too.
    """
    state = game.apply(state, action)
    r0, r1 = game.rewards(state)
    while game.current_player(state) == CHANCE:
        state = game.apply(state, sample_outcome(game.chance_outcomes(state), rng.random()))
        c0, c1 = game.rewards(state)
        r0 += c0
        r1 += c1
    return state, (r0, r1)
