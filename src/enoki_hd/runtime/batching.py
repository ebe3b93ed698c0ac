"""Length-bucketed micro-batches: padding is computed too, so rows of similar length go together.

Sorting by length and cutting every ``batch_size`` rows still pads a batch to its longest row;
when one call mixes 10-token and 80-token sentences, half the batch's tokens can be padding.
:func:`length_batches` also cuts a batch where its padded size would exceed its real tokens by
more than ``max_padding``.

The IGL tagger batches its sentence windows this way (its graph computes in float, so a
window's labels do not depend on its batch). The NLI verifier keeps plain ``batch_size``
chunks of its length-sorted pairs: with this bucketing (commit 208f9be) RAGTruth-48 was no
faster end to end, and its int8 graph's per-batch activation scales would move some
probabilities, and so the reported evaluation numbers.
"""

from __future__ import annotations

from collections.abc import Sequence


def length_batches(
    lengths: Sequence[int], batch_size: int, *, max_padding: float = 0.25
) -> list[list[int]]:
    """Indices into ``lengths`` grouped into batches, shortest rows first.

    Rows are taken in ascending length (stable: input order among equal lengths). A batch is
    closed when it holds ``batch_size`` rows, or when adding the next row would make its padded
    size (rows × longest) exceed ``(1 + max_padding)`` × its real tokens.

    Raises:
        ValueError: ``batch_size < 1`` or ``max_padding < 0``.
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    if max_padding < 0:
        raise ValueError(f"max_padding must be >= 0, got {max_padding}")
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    batches: list[list[int]] = []
    batch: list[int] = []
    real = 0
    for index in order:
        length = lengths[index]
        padded = (len(batch) + 1) * length  # ascending order: this row is the longest
        if batch and (len(batch) == batch_size or padded > (1 + max_padding) * (real + length)):
            batches.append(batch)
            batch, real = [], 0
        batch.append(index)
        real += length
    if batch:
        batches.append(batch)
    return batches
