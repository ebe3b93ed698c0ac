"""Sentences without facts read against a listing: opening hours and yes-or-no attributes.

The hours and attributes checks (:mod:`enoki_hd.verify.hours`,
:mod:`enoki_hd.verify.attributes`) relabel the facts that meet a claim; a sentence the
extractor gave no fact ("The ambiance is classy and casual, with upscale and trendy
elements." from the tagger) is judged whole by the verifier and its words' grounding
(``sentence-nli-fallback``), which read a listing as poorly as they do for a fact, and its
claim went unchecked. :func:`judge_listed_sentences` reads such a sentence itself: an hours
claim in it the context's table contradicts, or an attribute it says yes to that the listing
says no to (``'upscale': False``) or leaves unknown (``'Music': None``; only in a sentence
that denies nothing, see :func:`~enoki_hd.verify.attributes.sentence_attribute_conflicts`),
makes it ``contradicted`` (``unverifiable`` for an unknown attribute alone), its score at
least the contradiction floor, its ``method`` the check's name (``hours_conflict``,
``attribute_conflict``, ``attribute_unknown``), its evidence the listing's entry, and the
claim's words a span of their own. A sentence without facts is never ``supported`` by a
listing: it may say more than the listed value.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from enoki_hd.types import Evidence, FactLabel, HallucinatedSpan, SentenceVerdict, Span
from enoki_hd.verify.attributes import (
    context_attributes,
    index_attributes,
    sentence_attribute_conflicts,
)
from enoki_hd.verify.grounding import CONTRADICTED_HALL_FLOOR
from enoki_hd.verify.hours import checked_claims

FALLBACK = "sentence-nli-fallback"
# the ``method`` of a sentence a listing failed: the check that failed it
LISTED_METHODS = frozenset({"hours_conflict", "attribute_conflict", "attribute_unknown"})


def _inside(span: Span, sentence: Span) -> bool:
    return sentence.start <= span.start and span.end <= sentence.end


def judge_listed_sentences(
    sentences: Sequence[SentenceVerdict], answer: str, context: str
) -> tuple[list[SentenceVerdict], list[HallucinatedSpan]]:
    """``sentences`` with every sentence without facts whose claim the listing fails relabelled
    (see the module docstring), and the spans of the claims that failed, in answer order."""
    if not any(s.method == FALLBACK for s in sentences):
        return list(sentences), []
    hours = [(c.span, entry) for c, entry, agrees in checked_claims(answer, context) if not agrees]
    attributes = index_attributes(context_attributes(context))
    if not hours and not attributes.keys:
        return list(sentences), []
    out: list[SentenceVerdict] = []
    spans: list[HallucinatedSpan] = []
    for sentence in sentences:
        if sentence.method != FALLBACK:
            out.append(sentence)
            continue
        # (label, the check, the listing's entry, the claim's words)
        found: list[tuple[FactLabel, str, Span, Span]] = [
            ("contradicted", "hours_conflict", entry, claim)
            for claim, entry in hours
            if _inside(claim, sentence.span)
        ]
        for attribute, words in sentence_attribute_conflicts(answer, sentence.span, attributes):
            if attribute.value is None:
                found.append(("unverifiable", "attribute_unknown", attribute.span, words))
            else:
                found.append(("contradicted", "attribute_conflict", attribute.span, words))
        if not found:
            out.append(sentence)
            continue
        label, method, entry, _ = min(found, key=lambda f: f[0] != "contradicted")
        score = round(max(sentence.score, CONTRADICTED_HALL_FLOOR), 6)
        evidence = Evidence(entry.start, entry.end, entry.text(context))
        out.append(replace(sentence, label=label, score=score, method=method, evidence=evidence))
        spans += [
            HallucinatedSpan(w.start, w.end, w.text(answer), score, [], kind)
            for kind, _, _, w in found
        ]
    return out, sorted(spans, key=lambda h: h.start)
