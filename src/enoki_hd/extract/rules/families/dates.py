"""Date splits: ``on 15 March 2021`` refines from the year to the month to the day.

A date phrase becomes a chain, coarse to fine: ``2021`` → ``March 2021`` → ``15 March 2021``,
so a wrong day blames only the day. The refinement steps carry the family ``date``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from enoki_hd.extract.rules.families import Example

if TYPE_CHECKING:
    from spacy.tokens import Token

FAMILY = "date"

EXAMPLES = (
    Example(
        "Marie Curie discovered radium on 15 March 1898.",
        (
            ("Marie Curie", "discovered radium on", "1898"),
            ("Marie Curie", "discovered radium on", "March 1898"),
            ("Marie Curie", "discovered radium on", "15 March 1898"),
        ),
    ),
    Example(
        "The album was released on March 15, 2021.",
        (
            ("album", "was released on", "2021"),
            ("album", "was released on", "March 2021"),
            ("album", "was released on", "March 15, 2021"),
        ),
    ),
    Example(
        "The band split up in August 2003.",
        (("band", "split up in", "2003"), ("band", "split up in", "August 2003")),
    ),
)

MONTHS = frozenset(
    {
        "january", "february", "march", "april", "may", "june", "july", "august",
        "september", "october", "november", "december",
        "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
    }
)  # fmt: skip
_YEAR_RE = re.compile(r"(?:1[0-9]{3}|20[0-9]{2})")
_DAY_RE = re.compile(r"(?:0?[1-9]|[12][0-9]|3[01])(?:st|nd|rd|th)?", re.IGNORECASE)
_PART_DEPS = frozenset({"nummod", "compound", "npadvmod", "appos", "amod", "nmod", "pobj"})
_COARSE_TO_FINE = ("year", "month", "day")


def date_part(token: Token) -> str | None:
    """``year``, ``month`` or ``day`` when the token can be that part of a date, else None."""
    text = token.text.rstrip(".")
    if token.lower_.rstrip(".") in MONTHS and token.pos_ in ("PROPN", "NOUN"):
        return "month"
    if _YEAR_RE.fullmatch(text):
        return "year"
    if _DAY_RE.fullmatch(text):
        return "day"
    return None


def date_parts(head: Token) -> list[Token] | None:
    """The parts of the date headed by ``head``, coarse to fine (year, month, day).

    None unless the phrase holds at least two parts; a bare number counts as a day only next
    to a month (``15 albums`` is no date).
    """
    head_part = date_part(head)
    if head_part is None:
        return None
    parts = {head_part: head}
    for child in head.children:
        if child.dep_ in _PART_DEPS:
            part = date_part(child)
            if part is not None and part not in parts:
                parts[part] = child
    if len(parts) < 2 or ("day" in parts and "month" not in parts):
        return None
    return [parts[p] for p in _COARSE_TO_FINE if p in parts]
