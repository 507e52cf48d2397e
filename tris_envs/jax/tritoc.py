"""Tritoc as pure JAX functions, every option of the rules core; see :mod:`tris_envs.jax`.

Hole sets are three 27-bit words, one per band of three fields (rows ``3w .. 3w+2``): hole
``h`` is bit ``h % 27`` of word ``h // 27``, so the row-major holes are the words' bits in
order, and the lines inside a field are the same 24 masks in every word. The dice are
rolled inside ``init`` and ``step`` for the player to move: one draw per turn from the law of
:meth:`~tris_envs.games.tritoc.Tritoc.chance_outcomes` (the automatic rerolls folded in),
computed from the sums the position lets that player play.
"""

from __future__ import annotations

import math
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from tris_envs.games.tritoc import (
    BLACK,
    DICE_WEIGHTS,
    DRAW,
    DRAW_PASSES,
    FIELD_LINE_MASKS,
    FIELD_MASKS,
    FIELD_POINTS,
    HOLE_LINE_MASKS,
    MUST_PASS,
    NO_ROLL,
    NUMBER_PLANES,
    ONGOING,
    ORDERED,
    ORDERED_FIELD,
    PENDING,
    ROLL_PLANES,
    SUMS,
    WHITE,
    WIN_POINTS,
    Layout,
    has_field_line,
)
from tris_envs.games.tritoc import Tritoc as CoreTritoc
from tris_envs.games.tritoc import TritocState as CoreState
from tris_envs.jax.base import Array, PRNGKey, TrisEnv, dataclass, seat_rewards

_WORD = 27
_FULL = (1 << _WORD) - 1
_NUMBERS = tuple(sorted(ORDERED_FIELD))
_NUMBER_AXIS = jnp.array(_NUMBERS, dtype=jnp.int8)
_BITS = jnp.arange(_WORD, dtype=jnp.uint32)
_OUTCOMES = jnp.array((MUST_PASS, *SUMS), dtype=jnp.int8)
"""The rolls a player can get, in order: :data:`MUST_PASS` (1), then the sums 2-12."""
_PASS_WORDS = jnp.zeros((len(SUMS) + 1, 4), jnp.uint32).at[0, 3].set(1)
"""Per roll (:data:`MUST_PASS`, then the sums), the action bits it adds to the holes it
allows: the pass (action 81, bit 0 of a fourth word) for :data:`MUST_PASS`."""
_BLOCKS = jnp.array(FIELD_MASKS[:3], dtype=jnp.uint32)
"""The holes of the three fields of a band, as a word."""
_HOLE_LINES = jnp.array([m for f in range(3) for m in HOLE_LINE_MASKS[f]], dtype=jnp.uint32)
"""The 8 lines of each field of a band (field-major), as words."""
_FIELD_LINES = jnp.array(FIELD_LINE_MASKS, dtype=jnp.int32)
_CHANNELS = np.arange(24)
_NUMBER_PLANES, _ROLL_PLANES = (
    jnp.array(np.where((_CHANNELS >= first) & (_CHANNELS < first + len(codes)),
                       np.array(codes)[np.clip(_CHANNELS - first, 0, len(codes) - 1)], -100),
              dtype=jnp.int8)
    for first, codes in ((NUMBER_PLANES[0], _NUMBERS), (ROLL_PLANES[0], SUMS)))
"""Per observation channel, the hole number or the roll that sets it; -100 where none does."""
_CODE_PLANES = jnp.zeros(24, jnp.int8).at[jnp.array([0, 1, 11, 12])].set(
    jnp.array([1, 2, 4, 8], jnp.int8))
"""Per observation channel, the bit of a hole's code that sets it: 1 my stone, 2 theirs,
4 my conquered field, 8 theirs (0: none)."""
_BELOW = jnp.triu(jnp.ones((len(SUMS), len(SUMS)), jnp.float32), 1)
"""``weights @ _BELOW``: per sum, the weight of the sums below it; the ``n``-th unit of
weight (``n`` from 0) falls on the last sum whose figure is at most ``n``."""


def _words(holes: int) -> np.ndarray:
    """An 81-bit hole mask as three words."""
    return np.array([holes >> _WORD * w & _FULL for w in range(3)], np.uint32)


def _number_masks(layout: Layout) -> np.ndarray:
    """``[number - 3, word]``: the holes of each number."""
    return np.stack([_words(layout.masks[n]) for n in _NUMBERS])


def _expand(words: Array) -> Array:
    """``[..., n]`` words as ``[..., 27 n]`` booleans: three words as the 81 row-major holes,
    four as the 82 actions (the pass, bit 0 of the fourth) and 26 unused bits."""
    bits = (words[..., None] >> _BITS) & 1
    return bits.reshape(words.shape[:-1] + (_WORD * words.shape[-1],)).astype(jnp.bool_)


