"""Smoke test of `make bench` on a tiny random model (the numbers themselves are not asserted)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from hydra import compose, initialize

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))


def _compose(tmp_path: Path, shared_dir: Path, verifier_dir: Path, *overrides: str):
    """The bench config for a run into ``tmp_path``/results.json on the tiny verifier."""
    with initialize(version_base="1.3", config_path="../configs"):
        return compose(
            config_name="bench",
            overrides=[
                f"paths.shared_dir={shared_dir}",
                f"paths.root_dir={tmp_path}",
                f"paths.output_dir={tmp_path}",
                f"verifier_dir={verifier_dir}",
                f"output={tmp_path / 'results.json'}",
                *overrides,
            ],
        )


def test_bench_writes_results(tmp_path: Path, tiny_nli_dir: Path, shared_dir: Path) -> None:
    import bench

    out = tmp_path / "results.json"
    cfg = _compose(
        tmp_path,
        shared_dir,
        tiny_nli_dir,
        "sections=[nli,evidence,extraction,end_to_end]",
        f"nli.torch_model={tiny_nli_dir}",
        "nli.pairs=16",
        "nli.batch_size=8",
        "repeats=1",
        "evidence.limit=3",
        "evidence.benchmarks=[psiloqa_en50]",
        "extraction.limit=5",
        "end_to_end.limit=2",
    )
    results, _ = bench.run(cfg)
    saved = json.loads(out.read_text())
    assert saved["nli"]["pairs"] == 16
    assert set(saved["nli"]) >= {"torch_fp32", "onnx_int8", "onnx_int8_speedup"}
    evidence = saved["evidence"]["psiloqa_en50"]
    assert evidence["examples"] == 3
    assert evidence["window"]["nli_pairs"] >= evidence["retrieve"]["nli_pairs"] > 0
    assert results["onnx_size_mb"] == saved["onnx_size_mb"]
    assert saved["extraction"]["sentences"] == 5 and saved["extraction"]["facts"] > 0
    assert saved["end_to_end"]["examples"] == 2
    assert saved["end_to_end"]["inherit_entailment"] == 0.5  # the detector's default
    assert saved["end_to_end"]["sentence_entailment"] is None  # off, the default
    assert saved["end_to_end"]["query_windows"] == "off"  # the selector's default
    assert saved["end_to_end"]["nli_pairs_per_example"] > 0
    assert {"extract", "verify", "total"} <= set(saved["end_to_end"]["median_stage_seconds"])


def test_bench_times_the_tagger_at_batch_1_and_32(
    tmp_path: Path, tiny_nli_dir: Path, shared_dir: Path
) -> None:
    import bench
    from tests.test_igl_export import _build

    tagger = _build(tmp_path / "tagger")
    out = tmp_path / "results.json"
    cfg = _compose(
        tmp_path,
        shared_dir,
        tiny_nli_dir,
        "sections=[tagger,end_to_end_encoder]",
        f"tagger.path={tagger}",
        "tagger.limit=40",
        "end_to_end.limit=2",
    )
    bench.run(cfg)
    saved = json.loads(out.read_text())
    tagged = saved["tagger"]
    assert tagged["sentences"] == 40 and tagged["batch_size"] == 32
    assert set(tagged) >= {"batch_1", "batch_32", "config"}
    assert tagged["config"]["path"] == str(tagger)
    assert tagged["batch_1"]["median_ms_per_sentence"] > 0
    assert tagged["batch_32"]["median_ms_per_sentence"] > 0
    assert saved["end_to_end_encoder"]["examples"] == 2
    assert "extract" in saved["end_to_end_encoder"]["median_stage_seconds"]


def test_bench_times_contexts_without_a_full_stop(
    tmp_path: Path, tiny_nli_dir: Path, shared_dir: Path
) -> None:
    import bench
    from enoki_hd.eval.datasets import load_benchmark

    benchmark = load_benchmark("mushroom_dev30", shared_dir)
    [example] = bench.run_on_examples(benchmark, 4000)[:1]
    assert len(example.context) == 4000 and example.answer == benchmark.examples[0].answer
    assert "\n" not in example.context
    assert example.context[:60] == benchmark.examples[0].context[:60]
    assert not any(
        example.context[i] in ".!?" and example.context[i + 1 : i + 2].isspace()
        for i in range(len(example.context))
    )

    out = tmp_path / "results.json"
    cfg = _compose(
        tmp_path,
        shared_dir,
        tiny_nli_dir,
        "sections=[run_on]",
        "run_on.limit=2",
        "run_on.chars=[15000]",
        "run_on.max_sentence_chars=[300,null]",
        "run_on.fallback_chars=[null]",
        "run_on.repeats=1",
    )
    bench.run(cfg)
    saved = json.loads(out.read_text())["run_on"]
    pieces, whole = (
        saved["15000chars/max_sentence_chars=300/fallback_chars=None"],
        saved["15000chars/max_sentence_chars=None/fallback_chars=None"],
    )
    assert pieces["examples"] == whole["examples"] == 2
    # indexed in pieces of at most 300 characters, the run-on context has 50 or more units to
    # rank, and retrieval judges a few of them, not every budget-sized piece of the whole
    assert pieces["index_sentences_median"] >= 50 > whole["index_sentences_median"]
    assert 0 < pieces["nli_pairs_per_example"] < whole["nli_pairs_per_example"]
    assert {"median_seconds", "p95_seconds", "char_f1", "char_iou"} <= set(pieces)
