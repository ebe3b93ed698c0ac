"""Span projection with hand-built facts and verdicts, exact offsets."""

from __future__ import annotations

import pytest

from enoki_hd.project import (
    blamed_spans,
    finish_spans,
    join_phrase_gaps,
    mark_suppressed,
    project_spans,
    trim_span,
)
from enoki_hd.types import Fact, FactVerdict, HallucinatedSpan, NLIScores, Span

ANSWER = (
    "Suede, an influential English rock band formed in Bath, Somerset, in 1992, played a "
    "significant role in the Britpop movement."
)


def fact(
    fid: str,
    obj: list[tuple[int, int]],
    *,
    parent: str | None = None,
    delta: list[tuple[int, int]] | None = None,
    relation: list[tuple[int, int]] | None = None,
    subject: list[tuple[int, int]] | None = None,
) -> Fact:
    return Fact(
        id=fid,
        sentence=0,
        subject="s",
        relation="r",
        object="o",
        subject_spans=[Span(*s) for s in (subject if subject is not None else [(0, 5)])],
        relation_spans=[Span(*s) for s in (relation or [])],
        object_spans=[Span(*s) for s in obj],
        parent=parent,
        delta=[Span(*s) for s in (delta or [])],
    )


def verdict(f: Fact, hall: float, label: str | None = None) -> FactVerdict:
    entail = 1.0 - hall
    if label is None:  # labels by the default threshold
        label = "supported" if hall < 0.5 else "unverifiable"
    contradiction = hall if label == "contradicted" else 0.0
    return FactVerdict(
        fact=f,
        hypothesis="h",
        probs=NLIScores(entail, hall - contradiction, contradiction),
        label=label,
    )


# The Suede chains: band → rock band → English rock band; Bath → Bath, Somerset; 1992.
BAND = fact("f0.0", [(35, 39)], delta=[(35, 39)])
ROCK = fact("f0.1", [(30, 39)], parent="f0.0", delta=[(30, 34)])
ENGLISH = fact("f0.2", [(22, 39)], parent="f0.1", delta=[(22, 29)])
BATH = fact("f0.4", [(50, 54)], relation=[(40, 49)], delta=[(50, 54)])
SOMERSET = fact("f0.5", [(50, 64)], parent="f0.4", relation=[(40, 49)], delta=[(56, 64)])
YEAR = fact("f0.6", [(69, 73)], relation=[(40, 46), (66, 68)], delta=[(69, 73)])


def test_refinement_blames_only_its_delta() -> None:
    verdicts = [verdict(BAND, 0.1), verdict(ROCK, 0.2), verdict(ENGLISH, 0.9, "contradicted")]
    spans = project_spans(ANSWER, verdicts)
    assert [s.to_dict() for s in spans] == [
        {"start": 22, "end": 29, "text": "English", "score": 0.9, "facts": ["f0.2"], "label": "contradicted"}
    ]  # fmt: skip
    assert [v.suppressed for v in verdicts] == [False, False, False]


def test_failed_parent_suppresses_its_refinements() -> None:
    verdicts = [verdict(BAND, 0.1), verdict(ROCK, 0.8), verdict(ENGLISH, 0.95)]
    spans = project_spans(ANSWER, verdicts)
    assert [(s.start, s.end, s.text, s.score, s.facts) for s in spans] == [
        (30, 34, "rock", 0.8, ["f0.1"])
    ]
    assert [v.suppressed for v in verdicts] == [False, False, True]


def test_suppression_is_transitive_and_skips_supported_links() -> None:
    # the grandparent failed, the parent passed: the refinement is still the coarser failure's
    verdicts = [verdict(BAND, 0.7), verdict(ROCK, 0.1), verdict(ENGLISH, 0.9)]
    spans = project_spans(ANSWER, verdicts)
    assert [(s.start, s.end, s.text) for s in spans] == [(35, 39, "band")]
    assert [v.suppressed for v in verdicts] == [False, False, True]


