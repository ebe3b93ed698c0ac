"""Check-worthiness of the selection stage: gold units from Factcheck-Bench, exact P / R / F1,
the rendered section; and the Markdown-suite family in the runner."""

from __future__ import annotations

from pathlib import Path

import pytest

from enoki_hd.eval.checkworthiness import checkworthiness_metrics, predict_not_a_claim
from enoki_hd.eval.datasets.factcheck import load_factcheck
from enoki_hd.eval.datasets.markdown_suite import load_markdown_suite
from enoki_hd.eval.rendering import render_checkworthiness
from enoki_hd.eval.runner import evaluate, families


def unit(uid: str, text: str, not_a_claim: bool, level: str = "sentence") -> dict:
    return {"id": uid, "level": level, "text": text, "label": "x", "not_a_claim": not_a_claim}


def test_predict_not_a_claim_needs_every_sentence() -> None:
    assert predict_not_a_claim("I hope this helps! Let me know.", backend="regex") == (
        True,
        ["meta", "meta"],
    )
    assert predict_not_a_claim("I hope this helps! Paris is big.", backend="regex") == (
        False,
        ["meta"],
    )
    assert predict_not_a_claim("", backend="regex") == (False, [])


def test_exact_precision_recall_f1_and_errors() -> None:
    units = [
        unit("a", "What is the dose?", True),  # tp (question)
        unit("b", "I think it is fine.", False),  # fp (opinion, gold says claim)
        unit("c", "It should appear below the bar.", True),  # fn
        unit("d", "Paris has 2 million people.", False),  # tn
        unit("e", "Here are the facts:", True, level="claim"),  # tp (lead_in)
    ]
    result = checkworthiness_metrics(units, backend="regex")
    sentence = result["levels"]["sentence"]
    assert {k: sentence[k] for k in ("n", "gold_not_a_claim", "predicted_not_a_claim")} == {
        "n": 4,
        "gold_not_a_claim": 2,
        "predicted_not_a_claim": 2,
    }
    assert (sentence["precision"], sentence["recall"], sentence["f1"]) == (0.5, 0.5, 0.5)
    assert sentence["reasons"] == {"opinion": 1, "question": 1}
    assert result["levels"]["claim"]["f1"] == 1.0
    assert [(e["id"], e["predicted"]) for e in result["errors"]] == [
        ("b", "opinion"),
        ("c", "claim"),
    ]
    text = render_checkworthiness(result)
    assert "| sentence | 4 | 2 | 2 | 0.500 | 0.500 | 0.500 | opinion 1, question 1 |" in text
    assert "| c | sentence | x | claim | It should appear below the bar. |" in text


def test_no_prediction_gives_undefined_precision() -> None:
    result = checkworthiness_metrics([unit("a", "Paris is big.", True)], backend="regex")
    assert result["levels"]["sentence"]["precision"] is None
    assert result["levels"]["sentence"]["recall"] == 0.0


def test_factcheck_units_include_the_unlabelled_sentences(shared_dir: Path) -> None:
    path = shared_dir / "benchmarks" / "factcheck_bench" / "factcheck_gpt_dev30.jsonl"
    if not path.is_file():
        pytest.skip(f"{path} is missing")
    bench = load_factcheck(path)
    units = bench.checkworthiness or []
    sentences = [u for u in units if u["level"] == "sentence"]
    claims = [u for u in units if u["level"] == "claim"]
    assert (len(sentences), sum(u["not_a_claim"] for u in sentences)) == (96, 6)
    assert (len(claims), sum(u["not_a_claim"] for u in claims)) == (225, 3)
    # the not-a-claim sentences have no factuality label: left out of the examples, kept here
    assert len(bench.examples) == 96 - bench.dropped["label_na"]
    assert {u["label"] for u in sentences if u["not_a_claim"]} == {
        "opinion",
        "other",
        "not_a_claim",
    }
    assert load_factcheck(path, "claim").checkworthiness == units


def test_markdown_family_in_the_runner() -> None:
    bench = load_markdown_suite()
    assert families(bench) == ["span", "markdown"]
    example = bench.examples[0]
    nothing = {
        "level": "fact",
        "spans": [],
        "sentences": [],
        "facts": [],
        "score": 0.0,
        "hallucinated": False,
        "status": "ok",
    }
    result = evaluate(bench, [nothing] * len(bench.examples))
    assert result["markdown"]["n"] == len(bench.examples)
    assert result["markdown"]["structural_false_alarms"] == 0
    assert result["markdown"]["table_cells_checked"] == 0
    assert example.metadata["markdown_suite"] is True
