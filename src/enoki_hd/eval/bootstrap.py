"""Bootstrap intervals for a run's headline metrics: how much of a difference is noise.

The benchmarks here are small (RAGTruth-48 has 48 labelled sentences, MuSHROOM 30 answers),
so a metric moves by a few points when a handful of examples change. :func:`bootstrap_metrics`
resamples the benchmark's **examples** with replacement (all units of an example travel
together, so sentences of one answer are not treated as independent), recomputes each headline
metric on every resample with the definition :func:`enoki_hd.eval.runner.evaluate` uses, and
reports the percentile interval. The same resamples serve every method, so the difference
between the reference method (the detector) and each other method gets its own interval and
``ahead``: the share of resamples in which the reference scores higher (ties count half).

Headline metrics, all higher-is-better (:data:`HEADLINE_METRICS`):

- ``span.iou`` (mean per-example character IoU) and ``span.char_f1`` (character F1 pooled
  over the examples drawn);
- ``sentence.roc_auc`` / ``claim.roc_auc`` over the units of the examples drawn; a resample
  whose units hold one class only, or none, has no ROC-AUC and is left out (counted in
  ``undefined``);
- ``capability.binary_accuracy`` and ``capability.three_way_accuracy``.

Resampling is seeded (``numpy.random.default_rng(seed)``), so a run's intervals are
reproducible to the last digit.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from enoki_hd.eval import metrics as M
from enoki_hd.eval.datasets import Benchmark
from enoki_hd.eval.datasets.capabilities import predicted_label

HEADLINE_METRICS: dict[str, tuple[str, ...]] = {
    "span": ("iou", "char_f1"),
    "sentence": ("roc_auc",),
    "claim": ("roc_auc",),
    "capability": ("binary_accuracy", "three_way_accuracy"),
}
"""Per metric family, the metrics :func:`bootstrap_metrics` puts an interval on."""

DEFAULT_SAMPLES = 1000
DEFAULT_LEVEL = 0.95

Statistic = Callable[[np.ndarray], float | None]
"""Example indices (a resample) → the metric on those examples, None when undefined."""


def _span_statistics(
    benchmark: Benchmark, predictions: Sequence[Mapping[str, Any]]
) -> dict[str, Statistic]:
    examples = benchmark.examples
    preds = [[(s["start"], s["end"]) for s in p["spans"]] for p in predictions]
    golds = [e.gold_spans or [] for e in examples]
    per_iou = np.asarray(M.char_iou(preds, golds)["per_example"], dtype=float)
    counts = np.asarray(
        [
            [c["tp"], c["fp"], c["fn"]]
            for c in (
                M.char_prf([p], [g], [len(e.answer)])
                for p, g, e in zip(preds, golds, examples, strict=True)
            )
        ],
        dtype=np.int64,
    ).reshape(len(examples), 3)

    def iou(draw: np.ndarray) -> float:
        return float(np.mean(per_iou[draw]))

    def char_f1(draw: np.ndarray) -> float:
        tp, fp, fn = (int(v) for v in counts[draw].sum(axis=0))
        return float(M.prf_from_counts(tp, fp, fn)["f1"])

    return {"span.iou": iou, "span.char_f1": char_f1}


def _unit_statistics(
    benchmark: Benchmark, predictions: Sequence[Mapping[str, Any]], family: str
) -> dict[str, Statistic]:
    # imported here: the runner imports this module for run_eval
    from enoki_hd.eval.runner import unit_scores

    scores: list[np.ndarray] = []
    gold: list[np.ndarray] = []
    for example, prediction in zip(benchmark.examples, predictions, strict=True):
        s, g, _, _ = unit_scores([example], [prediction], family)
        scores.append(np.asarray(s, dtype=float))
        gold.append(np.asarray(g, dtype=np.int64))

    def roc_auc(draw: np.ndarray) -> float | None:
        drawn = np.concatenate([gold[i] for i in draw])
        if not drawn.size:  # only examples without a labelled unit (EnokiQA rows without facts)
            return None
        return M.roc_auc(np.concatenate([scores[i] for i in draw]).tolist(), drawn.tolist())

    return {f"{family}.roc_auc": roc_auc}


def _capability_statistics(
    benchmark: Benchmark, predictions: Sequence[Mapping[str, Any]]
) -> dict[str, Statistic]:
    gold = [e.metadata["label"] for e in benchmark.examples]
    predicted = [predicted_label(p) for p in predictions]
    binary = np.asarray(
        [(p == "supported") == (g == "supported") for p, g in zip(predicted, gold, strict=True)],
        dtype=float,
    )
    three_way = np.asarray([p == g for p, g in zip(predicted, gold, strict=True)], dtype=float)

    def binary_accuracy(draw: np.ndarray) -> float:
        return float(np.mean(binary[draw]))

    def three_way_accuracy(draw: np.ndarray) -> float:
        return float(np.mean(three_way[draw]))

    return {
        "capability.binary_accuracy": binary_accuracy,
        "capability.three_way_accuracy": three_way_accuracy,
    }


def headline_statistics(
    benchmark: Benchmark, predictions: Sequence[Mapping[str, Any]], families: Sequence[str]
) -> dict[str, Statistic]:
    """``"<family>.<metric>"`` → its statistic over example indices, for the headline metrics
    of ``families`` (in :data:`HEADLINE_METRICS` order); ``predictions`` aligned with
    ``benchmark.examples``."""
    if len(predictions) != len(benchmark.examples):
        raise ValueError(
            f"got {len(predictions)} predictions for {len(benchmark.examples)} examples"
        )
    out: dict[str, Statistic] = {}
    for family in families:
        if family == "span":
            out.update(_span_statistics(benchmark, predictions))
        elif family in ("sentence", "claim"):
            out.update(_unit_statistics(benchmark, predictions, family))
        elif family == "capability":
            out.update(_capability_statistics(benchmark, predictions))
    return out


def check_options(samples: Any, level: Any) -> None:
    """``samples`` and ``level`` of a bootstrap, each error naming its config key."""
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
        raise ValueError(
            f"bootstrap.samples must be a whole number >= 1 (0 in the config turns the "
            f"bootstrap off), got {samples!r}"
        )
    if isinstance(level, bool) or not isinstance(level, (int, float)) or not 0.0 < level < 1.0:
        raise ValueError(f"bootstrap.level must be between 0 and 1 (e.g. 0.95), got {level!r}")


def _interval(values: np.ndarray, level: float) -> tuple[float | None, float | None]:
    finite = values[np.isfinite(values)]
    if not finite.size:
        return None, None
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(finite, [tail, 1.0 - tail])
    return float(low), float(high)


def bootstrap_metrics(
    benchmark: Benchmark,
    predictions: Mapping[str, Sequence[Mapping[str, Any]]],
    families: Sequence[str],
    *,
    samples: int = DEFAULT_SAMPLES,
    seed: int = 0,
    level: float = DEFAULT_LEVEL,
    reference: str | None = "detector",
) -> dict[str, Any]:
    """Percentile intervals of every method's headline metrics, and of the differences between
    ``reference`` and each other method, over ``samples`` resamples of the examples.

    Args:
        benchmark: the examples the predictions were made on.
        predictions: method name → its prediction records, aligned with the examples.
        families: the metric families of the benchmark (:func:`enoki_hd.eval.runner.families`).
        samples: resamples drawn (each draws ``len(examples)`` examples with replacement).
        seed: the resampling seed.
        level: the interval's coverage (0.95: the 2.5th and 97.5th percentiles).
        reference: the method compared with every other one; None or a method not run: no
            differences.

    Returns:
        ``samples``, ``seed``, ``level``, ``resampled`` (``"examples"``), ``n`` (examples),
        ``reference``; ``methods``: method → metric → ``value`` (on all examples, equal to the
        run's metric), ``low``, ``high``, ``undefined`` (resamples without a value);
        ``differences``: other method → metric → ``value`` (reference minus other), ``low``,
        ``high``, ``ahead``. An undefined value or bound is None.

    Raises:
        ValueError: ``samples`` below 1, ``level`` outside (0, 1), no examples, or predictions
            not aligned with the examples.
    """
    check_options(samples, level)
    n = len(benchmark.examples)
    if n == 0:
        raise ValueError(f"benchmark {benchmark.name} has no examples to resample")
    draws = np.random.default_rng(seed).integers(0, n, size=(samples, n))
    everything = np.arange(n)
    values: dict[str, dict[str, np.ndarray]] = {}
    methods: dict[str, dict[str, dict[str, Any]]] = {}
    for name, records in predictions.items():
        statistics = headline_statistics(benchmark, records, families)
        values[name] = {}
        methods[name] = {}
        for key, statistic in statistics.items():
            resampled = np.asarray(
                [np.nan if (v := statistic(draw)) is None else v for draw in draws], dtype=float
            )
            low, high = _interval(resampled, level)
            values[name][key] = resampled
            methods[name][key] = {
                "value": statistic(everything),
                "low": low,
                "high": high,
                "undefined": int(np.sum(~np.isfinite(resampled))),
            }
    differences: dict[str, dict[str, dict[str, Any]]] = {}
    if reference is not None and reference in values:
        for other in values:
            if other == reference:
                continue
            differences[other] = {}
            for key, ours in values[reference].items():
                delta = ours - values[other][key]
                finite = delta[np.isfinite(delta)]
                mine, theirs = methods[reference][key]["value"], methods[other][key]["value"]
                low, high = _interval(delta, level)
                differences[other][key] = {
                    "value": None if mine is None or theirs is None else mine - theirs,
                    "low": low,
                    "high": high,
                    "ahead": (
                        float(np.mean(finite > 0) + 0.5 * np.mean(finite == 0))
                        if finite.size
                        else None
                    ),
                }
    return {
        "samples": samples,
        "seed": seed,
        "level": level,
        "resampled": "examples",
        "n": n,
        "reference": reference if differences else None,
        "methods": methods,
        "differences": differences,
    }
