"""Grounding check: does a piece of answer text have a lexical trace in its evidence?

A lexical judge beside the NLI verifier (the kind the FaithSift tool shows to be strong). The
text checked is usually a fact's *delta* (the words the fact adds over its parent); its
**units** are content words, numbers and dates:

- :func:`parse_numbers` normalizes numbers written in digits or words ("1992", "nineteen
  ninety-two", "1.9 million", "1,900,000", "1 900 000", "1,00,000", "1.9m", "two hundred and
  five", "two and a half", "3.5%", "3,5 %", "$4 billion", "25th", "twenty-fifth", "a dozen",
  "-5", "minus 5", "1.2e6", "1.2 × 10^6", the "19" of "2018–19") and times of day ("3 p.m.",
  "15:00") to a value and a kind;
- :func:`parse_dates` normalizes dates ("15 March 2021", "March 15, 2021", "March 2021",
  "2021-03-15", "2021-03-15T10:00Z", "3/5/2021", "the 1990s", "the 19th century", "Q3 2024",
  "the third quarter of 2024", "FY2023") to (year, month, day, quarter) where known. A bare
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
import itertools
import logging
import math
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal

from enoki_hd.places import place_names
from enoki_hd.text import STOP_WORDS, fold_compat, normalize_term, tokenize_words
from enoki_hd.types import Span
from enoki_hd.units import MEASURES, UNITS, is_unit_word, unit_names
from enoki_hd.verify.quantities import (
    HEDGE_TOLERANCE,
    Measure,
    currency_of,
    find_measures,
    same_value,
)

logger = logging.getLogger(__name__)

NumberKind = Literal["year", "number", "percent", "money", "ordinal", "time"]
DateKind = Literal["day", "month", "decade", "century", "quarter", "fiscal_year"]
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
# Hedges that bound a number from one side: "over 250 languages" is true of 300 languages,
# "at least 6 teams" of eight, "under 10%" of 7% — no value on the bound's side contradicts.
_LOWER_BOUND_RE = re.compile(
    r"\b(?:over|more\s+than|at\s+least|upwards\s+of|in\s+excess\s+of)\s*$", re.IGNORECASE
)
_UPPER_BOUND_RE = re.compile(
    r"\b(?:under|less\s+than|fewer\s+than|up\s+to|at\s+most|no\s+more\s+than)\s*$",
    re.IGNORECASE,
)

# ---------------------------------------------------------------------------------------------
# Mentions
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NumberMention:
    """A number found in a text: its span (offsets into that text), value, kind and surface.

    ``kind`` is ``year`` (four plain digits in :data:`YEAR_RANGE`, or a spoken year such as
    "nineteen ninety-two"), ``percent``, ``money`` (a currency symbol, code or word is
    attached), ``ordinal`` ("25th", "twenty-fifth"), ``time`` (a time of day, ``value`` in
    minutes after midnight: "3 p.m." and "15:00" → 900) or ``number``.
    """

    span: Span
    value: float
    kind: NumberKind
    text: str


@dataclass(frozen=True)
class DateMention:
    """A date found in a text: its span (offsets into that text) and the fields it states.

    ``kind`` is the precision: ``day`` (day and month, with the year when given),
    ``month`` (month and year), ``decade`` (``year`` is the first year: "the 1990s" → 1990),
    ``century`` (``year`` is the first year: "the 19th century" → 1800; "the 1800s" is a
    decade; a century BC counts back from 0: "the 5th century BC" → -500),
    ``quarter`` ("Q3 2024", "the third quarter": ``quarter`` 3, the year when given) or
    ``fiscal_year`` ("FY2023", "fiscal year 2023"). ``fiscal`` marks a quarter or year of a
    fiscal calendar, which need not be the calendar's. ``swappable``: the day and month were
    written as numbers either may stand for ("3/5/1921": 3 May or March 5); ``day`` and
    ``month`` hold the month-first reading.
    """

    span: Span
    year: int | None
    month: int | None
    day: int | None
    kind: DateKind
    text: str
    quarter: int | None = None
    fiscal: bool = False
    swappable: bool = False


# ---------------------------------------------------------------------------------------------
# Numbers written in digits
# ---------------------------------------------------------------------------------------------

# Whole numbers with digit grouping (the rules are in parse_numbers' docstring).
_GROUPED_DIGITS = (
    r"\d{1,3}(?:,\d{3})+"  # 1,000,000
    r"|\d{1,2}(?:,\d{2})+,\d{3}"  # Indian: 1,00,000 and 12,34,567
    # no-break, narrow no-break, thin; never a plain space ("pins 100 200 300" lists three)
    r"|\d{1,3}(?P<space>[\u00a0\u202f\u2009])\d{3}(?:(?P=space)\d{3})*"
)
# Digits not glued to a word or another number ("3.5.2", "1,2,3" give nothing), or the hour
# after an ISO date's "T" ("2026-12-04T10:00Z"); a decimal comma is the last alternative, so
# "1,000" is a thousand.
_DIGITS_RE = re.compile(
    r"(?=\d)(?:(?<![\w.,])|(?<=\dT)(?=\d\d:\d\d))"
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
# "40%", "40 per cent", and hyphened before a noun: "a 40-per-cent rise", "a 40-percent cut"
_PERCENT_RE = re.compile(r"\s?%|(?:\s+|[-‐‑])(?:percent|per[-‐‑\s]cent|pct)\b", re.IGNORECASE)
_SCALE_ABBREVIATION_RE = re.compile(r"(?:k|m|mn|bn|tn|b)\b", re.IGNORECASE)
_SCALE_WORD_RE = re.compile(  # "1.9 million", and hyphened: "a $5-million grant"
    r"(?:\s+|[-‐‑])(hundred|thousand|million|billion|trillion|dozen)\b", re.IGNORECASE
)
_CURRENCY_WORD_RE = re.compile(
    r"\s+(?:dollars?|euros?|pounds(?:\s+sterling)?|yen|yuan|rupees?|francs?|USD|EUR|GBP)\b",
    re.IGNORECASE,
)
_GLUED_LETTERS_RE = re.compile(r"[^\W\d_]+")
_PERCENT_WORD_RE = re.compile(r"(?:\s+|[-‐‑])(?:percent|per[-‐‑\s]cent)\b", re.IGNORECASE)
# A minus sign glued to the number ("-5 °C", "−3.2%") or the word "minus", neither after a
# word, a digit ("3-1", "10 minus 5") nor a range's dash.
_MINUS_RE = re.compile(r"(?:(?<![\w.,\-−–])(?<!\d\s)[-−]|(?<!\d\s)\bminus\s+)$", re.IGNORECASE)
# Scientific notation after the digits: "1.2e6", "1.2E-03", "1.2 × 10^6", "1.2x10**6", "1.2 × 10⁶".
_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻", "0123456789+-")
_POWER = r"(?:\^|\*\*)\s?(?P<caret>[+\-−]?\d{1,3})|(?P<sup>[⁺⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]{1,3})"
_EXPONENT_RE = re.compile(rf"(?:[eE](?P<e>[+-]?\d{{1,3}})|\s?[×x·*]\s?10\s?(?:{_POWER}))(?![\w.])")
_POWER_RE = re.compile(rf"(?:{_POWER})(?![\w.])")  # after a bare "10": "10^6"
# "two and a half", "2 and a half million"
_AND_A_HALF_RE = re.compile(r"\s+and\s+a\s+half\b", re.IGNORECASE)

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


# "the 2018–19 season", "FY 2023/24": the year a range of two years ends in, written short
_OPENING_YEAR_RE = re.compile(r"(?<![\w.,])(\d{4})[-–/]$")
_RANGE_DASH_AFTER_RE = re.compile(r"[-–/]\d")


def _closing_year(text: str, start: int, end: int) -> int | None:
    """The year two digits at ``[start, end)`` stand for right after the year before it
    ("19" of "2018–19" → 2019), or None. Only the next year is read so ("2009-12" may be a
    month), and never inside a longer run ("2021-03-15")."""
    digits = text[start:end]
    opening = _OPENING_YEAR_RE.search(text, max(0, start - 5), start)
    if len(digits) != 2 or opening is None or _RANGE_DASH_AFTER_RE.match(text, end):
        return None
    year = int(opening.group(1)) + 1
    if year % 100 != int(digits) or not YEAR_RANGE[0] < year <= YEAR_RANGE[1]:
        return None
    return year


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


def _exponent(power: re.Match[str]) -> int:
    """The power of ten an :data:`_EXPONENT_RE` or :data:`_POWER_RE` match writes."""
    groups = power.groupdict()
    written = groups.get("e") or groups["caret"] or groups["sup"]
    return int(written.translate(_SUPERSCRIPTS).replace("−", "-"))


def _digit_numbers(text: str) -> Iterator[tuple[NumberMention, str | None]]:
    """Numbers written with digits, each with the letters glued to it ("5km" → "km") or None."""
    consumed = 0  # the end of a scientific notation: its "10" and exponent are no numbers
    for m in _DIGITS_RE.finditer(text):
        start, end = m.start(), m.end()
        digits = m.group()
        decimal_comma = m.group("decimal_comma") is not None
        if start < consumed or _glued_to_name(text, start):
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
        if power := _EXPONENT_RE.match(text, end):
            value *= Decimal(10) ** _exponent(power)
            end = consumed = power.end()
            scaled = True
        elif digits == "10" and (power := _POWER_RE.match(text, end)):
            value = Decimal(10) ** _exponent(power)
            end = consumed = power.end()
            scaled = True
        elif digits.isdigit() and (half := _AND_A_HALF_RE.match(text, end)):
            value += Decimal("0.5")
            end = half.end()
        if not scaled and (suffix := _ORDINAL_SUFFIX_RE.match(text, end)):
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
        if scaled:
            pass
        elif abbreviation and (abbreviation.group().lower() != "b" or money):
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
        elif not scaled and glued is None and end == m.end() and _year_like(digits, value):
            kind = "year"
        elif not scaled and glued is None and (year := _closing_year(text, m.start(), end)):
            kind, value = "year", Decimal(year)
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


# a key of a listing ('OutdoorSeating': True, "WiFi": "free"), written in CamelCase
_LISTING_KEY_RE = re.compile(r"""['"]([A-Za-z][A-Za-z0-9_]*)['"]\s*:""")
_CAMEL_CASE_RE = re.compile(r"[A-Z]?[a-z]+(?:[A-Z][a-z]+)+")
# a CamelCase word's parts: a run of capitals ("BYOB", the "TV" of "HasTV"), a capitalised or
# lower-case word, a number
_CAMEL_PART_RE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


def camel_words(key: str) -> list[str]:
    """The lower-case words of a CamelCase or snake_case key: "RestaurantsTakeOut" gives
    "restaurants", "take", "out"; "HasTV" "has", "tv"; "beer_and_wine" "beer", "and",
    "wine"."""
    return [part.lower() for part in _CAMEL_PART_RE.findall(key)]


