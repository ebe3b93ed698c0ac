"""One value said two ways: "1.85 kg" and "1,850 grams", "90 minutes" and "1.5 hours", "10
miles" and "16 kilometres", "a quarter" and "25%", "half a million" and "500,000".

A :class:`Measure` is a stated value with what it measures, converted to its dimension's base
unit; :func:`same_value` says whether two measures state the same value, allowing for the
rounding their written precision implies. The grounding check uses it to count a converted
value as found, and the verifier's premises are restated in the hypothesis's words before NLI
(:func:`enoki_hd.verify.grounding.restate_quantities`): a 6-layer NLI model does no arithmetic.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from enoki_hd.text import normalize_term
from enoki_hd.units import (
    FACTORS,
    RATES,
    SLASH_ABBREVIATIONS,
    SQUARE_WORDS,
    SQUARED,
    UNITS,
    to_base,
)

if TYPE_CHECKING:  # grounding imports this module
    from enoki_hd.verify.grounding import NumberMention

ROUNDING_CAP = 0.1
"""Largest relative difference rounding may explain: "7 miles" is "11 km" (rounded to a whole
mile), never more than 10% away."""
PART_OF_UNIT_TOLERANCE = 0.05
"""Relative rounding a fraction of one unit is read with ("a quarter of a mile", 402 m, is
"400 metres"; "half an hour" is not "25 minutes")."""
HEDGE_TOLERANCE = 0.02
"""Relative difference under which a hedged number ("about 1.9 million") is the same value; the
grounding check compares numbers with it too."""


@dataclass(frozen=True)
class Measure:
    """A value a text states, with what it measures.

    Attributes:
        start, end: half-open character offsets into the text of the number with its unit
            ("1.85 kg", "25 degrees Celsius", "25%", "a quarter", "three out of four").
        text: those characters.
        dimension: a dimension of :data:`enoki_hd.units.MEASURES` ("length", "time", ...),
            ``"ratio"`` (percents and fractions), ``"count"`` (a number without a unit of
            measure) or ``"money:<currency>"``.
        values: the value in the dimension's base unit, once per reading of the unit (US and
            imperial gallons); a ratio is a fraction of 1 ("25%" → 0.25).
        step: half a unit of the last digit written, in base units ("10 miles" → 0.5 mile,
            "1.85 kg" → 0.005 kg): how far the true value may lie from a rounded one.
        hedged: the text hedges the value ("about", "roughly", "nearly", ...).
        composite: the value is written with words around its numbers, as one whole: a
            fraction ("a quarter of", "one in five") or a value in two units ("1 hour 45
            minutes"); its numbers are not values of their own.
    """

    start: int
    end: int
    text: str
    dimension: str
    values: tuple[float, ...]
    step: float
    hedged: bool = False
    composite: bool = False

    @property
    def is_amount(self) -> bool:
        """A count or an amount of money: compared exactly (within 2% when hedged)."""
        return self.dimension == "count" or self.dimension.startswith("money:")


def same_value(a: Measure, b: Measure) -> bool:
    """Whether ``a`` and ``b`` state the same value.

    Units of measure and ratios: the difference is at most the rounding step of either (and
    at most :data:`ROUNDING_CAP` of the value; temperatures, on an interval scale, only by the
    step). Counts and amounts: equal, or within :data:`HEDGE_TOLERANCE` when either is hedged,
    as the grounding check compares numbers.
    """
    if a.dimension != b.dimension:
        return False
    for x in a.values:
        for y in b.values:
            diff, size = abs(x - y), max(abs(x), abs(y))
            if diff <= 1e-9 * size:
                return True
            if a.is_amount:
                if (a.hedged or b.hedged) and diff <= HEDGE_TOLERANCE * size:
                    return True
                continue
            if diff <= max(a.step, b.step) * (1 + 1e-9) and (
                a.dimension == "temperature" or diff <= ROUNDING_CAP * size
            ):
                return True
    return False


# ---------------------------------------------------------------------------------------------
# Finding measures
# ---------------------------------------------------------------------------------------------

# Digits as a number mention writes them, grouped by commas or spaces ("1 000 000"); a decimal
# comma ("3,5") reads as grouping here, which gives the same step (35 written for 3.5).
_DIGITS_RE = re.compile(r"\d(?:[,\s]?\d)*(?:\.(\d+))?")
# A unit written after a number: "1.85 kg", "25 degrees Celsius", "5-km", "77 °F"
_WORD_AFTER_RE = re.compile(r"[ \t\u00a0]*[-‐‑]?[ \t\u00a0]*(°\s?[CFK]\b|[^\W\d_]+\.?)")
_GLUED_RE = re.compile(r"([^\W\d_]+)$")
_DEGREE_SIGNS = {"c": "celsius", "f": "fahrenheit", "k": "kelvin"}
# "-5C", "86F": a capital C or F glued to a number is a temperature (never "K": "4K", "10K")
_GLUED_DEGREES = {"C": "celsius", "F": "fahrenheit"}
# A unit per another: "km/h", "mg/dL", "kilometres per hour", "60 miles an hour"
_PER_RE = re.compile(
    r"[ \t]*/[ \t]*(?P<slash>[^\W\d_]+)\b|[ \t]+(?:per|an?)[ \t]+(?P<word>[^\W\d_]+)\b",
    re.IGNORECASE,
)
_SLASH_AFTER_RE = re.compile(r"[ \t]*/")
# "km²", "km2", "m²": a length unit squared by the digit glued to it
_SQUARED_RE = re.compile(r"[²2](?![\w²³])")
# "1 hour 45 minutes", "5 feet and 10 inches": one value in two units, largest first
_COMPOUND_GAP_RE = re.compile(r"[ \t]+(?:and[ \t]+)?")
_COMPOUND_DIMENSIONS = frozenset({"length", "mass", "volume", "time"})
# "3 in 2019" is no ratio: a year is no whole
_YEAR_WHOLE_RE = re.compile(r"1\d{3}|20\d{2}")
_CURRENCIES = {
    "$": "dollar", "us$": "dollar", "usd": "dollar", "dollar": "dollar", "buck": "dollar",
    "€": "euro", "eur": "euro", "euro": "euro", "£": "pound", "gbp": "pound",
    "pound": "pound", "sterling": "pound", "¥": "yen", "jpy": "yen", "yen": "yen",
    "yuan": "yuan", "cny": "yuan", "rmb": "yuan", "rupee": "rupee", "inr": "rupee",
    "franc": "franc", "chf": "franc",
}  # fmt: skip
_CURRENCY_RE = re.compile(r"US\$|[$€£¥]|\b[^\W\d_]+\b")

_AND_A_HALF_RE = re.compile(r"\band\s+a\s+half\b", re.IGNORECASE)
_SCALE_WORDS = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}

_SMALL_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10,
}  # fmt: skip
_PARTS = {
    "half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4, "fifth": 5,
    "fifths": 5, "sixth": 6, "sixths": 6, "seventh": 7, "sevenths": 7, "eighth": 8,
    "eighths": 8, "ninth": 9, "ninths": 9, "tenth": 10, "tenths": 10,
}  # fmt: skip
_WORDS = "|".join(_SMALL_NUMBERS)
# "a quarter of", "two thirds of" (hyphenated fractions are numbers already), "half of/the"
_PART_RE = re.compile(
    rf"\b(?:({_WORDS})[ \t]+)?({'|'.join(_PARTS)})(?=[ \t]+(?:of|the|its|their|all)\b)",
    re.IGNORECASE,
)
# "three out of four", "one in five", "9 in 10", "one in every four"
_OUT_OF_RE = re.compile(
    rf"\b(\d{{1,3}}|{_WORDS})[ \t]+(?:out[ \t]+of|in)[ \t]+(?:every[ \t]+)?"
    rf"(\d{{1,4}}|{_WORDS}|hundred|a[ \t]+hundred|a[ \t]+thousand)\b",
    re.IGNORECASE,
)
_HYPHEN_FRACTION_RE = re.compile(rf"({_WORDS})[-‐‑]({'|'.join(_PARTS)})", re.IGNORECASE)
# a fraction of one unit: "a quarter of a century", "three quarters of an hour", "half an
# hour", "half a mile"
_PART_OF_UNIT_RE = re.compile(
    rf"\b(?:(?:({_WORDS})[ \t]+)?({'|'.join(_PARTS)})[ \t]+of|(half))[ \t]+an?[ \t]+"
    r"([^\W\d_]+)\b",
    re.IGNORECASE,
)


# "an hour and a half", "a decade": one unit written in words (see _one_units)
_ONE_UNIT_RE = re.compile(
    r"\b(a|an|one)[ \t]+([^\W\d_]+)([ \t]+and[ \t]+a[ \t]+half)?\b", re.IGNORECASE
)
# long units of time said without a number: "a decade", "a fortnight" (not "a year": "$50,000
# a year" is a rate)
_SAID_ALONE = frozenset({"decade", "century", "millennium", "fortnight"})
_FREQUENCY_RE = re.compile(r"\b(?:once|twice|thrice|times|per)[ \t]+$", re.IGNORECASE)
# any unit of time measures a relative time: "a year later", "a week ago", "an hour before"
_RELATIVE_AFTER_RE = re.compile(
    r"[ \t]+(?:later|earlier|ago|afterwards?|before|after|beforehand)\b", re.IGNORECASE
)


def _count(word: str) -> int:
    word = " ".join(word.lower().split())
    if word.isdigit():
        return int(word)
    return {"hundred": 100, "a hundred": 100, "a thousand": 1000}.get(word) or _SMALL_NUMBERS[word]


def _step(mention: NumberMention) -> float:
    """Half a unit of the mention's last written digit, in the mention's own unit (a scale
    word counts: "1.9 million" → 50,000; "two million" → 500,000); a quarter of one for a
    value said to the half ("two and a half hours" → 0.25 hour)."""
    if _AND_A_HALF_RE.search(mention.text):
        said = mention.text.lower()
        return 0.25 * max([size for word, size in _SCALE_WORDS.items() if word in said] or [1])
    digits = _DIGITS_RE.search(mention.text)
    if digits is not None:
        written = float(re.sub(r"[,\s]", "", digits.group()))
        scale = abs(mention.value / written) if written else 1.0
        return 0.5 * 10.0 ** -len(digits.group(1) or "") * scale
    value = abs(int(mention.value)) if float(mention.value).is_integer() else 0
    zeros = 0
    while value and value % 10 == 0:
        value //= 10
        zeros += 1
    return 0.5 * 10.0**zeros


def _unit_after(text: str, mention: NumberMention) -> tuple[str, int] | None:
    """(the unit's first name, where its name ends) for a unit of measure right after the
    mention (or glued to it: "1.85kg"), or None."""
    glued = _GLUED_RE.search(mention.text)
    if glued is not None and mention.text[: glued.start()][-1:].isdigit():
        if glued.group(1) in _GLUED_DEGREES:
            return _GLUED_DEGREES[glued.group(1)], mention.span.end
        unit = UNITS.get(normalize_term(glued.group(1))) if glued.group(1) != "G" else None
        return (unit[1], mention.span.end) if unit else None
    position = mention.span.end
    square = False
    for _ in range(2):
        m = _WORD_AFTER_RE.match(text, position)
        if m is None:
            return None
        word = m.group(1)
        if word.startswith("°"):
            return None if square else (_DEGREE_SIGNS[word[-1].lower()], m.end())
        if not square and word.lower().rstrip(".") in SQUARE_WORDS:
            square, position = True, m.end()
            continue
        unit = UNITS.get(normalize_term(word.rstrip("."))) if word != "G" else None  # "5G"
        if unit is None and word.lower() == "m" and _SQUARED_RE.match(text, m.end()):
            unit = ("length", "metre")  # "m²": a metre squared, though "m" alone is no unit
        if unit is not None:
            end = m.end() - (1 if word.endswith(".") else 0)
            squared = _SQUARED_RE.match(text, m.end()) if not word.endswith(".") else None
            if square or squared is not None:
                if unit[0] != "length" or unit[1] not in SQUARED:
                    return None
                return SQUARED[unit[1]], end if squared is None else squared.end()
            return unit[1], end
        if square:
            return None
        if word.lower() in SLASH_ABBREVIATIONS and _SLASH_AFTER_RE.match(text, m.end()):
            return SLASH_ABBREVIATIONS[word.lower()], m.end()  # "5 m/s", "50 L/min"
        if normalize_term(word) != "degree":  # only "degrees" may stand before the unit
            return None
        position = m.end()
    return None


def _per_unit(text: str, position: int) -> tuple[str, int] | None:
    """(the unit's first name, where its name ends) for a unit a rate is per, right after
    ``position`` ("/h", "/dL", " per hour", " an hour"), or None."""
    m = _PER_RE.match(text, position)
    if m is None:
        return None
    word = m.group("slash") or m.group("word")
    unit = UNITS.get(normalize_term(word))
    if unit is not None:
        return unit[1], m.end()
    if m.group("slash") and word.lower() in SLASH_ABBREVIATIONS:
        return SLASH_ABBREVIATIONS[word.lower()], m.end()
    return None


def _dimension(unit: str) -> str:
    return next(d for d, u in UNITS.values() if u == unit)


def _in_units(
    text: str, mention: NumberMention, unit: tuple[str, int], hedged: bool
) -> tuple[Measure, str | None] | None:
    """The measure of a mention with a unit of measure after it (``unit``, as
    :func:`_unit_after` finds it: "1.85 kg", "120 km/h"), with the unit's first name (None
    for a rate), or None when it cannot be converted ("ton")."""
    name: str | None
    name, end = unit
    values = to_base(name, mention.value)
    if not values:
        return None
    # half a unit of the last digit in base units (right for temperatures too)
    above = to_base(name, mention.value + _step(mention))
    step = min(high - low for low, high in zip(values, above, strict=True))
    dimension = _dimension(name)
    per = _per_unit(text, end) if dimension != "temperature" else None
    if per is not None and (sizes := FACTORS.get(per[0])):
        dimension = f"{dimension}/{_dimension(per[0])}"
        dimension, end = RATES.get(dimension, dimension), per[1]
        values = tuple(value / size for value in values for size in sizes)
        step /= max(sizes)
        name = None
    start = mention.span.start
    return Measure(start, end, text[start:end], dimension, values, step, hedged), name


def _compounds(text: str, measures: list[tuple[Measure, str, float]]) -> Iterator[Measure]:
    """Values written in two or more units, largest first ("1 hour 45 minutes", "5 feet 10
    inches", "2 hours and 30 minutes"), from the measures with a unit (each with its unit's
    first name and the number written, in text order): every part is a whole number, each
    after the first of a smaller unit and less than one of the unit before it."""
    runs: list[list[tuple[Measure, str, float]]] = []
    for part in measures:
        measure, unit, number = part
        if not float(number).is_integer() or measure.dimension not in _COMPOUND_DIMENSIONS:
            runs.append([])
            continue
        if runs and runs[-1]:
            last, last_unit, _ = runs[-1][-1]
            ratio = FACTORS[last_unit][0] / FACTORS[unit][0]
            if (
                measure.dimension == last.dimension
                and len(measure.values) == len(last.values)
                and _COMPOUND_GAP_RE.fullmatch(text, last.end, measure.start)
                and ratio > 1
                and 0 <= number < ratio
            ):
                runs[-1].append(part)
                continue
        runs.append([part])
    for run in runs:
        if len(run) < 2:
            continue
        first, last = run[0][0], run[-1][0]
        values = tuple(map(sum, zip(*(m.values for m, _, _ in run), strict=True)))
        hedged = any(m.hedged for m, _, _ in run)
        yield Measure(
            first.start, last.end, text[first.start : last.end], first.dimension, values,
            last.step, hedged, composite=True,
        )  # fmt: skip


def _currency(text: str) -> str:
    for m in _CURRENCY_RE.finditer(text):
        key = normalize_term(m.group()) if m.group()[0].isalpha() else m.group().lower()
        if key in _CURRENCIES:
            return _CURRENCIES[key]
    return "?"


def currency_of(text: str) -> str | None:
    """The currency an amount of money names ("$40 million", "40 million euros", "EUR 12"):
    ``"dollar"``, ``"euro"``, ``"pound"``, ..., or None when it names none."""
    found = _currency(text)
    return None if found == "?" else found


def _share_of_unit(
    m: re.Match[str], unit: str, base: tuple[float, ...], share: float, tolerance: float
) -> Measure:
    """The measure ``m``'s words state: ``share`` of one ``unit`` (its sizes in base units,
    ``base``), read within ``tolerance`` of its value; composite, its words no values."""
    values = tuple(share * size for size in base)
    return Measure(
        m.start(), m.end(), m.group(), _dimension(unit), values, tolerance * min(values),
        composite=True,
    )  # fmt: skip


def _parts_of_units(text: str) -> Iterator[Measure]:
    """Fractions of one unit of measure, as measures of its dimension ("a quarter of a
    century" → 25 years, "half an hour" → 30 minutes); composite, their words no values."""
    for m in _PART_OF_UNIT_RE.finditer(text):
        unit = UNITS.get(normalize_term(m.group(4)))
        if unit is None or not (base := to_base(unit[1], 1.0)):
            continue
        if m.group(3) is not None:
            share = 0.5
        else:
            if m.group(1) is None and m.group(2).lower() not in ("half", "quarter"):
                continue  # "third of a mile" without its count reads as an ordinal
            share = (_count(m.group(1)) if m.group(1) else 1) / _PARTS[m.group(2).lower()]
        # said loosely, as a round value is: "a quarter of a mile" is 400 metres
        yield _share_of_unit(m, unit[1], base, share, PART_OF_UNIT_TOLERANCE)


def _one_units(text: str) -> Iterator[Measure]:
    """One unit of measure written in words, as a measure of its dimension: "a unit and a
    half" of any unit ("an hour and a half" → 90 minutes, "a mile and a half"), and one of
    the long units of time that are said without a number ("a decade" → 10 years, "a
    century", "a millennium", "a fortnight" → 14 days), and any unit of time that measures
    a relative time ("a year later" → 12 months, "a week ago") — not in a frequency ("once a
    decade", "twice a century"; "every decade" has no article); composite, read as loosely
    as a round value (10%: "a decade" is also nine or eleven years) or, with "and a half",
    as a fraction of one unit (5%)."""
    for m in _ONE_UNIT_RE.finditer(text):
        unit = UNITS.get(normalize_term(m.group(2)))
        if unit is None or not (base := to_base(unit[1], 1.0)):
            continue
        share = 1.5 if m.group(3) else 1.0
        alone = unit[1] in _SAID_ALONE or (
            _dimension(unit[1]) == "time" and _RELATIVE_AFTER_RE.match(text, m.end())
        )
        if share == 1.0 and (not alone or _FREQUENCY_RE.search(text, 0, m.start())):
            continue
        # "a decade" is said of nine years or eleven as a round number is; "and a half" of
        # a unit as closely as a fraction of one
        tolerance = ROUNDING_CAP if share == 1.0 else PART_OF_UNIT_TOLERANCE
        yield _share_of_unit(m, unit[1], base, share, tolerance)


def _ratios(text: str) -> Iterator[tuple[int, int, float]]:
    for m in _PART_RE.finditer(text):
        count = _count(m.group(1)) if m.group(1) else 1
        if m.group(1) is None and m.group(2).lower() != "half":
            continue  # a bare "third" is an ordinal
        yield m.start(), m.end(), count / _PARTS[m.group(2).lower()]
    for m in _OUT_OF_RE.finditer(text):
        if _YEAR_WHOLE_RE.fullmatch(m.group(2)):
            continue
        part, whole = _count(m.group(1)), _count(m.group(2))
        if 0 < part < whole:
            yield m.start(), m.end(), part / whole


def find_measures(text: str, mentions: Iterable[tuple[NumberMention, bool]]) -> list[Measure]:
    """The measures ``text`` states, in order: each number mention (with whether it is
    hedged) read with the unit after it, plus fractions written in words ("a quarter of",
    "three out of four"), and values written in two units ("1 hour 45 minutes", besides its
    parts), and fractions of one unit ("a quarter of a century", "half an hour"). Rates are
    measures of their own dimension ("120 km/h" and "75 miles per hour" are
    speeds; "126 mg/dL" is a "mass/volume"). Years, ordinals and times of day are not
    measures. Offsets into ``text``."""
    found: list[Measure] = []
    with_units: list[tuple[Measure, str, float]] = []
    for mention, hedged in mentions:
        start, end = mention.span.start, mention.span.end
        if mention.kind in ("year", "ordinal", "time"):
            continue
        if mention.kind == "percent":
            value = mention.value / 100
            found.append(
                Measure(
                    start, end, text[start:end], "ratio", (value,), _step(mention) / 100, hedged
                )
            )
        elif _HYPHEN_FRACTION_RE.fullmatch(mention.text):
            found.append(
                Measure(start, end, text[start:end], "ratio", (mention.value,), 0.0, hedged)
            )
        elif mention.kind == "money":
            dimension = f"money:{_currency(mention.text)}"
            found.append(
                Measure(start, end, text[start:end], dimension, (mention.value,), 0.0, hedged)
            )
        elif (unit := _unit_after(text, mention)) is not None:
            measured = _in_units(text, mention, unit, hedged)
            if measured is None:
                continue
            found.append(measured[0])
            if measured[1] is not None:  # a rate is no part of a compound
                with_units.append((measured[0], measured[1], mention.value))
        else:
            found.append(
                Measure(start, end, text[start:end], "count", (mention.value,), 0.0, hedged)
            )
    found.extend(_compounds(text, with_units))
    parts = [
        m
        for m in _parts_of_units(text)
        if not any(m.start <= f.start < m.end and f.dimension != "count" for f in found)
    ]
    found.extend(parts)
    found.extend(
        m for m in _one_units(text) if not any(f.start < m.end and m.start < f.end for f in found)
    )
    taken = [(m.start, m.end) for m in found if m.dimension == "ratio" or m in parts]
    for start, end, value in _ratios(text):
        if not any(s < end and start < e for s, e in taken):
            found.append(
                Measure(start, end, text[start:end], "ratio", (value,), 0.0, composite=True)
            )
    found.sort(key=lambda m: (m.start, -m.end))
    return found
