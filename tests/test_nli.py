"""NLICrossEncoder on a tiny random BERT (torch and ONNX backends)."""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
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
    assert len(verifier._cache) == 0  # nothing half-computed was cached


def test_missing_model_path_says_what_to_do(tmp_path: Path, tiny_nli_dir: Path) -> None:
    missing = tmp_path / "checkpoints" / "verifier"
    with pytest.raises(FileNotFoundError, match="make train-verifier") as error:
        NLICrossEncoder(missing)
    assert str(missing) in str(error.value)
    with pytest.raises(FileNotFoundError, match="make train-verifier"):
        NLICrossEncoder(tiny_nli_dir, backend="onnx", onnx_file="absent.onnx")
    # a folder that is no checkpoint at all (neither graph nor transformers model) is named
    # as such, not handed to transformers ("Unrecognized model ...")
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "readme.txt").write_text("not a model")
    with pytest.raises(FileNotFoundError) as error:
        NLICrossEncoder(folder)
    assert str(error.value) == (
        f"NLI verifier not found at {folder}: the folder holds neither model.onnx (an exported "
        "checkpoint) nor config.json (a transformers model); run `make train-verifier` to "
        "build the shipped verifier, or pass a hub id / local path"
    )


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


def checkpoint_copy(
    source: Path, target: Path, *, manifest: dict | None = None, weights: bool = True
) -> Path:
    """A copy of ``source`` with ``manifest.json`` written as given (none when None), and
    without the PyTorch weights when ``weights`` is false (an ONNX-only checkpoint)."""
    shutil.copytree(source, target)
    if not weights:
        (target / "model.safetensors").unlink()
    if manifest is not None:
        (target / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return target


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_manifest_inference_block_is_every_loaders_default(
    tiny_nli_dir: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    directory = checkpoint_copy(
        tiny_nli_dir,
        tmp_path / "ckpt",
        manifest={"inference": {"backend": "torch", "max_length": 64}},
    )
    # Without the block the same files run on onnx at the 128 position embeddings.
    assert (NLICrossEncoder(tiny_nli_dir).backend, NLICrossEncoder(tiny_nli_dir).max_length) == (
        "onnx",
        128,
    )
    verifier = NLICrossEncoder(directory)
    assert (verifier.backend, verifier.max_length) == ("torch", 64)
    assert NLICrossEncoder(str(directory), backend="onnx").max_length == 64
    with caplog.at_level(logging.INFO, logger="enoki_hd.verify.nli"):
        explicit = NLICrossEncoder(directory, max_length=32)
    assert explicit.max_length == explicit.config()["max_length"] == 32
    assert any(
        "overrides the manifest's inference.max_length=64" in r.message for r in caplog.records
    )

    (directory / "manifest.json").write_text(json.dumps({"inference": {"max_len": 64}}))
    with pytest.raises(ValueError, match=r"unknown inference settings \['max_len'\]"):
        NLICrossEncoder(directory)
    (directory / "manifest.json").write_text('{"inference": {"max_length": 6')
    with pytest.raises(VerifierError, match=r"manifest\.json is not valid JSON"):
        NLICrossEncoder(directory)


def test_options_the_checkpoint_cannot_honour_are_errors(
    tiny_nli_dir: Path, tmp_path: Path
) -> None:
    onnx_only = checkpoint_copy(tiny_nli_dir, tmp_path / "onnx_only", weights=False)
    with pytest.raises(ValueError, match=r"backend='torch' \(config `verifier.backend`\)") as error:
        NLICrossEncoder(onnx_only, backend="torch")
    assert "only the ONNX graph model.onnx" in str(error.value)
    assert "backend 'onnx' or 'auto'" in str(error.value)
    assert NLICrossEncoder(onnx_only).backend == "onnx"

    # 129 tokens do not fit 128 position embeddings: an error, not a silent cap.
    for backend in ("onnx", "torch"):
        with pytest.raises(ValueError, match=r"max_length=129 \(config `verifier.max_length`\)"):
            NLICrossEncoder(tiny_nli_dir, backend=backend, max_length=129)
    assert NLICrossEncoder(tiny_nli_dir, max_length=128).max_length == 128

    with pytest.raises(ValueError, match=r"backend='onnx' \(config `verifier.backend`\).*hub id"):
        NLICrossEncoder("org/some-nli-model", backend="onnx")
    with pytest.raises(ValueError, match=r"config `verifier\.device`"):
        NLICrossEncoder(tiny_nli_dir, backend="onnx", device="cuda")


def test_config_holds_every_setting_that_changes_outputs(
    tiny_nli_dir: Path, torch_verifier: NLICrossEncoder
) -> None:
    onnx_verifier = NLICrossEncoder(tiny_nli_dir, batch_size=4, max_length=64)
    assert onnx_verifier.config() == {
        "path": str(tiny_nli_dir),
        "backend": "onnx",
        "max_length": 64,
        "batch_size": 4,
        "onnx_file": "model.onnx",
        "sha256": sha256_of(tiny_nli_dir / "model.onnx"),
    }
    assert torch_verifier.config() == {
        "path": str(tiny_nli_dir),
        "backend": "torch",
        "max_length": 128,
        "batch_size": 2,
        "device": "cpu",
        "revision": None,
    }


def truncated_graph(source: Path, target: Path, *, manifest: bool) -> tuple[Path, str, str]:
    """A copy of ``source`` whose model.onnx lost its second half; ``(dir, expected, actual)``
    sha256 of the graph, the manifest (when written) recording the intact one."""
    intact = sha256_of(source / "model.onnx")
    directory = checkpoint_copy(
        source, target, manifest={"files": {"model.onnx": intact}} if manifest else None
    )
    graph = directory / "model.onnx"
    data = graph.read_bytes()
    graph.write_bytes(data[: len(data) // 2])
    return directory, intact, sha256_of(graph)


def test_unloadable_graph_is_a_verifier_error_naming_file_hashes_and_fix(
    tiny_nli_dir: Path, tmp_path: Path
) -> None:
    directory, expected, actual = truncated_graph(tiny_nli_dir, tmp_path / "cut", manifest=True)
    with pytest.raises(VerifierError) as error:
        NLICrossEncoder(directory, backend="onnx")
    message = str(error.value)
    assert str(directory / "model.onnx") in message
    assert f"sha256 {actual}, but manifest.json expects {expected}" in message
    assert "`git checkout -- checkpoints/`" in message and "`make export`" in message
    assert "\n" not in message

    bare, _, actual = truncated_graph(tiny_nli_dir, tmp_path / "bare", manifest=False)
    with pytest.raises(VerifierError, match=f"sha256 {actual}; no manifest\\.json records"):
        NLICrossEncoder(bare, backend="onnx")


def test_intact_graph_the_runtime_cannot_load_says_so(
    tiny_nli_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import onnxruntime

    intact = sha256_of(tiny_nli_dir / "model.onnx")
    directory = checkpoint_copy(
        tiny_nli_dir, tmp_path / "ckpt", manifest={"files": {"model.onnx": intact}}
    )

    def refuse(*args, **kwargs):
        raise RuntimeError("Unsupported model IR version: 99")

    monkeypatch.setattr(onnxruntime, "InferenceSession", refuse)
    with pytest.raises(VerifierError, match=f"sha256 {intact} matches manifest\\.json") as error:
        NLICrossEncoder(directory, backend="onnx")
    assert "Unsupported model IR version: 99" in str(error.value)
    assert f"onnxruntime {onnxruntime.__version__} cannot run it" in str(error.value)


def test_graph_that_differs_from_its_manifest_is_warned_and_keyed_by_its_own_hash(
    tiny_nli_dir: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    directory = checkpoint_copy(
        tiny_nli_dir, tmp_path / "ckpt", manifest={"files": {"model.onnx": "0" * 64}}
    )
    with caplog.at_level(logging.WARNING, logger="enoki_hd.verify.nli"):
        verifier = NLICrossEncoder(directory)
    assert verifier.config()["sha256"] == sha256_of(directory / "model.onnx")
    assert any("but manifest.json records 000" in r.message for r in caplog.records)


def test_compat_normalized_prepends_nfkc_to_any_normalizer() -> None:
    """The verifier's tokenizer reads text in compatibility form whether or not the checkpoint's
    tokenizer has a normalizer of its own; the original tokenizer is left as it was."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    from enoki_hd.verify.nli import compat_normalized

    vocab = {"[UNK]": 0, "official": 1, "figures": 2, "1994": 3}
    for own in (None, normalizers.Lowercase()):
        tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
        tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
        if own is not None:
            tokenizer.normalizer = own
        text = "O\ufb03cial \ufb01gures １９９４" if own else "o\ufb03cial \ufb01gures １９９４"
        assert tokenizer.encode(text).ids == [0, 0, 0]
        assert compat_normalized(tokenizer).encode(text).ids == [1, 2, 3]
        assert compat_normalized(tokenizer).encode("offi\u00adcial").ids == [1]
        assert tokenizer.encode(text).ids == [0, 0, 0]


@pytest.mark.parametrize(
    ("manifest", "message"),
    [
        ("[1, 2]", r"manifest\.json holds a JSON list, not an object"),
        ('{"inference": "onnx"}', r"manifest\.json: inference must be an object, got str"),
        ('{"files": ["model.onnx"]}', r"manifest\.json: files must be an object, got list"),
        ('{"kind": "igl-tagger"}', r"is not a verifier checkpoint: .*kind 'igl-tagger'"),
    ],
)
def test_a_manifest_of_the_wrong_shape_or_kind_is_a_verifier_error_naming_it(
    tiny_nli_dir: Path, tmp_path: Path, manifest: str, message: str
) -> None:
    # a JSON list, or an inference / files block that was no object, was an AttributeError
    # traceback; a tagger's folder passed as the verifier loaded (or failed on its depth)
    directory = checkpoint_copy(tiny_nli_dir, tmp_path / "ckpt")
    (directory / "manifest.json").write_text(manifest, encoding="utf-8")
    with pytest.raises(VerifierError, match=message):
        NLICrossEncoder(directory)


def test_a_manifest_max_length_of_true_is_refused(tiny_nli_dir: Path, tmp_path: Path) -> None:
    # True is an int to isinstance: it loaded at max_length 1
    directory = checkpoint_copy(
        tiny_nli_dir, tmp_path / "ckpt", manifest={"inference": {"max_length": True}}
    )
    with pytest.raises(ValueError, match=r"inference\.max_length must be a positive integer"):
        NLICrossEncoder(directory)


def test_a_missing_tokenizer_file_is_an_error_not_a_tokenizer_without_vocabulary(
    tiny_nli_dir: Path, tmp_path: Path
) -> None:
    # transformers built a BertTokenizer from tokenizer_config.json alone: five special tokens,
    # every word [UNK], and the verifier scored every pair the same without a word
    recorded = {"files": {"tokenizer.json": sha256_of(tiny_nli_dir / "tokenizer.json")}}
    shipped = checkpoint_copy(tiny_nli_dir, tmp_path / "shipped", manifest=recorded)
    (shipped / "tokenizer.json").unlink()
    with pytest.raises(VerifierError, match=r"lacks tokenizer\.json, which its manifest\.json"):
        NLICrossEncoder(shipped)
    unrecorded = checkpoint_copy(tiny_nli_dir, tmp_path / "unrecorded")
    (unrecorded / "tokenizer.json").unlink()
    with pytest.raises(VerifierError, match=r"has no vocabulary, only its special tokens"):
        NLICrossEncoder(unrecorded)


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("tokenizer.json", "{", r"cannot load the tokenizer .*tokenizer\.json: EOF while parsing"),
        ("tokenizer_config.json", "[]", r"tokenizer_config\.json holds a JSON list, not an object"),
        ("config.json", '{"id2label": ', r"config\.json is not valid JSON"),
        ("config.json", "[1]", r"config\.json holds a JSON list, not an object"),
        ("config.json", '{"id2label": {"a": "x"}}', r"config\.json: id2label keys must be integ"),
    ],
)
def test_a_damaged_config_or_tokenizer_file_is_a_verifier_error_naming_it(
    tiny_nli_dir: Path, tmp_path: Path, name: str, text: str, message: str
) -> None:
    # each was a traceback that named no file (a bare tokenizers Exception, a JSONDecodeError,
    # an AttributeError)
    directory = checkpoint_copy(tiny_nli_dir, tmp_path / "ckpt")
    (directory / name).write_text(text, encoding="utf-8")
    with pytest.raises(VerifierError, match=message) as err:
        NLICrossEncoder(directory, backend="onnx")
    assert str(directory / name) in str(err.value) and "make export" in str(err.value)


def test_a_position_count_that_is_no_whole_number_is_a_verifier_error_naming_it(
    tiny_nli_dir: Path, tmp_path: Path
) -> None:
    # "512" in config.json was a TypeError ("'<' not supported between ...") naming nothing
    directory = checkpoint_copy(tiny_nli_dir, tmp_path / "ckpt")
    config = json.loads((directory / "config.json").read_text(encoding="utf-8"))
    config["max_position_embeddings"] = "512"
    (directory / "config.json").write_text(json.dumps(config), encoding="utf-8")
    with pytest.raises(VerifierError) as err:
        NLICrossEncoder(directory, backend="onnx")
    assert str(err.value).startswith(
        f"{directory / 'config.json'}: max_position_embeddings must be a whole number, got '512'; "
    )
