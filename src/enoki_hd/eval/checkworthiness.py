"""Check-worthiness of the selection stage against gold labels (Factcheck-Bench's
``sentence_checkworthiness`` / ``claim_checkworthiness``).

Each gold unit (a sentence or a claim, :attr:`~enoki_hd.eval.datasets.schema.Benchmark.checkworthiness`)
is segmented and run through :func:`enoki_hd.select.select_claims`; the unit is predicted
*not a claim* when every one of its sentences is. Precision, recall and F1 are for the class
"not a claim", per level, with the predicted reasons counted.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from enoki_hd.select import select_claims
from enoki_hd.text import segment_sentences

__all__ = ["checkworthiness_metrics", "predict_not_a_claim"]


def predict_not_a_claim(text: str, *, backend: str = "spacy") -> tuple[bool, list[str]]:
    """Whether the selection stage finds no claim in ``text``, and the reasons it gave."""
    spans = segment_sentences(text, backend=backend)  # type: ignore[arg-type]
    selections = select_claims(text, spans)
    reasons: list[str] = [s.reason for s in selections if s.reason is not None]
    return bool(selections) and len(reasons) == len(selections), reasons


def _prf(pairs: Sequence[tuple[bool, bool]]) -> dict[str, Any]:
    tp = sum(p and g for p, g in pairs)
    fp = sum(p and not g for p, g in pairs)
    fn = sum(g and not p for p, g in pairs)
    precision = tp / (tp + fp) if tp + fp else None
    recall = tp / (tp + fn) if tp + fn else None
    f1 = 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else None
    return {
        "n": len(pairs),
        "gold_not_a_claim": tp + fn,
        "predicted_not_a_claim": tp + fp,
        "precision": precision,
        "recall": recall,
        "f1": f1,
    }


def checkworthiness_metrics(
    units: Sequence[Mapping[str, Any]], *, backend: str = "spacy"
) -> dict[str, Any]:
    """P / R / F1 of "not a claim" per level (``sentence``, ``claim``), the reasons predicted,
    and the units that disagree with the gold (``errors``: id, level, gold label, predicted,
    text), so a reader can see what the rules miss."""
    by_level: dict[str, list[tuple[bool, bool]]] = {}
    reasons: dict[str, Counter[str]] = {}
    errors = []
    for unit in units:
        predicted, why = predict_not_a_claim(str(unit["text"]), backend=backend)
        gold = bool(unit["not_a_claim"])
        level = str(unit["level"])
        by_level.setdefault(level, []).append((predicted, gold))
        reasons.setdefault(level, Counter()).update(why if predicted else [])
        if predicted != gold:
            errors.append(
                {
                    "id": unit["id"],
                    "level": level,
                    "gold": unit["label"],
                    "predicted": ",".join(why) if predicted else "claim",
                    "text": unit["text"],
                }
            )
    return {
        "levels": {
            level: {**_prf(pairs), "reasons": dict(sorted(reasons[level].items()))}
            for level, pairs in by_level.items()
        },
        "errors": errors,
    }
