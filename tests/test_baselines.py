from __future__ import annotations

import pytest

from enoki_hd import text
from enoki_hd.eval import baselines
from enoki_hd.eval.baselines import (
    LexicalAbsent,
    LexicalPhrases,
    MarkAll,
    MarkNone,
    lexical_absence,
    lexical_absent_spans,
    make_prediction,
    mark_all_spans,
    mark_none_spans,
)
from enoki_hd.text import normalize_term
from enoki_hd.types import Span

CONTEXT = "Suede formed in London in 1989. The band split in 2003 after five albums."


def texts(answer: str, spans: list[Span]) -> list[str]:
    return [s.text(answer) for s in spans]


@pytest.mark.parametrize("backend", ["regex", "spacy"])
def test_neighbours_across_punctuation_merge(backend) -> None:
    answer = "Suede formed in London in 1989. They split in 2003 in Lyon, France."
    spans = lexical_absent_spans(answer, CONTEXT, sentence_backend=backend)
    assert spans == [Span(54, 66)]
    assert texts(answer, spans) == ["Lyon, France"]


def test_stop_word_between_absent_words_separates() -> None:
    answer = "Suede formed in Lyon and Paris."
    spans = lexical_absent_spans(answer, CONTEXT, sentence_backend="regex")
    assert spans == [Span(16, 20), Span(25, 30)]
    assert texts(answer, spans) == ["Lyon", "Paris"]


def test_lexical_phrases_join_across_phrase_words_within_a_sentence() -> None:
    answer = "Suede formed in Lyon and Paris. Oslo was rainy. Bergen too."
    record = LexicalPhrases(sentence_backend="regex").predict(answer=answer, context=CONTEXT)
    # "and" holds "Lyon and Paris" together; "was" does not; nor does a sentence boundary
    assert [row["text"] for row in record["spans"]] == ["Lyon and Paris", "Oslo", "rainy", "Bergen"]
    assert [(row["start"], row["end"]) for row in record["spans"]] == [
        (16, 30),
        (32, 36),
        (41, 46),
        (48, 54),
    ]
    plain = LexicalAbsent(sentence_backend="regex").predict(answer=answer, context=CONTEXT)
    assert record["sentences"] == plain["sentences"]
    assert [row["text"] for row in plain["spans"]] == ["Lyon", "Paris", "Oslo", "rainy", "Bergen"]


def test_sentence_boundary_separates() -> None:
    answer = "The band played Lyon. France was first."
    spans = lexical_absent_spans(answer, CONTEXT, sentence_backend="regex")
    # "first" is a content word (number words are never stop words), absent from the context
    assert texts(answer, spans) == ["played Lyon", "France", "first"]
    assert spans == [Span(9, 20), Span(22, 28), Span(33, 38)]


def test_question_words_count_as_present() -> None:
    answer = "Suede formed in Lyon."
    assert lexical_absent_spans(answer, CONTEXT, sentence_backend="regex") == [Span(16, 20)]
    assert lexical_absent_spans(answer, CONTEXT, "Was it Lyon?", sentence_backend="regex") == []


def test_case_possessive_hyphen_and_thousands_separator() -> None:
    context = "Einstein proposed the theory. It sold 1900000 copies. He was born in France."
    answer = "EINSTEIN’s theory sold 1,900,000 copies; he was France-born."
    assert lexical_absent_spans(answer, context, sentence_backend="regex") == []


def test_numbers_and_number_words_are_content_words() -> None:
    answer = "The band split in 2004 after two albums."
    spans = lexical_absent_spans(answer, CONTEXT, sentence_backend="regex")
    assert texts(answer, spans) == ["2004", "two"]
    assert spans == [Span(18, 22), Span(29, 32)]


def test_whole_words_only() -> None:
    # "form" is a substring of "formed" but not a word of the context
    answer = "Suede form."
    assert lexical_absent_spans(answer, CONTEXT, sentence_backend="regex") == [Span(6, 10)]


