"""Length-bucketed micro-batches (enoki_hd.runtime.batching)."""

from __future__ import annotations

import pytest

from enoki_hd.runtime.batching import length_batches


def test_rows_of_similar_length_share_a_batch_and_long_ones_start_a_new_one() -> None:
    lengths = [80, 10, 12, 11, 78, 40]
    # 10, 11, 12 together; 40 would pad the three to 4 x 40 = 160 > 1.25 x 73; 78 with 80
    assert length_batches(lengths, 32) == [[1, 3, 2], [5], [4, 0]]


def test_batch_size_caps_a_batch_of_equal_lengths() -> None:
    assert length_batches([5] * 5, 2) == [[0, 1], [2, 3], [4]]


def test_every_index_once_in_ascending_length_and_padding_within_the_bound() -> None:
    lengths = [(i * 37) % 101 + 1 for i in range(200)]
    batches = length_batches(lengths, 16, max_padding=0.25)
    flat = [i for batch in batches for i in batch]
    assert sorted(flat) == list(range(200))
    assert [lengths[i] for i in flat] == sorted(lengths)
    for batch in batches:
        assert len(batch) <= 16
        padded = len(batch) * max(lengths[i] for i in batch)
        assert padded <= 1.25 * sum(lengths[i] for i in batch)


def test_no_padding_allowed_batches_only_equal_lengths() -> None:
    assert length_batches([3, 4, 3, 4], 8, max_padding=0.0) == [[0, 2], [1, 3]]


def test_empty_input_gives_no_batches() -> None:
    assert length_batches([], 4) == []


@pytest.mark.parametrize(
    ("batch_size", "max_padding", "message"),
    [(0, 0.25, "batch_size must be >= 1, got 0"), (4, -0.1, "max_padding must be >= 0")],
)
def test_bad_settings_are_named(batch_size: int, max_padding: float, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        length_batches([1, 2], batch_size, max_padding=max_padding)
