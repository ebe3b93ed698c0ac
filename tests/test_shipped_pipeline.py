"""The shipped default pipeline (rules extractor + checkpoints/verifier-minilm) on the bundled
example: real models, exact spans."""

from __future__ import annotations

from importlib.resources import files

import pytest

from enoki_hd.detector import Detector
from enoki_hd.verify.loading import default_verifier_path

pytestmark = pytest.mark.skipif(
    not (default_verifier_path() / "model.onnx").is_file(),
    reason="the shipped verifier is missing; run `make train-verifier`",
)


@pytest.fixture(scope="module")
def report():
    examples = files("enoki_hd") / "examples"
    detector = Detector()
    return detector.detect(
        answer=(examples / "suede_answer.txt").read_text().strip(),
        context=(examples / "suede_context.txt").read_text(),
        question=(examples / "suede_question.txt").read_text().strip(),
    )


def test_supported_sentences_and_hallucinated_sentences(report) -> None:
    assert [s.label for s in report.sentences] == [
        "supported",
        "supported",
        "contradicted",
        "contradicted",
    ]
    assert report.summary.status == "ok"


def test_hallucinated_spans_are_the_invented_facts(report) -> None:
    texts = [s.text for s in report.spans]
    for invented in ("Noel Gallagher", "Manchester", "twelve", "1998"):
        assert any(invented in text for text in texts), invented
    for supported in ("London", "1989", "Mercury Music Prize", "1993"):
        assert not any(supported in t for t in texts)
    for span in report.spans:
        assert report.answer[span.start : span.end] == span.text


def test_the_verifier_is_the_shipped_onnx_model(report) -> None:
    assert report.config["verifier"].endswith("verifier-minilm")
    assert report.config["extractor"] == "rules"
