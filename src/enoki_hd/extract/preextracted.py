"""Facts the caller already has: (subject, relation, object) triples anchored to the answer.

Users with their own triples (from an LLM, an OpenIE system or annotators) plug them in as
dicts ``{"subject", "relation", "object"}`` per answer; optional keys ``negated``,
``modality`` and ``confidence`` are carried over. Each part is anchored with
:func:`enoki_hd.text.anchor` (exact, then whitespace/quote/dash tolerant, then
case-insensitive; an ambiguous phrase is never guessed).

``path`` reads them from a JSONL file, one record per answer: ``{"text", "triples": [...]}``
(anchored here) or a record of ``enoki teach`` / the teacher JSONL layout, ``{"text",
"facts": [Fact.to_dict(), ...]}``, whose facts are already anchored and are used as they are
(their sentence index re-derived from the caller's sentences, ids and parent links renumbered
to match).
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
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
    # bool("false") is True: a negation flag written as a string negated the fact
    negated = triple.get("negated", False)
    if not isinstance(negated, bool):
        raise ValueError(f"triple {position}: 'negated' must be true or false, got {negated!r}")
    confidence = triple.get("confidence")
    if confidence is not None and (
        isinstance(confidence, bool) or not isinstance(confidence, (int, float))
    ):
        raise ValueError(
            f"triple {position}: 'confidence' must be a number or null, got {confidence!r}"
        )
    modality = triple.get("modality")
    if modality is not None and not isinstance(modality, str):
        raise ValueError(
            f"triple {position}: 'modality' must be a string or null, got {modality!r}"
        )
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
        path: a JSONL file of records (see the module docstring) to read them from.
        text_field: the field of those records holding the answer.
        sha256: when given (as :meth:`config` records it), the file must have this digest.

    A triple whose subject or object cannot be anchored uniquely (absent, or ambiguous: it
    occurs more than once and no single sentence holds both) is kept with empty spans,
    ``source="preextracted:unanchored"`` and the first sentence mentioning it (0 if none), so
    it is still verified but blames no characters. Anchored facts have
    ``source="preextracted"``; their ``delta`` is their object spans (else relation, else
    subject): what they assert. Ids are ``f{sentence}.{k}`` in input order. Spans are
    half-open character offsets into the ORIGINAL answer.
    """

    name = "preextracted"

    def __init__(
        self,
        facts: Mapping[str, Sequence[Triple]] | None = None,
        *,
        path: str | Path | None = None,
        text_field: str = "text",
        sha256: str | None = None,
    ) -> None:
        self._facts: dict[str, list[Triple]] = {}
        self._anchored: dict[str, list[Fact]] = {}
        self.missing = 0  # answers asked for that no record holds
        for answer, triples in (facts or {}).items():
            self.add(answer, triples)
        self.path = None if path is None else Path(path)
        self.text_field = text_field
        self.sha256: str | None = None
        if self.path is not None:
            self.sha256 = self._read(self.path, text_field)
            if sha256 is not None and sha256 != self.sha256:
                raise ValueError(
                    f"sha256: the config was written for a file with sha256 {sha256}, but "
                    f"{self.path} has {self.sha256}; drop sha256 to accept the new file"
                )

    def _read(self, path: Path, text_field: str) -> str:
        """Load the records of ``path``; returns the file's sha256."""
        if str(path) == "???":
            raise ValueError(
                "extractor.path is required: the JSONL of pre-extracted facts "
                '(make eval ARGS="extractor=preextracted extractor.path=$PWD/teacher.jsonl")'
            )
        if not path.is_file():
            raise FileNotFoundError(
                f"path: no file {path}; give the JSONL of pre-extracted facts (extractor.path)"
            )
        data = path.read_bytes()
        for lineno, line in enumerate(data.decode("utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            where = f"{path}:{lineno}"
            try:
                record = json.loads(line)
            except json.JSONDecodeError as err:
                raise ValueError(f"{where}: not valid JSON ({err.msg})") from None
            text = record.get(text_field) if isinstance(record, dict) else None
            if not isinstance(text, str):
                raise ValueError(
                    f"{where}: field {text_field!r} must hold the answer text; name the field "
                    "with text_field (extractor.text_field)"
                )
            if isinstance(record.get("facts"), list):
                try:
                    self._anchored[text] = [Fact.from_dict(d) for d in record["facts"]]
                except (KeyError, TypeError, ValueError) as err:
                    raise ValueError(
                        f"{where}: field 'facts' must hold facts as Fact.to_dict() writes them "
                        f"({type(err).__name__}: {err})"
                    ) from None
            elif isinstance(record.get("triples"), list):
                try:
                    self.add(text, record["triples"])
                except (TypeError, ValueError) as err:
                    raise ValueError(f"{where}: field 'triples': {err}") from None
            else:
                raise ValueError(f"{where}: a record needs a 'facts' or a 'triples' list")
        return hashlib.sha256(data).hexdigest()

    def add(self, answer: str, triples: Sequence[Triple]) -> None:
        """Register the triples of ``answer`` (replacing earlier ones for the same text)."""
        for position, triple in enumerate(triples):
            _validate(triple, position)
        self._facts[answer] = list(triples)

    def config(self) -> dict[str, Any]:
        """The backend's name, and the file it reads with its digest (triples given in code
        are data, given per answer, not options)."""
        if self.path is None:
            return {"name": self.name}
        return {
            "name": self.name,
            "path": str(self.path.resolve()),
            "text_field": self.text_field,
            "sha256": self.sha256,
        }

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
        if sentences is None:
            sentences = segment_sentences(answer)
        if triples is None and answer in self._anchored:
            return _renumber(answer, self._anchored[answer], sentences)
        if triples is None:
            triples = self._facts.get(answer)
            if triples is None:
                self.missing += 1
                # a file of other answers silently made the detector a sentence-level one
                log = logger.warning if self.missing == 1 else logger.debug
                log(
                    "no pre-extracted triples for an answer%s (%d so far): it gets no facts "
                    "and its sentences are judged whole",
                    "" if self.path is None else f" in {self.path}",
                    self.missing,
                )
                return []
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
                negated=triple.get("negated", False),
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


def _renumber(answer: str, facts: Sequence[Fact], sentences: list[Span]) -> list[Fact]:
    """Already anchored facts filed under the caller's ``sentences`` (the one holding a
    fact's first span; an unanchored fact by :func:`_fallback_sentence`), ids ``f{sentence}.{k}``
    and parent links renumbered; offsets are checked to lie inside ``answer``."""
    windows = sentences or [Span(0, len(answer))]
    placed: list[tuple[int, int, Fact]] = []
    for position, fact in enumerate(facts):
        spans = [*fact.subject_spans, *fact.relation_spans, *fact.object_spans, *fact.delta]
        if any(s.end > len(answer) for s in spans):
            raise ValueError(
                f"pre-extracted fact {fact.id!r} has spans beyond the answer's {len(answer)} "
                "characters: its record was written for another text"
            )
        first = min(spans).start if spans else None
        sentence = next(
            (i for i, w in enumerate(windows) if first is not None and w.start <= first < w.end),
            None,
        )
        if sentence is None:
            parts = (fact.subject, fact.relation, fact.object)
            sentence = _fallback_sentence(answer, parts, windows)
        placed.append((sentence, position, fact))
    new_ids: dict[str, str] = {}
    counters: dict[int, int] = {}
    ordered = sorted(placed, key=lambda item: item[:2])
    for sentence, _, fact in ordered:
        k = counters.get(sentence, 0)
        counters[sentence] = k + 1
        new_ids[fact.id] = f"f{sentence}.{k}"
    return [
        replace(
            fact,
            id=new_ids[fact.id],
            sentence=sentence,
            parent=None if fact.parent is None else new_ids.get(fact.parent),
        )
        for sentence, _, fact in ordered
    ]
