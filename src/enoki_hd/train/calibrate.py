"""``make calibrate``: fit the calibrated fusion (:mod:`enoki_hd.verify.calibration`)
leave-one-benchmark-out, report held-out-fold numbers only, and ship the fusion fitted on all
benchmarks next to the verifier.

1. **Features.** The configured detector (``configs/eval.yaml`` composition: extractor,
   verifier, evidence) runs on every benchmark with ``record_features``: each fact verdict
   carries its fusion features, each fact gets a gold label from its benchmark
   (:func:`fact_label`). The run folders are ordinary eval runs (the ``hybrid`` rule's numbers,
   the baselines) and go through the eval prediction cache, so an interrupted run resumes.
2. **Folds.** For each benchmark B, a logistic regression is fitted on the facts of the other
   benchmarks (each benchmark weighing the same in all) and its threshold chosen there (best
   weighted macro-F1 over facts); B is then evaluated with that fusion — numbers no fit has
   seen.
3. **Ship.** The fusion fitted on all benchmarks (threshold chosen the same way) is written as
   ``fusion.json`` next to the verifier and recorded in its ``manifest.json``.

The output folder holds ``features/<benchmark>/`` and ``heldout/<benchmark>/`` (eval runs),
``folds/<benchmark>.json`` (each fold's fusion), ``fusion.json``, ``summary.md`` and
``calibration.json``; a rerun on fewer benchmarks first removes the folds of the others
(:func:`remove_stale_outputs`).
"""

from __future__ import annotations

import json
import logging
import math
import shutil
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from enoki_hd.eval.datasets.schema import EvalExample
from enoki_hd.eval.files import atomic_write
from enoki_hd.eval.rendering import get_path
from enoki_hd.verify.calibration import FEATURES, FUSION_FILE, FusionCalibration

logger = logging.getLogger(__name__)

DEFAULT_BENCHMARKS = (
    "capabilities",
    "mushroom_dev30",
    "psiloqa_en50",
    "ragtruth_sent48",
    "factcheck_dev30",
    "wice_dev",
)
THRESHOLD_GRID = tuple(round(0.05 + 0.01 * i, 2) for i in range(91))


@dataclass(frozen=True)
class FactRow:
    """One labelled fact: its benchmark, example, fusion features and gold label
    (1 = not supported)."""

    benchmark: str
    example: str
    fact: str
    features: dict[str, float]
    label: int


def _overlaps(spans: Sequence[Sequence[int]], gold: Sequence[Any]) -> bool:
    return any(s[0] < g.end and g.start < s[1] for s in spans for g in gold)


def fact_label(
    example: EvalExample, fact: Mapping[str, Any], sentences: Sequence[Mapping[str, Any]]
) -> int | None:
    """The gold label of a predicted fact (1 = not supported), or None when the benchmark
    does not say.

    - span gold (MuSHROOM, PsiloQA, the capability suite): 1 when a character the fact is
      blamed for (``spans``) lies in a gold hallucinated span;
    - sentence gold (RAGTruth, Factcheck): the label of the gold sentence overlapping the
      fact's sentence; None when no gold sentence does;
    - claim gold (WiCE): the claim's label (one claim per example).
    """
    spans = fact.get("spans") or []
    if example.gold_spans is not None:
        return int(_overlaps(spans, example.gold_spans))
    if example.sentence_labels:
        row = next((s for s in sentences if s["index"] == fact["sentence"]), None)
        if row is None:
            return None
        for gold in example.sentence_labels:
            if (
                gold.span is not None
                and gold.span.start < row["end"]
                and row["start"] < gold.span.end
            ):
                return int(gold.hallucinated)
        return None
    if example.claim_labels:
        return int(any(c.hallucinated for c in example.claim_labels))
    return None


def fact_rows(
    benchmark: str, examples: Sequence[EvalExample], predictions: Sequence[Mapping[str, Any]]
) -> list[FactRow]:
    """The labelled facts of one benchmark's predictions (made with ``record_features``)."""
    rows = []
    for example, prediction in zip(examples, predictions, strict=True):
        for fact in prediction["facts"]:
            features = fact.get("features")
            if features is None:
                raise ValueError(
                    f"{benchmark}/{example.id}: fact {fact['id']} has no fusion features; the "
                    "predictions were not made with record_features"
                )
            label = fact_label(example, fact, prediction["sentences"])
            if label is not None:
                rows.append(FactRow(benchmark, example.id, fact["id"], dict(features), label))
    return rows


