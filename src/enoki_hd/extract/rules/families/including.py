"""``including`` lists: the listed items stand in for the phrase they illustrate.

``He wrote several novels, including Dune and Emma.`` gives, besides the facts about
``novels``, (He, wrote, Dune) and (He, wrote, Emma) with the family ``including``. ``such as``
is read the same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from enoki_hd.extract.rules.families import Example
from enoki_hd.extract.rules.syntax import conjuncts

if TYPE_CHECKING:
    from spacy.tokens import Token

FAMILY = "including"

EXAMPLES = (
    Example(
        "He wrote several novels, including Dune and Emma.",
        (("He", "wrote", "novels"), ("He", "wrote", "Dune"), ("He", "wrote", "Emma")),
    ),
    Example(
        "Symptoms such as fever and cough are common.",
        (("Symptoms", "are", "common"), ("fever", "are", "common"), ("cough", "are", "common")),
    ),
)


def is_including_prep(token: Token) -> bool:
    """``including X`` or ``such as X`` attached to a noun."""
    if token.dep_ != "prep":
        return False
    if token.lower_ == "including":
        return True
    return token.lower_ == "as" and any(c.lower_ == "such" for c in token.children)


def including_items(noun: Token) -> list[Token]:
    """Heads of the items listed after ``including`` / ``such as`` under ``noun``."""
    items: list[Token] = []
    for child in noun.children:
        if is_including_prep(child):
            for grandchild in child.children:
                if grandchild.dep_ == "pobj":
                    items.extend(conjuncts(grandchild))
    return items
