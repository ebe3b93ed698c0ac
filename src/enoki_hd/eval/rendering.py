"""What a person reads of a run: ``report.md`` (one table per metric family, one row per
method), ``thresholds.png`` (metric against threshold) and the ``make eval-all`` summary."""

from __future__ import annotations

import io
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from enoki_hd.eval.files import atomic_write


def get_path(mapping: Mapping[str, Any] | None, path: str) -> Any:
    """``mapping["a"]["b"]`` for ``path="a.b"``; None when a level is missing."""
    value: Any = mapping
    for part in path.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return None
        value = value[part]
    return value


def _fmt(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def _table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(_fmt(c) for c in row) + " |" for row in rows]
    return lines


SPAN_COLUMNS = (
    ("cov-F1 µ δ0", "coverage.0.micro_f1"),
    ("cov-F1 M δ0", "coverage.0.macro_f1"),
    ("cov-F1 µ δ5", "coverage.5.micro_f1"),
    ("cov-F1 M δ5", "coverage.5.macro_f1"),
    ("char P", "char.precision"),
    ("char R", "char.recall"),
    ("char F1", "char.f1"),
    ("IoU", "iou"),
    ("ex P", "example.precision"),
    ("ex R", "example.recall"),
    ("ex F1", "example.f1"),
)
UNIT_COLUMNS = (
    ("macro-F1", "macro_f1"),
    ("F1 hal", "f1_pos"),
    ("P hal", "precision"),
    ("R hal", "recall"),
    ("acc", "accuracy"),
    ("ROC-AUC", "roc_auc"),
    ("PR-AUC", "pr_auc"),
    ("best thr*", "best_threshold"),
    ("macro-F1 @best*", "best_macro_f1"),
)
ENTITY_COLUMNS = (
    ("AUROC pooled", "pooled_auroc"),
    ("AUPRC pooled", "pooled_auprc"),
    ("AUROC per sample", "sample_auroc"),
    ("AUPRC per sample", "sample_auprc"),
    ("samples used", "n_samples_used"),
)


def _caveat_note(unit: Mapping[str, Any], family: str) -> str:
    notes = []
    if unit.get("unlocated"):
        notes.append(
            f"{unit['unlocated']} gold {family}(s) not located in the answer score the "
            "answer's score"
        )
    if unit.get("unmatched"):
        notes.append(f"{unit['unmatched']} lie outside every predicted sentence and score 0")
    return (" " + "; ".join(notes) + ".") if notes else ""


def _method_tables(metrics: Mapping[str, Any], threshold: float) -> list[str]:
    methods = metrics["methods"]
    names = list(methods)
    lines: list[str] = []
    first = methods[names[0]] if names else {}
    if "span" in first:
        columns = list(SPAN_COLUMNS)
        if "soft_spearman" in first["span"]:
            columns.append(("soft ρ", "soft_spearman"))
        gold = metrics["benchmark"].get("gold_reference")
        title = "## Span level" + (f" (gold: {gold})" if gold else "")
        lines += [title, ""]
        lines += _table(
            ["method", *(c for c, _ in columns)],
            ([n, *(get_path(methods[n]["span"], p) for _, p in columns)] for n in names),
        )
        references = first["span"].get("references")
        if references:
            lines += [
                "",
                f"## Span level, mean over {len(references['names'])} references "
                f"({', '.join(references['names'])})",
                "",
            ]
            lines += _table(
                ["method", *(c for c, _ in SPAN_COLUMNS)],
                (
                    [
                        n,
                        *(
                            get_path(methods[n]["span"]["references"]["mean"], p)
                            for _, p in SPAN_COLUMNS
                        ),
                    ]
                    for n in names
                ),
            )
        lines += [
            "",
            "cov-F1: span coverage F1 of the Enoki paper (a predicted span counts when a gold span "
            "widened by δ characters contains it), micro (µ) and macro (M) over examples; char: "
            "character-level P/R/F1 pooled over the set (LettuceDetect); IoU: mean per-example "
            "character IoU (MuSHROOM); ex: example-level (any hallucination in the answer)"
            + (
                "; soft ρ: Spearman with MuSHROOM soft labels"
                if "soft_spearman" in first["span"]
                else ""
            )
            + ".",
            "",
        ]
    for family in ("sentence", "claim"):
        if family not in first:
            continue
        n = first[family]["n"]
        lines += [f"## {family.capitalize()} level ({n} {family}s)", ""]
        columns = list(UNIT_COLUMNS)
        if "three_way" in first[family]:
            columns += [
                ("3-way acc", "three_way.accuracy"),
                ("3-way macro-F1", "three_way.macro_f1"),
            ]
        lines += _table(
            ["method", *(c for c, _ in columns)],
            ([name, *(get_path(methods[name][family], p) for _, p in columns)] for name in names),
        )
        lines += [
            "",
            f"Hallucinated = positive class; macro-F1, P, R, acc at threshold {threshold:g}. "
            "*best thr: the threshold with the best macro-F1 on this very set (optimistic, "
            "for reference only)."
            + (
                " 3-way: supported / partially_supported / not_supported from the share of "
                "supported units."
                if "three_way" in first[family]
                else ""
            )
            + _caveat_note(first[family], family),
            "",
        ]
    if "capability" in first:
        lines += _capability_tables(methods, names)
    if "markdown" in first:
        lines += ["## Markdown structure", ""]
        lines += _table(
            ["method", *(c for c, _ in MARKDOWN_COLUMNS)],
            (
                [n, *(get_path(methods[n]["markdown"], p) for _, p in MARKDOWN_COLUMNS)]
                for n in names
            ),
        )
        lines += [
            "",
            "Structural FA: predicted spans on headings, lead-ins, table headers, meta, questions, "
            "opinions and code (per answer; answers with any); FA/answer: predicted spans "
            "overlapping no gold span; cells checked: table cells with a fact inside the cell; "
            "cell recall / cell FA: wrong cells hit / right cells hit; gold recall: gold spans "
            "hit.",
            "",
        ]
    if "entity" in first:
        lines += ["## Entity level", ""]
        lines += _table(
            ["method", *(c for c, _ in ENTITY_COLUMNS)],
            ([n, *(get_path(methods[n]["entity"], p) for _, p in ENTITY_COLUMNS)] for n in names),
        )
        lines += [
            "",
            "Pooled: over all entities together; per sample: mean over samples with both classes.",
            "",
        ]
    return lines


