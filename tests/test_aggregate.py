"""Sentence verdicts and the summary: every status, the faithfulness rule, the sentence score
aggregations."""

from __future__ import annotations

import pytest

from enoki_hd.aggregate import (
    count_labels,
    flag_uncovered_names,
    label_from_score,
    sentence_verdicts,
    sentences_to_judge,
    summarize,
)
from enoki_hd.types import Evidence, Fact, FactVerdict, NLIScores, SentenceVerdict, Span
from enoki_hd.verify.evidence import EvidenceDecision
from enoki_hd.verify.grounding import GroundingIndex

ANSWER = "Suede formed in London. It split in 1998. Der Hund läuft."
SPANS = [Span(0, 23), Span(24, 41), Span(42, 57)]


def fact_verdict(fid: str, sentence: int, score: float, label: str, **kw) -> FactVerdict:
    fact = Fact(fid, sentence, "s", "r", "o")
    probs = NLIScores(1 - score, score, 0.0)
    return FactVerdict(fact, "h", probs, label, score=score, **kw)  # type: ignore[arg-type]


def decision(label: str, hall: float) -> EvidenceDecision:
    return EvidenceDecision(label, NLIScores(1 - hall, hall, 0.0), Evidence(0, 1, "x"), 1)  # type: ignore[arg-type]


def test_label_from_score_makes_the_label_agree_with_the_threshold() -> None:
    assert label_from_score("supported", 0.7, 0.5) == "unverifiable"
    assert label_from_score("contradicted", 0.3, 0.5) == "supported"
    assert label_from_score("contradicted", 0.5, 0.5) == "contradicted"


def test_sentences_to_judge() -> None:
    assert sentences_to_judge(3, None, {2}, aggregation="max") == [0, 1]
    assert sentences_to_judge(3, {0}, {2}, aggregation="max") == [1]
    assert sentences_to_judge(3, {0}, set(), aggregation="hybrid") == [0, 1, 2]


def test_sentence_verdicts_from_facts_fallback_and_language() -> None:
    verdicts = [
        fact_verdict("f0.0", 0, 0.1, "supported"),
        fact_verdict("f0.1", 0, 0.7, "contradicted"),
        fact_verdict("f0.2", 0, 0.95, "unverifiable", suppressed=True),
    ]
    sentences = sentence_verdicts(
        ANSWER,
        SPANS,
        verdicts,
        {1: decision("supported", 0.2)},
        unreadable={2},
        splits={1: [Span(0, 8), Span(9, 17)]},
    )
    first, second, third = sentences
    # max over the counted (not suppressed) facts; contradicted because one counted fact is
    assert (first.score, first.label, first.method, first.facts) == (
        0.7,
        "contradicted",
        "max",
        ["f0.0", "f0.1", "f0.2"],
    )
    assert (second.label, second.method) == ("supported", "sentence-nli-fallback")
    assert second.split == [Span(24, 32), Span(33, 41)]  # answer offsets
    assert (third.label, third.score, third.method) == (
        "unsupported_language",
        0.0,
        "unsupported_language",
    )


@pytest.mark.parametrize(
    ("aggregation", "expected"),
    [("max", 0.7), ("mean", 0.4), ("sentence-nli", 0.2), ("hybrid", 0.45)],
)
def test_sentence_aggregations(aggregation: str, expected: float) -> None:
    verdicts = [
        fact_verdict("f0.0", 0, 0.1, "supported"),
        fact_verdict("f0.1", 0, 0.7, "unverifiable"),
    ]
    (sentence,) = sentence_verdicts(
        "Suede formed in London.",
        [Span(0, 23)],
        verdicts,
        {0: decision("supported", 0.2)},
        unreadable=set(),
        aggregation=aggregation,  # type: ignore[arg-type]
    )
    assert sentence.score == pytest.approx(expected)


def test_a_sentence_with_neither_facts_nor_decision_is_an_error() -> None:
    with pytest.raises(ValueError, match="sentence 0 has neither facts nor a sentence decision"):
        sentence_verdicts("x", [Span(0, 1)], [], {}, unreadable=set())


def sentence(index: int, label: str) -> SentenceVerdict:
    return SentenceVerdict(index, Span(0, 1), "x", 0.0, label)  # type: ignore[arg-type]


def test_summary_statuses() -> None:
    foreign = [sentence(0, "unsupported_language"), sentence(1, "unsupported_language")]
    summary = summarize(foreign, [], no_context=False)
    assert (summary.status, summary.faithfulness, summary.hallucinated, summary.unchecked) == (
        "unsupported_language",
        None,
        None,
        2,
    )
    assert summarize([], None, no_context=False).status == "empty_answer"
    fallback = [sentence(0, "unverifiable")]
    no_facts = summarize(fallback, [], no_context=False)
    assert (no_facts.status, no_facts.faithfulness, no_facts.hallucinated) == (
        "no_facts",
        0.0,
        True,
    )
    assert summarize(fallback, None, no_context=True).status == "no_context"