def benchmark_weights(rows: Sequence[FactRow]) -> list[float]:
    """Sample weights under which every benchmark weighs the same (1 / its fact count)."""
    counts: dict[str, int] = {}
    for row in rows:
        counts[row.benchmark] = counts.get(row.benchmark, 0) + 1
    return [1.0 / counts[row.benchmark] for row in rows]


def weighted_macro_f1(
    probs: Sequence[float], labels: Sequence[int], weights: Sequence[float], threshold: float
) -> float:
    """Macro-F1 over the two classes of facts flagged at ``threshold``, with sample weights."""
    tp = fp = fn = tn = 0.0
    for p, y, w in zip(probs, labels, weights, strict=True):
        flagged = p >= threshold
        if flagged and y:
            tp += w
        elif flagged:
            fp += w
        elif y:
            fn += w
        else:
            tn += w

    def f1(t: float, f_pos: float, f_neg: float) -> float:
        return 2 * t / (2 * t + f_pos + f_neg) if t > 0 else 0.0

    return (f1(tp, fp, fn) + f1(tn, fn, fp)) / 2


def choose_threshold(
    probs: Sequence[float], labels: Sequence[int], weights: Sequence[float]
) -> tuple[float, float]:
    """``(threshold, weighted macro-F1)``: the grid threshold with the best weighted macro-F1
    (the lowest of ties)."""
    best = (0.5, -1.0)
    for t in THRESHOLD_GRID:
        value = weighted_macro_f1(probs, labels, weights, t)
        if value > best[1] + 1e-12:
            best = (t, value)
    return best


