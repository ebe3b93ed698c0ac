"""Grounding check: does a piece of answer text have a lexical trace in its evidence?

A lexical judge beside the NLI verifier (the kind the FaithSift tool shows to be strong). The
text checked is usually a fact's *delta* (the words the fact adds over its parent); its
**units** are content words, numbers and dates:

- :func:`parse_numbers` normalizes numbers written in digits or words ("1992", "nineteen
  ninety-two", "1.9 million", "1,900,000", "1 900 000", "1,00,000", "1.9m", "two hundred and
  five", "3.5%", "3,5 %", "$4 billion", "25th", "twenty-fifth", "a dozen") to a value and a
  kind;
- :func:`parse_dates` normalizes dates ("15 March 2021", "March 15, 2021", "March 2021",
  "2021-03-15", "2021-03-15T10:00Z", "the 1990s") to (year, month, day) where known. A bare
  year is a number of kind ``year``, not a date;
- :class:`GroundingIndex` holds what one context (and optionally the question) offers: its
  normalized words, numbers and dates; built once, in time linear in the context;
- :func:`ground` looks every unit of a text up in an index and says whether the text is
  grounded, partially grounded, absent, or contradicted by a differing number or date.

:mod:`enoki_hd.verify.judge` fuses a grounding result with the NLI decision into a verdict.

Every span here is a half-open ``[start, end)`` character offset into the string that was
parsed (the text passed to :func:`parse_numbers` / :func:`parse_dates`).
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import logging
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal

from enoki_hd.text import STOP_WORDS, normalize_term, tokenize_words
from enoki_hd.types import Span
from enoki_hd.units import MEASURES, UNITS, unit_names
from enoki_hd.verify.quantities import (
    HEDGE_TOLERANCE,
    Measure,
    currency_of,
    find_measures,
    same_value,
)

logger = logging.getLogger(__name__)

NumberKind = Literal["year", "number", "percent", "money", "ordinal"]
DateKind = Literal["day", "month", "decade"]
GroundingStatus = Literal["grounded", "partial", "absent", "mismatch", "empty"]

YEAR_RANGE = (1000, 2100)
"""Four plain digits in this (inclusive) range read as a year."""
CONTRADICTED_HALL_FLOOR = 0.9
"""Lowest hallucination probability of a fact whose number or date contradicts its evidence."""
ABSENT_THRESHOLD = 0.5
"""A grounding score at or above this is ``absent``; above 0 and below it, ``partial``."""

# Hedges that let an answer number differ from the evidence by HEDGE_TOLERANCE.
_HEDGE_RE = re.compile(
    r"(?:\b(?:about|around|approximately|approx\.?|nearly|roughly|almost|circa|ca\.|some|over"
    r"|more\s+than|less\s+than|fewer\s+than|under|up\s+to|at\s+least|close\s+to|estimated)|~)"
    r"\s*$",
    re.IGNORECASE,
)
_HEDGE_LOOKBACK = 24

# ---------------------------------------------------------------------------------------------
# Mentions
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NumberMention:
    """A number found in a text: its span (offsets into that text), value, kind and surface.

    ``kind`` is ``year`` (four plain digits in :data:`YEAR_RANGE`, or a spoken year such as
    "nineteen ninety-two"), ``percent``, ``money`` (a currency symbol, code or word is
    attached), ``ordinal`` ("25th", "twenty-fifth") or ``number``.
    """

    span: Span
    value: float
    kind: NumberKind
    text: str


@dataclass(frozen=True)
class DateMention:
    """A date found in a text: its span (offsets into that text) and the fields it states.

    ``kind`` is the precision: ``day`` (day and month, with the year when given),
    ``month`` (month and year) or ``decade`` (``year`` is the first year: "the 1990s" → 1990).
    """

    span: Span
    year: int | None
    month: int | None
    day: int | None
    kind: DateKind
    text: str


# ---------------------------------------------------------------------------------------------
# Numbers written in digits
# ---------------------------------------------------------------------------------------------

# Whole numbers with digit grouping (the rules are in parse_numbers' docstring).
_GROUPED_DIGITS = (
    r"\d{1,3}(?:,\d{3})+"  # 1,000,000
    r"|\d{1,2}(?:,\d{2})+,\d{3}"  # Indian: 1,00,000 and 12,34,567
    r"|\d{1,3}(?P<space>[\u00a0\u202f\u2009])\d{3}(?:(?P=space)\d{3})*"  # no-break, thin
    r"|(?<!\d )\d{1,3}(?: \d{3})+(?! \d)"  # a plain space: the whole run of digit groups
)
# Digits not glued to a word or another number ("3.5.2", "1,2,3" give nothing), or the hour
# after an ISO date's "T" ("2026-12-04T10:00Z"); a decimal comma is the last alternative, so
# "1,000" is a thousand.
_DIGITS_RE = re.compile(
    r"(?:(?<![\w.,])|(?<=\dT)(?=\d\d:\d\d))"
    rf"(?:(?:{_GROUPED_DIGITS}|\d+)(?:\.\d+)?|(?P<decimal_comma>\d+,(?:\d{{1,2}}|\d{{4,}})))"
    r"(?![.,]?\d)"
)
_GROUPING_RE = re.compile(r"[,\s]")
# "2026-12-04T10:00Z": the "T" before a time and the "Z" (UTC) after one are no units
_ISO_TIME_MARK_RE = re.compile(r"T(?=\d\d:\d\d)|(?<=:\d\d)Z\b")
_WORD_AFTER_RE = re.compile(r"\s?([^\W\d_]+)")
_LETTER_HYPHEN_BEFORE_RE = re.compile(r"([^\W\d_]+)[-‐‑]$")
# "mid-1992" is a year; "COVID-19" is a name.
_YEAR_PREFIXES = frozenset({"mid", "early", "late", "pre", "post", "circa"})
_CURRENCY_PREFIX_RE = re.compile(
    r"(?:(?<![^\W\d_])[A-Z]{1,2})?[$€£¥₹]\s?$|\b(?:USD|EUR|GBP|JPY|CNY|INR|CHF)\s?$"
)
_ORDINAL_SUFFIX_RE = re.compile(r"(?:st|nd|rd|th)\b", re.IGNORECASE)
_PLURAL_SUFFIX_RE = re.compile(r"['’]?s\b")
_PERCENT_RE = re.compile(r"\s?%|\s+(?:percent|per\s+cent|pct)\b", re.IGNORECASE)
_SCALE_ABBREVIATION_RE = re.compile(r"(?:k|m|mn|bn|tn|b)\b", re.IGNORECASE)
_SCALE_WORD_RE = re.compile(
    r"\s+(hundred|thousand|million|billion|trillion|dozen)\b", re.IGNORECASE
)
_CURRENCY_WORD_RE = re.compile(
    r"\s+(?:dollars?|euros?|pounds(?:\s+sterling)?|yen|yuan|rupees?|francs?|USD|EUR|GBP)\b",
    re.IGNORECASE,
)
_GLUED_LETTERS_RE = re.compile(r"[^\W\d_]+")
_PERCENT_WORD_RE = re.compile(r"\s+(?:percent|per\s+cent)\b", re.IGNORECASE)

_SCALES = {
    "hundred": 100,
    "thousand": 10**3,
    "million": 10**6,
    "billion": 10**9,
    "trillion": 10**12,
    "dozen": 12,
}
_SCALE_ABBREVIATIONS = {"k": 10**3, "m": 10**6, "mn": 10**6, "b": 10**9, "bn": 10**9, "tn": 10**12}


def _year_like(digits: str, value: Decimal) -> bool:
    return len(digits) == 4 and digits.isdigit() and YEAR_RANGE[0] <= value <= YEAR_RANGE[1]


def _glued_to_name(text: str, start: int) -> bool:
    """Digits right after ``letters-`` belong to a name ("COVID-19"), unless the letters are a
    time prefix ("mid-1992")."""
    before = _LETTER_HYPHEN_BEFORE_RE.search(text, max(0, start - 12), start)
    return before is not None and before.group(1).lower() not in _YEAR_PREFIXES


def _digits_value(m: re.Match[str]) -> Decimal:
    """The value of a :data:`_DIGITS_RE` match: grouping commas and spaces dropped, a decimal
    comma read as a decimal point ("3,5" → 3.5)."""
    if m.group("decimal_comma"):
        return Decimal(m.group().replace(",", "."))
    return Decimal(_GROUPING_RE.sub("", m.group()))


def _marks_a_quantity(text: str, start: int, end: int) -> bool:
    """Whether the digits at ``[start, end)`` of ``text`` are marked as a quantity: a currency
    before them, or glued to them or after them a percent, scale word or abbreviation,
    currency word or unit of measure ("3,5 %", "1,5 million", "2,5 kg", "€2,50")."""
    if _CURRENCY_PREFIX_RE.search(text, max(0, start - 5), start):
        return True
    markers = (_PERCENT_RE, _SCALE_ABBREVIATION_RE, _SCALE_WORD_RE, _CURRENCY_WORD_RE)
    if any(marker.match(text, end) for marker in markers):
        return True
    word = _WORD_AFTER_RE.match(text, end)
    return word is not None and normalize_term(word.group(1)) in UNITS


def _digit_numbers(text: str) -> Iterator[tuple[NumberMention, str | None]]:
    """Numbers written with digits, each with the letters glued to it ("5km" → "km") or None."""
    for m in _DIGITS_RE.finditer(text):
        start, end = m.start(), m.end()
        digits = m.group()
        decimal_comma = m.group("decimal_comma") is not None
        if _glued_to_name(text, start):
            continue
        if _PLURAL_SUFFIX_RE.match(text, end):
            continue  # "1990s" is a decade (see parse_dates), "the 80s" too vague
        if decimal_comma and not _marks_a_quantity(text, start, end):
            continue  # "pages 3,5" lists two pages
        value = _digits_value(m)
        money = False
        currency = _CURRENCY_PREFIX_RE.search(text, max(0, start - 5), start)
        if currency:
            start, money = currency.start(), True
        glued: str | None = None
        scaled = False
        if suffix := _ORDINAL_SUFFIX_RE.match(text, end):
            if money or "." in digits or decimal_comma:
                continue
            end = suffix.end()
            yield NumberMention(Span(start, end), float(value), "ordinal", text[start:end]), None
            continue
        if suffix := _PERCENT_RE.match(text, end):
            end = suffix.end()
            yield NumberMention(Span(start, end), float(value), "percent", text[start:end]), None
            continue
        abbreviation = _SCALE_ABBREVIATION_RE.match(text, end)
        if abbreviation and (abbreviation.group().lower() != "b" or money):
            value *= _SCALE_ABBREVIATIONS[abbreviation.group().lower()]
            end, scaled = abbreviation.end(), True
        elif scale := _SCALE_WORD_RE.match(text, end):
            value *= _SCALES[scale.group(1).lower()]
            end, scaled = scale.end(), True
        elif (letters := _GLUED_LETTERS_RE.match(text, end)) and not _ISO_TIME_MARK_RE.match(
            text, end
        ):
            glued = letters.group().lower()
            end = letters.end()
        if glued is None and (word := _CURRENCY_WORD_RE.match(text, end)):
            end, money = word.end(), True
        if money:
            kind: NumberKind = "money"
        elif not scaled and glued is None and _year_like(digits, value):
            kind = "year"
        else:
            kind = "number"
        yield NumberMention(Span(start, end), float(value), kind, text[start:end]), glued


# ---------------------------------------------------------------------------------------------
# Numbers written in words
# ---------------------------------------------------------------------------------------------

_UNIT_WORDS = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
)  # fmt: skip
_TEEN_WORDS = (
    "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
    "eighteen", "nineteen",
)  # fmt: skip
_TENS_WORDS = (
    "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
)  # fmt: skip
_ORDINAL_UNIT_WORDS = (
    "zeroth", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
    "ninth",
)  # fmt: skip
_ORDINAL_TEEN_WORDS = (
    "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth",
    "seventeenth", "eighteenth", "nineteenth",
)  # fmt: skip
_ORDINAL_TENS_WORDS = (
    "twentieth", "thirtieth", "fortieth", "fiftieth", "sixtieth", "seventieth", "eightieth",
    "ninetieth",
)  # fmt: skip

# word → (atom type, value, ordinal)
_NUMBER_ATOMS: dict[str, tuple[str, int, bool]] = {
    **{w: ("unit", i, False) for i, w in enumerate(_UNIT_WORDS)},
    **{w: ("teen", 10 + i, False) for i, w in enumerate(_TEEN_WORDS)},
    **{w: ("tens", 20 + 10 * i, False) for i, w in enumerate(_TENS_WORDS)},
    **{w: ("unit", i, True) for i, w in enumerate(_ORDINAL_UNIT_WORDS)},
    **{w: ("teen", 10 + i, True) for i, w in enumerate(_ORDINAL_TEEN_WORDS)},
    **{w: ("tens", 20 + 10 * i, True) for i, w in enumerate(_ORDINAL_TENS_WORDS)},
    "hundred": ("hundred", 100, False),
    "hundredth": ("hundred", 100, True),
    "dozen": ("dozen", 12, False),
    **{w: ("scale", v, False) for w, v in _SCALES.items() if w not in ("hundred", "dozen")},
    **{w + "th": ("scale", v, True) for w, v in _SCALES.items() if w not in ("hundred", "dozen")},
}
_SMALL = ("unit", "teen", "tens")
# Which atom may follow which (None: start of the number; "a": a leading "a"/"an").
_FOLLOWS: dict[str, tuple[str | None, ...]] = {
    "unit": (None, "tens", "hundred", "scale", "and"),
    "teen": (None, "hundred", "scale", "and"),
    "tens": (None, "hundred", "scale", "and"),
    "hundred": ("unit", "teen", "tens", "a"),
    "scale": ("unit", "teen", "tens", "hundred", "dozen", "a"),
    "dozen": ("unit", "teen", "tens", "a"),
}
_HYPHENS_RE = re.compile(r"[-‐‑]")

Atom = tuple[str, int, bool]


def _atoms(word: str) -> list[Atom] | None:
    """Number atoms of one token ("twenty-fifth" → tens 20, unit 5 ordinal), or None."""
    word = word.lower()
    if word in _NUMBER_ATOMS:
        return [_NUMBER_ATOMS[word]]
    parts = _HYPHENS_RE.split(word)
    if len(parts) == 1:
        return None
    atoms: list[Atom] = []
    for part in parts:
        atom = _NUMBER_ATOMS.get(part)
        if atom is None:
            return None
        atoms.append(atom)
    # Only the last part may be ordinal: "twenty-fifth", not "fifth-twenty".
    return None if any(a[2] for a in atoms[:-1]) else atoms


@dataclass
class _WordNumberState:
    total: int = 0
    current: int = 0
    last: str | None = None
    smallest_scale: int = 10**15
    ordinal: bool = False

    def push(self, atom: Atom) -> bool:
        """Add ``atom``; False (state unchanged) when it cannot follow what came before."""
        kind, value, ordinal = atom
        if self.ordinal or self.last not in _FOLLOWS[kind]:
            return False
        if kind in _SMALL:
            self.current += value
        elif kind == "hundred":
            if self.current >= 100:
                return False
            self.current = (self.current or 1) * 100
        elif kind == "dozen":
            self.current = (self.current or 1) * 12
        else:
            if value >= self.smallest_scale:
                return False
            self.total += (self.current or 1) * value
            self.current, self.smallest_scale = 0, value
        self.last, self.ordinal = kind, ordinal
        return True

    @property
    def value(self) -> int:
        return self.total + self.current


def _push_all(state: _WordNumberState, atoms: list[Atom]) -> _WordNumberState | None:
    trial = _WordNumberState(**vars(state))
    return trial if all(trial.push(a) for a in atoms) else None


def _spoken_year(
    state: _WordNumberState, atoms: list[Atom], following: list[Atom] | None
) -> tuple[int, int] | None:
    """A spoken year such as "nineteen ninety-two": ``state`` holds a completed 10..21 group
    and ``atoms`` (with ``following``, the next token's atoms, for "ninety two") a 10..99
    group. Returns (year, tokens used: 1 or 2) or None."""
    if state.total or state.ordinal or state.last not in ("teen", "tens"):
        return None
    if not 10 <= state.current <= 21:
        return None
    if atoms[0][0] not in ("teen", "tens") or any(a[2] for a in atoms):
        return None
    low = _push_all(_WordNumberState(), atoms)
    if low is None or low.current >= 100:
        return None
    used = 1
    if low.last == "tens" and following is not None and len(following) == 1:
        unit = following[0]
        if unit[0] == "unit" and not unit[2]:
            low.push(unit)
            used = 2
    year = state.current * 100 + low.current
    return (year, used) if YEAR_RANGE[0] <= year <= YEAR_RANGE[1] else None


def _word_numbers(text: str, tokens: list[Span], taken: list[Span]) -> Iterator[NumberMention]:
    """Numbers written in words, skipping tokens inside ``taken`` (sorted, non-overlapping)."""
    words = [t.text(text).lower() for t in tokens]
    atoms = [_atoms(w) if w[0].isalpha() else None for w in words]
    free = _uncovered(tokens, taken)
    i, n = 0, len(tokens)
    while i < n:
        if not free[i] or (atoms[i] is None and words[i] not in ("a", "an")):
            i += 1
            continue
        state = _WordNumberState()
        j = i
        if atoms[i] is None:  # "a dozen", "a million"
            nxt = atoms[i + 1] if i + 1 < n and free[i + 1] else None
            if nxt is None or nxt[0][0] in _SMALL:
                i += 1
                continue
            state.last, j = "a", i + 1
        year: int | None = None
        while j < n and free[j]:
            if words[j] == "and":
                nxt = atoms[j + 1] if j + 1 < n and free[j + 1] else None
                if state.last in ("hundred", "scale") and nxt and nxt[0][0] in _SMALL:
                    state.last, j = "and", j + 1
                    continue
                break
            token_atoms = atoms[j]
            if token_atoms is None:
                break
            pushed = _push_all(state, token_atoms)
            if pushed is not None:
                state, j = pushed, j + 1
                continue
            following = atoms[j + 1] if j + 1 < n and free[j + 1] else None
            spoken = _spoken_year(state, token_atoms, following)
            if spoken is not None:
                year, used = spoken
                j += used
            break
        if state.last in (None, "a"):
            i += 1
            continue
        if j == i + 1 and words[i] == "one" and j < n and words[j] == "of":
            i += 1  # "one of the ..." is a pronoun, not a count
            continue
        start, end = tokens[i].start, tokens[j - 1].end
        if year is not None:
            kind: NumberKind = "year"
            value: float = year
        else:
            kind = "ordinal" if state.ordinal else "number"
            value = state.value
            if not state.ordinal:
                if words[i] in ("a", "an") and i > 0 and free[i - 1] and words[i - 1] == "half":
                    value, start = value / 2, tokens[i - 1].start  # "half a million"
                if suffix := _PERCENT_WORD_RE.match(text, end):
                    kind, end = "percent", suffix.end()
                elif suffix := _CURRENCY_WORD_RE.match(text, end):
                    kind, end = "money", suffix.end()
        yield NumberMention(Span(start, end), float(value), kind, text[start:end])
        i = j


def _uncovered(spans: list[Span], taken: list[Span]) -> list[bool]:
    """Per span: True when it overlaps none of ``taken``. Both lists are sorted and
    non-overlapping, so one sweep does it."""
    out: list[bool] = []
    k = 0
    for span in spans:
        while k < len(taken) and taken[k].end <= span.start:
            k += 1
        out.append(not (k < len(taken) and taken[k].start < span.end))
    return out


_NUMERATORS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
               "eight": 8, "nine": 9}  # fmt: skip
_DENOMINATORS = {"half": 2, "halve": 2, "third": 3, "quarter": 4, "fourth": 4, "fifth": 5,
                 "sixth": 6, "eighth": 8, "tenth": 10}  # fmt: skip
_FRACTION_RE = re.compile(
    r"\b(" + "|".join(_NUMERATORS) + r")[-‐‑](" + "|".join(_DENOMINATORS) + r")s?\b",
    re.IGNORECASE,
)


def _fractions(text: str) -> Iterator[NumberMention]:
    """Hyphenated fractions ("one-third" → 1/3, "two-thirds", "three-quarters") as plain
    numbers."""
    for m in _FRACTION_RE.finditer(text):
        value = _NUMERATORS[m.group(1).lower()] / _DENOMINATORS[m.group(2).lower()]
        yield NumberMention(Span(m.start(), m.end()), value, "number", m.group(0))


def _parse_numbers(text: str, tokens: list[Span]) -> list[tuple[NumberMention, str | None]]:
    digit = list(_digit_numbers(text))
    fractions: list[tuple[NumberMention, str | None]] = [(m, None) for m in _fractions(text)]
    taken = sorted(m.span for m, _ in digit + fractions)
    spoken: list[tuple[NumberMention, str | None]] = [
        (m, None) for m in _word_numbers(text, tokens, taken)
    ]
    return sorted(digit + fractions + spoken, key=lambda pair: pair[0].span.start)


def parse_numbers(text: str) -> list[NumberMention]:
    """Numbers in ``text``, in order, with spans as offsets into ``text``.

    Digits may carry digit grouping (below), decimals ("3.5"), a currency symbol or code before
    ("$4", "US$4", "EUR 4") or a currency word after ("4 dollars") → ``money``; ``%`` /
    "percent" / "per cent" → ``percent``; an ordinal suffix ("25th") → ``ordinal``; a scale
    word or abbreviation ("1.9 million", "1.9m", "10k", "$4bn"; "b" only after a currency)
    multiplies the value. Four plain digits in :data:`YEAR_RANGE` are a ``year``. Other glued
    letters are kept as a unit ("5km" → 5), except ISO 8601's "T" and "Z" around a time: in
    "2026-12-04T10:00Z" the hour and minutes are numbers like those of "10:00". Digits glued
    to a name ("COVID-19", "MP3"), version strings ("3.5.2") and plural digits ("1990s",
    "80s" — see :func:`parse_dates`) are skipped.

    Digit grouping: a comma before exactly three digits always groups ("1,000" is a thousand,
    never 1.0; "1,900,000"); Indian grouping is read too ("1,00,000", "12,34,567"). Spaces
    group threes after a 1–3-digit lead ("1 000 000", "12 500"): a no-break, narrow no-break
    or thin space (one kind in a number) always; a plain space only when the whole run of
    space-separated digit groups fits, no digit group standing right before or after it, so
    "in 2019 2 000 people", "555 123 4567" and "12 34 567" join nothing. A decimal comma, one
    followed by 1–2 digits or more than 3 ("3,5", "12,75", "3,1415"), is read only when the
    number is no part of a longer comma-separated digit list ("1,2,3" gives nothing) and is
    marked as a quantity: a currency before it, or a percent, scale word or abbreviation,
    currency word or unit of measure after it ("3,5 %", "€2,50", "1,5 million", "2,5 kg"); a
    bare "3,5" may list two things ("pages 3,5") and gives nothing.

    Words: cardinals up to the trillions ("two hundred and five" → 205, "twenty-five"), ordinals
    ("twenty-fifth" → 25), hyphenated fractions ("two-thirds" → 2/3), "a dozen"/"two dozen",
    "a hundred"/"a million", and spoken years ("nineteen ninety-two", "twenty twenty-one") →
    ``year``. "one of" is not a number. Numbers nested in a date are reported too;
    :func:`parse_dates` finds the date around them.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    return [m for m, _ in _parse_numbers(text, tokenize_words(text))]


# ---------------------------------------------------------------------------------------------
# Dates
# ---------------------------------------------------------------------------------------------

_MONTH_NAMES = (
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december",
)  # fmt: skip
_MONTHS = {
    **{name: i + 1 for i, name in enumerate(_MONTH_NAMES)},
    **{name[:3]: i + 1 for i, name in enumerate(_MONTH_NAMES)},
    "sept": 9,
}
# Lowercase "may" and "march" are verbs far more often than months.
_VERB_MONTHS = frozenset({"may", "march", "mar"})
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>\d{4})"
_DATE_PATTERNS = (
    # ISO, alone or before a time: "2026-12-04T10:00Z"
    re.compile(
        r"(?<![\w-])(?P<year>\d{4})-(?P<month>\d{1,2})-(?P<day>\d{1,2})"
        r"(?:(?![\w-])|(?=T\d\d:\d\d))"
    ),
    re.compile(rf"(?<![\w.,]){_DAY}\s+(?:of\s+)?{_MONTH}(?:,?\s+{_YEAR})?\b", re.IGNORECASE),
    re.compile(rf"\b{_MONTH}\s+{_DAY}(?:,?\s+{_YEAR})?(?![\w.,]?\d)\b", re.IGNORECASE),
    re.compile(rf"\b{_MONTH},?\s+(?:of\s+)?{_YEAR}\b", re.IGNORECASE),
    re.compile(r"(?<![\w.,])(?P<decade>\d{3}0)['’]?s\b"),
)


