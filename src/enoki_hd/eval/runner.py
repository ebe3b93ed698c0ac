"""The evaluation runner: one benchmark, several methods, every metric that applies.

:func:`run_eval` loads the benchmark ``cfg.benchmark.name`` from the shared data folder (or,
with ``benchmark=file``, the user's file ``cfg.benchmark.path`` in the format
``cfg.benchmark.format``), runs each method of ``cfg.methods`` over its examples and writes to
``cfg.paths.output_dir`` (``outputs/eval/<benchmark>/<run_name>/`` by default; a folder that
holds a finished run of other settings is refused, :func:`check_run_folder`, unless
``overwrite=true``):

- ``metrics.json``: metrics per method, the resolved config, the git commit, the manifests of
  the models used and timings; with ``detector.verification=llm | adaptive`` also
  ``escalation``: how many facts went to the judge, why, and what it changed
  (:func:`enoki_hd.verify.routing.escalation_summary`; ``judge=oracle`` gets the gold spans);
- ``predictions.jsonl``: one line per example and method (in benchmark order, then method
  order): predicted spans with scores, sentence and fact verdicts; no timings, so two runs of
  the same config give the same bytes;
- ``report.md``: one table per metric family, one row per method;
- ``thresholds.png``: metric against threshold for the methods whose scores vary.

Methods: ``detector`` (the configured pipeline; its spans are ``report.spans`` when it
produces spans below sentence level, else the flagged sentences), ``sentence_nli`` (the
decomposition-free sentence-level detector on the same verifier) and the baselines of
:mod:`enoki_hd.eval.baselines` (``lexical_absent``, ``lexical_phrases``, ``mark_all``, ``mark_none``).

Metric families, chosen by the gold labels the examples carry:

- span (``gold_spans``): span coverage F1 micro / macro at δ = 0…5 characters, character
  P / R / F1, mean character IoU, example-level P / R / F1, and Spearman correlation with
  ``soft_labels`` where present; with several references (PsiloQA annotators) the same
  metrics against each reference and their mean;
- sentence / claim (``sentence_labels`` / ``claim_labels``): macro-F1 at the detector
  threshold, ROC-AUC, PR-AUC and the best threshold on this set; for WiCE-style claims
  (supported / partially_supported / not_supported) also 3-way accuracy;
- entity (``entity_labels``): pooled and per-sample AUROC / AUPRC.

Verifier-backed predictions are cached under ``<paths.cache_dir>/eval/`` (one JSON file per
example and method, keyed by the sha256 of method, model, method config, the enoki_hd source
code and the example's answer / context / question, written atomically as each example
finishes), so a rerun with the same code and config reuses them and an interrupted run resumes
where it stopped.

The runner is this module (loading, running, scoring, writing); the methods live in
:mod:`.methods`, the prediction cache in :mod:`.cache` and the rendering of ``report.md``,
``thresholds.png`` and ``summary.md`` in :mod:`.rendering`.
"""

from __future__ import annotations

import copy
import json
import logging
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn, cast

from tqdm.auto import tqdm

from enoki_hd import __version__
from enoki_hd.eval import metrics as M
from enoki_hd.eval.bootstrap import bootstrap_metrics, check_options
from enoki_hd.eval.cache import PredictionCache
from enoki_hd.eval.checkworthiness import checkworthiness_metrics
from enoki_hd.eval.datasets import (
    BENCHMARKS,
    Benchmark,
    BenchmarkConfigError,
    DatasetError,
    EvalExample,
    benchmark_from_config,
    check_benchmark_config,
    load_benchmark,
)
from enoki_hd.eval.datasets.capabilities import capability_metrics
from enoki_hd.eval.datasets.markdown_suite import markdown_metrics
from enoki_hd.eval.datasets.rows import is_int
from enoki_hd.eval.files import atomic_write, read_run_metrics, to_json
from enoki_hd.eval.methods import (
    DEFAULT_METHODS,
    METHOD_NAMES,
    DetectorMethod,
    Method,
    build_methods,
    prediction_from_report,
)
from enoki_hd.eval.rendering import (
    plot_thresholds,
    render_checkworthiness,
    render_report,
    render_summary,
)
from enoki_hd.types import Span
from enoki_hd.verify.evidence import require_bool
from enoki_hd.verify.routing import (
    attach_gold,
    escalation_summary,
    reads_gold_labels,
    render_escalation,
)

logger = logging.getLogger(__name__)

__all__ = [
    "DEFAULT_METHODS",
    "DetectorMethod",
    "PredictionCache",
    "compose_eval_config",
    "evaluate",
    "prediction_from_report",
    "run_eval",
    "run_eval_all",
]

SWEEP_THRESHOLDS = tuple(round(0.05 * i, 2) for i in range(21))
WICE_LABELS = ("supported", "partially_supported", "not_supported")
REPO_ROOT = Path(__file__).resolve().parents[3]
# The benchmark config that reads a user's own file (configs/benchmark/file.yaml).
FILE_BENCHMARK = "file"


# ---------------------------------------------------------------------------------------------
# Run folder helpers
# ---------------------------------------------------------------------------------------------


def _git_state(root: Path) -> dict[str, Any]:
    """Commit of the working tree at ``root`` and whether it has uncommitted changes; both
    None unless ``root`` is the top of a working tree (an installed package's ``root`` lies in
    a venv, which may sit inside the user's own repository: its commit is not enoki-hd's)."""

    def git(*args: str) -> str | None:
        try:
            return subprocess.run(
                ["git", *args], cwd=root, capture_output=True, text=True, check=True, timeout=30
            ).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return None

    top = git("rev-parse", "--show-toplevel")
    if top is None or Path(top).resolve() != root.resolve():
        return {"commit": None, "dirty": None}
    commit = git("rev-parse", "HEAD")
    status = git("status", "--porcelain", "--untracked-files=no")
    return {"commit": commit, "dirty": None if status is None else bool(status)}


