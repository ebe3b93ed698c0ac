"""Speed and memory numbers for this machine → ``bench/results.json``.

    python scripts/bench.py                    # everything, on the shipped verifier
    python scripts/bench.py nli.pairs=256      # fewer pairs

Numbers are medians over repeats measured in one run (these machines are noisy); compare
ratios within one file, not absolute values across files.
"""

from __future__ import annotations

import gc
import itertools
import json
import logging
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import hydra
from omegaconf import DictConfig, OmegaConf

from enoki_hd.eval.files import atomic_write

logger = logging.getLogger(__name__)


def _median_rate(run, n_items: int, repeats: int) -> dict[str, float]:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    median = statistics.median(times)
    return {"median_seconds": round(median, 4), "items_per_second": round(n_items / median, 2)}


def bench_nli(cfg: DictConfig, verifier_dir: Path, pairs: list[tuple[str, str]]) -> dict[str, Any]:
    """Pairs per second at the configured batch size: torch fp32 vs the shipped ONNX int8.

    The shipped checkpoint holds only the ONNX graph, so the torch fp32 number is measured on
    the same architecture (the MiniLM backbone with a 3-way head) — the compute is identical.
    """
    import torch

    from enoki_hd.verify.nli import NLICrossEncoder

    results: dict[str, Any] = {"pairs": len(pairs), "batch_size": int(cfg.nli.batch_size)}
    torch_dir = Path(cfg.nli.torch_model) if cfg.nli.torch_model else None
    if torch_dir is None or not torch_dir.exists():
        torch_dir = untrained_torch_verifier(Path(cfg.paths.root_dir) / ".cache")
    results["torch_threads"] = torch.get_num_threads()
    for name, model_dir, backend in (
        ("torch_fp32", torch_dir, "torch"),
        ("onnx_int8", verifier_dir, "onnx"),
    ):
        verifier = NLICrossEncoder(
            model_dir,
            backend=backend,
            batch_size=int(cfg.nli.batch_size),
            cache_size=0,
            max_length=int(cfg.nli.max_length),
        )
        verifier.predict(pairs[: int(cfg.nli.batch_size)])  # warm-up
        results[name] = _median_rate(
            lambda v=verifier: v.predict(pairs), len(pairs), int(cfg.repeats)
        )
    results["onnx_int8_speedup"] = round(
        results["onnx_int8"]["items_per_second"] / results["torch_fp32"]["items_per_second"], 2
    )
    return results


def bench_evidence(cfg: DictConfig, verifier_dir: Path) -> dict[str, Any]:
    """Sentence-level detection with ``retrieve`` vs ``window`` evidence selection on each
    configured benchmark: NLI pairs sent and wall time, and their ratios."""
    return {name: _bench_evidence_on(cfg, verifier_dir, name) for name in cfg.evidence.benchmarks}


def _bench_evidence_on(cfg: DictConfig, verifier_dir: Path, name: str) -> dict[str, Any]:
    from enoki_hd.detector import Detector
    from enoki_hd.eval.datasets import load_benchmark
    from enoki_hd.verify.evidence import EvidenceSelector
    from enoki_hd.verify.nli import NLICrossEncoder

    benchmark = load_benchmark(name, cfg.paths.shared_dir)
    examples = (
        benchmark.examples[: cfg.evidence.limit] if cfg.evidence.limit else benchmark.examples
    )
    out: dict[str, Any] = {
        "examples": len(examples),
        "median_context_chars": int(statistics.median(len(e.context) for e in examples)),
    }
    for strategy in ("retrieve", "window"):
        verifier = NLICrossEncoder(
            verifier_dir, backend="onnx", cache_size=0, max_length=int(cfg.nli.max_length)
        )
        selector = EvidenceSelector(strategy=strategy)
        detector = Detector(verifier, extractor=None, selector=selector)
        per_example = []
        started = time.perf_counter()
        for example in examples:
            t = time.perf_counter()
            detector.detect(
                answer=example.answer, context=example.context, question=example.question
            )
            per_example.append(time.perf_counter() - t)
        out[strategy] = {
            "nli_pairs": selector.stats["pairs"],
            "seconds_total": round(time.perf_counter() - started, 3),
            "median_seconds_per_example": round(statistics.median(per_example), 4),
            "truncated_premises": verifier.stats["truncated"],
        }
    out["pairs_ratio_window_over_retrieve"] = round(
        out["window"]["nli_pairs"] / max(out["retrieve"]["nli_pairs"], 1), 2
    )
    out["time_ratio_window_over_retrieve"] = round(
        out["window"]["seconds_total"] / max(out["retrieve"]["seconds_total"], 1e-9), 2
    )
    return out


