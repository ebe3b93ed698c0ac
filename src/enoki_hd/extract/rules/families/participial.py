"""Participial modifiers: ``a band formed in Bath`` → (band's entity, formed in, Bath).

A participle modifying a noun (a reduced relative clause) or opening the sentence without a
subject (``Formed in 1992, Suede ...``) is a clause whose subject is the described entity —
climbing from an appositive or predicate nominal to the entity it describes, so ``Suede, an
English band formed in Bath`` gives (Suede, formed in, Bath). A participle modifying a noun
with nothing after it (``the man sitting``) gives no fact.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from enoki_hd.extract.rules.families import Example
from enoki_hd.extract.rules.families.arguments import emit_predicate, measures
from enoki_hd.extract.rules.families.verb_object import object_heads

if TYPE_CHECKING:
    from enoki_hd.extract.rules.candidates import FactBuilder
    from enoki_hd.extract.rules.clauses import Clause

FAMILY = "participial"

EXAMPLES = (
    Example(
        "Suede is an English rock band formed in London in 1989.",
        (("Suede", "formed in", "London"), ("Suede", "formed in", "1989")),
    ),
    Example(
        "Formed in 1992, the band released five albums.",
        (("band", "Formed in", "1992"), ("band", "released", "five albums")),
    ),
    Example(
        "The man sitting on the bench is my father.",
        (("man", "sitting on", "bench"), ("man", "is", "my father")),
    ),
)


def propose(builder: FactBuilder, clause: Clause) -> None:
    # A bare participle modifying a noun says nothing checkable on its own: "targets related"
    # (of "targets related to making cities safe"), "the man sitting".
    emit_predicate(
        builder,
        clause,
        objects=object_heads(clause) or measures(clause),
        object_family=FAMILY,
        prep_family=FAMILY,
        intransitive=clause.predicate.dep_ != "acl",
    )