def test_summary_counts_facts_not_suppressed_and_the_unread_sentences() -> None:
    verdicts = [
        fact_verdict("f0.0", 0, 0.1, "supported"),
        fact_verdict("f0.1", 0, 0.9, "contradicted"),
        fact_verdict("f0.2", 0, 0.95, "unverifiable", suppressed=True),
    ]
    sentences = [sentence(0, "contradicted"), sentence(1, "unsupported_language")]
    summary = summarize(sentences, verdicts, no_context=False)
    assert summary.counts == {"supported": 1, "contradicted": 1, "unverifiable": 0}
    assert (summary.checked, summary.faithfulness, summary.status) == (2, 0.5, "ok")
    assert (summary.intrinsic, summary.extrinsic, summary.unchecked) == (1, 0, 1)


def test_count_labels_always_has_the_three_labels() -> None:
    assert count_labels([]) == {"supported": 0, "contradicted": 0, "unverifiable": 0}


def test_uncovered_absent_names_flag_a_supported_sentence() -> None:
    answer = "Naum led a revolt. He founded an Islamic state in Java. He died in Leiden."
    s0, s1, s2 = Span(0, 18), Span(19, 55), Span(56, 74)
    context = "Naum led a revolt against the Dutch. He founded a state. He died in Leiden."
    founded = Fact(
        "f1.0",
        1,
        "He",
        "founded",
        "state",
        subject_spans=[Span(19, 21)],
        relation_spans=[Span(22, 29)],
        object_spans=[Span(43, 48)],
    )
    sentences = [
        SentenceVerdict(i, span, span.text(answer), 0.2, "supported", method="max")
        for i, span in enumerate((s0, s1, s2))
    ]
    verdicts = [FactVerdict(founded, "He founded state.", NLIScores(0.9, 0.1, 0.0), "supported")]
    out = flag_uncovered_names(sentences, verdicts, GroundingIndex(context))
    # sentence 1: "Islamic" (a name, mid-sentence) and "Java" lie outside the fact and occur
    # nowhere in the context; the words of the fact are not looked at
    assert (out[1].label, out[1].method) == ("unverifiable", "uncovered_name")
    # units outside the fact: islamic (2), java (2): all missing, (1 + 1) / 2
    assert out[1].score == pytest.approx(1.0)
    # sentence 0 has no fact but every word is in the context; sentence 2's "Leiden" is too
    assert out[0] is sentences[0] and out[2] is sentences[2]
    # the question counts as found
    asked = flag_uncovered_names(
        sentences,
        verdicts,
        GroundingIndex(context),
        question="Did Naum rule Java as an Islamic state?",
    )
    assert asked[1] is sentences[1]
    # a flagged sentence is left as it is
    flagged = [
        sentences[0],
        SentenceVerdict(1, s1, s1.text(answer), 0.7, "contradicted"),
        sentences[2],
    ]
    assert flag_uncovered_names(flagged, verdicts, GroundingIndex(context))[1] is flagged[1]


def test_an_uncovered_name_after_a_fact_is_read_as_written() -> None:
    # "In Java" is a fact; "Robertson" follows it in the sentence, so its capital says name,
    # though the blanked fact leaves only spaces before it
    answer = "In Java Robertson ruled."
    context = "Java was ruled by the Dutch."
    span = Span(0, len(answer))
    fact = Fact(
        "f0.0",
        0,
        "Java",
        "in",
        "",
        subject_spans=[Span(3, 7)],
        relation_spans=[Span(0, 2)],
    )
    sentence = SentenceVerdict(0, span, answer, 0.2, "supported", method="max")
    verdict = FactVerdict(fact, "In Java.", NLIScores(0.9, 0.1, 0.0), "supported")
    out = flag_uncovered_names([sentence], [verdict], GroundingIndex(context))
    assert (out[0].label, out[0].method) == ("unverifiable", "uncovered_name")
    # units outside the fact: robertson (2) missing, ruled (1) found: (1 + 2 / 3) / 2
    assert out[0].score == pytest.approx(5 / 6)


def test_a_unit_that_blanking_the_facts_breaks_is_read_whole() -> None:
    """ "Three out of four" is 75%: the fact holds "four patients", and the "Three" left
    outside it is in no context that writes "75% of patients"; read whole, the ratio is
    found, so the sentence stays supported. A ratio the context does not give is flagged."""
    context = "In the trial, 75% of patients reported reduced pain after four weeks."
    answer = "Three out of four patients reported less pain."
    fact = Fact(
        "f0.0",
        0,
        "four patients",
        "reported",
        "less pain",
        subject_spans=[Span(13, 26)],
        relation_spans=[Span(27, 35)],
        object_spans=[Span(36, 45)],
    )
    verdict = FactVerdict(
        fact, "Four patients reported less pain.", NLIScores(0.9, 0.1, 0.0), "supported"
    )
    sentence = SentenceVerdict(0, Span(0, len(answer)), answer, 0.2, "supported", method="max")
    assert flag_uncovered_names([sentence], [verdict], GroundingIndex(context)) == [sentence]
    wrong = "Three out of five patients reported less pain."
    flagged = SentenceVerdict(0, Span(0, len(wrong)), wrong, 0.2, "supported", method="max")
    out = flag_uncovered_names([flagged], [verdict], GroundingIndex(context))
    assert (out[0].label, out[0].method) == ("unverifiable", "uncovered_name")