def bench_extraction(cfg: DictConfig) -> dict[str, Any]:
    """Rules extraction latency per sentence (median over CaRB dev sentences, one call each)."""
    from enoki_hd.eval.datasets import load_carb
    from enoki_hd.extract import get_extractor

    shared = Path(cfg.paths.shared_dir)
    carb = load_carb(shared / "data/carb/dev_sentences.txt", shared / "data/carb/dev_gold.tsv")
    sentences = carb.sentences[: cfg.extraction.limit] if cfg.extraction.limit else carb.sentences
    extractor = get_extractor("rules")
    extractor.extract(sentences[0])  # warm-up: loads spaCy
    times, facts = [], 0
    for sentence in sentences:
        started = time.perf_counter()
        facts += len(extractor.extract(sentence))
        times.append(time.perf_counter() - started)
    return {
        "sentences": len(sentences),
        "facts": facts,
        "median_ms_per_sentence": round(1000 * statistics.median(times), 2),
        "p90_ms_per_sentence": round(1000 * sorted(times)[int(0.9 * (len(times) - 1))], 2),
    }


def _carb_sentences(cfg: DictConfig, limit: int | None) -> list[str]:
    from enoki_hd.eval.datasets import load_carb

    shared = Path(cfg.paths.shared_dir)
    carb = load_carb(shared / "data/carb/dev_sentences.txt", shared / "data/carb/dev_gold.tsv")
    return carb.sentences[:limit] if limit else carb.sentences


def bench_tagger(cfg: DictConfig) -> dict[str, Any]:
    """The shipped IGL tagger (ONNX) per CaRB dev sentence, tokenisation + graph + decoding
    (the sentence span is given, so no segmentation): batch 1 (one call per sentence) and
    batch ``cfg.tagger.batch_size`` (one call per chunk; per-sentence = chunk time / its size);
    medians."""
    from enoki_hd.extract import get_extractor
    from enoki_hd.types import Span

    sentences = _carb_sentences(cfg, cfg.tagger.limit)
    batch = int(cfg.tagger.batch_size)
    results: dict[str, Any] = {"sentences": len(sentences), "batch_size": batch}
    path = cfg.tagger.path
    for size in (1, batch):
        extractor = get_extractor("encoder", path=path, batch_size=size)
        extractor.extract(sentences[0], sentences=[Span(0, len(sentences[0]))])  # warm-up
        per_sentence, facts = [], 0
        for start in range(0, len(sentences), size):
            chunk = sentences[start : start + size]
            began = time.perf_counter()
            out = extractor.extract_batch(chunk, sentences=[[Span(0, len(s))] for s in chunk])
            per_sentence.append((time.perf_counter() - began) / len(chunk))
            facts += sum(len(f) for f in out)
        results[f"batch_{size}"] = {
            "median_ms_per_sentence": round(1000 * statistics.median(per_sentence), 2),
            "facts": facts,
        }
    results["config"] = get_extractor("encoder", path=path).config()
    return results


def bench_end_to_end(
    cfg: DictConfig, verifier_dir: Path, extractor: str = "rules"
) -> dict[str, Any]:
    """Fact-level detection (``extractor`` + shipped verifier, default settings) per example
    on a span benchmark: median and p90 seconds, with the stage timings' medians."""
    from enoki_hd.detector import Detector
    from enoki_hd.eval.datasets import load_benchmark
    from enoki_hd.verify.nli import NLICrossEncoder

    benchmark = load_benchmark(cfg.end_to_end.benchmark, cfg.paths.shared_dir)
    examples = (
        benchmark.examples[: cfg.end_to_end.limit] if cfg.end_to_end.limit else benchmark.examples
    )
    detect_length = cfg.nli.max_length_detect
    verifier = NLICrossEncoder(
        verifier_dir,
        backend="onnx",
        max_length=None if detect_length is None else int(detect_length),
    )
    inherit = cfg.end_to_end.get("inherit_entailment")
    vouch = cfg.end_to_end.get("sentence_entailment")
    options = {
        "inherit_entailment": None if inherit is None else float(inherit),
        "sentence_entailment": None if vouch is None else float(vouch),
    }
    from enoki_hd.extract import get_extractor
    from enoki_hd.verify.evidence import EvidenceSelector

    query_windows = cfg.end_to_end.get("query_windows") or EvidenceSelector.query_windows

    path = {"path": cfg.tagger.path} if extractor == "encoder" else {}
    detector = Detector(
        verifier,
        extractor=get_extractor(extractor, **path),
        selector=EvidenceSelector(query_windows=query_windows),
        **options,
    )
    detector.detect(answer="Warm-up sentence.", context="Warm-up context.")
    pairs_before = verifier.stats["pairs"]
    totals, stages = [], {}
    for example in examples:
        started = time.perf_counter()
        report = detector.detect(
            answer=example.answer, context=example.context, question=example.question
        )
        totals.append(time.perf_counter() - started)
        for stage, seconds in report.timings.items():
            stages.setdefault(stage, []).append(seconds)
    return {
        "benchmark": benchmark.name,
        "examples": len(examples),
        "inherit_entailment": options["inherit_entailment"],
        "sentence_entailment": options["sentence_entailment"],
        "query_windows": query_windows,
        "nli_pairs_per_example": round((verifier.stats["pairs"] - pairs_before) / len(examples), 1),
        "median_seconds_per_example": round(statistics.median(totals), 4),
        "p90_seconds_per_example": round(sorted(totals)[int(0.9 * (len(totals) - 1))], 4),
        "median_stage_seconds": {k: round(statistics.median(v), 4) for k, v in stages.items()},
    }


