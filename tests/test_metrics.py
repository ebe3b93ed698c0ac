"""Hand-computed checks for enoki_hd.eval.metrics (the expected value's arithmetic is in the
comment next to it)."""

from __future__ import annotations

import numpy as np
import pytest

from enoki_hd.eval.metrics import (
    average_precision,
    best_threshold,
    binary_classification,
    char_iou,
    char_prf,
    coverage_f1,
    coverage_f1_sweep,
    entity_auc,
    example_prf,
    roc_auc,
    soft_spearman,
    span_scores_to_char_scores,
    strict_carb_score,
)
from enoki_hd.types import Span

approx = pytest.approx

# --------------------------------------------------------------------------------------------
# coverage_f1
# --------------------------------------------------------------------------------------------


def test_coverage_f1_contained_prediction_is_correct_and_recalls():
    result = coverage_f1([[(0, 5)]], [[(0, 10)]])
    assert result["micro_p"] == result["micro_r"] == result["micro_f1"] == 1.0
    assert result["macro_p"] == result["macro_r"] == result["macro_f1"] == 1.0


@pytest.mark.parametrize("pred", [(8, 15), (15, 22)])
def test_coverage_f1_delta_tolerance(pred):
    # pred sticks out of gold [10, 20) by 2 characters (before the start or after the end)
    sweep = coverage_f1_sweep([[pred]], [[(10, 20)]], deltas=[0, 1, 2, 3])
    assert [sweep[d]["micro_f1"] for d in (0, 1, 2, 3)] == [0.0, 0.0, 1.0, 1.0]
    assert sweep[2]["delta"] == 2


def test_coverage_f1_sweep_default_deltas():
    assert list(coverage_f1_sweep([[(0, 1)]], [[(0, 1)]])) == [0, 1, 2, 3, 4, 5]


def test_coverage_f1_empty_conventions():
    # per example: both empty (1, 1, 1); preds without gold (0, 1, 0); gold without preds (1, 0, 0)
    result = coverage_f1([[], [(0, 3)], []], [[], [], [(0, 3)]])
    assert result["macro_p"] == approx(2 / 3)
    assert result["macro_r"] == approx(2 / 3)
    assert result["macro_f1"] == approx(1 / 3)
    # pooled: 0 of 1 preds correct, 0 of 1 golds recalled
    assert (result["micro_p"], result["micro_r"], result["micro_f1"]) == (0.0, 0.0, 0.0)


def test_coverage_f1_micro_without_any_prediction_or_gold():
    no_preds = coverage_f1([[]], [[(0, 3)]])
    assert (no_preds["micro_p"], no_preds["micro_r"], no_preds["micro_f1"]) == (1.0, 0.0, 0.0)
    nothing = coverage_f1([[], []], [[], []])
    assert nothing["micro_f1"] == nothing["macro_f1"] == 1.0


def test_coverage_f1_overlapping_predictions_count_separately():
    # (0,5) and (3,8) lie inside (0,10); (12,15) does not -> P = 2/3, R = 1, F1 = 0.8
    result = coverage_f1([[(0, 5), (3, 8), (12, 15)]], [[(0, 10)]])
    assert result["macro_p"] == approx(2 / 3)
    assert result["macro_r"] == 1.0
    assert result["macro_f1"] == approx(0.8)
    assert result["n_pred"] == 3 and result["n_correct_pred"] == 2


def test_coverage_f1_micro_pools_and_macro_averages():
    preds = [[(2, 4)], [(0, 5), (6, 9)]]
    golds = [[(0, 10), (20, 30)], [(0, 5)]]
    result = coverage_f1(preds, golds)
    # ex 1: P = 1, R = 1/2, F1 = 2/3; ex 2: P = 1/2, R = 1, F1 = 2/3
    assert result["macro_p"] == approx(0.75)
    assert result["macro_r"] == approx(0.75)
    assert result["macro_f1"] == approx(2 / 3)
    # pooled: 2 of 3 preds correct, 2 of 3 golds recalled
    assert result["micro_p"] == approx(2 / 3)
    assert result["micro_r"] == approx(2 / 3)
    assert result["micro_f1"] == approx(2 / 3)


