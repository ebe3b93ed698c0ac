"""Data contracts shared by every stage of the pipeline.

All offsets are half-open ``[start, end)`` Python character offsets into the original,
unmodified answer string (never into normalized text). Every dataclass round-trips through
``to_dict`` / ``from_dict`` as plain JSON-safe values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

FactLabel = Literal["supported", "contradicted", "unverifiable"]
SentenceLabel = Literal[
    "supported", "contradicted", "unverifiable", "unsupported_language", "not_a_claim"
]
_FACT_LABELS: tuple[FactLabel, ...] = get_args(FactLabel)
_SENTENCE_LABELS: tuple[SentenceLabel, ...] = get_args(SentenceLabel)
NLI_LABELS: tuple[str, str, str] = ("entailment", "neutral", "contradiction")

REPORT_SCHEMA_VERSION = "1.4"  # 1.4: evidence passage; 1.3: fact inherited_from; 1.2: checkworthy


@dataclass(frozen=True, order=True)
class Span:
    """A half-open character span ``[start, end)`` into the answer."""

    start: int
    end: int

    def __post_init__(self) -> None:
        if not isinstance(self.start, int) or not isinstance(self.end, int):
            raise TypeError(f"Span offsets must be int, got start={self.start!r}, end={self.end!r}")
        if self.start < 0 or self.end < self.start:
            raise ValueError(
                f"Span needs 0 <= start <= end, got start={self.start}, end={self.end}"
            )

    def __len__(self) -> int:
        return self.end - self.start

    def text(self, source: str) -> str:
        """The characters this span covers in ``source``."""
        return source[self.start : self.end]

    def overlaps(self, other: Span) -> bool:
        return self.start < other.end and other.start < self.end

    def to_dict(self) -> dict[str, int]:
        return {"start": self.start, "end": self.end}

    @classmethod
    def from_dict(cls, d: dict[str, Any] | list[int] | tuple[int, int]) -> Span:
        """``{"start", "end"}`` or a ``[start, end]`` pair; an offset JSON wrote as ``3.0``
        is read as 3, but one that is no whole number (``2.5``, ``true``, ``"3"``) or a pair
        of another length is an error, never truncated into a span over other characters."""
        if isinstance(d, (list, tuple)):
            if len(d) != 2:
                raise ValueError(f"a Span pair is [start, end], got {list(d)!r}")
            return cls(_offset(d[0], "start"), _offset(d[1], "end"))
        return cls(_offset(d["start"], "start"), _offset(d["end"], "end"))


def _offset(value: Any, name: str) -> int:
    whole = isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if isinstance(value, bool) or not whole:
        raise TypeError(f"Span {name} must be a whole number, got {type(value).__name__} {value!r}")
    return int(value)


# The default of a field that must be present.
_REQUIRED: Any = object()
_EXPECTED = {
    bool: "a boolean (true or false)",
    int: "a whole number",
    float: "a number",
    str: "a string",
    list: "a list",
    dict: "an object",
}


def _got(value: Any) -> str:
    """``value`` in JSON's words, for an error: ``string 'false'``, ``null``, ``list``."""
    if value is None:
        return "null"
    names = {bool: "boolean", int: "integer", float: "number", str: "string", dict: "object"}
    name = names.get(type(value), type(value).__name__)
    return f"{name} {value!r:.40}" if isinstance(value, (bool, int, float, str)) else name


def _value(value: Any, where: str, kind: type) -> Any:
    """``value`` when it is JSON's ``kind`` (a boolean is no number; a number may be an
    integer; a whole number may be written 3.0), else a ValueError naming ``where``, its path
    in the document."""
    if kind is float or kind is int:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        ok = ok and (kind is float or isinstance(value, int) or value.is_integer())
    else:
        ok = isinstance(value, kind) and (kind is bool or not isinstance(value, bool))
    if not ok:
        raise ValueError(f"{where} must be {_EXPECTED[kind]}, got {_got(value)}")
    return kind(value) if kind is float or kind is int else value