MEMORY_PROBE = """
import json, resource, sys
from enoki_hd.detector import Detector
from enoki_hd.eval.datasets import load_benchmark
bench = load_benchmark(sys.argv[1], sys.argv[2])
example = max(bench.examples, key=lambda e: len(e.context))
Detector(extractor="rules").detect(answer=example.answer, context=example.context, question=example.question)
print(json.dumps({"peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "context_chars": len(example.context)}))
"""


def bench_memory(cfg: DictConfig) -> dict[str, Any]:
    """Peak resident memory of a fresh process that loads the fact-level Detector (rules +
    shipped verifier) and checks the example with the longest context."""
    result = subprocess.run(
        [sys.executable, "-c", MEMORY_PROBE, cfg.memory.benchmark, str(cfg.paths.shared_dir)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ},
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


# Cold start and peak memory of one detection in a fresh process; argv[1] "installed" runs in a
# venv with the wheel installed (base dependencies only: no torch anywhere), "torch-free" in
# this venv with torch and transformers blocked, "torch" imports them first (the detector
# before enoki_hd.runtime, which loaded them through AutoConfig/AutoTokenizer).
STARTUP_PROBE = """
import importlib.abc, importlib.util, json, resource, sys, time
torch_installed = importlib.util.find_spec("torch") is not None  # (not timed)
started = time.perf_counter()
if sys.argv[1] == "torch-free":
    class Block(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("torch", "transformers"):
                raise ImportError(name)
    sys.meta_path.insert(0, Block())
elif sys.argv[1] == "torch":
    import torch, transformers
from pathlib import Path
import enoki_hd
from enoki_hd.detector import Detector
ex = Path(enoki_hd.__file__).parent / "examples"
detector = Detector(extractor=sys.argv[2])
loaded = time.perf_counter() - started
detector.detect(answer=(ex / "suede_answer.txt").read_text(), context=(ex / "suede_context.txt").read_text())
print(json.dumps({"load_seconds": loaded, "cold_start_seconds": time.perf_counter() - started,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "torch_imported": "torch" in sys.modules,
                  "torch_installed": torch_installed}))
"""


def _installed_python(cfg: DictConfig) -> Path:
    """The python of a venv under ``startup.install_dir`` with the wheel of the checkout this
    script belongs to installed
    (base dependencies only, as ``pip install enoki-hd`` gives a user): the venv is made once,
    the package rebuilt and reinstalled on every run."""
    import shutil
    import venv

    target = Path(cfg.startup.install_dir).resolve()
    wheels = target / "wheels"
    shutil.rmtree(wheels, ignore_errors=True)
    pip, root = [sys.executable, "-m", "pip"], Path(__file__).resolve().parents[1]
    # setuptools copies whatever build/lib holds into the wheel, files deleted since included
    shutil.rmtree(root / "build", ignore_errors=True)
    subprocess.run(
        [*pip, "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(wheels), str(root)],
        check=True,
    )
    (built,) = wheels.glob("enoki_hd-*.whl")
    wheel = str(built)
    python = target / "venv" / "bin" / "python"
    if not python.exists():
        venv.EnvBuilder(with_pip=False).create(target / "venv")
    subprocess.run([*pip, "--python", str(python), "install", "-q", wheel], check=True)
    subprocess.run(
        [*pip, "--python", str(python), "install", "-q", "--force-reinstall", "--no-deps", wheel],
        check=True,
    )
    return python


def bench_startup(cfg: DictConfig) -> dict[str, Any]:
    """Cold start (interpreter start excluded: imports, model loading and the first detection
    of the bundled example) and peak RSS of a fresh process, torch-free vs with torch and
    transformers imported, per extractor; medians over ``startup.repeats`` processes."""
    results: dict[str, Any] = {"repeats": int(cfg.startup.repeats)}
    installed = _installed_python(cfg) if "installed" in cfg.startup.runtimes else None
    # the installed package runs outside the source tree, with nothing of it on the path
    outside = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "ENOKI_CHECKPOINTS")}
    for extractor in cfg.startup.extractors:
        for runtime in cfg.startup.runtimes:
            python = installed if runtime == "installed" else Path(sys.executable)
            runs = []
            for _ in range(int(cfg.startup.repeats)):
                result = subprocess.run(
                    [str(python), "-c", STARTUP_PROBE, runtime, extractor],
                    capture_output=True,
                    text=True,
                    check=True,
                    **(
                        {"cwd": python.parents[2], "env": outside} if runtime == "installed" else {}
                    ),
                )
                runs.append(json.loads(result.stdout.strip().splitlines()[-1]))
            results[f"{extractor}/{runtime}"] = {
                key: round(statistics.median(r[key] for r in runs), 3)
                for key in ("load_seconds", "cold_start_seconds", "peak_rss_mb")
            } | {key: runs[0][key] for key in ("torch_imported", "torch_installed")}
        free, torch = results.get(f"{extractor}/torch-free"), results.get(f"{extractor}/torch")
        if free and torch:
            results[f"{extractor}/rss_saving"] = round(
                1 - free["peak_rss_mb"] / torch["peak_rss_mb"], 3
            )
            results[f"{extractor}/cold_start_saving"] = round(
                1 - free["cold_start_seconds"] / torch["cold_start_seconds"], 3
            )
    return results


