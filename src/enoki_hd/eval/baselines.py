"""Reference methods that every evaluation table carries next to the detector.

- ``mark_all``: the whole answer (stripped of surrounding whitespace) is one hallucinated span;
- ``mark_none``: nothing is hallucinated;
- ``lexical_absent``: the answer's content words that occur neither in the context nor in the
  question, neighbours within a sentence merged (:func:`lexical_absent_spans`);
- ``lexical_phrases``: the same words, neighbours within a sentence also joined across words
  that hold a phrase together ("of", "and", "to", …; :func:`~enoki_hd.text.joins_phrase`), by
  the rule the detector's span projection uses — the baseline that rule must beat.

The decomposition-free ``sentence_nli`` baseline needs the verifier and is a sentence-level
:class:`~enoki_hd.detector.Detector`; the runner builds it (``enoki_hd.eval.runner``).

Every span here is a half-open ``[start, end)`` character offset pair into the ANSWER.
"""

from __future__ import annotations

import bisect
import logging
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from enoki_hd.text import (
    STOP_WORDS,
    joins_phrase,
    normalize_term,
    segment_sentences,
    strip_span,
    tokenize_words,
)
from enoki_hd.types import Span

logger = logging.getLogger(__name__)

SentenceBackend = Literal["spacy", "regex"]

_WORD_CHAR_RE = re.compile(r"\w")
_HYPHENS_RE = re.compile(r"[-‐‑]")


def is_word(token: str) -> bool:
    """A word token has at least one word character; the rest is punctuation or symbols."""
    return _WORD_CHAR_RE.search(token) is not None


def vocabulary(*texts: str | None) -> frozenset[str]:
    """The normalized words of ``texts`` (None entries are skipped)."""
    words: set[str] = set()
    for text in texts:
        if text:
            words.update(normalize_term(s.text(text)) for s in tokenize_words(text))
    return frozenset(words)


def is_content_word(token: str) -> bool:
    """A word that is not a stop word; numbers and number words are content words."""
    return is_word(token) and normalize_term(token) not in STOP_WORDS


def is_absent(token: str, vocab: frozenset[str]) -> bool:
    """``token`` occurs nowhere in ``vocab`` (case-insensitive, whole words). A hyphenated word
    counts as present when the whole word, or each of its parts, occurs."""
    word = normalize_term(token)
    if word in vocab:
        return False
    parts = [p for p in _HYPHENS_RE.split(word) if p]
    return not (len(parts) > 1 and all(p in vocab for p in parts))


def _sentence_of(starts: list[int], offset: int) -> int:
    return bisect.bisect_right(starts, offset) - 1


def _merge_flagged(
    answer: str, tokens: list[Span], flagged: list[bool], sentences: list[Span]
) -> list[Span]:
    starts = [s.start for s in sentences] or [0]
    spans: list[Span] = []
    open_span: Span | None = None
    open_sentence = -1
    for token, flag in zip(tokens, flagged, strict=True):
        if not is_word(token.text(answer)):
            continue  # punctuation neither flags nor separates
        if flag:
            sentence = _sentence_of(starts, token.start)
            if open_span is not None and sentence == open_sentence:
                open_span = Span(open_span.start, token.end)
                continue
            if open_span is not None:
                spans.append(open_span)
            open_span, open_sentence = token, sentence
        elif open_span is not None:
            spans.append(open_span)
            open_span = None
    if open_span is not None:
        spans.append(open_span)
    return spans


@dataclass
class LexicalAbsence:
    """What :func:`lexical_absence` found in one answer (offsets into the answer).

    ``spans``: merged spans of absent content words; ``sentences``: the answer's sentence
    spans; ``sentence_scores``: per sentence, the share of its content words that are absent
    (0.0 for a sentence without content words); ``sentence_flags``: per sentence, whether it
    holds an absent content word; ``score``: the share over the whole answer.
    """

    spans: list[Span]
    sentences: list[Span]
    sentence_scores: list[float]
    sentence_flags: list[bool]
    score: float