def _field(d: dict[str, Any], key: str, path: str, kind: type, default: Any = _REQUIRED) -> Any:
    """``d[key]`` checked to be JSON's ``kind`` (:func:`_value`). A field left out is
    ``default`` (older schemas lack the newer fields); without one it is required. null is read
    only where the default is None."""
    where = f"{path}[{key!r}]"
    if key not in d:
        if default is _REQUIRED:
            raise ValueError(f"{where} is missing; expected {_EXPECTED[kind]}")
        return default
    if d[key] is None and default is None:
        return None
    return _value(d[key], where, kind)


def _object(d: Any, path: str) -> dict[str, Any]:
    value: dict[str, Any] = _value(d, path, dict)
    return value


def _items(d: dict[str, Any], key: str, path: str, kind: type = object) -> list[tuple[Any, str]]:
    """(item, its path) for each item of the list ``d[key]`` (left out: none); with ``kind``,
    each item is checked to be JSON's ``kind``."""
    items = _field(d, key, path, list, [])
    paths = [f"{path}[{key!r}][{i}]" for i in range(len(items))]
    if kind is not object:
        items = [_value(item, where, kind) for item, where in zip(items, paths, strict=True)]
    return list(zip(items, paths, strict=True))


def _label(
    d: dict[str, Any], key: str, path: str, labels: tuple[str, ...], default: Any = _REQUIRED
) -> Any:
    label = _field(d, key, path, str, default)
    if label not in labels:
        raise ValueError(f"{path}[{key!r}] must be one of {', '.join(labels)}; got {label!r}")
    return label


def _span(value: Any, where: str) -> Span:
    if not isinstance(value, (dict, list)):
        raise ValueError(f"{where} must be a span {{start, end}}, got {_got(value)}")
    missing = [k for k in ("start", "end") if isinstance(value, dict) and k not in value]
    if missing:
        raise ValueError(f"{where} must be a span {{start, end}}; {missing[0]!r} is missing")
    try:
        return Span.from_dict(value)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{where}: {err}") from None


def _spans_to_list(spans: list[Span]) -> list[dict[str, int]]:
    return [s.to_dict() for s in spans]


def _spans(d: dict[str, Any], key: str, path: str) -> list[Span]:
    return [_span(item, where) for item, where in _items(d, key, path)]


@dataclass
class Fact:
    """A relational fact (subject, relation, object) anchored to the answer's characters.

    ``parent`` is the id of the coarser fact this one refines (incremental chains are explicit
    links, never recomputed); ``delta`` holds the spans this fact adds over its parent.
    ``confidence`` is None for facts whose backend gives no score (LLM extraction).
    """

    id: str
    sentence: int
    subject: str
    relation: str
    object: str
    subject_spans: list[Span] = field(default_factory=list)
    relation_spans: list[Span] = field(default_factory=list)
    object_spans: list[Span] = field(default_factory=list)
    parent: str | None = None
    delta: list[Span] = field(default_factory=list)
    confidence: float | None = None
    source: str = ""
    negated: bool = False
    modality: str | None = None

    @property
    def anchored(self) -> bool:
        """False for a triple its extractor could not place in the answer (no spans, and
        ``source="llm:<reason>"`` or ``"preextracted:unanchored"``): it is verified and
        reported, but it is no claim the answer is known to make, so it blames no characters
        and decides no sentence. A fact built without spans by other code counts as placed."""
        if self.subject_spans or self.relation_spans or self.object_spans:
            return True
        return not (self.source.startswith("llm:") or self.source.endswith(":unanchored"))

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "sentence": self.sentence,
            "subject": self.subject,
            "relation": self.relation,
            "object": self.object,
            "subject_spans": _spans_to_list(self.subject_spans),
            "relation_spans": _spans_to_list(self.relation_spans),
            "object_spans": _spans_to_list(self.object_spans),
            "parent": self.parent,
            "delta": _spans_to_list(self.delta),
            "confidence": self.confidence,
            "source": self.source,
            "negated": self.negated,
            "modality": self.modality,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any], *, path: str = "fact") -> Fact:
        """``path`` names ``d`` in errors (``report['facts'][3]['fact']``)."""
        d = _object(d, path)
        return cls(
            id=_field(d, "id", path, str),
            sentence=_field(d, "sentence", path, int),
            subject=_field(d, "subject", path, str),
            relation=_field(d, "relation", path, str),
            object=_field(d, "object", path, str),
            subject_spans=_spans(d, "subject_spans", path),
            relation_spans=_spans(d, "relation_spans", path),
            object_spans=_spans(d, "object_spans", path),
            parent=_field(d, "parent", path, str, None),
            delta=_spans(d, "delta", path),
            confidence=_field(d, "confidence", path, float, None),
            source=_field(d, "source", path, str, ""),
            negated=_field(d, "negated", path, bool, False),
            modality=_field(d, "modality", path, str, None),
        )


