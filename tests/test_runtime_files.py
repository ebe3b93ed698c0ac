"""enoki_hd.runtime: checkpoint files read without transformers, ONNX session settings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from enoki_hd.runtime import (
    THREADS_ENV,
    create_session,
    installed_checkpoint_dir,
    load_local_config,
    load_local_tokenizer,
    quantizes_activations_per_batch,
    session_options,
)
from enoki_hd.verify.loading import default_checkpoint_dir

SHIPPED = [
    default_checkpoint_dir() / name
    for name in ("verifier-minilm", "verifier-minilm-l3", "tagger-minilm")
]
PAIRS = [("Suede is leather with a napped finish.", "Suede is made of leather."), ("a", "b c")]


@pytest.mark.parametrize("directory", SHIPPED, ids=lambda p: p.name)
def test_local_files_match_transformers(directory: Path) -> None:
    """What the ONNX path reads directly equals what AutoConfig / AutoTokenizer give."""
    if not (directory / "model.onnx").is_file():
        pytest.skip(f"no shipped checkpoint at {directory}")
    transformers = pytest.importorskip("transformers")
    if directory.name.startswith("verifier"):  # the tagger's config is enoki_igl's own
        config = load_local_config(directory)
        auto = transformers.AutoConfig.from_pretrained(directory).to_dict()
        for key in ("id2label", "max_position_embeddings", "vocab_size"):
            assert config[key] == auto[key], key
    local = load_local_tokenizer(directory)
    hf = transformers.AutoTokenizer.from_pretrained(directory)
    assert local.pad_token_id == hf.pad_token_id
    assert local.model_max_length == hf.model_max_length
    for premise, hypothesis in PAIRS:
        expected = hf(premise, hypothesis)
        got = local.tokenizer.encode(premise, hypothesis)
        assert got.ids == expected["input_ids"]
        assert got.type_ids == expected["token_type_ids"]


def test_local_config_and_tokenizer_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"no config\.json"):
        load_local_config(tmp_path)
    with pytest.raises(FileNotFoundError, match=r"no tokenizer\.json"):
        load_local_tokenizer(tmp_path)
    (tmp_path / "config.json").write_text(json.dumps({"id2label": {"0": "entailment"}}))
    assert load_local_config(tmp_path)["id2label"] == {0: "entailment"}


def test_unlimited_model_max_length_is_none(tmp_path: Path) -> None:
    shipped = SHIPPED[0]
    if not (shipped / "tokenizer.json").is_file():
        pytest.skip("no shipped tokenizer")
    (tmp_path / "tokenizer.json").write_bytes((shipped / "tokenizer.json").read_bytes())
    (tmp_path / "tokenizer_config.json").write_text(
        json.dumps({"model_max_length": 1000000000000000019884624838656, "pad_token": "[PAD]"})
    )
    local = load_local_tokenizer(tmp_path)
    assert local.model_max_length is None
    assert local.pad_token_id == local.tokenizer.token_to_id("[PAD]")


def test_session_options_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    ort = pytest.importorskip("onnxruntime")
    monkeypatch.delenv(THREADS_ENV, raising=False)
    options = session_options()
    assert options.intra_op_num_threads == 0  # onnxruntime's default
    assert options.graph_optimization_level == ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    assert session_options(2).intra_op_num_threads == 2
    monkeypatch.setenv(THREADS_ENV, "3")
    assert session_options().intra_op_num_threads == 3
    monkeypatch.setenv(THREADS_ENV, "many")
    with pytest.raises(ValueError, match=THREADS_ENV):
        session_options()
    with pytest.raises(ValueError, match=">= 0"):
        session_options(-1)


def test_create_session_runs_the_shipped_verifier(monkeypatch: pytest.MonkeyPatch) -> None:
    graph = SHIPPED[0] / "model.onnx"
    if not graph.is_file():
        pytest.skip("no shipped verifier")
    session = create_session(graph, threads=1)
    assert session.get_session_options().intra_op_num_threads == 1
    assert {i.name for i in session.get_inputs()} <= {
        "input_ids",
        "attention_mask",
        "token_type_ids",
    }


def test_per_batch_activation_quantization_is_found_in_the_graph_bytes(tmp_path: Path) -> None:
    """The verifier is quantised dynamically (one activation range per batch tensor); the
    tagger keeps its MatMuls float; files are searched for the op's name as stored."""
    verifier, fast, tagger = (directory / "model.onnx" for directory in SHIPPED)
    if not verifier.is_file() or not tagger.is_file():
        pytest.skip("no shipped checkpoints")
    assert quantizes_activations_per_batch(verifier) is True
    assert quantizes_activations_per_batch(fast) is True
    assert quantizes_activations_per_batch(tagger) is False
    (tmp_path / "with.onnx").write_bytes(b"\x0a\x15" + b"DynamicQuantizeLinear" + b"\x00" * 64)
    (tmp_path / "without.onnx").write_bytes(b"\x0a\x06MatMul" + b"\x00" * 64)
    (tmp_path / "empty.onnx").write_bytes(b"")
    assert quantizes_activations_per_batch(tmp_path / "with.onnx") is True
    assert quantizes_activations_per_batch(tmp_path / "without.onnx") is False
    assert quantizes_activations_per_batch(tmp_path / "empty.onnx") is False


