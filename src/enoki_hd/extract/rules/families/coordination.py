"""Coordination split: ``fever, cough and toxins`` gives one fact per conjunct.

Coordinated subjects distribute over the predicate (``Anderson and Butler wrote it`` gives two
facts) and coordinated objects over the subject and relation. Facts made from a coordinated
argument carry the family ``coordination``; items of an ``including`` list carry
``including``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from enoki_hd.extract.rules.families import Example
from enoki_hd.extract.rules.families.including import FAMILY as INCLUDING
from enoki_hd.extract.rules.families.including import including_items
from enoki_hd.extract.rules.syntax import conjuncts

if TYPE_CHECKING:
    from spacy.tokens import Token

FAMILY = "coordination"

EXAMPLES = (
    Example(
        "The virus causes fever, cough and toxins.",
        (("virus", "causes", "fever"), ("virus", "causes", "cough"), ("virus", "causes", "toxins")),
    ),
    Example(
        "Anderson and Butler wrote the songs.",
        (("Anderson", "wrote", "songs"), ("Butler", "wrote", "songs")),
    ),
    Example(
        "He served as Prime Minister and became a judge.",
        (("He", "served as", "Prime Minister"), ("He", "became", "judge")),
    ),
)


def alternatives(head: Token) -> list[tuple[Token, str | None]]:
    """The argument heads ``head`` stands for, each with the family its facts take.

    The family is ``coordination`` for members of a coordination of two or more,
    ``including`` for listed examples, and None for a plain argument.
    """
    members = conjuncts(head)
    family = FAMILY if len(members) > 1 else None
    found: list[tuple[Token, str | None]] = [(m, family) for m in members]
    for member in members:
        found.extend((item, INCLUDING) for item in including_items(member))
    return found
