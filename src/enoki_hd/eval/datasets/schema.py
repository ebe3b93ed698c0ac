"""The one example schema every benchmark loader returns, and the error a malformed row raises."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from enoki_hd.types import Span

BenchmarkLevel = Literal["span", "sentence", "claim", "entity", "openie"]
PathLike = str | os.PathLike[str]


class DatasetError(ValueError):
    """A malformed row: ``"{path}:{line}: field '{field}' {problem}"``.

    ``field`` is None only when the row has no fields to blame (a line that is not a JSON
    object); the message is then ``"{path}:{line}: {problem}"``.
    """

    def __init__(self, path: PathLike, line: int, field: str | None, problem: str) -> None:
        self.path = str(path)
        self.line = line
        self.field = field
        self.problem = problem
        where = f"{self.path}:{line}: "
        super().__init__(where + (f"field '{field}' {problem}" if field is not None else problem))


def _span_or_none(value: Any) -> Span | None:
    return None if value is None else Span.from_dict(value)


@dataclass
class SentenceGold:
    """Gold verdict for one sentence. ``span`` is its position in the answer, None if the
    sentence could not be located there."""

    span: Span | None
    text: str
    hallucinated: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "span": self.span.to_dict() if self.span else None,
            "text": self.text,
            "hallucinated": self.hallucinated,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> SentenceGold:
        return cls(_span_or_none(d.get("span")), d["text"], bool(d["hallucinated"]))


@dataclass
class ClaimGold:
    """Gold verdict for one claim; ``label`` keeps the set's raw label (e.g.
    ``partially_supported``), ``hallucinated`` is its binary reading."""

    text: str
    hallucinated: bool
    label: str

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "hallucinated": self.hallucinated, "label": self.label}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ClaimGold:
        return cls(d["text"], bool(d["hallucinated"]), str(d["label"]))


class EntityGold(SentenceGold):
    """Gold verdict for one entity; ``span`` is None if it could not be located in the answer.
    The same fields as :class:`SentenceGold`."""


@dataclass
class EvalExample:
    """One evaluation item, the same shape for every benchmark.

    ``gold_spans`` are half-open character offsets into ``answer`` (None when the set has no
    span labels); ``soft_labels`` are MuSHROOM's ``{"start", "end", "prob"}`` dicts;
    ``example_label`` is True when the answer contains any hallucination (None if unknown).
    """

    id: str
    question: str | None
    context: str
    answer: str
    gold_spans: list[Span] | None = None
    soft_labels: list[dict[str, Any]] | None = None
    sentence_labels: list[SentenceGold] | None = None
    claim_labels: list[ClaimGold] | None = None
    entity_labels: list[EntityGold] | None = None
    example_label: bool | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        def dump(items: list[Any] | None) -> list[Any] | None:
            return None if items is None else [x.to_dict() for x in items]

        return {
            "id": self.id,
            "question": self.question,
            "context": self.context,
            "answer": self.answer,
            "gold_spans": dump(self.gold_spans),
            "soft_labels": None
            if self.soft_labels is None
            else [dict(x) for x in self.soft_labels],
            "sentence_labels": dump(self.sentence_labels),
            "claim_labels": dump(self.claim_labels),
            "entity_labels": dump(self.entity_labels),
            "example_label": self.example_label,
            "metadata": dict(self.metadata),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> EvalExample:
        def load(key: str, factory: Callable[[Any], Any]) -> list[Any] | None:
            items = d.get(key)
            return None if items is None else [factory(x) for x in items]

        soft = d.get("soft_labels")
        return cls(
            id=str(d["id"]),
            question=d.get("question"),
            context=d.get("context", ""),
            answer=d["answer"],
            gold_spans=load("gold_spans", Span.from_dict),
            soft_labels=None if soft is None else [dict(x) for x in soft],
            sentence_labels=load("sentence_labels", SentenceGold.from_dict),
            claim_labels=load("claim_labels", ClaimGold.from_dict),
            entity_labels=load("entity_labels", EntityGold.from_dict),
            example_label=d.get("example_label"),
            metadata=dict(d.get("metadata", {})),
        )


@dataclass
class Benchmark:
    """A loaded benchmark.

    ``references`` holds extra span annotations aligned with ``examples`` (e.g. one list per
    PsiloQA annotator file, keyed by the file stem); ``dropped`` counts rows left out, by
    reason; ``flagged`` counts examples kept with a caveat, by reason (``missing_context``,
    ``sentence_not_located``, ...); ``source`` names the file(s) read. ``checkworthiness``
    holds gold check-worthiness of units — every unit of the file, the ones left out of
    ``examples`` included — as ``{"id", "level", "text", "label", "not_a_claim"}`` (what
    :mod:`enoki_hd.eval.checkworthiness` scores the selection stage on); None when the set
    has none.
    """

    name: str
    level: BenchmarkLevel
    examples: list[EvalExample]
    references: dict[str, list[list[Span]]] | None = None
    dropped: dict[str, int] = field(default_factory=dict)
    flagged: dict[str, int] = field(default_factory=dict)
    source: str = ""
    checkworthiness: list[dict[str, Any]] | None = None

    def __len__(self) -> int:
        return len(self.examples)

    def examples_sha256(self) -> str:
        """SHA-256 of the examples as scored — texts, gold and the other references, in order:
        what ``make compare`` checks two runs (and the data read again) against."""
        payload = {
            "examples": [e.to_dict() for e in self.examples],
            "references": self.to_dict()["references"],
        }
        text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "level": self.level,
            "examples": [e.to_dict() for e in self.examples],
            "references": None
            if self.references is None
            else {
                k: [[s.to_dict() for s in spans] for spans in per_example]
                for k, per_example in self.references.items()
            },
            "dropped": dict(self.dropped),
            "flagged": dict(self.flagged),
            "source": self.source,
            "checkworthiness": self.checkworthiness,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Benchmark:
        refs = d.get("references")
        return cls(
            name=d["name"],
            level=d["level"],
            examples=[EvalExample.from_dict(e) for e in d["examples"]],
            references=None
            if refs is None
            else {
                k: [[Span.from_dict(s) for s in spans] for spans in per_example]
                for k, per_example in refs.items()
            },
            dropped={k: int(v) for k, v in d.get("dropped", {}).items()},
            flagged={k: int(v) for k, v in d.get("flagged", {}).items()},
            source=d.get("source", ""),
            checkworthiness=d.get("checkworthiness"),
        )
