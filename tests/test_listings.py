"""Sentences without facts read against a listing (verify/listings.py): an hours claim or a
yes-or-no attribute the listing fails relabels the sentence and blames the claim's words."""

from __future__ import annotations

from dataclasses import replace

from enoki_hd.project import blame_sentence_words
from enoki_hd.types import SentenceVerdict, Span
from enoki_hd.verify.attributes import (
    context_attributes,
    index_attributes,
    sentence_attribute_conflicts,
)
from enoki_hd.verify.grounding import GroundingIndex
from enoki_hd.verify.listings import judge_listed_sentences
from tests.test_attributes import LISTING
from tests.test_hours import YELP


def sentences(answer: str, method: str = "sentence-nli-fallback") -> list[SentenceVerdict]:
    """The answer's sentences (split after ". "), each supported at 0.3 by ``method``."""
    out, start = [], 0
    for k, part in enumerate(answer.split(". ")):
        end = start + len(part) + (0 if start + len(part) == len(answer) else 1)
        span = Span(start, end)
        out.append(SentenceVerdict(k, span, span.text(answer), 0.3, "supported", method=method))
        start = end + 1
    return out


def test_an_attribute_a_sentence_says_yes_to_is_read_against_the_listing() -> None:
    attributes = index_attributes(context_attributes(LISTING))

    def conflicts(text: str) -> list[tuple[str, bool | None]]:
        found = sentence_attribute_conflicts(text, Span(0, len(text)), attributes)
        return [(span.text(text), a.value) for a, span in found]

    # a no and an unknown; a yes the listing agrees with ("casual", "outdoor seating") is none
    assert conflicts("A romantic, casual vibe, with outdoor seating and live music.") == [
        ("romantic", False),
        ("music", None),
    ]
    # a nested attribute only beside its parent's name
    assert conflicts("The atmosphere is intimate.") == [("intimate", False)]
    assert conflicts("It is an intimate place.") == []
    # a sentence that denies anything is not read: which words the "not" governs is unknown
    assert conflicts("It takes no bookings, but has a romantic atmosphere.") == []
    assert conflicts("It doesn't offer reservations.") == []


def test_a_sentence_without_facts_that_the_listing_fails_is_relabelled_and_blamed() -> None:
    answer = "The ambiance is casual and romantic. Javan's has outdoor seating. It has live music."
    judged, spans = judge_listed_sentences(sentences(answer), answer, LISTING)
    assert [(s.label, s.score, s.method) for s in judged] == [
        ("contradicted", 0.9, "attribute_conflict"),
        ("supported", 0.3, "sentence-nli-fallback"),
        ("unverifiable", 0.9, "attribute_unknown"),
    ]
    assert judged[0].evidence is not None
    assert judged[0].evidence.text == "'romantic': False"
    assert [(h.text, h.label, h.score) for h in spans] == [
        ("romantic", "contradicted", 0.9),
        ("music", "unverifiable", 0.9),
    ]
    assert [(h.start, h.end) for h in spans] == [(27, 35), (78, 83)]


def test_an_hours_claim_in_a_sentence_without_facts_is_read_against_the_table() -> None:
    answer = (
        "Mala Town is open on Wednesday from 5:00 PM to 9:00 PM. "
        "It is open on Monday from 5:00 PM to 9:00 PM."
    )
    judged, spans = judge_listed_sentences(sentences(answer), answer, YELP)
    assert [(s.label, s.method) for s in judged] == [
        ("contradicted", "hours_conflict"),
        ("supported", "sentence-nli-fallback"),  # agrees: a listing never supports one
    ]
    assert judged[0].evidence is not None
    assert judged[0].evidence.text == "'Wednesday': '11:0-15:0'"  # the hours table's entry
    assert [(h.text, h.label) for h in spans] == [
        ("Wednesday from 5:00 PM to 9:00 PM", "contradicted")
    ]


def test_sentences_judged_by_their_facts_or_without_a_listing_are_left_alone() -> None:
    answer = "The ambiance is romantic. It has live music."
    by_facts = sentences(answer, method="max")
    assert judge_listed_sentences(by_facts, answer, LISTING) == (by_facts, [])
    whole = sentences(answer)
    assert judge_listed_sentences(whole, answer, "A romantic bistro with live music.") == (
        whole,
        [],
    )


def test_a_listed_sentences_other_absent_words_are_not_blamed() -> None:
    # "ambiance" is in no context (the listing writes 'Ambience'); the listing names "romantic"
    answer = "The ambiance is casual and romantic."
    judged, spans = judge_listed_sentences(sentences(answer), answer, LISTING)
    index = GroundingIndex(LISTING)
    assert blame_sentence_words(answer, judged, spans, [], index) == spans
    assert [h.text for h in spans] == ["romantic"]
    # the same sentence flagged otherwise points at its absent words
    flagged = [replace(judged[0], method="max")]
    blamed = blame_sentence_words(answer, flagged, spans, [], index)
    assert [h.text for h in blamed] == ["ambiance", "romantic"]
