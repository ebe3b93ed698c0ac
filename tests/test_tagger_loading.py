"""A damaged tagger checkpoint is reported like a damaged verifier: one line naming the graph,
its sha256, the sha256 the manifest expects and how to restore it (a ``TaggerError``, which is
a ``VerifierError``, so the CLI exits 1 with it); a graph that runs but is not the manifest's
is warned about like the verifier's, and refused when its depth is not the manifest's."""

from __future__ import annotations

import hashlib
import json
import logging
import re
import shutil
from pathlib import Path

import pytest

from enoki_hd.cli import main
from enoki_hd.extract.encoder import EncoderExtractor, TaggerError, default_tagger_path
from enoki_hd.verify.nli import VerifierError

SHIPPED = default_tagger_path()
RESTORE = "restore the shipped files (`git checkout -- checkpoints/tagger-minilm` or a fresh clone)"

pytestmark = pytest.mark.skipif(
    not (SHIPPED / "model.onnx").is_file(),
    reason="the shipped tagger is missing; run `make distill`",
)


def copy_shipped(tmp_path: Path) -> Path:
    directory = tmp_path / "tagger-minilm"
    shutil.copytree(SHIPPED, directory)
    return directory


def edit_manifest(directory: Path, edit) -> None:
    path = directory / "manifest.json"
    manifest = json.loads(path.read_text())
    edit(manifest)
    path.write_text(json.dumps(manifest))


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def truncated(tmp_path: Path) -> tuple[Path, str, str]:
    """A copy of the shipped tagger whose model.onnx lost all but its first 100,000 bytes:
    ``(directory, sha256 the manifest expects, sha256 of the cut file)``."""
    directory = copy_shipped(tmp_path)
    graph = directory / "model.onnx"
    graph.write_bytes(graph.read_bytes()[:100_000])
    expected = json.loads((directory / "manifest.json").read_text())["files"]["model.onnx"]
    return directory, expected, sha256(graph)


def test_a_truncated_graph_is_a_one_line_tagger_error_naming_hashes_and_fix(
    truncated: tuple[Path, str, str],
) -> None:
    directory, expected, actual = truncated
    assert expected == sha256(SHIPPED / "model.onnx")
    with pytest.raises(TaggerError) as err:
        EncoderExtractor(path=directory)
    assert isinstance(err.value, VerifierError)
    graph = directory / "model.onnx"
    pattern = (
        re.escape(
            f"cannot load the ONNX tagger graph {graph} (sha256 {actual}, but manifest.json "
            f"expects {expected}: corrupt or truncated): "
        )
        + r"\S.*"  # onnxruntime's own reason, on one line
        + re.escape(f"; {RESTORE}")
    )
    assert re.fullmatch(pattern, str(err.value)), str(err.value)
    assert "make distill" not in str(err.value)


@pytest.mark.parametrize("command", ["detect", "extract"])
def test_cli_reports_a_truncated_tagger_in_one_line_and_exits_1(
    command: str, truncated: tuple[Path, str, str], tmp_path: Path, monkeypatch, capsys
) -> None:
    directory, expected, actual = truncated
    monkeypatch.setenv("ENOKI_TAGGER", str(directory))
    (tmp_path / "c.txt").write_text("Apple was founded by Steve Jobs in 1976.", encoding="utf-8")
    (tmp_path / "a.txt").write_text("Apple was founded by Steve Jobs.", encoding="utf-8")
    args = [command, "--answer", str(tmp_path / "a.txt"), "--extractor", "encoder"]
    if command == "detect":
        args += ["--context", str(tmp_path / "c.txt")]
    try:
        code = main(args)
    except SystemExit as exit_:
        code = exit_.code
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(
        f"enoki {command}: error: cannot load the ONNX tagger graph {directory / 'model.onnx'} "
        f"(sha256 {actual}, but manifest.json expects {expected}: corrupt or truncated): "
    )
    assert err.endswith(f"; {RESTORE}\n")


def test_a_graph_of_another_depth_than_the_manifest_is_refused(tmp_path: Path) -> None:
    directory = copy_shipped(tmp_path)
    edit_manifest(directory, lambda m: m["inference"].update(depth=3))
    graph = directory / "model.onnx"
    with pytest.raises(TaggerError) as err:
        EncoderExtractor(path=directory)
    assert str(err.value) == (
        f"the ONNX tagger graph {graph} (sha256 {sha256(graph)}) is unrolled to depth 5, but "
        f"manifest.json records depth 3 and sha256 {sha256(graph)}: the graph is not this "
        f"checkpoint's; {RESTORE}, or copy the graph together with its manifest"
    )


def test_a_graph_that_runs_but_differs_from_the_manifest_is_warned_about_like_the_verifier(
    tmp_path: Path, caplog
) -> None:
    # The verifier loads such a graph with a warning (its recorded metrics may not describe
    # it); the tagger does the same.
    directory = copy_shipped(tmp_path)
    edit_manifest(directory, lambda m: m["files"].update({"model.onnx": "0" * 64}))
    graph = directory / "model.onnx"
    with caplog.at_level(logging.WARNING, logger="enoki_hd.extract.encoder"):
        extractor = EncoderExtractor(path=directory)
    assert extractor.sha256 == sha256(graph)
    assert [r.getMessage() for r in caplog.records] == [
        f"{graph} has sha256 {sha256(graph)} but manifest.json records {'0' * 64}: its "
        f"recorded metrics may not describe it; {RESTORE}"
    ]


DAMAGED_FIX = f"{RESTORE}, or rebuild the tagger with `make distill`"
NOT_JSON = "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"