@dataclass(frozen=True)
class EvidenceFocus:
    """One sentence inside an evidence window: its span in the CONTEXT and its text."""

    start: int
    end: int
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"start": self.start, "end": self.end, "text": self.text}

    @classmethod
    def from_dict(cls, d: dict[str, Any] | None, *, path: str = "focus") -> EvidenceFocus | None:
        if d is None:
            return None
        d = _object(d, path)
        return cls(
            _field(d, "start", path, int), _field(d, "end", path, int), _field(d, "text", path, str)
        )


@dataclass
class Evidence:
    """The context passage that decided a verdict: its span in the context and its text.

    Offsets are half-open ``[start, end)`` character offsets into the CONTEXT (not the answer).
    ``focus`` is the window's sentence that best matches the hypothesis — the sentence with the
    highest retrieval score (BM25, or BM25 fused with dense cosine when the selector uses
    ``dense_weight``) among the window's sentences. It is a pointer for the reader, not a
    separate NLI judgement: the verifier judged the whole window. It is None when the window is
    a single sentence (or a piece of one) or when no sentence of the window shares a term with
    the hypothesis.

    ``passage`` is set when the context was given as a list of passages: the index of the
    passage the window lies in (a window never spans two). The offsets are then into the
    passages joined by a blank line (:func:`enoki_hd.text.join_passages`); the passage's own
    offsets are ``start - len(joined_before)``. It is left out of ``to_dict`` when None, so
    reports of a one-document context are unchanged.
    """

    start: int
    end: int
    text: str
    focus: EvidenceFocus | None = None
    passage: int | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "start": self.start,
            "end": self.end,
            "text": self.text,
            "focus": self.focus.to_dict() if self.focus else None,
        }
        if self.passage is not None:
            out["passage"] = self.passage
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any] | None, *, path: str = "evidence") -> Evidence | None:
        """Reads dicts written before ``focus`` or ``passage`` existed too (None)."""
        if d is None:
            return None
        d = _object(d, path)
        return cls(
            _field(d, "start", path, int),
            _field(d, "end", path, int),
            _field(d, "text", path, str),
            EvidenceFocus.from_dict(d.get("focus"), path=f"{path}['focus']"),
            _field(d, "passage", path, int, None),
        )


@dataclass
class NLIScores:
    """Probabilities of (entailment, neutral, contradiction) for one premise/hypothesis pair."""

    entailment: float
    neutral: float
    contradiction: float

    @property
    def hall_prob(self) -> float:
        """Probability that the hypothesis is not supported: neutral + contradiction."""
        return self.neutral + self.contradiction

    def label(self) -> str:
        values = (self.entailment, self.neutral, self.contradiction)
        return NLI_LABELS[max(range(3), key=values.__getitem__)]

    def to_dict(self) -> dict[str, float]:
        return {
            "entailment": self.entailment,
            "neutral": self.neutral,
            "contradiction": self.contradiction,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any], *, path: str = "probs") -> NLIScores:
        d = _object(d, path)
        return cls(*(_field(d, label, path, float) for label in NLI_LABELS))