def _camel_parts(word: str) -> list[str]:
    """The words of a listing's CamelCase key, and each two of them written solid:
    "RestaurantsTakeOut" gives "restaurants", "take", "out", "restaurantstake", "takeout" — a
    listing's ``'OutdoorSeating': True`` writes "outdoor seating" for the grounding, whose
    value the attributes check reads (:mod:`enoki_hd.verify.attributes`). A CamelCase word
    elsewhere ("YouTube", "McLaren", a scraped "AdvisorThe") stays one word."""
    parts = [normalize_term(p) for p in camel_words(word)]
    return parts + [a + b for a, b in itertools.pairwise(parts)]


def _has_hyphen(word: str) -> bool:
    """Whether ``word`` holds a hyphen of :data:`_HYPHENS_RE` (a test cheaper than the
    regular expression, for a loop over every word of a long context)."""
    return "-" in word or "‐" in word or "‑" in word


def _atoms(word: str) -> list[Atom] | None:
    """Number atoms of one token ("twenty-fifth" → tens 20, unit 5 ordinal), or None."""
    word = word.lower()
    if word in _NUMBER_ATOMS:
        return [_NUMBER_ATOMS[word]]
    if not _has_hyphen(word):
        return None
    parts = _HYPHENS_RE.split(word)
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


# Word parts after a count that make it a rough one ("forty-odd", "twenty-something").
_ROUGH_COUNT_PARTS = frozenset({"odd", "ish", "something", "some"})


def _superlative(word: str) -> bool:
    """ "largest", "highest", "most", "best": the rank an ordinal before it counts."""
    return word in ("most", "least", "best", "worst") or (len(word) > 4 and word.endswith("est"))


def _compound_count(word: str) -> tuple[int, int, bool] | None:
    """(value, characters, ordinal) of the count that starts a hyphenated compound of a count
    and words ("three-year" → (3, 5, False), "twenty-five-year-old" → (25, 11, False),
    "second-largest" → (2, 6, True)), as "5-day" has its "5"; None for any other word. Only
    cardinals of two or more ("one-sided" counts nothing, nor do rough counts: "forty-odd")
    and ordinals before a superlative ("first-class", "second-hand" count nothing)."""
    if not _has_hyphen(word):
        return None
    parts = _HYPHENS_RE.split(word)
    state = _WordNumberState()
    k = 0
    while k < len(parts) and (atom := _NUMBER_ATOMS.get(parts[k])) is not None:
        if not state.push(atom):
            return None
        k += 1
    rest = parts[k:]
    if k == 0 or not rest:
        return None
    if any(not p.isalpha() or p in _NUMBER_ATOMS or p in _ROUGH_COUNT_PARTS for p in rest):
        return None
    if state.ordinal:
        if not _superlative(rest[0]):
            return None
    elif state.value < 2:
        return None
    return state.value, len("-".join(parts[:k])), state.ordinal


def _word_numbers(text: str, tokens: list[Span], taken: list[Span]) -> Iterator[NumberMention]:
    """Numbers written in words, skipping tokens inside ``taken`` (sorted, non-overlapping)."""
    words = [t.text(text).lower() for t in tokens]
    starts = [t.start for t in tokens]
    atoms = [_atoms(w) if w[0].isalpha() else None for w in words]
    free = _uncovered(tokens, taken)
    i, n = 0, len(tokens)
    while i < n:
        if free[i] and atoms[i] is None and (compound := _compound_count(words[i])):
            count, length, ordinal = compound  # "three-year": the count; "year" its unit
            span = Span(tokens[i].start, tokens[i].start + length)
            yield NumberMention(
                span, float(count), "ordinal" if ordinal else "number", span.text(text)
            )
            i += 1
            continue
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
        if j == i + 1 and words[i] == "one" and i > 0 and free[i - 1] and words[i - 1] == "no":
            i += 1  # "no one" is "nobody", not a count
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
                elif half := _AND_A_HALF_RE.match(text, end):
                    value, end = value + 0.5, half.end()
                    if scale := _SCALE_WORD_RE.match(text, end):  # "two and a half million"
                        value, end = value * _SCALES[scale.group(1).lower()], scale.end()
                    j = bisect.bisect_left(starts, end)
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
    r"(?=[efnostEFNOST])\b("
    + "|".join(_NUMERATORS)
    + r")[-‐‑]("
    + "|".join(_DENOMINATORS)
    + r")s?\b",
    re.IGNORECASE,
)


def _fractions(text: str) -> Iterator[NumberMention]:
    """Hyphenated fractions ("one-third" → 1/3, "two-thirds", "three-quarters") as plain
    numbers."""
    for m in _FRACTION_RE.finditer(text):
        value = _NUMERATORS[m.group(1).lower()] / _DENOMINATORS[m.group(2).lower()]
        yield NumberMention(Span(m.start(), m.end()), value, "number", m.group(0))


# Times of day: "3:30 p.m.", "10.30am", "3 PM", and "H:MM" with a cue that it is one (below);
# "3:05:10" (with seconds) is no time of day: races are timed so.
_MERIDIEM = r"\s?(?P<half>[ap])(?:\.\s?m\.?|m\b)"
_CLOCK_RES = (
    re.compile(
        r"(?=\d)(?:(?<![\w.,:])|(?<=\dT))(?P<hour>[01]?\d|2[0-3]):(?P<minute>[0-5]\d|0)(?![:\d])"
        rf"(?:{_MERIDIEM})?",
        re.IGNORECASE,
    ),
    re.compile(
        rf"(?=\d)(?<![\w.,:])(?P<hour>1[0-2]|0?[1-9])(?:[.:](?P<minute>[0-5]\d))?{_MERIDIEM}",
        re.IGNORECASE,
    ),
)
# "H:MM" without a.m. or p.m. is a time of day only with a cue, as "John 3:16", "1:20" (a
# ratio), "2:01" (a race) and "3:0" (a score) are none: a unit or zone after it ("10:00 h",
# "10:00 UTC", "10:00Z"), a word before it ("at 10:00", "opens 9:00"), the hour after an ISO
# date's "T", or a range of two ("10:00–22:00"; a one-digit minute, "17:0-22:0", only so).
_CLOCK_AFTER_RE = re.compile(r"\s?(?:h|hrs?|UTC|GMT|Z)\b", re.IGNORECASE)
_CLOCK_BEFORE_RE = re.compile(
    r"\b(?:at|from|until|till|by|before|after|opens?|closes?|between|to)\s+$", re.IGNORECASE
)
_CLOCK_RANGE_DASH = r"\s?[-–—]\s?|\s+(?:to|until|till)\s+"
_CLOCK_RANGE_AFTER_RE = re.compile(rf"(?:{_CLOCK_RANGE_DASH})(?:[01]?\d|2[0-3]):[0-5]?\d(?![:\d])")
_CLOCK_RANGE_BEFORE_RE = re.compile(
    rf"(?<![\w.,:])(?:[01]?\d|2[0-3]):[0-5]?\d(?:{_CLOCK_RANGE_DASH})$"
)


def _clock_cue(text: str, m: re.Match[str]) -> bool:
    """Whether the "H:MM" of ``m`` is a time of day (see :data:`_CLOCK_AFTER_RE`)."""
    start, end = m.start(), m.end()
    in_range = bool(
        _CLOCK_RANGE_AFTER_RE.match(text, end)
        or _CLOCK_RANGE_BEFORE_RE.search(text, max(0, start - 16), start)
    )
    if in_range or len(m.group("minute")) == 1:
        return in_range
    return bool(
        m.group("half")
        or text[start - 1 : start] == "T"
        or _CLOCK_AFTER_RE.match(text, end)
        or _CLOCK_BEFORE_RE.search(text, max(0, start - 10), start)
    )


# Times of day in words, lower-case after a preposition ("at noon", "until midnight"; not
# "Midnight Express", "a midnight feast")
_CLOCK_WORD_RE = re.compile(
    r"(?=[abftpu])\b(?:at|by|until|till|from|before|after|around|past|to) "
    r"(?P<word>noon|midday|midnight)\b"
)
_CLOCK_WORDS = {"noon": 720.0, "midday": 720.0, "midnight": 0.0}


def _clock_times(text: str) -> list[NumberMention]:
    """Times of day (kind ``time``, minutes after midnight), in order, not overlapping."""
    found = [
        NumberMention(
            Span(m.start("word"), m.end()), _CLOCK_WORDS[m.group("word")], "time", m.group("word")
        )
        for m in _CLOCK_WORD_RE.finditer(text)
    ]
    for pattern in _CLOCK_RES:
        for m in pattern.finditer(text):
            if pattern is _CLOCK_RES[0] and not _clock_cue(text, m):
                continue
            hour, minute = int(m.group("hour")), int(m.group("minute") or 0)
            if m.group("half"):
                if not 1 <= hour <= 12:
                    continue
                hour = hour % 12 + (12 if m.group("half").lower() == "p" else 0)
            span = Span(m.start(), m.end())
            found.append(NumberMention(span, float(hour * 60 + minute), "time", m.group()))
    found.sort(key=lambda t: (t.span.start, -len(t.span)))
    times: list[NumberMention] = []
    for time_of_day in found:
        if not times or time_of_day.span.start >= times[-1].span.end:
            times.append(time_of_day)
    return times


# A temperature below zero in words: "5 °C below zero", "five degrees below freezing"
# ("below freezing" is no minus in Fahrenheit: "10 °F below freezing" is 22 °F).
_BELOW_ZERO_RE = re.compile(
    r"(?:\s?°\s?(?P<sign>[CFK])\b|\s+degrees?(?:\s+(?P<word>celsius|fahrenheit|[CF]\b))?)"
    r"\s+below\s+(?P<zero>zero|freezing)\b",
    re.IGNORECASE,
)


def _signed(text: str, mention: NumberMention) -> NumberMention:
    """``mention`` with a minus sign or "minus" before it taken in ("-5", "minus five"), or
    negative when a temperature below zero follows it ("5 °C below zero")."""
    if mention.kind in ("ordinal", "time") or not mention.value:
        return mention
    below = _BELOW_ZERO_RE.match(text, mention.span.end)
    if below is not None and mention.kind == "number" and mention.value > 0:
        unit = (below.group("sign") or below.group("word") or "").lower()[:1]
        if below.group("zero").lower() == "zero" or unit != "f":
            return dataclasses.replace(mention, value=-mention.value)
    start = mention.span.start
    sign = _MINUS_RE.search(text, max(0, start - 6), start)
    if sign is None:
        return mention
    kind: NumberKind = "number" if mention.kind == "year" else mention.kind  # "-1200 m"
    span = Span(sign.start(), mention.span.end)
    return NumberMention(span, -mention.value, kind, span.text(text))