def test_root_blames_object_then_relation_then_subject() -> None:
    no_object = fact("f1.0", [], relation=[(75, 81)])
    only_subject = fact("f1.1", [], relation=[], subject=[(0, 5)])
    assert blamed_spans(BATH) == [Span(50, 54)]
    assert blamed_spans(fact("f0.9", [(96, 100)], delta=[])) == [Span(96, 100)]
    assert blamed_spans(no_object) == [Span(75, 81)]
    assert blamed_spans(only_subject) == [Span(0, 5)]
    # a refinement with an empty delta falls back to its object
    assert blamed_spans(fact("f0.3", [(10, 39)], parent="f0.2", delta=[])) == [Span(10, 39)]


def test_spans_from_different_facts_merge_with_max_score_and_sorted_ids() -> None:
    # "Bath" (root) and "Somerset" (refinement of a passing parent would be suppressed, so
    # here Somerset refines a *supported* Bath and an unrelated fact blames ", Somerset,").
    other = fact("f0.10", [(54, 66)], delta=[(54, 66)])
    verdicts = [
        verdict(BATH, 0.3),
        verdict(SOMERSET, 0.6),
        verdict(other, 0.7, "contradicted"),
        verdict(YEAR, 0.55),
    ]
    spans = project_spans(ANSWER, verdicts)
    assert [s.to_dict() for s in spans] == [
        {"start": 56, "end": 64, "text": "Somerset", "score": 0.7, "facts": ["f0.5", "f0.10"], "label": "contradicted"},
        {"start": 69, "end": 73, "text": "1992", "score": 0.55, "facts": ["f0.6"], "label": "unverifiable"},
    ]  # fmt: skip


def test_whitespace_gap_merges_and_punctuation_gap_does_not() -> None:
    rock = fact("f2.0", [(30, 34)], delta=[(30, 34)])
    band = fact("f2.1", [(35, 39)], delta=[(35, 39)])
    bath = fact("f2.2", [(50, 54)], delta=[(50, 54)])
    somerset = fact("f2.3", [(56, 64)], delta=[(56, 64)])
    spans = project_spans(
        ANSWER, [verdict(rock, 0.6), verdict(band, 0.9), verdict(bath, 0.6), verdict(somerset, 0.6)]
    )
    assert [(s.start, s.end, s.text, s.score, s.facts) for s in spans] == [
        (30, 39, "rock band", 0.9, ["f2.0", "f2.1"]),
        (50, 54, "Bath", 0.6, ["f2.2"]),
        (56, 64, "Somerset", 0.6, ["f2.3"]),
    ]


def test_threshold_and_supported_label() -> None:
    assert project_spans(ANSWER, [verdict(BATH, 0.45)]) == []
    low = project_spans(ANSWER, [verdict(BATH, 0.45, "unverifiable")], threshold=0.4)
    assert [(s.start, s.end) for s in low] == [(50, 54)]
    # a supported label is never blamed, whatever its hall_prob
    assert project_spans(ANSWER, [verdict(BATH, 0.6, "supported")], threshold=0.1) == []
    with pytest.raises(ValueError, match="threshold"):
        project_spans(ANSWER, [], threshold=1.5)


def test_the_final_score_decides_not_nli_alone() -> None:
    # NLI found the fact entailed-ish, the grounding check found "1992" contradicted
    grounded = verdict(YEAR, 0.2, "contradicted")
    grounded.score, grounded.decided_by = 0.85, "grounding"
    spans = project_spans(ANSWER, [grounded])
    assert [(s.start, s.end, s.text, s.score, s.label) for s in spans] == [
        (69, 73, "1992", 0.85, "contradicted")
    ]
    cleared = verdict(BATH, 0.9)
    cleared.score = 0.3
    assert project_spans(ANSWER, [cleared]) == []