@dataclass
class FactVerdict:
    """The verifier's judgement of one fact.

    ``hall_prob`` is the verifier's neutral + contradiction; ``score`` is the final
    hallucination score after the signals are combined (equal to ``hall_prob`` when NLI alone
    decides): higher means more likely unsupported. ``suppressed`` is True when another failed
    fact of the same chain explains this one's failure, so it is not blamed again:
    ``suppressed_by`` names that fact — a coarser ancestor that already failed, or a refinement
    whose value conflicts with the evidence (see :mod:`enoki_hd.project`). ``inherited_from``
    names the refinement whose NLI decision this fact took instead of being judged (see
    :func:`enoki_hd.verify.hypothesis.verify_chains`). ``decided_by`` names
    the signal that decided the label (``nli``, ``grounding``). ``split`` is empty unless the
    hypothesis was too long to judge whole: then the pieces judged, as half-open offsets into
    ``hypothesis``.
    """

    fact: Fact
    hypothesis: str
    probs: NLIScores
    label: FactLabel
    evidence: Evidence | None = None
    suppressed: bool = False
    decided_by: str = "nli"
    score: float | None = None
    # Answer spans this fact is blamed for when unsupported, when finer than its delta (the
    # delta's words with no trace in the context); None = blame the delta.
    blamed: list[Span] | None = None
    suppressed_by: str | None = None
    split: list[Span] = field(default_factory=list)
    # the calibrated fusion's inputs (enoki_hd.verify.calibration.FEATURES); None unless the
    # detector runs calibrated fusion or records features for `make calibrate`
    features: dict[str, float] | None = None
    # verification=llm / adaptive: why this fact went to the escalation judge, the verdict
    # before and the judge's answer (enoki_hd.verify.routing); None when it was not escalated
    escalation: dict[str, Any] | None = None
    # the id of the refinement whose NLI decision this fact took instead of being judged
    # (enoki_hd.verify.hypothesis.verify_chains); None when it was judged itself
    inherited_from: str | None = None

    def __post_init__(self) -> None:
        if self.score is None:
            self.score = self.probs.hall_prob

    @property
    def hall_prob(self) -> float:
        return self.probs.hall_prob

    def to_dict(self) -> dict[str, Any]:
        return {
            "fact": self.fact.to_dict(),
            "hypothesis": self.hypothesis,
            "probs": self.probs.to_dict(),
            "hall_prob": self.hall_prob,
            "score": self.score,
            "label": self.label,
            "evidence": self.evidence.to_dict() if self.evidence else None,
            "suppressed": self.suppressed,
            "decided_by": self.decided_by,
            "blamed": None if self.blamed is None else _spans_to_list(self.blamed),
            "suppressed_by": self.suppressed_by,
            "split": _spans_to_list(self.split),
            **({} if self.features is None else {"features": dict(self.features)}),
            **({} if self.escalation is None else {"escalation": dict(self.escalation)}),
            **({} if self.inherited_from is None else {"inherited_from": self.inherited_from}),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any], *, path: str = "fact_verdict") -> FactVerdict:
        """``path`` names ``d`` in errors (``report['facts'][3]``)."""
        d = _object(d, path)
        features = _field(d, "features", path, dict, None)
        escalation = _field(d, "escalation", path, dict, None)
        return cls(
            fact=Fact.from_dict(_field(d, "fact", path, dict), path=f"{path}['fact']"),
            hypothesis=_field(d, "hypothesis", path, str),
            probs=NLIScores.from_dict(_field(d, "probs", path, dict), path=f"{path}['probs']"),
            label=_label(d, "label", path, _FACT_LABELS),
            evidence=Evidence.from_dict(d.get("evidence"), path=f"{path}['evidence']"),
            suppressed=_field(d, "suppressed", path, bool, False),
            decided_by=_field(d, "decided_by", path, str, "nli"),
            score=_field(d, "score", path, float, None),
            blamed=None if d.get("blamed") is None else _spans(d, "blamed", path),
            suppressed_by=_field(d, "suppressed_by", path, str, None),
            split=_spans(d, "split", path),
            features=None if features is None else dict(features),
            escalation=None if escalation is None else dict(escalation),
            inherited_from=_field(d, "inherited_from", path, str, None),
        )


