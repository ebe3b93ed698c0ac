"""The CaRB scorer against the official one: scorer_check files, match rule, readers, gold."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytest import approx

from enoki_hd.eval.datasets import load_carb
from enoki_hd.extract.carb import (
    binary_lenient_tuple_match,
    carb_score,
    read_carb_tabbed,
    read_openie5,
)

# file -> (reader, official P, R, F1, AUC), from data/carb/scorer_check/README.md
OFFICIAL = {
    "openie5_dev_output.txt": (read_openie5, (0.526, 0.406, 0.458, 0.240)),
    "rules_chains_dev.tab": (read_carb_tabbed, (0.355, 0.403, 0.377, 0.202)),
    "rules_collapsed_dev.tab": (read_carb_tabbed, (0.556, 0.393, 0.460, 0.241)),
}


@pytest.mark.parametrize("name", sorted(OFFICIAL))
def test_scorer_check_reproduces_the_official_carb_numbers(shared_dir: Path, name: str):
    carb = shared_dir / "data" / "carb"
    if not (carb / "scorer_check").is_dir():
        pytest.skip(f"{carb / 'scorer_check'} not found: no official CaRB numbers to check")
    reader, official = OFFICIAL[name]
    gold = load_carb(carb / "dev_sentences.txt", carb / "dev_gold.tsv").gold
    scores = carb_score(reader(carb / "scorer_check" / name), gold)
    ours = tuple(round(scores[key], 3) for key in ("precision", "recall", "f1", "auc"))
    assert ours == official
    assert scores["n_gold"] == 2548


# --------------------------------------------------------------------------------------------
# The match rule, by hand
# --------------------------------------------------------------------------------------------


def test_match_counts_shared_words_per_part():
    # relation {born, in}, arg1 {Obama}, arg2 {Hawaii}: 4 shared of 2 + 1 + 3 predicted words
    # and of 3 + 2 + 3 gold words
    score = binary_lenient_tuple_match(
        "was born in", ["Barack Obama", "Honolulu , Hawaii"], "born in", ["Obama", "Hawaii in 1961"]
    )
    assert score == approx((4 / 6, 4 / 8))


def test_match_needs_a_shared_relation_word_but_no_shared_argument_word():
    assert binary_lenient_tuple_match("likes", ["John", "pears"], "likes", ["Mary", "apples"]) == (
        approx(1 / 3),
        approx(1 / 3),
    )
    assert binary_lenient_tuple_match("likes", ["John", "pears"], "loves", ["John", "pears"]) == (
        0,
        0,
    )


def test_match_is_case_sensitive_on_whitespace_tokens():
    assert binary_lenient_tuple_match("likes", ["John"], "Likes", ["John"]) == (0, 0)
    assert binary_lenient_tuple_match("is", ["it"], "is,", ["it"]) == (0, 0)


def test_match_needs_an_object_slot_when_the_gold_has_one():
    assert binary_lenient_tuple_match("likes", ["John", "pears"], "likes", ["John"]) == (0, 0)
    # the gold has no object: the predicted one is not counted at all
    assert binary_lenient_tuple_match("sleeps", ["John"], "sleeps", ["John", "well"]) == (1, 1)


def test_match_joins_later_arguments_into_one_object():
    score = binary_lenient_tuple_match(
        "was born", ["Obama", "in Hawaii", "in 1961"], "was born", ["Obama", "in Hawaii in 1961"]
    )
    assert score == (1, 1)


def test_predicted_be_matches_a_form_of_be():
    # relation: "be" against "is" counts as one shared word; 3 of 4 predicted, 3 of 3 gold
    score = binary_lenient_tuple_match("is", ["Bush", "President"], "can be", ["Bush", "President"])
    assert score == approx((3 / 4, 1))


def test_said_relations_also_match_with_arguments_swapped():
    gold = ("said", ["Mr. Mills", "profits rose"])
    assert binary_lenient_tuple_match(*gold, "said", ["profits rose", "Mr. Mills"]) == (1, 1)
    # other relations: only the relation word is shared, 1 of 4 words
    assert binary_lenient_tuple_match(
        "likes", ["Mr. Mills", "pears"], "likes", ["pears", "Mr. Mills"]
    ) == approx((1 / 4, 1 / 4))


# --------------------------------------------------------------------------------------------
# Aggregation
# --------------------------------------------------------------------------------------------


def test_curve_starts_at_recall_zero_precision_one():
    gold = {"s": [("John", "likes", ["apples"]), ("John", "likes", ["pears"])]}
    pred = {
        "s": [
            ("John", "likes", ["apples"], 0.9),
            ("John", "likes", ["apples and pears"], 0.4),
        ]
    }
    scores = carb_score(pred, gold)
    # pair (P, R): g1-p1 (1, 1), g1-p2 (3/5, 1), g2-p1 (2/3, 2/3), g2-p2 (3/5, 1)
    # t = 0.9: R = (1 + 2/3) / 2, P = 1 / 1; t = 0.4: R = (1 + 1) / 2, P = (1 + 3/5) / 2
    assert scores["curve"] == [approx((0.9, 1.0, 5 / 6)), approx((0.4, 0.8, 1.0))]
    assert (scores["precision"], scores["recall"], scores["f1"]) == approx((1, 5 / 6, 10 / 11))
    assert scores["threshold"] == 0.9
    # (1, 0.8) -> (5/6, 1) -> (0, 1)
    assert scores["auc"] == approx(1 / 6 * 0.9 + 5 / 6)


def test_sentences_match_without_spaces_and_punctuation_and_context_args_are_dropped():
    gold = {"John likes apples .": [("John", "likes", ["apples", "C: Mary said"])]}
    pred = {"John likes apples": [("John", "likes", "apples", None)]}
    scores = carb_score(pred, gold)
    assert (scores["precision"], scores["recall"], scores["auc"]) == (1, 1, 1)
    assert scores["n_pred"] == 1 and scores["n_pred_ignored"] == 0


def test_without_predictions_every_score_is_zero():
    scores = carb_score({}, {"s": [("John", "likes", ["apples"])]})
    assert (scores["precision"], scores["recall"], scores["f1"], scores["auc"]) == (0, 0, 0, 0)
    assert scores["threshold"] is None


def test_strict_match_needs_shared_argument_words():
    gold = {"s": [("John", "likes", ["pears"])]}
    pred = {"s": [("Mary", "likes", "apples", 1.0)]}
    assert carb_score(pred, gold)["recall"] == approx(1 / 3)
    assert carb_score(pred, gold, match="strict")["recall"] == 0
    with pytest.raises(ValueError, match="match must be 'carb' or 'strict', got 'loose'"):
        carb_score(pred, gold, match="loose")


# --------------------------------------------------------------------------------------------
# Readers and gold
# --------------------------------------------------------------------------------------------

OPENIE5_LINES = [
    "0.95\t\tSimpleArgument(President Bush,List([20, 34)))\tRelation(made,List([35, 39)))\t"
    "SimpleArgument(an offer,List([40, 48))); TemporalArgument(Earlier this year,List([0, 17)))"
    "\tEarlier this year , President Bush made an offer .",
    "0.72\tContext(This finding indicated,List([0, 22)))\tSimpleArgument(compounds,List([28, 37)))"
    "\tRelation(could carry,List([38, 49)))\tSimpleArgument(current,List([50, 57)))"
    "\tThis finding indicated that compounds could carry current .",
    "0.71\t\tSimpleArgument(Dripping,List([0, 8)))\tRelation(can be clarified,List([9, 25)))\t"
    "\tDripping can be clarified .",
]


def test_read_openie5(tmp_path: Path):
    path = tmp_path / "openie5.txt"
    path.write_text("\n".join(OPENIE5_LINES) + "\n", "utf-8")
    assert read_openie5(path) == {
        "Earlier this year , President Bush made an offer .": [
            ("President Bush", "made", ["an offer", "Earlier this year"], 0.95)
        ],
        "This finding indicated that compounds could carry current .": [
            ("This finding indicated compounds", "could carry", ["current"], 0.72)
        ],
    }


def test_read_openie5_names_a_malformed_line(tmp_path: Path):
    path = tmp_path / "openie5.txt"
    path.write_text("0.5\tSimpleArgument(x,List([0, 1)))\n", "utf-8")
    with pytest.raises(ValueError, match=r"openie5.txt:1: expected 6 tab-separated columns"):
        read_openie5(path)


def test_read_carb_tabbed(tmp_path: Path):
    path = tmp_path / "pred.tab"
    path.write_text("Ann sleeps .\t0.9\tsleeps\tAnn\t\nAnn sleeps .\t0.5\tsleeps\tAnn\twell\n")
    assert read_carb_tabbed(path) == {
        "Ann sleeps .": [("Ann", "sleeps", [], 0.9), ("Ann", "sleeps", ["well"], 0.5)]
    }


def test_load_carb_keeps_implicit_relations_and_inner_empty_args(tmp_path: Path):
    sentences = tmp_path / "s.txt"
    sentences.write_text("Ann , a nurse , said she sleeps .\n", "utf-8")
    gold = tmp_path / "g.tsv"
    gold.write_text(
        "Ann , a nurse , said she sleeps .\t\tAnn\ta nurse\n"
        "Ann , a nurse , said she sleeps .\tsleeps\tshe\t\tC: Ann said\t\n",
        "utf-8",
    )
    carb = load_carb(sentences, gold)
    assert carb.gold == {
        "Ann , a nurse , said she sleeps .": [
            ("Ann", "", ["a nurse"]),
            ("she", "sleeps", ["", "C: Ann said"]),
        ]
    }
    # the implicit relation is never matched; the empty slot asks for an object
    pred = {"Ann , a nurse , said she sleeps .": [("Ann", "is", "a nurse", 1.0)]}
    assert carb_score(pred, carb.gold)["recall"] == 0
    pred = {"Ann , a nurse , said she sleeps .": [("she", "sleeps", "", 1.0)]}
    assert carb_score(pred, carb.gold)["recall"] == 0
