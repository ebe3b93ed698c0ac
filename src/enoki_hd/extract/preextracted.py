"""Facts the caller already has: (subject, relation, object) triples anchored to the answer.

Users with their own triples (from an LLM, an OpenIE system or annotators) plug them in as
dicts ``{"subject", "relation", "object"}`` per answer; optional keys ``negated``,
``modality`` and ``confidence`` are carried over. Each part is anchored with
:func:`enoki_hd.text.anchor` (exact, then whitespace/quote/dash tolerant, then
case-insensitive; an ambiguous phrase is never guessed).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from enoki_hd.extract import register
from enoki_hd.text import anchor, segment_sentences
from enoki_hd.types import Fact, Span

logger = logging.getLogger(__name__)

Triple = Mapping[str, Any]
_PARTS = ("subject", "relation", "object")


def _validate(triple: Triple, position: int) -> tuple[str, str, str]:
    if not isinstance(triple, Mapping):
        raise TypeError(
            f"triple {position} must be a dict with 'subject', 'relation' and 'object', "
            f"got {type(triple).__name__}"
        )
    missing = [p for p in _PARTS if not isinstance(triple.get(p), str)]
    if missing:
        raise ValueError(
            f"triple {position} needs string values for {', '.join(missing)}; got {dict(triple)!r}"
        )
    subject, relation, obj = (triple[p] for p in _PARTS)
    if not subject.strip():
        raise ValueError(f"triple {position} has an empty subject: {dict(triple)!r}")
    return subject, relation, obj


def _find(answer: str, phrase: str, window: Span | None) -> Span | None:
    return anchor(answer, phrase, window) if phrase.strip() else None


def _anchor_triple(
    answer: str, parts: tuple[str, str, str], sentences: list[Span]
) -> tuple[int, list[list[Span]]] | None:
    """(sentence index, [subject, relation, object] spans), or None when not anchored.

    Subject and a non-empty object must each anchor uniquely — inside exactly one sentence
    that holds both, else in the whole answer. The relation is anchored in that sentence when
    it occurs there once; otherwise it is kept as text with no span (``is`` of an appositive).
    """
    subject, relation, obj = parts
    matches: list[tuple[int, Span, Span | None]] = []
    for index, window in enumerate(sentences):
        s = _find(answer, subject, window)
        o = _find(answer, obj, window)
        if s is not None and (o is not None or not obj.strip()):
            matches.append((index, s, o))
    if len(matches) > 1:
        return None
    if matches:
        index, s, o = matches[0]
    else:
        s, o = _find(answer, subject, None), _find(answer, obj, None)
        if s is None or (o is None and obj.strip()):
            return None
        where = o or s
        index = next((i for i, w in enumerate(sentences) if w.start <= where.start < w.end), -1)
        if index < 0:
            return None
    r = _find(answer, relation, sentences[index])
    if r is not None and (r.overlaps(s) or (o is not None and r.overlaps(o))):
        r = None
    return index, [[s], [] if r is None else [r], [] if o is None else [o]]


def _fallback_sentence(answer: str, parts: tuple[str, str, str], sentences: list[Span]) -> int:
    """The first sentence whose text contains the object (else the subject), case-insensitive;
    0 when none does. Only used to file an unanchored fact under some sentence."""
    for phrase in (parts[2], parts[0]):
        needle = " ".join(phrase.split()).lower()
        if not needle:
            continue
        for index, window in enumerate(sentences):
            if needle in " ".join(answer[window.start : window.end].split()).lower():
                return index
    return 0


@register("preextracted")
class PreextractedExtractor:
    """Anchors caller-supplied triples to the answer instead of extracting facts.

    Args:
        facts: triples per answer text, ``{answer: [{"subject", "relation", "object"}, ...]}``.
            More can be added with :meth:`add`, or passed straight to :meth:`extract`.

    A triple whose subject or object cannot be anchored uniquely (absent, or ambiguous: it
    occurs more than once and no single sentence holds both) is kept with empty spans,
    ``source="preextracted:unanchored"`` and the first sentence mentioning it (0 if none), so
    it is still verified but blames no characters. Anchored facts have
    ``source="preextracted"``; their ``delta`` is their object spans (else relation, else
    subject): what they assert. Ids are ``f{sentence}.{k}`` in input order. Spans are
    half-open character offsets into the ORIGINAL answer.
    """

    name = "preextracted"

    def __init__(self, facts: Mapping[str, Sequence[Triple]] | None = None) -> None:
        self._facts: dict[str, list[Triple]] = {}
        for answer, triples in (facts or {}).items():
            self.add(answer, triples)

    def add(self, answer: str, triples: Sequence[Triple]) -> None:
        """Register the triples of ``answer`` (replacing earlier ones for the same text)."""
        for position, triple in enumerate(triples):
            _validate(triple, position)
        self._facts[answer] = list(triples)

    def config(self) -> dict[str, Any]:
        """The backend's name (the triples are data, given per answer, not options)."""
        return {"name": self.name}

    def unparseable_sentences(self, answer: str, sentences: list[Span] | None = None) -> set[int]:
        """Sentences with no parseable English (see :mod:`enoki_hd.extract.rules.language`):
        the caller's triples say nothing about whether the verifier can read the answer."""
        from enoki_hd.extract.rules.language import unparseable_sentences

        if sentences is None:
            sentences = segment_sentences(answer)
        return unparseable_sentences(answer, sentences)

    def extract(
        self,
        answer: str,
        *,
        sentences: list[Span] | None = None,
        triples: Sequence[Triple] | None = None,
    ) -> list[Fact]:
        """Anchor ``triples`` (default: those registered for ``answer``) to ``answer``."""
        if not isinstance(answer, str):
            raise TypeError(f"answer must be str, got {type(answer).__name__}")
        if triples is None:
            triples = self._facts.get(answer)
            if triples is None:
                logger.debug("no pre-extracted triples for this answer; returning no facts")
                return []
        if sentences is None:
            sentences = segment_sentences(answer)
        if not sentences:
            sentences = [Span(0, len(answer))]
        placed: list[tuple[int, int, Fact]] = []
        for position, triple in enumerate(triples):
            parts = _validate(triple, position)
            anchored = _anchor_triple(answer, parts, sentences)
            spans: list[list[Span]]
            if anchored is None:
                logger.debug("triple %d %r could not be anchored uniquely", position, parts)
                sentence, spans = _fallback_sentence(answer, parts, sentences), [[], [], []]
            else:
                sentence, spans = anchored
            delta = next((s for s in (spans[2], spans[1], spans[0]) if s), [])
            confidence = triple.get("confidence")
            fact = Fact(
                id="",
                sentence=sentence,
                subject=parts[0],
                relation=parts[1],
                object=parts[2],
                subject_spans=spans[0],
                relation_spans=spans[1],
                object_spans=spans[2],
                delta=list(delta),
                confidence=None if confidence is None else float(confidence),
                source="preextracted" if anchored else "preextracted:unanchored",
                negated=bool(triple.get("negated", False)),
                modality=triple.get("modality"),
            )
            placed.append((sentence, position, fact))
        facts: list[Fact] = []
        counters: dict[int, int] = {}
        for sentence, _, fact in sorted(placed, key=lambda item: item[:2]):
            k = counters.get(sentence, 0)
            counters[sentence] = k + 1
            fact.id = f"f{sentence}.{k}"
            facts.append(fact)
        return facts