def test_coverage_f1_accepts_span_objects_dicts_and_tuples():
    as_tuples = coverage_f1([[(2, 4)]], [[(0, 10)]])
    mixed = coverage_f1([[Span(2, 4)]], [[{"start": 0, "end": 10}]])
    assert as_tuples == mixed


def test_metrics_reject_mismatched_or_empty_inputs():
    with pytest.raises(ValueError, match="one entry per example"):
        coverage_f1([[]], [[], []])
    with pytest.raises(ValueError, match="no examples"):
        char_iou([], [])
    with pytest.raises(ValueError, match="start <= end"):
        char_prf([[(5, 2)]], [[]])


# --------------------------------------------------------------------------------------------
# char_prf / char_iou
# --------------------------------------------------------------------------------------------


def test_char_prf_unions_overlaps_and_pools_counts():
    preds = [[(0, 5), (3, 8)], [], [(0, 2)]]
    golds = [[(4, 10)], [], []]
    result = char_prf(preds, golds)
    # ex 1: P = {0..7}, G = {4..9} -> tp 4, fp 4, fn 2; ex 3: fp 2
    assert (result["tp"], result["fp"], result["fn"]) == (4, 6, 2)
    assert result["precision"] == approx(0.4)
    assert result["recall"] == approx(2 / 3)
    assert result["f1"] == approx(0.5)


def test_char_prf_lengths_drop_characters_past_the_answer():
    result = char_prf([[(0, 10)]], [[(0, 5)]], lengths=[6])
    assert (result["tp"], result["fp"], result["fn"]) == (5, 1, 0)


def test_char_prf_all_empty_is_zero():
    result = char_prf([[], []], [[], []])
    assert (result["precision"], result["recall"], result["f1"]) == (0.0, 0.0, 0.0)


def test_char_iou_per_example_and_mean():
    result = char_iou([[(0, 5)], [], [(0, 2)], [(0, 3), (1, 4)]], [[(3, 8)], [], [], [(0, 4)]])
    # |{3,4}| / |{0..7}| = 0.25; both empty = 1; nothing shared = 0; overlap union = gold = 1
    assert result["per_example"] == approx([0.25, 1.0, 0.0, 1.0])
    assert result["iou"] == approx(2.25 / 4)


# --------------------------------------------------------------------------------------------
# soft_spearman
# --------------------------------------------------------------------------------------------


def test_span_scores_to_char_scores_takes_max_over_overlaps():
    assert span_scores_to_char_scores([(0, 2, 0.5), (1, 3, 0.8)], 5) == approx(
        [0.5, 0.8, 0.8, 0.0, 0.0]
    )
    assert span_scores_to_char_scores([(3, 9, 0.4)], 4) == approx([0.0, 0.0, 0.0, 0.4])


def test_soft_spearman_hand_computed_rho():
    # ref [1, 1, 0, 0] -> centred ranks [1, 1, -1, -1]; pred ranks [4, 3, 1, 2] -> centred
    # [1.5, 0.5, -1.5, -0.5]; rho = 4 / sqrt(4 * 5)
    rho = soft_spearman([[0.9, 0.8, 0.1, 0.2]], [[{"start": 0, "end": 2, "prob": 1.0}]], [4])
    assert rho == approx(4 / np.sqrt(20))


def test_soft_spearman_matches_scipy():
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(0)
    pred = rng.integers(0, 4, size=30) / 4  # ties on purpose
    labels = [{"start": 3, "end": 10, "prob": 0.6}, {"start": 20, "end": 25, "prob": 0.2}]
    ref = np.zeros(30)
    ref[3:10], ref[20:25] = 0.6, 0.2
    expected = stats.spearmanr(ref, pred).correlation
    assert soft_spearman([pred.tolist()], [labels], [30]) == approx(expected)


