"""The shipped verifier is what its manifest says: the files hash to the recorded sha256 and
the ONNX model, run through the runtime path, reproduces the recorded SNLI test accuracy."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from enoki_hd.detector import default_verifier_path

SHIPPED = default_verifier_path()

pytestmark = pytest.mark.skipif(
    not (SHIPPED / "model.onnx").is_file(),
    reason="the shipped verifier is missing; run `make train-verifier`",
)


@pytest.fixture(scope="module")
def manifest() -> dict:
    return json.loads((SHIPPED / "manifest.json").read_text())


def test_files_match_the_manifest(manifest: dict) -> None:
    assert set(manifest["files"]) == {p.name for p in SHIPPED.iterdir()} - {"manifest.json"}
    for name, digest in manifest["files"].items():
        assert hashlib.sha256((SHIPPED / name).read_bytes()).hexdigest() == digest, name


def test_manifest_records_data_config_and_the_acceptance_metrics(manifest: dict) -> None:
    metrics = manifest["metrics"]
    assert metrics["snli_test_accuracy"] >= 0.85 and metrics["snli_test_n"] == 9824
    assert metrics["synthetic_facts_accuracy"] >= 0.90
    assert metrics["onnx_parity"]["label_agreement"] >= 0.99
    assert metrics["onnx_parity"]["n"] == 9824
    assert metrics["onnx_size_mb"] < 40
    assert (SHIPPED / "model.onnx").stat().st_size / 2**20 == pytest.approx(
        metrics["onnx_size_mb"], abs=0.01
    )
    assert manifest["data"]["snli_train"]["train_pairs"] > 0
    assert manifest["config"]["train"]["trainer"]["max_steps"] == metrics["steps"]
    assert manifest["reproduce"] == "make train-verifier"


def test_onnx_runtime_path_reproduces_the_recorded_snli_accuracy(
    manifest: dict, shared_dir: Path
) -> None:
    from enoki_hd.train.nli_data import load_pairs
    from enoki_hd.verify.nli import NLICrossEncoder

    pairs = load_pairs(shared_dir / "data/snli/test.jsonl.gz", source="snli_test")
    verifier = NLICrossEncoder(SHIPPED, backend="onnx", batch_size=64, cache_size=0)
    scores = verifier.predict([(p.premise, p.hypothesis) for p in pairs])
    correct = [s.label() == p.label for s, p in zip(scores, pairs, strict=True)]
    accuracy = sum(correct) / len(correct)
    # the export measured 0.8528 with its own batching; padding may flip a pair or two
    assert accuracy == pytest.approx(manifest["metrics"]["snli_test_accuracy_onnx"], abs=5e-4)
