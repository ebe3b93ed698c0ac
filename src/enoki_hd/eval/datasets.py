"""Benchmark loaders: every hallucination benchmark read into ONE example schema.

Each loader reads local files (nothing is downloaded; :data:`HUB_IDS` only records where the
data come from), validates every row and returns a :class:`Benchmark` of :class:`EvalExample`.

Conventions shared by all loaders:

- Offsets are half-open ``[start, end)`` Python character offsets into the example's
  ``answer`` exactly as the file gives it (never into stripped or normalised text).
- A malformed row raises :class:`DatasetError` whose message is
  ``"{path}:{line}: field '{field}' {problem}"`` (``line`` is 1-based; for a CSV record that
  spans several lines it is the record's first line).
- Nothing is dropped silently: rows that are left out are counted in ``Benchmark.dropped``
  (reason -> count); rows that are kept with a caveat (no context, a sentence or entity that
  could not be located, a re-anchored label) are counted in ``Benchmark.flagged``, and the
  example carries the caveat in ``metadata`` (``missing_context=True`` and so on).
- An example without context has ``context == ""`` and ``metadata["missing_context"] = True``.

The registry :data:`BENCHMARKS` / :func:`load_benchmark` maps config names to the files in the
shared data folder (``../shared``, or the ``ENOKI_SHARED_DIR`` environment variable).
"""

from __future__ import annotations

import csv
import json
import logging
import os
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from enoki_hd.text import anchor
from enoki_hd.types import Span

logger = logging.getLogger(__name__)

__all__ = [
    "BENCHMARKS",
    "HUB_IDS",
    "SHARED_DIR_ENV",
    "Benchmark",
    "BenchmarkLevel",
    "CarbGold",
    "ClaimLabel",
    "DatasetError",
    "EntityLabel",
    "EvalExample",
    "SentenceLabel",
    "load_benchmark",
    "load_carb",
    "load_enokiqa",
    "load_factcheck",
    "load_halluentity",
    "load_mushroom",
    "load_psiloqa_csv",
    "load_psiloqa_hub",
    "load_ragtruth",
    "load_ragtruth_processed",
    "load_sentence_sample",
    "load_wice",
]

BenchmarkLevel = Literal["span", "sentence", "claim", "entity", "openie"]
PathLike = str | os.PathLike[str]

SHARED_DIR_ENV = "ENOKI_SHARED_DIR"

# Where each benchmark comes from; documentation only, the loaders read local files.
HUB_IDS: dict[str, str] = {
    "mushroom": "Helsinki-NLP/mu-shroom",
    "psiloqa": "s-nlp/PsiloQA",
    "ragtruth": "github:ParticleMedia/RAGTruth (dataset/response.jsonl, dataset/source_info.jsonl)",
    "ragtruth_processed": "wandb/RAGTruth-processed",
    "factcheck_bench": "github:yuxiaw/Factcheck-GPT (Factbench.jsonl)",
    "ragtruth_250": "github:s-nlp/Enoki (RAGTruth-250 sentence sample)",
    "anah": "opencompass/anah",
    "halluentity": "samuelyeh/HalluEntity",
    "enokiqa": "github:s-nlp/Enoki (EnokiQA export)",
    "wice": "github:ryokamoi/wice",
    "carb": "github:dair-iitd/CaRB",
}

# Labels that mean "the unit is supported" for sets that name NLI / support labels.
_SUPPORTED_LABELS = frozenset({"entailment", "supported", "support", "true", "factual"})
_NLI_LABELS = ("entailment", "neutral", "contradiction")
_WICE_LABELS = ("supported", "partially_supported", "not_supported")
_RAGTRUTH_TASKS = ("QA", "Summary", "Data2txt")


# ---------------------------------------------------------------------------------------------
# Schema
# ---------------------------------------------------------------------------------------------


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
class SentenceLabel:
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
    def from_dict(cls, d: Mapping[str, Any]) -> SentenceLabel:
        return cls(_span_or_none(d.get("span")), d["text"], bool(d["hallucinated"]))


@dataclass
class ClaimLabel:
    """Gold verdict for one claim; ``label`` keeps the set's raw label (e.g.
    ``partially_supported``), ``hallucinated`` is its binary reading."""

    text: str
    hallucinated: bool
    label: str

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "hallucinated": self.hallucinated, "label": self.label}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ClaimLabel:
        return cls(d["text"], bool(d["hallucinated"]), str(d["label"]))


class EntityLabel(SentenceLabel):
    """Gold verdict for one entity; ``span`` is None if it could not be located in the answer.
    The same fields as :class:`SentenceLabel`."""


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
    sentence_labels: list[SentenceLabel] | None = None
    claim_labels: list[ClaimLabel] | None = None
    entity_labels: list[EntityLabel] | None = None
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
            sentence_labels=load("sentence_labels", SentenceLabel.from_dict),
            claim_labels=load("claim_labels", ClaimLabel.from_dict),
            entity_labels=load("entity_labels", EntityLabel.from_dict),
            example_label=d.get("example_label"),
            metadata=dict(d.get("metadata", {})),
        )


@dataclass
class Benchmark:
    """A loaded benchmark.

    ``references`` holds extra span annotations aligned with ``examples`` (e.g. one list per
    PsiloQA annotator file, keyed by the file stem); ``dropped`` counts rows left out, by
    reason; ``flagged`` counts examples kept with a caveat, by reason (``missing_context``,
    ``sentence_not_located``, ...); ``source`` names the file(s) read.
    """

    name: str
    level: BenchmarkLevel
    examples: list[EvalExample]
    references: dict[str, list[list[Span]]] | None = None
    dropped: dict[str, int] = field(default_factory=dict)
    flagged: dict[str, int] = field(default_factory=dict)
    source: str = ""

    def __len__(self) -> int:
        return len(self.examples)

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
        )


@dataclass
class CarbGold:
    """CaRB gold tuples keyed by sentence: ``(arg1, relation, args)``, plus the sentence list
    in file order (the input an OpenIE system is run on)."""

    sentences: list[str]
    gold: dict[str, list[tuple[str, str, list[str]]]]

    @property
    def n_tuples(self) -> int:
        return sum(len(tuples) for tuples in self.gold.values())


# ---------------------------------------------------------------------------------------------
# Row access and validation
# ---------------------------------------------------------------------------------------------


class _Row:
    """One record of a data file together with its location, for exact error messages."""

    def __init__(self, path: Path, line: int, data: Mapping[str, Any]) -> None:
        self.path = path
        self.line = line
        self.data = data

    def error(self, field: str | None, problem: str) -> DatasetError:
        return DatasetError(self.path, self.line, field, problem)

    def has(self, name: str) -> bool:
        return self.data.get(name) is not None

    def value(self, name: str) -> Any:
        if name not in self.data:
            raise self.error(name, "is missing")
        return self.data[name]

    def text(self, name: str) -> str:
        """A required string field."""
        value = self.value(name)
        if not isinstance(value, str):
            raise self.error(name, f"must be a string, got {type(value).__name__}")
        return value

    def optional_text(self, name: str) -> str | None:
        """A string field that may be absent or null (None then)."""
        return None if self.data.get(name) is None else self.text(name)

    def ident(self, name: str) -> str:
        """An identifier given as a string or an integer, returned as a string."""
        value = self.value(name)
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            raise self.error(name, f"must be a string or an integer, got {type(value).__name__}")
        return str(value)

    def items(self, name: str) -> list[Any]:
        """A required list field."""
        value = self.value(name)
        if not isinstance(value, list):
            raise self.error(name, f"must be a list, got {type(value).__name__}")
        return value

    def mapping(self, name: str) -> Mapping[str, Any]:
        value = self.value(name)
        if not isinstance(value, Mapping):
            raise self.error(name, f"must be an object, got {type(value).__name__}")
        return value


