"""Span projection: from unsupported facts to merged hallucinated character spans.

All spans are half-open ``[start, end)`` character offsets into the ORIGINAL answer.

Rules (Enoki's projection, with incremental chains):

- a fact is *unsupported* when ``verdict.label != "supported"`` and its hallucination score
  ``verdict.score >= threshold`` (``score`` is the final score after the verifier's signals
  are combined; it equals ``hall_prob`` when NLI alone decides, and differs when, say, the
  grounding check found a contradiction NLI missed);
- an unsupported refinement whose parent (transitively) is unsupported too is *suppressed*:
  the coarser failure is the cause, so NLI does not blame it; only the words it adds that have
  no trace anywhere in the context (``verdict.blamed``, from the grounding check) still count,
  since that evidence does not depend on the parent;
- a **value conflict** (``decided_by="value_conflict"``: the fact's number or date differs
  from one of the same kind in its evidence; or ``hours_conflict``, ``attribute_conflict``,
  ``attribute_unknown``: a table's hours or a listing's value read against the fact's)
  explains the failure of its ancestors that are
  ``unverifiable`` without a decisive verifier verdict (not-entailed below
  :data:`~enoki_hd.verify.judge.NLI_DECISIVE`: they failed on lexical absence or an undecided
  verifier): those were checked against the very evidence that states the rival value, so
  their missing words are more likely paraphrase ("concert" for "tour") than invention. Such an ancestor is
  *explained*: suppressed by the conflict (``suppressed_by``) instead of suppressing it, and
  not blamed at all — the conflict is. An ancestor that failed on a name found nowhere in the
  context (``decided_by="absent_name"``) is never explained: a name is not a paraphrase;
- an unsupported fact with a parent blames its ``delta`` only — the spans it adds;
- a fact with no parent, or with an empty ``delta``, blames its object spans, else its
  relation spans, else its subject spans;
- when the verifier narrowed the blame (``verdict.blamed``: the words of those spans that have
  no trace in the context), only those spans are blamed (a denial the verifier contradicts
  is not narrowed: "there | was | no British commander named "Robertson"" blames its object
  whole, its polarity being what may be wrong);
- blamed spans are trimmed of surrounding whitespace and punctuation (a bracket or quote
  stays when its partner is inside the span), then spans of
  all facts are merged when they overlap or only whitespace separates them. A merged span
  carries the highest ``score`` of its facts, their ids, and the label ``contradicted``
  when any of them is contradicted, else ``unverifiable``;
- finally (:func:`finish_spans`, given the answer's sentences) a span that touches a date
  of the answer grows to the whole date ("17" of "17 March 2015" blamed by a refinement of a
  date chain blames "17 March 2015": a date is right or wrong as a whole), and one that
  touches a name the answer gives that the context lacks grows to the whole name
  ("Spaniard" of "also known as Thomas the Spaniard" blames "Thomas the Spaniard";
  :mod:`enoki_hd.verify.aliases`), and two spans of
  one sentence that only punctuation and whitespace separate become one, by the same rule:
  "in Riga, Latvia" with both names blamed gives the one span "Riga, Latvia", as the
  lexical-absent baseline merges its words; so do two of one label that only words holding
  a phrase together separate (:data:`~enoki_hd.text.PHRASE_GLUE`: "of", "and", "the", "to", …, with
  no line break or sentence punctuation): "tropical regions", "Asia" and "Southeast Asia"
  of "the tropical regions of Asia and Southeast Asia" give one span, as annotators mark a
  wrong phrase whole.
"""

from __future__ import annotations

import bisect
import logging
import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from enoki_hd.text import joins_phrase, merge_spans
from enoki_hd.types import Fact, FactVerdict, HallucinatedSpan, SentenceVerdict, Span

if TYPE_CHECKING:
    from enoki_hd.verify.grounding import GroundingIndex

logger = logging.getLogger(__name__)

_EDGE_PUNCTUATION = ",;:!?.…"
_CLOSERS = {")": "(", "]": "[", "}": "{", "”": "“", "’": "‘", "»": "«"}
_SYMMETRIC_QUOTES = "\"'"
_ID_NUMBERS_RE = re.compile(r"(\d+)")
_WORD_CHAR_RE = re.compile(r"\w")


