"""Aggregation: sentence verdicts from fact verdicts, and the answer's summary.

Sentence verdicts (:func:`sentence_verdicts`):

- a sentence the extractor cannot read as English is ``unsupported_language`` (not checked);
- a sentence the selection stage (:mod:`enoki_hd.select`) finds states no checkable fact is
  ``not_a_claim`` with its reason (not checked, score 0);
- a sentence with facts takes its score from them (``max`` by default; ``mean``;
  ``sentence-nli``: the sentence judged whole; ``hybrid``: the mean of ``max`` and
  ``sentence-nli``), counting only facts that are not ``suppressed``; it is ``supported``
  below the threshold, else ``contradicted`` when any counted fact is, or any fact at all has
  a value conflict (a suppressed refinement's "18,250" against the context's "16,250" is still
  a contradiction of the sentence), else ``unverifiable``;
- a sentence without facts (or every sentence, at sentence level) takes the whole-sentence NLI
  decision (method ``sentence-nli``, or ``sentence-nli-fallback`` at fact level; in
  ``hybrid`` mode the detector then fuses a fallback sentence's decision with the grounding of
  its words like a fact's, :meth:`~enoki_hd.verify.judge.FactJudge.judge_fallback`);
- then (:func:`flag_uncovered_names`, ``hybrid`` fact level) a ``supported`` sentence whose
  words outside every fact hold a number, date or name found nowhere in the context becomes
  ``unverifiable`` (method ``uncovered_name``): no verdict vouches for words the extractor
  left out.

The summary (:func:`summarize`) says whether anything was checked. ``status``:
``empty_answer``; ``unsupported_language`` (no sentence could be read); ``no_claims`` (every
readable sentence is ``not_a_claim``); ``unchecked`` (nothing else verified); ``no_context`` (an empty context: every unit unverifiable); ``no_facts``
(fact level, the extractor found none: the counts come from the sentence fallback); ``ok``.
``faithfulness`` is supported / checked units (facts when there are facts, else sentences;
``not_a_claim`` sentences are never units), None when nothing was checked; ``hallucinated`` is None then too — unknown, not "no".
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Literal

from enoki_hd.types import (
    FactLabel,
    FactVerdict,
    SentenceLabel,
    SentenceVerdict,
    Span,
    Summary,
)
from enoki_hd.verify.evidence import EvidenceDecision
from enoki_hd.verify.judge import rounded

if TYPE_CHECKING:
    from enoki_hd.verify.grounding import GroundingIndex

SentenceAggregation = Literal["max", "mean", "sentence-nli", "hybrid"]
SENTENCE_AGGREGATIONS: tuple[SentenceAggregation, ...] = ("max", "mean", "sentence-nli", "hybrid")
FACT_LABELS = ("supported", "contradicted", "unverifiable")


def label_from_score(label: FactLabel, score: float, threshold: float) -> SentenceLabel:
    """The verifier's ``label`` made consistent with ``score`` at ``threshold``: a score at or
    above the threshold is never ``supported`` (→ ``unverifiable``) and one below it always is."""
    if score < threshold:
        return "supported"
    return "unverifiable" if label == "supported" else label


def sentences_to_judge(
    n_sentences: int,
    with_facts: set[int] | None,
    unreadable: set[int],
    *,
    aggregation: SentenceAggregation,
) -> list[int]:
    """Sentences that need a whole-sentence NLI verdict: all readable ones at sentence level
    (``with_facts`` is None) or with a sentence-based aggregation, else the readable ones
    without facts (``with_facts``: indices of the sentences that have facts)."""
    readable = [i for i in range(n_sentences) if i not in unreadable]
    if with_facts is None or aggregation in ("sentence-nli", "hybrid"):
        return readable
    return [i for i in readable if i not in with_facts]


def sentence_verdicts(
    answer: str,
    spans: list[Span],
    verdicts: list[FactVerdict] | None,
    decisions: Mapping[int, EvidenceDecision],
    *,
    unreadable: set[int],
    not_claims: Mapping[int, str] | None = None,
    aggregation: SentenceAggregation = "max",
    threshold: float = 0.5,
    splits: Mapping[int, list[Span]] | None = None,
) -> list[SentenceVerdict]:
    """One verdict per sentence span (half-open offsets into ``answer``), by the rules in the
    module docstring. ``verdicts`` is None at sentence level; ``decisions`` holds the
    whole-sentence NLI decision of each sentence that was judged whole; ``splits`` the pieces
    (offsets into the sentence) of sentences judged in pieces; ``not_claims`` the reason of
    each sentence that states no checkable fact."""
    splits = splits or {}
    not_claims = not_claims or {}
    out = []
    for index, span in enumerate(spans):
        text = span.text(answer)
        if index in unreadable:
            out.append(
                SentenceVerdict(
                    index, span, text, 0.0, "unsupported_language", method="unsupported_language"
                )
            )
            continue
        if index in not_claims:
            out.append(
                SentenceVerdict(
                    index,
                    span,
                    text,
                    0.0,
                    "not_a_claim",
                    method="selection",
                    reason=not_claims[index],
                )
            )
            continue
        decision = decisions.get(index)
        # an unanchored fact is reported, but decides nothing (Fact.anchored)
        own = [v for v in verdicts or [] if v.fact.sentence == index and v.fact.anchored]
        split = [Span(span.start + p.start, span.start + p.end) for p in splits.get(index, [])]
        if not own:
            if decision is None:
                raise ValueError(f"sentence {index} has neither facts nor a sentence decision")
            method = "sentence-nli" if verdicts is None else "sentence-nli-fallback"
            score = decision.probs.hall_prob
            out.append(
                SentenceVerdict(
                    index,
                    span,
                    text,
                    round(score, 6),
                    label_from_score(decision.label, score, threshold),
                    rounded(decision.probs),
                    decision.evidence,
                    method,
                    split=split,
                )
            )
            continue
        out.append(_from_facts(index, span, text, own, decision, aggregation, threshold, split))
    return out


def _from_facts(
    index: int,
    span: Span,
    text: str,
    own: list[FactVerdict],
    decision: EvidenceDecision | None,
    aggregation: SentenceAggregation,
    threshold: float,
    split: list[Span],
) -> SentenceVerdict:
    counted = [v for v in own if not v.suppressed] or own
    scores = [v.score if v.score is not None else v.hall_prob for v in counted]
    nli_score = decision.probs.hall_prob if decision is not None else None
    if aggregation == "mean":
        score = sum(scores) / len(scores)
    elif aggregation == "sentence-nli" and nli_score is not None:
        score = nli_score
    elif aggregation == "hybrid" and nli_score is not None:
        score = (max(scores) + nli_score) / 2
    else:
        score = max(scores)
    label: SentenceLabel
    if score < threshold:
        label = "supported"
    elif any(v.label == "contradicted" for v in counted) or any(
        v.decided_by == "value_conflict" for v in own
    ):
        label = "contradicted"
    else:
        label = "unverifiable"
    worst = max(counted, key=lambda v: v.score if v.score is not None else v.hall_prob)
    return SentenceVerdict(
        index,
        span,
        text,
        round(score, 6),
        label,
        worst.probs,
        worst.evidence,
        aggregation,
        [v.fact.id for v in own],
        split=split,
    )


def flag_uncovered_names(
    sentences: list[SentenceVerdict],
    verdicts: list[FactVerdict],
    grounding: GroundingIndex,
    *,
    question: str | None = None,
) -> list[SentenceVerdict]:
    """``sentences`` with each ``supported`` one whose words outside every fact's spans hold a
    number, date or named-entity-like word found nowhere in the context nor the question made
    ``unverifiable``: method ``uncovered_name``, score ``max(score, (1 + g) / 2)`` with ``g``
    the grounding score of those words (the rule :func:`~enoki_hd.verify.judge.fuse` applies
    to a fact's own words). A sentence without facts is outside every fact as a whole. Only
    when the sentence read whole lacks a name too: blanking the facts can break a unit
    written in several words ("Three out of four", :func:`_missing_names_whole`)."""
    from enoki_hd.verify.grounding import ground

    covered: dict[int, list[Span]] = {}
    for verdict in verdicts:
        fact = verdict.fact
        parts = fact.subject_spans + fact.relation_spans + fact.object_spans
        covered.setdefault(fact.sentence, []).extend(parts)
    out = []
    for sentence in sentences:
        if sentence.label != "supported":
            out.append(sentence)
            continue
        start = sentence.span.start
        chars = list(sentence.text)
        for part in covered.get(sentence.index, []):
            for k in range(max(part.start, start), min(part.end, sentence.span.end)):
                chars[k - start] = " "
        # a capital is read where it stands in the sentence, not after the blanked facts
        result = ground(
            "".join(chars),
            "",
            question=question,
            scope=grounding,
            written=functools.partial(_at, sentence.text),
        )
        if not result.missing_names or not _missing_names_whole(sentence, grounding, question):
            out.append(sentence)
            continue
        score = round(max(sentence.score, (1 + result.score) / 2), 6)
        out.append(replace(sentence, score=score, label="unverifiable", method="uncovered_name"))
    return out


def _missing_names_whole(
    sentence: SentenceVerdict, grounding: GroundingIndex, question: str | None
) -> bool:
    """Whether ``sentence`` read whole holds a name the context lacks. Blanking the facts
    can break a unit the sentence writes in several words: "Three out of four patients",
    whose "four patients" a fact holds, leaves "Three", which no context of "75% of
    patients" writes; read whole, the ratio is found."""
    from enoki_hd.verify.grounding import ground

    whole = ground(
        sentence.text,
        "",
        question=question,
        scope=grounding,
        written=functools.partial(_at, sentence.text),
    )
    return bool(whole.missing_names)


def _at(text: str, offset: int) -> tuple[str, int]:
    return text, offset


def count_labels(labels: Iterable[str]) -> dict[str, int]:
    """Counts per label; the three fact labels are always present."""
    counts = dict.fromkeys(FACT_LABELS, 0)
    for label in labels:
        counts[label] = counts.get(label, 0) + 1
    return counts


def summarize(
    sentences: list[SentenceVerdict],
    verdicts: list[FactVerdict] | None,
    *,
    no_context: bool,
) -> Summary:
    """The answer's summary by the rules in the module docstring. ``verdicts`` is None at
    sentence level."""
    unread = sum(s.label == "unsupported_language" for s in sentences)
    not_claims = sum(s.label == "not_a_claim" for s in sentences)
    counted_facts = [v for v in verdicts or [] if not v.suppressed and v.fact.anchored]
    if counted_facts:
        counts = count_labels(v.label for v in counted_facts)
    else:
        counts = count_labels(s.label for s in sentences if s.label != "not_a_claim")
    checked = sum(counts[label] for label in FACT_LABELS)
    if not sentences:
        status = "empty_answer"
    elif checked == 0 and not_claims == len(sentences):
        status = "no_claims"
    elif checked == 0:
        status = "unsupported_language" if unread == len(sentences) else "unchecked"
    elif no_context:
        status = "no_context"
    elif verdicts is not None and not verdicts:
        status = "no_facts"
    else:
        status = "ok"
    if checked == 0:
        return Summary(
            status,
            None,
            counts,
            0,
            None,
            unchecked=len(sentences) - not_claims,
            not_a_claim=not_claims,
        )
    flagged = any(s.label in ("contradicted", "unverifiable") for s in sentences)
    return Summary(
        status=status,
        faithfulness=round(counts["supported"] / checked, 6),
        counts=counts,
        checked=checked,
        hallucinated=counts["contradicted"] + counts["unverifiable"] > 0 or flagged,
        intrinsic=counts["contradicted"],
        extrinsic=counts["unverifiable"],
        unchecked=unread,
        not_a_claim=not_claims,
    )