def _date_from_match(m: re.Match[str]) -> DateMention | None:
    groups = m.groupdict()
    if groups.get("decade"):
        decade = int(groups["decade"])
        if not YEAR_RANGE[0] <= decade <= YEAR_RANGE[1]:
            return None
        span = Span(m.start("decade"), m.end())
        return DateMention(span, decade, None, None, "decade", m.group())
    month_text = groups["month"]
    if month_text.isdigit():
        month = int(month_text)
    else:
        if month_text in _VERB_MONTHS:  # lowercase only: "May" is kept
            return None
        month = _MONTHS[month_text.lower()]
    day = int(groups["day"]) if groups.get("day") else None
    year = int(groups["year"]) if groups.get("year") else None
    if not 1 <= month <= 12 or (day is not None and not 1 <= day <= 31):
        return None
    if year is not None and not YEAR_RANGE[0] <= year <= YEAR_RANGE[1]:
        return None
    kind: DateKind = "day" if day is not None else "month"
    return DateMention(Span(m.start(), m.end()), year, month, day, kind, m.group())


def parse_dates(text: str) -> list[DateMention]:
    """Dates in ``text``, in order, with spans as offsets into ``text``.

    Recognized: ISO ``2021-03-15``, also before a time (``2021-03-15T10:00Z``: the date only;
    the hour and minutes are numbers, see :func:`parse_numbers`); ``15 March 2021`` / ``15th
    of March, 2021`` / ``15 March``;
    ``March 15, 2021`` / ``March 15``; ``March 2021``; decades ``1990s`` / ``1990's`` (the
    span covers the decade only, not "the"). Month names may be abbreviated ("Sept.", "Mar");
    lowercase "may" and "march" are taken for verbs. Where patterns overlap the longest match
    wins. A bare year ("in 1992") is a :class:`NumberMention` of kind ``year``, not a date.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    candidates = [
        date
        for pattern in _DATE_PATTERNS
        for m in pattern.finditer(text)
        if (date := _date_from_match(m)) is not None
    ]
    candidates.sort(key=lambda d: (d.span.start, -len(d.span)))
    dates: list[DateMention] = []
    for date in candidates:
        if not dates or date.span.start >= dates[-1].span.end:
            dates.append(date)
    return dates


# ---------------------------------------------------------------------------------------------
# Words
# ---------------------------------------------------------------------------------------------

_WORD_RE = re.compile(r"\w")
_OPENERS = frozenset(" \t\"'“‘(")


def _word_parts(word: str) -> list[str]:
    """Normalized content parts of a hyphenated word ("state-of-the-art" → state, art)."""
    parts = (normalize_term(p) for p in _HYPHENS_RE.split(word) if p)
    return [p for p in parts if p not in STOP_WORDS]


def _is_function_word(word: str, term: str) -> bool:
    """Stop words, hyphenated words made of stop words ("one-off") and stray lowercase
    letters (the "s" of a detached "’s") carry nothing to ground."""
    if term in STOP_WORDS or (len(term) <= 1 and not word.isupper() and not word.isdigit()):
        return True
    return bool(_HYPHENS_RE.search(word)) and not _word_parts(word)


def _is_entity_like(word: str, text: str, start: int) -> bool:
    """A capitalised word not starting a sentence, or any word with an inner capital
    ("NASA", "iPhone"). Sentence-initial capitals say nothing about names."""
    if any(c.isupper() for c in word[1:]):
        return True
    if not word[0].isupper():
        return False
    i = start - 1
    while i >= 0 and text[i] in _OPENERS:
        i -= 1
    return i >= 0 and text[i] not in ".!?\n:;"


# ---------------------------------------------------------------------------------------------
# Index
# ---------------------------------------------------------------------------------------------


def _measures(unit: frozenset[str]) -> dict[str, tuple[str, str]]:
    """dimension → (the unit, the word naming it) for the units of measure among a quantity's
    following words: {"7", "kilometres"} → {"length": ("km", "kilometre")}."""
    return {UNITS[w][0]: (UNITS[w][1], w) for w in sorted(unit) if w in UNITS}


@dataclass(frozen=True)
class _Quantity:
    """A number mention with the content words right after it ("7 albums" → {"album"}) and
    whether the text hedges it ("about 7 albums"; years are never hedged)."""

    mention: NumberMention
    unit: frozenset[str]
    hedged: bool = False


@dataclass
class _Analysis:
    """One text taken apart: its tokens, numbers outside dates, dates, per token whether it
    lies outside every number and date (``free``), and the values it states with their units
    (``measures``, see :mod:`enoki_hd.verify.quantities`)."""

    tokens: list[Span]
    quantities: list[_Quantity]
    dates: list[DateMention]
    free: list[bool]
    measures: list[Measure]


def _analyse(text: str) -> _Analysis:
    tokens = tokenize_words(text)
    dates = parse_dates(text)
    numbers = _outside_dates(_parse_numbers(text, tokens), dates)
    taken = sorted([m.span for m, _ in numbers] + [d.span for d in dates])
    free = _uncovered(tokens, taken)
    starts = [t.start for t in tokens]
    quantities = []
    for mention, glued in numbers:
        # an upper-case "G" glued to a number is no gram ("5G")
        unit: set[str] = {glued} if glued and not mention.text.endswith("G") else set()
        k = bisect.bisect_left(starts, mention.span.end)
        for token in tokens[k : k + 2]:
            word = token.text(text)
            if not free[k] or not _WORD_RE.match(word) or normalize_term(word) in STOP_WORDS:
                break
            unit.add(normalize_term(word))
            k += 1
        hedged = mention.kind != "year" and bool(
            _HEDGE_RE.search(text, max(0, mention.span.start - _HEDGE_LOOKBACK), mention.span.start)
        )
        quantities.append(_Quantity(mention, frozenset(unit), hedged))
    measures = find_measures(text, [(q.mention, q.hedged) for q in quantities])
    return _Analysis(tokens, quantities, dates, free, measures)


def _outside_dates(
    numbers: list[tuple[NumberMention, str | None]], dates: list[DateMention]
) -> list[tuple[NumberMention, str | None]]:
    """The numbers that overlap no date (both sorted by start, dates non-overlapping): the day
    and year of "15 March 2021" belong to the date."""
    free = _uncovered([m.span for m, _ in numbers], [d.span for d in dates])
    return [pair for pair, keep in zip(numbers, free, strict=True) if keep]


_VALUE_GROUPS = {
    "year": "count",
    "number": "count",
    "money": "count",
    "percent": "percent",
    "ordinal": "ordinal",
}
_DATE_FIELDS = ("year", "month", "day")


_PLAIN_DIGITS_RE = re.compile(rf"{_GROUPED_DIGITS}|\d+")


def _inside(token: Span, spans: list[Span]) -> bool:
    """Whether ``token`` lies inside one of the sorted, disjoint ``spans``."""
    at = bisect.bisect_right(spans, token.start, key=lambda s: s.start) - 1
    return at >= 0 and token.end <= spans[at].end


def _same_digit_count(a: NumberMention, b: NumberMention) -> bool:
    """Both written in plain digits ("18,250", "16250", "16 250"; no decimals, no scale word)
    with the same number of digits."""
    if not (_PLAIN_DIGITS_RE.fullmatch(a.text) and _PLAIN_DIGITS_RE.fullmatch(b.text)):
        return False
    return len(_GROUPING_RE.sub("", a.text)) == len(_GROUPING_RE.sub("", b.text))


def _date_keys(date: DateMention) -> Iterator[tuple[int | None, ...]]:
    """Every (year, month, day) tuple this date agrees with, unknown fields as None."""
    fields = (date.year, date.month, date.day)
    known = [i for i, v in enumerate(fields) if v is not None]
    for mask in range(1 << len(known)):
        key = list(fields)
        for bit, i in enumerate(known):
            if mask >> bit & 1:
                key[i] = None
        yield tuple(key)


class GroundingIndex:
    """What a context (and optionally the question) offers to ground an answer: built once,
    in one pass over the text, then queried by :func:`ground` for every fact.

    Attributes:
        words: normalized (:func:`normalize_term`) words of the context, hyphenated words
            also split into parts; numbers and dates are not in it.
        numbers: the context's :class:`NumberMention` s outside dates, in order.
        dates: the context's :class:`DateMention` s, in order.
        question: an index of the question, consulted for finding units only — never as
            evidence of a mismatch; None without a question.

    Building scans the text a fixed number of times with regular expressions and a token
    loop, so time and memory grow linearly with the context (1 MB contexts are fine).
    """

    def __init__(self, context: str, question: str | None = None) -> None:
        if not isinstance(context, str):
            raise TypeError(f"context must be a str, got {type(context).__name__}")
        if question is not None and not isinstance(question, str):
            raise TypeError(f"question must be a str or None, got {type(question).__name__}")
        started = time.perf_counter()
        analysis = _analyse(context)
        words: set[str] = set()
        date_spans = [d.span for d in analysis.dates]
        for token, free in zip(analysis.tokens, analysis.free, strict=True):
            word = token.text(context)
            if free:
                words.add(normalize_term(word))
                if _HYPHENS_RE.search(word):
                    words.update(_word_parts(word))
            elif word.isalpha() and _inside(token, date_spans):
                # the month of a date is still a word the context writes: "April" of "born on
                # April 8" is found for a fact that stops at "born on April"
                words.add(normalize_term(word))
        self.words: frozenset[str] = frozenset(words)
        self.numbers: tuple[NumberMention, ...] = tuple(q.mention for q in analysis.quantities)
        self.dates: tuple[DateMention, ...] = tuple(analysis.dates)
        self.question: GroundingIndex | None = (
            GroundingIndex(question) if question is not None else None
        )
        self._quantities = analysis.quantities
        self._measures: dict[str, list[Measure]] = {}
        for measure in analysis.measures:
            self._measures.setdefault(measure.dimension, []).append(measure)
        values: dict[str, list[float]] = {"count": [], "percent": [], "ordinal": []}
        years: set[int] = set()
        for q in analysis.quantities:
            m = q.mention
            values[_VALUE_GROUPS[m.kind]].append(m.value)
            if m.kind in ("year", "number") and m.value.is_integer():
                years.add(int(m.value))
        self._values = {group: sorted(v) for group, v in values.items()}
        self._date_keys = {
            key for d in analysis.dates if d.kind != "decade" for key in _date_keys(d)
        }
        years.update(d.year for d in analysis.dates if d.kind != "decade" and d.year is not None)
        self._years = frozenset(years)
        self._decades = frozenset(d.year for d in analysis.dates if d.kind == "decade")
        logger.debug(
            "grounding index of %d chars: %d words, %d numbers, %d dates in %.3f s",
            len(context),
            len(self.words),
            len(self.numbers),
            len(self.dates),
            time.perf_counter() - started,
        )

    def _sources(self) -> Iterator[GroundingIndex]:
        yield self
        if self.question is not None:
            yield self.question

    def has_word(self, word: str) -> bool:
        """Whether the raw ``word`` (normalized here) or, when hyphenated, each of its content
        parts occurs in the context or the question."""
        key = normalize_term(word)
        parts = _word_parts(word) if _HYPHENS_RE.search(word) else []
        for source in self._sources():
            if key in source.words or (parts and all(p in source.words for p in parts)):
                return True
        return False

    def has_number(self, mention: NumberMention, *, hedged: bool = False) -> bool:
        """Whether a number of a compatible kind with the same value occurs (context or
        question). Years match years anywhere (dates included) exactly; ``hedged`` other
        numbers match within :data:`HEDGE_TOLERANCE`. Year, plain number and money values are
        interchangeable; percents and ordinals only match their own kind."""
        for source in self._sources():
            if mention.kind == "year" and mention.value.is_integer():
                if int(mention.value) in source._years:
                    return True
                continue
            tolerance = HEDGE_TOLERANCE if hedged else 1e-9
            values = source._values[_VALUE_GROUPS[mention.kind]]
            low, high = mention.value * (1 - tolerance), mention.value / (1 - tolerance)
            k = bisect.bisect_left(values, low)
            if k < len(values) and values[k] <= high:
                return True
        return False

    def has_measure(self, measure: Measure) -> bool:
        """Whether the context or the question states ``measure``'s value in any unit of its
        dimension ("16 kilometres" for "10 miles", "1.5 hours" for "90 minutes", "25%" for
        "a quarter"; :func:`enoki_hd.verify.quantities.same_value`)."""
        return any(
            same_value(measure, other)
            for source in self._sources()
            for other in source._measures.get(measure.dimension, ())
        )

    def rival_measure(self, measure: Measure) -> str | None:
        """Surface text of this text's nearest-valued measure of ``measure``'s dimension of
        :data:`enoki_hd.units.MEASURES` ("16 kilometres" for "7 miles"), or None (also for
        ratios, counts and amounts, which :meth:`rival_number` compares). The question is never
        consulted."""
        if measure.dimension not in MEASURES:
            return None
        others = self._measures.get(measure.dimension, [])
        if not others:
            return None
        return min(others, key=lambda m: abs(m.values[0] - measure.values[0])).text

    def has_date(self, date: DateMention) -> bool:
        """Whether a date agreeing on every field ``date`` states occurs (context or question).
        "March 2021" is found in "15 March 2021", not the reverse; a decade is found in the
        same decade or any year inside it."""
        for source in self._sources():
            if date.kind == "decade":
                assert date.year is not None
                if date.year in source._decades or any(
                    y in source._years for y in range(date.year, date.year + 10)
                ):
                    return True
            elif (date.year, date.month, date.day) in source._date_keys:
                return True
        return False

    def rival_number(self, mention: NumberMention, unit: frozenset[str]) -> str | None:
        """Surface text of the context's nearest-valued number of the SAME kind, or None.

        Same kind: year vs year (a date's year counts), percent vs percent, money vs money;
        plain numbers and ordinals also need a shared content word right after them
        ("12 studio albums" vs "7 albums"), or — when one of the two has no such word, so
        wording cannot tell them apart ("a crowd of 18,250" vs "16,250 spectators") — both
        written in plain digits with the same number of them (a rounded "1.9 million" is
        no rival of "1,893,000"). The question is never consulted."""
        candidates: list[tuple[float, str]] = []
        if mention.kind == "year":
            candidates += [
                (d.year, d.text) for d in self.dates if d.kind != "decade" and d.year is not None
            ]
        for q in self._quantities:
            m = q.mention
            if m.kind != mention.kind:
                continue
            if m.kind in ("number", "ordinal") and not unit & q.unit:
                bare = not unit or not q.unit
                if not (bare and _same_digit_count(m, mention)):
                    continue
            candidates.append((m.value, m.text))
        if not candidates:
            return None
        return min(candidates, key=lambda c: abs(c[0] - mention.value))[1]

    def _same_value(self, quantity: _Quantity, hedged: bool) -> list[_Quantity]:
        """This text's quantities of ``quantity``'s value (within 2% when ``hedged``)."""
        tolerance = HEDGE_TOLERANCE if hedged else 1e-9
        value, group = quantity.mention.value, _VALUE_GROUPS[quantity.mention.kind]
        low, high = value * (1 - tolerance), value / (1 - tolerance)
        return [
            q
            for q in self._quantities
            if _VALUE_GROUPS[q.mention.kind] == group and low <= q.mention.value <= high
        ]

    def states_in_unit(self, quantity: _Quantity, *, hedged: bool = False) -> bool:
        """Whether this text states ``quantity``'s value in one of its units of measure."""
        own = {(d, u) for d, (u, _) in _measures(quantity.unit).items()}
        return any(
            own & {(d, u) for d, (u, _) in _measures(q.unit).items()}
            for q in self._same_value(quantity, hedged)
        )

    def in_other_dimensions_only(self, quantity: _Quantity, *, hedged: bool = False) -> bool:
        """Whether every mention of ``quantity``'s value here has a unit of measure, none of
        ``quantity``'s dimension ("5 ml" and "5 ml dose" for "5 mg"): the value is here, the
        quantity is not. False when ``quantity`` has no unit of measure or the value also
        appears bare ("5", which could be the fact's) or in a unit of its dimension."""
        own = _measures(quantity.unit)
        same = self._same_value(quantity, hedged)
        return (
            bool(own)
            and bool(same)
            and all(
                (dimensions := _measures(q.unit)) and not set(dimensions) & set(own) for q in same
            )
        )

    def rival_unit(self, quantity: _Quantity, *, hedged: bool = False) -> tuple[str, str] | None:
        """``("mile", "7 kilometre")`` when this text states ``quantity``'s value ("7 miles")
        only in another unit of the same dimension: the word naming ``quantity``'s unit and the
        rival's surface text. None when ``quantity`` has no unit of measure, when the text also
        states the value in that unit ("7 km" for "7 kilometres"), or when no rival occurs.
        The question is never consulted."""
        own = _measures(quantity.unit)
        if not own or self.states_in_unit(quantity, hedged=hedged):
            return None
        for q in self._same_value(quantity, hedged):
            for dimension, (unit, word) in _measures(q.unit).items():
                if dimension in own and own[dimension][0] != unit:
                    return own[dimension][1], f"{q.mention.text} {word}"
        return None

    def rival_currency(
        self, quantity: _Quantity, *, hedged: bool = False
    ) -> tuple[str, str] | None:
        """``("dollar", "40 million euros")`` when this text states ``quantity``'s amount of
        money ("40 million dollars") only in another currency: the currency ``quantity`` names
        and the rival's surface text. None when ``quantity`` names no currency, when the text
        also states the amount in it, or when no amount of the same value names one (a bare
        "35" is no rival of "35 pounds"). No exchange rate is applied."""
        if quantity.mention.kind != "money":
            return None
        own = currency_of(quantity.mention.text)
        if own is None:
            return None
        named = [
            (q, currency)
            for q in self._same_value(quantity, hedged)
            if q.mention.kind == "money" and (currency := currency_of(q.mention.text)) is not None
        ]
        if not named or any(currency == own for _, currency in named):
            return None
        return own, named[0][0].mention.text

    def rival_date(self, date: DateMention) -> str | None:
        """Surface text of the context's nearest date stating every field ``date`` states
        (decades: another decade), or None. The question is never consulted."""
        fields = [f for f in _DATE_FIELDS if getattr(date, f) is not None]
        candidates = [
            d
            for d in self.dates
            if (d.kind == "decade") == (date.kind == "decade")
            and all(getattr(d, f) is not None for f in fields)
        ]
        if not candidates:
            return None

        def distance(d: DateMention) -> tuple[int, ...]:
            return tuple(abs(getattr(d, f) - getattr(date, f)) for f in fields)

        return min(candidates, key=distance).text


# ---------------------------------------------------------------------------------------------
# Grounding one text
# ---------------------------------------------------------------------------------------------


@dataclass
class GroundingResult:
    """How well a text is grounded in its evidence.

    Attributes:
        status: ``empty`` (no unit to check), ``mismatch`` (a number or date differs from one
            of the same kind in the evidence), ``grounded`` (every unit found), ``absent``
            (``score`` >= :data:`ABSENT_THRESHOLD`) or ``partial``.
        score: weighted share of units not found, in [0, 1]; numbers, dates and
            named-entity-like words weigh 2, other content words 1.
        missing: units not found, in text order: normalized words ("gallagher"), surface
            text of numbers and dates ("1.9 million").
        mismatches: (answer value, evidence value) surface texts, e.g. ``("12", "7")``.
        checked: number of distinct units checked.
        missing_names: the ``missing`` units that name something — numbers, dates and
            named-entity-like words (the units that weigh 2) — in text order.
    """

    status: GroundingStatus
    score: float
    missing: list[str] = field(default_factory=list)
    mismatches: list[tuple[str, str]] = field(default_factory=list)
    checked: int = 0
    missing_spans: list[Span] = field(default_factory=list, compare=False)
    missing_names: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "score": self.score,
            "missing": list(self.missing),
            "mismatches": [list(pair) for pair in self.mismatches],
            "checked": self.checked,
            "missing_names": list(self.missing_names),
            "missing_spans": [span.to_dict() for span in self.missing_spans],
        }