def _check_threshold(threshold: float) -> None:
    if not 0.0 <= threshold <= 1.0:
        raise ValueError(f"threshold must be a probability in [0, 1], got {threshold}")


def is_unsupported(verdict: FactVerdict, threshold: float = 0.5) -> bool:
    """Whether the verdict blames its fact: not ``supported`` and ``score >= threshold``."""
    return verdict.label != "supported" and _score(verdict) >= threshold


def _score(verdict: FactVerdict) -> float:
    return verdict.hall_prob if verdict.score is None else verdict.score


# deciders that read a value the context states against the fact's: a number or date
# (grounding), a table's opening hours (verify/hours.py), a listing's yes or no or its unknown
# (verify/attributes.py)
_VALUE_DECIDERS = frozenset(
    {"value_conflict", "hours_conflict", "attribute_conflict", "attribute_unknown"}
)


def is_value_conflict(verdict: FactVerdict) -> bool:
    """Whether the fact's value was read against one the context states and found wrong: a
    number or date contradicted by a rival of the same kind in its evidence, opening hours
    another day's in the context's table, a listing's yes or no said the other way or an
    attribute the listing leaves unknown ("The ambiance is classy, with trendy elements":
    the refinement's "trendy" against ``'trendy': False`` explains why "ambiance | is classy
    with | elements" failed on "elements")."""
    return verdict.decided_by in _VALUE_DECIDERS


def _nli_decisive(verdict: FactVerdict) -> bool:
    from enoki_hd.verify.judge import NLI_DECISIVE

    return verdict.hall_prob >= NLI_DECISIVE


def explained_failures(verdicts: list[FactVerdict], threshold: float = 0.5) -> dict[str, str]:
    """``{ancestor id: conflict id}``: the unsupported ``unverifiable`` ancestors that the
    verifier did not reject decisively (not-entailed below
    :data:`~enoki_hd.verify.judge.NLI_DECISIVE`) and that hold no absent name
    (``decided_by != "absent_name"``) of each unsupported value conflict
    (:func:`is_value_conflict`) — the nearest conflict below wins."""
    by_id = {v.fact.id: v for v in verdicts}
    facts = {v.fact.id: v.fact for v in verdicts}
    failed = {v.fact.id for v in verdicts if is_unsupported(v, threshold)}
    explained: dict[str, str] = {}
    for verdict in verdicts:
        if verdict.fact.id not in failed or not is_value_conflict(verdict):
            continue
        for ancestor in _ancestors(verdict.fact, facts):
            other = by_id[ancestor]
            if (
                ancestor in failed
                and other.label == "unverifiable"
                and other.decided_by != "absent_name"
                and not _nli_decisive(other)
            ):
                explained.setdefault(ancestor, verdict.fact.id)
    return explained


def mark_suppressed(verdicts: list[FactVerdict], threshold: float = 0.5) -> list[FactVerdict]:
    """Set ``suppressed`` and ``suppressed_by`` on every verdict, in place; return the list.

    First, every failure a value conflict explains (:func:`explained_failures`) is suppressed
    by that conflict. Then every other unsupported verdict is suppressed by its
    nearest unsupported ancestor (parent, its parent, ...) that was not suppressed that way.
    Parents missing from ``verdicts`` end the walk up the chain.
    """
    _check_threshold(threshold)
    facts = {v.fact.id: v.fact for v in verdicts}
    failed = {v.fact.id for v in verdicts if is_unsupported(v, threshold)}
    explained = explained_failures(verdicts, threshold)
    for verdict in verdicts:
        fact_id = verdict.fact.id
        by = explained.get(fact_id)
        if by is None and fact_id in failed:
            blocking = (a for a in _ancestors(verdict.fact, facts) if a in failed)
            by = next((a for a in blocking if a not in explained), None)
        verdict.suppressed_by = by
        verdict.suppressed = by is not None
    return verdicts