def _read_jsonl(path: Path) -> Iterator[_Row]:
    """Rows of a JSON-lines file; blank lines are skipped, line numbers are 1-based."""
    with path.open(encoding="utf-8") as handle:
        for line_no, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DatasetError(path, line_no, None, f"is not valid JSON ({exc.msg})") from exc
            if not isinstance(data, dict):
                raise DatasetError(path, line_no, None, "is not a JSON object")
            yield _Row(path, line_no, data)


def _read_csv(path: Path, required: Sequence[str]) -> Iterator[_Row]:
    """Records of a CSV file with a header; ``line`` is each record's first line."""
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        header = reader.fieldnames or []
        for name in required:
            if name not in header:
                raise DatasetError(path, 1, name, "is missing from the header")
        start = reader.line_num + 1
        for record in reader:
            yield _Row(path, start, record)
            start = reader.line_num + 1


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _parse_bool(value: Any) -> bool | None:
    """True / False from a bool, 0 / 1 or a "true" / "false" string; None if it is neither."""
    if isinstance(value, bool):
        return value
    if _is_int(value) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return None


def _pair_spans(row: _Row, name: str, value: Any, length: int, length_of: str) -> list[Span]:
    """``[[start, end], ...]`` validated against a text of ``length`` characters."""
    problem = f"must be a list of [start, end] pairs with 0 <= start <= end <= len({length_of})"
    if not isinstance(value, list):
        raise row.error(name, problem)
    spans: list[Span] = []
    for pair in value:
        if (
            not isinstance(pair, (list, tuple))
            or len(pair) != 2
            or not all(_is_int(x) for x in pair)
            or not 0 <= pair[0] <= pair[1] <= length
        ):
            raise row.error(name, problem)
        spans.append(Span(pair[0], pair[1]))
    return spans


def _check_unique(row: _Row, name: str, value: str, seen: dict[str, int]) -> None:
    if value in seen:
        raise row.error(name, f"repeats the {name} {value!r} of line {seen[value]}")
    seen[value] = row.line


def _context_or_missing(context: str | None, metadata: dict[str, Any], flagged: Counter) -> str:
    """The context, or "" with the caveat recorded when there is none."""
    if context is None or not context.strip():
        metadata["missing_context"] = True
        flagged["missing_context"] += 1
        return ""
    return context


def _non_empty(spans: list[Span]) -> bool:
    return any(len(s) > 0 for s in spans)


def _locate_in_order(text: str, pieces: Sequence[str]) -> list[Span | None]:
    """Spans of ``pieces`` that occur in ``text`` in this order (offsets into ``text``).

    Each piece is searched from the end of the previous located one, so a repeated piece
    ("3.") takes its occurrence in sequence instead of being ambiguous. A piece not found
    after that point is None and does not move the cursor. Surrounding whitespace of a
    piece is not part of its span.
    """
    spans: list[Span | None] = []
    cursor = 0
    for piece in pieces:
        needle = piece.strip()
        pos = text.find(needle, cursor) if needle else -1
        if pos < 0:
            spans.append(None)
            continue
        spans.append(Span(pos, pos + len(needle)))
        cursor = pos + len(needle)
    return spans


# ---------------------------------------------------------------------------------------------
# MuSHROOM (SemEval-2025 Task 3)
# ---------------------------------------------------------------------------------------------


def _mushroom_soft_labels(row: _Row, length: int) -> list[dict[str, Any]] | None:
    if not row.has("soft_labels"):
        return None
    items = row.items("soft_labels")
    problem = (
        "must be a list of {start, end, prob} objects with "
        "0 <= start <= end <= len(model_output_text) and 0 <= prob <= 1"
    )
    soft: list[dict[str, Any]] = []
    for item in items:
        if not isinstance(item, Mapping):
            raise row.error("soft_labels", problem)
        start, end, prob = item.get("start"), item.get("end"), item.get("prob")
        if not (_is_int(start) and _is_int(end) and 0 <= start <= end <= length):
            raise row.error("soft_labels", problem)
        if isinstance(prob, bool) or not isinstance(prob, (int, float)) or not 0 <= prob <= 1:
            raise row.error("soft_labels", problem)
        soft.append({"start": start, "end": end, "prob": float(prob)})
    return soft


def load_mushroom(path: PathLike, *, name: str = "mushroom") -> Benchmark:
    """MuSHROOM (SemEval-2025 Task 3) JSON lines, with or without a ``context`` field.

    Fields: ``id``, ``model_input`` (the question), ``model_output_text`` (the answer),
    ``hard_labels`` (``[[start, end], ...]`` into the answer), optional ``soft_labels``
    (``[{start, end, prob}]``), optional ``context`` (the page text added for this project's
    dev sample). Rows without context are kept with context "" and counted in
    ``flagged["missing_context"]``. ``metadata`` keeps ``lang``, ``model_id``,
    ``wikipedia_url`` and the per-annotator spans (``annotations``) when present.
    """
    path = Path(path)
    examples: list[EvalExample] = []
    flagged: Counter[str] = Counter()
    seen: dict[str, int] = {}
    for row in _read_jsonl(path):
        example_id = row.ident("id")
        _check_unique(row, "id", example_id, seen)
        answer = row.text("model_output_text")
        spans = _pair_spans(
            row, "hard_labels", row.value("hard_labels"), len(answer), "model_output_text"
        )
        soft = _mushroom_soft_labels(row, len(answer))
        metadata: dict[str, Any] = {
            key: row.data[key] for key in ("lang", "model_id", "wikipedia_url") if row.has(key)
        }
        if row.has("annotations"):
            metadata["annotations"] = {}
            for annotator, annotated in row.mapping("annotations").items():
                checked = _pair_spans(
                    row, "annotations", annotated, len(answer), "model_output_text"
                )
                metadata["annotations"][str(annotator)] = [s.to_dict() for s in checked]
        context = _context_or_missing(row.optional_text("context"), metadata, flagged)
        examples.append(
            EvalExample(
                id=example_id,
                question=row.optional_text("model_input"),
                context=context,
                answer=answer,
                gold_spans=spans,
                soft_labels=soft,
                example_label=_non_empty(spans),
                metadata=metadata,
            )
        )
    logger.info("MuSHROOM %s: %d examples, flagged %s", path, len(examples), dict(flagged))
    return Benchmark(name, "span", examples, flagged=dict(flagged), source=str(path))


# ---------------------------------------------------------------------------------------------
# PsiloQA
# ---------------------------------------------------------------------------------------------

_HAL_TAG_RE = re.compile(r"\[(/?)HAL\]")


def _strip_hal_tags(row: _Row, name: str, tagged: str) -> tuple[str, list[Span]]:
    """Remove ``[HAL]…[/HAL]`` tags; return the clean text and the spans (offsets into it).

    Empty ``[HAL][/HAL]`` pairs cover nothing and give no span.
    """
    parts: list[str] = []
    spans: list[Span] = []
    clean_len = 0
    open_at: int | None = None
    last = 0
    for match in _HAL_TAG_RE.finditer(tagged):
        piece = tagged[last : match.start()]
        parts.append(piece)
        clean_len += len(piece)
        last = match.end()
        is_closing = match.group(1) == "/"
        if is_closing and open_at is not None:
            if clean_len > open_at:
                spans.append(Span(open_at, clean_len))
            open_at = None
        elif not is_closing and open_at is None:
            open_at = clean_len
        else:  # a [/HAL] with nothing open, or a [HAL] inside another
            raise row.error(name, "has unbalanced [HAL]…[/HAL] tags")
    if open_at is not None:
        raise row.error(name, "has unbalanced [HAL]…[/HAL] tags")
    parts.append(tagged[last:])
    return "".join(parts), spans


def _non_space_offsets(text: str) -> list[int]:
    return [i for i, c in enumerate(text) if not c.isspace()]


def _remap_spans(spans: list[Span], source: str, target: str) -> list[Span]:
    """Move spans from ``source`` onto ``target``, two texts that differ only in whitespace.

    Each span keeps the non-space characters it covered; a span of only whitespace vanishes.
    """
    src, tgt = _non_space_offsets(source), _non_space_offsets(target)
    rank = {offset: k for k, offset in enumerate(src)}
    moved: list[Span] = []
    for span in spans:
        covered = [rank[i] for i in range(span.start, span.end) if i in rank]
        if covered:
            moved.append(Span(tgt[covered[0]], tgt[covered[-1]] + 1))
    return moved


