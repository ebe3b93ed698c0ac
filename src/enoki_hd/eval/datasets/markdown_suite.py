"""The Markdown section of the capability suite: hand-written Markdown answers
(``data/capabilities_markdown/markdown.jsonl``) with exact gold for what is wrong, what is
structure and what is a table cell.

Each row is ``{id, category, context, answer, hallucinated, structural, table_cells,
rationale}``. Every span is given as ``{"text", "occurrence"}``: an exact substring of
``answer`` and its 0-based index among that substring's occurrences (searched left to right,
each after the previous one's start); ``occurrence`` may be left out only when the text occurs
once. ``hallucinated`` holds the wrong characters, ``structural`` the text that states no
checkable fact (each with a ``kind``: heading, lead-in, table header, meta, question, opinion,
instruction, code) and ``table_cells`` every body cell of every table except the row-label
column (with its ``row`` label, column ``header`` and whether the context ``supported`` it).

An example carries the hallucinated spans as its gold spans and the structure and cells, as
half-open offsets into the answer, in ``metadata``; :func:`markdown_metrics` reports false
alarms on structure and recall on table cells, overall and per category.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from enoki_hd.eval.datasets.rows import Row, check_unique, is_int, read_jsonl, span_example
from enoki_hd.eval.datasets.schema import Benchmark, EvalExample, PathLike
from enoki_hd.types import Span

MARKDOWN_CATEGORIES = (
    "heading", "lead_in", "list", "nested_list", "numbered_steps", "table", "code", "link",
    "meta", "question", "opinion", "mixed",
)  # fmt: skip
STRUCTURAL_KINDS = (
    "heading", "lead_in", "table_header", "meta", "question", "opinion", "instruction", "code",
)  # fmt: skip
# the package's data/ links to the repository's (an installed package holds a copy)
SUITE_FILE = (
    Path(__file__).resolve().parents[2] / "data" / "capabilities_markdown" / "markdown.jsonl"
).resolve()


def occurrences(text: str, piece: str) -> list[int]:
    """Start offsets of every occurrence of ``piece`` in ``text``, each searched after the
    previous one's start (so overlapping occurrences count)."""
    starts: list[int] = []
    pos = text.find(piece)
    while pos >= 0:
        starts.append(pos)
        pos = text.find(piece, pos + 1)
    return starts


def quoted_span(row: Row, field: str, index: int, item: Any, answer: str) -> Span:
    """Item ``index`` of ``row``'s list ``field``, ``{"text", "occurrence"}``, as its span in
    ``answer`` (``occurrence`` may be left out when the text occurs once).

    Raises:
        DatasetError: the item is no such object, its text is not in the answer, or its
            occurrence is missing where needed or out of range (named with the row's line).
    """
    where = f"{field}[{index}]"
    if not isinstance(item, Mapping):
        raise row.error(field, f"item {index} must be an object with text and occurrence")
    text = item.get("text")
    if not isinstance(text, str) or not text:
        raise row.error(field, f"item {index} needs a non-empty string 'text'")
    starts = occurrences(answer, text)
    if not starts:
        raise row.error(field, f"{where} text {text!r} does not occur in the answer")
    occurrence = item.get("occurrence")
    if occurrence is None:
        if len(starts) > 1:
            raise row.error(
                field,
                f"{where} text {text!r} occurs {len(starts)} times in the answer; give its "
                "0-based 'occurrence'",
            )
        occurrence = 0
    if not is_int(occurrence) or not 0 <= occurrence < len(starts):
        raise row.error(
            field,
            f"{where} occurrence {occurrence!r} of {text!r} is out of range: it occurs "
            f"{len(starts)} time(s), so occurrence must be 0 to {len(starts) - 1}",
        )
    start = starts[occurrence]
    return Span(start, start + len(text))


def _string(row: Row, field: str, index: int, item: Mapping[str, Any], key: str) -> str:
    value = item.get(key)
    if not isinstance(value, str):
        raise row.error(field, f"{field}[{index}] needs a string '{key}'")
    return value


def _example(row: Row) -> EvalExample:
    answer = row.text("answer")
    category = row.text("category")
    if category not in MARKDOWN_CATEGORIES:
        raise row.error(
            "category", f"must be one of {', '.join(MARKDOWN_CATEGORIES)}, got {category!r}"
        )
    gold = [
        quoted_span(row, "hallucinated", i, item, answer)
        for i, item in enumerate(row.items("hallucinated"))
    ]
    structural = []
    for i, item in enumerate(row.items("structural")):
        span = quoted_span(row, "structural", i, item, answer)
        kind = _string(row, "structural", i, item, "kind")
        if kind not in STRUCTURAL_KINDS:
            raise row.error(
                "structural",
                f"structural[{i}] kind must be one of {', '.join(STRUCTURAL_KINDS)}, got {kind!r}",
            )
        structural.append({"start": span.start, "end": span.end, "kind": kind})
    cells = []
    for i, item in enumerate(row.items("table_cells")):
        span = quoted_span(row, "table_cells", i, item, answer)
        supported = item.get("supported")
        if not isinstance(supported, bool):
            raise row.error("table_cells", f"table_cells[{i}] needs a boolean 'supported'")
        cells.append(
            {
                "start": span.start,
                "end": span.end,
                "row": _string(row, "table_cells", i, item, "row"),
                "header": _string(row, "table_cells", i, item, "header"),
                "supported": supported,
            }
        )
    metadata = {
        "category": category,
        "structural": structural,
        "table_cells": cells,
        "rationale": row.text("rationale"),
        "markdown_suite": True,
    }
    # gold spans are never empty (their text is not), so the example is hallucinated iff any
    return span_example(row.text("id"), None, row.text("context"), answer, gold, metadata)


