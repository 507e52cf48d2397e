"""Legal sets shared between the states that have them: one primitive, one cache policy.

A game's states often share their set of legal actions (every Tant Fant position with the
same pieces, every Tris 2 position with the same dice shape). :class:`LegalSets` gives each
distinct set one ascending tuple and one read-only ``int8`` mask, built once. The memo is
bounded: when it holds ``size`` sets it is emptied and refilled, which keeps memory flat in
endless random play and costs nothing when the working set is small.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

DEFAULT_SIZE = 4_096

_BYTE_BITS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1,
                           bitorder="little").astype(np.int8)


def nth_action(bits: int, n: int) -> int:
    """Action ``n`` (from 0) of the ascending actions of ``bits`` (bit ``a`` set for each
    legal action ``a``): ``actions[n]`` without building the tuple, as fast rollouts pick.
    ``n`` must be below ``bits.bit_count()``."""
    for _ in range(n):
        bits &= bits - 1
    return (bits & -bits).bit_length() - 1


class LegalSets:
    """Memo of legal sets for a game with ``num_actions`` actions.

    Args:
        num_actions: Size of the action space.
        size: Sets kept before the memo is emptied.
    """

    def __init__(self, num_actions: int, size: int = DEFAULT_SIZE) -> None:
        self.num_actions = num_actions
        self.size = size
        self._bytes = (num_actions + 7) // 8
        self._by_actions: dict[tuple[int, ...], np.ndarray] = {}
        self._by_bits: dict[int, tuple[tuple[int, ...], np.ndarray]] = {}

    def mask(self, actions: Sequence[int]) -> np.ndarray:
        """The shared read-only mask of ``actions`` (ascending legal actions)."""
        key = tuple(actions)
        mask = self._by_actions.get(key)
        if mask is None:
            if len(self._by_actions) >= self.size:
                self._by_actions.clear()
            mask = np.zeros(self.num_actions, dtype=np.int8)
            mask[list(key)] = 1
            mask.flags.writeable = False
            self._by_actions[key] = mask
        return mask

    def masks_from_bits(self, bits: Sequence[int]) -> np.ndarray:
        """The masks of many sets given as integers (see :meth:`from_bits`), as one new
        ``uint8`` array ``(len(bits), num_actions)``, built in one pass without the memo:
        for positions that rarely repeat."""
        packed = np.frombuffer(b"".join([b.to_bytes(self._bytes, "little") for b in bits]),
                               np.uint8).reshape(len(bits), self._bytes)
        return np.unpackbits(packed, axis=1, count=self.num_actions, bitorder="little")

    def from_bits(self, bits: int) -> tuple[tuple[int, ...], np.ndarray]:
        """The ascending actions and the shared read-only mask of a set given as an integer
        whose bit ``a`` is set for each legal action ``a``."""
        entry = self._by_bits.get(bits)
        if entry is None:
            if len(self._by_bits) >= self.size:
                self._by_bits.clear()
            packed = np.frombuffer(bits.to_bytes(self._bytes, "little"), np.uint8)
            mask = _BYTE_BITS.take(packed, axis=0).reshape(-1)[:self.num_actions]
            mask.flags.writeable = False
            entry = self._by_bits[bits] = (tuple(mask.nonzero()[0].tolist()), mask)
        return entry
