"""Benchmarks by config name: the files of the shared data folder (:func:`load_benchmark`), or
a file of the user's own in any loader's format (:func:`load_benchmark_file`, the
``benchmark=file`` config); :func:`benchmark_from_config` picks between the two."""

from __future__ import annotations

import difflib
import logging
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from enoki_hd.eval.datasets.capabilities import FRESH_DIR, load_capabilities
from enoki_hd.eval.datasets.enokiqa import load_enokiqa
from enoki_hd.eval.datasets.factcheck import load_factcheck
from enoki_hd.eval.datasets.halluentity import load_halluentity
from enoki_hd.eval.datasets.markdown_suite import load_markdown_suite
from enoki_hd.eval.datasets.mushroom import load_mushroom
from enoki_hd.eval.datasets.psiloqa import load_psiloqa_csv, load_psiloqa_hub
from enoki_hd.eval.datasets.ragtruth import load_ragtruth, load_ragtruth_processed
from enoki_hd.eval.datasets.schema import Benchmark, PathLike
from enoki_hd.eval.datasets.sentence_sample import load_sentence_sample
from enoki_hd.eval.datasets.spans_fresh import SPANS_FRESH_DIR, load_span_set
from enoki_hd.eval.datasets.verbatim import build_verbatim
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


def _capabilities(shared: Path) -> Benchmark:
    # the suite is the repository's own (data/capabilities/), not shared data
    return load_capabilities()


def _capabilities_fresh(shared: Path) -> Benchmark:
    # the repository's held-out suite (data/capabilities_fresh/), measured once
    return load_capabilities(FRESH_DIR, name="capabilities_fresh")


def _spans_fresh(shared: Path) -> Benchmark:
    # the repository's held-out span set (data/spans_fresh/), measured once
    return load_span_set(SPANS_FRESH_DIR, name="spans_fresh")


def _capabilities_markdown(shared: Path) -> Benchmark:
    # the repository's own Markdown suite (data/capabilities_markdown/), not shared data
    return load_markdown_suite()


VERBATIM_SOURCES = ("mushroom_dev30", "psiloqa_en50", "ragtruth_sent48", "wice_dev")


def _verbatim(shared: Path) -> Benchmark:
    # context sentences of four shared sets given back as answers (false alarms only)
    return build_verbatim({name: BENCHMARKS[name](shared) for name in VERBATIM_SOURCES})