def _same_but_whitespace(a: str, b: str) -> bool:
    return "".join(a.split()) == "".join(b.split())


@dataclass
class _PsiloRow:
    row: _Row
    question: str
    answer: str
    spans: list[Span]


def _read_psiloqa_file(path: Path) -> dict[str, _PsiloRow]:
    rows: dict[str, _PsiloRow] = {}
    seen: dict[str, int] = {}
    for row in _read_csv(path, ("id", "question", "wiki_passage", "annotated_span")):
        example_id = row.text("id")
        _check_unique(row, "id", example_id, seen)
        answer, spans = _strip_hal_tags(row, "annotated_span", row.text("annotated_span"))
        rows[example_id] = _PsiloRow(row, row.text("question"), answer, spans)
    return rows


def _psiloqa_files(paths: Sequence[PathLike] | PathLike) -> list[Path]:
    if isinstance(paths, (str, os.PathLike)):
        directory = Path(paths)
        if not directory.is_dir():
            return [directory]
        files = sorted(directory.glob("*.csv"))
        if not files:
            raise FileNotFoundError(f"no PsiloQA annotator CSV files in {directory}")
        return files
    files = [Path(p) for p in paths]
    if not files:
        raise ValueError("load_psiloqa_csv needs at least one annotator CSV file")
    return files


def load_psiloqa_csv(
    paths: Sequence[PathLike] | PathLike, *, gold: str | None = None, name: str = "psiloqa"
) -> Benchmark:
    """PsiloQA evaluation sample: one CSV per annotator, spans inline as ``[HAL]…[/HAL]``.

    ``paths`` is a list of CSV files or a directory (its ``*.csv`` files, sorted by name, so
    ``1_annotator.csv`` comes first). Columns used: ``id``, ``question``, ``wiki_passage``
    (the context), ``annotated_span`` (the LLM answer with tags); ``wiki_title``,
    ``wiki_url``, ``llm_checkpoint`` and ``golden_answer`` go to ``metadata``.

    The files carry no untagged answer column, so the answer is the first file's
    ``annotated_span`` with the tags removed. Rows are joined across files on ``id``, and each
    file's question and tag-free answer must equal the first file's: an answer that differs
    only in whitespace has its spans moved onto the first file's text; any other difference
    raises :class:`DatasetError` naming the field. Every file is a separate reference in
    ``Benchmark.references`` (keyed by file stem); ``gold_spans`` are those of the file whose
    stem is ``gold`` (default: the first file — ``1_annotator`` for the shared directory).
    """
    files = _psiloqa_files(paths)
    stems = [f.stem for f in files]
    if len(set(stems)) != len(stems):
        raise ValueError(f"PsiloQA annotator files must have distinct names, got {stems}")
    gold_stem = gold if gold is not None else stems[0]
    if gold_stem not in stems:
        raise ValueError(f"gold annotator {gold_stem!r} is not among the files {stems}")

    tables = [_read_psiloqa_file(f) for f in files]
    base, base_name = tables[0], files[0].name
    for table, file in zip(tables[1:], files[1:], strict=True):
        for example_id, other in table.items():
            if example_id not in base:
                raise other.row.error("id", f"has no row in {base_name}")
        for example_id, first in base.items():
            if example_id not in table:
                raise first.row.error("id", f"has no row in {file.name}")

    references: dict[str, list[list[Span]]] = {stem: [] for stem in stems}
    examples: list[EvalExample] = []
    flagged: Counter[str] = Counter()
    for example_id, first in base.items():
        where = f"{base_name}:{first.row.line}"
        for stem, table in zip(stems, tables, strict=True):
            other = table[example_id]
            if other.question != first.question:
                raise other.row.error("question", f"differs from the question in {where}")
            if other.answer == first.answer:
                references[stem].append(list(other.spans))
            elif _same_but_whitespace(other.answer, first.answer):
                references[stem].append(_remap_spans(other.spans, other.answer, first.answer))
                flagged["whitespace_remapped"] += 1
            else:
                raise other.row.error(
                    "annotated_span", f"with [HAL] tags removed differs from the answer in {where}"
                )
        row = first.row
        metadata: dict[str, Any] = {
            key: row.data[key]
            for key in ("wiki_title", "wiki_url", "llm_checkpoint", "golden_answer")
            if row.data.get(key)
        }
        metadata["gold_annotator"] = gold_stem
        context = _context_or_missing(row.text("wiki_passage"), metadata, flagged)
        gold_spans = list(references[gold_stem][-1])
        examples.append(
            EvalExample(
                id=example_id,
                question=first.question,
                context=context,
                answer=first.answer,
                gold_spans=gold_spans,
                example_label=_non_empty(gold_spans),
                metadata=metadata,
            )
        )
    source = ", ".join(str(f) for f in files)
    logger.info("PsiloQA %s: %d examples, %d references", source, len(examples), len(files))
    return Benchmark(
        name, "span", examples, references=references, flagged=dict(flagged), source=source
    )


def load_psiloqa_hub(
    path: PathLike, *, lang: str | None = None, name: str = "psiloqa"
) -> Benchmark:
    """PsiloQA in the hub schema, as JSON lines: ``wiki_passage`` (context), ``question``,
    ``llm_answer`` (answer), ``labels`` (``[[start, end], ...]`` into ``llm_answer``).

    ``id`` is used when present (else ``line-{n}``). With ``lang`` set, rows of another
    ``lang`` are left out and counted in ``dropped["other_lang"]``.
    """
    path = Path(path)
    examples: list[EvalExample] = []
    dropped: Counter[str] = Counter()
    flagged: Counter[str] = Counter()
    seen: dict[str, int] = {}
    for row in _read_jsonl(path):
        if lang is not None and row.data.get("lang") != lang:
            dropped["other_lang"] += 1
            continue
        example_id = row.ident("id") if row.has("id") else f"line-{row.line}"
        _check_unique(row, "id", example_id, seen)
        answer = row.text("llm_answer")
        spans = _pair_spans(row, "labels", row.value("labels"), len(answer), "llm_answer")
        metadata: dict[str, Any] = {
            key: row.data[key]
            for key in ("lang", "wiki_title", "wiki_url", "llm_checkpoint", "golden_answer")
            if row.data.get(key)
        }
        context = _context_or_missing(row.text("wiki_passage"), metadata, flagged)
        examples.append(
            EvalExample(
                id=example_id,
                question=row.optional_text("question"),
                context=context,
                answer=answer,
                gold_spans=spans,
                example_label=_non_empty(spans),
                metadata=metadata,
            )
        )
    return Benchmark(
        name, "span", examples, dropped=dict(dropped), flagged=dict(flagged), source=str(path)
    )


# ---------------------------------------------------------------------------------------------
# RAGTruth
# ---------------------------------------------------------------------------------------------