def damage(directory: Path, name: str) -> None:
    """``name`` in ``directory`` cut to ``{bad`` (``manifest.json-`` removes the manifest)."""
    if name.endswith("-"):
        (directory / name[:-1]).unlink()
    else:
        (directory / name).write_text("{bad", encoding="utf-8")


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("manifest.json", "{d}/manifest.json is not valid JSON ({not_json}); {fix}"),
        ("config.json", "{d}/config.json is not valid JSON ({not_json}); {fix}"),
        (
            "tokenizer_config.json",
            "{d}/tokenizer_config.json is not valid JSON ({not_json}); {fix}",
        ),
        # tokenizers' own reason, as one line
        ("tokenizer.json", "cannot load the tagger's tokenizer {d}/tokenizer.json: *; {fix}"),
        (
            "manifest.json-",
            "{d} holds model.onnx but no manifest.json, which records the depth the graph was "
            "unrolled to: the folder is not a tagger checkpoint, or a damaged one; {fix}",
        ),
    ],
    ids=["manifest", "config", "tokenizer_config", "tokenizer", "no_manifest"],
)
def test_a_damaged_tagger_folder_is_one_line_naming_the_file_and_the_fix_exit_1(
    name: str, message: str, tmp_path: Path, monkeypatch, capsys
) -> None:
    # each of these printed a 42-line traceback (a JSONDecodeError, the tokenizers library's
    # Exception, or "manifest.json records no inference.depth" for a missing manifest)
    directory = copy_shipped(tmp_path)
    damage(directory, name)
    expected = message.format(d=directory, not_json=NOT_JSON, fix=DAMAGED_FIX)
    with pytest.raises(TaggerError) as err:
        EncoderExtractor(path=directory)
    assert re.fullmatch(re.escape(expected).replace(r"\*", r"\S[^\n]*"), str(err.value))
    monkeypatch.setenv("ENOKI_TAGGER", str(directory))
    (tmp_path / "c.txt").write_text("Apple was founded by Steve Jobs in 1976.", encoding="utf-8")
    (tmp_path / "a.txt").write_text("Apple was founded by Steve Jobs.", encoding="utf-8")
    args = ["--answer", str(tmp_path / "a.txt"), "--context", str(tmp_path / "c.txt")]
    with pytest.raises(SystemExit) as exit_:
        main(["detect", *args, "--extractor", "encoder"])
    out, printed = capsys.readouterr()
    assert exit_.value.code == 1 and out == ""
    assert printed == f"enoki detect: error: {err.value}\n"


def test_a_folder_that_is_no_tagger_says_so(tmp_path: Path) -> None:
    # the verifier's folder was read as a tagger without a depth: "manifest.json records no
    # inference.depth, so the depth the graph was unrolled to is unknown; re-export the tagger"
    verifier = SHIPPED.parent / "verifier-minilm"
    with pytest.raises(TaggerError) as err:
        EncoderExtractor(path=verifier)
    assert str(err.value) == (
        f"{verifier} is not a tagger checkpoint: its manifest.json records kind "
        "'nli-cross-encoder', not 'igl-tagger'; point ENOKI_TAGGER (or path=) at a tagger such "
        "as checkpoints/tagger-minilm"
    )


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        (
            "max_length",
            "abc",
            "inference.max_length must be an integer >= 1 or None, got str 'abc'",
        ),
        ("depth", 0, "inference.depth must be an integer >= 1 or None, got 0"),
        ("backend", "tensorrt", "inference.backend must be 'onnx' or 'torch', got 'tensorrt'"),
    ],
)
def test_a_bad_inference_setting_in_the_manifest_is_a_tagger_error_naming_it(
    key: str, value: object, message: str, tmp_path: Path
) -> None:
    # max_length "abc" was a TypeError traceback from inside loading ('>' between str and
    # int); depth 0 was blamed on the graph (unrolled to another depth); an unknown backend
    # was silently ignored
    directory = copy_shipped(tmp_path)
    edit_manifest(directory, lambda m: m["inference"].update({key: value}))
    with pytest.raises(TaggerError) as err:
        EncoderExtractor(path=directory)
    assert str(err.value) == f"{directory}/manifest.json: {message}; {DAMAGED_FIX}"


@pytest.mark.parametrize("key", ["inference", "files"])
def test_an_inference_or_files_block_that_is_no_object_is_a_tagger_error_naming_it(
    key: str, tmp_path: Path
) -> None:
    # a list there was an AttributeError traceback ("'list' object has no attribute 'get'")
    directory = copy_shipped(tmp_path)
    edit_manifest(directory, lambda m: m.update({key: ["depth"]}))
    with pytest.raises(TaggerError, match=rf"manifest\.json: {key} must be an object, got list"):
        EncoderExtractor(path=directory)


def test_a_position_count_that_is_no_whole_number_is_a_tagger_error_naming_it(
    tmp_path: Path,
) -> None:
    # "512" in config.json was a TypeError ("'<' not supported between ...") naming nothing
    directory = copy_shipped(tmp_path)
    config = json.loads((directory / "config.json").read_text(encoding="utf-8"))
    config["backbone"]["max_position_embeddings"] = "512"
    (directory / "config.json").write_text(json.dumps(config), encoding="utf-8")
    with pytest.raises(TaggerError) as err:
        EncoderExtractor(path=directory)
    assert str(err.value).startswith(
        f"{directory / 'config.json'}: backbone.max_position_embeddings must be a whole number, "
        "got '512'; "
    )
