"""Grid examples → model inputs of the IGL tagger.

A sentence is tokenised as its words followed by the three sentinels
(``tokenizer(words + list(SENTINELS), is_split_into_words=True)``); the model reads each word at
its first sub-token (``word_index``). A sentence longer than ``max_length`` sub-tokens is cut
into overlapping windows of whole words, and the sentinels are appended to every window. A row
(extraction) is a target of each window that holds all its labelled words; a row no window
holds whole is rejected and counted, never cut.

Tensor shapes (:func:`collate`): ``input_ids``, ``attention_mask``: (batch, tokens);
``word_index``, ``word_mask``: (batch, words), sentinels included; ``labels``: (batch, rows,
words) with :data:`~enoki_hd.igl.labels.IGNORE` for padding (padded rows are all IGNORE).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from enoki_hd.igl.labels import IGNORE, NONE, SENTINELS, GridExample

if TYPE_CHECKING:
    import torch

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class EncodedWindow:
    """One window of a sentence, ready to batch.

    ``word_index[i]`` is the position in ``input_ids`` of the first sub-token of the window's
    word ``i``; the last three entries are the sentinels. ``word_mask[i]`` is False for a word
    the tokenizer turned into no sub-token (its labels are IGNORE). ``labels`` has one row per
    extraction the window holds whole, each ``len(word_index)`` long. ``word_start`` is the
    index of the window's first word in the example's ``words``.
    """

    input_ids: list[int]
    word_index: list[int]
    word_mask: list[bool]
    labels: list[list[int]]
    word_start: int
    example_id: str = ""
    pad_token_id: int = 0

    @property
    def num_words(self) -> int:
        """Sentence words in the window (sentinels excluded)."""
        return len(self.word_index) - len(SENTINELS)


@dataclass
class EncodeStats:
    """What encoding kept and rejected (the manifest's ``encoding`` entry)."""

    examples: int = 0
    windows: int = 0
    windowed_examples: int = 0  # examples longer than one window
    rows: int = 0
    rows_rejected: int = 0  # rows no window holds whole
    examples_rejected: int = 0  # a single word longer than a window
    reasons: dict[str, int] = field(default_factory=dict)

    def reject_example(self, reason: str) -> None:
        self.examples_rejected += 1
        self.reasons[reason] = self.reasons.get(reason, 0) + 1

    def to_dict(self) -> dict[str, Any]:
        return {
            "examples": self.examples,
            "windows": self.windows,
            "windowed_examples": self.windowed_examples,
            "rows": self.rows,
            "rows_rejected": self.rows_rejected,
            "examples_rejected": self.examples_rejected,
            "reasons": dict(self.reasons),
        }


def add_sentinel_tokens(tokenizer: Any) -> list[int]:
    """Add the sentinels to ``tokenizer`` as special tokens (keeping its other additional
    special tokens) and return their ids. The model's embeddings must be resized after."""
    # transformers 4 calls them additional special tokens, 5 extra; passing the old ones with
    # the new ones keeps them special under either name.
    current = getattr(tokenizer, "extra_special_tokens", None)
    if not isinstance(current, list):
        current = getattr(tokenizer, "additional_special_tokens", None) or []
    names = [str(t) for t in current]
    extra = names + [s for s in SENTINELS if s not in names]
    tokenizer.add_special_tokens({"additional_special_tokens": extra})
    return [int(tokenizer.convert_tokens_to_ids(s)) for s in SENTINELS]


def _check_tokenizer(tokenizer: Any) -> None:
    if not getattr(tokenizer, "is_fast", False):
        raise TypeError(
            f"encode_example needs a fast tokenizer (word_ids()), got {type(tokenizer).__name__}; "
            "load it with AutoTokenizer.from_pretrained(..., use_fast=True)"
        )
    special = set(tokenizer.all_special_tokens)
    missing = [s for s in SENTINELS if s not in special]
    if missing:
        raise ValueError(
            f"the tokenizer lacks the sentinel special tokens {missing}; add them with "
            "enoki_hd.igl.data.add_sentinel_tokens(tokenizer) and resize the model's embeddings"
        )


def _window_bounds(lengths: Sequence[int], budget: int) -> list[tuple[int, int]]:
    """Word ranges ``[start, end)`` whose sub-tokens fit ``budget``, covering every word; each
    next window starts half-way through the previous one."""
    n = len(lengths)
    bounds: list[tuple[int, int]] = []
    start = 0
    while True:
        end, used = start, 0
        while end < n and used + lengths[end] <= budget:
            used += lengths[end]
            end += 1
        bounds.append((start, end))
        if end >= n:
            return bounds
        start = max(start + 1, start + (end - start) // 2)


def encode_example(
    example: GridExample,
    tokenizer: Any,
    *,
    max_length: int,
    stats: EncodeStats | None = None,
) -> list[EncodedWindow]:
    """Encode ``example`` as one window, or several when its words and sentinels do not fit
    ``max_length`` sub-tokens (special tokens included).

    Windows hold whole words, overlap by half and always end with the three sentinels. Each row
    goes to every window that holds all its labelled words (its sentinel labels kept); a row no
    window holds whole is counted in ``stats.rows_rejected``. An example with a word longer than
    a window gives no window (``stats.examples_rejected``).
    """
    _check_tokenizer(tokenizer)
    stats = stats if stats is not None else EncodeStats()
    stats.examples += 1
    stats.rows += len(example.rows)
    words = example.word_texts()
    n = len(words)
    full = tokenizer(words + list(SENTINELS), is_split_into_words=True, truncation=False)
    word_ids = full.word_ids()
    lengths = [0] * (n + len(SENTINELS))
    for w in word_ids:
        if w is not None:
            lengths[w] += 1
    if lengths[n:] != [1] * len(SENTINELS):
        raise ValueError(f"each sentinel must be one sub-token, got lengths {lengths[n:]}")
    budget = max_length - tokenizer.num_special_tokens_to_add(pair=False) - len(SENTINELS)
    if n and max(lengths[:n]) > budget:
        stats.reject_example("word_longer_than_window")
        stats.rows_rejected += len(example.rows)
        logger.debug("example %s has a word longer than a window; skipped", example.id)
        return []
    bounds = _window_bounds(lengths[:n], budget) if n else [(0, 0)]
    if len(bounds) > 1:
        stats.windowed_examples += 1
    labelled = [[i for i in range(n) if row[i] != NONE] for row in example.rows]
    placed = [False] * len(example.rows)
    pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    windows = []
    for start, end in bounds:
        if len(bounds) == 1:
            encoding = full
        else:
            encoding = tokenizer(
                words[start:end] + list(SENTINELS), is_split_into_words=True, truncation=False
            )
        width = end - start + len(SENTINELS)
        word_index = [0] * width
        word_mask = [False] * width
        for position, w in enumerate(encoding.word_ids()):
            if w is not None and not word_mask[w]:
                word_index[w], word_mask[w] = position, True
        rows = []
        for r, row in enumerate(example.rows):
            if all(start <= i < end for i in labelled[r]):
                placed[r] = True
                cut = row[start:end] + row[n:]
                rows.append([x if m else IGNORE for x, m in zip(cut, word_mask, strict=True)])
        windows.append(
            EncodedWindow(
                input_ids=list(encoding["input_ids"]),
                word_index=word_index,
                word_mask=word_mask,
                labels=rows,
                word_start=start,
                example_id=example.id,
                pad_token_id=int(pad_id),
            )
        )
    stats.windows += len(windows)
    stats.rows_rejected += placed.count(False)
    return windows


def collate(windows: Sequence[EncodedWindow]) -> dict[str, torch.Tensor]:
    """Pad windows into a batch: ``input_ids`` / ``attention_mask`` (B, T), ``word_index`` /
    ``word_mask`` (B, W), ``labels`` (B, G, W) with IGNORE padding; G is the most rows of any
    window (0 when none has rows), and padded rows are all IGNORE."""
    import torch

    if not windows:
        raise ValueError("collate needs at least one window")
    batch = len(windows)
    tokens = max(len(w.input_ids) for w in windows)
    width = max(len(w.word_index) for w in windows)
    depth = max(len(w.labels) for w in windows)
    input_ids = torch.full((batch, tokens), windows[0].pad_token_id, dtype=torch.long)
    attention_mask = torch.zeros((batch, tokens), dtype=torch.long)
    word_index = torch.zeros((batch, width), dtype=torch.long)
    word_mask = torch.zeros((batch, width), dtype=torch.bool)
    labels = torch.full((batch, depth, width), IGNORE, dtype=torch.long)
    for b, w in enumerate(windows):
        input_ids[b, : len(w.input_ids)] = torch.tensor(w.input_ids, dtype=torch.long)
        attention_mask[b, : len(w.input_ids)] = 1
        word_index[b, : len(w.word_index)] = torch.tensor(w.word_index, dtype=torch.long)
        word_mask[b, : len(w.word_mask)] = torch.tensor(w.word_mask, dtype=torch.bool)
        for g, row in enumerate(w.labels):
            labels[b, g, : len(row)] = torch.tensor(row, dtype=torch.long)
    return {
        "input_ids": input_ids,
        "attention_mask": attention_mask,
        "word_index": word_index,
        "word_mask": word_mask,
        "labels": labels,
    }


class GridDataset(Sequence[EncodedWindow]):
    """The windows of ``examples``, encoded once; ``stats`` says what was rejected."""

    def __init__(self, examples: Iterable[GridExample], tokenizer: Any, *, max_length: int):
        self.stats = EncodeStats()
        self.windows: list[EncodedWindow] = []
        for example in examples:
            self.windows.extend(
                encode_example(example, tokenizer, max_length=max_length, stats=self.stats)
            )
        if self.stats.rows_rejected or self.stats.examples_rejected:
            logger.info(
                "encoding rejected %d of %d rows and %d of %d examples (max_length %d)",
                self.stats.rows_rejected,
                self.stats.rows,
                self.stats.examples_rejected,
                self.stats.examples,
                max_length,
            )

    def __len__(self) -> int:
        return len(self.windows)

    def __getitem__(self, index: int) -> EncodedWindow:  # type: ignore[override]
        return self.windows[index]

    def __iter__(self) -> Iterator[EncodedWindow]:
        return iter(self.windows)

    def batches(self, batch_size: int) -> Iterator[dict[str, torch.Tensor]]:
        """Collated batches in order (shuffle with a DataLoader over this dataset and
        ``collate_fn=collate`` instead when training)."""
        for i in range(0, len(self.windows), batch_size):
            yield collate(self.windows[i : i + batch_size])