def _plain_config(cfg: Mapping[str, Any]) -> dict[str, Any]:
    """A resolved plain-dict copy of ``cfg`` (a Hydra ``DictConfig`` or any mapping)."""
    try:
        from omegaconf import DictConfig, OmegaConf
    except ImportError:  # omegaconf comes with the eval extra; plain mappings need none
        return copy.deepcopy(dict(cfg))
    if isinstance(cfg, DictConfig):
        # a DictConfig always converts to a dict; to_container is typed for any node
        return cast(dict[str, Any], OmegaConf.to_container(cfg, resolve=True))
    return copy.deepcopy(dict(cfg))


def run_methods(
    methods: Sequence[Method],
    examples: Sequence[EvalExample],
    cache: PredictionCache,
    *,
    progress: bool = True,
    desc: str = "eval",
) -> tuple[dict[str, list[dict[str, Any]]], dict[str, dict[str, float | int | None]]]:
    """Every method on every example, example by example (so a sentence-level detector and
    ``sentence_nli`` share the verifier's pair cache). Verifier-backed methods go through the
    cache; baselines are cheap and always recomputed.

    Returns predictions per method (aligned with ``examples``) and timings per method.
    """
    predictions: dict[str, list[dict[str, Any]]] = {m.name: [] for m in methods}
    totals: dict[str, dict[str, float | int]] = {
        m.name: {"seconds": 0.0, "computed": 0, "cached": 0} for m in methods
    }
    method_keys = {m.name: PredictionCache.method_key(m) for m in methods}
    # an oracle judge answers from the gold: its predictions are keyed on the gold too
    reads_gold = {m.name: reads_gold_labels(getattr(m, "detector", None)) for m in methods}
    for example in tqdm(examples, desc=desc, unit="example", disable=not progress):
        for method in methods:
            key = PredictionCache.key(
                method_keys[method.name], example, gold=reads_gold[method.name]
            )
            prediction = cache.get(method, key) if method.uses_verifier else None
            if prediction is not None:
                totals[method.name]["cached"] += 1
            else:
                started = time.perf_counter()
                prediction = method.predict(
                    answer=example.answer, context=example.context, question=example.question
                )
                totals[method.name]["seconds"] += time.perf_counter() - started
                totals[method.name]["computed"] += 1
                if method.uses_verifier:
                    cache.put(method, key, prediction)
            predictions[method.name].append(prediction)
    timings: dict[str, dict[str, float | int | None]] = {}
    for name, row in totals.items():
        seconds = round(float(row["seconds"]), 3)
        per_example = round(seconds / row["computed"], 4) if row["computed"] else None
        timings[name] = {**row, "seconds": seconds, "per_example": per_example}
    return predictions, timings


# ---------------------------------------------------------------------------------------------
# Metrics
# ---------------------------------------------------------------------------------------------


def _pred_spans(prediction: Mapping[str, Any]) -> list[tuple[int, int]]:
    return [(s["start"], s["end"]) for s in prediction["spans"]]


def _candidates(prediction: Mapping[str, Any]) -> list[tuple[int, int, float]]:
    """Scored spans a threshold selects from: every sentence for a sentence projection,
    else the predicted spans."""
    rows = prediction["sentences"] if prediction["level"] == "sentence" else prediction["spans"]
    return [(r["start"], r["end"], float(r["score"])) for r in rows]


def span_metrics(
    preds: Sequence[Sequence[tuple[int, int]]],
    golds: Sequence[Sequence[Span]],
    lengths: Sequence[int],
    *,
    deltas: Iterable[int] = range(6),
) -> dict[str, Any]:
    """Span-level metrics of one method against one reference (see the module docstring)."""
    coverage = M.coverage_f1_sweep(preds, golds, deltas)
    return {
        "coverage": {str(d): values for d, values in coverage.items()},
        "char": M.char_prf(preds, golds, lengths),
        "iou": M.char_iou(preds, golds)["iou"],
        "example": M.example_prf([bool(p) for p in preds], [bool(g) for g in golds]),
    }