def _ancestors(fact: Fact, facts: dict[str, Fact]) -> Iterator[str]:
    """Ids of ``fact``'s parent, its parent, ... among ``facts`` (nearest first)."""
    seen = {fact.id}
    parent = fact.parent
    while parent is not None and parent not in seen and parent in facts:
        yield parent
        seen.add(parent)
        parent = facts[parent].parent


def blamed_spans(fact: Fact) -> list[Span]:
    """The spans an unsupported ``fact`` blames (untrimmed): its delta when it refines a
    parent, else its object, else its relation, else its subject spans."""
    if fact.parent is not None and fact.delta:
        return list(fact.delta)
    for spans in (fact.object_spans, fact.relation_spans, fact.subject_spans):
        if spans:
            return list(spans)
    return []


def _is_trailing_junk(last: str, inside: str) -> bool:
    if last.isspace() or last in _EDGE_PUNCTUATION:
        return True
    if last in _CLOSERS:
        return _CLOSERS[last] not in inside
    return last in _SYMMETRIC_QUOTES and inside.count(last) % 2 == 0


def trim_span(answer: str, span: Span) -> Span:
    """``span`` without surrounding whitespace and ``,;:!?.…``, nor a trailing closing bracket
    or quote that has no opener inside the span. Opening brackets and quotes at the start
    stay. May become empty."""
    start, end = span.start, span.end
    while start < end and (answer[start].isspace() or answer[start] in _EDGE_PUNCTUATION):
        start += 1
    while end > start and _is_trailing_junk(answer[end - 1], answer[start : end - 1]):
        end -= 1
    return Span(start, end)


def _id_key(fact_id: str) -> list[object]:
    """Natural sort key: ``f0.2`` before ``f0.10``."""
    return [int(p) if p.isdigit() else p for p in _ID_NUMBERS_RE.split(fact_id)]


def project_spans(
    answer: str, verdicts: list[FactVerdict], *, threshold: float = 0.5
) -> list[HallucinatedSpan]:
    """Merged hallucinated spans of ``answer`` from fact verdicts (rules in the module docstring).

    Sets ``suppressed`` on every verdict (:func:`mark_suppressed`). Returns spans sorted by
    start, each with ``text == answer[start:end]``, the max ``score`` of its facts, the contributing fact ids in natural order (``f0.2`` before ``f0.10``) and its
    label. Raises ``ValueError`` for a fact span outside the answer or a threshold outside
    [0, 1].
    """
    if not isinstance(answer, str):
        raise TypeError(f"answer must be str, got {type(answer).__name__}")
    mark_suppressed(verdicts, threshold)
    explained = explained_failures(verdicts, threshold)
    parts: list[_Part] = []
    for verdict in verdicts:
        if (verdict.suppressed and not verdict.blamed) or not is_unsupported(verdict, threshold):
            continue
        if verdict.fact.id in explained:
            continue
        for span in verdict.blamed or blamed_spans(verdict.fact):
            if span.end > len(answer):
                raise ValueError(
                    f"fact {verdict.fact.id} has span {span.start}:{span.end} outside the answer "
                    f"of length {len(answer)}"
                )
            parts.append((span, _score(verdict), verdict.label, [verdict.fact.id]))
    return _merge_parts(answer, parts)


def merge_hallucinated(
    answer: str,
    spans: list[HallucinatedSpan],
    extra: Iterable[tuple[Span, float, str]],
) -> list[HallucinatedSpan]:
    """``spans`` plus ``extra`` ``(span, score, label)`` spans that no fact blamed, trimmed and
    merged by the same rule as :func:`project_spans` (max score, union of fact ids,
    ``contradicted`` when any part is)."""
    parts: list[_Part] = [(Span(s.start, s.end), s.score, s.label, list(s.facts)) for s in spans]
    parts.extend((span, score, label, []) for span, score, label in extra)
    return _merge_parts(answer, parts)


# (span, score, label, fact ids) of one blamed piece before merging
_Part = tuple[Span, float, str, list[str]]


