"""Clauses no fact covers become facts of their own (enoki_hd.extract.coverage)."""

from __future__ import annotations

from enoki_hd.extract.coverage import uncovered_clause_facts
from enoki_hd.types import Fact, Span

ANSWER = (
    "Apple was founded by Steve Jobs in 1976; Microsoft was founded by Bill Gates in 1975; "
    "Oracle was founded by Robert Noyce in 1977. It is big."
)


def _fact(sentence: int, *parts: str, answer: str = ANSWER) -> Fact:
    spans = [Span(answer.index(p), answer.index(p) + len(p)) for p in parts]
    return Fact(
        id=f"f{sentence}.0",
        sentence=sentence,
        subject=parts[0],
        relation=parts[1] if len(parts) > 1 else "",
        object=parts[2] if len(parts) > 2 else "",
        subject_spans=spans[:1],
        relation_spans=spans[1:2],
        object_spans=spans[2:],
    )


SENTENCES = [Span(0, ANSWER.index(" It is")), Span(ANSWER.index("It is"), len(ANSWER))]


def test_each_clause_without_a_covered_word_is_a_fact_of_its_own() -> None:
    # the tagger's one fact covers the first clause only (it emits at most `depth` rows)
    facts = uncovered_clause_facts(
        ANSWER, SENTENCES, [_fact(0, "Apple", "was founded by", "Steve Jobs")]
    )
    assert [(f.id, f.subject, f.relation, f.object, f.source) for f in facts] == [
        ("c0.0", "Microsoft was founded by Bill Gates in 1975", "", "", "clause"),
        ("c0.1", "Oracle was founded by Robert Noyce in 1977", "", "", "clause"),
    ]
    oracle = facts[1]
    start = ANSWER.index("Oracle")
    assert oracle.subject_spans == oracle.delta == [Span(start, start + 42)]
    assert oracle.sentence == 0 and oracle.parent is None


def test_a_clause_with_one_covered_word_or_too_few_words_is_left_to_its_facts() -> None:
    facts = [
        _fact(0, "Apple", "was founded by", "Steve Jobs"),
        _fact(0, "Microsoft"),
        _fact(0, "1977"),
    ]
    assert uncovered_clause_facts(ANSWER, SENTENCES, facts) == []
    # "It is big." has one content word: nothing a fact could have left out
    assert uncovered_clause_facts(ANSWER, SENTENCES, [*facts, _fact(1, "It")]) == []


def test_a_sentence_without_facts_is_judged_whole_elsewhere() -> None:
    assert uncovered_clause_facts(ANSWER, SENTENCES, []) == []