def _long_context_examples(benchmark: Any, chars: int) -> list[Any]:
    """Each example with its context padded to ``chars`` characters by the other examples'
    contexts (the answer's own context stays first, so gold spans are unchanged)."""
    import dataclasses

    others = [e.context for e in benchmark.examples]
    padded = []
    for i, example in enumerate(benchmark.examples):
        parts, size, j = [example.context], len(example.context), i
        while size < chars:
            j = (j + 1) % len(others)
            parts.append(others[j])
            size += len(others[j]) + 2
        padded.append(dataclasses.replace(example, context="\n\n".join(parts)[:chars]))
    return padded


def run_on_examples(benchmark: Any, chars: int) -> list[Any]:
    """The examples of :func:`_long_context_examples`, each context made one sentence without
    a full stop: every ``.``, ``!`` or ``?`` before a space or the end a comma, every line
    break a space (a table flattened, a transcript, a scraped page), character for character.
    The answers and their gold spans are unchanged."""
    import dataclasses
    import re

    def run_on(text: str) -> str:  # the same length: character for character
        return re.sub(r"[\r\n]", " ", re.sub(r"[.!?](?=\s|$)", ",", text))

    return [
        dataclasses.replace(e, context=run_on(e.context))
        for e in _long_context_examples(benchmark, chars)
    ]


def bench_run_on(cfg: DictConfig, verifier_dir: Path) -> dict[str, Any]:
    """Detection (rules, shipped verifier, retrieve) on contexts that are one sentence without
    a full stop, padded to each of ``run_on.chars`` characters, with the evidence index's
    ``max_sentence_chars`` at each of ``run_on.max_sentence_chars`` (null: sentences as
    segmented, so the one sentence is judged whole, piece by piece) and the selector's
    ``fallback_chars`` at each of ``run_on.fallback_chars`` (null: no cap; null and null is
    the code before 6 December's nineteenth session): median and p95 seconds
    per example over ``run_on.repeats`` passes after a warm-up example, NLI pairs per example,
    and the span quality of the same runs (char-F1, IoU)."""
    from enoki_hd.detector import Detector
    from enoki_hd.eval.datasets import load_benchmark
    from enoki_hd.verify.evidence import EvidenceSelector
    from enoki_hd.verify.nli import NLICrossEncoder

    benchmark = load_benchmark(cfg.run_on.benchmark, cfg.paths.shared_dir)
    limit = cfg.run_on.limit
    verifier = NLICrossEncoder(verifier_dir, backend="onnx", cache_size=0)
    repeats = int(cfg.run_on.repeats)
    results: dict[str, Any] = {"benchmark": benchmark.name, "repeats": repeats}
    for chars in cfg.run_on.chars:
        examples = run_on_examples(benchmark, int(chars))
        examples = examples[:limit] if limit else examples
        for max_chars, fallback in itertools.product(
            cfg.run_on.max_sentence_chars, cfg.run_on.get("fallback_chars", [20000])
        ):
            selector = EvidenceSelector(
                max_sentence_chars=None if max_chars is None else int(max_chars),
                fallback_chars=None if fallback is None else int(fallback),
            )
            detector = Detector(verifier, selector=selector)
            e = examples[0]
            detector.detect(answer=e.answer, context=e.context, question=e.question)
            pairs_before = verifier.stats["pairs"]
            passes = []
            for _ in range(repeats):
                seconds, reports = [], []
                for e in examples:
                    started = time.perf_counter()
                    reports.append(
                        detector.detect(answer=e.answer, context=e.context, question=e.question)
                    )
                    seconds.append(time.perf_counter() - started)
                passes.append((seconds, reports))
            pairs = (verifier.stats["pairs"] - pairs_before) / (repeats * len(examples))
            _, timed = _passes_summary(examples, passes)
            name = f"{int(chars)}chars/max_sentence_chars={max_chars}/fallback_chars={fallback}"
            results[name] = {
                "examples": len(examples),
                "index_sentences_median": int(
                    statistics.median(len(detector.index(e.context)) for e in examples)
                ),
                "median_seconds": timed["median_seconds"],
                "p95_seconds": timed["p95_seconds"],
                "nli_pairs_per_example": round(pairs, 1),
                "char_f1": timed["char_f1"],
                "char_iou": timed["char_iou"],
            }
            logger.info("run_on %s: %s", name, results[name])
    return results


