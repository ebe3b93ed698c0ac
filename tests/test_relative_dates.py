"""A date the context gives relative to another, written out (verify/relative_dates.py): the
sentences resolved, the dates an answer states, the facts vouched for, and the shipped
detector supporting "announced in May" against "in February. Three months later, it
announced"."""

from __future__ import annotations

import pytest

from enoki_hd import Detector
from enoki_hd.types import Fact, FactVerdict, NLIScores, Span
from enoki_hd.verify.loading import default_verifier_path
from enoki_hd.verify.relative_dates import (
    Resolved,
    When,
    relative_pairs,
    resolved_sentences,
    states,
    vouch_by_relative_dates,
)


@pytest.mark.parametrize(
    ("context", "expected"),
    [
        (
            "Vanderloo completed its takeover in February. Three months later, it announced the"
            " closure.",
            [("In May, it announced the closure.", "May", 0)],
        ),
        (
            "The meeting, originally scheduled for 14 November 2023, was postponed by one week.",
            [
                (
                    "The meeting, originally scheduled for 14 November 2023, was postponed by one"
                    " week to 21 November 2023.",
                    "21 November 2023",
                    0,
                )
            ],
        ),
        (
            "She joined Maison Ferrand in 1906. Thirteen years later she became chief designer.",
            [("In 1919 she became chief designer.", "1919", 0)],
        ),
        # a resolved date anchors the next one
        (
            "The trial began on 3 March 2021. Two weeks later, the jury retired. The verdict came"
            " the following day.",
            [
                ("On 17 March 2021, the jury retired.", "17 March 2021", 0),
                ("The verdict came on 18 March 2021.", "18 March 2021", 33),
            ],
        ),
        (
            "On 12 June the concert was brought forward by two days.",
            [("On 12 June the concert was brought forward by two days to 10 June.", "10 June", 0)],
        ),
        (
            "It rose in March 2020 and a year later fell.",
            [("It rose in March 2020 and in 2021 fell.", "2021", 0)],
        ),
        # the year turns and the context does not say which: nothing resolved
        ("He arrived in October. Four months later he left.", []),
        # a week needs a day to count from; an unresolved date anchors nothing after it
        ("It opened in 2019. A week later it closed. The next day it reopened.", []),
        ("Nothing here is dated relative to anything.", []),
        # a date in another passage is not counted from
        ("The plant opened in February.\n\nThree months later, it closed.", []),
    ],
)
def test_a_date_given_relative_to_another_is_written_out(
    context: str, expected: list[tuple[str, str, int]]
) -> None:
    resolved = resolved_sentences(context)
    assert [(r.text, r.when.written(), r.evidence.start) for r in resolved] == expected


@pytest.mark.parametrize(
    ("hypothesis", "when", "expected"),
    [
        ("The closure was announced in May.", When(None, 5), True),
        ("The closure was announced in May 2021.", When(None, 5), True),
        ("The closure was announced in June.", When(None, 5), False),
        ("The meeting took place on November 21, 2023.", When(2023, 11, 21), True),
        ("The meeting took place on 21 November.", When(2023, 11, 21), True),
        ("The meeting took place on November 21, 2022.", When(2023, 11, 21), False),
        ("The meeting took place in November 2023.", When(2023, 11, 21), False),
        ("She became chief designer in 1919.", When(1919), True),
        ("She became chief designer on 3 May 1919.", When(1919), False),
    ],
)
def test_the_date_a_hypothesis_states(hypothesis: str, when: When, expected: bool) -> None:
    assert states(hypothesis, when) is expected


def _verdict(hypothesis: str, label: str, decided_by: str) -> FactVerdict:
    fact = Fact(id="f0", sentence=0, subject="s", relation="r", object="o")
    return FactVerdict(
        fact=fact,
        hypothesis=hypothesis,
        probs=NLIScores(entailment=0.05, neutral=0.04, contradiction=0.91),
        label=label,  # type: ignore[arg-type]
        score=0.91,
        decided_by=decided_by,
    )


def test_a_failed_fact_stating_the_resolved_date_is_supported_when_the_rewrite_entails_it() -> None:
    context = (
        "Vanderloo completed its takeover in February. Three months later, it announced the"
        " closure."
    )
    verdicts = [
        _verdict("The closure was announced in May.", "contradicted", "nli"),
        _verdict("The closure was announced in June.", "contradicted", "nli"),
        _verdict("The closure was announced in May.", "contradicted", "negation_conflict"),
        _verdict("The takeover was completed in May.", "supported", "nli"),
    ]
    pairs = relative_pairs(verdicts, context)
    # no failed fact states a date: the context is not read
    assert relative_pairs(verdicts[3:], context) == []
    assert [(i, r.text) for i, r in pairs] == [(0, "In May, it announced the closure.")]
    entailed = NLIScores(entailment=0.9, neutral=0.06, contradiction=0.04)
    vouched = vouch_by_relative_dates(verdicts, pairs, [entailed], context, 0.5)
    assert (vouched[0].label, vouched[0].decided_by, vouched[0].score) == (
        "supported",
        "relative_date",
        0.1,
    )
    assert vouched[0].evidence is not None and vouched[0].evidence.text == context
    assert vouched[1:] == verdicts[1:]
    # not entailed: the fact keeps its verdict
    neutral = NLIScores(entailment=0.3, neutral=0.6, contradiction=0.1)
    assert vouch_by_relative_dates(verdicts, pairs, [neutral], context, 0.5) == verdicts
    # entailed but with a hallucination probability at the threshold: kept too
    weak = NLIScores(entailment=0.45, neutral=0.3, contradiction=0.25)
    assert vouch_by_relative_dates(verdicts, pairs, [weak], context, 0.5) == verdicts


def test_a_resolved_sentence_keeps_its_place_in_the_context() -> None:
    context = "It began on 3 March 2021. Two weeks later, the jury retired."
    (resolved,) = resolved_sentences(context)
    assert resolved == Resolved(
        span=Span(26, 60),
        text="On 17 March 2021, the jury retired.",
        when=When(2021, 3, 17),
        evidence=Span(0, 60),
    )


@pytest.mark.skipif(
    not (default_verifier_path() / "model.onnx").is_file(),
    reason="the shipped verifier is missing; run `make train-verifier`",
)
def test_the_shipped_detector_supports_a_date_the_context_gives_relative_to_another() -> None:
    detector = Detector()
    context = (
        "Vanderloo Foods completed its takeover of the bakery chain Crumbworth in February."
        " Three months later, it announced the closure of Crumbworth's factory in Stanmoor,"
        " with the loss of 220 jobs."
    )
    right = detector.detect(
        answer="The closure of the Stanmoor factory was announced in May.", context=context
    )
    assert right.spans == [] and right.sentences[0].label == "supported"
    assert "relative_date" in {v.decided_by for v in right.facts}
    wrong = detector.detect(
        answer="The closure of the Stanmoor factory was announced in April.", context=context
    )
    assert wrong.sentences[0].label != "supported"
    assert "relative_date" not in {v.decided_by for v in wrong.facts}
