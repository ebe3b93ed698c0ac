"""Names of units of measure, shared by the rules extractor (a unit keeps its number: "weighs
1.85 kg", never "weighs kg") and the grounding check (the same value in another unit of the
same dimension is another quantity: "7 miles" against "7 kilometres").

Names are compared in :func:`enoki_hd.text.normalize_term` form (casefolded, plural stripped).
"""

from __future__ import annotations

from enoki_hd.text import normalize_term

# Units of measure by dimension: groups of names for one unit ("km kilometre kilometer"), the
# first name of a group standing for it; plurals need no entry (normalize_term strips them).
# Letters that also abbreviate other things ("m" for metres or millions, "g") are not here (see
# OTHER_UNIT_WORDS).
MEASURES: dict[str, str] = {
    "length": "mm millimetre millimeter | cm centimetre centimeter | metre meter | "
    "km kilometre kilometer | inch | foot feet ft | yard yd | mile mi",
    "mass": "mg milligram | microgram mcg µg | gram gramme | kg kilogram kilo | tonne | ton | "
    "lb lbs pound | ounce oz",
    "volume": "ml millilitre milliliter | litre liter | gallon | pint",
    "time": "millisecond ms | second sec | minute min | hour hr hrs | day | week | month | "
    "year yr yrs | decade | century",
    "temperature": "celsius centigrade | fahrenheit | kelvin",
    "data": "byte | kb kilobyte | megabyte | gb gigabyte | tb terabyte",
    "energy": "joule | calorie | kcal kilocalorie | kwh | mwh | gwh",
    "power": "watt | kw kilowatt | megawatt | gw gigawatt",
    "area": "acre | hectare",
}

# normalized name → (dimension, the unit's first name)
UNITS: dict[str, tuple[str, str]] = {
    normalize_term(name): (dimension, group.split()[0])
    for dimension, groups in MEASURES.items()
    for group in groups.split("|")
    for name in group.split()
}

# Words that name a unit next to a number but are not compared across units: abbreviations
# of more than one thing, money, percent, and units without a rival in MEASURES.
OTHER_UNIT_WORDS = frozenset(
    normalize_term(word)
    for word in [
        "m",
        "g",
        "l",
        "w",
        "degree",
        "percent",
        "mw",
        "volt",
        "hz",
        "khz",
        "mhz",
        "ghz",
        "hertz",
        "bit",
        "db",
        "decibel",
        "mph",
        "kph",
        "knot",
        "ha",
        "dollar",
        "euro",
        "yen",
        "yuan",
        "cent",
        "pence",
        "rupee",
        "franc",
    ]
)


def is_unit_word(word: str) -> bool:
    """Whether ``word`` names a unit of measure or money ("kg", "miles", "Celsius", "euros")."""
    key = normalize_term(word)
    return key in UNITS or key in OTHER_UNIT_WORDS


def dimension(word: str) -> str | None:
    """The dimension of the unit ``word`` names ("Celsius" → "temperature"), or None."""
    unit = UNITS.get(normalize_term(word))
    return None if unit is None else unit[0]


def unit_names(word: str) -> list[str]:
    """The other names of the unit ``word`` names ("km" → "kilometre", "kilometer"); [] for a
    word that names no unit of :data:`MEASURES`."""
    key = normalize_term(word)
    if key not in UNITS:
        return []
    return [name for name, unit in UNITS.items() if unit == UNITS[key] and name != key]