def lexical_absence(
    answer: str,
    context: str,
    question: str | None = None,
    *,
    sentence_backend: SentenceBackend = "spacy",
) -> LexicalAbsence:
    """The ``lexical_absent`` baseline on one answer.

    Words are :func:`~enoki_hd.text.tokenize_words` tokens compared with
    :func:`~enoki_hd.text.normalize_term` (case-insensitive, whole words; see
    :func:`is_absent`) against the words of ``context`` and ``question``. Stop words
    (:data:`~enoki_hd.text.STOP_WORDS`, shared with the grounding check) are never flagged;
    numbers are. Two flagged words merge into one span when they lie in the same sentence and
    only punctuation or whitespace separates them, so ``"in Lyon, France"`` with both names
    absent gives the one span ``"Lyon, France"``.
    """
    vocab = vocabulary(context, question)
    sentences = segment_sentences(answer, backend=sentence_backend)
    tokens = tokenize_words(answer)
    content = [is_content_word(t.text(answer)) for t in tokens]
    flagged = [c and is_absent(t.text(answer), vocab) for t, c in zip(tokens, content, strict=True)]
    counts = [[0, 0] for _ in sentences]
    starts = [s.start for s in sentences]
    for token, is_content, flag in zip(tokens, content, flagged, strict=True):
        if is_content and sentences:
            i = max(_sentence_of(starts, token.start), 0)
            counts[i][0] += int(flag)
            counts[i][1] += 1
    return LexicalAbsence(
        spans=_merge_flagged(answer, tokens, flagged, sentences),
        sentences=sentences,
        sentence_scores=[a / n if n else 0.0 for a, n in counts],
        sentence_flags=[a > 0 for a, _ in counts],
        score=sum(flagged) / sum(content) if any(content) else 0.0,
    )


def lexical_absent_spans(
    answer: str,
    context: str,
    question: str | None = None,
    *,
    sentence_backend: SentenceBackend = "spacy",
) -> list[Span]:
    """Spans of the answer's content words that occur neither in ``context`` nor ``question``,
    neighbours within a sentence merged (see :func:`lexical_absence`). Sorted, disjoint."""
    return lexical_absence(answer, context, question, sentence_backend=sentence_backend).spans


def join_phrases(answer: str, spans: list[Span], sentences: list[Span]) -> list[Span]:
    """``spans`` (sorted, disjoint) with neighbours of one sentence joined when the text between
    them reads as part of one phrase (:func:`~enoki_hd.text.joins_phrase`)."""
    starts = [s.start for s in sentences] or [0]
    joined: list[Span] = []
    for span in spans:
        if (
            joined
            and _sentence_of(starts, joined[-1].start) == _sentence_of(starts, span.start)
            and joins_phrase(answer[joined[-1].end : span.start])
        ):
            joined[-1] = Span(joined[-1].start, span.end)
        else:
            joined.append(span)
    return joined


def mark_all_spans(answer: str) -> list[Span]:
    """The whole answer without surrounding whitespace; nothing for a blank answer."""
    span = strip_span(answer, Span(0, len(answer)))
    return [span] if len(span) else []


def mark_none_spans(answer: str) -> list[Span]:
    """No span at all."""
    del answer
    return []


# ---------------------------------------------------------------------------------------------
# The prediction record every evaluated method returns
# ---------------------------------------------------------------------------------------------


def sentence_row(
    index: int, span: Span, score: float, label: str, evidence: Span | None = None
) -> dict[str, Any]:
    """One sentence verdict of a prediction: offsets into the answer, score, label."""
    row: dict[str, Any] = {
        "index": index,
        "start": span.start,
        "end": span.end,
        "score": float(score),
        "label": label,
    }
    if evidence is not None:
        row["evidence"] = {"start": evidence.start, "end": evidence.end}
    return row


def make_prediction(
    answer: str,
    *,
    level: str,
    spans: Iterable[tuple[Span, float]],
    sentences: Sequence[Mapping[str, Any]],
    facts: Sequence[Mapping[str, Any]] = (),
    status: str = "ok",
) -> dict[str, Any]:
    """The JSON record of one method on one answer, with a fixed key order so that runs diff.

    - ``level``: what the spans are made of (``sentence``: flagged sentences, ``fact``: fact
      projections, ``word``, ``answer``, ``none``);
    - ``hallucinated``: any span, or any sentence whose label is not ``supported``;
    - ``score``: the answer's hallucination score: the highest sentence score, else the highest
      ``score`` (``hall_prob`` if absent) of an unsuppressed fact, else the highest span
      score, else 0.0;
    - ``spans``: ``{start, end, text, score}`` sorted by offset; ``sentences``: see
      :func:`sentence_row`; ``facts``: fact verdict rows as the detector gives them.
    """
    span_rows = [
        {"start": s.start, "end": s.end, "text": s.text(answer), "score": float(score)}
        for s, score in sorted(spans, key=lambda item: (item[0].start, item[0].end))
    ]
    sentence_rows = [dict(row) for row in sentences]
    fact_rows = [dict(row) for row in facts]
    candidates = [row["score"] for row in sentence_rows]
    if not candidates:
        candidates = [
            row.get("score", row.get("hall_prob", 0.0))
            for row in fact_rows
            if not row.get("suppressed")
        ]
    if not candidates:
        candidates = [row["score"] for row in span_rows]
    return {
        "status": status,
        "level": level,
        "hallucinated": bool(span_rows)
        or any(row["label"] not in ("supported", "not_a_claim") for row in sentence_rows),
        "score": float(max(candidates, default=0.0)),
        "spans": span_rows,
        "sentences": sentence_rows,
        "facts": fact_rows,
    }