def test_blamed_spans_are_trimmed() -> None:
    padded = fact("f3.0", [(49, 56)], delta=[(49, 56)])  # " Bath, "
    spans = project_spans(ANSWER, [verdict(padded, 0.8)])
    assert [(s.start, s.end, s.text) for s in spans] == [(50, 54, "Bath")]
    text = 'He said "yes", (maybe). Done.'
    assert trim_span(text, Span(8, 15)) == Span(8, 13)  # '"yes",' keeps its paired quotes
    assert trim_span(text, Span(15, 23)) == Span(15, 22)  # '(maybe).' keeps the paired ')'
    assert trim_span(text, Span(21, 23)) == Span(21, 21)  # ').' is nothing but punctuation
    assert trim_span(text, Span(13, 19)) == Span(15, 19)  # a leading ', ' goes, '(' stays
    assert trim_span(text, Span(24, 29)) == Span(24, 28)


def test_mark_suppressed_handles_missing_parents_and_cycles() -> None:
    orphan = fact("f4.1", [(35, 39)], parent="f4.0", delta=[(35, 39)])
    a = fact("f5.0", [(30, 34)], parent="f5.1", delta=[(30, 34)])
    b = fact("f5.1", [(22, 29)], parent="f5.0", delta=[(22, 29)])
    verdicts = mark_suppressed([verdict(orphan, 0.9), verdict(a, 0.9), verdict(b, 0.9)])
    assert [v.suppressed for v in verdicts] == [False, True, True]


def test_span_outside_answer_is_an_error() -> None:
    with pytest.raises(ValueError, match="outside the answer"):
        project_spans("short", [verdict(BATH, 0.9)])


def test_projection_of_real_rules_facts() -> None:
    pytest.importorskip("spacy")
    from enoki_hd.extract.rules import RulesExtractor

    facts = RulesExtractor().extract(ANSWER)
    wrong = {"f0.5", "f0.10"}  # "Somerset" and "Britpop" are not in the evidence
    verdicts = [verdict(f, 0.9 if f.id in wrong else 0.05) for f in facts]
    spans = project_spans(ANSWER, verdicts)
    assert [(s.start, s.end, s.text, s.facts) for s in spans] == [
        (56, 64, "Somerset", ["f0.5"]),
        (108, 115, "Britpop", ["f0.10"]),
    ]


def test_suppressed_refinement_still_blames_words_with_no_trace_in_the_context() -> None:
    parent = verdict(BATH, 0.9)
    parent.blamed = [Span(50, 54)]  # "Bath" is absent from the context
    child = verdict(SOMERSET, 0.9)
    child.blamed = [Span(56, 64)]  # so is "Somerset"
    unnarrowed = verdict(ENGLISH, 0.9)  # suppressed by ROCK, no grounding words: blames nothing
    spans = project_spans(
        ANSWER, [parent, child, verdict(BAND, 0.1), verdict(ROCK, 0.8), unnarrowed]
    )
    assert child.suppressed and unnarrowed.suppressed
    assert [(s.start, s.end, s.text, s.facts) for s in spans] == [
        (30, 34, "rock", ["f0.1"]),
        (50, 54, "Bath", ["f0.4"]),
        (56, 64, "Somerset", ["f0.5"]),
    ]


# A value conflict explains its lexically absent ancestors: "The concert in Oslo drew a crowd
# of 18,250." against "... in front of 16,250 spectators."
OSLO = "The concert in Oslo drew a crowd of 18,250."
CROWD = Fact(
    "f0.0", 0, "concert in Oslo", "drew", "crowd",
    subject_spans=[Span(4, 19)], relation_spans=[Span(20, 24)], object_spans=[Span(27, 32)],
    delta=[Span(27, 32)],
)  # fmt: skip
CROWD_OF = Fact(
    "f0.1", 0, "concert in Oslo", "drew", "crowd of 18,250",
    subject_spans=[Span(4, 19)], relation_spans=[Span(20, 24)], object_spans=[Span(27, 42)],
    parent="f0.0", delta=[Span(36, 42)],
)  # fmt: skip


