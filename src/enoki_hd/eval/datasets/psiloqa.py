"""PsiloQA: the per-annotator CSV evaluation sample and the hub JSON-lines schema."""

from __future__ import annotations

import logging
import os
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from enoki_hd.eval.datasets.rows import (
    Row,
    check_unique,
    context_or_missing,
    pair_spans,
    read_csv,
    read_jsonl,
    span_example,
)
from enoki_hd.eval.datasets.schema import Benchmark, EvalExample, PathLike
from enoki_hd.types import Span

logger = logging.getLogger(__name__)


_HAL_TAG_RE = re.compile(r"\[(/?)HAL\]")


def _strip_hal_tags(row: Row, name: str, tagged: str) -> tuple[str, list[Span]]:
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
    row: Row
    question: str
    answer: str
    spans: list[Span]


def _read_psiloqa_file(path: Path) -> dict[str, _PsiloRow]:
    rows: dict[str, _PsiloRow] = {}
    seen: dict[str, tuple[Path, int]] = {}
    for row in read_csv(path, ("id", "question", "wiki_passage", "annotated_span")):
        example_id = row.text("id")
        check_unique(row, "id", example_id, seen)
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
        raise ValueError(
            "benchmark.gold (the annotator whose spans are gold) must name one of the "
            f"annotator files: {', '.join(stems)}; got {gold_stem!r}"
        )

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
        context = context_or_missing(row.text("wiki_passage"), metadata, flagged)
        gold_spans = list(references[gold_stem][-1])
        examples.append(
            span_example(
                example_id,
                first.question,
                context,
                first.answer,
                gold_spans,
                metadata,
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
    seen: dict[str, tuple[Path, int]] = {}
    for row in read_jsonl(path):
        if lang is not None and row.data.get("lang") != lang:
            dropped["other_lang"] += 1
            continue
        example_id = row.ident("id") if row.has("id") else f"line-{row.line}"
        check_unique(row, "id", example_id, seen)
        answer = row.text("llm_answer")
        spans = pair_spans(row, "labels", row.value("labels"), len(answer), "llm_answer")
        metadata: dict[str, Any] = {
            key: row.data[key]
            for key in ("lang", "wiki_title", "wiki_url", "llm_checkpoint", "golden_answer")
            if row.data.get(key)
        }
        context = context_or_missing(row.text("wiki_passage"), metadata, flagged)
        examples.append(
            span_example(
                example_id,
                row.optional_text("question"),
                context,
                answer,
                spans,
                metadata,
            )
        )
    return Benchmark(
        name, "span", examples, dropped=dict(dropped), flagged=dict(flagged), source=str(path)
    )