def _mean_of(dicts: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Leaf-wise mean of same-shaped nested dicts of numbers (non-numbers are dropped)."""
    out: dict[str, Any] = {}
    for key, first in dicts[0].items():
        values = [d[key] for d in dicts]
        if isinstance(first, Mapping):
            out[key] = _mean_of(values)
        elif isinstance(first, (int, float)) and not isinstance(first, bool):
            out[key] = sum(float(v) for v in values) / len(values)
    return out


def _overlapping_max(rows: Sequence[Mapping[str, Any]], span: Span) -> float | None:
    """Highest score among ``rows`` overlapping ``span``; None when none overlaps."""
    return max(
        (float(r["score"]) for r in rows if r["start"] < span.end and span.start < r["end"]),
        default=None,
    )


def sentence_unit_score(answer: str, prediction: Mapping[str, Any], span: Span) -> float | None:
    """Score of the gold sentence at ``span``: the highest score of the predicted sentences
    overlapping it. A unit that lies outside every predicted sentence (a list marker such as
    ``"3."``, which gold sets split off as a sentence and the segmenter attaches to nothing)
    takes the score of the predicted sentence that follows it after whitespace only; None when
    there is none (the caller scores it 0.0)."""
    rows = prediction["sentences"]
    score = _overlapping_max(rows, span)
    if score is not None:
        return score
    following = [r for r in rows if r["start"] >= span.end]
    if following:
        nearest = min(following, key=lambda r: r["start"])
        if not answer[span.end : nearest["start"]].strip():
            return float(nearest["score"])
    return None


def fact_unit_score(prediction: Mapping[str, Any], span: Span) -> float:
    """Score of the gold fact at ``span`` (half-open offsets into the answer): the highest
    score of the candidates a threshold selects from (:func:`_candidates`: the predicted
    sentences of a sentence projection, else the predicted spans) that overlap it; 0.0 when
    none does, as the method flagged no character of the fact.

    Why these: they are what the span metrics and the threshold sweep read, so a fact is
    scored by what the method said about its own characters, where the answer's score blamed
    every fact of an answer for its worst one. A sentence-level method cannot tell two facts of
    one sentence apart, so both take that sentence's score."""
    return max(
        (
            score
            for start, end, score in _candidates(prediction)
            if start < span.end and span.start < end
        ),
        default=0.0,
    )


def unit_scores(
    examples: Sequence[EvalExample], predictions: Sequence[Mapping[str, Any]], kind: str
) -> tuple[list[float], list[int], list[str], dict[str, int]]:
    """Scores, gold labels (1 = hallucinated), raw gold labels and caveat counts of every
    labelled unit.

    A sentence unit scores :func:`sentence_unit_score` (0.0 when no predicted sentence can be
    tied to it, counted in ``unmatched``; the answer's score when the gold sentence could not
    be located in the answer, counted in ``unlocated``). A claim unit is a whole answer (claim
    sets have one claim per example) and scores the answer's score, except a fact of an answer
    labelled fact by fact (EnokiQA, its spans in ``metadata["fact_spans"]``), which scores
    :func:`fact_unit_score`, or the answer's score when its span is not known (counted in
    ``unlocated``).
    """
    scores: list[float] = []
    gold: list[int] = []
    raw: list[str] = []
    caveats = {"unlocated": 0, "unmatched": 0}
    for example, prediction in zip(examples, predictions, strict=True):
        if kind == "sentence":
            for label in example.sentence_labels or []:
                if label.span is None:
                    score: float | None = float(prediction["score"])
                    caveats["unlocated"] += 1
                else:
                    score = sentence_unit_score(example.answer, prediction, label.span)
                    if score is None:
                        caveats["unmatched"] += 1
                scores.append(0.0 if score is None else score)
                gold.append(int(label.hallucinated))
                raw.append(str(label.hallucinated))
        elif kind == "claim":
            fact_spans = example.metadata.get("fact_spans")
            for index, claim in enumerate(example.claim_labels or []):
                if fact_spans is None:
                    scores.append(float(prediction["score"]))
                elif fact_spans[index] is None:
                    scores.append(float(prediction["score"]))
                    caveats["unlocated"] += 1
                else:
                    scores.append(fact_unit_score(prediction, Span.from_dict(fact_spans[index])))
                gold.append(int(claim.hallucinated))
                raw.append(claim.label)
        else:
            raise ValueError(f"kind must be 'sentence' or 'claim', got {kind!r}")
    return scores, gold, raw, caveats


def classification_metrics(
    scores: Sequence[float], gold: Sequence[int], *, threshold: float
) -> dict[str, Any]:
    """:func:`~enoki_hd.eval.metrics.binary_classification` plus the best threshold on this
    very set (``best_threshold`` / ``best_macro_f1``: optimistic, for reference only)."""
    result: dict[str, Any] = dict(M.binary_classification(scores, gold, threshold=threshold))
    best, value = M.best_threshold(scores, gold, "macro_f1")
    result["best_threshold"] = best
    result["best_macro_f1"] = value
    return result


def three_way_label(prediction: Mapping[str, Any]) -> str:
    """WiCE-style label of a prediction: its checked units (unsuppressed facts if it has facts,
    else sentences) all supported → ``supported``, none → ``not_supported``, else
    ``partially_supported``. Nothing checked counts as ``supported`` (nothing was flagged)."""
    facts = [f for f in prediction["facts"] if not f.get("suppressed")]
    units = facts or [s for s in prediction["sentences"] if s["label"] != "not_a_claim"]
    supported = sum(u["label"] == "supported" for u in units)
    if supported == len(units):
        return "supported"
    return "not_supported" if supported == 0 else "partially_supported"


def three_way_metrics(predicted: Sequence[str], gold: Sequence[str]) -> dict[str, Any]:
    """Accuracy, macro-F1 over the three WiCE labels and the confusion counts (gold → pred)."""
    confusion = {g: dict.fromkeys(WICE_LABELS, 0) for g in WICE_LABELS}
    for p, g in zip(predicted, gold, strict=True):
        confusion[g][p] += 1
    f1s = []
    for label in WICE_LABELS:
        tp = confusion[label][label]
        fp = sum(confusion[g][label] for g in WICE_LABELS) - tp
        fn = sum(confusion[label].values()) - tp
        f1s.append(2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0)
    correct = sum(confusion[label][label] for label in WICE_LABELS)
    return {
        "accuracy": correct / len(gold),
        "macro_f1": sum(f1s) / len(f1s),
        "confusion": confusion,
        "n": len(gold),
    }


def entity_scores(
    examples: Sequence[EvalExample], predictions: Sequence[Mapping[str, Any]]
) -> tuple[list[list[float]], list[list[int]], int]:
    """Per-sample entity scores (highest predicted span score over the entity) and labels;
    entities that could not be located are left out and counted."""
    scores: list[list[float]] = []
    labels: list[list[int]] = []
    unlocated = 0
    for example, prediction in zip(examples, predictions, strict=True):
        sample_scores: list[float] = []
        sample_labels: list[int] = []
        for entity in example.entity_labels or []:
            if entity.span is None:
                unlocated += 1
                continue
            sample_scores.append(_overlapping_max(prediction["spans"], entity.span) or 0.0)
            sample_labels.append(int(entity.hallucinated))
        scores.append(sample_scores)
        labels.append(sample_labels)
    return scores, labels, unlocated


def families(benchmark: Benchmark) -> list[str]:
    """The metric families the benchmark's gold labels allow, in report order."""
    examples = benchmark.examples
    found = []
    if examples and all(e.gold_spans is not None for e in examples):
        found.append("span")
    if any(e.sentence_labels for e in examples):
        found.append("sentence")
    if any(e.claim_labels for e in examples):
        found.append("claim")
    if any(e.entity_labels for e in examples):
        found.append("entity")
    if examples and all("category" in e.metadata and e.claim_labels for e in examples):
        found.append("capability")
    if examples and all(e.metadata.get("markdown_suite") for e in examples):
        found.append("markdown")
    return found


def evaluate(
    benchmark: Benchmark,
    predictions: Sequence[Mapping[str, Any]],
    *,
    threshold: float = 0.5,
    deltas: Iterable[int] = range(6),
) -> dict[str, Any]:
    """Every metric that applies to ``benchmark``, for one method's ``predictions`` (aligned
    with ``benchmark.examples``)."""
    examples = benchmark.examples
    deltas = list(deltas)
    result: dict[str, Any] = {}
    for family in families(benchmark):
        if family == "span":
            preds = [_pred_spans(p) for p in predictions]
            lengths = [len(e.answer) for e in examples]
            span = span_metrics(
                preds, [e.gold_spans or [] for e in examples], lengths, deltas=deltas
            )
            soft = [
                (i, e.answer, e.soft_labels)
                for i, e in enumerate(examples)
                if e.soft_labels is not None
            ]
            if soft:
                span["soft_spearman"] = M.soft_spearman(
                    [
                        M.span_scores_to_char_scores(
                            [(s["start"], s["end"], s["score"]) for s in predictions[i]["spans"]],
                            len(answer),
                        )
                        for i, answer, _ in soft
                    ],
                    [labels for _, _, labels in soft],
                    [len(answer) for _, answer, _ in soft],
                )
                span["soft_spearman_n"] = len(soft)
            if benchmark.references:
                per_reference = {
                    name: span_metrics(preds, refs, lengths, deltas=deltas)
                    for name, refs in benchmark.references.items()
                }
                span["references"] = {
                    "mean": _mean_of(list(per_reference.values())),
                    "names": list(per_reference),
                    "per_reference": per_reference,
                }
            result["span"] = span
        elif family in ("sentence", "claim"):
            scores, gold, raw, caveats = unit_scores(examples, predictions, family)
            unit = classification_metrics(scores, gold, threshold=threshold)
            # a claim unit is never unmatched: a fact no candidate overlaps was not flagged
            unit.update(caveats if family == "sentence" else {"unlocated": caveats["unlocated"]})
            if family == "claim" and raw and set(raw) <= set(WICE_LABELS):
                predicted = [
                    three_way_label(p)
                    for e, p in zip(examples, predictions, strict=True)
                    for _ in e.claim_labels or []
                ]
                unit["three_way"] = three_way_metrics(predicted, raw)
            result[family] = unit
        elif family == "capability":
            result["capability"] = capability_metrics(examples, predictions)
        elif family == "markdown":
            result["markdown"] = markdown_metrics(examples, predictions)
        elif family == "entity":
            scores_per_sample, labels_per_sample, unlocated = entity_scores(examples, predictions)
            entity = dict(M.entity_auc(scores_per_sample, labels_per_sample))
            entity["unlocated"] = unlocated
            result["entity"] = entity
    return result


class EvalSetupError(ValueError):
    """A run that cannot start: a malformed benchmark file, no examples, a wrong ``limit``,
    ``methods``, ``deltas``, switch or ``bootstrap`` setting, or a run folder that holds a run
    with other settings; the message says which (raised before any method runs)."""


def _bootstrap_settings(options: Mapping[str, Any] | None) -> tuple[int, int, float] | None:
    """``(samples, seed, level)`` of the config's ``bootstrap`` group, checked; None when
    ``samples`` is 0 or the group is absent."""
    options = dict(options or {})
    unknown = sorted(set(options) - {"samples", "seed", "level"})
    if unknown:
        raise ValueError(
            f"bootstrap: unknown option(s) {unknown}; the options are samples, seed and level"
        )
    samples = options.get("samples", 0)
    if samples == 0:
        return None
    seed = options.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"bootstrap.seed must be a whole number, got {seed!r}")
    level = options.get("level", 0.95)
    check_options(samples, level)
    return samples, seed, float(level)


