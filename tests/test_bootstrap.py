from __future__ import annotations

import re

import numpy as np
import pytest

from enoki_hd.eval.bootstrap import bootstrap_metrics, headline_statistics
from enoki_hd.eval.datasets import Benchmark, ClaimGold, EvalExample, SentenceGold
from enoki_hd.eval.rendering import render_bootstrap, render_summary
from enoki_hd.eval.runner import _bootstrap, evaluate, families
from enoki_hd.types import Span


def _record(spans=(), sentences=(), score=0.0, label="supported"):
    sentences = list(sentences) or [
        {"index": 0, "start": 0, "end": 1, "score": score, "label": label}
    ]
    return {
        "status": "ok",
        "level": "fact",
        "hallucinated": bool(spans),
        "score": score,
        "spans": [{"start": a, "end": b, "score": 1.0} for a, b in spans],
        "sentences": sentences,
        "facts": [],
    }


def span_benchmark() -> tuple[Benchmark, dict[str, list[dict]]]:
    answers = ["Paris is in Italy.", "The band formed in 1989.", "It rained.", "Ten cats sat."]
    golds = [[Span(12, 17)], [Span(19, 23)], [], [Span(0, 3)]]
    examples = [
        EvalExample(str(i), None, "ctx", a, gold_spans=g)
        for i, (a, g) in enumerate(zip(answers, golds, strict=True))
    ]
    detector = [
        _record(spans=[(12, 17)]),
        _record(spans=[(14, 23)]),
        _record(spans=[(0, 2)]),
        _record(),
    ]
    everything = [_record(spans=[(0, len(a))]) for a in answers]
    return Benchmark("toy-spans", "span", examples), {
        "detector": detector,
        "mark_all": everything,
    }


def test_a_resample_of_examples_without_units_is_undefined() -> None:
    """An EnokiQA row without facts has no claim unit; a resample of only such rows crashed
    the run at its end (got no examples: scores and gold are empty)."""
    labelled = [ClaimGold("a", True, "contradiction"), ClaimGold("b", False, "entailment")]
    examples = [
        EvalExample("q1", None, "ctx", "A. B.", claim_labels=labelled),
        EvalExample("q2", None, "ctx", "C."),
    ]
    bench = Benchmark("toy-facts", "claim", examples)
    records = [_record(score=0.7), _record(score=0.1)]
    result = bootstrap_metrics(bench, {"detector": records}, families(bench), samples=50)
    auc = result["methods"]["detector"]["claim.roc_auc"]
    assert auc["value"] == 0.5  # both facts take the answer's score: a tie
    assert 0 < auc["undefined"] < 50


def test_values_are_the_run_metrics() -> None:
    bench, predictions = span_benchmark()
    result = bootstrap_metrics(bench, predictions, families(bench), samples=200)
    for method, records in predictions.items():
        span = evaluate(bench, records)["span"]
        assert result["methods"][method]["span.iou"]["value"] == span["iou"]
        assert result["methods"][method]["span.char_f1"]["value"] == span["char"]["f1"]
    difference = result["differences"]["mark_all"]["span.iou"]
    assert difference["value"] == pytest.approx(
        result["methods"]["detector"]["span.iou"]["value"]
        - result["methods"]["mark_all"]["span.iou"]["value"]
    )
    assert result["n"] == 4 and result["resampled"] == "examples"
    assert result["reference"] == "detector"


def test_intervals_are_seeded_and_ordered() -> None:
    bench, predictions = span_benchmark()
    first = bootstrap_metrics(bench, predictions, ["span"], samples=300, seed=7)
    again = bootstrap_metrics(bench, predictions, ["span"], samples=300, seed=7)
    other = bootstrap_metrics(bench, predictions, ["span"], samples=300, seed=8)
    assert first == again
    assert first["methods"] != other["methods"]
    for cells in first["methods"].values():
        for cell in cells.values():
            assert cell["low"] <= cell["high"]
            assert cell["undefined"] == 0


def test_identical_examples_give_a_zero_width_interval() -> None:
    example = EvalExample("a", None, "ctx", "Paris is in Italy.", gold_spans=[Span(12, 17)])
    bench = Benchmark("same", "span", [example] * 5)
    records = [_record(spans=[(9, 17)])] * 5
    cell = bootstrap_metrics(bench, {"detector": records}, ["span"], samples=50)["methods"][
        "detector"
    ]["span.iou"]
    assert cell["value"] == cell["low"] == cell["high"] == pytest.approx(5 / 8)


def test_a_method_against_itself_is_a_tie() -> None:
    bench, predictions = span_benchmark()
    twins = {"detector": predictions["detector"], "copy": predictions["detector"]}
    cell = bootstrap_metrics(bench, twins, ["span"], samples=100)["differences"]["copy"][
        "span.char_f1"
    ]
    assert cell == {"value": 0.0, "low": 0.0, "high": 0.0, "ahead": 0.5}


def claim_benchmark() -> Benchmark:
    examples = [
        EvalExample("pos", None, "c", "x", claim_labels=[ClaimGold("x", True, "not_supported")]),
        EvalExample("neg", None, "c", "x", claim_labels=[ClaimGold("x", False, "supported")]),
    ]
    return Benchmark("toy-claims", "claim", examples)