def test_soft_spearman_constant_vectors_follow_official_rule():
    no_labels: list[dict] = []
    varying_ref = [{"start": 0, "end": 1, "prob": 0.5}]
    assert soft_spearman([[0.0, 0.0, 0.0]], [no_labels], [3]) == 1.0
    # the official scorer only asks whether both are constant, not whether they are equal
    assert soft_spearman([[0.3, 0.3, 0.3]], [no_labels], [3]) == 1.0
    assert soft_spearman([[0.1, 0.5, 0.1]], [no_labels], [3]) == 0.0
    assert soft_spearman([[0.2, 0.2, 0.2]], [varying_ref], [3]) == 0.0
    # mean over examples: (1 + 0) / 2
    assert soft_spearman([[0.0] * 3, [0.2] * 3], [no_labels, varying_ref], [3, 3]) == 0.5


def test_soft_spearman_rejects_wrong_vector_length():
    with pytest.raises(ValueError, match="one score per character"):
        soft_spearman([[0.1, 0.2]], [[]], [3])


# --------------------------------------------------------------------------------------------
# example_prf / binary_classification / AUCs / best_threshold
# --------------------------------------------------------------------------------------------


def test_example_prf():
    result = example_prf([True, True, False, False, True], [True, False, True, False, True])
    # tp 2, fp 1, fn 1, tn 1
    assert result == approx({"precision": 2 / 3, "recall": 2 / 3, "f1": 2 / 3, "accuracy": 0.6})
    nothing = example_prf([False, False], [False, False])
    assert nothing == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "accuracy": 1.0}


def test_binary_classification_hand_computed():
    result = binary_classification([0.9, 0.6, 0.4, 0.2], [1, 0, 1, 0])
    # predicted [1, 1, 0, 0]: tp = fp = fn = tn = 1 -> F1 of each class 0.5
    assert result["macro_f1"] == approx(0.5)
    assert result["f1_pos"] == approx(0.5)
    assert result["accuracy"] == approx(0.5)
    assert result["precision"] == approx(0.5) and result["recall"] == approx(0.5)
    # positive > negative in 3 of the 4 pairs
    assert result["roc_auc"] == approx(0.75)
    # P@0.9 = 1 at R 1/2, P@0.4 = 2/3 at R 1 -> 1/2 + 1/2 * 2/3
    assert result["pr_auc"] == approx(5 / 6)
    assert result["n"] == 4 and result["threshold"] == 0.5


def test_binary_classification_threshold_is_inclusive():
    assert binary_classification([0.5, 0.1], [1, 0])["f1_pos"] == 1.0


def test_binary_classification_single_class_class_f1_is_zero():
    result = binary_classification([0.1, 0.2], [0, 0])
    # class 1 neither predicted nor present: its F1 is 0 (scikit-learn with labels=[0, 1])
    assert result["macro_f1"] == approx(0.5)
    assert result["roc_auc"] is None and result["pr_auc"] is None


def test_auc_with_ties():
    scores, gold = [0.9, 0.5, 0.5, 0.1], [1, 0, 1, 0]
    # pairs: (0.9, 0.5) 1, (0.9, 0.1) 1, (0.5, 0.5) tie 1/2, (0.5, 0.1) 1 -> 3.5 / 4
    assert roc_auc(scores, gold) == approx(0.875)
    # the tied pair enters together: P@0.9 = 1 (R 1/2), P@0.5 = 2/3 (R 1)
    assert average_precision(scores, gold) == approx(5 / 6)
    assert roc_auc([0.5] * 4, gold) == approx(0.5)
    assert average_precision([0.5] * 4, gold) == approx(0.5)


def test_auc_single_class():
    assert roc_auc([0.1, 0.9], [1, 1]) is None
    assert roc_auc([0.1, 0.9], [0, 0]) is None
    assert average_precision([0.1, 0.9], [0, 0]) is None
    assert average_precision([0.1, 0.9], [1, 1]) == 1.0


