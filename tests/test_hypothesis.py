"""Hypotheses too long for the verifier: split at clauses, then overlapping word windows;
pieces judged and aggregated by the weakest link."""

from __future__ import annotations

import re

import pytest
from fakes import LexicalVerifier

from enoki_hd.types import Evidence, Fact, NLIScores, Span
from enoki_hd.verify.evidence import EvidenceDecision, EvidenceIndex, EvidenceSelector
from enoki_hd.verify.hypothesis import (
    aggregate_pieces,
    hypothesis_budget,
    is_downward,
    split_hypothesis,
    verify_chains,
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


def characters(text: str) -> int:
    """One token per Latin word and per other character (a CJK tokenizer, roughly)."""
    return len(re.findall(r"[A-Za-z]+|\S", text))


def test_a_word_over_budget_is_cut_into_pieces_that_fit() -> None:
    # an English sentence quoting 30 CJK characters: one "word" of 30 tokens, budget 12 (a
    # single window of it used to go to the verifier whole and fail there)
    text = "It was recorded as " + "東" * 30 + "."
    spans = split_hypothesis(text, characters, 12)
    assert [s.text(text) for s in spans] == [
        "It was recorded as",
        "東" * 12,
        "東" * 12,
        "東" * 6 + ".",
    ]
    assert all(characters(s.text(text)) <= 12 for s in spans)


def test_no_window_repeats_part_of_the_one_before() -> None:
    # "b" is 3 tokens: the window after "x1 x2 x3" cannot hold "x2 x3" and "b" together, so it
    # starts at "x3" (a window "x2 x3" would only repeat the first one)
    def count(text: str) -> int:
        return sum(3 if w == "b" else 1 for w in text.split())

    assert [s.text("x1 x2 x3 b c") for s in split_hypothesis("x1 x2 x3 b c", count, 4)] == [
        "x1 x2 x3",
        "x3 b",
        "b c",
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


# --- refinements first: verify_chains -----------------------------------------------------

CHAIN_CONTEXT = "The Orla plant closed in March 2019 after a fire. Nobody was hurt."
AT_HALF = {"inherit_threshold": 0.5}


def _chain(*objects: str, negated: bool = False) -> tuple[list[Fact], list[str]]:
    """A coarse-to-fine chain f0 → f1 → ... of "The plant closed <object>" facts."""
    facts, hypotheses = [], []
    for i, obj in enumerate(objects):
        parent = f"f0.{i - 1}" if i else None
        facts.append(Fact(f"f0.{i}", 0, "The plant", "closed", obj, parent=parent))
        verb = "did not close" if negated else "closed"
        hypotheses.append(f"The plant {verb} {obj}.".replace("  ", " ").replace(" .", "."))
    return facts, hypotheses


def _judged(verifier: LexicalVerifier) -> list[list[str]]:
    return [[hypothesis for _, hypothesis in call] for call in verifier.calls]


def test_a_supported_refinement_decides_its_ancestors() -> None:
    verifier = LexicalVerifier()
    index = EvidenceIndex(CHAIN_CONTEXT, sentence_backend="regex")
    facts, hypotheses = _chain("", "in March", "in March 2019")
    result = verify_chains(
        EvidenceSelector(), verifier, index, facts, hypotheses, ["Nobody was hurt."], **AT_HALF
    )
    # one round: the finest fact and the extra hypothesis; both ancestors inherit
    assert sorted({h for call in _judged(verifier) for h in call}) == [
        "Nobody was hurt.",
        "The plant closed in March 2019.",
    ]
    assert result.inherited == {0: 2, 1: 2}
    assert [j.decision.label for j in result.facts] == ["supported"] * 3
    assert result.facts[0].decision.probs == result.facts[2].decision.probs
    assert result.facts[0].decision.evidence == result.facts[2].decision.evidence
    assert [j.decision.label for j in result.extra] == ["supported"]


def test_an_unsupported_refinement_leaves_its_ancestors_to_be_judged_round_by_round() -> None:
    verifier = LexicalVerifier()
    index = EvidenceIndex(CHAIN_CONTEXT, sentence_backend="regex")
    facts, hypotheses = _chain("", "in March", "in March 2021")
    result = verify_chains(EvidenceSelector(), verifier, index, facts, hypotheses, **AT_HALF)
    rounds = [sorted(set(call)) for call in _judged(verifier)]
    assert rounds == [
        ["The plant closed in March 2021."],
        ["The plant closed in March."],
    ]  # the root inherits from "in March", judged in round two
    assert result.inherited == {0: 1}
    assert [j.decision.label for j in result.facts] == ["supported", "supported", "unverifiable"]


def test_negation_never_passes_a_decision_up() -> None:
    verifier = LexicalVerifier()
    index = EvidenceIndex("The plant did not close in March 2019.", sentence_backend="regex")
    facts, hypotheses = _chain("", "in March 2019", negated=True)
    assert [is_downward(h) for h in hypotheses] == [True, True]
    result = verify_chains(EvidenceSelector(), verifier, index, facts, hypotheses, **AT_HALF)
    assert result.inherited == {}
    assert len(verifier.calls) == 2  # the root judged on its own, after its refinement
    # a downward word in the refinement alone is enough to stop it
    only = LexicalVerifier()
    index = EvidenceIndex("Few staff stayed until the plant closed.", sentence_backend="regex")
    facts = [
        Fact("f0.0", 0, "staff", "stayed", ""),
        Fact("f0.1", 0, "Few staff", "stayed", "until closure", parent="f0.0"),
    ]
    result = verify_chains(
        EvidenceSelector(), only, index, facts, ["Staff stayed.", "Few staff stayed."], **AT_HALF
    )
    assert result.inherited == {} and len(only.calls) == 2
    assert is_downward("It isn’t open.") and is_downward("Few people came.")
    assert not is_downward("The plant closed in March.")


def test_inheritance_needs_the_threshold_and_can_be_switched_off() -> None:
    index = EvidenceIndex(CHAIN_CONTEXT, sentence_backend="regex")
    facts, hypotheses = _chain("", "in March 2019")
    strict = LexicalVerifier()  # entailment 0.9 < 0.95: the root is judged itself
    result = verify_chains(
        EvidenceSelector(), strict, index, facts, hypotheses, inherit_threshold=0.95
    )
    assert result.inherited == {} and len(strict.calls) == 2
    off = LexicalVerifier()  # None (the default): every fact and the extra in one call, in order
    result = verify_chains(EvidenceSelector(), off, index, facts, hypotheses, ["Nobody was hurt."])
    assert result.inherited == {} and len(off.calls) == 1
    assert list(dict.fromkeys(h for _, h in off.calls[0])) == [
        "The plant closed.",
        "The plant closed in March 2019.",
        "Nobody was hurt.",
    ]
    assert len(result.facts) == 2 and len(result.extra) == 1


def test_verify_chains_rejects_bad_input() -> None:
    index = EvidenceIndex(CHAIN_CONTEXT, sentence_backend="regex")
    facts, hypotheses = _chain("", "in March")
    with pytest.raises(ValueError, match="1 hypotheses for 2 facts"):
        verify_chains(EvidenceSelector(), LexicalVerifier(), index, facts, hypotheses[:1])
    with pytest.raises(ValueError, match=r"inherit_threshold must be in \[0, 1\]"):
        verify_chains(
            EvidenceSelector(), LexicalVerifier(), index, facts, hypotheses, inherit_threshold=1.5
        )
    with pytest.raises(ValueError, match="1 queries for 2 facts"):
        verify_chains(
            EvidenceSelector(), LexicalVerifier(), index, facts, hypotheses, queries=["q"]
        )


class RecordingSelector(EvidenceSelector):
    """Records the hypotheses and queries of every ``verify`` call."""

    def verify(self, verifier, index, hypotheses, queries=None):  # type: ignore[override]
        self.asked = [*getattr(self, "asked", []), (list(hypotheses), queries)]
        return super().verify(verifier, index, hypotheses, queries)


def test_each_fact_carries_its_query_through_rounds_and_pieces() -> None:
    index = EvidenceIndex(CHAIN_CONTEXT, sentence_backend="regex")
    facts, hypotheses = _chain("", "in March 2021")
    queries = ["It closed.", "It closed in March 2021."]
    selector = RecordingSelector()
    verify_chains(
        selector,
        LexicalVerifier(),
        index,
        facts,
        hypotheses,
        ["Nobody was hurt."],
        queries=queries,
        **AT_HALF,
    )
    # round one: the refinement with its query, the extra sentence with none; round two: the root
    assert selector.asked == [
        (
            ["The plant closed in March 2021.", "Nobody was hurt."],
            ["It closed in March 2021.", None],
        ),
        (["The plant closed."], ["It closed."]),
    ]
    once = RecordingSelector()
    verify_chains(once, LexicalVerifier(), index, facts, hypotheses, queries=queries)
    assert once.asked == [(hypotheses, queries)]
    plain = RecordingSelector()
    verify_chains(plain, LexicalVerifier(), index, facts, hypotheses)
    assert plain.asked == [(hypotheses, None)]
    # a hypothesis judged in pieces: each piece is asked with the hypothesis's query
    long_sentence = ", ".join(["the plant closed in March"] * 30) + "."
    split = RecordingSelector()
    [judged] = verify_hypotheses(split, LexicalVerifier(), index, [long_sentence], ["Q"])
    assert len(judged.split) > 1
    assert split.asked[0][1] == ["Q"] * len(judged.split)
