"""Turn a fact into the hypothesis sentence the NLI verifier checks."""

from __future__ import annotations

import re

from enoki_hd.text import INVISIBLE_CHARACTERS
from enoki_hd.types import Fact, Span

# the source of the facts a table row gives, one per cell (see :mod:`enoki_hd.select`)
TABLE_SOURCE = "table"
CLAUSE_SOURCE = "clause"
"""The source of a clause no fact covered, judged whole (:mod:`enoki_hd.extract.coverage`)."""

_COPULAS = frozenset({"is", "are", "was", "were"})
# Relations after which a singular common noun needs an article to read as English.
_COPULA_ENDINGS = frozenset(
    {
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "became",
        "become",
        "becomes",
        "remains",
        "remained",
    }
)
_AUXILIARIES = frozenset(
    {
        "is", "are", "was", "were", "be", "been", "am", "has", "have", "had", "do", "does",
        "did", "will", "would", "can", "could", "may", "might", "must", "shall", "should",
    }
)  # fmt: skip
_NEGATION_RE = re.compile(r"\b(?:not|never|no|none|nor|neither|cannot)\b|n't", re.IGNORECASE)
_NO_ARTICLE_BEFORE = frozenset(
    {
        "a", "an", "the", "this", "that", "these", "those", "my", "your", "his", "her", "its",
        "our", "their", "some", "any", "no", "every", "each", "all", "many", "several", "few",
        "one", "two", "three", "both", "either", "neither", "another", "such", "most", "more",
    }
)  # fmt: skip
_A_BEFORE_VOWEL = ("uni", "use", "usu", "eu", "one", "once")
_AN_BEFORE_CONSONANT = ("hour", "honest", "honor", "honour", "heir")
_TRAILING = " \t\n,;:"
_INVISIBLE_TABLE = dict.fromkeys(map(ord, INVISIBLE_CHARACTERS))


def _article(phrase: str) -> str:
    """``phrase`` with ``a`` / ``an`` in front when it reads as one common noun phrase."""
    words = phrase.split()
    first, last = words[0], words[-1]
    if first.lower() in _NO_ARTICLE_BEFORE or not first[0].isalpha():
        return phrase
    if all(w[0].isupper() for w in words if w[0].isalpha()):
        return phrase  # a name: "United Kingdom"
    if last.lower().endswith("s") and not last.lower().endswith(("ss", "us", "is")):
        return phrase  # a plural: "physicists"
    lower = first.lower()
    vowel = lower[0] in "aeiou" and not lower.startswith(_A_BEFORE_VOWEL)
    an = vowel or lower.startswith(_AN_BEFORE_CONSONANT)
    return f"{'an' if an else 'a'} {phrase}"


def _negate(relation: str) -> str:
    words = relation.split()
    if words and words[0].lower() in _AUXILIARIES:
        return " ".join([words[0], "not", *words[1:]])
    return " ".join(["not", *words])


def cell_hypothesis(row: str, header: str, value: str) -> str:
    """A table cell as a hypothesis: ``row — header: value.``; empty parts are left out."""
    label = " — ".join(part for part in (row, header) if part)
    text = f"{label}: {value}" if label else value
    return text if text.endswith((".", "!", "?")) else f"{text}."


def _span_text(answer: str, spans: list[Span]) -> str:
    return " ".join(answer[s.start : s.end] for s in sorted(spans, key=lambda s: s.start))


def reading_order(fact: Fact, answer: str) -> str | None:
    """The fact's relation and object words in the order the answer has them, or None when
    that order is already relation, then object (or cannot be read from the spans).

    A tagger labels words, and its relation and object words can interleave: "The museum was
    founded in 1901 by a local trader" gives the relation "was founded in by" and the object
    "1901 a local trader". Joined part after part, as :func:`verbalize` joins them, they read
    "was founded in by 1901 a local trader"; in the answer's order they read "was founded in
    1901 by a local trader". Only a fact whose relation and object strings are exactly the
    text of their spans (as :func:`enoki_hd.igl.decode.decode_rows` writes them) is read this
    way, and only when a relation span follows the start of an object span while another
    precedes it; an implicit relation (no span of its own) or any other fact gives None.

    Raises:
        ValueError: a span outside ``answer``.
    """
    relation, obj = fact.relation_spans, fact.object_spans
    if not relation or not obj:
        return None
    for span in (*relation, *obj):
        if span.end > len(answer):
            raise ValueError(
                f"fact {fact.id}: span [{span.start}, {span.end}) is outside the answer "
                f"({len(answer)} characters); pass the text its spans point into"
            )
    if " ".join(fact.relation.split()) != _span_text(answer, relation) or " ".join(
        fact.object.split()
    ) != _span_text(answer, obj):
        return None
    first_object = min(s.start for s in obj)
    if min(s.start for s in relation) > first_object or all(
        s.start < first_object for s in relation
    ):
        return None
    return " ".join(_span_text(answer, [*relation, *obj]).split())


