"""The capability suite: the loader's checks, the frozen suite's shape, the per-category
metrics on hand-made predictions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from enoki_hd.eval.datasets import DatasetError
from enoki_hd.eval.datasets.capabilities import (
    CAPABILITY_LABELS,
    FRESH_DIR,
    capability_metrics,
    load_capabilities,
    predicted_label,
)
from enoki_hd.types import Span

TINY = Path(__file__).parent / "fixtures" / "capabilities" / "tiny.jsonl"
CATEGORIES = {
    "verbatim", "number", "unit", "magnitude", "paraphrase", "multi_hop", "entity_swap",
    "role_reversal", "temporal", "adjacent_topic", "modality", "negation", "long_context",
}  # fmt: skip


def test_the_suite_has_every_category_with_both_kinds_of_case() -> None:
    suite = load_capabilities()
    assert len(suite) >= 150
    by_category: dict[str, set[str]] = {}
    for example in suite.examples:
        by_category.setdefault(example.metadata["category"], set()).add(example.metadata["label"])
    assert set(by_category) == CATEGORIES
    for category, labels in by_category.items():
        count = sum(e.metadata["category"] == category for e in suite.examples)
        assert count >= 10, category
        assert "supported" in labels and labels - {"supported"}, category
    long = [e for e in suite.examples if e.metadata["category"] == "long_context"]
    assert all(3000 <= len(e.context) <= 6000 for e in long)


def test_the_held_out_suite_has_ten_cases_per_category_and_shares_nothing() -> None:
    """data/capabilities_fresh/: 5 supported and 5 not-supported cases in each category, ids
    of their own, and no context or answer of the development suite."""
    fresh, dev = load_capabilities(FRESH_DIR, name="capabilities_fresh"), load_capabilities()
    assert fresh.name == "capabilities_fresh"
    counts: dict[str, list[int]] = {}
    for example in fresh.examples:
        category, label = example.metadata["category"], example.metadata["label"]
        assert example.id == f"fresh-{category}-{example.id.rsplit('-', 1)[1]}"
        counts.setdefault(category, [0, 0])[label != "supported"] += 1
    assert counts == {category: [5, 5] for category in CATEGORIES}
    assert not {e.id for e in fresh.examples} & {e.id for e in dev.examples}
    assert not {e.context for e in fresh.examples} & {e.context for e in dev.examples}
    assert not {e.answer for e in fresh.examples} & {e.answer for e in dev.examples}
    long = [e for e in fresh.examples if e.metadata["category"] == "long_context"]
    assert all(3000 <= len(e.context) <= 6000 for e in long)


def test_loader_reads_spans_labels_and_categories() -> None:
    suite = load_capabilities(TINY)
    first, second, third = suite.examples
    assert (first.gold_spans, first.example_label) == ([], False)
    assert second.gold_spans == [Span(14, 17)] and second.answer[14:17] == "520"
    assert [c.label for c in third.claim_labels or []] == ["unverifiable"]
    assert third.metadata["category"] == "adjacent_topic"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"label": "wrong"}, "field 'label' must be one of supported, contradicted, unverifiable"),
        ({"hallucinated_span": "999"}, "must occur exactly once in the answer, found 0 times"),
        ({"hallucinated_span": None}, "is required when the label is contradicted"),
        ({"id": "number-01"}, "field 'id' repeats the id 'number-01' of line 1"),
    ],
)
def test_malformed_rows_name_the_file_line_and_field(tmp_path, change, message) -> None:
    rows = [json.loads(line) for line in TINY.read_text().splitlines()]
    rows[1].update(change)
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows))
    with pytest.raises(DatasetError, match=message) as error:
        load_capabilities(path)
    assert f"{path}:2:" in str(error.value)


def test_an_id_repeated_in_another_suite_file_names_that_file(tmp_path) -> None:
    """The message used to say "of line 1" with the other file's line, as if in this file."""
    row = json.loads(TINY.read_text().splitlines()[0])
    (tmp_path / "a.jsonl").write_text(json.dumps({**row, "id": "other"}) + "\n" + json.dumps(row))
    (tmp_path / "b.jsonl").write_text(json.dumps(row) + "\n")
    with pytest.raises(DatasetError) as error:
        load_capabilities(tmp_path)
    assert str(error.value) == (
        f"{tmp_path / 'b.jsonl'}:1: field 'id' repeats the id {row['id']!r} of "
        f"{tmp_path / 'a.jsonl'}:2"
    )


def prediction(labels: list[str], spans: list[tuple[int, int]] = ()) -> dict:
    return {
        "sentences": [{"label": label} for label in labels],
        "spans": [{"start": a, "end": b} for a, b in spans],
    }


def test_predicted_label_reads_the_worst_sentence() -> None:
    assert predicted_label(prediction(["supported", "contradicted", "unverifiable"])) == (
        "contradicted"
    )
    assert predicted_label(prediction(["supported", "unsupported_language"])) == "unverifiable"
    assert predicted_label(prediction(["supported"])) == "supported"


def test_capability_metrics_per_category() -> None:
    suite = load_capabilities(TINY)
    predictions = [
        prediction(["unverifiable"], [(4, 10)]),  # a false alarm on the supported case
        prediction(["contradicted"], [(14, 17)]),  # right label, span hit
        prediction(["contradicted"], [(0, 3)]),  # not supported, wrong kind, span missed
    ]
    result = capability_metrics(suite.examples, predictions)
    overall = result["overall"]
    assert overall["n"] == 3
    assert overall["labels"] == dict(zip(CAPABILITY_LABELS, (1, 1, 1), strict=True))
    assert overall["three_way_accuracy"] == pytest.approx(1 / 3)
    assert overall["binary_accuracy"] == pytest.approx(2 / 3)
    assert overall["contradicted_recall"] == 1.0
    assert overall["span_hit_rate"] == 0.5
    assert overall["false_alarms"] == 1.0
    number = result["categories"]["number"]
    assert (number["n"], number["three_way_accuracy"], number["false_alarms"]) == (2, 0.5, 1.0)
    assert result["categories"]["adjacent_topic"]["contradicted_recall"] is None


def test_the_runner_reports_capabilities_without_a_verifier(tmp_path) -> None:
    from enoki_hd.eval.runner import compose_eval_config, run_eval

    cfg = compose_eval_config(
        [
            "benchmark=file",
            f"benchmark.path={TINY}",
            "benchmark.format=capabilities",
            "benchmark.name=tiny_capabilities",
            "methods=[lexical_absent,mark_all,mark_none]",
            f"paths.root_dir={tmp_path}",
            "progress=false",
        ]
    )
    metrics, objects = run_eval(cfg)
    by_method = metrics["methods"]
    assert by_method["mark_all"]["capability"]["overall"]["false_alarms"] == 1.0
    assert by_method["mark_none"]["capability"]["overall"]["binary_accuracy"] == pytest.approx(
        1 / 3
    )
    report = objects["files"]["report"].read_text()
    assert "## Capabilities" in report and "### lexical_absent by category" in report