def _bootstrap(
    benchmark: Benchmark,
    predictions: Mapping[str, Sequence[Mapping[str, Any]]],
    options: Mapping[str, Any] | None,
) -> dict[str, Any] | None:
    """:func:`~enoki_hd.eval.bootstrap.bootstrap_metrics` as the config's ``bootstrap`` group
    asks (``samples``, ``seed``, ``level``); None when ``samples`` is 0 or the group is absent."""
    settings = _bootstrap_settings(options)
    if settings is None:
        return None
    samples, seed, level = settings
    return bootstrap_metrics(
        benchmark,
        predictions,
        families(benchmark),
        samples=samples,
        seed=seed,
        level=level,
    )


def threshold_sweep(
    benchmark: Benchmark,
    predictions: Mapping[str, Sequence[Mapping[str, Any]]],
    thresholds: Sequence[float] = SWEEP_THRESHOLDS,
    *,
    run_threshold: float = 0.0,
) -> dict[str, Any]:
    """Metric against threshold for every method whose scores vary over the set.

    Span sets: character F1 and mean IoU of the scored spans with score >= t (a sentence
    projection re-selects its sentences at each t). A method's spans are those its run kept,
    at or above ``run_threshold``: below it the values are None (not measured — a rerun at that
    threshold is), not the flat line the kept spans would draw. Sentence / claim sets: macro-F1
    and F1 of the hallucinated class on the unit scores (every unit is scored at any t).
    """
    kinds = families(benchmark)
    examples = benchmark.examples
    sweep: dict[str, Any] = {"thresholds": list(thresholds), "family": None, "methods": {}}
    if "span" in kinds:
        sweep["family"] = "span"
        golds = [e.gold_spans or [] for e in examples]
        lengths = [len(e.answer) for e in examples]
        for name, preds in predictions.items():
            candidates = [_candidates(p) for p in preds]
            if len({c[2] for per in candidates for c in per}) < 2:
                continue
            cut = any(p["level"] != "sentence" for p in preds)  # spans kept by the run
            f1s: list[float | None] = []
            ious: list[float | None] = []
            for t in thresholds:
                if cut and t < run_threshold:
                    f1s.append(None)
                    ious.append(None)
                    continue
                kept = [[(a, b) for a, b, s in per if s >= t] for per in candidates]
                f1s.append(M.char_prf(kept, golds, lengths)["f1"])
                ious.append(M.char_iou(kept, golds)["iou"])
            sweep["methods"][name] = {"char_f1": f1s, "iou": ious}
        return sweep
    for kind in ("sentence", "claim"):
        if kind not in kinds:
            continue
        sweep["family"] = kind
        for name, preds in predictions.items():
            scores, gold, _, _ = unit_scores(examples, preds, kind)
            if len(set(scores)) < 2:
                continue
            rows = [M.binary_classification(scores, gold, threshold=t) for t in thresholds]
            sweep["methods"][name] = {
                "macro_f1": [r["macro_f1"] for r in rows],
                "f1_pos": [r["f1_pos"] for r in rows],
            }
        break
    return sweep