def load_markdown_suite(
    path: PathLike | None = None, *, name: str = "capabilities_markdown"
) -> Benchmark:
    """The Markdown suite's cases from ``path`` (default the repository's
    ``data/capabilities_markdown/markdown.jsonl``), in line order; span-level.

    Raises:
        DatasetError: a malformed row, naming the file, line and field (a span whose text is
            not in the answer, an occurrence out of range, a repeated id, ...).
        FileNotFoundError: ``path`` does not exist.
    """
    file = SUITE_FILE if path is None else Path(path)
    if not file.is_file():
        raise FileNotFoundError(f"Markdown suite file {file} does not exist")
    examples: list[EvalExample] = []
    seen: dict[str, tuple[Path, int]] = {}
    for row in read_jsonl(file):
        check_unique(row, "id", row.text("id"), seen)
        examples.append(_example(row))
    return Benchmark(name, "span", examples, source=str(file))


# ---------------------------------------------------------------------------------------------
# Metrics
# ---------------------------------------------------------------------------------------------


def _ratio(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


def _predicted_spans(prediction: Mapping[str, Any]) -> list[Span]:
    # an empty span marks no characters, so it can neither hit nor false-alarm
    spans = [Span(int(s["start"]), int(s["end"])) for s in prediction["spans"]]
    return [s for s in spans if len(s) > 0]


def _checked_cells(prediction: Mapping[str, Any], cells: Sequence[Span]) -> set[int]:
    """Indices of the cells some checked fact lies inside: a fact not labelled
    ``not_a_claim`` whose spans (at least one) all lie within the cell."""
    checked: set[int] = set()
    for fact in prediction.get("facts", []):
        spans = [Span(int(s), int(e)) for s, e in fact.get("spans", [])]
        if not spans or fact.get("label") == "not_a_claim":
            continue
        for index, cell in enumerate(cells):
            if all(cell.start <= s.start and s.end <= cell.end for s in spans):
                checked.add(index)
    return checked


def _rates(pairs: Sequence[tuple[EvalExample, Mapping[str, Any]]]) -> dict[str, Any]:
    structural_hits = flagged_answers = false_alarms = 0
    gold_total = gold_hit = 0
    cells_total = cells_checked = 0
    wrong_cells = wrong_hit = right_cells = right_hit = 0
    for example, prediction in pairs:
        predicted = _predicted_spans(prediction)
        gold = example.gold_spans or []
        structural = [Span(s["start"], s["end"]) for s in example.metadata["structural"]]
        on_structure = sum(any(p.overlaps(s) for s in structural) for p in predicted)
        structural_hits += on_structure
        flagged_answers += on_structure > 0
        false_alarms += sum(not any(p.overlaps(g) for g in gold) for p in predicted)
        gold_total += len(gold)
        gold_hit += sum(any(p.overlaps(g) for p in predicted) for g in gold)
        cells = example.metadata["table_cells"]
        cell_spans = [Span(c["start"], c["end"]) for c in cells]
        cells_total += len(cells)
        cells_checked += len(_checked_cells(prediction, cell_spans))
        for cell, span in zip(cells, cell_spans, strict=True):
            hit = any(p.overlaps(span) for p in predicted)
            if cell["supported"]:
                right_cells += 1
                right_hit += hit
            else:
                wrong_cells += 1
                wrong_hit += hit
    n = len(pairs)
    return {
        "n": n,
        "structural_false_alarms": structural_hits,
        "structural_false_alarms_per_answer": _ratio(structural_hits, n),
        "structural_flagged_answers": flagged_answers,
        "false_alarms": false_alarms,
        "false_alarms_per_answer": _ratio(false_alarms, n),
        "table_cells_total": cells_total,
        "table_cells_checked": cells_checked,
        "table_cell_check_rate": _ratio(cells_checked, cells_total),
        "table_cell_recall": _ratio(wrong_hit, wrong_cells),
        "table_cell_false_alarms": _ratio(right_hit, right_cells),
        "gold_span_recall": _ratio(gold_hit, gold_total),
    }


def markdown_metrics(
    examples: Sequence[EvalExample], predictions: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """False alarms on structure and recall on table cells, overall and per category.

    ``predictions`` are prediction records (:func:`enoki_hd.eval.baselines.make_prediction`)
    aligned with ``examples``; their ``spans`` and the facts' ``spans`` are half-open
    offsets into the answer. Keys:

    - ``n``: answers;
    - ``structural_false_alarms``: predicted spans overlapping any structural span (and
      ``..._per_answer``, their mean per answer); ``structural_flagged_answers``: answers
      with at least one;
    - ``false_alarms``: predicted spans overlapping no gold span, ``false_alarms_per_answer``
      their mean per answer;
    - ``table_cells_total``; ``table_cells_checked``: cells that some fact (not labelled
      ``not_a_claim``) lies inside, all its spans within the cell; ``table_cell_check_rate``;
    - ``table_cell_recall``: hallucinated cells a predicted span overlaps, of all
      hallucinated cells; ``table_cell_false_alarms``: supported cells a predicted span
      overlaps, of all supported cells;
    - ``gold_span_recall``: gold spans a predicted span overlaps, of all gold spans;
    - ``categories``: the same keys for each category.

    A rate whose denominator is empty is None.
    """
    pairs = list(zip(examples, predictions, strict=True))
    groups: dict[str, list[tuple[EvalExample, Mapping[str, Any]]]] = {}
    for example, prediction in pairs:
        groups.setdefault(example.metadata["category"], []).append((example, prediction))
    out = _rates(pairs)
    out["categories"] = {name: _rates(group) for name, group in sorted(groups.items())}
    return out
