"""RAGTruth: the original ``response.jsonl`` + ``source_info.jsonl`` and the processed
single-file schema."""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from enoki_hd.eval.datasets.rows import (
    Row,
    check_unique,
    context_or_missing,
    is_int,
    read_jsonl,
    span_example,
)
from enoki_hd.eval.datasets.schema import Benchmark, EvalExample, PathLike
from enoki_hd.text import anchor
from enoki_hd.types import Span

logger = logging.getLogger(__name__)

_RAGTRUTH_TASKS = ("QA", "Summary", "Data2txt")


def _ragtruth_label_spans(
    row: Row, name: str, labels: Any, answer: str, answer_field: str, flagged: Counter
) -> tuple[list[Span], list[dict[str, Any]]]:
    """Spans of RAGTruth labels ``[{start, end, text?, ...}]`` into ``answer``.

    A label whose ``text`` is not at ``[start, end)`` is re-anchored by its text (a unique
    match only, counted in ``flagged["reanchored_label"]``); if that fails the row is
    malformed. Returns the spans sorted by start and the labels with corrected offsets.
    """
    shape = (
        f"must be a list of {{start, end, text}} objects with "
        f"0 <= start <= end <= len({answer_field})"
    )
    if not isinstance(labels, list):
        raise row.error(name, shape)
    spans: list[Span] = []
    kept: list[dict[str, Any]] = []
    for index, label in enumerate(labels):
        if not isinstance(label, Mapping):
            raise row.error(name, shape)
        start, end, text = label.get("start"), label.get("end"), label.get("text")
        if not (is_int(start) and is_int(end) and 0 <= start <= end <= len(answer)):
            raise row.error(name, shape)
        if text is not None and not isinstance(text, str):
            raise row.error(name, shape)
        span = Span(start, end)
        if text is not None and answer[start:end] != text:
            found = anchor(answer, text)
            if found is None:
                raise row.error(
                    name,
                    f"item {index}: text {text!r} is not at [{start}, {end}) of {answer_field} "
                    f"and does not occur there exactly once",
                )
            logger.debug("%s:%d: label %d re-anchored to %s", row.path, row.line, index, found)
            flagged["reanchored_label"] += 1
            span = found
        spans.append(span)
        kept.append({**label, "start": span.start, "end": span.end})
    order = sorted(range(len(spans)), key=lambda i: (spans[i].start, spans[i].end))
    return [spans[i] for i in order], [kept[i] for i in order]


@dataclass
class _RagtruthSource:
    """One ``source_info.jsonl`` record, with the question and context already built."""

    task_type: str
    question: str | None
    context: str
    prompt: str | None


def _ragtruth_context(row: Row, task_type: str) -> tuple[str | None, str]:
    """(question, context) as RAGTruth gives them to the generator.

    QA: the question and the passages; Summary: the news text; Data2txt: the structured
    data as ``json.dumps(..., ensure_ascii=False, indent=2)``, one field per line, so that
    evidence selection sees the fields as separate lines. A ``source_info`` that is already a
    string is used as it is.
    """
    info = row.value("source_info")
    if task_type == "QA":
        if not isinstance(info, Mapping):
            raise row.error("source_info", "must be an object with question and passages for QA")
        question, passages = info.get("question"), info.get("passages")
        if isinstance(passages, list) and all(isinstance(p, str) for p in passages):
            passages = "\n\n".join(passages)
        if not isinstance(question, str) or not isinstance(passages, str):
            raise row.error("source_info", "must be an object with question and passages for QA")
        return question, passages
    if isinstance(info, str):
        return None, info
    if task_type == "Data2txt" and isinstance(info, (Mapping, list)):
        return None, json.dumps(info, ensure_ascii=False, indent=2)
    raise row.error("source_info", f"must be a string for {task_type}")


def _read_ragtruth_sources(path: Path) -> dict[str, _RagtruthSource]:
    sources: dict[str, _RagtruthSource] = {}
    seen: dict[str, tuple[Path, int]] = {}
    for row in read_jsonl(path):
        source_id = row.ident("source_id")
        check_unique(row, "source_id", source_id, seen)
        task_type = row.text("task_type")
        if task_type not in _RAGTRUTH_TASKS:
            raise row.error("task_type", f"must be one of {', '.join(_RAGTRUTH_TASKS)}")
        question, context = _ragtruth_context(row, task_type)
        sources[source_id] = _RagtruthSource(
            task_type, question, context, row.optional_text("prompt")
        )
    return sources


