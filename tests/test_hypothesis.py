"""Hypotheses too long for the verifier: split at clauses, then overlapping word windows;
pieces judged and aggregated by the weakest link."""

from __future__ import annotations

import pytest
from fakes import LexicalVerifier

from enoki_hd.types import Evidence, NLIScores, Span
from enoki_hd.verify.evidence import EvidenceDecision, EvidenceIndex, EvidenceSelector
from enoki_hd.verify.hypothesis import (
    aggregate_pieces,
    hypothesis_budget,
    split_hypothesis,
    verify_hypotheses,
)


def words(text: str) -> int:
    """One token per whitespace-separated word."""
    return len(text.split())


def pieces(text: str, budget: int) -> list[str]:
    return [s.text(text) for s in split_hypothesis(text, words, budget)]


def test_a_hypothesis_that_fits_is_one_piece() -> None:
    assert split_hypothesis("Suede formed in London.", words, 4) == [Span(0, 23)]


def test_clauses_are_packed_greedily_and_keep_their_punctuation() -> None:
    text = "Suede formed in London, released Dog Man Star in 1994, and split in 2003."
    # clauses of 4, 6 and 4 words
    assert pieces(text, 8) == [
        "Suede formed in London,",
        "released Dog Man Star in 1994,",
        "and split in 2003.",
    ]
    assert pieces(text, 10) == [
        "Suede formed in London, released Dog Man Star in 1994,",
        "and split in 2003.",
    ]


def test_a_clause_over_budget_becomes_overlapping_word_windows() -> None:
    text = "one two three four five six seven"
    assert pieces(text, 4) == [
        "one two three four",
        "three four five six",
        "five six seven",
    ]


def test_every_word_is_in_some_piece() -> None:
    text = " ".join(f"w{i}" for i in range(101)) + ", and the end; done."
    spans = split_hypothesis(text, words, 7)
    assert all(words(s.text(text)) <= 7 for s in spans)
    covered = {i for s in spans for i in range(s.start, s.end)}
    assert all(i in covered for i, c in enumerate(text) if not c.isspace())


def test_bad_budget() -> None:
    with pytest.raises(ValueError, match="budget must be >= 1"):
        split_hypothesis("x", words, 0)


def _decision(label: str, hall: float, start: int) -> EvidenceDecision:
    probs = NLIScores(1 - hall, hall, 0.0)
    return EvidenceDecision(label, probs, Evidence(start, start + 1, "x"), 1)  # type: ignore[arg-type]


def test_pieces_aggregate_by_the_weakest_link() -> None:
    supported = _decision("supported", 0.1, 0)
    unverifiable = _decision("unverifiable", 0.8, 5)
    contradicted = _decision("contradicted", 0.6, 9)
    assert aggregate_pieces([supported, supported]).label == "supported"
    both = aggregate_pieces([supported, unverifiable])
    assert (both.label, both.probs.hall_prob, both.evidence) == (
        "unverifiable",
        pytest.approx(0.8),
        unverifiable.evidence,
    )
    assert aggregate_pieces([unverifiable, contradicted]).label == "contradicted"
    assert aggregate_pieces([supported, contradicted]).n_windows == 2
    with pytest.raises(ValueError, match="no piece"):
        aggregate_pieces([])


def test_long_hypothesis_is_judged_in_pieces_not_crashed() -> None:
    verifier = LexicalVerifier()  # max_length 128 → pieces of at most 64 tokens
    context = "The committee reviewed the budget. The river district got new parks."
    long_sentence = ", ".join(["the committee reviewed the budget"] * 30) + "."
    assert verifier.count_tokens(long_sentence) > verifier.max_length
    index = EvidenceIndex(context, sentence_backend="regex")
    short, long = verify_hypotheses(
        EvidenceSelector(), verifier, index, ["The committee reviewed the budget.", long_sentence]
    )
    assert short.split == [] and short.decision.label == "supported"
    assert len(long.split) > 1
    assert all(verifier.count_tokens(s.text(long_sentence)) <= 64 for s in long.split)
    assert long.decision.label == "supported"  # every piece is in the context
    assert hypothesis_budget(verifier) == 64