def _masks(words: Array) -> Array:
    """``[..., 4]`` action words as ``[..., 82]`` legal action masks."""
    return _expand(words)[..., :82]


def _field_holes(fields: Array) -> Array:
    """The holes (three words) of the fields in a 9-bit mask."""
    chosen = ((fields >> jnp.arange(9)) & 1).reshape(3, 3) == 1
    return jnp.where(chosen, _BLOCKS, jnp.uint32(0)).sum(-1, dtype=jnp.uint32)


def _sides(pair: Array, first: Array) -> tuple[Array, Array]:
    """A seat's and the other seat's halves of ``pair`` (``_stones`` or ``_fields``, seat 0
    first); ``first``: the seat is seat 0."""
    return jnp.where(first, pair[0], pair[1]), jnp.where(first, pair[1], pair[0])


@dataclass
class State:
    """Pgx's fields; per seat its stones (three words, conquered fields included) and its
    conquered fields (9-bit mask, bit ``f`` = field ``f``); the roll to play (2-12,
    :data:`MUST_PASS`, or :data:`NO_ROLL` once the game is over); the consecutive passes;
    the layout as the number of each hole and as the holes of each number 3-11 (three words
    each)."""

    current_player: Array = jnp.int32(0)                            # []
    observation: Array = jnp.zeros((9, 9, 24), dtype=jnp.int8)      # [9, 9, 24]
    rewards: Array = jnp.zeros(2, dtype=jnp.float32)                # [2]
    terminated: Array = jnp.bool_(False)                            # []
    truncated: Array = jnp.bool_(False)                             # []
    legal_action_mask: Array = jnp.zeros(82, dtype=jnp.bool_)       # [82]
    _step_count: Array = jnp.int32(0)                               # []
    _stones: Array = jnp.zeros((2, 3), dtype=jnp.uint32)            # [seat, word]
    _fields: Array = jnp.zeros(2, dtype=jnp.int32)                  # [seat] 9-bit masks
    _roll: Array = jnp.int8(NO_ROLL)                                # []
    _passes: Array = jnp.int8(0)                                    # []
    _numbers: Array = jnp.asarray(ORDERED.numbers, dtype=jnp.int8)  # [81] per hole
    _layout: Array = jnp.asarray(_number_masks(ORDERED))            # [number - 3, word]

    @property
    def env_id(self) -> str:
        return "tritoc"


