"""A small bounded least-recently-used cache (evidence indexes per context, NLI scores per
pair)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LRUCache(Generic[K, V]):
    """At most ``maxsize`` entries; reading an entry makes it the most recent, adding one past
    the bound drops the least recent. ``maxsize=0`` keeps nothing."""

    def __init__(self, maxsize: int) -> None:
        if maxsize < 0:
            raise ValueError(f"maxsize must be >= 0, got {maxsize}")
        self.maxsize = maxsize
        self._items: OrderedDict[K, V] = OrderedDict()

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def get(self, key: K) -> V | None:
        """The value of ``key`` (now the most recent), or None."""
        if key not in self._items:
            return None
        self._items.move_to_end(key)
        return self._items[key]

    def put(self, key: K, value: V) -> None:
        if self.maxsize == 0:
            return
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.maxsize:
            self._items.popitem(last=False)

    def get_or_build(self, key: K, build: Callable[[], V]) -> V:
        """The cached value of ``key``, built with ``build()`` and kept on a miss."""
        if key in self._items:
            self._items.move_to_end(key)
            return self._items[key]
        value = build()
        self.put(key, value)
        return value

    def clear(self) -> None:
        self._items.clear()
