"""Every way of loading a verifier checkpoint gives one behaviour, taken from its manifest; an
option the checkpoint cannot honour is an error; a damaged graph is a one-line VerifierError."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from enoki_hd.cli import main
from enoki_hd.verify.loading import (
    default_checkpoint_dir,
    default_verifier_path,
    load_default_verifier,
    load_verifier_from_config,
    portable_reference,
    resolve_checkpoint,
)
from enoki_hd.verify.nli import NLICrossEncoder, VerifierError

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = default_verifier_path()

needs_shipped = pytest.mark.skipif(
    not (SHIPPED / "model.onnx").is_file(),
    reason="the shipped verifier is missing; run `make train-verifier`",
)


FAST = ROOT / "checkpoints" / "verifier-minilm-l3"


def test_a_bare_shipped_name_resolves_to_its_checkpoint(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.delenv("ENOKI_CHECKPOINTS", raising=False)
    assert resolve_checkpoint("verifier-minilm-l3") == FAST
    # anything else is left as given: a hub id, a name no checkpoint has, a path with folders
    for other in (
        "cross-encoder/nli-deberta-v3-xsmall",
        "roberta-large-mnli",
        "a/verifier-minilm-l3",
    ):
        assert resolve_checkpoint(other) == other
    # a folder of that name where the user stands shadows the shipped one
    monkeypatch.chdir(tmp_path)
    (tmp_path / "verifier-minilm-l3").mkdir()
    assert resolve_checkpoint("verifier-minilm-l3") == "verifier-minilm-l3"


def test_the_fast_verifier_is_the_three_layer_checkpoint_its_manifest_describes() -> None:
    node = OmegaConf.to_container(OmegaConf.load(ROOT / "configs" / "verifier" / "fast.yaml"))
    assert node["path"] == "verifier-minilm-l3"
    verifier = load_verifier_from_config({"path": node["path"]})
    manifest = json.loads((FAST / "manifest.json").read_text())
    assert verifier.sha256 == manifest["files"]["model.onnx"]
    assert verifier.max_length == manifest["inference"]["max_length"] == 256
    assert json.loads((FAST / "config.json").read_text())["num_hidden_layers"] == 3
    assert manifest["config"]["model"]["num_layers"] == 3
    assert manifest["reproduce"] == "make train-verifier EXP=l3"
    for name, digest in manifest["files"].items():
        assert hashlib.sha256((FAST / name).read_bytes()).hexdigest() == digest, name
    # the shipped 3-way order, and a clear entailment / contradiction
    scores = verifier.predict(
        [
            ("Suede are an English rock band formed in London in 1989.", "Suede formed in 1989."),
            ("Suede are an English rock band formed in London in 1989.", "Suede formed in 1999."),
        ]
    )
    assert [s.label() for s in scores] == ["entailment", "contradiction"]


def test_default_paths_follow_the_environment(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.delenv("ENOKI_CHECKPOINTS", raising=False)
    monkeypatch.delenv("ENOKI_VERIFIER", raising=False)
    assert default_checkpoint_dir() == ROOT / "checkpoints"
    assert default_verifier_path() == ROOT / "checkpoints" / "verifier-minilm"
    monkeypatch.setenv("ENOKI_CHECKPOINTS", str(tmp_path))
    assert default_verifier_path() == tmp_path / "verifier-minilm"
    monkeypatch.setenv("ENOKI_VERIFIER", str(tmp_path / "mine"))
    assert default_verifier_path() == tmp_path / "mine"


def test_missing_default_names_path_and_make_target(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    with pytest.raises(FileNotFoundError) as error:
        load_default_verifier(missing)
    assert str(missing) in str(error.value) and "make train-verifier" in str(error.value)
    with pytest.raises(FileNotFoundError, match="make train-verifier"):
        load_verifier_from_config({"path": str(missing)})


@needs_shipped
def test_one_checkpoint_one_behaviour() -> None:
    """The default, a config naming the path, the shipped config node and the bare class all
    run the shipped model at the manifest's settings (before: 256 by default, 512 by path)."""
    manifest = json.loads((SHIPPED / "manifest.json").read_text())
    assert manifest["inference"] == {"backend": "onnx", "max_length": 256}
    shipped_node = OmegaConf.load(ROOT / "configs" / "verifier" / "shipped.yaml")
    loaded = [
        load_default_verifier(),
        load_verifier_from_config({"path": None}),
        load_verifier_from_config({"path": str(SHIPPED), "backend": None, "max_length": None}),
        load_verifier_from_config(shipped_node),
        NLICrossEncoder(SHIPPED),
        NLICrossEncoder(str(SHIPPED), backend="auto"),
    ]
    expected = {
        "path": "verifier-minilm",  # by name: the same bytes from any checkout or install
        "backend": "onnx",
        "max_length": 256,
        "batch_size": 1,  # a dynamically quantised graph: each pair alone (test_shipped_verifier)
        "onnx_file": "model.onnx",
        "sha256": manifest["files"]["model.onnx"],
    }
    for verifier in loaded:
        assert verifier.config() == expected