def _parse_numbers(text: str, tokens: list[Span]) -> list[tuple[NumberMention, str | None]]:
    times: list[tuple[NumberMention, str | None]] = [(m, None) for m in _clock_times(text)]
    digit = list(_digit_numbers(text))
    outside = _uncovered([m.span for m, _ in digit], [m.span for m, _ in times])
    digit = [pair for pair, keep in zip(digit, outside, strict=True) if keep]
    fractions: list[tuple[NumberMention, str | None]] = [(m, None) for m in _fractions(text)]
    taken = sorted(m.span for m, _ in times + digit + fractions)
    spoken: list[tuple[NumberMention, str | None]] = [
        (m, None) for m in _word_numbers(text, tokens, taken)
    ]
    numbers = sorted(times + digit + fractions + spoken, key=lambda pair: pair[0].span.start)
    return [(_signed(text, m), glued) for m, glued in numbers]


def parse_numbers(text: str) -> list[NumberMention]:
    """Numbers in ``text``, in order, with spans as offsets into ``text``.

    Digits may carry digit grouping (below), decimals ("3.5"), a currency symbol or code before
    ("$4", "US$4", "EUR 4") or a currency word after ("4 dollars") → ``money``; ``%`` /
    "percent" / "per cent" → ``percent``; an ordinal suffix ("25th") → ``ordinal``; a scale
    word or abbreviation ("1.9 million", "1.9m", "10k", "$4bn"; "b" only after a currency)
    multiplies the value, and so does a power of ten ("1.2e6", "1.2 × 10^6", "1.2×10⁶",
    "10^6"); "and a half" adds a half ("2 and a half million"). Four plain digits in
    :data:`YEAR_RANGE` are a ``year``, and so are the two digits that end a range of two
    years ("2018–19" → 2019). A minus sign glued to the digits ("-5", "−3.2%") or "minus"
    before a number makes it negative (not after a word or digit: "3-1", "COVID-19"). Other
    glued letters are kept as a unit ("5km" → 5), except ISO 8601's "T" and "Z" around a time.
    Times of day are of kind ``time``, in minutes after midnight: "3:30 p.m.", "10.30am", "3
    PM", and "H:MM" with a cue ("at 15:00", "10:00 UTC", "10:00–22:00", "17:0-22:0", the
    "10:00" of "2026-12-04T10:00Z"); not "John 3:16", "1:20", "2:01" or "3:05:10". Digits
    glued to a name ("COVID-19", "MP3"), version strings ("3.5.2") and plural digits ("1990s",
    "80s" — see :func:`parse_dates`) are skipped.

    Digit grouping: a comma before exactly three digits always groups ("1,000" is a thousand,
    never 1.0; "1,900,000"); Indian grouping is read too ("1,00,000", "12,34,567"). A no-break,
    narrow no-break or thin space (one kind in a number) groups threes after a 1–3-digit lead;
    a plain space never does: "pins 100 200 300" and "1 000 000" are three numbers. A decimal
    comma, one followed by 1–2 digits or more than 3 ("3,5", "12,75", "3,1415"), is read only
    when the number is no part of a longer comma-separated digit list ("1,2,3" gives nothing)
    and is marked as a quantity: a currency before it, or a percent, scale word or abbreviation,
    currency word or unit of measure after it ("3,5 %", "€2,50", "1,5 million", "2,5 kg"); a
    bare "3,5" may list two things ("pages 3,5") and gives nothing.

    Words: cardinals up to the trillions ("two hundred and five" → 205, "twenty-five"), ordinals
    ("twenty-fifth" → 25), hyphenated fractions ("two-thirds" → 2/3), "a dozen"/"two dozen",
    "a hundred"/"a million", and spoken years ("nineteen ninety-two", "twenty twenty-one") →
    ``year``. "one of" and "no one" are not numbers. Numbers nested in a date are reported too;
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
# What a month name starts with. A pattern that starts with a lookahead for its first
# character ("(?=\d)", this for a month) lets the regular expression engine skip the other
# characters of a long text: two to three times faster than starting with a lookbehind
_MONTH_START = "(?=[" + "".join(sorted({name[0] for name in _MONTHS})) + "])"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>\d{4})"
_DATE_PATTERNS = (
    # ISO, alone or before a time: "2026-12-04T10:00Z"
    re.compile(
        r"(?=\d)(?<![\w-])(?P<year>\d{4})-(?P<month>\d{1,2})-(?P<day>\d{1,2})"
        r"(?:(?![\w-])|(?=T\d\d:\d\d))"
    ),
    re.compile(rf"(?=\d)(?<![\w.,]){_DAY}\s+(?:of\s+)?{_MONTH}(?:,?\s+{_YEAR})?\b", re.IGNORECASE),
    re.compile(
        rf"{_MONTH_START}\b{_MONTH}\s+{_DAY}(?:,?\s+{_YEAR})?(?![\w.,]?\d)\b", re.IGNORECASE
    ),
    re.compile(rf"{_MONTH_START}\b{_MONTH},?\s+(?:of\s+)?{_YEAR}\b", re.IGNORECASE),
    re.compile(r"(?=\d)(?<![\w.,])(?P<decade>\d{3}0)['’]?s\b"),
    # "3/5/1921" (either way round), "03.05.1921" (day first), "1921/05/03"
    re.compile(
        r"(?=\d)(?<![\w./-])(?P<first>\d{1,2})(?P<separator>[/.])(?P<second>\d{1,2})(?P=separator)"
        r"(?P<year>\d{4})(?![\w/.-]?\d)(?!\w)"
    ),
    re.compile(
        r"(?=\d)(?<![\w./-])(?P<year>\d{4})/(?P<month>\d{1,2})/(?P<day>\d{1,2})(?![\w/.-]?\d)(?!\w)"
    ),
)

# Fiscal years ("FY2023", "FY 23", "fiscal 2023", "fiscal year 2023", "financial year 2023")
# and calendar years of a period; "FY2023-24" and "2023/24" name two years and are no period.
_FISCAL_YEAR = (
    r"(?:FY\s?(?P<fiscal>\d{4}|\d{2})|(?i:fiscal|financial)\s+(?:(?i:year)\s+)?(?P<fiscal4>\d{4}))"
)
_PERIOD_YEAR = rf"(?:{_FISCAL_YEAR}|(?P<year>\d{{4}}))(?![-/–]\d)(?!\w)"
_QUARTERS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4,
             "4th": 4}  # fmt: skip
_QUARTER_WORD = r"(?P<ordinal>" + "|".join(_QUARTERS) + r")"
_CENTURIES = {
    **{word: i for i, word in enumerate(_ORDINAL_UNIT_WORDS) if i},
    **{word: 10 + i for i, word in enumerate(_ORDINAL_TEEN_WORDS)},
    "twentieth": 20,
    "twenty-first": 21,
}
_CENTURY_WORD = (  # "twenty-first" may be spaced or hyphenated
    r"(?P<century_word>twenty[\s‐‑-]first|" + "|".join(w for w in _CENTURIES if "-" not in w) + ")"
)
# the first characters of a century: a digit, or a letter its ordinal word starts with
_CENTURY_START = "(?=[\\d" + "".join(sorted({w[0] + w[0].upper() for w in _CENTURIES})) + "])"
_PERIOD_PATTERNS = (
    # "Q3 2024", "Q3-2024", "Q3 of 2024", "Q3 FY24", "Q3"
    re.compile(rf"(?=Q)(?<!\w)Q(?P<quarter>[1-4])(?:\s?(?:(?i:of)\s+|[-/]\s?)?{_PERIOD_YEAR}|\b)"),
    # "2024 Q3", "3Q 2024", "3Q24"
    re.compile(r"(?=\d)(?<![\w.,])(?P<year>\d{4})\s?Q(?P<quarter>[1-4])\b"),
    re.compile(r"(?=\d)(?<![\w.,])(?P<quarter>[1-4])Q\s?(?:(?P<year>\d{4})|(?P<short>\d{2}))\b"),
    # "the third quarter of 2024", "third-quarter 2024", "the fourth fiscal quarter"
    re.compile(
        rf"(?=[fst1-4FST])(?i:\b{_QUARTER_WORD}[\s‐‑-]+(?P<fiscal_quarter>(?:fiscal|financial)\s+)?quarter)"
        rf"(?![‐‑-]\w)(?:,?\s+(?i:of\s+)?(?:(?i:the)\s+)?{_PERIOD_YEAR})?"
    ),
    re.compile(rf"(?=[Ff])(?<!\w){_FISCAL_YEAR}(?![-/–]\d)(?!\w)"),
    # "the 19th century", "the nineteenth-century", "the 5th century BC"
    re.compile(
        rf"{_CENTURY_START}(?i:\b(?:(?P<century>\d{{1,2}})(?:st|nd|rd|th)|{_CENTURY_WORD})"
        r"[\s‐‑-]+century)\b"
        r"(?:(?P<bc>\s+(?:BCE?\b|B\.\s?C\.(?:\s?E\.)?))|(?!\w))"
    ),
)


def _period_from_match(m: re.Match[str]) -> DateMention | None:
    """A quarter, fiscal year or century from a match of :data:`_PERIOD_PATTERNS`."""
    groups = m.groupdict()
    span = Span(m.start(), m.end())
    if groups.get("century") or groups.get("century_word"):
        word = groups.get("century_word")
        number = (
            _CENTURIES[re.sub(r"[\s‐‑-]+", "-", word.lower())] if word else int(groups["century"])
        )
        if not 1 <= number <= YEAR_RANGE[1] // 100 + 1:
            return None
        # a century before Christ counts back from 0: "the 5th century BC" is -500 to -401,
        # never one of the positive years a text writes
        first = -number * 100 if groups.get("bc") else (number - 1) * 100
        return DateMention(span, first, None, None, "century", m.group())
    fiscal_year = groups.get("fiscal") or groups.get("fiscal4")
    year_text = fiscal_year or groups.get("year") or groups.get("short")
    year = None if year_text is None else int(year_text) + (2000 if len(year_text) == 2 else 0)
    if year is not None and not YEAR_RANGE[0] <= year <= YEAR_RANGE[1]:
        return None
    if groups.get("ordinal"):
        quarter: int | None = _QUARTERS[groups["ordinal"].lower()]
    else:
        quarter = int(groups["quarter"]) if groups.get("quarter") else None
    fiscal = bool(fiscal_year or groups.get("fiscal_quarter"))
    if quarter is None:
        return DateMention(span, year, None, None, "fiscal_year", m.group(), fiscal=True)
    return DateMention(span, year, None, None, "quarter", m.group(), quarter, fiscal)


def _date_from_match(m: re.Match[str]) -> DateMention | None:
    groups = m.groupdict()
    if groups.get("decade"):
        decade = int(groups["decade"])
        if not YEAR_RANGE[0] <= decade <= YEAR_RANGE[1]:
            return None
        span = Span(m.start("decade"), m.end())
        return DateMention(span, decade, None, None, "decade", m.group())
    swappable = False
    if groups.get("first"):
        first, second = int(groups["first"]), int(groups["second"])
        # day first with dots ("03.05.1921"), month first with slashes unless that cannot be
        swappable = groups["separator"] == "/" and first <= 12 and second <= 12 and first != second
        day_first = groups["separator"] == "." or first > 12
        groups["month"], groups["day"] = (
            (groups["second"], groups["first"])
            if day_first
            else (groups["first"], groups["second"])
        )
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
    span = Span(m.start(), m.end())
    return DateMention(span, year, month, day, kind, m.group(), swappable=swappable)


def parse_dates(text: str) -> list[DateMention]:
    """Dates in ``text``, in order, with spans as offsets into ``text``.

    Recognized: ISO ``2021-03-15``, also before a time (``2021-03-15T10:00Z``: the date only;
    the hour and minutes are numbers, see :func:`parse_numbers`); ``15 March 2021`` / ``15th
    of March, 2021`` / ``15 March``;
    ``March 15, 2021`` / ``March 15``; ``March 2021``; numeric ``3/5/2021`` (``swappable``
    when both could be the month), ``03.05.2021`` (day first), ``2021/05/03``; decades
    ``1990s`` / ``1990's`` (the span covers the decade only, not "the"); centuries ``the 19th
    century`` / ``nineteenth-century`` / ``the 5th century BC`` ("the 1800s" is a decade); quarters ``Q3 2024`` /
    ``Q3-2024`` / ``2024 Q3`` / ``3Q24`` / ``the third quarter of 2024`` / ``Q3 FY24`` /
    ``the fourth fiscal quarter`` / ``Q3``; fiscal years ``FY2023`` / ``FY23`` / ``fiscal
    (year) 2023`` (not "FY2023-24"). Month names may be abbreviated ("Sept.", "Mar");
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
    candidates += [
        date
        for pattern in _PERIOD_PATTERNS
        for m in pattern.finditer(text)
        if (date := _period_from_match(m)) is not None
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


def _joined(word: str) -> str:
    """A hyphenated word written solid, normalized ("e-mail" → "email", "Non-profits" →
    "nonprofit")."""
    return normalize_term(_HYPHENS_RE.sub("", word))


# An initialism written with dots: "U.S.", "D.C.", "U.S" (not "e.g.", "a.m.": lower case)
_DOTTED_RE = re.compile(
    r"(?=[A-Z]\.)(?:(?<![\w.])(?:[A-Z]\.){2,}(?![\w])|(?<![\w.])(?:[A-Z]\.)+[A-Z](?![\w.]))"
)
# A word written as an acronym: two to six letters, the first and at least one more capital
# ("US", "NASA", "DoD"); "I" and "A" are no acronyms
_ACRONYM_RE = re.compile(r"[A-Z](?=[A-Za-z]{1,5}$)[a-z]*[A-Z][A-Za-z]*")
# lower-case words a name may hold and its acronym skip: "Bank of America", "Food and Drug"
_NAME_JOINERS = frozenset({"of", "and", "the", "for", "&", "de", "du", "la"})
_MAX_NAME_WORDS = 8
# Two letters are the initials of too many names ("EF" of "Empressa Ferrocarril" and of
# "Estrada de Ferro"): only these well-known ones are matched with their names
_TWO_LETTER_ACRONYMS = frozenset({"us", "uk", "eu", "un"})


def _dotted(text: str) -> list[tuple[Span, str]]:
    """The dotted initialisms of ``text`` with their letters: ("U.S.", "US")."""
    return [
        (Span(m.start(), m.end()), m.group().replace(".", "")) for m in _DOTTED_RE.finditer(text)
    ]


def is_acronym(word: str) -> bool:
    """Whether ``word`` is written as an acronym ("US", "NASA", "DoD"; not "I", "Paris")."""
    return 2 <= len(word) <= 6 and _ACRONYM_RE.fullmatch(word) is not None


def _name_initials(
    text: str, tokens: list[Span], *, sentence_starts: bool = False
) -> Iterator[tuple[Span, str]]:
    """Runs of capitalised words in ``text`` with their initials, lower-case: a run holds two
    or more capitalised words not starting a sentence, lower-case joiners such as "of" and
    "and" between them (skipped in the initials): ("United States", "us"), ("National
    Aeronautics and Space Administration", "nasa"). Of a longer run, each part that starts and
    ends with a capital gives its initials too when they are three letters or more ("New
    York City Council" gives "nycc", "nyc", "ycc", ...); two letters only
    :data:`_TWO_LETTER_ACRONYMS` ("United States": "us", of "the United States Navy" and of
    "the United States and Italy" too), as the two initials of any two names are common. ``sentence_starts``: a capitalised word that starts
    a sentence may be part of a run too (for a short text matched against the acronyms
    another writes, not searched for any acronym)."""
    words = [t.text(text) for t in tokens]

    def capital(i: int) -> bool:
        word = words[i]
        if not (word[:1].isupper() and word.isalpha()) or word.lower() in STOP_WORDS:
            return False  # "The" of "The United States" is no part of the name
        return sentence_starts or not starts_sentence(text, tokens[i].start)

    k = 0
    while k < len(words):
        if not capital(k):
            k += 1
            continue
        run = [k]
        j = k + 1
        while j < len(words) and len(run) < _MAX_NAME_WORDS:
            if capital(j):
                run.append(j)
            elif not (words[j].lower() in _NAME_JOINERS and j + 1 < len(words) and capital(j + 1)):
                break
            j += 1
        for a in range(len(run)):
            for b in range(a + 1, len(run)):
                initials = "".join(words[i][0] for i in run[a : b + 1]).lower()
                if b - a == 1 and initials not in _TWO_LETTER_ACRONYMS:
                    continue  # two letters: a well-known name only ("United States Navy": us)
                yield Span(tokens[run[a]].start, tokens[run[b]].end), initials
        k = max(j, k + 1)


def _is_function_word(word: str, term: str) -> bool:
    """Stop words, hyphenated words made of stop words ("one-off") and stray lowercase
    letters (the "s" of a detached "’s") carry nothing to ground; a word in capitals is an
    acronym, no stop word ("US", "WHO", "IT"). A stop word is looked up as written too:
    the plural ending stripped, "does", "always", "perhaps", "whereas" are no stop words
    ("doe", "alway")."""
    if len(word) >= 2 and word.isalpha() and word.isupper():
        return False
    if term in STOP_WORDS or (len(term) <= 1 and not word.isupper() and not word.isdigit()):
        return True
    if fold_compat(word).casefold().replace("’", "'") in STOP_WORDS:
        return True
    return bool(_HYPHENS_RE.search(word)) and not _word_parts(word)


# Markup a word may follow at the start of a sentence, a list item or a table cell
# ("**Weight**", "- Weight", "> Weight"): skipped like quotes when looking for what precedes it.
_LEADING_MARKUP = frozenset("*_#>-+•")


def starts_sentence(text: str, start: int) -> bool:
    """Whether the word at ``start`` of ``text`` begins it, a sentence, a line, a table cell
    or a clause after ``: ;`` (quotes, brackets and Markdown emphasis or list markers before
    the word skipped): where a capital says nothing about a name."""
    i = start - 1
    while i >= 0 and (text[i] in _OPENERS or text[i] in _LEADING_MARKUP):
        i -= 1
    return i < 0 or text[i] in ".!?\n:;|"


Written = Callable[[int], tuple[str, int]]
"""Where the word at an offset of a text was written: ``(that text, the offset there)`` — for
a text cut from an answer (a fact's parts joined), the answer and the word's place in it."""

_LAST_WORD_RE = re.compile(r"[^\W\d_][\w'’-]*$")


def _is_entity_like(word: str, text: str, start: int) -> bool:
    """A capitalised word not starting a sentence, or any word with an inner capital
    ("NASA", "iPhone"), ``start`` its offset in ``text``. Sentence-initial capitals say
    nothing about names."""
    if any(c.isupper() for c in word[1:]):
        return True
    if not word[0].isupper():
        return False
    return not starts_sentence(text, start)


def _follows_name(text: str, start: int) -> bool:
    """Whether the word at ``start`` of ``text`` comes right after a name-like word (one
    space between)."""
    if start < 2 or text[start - 1] != " ":
        return False
    m = _LAST_WORD_RE.search(text, 0, start - 1)
    return m is not None and _is_entity_like(m.group(), text, m.start())


# ---------------------------------------------------------------------------------------------
# Index
# ---------------------------------------------------------------------------------------------


def _measures(unit: frozenset[str]) -> dict[str, tuple[str, str]]:
    """dimension → (the unit, the word naming it) for the units of measure among a quantity's
    following words: {"7", "kilometres"} → {"length": ("km", "kilometre")}."""
    return {UNITS[w][0]: (UNITS[w][1], w) for w in sorted(unit) if w in UNITS}


@dataclass(frozen=True)
class _Quantity:
    """A number mention with the content words right after it ("7 albums" → {"album"}),
    whether the text hedges it ("about 7 albums"; years are never hedged) and whether that
    hedge bounds it from one side (``bound``: "lower" for "over 7 albums", "upper" for
    "under 7")."""

    mention: NumberMention
    unit: frozenset[str]
    hedged: bool = False
    bound: Literal["lower", "upper"] | None = None


@dataclass
class _Analysis:
    """One text taken apart: its tokens, numbers outside dates, dates, per token whether it
    lies outside every number and date (``free``), and the values it states with their units
    (``measures``, see :mod:`enoki_hd.verify.quantities`; found on first use — a long context
    is often asked for none)."""

    text: str
    tokens: list[Span]
    quantities: list[_Quantity]
    dates: list[DateMention]
    free: list[bool]

    @functools.cached_property
    def measures(self) -> list[Measure]:
        """The values with units the text states, a composite one hedged when a hedge stands
        before it."""
        return [
            dataclasses.replace(measure, hedged=_hedged(self.text, measure.start))
            if measure.composite and not measure.hedged
            else measure
            for measure in find_measures(
                self.text, [(q.mention, q.hedged) for q in self.quantities]
            )
        ]


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
        hyphened = set(_hyphened_words(text, tokens, starts, mention.span))
        unit.update(hyphened)
        k = bisect.bisect_left(starts, mention.span.end)
        for token in tokens[k : k + 2]:
            word = token.text(text)
            if not free[k] or not _WORD_RE.match(word) or normalize_term(word) in STOP_WORDS:
                break
            if not (hyphened & UNITS.keys() and normalize_term(word) in UNITS):
                # the noun after "40-hour" is what the measure qualifies: "a 40-hour week"
                # is 40 hours, not 40 weeks
                unit.add(normalize_term(word))
            k += 1
        hedged = mention.kind not in ("year", "time") and _hedged(text, mention.span.start)
        bound = _bound(text, mention.span.start) if hedged else None
        quantities.append(_Quantity(mention, frozenset(unit), hedged, bound))
    return _Analysis(text, tokens, quantities, dates, free)


def _hyphened_parts(text: str, token: Span, span: Span) -> list[str]:
    """The parts hyphened after the number at ``span`` inside ``token`` ("mile" of "7-mile",
    "year" and "old" of "three-year-old"); [] when the token ends with the number."""
    if token.end <= span.end or not _HYPHENS_RE.match(text, span.end):
        return []
    return _HYPHENS_RE.split(text[span.end + 1 : token.end])


def _hyphened_words(text: str, tokens: list[Span], starts: list[int], span: Span) -> Iterator[str]:
    """The content words hyphened to the number at ``span`` within its token ("mile" of
    "7-mile", "year" and "old" of "three-year-old"): its unit, as "kilometres" is of "7
    kilometres"."""
    k = bisect.bisect_right(starts, span.start) - 1
    for part in _hyphened_parts(text, tokens[k], span) if k >= 0 else []:
        term = normalize_term(part)
        if part and _WORD_RE.match(part) and term not in STOP_WORDS:
            yield term


def _compound_rests(text: str, analysis: _Analysis) -> Iterator[tuple[Span, str]]:
    """(token, word) for each word hyphened after the number that starts a token ("largest"
    of "second-largest", "hitter" of "3-hitter"), up to a unit of measure: the quantity
    compares the unit ("7-mile" against "7 kilometres"), and the words after it say what the
    measure is ("old" of "10-year-old", "long" of "5-km-long")."""
    starts = {q.mention.span.start: q.mention.span for q in analysis.quantities}
    for token, free in zip(analysis.tokens, analysis.free, strict=True):
        span = starts.get(token.start)
        if free or span is None:
            continue
        for part in _hyphened_parts(text, token, span):
            if is_unit_word(part):
                break
            if part and _WORD_RE.match(part) and normalize_term(part) not in STOP_WORDS:
                yield token, part


def _hedged(text: str, start: int) -> bool:
    """Whether a hedge ("about", "nearly", ...) stands right before ``start``."""
    return bool(_HEDGE_RE.search(text, max(0, start - _HEDGE_LOOKBACK), start))


def _bound(text: str, start: int) -> Literal["lower", "upper"] | None:
    """The side a hedge right before ``start`` bounds its number from ("over" → "lower",
    "under" → "upper"), or None ("about", "nearly": both sides)."""
    window = max(0, start - _HEDGE_LOOKBACK)
    if _LOWER_BOUND_RE.search(text, window, start):
        return "lower"
    if _UPPER_BOUND_RE.search(text, window, start):
        return "upper"
    return None


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
    "time": "time",
}
_DATE_FIELDS = ("year", "month", "day")
_PERIOD_FIELDS = ("year", "quarter")
_CENTURY_YEARS = 100
_HALF_DAY = 12 * 60
_TWELVE_HOUR_CLOCK_RE = re.compile(r"(?:1[0-2]|[1-9]):\d\d?$")