def _merge_parts(answer: str, parts: list[_Part]) -> list[HallucinatedSpan]:
    """Trim every part, merge overlapping or whitespace-separated ones; a merged span carries
    the max score, the union of fact ids (natural order) and ``contradicted`` when any part is."""
    trimmed = [(trim_span(answer, p[0]), *p[1:]) for p in parts]
    trimmed = [p for p in trimmed if len(p[0]) > 0]
    merged = merge_spans((p[0] for p in trimmed), text=answer)
    starts = [m.start for m in merged]
    groups: list[list[_Part]] = [[] for _ in merged]
    for part in trimmed:
        groups[bisect.bisect_right(starts, part[0].start) - 1].append(part)
    return [
        HallucinatedSpan(
            start=m.start,
            end=m.end,
            text=answer[m.start : m.end],
            score=max(p[1] for p in group),
            facts=sorted({f for p in group for f in p[3]}, key=_id_key),
            label="contradicted" if any(p[2] == "contradicted" for p in group) else "unverifiable",
        )
        for m, group in zip(merged, groups, strict=True)
    ]


def finish_spans(
    answer: str,
    spans: list[HallucinatedSpan],
    sentences: list[Span],
    *,
    phrases: bool = True,
    names: Iterable[Span] = (),
) -> list[HallucinatedSpan]:
    """``spans`` (offsets into ``answer``) with each one that overlaps a date of the answer
    (:func:`~enoki_hd.verify.grounding.parse_dates`) or one of ``names`` (the names the
    answer gives that the context lacks, :func:`~enoki_hd.verify.aliases.unfound_aliases`)
    widened to the whole date or name, spans that then overlap merged by the rule of
    :func:`project_spans`, and neighbours across punctuation (and, with ``phrases``, phrase
    words) joined (:func:`join_phrase_gaps`)."""
    from enoki_hd.verify.grounding import parse_dates

    wholes = [d.span for d in parse_dates(answer)] + list(names) if spans else []
    parts: list[_Part] = []
    for s in spans:
        span = Span(s.start, s.end)
        for whole in wholes:
            if whole.start < span.end and span.start < whole.end:
                span = Span(min(span.start, whole.start), max(span.end, whole.end))
        parts.append((span, s.score, s.label, list(s.facts)))
    merged = _merge_parts(answer, parts) if wholes else spans
    return join_phrase_gaps(answer, merged, sentences, phrases=phrases)


def join_phrase_gaps(
    answer: str, spans: list[HallucinatedSpan], sentences: list[Span], *, phrases: bool = True
) -> list[HallucinatedSpan]:
    """``spans`` (sorted, disjoint, offsets into ``answer``) with every two neighbours that lie
    in the same one of ``sentences`` and read as one phrase (:func:`~enoki_hd.text.joins_phrase`:
    only punctuation and whitespace between them, or — for two spans of one label — only
    words like "of", "and", "the") joined into one span: max score, union of fact ids,
    ``contradicted`` when either is. Spans outside every sentence are never joined; without
    ``phrases``, only punctuation joins."""

    starts = [s.start for s in sentences]

    def sentence_of(offset: int) -> int | None:
        i = bisect.bisect_right(starts, offset) - 1
        return i if i >= 0 and offset < sentences[i].end else None

    def joinable(last: HallucinatedSpan, span: HallucinatedSpan) -> bool:
        sentence = sentence_of(last.start)
        return (
            last.end <= span.start
            and joins_phrase(gap := answer[last.end : span.start])
            and (not _WORD_CHAR_RE.search(gap) or (phrases and last.label == span.label))
            and sentence is not None
            and sentence == sentence_of(span.start)
        )

    joined: list[HallucinatedSpan] = []
    for span in spans:
        if joined and joinable(last := joined[-1], span):
            joined[-1] = HallucinatedSpan(
                start=last.start,
                end=span.end,
                text=answer[last.start : span.end],
                score=max(last.score, span.score),
                facts=sorted({*last.facts, *span.facts}, key=_id_key),
                label="contradicted"
                if "contradicted" in (last.label, span.label)
                else "unverifiable",
            )
        else:
            joined.append(span)
    return joined


