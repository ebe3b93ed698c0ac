"""Facts as CaRB OpenIE tuples, to score an extractor with
:func:`enoki_hd.eval.metrics.carb_score`."""

from __future__ import annotations

from collections.abc import Iterable

from enoki_hd.extract.base import Extractor
from enoki_hd.types import Fact, Span

CarbTuple = tuple[str, str, str, float | None]


def widest_facts(facts: list[Fact]) -> list[Fact]:
    """The facts no other fact refines: the widest fact of each incremental chain."""
    parents = {f.parent for f in facts if f.parent is not None}
    return [f for f in facts if f.id not in parents]


def carb_tuples(facts: list[Fact], *, collapse_chains: bool = False) -> list[CarbTuple]:
    """``(arg1, relation, args, confidence)`` per fact; with ``collapse_chains`` only the
    widest fact of each chain (:func:`widest_facts`)."""
    kept = widest_facts(facts) if collapse_chains else facts
    return [(f.subject, f.relation, f.object, f.confidence) for f in kept]


def carb_predictions(
    extractor: Extractor, sentences: Iterable[str], *, collapse_chains: bool = False
) -> dict[str, list[CarbTuple]]:
    """Run ``extractor`` on each CaRB sentence (one sentence each, not re-segmented) and key
    its tuples by the sentence text, as :func:`~enoki_hd.eval.metrics.carb_score` expects."""
    predictions: dict[str, list[CarbTuple]] = {}
    for sentence in sentences:
        facts = extractor.extract(sentence, sentences=[Span(0, len(sentence))])
        predictions[sentence] = carb_tuples(facts, collapse_chains=collapse_chains)
    return predictions
