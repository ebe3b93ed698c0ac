"""Benchmark loaders: every hallucination benchmark read into ONE example schema.

Each loader reads local files (nothing is downloaded; :data:`HUB_IDS` only records where the
data come from), validates every row and returns a :class:`Benchmark` of :class:`EvalExample`.

Conventions shared by all loaders:

- Offsets are half-open ``[start, end)`` Python character offsets into the example's
  ``answer`` exactly as the file gives it (never into stripped or normalised text).
- A malformed row raises :class:`DatasetError` whose message is
  ``"{path}:{line}: field '{field}' {problem}"`` (``line`` is 1-based; for a CSV record that
  spans several lines it is the record's first line).
- Nothing is dropped silently: rows that are left out are counted in ``Benchmark.dropped``
  (reason -> count); rows that are kept with a caveat (no context, a sentence or entity that
  could not be located, a re-anchored label) are counted in ``Benchmark.flagged``, and the
  example carries the caveat in ``metadata`` (``missing_context=True`` and so on).
- An example without context has ``context == ""`` and ``metadata["missing_context"] = True``.

Modules: :mod:`.schema` (the example schema and :class:`DatasetError`), :mod:`.rows` (row
access and validation shared by the loaders), one module per benchmark family
(:mod:`.mushroom`, :mod:`.psiloqa`, :mod:`.ragtruth`, :mod:`.factcheck`,
:mod:`.sentence_sample`, :mod:`.halluentity`, :mod:`.enokiqa`, :mod:`.wice`, :mod:`.carb`) and
:mod:`.registry`: :data:`BENCHMARKS` / :func:`load_benchmark` map config names to the files in
the shared data folder (``../shared``, or the ``ENOKI_SHARED_DIR`` environment variable), and
:func:`load_benchmark_file` reads a user's own file in any of the loaders' formats
(:data:`FILE_FORMATS`; ``make eval BENCH=file``).
"""

from __future__ import annotations

from enoki_hd.eval.datasets.carb import CarbGold, load_carb
from enoki_hd.eval.datasets.enokiqa import load_enokiqa
from enoki_hd.eval.datasets.factcheck import load_factcheck
from enoki_hd.eval.datasets.halluentity import load_halluentity
from enoki_hd.eval.datasets.mushroom import load_mushroom
from enoki_hd.eval.datasets.psiloqa import load_psiloqa_csv, load_psiloqa_hub
from enoki_hd.eval.datasets.ragtruth import load_ragtruth, load_ragtruth_processed
from enoki_hd.eval.datasets.registry import (
    BENCHMARKS,
    FILE_FORMATS,
    FILE_OPTIONS,
    HUB_IDS,
    SHARED_DIR_ENV,
    BenchmarkConfigError,
    benchmark_from_config,
    check_benchmark_config,
    load_benchmark,
    load_benchmark_file,
)
from enoki_hd.eval.datasets.schema import (
    Benchmark,
    BenchmarkLevel,
    ClaimGold,
    DatasetError,
    EntityGold,
    EvalExample,
    SentenceGold,
)
from enoki_hd.eval.datasets.sentence_sample import load_sentence_sample
from enoki_hd.eval.datasets.wice import load_wice

__all__ = [
    "BENCHMARKS",
    "FILE_FORMATS",
    "FILE_OPTIONS",
    "HUB_IDS",
    "SHARED_DIR_ENV",
    "Benchmark",
    "BenchmarkConfigError",
    "BenchmarkLevel",
    "CarbGold",
    "ClaimGold",
    "DatasetError",
    "EntityGold",
    "EvalExample",
    "SentenceGold",
    "benchmark_from_config",
    "check_benchmark_config",
    "load_benchmark",
    "load_benchmark_file",
    "load_carb",
    "load_enokiqa",
    "load_factcheck",
    "load_halluentity",
    "load_mushroom",
    "load_psiloqa_csv",
    "load_psiloqa_hub",
    "load_ragtruth",
    "load_ragtruth_processed",
    "load_sentence_sample",
    "load_wice",
]