@needs_shipped
def test_a_shipped_checkpoint_is_recorded_by_name_and_loads_back(tmp_path: Path) -> None:
    """Reports recorded the checkout's absolute path: two clones wrote different bytes, and a
    detect-batch output could not be resumed from another copy of the same model."""
    assert portable_reference(SHIPPED) == "verifier-minilm"
    assert portable_reference(str(SHIPPED) + "/") == "verifier-minilm"
    rebuilt = load_verifier_from_config(NLICrossEncoder(SHIPPED).config())
    assert rebuilt.sha256 == NLICrossEncoder(SHIPPED).sha256
    # a copy elsewhere is another checkpoint: recorded where it is
    copy = tmp_path / "verifier-minilm"
    copy.mkdir()
    (copy / "model.onnx").write_bytes(b"")
    assert portable_reference(copy) == str(copy)
    assert portable_reference("cross-encoder/nli-deberta-v3-small") == (
        "cross-encoder/nli-deberta-v3-small"
    )


@needs_shipped
def test_config_options_that_cannot_apply_are_errors() -> None:
    # The shipped checkpoint holds only model.onnx: torch cannot run it.
    with pytest.raises(ValueError, match=r"config `verifier\.backend`") as error:
        load_verifier_from_config({"path": None, "backend": "torch"})
    assert "no PyTorch weights" in str(error.value) and "backend 'onnx' or 'auto'" in str(
        error.value
    )
    with pytest.raises(ValueError, match=r"config `verifier\.max_length`.*512 position"):
        load_verifier_from_config({"path": None, "max_length": 1024})
    with pytest.raises(ValueError, match=r"unknown verifier option\(s\) verifier\.max_len;"):
        load_verifier_from_config({"path": None, "max_len": 128})


def test_config_options_reach_the_verifier(tiny_nli_dir: Path) -> None:
    verifier = load_verifier_from_config(
        {"path": str(tiny_nli_dir), "backend": "torch", "max_length": 64, "batch_size": 8}
    )
    assert verifier.config() == {
        "path": str(tiny_nli_dir),
        "backend": "torch",
        "max_length": 64,
        "batch_size": 8,
        "device": "cpu",
        "revision": None,
    }
    with pytest.raises(ValueError, match=r"config `verifier\.backend`.*hub id"):
        load_verifier_from_config({"path": "org/some-nli-model", "backend": "onnx"})