@dataclass(frozen=True)
class _Unit:
    key: tuple[Any, ...]
    label: str
    weight: int
    word: str | None = None
    number: _Quantity | None = None
    measure: Measure | None = None
    date: DateMention | None = None
    hedged: bool = False
    spans: tuple[Span, ...] = ()


def _units(text: str) -> list[_Unit]:
    """Distinct units of ``text`` in order: dates, numbers outside dates, content words outside
    both."""
    analysis = _analyse(text)
    found: list[tuple[int, _Unit]] = []
    for date in analysis.dates:
        key: tuple[Any, ...] = ("date", date.kind, date.year, date.month, date.day)
        found.append((date.span.start, _Unit(key, date.text, 2, date=date, spans=(date.span,))))
    measures = {m.start: m for m in analysis.measures}
    for q in analysis.quantities:
        m = q.mention
        key = ("number", _VALUE_GROUPS[m.kind], m.value)
        unit = _Unit(
            key,
            m.text,
            2,
            number=q,
            measure=measures.get(m.span.start),
            hedged=q.hedged,
            spans=(m.span,),
        )
        found.append((m.span.start, unit))
    for token, free in zip(analysis.tokens, analysis.free, strict=True):
        word = token.text(text)
        if not free or not _WORD_RE.search(word):
            continue
        term = normalize_term(word)
        if _is_function_word(word, term):
            continue
        weight = 2 if _is_entity_like(word, text, token.start) else 1
        found.append((token.start, _Unit(("word", term), term, weight, word=word, spans=(token,))))
    found.sort(key=lambda pair: pair[0])
    units: dict[tuple[Any, ...], _Unit] = {}
    for _, unit in found:
        # The heavier reading wins in place: "bath ... Bath" is one unit, weighed as a name;
        # every occurrence's span is kept.
        previous = units.get(unit.key)
        if previous is None:
            units[unit.key] = unit
            continue
        spans = previous.spans + unit.spans
        heavier = unit if unit.weight > previous.weight else previous
        units[unit.key] = dataclasses.replace(heavier, spans=spans)
    return list(units.values())