def test_a_resample_with_one_class_has_no_roc_auc() -> None:
    bench = claim_benchmark()
    records = [_record(score=0.9), _record(score=0.2)]
    result = bootstrap_metrics(bench, {"detector": records}, ["claim"], samples=400, seed=3)
    draws = np.random.default_rng(3).integers(0, 2, size=(400, 2))
    one_class = int(np.sum(draws[:, 0] == draws[:, 1]))
    cell = result["methods"]["detector"]["claim.roc_auc"]
    assert 0 < one_class < 400
    assert cell["undefined"] == one_class
    assert cell["value"] == cell["low"] == cell["high"] == 1.0


def test_sentence_units_of_an_example_are_resampled_together() -> None:
    answer = "One. Two."
    example = EvalExample(
        "a",
        None,
        "ctx",
        answer,
        sentence_labels=[
            SentenceGold(Span(0, 4), "One.", True),
            SentenceGold(Span(5, 9), "Two.", False),
        ],
    )
    sentences = [
        {"index": 0, "start": 0, "end": 4, "score": 0.8, "label": "unverifiable"},
        {"index": 1, "start": 5, "end": 9, "score": 0.1, "label": "supported"},
    ]
    bench = Benchmark("toy-sentences", "sentence", [example])
    (statistic,) = headline_statistics(bench, [_record(sentences=sentences)], ["sentence"]).values()
    # one example drawn three times still holds both classes: its two units travel together
    assert statistic(np.array([0, 0, 0])) == 1.0


def test_capability_accuracies() -> None:
    labels = ["supported", "contradicted", "unverifiable", "supported"]
    predicted = ["supported", "unverifiable", "unverifiable", "contradicted"]
    examples = [
        EvalExample(
            str(i),
            None,
            "c",
            "x",
            claim_labels=[ClaimGold("x", gold != "supported", gold)],
            metadata={"category": "negation", "label": gold},
        )
        for i, gold in enumerate(labels)
    ]
    bench = Benchmark("toy-suite", "claim", examples)
    records = [_record(label=p, score=0.0 if p == "supported" else 0.9) for p in predicted]
    cells = bootstrap_metrics(bench, {"detector": records}, ["capability"], samples=20)["methods"][
        "detector"
    ]
    overall = evaluate(bench, records)["capability"]["overall"]
    assert cells["capability.binary_accuracy"]["value"] == overall["binary_accuracy"] == 0.75
    assert cells["capability.three_way_accuracy"]["value"] == overall["three_way_accuracy"] == 0.5


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"samples": -1}, "bootstrap.samples must be a whole number >= 1"),
        ({"samples": 2.5}, "bootstrap.samples must be a whole number >= 1"),
        ({"samples": 10, "level": 1.0}, "bootstrap.level must be between 0 and 1"),
        ({"samples": 10, "seed": "x"}, "bootstrap.seed must be a whole number"),
        ({"samples": 10, "rounds": 3}, "bootstrap: unknown option(s) ['rounds']"),
    ],
)
def test_bad_options_name_the_key(options, message) -> None:
    bench, predictions = span_benchmark()
    with pytest.raises(ValueError, match=re.escape(message)):
        _bootstrap(bench, predictions, options)


def test_zero_samples_turn_it_off() -> None:
    bench, predictions = span_benchmark()
    assert _bootstrap(bench, predictions, {"samples": 0}) is None
    assert _bootstrap(bench, predictions, None) is None


def test_report_section() -> None:
    bench, predictions = span_benchmark()
    result = bootstrap_metrics(bench, predictions, ["span"], samples=100)
    text = "\n".join(render_bootstrap(result))
    iou = result["methods"]["detector"]["span.iou"]
    assert "## Uncertainty (95% bootstrap intervals)" in text
    assert "100 resamples of the 4 examples with replacement (seed 0)" in text
    assert f"| detector | {iou['value']:.3f} [{iou['low']:.3f}, {iou['high']:.3f}] |" in text
    assert "| mark_all | " in text and "ahead" in text


def test_summary_lists_the_differences() -> None:
    bench, predictions = span_benchmark()
    result = bootstrap_metrics(bench, predictions, ["span"], samples=100)
    metrics = {
        "benchmark": {"families": ["span"], "level": "span", "n_examples": 4},
        "methods": {name: evaluate(bench, records) for name, records in predictions.items()},
        "bootstrap": result,
    }
    text = render_summary({"toy-spans": metrics}, {})
    iou = result["differences"]["mark_all"]["span.iou"]
    row = (
        f"| toy-spans | span.iou | mark_all | {iou['value']:+.3f} [{iou['low']:+.3f}, "
        f"{iou['high']:+.3f}] | {iou['ahead']:.3f} |"
    )
    assert row in text
    assert "detector minus each other method, 95% bootstrap interval over 100 resamples" in text
    without = render_summary({"toy-spans": {**metrics, "bootstrap": None}}, {})
    assert "bootstrap" not in without