def _ragtruth_label_spans(
    row: _Row, name: str, labels: Any, answer: str, answer_field: str, flagged: Counter
) -> tuple[list[Span], list[dict[str, Any]]]:
    """Spans of RAGTruth labels ``[{start, end, text?, ...}]`` into ``answer``.

    A label whose ``text`` is not at ``[start, end)`` is re-anchored by its text (a unique
    match only, counted in ``flagged["reanchored_label"]``); if that fails the row is
    malformed. Returns the spans sorted by start and the labels with corrected offsets.
    """
    shape = (
        f"must be a list of {{start, end, text}} objects with "
        f"0 <= start <= end <= len({answer_field})"
    )
    if not isinstance(labels, list):
        raise row.error(name, shape)
    spans: list[Span] = []
    kept: list[dict[str, Any]] = []
    for index, label in enumerate(labels):
        if not isinstance(label, Mapping):
            raise row.error(name, shape)
        start, end, text = label.get("start"), label.get("end"), label.get("text")
        if not (_is_int(start) and _is_int(end) and 0 <= start <= end <= len(answer)):
            raise row.error(name, shape)
        if text is not None and not isinstance(text, str):
            raise row.error(name, shape)
        span = Span(start, end)
        if text is not None and answer[start:end] != text:
            found = anchor(answer, text)
            if found is None:
                raise row.error(
                    name,
                    f"item {index}: text {text!r} is not at [{start}, {end}) of {answer_field} "
                    f"and does not occur there exactly once",
                )
            logger.debug("%s:%d: label %d re-anchored to %s", row.path, row.line, index, found)
            flagged["reanchored_label"] += 1
            span = found
        spans.append(span)
        kept.append({**label, "start": span.start, "end": span.end})
    order = sorted(range(len(spans)), key=lambda i: (spans[i].start, spans[i].end))
    return [spans[i] for i in order], [kept[i] for i in order]


@dataclass
class _RagtruthSource:
    """One ``source_info.jsonl`` record, with the question and context already built."""

    task_type: str
    question: str | None
    context: str
    prompt: str | None


def _ragtruth_context(row: _Row, task_type: str) -> tuple[str | None, str]:
    """(question, context) as RAGTruth gives them to the generator.

    QA: the question and the passages; Summary: the news text; Data2txt: the structured
    data as ``json.dumps(..., ensure_ascii=False, indent=2)``, one field per line, so that
    evidence selection sees the fields as separate lines. A ``source_info`` that is already a
    string is used as it is.
    """
    info = row.value("source_info")
    if task_type == "QA":
        if not isinstance(info, Mapping):
            raise row.error("source_info", "must be an object with question and passages for QA")
        question, passages = info.get("question"), info.get("passages")
        if isinstance(passages, list) and all(isinstance(p, str) for p in passages):
            passages = "\n\n".join(passages)
        if not isinstance(question, str) or not isinstance(passages, str):
            raise row.error("source_info", "must be an object with question and passages for QA")
        return question, passages
    if isinstance(info, str):
        return None, info
    if task_type == "Data2txt" and isinstance(info, (Mapping, list)):
        return None, json.dumps(info, ensure_ascii=False, indent=2)
    raise row.error("source_info", f"must be a string for {task_type}")


def _read_ragtruth_sources(path: Path) -> dict[str, _RagtruthSource]:
    sources: dict[str, _RagtruthSource] = {}
    seen: dict[str, int] = {}
    for row in _read_jsonl(path):
        source_id = row.ident("source_id")
        _check_unique(row, "source_id", source_id, seen)
        task_type = row.text("task_type")
        if task_type not in _RAGTRUTH_TASKS:
            raise row.error("task_type", f"must be one of {', '.join(_RAGTRUTH_TASKS)}")
        question, context = _ragtruth_context(row, task_type)
        sources[source_id] = _RagtruthSource(
            task_type, question, context, row.optional_text("prompt")
        )
    return sources


def load_ragtruth(
    response_path: PathLike,
    source_info_path: PathLike | None = None,
    split: str | None = None,
    *,
    name: str = "ragtruth",
) -> Benchmark:
    """RAGTruth from its original ``response.jsonl`` (+ ``source_info.jsonl``).

    Responses: ``id``, ``source_id``, ``model``, ``response`` (the answer), ``labels``
    (``[{start, end, text, label_type, implicit_true, due_to_null, meta}]``, offsets into
    ``response``), ``split``, ``quality``. Every label is a gold span, ``implicit_true`` ones
    included (true in the world but not in the source: still unsupported by the context);
    the raw labels stay in ``metadata["labels"]``. Labels are checked with
    ``response[start:end] == text``; see :func:`_ragtruth_label_spans` for re-anchoring.

    Sources: ``source_id``, ``task_type`` (QA / Summary / Data2txt), ``source_info``,
    ``prompt``; the context is built as :func:`_ragtruth_context` documents and the question
    is the QA question (None for the other tasks; the prompt is in ``metadata``). Without
    ``source_info_path`` the contexts are "" and counted in ``flagged["missing_context"]``,
    which is enough to check the label format. With ``split`` set, rows of other splits are
    counted in ``dropped["other_split"]``.
    """
    response_path = Path(response_path)
    sources = _read_ragtruth_sources(Path(source_info_path)) if source_info_path else None
    examples: list[EvalExample] = []
    dropped: Counter[str] = Counter()
    flagged: Counter[str] = Counter()
    seen: dict[str, int] = {}
    for row in _read_jsonl(response_path):
        row_split = row.optional_text("split")
        if split is not None and row_split != split:
            dropped["other_split"] += 1
            continue
        example_id = row.ident("id")
        _check_unique(row, "id", example_id, seen)
        source_id = row.ident("source_id")
        answer = row.text("response")
        spans, labels = _ragtruth_label_spans(
            row, "labels", row.value("labels"), answer, "response", flagged
        )
        metadata: dict[str, Any] = {
            "source_id": source_id,
            "model": row.data.get("model"),
            "split": row_split,
            "quality": row.data.get("quality"),
            "labels": labels,
        }
        question: str | None = None
        context: str | None = None
        if sources is not None:
            if source_id not in sources:
                raise row.error("source_id", f"has no record in {source_info_path}")
            source = sources[source_id]
            question, context = source.question, source.context
            metadata["task_type"] = source.task_type
            metadata["prompt"] = source.prompt
        else:
            metadata["task_type"] = None
        context = _context_or_missing(context, metadata, flagged)
        examples.append(
            EvalExample(
                id=example_id,
                question=question,
                context=context,
                answer=answer,
                gold_spans=spans,
                example_label=_non_empty(spans),
                metadata=metadata,
            )
        )
    source_desc = str(response_path) + (f", {source_info_path}" if source_info_path else "")
    return Benchmark(
        name, "span", examples, dropped=dict(dropped), flagged=dict(flagged), source=source_desc
    )


def load_ragtruth_processed(
    path: PathLike, split: str | None = None, *, name: str = "ragtruth"
) -> Benchmark:
    """RAGTruth in the single-file processed schema (``wandb/RAGTruth-processed``).

    Fields: ``context``, ``output`` (the answer), ``hallucination_labels`` (a JSON string —
    or a list — of ``[{start, end, label, text?}]`` into ``output``), ``task_type``,
    ``split``; optional ``id`` (else ``line-{n}``), ``query`` (the question), ``model``.
    Labels are validated like :func:`load_ragtruth`'s.
    """
    path = Path(path)
    examples: list[EvalExample] = []
    dropped: Counter[str] = Counter()
    flagged: Counter[str] = Counter()
    seen: dict[str, int] = {}
    for row in _read_jsonl(path):
        row_split = row.optional_text("split")
        if split is not None and row_split != split:
            dropped["other_split"] += 1
            continue
        example_id = row.ident("id") if row.has("id") else f"line-{row.line}"
        _check_unique(row, "id", example_id, seen)
        answer = row.text("output")
        raw = row.value("hallucination_labels")
        if isinstance(raw, str):
            try:
                raw = json.loads(raw) if raw.strip() else []
            except json.JSONDecodeError as exc:
                raise row.error("hallucination_labels", f"is not valid JSON ({exc.msg})") from exc
        spans, labels = _ragtruth_label_spans(
            row, "hallucination_labels", raw, answer, "output", flagged
        )
        metadata: dict[str, Any] = {
            "task_type": row.text("task_type"),
            "split": row_split,
            "model": row.data.get("model"),
            "labels": labels,
        }
        context = _context_or_missing(row.text("context"), metadata, flagged)
        examples.append(
            EvalExample(
                id=example_id,
                question=row.optional_text("query"),
                context=context,
                answer=answer,
                gold_spans=spans,
                example_label=_non_empty(spans),
                metadata=metadata,
            )
        )
    return Benchmark(
        name, "span", examples, dropped=dict(dropped), flagged=dict(flagged), source=str(path)
    )