def untrained_torch_verifier(cache: Path) -> Path:
    """``cache``/bench_torch_fp32: the shipped verifier's architecture (the embedded MiniLM
    backbone, a 3-way head left untrained) saved with torch weights, built on first use — the
    same compute as the trained model, for timing the torch runtime where no trained torch
    weights exist (its labels mean nothing)."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from enoki_hd.train.verifier import resolve_backbone

    torch_dir = cache / "bench_torch_fp32"
    if not (torch_dir / "config.json").exists():
        model = AutoModelForSequenceClassification.from_pretrained(
            resolve_backbone("minilm"),
            num_labels=3,
            id2label={0: "entailment", 1: "neutral", 2: "contradiction"},
        )
        model.save_pretrained(torch_dir)
        AutoTokenizer.from_pretrained(resolve_backbone("minilm")).save_pretrained(torch_dir)
    return torch_dir


def bench_matrix(cfg: DictConfig, verifier_dir: Path) -> dict[str, Any]:
    """For each extractor × verifier runtime × evidence strategy on the span sets (and on
    ``matrix.long_context``-character contexts): median and p95 seconds per example,
    examples/s at batch 1 and as a ``detect_batch`` of 32, NLI pairs per example and character
    span F1 of the same run — speed never without quality. Runtimes (``matrix.runtimes``):
    the shipped ONNX int8 graph (cells ``set/extractor/strategy``) and torch fp32 for
    ``matrix.torch_verifier``, a checkpoint with torch weights (cells
    ``set/extractor/strategy/torch_fp32``; skipped, with the reason recorded, without one — the
    shipped checkpoint has none). Medians over ``matrix.repeats`` passes after a warm-up, the
    verifier's score cache off so that every pass does the work."""
    from enoki_hd.detector import Detector
    from enoki_hd.eval.datasets import load_benchmark
    from enoki_hd.extract import get_extractor
    from enoki_hd.verify.evidence import EvidenceSelector
    from enoki_hd.verify.nli import NLICrossEncoder

    limit = cfg.matrix.limit
    long_names = cfg.matrix.long_context_benchmark
    long_names = [long_names] if isinstance(long_names, str) else list(long_names or [])
    normal = cfg.matrix.get("normal_length", True)
    sets = {}
    for name in dict.fromkeys([*cfg.matrix.benchmarks, *long_names]):
        benchmark = load_benchmark(name, cfg.paths.shared_dir)
        if normal and name in cfg.matrix.benchmarks:
            sets[name] = benchmark.examples[:limit] if limit else benchmark.examples
        if cfg.matrix.long_context and name in long_names:
            long = _long_context_examples(benchmark, int(cfg.matrix.long_context))
            long_limit = min(x for x in (limit, cfg.matrix.long_context_limit, len(long)) if x)
            sets[f"{name}@{int(cfg.matrix.long_context)}chars"] = long[:long_limit]
    extractors = {name: get_extractor(name) for name in cfg.matrix.extractors}
    # the verifier's runtime: the shipped ONNX int8 graph, and torch fp32 for a checkpoint
    # that has torch weights (the shipped one has none: `make train-verifier` writes them)
    runtimes = list(cfg.matrix.get("runtimes", ["onnx_int8"]))
    for runtime in runtimes:
        if runtime not in ("onnx_int8", "torch_fp32"):
            raise ValueError(f"matrix.runtimes: {runtime!r} is not onnx_int8 or torch_fp32")
    results: dict[str, Any] = {"repeats": int(cfg.matrix.repeats), "runtimes": runtimes}
    verifiers: dict[str, Any] = {}
    for runtime in runtimes:
        if runtime == "onnx_int8":
            verifiers[runtime] = NLICrossEncoder(verifier_dir, backend="onnx", cache_size=0)
        elif runtime == "torch_fp32":
            torch_dir = cfg.matrix.get("torch_verifier")
            if not torch_dir:
                results["torch_fp32"] = {
                    "skipped": "no matrix.torch_verifier: the shipped verifier holds ONNX int8 "
                    "weights only; pass a checkpoint with torch weights (make train-verifier)"
                }
                continue
            verifiers[runtime] = NLICrossEncoder(torch_dir, backend="torch", cache_size=0)
    for set_name, examples in sets.items():
        for (extractor_name, extractor), (runtime, verifier), strategy in itertools.product(
            extractors.items(), verifiers.items(), cfg.matrix.evidence
        ):
            detector = Detector(
                verifier, extractor=extractor, selector=EvidenceSelector(strategy=strategy)
            )
            name = f"{set_name}/{extractor_name}/{strategy}"
            if runtime != "onnx_int8":
                name += f"/{runtime}"
            cell = _bench_cell(cfg, detector, verifier, examples, name)
            logger.info(
                "matrix %s: median %.3f s, p95 %.3f s, %.1f NLI pairs, char-F1 %.3f",
                name,
                cell["median_seconds"],
                cell["p95_seconds"],
                cell["nli_pairs_per_example"],
                cell["char_f1"],
            )
            results[name] = cell
    for set_name, extractor_name, runtime in itertools.product(sets, extractors, verifiers):
        prefix = f"{set_name}/{extractor_name}"
        suffix = "" if runtime == "onnx_int8" else f"/{runtime}"
        cell = {s: results.get(f"{prefix}/{s}{suffix}") for s in ("window", "retrieve")}
        if cell["window"] and cell["retrieve"]:
            results[f"{prefix}/window_over_retrieve_latency{suffix}"] = round(
                cell["window"]["median_seconds"] / cell["retrieve"]["median_seconds"], 2
            )
    return results


