"""MuSHROOM (SemEval-2025 Task 3): span-level labels, hard and soft."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from enoki_hd.eval.datasets.rows import (
    Row,
    check_unique,
    context_or_missing,
    is_int,
    pair_spans,
    read_jsonl,
    span_example,
)
from enoki_hd.eval.datasets.schema import Benchmark, EvalExample, PathLike

logger = logging.getLogger(__name__)


def _mushroom_soft_labels(row: Row, length: int) -> list[dict[str, Any]] | None:
    if not row.has("soft_labels"):
        return None
    items = row.items("soft_labels")
    problem = (
        "must be a list of {start, end, prob} objects with "
        "0 <= start <= end <= len(model_output_text) and 0 <= prob <= 1"
    )
    soft: list[dict[str, Any]] = []
    for item in items:
        if not isinstance(item, Mapping):
            raise row.error("soft_labels", problem)
        start, end, prob = item.get("start"), item.get("end"), item.get("prob")
        if not (is_int(start) and is_int(end) and 0 <= start <= end <= length):
            raise row.error("soft_labels", problem)
        if isinstance(prob, bool) or not isinstance(prob, (int, float)) or not 0 <= prob <= 1:
            raise row.error("soft_labels", problem)
        soft.append({"start": start, "end": end, "prob": float(prob)})
    return soft


def load_mushroom(path: PathLike, *, name: str = "mushroom") -> Benchmark:
    """MuSHROOM (SemEval-2025 Task 3) JSON lines, with or without a ``context`` field.

    Fields: ``id``, ``model_input`` (the question), ``model_output_text`` (the answer),
    ``hard_labels`` (``[[start, end], ...]`` into the answer), optional ``soft_labels``
    (``[{start, end, prob}]``), optional ``context`` (the page text added for this project's
    dev sample). Rows without context are kept with context "" and counted in
    ``flagged["missing_context"]``. ``metadata`` keeps ``lang``, ``model_id``,
    ``wikipedia_url`` and the per-annotator spans (``annotations``) when present.
    """
    path = Path(path)
    examples: list[EvalExample] = []
    flagged: Counter[str] = Counter()
    seen: dict[str, tuple[Path, int]] = {}
    for row in read_jsonl(path):
        example_id = row.ident("id")
        check_unique(row, "id", example_id, seen)
        answer = row.text("model_output_text")
        spans = pair_spans(
            row, "hard_labels", row.value("hard_labels"), len(answer), "model_output_text"
        )
        soft = _mushroom_soft_labels(row, len(answer))
        metadata: dict[str, Any] = {
            key: row.data[key] for key in ("lang", "model_id", "wikipedia_url") if row.has(key)
        }
        if row.has("annotations"):
            metadata["annotations"] = {}
            for annotator, annotated in row.mapping("annotations").items():
                checked = pair_spans(
                    row, "annotations", annotated, len(answer), "model_output_text"
                )
                metadata["annotations"][str(annotator)] = [s.to_dict() for s in checked]
        context = context_or_missing(row.optional_text("context"), metadata, flagged)
        examples.append(
            span_example(
                example_id,
                row.optional_text("model_input"),
                context,
                answer,
                spans,
                metadata,
                soft_labels=soft,
            )
        )
    logger.info("MuSHROOM %s: %d examples, flagged %s", path, len(examples), dict(flagged))
    return Benchmark(name, "span", examples, flagged=dict(flagged), source=str(path))
