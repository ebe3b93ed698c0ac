"""The capability suite: hand-written cases, one skill each (``data/capabilities/*.jsonl``).

Each row is ``{id, category, context, answer, label, hallucinated_span, rationale}`` with
``label`` one of ``supported`` / ``contradicted`` / ``unverifiable`` and ``hallucinated_span``
the exact substring of ``answer`` that is wrong (null when supported; it must occur exactly
once). An example carries the span as its gold span, the whole answer as one claim with the
3-way label, and the category in ``metadata``; :func:`capability_metrics` reports per
category.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from enoki_hd.eval.datasets.rows import Row, jsonl_examples
from enoki_hd.eval.datasets.schema import Benchmark, ClaimGold, EvalExample, PathLike
from enoki_hd.types import Span

CAPABILITY_LABELS = ("supported", "contradicted", "unverifiable")
# the package's data/ links to the repository's (an installed package holds a copy)
SUITE_DIR = (Path(__file__).resolve().parents[2] / "data" / "capabilities").resolve()
# the held-out suite: written blind after every rule was found, measured once, never read
# to change the detector (data/capabilities_fresh/README.md)
FRESH_DIR = SUITE_DIR.parent / "capabilities_fresh"


def _example(row: Row) -> EvalExample:
    label = row.text("label")
    if label not in CAPABILITY_LABELS:
        raise row.error("label", f"must be one of {', '.join(CAPABILITY_LABELS)}, got {label!r}")
    answer, span_text = row.text("answer"), row.optional_text("hallucinated_span")
    gold: list[Span] = []
    if label == "supported":
        if span_text is not None:
            raise row.error("hallucinated_span", "must be null when the label is supported")
    else:
        if span_text is None or not span_text.strip():
            raise row.error("hallucinated_span", f"is required when the label is {label}")
        count = answer.count(span_text)
        if count != 1:
            raise row.error(
                "hallucinated_span", f"must occur exactly once in the answer, found {count} times"
            )
        start = answer.index(span_text)
        gold = [Span(start, start + len(span_text))]
    return EvalExample(
        id=row.text("id"),
        question=None,
        context=row.text("context"),
        answer=answer,
        gold_spans=gold,
        claim_labels=[ClaimGold(answer, label != "supported", label)],
        example_label=label != "supported",
        metadata={
            "category": row.text("category"),
            "label": label,
            "rationale": row.text("rationale"),
            "file": row.path.name,
        },
    )


def load_capabilities(
    paths: PathLike | Sequence[PathLike] | None = None, *, name: str = "capabilities"
) -> Benchmark:
    """The suite's cases from ``paths`` (files or folders; default the repository's
    ``data/capabilities/``), in file then line order. Ids must be unique across files.

    Raises:
        DatasetError: a malformed row, naming the file, line and field.
        FileNotFoundError: a path does not exist or a folder holds no ``*.jsonl``.
    """
    examples, source = jsonl_examples(
        paths if paths is not None else SUITE_DIR, "capability suite", _example
    )
    return Benchmark(name, "claim", examples, source=source)


def predicted_label(prediction: Mapping[str, Any]) -> str:
    """The 3-way label a prediction record gives the whole answer: ``contradicted`` when any
    sentence is, else ``unverifiable`` when any sentence is not supported (an unchecked
    sentence included; a ``not_a_claim`` one left out), else ``supported``."""
    labels = [s["label"] for s in prediction["sentences"] if s["label"] != "not_a_claim"]
    if "contradicted" in labels:
        return "contradicted"
    if any(label != "supported" for label in labels):
        return "unverifiable"
    return "supported"


def _hits(prediction: Mapping[str, Any], gold: list[Span]) -> bool:
    spans = [Span(int(s["start"]), int(s["end"])) for s in prediction["spans"]]
    return any(p.overlaps(g) for p in spans for g in gold)


def capability_metrics(
    examples: Sequence[EvalExample], predictions: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """Per category and overall: ``n``, 3-way accuracy, binary accuracy (supported vs not),
    contradicted recall (of the cases labelled contradicted, the share predicted
    contradicted), span hit rate (of the not-supported cases, the share where a predicted span
    overlaps the gold span) and false alarms (of the supported cases, the share predicted not
    supported). A rate whose denominator is empty is None."""
    groups: dict[str, list[tuple[EvalExample, Mapping[str, Any]]]] = {}
    for example, prediction in zip(examples, predictions, strict=True):
        groups.setdefault(example.metadata["category"], []).append((example, prediction))
    pairs = list(zip(examples, predictions, strict=True))
    out = {"overall": _rates(pairs)}
    out["categories"] = {name: _rates(group) for name, group in sorted(groups.items())}
    return out


def _ratio(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


def _rates(pairs: Sequence[tuple[EvalExample, Mapping[str, Any]]]) -> dict[str, Any]:
    gold = [e.metadata["label"] for e, _ in pairs]
    predicted = [predicted_label(p) for _, p in pairs]
    contradicted = [i for i, g in enumerate(gold) if g == "contradicted"]
    flawed = [i for i, g in enumerate(gold) if g != "supported"]
    supported = [i for i, g in enumerate(gold) if g == "supported"]
    return {
        "n": len(pairs),
        "three_way_accuracy": _ratio(
            sum(p == g for p, g in zip(predicted, gold, strict=True)), len(pairs)
        ),
        "binary_accuracy": _ratio(
            sum(
                (p == "supported") == (g == "supported")
                for p, g in zip(predicted, gold, strict=True)
            ),
            len(pairs),
        ),
        "contradicted_recall": _ratio(
            sum(predicted[i] == "contradicted" for i in contradicted), len(contradicted)
        ),
        "span_hit_rate": _ratio(
            sum(_hits(pairs[i][1], pairs[i][0].gold_spans or []) for i in flawed), len(flawed)
        ),
        "false_alarms": _ratio(sum(predicted[i] != "supported" for i in supported), len(supported)),
        "labels": {label: gold.count(label) for label in CAPABILITY_LABELS},
    }