def _bounds(value: float, tolerance: float) -> tuple[float, float]:
    """The values within ``tolerance`` (relative) of ``value``, as (lowest, highest)."""
    low, high = value * (1 - tolerance), value / (1 - tolerance)
    return (low, high) if low <= high else (high, low)


def _readings(mention: NumberMention) -> tuple[float, ...]:
    """The values ``mention`` may stand for: a time of day without "a.m."/"p.m." written on
    a 12-hour clock ("3:00") is 3 a.m. or 3 p.m.; any other mention has its one value."""
    if mention.kind == "time" and _TWELVE_HOUR_CLOCK_RE.match(mention.text):
        return (mention.value, (mention.value + _HALF_DAY) % (2 * _HALF_DAY))
    return (mention.value,)


def _calendar_year(date: DateMention) -> int | None:
    """The calendar year a date falls in: none for a decade, century or fiscal period."""
    if date.kind in ("decade", "century") or date.fiscal:
        return None
    return date.year


def _family(date: DateMention) -> tuple[str, bool]:
    """Dates of one family can contradict each other: calendar dates, decades, centuries,
    calendar quarters, fiscal quarters, fiscal years."""
    kind = "calendar" if date.kind in ("day", "month") else date.kind
    return kind, date.fiscal


def _date_fields(date: DateMention) -> tuple[str, ...]:
    """The fields ``date`` states."""
    names = _PERIOD_FIELDS if date.kind == "quarter" else _DATE_FIELDS
    return tuple(f for f in names if getattr(date, f) is not None)