# ---------------------------------------------------------------------------------------------
# Baseline methods
# ---------------------------------------------------------------------------------------------


class Baseline:
    """A verifier-free method: ``predict(answer=, context=, question=)`` → prediction record.

    ``sentence_backend`` segments the answer for the sentence verdicts (use the detector's, so
    that sentence-level scores line up).
    """

    name = "baseline"
    uses_verifier = False

    def __init__(self, *, sentence_backend: SentenceBackend = "spacy") -> None:
        self.sentence_backend = sentence_backend

    def config(self) -> dict[str, Any]:
        return {"method": self.name, "sentence_backend": self.sentence_backend}

    def _sentences(self, answer: str) -> list[Span]:
        return segment_sentences(answer, backend=self.sentence_backend) if answer.strip() else []

    def predict(self, *, answer: str, context: str, question: str | None = None) -> dict[str, Any]:
        raise NotImplementedError


class MarkAll(Baseline):
    """Everything is hallucinated: one span over the whole (stripped) answer, score 1.0."""

    name = "mark_all"

    def predict(self, *, answer: str, context: str, question: str | None = None) -> dict[str, Any]:
        sentences = [
            sentence_row(i, s, 1.0, "unverifiable") for i, s in enumerate(self._sentences(answer))
        ]
        spans = [(s, 1.0) for s in mark_all_spans(answer)]
        return make_prediction(answer, level="answer", spans=spans, sentences=sentences)


class MarkNone(Baseline):
    """Nothing is hallucinated: no span, every sentence supported with score 0.0."""

    name = "mark_none"

    def predict(self, *, answer: str, context: str, question: str | None = None) -> dict[str, Any]:
        sentences = [
            sentence_row(i, s, 0.0, "supported") for i, s in enumerate(self._sentences(answer))
        ]
        return make_prediction(answer, level="none", spans=[], sentences=sentences)


class LexicalAbsent(Baseline):
    """Content words absent from context and question (:func:`lexical_absence`).

    Spans score 1.0; a sentence scores the share of its content words that are absent and is
    ``unverifiable`` when it holds any absent word.
    """

    name = "lexical_absent"

    def predict(self, *, answer: str, context: str, question: str | None = None) -> dict[str, Any]:
        found = lexical_absence(answer, context, question, sentence_backend=self.sentence_backend)
        sentences = [
            sentence_row(i, span, score, "unverifiable" if flag else "supported")
            for i, (span, score, flag) in enumerate(
                zip(found.sentences, found.sentence_scores, found.sentence_flags, strict=True)
            )
        ]
        spans = [(s, 1.0) for s in found.spans]
        return make_prediction(answer, level="word", spans=spans, sentences=sentences)


class LexicalPhrases(LexicalAbsent):
    """:class:`LexicalAbsent` with its spans joined across phrase words (:func:`join_phrases`):
    the word-overlap reference for the detector's phrase-joined spans. Sentence scores and
    labels are :class:`LexicalAbsent`'s."""

    name = "lexical_phrases"

    def predict(self, *, answer: str, context: str, question: str | None = None) -> dict[str, Any]:
        prediction = super().predict(answer=answer, context=context, question=question)
        spans = [Span(row["start"], row["end"]) for row in prediction["spans"]]
        sentences = [Span(row["start"], row["end"]) for row in prediction["sentences"]]
        joined = join_phrases(answer, spans, sentences)
        return make_prediction(
            answer,
            level="word",
            spans=[(s, 1.0) for s in joined],
            sentences=prediction["sentences"],
        )


BASELINES: dict[str, type[Baseline]] = {
    MarkAll.name: MarkAll,
    MarkNone.name: MarkNone,
    LexicalAbsent.name: LexicalAbsent,
    LexicalPhrases.name: LexicalPhrases,
}
