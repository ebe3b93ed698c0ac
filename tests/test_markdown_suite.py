"""The Markdown section of the capability suite: the shipped file's quotas and gold, the
loader's checks, and the metrics on hand-made predictions."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from enoki_hd.eval.datasets import DatasetError, load_benchmark
from enoki_hd.eval.datasets.markdown_suite import (
    MARKDOWN_CATEGORIES,
    SUITE_FILE,
    load_markdown_suite,
    markdown_metrics,
    occurrences,
)
from enoki_hd.types import Span

LIST_LINE = re.compile(r"^\s*([-*]|\d+\.)\s", re.M)


def raw_rows() -> list[dict[str, Any]]:
    return [json.loads(line) for line in SUITE_FILE.read_text(encoding="utf-8").splitlines()]


def spans(items: list[dict[str, Any]]) -> list[Span]:
    return [Span(item["start"], item["end"]) for item in items]


def line_of(answer: str, span: Span) -> str:
    start = answer.rfind("\n", 0, span.start) + 1
    end = answer.find("\n", span.end)
    return answer[start : end if end >= 0 else len(answer)]


def test_the_suite_meets_its_quotas() -> None:
    suite = load_markdown_suite()
    examples = suite.examples
    assert (suite.name, suite.level, len(examples)) == ("capabilities_markdown", "span", 42)
    assert {e.metadata["category"] for e in examples} == set(MARKDOWN_CATEGORIES)
    assert all(e.metadata["markdown_suite"] and e.question is None for e in examples)
    hallucinated = sum(bool(e.example_label) for e in examples)
    assert 0.55 <= hallucinated / len(examples) <= 0.75
    assert all(e.example_label == bool(e.gold_spans) for e in examples)

    tables = [e for e in examples if e.metadata["table_cells"]]
    wrong_cell = [e for e in tables if not all(c["supported"] for c in e.metadata["table_cells"])]
    assert len(tables) >= 12 and len(wrong_cell) >= 3 and len(tables) - len(wrong_cell) >= 3
    # a row label plus at least two data columns
    assert any(len({c["header"] for c in e.metadata["table_cells"]}) >= 2 for e in tables)

    def kinds(example: Any) -> set[str]:
        return {s["kind"] for s in example.metadata["structural"]}

    lead_in_lists = [e for e in examples if "lead_in" in kinds(e) and LIST_LINE.search(e.answer)]
    assert len(lead_in_lists) >= 10
    assert sum(bool(re.search(r"`[^`\n]+`|\]\(https?://", e.answer)) for e in examples) >= 5
    assert all(any(k in kinds(e) for e in examples) for k in ("meta", "question", "opinion"))
    assert any(re.search(r"^\s+[-*]\s", e.answer, re.M) for e in examples)  # nested lists
    assert any(re.search(r"^2\.\s", e.answer, re.M) for e in examples)  # numbered steps

    # hallucinations sit in list items, in table cells and in plain prose
    where = set()
    for example in examples:
        for gold in example.gold_spans or []:
            line = line_of(example.answer, gold)
            if line.startswith("|"):
                where.add("cell")
            elif LIST_LINE.match(line):
                where.add("list")
            elif not line.startswith("#"):
                where.add("prose")
    assert where == {"cell", "list", "prose"}


def test_every_span_round_trips_to_its_text_and_occurrence() -> None:
    suite = load_markdown_suite()
    for row, example in zip(raw_rows(), suite.examples, strict=True):
        assert row["id"] == example.id
        loaded = {
            "hallucinated": example.gold_spans or [],
            "structural": spans(example.metadata["structural"]),
            "table_cells": spans(example.metadata["table_cells"]),
        }
        for field, resolved in loaded.items():
            assert len(row[field]) == len(resolved), (example.id, field)
            for item, span in zip(row[field], resolved, strict=True):
                assert span.text(example.answer) == item["text"], (example.id, field)
                starts = occurrences(example.answer, item["text"])
                assert starts.index(span.start) == item.get("occurrence", 0), (example.id, field)
                assert "occurrence" in item or len(starts) == 1, (example.id, field)


def test_gold_never_touches_structure_and_cells_agree_with_it() -> None:
    for example in load_markdown_suite().examples:
        gold = example.gold_spans or []
        for structural in spans(example.metadata["structural"]):
            assert not any(g.overlaps(structural) for g in gold), (example.id, structural)
        for cell in example.metadata["table_cells"]:
            wrong = any(g.overlaps(Span(cell["start"], cell["end"])) for g in gold)
            assert cell["supported"] is not wrong, (example.id, cell)


def test_the_registry_loads_the_suite_without_shared_data(tmp_path: Path) -> None:
    benchmark = load_benchmark("capabilities_markdown", tmp_path)
    assert (benchmark.level, len(benchmark)) == ("span", 42)


# A tiny suite whose offsets the metric tests spell out.
TABLE_ANSWER = "## Fees\n\n| item | fee |\n|---|---|\n| card | 2.5% |\n| cash | free |"
LIST_ANSWER = "It has two parts:\n\n- It opened in 1998.\n- It is 420 m long."
META_ANSWER = "It is 420 m long. I hope this helps!"
TINY = [
    {
        "id": "t-1",
        "category": "table",
        "context": "Card payments cost 1.5%. Cash withdrawals are free.",
        "answer": TABLE_ANSWER,
        "hallucinated": [{"text": "2.5%"}],
        "structural": [
            {"text": "Fees", "kind": "heading"},
            {"text": "item", "kind": "table_header"},
            {"text": "fee", "kind": "table_header"},
        ],
        "table_cells": [
            {"text": "2.5%", "row": "card", "header": "fee", "supported": False},
            {"text": "free", "row": "cash", "header": "fee", "supported": True},
        ],
        "rationale": "Card payments cost 1.5%.",
    },
    {
        "id": "t-2",
        "category": "list",
        "context": "The bridge opened in 1988. It is 420 m long.",
        "answer": LIST_ANSWER,
        "hallucinated": [{"text": "1998"}],
        "structural": [{"text": "It has two parts:", "kind": "lead_in"}],
        "table_cells": [],
        "rationale": "The bridge opened in 1988.",
    },
    {
        "id": "t-3",
        "category": "meta",
        "context": "The bridge is 420 m long.",
        "answer": META_ANSWER,
        "hallucinated": [],
        "structural": [{"text": "I hope this helps!", "kind": "meta"}],
        "table_cells": [],
        "rationale": "Supported; the rest is a meta line.",
    },
]


def write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    return path


def test_loader_resolves_spans_cells_and_metadata(tmp_path: Path) -> None:
    suite = load_markdown_suite(write(tmp_path / "tiny.jsonl", TINY), name="tiny")
    table, listed, meta = suite.examples
    assert suite.name == "tiny" and table.gold_spans == [Span(43, 47)]
    assert table.metadata["table_cells"] == [
        {"start": 43, "end": 47, "row": "card", "header": "fee", "supported": False},
        {"start": 59, "end": 63, "row": "cash", "header": "fee", "supported": True},
    ]
    assert table.metadata["structural"][0] == {"start": 3, "end": 7, "kind": "heading"}
    assert table.metadata["structural"][2] == {"start": 18, "end": 21, "kind": "table_header"}
    assert (listed.example_label, meta.example_label, meta.gold_spans) == (True, False, [])
    assert meta.metadata["rationale"] == "Supported; the rest is a meta line."


def test_occurrence_picks_among_repeats(tmp_path: Path) -> None:
    row = dict(TINY[2], answer="It is 420 m long. Yes, 420 m.", structural=[])
    row["hallucinated"] = [{"text": "420 m", "occurrence": 1}]
    (example,) = load_markdown_suite(write(tmp_path / "repeat.jsonl", [row])).examples
    assert example.gold_spans == [Span(23, 28)]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"hallucinated": [{"text": "3.5%"}]},
            r"field 'hallucinated' hallucinated\[0\] text '3.5%' does not occur in the answer",
        ),
        (
            {"hallucinated": [{"text": "2.5%", "occurrence": 1}]},
            r"field 'hallucinated' hallucinated\[0\] occurrence 1 of '2.5%' is out of range",
        ),
        (
            {"structural": [{"text": "fee", "occurrence": -1, "kind": "table_header"}]},
            r"field 'structural' structural\[0\] occurrence -1 of 'fee' is out of range",
        ),
        (
            {"structural": [{"text": "Fees", "kind": "title"}]},
            r"field 'structural' structural\[0\] kind must be one of heading, lead_in",
        ),
        (
            {"table_cells": [{"text": "free", "row": "cash", "header": "fee"}]},
            r"field 'table_cells' table_cells\[0\] needs a boolean 'supported'",
        ),
        (
            {"table_cells": [{"text": "cash", "supported": True, "header": "fee"}]},
            "needs a string 'row'",
        ),
        ({"category": "prose"}, "field 'category' must be one of heading, lead_in"),
        ({"hallucinated": None}, "field 'hallucinated' must be a list"),
    ],
)
def test_malformed_rows_name_the_file_line_and_field(tmp_path, change, message) -> None:
    rows = [TINY[2], dict(TINY[0], **change)]
    path = write(tmp_path / "bad.jsonl", rows)
    with pytest.raises(DatasetError, match=message) as error:
        load_markdown_suite(path)
    assert f"{path}:2:" in str(error.value)


def test_an_ambiguous_text_needs_its_occurrence(tmp_path: Path) -> None:
    row = dict(TINY[2], hallucinated=[{"text": "is"}])
    path = write(tmp_path / "ambiguous.jsonl", [row])
    with pytest.raises(DatasetError, match=r"text 'is' occurs 2 times in the answer; give its"):
        load_markdown_suite(path)


def test_a_repeated_id_is_an_error(tmp_path: Path) -> None:
    path = write(tmp_path / "dup.jsonl", [TINY[0], dict(TINY[1], id="t-1")])
    with pytest.raises(DatasetError, match="field 'id' repeats the id 't-1' of line 1"):
        load_markdown_suite(path)


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"Markdown suite file .*nope\.jsonl"):
        load_markdown_suite(tmp_path / "nope.jsonl")


def prediction(
    spans: list[tuple[int, int]], facts: list[tuple[str, list[list[int]]]] = ()
) -> dict[str, Any]:
    return {
        "spans": [{"start": a, "end": b, "score": 0.9} for a, b in spans],
        "sentences": [],
        "facts": [
            {"id": f"f{i}", "sentence": 0, "label": label, "spans": fact_spans, "suppressed": False}
            for i, (label, fact_spans) in enumerate(facts)
        ],
    }


def test_markdown_metrics_on_hand_made_predictions(tmp_path: Path) -> None:
    examples = load_markdown_suite(write(tmp_path / "tiny.jsonl", TINY)).examples
    predictions = [
        # "Fees" (the heading: a structural false alarm) and "2.5%" (the wrong cell, hit); the
        # first fact lies inside the "2.5%" cell, the non-claim inside "free" does not count,
        # the fact over the whole row is inside no cell
        prediction(
            [(3, 7), (43, 47)],
            [("contradicted", [[43, 47]]), ("not_a_claim", [[59, 63]]), ("supported", [[34, 49]])],
        ),
        # "1998" hit; "420" overlaps no gold span: a false alarm, but not on structure
        prediction([(34, 38), (48, 51)]),
        # an empty span marks no characters
        prediction([(5, 5)]),
    ]
    result = markdown_metrics(examples, predictions)
    overall = {k: v for k, v in result.items() if k != "categories"}
    assert overall == {
        "n": 3,
        "structural_false_alarms": 1,
        "structural_false_alarms_per_answer": pytest.approx(1 / 3),
        "structural_flagged_answers": 1,
        "false_alarms": 2,
        "false_alarms_per_answer": pytest.approx(2 / 3),
        "table_cells_total": 2,
        "table_cells_checked": 1,
        "table_cell_check_rate": 0.5,
        "table_cell_recall": 1.0,
        "table_cell_false_alarms": 0.0,
        "gold_span_recall": 1.0,
    }
    assert list(result["categories"]) == ["list", "meta", "table"]
    meta = result["categories"]["meta"]
    assert (meta["n"], meta["false_alarms_per_answer"], meta["structural_flagged_answers"]) == (
        1,
        0.0,
        0,
    )
    for key in ("table_cell_check_rate", "table_cell_recall", "table_cell_false_alarms"):
        assert meta[key] is None and result["categories"]["list"][key] is None
    assert meta["gold_span_recall"] is None
    assert result["categories"]["list"]["false_alarms"] == 1


def test_markdown_metrics_without_predicted_spans_and_without_examples(tmp_path: Path) -> None:
    examples = load_markdown_suite(write(tmp_path / "tiny.jsonl", TINY)).examples
    silent = markdown_metrics(examples, [prediction([]) for _ in examples])
    assert (silent["structural_false_alarms"], silent["false_alarms_per_answer"]) == (0, 0.0)
    assert (silent["table_cell_recall"], silent["gold_span_recall"]) == (0.0, 0.0)
    assert silent["table_cells_checked"] == 0
    empty = markdown_metrics([], [])
    assert empty["n"] == 0 and empty["categories"] == {}
    assert empty["false_alarms_per_answer"] is None and empty["table_cell_recall"] is None
    with pytest.raises(ValueError):
        markdown_metrics(examples, [])