def _bench_cell(cfg, detector, verifier, examples, name: str) -> dict[str, Any]:
    from tqdm.auto import tqdm

    warm_all = cfg.matrix.get("warmup", "all") != "first"
    repeats = int(cfg.matrix.repeats)
    logger.info(
        "matrix %s: %d examples, %d timed passes after a warm-up on %s",
        name,
        len(examples),
        repeats,
        "every example" if warm_all else "the first",
    )
    # a bar on a terminal (a cell of window on 50,000 characters runs for minutes)
    bar = tqdm(
        total=len(examples) * repeats + (len(examples) if warm_all else 1),
        desc=name,
        unit="detect",
        disable=None,
        leave=False,
    )

    def one_pass() -> tuple[list[float], list[Any]]:
        seconds, reports = [], []
        for e in examples:
            started = time.perf_counter()
            reports.append(detector.detect(answer=e.answer, context=e.context, question=e.question))
            seconds.append(time.perf_counter() - started)
            bar.update()
        return seconds, reports

    # warm-up (spaCy, the ONNX sessions' memory arenas): a whole pass, or the first example
    # only (matrix.warmup=first, for slow cells such as window on long contexts)
    if not warm_all:
        e = examples[0]
        detector.detect(answer=e.answer, context=e.context, question=e.question)
        bar.update()
    else:
        one_pass()
    settle = bool(cfg.matrix.get("settle_heap", True))
    if settle:
        from enoki_hd.runtime import settle_heap

        settle_heap()  # as the service and the detect-batch workers do after their first detection
    try:
        pairs_before = verifier.stats["pairs"]
        passes = [one_pass() for _ in range(repeats)]
        pairs = (verifier.stats["pairs"] - pairs_before) / (len(passes) * len(examples))
        bar.close()
        batch_times = []
        for _ in range(repeats if cfg.matrix.get("batch32", True) else 0):
            started = time.perf_counter()
            for start in range(0, len(examples), 32):
                detector.detect_batch(
                    [
                        {"answer": e.answer, "context": e.context, "question": e.question}
                        for e in examples[start : start + 32]
                    ],
                    progress=False,
                )
            batch_times.append(time.perf_counter() - started)
    finally:
        if settle:
            gc.unfreeze()  # the next cell's detector and examples are settled afresh
    per_example, timed = _passes_summary(examples, passes)
    return {
        "examples": len(examples),
        "median_context_chars": int(statistics.median(len(e.context) for e in examples)),
        "median_seconds": timed["median_seconds"],
        "p95_seconds": timed["p95_seconds"],
        "examples_per_second_batch1": round(len(examples) / sum(per_example), 2),
        "examples_per_second_batch32": round(len(examples) / statistics.median(batch_times), 2)
        if batch_times
        else None,
        "nli_pairs_per_example": round(pairs, 1),
        "char_f1": timed["char_f1"],
        "char_iou": timed["char_iou"],
        "settled_heap": settle,
    }


def _passes_summary(
    examples: list[Any], passes: list[tuple[list[float], list[Any]]]
) -> tuple[list[float], dict[str, Any]]:
    """Timed passes ``(seconds per example, reports)`` → each example's median seconds, and
    the median and p95 of those with the char-F1 and IoU of the last pass's spans (over the
    examples with gold spans; IoU None when none has)."""
    from enoki_hd.eval.metrics import char_iou, char_prf

    per_example = [statistics.median(p[0][i] for p in passes) for i in range(len(examples))]
    reports = passes[-1][1]
    scored = [(e, r) for e, r in zip(examples, reports, strict=True) if e.gold_spans is not None]
    predicted = [[(s.start, s.end) for s in r.spans] for _, r in scored]
    gold = [[(s.start, s.end) for s in e.gold_spans] for e, _ in scored]
    f1 = char_prf(predicted, gold, [len(e.answer) for e, _ in scored])["f1"]
    iou = char_iou(predicted, gold)["iou"] if scored else None
    return per_example, {
        "median_seconds": round(statistics.median(per_example), 4),
        "p95_seconds": round(sorted(per_example)[int(0.95 * (len(per_example) - 1))], 4),
        "char_f1": round(float(f1), 4),
        "char_iou": None if iou is None else round(float(iou), 4),
    }


