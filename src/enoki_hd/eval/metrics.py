"""Evaluation metrics for hallucination detection at span, example, sentence/claim, entity and
OpenIE level.

Everything here is plain numpy (no scikit-learn, no scipy). Conventions shared by all
functions:

- A *span* is a half-open ``[start, end)`` character offset pair into the answer. Spans may be
  given as :class:`~enoki_hd.types.Span`, ``(start, end)`` tuples / lists, ``{"start", "end"}``
  dicts or any object with ``start`` / ``end`` attributes (e.g. ``HallucinatedSpan``).
  Zero-length spans (``start == end``) cover no character and are dropped.
- Per-example inputs are parallel lists (one entry per example); their lengths must agree.
- A metric over an empty list of examples is undefined and raises ``ValueError``.
- A ratio whose denominator is zero is given the value the function's docstring states; it is
  never NaN.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, cast

import numpy as np

from enoki_hd.types import Span

logger = logging.getLogger(__name__)

# anything with ``start`` / ``end`` attributes (``HallucinatedSpan``) is accepted as well
SpanLike = Span | tuple[int, int] | Sequence[int] | Mapping[str, int]
ThresholdMetric = Literal["macro_f1", "f1_pos", "accuracy"]

__all__ = [
    "average_precision",
    "best_threshold",
    "binary_classification",
    "char_iou",
    "char_prf",
    "coverage_f1",
    "coverage_f1_sweep",
    "entity_auc",
    "example_prf",
    "prf_from_counts",
    "roc_auc",
    "soft_spearman",
    "span_scores_to_char_scores",
    "strict_carb_score",
]


# --------------------------------------------------------------------------------------------
# Shared helpers
# --------------------------------------------------------------------------------------------


def _as_offsets(span: SpanLike) -> tuple[int, int]:
    if isinstance(span, Mapping):
        start, end = span["start"], span["end"]
    elif hasattr(span, "start") and hasattr(span, "end"):
        start, end = span.start, span.end
    elif isinstance(span, Sequence) and not isinstance(span, str) and len(span) == 2:
        start, end = span
    else:
        raise TypeError(
            f"a span must be a Span, a (start, end) pair or a {{'start', 'end'}} dict, got {span!r}"
        )
    if isinstance(start, bool) or isinstance(end, bool):
        raise TypeError(f"span offsets must be int, got {span!r}")
    start, end = int(start), int(end)
    if start < 0 or end < start:
        raise ValueError(f"a span needs 0 <= start <= end, got {span!r}")
    return start, end


def _normalize_spans(spans: Iterable[SpanLike] | None) -> list[tuple[int, int]]:
    """Spans as sorted ``(start, end)`` tuples, zero-length spans dropped, duplicates kept."""
    out = [_as_offsets(s) for s in (spans or [])]
    return sorted(s for s in out if s[1] > s[0])


def _char_set(spans: Iterable[tuple[int, int]], length: int | None = None) -> set[int]:
    chars = {i for start, end in spans for i in range(start, end)}
    if length is not None:
        chars = {i for i in chars if i < length}
    return chars


def _check_parallel(name_a: str, a: Sequence, name_b: str, b: Sequence) -> None:
    if len(a) != len(b):
        raise ValueError(
            f"{name_a} and {name_b} must have one entry per example, got {len(a)} and {len(b)}"
        )
    if len(a) == 0:
        raise ValueError(f"got no examples: {name_a} and {name_b} are empty")


def _ratio(num: float, den: float, *, empty: float) -> float:
    return float(num) / float(den) if den else float(empty)


def _f1(precision: float, recall: float) -> float:
    total = precision + recall
    return 2.0 * precision * recall / total if total > 0 else 0.0


# --------------------------------------------------------------------------------------------
# 1. Span Coverage F1 (Enoki)
# --------------------------------------------------------------------------------------------


def _covered(inner: tuple[int, int], outer: tuple[int, int], delta: int) -> bool:
    return outer[0] - delta <= inner[0] and inner[1] <= outer[1] + delta


def coverage_f1(
    preds: Sequence[Sequence[SpanLike]],
    golds: Sequence[Sequence[SpanLike]],
    *,
    delta: int = 0,
) -> dict[str, float | int]:
    """Span Coverage F1 of the Enoki paper, micro- and macro-averaged.

    A predicted span ``p`` is *correct* if some gold span ``g`` of the same example, widened by
    ``delta`` characters on both sides, contains it: ``g.start - delta <= p.start`` and
    ``p.end <= g.end + delta``. A gold span is *recalled* if it contains (under the same
    tolerance) at least one predicted span. Every predicted span is counted on its own, so
    overlapping predictions each count (merge them first if that is not wanted).

    Per example (macro):
        P = correct preds / preds, R = recalled golds / golds, F1 = 2PR / (P + R) (0 if P+R=0).
        No preds and no gold -> P = R = F1 = 1.  Preds but no gold -> P = 0, R = 1, F1 = 0.
        Gold but no preds -> P = 1, R = 0, F1 = 0.
    ``macro_*`` is the mean of the per-example values over all examples.

    Micro: counts are pooled over all examples first.
        P = correct preds / all preds (1.0 if there are no preds at all),
        R = recalled golds / all golds (1.0 if there is no gold at all), F1 as above.

    Returns ``micro_p, micro_r, micro_f1, macro_p, macro_r, macro_f1`` plus the pooled counts
    ``n_pred, n_gold, n_correct_pred, n_recalled_gold`` and ``delta``.
    """
    _check_parallel("preds", preds, "golds", golds)
    if delta < 0:
        raise ValueError(f"delta must be >= 0 characters, got {delta}")
    n_pred = n_gold = n_correct = n_recalled = 0
    macro_p: list[float] = []
    macro_r: list[float] = []
    macro_f: list[float] = []
    for pred_spans, gold_spans in zip(preds, golds, strict=True):
        p_spans = _normalize_spans(pred_spans)
        g_spans = _normalize_spans(gold_spans)
        correct = sum(any(_covered(p, g, delta) for g in g_spans) for p in p_spans)
        recalled = sum(any(_covered(p, g, delta) for p in p_spans) for g in g_spans)
        precision = _ratio(correct, len(p_spans), empty=1.0)
        recall = _ratio(recalled, len(g_spans), empty=1.0)
        if p_spans and not g_spans:
            precision = 0.0
        macro_p.append(precision)
        macro_r.append(recall)
        macro_f.append(_f1(precision, recall))
        n_pred += len(p_spans)
        n_gold += len(g_spans)
        n_correct += correct
        n_recalled += recalled
    micro_p = _ratio(n_correct, n_pred, empty=1.0)
    micro_r = _ratio(n_recalled, n_gold, empty=1.0)
    return {
        "micro_p": micro_p,
        "micro_r": micro_r,
        "micro_f1": _f1(micro_p, micro_r),
        "macro_p": float(np.mean(macro_p)),
        "macro_r": float(np.mean(macro_r)),
        "macro_f1": float(np.mean(macro_f)),
        "n_pred": n_pred,
        "n_gold": n_gold,
        "n_correct_pred": n_correct,
        "n_recalled_gold": n_recalled,
        "delta": delta,
    }


def coverage_f1_sweep(
    preds: Sequence[Sequence[SpanLike]],
    golds: Sequence[Sequence[SpanLike]],
    deltas: Iterable[int] = range(6),
) -> dict[int, dict[str, float | int]]:
    """:func:`coverage_f1` at each tolerance in ``deltas`` (characters), keyed by delta."""
    return {int(d): coverage_f1(preds, golds, delta=int(d)) for d in deltas}


# --------------------------------------------------------------------------------------------
# 2-3. Character-level P/R/F1 and IoU
# --------------------------------------------------------------------------------------------


def char_prf(
    preds: Sequence[Sequence[SpanLike]],
    golds: Sequence[Sequence[SpanLike]],
    lengths: Sequence[int] | None = None,
) -> dict[str, float | int]:
    """Character-level precision / recall / F1 pooled over the whole set (LettuceDetect's
    span-level metric).

    Each example's spans become the set of character indices they cover (a union, so
    overlapping predictions do not count a character twice). LettuceDetect's
    ``evaluate_detector_char_level`` sums span lengths and pairwise overlaps instead; the two
    agree whenever neither side has overlapping spans (true of every gold set here and of the
    methods' predictions), and differ otherwise (predicted ``(0, 4), (2, 6)`` against gold
    ``(0, 6)``: recall 1.0 here, 8/6 there). With P and G those sets,
    ``tp = |P & G|``, ``fp = |P - G|``, ``fn = |G - P|`` are summed over all examples, then
    ``precision = tp / (tp + fp)``, ``recall = tp / (tp + fn)``, ``f1 = 2PR / (P + R)``; each is
    0.0 when its denominator is 0. When ``lengths`` (answer length per example, in characters)
    is given, character indices ``>= length`` are dropped on both sides.

    Returns ``precision, recall, f1, tp, fp, fn``.
    """
    _check_parallel("preds", preds, "golds", golds)
    if lengths is not None:
        _check_parallel("preds", preds, "lengths", lengths)
    tp = fp = fn = 0
    for i, (pred_spans, gold_spans) in enumerate(zip(preds, golds, strict=True)):
        length = None if lengths is None else int(lengths[i])
        p_chars = _char_set(_normalize_spans(pred_spans), length)
        g_chars = _char_set(_normalize_spans(gold_spans), length)
        tp += len(p_chars & g_chars)
        fp += len(p_chars - g_chars)
        fn += len(g_chars - p_chars)
    return prf_from_counts(tp, fp, fn)


def prf_from_counts(tp: int, fp: int, fn: int) -> dict[str, float | int]:
    """``precision``, ``recall`` and ``f1`` from pooled counts (each 0.0 when its denominator
    is 0), with the counts: what :func:`char_prf` returns for those totals."""
    precision = _ratio(tp, tp + fp, empty=0.0)
    recall = _ratio(tp, tp + fn, empty=0.0)
    return {
        "precision": precision,
        "recall": recall,
        "f1": _f1(precision, recall),
        "tp": tp,
        "fp": fp,
        "fn": fn,
    }


def char_iou(
    preds: Sequence[Sequence[SpanLike]],
    golds: Sequence[Sequence[SpanLike]],
) -> dict[str, Any]:
    """Mean per-example character IoU (MuSHROOM's official ``iou``).

    Per example: ``|P & G| / |P | G|`` over the sets of covered character indices, and 1.0
    when both sets are empty. ``iou`` is the unweighted mean over examples; ``per_example``
    lists the individual values in input order.
    """
    _check_parallel("preds", preds, "golds", golds)
    per_example: list[float] = []
    for pred_spans, gold_spans in zip(preds, golds, strict=True):
        p_chars = _char_set(_normalize_spans(pred_spans))
        g_chars = _char_set(_normalize_spans(gold_spans))
        union = p_chars | g_chars
        per_example.append(len(p_chars & g_chars) / len(union) if union else 1.0)
    return {"iou": float(np.mean(per_example)), "per_example": per_example}


# --------------------------------------------------------------------------------------------
# 4. Soft-label Spearman (MuSHROOM ``cor``)
# --------------------------------------------------------------------------------------------


def span_scores_to_char_scores(
    spans_with_scores: Iterable[tuple[int, int, float]], length: int
) -> list[float]:
    """Per-character scores for an answer of ``length`` characters.

    Character ``i`` gets the maximum score of the ``(start, end, score)`` spans whose half-open
    range ``[start, end)`` covers it, and 0.0 if none does. Span parts past ``length`` are
    ignored.
    """
    if length < 0:
        raise ValueError(f"length must be >= 0, got {length}")
    scores = np.zeros(length, dtype=float)
    for start, end, score in spans_with_scores:
        start, end = _as_offsets((start, end))
        if start < length:
            segment = scores[start : min(end, length)]
            np.maximum(segment, float(score), out=segment)
    return scores.tolist()


def _average_ranks(values: np.ndarray) -> np.ndarray:
    """1-based ranks with ties given the mean of the ranks they span (``rankdata`` 'average')."""
    order = np.argsort(values, kind="mergesort")
    sorted_values = values[order]
    new_group = np.empty(len(values), dtype=bool)
    if len(values):
        new_group[0] = True
        new_group[1:] = sorted_values[1:] != sorted_values[:-1]
    starts = np.flatnonzero(new_group)
    ends = np.append(starts[1:], len(values))
    group_rank = (starts + ends - 1) / 2.0 + 1.0
    ranks = np.empty(len(values), dtype=float)
    ranks[order] = group_rank[np.cumsum(new_group) - 1]
    return ranks


def _spearman(a: np.ndarray, b: np.ndarray) -> float:
    """Spearman's rho: Pearson correlation of the average ranks (equals ``scipy.stats.spearmanr``)."""
    ra = _average_ranks(a)
    rb = _average_ranks(b)
    ra -= ra.mean()
    rb -= rb.mean()
    return float(np.dot(ra, rb) / np.sqrt(np.dot(ra, ra) * np.dot(rb, rb)))


def _n_distinct(values: np.ndarray) -> int:
    return len(np.unique(np.round(values, 8)))


def soft_spearman(
    pred_char_scores: Sequence[Sequence[float]],
    soft_labels: Sequence[Sequence[Mapping[str, Any]]],
    lengths: Sequence[int],
) -> float:
    """MuSHROOM's ``cor``: mean per-example Spearman correlation of per-character probabilities.

    For each example the reference vector has one entry per character of the answer
    (``lengths[i]``): the ``prob`` of the soft label ``{"start", "end", "prob"}`` covering that
    character (the maximum where labels overlap — MuSHROOM's labels never do) and 0.0
    elsewhere. ``pred_char_scores[i]`` must have exactly ``lengths[i]`` entries (see
    :func:`span_scores_to_char_scores`).

    The example's score is Spearman's rho between the two vectors (ties get average ranks,
    as ``scipy.stats.spearmanr``). If either vector is constant (one distinct value after
    rounding to 8 decimals, as the official scorer checks), rho is undefined and the score is
    1.0 when *both* vectors are constant and 0.0 when only one is — exactly the official
    scorer's rule, which does not compare the two constant values (all-0 vs all-0.3 scores
    1.0). The result is the unweighted mean over examples.
    """
    _check_parallel("pred_char_scores", pred_char_scores, "soft_labels", soft_labels)
    _check_parallel("pred_char_scores", pred_char_scores, "lengths", lengths)
    per_example: list[float] = []
    for i, (pred, labels, length) in enumerate(
        zip(pred_char_scores, soft_labels, lengths, strict=True)
    ):
        pred_vec = np.asarray(pred, dtype=float)
        if pred_vec.shape != (int(length),):
            raise ValueError(
                f"example {i}: pred_char_scores has {pred_vec.size} entries but the answer has "
                f"{length} characters; give one score per character"
            )
        ref_vec = np.zeros(int(length), dtype=float)
        for label in labels:
            start, end = _as_offsets(label)
            if end > length:
                raise ValueError(
                    f"example {i}: soft label {dict(label)!r} ends past the answer "
                    f"({length} characters)"
                )
            segment = ref_vec[start:end]
            np.maximum(segment, float(label["prob"]), out=segment)
        ref_constant = _n_distinct(ref_vec) <= 1
        pred_constant = _n_distinct(pred_vec) <= 1
        if ref_constant or pred_constant:
            per_example.append(float(ref_constant and pred_constant))
        else:
            per_example.append(_spearman(ref_vec, pred_vec))
    return float(np.mean(per_example))


# --------------------------------------------------------------------------------------------
# 5-6. Example-level and binary classification metrics
# --------------------------------------------------------------------------------------------


def example_prf(pred_flags: Sequence[bool], gold_flags: Sequence[bool]) -> dict[str, float]:
    """Example-level P/R/F1 for "the answer contains a hallucination" (True = positive).

    ``precision = tp / (tp + fp)``, ``recall = tp / (tp + fn)`` (each 0.0 when its denominator
    is 0), ``f1 = 2PR / (P + R)`` (0.0 when P + R = 0), ``accuracy`` = fraction of examples
    whose flag equals the gold flag.
    """
    _check_parallel("pred_flags", pred_flags, "gold_flags", gold_flags)
    pred = np.asarray(pred_flags, dtype=bool)
    gold = np.asarray(gold_flags, dtype=bool)
    tp = int(np.sum(pred & gold))
    fp = int(np.sum(pred & ~gold))
    fn = int(np.sum(~pred & gold))
    precision = _ratio(tp, tp + fp, empty=0.0)
    recall = _ratio(tp, tp + fn, empty=0.0)
    return {
        "precision": precision,
        "recall": recall,
        "f1": _f1(precision, recall),
        "accuracy": float(np.mean(pred == gold)),
    }


def _binary_inputs(scores: Sequence[float], gold: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    _check_parallel("scores", scores, "gold", gold)
    score_arr = np.asarray(scores, dtype=float)
    if not np.all(np.isfinite(score_arr)):
        raise ValueError("scores must be finite numbers; got NaN or infinity")
    gold_arr = np.asarray(gold)
    if not np.isin(gold_arr, (0, 1)).all():
        raise ValueError(
            f"gold labels must be 0 or 1 (1 = hallucinated), got {sorted(set(gold_arr.tolist()))}"
        )
    return score_arr, gold_arr.astype(bool)


def roc_auc(scores: Sequence[float], gold: Sequence[int]) -> float | None:
    """Area under the ROC curve, with gold 1 as the positive class; None if gold has one class.

    Computed as the Mann–Whitney statistic: the probability that a random positive scores
    higher than a random negative, ties counting 1/2 (average ranks). Equals
    ``sklearn.metrics.roc_auc_score``.
    """
    score_arr, gold_arr = _binary_inputs(scores, gold)
    n_pos = int(gold_arr.sum())
    n_neg = len(gold_arr) - n_pos
    if n_pos == 0 or n_neg == 0:
        return None
    ranks = _average_ranks(score_arr)
    return float((ranks[gold_arr].sum() - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg))


def average_precision(scores: Sequence[float], gold: Sequence[int]) -> float | None:
    """Average precision (area under the step-wise P-R curve) as scikit-learn defines it.

    ``AP = sum_n (R_n - R_{n-1}) * P_n`` over the distinct score values taken as thresholds in
    decreasing order (everything scoring ``>=`` the threshold is positive, so tied scores
    enter together), with ``R_0 = 0``. No interpolation. None when gold has no positive.
    """
    score_arr, gold_arr = _binary_inputs(scores, gold)
    n_pos = int(gold_arr.sum())
    if n_pos == 0:
        return None
    order = np.argsort(-score_arr, kind="mergesort")
    sorted_scores = score_arr[order]
    tps_all = np.cumsum(gold_arr[order])
    # the last index of each run of equal scores is where that threshold's counts are complete
    last_of_group = np.append(np.flatnonzero(np.diff(sorted_scores)), len(sorted_scores) - 1)
    tps = tps_all[last_of_group].astype(float)
    precision = tps / (last_of_group + 1)
    recall = tps / n_pos
    return float(np.sum(np.diff(recall, prepend=0.0) * precision))


def _counts_at_thresholds(
    scores: np.ndarray, gold: np.ndarray, thresholds: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(tp, fp, fn, tn) per threshold, predicting positive where ``score >= threshold``."""
    all_sorted = np.sort(scores)
    pos_sorted = np.sort(scores[gold])
    n_pos = len(pos_sorted)
    n_neg = len(scores) - n_pos
    predicted_pos = len(all_sorted) - np.searchsorted(all_sorted, thresholds, side="left")
    tp = n_pos - np.searchsorted(pos_sorted, thresholds, side="left")
    fp = predicted_pos - tp
    return tp, fp, n_pos - tp, n_neg - fp


def _threshold_metrics(
    tp: np.ndarray, fp: np.ndarray, fn: np.ndarray, tn: np.ndarray
) -> dict[str, np.ndarray]:
    def safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
        num = np.asarray(num, dtype=float)
        den = np.asarray(den, dtype=float)
        return np.divide(num, den, out=np.zeros_like(num), where=den > 0)

    f1_pos = safe_div(2 * tp, 2 * tp + fp + fn)
    f1_neg = safe_div(2 * tn, 2 * tn + fn + fp)
    return {
        "macro_f1": (f1_pos + f1_neg) / 2.0,
        "f1_pos": f1_pos,
        "accuracy": safe_div(tp + tn, tp + fp + fn + tn),
        "precision": safe_div(tp, tp + fp),
        "recall": safe_div(tp, tp + fn),
    }


def binary_classification(
    scores: Sequence[float],
    gold: Sequence[int],
    *,
    threshold: float = 0.5,
) -> dict[str, float | int | None]:
    """Sentence- or claim-level detection metrics; gold 1 = hallucinated / unsupported.

    An item is predicted positive when ``score >= threshold``. Per class c, ``F1_c =
    2 tp_c / (2 tp_c + fp_c + fn_c)`` (0.0 when the class is neither predicted nor present).
    ``macro_f1`` always averages both classes: scikit-learn's ``f1_score(gold, predicted,
    labels=[0, 1], average="macro", zero_division=0)``. Without ``labels`` scikit-learn
    averages only the classes that occur, so it differs when one class is neither in gold nor
    predicted (scores ``[0.9, 0.8]``, gold ``[1, 1]``: 0.5 here, 1.0 there). Returns:

    - ``macro_f1``: mean of F1 of class 0 and class 1; ``f1_pos``: F1 of class 1;
    - ``precision`` / ``recall``: of class 1 (0.0 when the denominator is 0);
    - ``accuracy``; ``roc_auc`` (:func:`roc_auc`, None with one gold class);
    - ``pr_auc``: :func:`average_precision` (None without gold positives);
    - ``n`` (items) and ``threshold``.
    """
    score_arr, gold_arr = _binary_inputs(scores, gold)
    counts = _counts_at_thresholds(score_arr, gold_arr, np.array([float(threshold)]))
    at_threshold = {k: float(v[0]) for k, v in _threshold_metrics(*counts).items()}
    return {
        "macro_f1": at_threshold["macro_f1"],
        "f1_pos": at_threshold["f1_pos"],
        "accuracy": at_threshold["accuracy"],
        "precision": at_threshold["precision"],
        "recall": at_threshold["recall"],
        "roc_auc": roc_auc(scores, gold),
        "pr_auc": average_precision(scores, gold),
        "n": len(score_arr),
        "threshold": float(threshold),
    }


def best_threshold(
    scores: Sequence[float],
    gold: Sequence[int],
    metric: ThresholdMetric = "macro_f1",
) -> tuple[float, float]:
    """The threshold maximising ``metric`` (``macro_f1``, ``f1_pos`` or ``accuracy``) and its value.

    Candidates (predicting positive where ``score >= threshold``): the smallest score (all
    positive), the midpoints between consecutive distinct scores (the upper score where the
    two are adjacent floats and the midpoint rounds down to the lower one), and the next
    float above the largest score (all negative). On ties the smallest threshold wins. Tune
    on a development split, never on the split you report.
    """
    if metric not in ("macro_f1", "f1_pos", "accuracy"):
        raise ValueError(f"metric must be 'macro_f1', 'f1_pos' or 'accuracy', got {metric!r}")
    score_arr, gold_arr = _binary_inputs(scores, gold)
    distinct = np.unique(score_arr)
    midpoints = (distinct[:-1] + distinct[1:]) / 2.0
    # between adjacent floats the midpoint rounds to the lower score, which would select it too
    midpoints = np.where(midpoints > distinct[:-1], midpoints, distinct[1:])
    candidates = np.concatenate([distinct[:1], midpoints, [np.nextafter(distinct[-1], np.inf)]])
    values = _threshold_metrics(*_counts_at_thresholds(score_arr, gold_arr, candidates))[metric]
    best = int(np.argmax(values))
    return float(candidates[best]), float(values[best])


# --------------------------------------------------------------------------------------------
# 7. Entity-level AUCs
# --------------------------------------------------------------------------------------------


def entity_auc(
    scores_per_sample: Sequence[Sequence[float]],
    labels_per_sample: Sequence[Sequence[int]],
) -> dict[str, float | int | None]:
    """Entity-level ROC-AUC and average precision, pooled and per sample (label 1 = hallucinated).

    - ``pooled_auroc`` / ``pooled_auprc``: :func:`roc_auc` / :func:`average_precision` over
      all entities of all samples pooled together (None if the pool has one class).
    - ``sample_auroc`` / ``sample_auprc``: the same metrics computed within each sample and
      averaged over the samples where both classes occur (``n_samples_used`` of them; None
      if there is none). Samples with a single class are skipped, not scored.
    """
    _check_parallel("scores_per_sample", scores_per_sample, "labels_per_sample", labels_per_sample)
    for i, (s, y) in enumerate(zip(scores_per_sample, labels_per_sample, strict=True)):
        if len(s) != len(y):
            raise ValueError(f"sample {i}: {len(s)} scores but {len(y)} labels")
    pooled_scores = [float(x) for s in scores_per_sample for x in s]
    pooled_labels = [int(y) for labels in labels_per_sample for y in labels]
    if not pooled_scores:
        raise ValueError("got no entities in any sample")
    aurocs: list[float] = []
    auprcs: list[float] = []
    for s, y in zip(scores_per_sample, labels_per_sample, strict=True):
        sample_auroc = roc_auc(s, y) if len(s) else None
        if sample_auroc is not None:
            aurocs.append(sample_auroc)
            # both classes occur, so there is a positive and the precision is defined
            auprcs.append(cast(float, average_precision(s, y)))
    return {
        "pooled_auroc": roc_auc(pooled_scores, pooled_labels),
        "pooled_auprc": average_precision(pooled_scores, pooled_labels),
        "sample_auroc": float(np.mean(aurocs)) if aurocs else None,
        "sample_auprc": float(np.mean(auprcs)) if auprcs else None,
        "n_samples_used": len(aurocs),
    }


# --------------------------------------------------------------------------------------------
# 8. OpenIE: CaRB-style scoring
# --------------------------------------------------------------------------------------------

_TOKEN_RE = re.compile(r"\w+")


def _tokens(text: str) -> Counter[str]:
    return Counter(_TOKEN_RE.findall(text.lower()))


def _join_args(args: str | Sequence[str] | None) -> str:
    if args is None:
        return ""
    if isinstance(args, str):
        return args
    return " ".join(str(a) for a in args)


def _tuple_parts(
    arg1: str, relation: str, args: str | Sequence[str] | None
) -> tuple[Counter[str], ...]:
    # part order (relation, arg1, args) is the order the match test walks them in
    return _tokens(relation), _tokens(arg1), _tokens(_join_args(args))


def _carb_pair_score(
    gold: tuple[Counter[str], ...], pred: tuple[Counter[str], ...]
) -> tuple[float, float]:
    """(precision, recall) of one predicted tuple against one gold tuple; (0, 0) if no match."""
    gold_rel, gold_arg1, gold_args = gold
    pred_rel, pred_arg1, pred_args = pred
    overlaps = [sum((g & p).values()) for g, p in zip(gold, pred, strict=True)]
    if overlaps[0] == 0 or overlaps[1] == 0 or (gold_args and overlaps[2] == 0):
        return 0.0, 0.0
    matched = sum(overlaps)
    n_pred = sum(pred_rel.values()) + sum(pred_arg1.values()) + sum(pred_args.values())
    n_gold = sum(gold_rel.values()) + sum(gold_arg1.values()) + sum(gold_args.values())
    return matched / n_pred, matched / n_gold


def _greedy_precision_sum(precision: np.ndarray) -> float:
    """Sum of precisions of a one-to-one gold/pred assignment chosen greedily by best precision."""
    remaining = precision.astype(float).copy()
    total = 0.0
    for _ in range(min(remaining.shape)):
        row, col = np.unravel_index(int(np.argmax(remaining)), remaining.shape)
        total += remaining[row, col]
        remaining[row, :] = -1.0
        remaining[:, col] = -1.0
    return float(total)


def strict_carb_score(
    predicted: Mapping[str, Sequence[tuple]],
    gold: Mapping[str, Sequence[tuple]],
) -> dict[str, Any]:
    """A STRICTER variant of CaRB's OpenIE scores (Bhardwaj et al., 2019), kept for comparison
    with the project's earlier numbers; :func:`enoki_hd.extract.carb.carb_score` reproduces the
    official scorer and is the one to report (``carb_score(..., match="strict")`` calls this).

    How it differs from CaRB: a match needs shared arg1 and object tokens (CaRB: a shared
    relation token is enough), tokens are lower-cased ``\\w+`` (CaRB: whitespace tokens, case
    kept), context arguments are kept, and the PR curve starts at the precision of the
    highest-threshold point (CaRB: at (recall 0, precision 1)).

    Inputs are keyed by sentence text (exact string match). Gold tuples are
    ``(arg1, relation, args)`` and predicted tuples ``(arg1, relation, args, confidence)``,
    where ``args`` is a string (may be empty) or a list of argument strings, joined with
    spaces into one part. A confidence of None counts as 1.0.

    Matching. Text is lowercased and split into ``\\w+`` tokens. A gold/pred pair *matches*
    if they share at least one token in the relation, at least one in arg1 and, when the gold
    tuple has args, at least one in args. For a matching pair, with ``m`` = shared tokens
    summed over the three parts (multiset overlap, each token matched once):
    ``precision = m / pred tokens``, ``recall = m / gold tokens`` (tokens summed over parts,
    including predicted args when the gold has none). A non-matching pair scores (0, 0).

    Aggregation at a confidence threshold t (predictions with confidence >= t are kept):
    - recall: each gold tuple takes its best recall over all kept predictions of its
      sentence (many-to-one: a prediction may serve several gold tuples);
      ``R = sum / number of gold tuples``;
    - precision: within each sentence, gold/pred pairs are assigned one-to-one, greedily by
      highest pair precision (``min(#gold, #kept)`` pairs); unassigned predictions score 0;
      ``P = sum / number of kept predictions``.

    t sweeps the distinct confidences in decreasing order. Returned: ``precision``,
    ``recall``, ``f1`` and ``threshold`` at the best-F1 threshold (the highest threshold on
    ties); ``auc``: trapezoidal area under P over R, the curve anchored at recall 0 with the
    precision of the highest-threshold point; ``curve``: the
    ``(threshold, precision, recall)`` points; ``n_gold``, ``n_pred`` (predictions scored)
    and ``n_pred_ignored`` (predictions for sentences absent from gold, which are not scored).
    Without any scored prediction every score is 0.0 and ``threshold`` is None.

    Not reproduced from the reference implementation: its extra argument-swapped match for
    "said"-type relations, and its leaving out of the precision denominator the predicted
    args of a gold tuple that has none.
    """
    ignored = [s for s in predicted if s not in gold]
    n_ignored = sum(len(predicted[s]) for s in ignored)
    if n_ignored:
        logger.warning(
            "strict_carb_score: %d predicted tuples in %d sentences absent from gold are not scored",
            n_ignored,
            len(ignored),
        )
    n_gold = sum(len(tuples) for tuples in gold.values())
    if n_gold == 0:
        raise ValueError("gold has no tuples; CaRB recall is undefined")

    # per sentence: (distinct confidences desc, cumulative (precision sum, recall sum, kept))
    sentence_steps: list[tuple[list[float], list[tuple[float, float, int]]]] = []
    all_confidences: set[float] = set()
    n_pred = 0
    for sentence, gold_tuples in gold.items():
        for t in gold_tuples:
            if len(t) != 3:
                raise ValueError(f"gold tuples must be (arg1, relation, args), got {t!r}")
        pred_tuples = list(predicted.get(sentence, []))
        if not pred_tuples:
            continue
        for t in pred_tuples:
            if len(t) != 4:
                raise ValueError(
                    f"predicted tuples must be (arg1, relation, args, confidence), got {t!r}"
                )
        gold_parts = [_tuple_parts(a1, rel, args) for a1, rel, args in gold_tuples]
        pred_parts = [_tuple_parts(a1, rel, args) for a1, rel, args, _ in pred_tuples]
        confidence = np.array([1.0 if t[3] is None else float(t[3]) for t in pred_tuples])
        n_pred += len(pred_tuples)
        pair = np.zeros((len(gold_parts), len(pred_parts), 2))
        for i, g in enumerate(gold_parts):
            for j, p in enumerate(pred_parts):
                pair[i, j] = _carb_pair_score(g, p)
        levels = sorted(set(confidence.tolist()), reverse=True)
        all_confidences.update(levels)
        steps = []
        for level in levels:
            kept = confidence >= level
            if len(gold_parts):
                recall_sum = float(pair[:, kept, 1].max(axis=1).sum())
                precision_sum = _greedy_precision_sum(pair[:, kept, 0])
            else:
                recall_sum = precision_sum = 0.0
            steps.append((precision_sum, recall_sum, int(kept.sum())))
        sentence_steps.append((levels, steps))

    if not all_confidences:
        return {
            "precision": 0.0,
            "recall": 0.0,
            "f1": 0.0,
            "auc": 0.0,
            "threshold": None,
            "curve": [],
            "n_gold": n_gold,
            "n_pred": 0,
            "n_pred_ignored": n_ignored,
        }

    thresholds = np.array(sorted(all_confidences, reverse=True))
    # each sentence's totals change only at its own confidence levels: add the change there
    # and accumulate down the (decreasing) global thresholds
    delta = np.zeros((len(thresholds), 3))
    index_of = {float(t): k for k, t in enumerate(thresholds)}
    for levels, steps in sentence_steps:
        previous = (0.0, 0.0, 0)
        for level, step in zip(levels, steps, strict=True):
            delta[index_of[level]] += np.subtract(step, previous)
            previous = step
    precision_sum, recall_sum, kept = np.cumsum(delta, axis=0).T
    precision = precision_sum / kept
    recall = recall_sum / n_gold
    f1 = np.array([_f1(p, r) for p, r in zip(precision, recall, strict=True)])
    best = int(np.argmax(f1))
    curve_r = np.concatenate([[0.0], recall])
    curve_p = np.concatenate([[precision[0]], precision])
    auc = float(np.sum(np.diff(curve_r) * (curve_p[1:] + curve_p[:-1]) / 2.0))
    return {
        "precision": float(precision[best]),
        "recall": float(recall[best]),
        "f1": float(f1[best]),
        "auc": auc,
        "threshold": float(thresholds[best]),
        "curve": [
            (float(t), float(p), float(r))
            for t, p, r in zip(thresholds, precision, recall, strict=True)
        ],
        "n_gold": n_gold,
        "n_pred": n_pred,
        "n_pred_ignored": n_ignored,
    }