def test_installed_checkpoints_are_the_shipped_ones() -> None:
    """The package-data folder a wheel carries holds the same checkpoints as the source tree
    (in a checkout it links to checkpoints/)."""
    packaged = installed_checkpoint_dir()
    assert packaged == Path(__file__).resolve().parents[1] / "src" / "enoki_hd" / "checkpoints"
    for directory in SHIPPED:
        if not (directory / "manifest.json").is_file():
            continue
        assert (packaged / directory.name / "manifest.json").read_bytes() == (
            directory / "manifest.json"
        ).read_bytes()


def test_a_folder_is_replaced_by_renames_and_the_old_one_removed(tmp_path) -> None:
    from enoki_hd.eval.files import replace_dir

    target, new = tmp_path / "ship", tmp_path / "ship.tmp"
    target.mkdir()
    (target / "model.onnx").write_text("old")
    new.mkdir()
    (new / "model.onnx").write_text("new")
    (tmp_path / "ship.old").mkdir()  # left by a crash between the two renames
    replace_dir(new, target)
    assert (target / "model.onnx").read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ship"]
    fresh = tmp_path / "fresh.tmp"
    fresh.mkdir()
    replace_dir(fresh, tmp_path / "fresh")  # no old folder to set aside
    assert (tmp_path / "fresh").is_dir() and not fresh.exists()


def test_a_bad_thread_setting_is_named_as_such_not_as_a_graph_onnxruntime_cannot_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # it was caught with the graph's load errors: "cannot load the ONNX verifier graph ...
    # onnxruntime 1.x cannot run it: install the version pinned in pyproject.toml, or re-export"
    from enoki_hd.cli import main
    from enoki_hd.extract.encoder import EncoderExtractor
    from enoki_hd.verify.nli import NLICrossEncoder

    if not all((directory / "model.onnx").is_file() for directory in SHIPPED):
        pytest.skip("the shipped checkpoints are not built")
    monkeypatch.setenv(THREADS_ENV, "abc")
    message = rf"^\${THREADS_ENV} must be an integer >= 0, got 'abc'$"
    with pytest.raises(ValueError, match=message):
        NLICrossEncoder(SHIPPED[1])
    with pytest.raises(ValueError, match=message):
        EncoderExtractor(path=SHIPPED[2])
    (tmp_path / "c.txt").write_text("Suede formed in London in 1989.", encoding="utf-8")
    (tmp_path / "a.txt").write_text("Suede formed in London.", encoding="utf-8")
    with pytest.raises(SystemExit) as exit_:
        main(["detect", "--context", str(tmp_path / "c.txt"), "--answer", str(tmp_path / "a.txt")])
    assert exit_.value.code == 2
    assert capsys.readouterr().err == (
        f"enoki detect: error: ${THREADS_ENV} must be an integer >= 0, got 'abc'\n"
    )
