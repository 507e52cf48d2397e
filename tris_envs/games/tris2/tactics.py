"""Tris 2's tactics: the features a network reads, worked out on the bit masks alone.

Each position's one-move tactics (the rolls that win, the rolls that hand the opponent a
win in one), its two-move traps (rolls after which every reply hands a win back) and the
rolls that hand the opponent a trap: the ``tactics``, ``traps`` and ``wary`` capabilities
of :data:`~tris_envs.core.capabilities.CAPABILITIES`, the input planes of networks trained
with ``tactics``, ``trap_planes`` and ``wary_planes``. The rules (:mod:`~tris_envs.games.
tris2.rules`) import nothing from here; the registry names :class:`Tris2Tactics` in
Tris 2's ``GameSpec`` and ``tris_envs.games.tactics_of(game)`` builds it::

    from tris_envs.games import make_game, tactics_of

    game = make_game("tris2", max_side=4)
    state = game.initial_state(np.random.default_rng(0))
    wins, handovers = tactics_of(game).tactical_moves(state)
"""

from __future__ import annotations

import numpy as np

from tris_envs.games.tris2.moves import CELL_P, FRAME_CELL, ROLL, STEP, can_win, has_line, reframe
from tris_envs.games.tris2.rules import Tris2
from tris_envs.games.tris2.state import NUM_ACTIONS, ONGOING, Tris2State

_Child = tuple[tuple[int, int, int], int, int, int, int, bool]
"""A position after a roll on the bit masks: tops, odd dice, height, width, the opponent's
legal rolls, whether the roll made a line (:meth:`Tris2Tactics._roll`)."""


class Tris2Tactics:
    """The tactics of one Tris 2 rules core (its ``max_side`` bounds the rolls), a
    :class:`~tris_envs.core.capabilities.Tactical`.

    Args:
        game: The rules core.
    """

    def __init__(self, game: Tris2) -> None:
        self.game = game

    def tactical_moves(self, state: Tris2State) -> tuple[np.ndarray, np.ndarray]:
        """``(wins, handovers)``, two ``bool`` vectors of length 378: the legal rolls after
        which the player to move has won, and those after which the game goes on and the
        opponent can win at once (what the JAX game's ``winning_moves`` and ``handovers``
        give; the input planes of a network trained with ``tactics``). Placements are
        neither; both are empty in a finished game."""
        wins, handovers = self.tactic_flags(state)
        return wins, handovers

    def trap_moves(self, state: Tris2State) -> np.ndarray:
        """``bool`` vector of length 378: the legal rolls after which the game goes on and
        every legal move of the opponent (at least one) hands a win in one back, a
        zugzwang (what the JAX game's ``trap_moves`` gives; the third group of input
        planes of a network trained with ``trap_planes``). Placements are none; none in a
        finished game."""
        return self.tactic_flags(state, traps=True)[2]

    def trap_handovers(self, state: Tris2State) -> np.ndarray:
        """``bool`` vector of length 378: the legal rolls after which the game goes on and
        the opponent has a trap (one of :meth:`trap_moves` of the position each leaves), a
        zugzwang handed over (what the JAX game's ``trap_handovers`` gives; the fourth
        group of input planes of a network with ``wary_planes``). Placements are none; none
        in a finished game."""
        return self.tactic_flags(state, wary=True)[2]

    def tactic_flags(self, state: Tris2State, traps: bool = False,
                     wary: bool = False) -> np.ndarray:
        """:meth:`tactical_moves`' wins and handovers, with ``traps`` also
        :meth:`trap_moves`, and with ``wary`` then :meth:`trap_handovers`, as the rows of
        one ``bool`` array of shape ``(2 + traps + wary, 378)``, from one pass over the
        legal rolls (a trap is never a handover: the opponent's winning reply ends the
        game). The positions are played on the bit masks alone (:meth:`_roll`), without
        boards."""
        flags = np.zeros((2 + traps + wary, NUM_ACTIONS), dtype=bool)
        if state.result != ONGOING or state.placing:
            return flags
        tops, odd = (state.top_x, state.top_o, state.top_bar), state.odd
        legal, roll = state.legal, self._roll
        while legal:
            low = legal & -legal
            legal ^= low
            action = low.bit_length() - 1
            child = roll(tops, odd, state.height, state.width, action)
            if child[5]:
                flags[0, action] = True
                continue
            if not child[4]:
                continue
            if can_win(child[0], child[1], child[4]):
                flags[1, action] = True
            elif traps:
                flags[2, action] = self._every_reply_hands_over(*child[:5])
            if wary:
                flags[-1, action] = self._has_trap(*child[:5])
        return flags

    def _has_trap(self, tops: tuple[int, int, int], odd: int, height: int, width: int,
                  legal: int) -> bool:
        """Whether one of the rolls in ``legal`` (the player to move's) is a trap: it makes
        no line and leaves the opponent replies that all hand over a win in one."""
        while legal:
            low = legal & -legal
            legal ^= low
            after = self._roll(tops, odd, height, width, low.bit_length() - 1)
            if (after[4] and not can_win(after[0], after[1], after[4])
                    and self._every_reply_hands_over(*after[:5])):
                return True
        return False

    def _every_reply_hands_over(self, tops: tuple[int, int, int], odd: int, height: int,
                                width: int, legal: int) -> bool:
        """Whether after each roll in ``legal`` (the opponent's, none of which wins) the
        game goes on and the player who set the trap can win at once."""
        while legal:
            low = legal & -legal
            legal ^= low
            after = self._roll(tops, odd, height, width, low.bit_length() - 1)
            if not after[4] or not can_win(after[0], after[1], after[4]):
                return False
        return True

    def _roll(self, tops: tuple[int, int, int], odd: int, height: int, width: int,
              action: int) -> _Child:
        """The legal roll ``action`` on a position's bit masks: ``tops``, ``odd`` (the dice
        in an odd orientation ``k``), the frame's ``height`` and ``width``. Returns the
        same four after it, re-anchored, then the opponent's legal rolls (0 after a win or
        when none is left) and whether the roll made a line."""
        d = action & 3
        p = CELL_P[action >> 2]
        q = p + STEP[d]
        t = 0 if tops[0] >> p & 1 else 1 if tops[1] >> p & 1 else 2
        k = ROLL[2 * t + (odd >> p & 1)][d]
        masks = [tops[0], tops[1], tops[2]]
        masks[t] ^= 1 << p
        masks[k >> 1] |= 1 << q
        odd = odd & ~(1 << p) | (k & 1) << q
        if has_line(masks[k >> 1]):
            return (masks[0], masks[1], masks[2]), odd, height, width, 0, True
        occ = masks[0] | masks[1] | masks[2]
        shift, height, width = reframe(occ, p, q, d, height, width)
        if shift > 0:
            masks = [masks[0] << shift, masks[1] << shift, masks[2] << shift]
            occ, odd = occ << shift, odd << shift
        elif shift < 0:
            masks = [masks[0] >> -shift, masks[1] >> -shift, masks[2] >> -shift]
            occ, odd = occ >> -shift, odd >> -shift
        legal = self.game.legal_rolls(occ, height, width, FRAME_CELL[q + shift] << 2 | d)
        return (masks[0], masks[1], masks[2]), odd, height, width, legal, False


__all__ = ["Tris2Tactics"]