# ---------------------------------------------------------------------------------------------
# Factcheck-Bench
# ---------------------------------------------------------------------------------------------


def _join_evidence(passages: Sequence[str]) -> str:
    """Passages joined by blank lines, exact repeats removed (first occurrence kept)."""
    return "\n\n".join(dict.fromkeys(p.strip() for p in passages if p.strip()))


@dataclass
class _FactcheckClaim:
    text: str
    label: bool | None  # None: the set says it cannot be judged ('unknown', 'NA')
    raw_label: str
    evidence: list[str]


def _factcheck_claims(row: _Row, key: str, sentence: Mapping[str, Any]) -> list[_FactcheckClaim]:
    name = f"sentences.{key}"

    def column(column_name: str) -> list[Any]:
        value = sentence.get(column_name, [])
        if not isinstance(value, list):
            raise row.error(f"{name}.{column_name}", "must be a list")
        return value

    claims = column("claims")
    labels = column("claims_factuality_label")
    human = column("human_evidence")
    auto = column("auto_evidence")
    for column_name, values in (
        ("claims_factuality_label", labels),
        ("human_evidence", human),
        ("auto_evidence", auto),
    ):
        if len(values) != len(claims):
            raise row.error(
                f"{name}.{column_name}",
                f"must have one entry per claim ({len(claims)}), got {len(values)}",
            )
    result: list[_FactcheckClaim] = []
    for index, (text, label, human_ev, auto_ev) in enumerate(
        zip(claims, labels, human, auto, strict=True)
    ):
        if not isinstance(text, str):
            raise row.error(f"{name}.claims", f"item {index} must be a string")
        if not isinstance(human_ev, str):
            raise row.error(f"{name}.human_evidence", f"item {index} must be a string")
        if not isinstance(auto_ev, list) or not all(isinstance(p, str) for p in auto_ev):
            raise row.error(f"{name}.auto_evidence", f"item {index} must be a list of strings")
        parsed = _parse_bool(label)
        if parsed is None and not (label is None or str(label).lower() in ("unknown", "na")):
            raise row.error(
                f"{name}.claims_factuality_label",
                f"item {index} must be true, false, 'unknown' or 'NA', got {label!r}",
            )
        evidence = ([] if human_ev.strip().upper() in ("", "NA") else [human_ev]) + auto_ev
        result.append(_FactcheckClaim(text, parsed, str(label), evidence))
    return result


def load_factcheck(
    path: PathLike,
    level: Literal["sentence", "claim"] = "sentence",
    *,
    name: str | None = None,
) -> Benchmark:
    """Factcheck-Bench (Factcheck-GPT) responses, one example per sentence or per claim.

    Each unit is its own example because Factcheck-Bench's evidence is per claim: the runner
    calls the detector with ``answer`` = the unit and ``context`` = that unit's evidence, and
    the verdict for the whole ``answer`` is the unit's verdict.

    - ``level="sentence"``: ``answer`` = the decontextualised sentence (``decontext``, else
      ``text``); ``context`` = the human evidence (when not ``NA``) and the automatically
      retrieved passages of all its claims, repeats removed, joined by blank lines;
      ``sentence_labels`` = one label spanning the whole answer, hallucinated =
      ``not sentence_factuality_label``. Sentences labelled ``NA`` / None are counted in
      ``dropped["label_na"]``. ``metadata`` has the response, the original sentence text and
      its span in the response (``sentence_span``, None if not located).
    - ``level="claim"``: ``answer`` = the claim, ``context`` = its own evidence,
      ``claim_labels`` = one label with the raw value (``True`` / ``False``). Claims labelled
      ``unknown`` / ``NA`` are counted in ``dropped["label_unknown"]``.

    ``question`` is the user prompt; ids are ``{row}/{sentenceN}`` (``/{claim}``), row
    0-based.
    """
    if level not in ("sentence", "claim"):
        raise ValueError(f"level must be 'sentence' or 'claim', got {level!r}")
    path = Path(path)
    examples: list[EvalExample] = []
    dropped: Counter[str] = Counter()
    flagged: Counter[str] = Counter()
    for row_index, row in enumerate(_read_jsonl(path)):
        prompt = row.optional_text("prompt")
        response = row.text("response")
        sentences = row.mapping("sentences")
        for key, sentence in sentences.items():
            if not isinstance(sentence, Mapping):
                raise row.error(f"sentences.{key}", "must be an object")
            if not isinstance(sentence.get("text"), str):
                raise row.error(f"sentences.{key}.text", "must be a string")
            if not isinstance(sentence.get("decontext") or "", str):
                raise row.error(f"sentences.{key}.decontext", "must be a string")
        # Sentences follow the response, so locating them in order places a repeated one.
        in_order = _locate_in_order(response, [s["text"] for s in sentences.values()])
        for (key, sentence), ordered_span in zip(sentences.items(), in_order, strict=True):
            text = sentence["text"]
            decontext = sentence.get("decontext") or text
            claims = _factcheck_claims(row, key, sentence)
            base_metadata: dict[str, Any] = {
                "response": response,
                "sentence_key": key,
                "sentence_text": text,
            }
            if level == "claim":
                for claim_index, claim in enumerate(claims):
                    if claim.label is None:
                        dropped["label_unknown"] += 1
                        continue
                    hallucinated = not claim.label
                    metadata = {**base_metadata, "claim_index": claim_index}
                    examples.append(
                        EvalExample(
                            id=f"{row_index}/{key}/{claim_index}",
                            question=prompt,
                            context=_context_or_missing(
                                _join_evidence(claim.evidence), metadata, flagged
                            ),
                            answer=claim.text,
                            claim_labels=[ClaimLabel(claim.text, hallucinated, claim.raw_label)],
                            example_label=hallucinated,
                            metadata=metadata,
                        )
                    )
                continue
            raw_label = sentence.get("sentence_factuality_label")
            label = _parse_bool(raw_label)
            if label is None:
                if raw_label is None or str(raw_label).upper() == "NA":
                    dropped["label_na"] += 1
                    continue
                raise row.error(
                    f"sentences.{key}.sentence_factuality_label",
                    f"must be true, false or 'NA', got {raw_label!r}",
                )
            hallucinated = not label
            located = ordered_span or anchor(response, text)
            if located is None:
                flagged["sentence_not_located"] += 1
            metadata = {
                **base_metadata,
                "sentence_span": located.to_dict() if located else None,
            }
            context = _join_evidence([e for claim in claims for e in claim.evidence])
            examples.append(
                EvalExample(
                    id=f"{row_index}/{key}",
                    question=prompt,
                    context=_context_or_missing(context, metadata, flagged),
                    answer=decontext,
                    sentence_labels=[
                        SentenceLabel(Span(0, len(decontext)), decontext, hallucinated)
                    ],
                    example_label=hallucinated,
                    metadata=metadata,
                )
            )
    default_name = "factcheck" if level == "sentence" else "factcheck_claims"
    return Benchmark(
        name or default_name,
        level,
        examples,
        dropped=dict(dropped),
        flagged=dict(flagged),
        source=str(path),
    )


# ---------------------------------------------------------------------------------------------
# Sentence-level samples (RAGTruth-250 / ANAH-250)
# ---------------------------------------------------------------------------------------------


def _sample_sentence_span(row: _Row, output: str, sentence: str) -> Span | None:
    """The sentence's span in the whole answer.

    With ``answer_sentences`` and ``sentence_index`` the answer's sentences are located in
    order, which places a repeated sentence ("3.") at its own occurrence; otherwise (or if
    that fails) the sentence is anchored on its own, unique matches only.
    """
    pieces = row.data.get("answer_sentences")
    index = row.data.get("sentence_index")
    if (
        isinstance(pieces, list)
        and all(isinstance(p, str) for p in pieces)
        and _is_int(index)
        and 0 <= index < len(pieces)
        and pieces[index].strip() == sentence.strip()
    ):
        located = _locate_in_order(output, pieces)[index]
        if located is not None:
            return located
    return anchor(output, sentence)