def bench_gpu(cfg: DictConfig, pairs: list[tuple[str, str]]) -> dict[str, Any]:
    """NLI pairs/s of the torch fp32 backbone on CUDA, when a GPU is present."""
    try:
        import torch
    except ImportError:
        return {"skipped": "torch is not installed"}
    if not torch.cuda.is_available():
        return {"skipped": "no CUDA device"}
    from enoki_hd.train.verifier import resolve_backbone
    from enoki_hd.verify.nli import NLICrossEncoder

    verifier = NLICrossEncoder(
        resolve_backbone("minilm"),
        backend="torch",
        device="cuda",
        cache_size=0,
        batch_size=int(cfg.nli.batch_size),
        max_length=int(cfg.nli.max_length),
    )
    verifier.predict(pairs[: int(cfg.nli.batch_size)])
    return {"device": torch.cuda.get_device_name(0)} | _median_rate(
        lambda: verifier.predict(pairs), len(pairs), int(cfg.repeats)
    )


def sample_pairs(cfg: DictConfig) -> list[tuple[str, str]]:
    from enoki_hd.train.nli_data import load_pairs

    pairs = load_pairs(
        Path(cfg.paths.shared_dir) / "data/snli/test.jsonl.gz",
        source="snli_test",
        limit=int(cfg.nli.pairs),
    )
    return [(p.premise, p.hypothesis) for p in pairs]


SECTIONS = (
    "nli",
    "evidence",
    "extraction",
    "end_to_end",
    "tagger",
    "end_to_end_encoder",
    "memory",
    "startup",
    "matrix",
    "run_on",
    "gpu",
)


class BenchConfigError(ValueError):
    """A setting of ``configs/bench.yaml`` that would measure nothing, the wrong thing, or
    fail only after the measuring; the message names the key and what to write instead."""


class UnknownSectionError(BenchConfigError):
    """A name in ``sections`` that no bench section has."""


# null: every example or sentence; a negative limit would slice from the end
_LIMITS = (
    "evidence.limit",
    "extraction.limit",
    "tagger.limit",
    "end_to_end.limit",
    "matrix.limit",
    "run_on.limit",
)
_COUNTS = (
    "repeats",
    "matrix.repeats",
    "startup.repeats",
    "nli.pairs",
    "nli.batch_size",
    "tagger.batch_size",
    "run_on.repeats",
)


def check_config(cfg: DictConfig) -> dict[str, Any] | None:
    """Every check that can fail before anything is measured: section names, counts and limits,
    the shared data folder, the output file. Returns the results already in ``output`` that
    this run keeps (``keep_other_sections``), or None.

    Raises:
        BenchConfigError: the first bad setting, named.
    """
    from enoki_hd.eval.datasets import SHARED_DIR_ENV
    from enoki_hd.eval.datasets.rows import is_int

    # a typo would measure nothing and still rewrite the results file
    for section in cfg.sections:
        if section not in SECTIONS:
            raise UnknownSectionError(
                f"unknown section {section!r} in sections=[...] (known: {', '.join(SECTIONS)})"
            )
    for key in _COUNTS:
        value = OmegaConf.select(cfg, key)
        if not is_int(value) or value < 1:
            raise BenchConfigError(f"{key} must be a whole number >= 1, got {value!r}")
    for key in _LIMITS:
        value = OmegaConf.select(cfg, key)
        if value is not None and (not is_int(value) or value < 1):
            raise BenchConfigError(
                f"{key} must be a whole number >= 1 or null (all), got {value!r} (e.g. {key}=5)"
            )
    value = OmegaConf.select(cfg, "matrix.long_context_limit")
    if value is not None and (not is_int(value) or value < 0):
        raise BenchConfigError(
            f"matrix.long_context_limit must be a whole number >= 0 or null (0 and null: "
            f"matrix.limit, else every example), got {value!r}"
        )
    for chars in OmegaConf.select(cfg, "run_on.chars") or []:
        if not is_int(chars) or chars < 1:
            raise BenchConfigError(
                f"run_on.chars must list whole numbers >= 1, got {chars!r} (e.g. "
                "run_on.chars=[10000,50000])"
            )
    for value in OmegaConf.select(cfg, "run_on.fallback_chars") or []:
        if value is not None and (not is_int(value) or value < 1):
            raise BenchConfigError(
                f"run_on.fallback_chars must list whole numbers >= 1 or null (no cap), got "
                f"{value!r} (e.g. run_on.fallback_chars=[20000,null])"
            )
    for value in OmegaConf.select(cfg, "run_on.max_sentence_chars") or []:
        if value is not None and (not is_int(value) or value < 100):
            raise BenchConfigError(
                f"run_on.max_sentence_chars must list whole numbers >= 100 or null (sentences "
                f"as segmented), got {value!r} (e.g. run_on.max_sentence_chars=[1000,null])"
            )
    shared = Path(cfg.paths.shared_dir)
    if set(cfg.sections) - {"startup"} and not (shared / "data").is_dir():
        raise BenchConfigError(
            f"the shared data folder {shared} has no data/ folder: set {SHARED_DIR_ENV} (or "
            "paths.shared_dir=...) to the shared folder that holds data/"
        )
    out = Path(cfg.output)
    if out.is_dir():
        raise BenchConfigError(
            f"output={out} is a folder: name a file, e.g. output={out}/results.json"
        )
    if not (cfg.get("keep_other_sections") and out.is_file()):
        return None
    try:
        previous = json.loads(out.read_text(encoding="utf-8"))
        problem = None if isinstance(previous, dict) else "not a JSON object"
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        problem = str(err)
    if problem:
        raise BenchConfigError(
            f"output={out} is not a bench results file ({problem}): remove it, name another "
            "output=, or pass keep_other_sections=false to replace it"
        )
    return previous