class Tritoc(TrisEnv):
    """Tritoc with the rules core's options (``layout``, ``dice``, ``max_rerolls``,
    ``reward``, ``max_moves``): static, checked by the core. ``step`` needs a key (the next
    player's dice are rolled in it)."""

    def __init__(self, **options: Any) -> None:
        core = CoreTritoc(**options)
        super().__init__(core)
        weights = DICE_WEIGHTS[core.dice]
        denominator = math.lcm(*(w.denominator for w in weights.values()))
        self._weights = jnp.array([int(weights[s] * denominator) for s in SUMS], jnp.float32)
        self._denominator = float(denominator)
        self._tries = core.max_rerolls + 1
        self._points = core.reward == "points"
        self._layout: tuple[Array, Array, Array] | None = None
        if core.layout != "random":
            layout = core.initial_state().layout
            numbers = np.array(layout.numbers, np.int8)
            self._layout = (jnp.asarray(numbers), jnp.asarray(_number_masks(layout)),
                            jnp.asarray(numbers[:, None] == np.asarray(_NUMBER_PLANES)))

    def _rolls(self, own: Array, other: Array, fields: Array,
               layout: Array) -> tuple[Array, Array]:
        """Per roll the player to move may get (:data:`_OUTCOMES`), the actions it allows as
        four words ``[12, 4]``, and which sums (2-12) are playable ``[11]``, from the stones
        of that player (``own``) and the opponent and the conquered ``fields``."""
        empty = ~(own | other)
        unconquered = ~_field_holes(fields)
        allowed = jnp.concatenate([(own & unconquered)[None], layout & empty,
                                   (other & unconquered)[None]])      # per sum 2-12
        return (jnp.pad(allowed, ((1, 0), (0, 1))) | _PASS_WORDS,
                (allowed != 0).any(-1))

    def _turn(self, own: Array, other: Array, fields: Array, layout: Array,
              key: PRNGKey) -> tuple[Array, Array]:
        """The roll of the player to move and the legal action mask it gives (the arguments
        of :meth:`_rolls`)."""
        actions, playable = self._rolls(own, other, fields, layout)
        roll = self._roll(playable, key)
        chosen = jnp.where((_OUTCOMES == roll)[:, None], actions, jnp.uint32(0))
        return roll, _masks(chosen.sum(0, dtype=jnp.uint32))

    def _law(self, playable: Array) -> tuple[Array, Array, Array]:
        """For the ``playable`` sums (2-12): their weights (0 where not playable), the weights'
        total, and the chance ``q ** tries`` of a pass (``q`` the chance that one roll is not
        playable)."""
        weights = jnp.where(playable, self._weights, 0.0)
        total = weights.sum()
        return weights, total, ((self._denominator - total) / self._denominator) ** self._tries

    def _roll(self, playable: Array, key: PRNGKey) -> Array:
        """A roll drawn from the law of ``chance_outcomes`` for the ``playable`` sums
        (2-12), from one uniform number: below the chance of a pass must pass, above it a
        playable sum with probability proportional to its weight."""
        weights, total, passing = self._law(playable)
        draw = jax.random.uniform(key)
        above = (draw - passing) / jnp.maximum(1 - passing, 1e-30)    # passing is 1 at most
        nth = jnp.minimum(jnp.floor(above * total), total - 1)
        nth = jnp.where(draw < passing, -1.0, nth)
        # the sums follow MUST_PASS (1): it counts no sum, the n-th unit of weight the sum it
        # falls on and those below
        return (MUST_PASS + ((weights @ _BELOW) <= nth).sum()).astype(jnp.int8)

    def roll_outcomes(self, state: State) -> tuple[State, Array, Array]:
        """Every roll the player to move may have got in place of the one ``state`` drew:
        ``(outcomes, chances, drawn)``, the 12 states (a leading axis, the rolls of
        :data:`_OUTCOMES`: :data:`MUST_PASS`, then the sums 2-12), each with its roll, its
        legal actions and its observation; the law of the rules core's
        ``chance_outcomes`` ``[12]`` (0 for a roll it does not list); and the index of
        ``state``'s own roll ``[]``. A finished game's outcomes are the state itself, with
        chance 1 on the first."""
        own, other = _sides(state._stones, state.current_player == 0)
        actions, playable = self._rolls(own, other, state._fields[0] | state._fields[1],
                                        state._layout)
        weights, total, passing = self._law(playable)
        chances = jnp.concatenate([passing[None],
                                   (1 - passing) * weights / jnp.maximum(total, 1e-30)])
        shown = (_OUTCOMES[:, None] == _ROLL_PLANES).astype(jnp.int8)         # [12, 24]
        observation = jnp.where(_ROLL_PLANES >= 0, shown[:, None, None],
                                state.observation[None])
        outcomes = jax.tree_util.tree_map(
            lambda x: jnp.broadcast_to(x, (len(_OUTCOMES),) + x.shape), state)
        rolled = outcomes.replace(_roll=_OUTCOMES, legal_action_mask=_masks(actions),
                                  observation=observation)
        over = state.terminated | state.truncated
        outcomes = jax.tree_util.tree_map(lambda new, old: jnp.where(over, old, new),
                                          rolled, outcomes)
        chances = jnp.where(over, jnp.arange(len(_OUTCOMES)) == 0, chances)
        return outcomes, chances, jnp.argmax(_OUTCOMES == state._roll)

    def _init(self, key: PRNGKey) -> State:
        if self._layout is None:
            key, draw = jax.random.split(key)
            order = jnp.argsort(jax.random.uniform(draw, (9, 9)), -1).astype(jnp.int8)
            # [field, cell] -> [band, field col, row, col] -> [band, row, field col, col]
            numbers = (order + _NUMBER_AXIS[0]).reshape(3, 3, 3, 3).transpose(0, 2, 1, 3)
            numbers = numbers.reshape(81)
            at = numbers.reshape(3, _WORD) == _NUMBER_AXIS[:, None, None]
            layout = jnp.where(at, jnp.uint32(1) << _BITS, jnp.uint32(0)).sum(
                -1, dtype=jnp.uint32)
            planes = numbers[:, None] == _NUMBER_PLANES
        else:
            numbers, layout, planes = self._layout
        empty = jnp.zeros(3, jnp.uint32)
        roll, mask = self._turn(empty, empty, jnp.int32(0), layout, key)
        observation = (planes | (roll == _ROLL_PLANES)).astype(jnp.int8).reshape(9, 9, 24)
        return State(_numbers=numbers, _layout=layout, _roll=roll, legal_action_mask=mask,
                     observation=observation)

    def init(self, key: PRNGKey) -> State:
        """Pgx's ``init``, the observation included: on the empty board only the hole
        numbers and the roll set planes, so :meth:`_init` builds it from those alone."""
        return self._init(key)

    def _play(self, state: State, action: Array, key: PRNGKey | None) -> State:
        if key is None:
            raise ValueError("tritoc: step needs a key: the next player's dice are rolled "
                             "inside step; call env.step(state, action, key)")
        player, roll = state.current_player, state._roll
        first = player == 0
        own, other = _sides(state._stones, first)
        own_fields, other_fields = _sides(state._fields, first)
        # unsigned: the division needs no sign fix-ups (each would compute the action again)
        hole = jnp.asarray(action).astype(jnp.uint32)
        bit = jnp.where(jnp.arange(3, dtype=jnp.uint32) == hole // _WORD,
                        jnp.uint32(1) << hole % _WORD, jnp.uint32(0))
        placing = (roll >= 3) & (roll <= 11)
        own = jnp.where(placing, own | bit, jnp.where(roll == 2, own & ~bit, own))
        other = jnp.where(roll == 12, other & ~bit, other)
        lined = ((own[:, None] & _HOLE_LINES) == _HOLE_LINES).reshape(9, 8).any(-1)
        fields = (lined.astype(jnp.int32) << jnp.arange(9)).sum()   # the old ones, a new one
        conquered = _field_holes(fields)
        own, other = own | conquered, other & ~conquered
        won = ((fields & _FIELD_LINES) == _FIELD_LINES).any()
        passes = jnp.where(roll == MUST_PASS, state._passes + 1, 0).astype(jnp.int8)
        terminated = won | (passes == DRAW_PASSES)
        next_roll, mask = self._turn(other, own, fields | other_fields, state._layout, key)
        if self._points:
            gained = FIELD_POINTS * (fields != own_fields) + WIN_POINTS * won
            rewards = jnp.where(jnp.arange(2) == player, gained, 0).astype(jnp.float32)
        else:
            rewards = seat_rewards(jnp.where(won, player, -1))
        return state.replace(
            current_player=1 - player,
            _stones=jnp.where(first, jnp.stack([own, other]), jnp.stack([other, own])),
            _fields=jnp.where(first, jnp.stack([fields, other_fields]),
                              jnp.stack([other_fields, fields])),
            _roll=jnp.where(terminated, jnp.int8(NO_ROLL), next_roll), _passes=passes,
            legal_action_mask=mask, terminated=terminated, rewards=rewards)

    def _observe(self, state: State, player_id: Array) -> Array:
        first = player_id == 0
        own_fields, other_fields = _sides(state._fields, first)
        holes = _expand(jnp.stack([
            *_sides(state._stones, first), _field_holes(own_fields),
            _field_holes(other_fields)])).astype(jnp.int8)
        code = holes[0] | holes[1] << 1 | holes[2] << 2 | holes[3] << 3
        planes = (code[:, None] & _CODE_PLANES != 0) | (
            state._numbers[:, None] == _NUMBER_PLANES) | (state._roll == _ROLL_PLANES)
        return planes.astype(jnp.int8).reshape(9, 9, 24)

    def _from_core(self, state: CoreState) -> State:
        if state.roll == PENDING:
            raise ValueError("tritoc: the JAX states are decisions or finished games, and "
                             f"{self.game.to_notation(state)!r} is a chance node (dice not "
                             "rolled yet); apply a chance outcome first")
        over = state.result != ONGOING
        mask = self.game.legal_mask(state).astype(bool) | over
        return State(current_player=jnp.int32(state.to_move),
                     _stones=jnp.asarray(np.stack([_words(state.white), _words(state.black)])),
                     _fields=jnp.array([state.white_fields, state.black_fields], jnp.int32),
                     _roll=jnp.int8(state.roll), _passes=jnp.int8(state.passes),
                     _numbers=jnp.asarray(state.layout.numbers, dtype=jnp.int8),
                     _layout=jnp.asarray(_number_masks(state.layout)),
                     terminated=jnp.bool_(over), legal_action_mask=jnp.asarray(mask))

    def to_core(self, state: State) -> CoreState:
        white, black = (sum(int(word) << _WORD * w for w, word in enumerate(words))
                        for words in np.asarray(state._stones))
        white_fields, black_fields = (int(f) for f in np.asarray(state._fields))
        passes = int(state._passes)
        result = (WHITE if has_field_line(white_fields) else BLACK
                  if has_field_line(black_fields) else DRAW if passes == DRAW_PASSES
                  else ONGOING)
        numbers = tuple(int(n) for n in np.asarray(state._numbers))
        return CoreState(white, black, white_fields, black_fields, int(state.current_player),
                         int(state._roll), passes, Layout(numbers), result)