@dataclass
class SentenceVerdict:
    """Verdict for one answer sentence: its span, a hallucination score in [0, 1] and a label.

    ``score`` is a hallucination score: higher means more likely unsupported. ``method`` says
    how it was made: ``sentence-nli`` (the whole sentence checked as one hypothesis), an
    aggregation of fact verdicts (``max``, ``mean``, ...), ``quoted`` (a sentence judged
    whole that the context states word for word: :mod:`enoki_hd.verify.quoted`), or the
    listing check that failed a sentence without facts (``hours_conflict``,
    ``attribute_conflict``, ``attribute_unknown``: :mod:`enoki_hd.verify.listings`). ``split`` is empty unless the
    sentence was too long to judge whole: then the pieces judged, as half-open offsets into the
    answer.

    A sentence that states no checkable fact (:mod:`enoki_hd.select`) is ``not_a_claim`` with
    a ``reason`` (``heading``, ``lead_in``, ``question``, ``instruction``, ``meta``,
    ``opinion``, ``table_header``, ``code``, ``no_words``): neither supported nor hallucinated, score 0,
    method ``selection``. ``to_dict()`` carries ``checkworthy`` (False for these only) and
    ``reason`` (None for claims).
    """

    index: int
    span: Span
    text: str
    score: float
    label: SentenceLabel
    probs: NLIScores | None = None
    evidence: Evidence | None = None
    method: str = "sentence-nli"
    facts: list[str] = field(default_factory=list)
    split: list[Span] = field(default_factory=list)
    reason: str | None = None

    @property
    def checkworthy(self) -> bool:
        return self.label != "not_a_claim"

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "span": self.span.to_dict(),
            "text": self.text,
            "score": self.score,
            "label": self.label,
            "checkworthy": self.checkworthy,
            "reason": self.reason,
            "probs": self.probs.to_dict() if self.probs else None,
            "evidence": self.evidence.to_dict() if self.evidence else None,
            "method": self.method,
            "facts": list(self.facts),
            "split": _spans_to_list(self.split),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any], *, path: str = "sentence") -> SentenceVerdict:
        """``path`` names ``d`` in errors (``report['sentences'][2]``)."""
        d = _object(d, path)
        probs = _field(d, "probs", path, dict, None)
        return cls(
            index=_field(d, "index", path, int),
            span=_span(d.get("span"), f"{path}['span']"),
            text=_field(d, "text", path, str),
            score=_field(d, "score", path, float),
            label=_label(d, "label", path, _SENTENCE_LABELS),
            probs=None if probs is None else NLIScores.from_dict(probs, path=f"{path}['probs']"),
            evidence=Evidence.from_dict(d.get("evidence"), path=f"{path}['evidence']"),
            method=_field(d, "method", path, str, "sentence-nli"),
            facts=[fact for fact, _ in _items(d, "facts", path, str)],
            split=_spans(d, "split", path),
            reason=_field(d, "reason", path, str, None),
        )


