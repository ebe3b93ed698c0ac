"""Appositive identity: ``Marie Curie, a physicist`` → (Marie Curie, is, physicist).

The relation ``is`` is synthesized: it has no span in the answer (``relation_spans`` is
empty). The appositive phrase is an incremental chain (``band`` → ``rock band`` → ...).
Place appositives (``Bath, Somerset``) are composites, not identities (:mod:`.composite`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from enoki_hd.extract.rules.families import Example, composite
from enoki_hd.extract.rules.phrases import is_unit_scale, phrase_steps, widest
from enoki_hd.extract.rules.syntax import conjuncts, is_noun_like

if TYPE_CHECKING:
    from spacy.tokens import Token

    from enoki_hd.extract.rules.candidates import FactBuilder

FAMILY = "appositive"
SYNTHESIZED_RELATION = "is"

EXAMPLES = (
    Example(
        "Marie Curie, a Polish physicist, discovered radium in 1898.",
        (
            ("Marie Curie", "is", "physicist"),
            ("Marie Curie", "is", "Polish physicist"),
            ("Marie Curie", "discovered", "radium"),
            ("Marie Curie", "discovered radium in", "1898"),
        ),
    ),
    Example(
        "He met Brett Anderson, the singer of Suede.",
        (("Brett Anderson", "is", "singer"), ("Brett Anderson", "is", "singer of Suede")),
    ),
)


def propose(builder: FactBuilder, appositive: Token) -> None:
    """Facts identifying the appositive's head with the appositive phrase."""
    head = appositive.head
    if appositive.dep_ != "appos" or head is appositive or composite.is_composite(appositive):
        return
    if is_unit_scale(appositive):  # "25 degrees Celsius": the unit, not an identity
        return
    if not is_noun_like(head) or head.pos_ in ("PRON", "NUM"):
        return
    subject = widest(head, max_tokens=builder.max_phrase_tokens)
    if not subject:
        return
    # "the following municipalities: Pavia, Piacenza and Pisa": one chain per listed item
    for item in conjuncts(appositive):
        steps = phrase_steps(item, max_tokens=builder.max_phrase_tokens)
        if steps:
            builder.chain(FAMILY, subject, frozenset(), steps, relation_text=SYNTHESIZED_RELATION)