# ---------------------------------------------------------------------------------------------
# Settings and the run folder, checked before any method runs
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RunSettings:
    """The top-level options of an eval config, checked (:func:`run_settings`)."""

    methods: list[str]
    limit: int | None
    deltas: list[int]
    threshold: float
    cache: bool
    progress: bool
    overwrite: bool


def _switch(plain: Mapping[str, Any], key: str, default: bool) -> bool:
    value = plain.get(key, default)
    try:
        require_bool(value, key)
    except TypeError as err:
        raise ValueError(f"{err}: write {key}=true or {key}=false") from err
    return bool(value)


def run_settings(plain: Mapping[str, Any]) -> RunSettings:
    """``methods``, ``limit``, ``deltas``, ``detector.threshold``, ``cache``, ``progress`` and
    ``overwrite`` of a resolved eval config, checked; each ValueError names the key and what to
    write instead. ``methods`` may be one name (``methods=detector``); absent, it is
    :data:`DEFAULT_METHODS`."""
    methods = plain.get("methods", DEFAULT_METHODS)
    if methods is None:
        methods = DEFAULT_METHODS
    if isinstance(methods, str):
        methods = [methods]
    if not methods:
        raise ValueError(
            "methods is empty: name at least one, e.g. methods=[detector,lexical_absent] "
            f"(known: {', '.join(METHOD_NAMES)})"
        )
    limit = plain.get("limit")
    if limit is not None and (not is_int(limit) or limit < 1):
        raise ValueError(f"limit must be a whole number >= 1 or null, got {limit!r} (e.g. limit=5)")
    deltas = plain.get("deltas", list(range(6)))
    if (
        isinstance(deltas, (str, bytes))
        or not isinstance(deltas, Sequence)
        or not deltas
        or not all(is_int(d) and d >= 0 for d in deltas)
    ):
        raise ValueError(
            "deltas must be a list of whole numbers of characters >= 0, got "
            f"{deltas!r} (e.g. deltas=[0,5])"
        )
    threshold = (plain.get("detector") or {}).get("threshold", 0.5)
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
        raise ValueError(
            f"detector.threshold must be a number, got {threshold!r} (e.g. detector.threshold=0.5)"
        )
    # the baselines' metrics read it too, so it is checked without a detector among methods
    if not 0.0 <= threshold <= 1.0:
        raise ValueError(f"detector.threshold must be in [0, 1], got {float(threshold)}")
    return RunSettings(
        methods=[str(m) for m in methods],
        limit=limit,
        deltas=list(deltas),
        threshold=float(threshold),
        cache=_switch(plain, "cache", True),
        progress=_switch(plain, "progress", True),
        overwrite=_switch(plain, "overwrite", False),
    )


# Top-level config keys that do not change what a run computes: its name, its folders, how it
# reports progress, whether it reuses cached predictions and whether it may replace a run.
_SETTINGS_WITHOUT_EFFECT = frozenset({"run_name", "paths", "progress", "cache", "overwrite"})


def _result_settings(plain: Mapping[str, Any]) -> dict[str, Any]:
    """The config flattened to dotted keys, less what does not change the results; the data
    files' paths (``benchmark.path``, ``benchmark.sources``, ``benchmark.contexts``) too: the
    data are compared by their sha256, so the same file named by another path is the same
    run."""
    flat: dict[str, Any] = {}

    def walk(node: Mapping[str, Any], prefix: str) -> None:
        for key, value in node.items():
            if isinstance(value, Mapping):
                walk(value, f"{prefix}{key}.")
            else:
                flat[f"{prefix}{key}"] = value

    walk({k: v for k, v in plain.items() if k not in _SETTINGS_WITHOUT_EFFECT}, "")
    for key in ("benchmark.path", "benchmark.sources", "benchmark.contexts"):
        flat.pop(key, None)
    return flat