def test_auc_matches_brute_force_definitions():
    rng = np.random.default_rng(1)
    scores = rng.integers(0, 6, size=60).astype(float)
    gold = rng.integers(0, 2, size=60)
    pos, neg = scores[gold == 1], scores[gold == 0]
    pairwise = np.mean((pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :]))
    assert roc_auc(scores, gold) == approx(pairwise)
    # AP = mean over positives of the precision at that positive's score
    at_pos = [np.sum(gold[scores >= s]) / np.sum(scores >= s) for s in pos]
    assert average_precision(scores, gold) == approx(np.mean(at_pos))


def test_binary_inputs_are_validated():
    with pytest.raises(ValueError, match="0 or 1"):
        roc_auc([0.1, 0.2], [0, 2])
    with pytest.raises(ValueError, match="finite"):
        roc_auc([0.1, float("nan")], [0, 1])


def test_best_threshold_prefers_the_smallest_among_ties():
    scores, gold = [0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1]
    # candidates 0.1, 0.225, 0.375, 0.6, >0.8 give macro F1 1/3, 11/15, 1/2, 11/15, 1/3
    threshold, value = best_threshold(scores, gold)
    assert threshold == approx(0.225) and value == approx(11 / 15)
    assert best_threshold(scores, gold, metric="f1_pos") == approx((0.225, 0.8))
    assert best_threshold(scores, gold, metric="accuracy") == approx((0.225, 0.75))


def test_best_threshold_separates_adjacent_floats():
    """Between two adjacent floats the midpoint rounds to the lower score; as a candidate it
    selected both items, so the split between them was never tried (0.5 and 1/3 returned)."""
    low = 0.5
    high = float(np.nextafter(low, 1.0))
    threshold, value = best_threshold([low, high], [0, 1])
    assert threshold == high and value == 1.0


def test_best_threshold_can_predict_nothing():
    threshold, value = best_threshold([0.9, 0.8], [0, 0], metric="accuracy")
    assert threshold > 0.9 and value == 1.0


# --------------------------------------------------------------------------------------------
# entity_auc
# --------------------------------------------------------------------------------------------


def test_entity_auc_pooled_and_per_sample():
    scores = [[0.9, 0.1], [0.2, 0.8], [0.5]]
    labels = [[1, 0], [1, 0], [1]]
    result = entity_auc(scores, labels)
    # per sample: AUROC 1 and 0, AP 1 and 1/2; the single-class sample is skipped
    assert result["n_samples_used"] == 2
    assert result["sample_auroc"] == approx(0.5)
    assert result["sample_auprc"] == approx(0.75)
    # pooled: positives {0.9, 0.2, 0.5} beat negatives {0.1, 0.8} in 4 of 6 pairs;
    # AP = (1 + 2/3 + 3/4) / 3
    assert result["pooled_auroc"] == approx(4 / 6)
    assert result["pooled_auprc"] == approx(29 / 36)


def test_entity_auc_without_usable_samples():
    result = entity_auc([[0.3], [0.4, 0.6]], [[1], [1, 1]])
    assert result["sample_auroc"] is None and result["n_samples_used"] == 0
    assert result["pooled_auroc"] is None and result["pooled_auprc"] == 1.0


# --------------------------------------------------------------------------------------------
# strict_carb_score (the earlier, stricter reading of CaRB)
# --------------------------------------------------------------------------------------------


def test_carb_exact_match():
    gold = {"s": [("Obama", "was born in", "Hawaii")]}
    result = strict_carb_score({"s": [("Obama", "was born in", "Hawaii", 0.9)]}, gold)
    assert (result["precision"], result["recall"], result["f1"], result["auc"]) == (1, 1, 1, 1)
    assert result["threshold"] == 0.9
    assert result["n_gold"] == result["n_pred"] == 1


def test_carb_disjoint_tuples_score_zero():
    gold = {"s": [("Obama", "was born in", "Hawaii")]}
    result = strict_carb_score({"s": [("cats", "eat", "fish", 0.5)]}, gold)
    assert (result["precision"], result["recall"], result["f1"], result["auc"]) == (0, 0, 0, 0)


