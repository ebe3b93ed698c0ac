"""Grid rows → facts (enoki_hd.igl.decode): teacher facts survive facts_to_example → decode_rows."""

from __future__ import annotations

import re

import numpy as np
import pytest

from enoki_hd.igl.decode import (
    dangling_articles_dropped,
    decode_rows,
    edges_trimmed,
    keep_negations,
    negation_positions,
)
from enoki_hd.igl.labels import (
    ARG1,
    ARG2,
    LOC_TMP,
    NONE,
    REL,
    SENTINELS,
    TYPE,
    facts_to_example,
)
from enoki_hd.text import tokenize_words
from enoki_hd.types import Fact, Span


def _span(text: str, phrase: str) -> Span:
    """The first whole-word occurrence of ``phrase`` in ``text``."""
    match = re.search(rf"(?<!\w){re.escape(phrase)}(?!\w)", text)
    assert match is not None, phrase
    return Span(match.start(), match.end())


def _fact(
    text: str,
    k: int,
    subject: list[str],
    relation: str,
    relation_words: list[str],
    obj: list[str],
    *,
    parent: int | None = None,
    delta: list[str] | None = None,
) -> Fact:
    """A teacher fact whose strings are its spans' text (the implicit word, if any, first)."""
    subject_spans = [_span(text, p) for p in subject]
    relation_spans = [_span(text, p) for p in relation_words]
    object_spans = [_span(text, p) for p in obj]
    if delta is None:
        delta_spans = object_spans or relation_spans or subject_spans
    else:
        delta_spans = [_span(text, p) for p in delta]
    return Fact(
        id=f"f0.{k}",
        sentence=0,
        subject=" ".join(subject),
        relation=relation,
        object=" ".join(obj),
        subject_spans=subject_spans,
        relation_spans=relation_spans,
        object_spans=object_spans,
        parent=None if parent is None else f"f0.{parent}",
        delta=sorted(delta_spans),
        source="teacher",
    )


def _key(fact: Fact) -> tuple:
    return (
        fact.id,
        fact.sentence,
        fact.subject,
        fact.relation,
        fact.object,
        fact.subject_spans,
        fact.relation_spans,
        fact.object_spans,
        fact.parent,
        fact.delta,
    )


CHAIN = "Brett Anderson is an English rock singer."
APPOSITIVE = "Paris, the capital of France, is large."
FORMED = "Suede was formed in Bath in 1989."

