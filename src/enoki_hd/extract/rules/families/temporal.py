"""When, said without a preposition: ``moved to Paris two years later`` → (she, moved, two
years later); ``The museum reopened last year`` → (museum, reopened, last year).

A noun phrase of time hung from the verb (``last year``, ``this week``, ``every Sunday``, ``the
next day``), and an adverb of relative time measured by one (``a week later``, ``three days
ago``, ``two years earlier``), state when the event happened: a claim like ``in 2019``, which
the prepositional family never sees. Each is one fact of the clause (its relation takes the one
object in, as a purpose does), so its words are checked. A bare ``later`` or ``ago`` without
a measure is no claim of its own; numbers after the verb (``sales grew 8%``) are measures,
not times (:func:`.arguments.measures`), and a time before a clause's mark (``two years
before the club moved``) measures the mark, in the clausal family's fact.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from enoki_hd.extract.rules.families import Example
from enoki_hd.extract.rules.syntax import HYPHENS, is_content

if TYPE_CHECKING:
    from spacy.tokens import Token

    from enoki_hd.extract.rules.candidates import FactBuilder
    from enoki_hd.extract.rules.clauses import Clause

FAMILY = "temporal"

EXAMPLES = (
    Example(
        "She moved to Paris two years later.",
        (("She", "moved to", "Paris"), ("She", "moved", "two years later")),
    ),
    Example(
        "The museum reopened last year.",
        (("museum", "reopened", "last year"),),
    ),
    Example(
        "He died three days after the election.",
        (("He", "died three days after", "election"),),
    ),
    Example(
        "The band released the album a week later.",
        (("band", "released", "album"), ("band", "released album", "a week later")),
    ),
)

_TIME_NOUNS = frozenset(
    {
        "second", "minute", "hour", "day", "night", "morning", "afternoon", "evening",
        "week", "weekend", "fortnight", "month", "year", "decade", "century", "season",
        "spring", "summer", "autumn", "fall", "winter", "time",
        "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
        "january", "february", "march", "april", "may", "june", "july", "august",
        "september", "october", "november", "december",
    }
)  # fmt: skip
# adverbs of time measured from another time: "a week later", "three days ago"
_RELATIVE_ADVERBS = frozenset(
    {"later", "earlier", "ago", "before", "after", "afterwards", "afterward", "beforehand"}
)


def _is_time_noun(token: Token) -> bool:
    """A noun of time, not the end of a hyphenated word ("full-time", "part-time": a manner)."""
    if token.i > 0 and token.doc[token.i - 1].text in HYPHENS:
        return False
    return token.lemma_.lower() in _TIME_NOUNS or token.lower_ in _TIME_NOUNS


def _measured(adverb: Token) -> bool:
    return any(c.dep_ == "npadvmod" and _is_time_noun(c) for c in adverb.children)


def adverbials(clause: Clause) -> list[frozenset[int]]:
    """The content tokens of each time phrase hung from the clause's verbs, in text order."""
    found: list[frozenset[int]] = []
    for verb in clause.heads:
        marks = [c.i for c in verb.children if c.dep_ == "mark"]
        for child in verb.children:
            if any(child.i < mark for mark in marks):
                continue  # "two years before the club moved": it measures the mark's time
            if child.dep_ == "npadvmod":
                timed = _is_time_noun(child) and not child.like_num
            elif child.dep_ == "advmod":
                timed = child.lower_ in _RELATIVE_ADVERBS and _measured(child)
            else:
                continue
            tokens = frozenset(t.i for t in child.subtree if is_content(t))
            if timed and tokens:
                found.append(tokens)
    return sorted(found, key=min)


def emit(
    builder: FactBuilder,
    subject: frozenset[int],
    before: tuple[frozenset[int], ...],
    tokens: frozenset[int],
    *,
    parent: int | None,
    family: str | None = None,
) -> None:
    """(subject, ``before``, the time phrase), refining ``parent`` when given."""
    if len(tokens) > builder.max_phrase_tokens:
        return
    builder.add(
        family or FAMILY,
        subject,
        frozenset().union(*before),
        tokens,
        parent=parent,
        relation_order=before,
    )