def load_sentence_sample(path: PathLike, *, name: str = "sentence_sample") -> Benchmark:
    """Sentence-level samples in the RAGTruth-250 / ANAH-250 schema, one example per row.

    Fields: ``sentence``, ``context`` (or ``reference``), ``question``, ``output`` (the whole
    answer), ``task_type``, ``gold_supported`` (bool, 0/1 or "true"/"false"); optional
    ``answer_sentences`` + ``sentence_index`` (used to locate a repeated sentence),
    ``hallucination_type``, ``model``, ``row_id``, ``example_index``.

    ``answer`` is ``output`` when present, with the sentence's span in ``sentence_labels``
    (None if it cannot be located, counted in ``flagged["sentence_not_located"]``); without
    ``output`` the answer is the sentence itself. Ids are ``{row_id}:{sentence_index}`` when
    both are given, else ``line-{n}``.
    """
    path = Path(path)
    examples: list[EvalExample] = []
    flagged: Counter[str] = Counter()
    seen: dict[str, int] = {}
    for row in _read_jsonl(path):
        sentence = row.text("sentence")
        context_field = "context" if row.has("context") else "reference"
        context = row.optional_text(context_field)
        output = row.optional_text("output")
        supported = _parse_bool(row.value("gold_supported"))
        if supported is None:
            raise row.error("gold_supported", "must be true or false")
        if row.has("row_id") and row.has("sentence_index"):
            example_id = f"{row.ident('row_id')}:{row.ident('sentence_index')}"
        else:
            example_id = f"line-{row.line}"
        _check_unique(row, "id", example_id, seen)
        if output:
            answer = output
            span = _sample_sentence_span(row, output, sentence)
            if span is None:
                flagged["sentence_not_located"] += 1
        else:
            answer, span = sentence, Span(0, len(sentence))
        metadata: dict[str, Any] = {
            key: row.data[key]
            for key in (
                "task_type",
                "hallucination_type",
                "model",
                "row_id",
                "example_index",
                "sentence_index",
            )
            if row.has(key)
        }
        examples.append(
            EvalExample(
                id=example_id,
                question=row.optional_text("question") or None,
                context=_context_or_missing(context, metadata, flagged),
                answer=answer,
                sentence_labels=[SentenceLabel(span, sentence, not supported)],
                example_label=not supported,
                metadata=metadata,
            )
        )
    return Benchmark(name, "sentence", examples, flagged=dict(flagged), source=str(path))


# ---------------------------------------------------------------------------------------------
# HalluEntity and EnokiQA
# ---------------------------------------------------------------------------------------------


def _entity_spans(response: str, entities: Sequence[str]) -> list[Span | None]:
    """Entity spans: exact pieces when the entities concatenate to the response, else the
    entities located in order."""
    if "".join(entities) == response:
        spans: list[Span | None] = []
        pos = 0
        for piece in entities:
            spans.append(Span(pos, pos + len(piece)))
            pos += len(piece)
        return spans
    return _locate_in_order(response, entities)


def _read_contexts(path: Path) -> tuple[list[str], dict[str, str], int]:
    """Contexts from a CSV or JSON-lines file with a ``text`` (or ``context``) column:
    (in file order, by ``id`` when the file has one, last line number)."""
    rows = list(_read_csv(path, ())) if path.suffix.lower() == ".csv" else list(_read_jsonl(path))
    ordered: list[str] = []
    by_id: dict[str, str] = {}
    for row in rows:
        column = "text" if "text" in row.data else "context"
        text = row.text(column)
        ordered.append(text)
        if row.data.get("id") not in (None, ""):
            by_id[row.ident("id")] = text
    return ordered, by_id, rows[-1].line if rows else 0


def load_halluentity(
    path: PathLike, contexts_path: PathLike | None = None, *, name: str = "halluentity"
) -> Benchmark:
    """HalluEntity (JSON lines): ``response``, ``entity`` (list of strings), ``entity_label``
    (parallel list), optional ``prompt`` (the question) and ``id``.

    In HalluEntity ``entity_label`` is True for a FACTUAL entity, so ``hallucinated = not
    entity_label``. Entities are located in the response (exact pieces when they concatenate
    to it, else in order); one not found gets span None and is counted in
    ``flagged["entity_not_located"]``.

    ``contexts_path`` (the Wikipedia pages, not part of the release) is a CSV or JSON-lines
    file with a ``text`` (or ``context``) column, joined on ``id`` when both files have ids,
    else aligned row by row (the counts must agree). Without it the contexts are "" and
    counted in ``flagged["missing_context"]``.
    """
    path = Path(path)
    rows = list(_read_jsonl(path))
    contexts: list[str | None] = [None] * len(rows)
    if contexts_path is not None:
        contexts_path = Path(contexts_path)
        ordered, by_id, last_line = _read_contexts(contexts_path)
        if by_id and all(row.has("id") for row in rows):
            for i, row in enumerate(rows):
                contexts[i] = by_id.get(row.ident("id"))
        elif len(ordered) != len(rows):
            raise DatasetError(
                contexts_path,
                last_line,
                "text",
                f"gives {len(ordered)} contexts for the {len(rows)} rows of {path}",
            )
        else:
            contexts = list(ordered)

    examples: list[EvalExample] = []
    flagged: Counter[str] = Counter()
    seen: dict[str, int] = {}
    for index, row in enumerate(rows):
        example_id = row.ident("id") if row.has("id") else str(index)
        _check_unique(row, "id", example_id, seen)
        response = row.text("response")
        entities = row.items("entity")
        labels = row.items("entity_label")
        if not all(isinstance(e, str) for e in entities):
            raise row.error("entity", "must be a list of strings")
        if len(labels) != len(entities):
            raise row.error(
                "entity_label",
                f"must have one label per entity ({len(entities)}), got {len(labels)}",
            )
        factual = [_parse_bool(x) for x in labels]
        if any(x is None for x in factual):
            raise row.error("entity_label", "must be a list of true / false values")
        spans = _entity_spans(response, entities)
        not_located = sum(s is None for s in spans)
        if not_located:
            flagged["entity_not_located"] += not_located
        entity_labels = [
            EntityLabel(span, text, not ok)
            for span, text, ok in zip(spans, entities, factual, strict=True)
        ]
        metadata: dict[str, Any] = {}
        examples.append(
            EvalExample(
                id=example_id,
                question=row.optional_text("prompt"),
                context=_context_or_missing(contexts[index], metadata, flagged),
                answer=response,
                entity_labels=entity_labels,
                example_label=any(e.hallucinated for e in entity_labels),
                metadata=metadata,
            )
        )
    source = str(path) + (f", {contexts_path}" if contexts_path else "")
    return Benchmark(name, "entity", examples, flagged=dict(flagged), source=source)


def _enokiqa_claims(
    row: _Row, answer: str, flagged: Counter
) -> tuple[list[ClaimLabel], list[dict[str, int] | None]] | None:
    """Fact-level labels from ``facts``: (claims, each fact's span in the answer or None)."""
    if not row.has("facts"):
        return None
    facts = row.items("facts")
    claims: list[ClaimLabel] = []
    spans: list[dict[str, int] | None] = []
    for index, fact in enumerate(facts):
        if not isinstance(fact, Mapping):
            raise row.error("facts", f"item {index} must be an object")
        text = fact.get("fact")
        if text is None and all(isinstance(fact.get(k), str) for k in ("subject", "relation")):
            text = " ".join(str(fact[k]) for k in ("subject", "relation", "object") if fact.get(k))
        if not isinstance(text, str):
            raise row.error("facts", f"item {index} needs a 'fact' string or subject/relation")
        label, hall_prob = fact.get("label"), fact.get("hall_prob")
        if isinstance(label, str):
            hallucinated = label.strip().lower() not in _SUPPORTED_LABELS
        elif isinstance(hall_prob, (int, float)) and not isinstance(hall_prob, bool):
            hallucinated = hall_prob >= 0.5
            probs = [fact.get(k) for k in _NLI_LABELS]
            if all(isinstance(p, (int, float)) for p in probs):
                label = _NLI_LABELS[max(range(3), key=lambda i: probs[i])]
            else:
                label = "hallucinated" if hallucinated else "supported"
        else:
            raise row.error("facts", f"item {index} needs a 'label' string or a 'hall_prob'")
        claims.append(ClaimLabel(text, hallucinated, label))
        start, end = fact.get("span_start"), fact.get("span_end")
        span: Span | None = None
        if _is_int(start) and _is_int(end):
            if not 0 <= start <= end <= len(answer):
                raise row.error(
                    "facts", f"item {index}: span_start/span_end must lie within the answer"
                )
            span = Span(start, end)
            span_text = fact.get("span_text")
            if isinstance(span_text, str) and answer[start:end] != span_text:
                span = anchor(answer, span_text)
                flagged["reanchored_fact" if span else "fact_not_located"] += 1
        spans.append(span.to_dict() if span else None)
    return claims, spans