# Config name -> loader over the shared data folder.
BENCHMARKS: dict[str, Callable[[Path], Benchmark]] = {
    "capabilities": _capabilities,
    "capabilities_fresh": _capabilities_fresh,
    "capabilities_markdown": _capabilities_markdown,
    "mushroom_dev30": _mushroom_dev30,
    "psiloqa_en50": _psiloqa_en50,
    "ragtruth_sent48": _ragtruth_sent48,
    "factcheck_dev30": _factcheck_dev30,
    "factcheck_dev30_claims": _factcheck_dev30_claims,
    "wice_dev": _wice_dev,
    "wice_dev_oracle": _wice_dev_oracle,
    "spans_fresh": _spans_fresh,
    "verbatim": _verbatim,
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


# ---------------------------------------------------------------------------------------------
# A user's own file (configs/benchmark/file.yaml)
# ---------------------------------------------------------------------------------------------


class BenchmarkConfigError(ValueError):
    """A ``benchmark`` config that cannot be loaded; the message names the config key
    (``benchmark.format``, ``benchmark.path``, ...) and what it accepts."""


@dataclass(frozen=True)
class FileFormat:
    """How ``benchmark=file`` reads one format: the loader, the config keys it takes besides
    ``benchmark.path`` (each mapped to the loader keyword it fills) and whether the path may be
    a folder."""

    load: Callable[..., Benchmark]
    options: Mapping[str, str] = field(default_factory=dict)
    folder: bool = False


# benchmark.format -> how to read it.
FILE_FORMATS: dict[str, FileFormat] = {
    "mushroom": FileFormat(load_mushroom),
    "psiloqa_csv": FileFormat(load_psiloqa_csv, {"gold": "gold"}, folder=True),
    "psiloqa_hub": FileFormat(load_psiloqa_hub, {"lang": "lang"}),
    "ragtruth": FileFormat(load_ragtruth, {"sources": "source_info_path", "split": "split"}),
    "ragtruth_processed": FileFormat(load_ragtruth_processed, {"split": "split"}),
    "factcheck": FileFormat(load_factcheck, {"level": "level"}),
    "sentence_sample": FileFormat(load_sentence_sample),
    "wice": FileFormat(load_wice),
    "halluentity": FileFormat(load_halluentity, {"contexts": "contexts_path"}),
    "enokiqa": FileFormat(load_enokiqa, {"context_field": "context_field"}),
    "capabilities": FileFormat(load_capabilities, folder=True),
    "span_set": FileFormat(load_span_set, folder=True),
}
# Every benchmark.<key> some format reads besides path and format.
FILE_OPTIONS = tuple(sorted({key for spec in FILE_FORMATS.values() for key in spec.options}))
# Options that name a file, checked like benchmark.path.
_PATH_OPTIONS = frozenset({"sources", "contexts"})
_FACTCHECK_LEVELS = ("sentence", "claim")


def _existing_path(value: PathLike, key: str) -> Path:
    path = Path(value).expanduser()
    if not path.exists():
        raise FileNotFoundError(
            f"benchmark.{key}: {path} does not exist (a relative path is taken from the working "
            f"directory, {Path.cwd()})"
        )
    return path


def load_benchmark_file(
    path: PathLike | None, format: str | None, *, name: str = "file", **options: Any
) -> Benchmark:
    """A benchmark file of the user's own, read by the loader of ``format``.

    ``format`` is a key of :data:`FILE_FORMATS`; ``options`` are the extra keys of
    ``configs/benchmark/file.yaml`` (:data:`FILE_OPTIONS`; None means not given):
    ``sources`` (ragtruth: ``source_info.jsonl``), ``contexts`` (halluentity: the contexts
    file), ``split`` (ragtruth, ragtruth_processed), ``lang`` (psiloqa_hub), ``gold``
    (psiloqa_csv: the annotator file whose spans are gold), ``context_field`` (enokiqa) and
    ``level`` (factcheck: ``sentence`` or ``claim``). ``path`` is a file, or for
    ``psiloqa_csv`` also a folder of annotator CSV files; relative paths are taken from the
    working directory.

    Raises:
        BenchmarkConfigError: ``format`` or ``path`` is not set, ``format`` is not a known
            one, an option is given that ``format`` does not read, or ``level`` is invalid;
            the message names the ``benchmark.<key>``.
        FileNotFoundError: ``path``, ``sources`` or ``contexts`` does not exist (named the
            same way).
    """
    formats = ", ".join(FILE_FORMATS)
    if format is None:
        raise BenchmarkConfigError(f"benchmark.format is not set; give one of: {formats}")
    if format not in FILE_FORMATS:
        raise BenchmarkConfigError(f"benchmark.format must be one of {formats}; got {format!r}")
    spec = FILE_FORMATS[format]
    if path is None:
        raise BenchmarkConfigError(
            "benchmark.path is not set; give the file to evaluate: benchmark.path=FILE"
        )
    path = _existing_path(path, "path")
    if path.is_dir() and not spec.folder:
        raise BenchmarkConfigError(
            f"benchmark.path must be a file for format {format}; {path} is a folder"
        )
    given = {key: value for key, value in options.items() if value is not None}
    for key in given:
        if key not in spec.options:
            readers = [f for f, other in FILE_FORMATS.items() if key in other.options]
            only = f" (only by {', '.join(readers)})" if readers else ""
            raise BenchmarkConfigError(
                f"benchmark.{key} is not read by format {format}{only}; leave it unset"
            )
    if format == "factcheck" and given.get("level", "sentence") not in _FACTCHECK_LEVELS:
        raise BenchmarkConfigError(
            f"benchmark.level must be one of {', '.join(_FACTCHECK_LEVELS)} for format "
            f"factcheck; got {given['level']!r}"
        )
    kwargs = {
        spec.options[key]: _existing_path(value, key) if key in _PATH_OPTIONS else value
        for key, value in given.items()
    }
    benchmark = spec.load(path, name=name, **kwargs)
    logger.info(
        "loaded %s (%s, %s): %d examples, dropped %s, flagged %s",
        name,
        format,
        benchmark.source,
        len(benchmark),
        benchmark.dropped,
        benchmark.flagged,
    )
    return benchmark


# The keys of a registered benchmark's config (configs/benchmark/<name>.yaml); hub_id is
# documentation only.
NAMED_KEYS = ("name", "level", "hub_id")
# The keys of benchmark=file (configs/benchmark/file.yaml).
FILE_KEYS = ("name", "path", "format", *FILE_OPTIONS)


def check_benchmark_config(config: Mapping[str, Any]) -> None:
    """Refuse a ``benchmark`` config group with a key its loader would not read: a file's
    ``path`` (or another ``benchmark=file`` option) added to a registered benchmark, which
    would evaluate the registered set and ignore the file, or a misspelt key.

    Raises:
        BenchmarkConfigError: naming the key and the keys that are read.
    """
    # a registered benchmark's config has a hub_id, file.yaml none
    is_file = "format" in config and "hub_id" not in config
    allowed = FILE_KEYS if is_file else NAMED_KEYS
    unknown = [key for key in config if key not in allowed]
    if not unknown:
        return
    file_only = [key for key in unknown if key in FILE_KEYS]
    if not is_file and file_only:
        key = "path" if "path" in file_only else file_only[0]
        raise BenchmarkConfigError(
            f"benchmark.{key} is read only with benchmark=file: use benchmark=file "
            f"benchmark.format=<fmt> benchmark.path=… (formats: {', '.join(FILE_FORMATS)})"
        )
    which = "benchmark=file" if is_file else f"benchmark={config.get('name')}"
    close = difflib.get_close_matches(unknown[0], allowed, n=1)
    hint = f" (did you mean benchmark.{close[0]}?)" if close else ""
    raise BenchmarkConfigError(
        f"unknown key benchmark.{unknown[0]}{hint}; {which} reads "
        f"{', '.join(f'benchmark.{key}' for key in allowed)}"
    )


def benchmark_from_config(
    config: Mapping[str, Any], shared_dir: PathLike | None = None
) -> Benchmark:
    """The benchmark a ``benchmark`` config group describes: a user's own file when the group
    has a ``format`` key (``configs/benchmark/file.yaml``, read by :func:`load_benchmark_file`),
    else the benchmark registered as ``name``, from the shared data folder. A key the chosen
    loader does not read is refused first (:func:`check_benchmark_config`)."""
    check_benchmark_config(config)
    if "format" not in config:
        return load_benchmark(config["name"], shared_dir)
    options = {key: config.get(key) for key in FILE_OPTIONS}
    return load_benchmark_file(config.get("path"), config["format"], name=config["name"], **options)
