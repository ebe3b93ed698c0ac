"""Data contracts shared by every stage of the pipeline.

All offsets are half-open ``[start, end)`` Python character offsets into the original,
unmodified answer string (never into normalized text). Every dataclass round-trips through
``to_dict`` / ``from_dict`` as plain JSON-safe values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

FactLabel = Literal["supported", "contradicted", "unverifiable"]
SentenceLabel = Literal[
    "supported", "contradicted", "unverifiable", "unsupported_language", "not_a_claim"
]
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
    int: "an integer",
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
    integer), else a ValueError naming ``where``, its path in the document."""
    if kind is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    else:
        ok = isinstance(value, kind) and (kind is bool or not isinstance(value, bool))
    if not ok:
        raise ValueError(f"{where} must be {_EXPECTED[kind]}, got {_got(value)}")
    return float(value) if kind is float else value


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


def _spans_to_list(spans: list[Span]) -> list[dict[str, int]]:
    return [s.to_dict() for s in spans]


def _spans_from_list(items: list[Any] | None) -> list[Span]:
    return [Span.from_dict(x) for x in (items or [])]


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
        return cls(
            id=str(d["id"]),
            sentence=int(d["sentence"]),
            subject=d["subject"],
            relation=d["relation"],
            object=d["object"],
            subject_spans=_spans_from_list(d.get("subject_spans")),
            relation_spans=_spans_from_list(d.get("relation_spans")),
            object_spans=_spans_from_list(d.get("object_spans")),
            parent=d.get("parent"),
            delta=_spans_from_list(d.get("delta")),
            confidence=d.get("confidence"),
            source=d.get("source", ""),
            negated=_field(d, "negated", path, bool, False),
            modality=d.get("modality"),
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
    def from_dict(cls, d: dict[str, Any] | None) -> EvidenceFocus | None:
        if d is None:
            return None
        return cls(int(d["start"]), int(d["end"]), d["text"])


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
    def from_dict(cls, d: dict[str, Any] | None) -> Evidence | None:
        """Reads dicts written before ``focus`` or ``passage`` existed too (None)."""
        if d is None:
            return None
        passage = d.get("passage")
        return cls(
            int(d["start"]),
            int(d["end"]),
            d["text"],
            EvidenceFocus.from_dict(d.get("focus")),
            None if passage is None else int(passage),
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
    def from_dict(cls, d: dict[str, Any]) -> NLIScores:
        return cls(float(d["entailment"]), float(d["neutral"]), float(d["contradiction"]))


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
        return cls(
            fact=Fact.from_dict(d["fact"], path=f"{path}['fact']"),
            hypothesis=d["hypothesis"],
            probs=NLIScores.from_dict(d["probs"]),
            label=d["label"],
            evidence=Evidence.from_dict(d.get("evidence")),
            suppressed=_field(d, "suppressed", path, bool, False),
            decided_by=d.get("decided_by", "nli"),
            score=d.get("score"),
            blamed=None if d.get("blamed") is None else _spans_from_list(d["blamed"]),
            suppressed_by=d.get("suppressed_by"),
            split=_spans_from_list(d.get("split")),
            features=None if d.get("features") is None else dict(d["features"]),
            escalation=None if d.get("escalation") is None else dict(d["escalation"]),
            inherited_from=d.get("inherited_from"),
        )


@dataclass
class SentenceVerdict:
    """Verdict for one answer sentence: its span, a hallucination score in [0, 1] and a label.

    ``score`` is a hallucination score: higher means more likely unsupported. ``method`` says
    how it was made: ``sentence-nli`` (the whole sentence checked as one hypothesis), an
    aggregation of fact verdicts (``max``, ``mean``, ...), or ``quoted`` (a sentence judged
    whole that the context states word for word: :mod:`enoki_hd.verify.quoted`). ``split`` is empty unless the
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
    def from_dict(cls, d: dict[str, Any]) -> SentenceVerdict:
        return cls(
            index=int(d["index"]),
            span=Span.from_dict(d["span"]),
            text=d["text"],
            score=float(d["score"]),
            label=d["label"],
            probs=NLIScores.from_dict(d["probs"]) if d.get("probs") else None,
            evidence=Evidence.from_dict(d.get("evidence")),
            method=d.get("method", "sentence-nli"),
            facts=list(d.get("facts", [])),
            split=_spans_from_list(d.get("split")),
            reason=d.get("reason"),
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
    def from_dict(cls, d: dict[str, Any]) -> HallucinatedSpan:
        return cls(
            int(d["start"]),
            int(d["end"]),
            d["text"],
            float(d["score"]),
            list(d.get("facts", [])),
            d.get("label", "unverifiable"),
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
        return cls(
            status=d["status"],
            faithfulness=d.get("faithfulness"),
            counts={k: int(v) for k, v in d.get("counts", {}).items()},
            checked=int(d.get("checked", 0)),
            hallucinated=_field(d, "hallucinated", path, bool, None),
            intrinsic=int(d.get("intrinsic", 0)),
            extrinsic=int(d.get("extrinsic", 0)),
            unchecked=int(d.get("unchecked", 0)),
            not_a_claim=int(d.get("not_a_claim", 0)),
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
        return cls(
            answer=d["answer"],
            sentences=[SentenceVerdict.from_dict(s) for s in d.get("sentences", [])],
            facts=[
                FactVerdict.from_dict(f, path=f"report['facts'][{i}]")
                for i, f in enumerate(d.get("facts", []))
            ],
            spans=[HallucinatedSpan.from_dict(s) for s in d.get("spans", [])],
            summary=Summary.from_dict(d["summary"], path="report['summary']"),
            timings={k: float(v) for k, v in d.get("timings", {}).items()},
            question=d.get("question"),
            config=dict(d.get("config", {})),
        )