@pytest.fixture
def truncated_shipped(tmp_path: Path) -> tuple[Path, str, str]:
    """A copy of the shipped checkpoint whose model.onnx lost its second half:
    ``(directory, sha256 the manifest expects, sha256 of the cut file)``."""
    if not (SHIPPED / "model.onnx").is_file():
        pytest.skip("the shipped verifier is missing; run `make train-verifier`")
    directory = tmp_path / "verifier-minilm"
    shutil.copytree(SHIPPED, directory)
    graph = directory / "model.onnx"
    data = graph.read_bytes()
    graph.write_bytes(data[: len(data) // 2])
    expected = json.loads((directory / "manifest.json").read_text())["files"]["model.onnx"]
    return directory, expected, hashlib.sha256(graph.read_bytes()).hexdigest()


def test_truncated_model_is_a_verifier_error_naming_file_hashes_and_fix(
    truncated_shipped: tuple[Path, str, str],
) -> None:
    directory, expected, actual = truncated_shipped
    assert expected == hashlib.sha256((SHIPPED / "model.onnx").read_bytes()).hexdigest()
    for load in (NLICrossEncoder, load_default_verifier):
        with pytest.raises(VerifierError) as error:
            load(directory)
        message = str(error.value)
        assert str(directory / "model.onnx") in message
        assert f"sha256 {actual}, but manifest.json expects {expected}" in message
        assert "`git checkout -- checkpoints/`" in message and "`make export`" in message


def test_cli_reports_a_truncated_model_in_one_line_and_exits_1(
    truncated_shipped: tuple[Path, str, str], tmp_path: Path, capsys
) -> None:
    directory, expected, _ = truncated_shipped
    (tmp_path / "c.txt").write_text("Suede formed in London in 1989.", encoding="utf-8")
    (tmp_path / "a.txt").write_text("Suede formed in London.", encoding="utf-8")
    args = ["detect", "--context", str(tmp_path / "c.txt"), "--answer", str(tmp_path / "a.txt")]
    try:
        code = main([*args, "--verifier", str(directory)])
    except SystemExit as exit_:
        code = exit_.code
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("enoki detect: error: cannot load the ONNX verifier graph ")
    assert str(directory / "model.onnx") in err and expected in err


def test_export_writes_the_inference_block_from_the_model_config(tiny_nli_dir: Path) -> None:
    from enoki_hd.export.onnx import inference_settings

    assert inference_settings({"inference_max_length": 96}, tiny_nli_dir) == {
        "backend": "onnx",
        "max_length": 96,
    }
    with pytest.raises(ValueError, match=r"model\.inference_max_length=129 exceeds the 128"):
        inference_settings({"inference_max_length": 129}, tiny_nli_dir)
    with pytest.raises(ValueError, match=r"model\.inference_max_length must be a positive"):
        inference_settings({"max_length": 128}, tiny_nli_dir)


@needs_shipped
@pytest.mark.parametrize("config_name", ["export", "train_verifier"])
def test_a_reexport_records_the_shipped_inference_length(config_name: str) -> None:
    from hydra import compose, initialize

    with initialize(version_base="1.3", config_path="../configs"):
        cfg = compose(config_name=config_name)
    manifest = json.loads((SHIPPED / "manifest.json").read_text())
    assert cfg.model.inference_max_length == manifest["inference"]["max_length"]


def test_a_recorded_config_rebuilds_the_verifier_and_notices_a_changed_model(
    tiny_nli_dir: Path,
) -> None:
    verifier = NLICrossEncoder(tiny_nli_dir, batch_size=4, max_length=64)
    assert load_verifier_from_config(verifier.config()).config() == verifier.config()
    changed = {**verifier.config(), "sha256": "0" * 64}
    with pytest.raises(ValueError, match=r"verifier\.sha256: .*the checkpoint changed"):
        load_verifier_from_config(changed)


def test_the_fast_verifier_runs_the_bundled_example_by_name_and_by_config() -> None:
    from hydra import compose, initialize

    from enoki_hd.detector import Detector

    with initialize(version_base="1.3", config_path="../configs"):
        cfg = compose(config_name="eval", overrides=["verifier=fast", f"paths.root_dir={ROOT}"])
    assert cfg.verifier.path == "verifier-minilm-l3" and cfg.verifier.name == "fast"
    shipped = OmegaConf.load(ROOT / "configs" / "verifier" / "shipped.yaml")
    assert cfg.verifier.evidence == shipped.evidence
    examples = ROOT / "src" / "enoki_hd" / "examples"
    detector = Detector("verifier-minilm-l3")
    assert detector.verifier.sha256 == load_verifier_from_config(cfg.verifier).sha256
    report = detector.detect(
        answer=(examples / "suede_answer.txt").read_text().strip(),
        context=(examples / "suede_context.txt").read_text(),
    )
    assert [s.label for s in report.sentences] == [
        "supported",
        "supported",
        "contradicted",
        "contradicted",
    ]
    assert [(s.text, s.label) for s in report.spans] == [
        ("founded by Noel Gallagher in Manchester", "contradicted"),
        ("twelve", "contradicted"),  # "released": the context writes "release"
        ("splitting", "contradicted"),
        ("1998", "contradicted"),
    ]