def load_ragtruth(
    response_path: PathLike,
    source_info_path: PathLike | None = None,
    split: str | None = None,
    *,
    name: str = "ragtruth",
) -> Benchmark:
    """RAGTruth from its original ``response.jsonl`` (+ ``source_info.jsonl``).

    Responses: ``id``, ``source_id``, ``model``, ``response`` (the answer), ``labels``
    (``[{start, end, text, label_type, implicit_true, due_to_null, meta}]``, offsets into
    ``response``), ``split``, ``quality``. Every label is a gold span, ``implicit_true`` ones
    included (true in the world but not in the source: still unsupported by the context);
    the raw labels stay in ``metadata["labels"]``. Labels are checked with
    ``response[start:end] == text``; see :func:`_ragtruth_label_spans` for re-anchoring.

    Sources: ``source_id``, ``task_type`` (QA / Summary / Data2txt), ``source_info``,
    ``prompt``; the context is built as :func:`_ragtruth_context` documents and the question
    is the QA question (None for the other tasks; the prompt is in ``metadata``). Without
    ``source_info_path`` the contexts are "" and counted in ``flagged["missing_context"]``,
    which is enough to check the label format. With ``split`` set, rows of other splits are
    counted in ``dropped["other_split"]``.
    """
    response_path = Path(response_path)
    sources = _read_ragtruth_sources(Path(source_info_path)) if source_info_path else None
    examples: list[EvalExample] = []
    dropped: Counter[str] = Counter()
    flagged: Counter[str] = Counter()
    seen: dict[str, tuple[Path, int]] = {}
    for row in read_jsonl(response_path):
        row_split = row.optional_text("split")
        if split is not None and row_split != split:
            dropped["other_split"] += 1
            continue
        example_id = row.ident("id")
        check_unique(row, "id", example_id, seen)
        source_id = row.ident("source_id")
        answer = row.text("response")
        spans, labels = _ragtruth_label_spans(
            row, "labels", row.value("labels"), answer, "response", flagged
        )
        metadata: dict[str, Any] = {
            "source_id": source_id,
            "model": row.data.get("model"),
            "split": row_split,
            "quality": row.data.get("quality"),
            "labels": labels,
        }
        question: str | None = None
        context: str | None = None
        if sources is not None:
            if source_id not in sources:
                raise row.error("source_id", f"has no record in {source_info_path}")
            source = sources[source_id]
            question, context = source.question, source.context
            metadata["task_type"] = source.task_type
            metadata["prompt"] = source.prompt
        else:
            metadata["task_type"] = None
        context = context_or_missing(context, metadata, flagged)
        examples.append(
            span_example(
                example_id,
                question,
                context,
                answer,
                spans,
                metadata,
            )
        )
    source_desc = str(response_path) + (f", {source_info_path}" if source_info_path else "")
    return Benchmark(
        name, "span", examples, dropped=dict(dropped), flagged=dict(flagged), source=source_desc
    )


def load_ragtruth_processed(
    path: PathLike, split: str | None = None, *, name: str = "ragtruth"
) -> Benchmark:
    """RAGTruth in the single-file processed schema (``wandb/RAGTruth-processed``).

    Fields: ``context``, ``output`` (the answer), ``hallucination_labels`` (a JSON string —
    or a list — of ``[{start, end, label, text?}]`` into ``output``), ``task_type``,
    ``split``; optional ``id`` (else ``line-{n}``), ``query`` (the question), ``model``.
    Labels are validated like :func:`load_ragtruth`'s.
    """
    path = Path(path)
    examples: list[EvalExample] = []
    dropped: Counter[str] = Counter()
    flagged: Counter[str] = Counter()
    seen: dict[str, tuple[Path, int]] = {}
    for row in read_jsonl(path):
        row_split = row.optional_text("split")
        if split is not None and row_split != split:
            dropped["other_split"] += 1
            continue
        example_id = row.ident("id") if row.has("id") else f"line-{row.line}"
        check_unique(row, "id", example_id, seen)
        answer = row.text("output")
        raw = row.value("hallucination_labels")
        if isinstance(raw, str):
            try:
                raw = json.loads(raw) if raw.strip() else []
            except json.JSONDecodeError as exc:
                raise row.error("hallucination_labels", f"is not valid JSON ({exc.msg})") from exc
        spans, labels = _ragtruth_label_spans(
            row, "hallucination_labels", raw, answer, "output", flagged
        )
        metadata: dict[str, Any] = {
            "task_type": row.text("task_type"),
            "split": row_split,
            "model": row.data.get("model"),
            "labels": labels,
        }
        context = context_or_missing(row.text("context"), metadata, flagged)
        examples.append(
            span_example(
                example_id,
                row.optional_text("query"),
                context,
                answer,
                spans,
                metadata,
            )
        )
    return Benchmark(
        name, "span", examples, dropped=dict(dropped), flagged=dict(flagged), source=str(path)
    )