_ARTICLES = frozenset({"a", "an", "another", "one", "the", "this", "that", "these", "those"})


def _writes_no_article(fact: Fact, answer: str) -> bool:
    """Whether the answer writes no article or demonstrative between the fact's relation and
    its object ("is open", "became part of", "were also surprised", "is approximately 500
    metres"). False when the spans do not tell (no spans, or the object before the
    relation)."""
    if not fact.relation_spans or not fact.object_spans:
        return False
    end = max(s.end for s in fact.relation_spans)
    start = min(s.start for s in fact.object_spans)
    if not end <= start <= len(answer):
        return False
    return not any(w.lower() in _ARTICLES for w in re.findall(r"\w+", answer[end:start]))


def verbalize(fact: Fact, answer: str | None = None) -> str:
    """The hypothesis for NLI: subject, relation and object as one sentence.

    - Whitespace is collapsed and the invisible characters of scraped text dropped (the word
      joiners of an entity inside a word too: "AT&amp;T" reads ``AT&T``; the NLI tokenizer
      drops them as well); the first letter is capitalised and a final period added.
    - A negated fact keeps its negation: the relation text already holds it for the rules
      extractor (``Suede was not formed in London.``); when it does not (``negated`` set by
      another backend), ``not`` goes after a leading auxiliary or before the relation.
    - A synthesized copula (no relation spans, relation ``is``, as appositive facts have)
      reads ``X is a Y``: an article is added to a singular common-noun object; so it is after
      a relation ending in a copula (``is``, ``was``, ``became``, ...), since the rules
      extractor leaves articles out of fact text (``Suede is a band.``) — but not where the
      ``answer``, when given, writes no article or demonstrative between the relation and the
      object (``The museum is open.``, not ``… is an open.``; ``It became part of
      Braathens.``; ``They were surprised.`` from "were also surprised").
    - An empty object gives ``Subject relation.`` (``The band split up.``).
    - A table cell (``source="table"``: subject the row label, relation the column header,
      object the cell) reads ``row — header: value.`` (``standard — no severe attack: 38%.``).
    - Given the ``answer`` the fact's spans point into, relation and object words that
      interleave there are read in the answer's order (:func:`reading_order`): ``The museum
      was founded in 1901 by a local trader.``, not ``… was founded in by 1901 a local
      trader.``

    Raises:
        ValueError: ``answer`` is given and a relation or object span lies outside it.
    """
    if fact.source == TABLE_SOURCE:
        return cell_hypothesis(fact.subject, fact.relation, fact.object).translate(_INVISIBLE_TABLE)
    subject, relation, obj = (
        " ".join(part.split()) for part in (fact.subject, fact.relation, fact.object)
    )
    predicate = None if answer is None else reading_order(fact, answer)
    if predicate is not None:
        relation, obj = predicate, ""
    if fact.negated and not _NEGATION_RE.search(f"{relation} {obj}"):
        relation = _negate(relation)
    synthesized = not fact.relation_spans and relation.lower() in _COPULAS
    if (
        obj
        and relation
        and (synthesized or relation.split()[-1].lower() in _COPULA_ENDINGS)
        and not (answer is not None and _writes_no_article(fact, answer))
    ):
        obj = _article(obj)
    text = " ".join(part for part in (subject, relation, obj) if part).rstrip(_TRAILING)
    text = text.translate(_INVISIBLE_TABLE)
    if not text:
        return ""
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?" else f"{text}."
