"""HalluEntity: entity-level labels, with the contexts from a separate file."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from enoki_hd.eval.datasets.rows import (
    check_unique,
    context_or_missing,
    locate_in_order,
    parse_bool,
    read_csv,
    read_jsonl,
)
from enoki_hd.eval.datasets.schema import (
    Benchmark,
    DatasetError,
    EntityGold,
    EvalExample,
    PathLike,
)
from enoki_hd.types import Span


def _entity_spans(response: str, entities: Sequence[str]) -> list[Span | None]:
    """Entity spans: exact pieces when the entities concatenate to the response, else the
    entities located in order."""
    if "".join(entities) == response:
        spans: list[Span | None] = []
        pos = 0
        for piece in entities:
            spans.append(Span(pos, pos + len(piece)))
            pos += len(piece)
        return spans
    return locate_in_order(response, entities)


def _read_contexts(path: Path) -> tuple[list[str], dict[str, str], int]:
    """Contexts from a CSV or JSON-lines file with a ``text`` (or ``context``) column:
    (in file order, by ``id`` when the file has one, last line number)."""
    rows = list(read_csv(path, ())) if path.suffix.lower() == ".csv" else list(read_jsonl(path))
    ordered: list[str] = []
    by_id: dict[str, str] = {}
    for row in rows:
        column = "text" if "text" in row.data else "context"
        text = row.text(column)
        ordered.append(text)
        if row.data.get("id") not in (None, ""):
            by_id[row.ident("id")] = text
    return ordered, by_id, rows[-1].line if rows else 0


def load_halluentity(
    path: PathLike, contexts_path: PathLike | None = None, *, name: str = "halluentity"
) -> Benchmark:
    """HalluEntity (JSON lines): ``response``, ``entity`` (list of strings), ``entity_label``
    (parallel list), optional ``prompt`` (the question) and ``id``.

    In HalluEntity ``entity_label`` is True for a FACTUAL entity, so ``hallucinated = not
    entity_label``. Entities are located in the response (exact pieces when they concatenate
    to it, else in order); one not found gets span None and is counted in
    ``flagged["entity_not_located"]``.

    ``contexts_path`` (the Wikipedia pages, not part of the release) is a CSV or JSON-lines
    file with a ``text`` (or ``context``) column, joined on ``id`` when both files have ids,
    else aligned row by row (the counts must agree). Without it the contexts are "" and
    counted in ``flagged["missing_context"]``.
    """
    path = Path(path)
    rows = list(read_jsonl(path))
    contexts: list[str | None] = [None] * len(rows)
    if contexts_path is not None:
        contexts_path = Path(contexts_path)
        ordered, by_id, last_line = _read_contexts(contexts_path)
        if by_id and all(row.has("id") for row in rows):
            for i, row in enumerate(rows):
                contexts[i] = by_id.get(row.ident("id"))
        elif len(ordered) != len(rows):
            raise DatasetError(
                contexts_path,
                last_line,
                "text",
                f"gives {len(ordered)} contexts for the {len(rows)} rows of {path}",
            )
        else:
            contexts = list(ordered)

    examples: list[EvalExample] = []
    flagged: Counter[str] = Counter()
    seen: dict[str, tuple[Path, int]] = {}
    for index, row in enumerate(rows):
        example_id = row.ident("id") if row.has("id") else str(index)
        check_unique(row, "id", example_id, seen)
        response = row.text("response")
        entities = row.items("entity")
        labels = row.items("entity_label")
        if not all(isinstance(e, str) for e in entities):
            raise row.error("entity", "must be a list of strings")
        if len(labels) != len(entities):
            raise row.error(
                "entity_label",
                f"must have one label per entity ({len(entities)}), got {len(labels)}",
            )
        factual = [parse_bool(x) for x in labels]
        if any(x is None for x in factual):
            raise row.error("entity_label", "must be a list of true / false values")
        spans = _entity_spans(response, entities)
        not_located = sum(s is None for s in spans)
        if not_located:
            flagged["entity_not_located"] += not_located
        entity_labels = [
            EntityGold(span, text, not ok)
            for span, text, ok in zip(spans, entities, factual, strict=True)
        ]
        metadata: dict[str, Any] = {}
        examples.append(
            EvalExample(
                id=example_id,
                question=row.optional_text("prompt"),
                context=context_or_missing(contexts[index], metadata, flagged),
                answer=response,
                entity_labels=entity_labels,
                example_label=any(e.hallucinated for e in entity_labels),
                metadata=metadata,
            )
        )
    source = str(path) + (f", {contexts_path}" if contexts_path else "")
    return Benchmark(name, "entity", examples, flagged=dict(flagged), source=source)