def _period_keys(date: DateMention) -> Iterator[tuple[Any, ...]]:
    """Keys of the quarters and fiscal years ``date`` lies in (with and without the year): a
    day or month dates its calendar quarter ("15 August 2024" → Q3 2024)."""
    if date.kind == "quarter":
        yield "quarter", date.fiscal, date.year, date.quarter
        yield "quarter", date.fiscal, None, date.quarter
        if date.fiscal and date.year is not None:
            yield "fiscal_year", date.year
    elif date.kind == "fiscal_year":
        yield "fiscal_year", date.year
    elif date.month is not None and not date.swappable:
        quarter = (date.month - 1) // 3 + 1
        yield "quarter", False, date.year, quarter
        yield "quarter", False, None, quarter


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
    """Every (year, month, day) tuple this date agrees with, unknown fields as None; for a
    swappable date ("3/5/1921"), those of both readings."""
    readings = [(date.year, date.month, date.day)]
    if date.swappable:
        readings.append((date.year, date.day, date.month))
    for fields in readings:
        known = [i for i, v in enumerate(fields) if v is not None]
        for mask in range(1 << len(known)):
            key = list(fields)
            for bit, i in enumerate(known):
                if mask >> bit & 1:
                    key[i] = None
            yield tuple(key)


# A table's declared scale: "(in thousands)", "($ in millions)", "(€ thousands)", "(in millions
# of dollars)", "all amounts in thousands of euros". Prose declares nothing: "sold in millions"
# or "(millions of people were displaced)" — the phrase must be "(in …", a currency and the scale
# alone in parentheses, or follow "amounts", "figures", "values" or "numbers".
_CURRENCY_MARK = r"[$€£]|usd|eur|gbp"
_SCALE_WORD = r"thousands?|millions?|billions?"
_DECLARED_SCALE_RE = re.compile(
    rf"(?:\(\s*(?:(?P<symbol>{_CURRENCY_MARK})\s*)?in\s+(?P<scale>{_SCALE_WORD})\b"
    rf"|\(\s*(?P<symbol_alone>{_CURRENCY_MARK})\s*(?P<scale_alone>{_SCALE_WORD})\s*(?=\))"
    r"|\b(?:amounts|figures|values|numbers)\s+(?:are\s+)?"
    rf"(?:(?:stated|given|shown|expressed|reported)\s+)?in\s+(?P<scale_said>{_SCALE_WORD})\b)"
    r"(?:\s+of\s+(?P<word>euros?|dollars?|pounds?))?",
    re.IGNORECASE,
)
_DECLARED_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9}
_PLAIN_AMOUNT_RE = re.compile(r"[$€£]?\s?\d[\d,]*(?:\.\d+)?")


@dataclass(frozen=True)
class ScaledNumber:
    """A plain number of a text under a declared scale: "48,300" after "(all amounts in
    thousands of euros)" is ``value`` 48,300,000, ``currency`` "euro" (None when the
    declaration names none)."""

    span: Span
    value: float
    currency: str | None


def scaled_numbers(text: str) -> list[ScaledNumber]:
    """The plain numbers of ``text`` that a declared scale before them multiplies
    (:data:`_DECLARED_SCALE_RE`), up to the next blank line: a table's figures under its "(in
    thousands)". A year, percentage, date or a number written with its own scale word is never
    one. Empty when ``text`` declares no scale."""
    return _scaled(text, None)


def _scaled(text: str, quantities: list[_Quantity] | None) -> list[ScaledNumber]:
    """:func:`scaled_numbers`, given ``text``'s quantities when they are at hand (None: read
    them, only when ``text`` declares a scale)."""
    declarations = list(_DECLARED_SCALE_RE.finditer(text))
    if not declarations:
        return []
    found: list[ScaledNumber] = []
    if quantities is None:
        quantities = _analyse(text).quantities
    for k, m in enumerate(declarations):
        word = m.group("scale") or m.group("scale_alone") or m.group("scale_said")
        scale = _DECLARED_SCALES[word.lower().rstrip("s")]
        said = m.group("symbol") or m.group("symbol_alone") or m.group("word")
        currency = currency_of(said) if said else None
        # the table ends at a blank line or where another scale is declared
        end = text.find("\n\n", m.end())
        end = len(text) if end < 0 else end
        if k + 1 < len(declarations):
            end = min(end, declarations[k + 1].start())
        for q in quantities:
            mention = q.mention
            if not m.end() <= mention.span.start < end or mention.kind not in ("number", "money"):
                continue
            if not _PLAIN_AMOUNT_RE.fullmatch(mention.text) or _measures(q.unit):
                continue  # "48.3 million", "5 kg": a scale or unit of its own
            own = currency_of(mention.text) if mention.kind == "money" else None
            found.append(ScaledNumber(mention.span, mention.value * scale, own or currency))
    return found


