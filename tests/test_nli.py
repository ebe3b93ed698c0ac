"""NLICrossEncoder on a tiny random BERT (torch and ONNX backends)."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from enoki_hd.types import NLIScores
from enoki_hd.verify.nli import NLICrossEncoder, NLILabelMap, Verifier, VerifierError

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

PAIRS = [
    ("The cat sat on the mat in the kitchen all afternoon.", "A cat sat."),
    ("Paris is the capital of France.", "Paris is in Germany and has a long history."),
    ("Water boils at 100 degrees.", "Water boils."),
    ("A very long premise " + "with many many words " * 6 + "ends here.", "It ends."),
    ("Short.", "Tiny."),
]


def as_array(scores: list[NLIScores]) -> np.ndarray:
    return np.array([[s.entailment, s.neutral, s.contradiction] for s in scores])


def manual_probs(directory: Path, pairs: list[tuple[str, str]]) -> np.ndarray:
    """(pairs, 3) softmax probabilities in the MODEL's label order, one pair at a time."""
    tokenizer = transformers.AutoTokenizer.from_pretrained(directory)
    model = transformers.AutoModelForSequenceClassification.from_pretrained(directory).eval()
    rows = []
    with torch.inference_mode():
        for premise, hypothesis in pairs:
            logits = model(**tokenizer(premise, hypothesis, return_tensors="pt")).logits
            rows.append(torch.softmax(logits.double(), dim=-1)[0].numpy())
    return np.stack(rows)


@pytest.fixture(scope="module")
def torch_verifier(tiny_nli_dir: Path) -> NLICrossEncoder:
    return NLICrossEncoder(tiny_nli_dir, backend="torch", batch_size=2)


def test_label_order_follows_id2label(tiny_nli_dir: Path, torch_verifier: NLICrossEncoder) -> None:
    assert isinstance(torch_verifier, Verifier)
    assert torch_verifier.label_map == NLILabelMap(
        entailment=1, neutral=2, contradiction=0, num_labels=3
    )
    got = as_array(torch_verifier.predict(PAIRS))
    model_order = manual_probs(tiny_nli_dir, PAIRS)  # columns: contradiction, entailment, neutral
    np.testing.assert_allclose(got, model_order[:, [1, 2, 0]], atol=1e-5)
    np.testing.assert_allclose(got.sum(axis=1), 1.0, atol=1e-6)


def test_onnx_backend_matches_torch(tiny_nli_dir: Path, torch_verifier: NLICrossEncoder) -> None:
    onnx_verifier = NLICrossEncoder(tiny_nli_dir, backend="auto", batch_size=2)
    assert onnx_verifier.backend == "onnx"
    assert onnx_verifier.max_length == torch_verifier.max_length == 128  # position embeddings
    diff = as_array(onnx_verifier.predict(PAIRS)) - as_array(torch_verifier.predict(PAIRS))
    assert np.abs(diff).max() < 1e-4