CASES = {
    "chain": (
        CHAIN,
        [
            _fact(CHAIN, 0, ["Brett Anderson"], "is", ["is"], ["singer"]),
            _fact(CHAIN, 1, ["Brett Anderson"], "is", ["is"], ["rock singer"], parent=0,
                  delta=["rock"]),
            _fact(CHAIN, 2, ["Brett Anderson"], "is", ["is"], ["an English rock singer"],
                  parent=1, delta=["an English"]),
        ],
    ),
    "implicit relation": (
        APPOSITIVE,
        [
            _fact(APPOSITIVE, 0, ["Paris"], "is the capital of", ["the capital of"], ["France"]),
            _fact(APPOSITIVE, 1, ["Paris"], "is", ["is"], ["large"]),
        ],
    ),
    "bare implicit relation": (
        "Marie Curie, a physicist, discovered radium.",
        [
            _fact("Marie Curie, a physicist, discovered radium.", 0, ["Marie Curie"], "is", [],
                  ["physicist"]),
            _fact("Marie Curie, a physicist, discovered radium.", 1, ["Marie Curie"],
                  "discovered", ["discovered"], ["radium"]),
        ],
    ),
    "refinement by a second argument": (
        FORMED,
        [
            _fact(FORMED, 0, ["Suede"], "was formed", ["was formed"], []),
            _fact(FORMED, 1, ["Suede"], "was formed", ["was formed"], ["in Bath"], parent=0,
                  delta=["in Bath"]),
            _fact(FORMED, 2, ["Suede"], "was formed", ["was formed"], ["in Bath in 1989"],
                  parent=1, delta=["in 1989"]),
        ],
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", list(CASES))
def test_teacher_facts_round_trip_through_rows(name: str) -> None:
    text, teacher = CASES[name]
    example = facts_to_example(text, teacher, source="test")
    assert example.words == tokenize_words(text)
    facts = decode_rows(text, example.words, example.rows, source="teacher")
    assert [_key(f) for f in facts] == [_key(f) for f in teacher]
    assert all(f.source == "teacher" and f.confidence is None for f in facts)


def test_offset_shifts_every_span_into_the_answer() -> None:
    prefix = "Intro sentence here. "
    answer = prefix + CHAIN
    _, teacher = CASES["chain"]
    example = facts_to_example(CHAIN, teacher, source="test")
    facts = decode_rows(CHAIN, example.words, example.rows, offset=len(prefix), sentence=3)
    assert [f.id for f in facts] == ["f3.0", "f3.1", "f3.2"]
    assert [f.parent for f in facts] == [None, "f3.0", "f3.1"]
    for fact, original in zip(facts, teacher, strict=True):
        assert fact.sentence == 3
        for part in ("subject", "object"):
            spans = getattr(fact, f"{part}_spans")
            assert " ".join(s.text(answer) for s in spans) == getattr(original, part)
        assert [s.text(answer) for s in fact.delta] == [s.text(CHAIN) for s in original.delta]


def _row(words: list[Span], text: str, parts: dict[str, int], sentinel: int | None = None):
    """A label row: ``parts`` maps a word's text to its label; ``sentinel`` labels that
    sentinel REL."""
    row = [NONE] * (len(words) + len(SENTINELS))
    for i, w in enumerate(words):
        row[i] = parts.get(w.text(text), NONE)
    if sentinel is not None:
        row[len(words) + sentinel] = REL
    return row


def test_loc_tmp_follows_arg2_in_the_object_and_type_reads_as_none() -> None:
    text = "In 1989 Suede played Bath ."
    words = tokenize_words(text)
    row = _row(
        words, text, {"In": LOC_TMP, "1989": LOC_TMP, "Suede": ARG1, "played": REL, "Bath": ARG2,
                      ".": TYPE},
    )  # fmt: skip
    (fact,) = decode_rows(text, words, [row])
    assert fact.object == "Bath In 1989"
    assert fact.object_spans == [_span(text, "Bath"), _span(text, "In 1989")]
    assert (fact.subject, fact.relation) == ("Suede", "played")


def test_rows_without_subject_or_relation_yield_nothing() -> None:
    text = "Suede played Bath."
    words = tokenize_words(text)
    no_subject = _row(words, text, {"played": REL, "Bath": ARG2})
    no_relation = _row(words, text, {"Suede": ARG1, "Bath": ARG2})
    sentinel_not_rel = _row(words, text, {"Suede": ARG1, "Bath": ARG2})
    sentinel_not_rel[len(words)] = ARG1
    assert decode_rows(text, words, [no_subject, no_relation, sentinel_not_rel]) == []
    assert decode_rows(text, words, []) == []


def test_duplicates_keep_the_first_place_and_the_highest_confidence() -> None:
    text = "Suede played Bath."
    words = tokenize_words(text)
    full = _row(words, text, {"Suede": ARG1, "played": REL, "Bath": ARG2})
    bare = _row(words, text, {"Suede": ARG1, "played": REL})
    facts = decode_rows(text, words, [full, bare, full], [0.4, 0.7, 0.9], id_prefix="a:")
    assert [(f.id, f.object, f.confidence) for f in facts] == [
        ("a:f0.0", "Bath", 0.9),
        ("a:f0.1", "", 0.7),
    ]
    # the coarser fact comes second, and is still the parent
    assert facts[0].parent == "a:f0.1"
    assert facts[0].delta == [_span(text, "Bath")]
    assert facts[1].parent is None and facts[1].delta == [_span(text, "played")]


def test_implicit_relations_on_different_sentinels_are_different_facts() -> None:
    text = "Paris France"
    words = tokenize_words(text)
    is_row = _row(words, text, {"Paris": ARG1, "France": ARG2}, sentinel=0)
    of_row = _row(words, text, {"Paris": ARG1, "France": ARG2}, sentinel=1)
    is_from_row = _row(words, text, {"Paris": ARG1, "France": ARG2}, sentinel=0)
    is_from_row[len(words) + 2] = REL
    facts = decode_rows(text, words, np.array([is_row, of_row, is_from_row]))
    assert [f.relation for f in facts] == ["is", "of", "is from"]
    assert all(f.relation_spans == [] and f.parent is None for f in facts)


def test_bad_shapes_are_errors() -> None:
    words = tokenize_words("Suede played.")
    with pytest.raises(ValueError, match="each row needs 6 labels"):
        decode_rows("Suede played.", words, [[NONE] * 4])
    with pytest.raises(ValueError, match="confidences"):
        decode_rows("Suede played.", words, [[NONE] * 6], [0.1, 0.2])
    with pytest.raises(ValueError, match="split must be 'none', 'chain' or 'atoms', got 'pp'"):
        decode_rows("Suede played.", words, [[NONE] * 6], split="pp")  # type: ignore[arg-type]


SPLIT_TEXT = "The band was founded by Noel Gallagher in Manchester in 1991 ."


def _split_row() -> tuple[list[Span], list[int]]:
    words = tokenize_words(SPLIT_TEXT)
    parts = {"The": ARG1, "band": ARG1, "was": REL, "founded": REL, "by": REL}
    for word in ("Noel", "Gallagher", "in", "Manchester", "1991"):
        parts[word] = ARG2
    return words, _row(words, SPLIT_TEXT, parts)


def _triples(facts: list[Fact]) -> list[tuple[str, str, str, str | None, list[str]]]:
    return [
        (f.id, f.relation, f.object, f.parent, [s.text(SPLIT_TEXT) for s in f.delta]) for f in facts
    ]


def test_split_none_keeps_the_row_as_one_fact() -> None:
    words, row = _split_row()
    (fact,) = decode_rows(SPLIT_TEXT, words, [row])
    assert fact.object == "Noel Gallagher in Manchester in 1991"


def test_split_chain_cuts_the_object_at_prepositions_into_refinements() -> None:
    words, row = _split_row()
    facts = decode_rows(SPLIT_TEXT, words, [row], [0.8], split="chain")
    assert _triples(facts) == [
        ("f0.0", "was founded by", "Noel Gallagher", None, ["Noel Gallagher"]),
        ("f0.1", "was founded by", "Noel Gallagher in Manchester", "f0.0", ["in Manchester"]),
        ("f0.2", "was founded by", "Noel Gallagher in Manchester in 1991", "f0.1", ["in 1991"]),
    ]
    assert all(f.subject == "The band" and f.confidence == 0.8 for f in facts)


def test_split_atoms_gives_each_phrase_its_own_fact_under_the_head() -> None:
    words, row = _split_row()
    facts = decode_rows(SPLIT_TEXT, words, [row], split="atoms")
    assert _triples(facts) == [
        ("f0.0", "was founded by", "Noel Gallagher", None, ["Noel Gallagher"]),
        ("f0.1", "was founded in", "Manchester", "f0.0", ["Manchester"]),
        ("f0.2", "was founded in", "1991", "f0.0", ["1991"]),
    ]
    # the relation's own preposition is replaced, and its spans say so exactly
    assert facts[1].relation_spans == [_span(SPLIT_TEXT, "was founded"), Span(39, 41)]
    assert facts[1].object_spans == [_span(SPLIT_TEXT, "Manchester")]


def test_split_leaves_an_object_without_inner_prepositions_alone() -> None:
    text = "Suede played in Bath ."
    words = tokenize_words(text)
    # a preposition first in the object, or last, opens nothing
    first = _row(words, text, {"Suede": ARG1, "played": REL, "in": ARG2, "Bath": ARG2})
    for split in ("chain", "atoms"):
        (fact,) = decode_rows(text, words, [first], split=split)  # type: ignore[arg-type]
        assert (fact.relation, fact.object, fact.parent) == ("played", "in Bath", None)


def _negation_fact(text: str, parts: dict[str, int]) -> Fact:
    words = tokenize_words(text)
    (fact,) = decode_rows(text, words, [keep_negations(_row(words, text, parts), text, words)])
    return fact


@pytest.mark.parametrize(
    ("text", "parts", "expected"),
    [
        # beside a relation word: the relation keeps it
        ("UVA has never expelled a student .", {"UVA": ARG1, "expelled": REL, "student": ARG2},
         ("UVA", "has never expelled", "student")),
        ("Never did it rain .", {"it": ARG1, "rain": REL}, ("it", "rain", "")),
        ("The shop does not offer parking .",
         {"shop": ARG1, "does": REL, "offer": REL, "parking": ARG2},
         ("shop", "does not offer", "parking")),
        ("It isn't meant for loads .", {"It": ARG1, "meant": REL, "for": REL, "loads": ARG2},
         ("It", "isn't meant for", "loads")),
        ("The mill no longer operates .", {"mill": ARG1, "operates": REL},
         ("mill", "no longer operates", "")),
        # before an argument: the argument keeps it
        ("Not all fodies are red .", {"all": ARG1, "fodies": ARG1, "are": REL, "red": ARG2},
         ("Not all fodies", "are", "red")),
        ("It can be replaced by the user without tools .",
         {"It": ARG1, "can": REL, "be": REL, "replaced": REL, "by": REL, "the": ARG2,
          "user": ARG2, "tools": ARG2},
         ("It", "can be replaced by", "the user without tools")),
        # beside no part, or not denying its neighbour: left alone
        ("Whether or not it rains , fans come .", {"it": ARG1, "rains": REL},
         ("it", "rains", "")),
        ("She not only sang .", {"She": ARG1, "sang": REL}, ("She", "sang", "")),
        ("It was no doubt the best .", {"It": ARG1, "was": REL, "the": ARG2, "best": ARG2},
         ("It", "was", "the best")),
        ("It is not just a museum .", {"It": ARG1, "is": REL, "a": ARG2, "museum": ARG2},
         ("It", "is", "a museum")),
        ("Rescuers could not get there ; all four left .", {"all": ARG1, "four": ARG1,
                                                            "left": REL},
         ("all four", "left", "")),
    ],
)  # fmt: skip
def test_keep_negations_gives_a_dropped_negation_to_the_part_beside_it(
    text: str, parts: dict[str, int], expected: tuple[str, str, str]
) -> None:
    fact = _negation_fact(text, parts)
    assert (fact.subject, fact.relation, fact.object) == expected


def test_keep_negations_leaves_labelled_words_and_sentinels_alone() -> None:
    text = "Suede did not play Bath ."
    words = tokenize_words(text)
    row = _row(words, text, {"Suede": ARG1, "not": REL, "play": REL, "Bath": ARG2}, sentinel=0)
    assert keep_negations(row, text, words) == row
    fixed = keep_negations(_row(words, text, {"Suede": ARG1, "play": REL}, sentinel=2), text, words)
    assert fixed[len(words) :] == [NONE, NONE, REL]
    assert [
        w.text(text) for w, label in zip(words, fixed[: len(words)], strict=True) if label == REL
    ] == [
        "did",
        "not",
        "play",
    ]


def test_keep_negations_reads_the_negations_found_once_for_every_row() -> None:
    """The encoder finds a sentence's negation words once (negation_positions) and gives them
    to each row: every word was read again for every row, quadratic in a long sentence."""
    text = "Suede did not play Bath , no longer toured and never not once split ."
    words = tokenize_words(text)
    negations = negation_positions(text, words)
    assert [words[i].text(text) for i in negations] == ["not", "no", "never", "not"]
    rows = [
        _row(words, text, {"Suede": ARG1, "play": REL}),
        _row(words, text, {"toured": REL, "Bath": ARG2}),
        _row(words, text, {"split": REL, "Suede": ARG1}),
    ]
    for row in rows:
        assert keep_negations(row, text, words, negations) == keep_negations(row, text, words)
    labelled = keep_negations(rows[2], text, words, negations)
    # "never" stands beside no labelled word and is left alone; "not once", a negation and its
    # adverb, joins the relation "split" after it
    assert [w.text(text) for w, label in zip(words, labelled, strict=False) if label == REL] == [
        "not",
        "once",
        "split",
    ]


def _labelled(text: str, labels: list[tuple[int, int]]) -> tuple[list[Span], np.ndarray]:
    """The words of ``text`` and a row giving word ``k`` label ``l`` for each ``(k, l)``."""
    words = tokenize_words(text)
    row = np.full(len(words) + len(SENTINELS), NONE, dtype=np.int64)
    for k, label in labels:
        row[k] = label
    return words, row


@pytest.mark.parametrize(
    ("text", "labels", "expected"),
    [
        # an opening quote the object does not close
        ('It won " 10 Day " in 2015 .', [(0, ARG1), (1, REL), (2, ARG2), (3, ARG2), (4, ARG2)],
         ("It", "won", "10 Day")),
        # a closing quote of a pair the object leaves open, after a conjunction
        ('It merged " Delley " and " Font " .',
         [(0, ARG1), (1, REL), (2, ARG2), (3, ARG2), (4, ARG2), (5, ARG2), (6, ARG2)],
         ("It", "merged", '" Delley " and')),
        # a comma alone is no object; a relation's trailing comma goes too
        ("He said , then left .", [(0, ARG1), (1, REL), (2, REL)], ("He", "said", "")),
        # pairs the part closes stay
        ('It won " 10 Day " .', [(0, ARG1), (1, REL), (2, ARG2), (3, ARG2), (4, ARG2), (5, ARG2)],
         ("It", "won", '" 10 Day "')),
        # a value's symbols are no punctuation
        ("It returned 6.2 % , then $ 5 .", [(0, ARG1), (1, REL), (2, ARG2), (3, ARG2), (4, ARG2)],
         ("It", "returned", "6.2 %")),
        ("It cost $ 5 .", [(0, ARG1), (1, REL), (2, ARG2), (3, ARG2)], ("It", "cost", "$ 5")),
        ("The Fédération ( FIDE ) ruled .",
         [(0, ARG1), (1, ARG1), (2, ARG1), (3, ARG1), (4, ARG1), (5, REL)],
         ("The Fédération ( FIDE )", "ruled", "")),
    ],
)  # fmt: skip
def test_edges_trimmed_drops_the_punctuation_a_part_begins_or_ends_on(
    text: str, labels: list[tuple[int, int]], expected: tuple[str, str, str]
) -> None:
    words, row = _labelled(text, labels)
    trimmed = edges_trimmed(row, text, words)
    (fact,) = decode_rows(text, words, [trimmed])
    assert (fact.subject, fact.relation, fact.object) == expected


def test_edges_trimmed_returns_the_row_itself_when_nothing_is_trimmed() -> None:
    text = "Suede played Bath ."
    words, row = _labelled(text, [(0, ARG1), (1, REL), (2, ARG2)])
    assert edges_trimmed(row, text, words) is row


@pytest.mark.parametrize(
    ("text", "labels", "expected"),
    [
        # the object's article without its noun ("the year" left unlabelled)
        ("The weather appears mild throughout the year .",
         [(0, ARG1), (1, ARG1), (2, REL), (3, REL), (5, ARG2)], ("The weather", "appears mild", "")),
        # the last of a part's articles, its noun unlabelled; the first keeps its noun
        ("Guests praised the restaurant the staff runs .",
         [(0, ARG1), (1, REL), (2, ARG2), (3, ARG2), (4, ARG2)],
         ("Guests", "praised", "the restaurant")),
        # an article before the next part's word stays
        ("Alito's is a New Mexican diner .",
         [(0, ARG1), (1, REL), (2, REL), (3, ARG2), (4, ARG2)], ("Alito's", "is a", "New Mexican")),
        # a quote between the article and its noun is read through
        ('It won the " Golden Boot " .', [(0, ARG1), (1, REL), (2, ARG2), (4, ARG2), (5, ARG2)],
         ("It", "won", 'the Golden Boot')),
        # an article at the sentence's end has no noun
        ("They painted a", [(0, ARG1), (1, REL), (2, ARG2)], ("They", "painted", "")),
    ],
)  # fmt: skip
def test_dangling_articles_dropped_leaves_out_an_article_without_its_noun(
    text: str, labels: list[tuple[int, int]], expected: tuple[str, str, str]
) -> None:
    words, row = _labelled(text, labels)
    (fact,) = decode_rows(text, words, [dangling_articles_dropped(row, text, words)])
    assert (fact.subject, fact.relation, fact.object) == expected


def test_a_part_of_articles_alone_is_dropped_and_so_is_a_row_left_without_subject() -> None:
    # the tagger's row of "Vacuum the pre-filter every two weeks": subject "the"
    text = "Vacuum the pre-filter every two weeks ."
    words, row = _labelled(text, [(1, ARG1), (0, REL), (2, REL), (3, REL), (4, ARG2), (5, ARG2)])
    assert decode_rows(text, words, [dangling_articles_dropped(row, text, words)]) == []
    words, row = _labelled(text, [(1, ARG1), (2, ARG1), (0, REL), (4, ARG2), (5, ARG2)])
    assert dangling_articles_dropped(row, text, words) is row


def test_a_relation_of_an_article_before_its_object_is_kept() -> None:
    # "Lyon | the | third largest city": the implicit "is", read by asserted.relation_implicit
    text = "Lyon , the third largest city , is known for its food ."
    words, row = _labelled(text, [(0, ARG1), (2, REL), (3, ARG2), (4, ARG2), (5, ARG2)])
    assert dangling_articles_dropped(row, text, words) is row