def load_enokiqa(
    path: PathLike, *, context_field: str | None = None, name: str = "enokiqa"
) -> Benchmark:
    """EnokiQA (JSON lines): ``question``, ``answer``, a context and optional ``facts``.

    The context is ``context_field`` when given, else the first of ``context``,
    ``paragraph_context``, ``full_page_context`` the row has. ``facts`` (test split) are
    fact/triple-level NLI labels: each has ``fact`` (or ``subject`` / ``relation`` /
    ``object``) and a ``label`` string (entailment / supported = not hallucinated) or a
    ``hall_prob`` (>= 0.5 = hallucinated; the raw label is then the NLI argmax when the three
    probabilities are given); they become ``claim_labels``, with their spans in the answer in
    ``metadata["fact_spans"]``. Ids are ``id`` when present, else ``line-{n}``.
    """
    path = Path(path)
    examples: list[EvalExample] = []
    flagged: Counter[str] = Counter()
    seen: dict[str, int] = {}
    for row in _read_jsonl(path):
        example_id = row.ident("id") if row.has("id") else f"line-{row.line}"
        _check_unique(row, "id", example_id, seen)
        answer = row.text("answer")
        if context_field is not None:
            column = context_field
        else:
            candidates = ("context", "paragraph_context", "full_page_context")
            column = next((c for c in candidates if c in row.data), "context")
        metadata: dict[str, Any] = {"context_field": column}
        for key in ("title", "answer_model", "split", "wiki_url"):
            if row.has(key):
                metadata[key] = row.data[key]
        claims = _enokiqa_claims(row, answer, flagged)
        claim_labels = None
        if claims is not None:
            claim_labels, metadata["fact_spans"] = claims
        examples.append(
            EvalExample(
                id=example_id,
                question=row.optional_text("question"),
                context=_context_or_missing(row.optional_text(column), metadata, flagged),
                answer=answer,
                claim_labels=claim_labels,
                example_label=None
                if claim_labels is None
                else any(c.hallucinated for c in claim_labels),
                metadata=metadata,
            )
        )
    return Benchmark(name, "claim", examples, flagged=dict(flagged), source=str(path))


# ---------------------------------------------------------------------------------------------
# WiCE
# ---------------------------------------------------------------------------------------------


def _wice_label(row: _Row) -> str:
    label = row.text("label")
    if label not in _WICE_LABELS:
        raise row.error("label", f"must be one of {', '.join(_WICE_LABELS)}")
    return label


def _wice_evidence(row: _Row) -> list[str]:
    evidence = row.items("evidence")
    if not all(isinstance(s, str) for s in evidence):
        raise row.error("evidence", "must be a list of strings")
    return evidence


def _sentence_offsets(sentences: Sequence[str], separator: str = "\n") -> list[Span]:
    """Offsets of each sentence in ``separator.join(sentences)``."""
    spans: list[Span] = []
    pos = 0
    for sentence in sentences:
        spans.append(Span(pos, pos + len(sentence)))
        pos += len(sentence) + len(separator)
    return spans


def _wice_example(
    example_id: str,
    claim: str,
    label: str,
    sentences: list[str],
    supporting: list[list[int]],
    positions: Mapping[int, int],
    meta: Mapping[str, Any],
    flagged: Counter,
    extra: dict[str, Any],
) -> EvalExample:
    """One WiCE claim; ``positions`` maps a document sentence index to its place in
    ``sentences`` (the identity for the full document)."""
    offsets = _sentence_offsets(sentences)
    metadata: dict[str, Any] = {
        "supporting_sentences": supporting,
        "supporting_spans": [
            [offsets[positions[i]].to_dict() for i in group if i in positions]
            for group in supporting
        ],
        **{k: meta[k] for k in ("claim_title", "claim_section", "claim_context") if k in meta},
        **extra,
    }
    hallucinated = label != "supported"
    return EvalExample(
        id=example_id,
        question=None,
        context=_context_or_missing("\n".join(sentences), metadata, flagged),
        answer=claim,
        claim_labels=[ClaimLabel(claim, hallucinated, label)],
        example_label=hallucinated,
        metadata=metadata,
    )


def load_wice(path: PathLike, *, name: str | None = None) -> Benchmark:
    """WiCE claims (claim-level), from ``claims_*.jsonl`` or ``oracle_chunks_*.jsonl``.

    ``answer`` = the claim; ``claim_labels`` = one label with the raw value (supported /
    partially_supported / not_supported), hallucinated = label != supported; the context is
    evidence sentences joined by newlines. ``metadata["supporting_sentences"]`` holds the
    alternative sets of supporting sentence indices (into the cited document) and
    ``metadata["supporting_spans"]`` the same sentences as ``{start, end}`` offsets into the
    context.

    The file kind is recognised from its rows:

    - full document (rows have ``supporting_sentences``): one example per row, context = the
      whole cited page (``evidence``);
    - oracle chunks (``meta.chunk_idx``; several chunk rows per claim): the rows of one
      claim ``meta.id`` are merged into one example — so both files give the same claims —
      whose context is the union of the chunks' sentences in document order;
      ``supporting_sentences`` are the distinct ``meta.oracle_idx`` sets. All chunks of a
      claim must agree on claim and label.
    """
    path = Path(path)
    rows = list(_read_jsonl(path))
    oracle = bool(rows) and "supporting_sentences" not in rows[0].data
    examples: list[EvalExample] = []
    flagged: Counter[str] = Counter()
    if not oracle:
        seen: dict[str, int] = {}
        for row in rows:
            meta = row.mapping("meta")
            example_id = _wice_meta_id(row, meta)
            _check_unique(row, "meta.id", example_id, seen)
            claim, label, evidence = row.text("claim"), _wice_label(row), _wice_evidence(row)
            supporting = _wice_index_sets(
                row, "supporting_sentences", row.value("supporting_sentences"), len(evidence)
            )
            examples.append(
                _wice_example(
                    example_id,
                    claim,
                    label,
                    evidence,
                    supporting,
                    {i: i for i in range(len(evidence))},
                    meta,
                    flagged,
                    {},
                )
            )
        return Benchmark(name or "wice", "claim", examples, flagged=dict(flagged), source=str(path))

    groups: dict[str, list[_Row]] = {}
    for row in rows:
        groups.setdefault(_wice_meta_id(row, row.mapping("meta")), []).append(row)
    for example_id, chunk_rows in groups.items():
        first = chunk_rows[0]
        claim, label = first.text("claim"), _wice_label(first)
        sentences: dict[int, str] = {}
        origin: dict[int, int] = {}
        chunks: list[list[int]] = []
        supporting: list[list[int]] = []
        for row in chunk_rows:
            if row.text("claim") != claim:
                raise row.error(
                    "claim", f"differs from the claim on line {first.line} for the same meta.id"
                )
            if _wice_label(row) != label:
                raise row.error(
                    "label", f"differs from the label on line {first.line} for the same meta.id"
                )
            meta = row.mapping("meta")
            evidence = _wice_evidence(row)
            chunk_idx = meta.get("chunk_idx")
            if (
                not isinstance(chunk_idx, list)
                or len(chunk_idx) != len(evidence)
                or not all(_is_int(i) and i >= 0 for i in chunk_idx)
            ):
                raise row.error(
                    "meta.chunk_idx", "must list one sentence index per evidence sentence"
                )
            for i, sentence in zip(chunk_idx, evidence, strict=True):
                if sentences.setdefault(i, sentence) != sentence:
                    raise row.error(
                        "evidence", f"gives another text for sentence {i} than line {origin[i]}"
                    )
                origin.setdefault(i, row.line)
            chunks.append(list(chunk_idx))
            if meta.get("oracle_idx") is not None:
                group = _wice_index_sets(row, "meta.oracle_idx", [meta["oracle_idx"]], None)[0]
                if group not in supporting:
                    supporting.append(group)
        order = sorted(sentences)
        examples.append(
            _wice_example(
                example_id,
                claim,
                label,
                [sentences[i] for i in order],
                supporting,
                {doc_index: k for k, doc_index in enumerate(order)},
                first.mapping("meta"),
                flagged,
                {"chunk_idx": chunks},
            )
        )
    return Benchmark(
        name or "wice_oracle", "claim", examples, flagged=dict(flagged), source=str(path)
    )