@dataclass
class HallucinatedSpan:
    """A merged hallucinated character span (the shape LettuceDetect users know)."""

    start: int
    end: int
    text: str
    score: float
    facts: list[str] = field(default_factory=list)
    label: FactLabel = "unverifiable"

    def to_dict(self) -> dict[str, Any]:
        return {
            "start": self.start,
            "end": self.end,
            "text": self.text,
            "score": self.score,
            "facts": list(self.facts),
            "label": self.label,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any], *, path: str = "span") -> HallucinatedSpan:
        """``path`` names ``d`` in errors (``report['spans'][0]``)."""
        span = _span(_object(d, path), path)
        return cls(
            span.start,
            span.end,
            _field(d, "text", path, str),
            _field(d, "score", path, float),
            [fact for fact, _ in _items(d, "facts", path, str)],
            _label(d, "label", path, _FACT_LABELS, "unverifiable"),
        )


@dataclass
class Summary:
    """Answer-level summary.

    ``faithfulness`` = supported / checked units (facts when facts were checked, else
    sentences); None when nothing could be checked, and then ``hallucinated`` is None too
    (unknown, not "no"). ``status`` is ``ok``, ``empty_answer``, ``no_context``,
    ``no_facts``, ``unsupported_language`` (no sentence could be read) or ``unchecked``
    (nothing verified); the rules are in :mod:`enoki_hd.aggregate`. ``unchecked`` counts the
    sentences that were not verified (e.g. in another language); ``not_a_claim`` the sentences
    that state no checkable fact (left out of every count and of ``faithfulness``).
    """

    status: str
    faithfulness: float | None
    counts: dict[str, int]
    checked: int
    hallucinated: bool | None
    intrinsic: int = 0
    extrinsic: int = 0
    unchecked: int = 0
    not_a_claim: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "faithfulness": self.faithfulness,
            "counts": dict(self.counts),
            "checked": self.checked,
            "hallucinated": self.hallucinated,
            "intrinsic": self.intrinsic,
            "extrinsic": self.extrinsic,
            "unchecked": self.unchecked,
            "not_a_claim": self.not_a_claim,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any], *, path: str = "summary") -> Summary:
        """``path`` names ``d`` in errors (``report['summary']``)."""
        d = _object(d, path)
        counts = _field(d, "counts", path, dict, {})
        return cls(
            status=_field(d, "status", path, str),
            faithfulness=_field(d, "faithfulness", path, float, None),
            counts={k: _value(v, f"{path}['counts'][{k!r}]", int) for k, v in counts.items()},
            checked=_field(d, "checked", path, int, 0),
            hallucinated=_field(d, "hallucinated", path, bool, None),
            intrinsic=_field(d, "intrinsic", path, int, 0),
            extrinsic=_field(d, "extrinsic", path, int, 0),
            unchecked=_field(d, "unchecked", path, int, 0),
            not_a_claim=_field(d, "not_a_claim", path, int, 0),
        )


