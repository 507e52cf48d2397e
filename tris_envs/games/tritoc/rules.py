"""Tritoc rules (docs/games/tritoc.md): dice-driven 9×9 tic-tac-toe.

Nine fields in a 3×3 arrangement, each a 3×3 block of holes. Hole ``h = row*9 + col``
(row 0 = top), field ``(row//3)*3 + col//3``; each hole carries a number 3-11, each field
holding every number once (``ordered`` layout shown; hole numbers on the left, hole indices
of field 0 and field indices on the right)::

           0  1  2    3  4  5    6  7  8         field 0 holes      fields
        ┌──────────┬──────────┬──────────┐
      0 │  3  4  5 │  3  4  5 │  3  4  5 │        0 │  1 │  2      0 │ 1 │ 2
      1 │  6  7  8 │  6  7  8 │  6  7  8 │        9 │ 10 │ 11      ──┼───┼──
      2 │  9 10 11 │  9 10 11 │  9 10 11 │       18 │ 19 │ 20      3 │ 4 │ 5
        ├──────────┼──────────┼──────────┤                         ──┼───┼──
      3 │  3  4  5 │  3  4  5 │  3  4  5 │                         6 │ 7 │ 8
        ⋮     (rows 3-5 and 6-8 repeat rows 0-2)

Turn: a chance node rolls two dice for the player to move (``roll`` pending). The
outcome is the sum to play, with the automatic rerolls folded in exactly (see
:meth:`Tritoc.chance_outcomes`), or "must pass". Then the player acts: 3-11 places a stone
on an empty hole with that number, 12 removes an opponent stone and 2 an own stone (both only
outside conquered fields), "must pass" allows only the pass (action 81). Three own stones in
a row inside a field conquer it (all its holes become the conqueror's); three conquered fields
in a row win; the fourth consecutive pass draws.

The position and the board's tables live in :mod:`~tris_envs.games.tritoc.state`, move
generation in :mod:`~tris_envs.games.tritoc.moves`, position strings in
:mod:`~tris_envs.games.tritoc.notation`, text and pictures in
:mod:`~tris_envs.games.tritoc.drawing`; the :class:`Tritoc` methods delegate to them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from tris_envs.core.drawing import Box, Canvas
from tris_envs.core.game import CHANCE, TERMINAL, Game, GameInfo, sample_outcome
from tris_envs.core.legal import nth_action
from tris_envs.core.options import Choice, Digits, Integer, check_choice, check_int
from tris_envs.games.tritoc.drawing import draw, places, render_text
from tris_envs.games.tritoc.moves import (
    action_mask_of,
    actions_of,
    bit_planes,
    play_move,
    playable_of,
    playable_sums,
    targets_of,
)
from tris_envs.games.tritoc.notation import from_notation, to_notation
from tris_envs.games.tritoc.state import (
    ALL_PLAYABLE,
    BLACK,
    COLOR_NAMES,
    CONQUERED_HOLES,
    DICE_WEIGHTS,
    DRAW,
    DRAW_PASSES,
    EXACT_REROLLS,
    FIELD_CELLS,
    FIELD_PLANES,
    HOLE_FIELD,
    LAYOUT_CHARS,
    LAYOUT_NAMES,
    MAGIC,
    MUST_PASS,
    NO_ROLL,
    ONGOING,
    ORDERED,
    PASS,
    PENDING,
    PLACING_SUMS,
    ROLL_PLANES,
    SUMS,
    WHITE,
    WIN_POINTS,
    Layout,
    TritocState,
    check_layout,
    hole_name,
)
from tris_envs.games.tritoc.text import rules_prompt

REWARDS = Choice(("win_loss", "points"))


class Tritoc(Game[TritocState]):
    """Tritoc with the options of docs/games/tritoc.md.

    Args:
        layout: ``"ordered"`` (default), ``"magic"``, ``"random"`` (a random permutation per
            field, drawn by :meth:`initial_state`) or 81 numbers 3-11 (row-major).
        dice: ``"2d6"`` (default) or ``"equal"`` (sums 3-11 weight 3, 2 and 12 weight 1).
        max_rerolls: automatic rerolls when a roll allows no action (default 3); any
            integer >= 0, no upper bound: the roll law is computed in closed form, so its
            cost does not grow with ``max_rerolls`` (exact fractions up to
            :data:`EXACT_REROLLS`, floating point beyond, see :meth:`_distribution`).
        reward: ``"win_loss"`` (default: +1/-1/0 at the end) or ``"points"`` (+1 for each
            conquered field, +5 for the win, paid to the mover when earned).
        max_moves: default truncation limit in plies for environments (passes count).
    """

    OPTION_TYPES = {"layout": Choice(LAYOUT_NAMES, "81 numbers 3-11", Digits(LAYOUT_CHARS, 3)),
                    "dice": Choice(tuple(DICE_WEIGHTS)), "max_rerolls": Integer(0),
                    "reward": REWARDS, "max_moves": Integer(1)}

    SEAT_NAMES = COLOR_NAMES

    def __init__(self, layout: str | Sequence[int] = "ordered", dice: str = "2d6",
                 max_rerolls: int = 3, reward: str = "win_loss", max_moves: int = 500) -> None:
        if isinstance(layout, str):
            if layout not in LAYOUT_NAMES:
                raise ValueError(f"option layout={layout!r} is not allowed; choose 'ordered', "
                                 "'magic', 'random' or a sequence of 81 numbers 3-11")
            self.layout: str | tuple[int, ...] = layout
            self._layout = {"ordered": ORDERED, "magic": MAGIC}.get(layout)
        else:
            self.layout = check_layout(layout, "option layout")
            self._layout = Layout(self.layout)
        self.dice = check_choice("dice", dice, tuple(DICE_WEIGHTS))
        self.max_rerolls = check_int("max_rerolls", max_rerolls, minimum=0)
        self.reward = check_choice("reward", reward, REWARDS.values)
        super().__init__(GameInfo("tritoc", 82, (9, 9, 24),
                                  check_int("max_moves", max_moves), False))
        self._weights = DICE_WEIGHTS[dice]
        self._outcomes: dict[int, list[tuple[int, float]]] = {}
        # (state, answer) of the latest queries: environments ask several times per step
        self._last_legal: tuple[TritocState | None, tuple[int, ...]] = (None, ())
        self._last_mask: tuple[TritocState | None, np.ndarray | None] = (None, None)


    # ----- rules ---------------------------------------------------------------------
    def initial_state(self, rng: np.random.Generator | None = None) -> TritocState:
        """The empty board, White to roll; a ``random`` layout is drawn from ``rng``.

        Without ``rng`` a random layout comes from a fresh unseeded generator.
        """
        layout = self._layout
        if layout is None:
            rng = rng if rng is not None else np.random.default_rng()
            perms = rng.permuted(np.tile(np.arange(3, 12), (9, 1)), axis=1)
            numbers = [0] * 81
            for cells, perm in zip(FIELD_CELLS, perms.tolist()):
                for h, n in zip(cells, perm):
                    numbers[h] = n
            layout = Layout(tuple(numbers))
        return TritocState(0, 0, 0, 0, WHITE, PENDING, 0, layout)

    def current_player(self, state: TritocState) -> int:
        if state.result != ONGOING:
            return TERMINAL
        return CHANCE if state.roll == PENDING else state.to_move

    def _targets(self, state: TritocState, roll: int) -> int:
        """81-bit mask of the holes where ``roll`` lets the player to move act."""
        return targets_of(state.white, state.black, state.white_fields | state.black_fields,
                           state.to_move, roll, state.layout.masks)

    def playable(self, state: TritocState) -> int:
        """Bit mask over sums 2-12 (bit ``s``) of the rolls that allow the mover an action."""
        return playable_sums(state)

    def _legal_bits(self, state: TritocState) -> int:
        """82-bit mask of the legal actions (bit ``a`` = action ``a``)."""
        roll = state.roll
        if roll >= 2:
            return self._targets(state, roll)
        return 1 << PASS if roll == MUST_PASS else 0

    def legal_actions(self, state: TritocState) -> tuple[int, ...]:
        last_state, legal = self._last_legal
        if last_state is not state:
            legal = actions_of(self._legal_bits(state))
            self._last_legal = (state, legal)
        return legal

    def legal_mask(self, state: TritocState) -> np.ndarray:
        """Read-only ``int8`` vector, 1 for each legal action (memoized by bit mask)."""
        last_state, mask = self._last_mask
        if last_state is not state or mask is None:
            mask = action_mask_of(self._legal_bits(state))
            self._last_mask = (state, mask)
        return mask

    def chance_outcomes(self, state: TritocState) -> list[tuple[int, float]]:
        """The roll the player gets, rerolls folded in: ``(sum or MUST_PASS, probability)``.

        With ``q`` the probability that one roll allows no action, a playable sum ``s``
        comes with ``p(s) * (1 + q + ... + q**max_rerolls)`` and :data:`MUST_PASS` with
        ``q**(max_rerolls + 1)`` -- exactly the physical process of rolling until a roll
        is playable or the rerolls are used up. Only outcomes of positive probability
        are listed, sums ascending, :data:`MUST_PASS` first.
        """
        if state.roll != PENDING:
            raise ValueError(f"tritoc: not a chance node ({self.to_notation(state)!r})")
        return list(self._roll_law(self.playable(state)))

    def _roll_law(self, key: int) -> list[tuple[int, float]]:
        """The outcomes for the playable sums ``key`` (memoized; callers do not modify it)."""
        outcomes = self._outcomes.get(key)
        if outcomes is None:
            outcomes = self._outcomes[key] = self._distribution(key)
        return outcomes

    def _distribution(self, key: int) -> list[tuple[int, float]]:
        """Outcomes for the playable sums ``key``.

        ``1 + q + ... + q**n`` is summed in closed form, ``(1 - q**(n+1)) / (1 - q)``:
        exactly in fractions up to :data:`EXACT_REROLLS` rerolls, in floating point beyond
        (where ``q**(n+1)`` may underflow to 0), so any ``max_rerolls`` costs the same.
        """
        weights = self._weights
        q = sum((weights[s] for s in SUMS if not key >> s & 1), Fraction(0))
        if q == 1:
            return [(MUST_PASS, 1.0)]
        n = self.max_rerolls
        power: Fraction | float = q ** (n + 1) if n <= EXACT_REROLLS else float(q) ** (n + 1)
        repeat = (1 - power) / (1 - q)
        outcomes = [(MUST_PASS, float(power))] if float(power) > 0 else []
        outcomes += [(s, float(weights[s] * repeat)) for s in SUMS if key >> s & 1]
        return outcomes

    def apply(self, state: TritocState, action: int) -> TritocState:
        if type(action) is not int:
            action = self.action_index(state, action)
        roll = state.roll
        if roll == PENDING:
            if not (2 <= action <= 12 and self._targets(state, action)
                    or action == MUST_PASS and self.playable(state) != ALL_PLAYABLE):
                raise self.illegal_action_error(state, action)
            return TritocState(state.white, state.black, state.white_fields,
                               state.black_fields, state.to_move, action, state.passes,
                               state.layout)
        if roll == MUST_PASS and action == PASS:
            passes = state.passes + 1
            if passes == DRAW_PASSES:
                return state._replace(to_move=1 - state.to_move, roll=NO_ROLL, passes=passes,
                                      result=DRAW, gained=0)
            return state._replace(to_move=1 - state.to_move, roll=PENDING, passes=passes,
                                  gained=0)
        if roll < 2 or not 0 <= action < 81 or not self._targets(state, roll) >> action & 1:
            raise self.illegal_action_error(state, action)
        white, black, white_fields, black_fields, gained, result = play_move(
            state.white, state.black, state.white_fields, state.black_fields, state.to_move,
            roll, action)
        return TritocState(white, black, white_fields, black_fields, 1 - state.to_move,
                           PENDING if result == ONGOING else NO_ROLL, 0, state.layout, result,
                           gained)

    def random_playout(self, state: TritocState, uniform: Callable[[], float],
                       max_plies: int) -> tuple[float, float]:
        """:meth:`Game.random_playout` on the stone masks: no states, no tuples of legal
        actions, the memoized roll laws shared instead of copied."""
        if state.result != ONGOING:
            return self.returns(state)
        white, black, white_fields, black_fields, mover, roll, passes, layout = state[:8]
        masks, numbers = layout.masks, layout.numbers
        laws = self._outcomes
        # sums 3-11 with an empty hole, kept up to date move by move
        open_sums = playable_of(white, black, 0, mover, masks) & PLACING_SUMS
        while True:
            if roll == PENDING:
                removable = ~CONQUERED_HOLES[white_fields | black_fields]
                own, other = (white, black) if mover == WHITE else (black, white)
                key = open_sums | bool(own & removable) << 2 | bool(other & removable) << 12
                law = laws.get(key) or self._roll_law(key)
                roll = sample_outcome(law, uniform())
            u = uniform()
            if max_plies == 0:
                return (0.0, 0.0)
            max_plies -= 1
            if roll == MUST_PASS:
                passes += 1
                if passes == DRAW_PASSES:
                    return (0.0, 0.0)
            else:
                targets = targets_of(white, black, white_fields | black_fields, mover, roll,
                                      masks)
                hole = nth_action(targets, int(u * targets.bit_count()))
                fields = white_fields | black_fields
                white, black, white_fields, black_fields, _, result = play_move(
                    white, black, white_fields, black_fields, mover, roll, hole)
                if result != ONGOING:
                    return (1.0, -1.0) if result == WHITE else (-1.0, 1.0)
                if fields != white_fields | black_fields:   # a conquest filled a field
                    open_sums = playable_of(white, black, 0, mover, masks) & PLACING_SUMS
                elif roll == 12 or roll == 2:
                    open_sums |= 1 << numbers[hole]
                elif not masks[roll] & ~(white | black):
                    open_sums ^= 1 << roll
                passes = 0
            mover = 1 - mover
            roll = PENDING

    def explain_illegal(self, state: TritocState, action: int) -> str:
        roll, color = state.roll, COLOR_NAMES[state.to_move]
        if roll == MUST_PASS:
            return f"{color} must pass (no roll allowed an action); only action 81 is legal"
        if action == PASS:
            return f"passing is only allowed when no roll allows an action; the roll is {roll}"
        bit = 1 << action
        owner = ("White" if state.white & bit else "Black" if state.black & bit else None)
        where = f"hole {hole_name(action)}"
        if roll in (2, 12):
            wanted = color if roll == 2 else COLOR_NAMES[1 - state.to_move]
            if owner is None:
                return f"{where} is empty; a {roll} removes a {wanted} stone"
            if owner != wanted:
                return f"{where} holds a {owner} stone; a {roll} removes a {wanted} stone"
            return (f"{where} lies in field {HOLE_FIELD[action]}, which is conquered; stones "
                    "in conquered fields cannot be removed")
        number = state.layout.numbers[action]
        if owner is not None:
            return f"{where} is occupied by a {owner} stone"
        return f"{where} has number {number}, but the roll is {roll}"

    def returns(self, state: TritocState) -> tuple[float, float]:
        if state.result in (ONGOING, DRAW):
            return (0.0, 0.0)
        return (1.0, -1.0) if state.result == WHITE else (-1.0, 1.0)

    def rewards(self, state: TritocState) -> tuple[float, float]:
        """``win_loss``: the final result; ``points``: what the last move earned its mover."""
        if self.reward == "win_loss":
            return self.returns(state)
        if not state.gained:
            return (0.0, 0.0)
        # the move that produced ``state`` was made by the player not to move now
        return (0.0, float(state.gained)) if state.to_move == WHITE \
            else (float(state.gained), 0.0)

    def heuristic(self, state: TritocState, player: int) -> float:
        """Conquered fields, own minus the opponent's, over 10 (a win is 3 in a row)."""
        mine, theirs = ((state.white_fields, state.black_fields) if player == 0
                        else (state.black_fields, state.white_fields))
        return (mine.bit_count() - theirs.bit_count()) / 10

    def env_info(self, state: TritocState, player: int) -> dict[str, Any]:
        """``{"score": ...}``: the player's score (1 per conquered field, 5 for the win)."""
        return {"score": self.scores(state)[player]}

    def scores(self, state: TritocState) -> tuple[int, int]:
        """Points of White and Black: 1 per conquered field, 5 for winning."""
        return (state.white_fields.bit_count() + WIN_POINTS * (state.result == WHITE),
                state.black_fields.bit_count() + WIN_POINTS * (state.result == BLACK))

    # ----- views ---------------------------------------------------------------------
    def observation(self, state: TritocState, player: int) -> np.ndarray:
        if player == WHITE:
            mine, theirs = state.white, state.black
            my_fields, their_fields = state.white_fields, state.black_fields
        else:
            mine, theirs = state.black, state.white
            my_fields, their_fields = state.black_fields, state.white_fields
        obs = state.layout.base.copy()
        bits = bit_planes(mine, theirs)
        obs[:, 0] = bits[:81]
        obs[:, 1] = bits[88:169]
        if my_fields:
            obs[:, 11] = FIELD_PLANES[my_fields]
        if their_fields:
            obs[:, 12] = FIELD_PLANES[their_fields]
        if state.roll >= 2:
            obs[:, ROLL_PLANES[state.roll - SUMS[0]]] = 1
        return obs.reshape(9, 9, 24)

    def action_to_string(self, state: TritocState, action: int) -> str:
        if action == PASS:
            return "pass"
        if not 0 <= action < 81:
            return f"out-of-range action {action}"
        roll, hole = state.roll, self.action_name(state, action)
        if roll == 12:
            return f"remove the {COLOR_NAMES[1 - state.to_move]} stone at {hole}"
        if roll == 2:
            return f"remove the {COLOR_NAMES[state.to_move]} stone at {hole}"
        return (f"place a {COLOR_NAMES[state.to_move]} stone at {hole} "
                f"(number {state.layout.numbers[action]})")

    def action_name(self, state: TritocState, action: int) -> str:
        """The hole ``r,c`` (place or remove, as the roll says) or ``pass``."""
        return "pass" if action == PASS else f"{action // 9},{action % 9}"

    def to_notation(self, state: TritocState) -> str:
        return to_notation(state)

    def from_notation(self, text: str) -> TritocState:
        """Parse ``<rows> <w|b> <roll> <passes> [<layout>]``.

        ``<roll>``: ``2``-``12``, ``p`` (must pass), ``?`` (dice not rolled yet: a chance
        node) or ``-`` (the game is over). Without ``<layout>`` the layout is ``ordered``.

        Besides the syntax, the checks are exact but local: no field with lines of both
        colors, a field with a line is full of its color, at most one winner and not the
        player to move, a ``-`` roll exactly when the game is over, a roll ``2``-``12`` that
        allows an action and ``p`` only when some roll allows none. Passes > 0 need a board
        where some roll allows no action: the passes left the board unchanged, and a roll
        is unplayable for one player exactly when one is for the other (2 and 12 swap).
        Not checked: whether the stones can be reached by play at all (stone counts, the
        order of conquests, stones removed by 2 and 12).

        Raises:
            ValueError: saying what is malformed or impossible.
        """
        return from_notation(text)

    def rules_prompt(self) -> str:
        return rules_prompt(self)

    def render_text(self, state: TritocState) -> str:
        return render_text(state, self.scores(state))

    def picture_size(self, state: TritocState) -> tuple[int, int]:
        return (460, 510)

    def picture_places(self, state: TritocState) -> dict[str, Box]:
        return places(self.picture_size(state)[0])

    def draw(self, state: TritocState, canvas: Canvas) -> None:
        draw(state, canvas, self._targets(state, state.roll) if state.roll >= 2 else 0)
