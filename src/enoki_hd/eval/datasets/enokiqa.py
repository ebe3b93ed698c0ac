"""EnokiQA: question, answer, context and optional fact-level NLI labels."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from enoki_hd.eval.datasets.rows import (
    Row,
    check_unique,
    context_or_missing,
    is_int,
    read_jsonl,
)
from enoki_hd.eval.datasets.schema import Benchmark, ClaimGold, EvalExample, PathLike
from enoki_hd.text import anchor
from enoki_hd.types import Span

# Labels that mean "the unit is supported" for sets that name NLI / support labels.
_SUPPORTED_LABELS = frozenset({"entailment", "supported", "support", "true", "factual"})
_NLI_LABELS = ("entailment", "neutral", "contradiction")


def _enokiqa_claims(
    row: Row, answer: str, flagged: Counter
) -> tuple[list[ClaimGold], list[dict[str, int] | None]] | None:
    """Fact-level labels from ``facts``: (claims, each fact's span in the answer or None)."""
    if not row.has("facts"):
        return None
    facts = row.items("facts")
    claims: list[ClaimGold] = []
    spans: list[dict[str, int] | None] = []
    for index, fact in enumerate(facts):
        if not isinstance(fact, Mapping):
            raise row.error("facts", f"item {index} must be an object")
        text = fact.get("fact")
        if text is None and all(isinstance(fact.get(k), str) for k in ("subject", "relation")):
            text = " ".join(str(fact[k]) for k in ("subject", "relation", "object") if fact.get(k))
        if not isinstance(text, str):
            raise row.error("facts", f"item {index} needs a 'fact' string or subject/relation")
        label, hall_prob = fact.get("label"), fact.get("hall_prob")
        if isinstance(label, str):
            hallucinated = label.strip().lower() not in _SUPPORTED_LABELS
        elif isinstance(hall_prob, (int, float)) and not isinstance(hall_prob, bool):
            hallucinated = hall_prob >= 0.5
            probs = [p for k in _NLI_LABELS if isinstance(p := fact.get(k), (int, float))]
            if len(probs) == len(_NLI_LABELS):
                label = _NLI_LABELS[max(range(3), key=lambda i: probs[i])]
            else:
                label = "hallucinated" if hallucinated else "supported"
        else:
            raise row.error("facts", f"item {index} needs a 'label' string or a 'hall_prob'")
        claims.append(ClaimGold(text, hallucinated, label))
        start, end = fact.get("span_start"), fact.get("span_end")
        span: Span | None = None
        if is_int(start) and is_int(end):
            if not 0 <= start <= end <= len(answer):
                raise row.error(
                    "facts", f"item {index}: span_start/span_end must lie within the answer"
                )
            span = Span(start, end)
            span_text = fact.get("span_text")
            if isinstance(span_text, str) and answer[start:end] != span_text:
                span = anchor(answer, span_text)
                flagged["reanchored_fact" if span else "fact_not_located"] += 1
        spans.append(span.to_dict() if span else None)
    return claims, spans


def load_enokiqa(
    path: PathLike, *, context_field: str | None = None, name: str = "enokiqa"
) -> Benchmark:
    """EnokiQA (JSON lines): ``question``, ``answer``, a context and optional ``facts``.

    The context is ``context_field`` when given, else the first of ``context``,
    ``paragraph_context``, ``full_page_context`` the row has. ``facts`` (test split) are
    fact/triple-level NLI labels: each has ``fact`` (or ``subject`` / ``relation`` /
    ``object``) and a ``label`` string (entailment / supported = not hallucinated) or a
    ``hall_prob`` (>= 0.5 = hallucinated; the raw label is then the NLI argmax when the three
    probabilities are given); they become ``claim_labels``, with their spans in the answer in
    ``metadata["fact_spans"]``. A row without ``facts`` is kept but has no label to score;
    it is counted in ``flagged["no_facts"]``. Ids are ``id`` when present, else ``line-{n}``.
    """
    path = Path(path)
    examples: list[EvalExample] = []
    flagged: Counter[str] = Counter()
    seen: dict[str, tuple[Path, int]] = {}
    for row in read_jsonl(path):
        example_id = row.ident("id") if row.has("id") else f"line-{row.line}"
        check_unique(row, "id", example_id, seen)
        answer = row.text("answer")
        if context_field is not None:
            column = context_field
        else:
            candidates = ("context", "paragraph_context", "full_page_context")
            column = next((c for c in candidates if c in row.data), "context")
        metadata: dict[str, Any] = {"context_field": column}
        for key in ("title", "answer_model", "split", "wiki_url"):
            if row.has(key):
                metadata[key] = row.data[key]
        claims = _enokiqa_claims(row, answer, flagged)
        claim_labels = None
        if claims is None:
            flagged["no_facts"] += 1
        else:
            claim_labels, metadata["fact_spans"] = claims
        examples.append(
            EvalExample(
                id=example_id,
                question=row.optional_text("question"),
                context=context_or_missing(row.optional_text(column), metadata, flagged),
                answer=answer,
                claim_labels=claim_labels,
                example_label=None
                if claim_labels is None
                else any(c.hallucinated for c in claim_labels),
                metadata=metadata,
            )
        )
    return Benchmark(name, "claim", examples, flagged=dict(flagged), source=str(path))