def fit_fusion(
    rows: Sequence[FactRow],
    *,
    c: float = 1.0,
    verifier_sha256: str | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> FusionCalibration:
    """A fusion fitted on ``rows`` (each benchmark weighing the same), its threshold chosen on
    the same rows."""
    weights = benchmark_weights(rows)
    labels = [r.label for r in rows]
    coef, intercept, mean, scale = fit_logistic([r.features for r in rows], labels, weights, c=c)
    provisional = FusionCalibration(
        coef, intercept, mean, scale, 0.5, verifier_sha256=verifier_sha256
    )
    probs = [provisional.probability(r.features) for r in rows]
    threshold, value = choose_threshold(probs, labels, weights)
    counts: dict[str, dict[str, int]] = {}
    for r in rows:
        entry = counts.setdefault(r.benchmark, {"facts": 0, "unsupported": 0})
        entry["facts"] += 1
        entry["unsupported"] += r.label
    meta = {
        "fitted_on": counts,
        "C": c,
        "train_weighted_macro_f1": round(value, 4),
        **dict(metadata or {}),
    }
    return replace(provisional, threshold=threshold, metadata=meta)


def fit_logistic(
    rows: Sequence[Mapping[str, float]],
    labels: Sequence[int],
    weights: Sequence[float] | None = None,
    *,
    c: float = 1.0,
) -> tuple[tuple[float, ...], float, tuple[float, ...], tuple[float, ...]]:
    """``(coef, intercept, mean, scale)``: scikit-learn's L2 logistic regression (inverse
    strength ``c``) on features standardised by their (unweighted) mean and deviation."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    if len(rows) != len(labels):
        raise ValueError(f"{len(rows)} feature rows but {len(labels)} labels")
    if len(set(labels)) < 2:
        raise ValueError("fitting needs both supported and unsupported facts")
    x = np.array([[float(r[name]) for name in FEATURES] for r in rows], dtype=np.float64)
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    w = (
        None
        if weights is None
        else np.asarray(weights, dtype=np.float64) * len(rows) / float(np.sum(weights))
    )
    model = LogisticRegression(C=c, max_iter=5000)
    model.fit((x - mean) / scale, np.asarray(labels), sample_weight=w)
    return (
        tuple(float(v) for v in model.coef_[0]),
        float(model.intercept_[0]),
        tuple(float(v) for v in mean),
        tuple(float(v) for v in scale),
    )


# ---------------------------------------------------------------------------------------------
# The whole job
# ---------------------------------------------------------------------------------------------

SUMMARY_METRICS = (
    ("IoU", "span.iou"),
    ("char-F1", "span.char.f1"),
    ("ROC-AUC", "{unit}.roc_auc"),
    ("macro-F1", "{unit}.macro_f1"),
    ("binary acc", "capability.overall.binary_accuracy"),
    ("3-way acc", "capability.overall.three_way_accuracy"),
    ("contr. recall", "capability.overall.contradicted_recall"),
    ("false alarms", "capability.overall.false_alarms"),
)


def metric_row(metrics: Mapping[str, Any], method: str) -> dict[str, Any]:
    """The :data:`SUMMARY_METRICS` of one method in one eval run's ``metrics.json``."""
    families = metrics["benchmark"]["families"]
    unit = next((k for k in ("sentence", "claim") if k in families), "none")
    values = metrics["methods"].get(method)
    out = {}
    for name, path in SUMMARY_METRICS:
        value = get_path(values, path.format(unit=unit))
        if isinstance(value, float) and math.isfinite(value):
            out[name] = round(value, 4)
        elif value is not None:
            out[name] = value
    return out


def render_calibration_summary(
    table: Mapping[str, Mapping[str, Mapping[str, Any]]], thresholds: Mapping[str, float]
) -> str:
    """``summary.md``: per benchmark, the held-out calibrated fusion beside the hybrid rule and
    the baselines."""
    names = [n for n, _ in SUMMARY_METRICS]
    lines = [
        "# Calibrated fusion, leave-one-benchmark-out",
        "",
        "`calibrated (held out)`: fitted and thresholded on the other benchmarks only. "
        "`hybrid rule`: the fixed fusion rule. Baselines need no fit.",
        "",
        "| benchmark | method | threshold | " + " | ".join(names) + " |",
        "|---|---|---|" + "---|" * len(names),
    ]
    for bench, methods in table.items():
        for method, row in methods.items():
            t = thresholds.get(bench) if method.startswith("calibrated") else None
            cells = [_fmt(row.get(n)) for n in names]
            lines.append(f"| {bench} | {method} | {_fmt(t)} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _fmt(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def check_calibrate_settings(
    benchmarks: Sequence[str], c: Any, limit: Any, *, known: Sequence[str]
) -> None:
    """Settings of ``make calibrate`` no run can finish with, refused before any benchmark is
    evaluated (a benchmark name without a config used to fail only once the ones before it
    had been evaluated, and a C <= 0 only in the fit after all of them).

    Raises:
        SettingsError: naming ``benchmarks``, ``C`` or ``limit`` and what it accepts.
    """
    from enoki_hd.train.settings import SettingsError

    unknown = [name for name in benchmarks if name not in known]
    if unknown:
        raise SettingsError(
            f"benchmarks: no benchmark named {unknown[0]!r}; known: {', '.join(known)}"
        )
    if len(set(benchmarks)) < 2:
        raise SettingsError(
            "benchmarks: leave-one-benchmark-out needs at least two distinct benchmarks, got "
            f"{list(benchmarks)}"
        )
    if isinstance(c, bool) or not isinstance(c, (int, float)) or not c > 0:
        raise SettingsError(f"C (the inverse L2 strength) must be a number > 0, got {c!r}")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise SettingsError(f"limit must be a whole number >= 1 or null, got {limit!r}")


def _eval_config(overrides: Sequence[str], benchmark: str) -> dict[str, Any]:
    """The eval config of ``benchmark`` under ``overrides``, its run settings checked: an
    override that Hydra or the eval refuses used to fail as a traceback, after the verifier
    had been loaded.

    Raises:
        SettingsError: naming ``eval_overrides`` and what the eval refused.
    """
    from hydra.errors import HydraException

    from enoki_hd.eval.runner import (
        _bootstrap_settings,
        _plain_config,
        compose_eval_config,
        run_settings,
    )
    from enoki_hd.train.settings import SettingsError

    try:
        plain = _plain_config(compose_eval_config([*overrides, f"benchmark={benchmark}"]))
        run_settings(plain)
        _bootstrap_settings(plain.get("bootstrap"))
    except (HydraException, ValueError) as err:
        raise SettingsError(f"eval_overrides: {' '.join(str(err).split())}") from err
    return plain


def run_calibrate(
    *,
    benchmarks: Sequence[str] = DEFAULT_BENCHMARKS,
    eval_overrides: Sequence[str] = (),
    output_dir: str | Path,
    c: float = 1.0,
    ship: bool = True,
    limit: int | None = None,
    progress: bool = True,
) -> dict[str, Any]:
    """Run the whole job (module docstring). Returns the summary record also written to
    ``output_dir/calibration.json``."""
    from enoki_hd.detector import Detector
    from enoki_hd.eval.datasets import load_benchmark
    from enoki_hd.eval.methods import _detector_config
    from enoki_hd.eval.runner import benchmark_names, run_eval
    from enoki_hd.export.onnx import git_commit

    check_calibrate_settings(benchmarks, c, limit, known=benchmark_names())
    c = float(c)
    started = time.perf_counter()
    output_dir = Path(output_dir)
    remove_stale_outputs(output_dir, benchmarks)
    base_overrides = [
        *eval_overrides,
        f"limit={'null' if limit is None else limit}",
        f"progress={str(progress).lower()}",
    ]
    # every benchmark's config before the verifier is loaded and the first one evaluated
    configs = {
        name: _eval_config([*base_overrides, "methods=[detector,lexical_absent,mark_all]"], name)
        for name in benchmarks
    }
    detector_cfg = _detector_config(configs[benchmarks[0]])
    # one verifier object for every run: its pair cache makes the held-out passes cheap
    detector_cfg["verifier"] = {**detector_cfg["verifier"], "cache_size": 500_000}
    recorder = Detector.from_config(detector_cfg)
    recorder.judge = replace(recorder.judge, record_features=True)
    verifier_sha = getattr(recorder.verifier, "sha256", None)

    loaded: dict[str, Any] = {}
    rows: dict[str, list[FactRow]] = {}
    rule_metrics: dict[str, Any] = {}
    for name in benchmarks:
        cfg = configs[name]
        cfg["paths"]["output_dir"] = str(output_dir / "features" / name)
        bench = load_benchmark(name, Path(cfg["paths"]["shared_dir"]).expanduser())
        metrics, objects = run_eval(
            cfg, detector=recorder, benchmark=bench, command=f"make calibrate (features: {name})"
        )
        loaded[name] = (cfg, objects["benchmark"])
        rows[name] = fact_rows(
            name, objects["benchmark"].examples, objects["predictions"]["detector"]
        )
        rule_metrics[name] = metrics
        logger.info(
            "%s: %d labelled facts (%d unsupported)",
            name,
            len(rows[name]),
            sum(r.label for r in rows[name]),
        )

    table: dict[str, dict[str, dict[str, Any]]] = {}
    thresholds: dict[str, float] = {}
    folds: dict[str, Any] = {}
    for name in benchmarks:
        train = [r for other in benchmarks if other != name for r in rows[other]]
        fusion = fit_fusion(train, c=c, verifier_sha256=verifier_sha, metadata={"held_out": name})
        fold_path = fusion.save(output_dir / "folds" / f"{name}.json")
        fusion = FusionCalibration.load(fold_path, verifier_sha256=verifier_sha)
        thresholds[name] = fusion.threshold
        detector = Detector(
            recorder.verifier,
            extractor=recorder.extractor,
            selector=recorder.selector,
            sentence_backend=recorder.sentence_backend,
            context_backend=recorder.context_backend,
            verification="calibrated",
            calibration=fusion,
            sentence_aggregation=recorder.sentence_aggregation,
            language_check=recorder.language_check,
        )
        cfg, bench = loaded[name]
        cfg = {
            **cfg,
            "methods": ["detector"],
            "paths": {**cfg["paths"], "output_dir": str(output_dir / "heldout" / name)},
        }
        cfg["detector"] = {
            **cfg.get("detector", {}),
            "threshold": fusion.threshold,
            "verification": "calibrated",
        }
        metrics, _ = run_eval(
            cfg, detector=detector, benchmark=bench, command=f"make calibrate (held out: {name})"
        )
        table[name] = {
            "calibrated (held out)": metric_row(metrics, "detector"),
            "hybrid rule": metric_row(rule_metrics[name], "detector"),
            "lexical_absent": metric_row(rule_metrics[name], "lexical_absent"),
            "mark_all": metric_row(rule_metrics[name], "mark_all"),
        }
        folds[name] = {
            "threshold": fusion.threshold,
            "file": str(fold_path),
            "metrics": table[name],
        }

    everything = [r for name in benchmarks for r in rows[name]]
    final = fit_fusion(
        everything,
        c=c,
        verifier_sha256=verifier_sha,
        metadata={
            "benchmarks": list(benchmarks),
            "held_out_metrics": {n: table[n]["calibrated (held out)"] for n in benchmarks},
            "fold_thresholds": thresholds,
            "git_commit": git_commit(),
            "command": calibrate_command(eval_overrides),
            "verifier": getattr(recorder.verifier, "name", None),
        },
    )
    final_path = final.save(output_dir / FUSION_FILE)
    shipped = None
    if ship:
        shipped = ship_fusion(
            final, Path(str(recorder.verifier.name)), made_by=calibrate_command(eval_overrides)
        )
    summary = render_calibration_summary(table, thresholds)
    atomic_write(output_dir / "summary.md", summary)
    record = {
        "benchmarks": list(benchmarks),
        "facts": {n: len(rows[n]) for n in benchmarks},
        "folds": folds,
        "fusion": str(final_path),
        "shipped": None if shipped is None else str(shipped),
        "seconds": round(time.perf_counter() - started, 1),
    }
    atomic_write(output_dir / "calibration.json", json.dumps(record, indent=2) + "\n")
    return record


def remove_stale_outputs(output_dir: Path, benchmarks: Sequence[str]) -> list[Path]:
    """Remove what an earlier run in ``output_dir`` left for benchmarks this run leaves out —
    their fold fusions (``folds/<name>.json``) and eval runs (``features/<name>``,
    ``heldout/<name>``) — so the folder holds this run's folds only, as its
    ``calibration.json`` lists them. Returns what was removed (each logged)."""
    keep = set(benchmarks)
    stale: list[Path] = []
    folds = output_dir / "folds"
    if folds.is_dir():
        stale += [p for p in sorted(folds.glob("*.json")) if p.stem not in keep]
    for sub in ("features", "heldout"):
        runs = output_dir / sub
        if runs.is_dir():
            stale += [p for p in sorted(runs.iterdir()) if p.is_dir() and p.name not in keep]
    for path in stale:
        logger.info("removing %s: an earlier run's, for a benchmark this run leaves out", path)
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()
    return stale


def calibrate_command(eval_overrides: Sequence[str] = ()) -> str:
    """The command that refits a fusion made with ``eval_overrides``, recorded with it:
    ``make calibrate`` without overrides, ``make calibrate
    ARGS='eval_overrides=["verifier=fast"]'`` for ``["verifier=fast"]``."""
    if not eval_overrides:
        return "make calibrate"
    return f"make calibrate ARGS='eval_overrides={json.dumps(list(eval_overrides))}'"


def ship_fusion(
    fusion: FusionCalibration, checkpoint: Path, *, made_by: str = "make calibrate"
) -> Path:
    """Write ``fusion.json`` into the verifier checkpoint and record it (sha256, threshold,
    held-out metrics, the command that made it) in the checkpoint's ``manifest.json``."""
    from enoki_hd.export.onnx import sha256_file

    if not checkpoint.is_dir():
        raise FileNotFoundError(
            f"cannot ship the fusion: {checkpoint} is not a checkpoint directory"
        )
    path = fusion.save(checkpoint / FUSION_FILE)
    manifest_path = checkpoint / "manifest.json"
    if manifest_path.is_file():
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        manifest.setdefault("files", {})[FUSION_FILE] = sha256_file(path)
        manifest["fusion"] = {
            "file": FUSION_FILE,
            "sha256": sha256_file(path),
            "threshold": fusion.threshold,
            "features": list(FEATURES),
            "held_out_metrics": fusion.metadata.get("held_out_metrics"),
            "made_by": made_by,
        }
        atomic_write(manifest_path, json.dumps(manifest, indent=2) + "\n")
    return path
