"""Copula facts: ``X is Y`` (chain over Y), ``X is in Y``, ``X is famous for Y`` and
``X is part of Y`` — a relational noun (``part``, ``member``, ``one``, ...) followed by ``of``
joins the relation: (Wales, is part of, United Kingdom)."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from enoki_hd.extract.rules.families import Example
from enoki_hd.extract.rules.families.arguments import emit_predicate
from enoki_hd.extract.rules.families.prepositional import prep_object, verb_preps
from enoki_hd.extract.rules.families.verb_object import object_heads
from enoki_hd.extract.rules.phrases import core_tokens

if TYPE_CHECKING:
    from spacy.tokens import Token

    from enoki_hd.extract.rules.candidates import FactBuilder
    from enoki_hd.extract.rules.clauses import Clause

FAMILY = "copula"

EXAMPLES = (
    Example(
        "Suede is an English rock band.",
        (
            ("Suede", "is", "band"),
            ("Suede", "is", "rock band"),
            ("Suede", "is", "English rock band"),
        ),
    ),
    Example("Bath is in Somerset.", (("Bath", "is in", "Somerset"),)),
    Example("Wales is part of the United Kingdom.", (("Wales", "is part of", "United Kingdom"),)),
    Example(
        "Paris is the capital of France.",
        (("Paris", "is", "capital"), ("Paris", "is", "capital of France")),
    ),
    Example(
        "The town is famous for its cheese.",
        (("town", "is", "famous"), ("town", "is famous for", "its cheese")),
    ),
    Example("Suede is not a band.", (("Suede", "is not", "band"),)),
    Example(
        "Torun was a member of the Hanseatic League from 1280.",
        (
            ("Torun", "was member of", "Hanseatic League"),
            ("Torun", "was member of Hanseatic League from", "1280"),
        ),
    ),
    Example(
        "The lake has been under protection since 1987.",
        (
            ("lake", "has been under", "protection"),
            ("lake", "has been under protection since", "1987"),
        ),
    ),
)

RELATIONAL_NOUNS = frozenset(
    {"part", "member", "one", "home", "example", "kind", "type", "form", "sort", "subset",
     "component", "variety", "some", "many", "most", "none", "all"}
)  # fmt: skip


def _relational_of(attr: Token) -> Token | None:
    """The ``of`` preposition that makes ``attr`` a relational noun (``part of``), or None."""
    if attr.lemma_.lower() not in RELATIONAL_NOUNS and attr.lower_ not in RELATIONAL_NOUNS:
        return None
    return next(
        (c for c in attr.children if c.dep_ == "prep" and c.lower_ == "of" and prep_object(c)),
        None,
    )


def propose(builder: FactBuilder, clause: Clause) -> None:
    objects: list[Token] = []
    relationals: list[tuple[Clause, Token]] = []
    for obj in object_heads(clause):
        of = _relational_of(obj)
        if of is None:
            objects.append(obj)
        else:
            relation = clause.relation | frozenset(core_tokens(obj))
            relationals.append((dataclasses.replace(clause, relation=relation), of))
    preps = verb_preps(clause, objects)
    for k, (relational, of) in enumerate(relationals):
        # the verb's other prepositions refine the (first) relational fact when it is the
        # whole predicate: (Torun, was member of Hansekaten from, 1261), not (Torun, was from,
        # 1261)
        alone = k == 0 and not objects
        emit_predicate(
            builder,
            relational,
            objects=[],
            object_family=FAMILY,
            prep_family=FAMILY,
            preps=[of, *preps] if alone else [of],
            intransitive=False,
            predicate_prep=of,
        )
        if alone:
            return
    # with no object, the first preposition after the verb completes the predicate
    predicate = (
        None if objects else next((p for p in preps if p.head.i == clause.predicate.i < p.i), None)
    )
    if objects or preps:
        emit_predicate(
            builder,
            clause,
            objects=objects,
            object_family=FAMILY,
            prep_family=FAMILY,
            preps=preps,
            intransitive=False,
            predicate_prep=predicate,
        )
