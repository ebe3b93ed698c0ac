"""Smoke test of the deployment sections of `make bench` (startup, matrix, gpu) with tiny
limits; the numbers themselves are not asserted."""

from __future__ import annotations

import gc
import json
import logging
import sys
from pathlib import Path

import pytest
from hydra import compose, initialize

from enoki_hd.verify.loading import default_verifier_path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

needs_verifier = pytest.mark.skipif(
    not (default_verifier_path() / "model.onnx").is_file(), reason="no shipped verifier"
)


def _run_bench(tmp_path: Path, shared_dir: Path, out: Path, overrides: list[str]) -> None:
    """``bench.run`` on the bench config with paths under ``tmp_path``, writing ``out``."""
    import bench

    with initialize(version_base="1.3", config_path="../configs"):
        cfg = compose(
            config_name="bench",
            overrides=[
                f"paths.shared_dir={shared_dir}",
                f"paths.root_dir={tmp_path}",
                f"paths.output_dir={tmp_path}",
                f"output={out}",
                *overrides,
            ],
        )
    bench.run(cfg)


@needs_verifier
def test_bench_deployment_sections(tmp_path: Path, shared_dir: Path) -> None:
    out = tmp_path / "results.json"
    out.write_text(json.dumps({"nli": {"kept": True}}))
    _run_bench(
        tmp_path,
        shared_dir,
        out,
        [
            "sections=[startup,matrix,gpu]",
            "startup.repeats=1",
            "startup.extractors=[rules]",
            "startup.runtimes=[installed,torch-free]",
            "matrix.benchmarks=[psiloqa_en50]",
            "matrix.long_context_benchmark=psiloqa_en50",
            "matrix.long_context=1200",
            "matrix.extractors=[rules]",
            "matrix.limit=1",
            "matrix.repeats=1",
            "nli.pairs=8",
        ],
    )
    saved = json.loads(out.read_text())
    assert saved["nli"] == {"kept": True}  # keep_other_sections
    startup = saved["startup"]
    assert startup["rules/torch-free"]["torch_imported"] is False
    assert startup["rules/torch-free"]["cold_start_seconds"] > 0
    # the wheel in a venv of its own: base dependencies only, so torch is not even installed
    assert startup["rules/installed"]["torch_installed"] is False
    assert startup["rules/installed"]["torch_imported"] is False
    assert startup["rules/installed"]["cold_start_seconds"] > 0
    assert (tmp_path / ".cache" / "bench_install" / "venv" / "bin" / "python").exists()
    matrix = saved["matrix"]
    for strategy in ("window", "retrieve"):
        cell = matrix[f"psiloqa_en50/rules/{strategy}"]
        assert cell["examples"] == 1 and cell["nli_pairs_per_example"] > 0
        assert 0.0 <= cell["char_f1"] <= 1.0
        assert cell["settled_heap"] is True  # timed as the service runs, after its warm-up
    assert gc.get_freeze_count() == 0  # each cell's settling undone once it is timed
    long = matrix["psiloqa_en50@1200chars/rules/retrieve"]
    assert long["median_context_chars"] == 1200
    assert 0.0 <= long["char_iou"] <= 1.0
    assert "psiloqa_en50@1200chars/rules/window_over_retrieve_latency" in matrix
    assert "skipped" in saved["gpu"] or saved["gpu"]["items_per_second"] > 0


@needs_verifier
def test_bench_matrix_on_long_contexts_only(
    tmp_path: Path, shared_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    out = tmp_path / "results.json"
    caplog.set_level(logging.INFO, logger="bench")
    _run_bench(
        tmp_path,
        shared_dir,
        out,
        [
            "sections=[matrix]",
            "matrix.benchmarks=[]",
            "matrix.long_context_benchmark=[psiloqa_en50,mushroom_dev30]",
            "matrix.long_context=1500",
            "matrix.long_context_limit=2",
            "matrix.normal_length=false",
            "matrix.evidence=[retrieve]",
            "matrix.extractors=[rules]",
            "matrix.repeats=1",
            "matrix.warmup=first",
            "matrix.batch32=false",
        ],
    )
    matrix = json.loads(out.read_text())["matrix"]
    cells = sorted(k for k in matrix if "/" in k)
    assert cells == [
        "mushroom_dev30@1500chars/rules/retrieve",
        "psiloqa_en50@1500chars/rules/retrieve",
    ]
    for key in cells:
        assert matrix[key]["examples"] == 2
        assert matrix[key]["examples_per_second_batch32"] is None
    # the torch runtime is asked for by default, and says why it did not run
    assert "make train-verifier" in matrix["torch_fp32"]["skipped"]
    # each cell says what it runs before it starts and what it measured when done (a cell of
    # window on 50,000 characters runs for minutes)
    said = [r.getMessage() for r in caplog.records if r.name == "bench"]
    for key in cells:
        assert f"matrix {key}: 2 examples, 1 timed passes after a warm-up on the first" in said
        cell = matrix[key]
        assert (
            f"matrix {key}: median {cell['median_seconds']:.3f} s, p95 {cell['p95_seconds']:.3f} s, "
            f"{cell['nli_pairs_per_example']:.1f} NLI pairs, char-F1 {cell['char_f1']:.3f}"
        ) in said


@needs_verifier
def test_bench_matrix_times_the_torch_runtime_of_a_checkpoint_with_torch_weights(
    tmp_path: Path, shared_dir: Path
) -> None:
    import bench

    torch_dir = bench.untrained_torch_verifier(tmp_path / ".cache")
    out = tmp_path / "results.json"
    overrides = [
        "sections=[matrix]",
        "matrix.benchmarks=[psiloqa_en50]",
        "matrix.long_context=0",
        "matrix.limit=1",
        "matrix.extractors=[rules]",
        "matrix.repeats=1",
        "matrix.warmup=first",
        "matrix.batch32=false",
        f"matrix.torch_verifier={torch_dir}",
    ]
    _run_bench(tmp_path, shared_dir, out, overrides)
    matrix = json.loads(out.read_text())["matrix"]
    assert sorted(k for k in matrix if "/" in k) == [
        "psiloqa_en50/rules/retrieve",
        "psiloqa_en50/rules/retrieve/torch_fp32",
        "psiloqa_en50/rules/window",
        "psiloqa_en50/rules/window/torch_fp32",
        "psiloqa_en50/rules/window_over_retrieve_latency",
        "psiloqa_en50/rules/window_over_retrieve_latency/torch_fp32",
    ]
    for key in ("psiloqa_en50/rules/retrieve/torch_fp32", "psiloqa_en50/rules/window/torch_fp32"):
        assert matrix[key]["examples"] == 1 and matrix[key]["nli_pairs_per_example"] > 0
    with pytest.raises(ValueError, match=r"matrix.runtimes: 'tensorrt' is not onnx_int8 or"):
        _run_bench(tmp_path, shared_dir, out, [*overrides, "matrix.runtimes=[tensorrt]"])
