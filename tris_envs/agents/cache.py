"""A per-process LRU cache for expensive objects agents share (solutions, policies)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LRUCache(Generic[K, V]):
    """A per-process cache of at most ``size`` values, least recently used dropped first.

    Agents use it for expensive shared objects (exact solutions, loaded policies) so that
    agents rebuilt for every game of a match reuse them.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K, make: Callable[[], V]) -> V:
        """The value cached for ``key``, made with ``make()`` on a miss."""
        value = self._items.get(key)
        if value is None:
            value = make()
            if len(self._items) >= self.size:
                self._items.popitem(last=False)
            self._items[key] = value
        else:
            self._items.move_to_end(key)
        return value