def _shown(key: str, value: Any) -> str:
    if key == "benchmark.examples_sha256" and isinstance(value, str):
        return value[:12]
    text = to_json(value)
    return text if len(text) <= 40 else text[:37] + "..."


def check_run_folder(output_dir: Path, plain: Mapping[str, Any], examples_sha256: str) -> None:
    """Refuse to write a run into ``output_dir`` when it holds a finished run (its
    ``metrics.json``) made with settings that change the results: another benchmark or data,
    ``limit``, ``methods``, ``deltas``, ``bootstrap``, or a detector, extractor, verifier or
    judge option. The name, folders, ``progress`` and ``cache`` do not count, nor keys that only
    one of the two configs has (an option added to the config since). A folder without
    ``metrics.json`` (nothing run yet, or a run interrupted before its end) is never refused:
    rerunning the same command resumes from the prediction cache.

    Raises:
        ValueError: one line naming the folder, the first differing keys with both values,
            and the fix (another ``run_name=``, or ``overwrite=true``).
    """
    metrics_file = output_dir / "metrics.json"
    if not metrics_file.is_file():
        return
    fix = "give this run another run_name=NAME, or overwrite=true to replace that run"
    try:
        recorded = read_run_metrics(metrics_file)
    except ValueError as err:
        raise ValueError(f"{err}; {fix}") from err
    before = _result_settings(recorded["config"])
    # through JSON, as the recorded config was: a tuple compares equal to its list
    now = json.loads(to_json(_result_settings(plain)))
    if recorded["benchmark"].get("examples_sha256"):  # older runs did not record it
        before["benchmark.examples_sha256"] = recorded["benchmark"]["examples_sha256"]
        now["benchmark.examples_sha256"] = examples_sha256
    differing = [key for key in now if key in before and before[key] != now[key]]
    if not differing:
        return
    shown = ", ".join(f"{k} {_shown(k, before[k])} → {_shown(k, now[k])}" for k in differing[:3])
    more = f" and {len(differing) - 3} more" if len(differing) > 3 else ""
    raise ValueError(
        f"{output_dir} holds a finished run with other settings ({shown}{more}); {fix}"
    )


# ---------------------------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------------------------


# why a loader left rows out (Benchmark.dropped) and the key that keeps them
_DROPPED_BECAUSE = {
    "other_split": (
        "rows of another split than benchmark.split={split}",
        "change or remove benchmark.split",
    ),
    "other_lang": (
        "rows of another language than benchmark.lang={lang}",
        "change or remove benchmark.lang",
    ),
    "label_na": (
        "sentences labelled NA",
        "benchmark.level=claim reads the claims' labels instead",
    ),
    "label_unknown": (
        "claims labelled unknown or NA",
        "benchmark.level=sentence reads the sentences' labels instead",
    ),
}


def _no_examples(name: str, dropped: Mapping[str, int], config: Mapping[str, Any]) -> str:
    """Why benchmark ``name`` has no example left: the rows its loader dropped, by reason,
    with the key that keeps them."""
    if not any(dropped.values()):
        return f"benchmark {name} has no examples to evaluate (is the file empty?)"
    reasons = []
    for reason, count in dropped.items():
        if reason not in _DROPPED_BECAUSE:
            reasons.append(f"{count} {reason}")
            continue
        what, fix = _DROPPED_BECAUSE[reason]
        what = what.format(split=config.get("split"), lang=config.get("lang"))
        reasons.append(f"{count} {what} ({fix})")
    return (
        f"benchmark {name} has no examples to evaluate, the loader dropped them all: "
        + "; ".join(reasons)
    )


def limit_benchmark(benchmark: Benchmark, limit: int | None) -> Benchmark:
    if limit is None or limit >= len(benchmark):
        return benchmark
    if limit < 1:
        raise ValueError(f"limit must be >= 1 or null, got {limit}")
    references = (
        None
        if benchmark.references is None
        else {k: v[:limit] for k, v in benchmark.references.items()}
    )
    return Benchmark(
        benchmark.name,
        benchmark.level,
        benchmark.examples[:limit],
        references=references,
        dropped=benchmark.dropped,
        flagged=benchmark.flagged,
        source=benchmark.source,
        checkworthiness=_units_of(benchmark.checkworthiness, benchmark.examples[:limit]),
    )


def _units_of(
    units: list[dict[str, Any]] | None, examples: Sequence[EvalExample]
) -> list[dict[str, Any]] | None:
    """The check-worthiness units of the sentences ``examples`` come from (their claims
    included), so that a limited run scores the selection stage on what it evaluates. Unit
    and example ids both begin ``{row}/{sentence key}`` (see
    :func:`enoki_hd.eval.datasets.factcheck.load_factcheck`)."""
    if units is None:
        return None
    sentences = {tuple(e.id.split("/")[:2]) for e in examples}
    return [unit for unit in units if tuple(str(unit["id"]).split("/")[:2]) in sentences]


