"""int8 export recipes on the tiny random NLI graph: what is stored, and how far outputs move."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
pytest.importorskip("onnxruntime.quantization")

from onnx import numpy_helper  # noqa: E402

from enoki_hd.export.onnx import (  # noqa: E402
    dequantize_matmuls,
    export_onnx,
    quantize_int8,
    quantize_kept_float,
    strip_nan_guards_file,
)


def _logits(path: Path, feed: dict[str, np.ndarray]) -> np.ndarray:
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(["logits"], feed)[0]


def _feed(directory: Path) -> dict[str, np.ndarray]:
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(directory)
    enc = tokenizer(
        ["The band formed in London in 1989.", "A man plays a guitar on stage."],
        ["The band formed in 1989.", "Nobody is playing."],
        padding=True,
        return_tensors="np",
    )
    return {k: v.astype(np.int64) for k, v in enc.items()}


def _initializers(path: Path) -> dict[str, np.ndarray]:
    model = onnx.load(str(path))
    return {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}


def test_int8_rows_embeddings_store_one_scale_per_token(tiny_nli_dir: Path, tmp_path: Path) -> None:
    source = tiny_nli_dir / "model.onnx"
    out = quantize_int8(source, tmp_path / "rows.onnx", embeddings="int8_rows")
    original = _initializers(source)
    stored = _initializers(out)
    table_name = next(n for n in original if n.endswith("word_embeddings.weight"))
    table = original[table_name]
    rows, scales = stored[table_name + "_int8"], stored[table_name + "_row_scale"]
    assert table_name not in stored
    assert rows.dtype == np.int8 and rows.shape == table.shape
    assert scales.shape == (table.shape[0], 1)
    # symmetric per-row: the largest magnitude of every row maps to +-127 (the all-zero padding
    # row stays zero), and no value moves by more than half a step of its row's scale
    nonzero = np.abs(table).max(axis=1) > 0
    assert not nonzero.all() and not rows[~nonzero].any()
    assert np.all(np.abs(rows[nonzero]).max(axis=1) == 127)
    assert np.all(np.abs(rows * scales - table) <= scales / 2 + 1e-7)

    feed = _feed(tiny_nli_dir)
    reference = _logits(source, feed)
    float_matmuls = quantize_int8(
        source, tmp_path / "rows_float.onnx", keep_float=[".*"], embeddings="int8_rows"
    )
    # only the embedding rounding differs from the float graph: tiny, but not zero
    diff = np.abs(_logits(float_matmuls, feed) - reference).max()
    assert 0 < diff < 1e-2


def test_fp16_embeddings_and_kept_float_layers(tiny_nli_dir: Path, tmp_path: Path) -> None:
    source = tiny_nli_dir / "model.onnx"
    out = quantize_int8(
        source, tmp_path / "fp16.onnx", keep_float=["intermediate/dense"], embeddings="fp16"
    )
    model = onnx.load(str(out))
    ops = [n.op_type for n in model.graph.node]
    stored = _initializers(out)
    halves = [n for n, a in stored.items() if a.dtype == np.float16]
    assert any(n.endswith("word_embeddings.weight_fp16") for n in halves)
    # the two layers' intermediate projections stay float (stored as fp16), the rest are int8
    kept = [n.name for n in model.graph.node if n.op_type == "MatMul" and "dense" in n.name]
    assert len(kept) == 2 and all("intermediate/dense" in n for n in kept)
    # per layer q, k, v, attention output, FFN output; then the pooler and the classifier
    assert ops.count("MatMulInteger") == 2 * 5 + 2
    feed = _feed(tiny_nli_dir)
    assert np.abs(_logits(out, feed) - _logits(source, feed)).max() < 0.05


def test_unknown_embedding_storage_is_rejected(tiny_nli_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"int8.embeddings must be 'fp16', 'int8_rows' or"):
        quantize_int8(tiny_nli_dir / "model.onnx", tmp_path / "x.onnx", embeddings="int4")


def _ops(path: Path) -> list[str]:
    return [n.op_type for n in onnx.load(str(path)).graph.node]


def test_nan_guards_go_and_the_logits_stay_bitwise(tiny_nli_dir: Path, tmp_path: Path) -> None:
    # the fixture's graph is the torch exporter's own: Where(IsNaN(p), 0, p) after each of the
    # two layers' attention softmax
    guarded = tiny_nli_dir / "model.onnx"
    before = _ops(guarded)
    assert before.count("IsNaN") == 2
    stripped = tmp_path / "stripped.onnx"
    stripped.write_bytes(guarded.read_bytes())
    assert strip_nan_guards_file(stripped) == 2
    after = _ops(stripped)
    assert "IsNaN" not in after
    assert after.count("Where") == before.count("Where") - 2
    assert after.count("Softmax") == before.count("Softmax") == 2
    feed = _feed(tiny_nli_dir)
    assert feed["attention_mask"].min() == 0, "the batch must hold padding"
    np.testing.assert_array_equal(_logits(stripped, feed), _logits(guarded, feed))
    # nothing left to remove: the file is not rewritten
    written = stripped.stat().st_mtime_ns
    assert strip_nan_guards_file(stripped) == 0
    assert stripped.stat().st_mtime_ns == written


def test_export_strips_the_guards_unless_asked_not_to(tiny_nli_dir: Path, tmp_path: Path) -> None:
    plain = export_onnx(tiny_nli_dir, tmp_path / "plain.onnx")
    kept = export_onnx(tiny_nli_dir, tmp_path / "kept.onnx", strip_guards=False)
    assert "IsNaN" not in _ops(plain) and _ops(kept).count("IsNaN") == 2
    feed = _feed(tiny_nli_dir)
    np.testing.assert_array_equal(_logits(plain, feed), _logits(kept, feed))


def _matmul_kinds(path: Path) -> tuple[int, int]:
    """(int8 MatMuls, float MatMuls whose weight is stored: an initializer or a cast one)."""
    model = onnx.load(str(path))
    stored = {i.name for i in model.graph.initializer}
    casts = {n.output[0] for n in model.graph.node if n.op_type == "Cast" and n.input[0] in stored}
    ops = [n for n in model.graph.node if n.op_type == "MatMul"]
    float_weights = sum(1 for n in ops if n.input[1] in stored or n.input[1] in casts)
    return _ops(path).count("MatMulInteger"), float_weights


def test_kept_float_matmuls_are_quantised_from_the_graph_alone(
    tiny_nli_dir: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    source = tiny_nli_dir / "model.onnx"
    kept = quantize_int8(
        source, tmp_path / "kept.onnx", keep_float=["intermediate/dense"], embeddings="fp16"
    )
    assert _matmul_kinds(kept) == (2 * 5 + 2, 2)
    out = tmp_path / "all.onnx"
    with caplog.at_level("WARNING"):
        assert quantize_kept_float(kept, out) == 2
    # onnxruntime's advice to pre-process for static quantisation is not passed on
    assert not [r for r in caplog.records if "pre-processing" in r.getMessage()]
    # every weight MatMul is int8 now; the fp16 embedding table (read by a Gather) stays fp16
    assert _matmul_kinds(out) == (2 * 6 + 2, 0)
    stored = _initializers(out)
    assert any(n.endswith("word_embeddings.weight_fp16") for n in stored)
    assert not any("intermediate" in n and a.dtype == np.float16 for n, a in stored.items())
    feed = _feed(tiny_nli_dir)
    moved = np.abs(_logits(out, feed) - _logits(kept, feed)).max()
    assert 0 < moved < 0.05
    # the same graph every time, and nothing left to do the second time: a plain copy
    again = tmp_path / "again.onnx"
    assert quantize_kept_float(kept, again) == 2
    assert again.read_bytes() == out.read_bytes()
    # a pattern keeps its MatMuls as they were: float16-stored, cast back
    partial = tmp_path / "partial.onnx"
    assert quantize_kept_float(kept, partial, keep_float=[r"layer\.1/"]) == 1
    assert _matmul_kinds(partial) == (2 * 5 + 2 + 1, 1)
    graph = onnx.load(str(partial)).graph
    [left] = [n for n in graph.node if n.op_type == "MatMul" and "intermediate" in n.name]
    assert "layer.1/" in left.name
    [cast] = [n for n in graph.node if n.output and n.output[0] == left.input[1]]
    assert cast.op_type == "Cast" and _initializers(partial)[cast.input[0]].dtype == np.float16
    copy = tmp_path / "copy.onnx"
    assert quantize_kept_float(out, copy) == 0
    assert copy.read_bytes() == out.read_bytes()
    assert not list(tmp_path.glob("*.tmp"))


def test_dequantised_reference_keeps_the_int8_weights_and_drops_activation_rounding(
    tiny_nli_dir: Path, tmp_path: Path
) -> None:
    source = tiny_nli_dir / "model.onnx"
    int8 = quantize_int8(source, tmp_path / "int8.onnx", embeddings="float")
    out = dequantize_matmuls(int8, tmp_path / "float.onnx")
    assert out == 2 * 6 + 2
    ops = _ops(tmp_path / "float.onnx")
    assert "MatMulInteger" not in ops and "DynamicQuantizeLinear" not in ops
    # every weight is its int8 value times its channel's scale
    quantized, dequantized = _initializers(int8), _initializers(tmp_path / "float.onnx")
    name = next(n for n in quantized if n.endswith("_quantized") and quantized[n].ndim == 2)
    scale = quantized[name.replace("_quantized", "_scale")]
    zero = quantized[name.replace("_quantized", "_zero_point")].astype(np.float32)
    np.testing.assert_array_equal(
        dequantized[name + "_dequantized"], (quantized[name].astype(np.float32) - zero) * scale
    )
    # closer to the float graph than the int8 graph is: only weight rounding is left
    feed = _feed(tiny_nli_dir)
    reference = _logits(source, feed)
    from_float = np.abs(_logits(tmp_path / "float.onnx", feed) - reference).max()
    from_int8 = np.abs(_logits(int8, feed) - reference).max()
    assert from_float < from_int8


def test_dequantising_refuses_an_unknown_pattern(tiny_nli_dir: Path, tmp_path: Path) -> None:
    int8 = quantize_int8(tiny_nli_dir / "model.onnx", tmp_path / "int8.onnx")
    model = onnx.load(str(int8))
    cast = next(n for n in model.graph.node if n.op_type == "Cast" and "MatMul" in n.name)
    cast.op_type = "Identity"
    del cast.attribute[:]
    onnx.save(model, str(tmp_path / "odd.onnx"))
    with pytest.raises(ValueError, match=r"not a dynamically quantised MatMul of an int8 weight"):
        dequantize_matmuls(tmp_path / "odd.onnx", tmp_path / "x.onnx")
    assert not (tmp_path / "x.onnx").exists()


def test_the_quantizers_info_lines_stay_off_the_console_its_warnings_do_not(
    tiny_nli_dir: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch
) -> None:
    """onnxruntime's quantizer logs a line per MatMul it skips and per tensor without
    parameters on the root logger (~30 console lines per tagger export)."""
    import logging

    import onnxruntime.quantization

    from enoki_hd.export.onnx import _quantize_matmuls

    with caplog.at_level(logging.INFO):
        quantize_int8(tiny_nli_dir / "model.onnx", tmp_path / "int8.onnx")
    assert not [r for r in caplog.records if r.name == "root" and r.levelno < logging.WARNING]

    def quantize_dynamic(*args, **kwargs) -> None:
        logging.info("Ignore MatMul due to non constant B: /[/attention/self/MatMul]")
        logging.warning("Please consider to run pre-processing before quantization. Refer to")
        logging.warning("a warning the user needs")
        logging.error("an error the user needs")

    monkeypatch.setattr(onnxruntime.quantization, "quantize_dynamic", quantize_dynamic)
    caplog.clear()
    with caplog.at_level(logging.INFO):
        _quantize_matmuls("in.onnx", "out.onnx", per_channel=True)
        logging.info("the run's own line")  # after the quantizer: as before
    assert [r.getMessage() for r in caplog.records] == [
        "a warning the user needs",
        "an error the user needs",
        "the run's own line",
    ]


def test_transformers_progress_bars_are_off_inside_the_block_only() -> None:
    """Their "Writing model shards" / "Loading weights" bars broke the training run's own bar
    at every save and load."""
    from transformers.utils import logging as transformers_logging

    from enoki_hd.export.onnx import transformers_progress_off

    assert transformers_logging.is_progress_bar_enabled()
    with transformers_progress_off():
        assert not transformers_logging.is_progress_bar_enabled()
    assert transformers_logging.is_progress_bar_enabled()
    transformers_logging.disable_progress_bar()  # a caller's own choice is kept
    try:
        with transformers_progress_off():
            pass
        assert not transformers_logging.is_progress_bar_enabled()
    finally:
        transformers_logging.enable_progress_bar()