def test_empty_and_stop_word_answers() -> None:
    assert lexical_absent_spans("", CONTEXT, sentence_backend="regex") == []
    assert lexical_absent_spans("It was there.", "", sentence_backend="regex") == []
    assert lexical_absence("It was there.", "", sentence_backend="regex").score == 0.0


def test_sentence_scores_are_shares_of_absent_content_words() -> None:
    # content words: (suede formed lyon 2004) (band split) -> lyon and 2004 absent
    answer = "Suede formed in Lyon in 2004. The band split."
    found = lexical_absence(answer, CONTEXT, sentence_backend="regex")
    assert found.sentences == [Span(0, 29), Span(30, 45)]
    assert found.sentence_scores == [0.5, 0.0]
    assert found.sentence_flags == [True, False]
    assert found.score == pytest.approx(2 / 6)
    assert texts(answer, found.spans) == ["Lyon", "2004"]


def test_mark_all_strips_and_mark_none() -> None:
    answer = "  Hello world.\n"
    assert mark_all_spans(answer) == [Span(2, 14)]
    assert mark_all_spans(" \n ") == []
    assert mark_none_spans(answer) == []


def test_one_normaliser_and_stop_list_for_every_lexical_check() -> None:
    from enoki_hd.verify import grounding

    assert normalize_term("Einstein’s") == "einstein"
    assert normalize_term("1,900") == "1900"
    assert normalize_term("3.5") == "3.5"
    assert normalize_term("Bands") == "band"
    assert baselines.normalize_term is grounding.normalize_term is text.normalize_term
    assert baselines.STOP_WORDS is grounding.STOP_WORDS is text.STOP_WORDS
    assert "two" not in text.STOP_WORDS  # a changed number is a typical hallucination


ANSWER = "Suede formed in Lyon. The band split."


def test_lexical_absent_prediction_record() -> None:
    record = LexicalAbsent(sentence_backend="regex").predict(answer=ANSWER, context=CONTEXT)
    assert record == {
        "status": "ok",
        "level": "word",
        "hallucinated": True,
        "score": 1 / 3,
        "spans": [{"start": 16, "end": 20, "text": "Lyon", "score": 1.0}],
        "sentences": [
            {"index": 0, "start": 0, "end": 21, "score": 1 / 3, "label": "unverifiable"},
            {"index": 1, "start": 22, "end": 37, "score": 0.0, "label": "supported"},
        ],
        "facts": [],
    }
    assert list(record) == [
        "status",
        "level",
        "hallucinated",
        "score",
        "spans",
        "sentences",
        "facts",
    ]


def test_mark_all_and_mark_none_records() -> None:
    everything = MarkAll(sentence_backend="regex").predict(answer=ANSWER + "\n", context="")
    assert everything["spans"] == [{"start": 0, "end": 37, "text": ANSWER, "score": 1.0}]
    assert [s["label"] for s in everything["sentences"]] == ["unverifiable", "unverifiable"]
    assert everything["score"] == 1.0 and everything["hallucinated"] is True
    nothing = MarkNone(sentence_backend="regex").predict(answer=ANSWER, context="")
    assert nothing["spans"] == [] and nothing["hallucinated"] is False
    assert [s["score"] for s in nothing["sentences"]] == [0.0, 0.0]
    blank = MarkAll(sentence_backend="regex").predict(answer="  ", context="")
    assert blank["spans"] == [] and blank["sentences"] == [] and blank["score"] == 0.0


def test_prediction_score_falls_back_to_facts_then_spans() -> None:
    facts = [
        {"id": "f1", "hall_prob": 0.9, "score": 0.9, "suppressed": True},
        {"id": "f2", "hall_prob": 0.6, "score": 0.4, "suppressed": False},
    ]
    record = make_prediction(
        "a b", level="fact", spans=[(Span(2, 3), 0.7)], sentences=[], facts=facts
    )
    assert record["score"] == 0.4
    record = make_prediction("a b", level="fact", spans=[(Span(2, 3), 0.7)], sentences=[])
    assert record["score"] == 0.7 and record["spans"][0]["text"] == "b"
