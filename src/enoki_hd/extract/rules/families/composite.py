"""Composite place names: ``Bath, Somerset`` refines ``Bath``.

A place followed by the larger place it lies in (an appositive proper noun after a comma,
one of them a place entity) is not an identity statement but a refinement: the object chain
goes ``Bath`` → ``Bath, Somerset``, and the added step carries the family ``composite``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from enoki_hd.extract.rules.families import Example

if TYPE_CHECKING:
    from spacy.tokens import Token

FAMILY = "composite"

EXAMPLES = (
    Example(
        "The band was formed in Bath, Somerset.",
        (("band", "was formed in", "Bath"), ("band", "was formed in", "Bath, Somerset")),
    ),
    Example(
        "She grew up in Paris, France.",
        (("She", "grew up in", "Paris"), ("She", "grew up in", "Paris, France")),
    ),
)

PLACE_ENTITIES = frozenset({"GPE", "LOC", "FAC"})


def is_composite(token: Token) -> bool:
    """Whether the appositive ``token`` names the place its head lies in."""
    head = token.head
    if token.dep_ != "appos" or head is token:
        return False
    if token.pos_ != "PROPN" or head.pos_ != "PROPN":
        return False
    if head.ent_type_ not in PLACE_ENTITIES and token.ent_type_ not in PLACE_ENTITIES:
        return False
    between = token.doc[min(head.i, token.i) + 1 : max(head.i, token.i)]
    return any(t.text == "," for t in between)