# deciders that vouch for a fact by a restatement of a value no context writes (a period, a
# date counted from another, opening hours read from a table: "weekends", "5:00 PM"; a
# listing's yes or no: "does provide free WiFi" for 'WiFi': 'free')
_RESTATED = frozenset({"period", "relative_date", "hours", "attribute"})


def blame_sentence_words(
    answer: str,
    sentences: list[SentenceVerdict],
    spans: list[HallucinatedSpan],
    verdicts: list[FactVerdict],
    grounding: GroundingIndex,
    *,
    question: str | None = None,
) -> list[HallucinatedSpan]:
    """``spans`` plus the words of flagged sentences that have no trace in the context
    (half-open offsets into ``answer``), except the words of facts a value conflict explains.

    Extractors miss parts of sentences, and a fact the verifier let pass can still hold an
    invented word; a sentence judged ``contradicted`` or ``unverifiable`` points at all its
    context-absent words. (Leaving out the words of every supported fact was measured and
    lost recall: PsiloQA char-F1 0.619 → 0.586, MuSHROOM 0.597 → 0.568.) The words of an
    ancestor explained by a value conflict (:func:`explained_failures`) are taken as
    paraphrase and not blamed, nor are those of a fact supported by a restatement of its
    period, length or date (``decided_by`` ``period`` or ``relative_date``: "44 years" of
    "some 44 years after the reservoir was completed", which no context writes, was read as
    the year it stands for and entailed), of its opening hours (``hours``: "weekends" and
    "PM", which a table of hours never writes) or of a listing's yes or no (``attribute``); nor
    are any of a sentence without facts that a listing failed (its ``method``
    ``hours_conflict``, ``attribute_conflict``, ``attribute_unknown``): the claim the listing
    names is blamed. The added spans carry the sentence's score and label and no fact
    id, and are merged with ``spans`` by the rule of :func:`project_spans`.
    """
    from enoki_hd.verify.grounding import ground
    from enoki_hd.verify.listings import LISTED_METHODS

    explained = explained_failures(verdicts)
    covered: dict[int, list[Span]] = {}
    for verdict in verdicts:
        restated = verdict.label == "supported" and verdict.decided_by in _RESTATED
        if verdict.fact.id not in explained and not restated:
            continue
        fact = verdict.fact
        parts = fact.subject_spans + fact.relation_spans + fact.object_spans
        covered.setdefault(fact.sentence, []).extend(parts)
    extra = []
    for sentence in sentences:
        # a sentence a listing failed: the listing names what is wrong, so its other words are
        # taken as paraphrase, as a value conflict's ancestors' are
        if (
            sentence.label not in ("contradicted", "unverifiable")
            or sentence.method in LISTED_METHODS
        ):
            continue
        inside = covered.get(sentence.index, [])
        result = ground(sentence.text, "", question=question, scope=grounding)
        for span in result.missing_spans:
            start = sentence.span.start + span.start
            word = Span(start, start + len(span))
            if not any(word.overlaps(part) for part in inside):
                extra.append((word, sentence.score, sentence.label))
    return merge_hallucinated(answer, spans, extra) if extra else spans


def blame_whole_sentences(
    answer: str, sentences: list[SentenceVerdict], spans: list[HallucinatedSpan]
) -> list[HallucinatedSpan]:
    """``spans`` plus every flagged sentence that holds none of them, as one span of its own
    (:func:`trim_span`: without its final punctuation), with the sentence's score, label and
    fact ids. Each is kept apart, never merged with a neighbour: a sentence judged whole (no
    extractor, NLI alone, a sentence without facts whose words are all in the context) is
    flagged whole, and ``spans`` never says less than the sentences do."""
    added = [
        HallucinatedSpan(t.start, t.end, t.text(answer), s.score, list(s.facts), s.label)
        for s in sentences
        if s.label in ("contradicted", "unverifiable")
        and not any(h.start < s.span.end and s.span.start < h.end for h in spans)
        and (t := trim_span(answer, s.span)).end > t.start
    ]
    return sorted([*spans, *added], key=lambda h: h.start) if added else spans
