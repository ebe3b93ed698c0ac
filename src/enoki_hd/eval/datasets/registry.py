"""Benchmarks by config name: the files of the shared data folder."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path

from enoki_hd.eval.datasets.factcheck import load_factcheck
from enoki_hd.eval.datasets.mushroom import load_mushroom
from enoki_hd.eval.datasets.psiloqa import load_psiloqa_csv
from enoki_hd.eval.datasets.schema import Benchmark, PathLike
from enoki_hd.eval.datasets.sentence_sample import load_sentence_sample
from enoki_hd.eval.datasets.wice import load_wice

logger = logging.getLogger(__name__)

SHARED_DIR_ENV = "ENOKI_SHARED_DIR"

# Where each benchmark comes from; documentation only, the loaders read local files.
HUB_IDS: dict[str, str] = {
    "mushroom": "Helsinki-NLP/mu-shroom",
    "psiloqa": "s-nlp/PsiloQA",
    "ragtruth": "github:ParticleMedia/RAGTruth (dataset/response.jsonl, dataset/source_info.jsonl)",
    "ragtruth_processed": "wandb/RAGTruth-processed",
    "factcheck_bench": "github:yuxiaw/Factcheck-GPT (Factbench.jsonl)",
    "ragtruth_250": "github:s-nlp/Enoki (RAGTruth-250 sentence sample)",
    "anah": "opencompass/anah",
    "halluentity": "samuelyeh/HalluEntity",
    "enokiqa": "github:s-nlp/Enoki (EnokiQA export)",
    "wice": "github:ryokamoi/wice",
    "carb": "github:dair-iitd/CaRB",
}


def _shared_file(shared_dir: Path, relative: str) -> Path:
    path = shared_dir / relative
    if not path.exists():
        raise FileNotFoundError(
            f"benchmark file {path} does not exist; point the {SHARED_DIR_ENV} environment "
            f"variable (or shared_dir) at the shared data folder that holds {relative}"
        )
    return path


def _mushroom_dev30(shared: Path) -> Benchmark:
    return load_mushroom(
        _shared_file(
            shared, "benchmarks/mushroom_dev30/mushroom.en-tst.v1.dev30.with_context.jsonl"
        ),
        name="mushroom_dev30",
    )


def _psiloqa_en50(shared: Path) -> Benchmark:
    names = ("1_annotator.csv", "2_annotator.csv", "3_annotator.csv", "gpt.csv")
    files = [_shared_file(shared, f"benchmarks/psiloqa_en50/{n}") for n in names]
    return load_psiloqa_csv(files, name="psiloqa_en50")


def _ragtruth_sent48(shared: Path) -> Benchmark:
    return load_sentence_sample(
        _shared_file(shared, "benchmarks/ragtruth_sent48/ragtruth_sentence_dev48.jsonl"),
        name="ragtruth_sent48",
    )


def _factcheck_dev30(shared: Path) -> Benchmark:
    return load_factcheck(
        _shared_file(shared, "benchmarks/factcheck_bench/factcheck_gpt_dev30.jsonl"),
        "sentence",
        name="factcheck_dev30",
    )


def _factcheck_dev30_claims(shared: Path) -> Benchmark:
    return load_factcheck(
        _shared_file(shared, "benchmarks/factcheck_bench/factcheck_gpt_dev30.jsonl"),
        "claim",
        name="factcheck_dev30_claims",
    )


def _wice_dev(shared: Path) -> Benchmark:
    return load_wice(_shared_file(shared, "benchmarks/wice_dev/claims_dev.jsonl"), name="wice_dev")


def _wice_dev_oracle(shared: Path) -> Benchmark:
    return load_wice(
        _shared_file(shared, "benchmarks/wice_dev/oracle_chunks_dev.jsonl"),
        name="wice_dev_oracle",
    )


# Config name -> loader over the shared data folder.
BENCHMARKS: dict[str, Callable[[Path], Benchmark]] = {
    "mushroom_dev30": _mushroom_dev30,
    "psiloqa_en50": _psiloqa_en50,
    "ragtruth_sent48": _ragtruth_sent48,
    "factcheck_dev30": _factcheck_dev30,
    "factcheck_dev30_claims": _factcheck_dev30_claims,
    "wice_dev": _wice_dev,
    "wice_dev_oracle": _wice_dev_oracle,
}


def load_benchmark(name: str, shared_dir: PathLike | None = None) -> Benchmark:
    """Load the benchmark registered as ``name`` from the shared data folder.

    ``shared_dir`` defaults to the ``ENOKI_SHARED_DIR`` environment variable. An unknown name
    raises ValueError listing the known ones; absent files raise FileNotFoundError naming the
    missing path.
    """
    if name not in BENCHMARKS:
        raise ValueError(f"unknown benchmark {name!r}; known: {', '.join(sorted(BENCHMARKS))}")
    if shared_dir is None:
        shared_dir = os.environ.get(SHARED_DIR_ENV)
        if not shared_dir:
            raise FileNotFoundError(
                f"no shared data folder given: pass shared_dir or set {SHARED_DIR_ENV}"
            )
    benchmark = BENCHMARKS[name](Path(shared_dir))
    logger.info(
        "loaded %s: %d examples, dropped %s, flagged %s",
        name,
        len(benchmark),
        benchmark.dropped,
        benchmark.flagged,
    )
    return benchmark
