"""`make int8-all` (scripts/quantize_kept_float.py) on a tiny shipped-style verifier checkpoint:
the accuracy check, what the manifest records, refusal, and a second run that does nothing."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime.quantization")

from enoki_hd.export.onnx import quantize_int8, sha256_file

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "quantize_kept_float.py"
ROWS = [
    ("A man plays a guitar on stage.", "A man plays music.", "entailment"),
    ("A man plays a guitar on stage.", "Nobody is playing.", "contradiction"),
    ("Two dogs run in a park.", "The dogs are brothers.", "neutral"),
    ("The band formed in London in 1989.", "The band formed in 1989.", "entailment"),
    ("A child sleeps on a sofa.", "A child is jumping.", "contradiction"),
    ("A woman reads in a cafe.", "The woman reads a novel.", "neutral"),
]


@pytest.fixture(scope="module")
def script():
    spec = importlib.util.spec_from_file_location("quantize_kept_float", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def checkpoint(tiny_nli_dir: Path, tmp_path: Path) -> Path:
    """A verifier checkpoint as `make train-verifier` ships it: int8 with the FFN kept float
    (fp16), a manifest with sha256s, a fusion.json fitted on its scores."""
    directory = tmp_path / "verifier-tiny"
    directory.mkdir()
    for name in ("config.json", "tokenizer.json", "tokenizer_config.json"):
        shutil.copy2(tiny_nli_dir / name, directory / name)
    quantize_int8(
        tiny_nli_dir / "model.onnx",
        directory / "model.onnx",
        keep_float=["intermediate/dense", r"layer\.\d+/output/dense"],
        embeddings="int8_rows",
    )
    graph_sha = sha256_file(directory / "model.onnx")
    (directory / "fusion.json").write_text(json.dumps({"verifier_sha256": graph_sha}))
    files = {p.name: sha256_file(p) for p in sorted(directory.iterdir())}
    manifest = {
        "kind": "nli-cross-encoder",
        "files": files,
        "inference": {"backend": "onnx", "max_length": 64},
        "metrics": {"snli_test_accuracy_onnx": 0.3333, "snli_test_n": len(ROWS)},
        "reproduce": "make train-verifier",
    }
    (directory / "manifest.json").write_text(json.dumps(manifest, indent=2))
    return directory


def _state(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


def test_quantises_checks_and_records_then_leaves_it(script, checkpoint: Path) -> None:
    previous = sha256_file(checkpoint / "model.onnx")
    labels_before = script.predictions(checkpoint, ROWS)
    message = script.quantize_checkpoint(checkpoint, ROWS, max_drop=1.0)
    assert f"{checkpoint}: 4 MatMuls quantised, SNLI test accuracy " in message
    assert "on 6 pairs, label agreement with the previous graph " in message
    assert message.endswith(
        "; its fusion.json, fitted on the previous graph's scores, was left out: "
        f"`make calibrate ARGS='name=verifier-tiny eval_overrides=[\"verifier.path={checkpoint}\"]'`"
        " fits one"
    )
    assert not (checkpoint / "fusion.json").exists()
    manifest = json.loads((checkpoint / "manifest.json").read_text())
    new = sha256_file(checkpoint / "model.onnx")
    assert new != previous and manifest["files"]["model.onnx"] == new
    assert manifest["reproduce"] == f'make train-verifier && make int8-all ARGS="{checkpoint}"'
    record = manifest["graph_passes"][-1]
    labels_after = script.predictions(checkpoint, ROWS)
    assert record["pass"] == "quantize_kept_float"
    assert record["quantized"] == 4
    assert record["keep_float"] == []
    assert record["previous_sha256"] == previous
    assert record["snli_test_n"] == 6
    assert record["snli_test_accuracy_before"] == round(script.accuracy(labels_before, ROWS), 4)
    assert record["snli_test_accuracy_after"] == round(script.accuracy(labels_after, ROWS), 4)
    agreement = sum(a == b for a, b in zip(labels_before, labels_after, strict=True)) / 6
    assert record["label_agreement"] == round(agreement, 4)
    assert record["check"].endswith("; at most 1.0 may be lost")
    assert record["fusion_removed"] is True
    assert "fusion" not in manifest and set(manifest["files"]) == {
        "config.json",
        "model.onnx",
        "tokenizer.json",
        "tokenizer_config.json",
    }
    # the manifest's ONNX accuracy was measured on the same number of pairs: it is replaced
    assert manifest["metrics"]["snli_test_accuracy_onnx"] == record["snli_test_accuracy_after"]
    size = (checkpoint / "model.onnx").stat().st_size
    assert manifest["metrics"]["onnx_size_mb"] == round(size / 2**20, 2)
    assert not list(checkpoint.glob("*.tmp"))
    assert sorted(p.name for p in checkpoint.parent.iterdir()) == [checkpoint.name]

    state = _state(checkpoint)
    assert script.quantize_checkpoint(checkpoint, ROWS, max_drop=1.0) == (
        f"{checkpoint}: no float MatMul left, left as it is"
    )
    assert _state(checkpoint) == state


def test_an_interrupted_pass_in_place_leaves_the_checkpoint_whole(
    script, checkpoint: Path, monkeypatch
) -> None:
    """The graph, the manifest and fusion.json change together: Ctrl-C at the swap leaves the
    old checkpoint, not a new graph under the old manifest, and no staged copy behind."""
    state = _state(checkpoint)

    def interrupted(tmp: Path, target: Path) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(script, "replace_dir", interrupted)
    with pytest.raises(KeyboardInterrupt):
        script.quantize_checkpoint(checkpoint, ROWS, max_drop=1.0)
    assert _state(checkpoint) == state
    assert sorted(p.name for p in checkpoint.parent.iterdir()) == [checkpoint.name]


def test_out_writes_a_new_checkpoint_and_leaves_the_source(
    script, checkpoint: Path, tmp_path: Path
) -> None:
    source = _state(checkpoint)
    out = tmp_path / "deploy" / "verifier-tiny-int8"
    message = script.quantize_checkpoint(checkpoint, ROWS, max_drop=1.0, out=out)
    assert message.startswith(f"{out}: 4 MatMuls quantised, ")
    assert f"ARGS='name=verifier-tiny-int8 eval_overrides=[\"verifier.path={out}\"]'" in message
    assert _state(checkpoint) == source
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["reproduce"] == (
        f'make train-verifier && make int8-all ARGS="{checkpoint} --out {out}"'
    )
    assert manifest["files"]["model.onnx"] == sha256_file(out / "model.onnx")
    assert sorted(p.name for p in out.iterdir()) == [
        "config.json",
        "manifest.json",
        "model.onnx",
        "tokenizer.json",
        "tokenizer_config.json",
    ]
    assert [p.name for p in out.parent.iterdir()] == [out.name]  # no staging folder left
    with pytest.raises(SystemExit, match=r"--out .* exists; name a new folder"):
        script.quantize_checkpoint(checkpoint, ROWS, max_drop=1.0, out=out)


def test_kept_float_patterns_stay_float_and_are_recorded(script, checkpoint: Path) -> None:
    pattern = r"layer\.\d+/output/dense"
    message = script.quantize_checkpoint(checkpoint, ROWS, max_drop=1.0, keep_float=[pattern])
    assert message.startswith(f"{checkpoint}: 2 MatMuls quantised, ")  # the FFN-in of 2 layers
    manifest = json.loads((checkpoint / "manifest.json").read_text())
    assert manifest["graph_passes"][-1]["keep_float"] == [pattern]
    assert manifest["reproduce"] == (
        f"make train-verifier && make int8-all ARGS=\"{checkpoint} --keep-float '{pattern}'\""
    )
    # the FFN-out projections are still float16-stored, so a second pass without the pattern
    # finds them
    assert script.quantize_checkpoint(checkpoint, ROWS, max_drop=1.0).startswith(
        f"{checkpoint}: 2 MatMuls quantised, "
    )


def test_against_float_scores_the_dequantised_reference(script, checkpoint: Path) -> None:
    message = script.quantize_checkpoint(checkpoint, ROWS, max_drop=1.0, against_float=True)
    record = json.loads((checkpoint / "manifest.json").read_text())["graph_passes"][-1]
    keys = ("accuracy", "agreement_before", "agreement_after")
    values = [record[f"float_reference_{key}"] for key in keys]
    assert all(0 <= value <= 1 for value in values)
    assert (
        f"; with the float reference (accuracy {values[0]:.4f}) {values[1]:.4f} -> {values[2]:.4f}"
        in message
    )
    assert record["check"].endswith(
        f"with the float reference (accuracy {values[0]:.4f}) {values[1]:.4f} -> {values[2]:.4f}"
        "; at most 1.0 may be lost"
    )


def test_too_large_a_drop_writes_nothing(script, checkpoint: Path, monkeypatch) -> None:
    gold = [label for _, _, label in ROWS]
    wrong = {"entailment": "neutral", "neutral": "contradiction", "contradiction": "entailment"}

    def predictions(directory: Path, rows, *, desc: str = ""):
        # the shipped graph right on every pair, the quantised copy wrong on every pair
        return gold if directory == checkpoint else [wrong[g] for g in gold]

    monkeypatch.setattr(script, "predictions", predictions)
    state = _state(checkpoint)
    with pytest.raises(SystemExit) as raised:
        script.quantize_checkpoint(checkpoint, ROWS, max_drop=0.005)
    assert str(raised.value) == (
        f"{checkpoint}: SNLI test accuracy 1.0000 -> 0.0000 on 6 pairs, label agreement with "
        "the previous graph 0.0000: more than --max-drop 0.005 lost; nothing written"
    )
    assert _state(checkpoint) == state


def test_only_verifiers_and_only_checkpoints(script, checkpoint: Path, tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"is not a shipped ONNX checkpoint"):
        script.quantize_checkpoint(tmp_path / "nowhere", ROWS, max_drop=0.005)
    manifest = json.loads((checkpoint / "manifest.json").read_text())
    manifest["kind"] = "igl-tagger"
    (checkpoint / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(SystemExit, match=r"manifest kind 'igl-tagger'; this pass is for NLI"):
        script.quantize_checkpoint(checkpoint, ROWS, max_drop=0.005)


@pytest.mark.parametrize(
    ("argv", "error"),
    [
        (["x", "--pairs", "0"], "--pairs must be >= 1, got 0"),
        (["x", "--max-drop", "1.5"], "--max-drop must be a fraction in [0, 1], got 1.5"),
        (["x", "y", "--out", "z"], "--out takes one checkpoint, got 2"),
        ([], "the following arguments are required: checkpoints"),
        (["x", "--keep-float", "("], "--keep-float '(' is not a regular expression: "),
        (["nowhere"], "nowhere is not a shipped ONNX checkpoint (model.onnx and manifest.json)"),
    ],
)
def test_bad_arguments_are_named(script, argv, error, capsys) -> None:
    with pytest.raises(SystemExit):
        script.main(argv)
    assert error in capsys.readouterr().err