def machine_facts(root: Path) -> dict[str, Any]:
    """What the numbers depend on besides the code: CPU, the threads allowed, the versions of
    the packages that do the compute, and the git commit of ``root`` (dirty: uncommitted
    changes to tracked files)."""
    from enoki_hd.eval.cache import package_versions
    from enoki_hd.eval.runner import _git_state
    from enoki_hd.runtime.onnx import THREADS_ENV

    cpu_model = None
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        for line in cpuinfo.read_text(errors="replace").splitlines():
            if line.startswith("model name"):
                cpu_model = line.partition(":")[2].strip()
                break
    versions = package_versions(
        ("enoki-hd", "numpy", "onnxruntime", "spacy", "tokenizers", "torch", "transformers")
    )
    affinity = getattr(os, "sched_getaffinity", None)
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_model": cpu_model,
        "cpus": os.cpu_count(),
        "cpus_usable": len(affinity(0)) if affinity else os.cpu_count(),
        "threads_env": {name: os.environ.get(name) for name in ("OMP_NUM_THREADS", THREADS_ENV)},
        "versions": versions,
        "git": _git_state(root),
    }


def run(cfg: DictConfig) -> tuple[dict[str, Any], dict[str, Any]]:
    from enoki_hd.verify.loading import default_verifier_path

    previous = check_config(cfg)
    verifier_dir = Path(cfg.verifier_dir) if cfg.verifier_dir else default_verifier_path()
    if not (verifier_dir / "model.onnx").is_file():
        raise BenchConfigError(
            f"verifier_dir={verifier_dir} has no model.onnx: name a verifier checkpoint folder "
            "(null: the shipped checkpoints/verifier-minilm)"
        )
    results: dict[str, Any] = {
        "machine": machine_facts(Path(__file__).resolve().parents[1]),
        "verifier": str(verifier_dir),
        "onnx_size_mb": round((verifier_dir / "model.onnx").stat().st_size / 2**20, 2),
    }
    sections = list(cfg.sections)
    if "nli" in sections:
        results["nli"] = bench_nli(cfg, verifier_dir, sample_pairs(cfg))
    if "evidence" in sections:
        results["evidence"] = bench_evidence(cfg, verifier_dir)
    if "extraction" in sections:
        results["extraction"] = bench_extraction(cfg)
    if "end_to_end" in sections:
        results["end_to_end"] = bench_end_to_end(cfg, verifier_dir)
    if "tagger" in sections:
        results["tagger"] = bench_tagger(cfg)
    if "end_to_end_encoder" in sections:
        results["end_to_end_encoder"] = bench_end_to_end(cfg, verifier_dir, extractor="encoder")
    if "memory" in sections:
        results["memory"] = bench_memory(cfg)
    if "startup" in sections:
        results["startup"] = bench_startup(cfg)
    if "matrix" in sections:
        results["matrix"] = bench_matrix(cfg, verifier_dir)
    if "run_on" in sections:
        results["run_on"] = bench_run_on(cfg, verifier_dir)
    if "gpu" in sections:
        results["gpu"] = bench_gpu(cfg, sample_pairs(cfg))
    results["config"] = OmegaConf.to_container(cfg, resolve=True)
    out = Path(cfg.output)
    if previous is not None:
        # a run of some sections keeps the other sections' numbers (and the config and machine
        # they were measured with); this run's are recorded under each section it measured
        configs = previous.get("section_configs", {})
        configs.update({section: results["config"] for section in sections})
        machines = previous.get("section_machines", {})
        machines.update({section: results["machine"] for section in sections})
        results = previous | results | {"section_configs": configs, "section_machines": machines}
        results["config"] = previous.get("config", results["config"])
        results["machine"] = previous.get("machine", results["machine"])
    atomic_write(out, json.dumps(results, indent=2, sort_keys=True) + "\n")
    logger.info("wrote %s", out)
    return results, {}


@hydra.main(version_base="1.3", config_path="../configs", config_name="bench")
def main(cfg: DictConfig) -> None:
    try:
        results, _ = run(cfg)
    except BenchConfigError as err:
        sys.stderr.write(f"bench: {err}\n")
        sys.exit(2)
    sys.stdout.write(json.dumps(results, indent=2, sort_keys=True) + "\n")
    sys.stdout.write(
        f"max RSS of this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB\n"
    )


if __name__ == "__main__":
    main()
