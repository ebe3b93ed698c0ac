from __future__ import annotations

import pytest

from enoki_hd.lru import LRUCache


def test_least_recently_used_entry_goes_first() -> None:
    cache: LRUCache[str, int] = LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # a is now the most recent
    cache.put("c", 3)
    assert "b" not in cache and cache.get("a") == 1 and cache.get("c") == 3
    assert len(cache) == 2


def test_get_or_build_builds_once() -> None:
    cache: LRUCache[str, list[int]] = LRUCache(4)
    built = []
    for _ in range(3):
        cache.get_or_build("k", lambda: built.append(1) or [1])
    assert built == [1]


def test_size_zero_keeps_nothing_and_negative_is_an_error() -> None:
    cache: LRUCache[str, int] = LRUCache(0)
    cache.put("a", 1)
    assert cache.get("a") is None and len(cache) == 0
    with pytest.raises(ValueError, match="maxsize must be >= 0"):
        LRUCache(-1)
