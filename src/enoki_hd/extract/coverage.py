"""Clauses no fact covers, checked whole: nothing an extractor leaves out passes as checked.

An extractor can return fewer facts than a sentence states: the distilled tagger emits at most
``depth`` rows per window (five for the shipped one), so "Apple was founded by Steve Jobs in
1976; Microsoft was founded by Bill Gates in 1975; ...; Oracle was founded by Robert Noyce in
1977." got one fact, and the swapped founder in the last clause was never judged — the
sentence was reported supported at 0.0. :func:`uncovered_clause_facts` cuts each sentence
that has facts into clauses (the clause boundaries of :mod:`enoki_hd.verify.hypothesis`:
``;``, ``:``, ``,`` and before "and", "but", "which", ...) and gives every clause holding at
least :data:`MIN_UNCOVERED_WORDS` content words, none of them inside any fact's spans, as a
fact of its own (``source="clause"``: the clause as its subject, no relation or object, the
clause as its delta), judged and blamed like any other fact. A sentence without facts is
judged whole already.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from enoki_hd.extract.verbalize import CLAUSE_SOURCE
from enoki_hd.text import STOP_WORDS, tokenize_words
from enoki_hd.types import Fact, Span
from enoki_hd.verify.hypothesis import clause_spans

MIN_UNCOVERED_WORDS = 3
"""Content words (not stop words, holding a letter or digit) a clause needs before it is
checked on its own: "and more" or "in 1977" alone states nothing a fact left out."""


def _content_words(text: str, span: Span) -> list[Span]:
    words = []
    for w in tokenize_words(span.text(text)):
        word = text[span.start + w.start : span.start + w.end]
        if any(c.isalnum() for c in word) and word.lower() not in STOP_WORDS:
            words.append(Span(span.start + w.start, span.start + w.end))
    return words


def uncovered_clause_facts(
    answer: str, sentences: Sequence[Span], facts: Iterable[Fact]
) -> list[Fact]:
    """Facts for the clauses of ``sentences`` (offsets into ``answer``) that hold at least
    :data:`MIN_UNCOVERED_WORDS` content words and no character of any of ``facts``' spans, by
    the rule in the module docstring; ids ``c<sentence>.<k>``. Sentences without facts give
    none."""
    covered: dict[int, list[Span]] = {}
    for fact in facts:
        parts = fact.subject_spans + fact.relation_spans + fact.object_spans
        covered.setdefault(fact.sentence, []).extend(parts)
    out: list[Fact] = []
    for index, parts in sorted(covered.items()):
        if not parts or not 0 <= index < len(sentences):
            continue
        sentence = sentences[index]
        k = 0
        for clause in clause_spans(sentence.text(answer)):
            end = sentence.start + clause.end
            while end > sentence.start + clause.start and answer[end - 1] in ".!,;: \t":
                end -= 1  # break and end punctuation are no part of the claim
            clause = Span(sentence.start + clause.start, end)
            words = _content_words(answer, clause)
            if len(words) < MIN_UNCOVERED_WORDS or any(
                w.start < p.end and p.start < w.end for w in words for p in parts
            ):
                continue
            text = clause.text(answer)
            out.append(
                Fact(
                    id=f"c{index}.{k}",
                    sentence=index,
                    subject=text,
                    relation="",
                    object="",
                    subject_spans=[clause],
                    delta=[clause],
                    source=CLAUSE_SOURCE,
                )
            )
            k += 1
    return out
