from __future__ import annotations

import pytest

from enoki_hd.eval.baselines import (
    absent_fraction,
    lexical_absent_spans,
    mark_all_spans,
    mark_none_spans,
    normalize_word,
    spans_to_dicts,
)
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


def test_sentence_boundary_separates() -> None:
    answer = "The band played Lyon. France was next."
    spans = lexical_absent_spans(answer, CONTEXT, sentence_backend="regex")
    assert texts(answer, spans) == ["played Lyon", "France"]
    assert spans == [Span(9, 20), Span(22, 28)]


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
    assert absent_fraction("It was there.", "") == 0.0


def test_absent_fraction() -> None:
    # content words: suede formed lyon 2004 -> lyon and 2004 absent
    assert absent_fraction("Suede formed in Lyon in 2004.", CONTEXT) == 0.5


def test_mark_all_strips_and_mark_none() -> None:
    answer = "  Hello world.\n"
    assert mark_all_spans(answer) == [Span(2, 14)]
    assert mark_all_spans(" \n ") == []
    assert mark_none_spans(answer) == []


def test_spans_to_dicts_and_normalize() -> None:
    answer = "Hello world."
    assert spans_to_dicts(answer, [Span(6, 11)], 0.5) == [
        {"start": 6, "end": 11, "text": "world", "score": 0.5}
    ]
    assert normalize_word("Einstein’s") == "einstein"
    assert normalize_word("1,900") == "1900"
