"""Sentence-level samples in the RAGTruth-250 / ANAH-250 schema."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from enoki_hd.eval.datasets.rows import (
    Row,
    check_unique,
    context_or_missing,
    is_int,
    locate_in_order,
    parse_bool,
    read_jsonl,
)
from enoki_hd.eval.datasets.schema import Benchmark, EvalExample, PathLike, SentenceGold
from enoki_hd.text import anchor
from enoki_hd.types import Span


def _sample_sentence_span(row: Row, output: str, sentence: str) -> Span | None:
    """The sentence's span in the whole answer.

    With ``answer_sentences`` and ``sentence_index`` the answer's sentences are located in
    order, which places a repeated sentence ("3.") at its own occurrence; otherwise (or if
    that fails) the sentence is anchored on its own, unique matches only.
    """
    pieces = row.data.get("answer_sentences")
    index = row.data.get("sentence_index")
    if (
        isinstance(pieces, list)
        and all(isinstance(p, str) for p in pieces)
        and is_int(index)
        and 0 <= index < len(pieces)
        and pieces[index].strip() == sentence.strip()
    ):
        located = locate_in_order(output, pieces)[index]
        if located is not None:
            return located
    return anchor(output, sentence)


def load_sentence_sample(path: PathLike, *, name: str = "sentence_sample") -> Benchmark:
    """Sentence-level samples in the RAGTruth-250 / ANAH-250 schema, one example per row.

    Fields: ``sentence``, ``context`` (or ``reference``), ``question``, ``output`` (the whole
    answer), ``task_type``, ``gold_supported`` (bool, 0/1 or "true"/"false"); optional
    ``answer_sentences`` + ``sentence_index`` (used to locate a repeated sentence),
    ``hallucination_type``, ``model``, ``row_id``, ``example_index``.

    ``answer`` is ``output`` when present, with the sentence's span in ``sentence_labels``
    (None if it cannot be located, counted in ``flagged["sentence_not_located"]``); without
    ``output`` the answer is the sentence itself. Ids are ``{row_id}:{sentence_index}`` when
    both are given, else ``line-{n}``.
    """
    path = Path(path)
    examples: list[EvalExample] = []
    flagged: Counter[str] = Counter()
    seen: dict[str, tuple[Path, int]] = {}
    for row in read_jsonl(path):
        sentence = row.text("sentence")
        context_field = "context" if row.has("context") else "reference"
        context = row.optional_text(context_field)
        output = row.optional_text("output")
        supported = parse_bool(row.value("gold_supported"))
        if supported is None:
            raise row.error("gold_supported", "must be true or false")
        if row.has("row_id") and row.has("sentence_index"):
            example_id = f"{row.ident('row_id')}:{row.ident('sentence_index')}"
        else:
            example_id = f"line-{row.line}"
        check_unique(row, "id", example_id, seen)
        if output:
            answer = output
            span = _sample_sentence_span(row, output, sentence)
            if span is None:
                flagged["sentence_not_located"] += 1
        else:
            answer, span = sentence, Span(0, len(sentence))
        metadata: dict[str, Any] = {
            key: row.data[key]
            for key in (
                "task_type",
                "hallucination_type",
                "model",
                "row_id",
                "example_index",
                "sentence_index",
            )
            if row.has(key)
        }
        examples.append(
            EvalExample(
                id=example_id,
                question=row.optional_text("question") or None,
                context=context_or_missing(context, metadata, flagged),
                answer=answer,
                sentence_labels=[SentenceGold(span, sentence, not supported)],
                example_label=not supported,
                metadata=metadata,
            )
        )
    return Benchmark(name, "sentence", examples, flagged=dict(flagged), source=str(path))
