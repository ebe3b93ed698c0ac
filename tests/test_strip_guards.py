"""`make strip-guards` (scripts/strip_nan_guards.py): the torch exporter's NaN guards removed
from a shipped checkpoint, the graph, manifest and fusion.json changed together."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("onnx")
from enoki_hd.export.onnx import sha256_file

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "strip_nan_guards.py"


@pytest.fixture(scope="module")
def script():
    spec = importlib.util.spec_from_file_location("strip_nan_guards", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def checkpoint(tiny_nli_dir: Path, tmp_path: Path) -> Path:
    """A verifier checkpoint exported before the guards were left out: the tiny model's
    graph (two IsNaN guards), a manifest with sha256s, a fusion.json fitted on its scores."""
    directory = tmp_path / "verifier-tiny"
    directory.mkdir()
    for name in ("config.json", "tokenizer.json", "tokenizer_config.json", "model.onnx"):
        shutil.copy2(tiny_nli_dir / name, directory / name)
    graph = sha256_file(directory / "model.onnx")
    (directory / "fusion.json").write_text(json.dumps({"verifier_sha256": graph}))
    files = {p.name: sha256_file(p) for p in sorted(directory.iterdir())}
    manifest = {
        "kind": "nli-cross-encoder",
        "files": files,
        "fusion": {"sha256": files["fusion.json"]},
        "inference": {"backend": "onnx", "max_length": 64},
    }
    (directory / "manifest.json").write_text(json.dumps(manifest, indent=2))
    return directory


def _state(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


def test_strips_and_updates_the_manifest_and_fusion_then_leaves_it(
    script, checkpoint: Path
) -> None:
    previous = sha256_file(checkpoint / "model.onnx")
    message = script.strip_checkpoint(checkpoint)
    new = sha256_file(checkpoint / "model.onnx")
    assert new != previous
    assert message == (
        f"{checkpoint}: 2 NaN guards removed, outputs bitwise identical, sha256 {new}"
    )
    manifest = json.loads((checkpoint / "manifest.json").read_text())
    fusion = json.loads((checkpoint / "fusion.json").read_text())
    assert fusion["verifier_sha256"] == new
    assert manifest["files"]["model.onnx"] == new
    assert manifest["files"]["fusion.json"] == sha256_file(checkpoint / "fusion.json")
    assert manifest["fusion"]["sha256"] == manifest["files"]["fusion.json"]
    assert manifest["graph_passes"] == [
        {
            "pass": "strip_nan_guards",
            "removed": 2,
            "previous_sha256": previous,
            "check": "bitwise-identical outputs on the bundled example, batch sizes 1, 7, 32",
        }
    ]
    assert sorted(p.name for p in checkpoint.parent.iterdir()) == [checkpoint.name]
    state = _state(checkpoint)
    assert script.strip_checkpoint(checkpoint) == f"{checkpoint}: no NaN guards, left as it is"
    assert _state(checkpoint) == state
    assert sorted(p.name for p in checkpoint.parent.iterdir()) == [checkpoint.name]


def test_an_interrupted_pass_leaves_the_checkpoint_whole(
    script, checkpoint: Path, monkeypatch
) -> None:
    """Ctrl-C at the swap: the old graph under the old manifest and fusion.json, not a new
    graph whose sha256 neither records (which a rerun, finding no guards, never repaired)."""
    state = _state(checkpoint)

    def interrupted(tmp: Path, target: Path) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(script, "replace_dir", interrupted)
    with pytest.raises(KeyboardInterrupt):
        script.strip_checkpoint(checkpoint)
    assert _state(checkpoint) == state
    assert sorted(p.name for p in checkpoint.parent.iterdir()) == [checkpoint.name]
    monkeypatch.undo()
    assert "2 NaN guards removed" in script.strip_checkpoint(checkpoint)


def test_the_checkpoint_may_be_given_as_dot_from_inside_it(
    script, checkpoint: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "." has no name, and the staged copy is named after the folder: a ValueError
    monkeypatch.chdir(checkpoint)
    assert script.main(["."]) == 0
    assert capsys.readouterr().out.startswith(f"{checkpoint.resolve()}: 2 NaN guards removed")
    assert sorted(p.name for p in checkpoint.parent.iterdir()) == [checkpoint.name]


def test_a_folder_that_is_no_checkpoint_is_one_line(script, tmp_path: Path, capsys) -> None:
    assert script.main([str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"strip-guards: error: {tmp_path / 'nowhere'} is not a shipped ONNX checkpoint "
        "(model.onnx and manifest.json)\n"
    )


def test_a_graph_that_is_not_the_manifests_is_refused_in_one_line_and_left(
    script, checkpoint: Path, capsys
) -> None:
    # a truncated graph was a protobuf DecodeError traceback
    graph = checkpoint / "model.onnx"
    graph.write_bytes(graph.read_bytes()[:1000])
    state = _state(checkpoint)
    assert script.main([str(checkpoint)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"strip-guards: error: {graph} has sha256 ")
    assert "restore it" in err
    assert _state(checkpoint) == state
    assert sorted(p.name for p in checkpoint.parent.iterdir()) == [checkpoint.name]