def _wice_meta_id(row: _Row, meta: Mapping[str, Any]) -> str:
    value = meta.get("id")
    if not isinstance(value, str) or not value:
        raise row.error("meta.id", "must be a non-empty string")
    return value


def _wice_index_sets(row: _Row, name: str, value: Any, n_sentences: int | None) -> list[list[int]]:
    """A list of lists of sentence indices (each below ``n_sentences`` when given)."""
    problem = "must be a list of lists of sentence indices" + (
        f" below {n_sentences}" if n_sentences is not None else ""
    )
    if not isinstance(value, list):
        raise row.error(name, problem)
    groups: list[list[int]] = []
    for group in value:
        if not isinstance(group, list) or not all(
            _is_int(i) and i >= 0 and (n_sentences is None or i < n_sentences) for i in group
        ):
            raise row.error(name, problem)
        groups.append(list(group))
    return groups


# ---------------------------------------------------------------------------------------------
# CaRB (OpenIE)
# ---------------------------------------------------------------------------------------------


def load_carb(sentences_path: PathLike, gold_path: PathLike) -> CarbGold:
    """CaRB sentences (one a line) and gold tuples (TSV: sentence, RELATION, arg1, arg2, …).

    Tuples are returned as ``(arg1, relation, [arg2, ...])`` — the order
    :func:`enoki_hd.eval.metrics.carb_score` takes — with empty argument columns left out.
    Sentences are compared after stripping surrounding whitespace (some gold rows carry a
    trailing space the sentence file does not); keys are the sentence file's text. A gold
    sentence that is not in the sentence file is a malformed row.
    """
    sentences_path, gold_path = Path(sentences_path), Path(gold_path)
    with sentences_path.open(encoding="utf-8") as handle:
        sentences = [line.strip() for line in handle if line.strip()]
    known = set(sentences)
    gold: dict[str, list[tuple[str, str, list[str]]]] = {}
    with gold_path.open(encoding="utf-8", newline="") as handle:
        for line_no, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            columns = line.rstrip("\r\n").split("\t")
            sentence = columns[0].strip()
            if sentence not in known:
                raise DatasetError(
                    gold_path, line_no, "sentence", f"is not in {sentences_path.name}"
                )
            if len(columns) < 3:
                raise DatasetError(gold_path, line_no, "arg1", "is missing")
            relation, arg1 = columns[1].strip(), columns[2].strip()
            if not relation:
                raise DatasetError(gold_path, line_no, "relation", "is empty")
            if not arg1:
                raise DatasetError(gold_path, line_no, "arg1", "is empty")
            args = [a.strip() for a in columns[3:] if a.strip()]
            gold.setdefault(sentence, []).append((arg1, relation, args))
    without = len(known - gold.keys())
    if without:
        logger.info("CaRB: %d of %d sentences have no gold tuple", without, len(known))
    return CarbGold(sentences, gold)


# ---------------------------------------------------------------------------------------------
# Registry over the shared data folder
# ---------------------------------------------------------------------------------------------


def _shared_file(shared_dir: Path, relative: str) -> Path:
    path = shared_dir / relative
    if not path.exists():
        raise FileNotFoundError(
            f"benchmark file {path} does not exist; point the {SHARED_DIR_ENV} environment "
            f"variable (or shared_dir) at the shared data folder that holds {relative}"
        )
    return path


def _mushroom_dev30(shared: Path) -> Benchmark:
    return load_mushroom(
        _shared_file(
            shared, "benchmarks/mushroom_dev30/mushroom.en-tst.v1.dev30.with_context.jsonl"
        ),
        name="mushroom_dev30",
    )


def _psiloqa_en50(shared: Path) -> Benchmark:
    names = ("1_annotator.csv", "2_annotator.csv", "3_annotator.csv", "gpt.csv")
    files = [_shared_file(shared, f"benchmarks/psiloqa_en50/{n}") for n in names]
    return load_psiloqa_csv(files, name="psiloqa_en50")


def _ragtruth_sent48(shared: Path) -> Benchmark:
    return load_sentence_sample(
        _shared_file(shared, "benchmarks/ragtruth_sent48/ragtruth_sentence_dev48.jsonl"),
        name="ragtruth_sent48",
    )


def _factcheck_dev30(shared: Path) -> Benchmark:
    return load_factcheck(
        _shared_file(shared, "benchmarks/factcheck_bench/factcheck_gpt_dev30.jsonl"),
        "sentence",
        name="factcheck_dev30",
    )


def _factcheck_dev30_claims(shared: Path) -> Benchmark:
    return load_factcheck(
        _shared_file(shared, "benchmarks/factcheck_bench/factcheck_gpt_dev30.jsonl"),
        "claim",
        name="factcheck_dev30_claims",
    )


def _wice_dev(shared: Path) -> Benchmark:
    return load_wice(_shared_file(shared, "benchmarks/wice_dev/claims_dev.jsonl"), name="wice_dev")


def _wice_dev_oracle(shared: Path) -> Benchmark:
    return load_wice(
        _shared_file(shared, "benchmarks/wice_dev/oracle_chunks_dev.jsonl"),
        name="wice_dev_oracle",
    )


# Config name -> loader over the shared data folder.
BENCHMARKS: dict[str, Callable[[Path], Benchmark]] = {
    "mushroom_dev30": _mushroom_dev30,
    "psiloqa_en50": _psiloqa_en50,
    "ragtruth_sent48": _ragtruth_sent48,
    "factcheck_dev30": _factcheck_dev30,
    "factcheck_dev30_claims": _factcheck_dev30_claims,
    "wice_dev": _wice_dev,
    "wice_dev_oracle": _wice_dev_oracle,
}


def load_benchmark(name: str, shared_dir: PathLike | None = None) -> Benchmark:
    """Load the benchmark registered as ``name`` from the shared data folder.

    ``shared_dir`` defaults to the ``ENOKI_SHARED_DIR`` environment variable. An unknown name
    raises ValueError listing the known ones; absent files raise FileNotFoundError naming the
    missing path.
    """
    if name not in BENCHMARKS:
        raise ValueError(f"unknown benchmark {name!r}; known: {', '.join(sorted(BENCHMARKS))}")
    if shared_dir is None:
        shared_dir = os.environ.get(SHARED_DIR_ENV)
        if not shared_dir:
            raise FileNotFoundError(
                f"no shared data folder given: pass shared_dir or set {SHARED_DIR_ENV}"
            )
    benchmark = BENCHMARKS[name](Path(shared_dir))
    logger.info(
        "loaded %s: %d examples, dropped %s, flagged %s",
        name,
        len(benchmark),
        benchmark.dropped,
        benchmark.flagged,
    )
    return benchmark
