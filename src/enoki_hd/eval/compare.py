"""Two runs of ``make eval`` on one benchmark, compared with a paired bootstrap.

``enoki compare RUN_A RUN_B`` (or ``make compare A=… B=…``) answers "is configuration A really
better than B here, or is it noise?": it reads each run's ``metrics.json`` (the benchmark and
its config) and ``predictions.jsonl`` (one method's records, ``detector`` by default), loads
the benchmark's gold labels again, and runs :func:`enoki_hd.eval.bootstrap.bootstrap_metrics`
with both runs as the methods and run A as the reference: the same resamples of the examples
for both, so the interval is on A minus B for every headline metric.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from enoki_hd.eval.bootstrap import DEFAULT_LEVEL, DEFAULT_SAMPLES, bootstrap_metrics
from enoki_hd.eval.datasets import Benchmark, benchmark_from_config
from enoki_hd.eval.files import read_run_metrics
from enoki_hd.eval.runner import families, limit_benchmark


def _check_run(run: Path) -> None:
    for name in ("metrics.json", "predictions.jsonl"):
        if not (run / name).is_file():
            raise FileNotFoundError(
                f"no {name} in {run}: give the folder a `make eval` run wrote "
                "(outputs/eval/<benchmark>/<run_name>)"
            )


def _read_run(run: Path, method: str) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """``(metrics.json, {example id: the method's record})`` of one run folder."""
    metrics = read_run_metrics(run / "metrics.json")
    predictions_file = run / "predictions.jsonl"
    records: dict[str, dict[str, Any]] = {}
    methods: list[str] = []
    with predictions_file.open(encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            row = json.loads(line)
            if row["method"] not in methods:
                methods.append(row["method"])
            if row["method"] == method:
                records[str(row["id"])] = row
    if not records:
        raise ValueError(f"{run} has no predictions of method {method!r}; it ran {methods}")
    return metrics, records


def _labels(first: Path, second: Path) -> tuple[str, str]:
    a, b = first.name, second.name
    if a == b:
        a, b = f"{first.parent.name}/{a}", f"{second.parent.name}/{b}"
    return (a, b) if a != b else (str(first), str(second))


def compare_runs(
    first: str | Path,
    second: str | Path,
    *,
    method: str = "detector",
    shared_dir: str | Path | None = None,
    samples: int = DEFAULT_SAMPLES,
    seed: int = 0,
    level: float = DEFAULT_LEVEL,
) -> dict[str, Any]:
    """The paired bootstrap of ``method``'s headline metrics, run ``first`` against ``second``.

    Args:
        first, second: run folders of ``make eval`` (``outputs/eval/<benchmark>/<run_name>``)
            on the same benchmark and the same examples.
        method: whose predictions are compared (both runs must hold it).
        shared_dir: the shared data folder the benchmark is read from (default: the one the
            first run recorded).
        samples, seed, level: as in :func:`~enoki_hd.eval.bootstrap.bootstrap_metrics`.

    Returns:
        :func:`~enoki_hd.eval.bootstrap.bootstrap_metrics`'s result with the runs' labels as
        the methods (the first one the reference), plus ``benchmark``, ``method`` and ``runs``
        (label → folder).

    Raises:
        FileNotFoundError: a folder without ``metrics.json`` or ``predictions.jsonl``.
        ValueError: the same folder twice, a ``metrics.json`` that ``make eval`` did not
            write (named), runs on different benchmarks or examples, or without ``method``.
    """
    paths = [Path(first).expanduser(), Path(second).expanduser()]
    if paths[0].resolve() == paths[1].resolve():
        raise ValueError(
            f"{first} and {second} are the same run folder: a run compared with itself differs "
            "by nothing; give the folders of two runs (e.g. another run_name=)"
        )
    for path in paths:
        _check_run(path)
    (metrics_a, records_a), (metrics_b, records_b) = (_read_run(p, method) for p in paths)
    name_a, name_b = metrics_a["benchmark"]["name"], metrics_b["benchmark"]["name"]
    if name_a != name_b:
        raise ValueError(
            f"{paths[0]} is a run on {name_a} and {paths[1]} on {name_b}; compare two runs "
            "of one benchmark"
        )
    if set(records_a) != set(records_b):
        only_a, only_b = set(records_a) - set(records_b), set(records_b) - set(records_a)
        raise ValueError(
            f"the runs scored different examples of {name_a} ({len(only_a)} only in the first, "
            f"{len(only_b)} only in the second; e.g. {sorted(only_a or only_b)[0]!r}): run both "
            "with the same limit"
        )
    digest_a = metrics_a["benchmark"].get("examples_sha256")
    digest_b = metrics_b["benchmark"].get("examples_sha256")
    if digest_a and digest_b and digest_a != digest_b:
        raise ValueError(
            f"the runs scored different data under the name {name_a} (examples sha256 "
            f"{digest_a[:12]} and {digest_b[:12]}): another file with the same "
            "benchmark.name, or the file changed between the runs; compare runs on the same data"
        )
    config = metrics_a["config"]
    shared_dir = shared_dir or (config.get("paths") or {}).get("shared_dir")
    if not shared_dir:
        raise ValueError(
            f"{paths[0] / 'metrics.json'} records no paths.shared_dir: give the shared data "
            "folder (shared_dir)"
        )
    shared = Path(shared_dir).expanduser().resolve()
    benchmark: Benchmark = limit_benchmark(
        benchmark_from_config(config["benchmark"], shared), config.get("limit")
    )
    if digest_a and benchmark.examples_sha256() != digest_a:
        raise ValueError(
            f"{name_a} as read now ({benchmark.source or shared}) is not the data the runs "
            f"scored (examples sha256 {benchmark.examples_sha256()[:12]}, the runs' "
            f"{digest_a[:12]}): the file changed since, or a relative benchmark.path now "
            "names another file (run compare from the folder the runs were made in)"
        )
    missing = [e.id for e in benchmark.examples if e.id not in records_a]
    if missing or len(benchmark.examples) != len(records_a):
        raise ValueError(
            f"the runs' {len(records_a)} examples are not the {len(benchmark.examples)} "
            f"examples of {name_a} as loaded from {shared} (e.g. {missing[:1]}); pass the "
            "shared folder the runs used"
        )
    label_a, label_b = _labels(*paths)
    predictions = {
        label_a: [records_a[e.id] for e in benchmark.examples],
        label_b: [records_b[e.id] for e in benchmark.examples],
    }
    result = bootstrap_metrics(
        benchmark,
        predictions,
        families(benchmark),
        samples=samples,
        seed=seed,
        level=level,
        reference=label_a,
    )
    result.update(
        benchmark=name_a, method=method, runs={label_a: str(paths[0]), label_b: str(paths[1])}
    )
    return result