def oslo_verdicts(parent_hall: float) -> list[FactVerdict]:
    parent = verdict(CROWD, parent_hall)
    # the grounding check blames the words with no trace: concert, drew, crowd
    parent.blamed = [Span(4, 11), Span(20, 24), Span(27, 32)]
    child = verdict(CROWD_OF, 0.9, "contradicted")
    child.decided_by = "value_conflict"
    child.blamed = [Span(36, 42)]
    return [parent, child]


def test_a_value_conflict_explains_its_lexically_absent_parent() -> None:
    verdicts = oslo_verdicts(0.6)  # the verifier is undecided about the coarser fact
    spans = project_spans(OSLO, verdicts)
    assert [(s.text, s.label, s.facts) for s in spans] == [("18,250", "contradicted", ["f0.1"])]
    parent, child = verdicts
    assert (parent.suppressed, parent.suppressed_by) == (True, "f0.1")
    assert (child.suppressed, child.suppressed_by) == (False, None)


@pytest.mark.parametrize(
    "decided_by", ["hours_conflict", "attribute_conflict", "attribute_unknown"]
)
def test_a_listed_value_read_against_the_fact_explains_its_parent_too(decided_by: str) -> None:
    """A table's hours or a listing's yes or no (verify/hours.py, verify/attributes.py) is a
    value the context states, as a number is: it explains the coarser fact's missing words."""
    verdicts = oslo_verdicts(0.6)
    verdicts[1].decided_by = decided_by
    spans = project_spans(OSLO, verdicts)
    assert [(s.text, s.facts) for s in spans] == [("18,250", ["f0.1"])]
    assert (verdicts[0].suppressed, verdicts[0].suppressed_by) == (True, "f0.1")
    verdicts = oslo_verdicts(0.6)
    verdicts[1].decided_by = "direction_conflict"  # a conflict of words explains nothing
    assert [s.text for s in project_spans(OSLO, verdicts)] == ["concert", "drew", "crowd", "18,250"]


def test_a_parent_the_verifier_rejects_decisively_is_not_explained_away() -> None:
    verdicts = oslo_verdicts(0.95)
    spans = project_spans(OSLO, verdicts)
    parent, child = verdicts
    assert (parent.suppressed, child.suppressed_by) == (False, "f0.0")
    # the parent's context-absent words and the child's (suppressed, but with no trace) value
    assert [s.text for s in spans] == ["concert", "drew", "crowd", "18,250"]


def _hspan(answer: str, start: int, end: int, score: float, facts: list[str], label: str):
    return HallucinatedSpan(start, end, answer[start:end], score, facts, label)  # type: ignore[arg-type]


def test_join_phrase_gaps_joins_neighbours_of_one_sentence() -> None:
    answer = "He was born in Riga, Latvia. Then Oslo, (2) Bergen and Paris."
    riga = answer.index("Riga")
    latvia = answer.index("Latvia")
    oslo = answer.index("Oslo")
    two = answer.index("2")
    bergen = answer.index("Bergen")
    paris = answer.index("Paris")
    sentences = [Span(0, 28), Span(29, len(answer))]
    spans = [
        _hspan(answer, riga, riga + 4, 0.6, ["f0.1"], "unverifiable"),
        _hspan(answer, latvia, latvia + 6, 0.9, ["f0.0"], "contradicted"),
        _hspan(answer, oslo, oslo + 4, 0.7, ["f1.0"], "unverifiable"),  # "." and " Then": words
        _hspan(answer, two, two + 1, 0.5, [], "unverifiable"),
        _hspan(answer, bergen, bergen + 6, 0.8, ["f1.2"], "unverifiable"),
        _hspan(answer, paris, paris + 5, 0.8, ["f1.3"], "unverifiable"),  # " and ": a phrase
    ]
    joined = join_phrase_gaps(answer, spans, sentences)
    assert [(s.text, s.score, s.facts, s.label) for s in joined] == [
        ("Riga, Latvia", 0.9, ["f0.0", "f0.1"], "contradicted"),
        ("Oslo, (2) Bergen and Paris", 0.8, ["f1.0", "f1.2", "f1.3"], "unverifiable"),
    ]
    for span in joined:
        assert answer[span.start : span.end] == span.text