class GroundingIndex:
    """What a context (and optionally the question) offers to ground an answer: built once,
    in one pass over the text, then queried by :func:`ground` for every fact.

    Attributes:
        words: normalized (:func:`normalize_term`) words of the context, hyphenated words
            also split into parts and written solid, dotted initialisms written solid ("U.S."
            as "us"); numbers and dates are not in it.
        acronyms: the acronyms the context writes, lower-case ("us" for "US" or "U.S.").
        initials: the initials of the context's names, lower-case (:func:`_name_initials`:
            "nasa" for "National Aeronautics and Space Administration").
        numbers: the context's :class:`NumberMention` s outside dates, in order.
        dates: the context's :class:`DateMention` s, in order.
        question: an index of the question, consulted for finding units only — never as
            evidence of a mismatch; None without a question.

    Building scans the text a fixed number of times with regular expressions and a token
    loop, so time and memory grow linearly with the context (1 MB contexts are fine); the
    scans for units, names' initials and roman numerals wait for the first fact that needs
    them (about 45 ms for a 50,000-character context, against 80 ms scanning everything at once
    and without the patterns' first-character lookaheads).
    """

    def __init__(self, context: str, question: str | None = None) -> None:
        if not isinstance(context, str):
            raise TypeError(f"context must be a str, got {type(context).__name__}")
        if question is not None and not isinstance(question, str):
            raise TypeError(f"question must be a str or None, got {type(question).__name__}")
        started = time.perf_counter()
        analysis = _analyse(context)
        words: set[str] = set()
        # acronyms the context writes ("US", "U.S.") and those its names spell ("United
        # States"): an answer may write either for the other
        acronyms: set[str] = set()
        date_spans = [d.span for d in analysis.dates]
        for token, free in zip(analysis.tokens, analysis.free, strict=True):
            word = token.text(context)
            if is_acronym(word):
                acronyms.add(word.lower())
            if free:
                words.add(normalize_term(word))
                if _has_hyphen(word):
                    words.update(_word_parts(word))
                    words.add(_joined(word))  # "e-mail" is written "email" too
            elif word.isalpha() and _inside(token, date_spans):
                # the month of a date is still a word the context writes: "April" of "born on
                # April 8" is found for a fact that stops at "born on April"
                words.add(normalize_term(word))
        # a listing's CamelCase keys ('OutdoorSeating': True) write their words
        for key in _LISTING_KEY_RE.findall(context):
            if _CAMEL_CASE_RE.fullmatch(key):
                words.update(_camel_parts(key))
        # "largest" of "second-largest": a word the context writes, beside its count
        words.update(normalize_term(part) for _, part in _compound_rests(context, analysis))
        dotted = _dotted(context)
        words.update(normalize_term(letters) for _, letters in dotted)  # "U.S." is "US"
        acronyms.update(letters.lower() for _, letters in dotted)
        self.acronyms: frozenset[str] = frozenset(acronyms)
        for date in analysis.dates:
            if date.month is not None and date.kind in ("day", "month") and not date.swappable:
                # "Nov 14, 2018" and "2018-11-14" write November: "in November" is found
                words.add(normalize_term(_MONTH_NAMES[date.month - 1]))
        self.words: frozenset[str] = frozenset(words)
        self.numbers: tuple[NumberMention, ...] = tuple(q.mention for q in analysis.quantities)
        self.dates: tuple[DateMention, ...] = tuple(analysis.dates)
        self.question: GroundingIndex | None = (
            GroundingIndex(question) if question is not None else None
        )
        self._context = context
        self._analysis = analysis
        self._quantities = analysis.quantities
        values: dict[str, list[float]] = {"count": [], "percent": [], "ordinal": [], "time": []}
        years: set[int] = set()
        for q in analysis.quantities:
            m = q.mention
            values[_VALUE_GROUPS[m.kind]].extend(_readings(m))
            if m.kind == "time":  # "closes at 3" is found in "closes at 3 p.m."
                values["count"].extend(float(n.group()) for n in _PLAIN_DIGITS_RE.finditer(m.text))
            if m.kind in ("year", "number") and m.value.is_integer():
                years.add(int(m.value))
        # a table's figures under its declared scale are found at that scale too: "48,300"
        # under "(all amounts in thousands of euros)" for "48.3 million euros"
        values["count"].extend(n.value for n in _scaled(context, analysis.quantities))
        self._values = {group: sorted(v) for group, v in values.items()}
        self._date_keys = {
            key for d in analysis.dates if d.kind in ("day", "month") for key in _date_keys(d)
        }
        self._period_keys = {key for d in analysis.dates for key in _period_keys(d)}
        # "on Election Day, November 2" in a text that gives its year elsewhere
        self._yearless_days = {
            (d.month, d.day) for d in analysis.dates if d.kind == "day" and d.year is None
        }
        years.update(y for d in analysis.dates if (y := _calendar_year(d)) is not None)
        self._years = frozenset(years)
        self._decades = frozenset(d.year for d in analysis.dates if d.kind == "decade")
        self._centuries = frozenset(d.year for d in analysis.dates if d.kind == "century")
        logger.debug(
            "grounding index of %d chars: %d words, %d numbers, %d dates in %.3f s",
            len(context),
            len(self.words),
            len(self.numbers),
            len(self.dates),
            time.perf_counter() - started,
        )

    # What only some facts ask for is found on first use: a fact with a unit, an acronym or a
    # roman numeral is rare, and each scan is milliseconds on a long context.

    @functools.cached_property
    def initials(self) -> frozenset[str]:
        """The initials of the context's names, lower-case (:func:`_name_initials`: "nasa"
        for "National Aeronautics and Space Administration")."""
        return frozenset(
            initials for _, initials in _name_initials(self._context, self._analysis.tokens)
        )

    @functools.cached_property
    def _measures(self) -> dict[str, list[Measure]]:
        """dimension → the context's measures of it, in order."""
        measures: dict[str, list[Measure]] = {}
        for measure in self._analysis.measures:
            measures.setdefault(measure.dimension, []).append(measure)
        return measures

    @functools.cached_property
    def _romans(self) -> frozenset[int]:
        """The values of the roman numerals after the context's names ("Henry VIII": 8)."""
        return frozenset(_romans_after_names(self._context).values())

    def _sources(self) -> Iterator[GroundingIndex]:
        yield self
        if self.question is not None:
            yield self.question

    def has_word(self, word: str) -> bool:
        """Whether the raw ``word`` (normalized here) occurs in the context or the question —
        or, when hyphenated, the word written solid ("co-operate" as "cooperate") or each of
        its content parts; a word the context hyphenates is found written solid too."""
        key = normalize_term(word)
        hyphened = _HYPHENS_RE.search(word) is not None
        parts = _word_parts(word) if hyphened else []
        joined = _joined(word) if hyphened else key  # "co-operate" is written "cooperate" too
        for source in self._sources():
            if key in source.words or joined in source.words:
                return True
            if parts and all(p in source.words for p in parts):
                return True
        return False

    @functools.cached_property
    def _verb_roots(self) -> frozenset[str]:
        """The verbs the context's lower-case words are forms of (:func:`verb_roots`); found
        on first use."""
        return frozenset(root for word in self.words for root in verb_roots(word))

    def has_word_form(self, word: str) -> bool:
        """Whether the lower-case ``word`` is another form of a verb the context or the
        question writes ("walked" for "walks", "participated" for "to participate", "sang"
        for "singing"); a capitalised word (a name) never is."""
        roots = verb_roots(word)
        return bool(roots) and any(roots & source._verb_roots for source in self._sources())

    def spells(self, acronym: str) -> bool:
        """Whether a name of the context or the question has ``acronym``'s letters as its
        initials ("US" for "the United States", "NASA" for "National Aeronautics and Space
        Administration")."""
        key = acronym.replace(".", "").lower()
        return any(key in source.initials for source in self._sources())

    def abbreviates(self, initials: str) -> bool:
        """Whether the context or the question writes the acronym ``initials`` (lower-case)
        stands for ("us" when it writes "US" or "U.S.")."""
        return any(initials in source.acronyms for source in self._sources())

    def has_number(
        self, mention: NumberMention, *, hedged: bool = False, signed: bool = False
    ) -> bool:
        """Whether a number of a compatible kind with the same value occurs (context or
        question). Years match years anywhere (dates included) exactly; ``hedged`` other
        numbers match within :data:`HEDGE_TOLERANCE`. Year, plain number and money values are
        interchangeable; percents, ordinals and times of day only match their own kind. The
        sign counts only when ``signed``: a text often says a minus in words ("fell 5%" for
        "-5%", "a loss of $3m"), a temperature never ("-5 °C" is not "5 °C")."""
        readings = _readings(mention)
        if not signed and mention.kind != "time":
            readings = (mention.value, -mention.value)
        for source in self._sources():
            if mention.kind == "year" and mention.value.is_integer():
                if int(mention.value) in source._years:
                    return True
                continue
            tolerance = HEDGE_TOLERANCE if hedged and mention.kind != "time" else 1e-9
            values = source._values[_VALUE_GROUPS[mention.kind]]
            for reading in readings:
                low, high = _bounds(reading, tolerance)
                k = bisect.bisect_left(values, low)
                if k < len(values) and values[k] <= high:
                    return True
        return False

    def has_roman(self, value: float) -> bool:
        """Whether a roman numeral of ``value`` follows a capitalised word ("Henry VIII" for
        8) in the context or the question."""
        return any(value in source._romans for source in self._sources())

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

    def rival_rate(self, measure: Measure) -> str | None:
        """Surface text of this text's nearest-valued rate of ``measure``'s dimension when
        ``measure`` is a rate ("10 mg per day": mass/time) and none of them has its value ("10
        mg per week"), else None. The question is never consulted."""
        if "/" not in measure.dimension:
            return None
        others = self._measures.get(measure.dimension, [])
        if not others or any(same_value(measure, other) for other in others):
            return None
        return min(others, key=lambda m: abs(m.values[0] - measure.values[0])).text

    def has_date(self, date: DateMention) -> bool:
        """Whether a date agreeing on every field ``date`` states occurs (context or question).
        "March 2021" is found in "15 March 2021", not the reverse; a decade is found in the
        same decade or any year inside it; a century in the same century or any decade or
        year inside it; a quarter in the same quarter, or a day or month inside it (calendar
        quarters only); a fiscal year in the same fiscal year or a quarter of it. A swappable
        date ("3/5/1921") is found when either reading is. A day with its year ("November 2,
        2004") is also found in the same day written without a year ("November 2") when the
        text states that year somewhere (news pages date themselves once, in a header), and a
        month with its year ("November 2004") in a day of that month so written."""
        for source in self._sources():
            if date.kind in ("decade", "century"):
                assert date.year is not None
                inside = range(date.year, date.year + (10 if date.kind == "decade" else 100))
                spans = source._decades if date.kind == "decade" else source._centuries
                if date.year in spans or any(y in source._years for y in inside):
                    return True
                if date.kind == "century" and any(d in inside for d in source._decades):
                    return True
            elif date.kind in ("quarter", "fiscal_year"):
                if next(_period_keys(date)) in source._period_keys:
                    return True
            elif source._has_calendar_date(date):
                return True
        return False

    def _has_calendar_date(self, date: DateMention) -> bool:
        """:meth:`has_date` for a day or a month, in this index alone."""
        if (date.year, date.month, date.day) in self._date_keys or (
            date.swappable and (date.year, date.day, date.month) in self._date_keys
        ):
            return True
        if date.swappable or date.year not in self._years:
            return False
        if date.kind == "day":
            return (date.month, date.day) in self._yearless_days
        return date.kind == "month" and any(m == date.month for m, _ in self._yearless_days)

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
                (year, d.text) for d in self.dates if (year := _calendar_year(d)) is not None
            ]
        candidates += [(q.mention.value, q.mention.text) for q in self._of_kind(mention, unit)]
        if not candidates:
            return None
        return min(candidates, key=lambda c: abs(c[0] - mention.value))[1]

    def _of_kind(self, mention: NumberMention, unit: frozenset[str]) -> list[_Quantity]:
        """This text's quantities of ``mention``'s kind, as :meth:`rival_number` reads kinds
        (``unit``: the content words after ``mention``)."""
        return [
            q
            for q in self._quantities
            if q.mention.kind == mention.kind
            and (
                q.mention.kind not in ("number", "ordinal")
                or bool(unit & q.unit)
                or ((not unit or not q.unit) and _same_digit_count(q.mention, mention))
            )
        ]

    def within_bound(self, quantity: _Quantity) -> bool:
        """Whether ``quantity`` is bounded from one side ("over 250 languages") and this text
        states a value of its kind (:meth:`rival_number`'s kinds) on that side ("300
        languages"), so that no value of this text contradicts it."""
        values = [q.mention.value for q in self._of_kind(quantity.mention, quantity.unit)]
        if quantity.bound == "lower":
            return any(value >= quantity.mention.value for value in values)
        if quantity.bound == "upper":
            return any(value <= quantity.mention.value for value in values)
        return False

    def _same_value(self, quantity: _Quantity, hedged: bool) -> list[_Quantity]:
        """This text's quantities of ``quantity``'s value (within 2% when ``hedged``)."""
        tolerance = HEDGE_TOLERANCE if hedged else 1e-9
        value, group = quantity.mention.value, _VALUE_GROUPS[quantity.mention.kind]
        low, high = _bounds(value, tolerance)
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
        """Surface text of the context's nearest date of ``date``'s family stating every field
        ``date`` states, or None: a day or month against calendar dates, a decade against
        decades, a century against centuries, a quarter against quarters (calendar against
        calendar, fiscal against fiscal), a fiscal year against fiscal years. The question is
        never consulted."""
        fields = _date_fields(date)
        candidates = [
            d
            for d in self.dates
            if _family(d) == _family(date) and all(getattr(d, f) is not None for f in fields)
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
    roman: int | None = None
    worded: bool = False  # a value written in words alone ("a quarter of", "half an hour")


@functools.cache
def _english_words() -> frozenset[str]:
    """The English lexicon of the language check (the shared spaCy pipeline's lemmatizer
    tables, loaded once); empty when spaCy or its model is missing."""
    try:
        from enoki_hd.extract.rules.language import english_lexicon
        from enoki_hd.text import DEFAULT_SPACY_MODEL, load_spacy_pipeline

        return english_lexicon(load_spacy_pipeline(DEFAULT_SPACY_MODEL))
    except (ImportError, OSError):
        return frozenset()


def is_plain_word(word: str) -> bool:
    """Whether a capitalised ``word`` could be an ordinary English word written at a
    sentence's start ("Agriculture", "Cars"), where a capital says nothing about a name: no
    inner capital ("NASA", "iPhone") and, lower-cased, a word of the English lexicon or a
    regular inflection of one, or shorter than four letters (:func:`_is_unknown_word`)."""
    return not any(c.isupper() for c in word[1:]) and not _is_unknown_word(word.lower())


_INFLECTIONS = ("s", "es", "ed", "d", "ing", "ly", "er", "est")


def _is_unknown_word(word: str) -> bool:
    """A lower-case ASCII word of four letters or more that neither the English lexicon nor a
    regular inflection of one of its words explains ("cerasi", "robur"; not "tourists",
    "stopped")."""
    if not (len(word) >= 4 and word.isascii() and word.isalpha() and word.islower()):
        return False
    lexicon = _english_words()
    if not lexicon or word in lexicon:
        return False
    for suffix in _INFLECTIONS:
        if not word.endswith(suffix):
            continue
        stem = word[: -len(suffix)]
        if (
            stem in lexicon
            or stem + "e" in lexicon
            or (len(stem) > 2 and stem[-1] == stem[-2] and stem[:-1] in lexicon)
            or (stem.endswith("i") and stem[:-1] + "y" in lexicon)
        ):
            return False
    return True


@functools.cache
def _verb_tables() -> tuple[frozenset[str], dict[str, tuple[str, ...]]]:
    """The verbs of the shared spaCy pipeline's lemmatizer tables and its irregular verb forms
    (form → lemmas: "went" → ("go",)); empty when spaCy or its model is missing."""
    try:
        from enoki_hd.text import DEFAULT_SPACY_MODEL, load_spacy_pipeline

        nlp = load_spacy_pipeline(DEFAULT_SPACY_MODEL)
    except (ImportError, OSError):
        return frozenset(), {}
    lookups = (
        getattr(nlp.get_pipe("lemmatizer"), "lookups", None) if nlp.has_pipe("lemmatizer") else None
    )
    key = nlp.vocab.strings["verb"]
    verbs: frozenset[str] = frozenset()
    irregular: dict[str, tuple[str, ...]] = {}
    if lookups is not None and lookups.has_table("lemma_index"):
        index = lookups.get_table("lemma_index")
        if key in index:
            verbs = frozenset(w.lower() for w in index[key])
    if lookups is not None and lookups.has_table("lemma_exc"):
        exceptions = lookups.get_table("lemma_exc")
        if key in exceptions:
            irregular = {form.lower(): tuple(lemmas) for form, lemmas in exceptions[key].items()}
    return verbs, irregular


# (ending, what replaces it) of a verb's regular forms: "walked", "carrying", "studies"
_VERB_FORMS = (
    ("ing", ""), ("ing", "e"), ("ed", ""), ("ed", "e"), ("d", ""), ("es", ""), ("s", ""),
    ("ied", "y"), ("ies", "y"),
)  # fmt: skip


@functools.lru_cache(maxsize=65536)
def verb_roots(word: str) -> frozenset[str]:
    """The verbs a lower-case ``word`` is a form of ("walked", "walks", "walking" →
    {"walk"}; "went" → {"go"}; "studies" → {"study"}), by the regular endings and the
    lemmatizer's irregular forms; empty for any other word, a noun made from a verb included
    ("registration", "appearance": such a noun is often another thing than its verb,
    "station" is no form of "state"), or without the lemmatizer's tables. What
    :meth:`GroundingIndex.has_word_form` matches on."""
    verbs, irregular = _verb_tables()
    if not verbs or len(word) < 4 or not word.isalpha() or not word.islower():
        return frozenset()
    roots = {word} & verbs
    roots.update(irregular.get(word, ()))
    for ending, replacement in _VERB_FORMS:
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            stem = word[: -len(ending)]
            roots.update({stem + replacement} & verbs)
            if len(stem) > 3 and stem[-1] == stem[-2] and stem[:-1] in verbs:
                roots.add(stem[:-1])  # "stopped", "planning"
    return frozenset(roots)


def _units(text: str, written: Written | None = None) -> list[_Unit]:
    """Distinct units of ``text`` in order: dates, numbers outside dates, content words outside
    both. A word weighs as a name by where it was ``written`` (None: in ``text``)."""
    analysis = _analyse(text)
    found: list[tuple[int, _Unit]] = []
    for date in analysis.dates:
        key: tuple[Any, ...] = (
            "date",
            date.kind,
            date.year,
            date.month,
            date.day,
            date.quarter,
            date.fiscal,
            date.swappable,
        )
        found.append((date.span.start, _Unit(key, date.text, 2, date=date, spans=(date.span,))))
    measures = {m.start: m for m in analysis.measures if not m.composite}
    romans = _romans_after_names(text)
    # a value written with words around its numbers ("one in five", "1 hour 45 minutes") is
    # one unit, its numbers no units of their own
    composites = [
        m
        for m in analysis.measures
        if m.composite and any(m.start <= q.mention.span.start < m.end for q in analysis.quantities)
    ]
    # a fraction written in words alone ("a quarter of", "half an hour"): its words are found
    # as words or as the value stated another way ("25%", "30 minutes")
    # a value written in words alone ("a quarter of", "half an hour") is one unit too, found
    # as its words or as the value stated another way ("25%", "30 minutes")
    worded: list[Measure] = []
    for measure in sorted(analysis.measures, key=lambda x: (x.start, x.start - x.end)):
        if (
            measure.composite
            and not any(measure is c for c in composites)
            and not any(w.start <= measure.start < w.end for w in worded)  # the longest only
        ):
            worded.append(measure)
    for measure in worded:
        key = ("measure", measure.dimension, measure.values)
        span = Span(measure.start, measure.end)
        unit = _Unit(key, measure.text, 1, measure=measure, spans=(span,), worded=True)
        found.append((measure.start, unit))
    for measure in composites:
        key = ("measure", measure.dimension, measure.values)
        span = Span(measure.start, measure.end)
        unit = _Unit(key, measure.text, 2, measure=measure, hedged=measure.hedged, spans=(span,))
        found.append((measure.start, unit))
    compounds = {token.start: token for token, _ in _compound_rests(text, analysis)}
    for q in analysis.quantities:
        m = q.mention
        if any(c.start <= m.span.start < c.end for c in composites):
            continue
        if written is not None and not q.hedged and m.kind not in ("year", "time"):
            # a refinement's delta holds the number, not the hedge the answer writes before
            # it ("over" of "over 250 languages"): read the hedge where it was written
            source, at = written(m.span.start)
            if _hedged(source, at):
                q = dataclasses.replace(q, hedged=True, bound=_bound(source, at))
        key = ("number", _VALUE_GROUPS[m.kind], m.value)
        # a count that heads a compound is blamed with it: "second-largest", "three-hitter"
        compound = compounds.get(m.span.start)
        unit = _Unit(
            key,
            m.text,
            2,
            number=q,
            measure=measures.get(m.span.start),
            hedged=q.hedged,
            spans=(m.span if compound is None else Span(m.span.start, compound.end),),
        )
        found.append((m.span.start, unit))
    for token, part in _compound_rests(text, analysis):
        # "largest" of "second-largest" is checked as a word, the count as a number
        term = normalize_term(part)
        found.append((token.start, _Unit(("word", term), term, 1, word=part, spans=(token,))))
    dotted = _dotted(text)
    for span, letters in dotted:
        # "U.S." is one word, "US", weighed as a name; its letters are no words of their own
        term = normalize_term(letters)
        found.append((span.start, _Unit(("word", term), term, 2, word=letters, spans=(span,))))
    for token, free in zip(analysis.tokens, analysis.free, strict=True):
        word = token.text(text)
        if not free or not _WORD_RE.search(word):
            continue
        if any(span.start <= token.start < span.end for span, _ in dotted):
            continue
        term = normalize_term(word)
        if _is_function_word(word, term):
            continue
        source, at = written(token.start) if written is not None else (text, token.start)
        weight = 2 if _is_entity_like(word, source, at) else 1
        if (
            weight == 1
            and word[:1].islower()
            and _is_unknown_word(word)
            and _follows_name(source, at)
        ):
            # a word no dictionary knows right after a name is part of it: the epithet of
            # "Acraspis cerasi", "Quercus robur"
            weight = 2
        if any(m.start <= token.start < m.end for m in (*worded, *composites)):
            continue  # a word of a value written with words is part of that unit
        roman = romans.get(token.start)
        unit = _Unit(("word", term), term, weight, word=word, spans=(token,), roman=roman)
        found.append((token.start, unit))
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


def _content_words(text: str) -> list[str]:
    """The words of ``text`` that carry something to ground ("a quarter of a mile" →
    ["quarter", "mile"])."""
    words = (t.text(text) for t in tokenize_words(text))
    return [w for w in words if _WORD_RE.search(w) and not _is_function_word(w, normalize_term(w))]


def _rival(unit: _Unit, index: GroundingIndex) -> str | None:
    """Surface text of ``index``'s value that contradicts ``unit``'s number (same kind, or a
    measure of its dimension) or date, or None; None for a word."""
    if unit.number is not None:
        number = unit.number
        if index.within_bound(number):
            # "over 250 languages" against "300 languages": not contradicted, but not the
            # context's number either (absent: unverifiable, as a rounded guess is)
            return None
        rival = index.rival_number(number.mention, number.unit)
        if rival is None and unit.measure is not None:
            rival = index.rival_measure(unit.measure)
        return rival
    if unit.measure is not None:
        return index.rival_measure(unit.measure)
    return index.rival_date(unit.date) if unit.date is not None else None


# Roman numerals of two letters or more right after a capitalised word, as names carry them
# ("World War II", "Henry VIII", "Super Bowl LVIII"; not "your CV", "a DC", "MIX"); never
# compared as numbers, only found as the ordinal they stand for.
_ROMAN_AFTER_NAME_RE = re.compile(r"\b[A-Z][a-z]+[ \u00a0](?P<roman>[IVXLC]{2,})\b")
_ROMAN_RE = re.compile(r"(?=[IVXLC]{2,}$)C{0,3}(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})")
_ROMAN_DIGITS = (
    ("C", 100), ("XC", 90), ("L", 50), ("XL", 40), ("X", 10), ("IX", 9), ("V", 5), ("IV", 4),
    ("I", 1),
)  # fmt: skip


def _roman_value(word: str) -> int | None:
    """The value of a roman numeral of two letters or more ("VIII" → 8), or None."""
    if not _ROMAN_RE.fullmatch(word):
        return None
    value, at = 0, 0
    for letters, size in _ROMAN_DIGITS:
        while word.startswith(letters, at):
            value, at = value + size, at + len(letters)
    return value


def _romans_after_names(text: str) -> dict[int, int]:
    """The value of every roman numeral of ``text`` right after a capitalised word, by the
    offset where it starts ("Henry VIII" → {6: 8})."""
    found = {}
    for m in _ROMAN_AFTER_NAME_RE.finditer(text):
        if (value := _roman_value(m.group("roman"))) is not None:
            found[m.start("roman")] = value
    return found


# An era written two ways, in capitals: "44 BC" is "44 BCE", "AD 79" is "79 CE"
_ERAS = {"BC": "bce", "BCE": "bc", "AD": "ce", "CE": "ad", "B.C.": "bce", "A.D.": "ce"}
# Words abbreviated in names and titles, with the words they stand for: "Dr." is "Doctor",
# "St." is "Saint" or "Street", "Mt." is "Mount", "Corp." is "Corporation"
_ABBREVIATED = """dr doctor | prof professor | st saint | st street | mt mount | ft fort |
gen general | gov governor | sen senator | rep representative | pres president |
corp corporation | inc incorporated | ltd limited | univ university | jr junior | sr senior |
ave avenue | rd road | blvd boulevard | dept department | intl international |
natl national | govt government | assn association | approx approximately | vs versus"""


def _aliases(pairs: str) -> dict[str, tuple[str, ...]]:
    """Each word of ``pairs`` ("short long | ...") → the words it pairs with, both ways."""
    aliases: dict[str, tuple[str, ...]] = {}
    for pair in pairs.split("|"):
        short, long = pair.split()
        aliases[short] = (*aliases.get(short, ()), long)
        aliases[long] = (*aliases.get(long, ()), short)
    return aliases


_ALIASES = _aliases(_ABBREVIATED)


def _other_names(word: str) -> list[str]:
    """The other names of ``word``: an era's in capitals ("BC" → ["bce"]), an abbreviation's
    full words ("Dr" → ["doctor"], "St" → ["saint", "street"]) and the reverse ("Mount" →
    ["mt"]); [] for any other word."""
    other = _ERAS.get(word)
    return [other] if other is not None else list(_ALIASES.get(normalize_term(word), ()))


def _is_found(unit: _Unit, index: GroundingIndex) -> bool:
    if unit.word is not None:
        if unit.roman is not None:
            # "World War II" for "the Second World War"
            ordinal = NumberMention(unit.spans[0], float(unit.roman), "ordinal", unit.word)
            if index.has_number(ordinal):
                return True
        # "km" for "kilometres", "CA" for "California", "BCE" for "BC", "Dr" for "Doctor"
        others = unit_names(unit.word) + place_names(unit.word) + _other_names(unit.word)
        if index.has_word(unit.word) or any(map(index.has_word, others)):
            return True
        if index.has_word_form(unit.word):  # "walked" for "walks", "sang" for "singing"
            return True
        return is_acronym(unit.word) and index.spells(unit.word)  # "US": "United States"
    if unit.number is not None:
        if unit.measure is not None and index.has_measure(unit.measure):
            return True
        mention = unit.number.mention
        if mention.text.isalpha() and index.has_word(mention.text):
            return True  # "one" of "ranks as one of the most": the context's word, not a count
        if mention.kind == "ordinal" and index.has_roman(mention.value):
            return True  # "the Second World War" for "World War II"
        signed = unit.measure is not None and unit.measure.dimension == "temperature"
        return index.has_number(
            unit.number.mention, hedged=unit.hedged, signed=signed
        ) and not index.in_other_dimensions_only(unit.number, hedged=unit.hedged)
    if unit.measure is not None:
        if index.has_measure(unit.measure):
            return True
        # a value in words is found by its words too: "the first half of 2020"
        return unit.worded and all(index.has_word(w) for w in _content_words(unit.label))
    assert unit.date is not None
    return index.has_date(unit.date)


def ground(
    text: str,
    evidence: str | GroundingIndex,
    *,
    question: str | None = None,
    scope: GroundingIndex | None = None,
    written: Written | None = None,
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
        written: where each word of ``text`` was written (:data:`Written`) — for a ``text``
            cut from an answer (a fact's parts), so that a capital that starts the fact but
            not its sentence ("Robertson" of 'a commander named "Robertson" led …') weighs
            as a name, and so does a word no dictionary knows right after a name in the
            answer ("cerasi" of "Acraspis cerasi"); None: judged in ``text`` itself.

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
    kilometres", :meth:`GroundingIndex.rival_measure`). A value written with words around its
    numbers ("one in five", "1 hour 45 minutes", "120 km/h") is one unit, found by its value
    ("20%", "105 minutes", "75 mph"). A minus sign counts for temperatures only (a text may
    say it in words: "fell 5%" for "-5%"). A roman numeral is found as the ordinal it stands
    for ("World War II" in "the Second World War") and never compared as a number.

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
    units = _units(text, written)
    if not units:
        return GroundingResult("empty", 0.0)
    missing: list[str] = []
    missing_names: list[str] = []
    missing_spans: list[Span] = []
    mismatches: list[tuple[str, str]] = []
    missing_weight = 0
    measured: list[tuple[int, int]] = []  # values found with their units, perhaps converted
    # names the context writes as their acronym: "the United States" found as "US"
    sources = [index for index in (evidence, asked, scope) if index is not None]
    abbreviated = (
        [
            (span.start, span.end)
            for span, initials in _name_initials(text, tokenize_words(text), sentence_starts=True)
            if any(index.abbreviates(initials) for index in sources)
        ]
        if any(source.acronyms for index in sources for source in index._sources())
        else []
    )
    for unit in units:
        if unit.word is not None and any(
            start <= span.start and span.end <= end
            for span in unit.spans
            for start, end in measured + abbreviated
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
            if conflict is None and unit.measure is not None:
                # the number is there, in another rate: "10 mg per day" / "10 mg per week"
                rival_rate = evidence.rival_rate(unit.measure)
                if rival_rate is not None and not (
                    asked is not None and asked.has_measure(unit.measure)
                ):
                    conflict = (unit.measure.text, rival_rate)
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


@functools.lru_cache(maxsize=4096)
def _moments_of(text: str) -> tuple[tuple[Span, str, frozenset[tuple[Any, ...]]], ...]:
    """The dates and times of day ``text`` states: (span, surface text, the readings it may
    stand for; two texts state the same date or time when their readings meet)."""
    found: list[tuple[Span, str, frozenset[tuple[Any, ...]]]] = []
    analysis = _analyse(text)
    for date in analysis.dates:
        readings: set[tuple[Any, ...]] = {
            (_family(date), date.year, date.month, date.day, date.quarter)
        }
        if date.swappable:
            readings.add((_family(date), date.year, date.day, date.month, date.quarter))
        found.append((date.span, date.text, frozenset(readings)))
    for q in analysis.quantities:
        if q.mention.kind == "time":
            times = frozenset(("time", reading) for reading in _readings(q.mention))
            found.append((q.mention.span, q.mention.text, times))
    return tuple(found)


def rate_spans(text: str) -> list[Span]:
    """Where ``text`` states a rate ("10 mg per day", "4 hours a week", "5 mg/L"): one span
    per rate, its number and both units."""
    return [Span(m.start, m.end) for m in _measures_of(text) if "/" in m.dimension]


def restate_quantities(premise: str, hypothesis: str) -> str:
    """``premise`` with every value the hypothesis states in other words rewritten in the
    hypothesis's words, so that NLI compares like with like: against "Tamber tent weighs 1.85
    kg", "Each tent weighs 1,850 grams." becomes "Each tent weighs 1.85 kg."; against "takes
    about 90 minutes", "takes 1.5 hours" becomes "takes 90 minutes" (the hedge is the
    hypothesis's own). Dates and times of day too: against "in the third quarter of 2024",
    "in Q3 2024" becomes "in the third quarter of 2024"; against "at 15:00", "at 3 p.m."
    becomes "at 15:00". A value the premise states differently is left alone, so a wrong
    hypothesis stays wrong; so is everything when the hypothesis states no value. Counts and
    amounts under :data:`RESTATED_FROM` keep their words ("three" stays "three" against "3":
    the verifier reads small numbers either way, and a rewritten premise is a new input to it).
    A table's figure under a declared scale (:func:`scaled_numbers`) is restated at that scale
    when the hypothesis states the amount in the currency declared, or a count where none is:
    "Revenue: 48,300" under "(in thousands of euros)" becomes "Revenue: 48.3 million euros".
    """
    wanted = _measures_of(hypothesis)
    moments = _moments_of(hypothesis)
    if not wanted and not moments:
        return premise
    found: list[tuple[int, int, str]] = []
    for measure in _measures_of(premise):
        if measure.is_amount and max(map(abs, measure.values)) < RESTATED_FROM:
            continue
        for target in wanted:
            if same_value(target, measure) and _fold(target.text) != _fold(measure.text):
                said = target.text
                if target.start == 0 and not starts_sentence(premise, measure.start):
                    said = said[:1].lower() + said[1:]  # "A quarter" that opens the hypothesis
                found.append((measure.start, measure.end, said))
                break
    for number in scaled_numbers(premise):
        # a table's "48,300" under "(in thousands of euros)" is "48.3 million euros": said so
        # for an amount in the currency the declaration names, or for a count where it names
        # none ("(in thousands)": 48.3 million visitors)
        for target in wanted:
            currency = target.dimension.partition(":")[2] or None
            if currency != number.currency or not target.dimension.startswith(("money", "count")):
                continue
            if target.is_amount and math.isclose(target.values[0], number.value, rel_tol=1e-9):
                found.append((number.span.start, number.span.end, target.text))
                break
    for span, said, readings in _moments_of(premise):
        for _, target_text, target_readings in moments:
            if readings & target_readings and _fold(target_text) != _fold(said):
                # the dot of "3 p.m." or "Sept." may end the sentence too
                dot = "." if said.endswith(".") and not target_text.endswith(".") else ""
                found.append((span.start, span.end, target_text + dot))
                break
    edits: list[tuple[int, int, str]] = []
    for start, end, said in sorted(found, key=lambda edit: (edit[0], -edit[1])):
        if not edits or start >= edits[-1][1]:  # not inside the previous rewrite
            edits.append((start, end, said))
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
