"""Verb–object facts: active (``The virus causes fever``), passive with agent (``was founded
by Noel Gallagher``), intransitive (``The band split up.``), verb + particle (``set up``) and
light-verb idioms (``played a role in``, whose prepositional phrase belongs to the verb).

The object phrase is an incremental chain (``role`` → ``significant role``); see
:mod:`enoki_hd.extract.rules.phrases` and :mod:`.arguments`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from enoki_hd.extract.rules.families import Example, prepositional
from enoki_hd.extract.rules.families.arguments import emit_predicate, measures
from enoki_hd.extract.rules.syntax import objects_of

if TYPE_CHECKING:
    from spacy.tokens import Token

    from enoki_hd.extract.rules.candidates import FactBuilder
    from enoki_hd.extract.rules.clauses import Clause

FAMILY = "verb_object"

EXAMPLES = (
    Example("The virus causes fever.", (("virus", "causes", "fever"),)),
    Example(
        "The album was produced by Ed Buller.",
        (("album", "was produced by", "Ed Buller"),),
    ),
    Example("The band split up.", (("band", "split up", ""),)),
    Example(
        "Anderson set up a new band.",
        (("Anderson", "set up", "band"), ("Anderson", "set up", "new band")),
    ),
    Example(
        "Marie Curie played an important role in the discovery of radium.",
        (
            ("Marie Curie", "played", "role"),
            ("Marie Curie", "played", "important role"),
            ("Marie Curie", "played important role in", "discovery"),
            ("Marie Curie", "played important role in", "discovery of radium"),
        ),
    ),
    Example(
        "Anderson wrote the album that Suede released.",
        (("Anderson", "wrote", "album"), ("Suede", "released", "album")),
    ),
)


def object_heads(clause: Clause) -> list[Token]:
    """Direct objects (and predicate nominals / adjectives) of the clause's verbs."""
    return objects_of(clause.heads)


def propose(builder: FactBuilder, clause: Clause) -> None:
    emit_predicate(
        builder,
        clause,
        objects=object_heads(clause) or measures(clause),
        object_family=FAMILY,
        prep_family=prepositional.FAMILY,
    )