@pytest.mark.parametrize(
    ("answer", "pieces", "expected"),
    [
        (
            "It grows in the tropical regions of Asia, including India, Sri Lanka, and Southeast Asia.",
            ["tropical regions", "Asia, including India, Sri Lanka", "Southeast Asia"],
            ["tropical regions of Asia, including India, Sri Lanka, and Southeast Asia"],
        ),
        ("He played from 1979 to 1986.", ["1979", "1986"], ["1979 to 1986"]),
        # a word that is not phrase glue (a verb, a noun) keeps the pieces apart
        ("Oslo is Bergen.", ["Oslo", "Bergen"], ["Oslo", "Bergen"]),
        ("Oslo and rainy Bergen.", ["Oslo", "Bergen"], ["Oslo", "Bergen"]),
        # so do a line break and clause punctuation, glue words or not
        ("Oslo and\nBergen.", ["Oslo", "Bergen"], ["Oslo", "Bergen"]),
        ("Oslo; and Bergen.", ["Oslo", "Bergen"], ["Oslo", "Bergen"]),
        ("Oslo (and Bergen).", ["Oslo", "Bergen"], ["Oslo", "Bergen"]),
    ],
)
def test_join_phrase_gaps_joins_across_phrase_glue_only(
    answer: str, pieces: list[str], expected: list[str]
) -> None:
    spans = []
    for piece in pieces:
        start = answer.index(piece)
        spans.append(_hspan(answer, start, start + len(piece), 0.7, [], "unverifiable"))
    joined = join_phrase_gaps(answer, spans, [Span(0, len(answer))])
    assert [s.text for s in joined] == expected


def test_join_phrase_gaps_never_crosses_a_sentence() -> None:
    answer = "It was Riga. Latvia too."
    spans = [
        _hspan(answer, 7, 11, 0.6, [], "unverifiable"),
        _hspan(answer, 13, 19, 0.6, [], "unverifiable"),
    ]
    assert join_phrase_gaps(answer, spans, [Span(0, 12), Span(13, 24)]) == spans
    # without sentences nothing is joined
    assert join_phrase_gaps("Riga, Latvia", spans[:0], []) == []
    one = [
        _hspan("Riga, Latvia", 0, 4, 0.5, [], "unverifiable"),
        _hspan("Riga, Latvia", 6, 12, 0.5, [], "unverifiable"),
    ]
    assert join_phrase_gaps("Riga, Latvia", one, []) == one


def test_finish_spans_widens_a_blamed_part_of_a_date_to_the_whole_date() -> None:
    # a date chain blames the refinements' deltas "17" and "2015" ("March" explained)
    answer = "The elections were held on 17 March 2015 in Åland, Finland."
    day, year = answer.index("17"), answer.index("2015")
    aland, finland = answer.index("Åland"), answer.index("Finland")
    spans = [
        _hspan(answer, day, day + 2, 0.9, ["f0.2"], "contradicted"),
        _hspan(answer, year, year + 4, 0.9, ["f0.0"], "contradicted"),
        _hspan(answer, aland, aland + 5, 0.7, ["f1.0"], "unverifiable"),
        _hspan(answer, finland, finland + 7, 0.6, ["f1.1"], "unverifiable"),
    ]
    finished = finish_spans(answer, spans, [Span(0, len(answer))])
    # the date and the place: two labels, so " in " between them does not join them
    assert [(s.text, s.score, s.facts, s.label) for s in finished] == [
        ("17 March 2015", 0.9, ["f0.0", "f0.2"], "contradicted"),
        ("Åland, Finland", 0.7, ["f1.0", "f1.1"], "unverifiable"),
    ]
    # no date, nothing to widen; no span, nothing to do
    plain = [_hspan(answer, aland, aland + 5, 0.7, [], "unverifiable")]
    assert finish_spans(answer, plain, [Span(0, len(answer))]) == plain
    assert finish_spans(answer, [], [Span(0, len(answer))]) == []
