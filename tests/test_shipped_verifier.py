"""The shipped verifier is what its manifest says: the files hash to the recorded sha256, the
graph labels obvious pairs correctly, and its SNLI test accuracy, recomputed here through the
runtime path, agrees with the recorded one."""

from __future__ import annotations

import hashlib
import json
import math
import random
from pathlib import Path

import pytest

from enoki_hd.runtime.onnx import quantizes_activations_per_batch
from enoki_hd.verify.loading import default_verifier_path, load_default_verifier
from enoki_hd.verify.nli import NLICrossEncoder

SHIPPED = default_verifier_path()
SNLI_TEST_N = 9824
SAMPLE_N = 500
ACCEPTANCE_SNLI_ACCURACY = 0.85  # the verifier's acceptance target on SNLI test

pytestmark = pytest.mark.skipif(
    not (SHIPPED / "model.onnx").is_file(),
    reason="the shipped verifier is missing; run `make train-verifier`",
)

# Pairs whose label is plain to any reader: SNLI-style scenes and the fact shape the detector
# sends (a premise sentence, a fact drawn from it or changed in one value).
OBVIOUS_PAIRS = [
    ("A man is playing a guitar on a stage.", "A man is playing an instrument.", "entailment"),
    ("Two children are building a sandcastle on the beach.", "Kids are outside.", "entailment"),
    (
        "A woman in a red coat is walking her dog in the park.",
        "A woman is walking a dog.",
        "entailment",
    ),
    ("Marie Curie discovered polonium in 1898.", "Marie Curie discovered polonium.", "entailment"),
    ("A man is playing a guitar on a stage.", "The man is asleep in his bed.", "contradiction"),
    (
        "Two children are building a sandcastle on the beach.",
        "The children are sitting in a classroom.",
        "contradiction",
    ),
    (
        "A woman in a red coat is walking her dog in the park.",
        "A woman in a blue coat is walking her dog.",
        "contradiction",
    ),
    (
        "Marie Curie discovered polonium in 1898.",
        "Marie Curie discovered polonium in 1902.",
        "contradiction",
    ),
    ("A man is playing a guitar on a stage.", "The man is a famous musician.", "neutral"),
    (
        "Two children are building a sandcastle on the beach.",
        "The children are brother and sister.",
        "neutral",
    ),
    (
        "A woman in a red coat is walking her dog in the park.",
        "The woman is going to the vet.",
        "neutral",
    ),
]


@pytest.fixture(scope="module")
def manifest() -> dict:
    return json.loads((SHIPPED / "manifest.json").read_text())


@pytest.fixture(scope="module")
def verifier() -> NLICrossEncoder:
    return load_default_verifier(cache_size=0)


@pytest.fixture(scope="module")
def snli_test(shared_dir: Path) -> list:
    from enoki_hd.train.nli_data import load_pairs

    return load_pairs(shared_dir / "data/snli/test.jsonl.gz", source="snli_test")


def accuracy(verifier: NLICrossEncoder, pairs: list) -> float:
    scores = verifier.predict([(p.premise, p.hypothesis) for p in pairs])
    return sum(s.label() == p.label for s, p in zip(scores, pairs, strict=True)) / len(pairs)


def test_files_match_the_manifest(manifest: dict) -> None:
    assert set(manifest["files"]) == {p.name for p in SHIPPED.iterdir()} - {"manifest.json"}
    for name, digest in manifest["files"].items():
        assert hashlib.sha256((SHIPPED / name).read_bytes()).hexdigest() == digest, name


def test_manifest_records_data_config_inference_and_measured_size(manifest: dict) -> None:
    assert manifest["data"]["snli_train"]["train_pairs"] > 0
    assert manifest["config"]["train"]["trainer"]["max_steps"] == manifest["metrics"]["steps"]
    assert manifest["reproduce"] == "make train-verifier"
    assert manifest["inference"] == {"backend": "onnx", "max_length": 256}
    size_mb = (SHIPPED / "model.onnx").stat().st_size / 2**20
    assert size_mb < 40  # the shipping budget, measured on the file
    assert size_mb == pytest.approx(manifest["metrics"]["onnx_size_mb"], abs=0.01)


def test_obvious_pairs_get_their_labels(verifier: NLICrossEncoder) -> None:
    scores = verifier.predict([(p, h) for p, h, _ in OBVIOUS_PAIRS])
    assert [s.label() for s in scores] == [label for _, _, label in OBVIOUS_PAIRS]