def test_carb_partial_overlap():
    gold = {"s": [("Barack Obama", "was born in", "Honolulu, Hawaii")]}
    pred = {"s": [("Obama", "born in", "Hawaii in 1961", 0.8)]}
    result = strict_carb_score(pred, gold)
    # shared: relation {born, in}, arg1 {obama}, args {hawaii} = 4 tokens;
    # pred has 2 + 1 + 3 = 6 tokens, gold 3 + 2 + 2 = 7
    assert result["precision"] == approx(4 / 6)
    assert result["recall"] == approx(4 / 7)
    assert result["f1"] == approx(8 / 13)
    # curve (0, 2/3) -> (4/7, 2/3)
    assert result["auc"] == approx(8 / 21)


def test_carb_needs_a_shared_token_in_every_gold_part():
    gold = {"s": [("John", "likes", "pears")]}
    result = strict_carb_score({"s": [("John", "likes", "apples", 1.0)]}, gold)
    assert result["recall"] == 0.0


def test_carb_threshold_sweep_one_to_one_precision_many_to_one_recall():
    gold = {"s": [("John", "likes", "apples"), ("John", "likes", "pears")]}
    pred = {
        "s": [
            ("John", "likes", "apples", 0.9),
            ("John", "likes", ["apples", "and pears"], 0.4),
        ]
    }
    result = strict_carb_score(pred, gold)
    # pair (precision, recall): g1-p1 (1, 1), g1-p2 (3/5, 1), g2-p1 no match, g2-p2 (3/5, 1)
    # t = 0.9: R = (1 + 0) / 2, P = 1 / 1;  t = 0.4: R = (1 + 1) / 2, P = (1 + 3/5) / 2
    assert result["curve"] == [
        approx((0.9, 1.0, 0.5)),
        approx((0.4, 0.8, 1.0)),
    ]
    assert result["threshold"] == 0.4
    assert (result["precision"], result["recall"], result["f1"]) == approx((0.8, 1.0, 8 / 9))
    # (0, 1) -> (0.5, 1) -> (1, 0.8): 0.5 + 0.5 * 0.9
    assert result["auc"] == approx(0.95)


def test_carb_duplicate_predictions_share_one_gold_for_precision():
    gold = {"s": [("John", "likes", "apples")]}
    pred = {"s": [("John", "likes", "apples", 0.7), ("john", "LIKES", "apples.", 0.7)]}
    result = strict_carb_score(pred, gold)
    assert (result["precision"], result["recall"]) == approx((0.5, 1.0))


def test_carb_gold_without_args_and_list_args():
    gold = {"a": [("It", "rained", "")], "b": [("Obama", "was born", ["in Hawaii", "in 1961"])]}
    pred = {
        "a": [("It", "rained", "yesterday", 1.0)],
        "b": [("Obama", "was born", "in Hawaii in 1961", 1.0)],
    }
    result = strict_carb_score(pred, gold)
    # a: matched 2 of 3 pred tokens, both gold tokens; b: exact
    assert result["precision"] == approx((2 / 3 + 1) / 2)
    assert result["recall"] == approx(1.0)


def test_carb_unpredicted_gold_and_unknown_sentences():
    gold = {"a": [("John", "likes", "apples")], "b": [("Mary", "owns", "a dog")]}
    pred = {
        "a": [("John", "likes", "apples", 0.5)],
        "z": [("x", "y", "z", 0.9)],
    }
    result = strict_carb_score(pred, gold)
    assert (result["precision"], result["recall"]) == approx((1.0, 0.5))
    assert result["n_pred"] == 1 and result["n_pred_ignored"] == 1 and result["n_gold"] == 2


def test_carb_without_predictions():
    result = strict_carb_score({}, {"s": [("John", "likes", "apples")]})
    assert (result["precision"], result["recall"], result["f1"], result["auc"]) == (0, 0, 0, 0)
    assert result["threshold"] is None
