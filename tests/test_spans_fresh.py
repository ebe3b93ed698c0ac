"""The span-set format (``benchmark.format=span_set``) and the held-out span set
(``data/spans_fresh/``): the loader's offsets and errors, the set's shape, a run through the
harness."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from enoki_hd.eval.datasets import DatasetError
from enoki_hd.eval.datasets.capabilities import FRESH_DIR, load_capabilities
from enoki_hd.eval.datasets.markdown_suite import load_markdown_suite
from enoki_hd.eval.datasets.spans_fresh import SPAN_SET_KINDS, SPANS_FRESH_DIR, load_span_set
from enoki_hd.types import Span

ROWS = [
    {
        "id": "t-01",
        "kind": "qa",
        "question": "When did the Orla bridge open?",
        "context": "The Orla bridge opened in 1931.\n\nIt is 212 m long.",
        "answer": "The Orla bridge opened in 1913 and is 212 m long; it opened in spring.",
        "hallucinated": [{"text": "1913", "occurrence": 0}, {"text": "in spring"}],
        "rationale": "The year is 1931; no season is given.",
    },
    {
        "id": "t-02",
        "context": "Tea is grown in Assam.",
        "answer": "Tea is grown in Assam.",
        "hallucinated": [],
    },
    {
        "id": "t-03",
        "kind": "summary",
        "question": None,
        "context": "Sales rose 4%. Sales rose in May.",
        "answer": "Sales rose 5%, and sales rose in June.",
        "hallucinated": [{"text": "rose", "occurrence": 1}, {"text": "5%"}],
        "rationale": "Two pieces, given out of order.",
    },
]


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_pieces_become_exact_spans_in_order(tmp_path: Path) -> None:
    bench = load_span_set(_write(tmp_path / "set.jsonl", ROWS), name="mine")
    assert (bench.name, bench.level, len(bench)) == ("mine", "span", 3)
    first, second, third = bench.examples
    assert first.gold_spans == [Span(26, 30), Span(60, 69)]
    assert [first.answer[s.start : s.end] for s in first.gold_spans] == ["1913", "in spring"]
    assert (first.question, first.metadata["kind"], first.example_label) == (
        "When did the Orla bridge open?",
        "qa",
        True,
    )
    assert (second.gold_spans, second.example_label, second.question) == ([], False, None)
    assert second.metadata == {"kind": None, "rationale": None}
    # the second "rose" (the first is at 6), and the spans sorted by offset
    assert third.gold_spans == [Span(11, 13), Span(25, 29)]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"hallucinated": [{"text": "1931"}]}, "text '1931' does not occur in the answer"),
        (
            {"hallucinated": [{"text": "opened"}]},
            "text 'opened' occurs 2 times in the answer; give its 0-based 'occurrence'",
        ),
        (
            {"hallucinated": [{"text": "opened", "occurrence": 2}]},
            "occurrence 2 of 'opened' is out of range: it occurs 2 time(s)",
        ),
        ({"hallucinated": "1913"}, "field 'hallucinated' must be a list, got str"),
        ({"answer": 5}, "field 'answer' must be a string, got int"),
    ],
)
def test_bad_rows_name_the_line_and_the_field(tmp_path: Path, change: dict, message: str) -> None:
    path = _write(tmp_path / "set.jsonl", [ROWS[1], {**ROWS[0], **change}])
    with pytest.raises(DatasetError, match=r"set\.jsonl:2: field") as info:
        load_span_set(path)
    assert message in str(info.value)


def test_ids_are_unique_across_files_and_a_folder_reads_every_file(tmp_path: Path) -> None:
    _write(tmp_path / "a.jsonl", ROWS[:1])
    _write(tmp_path / "b.jsonl", ROWS[1:])
    assert [e.id for e in load_span_set(tmp_path).examples] == ["t-01", "t-02", "t-03"]
    _write(tmp_path / "c.jsonl", ROWS[:1])
    with pytest.raises(DatasetError, match="t-01"):
        load_span_set(tmp_path)
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="no span set files"):
        load_span_set(tmp_path / "empty")
    with pytest.raises(FileNotFoundError, match=r"span set path .*missing\.jsonl does not exist"):
        load_span_set(tmp_path / "missing.jsonl")


def test_the_held_out_set_has_its_kinds_and_shares_nothing() -> None:
    """data/spans_fresh/: files of 20 answers of one kind each, 7 of them fully supported, qa
    contexts of passages joined by blank lines; no context or answer of another suite."""
    bench = load_span_set()
    assert (bench.name, len(bench)) == ("spans_fresh", 120)
    files = sorted(SPANS_FRESH_DIR.glob("*.jsonl"))
    assert len(files) == 6
    for file in files:
        rows = load_span_set(file).examples
        (kind,) = {e.metadata["kind"] for e in rows}
        assert kind in SPAN_SET_KINDS
        assert (len(rows), sum(not e.gold_spans for e in rows)) == (20, 7), file.name
        (prefix,) = {e.id.rsplit("-", 1)[0] for e in rows}
        assert prefix.startswith(kind), file.name
    assert all("\n\n" in e.context for e in bench.examples if e.metadata["kind"] == "qa")
    others = [
        *load_capabilities().examples,
        *load_capabilities(FRESH_DIR).examples,
        *load_markdown_suite().examples,
    ]
    assert not {e.context for e in bench.examples} & {e.context for e in others}
    assert not {e.answer for e in bench.examples} & {e.answer for e in others}


def test_the_harness_reads_a_span_set_file(tmp_path: Path) -> None:
    from enoki_hd.eval.runner import compose_eval_config, run_eval

    path = _write(tmp_path / "set.jsonl", ROWS)
    cfg = compose_eval_config(
        [
            "benchmark=file",
            f"benchmark.path={path}",
            "benchmark.format=span_set",
            "benchmark.name=my_spans",
            "methods=[mark_all,mark_none]",
            f"paths.root_dir={tmp_path}",
            "progress=false",
        ]
    )
    metrics, _ = run_eval(cfg)
    assert (metrics["benchmark"]["name"], metrics["benchmark"]["families"]) == (
        "my_spans",
        ["span"],
    )
    # mark_none: IoU 1 on the supported answer, 0 on the two others
    assert metrics["methods"]["mark_none"]["span"]["iou"] == pytest.approx(1 / 3)