def test_onnx_backend_runs_without_torch_or_transformers(
    tiny_nli_dir: Path, torch_verifier: NLICrossEncoder
) -> None:
    script = textwrap.dedent(
        f"""
        import json, sys
        sys.modules["torch"] = None  # any import of torch or transformers now fails
        sys.modules["transformers"] = None
        from enoki_hd.verify.nli import NLICrossEncoder
        verifier = NLICrossEncoder({str(tiny_nli_dir)!r})
        scores = verifier.predict({PAIRS!r})
        print(json.dumps([verifier.backend, verifier.max_length, [s.to_dict() for s in scores]]))
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    backend, max_length, scores = json.loads(result.stdout.strip().splitlines()[-1])
    assert (backend, max_length) == ("onnx", 128)
    got = as_array([NLIScores.from_dict(s) for s in scores])
    assert np.abs(got - as_array(torch_verifier.predict(PAIRS))).max() < 1e-4


def test_length_sorting_restores_input_order(tiny_nli_dir: Path) -> None:
    batched = NLICrossEncoder(tiny_nli_dir, backend="torch", batch_size=2, cache_size=0)
    single = NLICrossEncoder(tiny_nli_dir, backend="torch", batch_size=1, cache_size=0)
    pairs = PAIRS[::-1] + PAIRS[:2]
    expected = np.stack([as_array(single.predict([pair]))[0] for pair in pairs])
    np.testing.assert_allclose(as_array(batched.predict(pairs)), expected, atol=1e-5)
    # 5 distinct pairs (duplicates are scored once) in batches of 2.
    assert batched.stats["model_calls"] == 3


def test_cache_hits_are_counted_and_bounded(tiny_nli_dir: Path) -> None:
    verifier = NLICrossEncoder(tiny_nli_dir, backend="onnx", batch_size=8, cache_size=3)
    first = verifier.predict(PAIRS[:3])
    assert verifier.stats == {"pairs": 3, "cache_hits": 0, "model_calls": 1, "truncated": 0}
    again = verifier.predict(PAIRS[:3])
    assert again == first
    assert verifier.stats == {"pairs": 6, "cache_hits": 3, "model_calls": 1, "truncated": 0}
    verifier.predict(PAIRS[3:4])  # evicts the least recently used pair, PAIRS[0]
    verifier.predict(PAIRS[:1])
    assert verifier.stats["cache_hits"] == 3
    assert verifier.stats["model_calls"] == 3

    uncached = NLICrossEncoder(tiny_nli_dir, backend="onnx", cache_size=0)
    uncached.predict(PAIRS[:2])
    uncached.predict(PAIRS[:2])
    assert uncached.stats["cache_hits"] == 0
    assert uncached.stats["model_calls"] == 2


def test_count_tokens_matches_tokenizer(
    torch_verifier: NLICrossEncoder, tiny_nli_dir: Path
) -> None:
    tokenizer = transformers.AutoTokenizer.from_pretrained(tiny_nli_dir)
    text = "Tokenization of unbelievably long words, counted without specials."
    expected = len(tokenizer(text, add_special_tokens=False)["input_ids"])
    assert torch_verifier.count_tokens(text) == expected
    assert torch_verifier.count_tokens_batch([text, ""]) == [expected, 0]
    assert torch_verifier.pair_special_tokens == 3


def test_truncation_is_counted_and_warned_once(
    tiny_nli_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    verifier = NLICrossEncoder(tiny_nli_dir, backend="onnx", max_length=16)
    long_premise = "word " * 40
    with caplog.at_level(logging.WARNING, logger="enoki_hd.verify.nli"):
        verifier.predict([(long_premise, "a short hypothesis"), ("short premise", "short")])
        verifier.predict([(long_premise + "more", "another hypothesis")])
    assert verifier.stats["truncated"] == 2
    assert len([r for r in caplog.records if "truncated" in r.message]) == 1
    # The hypothesis is never cut: a truncated premise scores like the hand-truncated one.
    tokenizer = transformers.AutoTokenizer.from_pretrained(tiny_nli_dir)
    kept = 16 - 3 - len(tokenizer("a short hypothesis", add_special_tokens=False)["input_ids"])
    hand_cut = " ".join(["word"] * kept)
    reference = NLICrossEncoder(tiny_nli_dir, backend="onnx", max_length=16)
    np.testing.assert_allclose(
        as_array(verifier.predict([(long_premise, "a short hypothesis")])),
        as_array(reference.predict([(hand_cut, "a short hypothesis")])),
        atol=1e-6,
    )
    assert reference.stats["truncated"] == 0
    with pytest.raises(ValueError, match="leaving no room for a premise"):
        verifier.predict([("premise", "hypothesis " * 20)])


def test_non_finite_logits_raise_verifier_error(tiny_nli_dir: Path) -> None:
    verifier = NLICrossEncoder(tiny_nli_dir, backend="torch", cache_size=0)
    with torch.no_grad():
        verifier._session.model.classifier.bias[1] = float("nan")
    with pytest.raises(VerifierError, match="non-finite logits for 2 of 2 pairs"):
        verifier.predict(PAIRS[:2])


def test_onnx_failures_raise_verifier_error(
    tiny_nli_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    verifier = NLICrossEncoder(tiny_nli_dir, backend="onnx", cache_size=0)
    session = verifier._session

    monkeypatch.setattr(session, "run", lambda inputs: np.full((1, 3), np.inf, np.float32))
    with pytest.raises(VerifierError, match="non-finite"):
        verifier.predict(PAIRS[:1])

    monkeypatch.setattr(session, "run", lambda inputs: np.zeros((1, 2), np.float32))
    with pytest.raises(VerifierError, match=r"shape \(1, 2\), expected \(1, 3\)"):
        verifier.predict(PAIRS[:1])

    def crash(inputs: dict[str, np.ndarray]) -> np.ndarray:
        raise RuntimeError("session exploded")

    monkeypatch.setattr(session, "run", crash)
    with pytest.raises(VerifierError, match="session exploded"):
        verifier.predict(PAIRS[:1])
    assert verifier._cache == {}  # nothing half-computed was cached


def test_missing_model_path_says_what_to_do(tmp_path: Path, tiny_nli_dir: Path) -> None:
    missing = tmp_path / "checkpoints" / "verifier"
    with pytest.raises(FileNotFoundError, match="make train-verifier") as error:
        NLICrossEncoder(missing)
    assert str(missing) in str(error.value)
    with pytest.raises(FileNotFoundError, match="make train-verifier"):
        NLICrossEncoder(tiny_nli_dir, backend="onnx", onnx_file="absent.onnx")


def test_label_map_from_id2label() -> None:
    assert NLILabelMap.from_id2label(
        {"0": "ENTAILMENT", "1": "Neutral", "2": "contradict"}
    ) == NLILabelMap(0, 1, 2, 3)
    two = NLILabelMap.from_id2label({0: "not-entailment", 1: "entailment"})
    assert two == NLILabelMap(entailment=1, neutral=0, contradiction=None, num_labels=2)
    assert two.scores(np.array([[0.7, 0.3]])) == [NLIScores(0.3, 0.7, 0.0)]
    for bad in ({0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"}, {0: "entailment", 1: "entailment"}):
        with pytest.raises(ValueError, match="cannot map the model's labels") as error:
            NLILabelMap.from_id2label(bad)
        assert repr(bad[1]) in str(error.value)