def test_each_pair_is_scored_alone_so_its_batch_does_not_change_it() -> None:
    """The shipped graph quantises activations with one range per batch: batched, a pair's
    probabilities depend on the pairs beside it (and their padding). By default it is scored
    alone, so its scores are the same in any batch and in any cache state."""
    assert quantizes_activations_per_batch(SHIPPED / "model.onnx")
    pair = (
        "The museum is open every day except Mondays, when it is closed for maintenance.",
        "The museum is open on Mondays.",
    )
    others = [("A much longer premise about something else. " * 12, "Nothing."), ("Hi.", "Yo.")]
    default = NLICrossEncoder(SHIPPED, cache_size=0)
    assert default.batch_size == 1 and default.config()["batch_size"] == 1
    assert default.predict([pair]) == [default.predict([*others, pair])[2]]
    assert default.stats["model_calls"] == 4
    # an explicit batch size is honoured, and then the batch shows in the scores
    batched = NLICrossEncoder(SHIPPED, cache_size=0, batch_size=32)
    assert batched.config()["batch_size"] == 32
    alone, among = batched.predict([pair])[0], batched.predict([*others, pair])[2]
    assert alone == default.predict([pair])[0]  # a batch of one is the same computation
    assert abs(alone.entailment - among.entailment) > 1e-3


def test_compatibility_characters_reach_the_model_as_plain_words(
    verifier: NLICrossEncoder,
) -> None:
    """PDF ligatures, full-width digits, a decomposed accent and a soft hyphen are read as the
    words they spell: the same token count and bitwise the same scores as the plain text."""
    plain = (
        "The official figures for the Café Heidelberg came in 1994.",
        "The figures came in 1994.",
    )
    scraped = (
        "The o\ufb03cial \ufb01gures for the Cafe\u0301 Heidel\u00adberg came in １９９４.",
        "The \ufb01gures came in 1994.",
    )
    assert verifier.count_tokens(scraped[0]) == verifier.count_tokens(plain[0])
    assert verifier.predict([scraped]) == verifier.predict([plain])
    assert verifier.predict([scraped])[0].label() == "entailment"


@pytest.mark.xfail(
    strict=True,
    reason="known weakness: a fact that adds a place the premise does not mention is called a "
    "contradiction (the synthetic training facts swap values), not neutral",
)
def test_a_fact_adding_an_unmentioned_place_is_neutral(verifier: NLICrossEncoder) -> None:
    [scores] = verifier.predict(
        [("Marie Curie discovered polonium in 1898.", "Marie Curie discovered polonium in Paris.")]
    )
    assert scores.label() == "neutral"


def test_recorded_snli_accuracy_agrees_with_a_recomputed_sample(
    manifest: dict, verifier: NLICrossEncoder, snli_test: list
) -> None:
    """500 pairs drawn without replacement from the 9,824 the export scored: their accuracy is
    hypergeometric around the recorded one, with sd = sqrt(p(1-p)/n * (N-n)/(N-1)) ≈ 0.0154.
    A recorded number more than 4 sd (≈ 6 points) from the sample's is not this model's."""
    assert len(snli_test) == SNLI_TEST_N == manifest["metrics"]["snli_test_n"]
    sample = random.Random(13).sample(snli_test, SAMPLE_N)
    measured = accuracy(verifier, sample)
    recorded = manifest["metrics"]["snli_test_accuracy_onnx"]
    sd = math.sqrt(
        recorded * (1 - recorded) / SAMPLE_N * (SNLI_TEST_N - SAMPLE_N) / (SNLI_TEST_N - 1)
    )
    assert abs(measured - recorded) <= 4 * sd, (measured, recorded)
    assert measured >= ACCEPTANCE_SNLI_ACCURACY - 4 * sd


def test_the_three_layer_verifier_reproduces_its_recorded_snli_accuracy(
    manifest: dict, snli_test: list
) -> None:
    """The same hypergeometric check for ``checkpoints/verifier-minilm-l3`` (``verifier=fast``),
    whose recorded accuracy is below the default's acceptance target by design."""
    fast = SHIPPED.parent / "verifier-minilm-l3"
    fast_manifest = json.loads((fast / "manifest.json").read_text())
    sample = random.Random(13).sample(snli_test, SAMPLE_N)
    measured = accuracy(NLICrossEncoder(fast, cache_size=0), sample)
    recorded = fast_manifest["metrics"]["snli_test_accuracy_onnx"]
    sd = math.sqrt(
        recorded * (1 - recorded) / SAMPLE_N * (SNLI_TEST_N - SAMPLE_N) / (SNLI_TEST_N - 1)
    )
    assert abs(measured - recorded) <= 4 * sd, (measured, recorded)
    # README: two points below the default verifier's recorded accuracy
    assert recorded == 0.8321 and manifest["metrics"]["snli_test_accuracy_onnx"] == 0.8528


@pytest.mark.slow
def test_onnx_runtime_path_reproduces_the_recorded_snli_accuracy(
    manifest: dict, snli_test: list
) -> None:
    verifier = NLICrossEncoder(SHIPPED, batch_size=64, cache_size=0)
    measured = accuracy(verifier, snli_test)
    assert measured >= ACCEPTANCE_SNLI_ACCURACY
    # the export measured 0.8528 with its own batching; padding may flip a pair or two
    assert measured == pytest.approx(manifest["metrics"]["snli_test_accuracy_onnx"], abs=5e-4)