def _rival(unit: _Unit, index: GroundingIndex) -> str | None:
    """Surface text of ``index``'s value that contradicts ``unit``'s number (same kind, or a
    measure of its dimension) or date, or None; None for a word."""
    if unit.number is not None:
        rival = index.rival_number(unit.number.mention, unit.number.unit)
        if rival is None and unit.measure is not None:
            rival = index.rival_measure(unit.measure)
        return rival
    return index.rival_date(unit.date) if unit.date is not None else None


def _is_found(unit: _Unit, index: GroundingIndex) -> bool:
    if unit.word is not None:
        return index.has_word(unit.word) or any(map(index.has_word, unit_names(unit.word)))
    if unit.number is not None:
        if unit.measure is not None and index.has_measure(unit.measure):
            return True
        if unit.number.mention.text.isalpha() and index.has_word(unit.number.mention.text):
            return True  # "one" of "ranks as one of the most": the context's word, not a count
        return index.has_number(
            unit.number.mention, hedged=unit.hedged
        ) and not index.in_other_dimensions_only(unit.number, hedged=unit.hedged)
    assert unit.date is not None
    return index.has_date(unit.date)


def ground(
    text: str,
    evidence: str | GroundingIndex,
    *,
    question: str | None = None,
    scope: GroundingIndex | None = None,
) -> GroundingResult:
    """Check whether every unit of ``text`` (content words, numbers, dates) occurs in
    ``evidence`` or the question.

    Args:
        text: the answer text to check, usually a fact's delta.
        evidence: the deciding window's text, or a prebuilt :class:`GroundingIndex` of it (a
            question given to that index counts like ``question``).
        question: the user's question; its words, numbers and dates count as found (an answer
            may repeat the question) but never as evidence of a mismatch.
        scope: an index of the WHOLE context. A unit missing from ``evidence`` but present in
            ``scope`` counts as found for the score (the fact may be supported elsewhere in the
            context), while mismatches are still judged against ``evidence`` alone: a deciding
            window that states another value of the same kind contradicts the text even when
            the text's value appears somewhere else.

    A number is found when a compatible number has the same value; when the text hedges it
    ("about", "around", "approximately", "nearly", "roughly", "over", "more than", ...) a value
    within 2% is enough; years are always exact. A number or date not found in ``evidence``
    (nor the question) is a **mismatch** when ``evidence`` holds one of the same kind (see
    :meth:`GroundingIndex.rival_number` and :meth:`GroundingIndex.rival_date`); so is a number
    with a unit of measure that ``evidence`` states only in another unit of the same dimension
    ("7 miles" against "7 kilometres", :meth:`GroundingIndex.rival_unit`), and an amount of
    money that ``evidence`` states only in another currency ("40 million dollars" against "40
    million euros", :meth:`GroundingIndex.rival_currency`). A value with a unit,
    a percent or a fraction is also found when stated in another unit of its dimension,
    rounded to its written precision ("10 miles" as "16 kilometres", "a quarter" as "25%";
    :meth:`GroundingIndex.has_measure`), the unit's word with it; one that is not is a mismatch
    when ``evidence`` states another value of its dimension ("7 miles" against "16
    kilometres", :meth:`GroundingIndex.rival_measure`).

    Returns:
        A :class:`GroundingResult`; status ``empty`` when the text has no unit, else
        ``mismatch`` when any, ``grounded`` when the score is 0, ``absent`` when the score is
        at least :data:`ABSENT_THRESHOLD`, ``partial`` otherwise.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    if isinstance(evidence, str):
        evidence = GroundingIndex(evidence)
    elif not isinstance(evidence, GroundingIndex):
        raise TypeError(
            f"evidence must be a str or a GroundingIndex, got {type(evidence).__name__}"
        )
    asked = GroundingIndex(question) if question else None
    units = _units(text)
    if not units:
        return GroundingResult("empty", 0.0)
    missing: list[str] = []
    missing_names: list[str] = []
    missing_spans: list[Span] = []
    mismatches: list[tuple[str, str]] = []
    missing_weight = 0
    measured: list[tuple[int, int]] = []  # values found with their units, perhaps converted
    for unit in units:
        if unit.word is not None and any(
            start <= span.start and span.end <= end
            for span in unit.spans
            for start, end in measured
        ):
            continue  # "miles" of "10 miles", found as "16 kilometres"
        if _is_found(unit, evidence) or (asked is not None and _is_found(unit, asked)):
            if unit.measure is not None and (
                evidence.has_measure(unit.measure)
                or (asked is not None and asked.has_measure(unit.measure))
            ):
                measured.append((unit.measure.start, unit.measure.end))
            rival_unit = None
            if unit.number is not None and not (
                asked is not None and asked.states_in_unit(unit.number, hedged=unit.hedged)
            ):
                rival_unit = evidence.rival_unit(unit.number, hedged=unit.hedged)
            conflict = None
            if rival_unit is not None:
                # the value is there, in another unit: "7 miles" against "7 kilometres"
                conflict = (f"{unit.label} {rival_unit[0]}", rival_unit[1])
            elif unit.number is not None:
                # the amount is there, in another currency: "40 million dollars" / "euros"
                rival_currency = evidence.rival_currency(unit.number, hedged=unit.hedged)
                if rival_currency is not None:
                    conflict = (unit.label, rival_currency[1])
            if conflict is None:
                continue
            mismatches.append(conflict)
            missing.append(unit.label)
            missing_spans.extend(unit.spans)
            missing_weight += unit.weight
            continue
        rival = _rival(unit, evidence)
        if rival is not None:
            mismatches.append((unit.label, rival))
        elif scope is not None and _is_found(unit, scope):
            continue
        missing.append(unit.label)
        if unit.weight > 1:
            missing_names.append(unit.label)
        missing_spans.extend(unit.spans)
        missing_weight += unit.weight
    score = missing_weight / sum(u.weight for u in units)
    if mismatches:
        status: GroundingStatus = "mismatch"
    elif score == 0:
        status = "grounded"
    elif score >= ABSENT_THRESHOLD:
        status = "absent"
    else:
        status = "partial"
    return GroundingResult(
        status, score, missing, mismatches, len(units), sorted(missing_spans), missing_names
    )


RESTATED_FROM = 1000
"""The smallest count or amount :func:`restate_quantities` rewrites ("2.1 million" for
"2,100,000"; never "3" for "three")."""


@functools.lru_cache(maxsize=4096)
def _measures_of(text: str) -> tuple[Measure, ...]:
    # the same premise window is restated for many hypotheses of one answer
    return tuple(_analyse(text).measures)


def restate_quantities(premise: str, hypothesis: str) -> str:
    """``premise`` with every value the hypothesis states in other words rewritten in the
    hypothesis's words, so that NLI compares like with like: against "Tamber tent weighs 1.85
    kg", "Each tent weighs 1,850 grams." becomes "Each tent weighs 1.85 kg."; against "takes
    about 90 minutes", "takes 1.5 hours" becomes "takes 90 minutes" (the hedge is the
    hypothesis's own). A value the premise states differently is left alone, so a wrong
    hypothesis stays wrong; so is everything when the hypothesis states no value. Counts and
    amounts under :data:`RESTATED_FROM` keep their words ("three" stays "three" against "3":
    the verifier reads small numbers either way, and a rewritten premise is a new input to it).
    """
    wanted = _measures_of(hypothesis)
    if not wanted:
        return premise
    edits: list[tuple[int, int, str]] = []
    for measure in _measures_of(premise):
        if edits and measure.start < edits[-1][1]:
            continue  # inside the previous rewrite
        if measure.is_amount and max(measure.values) < RESTATED_FROM:
            continue
        for target in wanted:
            if same_value(target, measure) and _fold(target.text) != _fold(measure.text):
                edits.append((measure.start, measure.end, target.text))
                break
    for start, end, said in reversed(edits):
        premise = premise[:start] + said + premise[end:]
    return premise


@functools.lru_cache(maxsize=4096)
def _values_of(text: str) -> tuple[_Unit, ...]:
    return tuple(unit for unit in _units(text) if unit.word is None)


@functools.lru_cache(maxsize=4096)
def _index_of(text: str) -> GroundingIndex:
    return GroundingIndex(text)


def shares_a_value(sentence: str, hypothesis: str) -> bool:
    """Whether ``sentence`` states one of the numbers, dates or measures of ``hypothesis``
    (the same value, in any unit: "1,850 grams" for "1.85 kg")."""
    values = _values_of(hypothesis)
    return bool(values) and any(_is_found(unit, _index_of(sentence)) for unit in values)


ValueComparison = Literal["same", "other"]


def value_of(text: str) -> str | None:
    """The surface text of the one number or date ``text`` states ("29" of "29 research
    grants"), or None when it states none or several."""
    values = _values_of(text)
    return values[0].label if len(values) == 1 else None


def compare_value(claim: str, stated: str) -> ValueComparison | None:
    """How the one number or date of ``claim`` ("29 research grants") relates to ``stated``
    ("38 research grants this year"): ``same`` when ``stated`` states that value (any unit,
    within a hedge's tolerance, as :func:`ground` finds values), ``other`` when it states only
    another value of its kind (:meth:`GroundingIndex.rival_number`, ``rival_date``,
    ``rival_measure``), else None — also when ``claim`` states no value or several."""
    values = _values_of(claim)
    if len(values) != 1:
        return None
    unit, index = values[0], _index_of(stated)
    if _is_found(unit, index):
        return "same"
    return None if _rival(unit, index) is None else "other"


def _fold(text: str) -> str:
    return " ".join(text.casefold().split())
