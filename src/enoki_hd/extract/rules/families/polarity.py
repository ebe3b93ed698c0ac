"""Negation and modality, recorded on the fact (``negated``, ``modality``).

The negation word stays in the relation text (``was not formed in``), so the verbalized
hypothesis keeps it; ``no`` as the object's determiner (``has no children``) negates too.
``modality`` is the lemma of the clause's modal auxiliary (``may``, ``can``, ``will``, ...).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from enoki_hd.extract.rules.families import Example

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

FAMILY = "polarity"

EXAMPLES = (
    Example("Suede was not formed in London.", (("Suede", "was not formed in", "London"),)),
    Example(
        "The drug may cause severe headaches.",
        (("drug", "may cause", "headaches"), ("drug", "may cause", "severe headaches")),
    ),
    Example("The band never released an album.", (("band", "never released", "album"),)),
)

NEGATION_WORDS = frozenset({"not", "n't", "never", "cannot"})
NEGATING_DETERMINERS = frozenset({"no", "neither"})


def is_negated(relation: Iterable[Token], obj: Iterable[Token]) -> bool:
    """Whether the relation holds a negation or the object is quantified by ``no``."""
    if any(t.dep_ == "neg" or t.lower_ in NEGATION_WORDS for t in relation):
        return True
    return any(t.dep_ == "det" and t.lower_ in NEGATING_DETERMINERS for t in obj)


def denies_unsaid(tokens: frozenset[int], doc: Doc) -> bool:
    """Whether ``tokens`` (a fact's part) hold a conjunct of a "neither … nor" coordination
    without its "neither": "Neither Neptune nor Longhorn was released" and "She neither
    confirmed nor denied the report" give (Longhorn, was released, ) and (She, denied,
    report) — each the opposite of what the sentence says, with no word of the fact to say
    so. ("Neither Neptune | was released" keeps the word and is left as it is.)"""
    for i in tokens:
        token = doc[i]
        if token.head.i in tokens and token.head.i != token.i:
            continue  # not the part's head
        root = token
        while root.dep_ == "conj" and root.head.i != root.i:
            root = root.head
        neither = next((c for c in root.children if c.lower_ == "neither"), None)
        if neither is not None and neither.i not in tokens:
            return True
    return False


def negated_text(relation: str, obj: str) -> bool:
    """:func:`is_negated` read from a fact's words, for facts that come with no parse (the
    tagger's rows): the relation holds "not", "never", "cannot" or a word ending in "n't"
    ("is not caused solely by", "isn't", "never released"), or the object opens with "no" or
    "neither" ("has | no children")."""
    words = relation.lower().replace("’", "'").split()
    if any(w in NEGATION_WORDS or w.endswith("n't") for w in words):
        return True
    first = obj.lower().split()[:1]
    return bool(first) and first[0] in NEGATING_DETERMINERS


def modality_of(relation: Iterable[Token]) -> str | None:
    """The lemma of the first modal auxiliary in the relation, or None."""
    for token in sorted(relation, key=lambda t: t.i):
        if token.tag_ == "MD":
            return token.lemma_.lower()
    return None


MODALS = frozenset(
    {"can", "could", "may", "might", "must", "shall", "should", "will", "would", "ought"}
)
_MODAL_FORMS = {"cannot": "can", "can't": "can", "won't": "will", "shan't": "shall", "'ll": "will"}


def modality_text(relation: str) -> str | None:
    """:func:`modality_of` read from a relation's words, for facts that come with no parse (the
    tagger's rows): the first modal auxiliary, as its lemma ("could not confirm" → "could",
    "cannot" and "can't" → "can", "won't" → "will"), or None."""
    for word in relation.lower().replace("’", "'").split():
        word = _MODAL_FORMS.get(word, word)
        if word.endswith("n't"):
            word = word[:-3]
        if word in MODALS:
            return word
    return None