MARKDOWN_COLUMNS = (
    ("n", "n"),
    ("structural FA / answer", "structural_false_alarms_per_answer"),
    ("answers with structural FA", "structural_flagged_answers"),
    ("FA / answer", "false_alarms_per_answer"),
    ("cells checked", "table_cell_check_rate"),
    ("cell recall", "table_cell_recall"),
    ("cell FA", "table_cell_false_alarms"),
    ("gold recall", "gold_span_recall"),
)


def _reasons(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{reason} {n}" for reason, n in counts.items()) or "—"


def render_checkworthiness(result: Mapping[str, Any], *, max_errors: int = 20) -> str:
    """The selection stage against gold check-worthiness: P / R / F1 of "not a claim" per
    level, then the units it gets wrong."""
    columns = ("n", "gold_not_a_claim", "predicted_not_a_claim", "precision", "recall", "f1")
    lines = ["## Check-worthiness (selection stage)", ""]
    lines += _table(
        ["level", *columns, "reasons"],
        (
            [level, *(values[c] for c in columns), _reasons(values["reasons"])]
            for level, values in result["levels"].items()
        ),
    )
    lines += [
        "",
        'Positive class: "not a claim". A unit is predicted not a claim when every sentence of '
        "it is (enoki_hd.select, rules). Precision is — when nothing was predicted.",
        "",
    ]
    errors = result["errors"]
    if errors:
        lines += [f"Disagreements ({len(errors)}, first {min(len(errors), max_errors)}):", ""]
        lines += _table(
            ["id", "level", "gold", "predicted", "text"],
            (
                [e["id"], e["level"], e["gold"], e["predicted"], e["text"].replace("|", "\\|")]
                for e in errors[:max_errors]
            ),
        )
        lines.append("")
    return "\n".join(lines) + "\n"


CAPABILITY_COLUMNS = (
    ("n", "n"),
    ("3-way acc", "three_way_accuracy"),
    ("binary acc", "binary_accuracy"),
    ("contradicted recall", "contradicted_recall"),
    ("span hit rate", "span_hit_rate"),
    ("false alarms", "false_alarms"),
)


def _capability_tables(methods: Mapping[str, Any], names: Sequence[str]) -> list[str]:
    """The capability suite: one table of every method overall, then one per method by
    category."""
    lines = ["## Capabilities", ""]
    lines += _table(
        ["method", *(c for c, _ in CAPABILITY_COLUMNS)],
        (
            [n, *(get_path(methods[n]["capability"]["overall"], p) for _, p in CAPABILITY_COLUMNS)]
            for n in names
        ),
    )
    for name in names:
        categories = methods[name]["capability"]["categories"]
        lines += ["", f"### {name} by category", ""]
        lines += _table(
            ["category", *(c for c, _ in CAPABILITY_COLUMNS)],
            (
                [category, *(get_path(rates, p) for _, p in CAPABILITY_COLUMNS)]
                for category, rates in categories.items()
            ),
        )
    lines += [
        "",
        "The answer's predicted label: contradicted when a sentence is, else unverifiable when "
        "a sentence is not supported, else supported. 3-way acc: that label against the gold "
        "one; binary acc: supported vs not; contradicted recall: of the contradicted cases, the "
        "share predicted contradicted; span hit rate: of the not-supported cases, the share "
        "where a predicted span overlaps the gold span; false alarms: of the supported cases, "
        "the share predicted not supported.",
        "",
    ]
    return lines


def render_report(metrics: Mapping[str, Any]) -> str:
    """``report.md``: what was run and one table per metric family, one row per method."""
    bench = metrics["benchmark"]
    cfg = metrics["config"]
    detector = cfg.get("detector") or {}
    verifier = cfg.get("verifier") or {}
    evidence = verifier.get("evidence") or {}
    model = get_path(metrics, "models.verifier.id")
    git = metrics.get("git") or {}
    lines = [
        f"# Evaluation: {bench['name']}",
        "",
        f"- benchmark: `{bench['name']}` ({bench['level']} level), {bench['n_examples']} "
        f"examples (of {bench['n_total']}); dropped {bench['dropped'] or 'none'}, "
        f"flagged {bench['flagged'] or 'none'}",
        f"- methods: {', '.join(metrics['methods'])}",
        f"- detector: extractor `{get_path(cfg, 'extractor.name')}`, verifier "
        f"`{verifier.get('name')}` ({model or 'not used'}), evidence "
        f"{evidence.get('strategy')} top_k={evidence.get('top_k')} "
        f"neighbours={evidence.get('neighbours')}, threshold {detector.get('threshold')}",
        f"- git: {git.get('commit') or 'unknown'}"
        + (" (uncommitted changes)" if git.get("dirty") else ""),
        f"- command: `{metrics.get('command')}`",
        "",
    ]
    lines += _method_tables(metrics, float(detector.get("threshold", 0.5)))
    if metrics.get("bootstrap"):
        lines += render_bootstrap(metrics["bootstrap"])
    lines += ["## Timings", ""]
    timing = metrics["timings"]["methods"]
    lines += _table(
        ["method", "computed", "cached", "seconds", "s / example"],
        (
            [n, t["computed"], t["cached"], t["seconds"], t["per_example"]]
            for n, t in timing.items()
        ),
    )
    lines += ["", f"Total wall time {metrics['timings']['total']:.1f} s.", ""]
    return "\n".join(lines)


def _interval(cell: Mapping[str, Any], *, signed: bool = False) -> str:
    value, low, high = cell.get("value"), cell.get("low"), cell.get("high")
    if value is None:
        return "—"
    number = f"{value:+.3f}" if signed else f"{value:.3f}"
    if low is None or high is None:
        return number
    bounds = f"[{low:+.3f}, {high:+.3f}]" if signed else f"[{low:.3f}, {high:.3f}]"
    return f"{number} {bounds}"


def render_bootstrap(bootstrap: Mapping[str, Any], *, rows: str = "method") -> list[str]:
    """The report's uncertainty section: each method's headline metrics with their bootstrap
    interval, then the reference method's difference from each other method (``rows`` names
    what the rows are: ``"method"``, or ``"run"`` for ``enoki compare``)."""
    keys = list(next(iter(bootstrap["methods"].values()), {}))
    if not keys:
        return []
    percent = f"{100 * bootstrap['level']:g}%"
    lines = [
        f"## Uncertainty ({percent} bootstrap intervals)",
        "",
        f"{bootstrap['samples']} resamples of the {bootstrap['n']} examples with replacement "
        f"(seed {bootstrap['seed']}); each metric recomputed on every resample, the interval "
        "is its percentile interval.",
        "",
    ]
    lines += _table(
        [rows, *keys],
        (
            [name, *(_interval(cells[k]) for k in keys)]
            for name, cells in bootstrap["methods"].items()
        ),
    )
    lines.append("")
    if bootstrap["differences"]:
        reference = bootstrap["reference"]
        lines += [
            f"{reference} minus each other {rows} on the same resamples; *ahead* is the share "
            f"of resamples in which {reference} scores higher (ties count half).",
            "",
        ]
        lines += _table(
            ["against", *keys],
            (
                [
                    name,
                    *(
                        f"{_interval(cells[k], signed=True)}, ahead {_fmt(cells[k]['ahead'])}"
                        for k in keys
                    ),
                ]
                for name, cells in bootstrap["differences"].items()
            ),
        )
        lines.append("")
    return lines


def render_comparison(comparison: Mapping[str, Any]) -> str:
    """``enoki compare``'s Markdown: which runs, then the paired intervals."""
    runs = comparison["runs"]
    lines = [
        f"# {comparison['benchmark']}: {' vs '.join(runs)} ({comparison['method']})",
        "",
        *(f"- {label}: `{path}`" for label, path in runs.items()),
        "",
    ]
    lines += render_bootstrap(comparison, rows="run")
    return "\n".join(lines)


def plot_thresholds(sweep: Mapping[str, Any], path: Path, *, threshold: float, title: str) -> None:
    """``thresholds.png``: one panel per swept metric, one line per method."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    panels = (
        [("char_f1", "character F1"), ("iou", "mean IoU")]
        if sweep["family"] == "span"
        else [("macro_f1", "macro-F1"), ("f1_pos", "F1 (hallucinated)")]
    )
    figure = Figure(figsize=(10, 4), dpi=100)
    FigureCanvasAgg(figure)
    for k, (key, label) in enumerate(panels):
        axes = figure.add_subplot(1, len(panels), k + 1)
        for name, series in sweep["methods"].items():
            # None: not measured (below the run's threshold, whose spans the run never kept)
            points = [(t, v) for t, v in zip(sweep["thresholds"], series[key], strict=True)]
            xs = [t for t, v in points if v is not None]
            ys = [v for _, v in points if v is not None]
            axes.plot(xs, ys, marker="o", markersize=3, label=name)
        axes.axvline(threshold, color="grey", linestyle="--", linewidth=1)
        axes.set_xlabel("threshold")
        axes.set_ylabel(label)
        axes.set_xlim(0, 1)
        axes.set_ylim(0, 1)
        axes.grid(alpha=0.3)
        if sweep["methods"]:
            axes.legend(fontsize=8)
        else:
            axes.text(0.5, 0.5, "no method with varying scores", ha="center", va="center")
    figure.suptitle(title)
    figure.tight_layout()
    image = io.BytesIO()
    figure.savefig(image, format="png")
    atomic_write(path, image.getvalue())


SUMMARY_COLUMNS = (
    ("cov-F1 µ δ0", "span.coverage.0.micro_f1"),
    ("cov-F1 µ δ5", "span.coverage.5.micro_f1"),
    ("char F1", "span.char.f1"),
    ("IoU", "span.iou"),
)
SUMMARY_UNIT_COLUMNS = (("macro-F1", "macro_f1"), ("ROC-AUC", "roc_auc"), ("PR-AUC", "pr_auc"))


def _summary_differences(results: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The reference method's bootstrap difference from each other method, every benchmark."""
    rows, notes = [], set()
    for name, metrics in results.items():
        bootstrap = metrics.get("bootstrap") or {}
        for other, cells in (bootstrap.get("differences") or {}).items():
            notes.add((bootstrap["reference"], bootstrap["level"], bootstrap["samples"]))
            for key, cell in cells.items():
                rows.append([name, key, other, _interval(cell, signed=True), cell["ahead"]])
    if not rows:
        return []
    lines = [""]
    for reference, level, samples in sorted(notes):
        lines.append(
            f"{reference} minus each other method, {100 * level:g}% bootstrap interval over "
            f"{samples} resamples of the examples; *ahead*: share of resamples in which "
            f"{reference} scores higher (ties count half)."
        )
    lines.append("")
    return lines + _table(["benchmark", "metric", "against", "difference", "ahead"], rows)


def render_summary(results: Mapping[str, Mapping[str, Any]], skipped: Mapping[str, str]) -> str:
    """``summary.md``: one table, benchmark × method × key metrics."""
    header = ["benchmark", "level", "method", "n", *(c for c, _ in SUMMARY_COLUMNS)]
    header += [c for c, _ in SUMMARY_UNIT_COLUMNS]
    rows = []
    for name, metrics in results.items():
        kinds = metrics["benchmark"]["families"]
        unit = next((k for k in ("sentence", "claim") if k in kinds), None)
        for method, values in metrics["methods"].items():
            n = values[unit]["n"] if unit else metrics["benchmark"]["n_examples"]
            rows.append(
                [
                    name,
                    unit or metrics["benchmark"]["level"],
                    method,
                    n,
                    *(get_path(values, p) for _, p in SUMMARY_COLUMNS),
                    *(
                        get_path(values.get(unit) if unit else None, p)
                        for _, p in SUMMARY_UNIT_COLUMNS
                    ),
                ]
            )
    lines = ["# Evaluation summary", ""]
    lines += _table(header, rows)
    lines += [
        "",
        "Span metrics against each set's primary gold; macro-F1 at the detector threshold. "
        "Each benchmark's report.md has every metric.",
    ]
    lines += _summary_differences(results)
    if skipped:
        lines += ["", "Skipped:", ""]
        lines += [f"- `{name}`: {reason}" for name, reason in skipped.items()]
    return "\n".join(lines) + "\n"