@dataclass
class Report:
    """Everything the detector found for one answer. ``to_dict()`` is stable JSON."""

    answer: str
    sentences: list[SentenceVerdict]
    facts: list[FactVerdict]
    spans: list[HallucinatedSpan]
    summary: Summary
    timings: dict[str, float] = field(default_factory=dict)
    question: str | None = None
    config: dict[str, Any] = field(default_factory=dict)

    @property
    def checked(self) -> bool:
        """Whether the whole answer was verified: something was checked against a context that
        is not empty, and no sentence was left unchecked (e.g. in another language). A CI gate
        should fail closed when False."""
        summary = self.summary
        return (
            summary.faithfulness is not None
            and summary.unchecked == 0
            and summary.status != "no_context"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": REPORT_SCHEMA_VERSION,
            "answer": self.answer,
            "question": self.question,
            "summary": self.summary.to_dict(),
            "sentences": [s.to_dict() for s in self.sentences],
            "facts": [f.to_dict() for f in self.facts],
            "spans": [s.to_dict() for s in self.spans],
            "timings": {k: round(v, 6) for k, v in self.timings.items()},
            "config": dict(self.config),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Report:
        """Reads what ``to_dict`` writes, of this schema version or an older one (fields added
        since are left at their defaults). Anything else is refused, never guessed: a ``d``
        that is no dict is a TypeError; a field missing, null or of the wrong type, a label
        outside the known ones, an answer span past the answer's end, or a newer
        ``schema_version`` is a ValueError naming the field (``report['facts'][3]['label']``)."""
        if not isinstance(d, dict):
            hint = "; parse JSON text with json.loads first" if isinstance(d, (str, bytes)) else ""
            raise TypeError(
                f"Report.from_dict expects a dict (as Report.to_dict() writes it), "
                f"got {type(d).__name__}{hint}"
            )
        path = "report"
        _check_schema_version(_field(d, "schema_version", path, str))
        timings = _field(d, "timings", path, dict, {})
        report = cls(
            answer=_field(d, "answer", path, str),
            sentences=[
                SentenceVerdict.from_dict(s, path=p) for s, p in _items(d, "sentences", path)
            ],
            facts=[FactVerdict.from_dict(f, path=p) for f, p in _items(d, "facts", path)],
            spans=[HallucinatedSpan.from_dict(s, path=p) for s, p in _items(d, "spans", path)],
            summary=Summary.from_dict(_field(d, "summary", path, dict), path=f"{path}['summary']"),
            timings={k: _value(v, f"{path}['timings'][{k!r}]", float) for k, v in timings.items()},
            question=_field(d, "question", path, str, None),
            config=dict(_field(d, "config", path, dict, {})),
        )
        _check_answer_spans(report)
        return report


def _version(text: str) -> tuple[int, int]:
    major, minor = text.split(".")
    return int(major), int(minor)


def _check_schema_version(version: str) -> None:
    """Every schema from 1.0 to this one reads (each added fields with defaults); a newer one
    may hold what this code would drop without a word, so it is refused."""
    where = "report['schema_version']"
    if re.fullmatch(r"\d+\.\d+", version) is None or _version(version) < (1, 0):
        raise ValueError(
            f"{where} is {version!r}, no schema version enoki-hd has written; "
            f"this enoki-hd reads 1.0 to {REPORT_SCHEMA_VERSION}"
        )
    if _version(version) > _version(REPORT_SCHEMA_VERSION):
        raise ValueError(
            f"{where} is {version!r}, newer than the {REPORT_SCHEMA_VERSION} this enoki-hd "
            "reads and writes; upgrade enoki-hd (pip install -U enoki-hd) to read this report"
        )


def _check_answer_spans(report: Report) -> None:
    """Every answer span of ``report`` lies inside its answer (spans are half-open character
    offsets into it); evidence offsets are into the context, which a report does not hold."""
    spans: list[tuple[str, Span]] = []
    for i, sentence in enumerate(report.sentences):
        where = f"report['sentences'][{i}]"
        spans.append((f"{where}['span']", sentence.span))
        spans += [(f"{where}['split'][{k}]", s) for k, s in enumerate(sentence.split)]
    for i, verdict in enumerate(report.facts):
        fact = verdict.fact
        where = f"report['facts'][{i}]['fact']"
        for key, part in (
            ("subject_spans", fact.subject_spans),
            ("relation_spans", fact.relation_spans),
            ("object_spans", fact.object_spans),
            ("delta", fact.delta),
        ):
            spans += [(f"{where}[{key!r}][{k}]", s) for k, s in enumerate(part)]
        blamed = verdict.blamed or []
        spans += [(f"report['facts'][{i}]['blamed'][{k}]", s) for k, s in enumerate(blamed)]
    spans += [(f"report['spans'][{i}]", Span(s.start, s.end)) for i, s in enumerate(report.spans)]
    length = len(report.answer)
    for where, span in spans:
        if span.end > length:
            raise ValueError(
                f"{where} is [{span.start}, {span.end}), past the end of the answer "
                f"({length} characters); spans are character offsets into the answer"
            )
