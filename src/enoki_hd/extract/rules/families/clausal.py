"""Clausal complements: ``She said that the band split up`` → (She, said, that the band split
up), and the complement clause's own facts (it is a clause of its own).

A temporal or causal clause (``after``, ``because``, …) relates its event to the main one,
which neither clause's own facts state: (Blood cultures, had been taken after, the patient
was started on antibiotics), beside the clause's own facts.

``xcomp`` complements without their own subject are folded into the relation instead
(``began to record albums`` → (band, began to record, albums)); see
:mod:`enoki_hd.extract.rules.clauses`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from enoki_hd.extract.rules.families import Example
from enoki_hd.extract.rules.syntax import is_content, is_paratactic_complement

if TYPE_CHECKING:
    from spacy.tokens import Token

    from enoki_hd.extract.rules.candidates import FactBuilder
    from enoki_hd.extract.rules.clauses import Clause

FAMILY = "clausal"
# Marks of an adverbial clause whose relation to the main event is a claim (``taken after``
# vs ``before``; ``because``); a condition (``if``, ``unless``) is not asserted at all.
_ADVERBIAL_MARKS = frozenset(
    {"after", "before", "until", "till", "since", "because", "once", "when", "whenever"}
)

EXAMPLES = (
    Example(
        "She said that the band split up in 2003.",
        (
            ("She", "said", "that the band split up in 2003"),
            ("band", "split up in", "2003"),
        ),
    ),
    Example(
        "Blood cultures had been taken after the patient was started on antibiotics.",
        (
            ("Blood cultures", "had been taken after", "the patient was started on antibiotics"),
            ("patient", "was started on", "antibiotics"),
        ),
    ),
    Example(
        "The band began to record albums.",
        (("band", "began to record", "albums"),),
    ),
)


def complements(clause: Clause) -> list[Token]:
    """The clausal complements (``ccomp`` verbs) of the clause's verbs; a clause the parser
    hangs across a semicolon is not one (``she had reached`` does not govern the clause before
    the semicolon)."""
    return [
        c
        for h in clause.heads
        for c in h.children
        if c.dep_ == "ccomp" and c.pos_ in ("VERB", "AUX") and not is_paratactic_complement(c)
    ]


def emit(
    builder: FactBuilder,
    subject: frozenset[int],
    relation: frozenset[int],
    complement: Token,
    *,
    family: str | None = None,
) -> None:
    """(subject, relation, the whole complement clause), when it fits the phrase limit."""
    tokens = frozenset(t.i for t in complement.subtree if is_content(t))
    if tokens and len(tokens) <= builder.max_phrase_tokens:
        builder.add(family or FAMILY, subject, relation, tokens)


# Verbs whose "when" clause is a question or a report, not the time of their event ("let them
# know when they have crossed the frontier", "authorities believe, when a car bomb …").
_NOT_WHEN_HEADS = frozenset(
    {"know", "ask", "wonder", "tell", "decide", "remember", "forget", "believe", "say"}
    | {"explain", "show", "understand", "learn", "see", "realize", "determine", "think"}
)


def _is_mark(token: Token, verb: Token, head: Token) -> bool:
    """``token`` marks ``verb``'s adverbial clause as one of :data:`_ADVERBIAL_MARKS`: the
    parser's ``mark``, or the "when" / "whenever" it tags a wh-adverb (``advmod``) at the
    clause's start — left out, "The war ended when the treaty was signed" never related the
    two events, though "when" was on the list. Not after a common noun: "a scene when J.D.
    must shave him" is about the scene, whatever verb the parser hangs the clause on; nor on a
    verb of :data:`_NOT_WHEN_HEADS`."""
    if token.lower_ not in _ADVERBIAL_MARKS:
        return False
    if token.dep_ == "mark":
        return True
    after_noun = token.i > 0 and token.nbor(-1).pos_ == "NOUN"
    return (
        token.dep_ == "advmod"
        and token.tag_ == "WRB"
        and token.i == verb.left_edge.i
        and not after_noun
        and head.lemma_.lower() not in _NOT_WHEN_HEADS
    )


def adverbials(clause: Clause) -> list[tuple[Token, Token]]:
    """(mark, verb) of each temporal or causal clause on the clause's verbs (``taken after
    the patient was started on antibiotics``, ``delayed because the pipe burst``)."""
    found = []
    for head in clause.heads:
        for child in head.children:
            if child.dep_ != "advcl" or child.pos_ not in ("VERB", "AUX"):
                continue
            mark = next((m for m in child.children if _is_mark(m, child, head)), None)
            if mark is not None:
                found.append((mark, child))
    return found


def emit_adverbial(
    builder: FactBuilder,
    subject: frozenset[int],
    before: tuple[frozenset[int], ...],
    mark: Token,
    verb: Token,
    *,
    parent: int | None,
    family: str | None = None,
) -> None:
    """(subject, ``before`` + the mark, the rest of the adverbial clause) — the relation
    between the two events, which neither clause's own facts state — when it fits the phrase
    limit. What measures the mark stays with it (``some 44 years after``)."""
    content = [t.i for t in verb.subtree if is_content(t)]
    tokens = frozenset(i for i in content if i > mark.i)
    if tokens and len(tokens) <= builder.max_phrase_tokens:
        order = (*before, frozenset(i for i in content if i <= mark.i))
        builder.add(
            family or FAMILY,
            subject,
            frozenset().union(*order),
            tokens,
            parent=parent,
            relation_order=order,
        )
