"""The loaded models left out of the garbage collector's passes (enoki_hd.runtime.heap) in
the processes that only detect: the service after its warm-up, each ``detect-batch`` worker
after its first row."""

from __future__ import annotations

import gc
import json
import weakref
from collections.abc import Iterator

import pytest
from detector_fakes import lexical_detector

import enoki_hd.batch as batch
from enoki_hd.batch import BatchRow
from enoki_hd.runtime import settle_heap


class _Node:
    def __init__(self) -> None:
        self.other: _Node | None = None


@pytest.fixture
def unfrozen() -> Iterator[None]:
    gc.unfreeze()
    yield
    gc.unfreeze()


def _cycle() -> weakref.ref[_Node]:
    a, b = _Node(), _Node()
    a.other, b.other = b, a
    return weakref.ref(a)


def test_settling_collects_garbage_then_leaves_what_is_alive_out_of_later_passes(
    unfrozen: None,
) -> None:
    dropped = _cycle()  # garbage before: collected
    kept = _Node()
    kept.other = _Node()
    kept.other.other = kept
    alive = weakref.ref(kept)
    assert settle_heap() == gc.get_freeze_count() > 0
    assert dropped() is None
    del kept  # a cycle among settled objects: no pass looks at it any more
    gc.collect()
    assert alive() is not None
    gc.unfreeze()
    gc.collect()
    assert alive() is None


def test_a_batch_worker_settles_once_after_its_first_row(
    unfrozen: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    settled: list[int] = []
    monkeypatch.setattr(batch, "settle_heap", lambda: settled.append(gc.get_count()[0]))
    batch._init_worker(lexical_detector, 1)
    assert settled == []
    row = {"answer": "The bridge opened in 1893.", "context": "The bridge opened in 1893."}
    first = json.loads(batch._detect_in_worker(BatchRow(1, "a", example=row)))
    assert len(settled) == 1
    second = json.loads(batch._detect_in_worker(BatchRow(2, "b", example=row)))
    assert len(settled) == 1
    assert (first["id"], second["id"]) == ("a", "b")
    assert first["report"]["answer"] == second["report"]["answer"] == row["answer"]