def run_eval(
    cfg: Mapping[str, Any],
    *,
    detector: Any | None = None,
    benchmark: Benchmark | None = None,
    command: str | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Evaluate ``cfg.methods`` on ``cfg.benchmark`` and write the run folder.

    Args:
        cfg: a resolved eval config (Hydra ``DictConfig`` or plain mapping; see
            ``configs/eval.yaml``).
        detector: replaces the configured detector (and the verifier ``sentence_nli`` uses).
        benchmark: an already loaded benchmark, instead of the one ``cfg.benchmark`` names.
        command: the command line recorded in the report.

    Returns:
        ``(metrics, objects)``: the content of ``metrics.json``, and the benchmark,
        predictions, methods, output paths and cache counts.
    """
    started = time.perf_counter()
    plain = _plain_config(cfg)
    paths = plain["paths"]
    name = plain["benchmark"]["name"]
    output_dir = Path(paths["output_dir"])
    shared_dir = Path(paths["shared_dir"]).expanduser().resolve()

    mark = time.perf_counter()
    # everything a wrong setting or a malformed file breaks is checked before any method runs;
    # such an error is an EvalSetupError, which the command lines print as one line
    try:
        settings = run_settings(plain)
        _bootstrap_settings(plain.get("bootstrap"))
        if benchmark is None:
            full = benchmark_from_config(plain["benchmark"], shared_dir)
        else:
            check_benchmark_config(plain["benchmark"])
            full = benchmark
        expected_level = plain["benchmark"].get("level")
        if expected_level and expected_level != full.level:
            logger.warning(
                "config says %s is %s level, the loader says %s", name, expected_level, full.level
            )
        bench = limit_benchmark(full, settings.limit)
        if not bench.examples:
            raise ValueError(_no_examples(name, full.dropped, plain["benchmark"]))
        # a caller's own detector is not described by the config, so the config cannot tell
        # whether it is the run the folder holds; such a caller owns its folders
        if detector is None and not settings.overwrite:
            check_run_folder(output_dir, plain, bench.examples_sha256())
        names = settings.methods
        methods, models = build_methods(names, plain, detector)
    except BenchmarkConfigError:
        raise
    except DatasetError as err:
        hint = ""
        if plain["benchmark"].get("format") and "is missing" in str(err):
            hint = (
                f" (is benchmark.format={plain['benchmark']['format']} the format of this "
                "file? the formats are listed in configs/benchmark/file.yaml)"
            )
        raise EvalSetupError(f"{err}{hint}") from err
    except ValueError as err:
        raise EvalSetupError(str(err)) from err
    load_seconds = time.perf_counter() - mark
    for method in methods:
        if attach_gold(getattr(method, "detector", None), bench.examples):
            logger.warning(
                "judge=oracle: escalated facts are judged from the gold labels; this measures "
                "what routing can reach, it is not a detector"
            )
    use_cache = settings.cache
    cache = PredictionCache(Path(paths["cache_dir"]) / "eval" if use_cache else None)
    logger.info("evaluating %s on %d examples of %s", ", ".join(names), len(bench), name)
    predictions, method_timings = run_methods(
        methods, bench.examples, cache, progress=settings.progress, desc=name
    )

    mark = time.perf_counter()
    threshold = settings.threshold
    deltas = settings.deltas
    per_method = {
        n: evaluate(bench, predictions[n], threshold=threshold, deltas=deltas) for n in names
    }
    sweep = threshold_sweep(bench, predictions, run_threshold=threshold)
    bootstrap = _bootstrap(bench, predictions, plain.get("bootstrap"))
    escalation = escalation_summary(predictions["detector"]) if "detector" in predictions else None
    detector_cfg = plain.get("detector") or {}
    checkworthiness = (
        checkworthiness_metrics(
            bench.checkworthiness, backend=str(detector_cfg.get("sentence_backend", "spacy"))
        )
        if bench.checkworthiness and detector_cfg.get("selection", "rules") != "none"
        else None
    )
    metric_seconds = time.perf_counter() - mark

    gold_reference = bench.examples[0].metadata.get("gold_annotator") if bench.references else None
    metrics: dict[str, Any] = {
        "benchmark": {
            "name": bench.name,
            "level": bench.level,
            "families": families(bench),
            "n_examples": len(bench),
            "n_total": len(full),
            "dropped": dict(full.dropped),
            "flagged": dict(full.flagged),
            "source": full.source,
            "gold_reference": gold_reference,
            "examples_sha256": bench.examples_sha256(),
        },
        "methods": per_method,
        "threshold_sweep": sweep,
        "config": plain,
        "command": command or f"make eval BENCH={name}",
        "git": _git_state(REPO_ROOT),
        "enoki_hd_version": __version__,
        "models": models,
        "cache": {"hits": cache.hits, "misses": cache.misses, "enabled": use_cache},
        "timings": {
            "load": round(load_seconds, 3),
            "methods": method_timings,
            "metrics": round(metric_seconds, 3),
        },
    }

    output_dir.mkdir(parents=True, exist_ok=True)
    lines = []
    for i, example in enumerate(bench.examples):
        for method_name in names:
            lines.append(
                to_json({"id": example.id, "method": method_name, **predictions[method_name][i]})
            )
    atomic_write(output_dir / "predictions.jsonl", "\n".join(lines) + "\n")
    plot_thresholds(
        sweep,
        output_dir / "thresholds.png",
        threshold=threshold,
        title=f"{bench.name}: {sweep['family'] or 'no'}-level metric vs threshold",
    )
    metrics["timings"]["total"] = round(time.perf_counter() - started, 3)
    if bootstrap is not None:
        metrics["bootstrap"] = bootstrap
    if escalation is not None:
        metrics["escalation"] = escalation
    if checkworthiness is not None:
        metrics["checkworthiness"] = checkworthiness
    report = render_report(metrics) + ("" if escalation is None else render_escalation(escalation))
    if checkworthiness is not None:
        report += render_checkworthiness(checkworthiness)
    atomic_write(output_dir / "report.md", report)
    atomic_write(output_dir / "metrics.json", to_json(metrics, indent=2) + "\n")
    logger.info("wrote %s (%.1f s)", output_dir, metrics["timings"]["total"])
    objects = {
        "benchmark": bench,
        "predictions": predictions,
        "methods": methods,
        "output_dir": output_dir,
        "files": {
            key: output_dir / f
            for key, f in (
                ("metrics", "metrics.json"),
                ("predictions", "predictions.jsonl"),
                ("report", "report.md"),
                ("thresholds", "thresholds.png"),
            )
        },
        "cache": {"hits": cache.hits, "misses": cache.misses},
    }
    return metrics, objects


# ---------------------------------------------------------------------------------------------
# Composing configs outside a Hydra app (``enoki eval``, ``make eval-all``)
# ---------------------------------------------------------------------------------------------


def default_config_dir() -> Path:
    """The repository's ``configs/`` folder: the package's ``enoki_hd/configs``, in a source
    checkout a link to it, in an installed package the copy the wheel carries."""
    return (Path(__file__).resolve().parents[1] / "configs").resolve()


def compose_eval_config(
    overrides: Sequence[str] = (), *, config_dir: str | Path | None = None
) -> Any:
    """Compose ``eval.yaml`` with Hydra overrides (``benchmark=wice_dev``, ``limit=5``, ...)."""
    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra

    directory = Path(config_dir) if config_dir is not None else default_config_dir()
    if not (directory / "eval.yaml").is_file():
        raise FileNotFoundError(
            f"no eval.yaml in {directory}; pass the folder that holds it with --config-dir"
        )
    if GlobalHydra.instance().is_initialized():
        return compose(config_name="eval", overrides=list(overrides))
    with initialize_config_dir(config_dir=str(directory.resolve()), version_base="1.3"):
        return compose(config_name="eval", overrides=list(overrides))


def benchmark_names(config_dir: str | Path | None = None) -> list[str]:
    """The benchmarks with a config in ``configs/benchmark/``, sorted; ``file`` (a user's own
    file, named by ``benchmark.path``) is not one of them."""
    directory = Path(config_dir) if config_dir is not None else default_config_dir()
    configs = (directory / "benchmark").glob("*.yaml")
    return sorted(p.stem for p in configs if p.stem != FILE_BENCHMARK)


def exit_interrupted(program: str) -> NoReturn:
    """What an eval entry point does on Ctrl-C: say so and end the process at once (exit 130).

    LLM requests in flight (``extractor=llm``, ``judge=llm``) may hang for their whole timeout
    and retries, and their worker threads would hold a normal exit until then. Nothing is lost:
    every finished example is in the prediction cache (one file each, written atomically as it
    finishes) and the run folder is written only at the end, atomically."""
    sys.stderr.write(f"{program}: interrupted (rerun the same command to resume)\n")
    sys.stderr.flush()
    sys.stdout.flush()
    os._exit(130)


def run_eval_all(
    overrides: Sequence[str] = (),
    *,
    config_dir: str | Path | None = None,
    detector: Any | None = None,
    benchmarks: Sequence[str] | None = None,
    on_result: Callable[[str, dict[str, Any]], None] | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """:func:`run_eval` on every configured benchmark whose files exist under the shared
    folder (the others are skipped with the reason logged), then ``outputs/eval/summary.md``.

    Every benchmark is loaded and its run folder checked (:func:`check_run_folder`) before
    the first one is evaluated: a folder holding a run with other settings used to stop the
    job only when its turn came, after the benchmarks before it, with no summary written.

    Returns ``({benchmark: metrics}, {"skipped": {benchmark: reason}, "summary": path})``.

    Raises:
        EvalSetupError: no benchmark config, a setting no run can start with, or a run folder
            holding a run with other settings (named), before any benchmark is evaluated.
    """
    names = list(benchmarks) if benchmarks is not None else benchmark_names(config_dir)
    if not names:
        directory = Path(config_dir) if config_dir is not None else default_config_dir()
        raise EvalSetupError(
            f"no benchmark to evaluate: no *.yaml in {directory / 'benchmark'} "
            "(--config-dir names the folder that holds eval.yaml and benchmark/)"
        )
    results: dict[str, Any] = {}
    skipped: dict[str, str] = {}
    summary_dir: Path | None = None
    runs: list[tuple[str, dict[str, Any], Benchmark]] = []
    for name in names:
        cfg = compose_eval_config([*overrides, f"benchmark={name}"], config_dir=config_dir)
        plain = _plain_config(cfg)
        summary_dir = Path(plain["paths"]["root_dir"]) / "outputs" / "eval"
        if name not in BENCHMARKS:
            skipped[name] = "no loader registered under this name"
            logger.warning("skipping %s: %s", name, skipped[name])
            continue
        try:
            loaded = load_benchmark(name, Path(plain["paths"]["shared_dir"]).expanduser())
        except FileNotFoundError as err:
            skipped[name] = str(err)
            logger.warning("skipping %s: %s", name, err)
            continue
        if detector is None:  # as in run_eval: a caller's own detector owns its folders
            try:
                settings = run_settings(plain)
                if not settings.overwrite:
                    check_run_folder(
                        Path(plain["paths"]["output_dir"]),
                        plain,
                        limit_benchmark(loaded, settings.limit).examples_sha256(),
                    )
            except ValueError as err:
                raise EvalSetupError(str(err)) from err
        runs.append((name, plain, loaded))
    for name, plain, loaded in runs:
        metrics, _ = run_eval(
            plain, detector=detector, benchmark=loaded, command=f"make eval-all ({name})"
        )
        results[name] = metrics
        if on_result is not None:
            on_result(name, metrics)
    if summary_dir is None:
        raise ValueError("no benchmark to evaluate")
    summary = summary_dir / "summary.md"
    atomic_write(summary, render_summary(results, skipped))
    logger.info("wrote %s", summary)
    return results, {"skipped": skipped, "summary": summary}
