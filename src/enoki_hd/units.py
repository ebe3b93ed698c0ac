"""Names of units of measure, shared by the rules extractor (a unit keeps its number: "weighs
1.85 kg", never "weighs kg") and the grounding check (the same value in another unit of the
same dimension is another quantity: "7 miles" against "7 kilometres").

Names are compared in :func:`enoki_hd.text.normalize_term` form (casefolded, plural stripped).
"""

from __future__ import annotations

from enoki_hd.text import normalize_term

# Units of measure by dimension: groups of names for one unit ("km kilometre"), the
# first name of a group standing for it; plurals and American spellings need no entry
# (normalize_term strips the one and folds British spellings into the other: "kilometre" and
# "kilometer" are one name).
# Letters that also abbreviate other things ("m" for metres, millions or minutes) are not here
# (see OTHER_UNIT_WORDS); a lower-case "g" after a number is grams ("10 g" against "10 mg" is a
# thousandfold dose error), an upper-case "G" is not read as a unit ("5G").
MEASURES: dict[str, str] = {
    "length": "mm millimetre | cm centimetre | metre | km kilometre | inch | foot feet ft | "
    "yard yd | mile mi",
    "mass": "mg milligram | microgram mcg µg | gram gramme g | kg kilogram kilo | tonne | ton | "
    "lb lbs pound | ounce oz",
    "volume": "ml millilitre | dl decilitre | litre | gallon | pint",
    "time": "millisecond ms | second sec | minute min | hour hr hrs | day | week | month | "
    "year yr yrs | decade | century | millennium | fortnight",
    "temperature": "celsius centigrade | fahrenheit | kelvin",
    "data": "byte | kb kilobyte | megabyte | gb gigabyte | tb terabyte",
    "energy": "joule | calorie | kcal kilocalorie | kwh | mwh | gwh",
    "power": "watt | kw kilowatt | megawatt | gw gigawatt",
    "area": "acre | hectare | mm2 | cm2 | m2 | km2 | in2 | ft2 | yd2 | mi2",
    "speed": "kph kmh | mph | knot",
    "pressure": "pascal | kpa kilopascal | mpa megapascal | bar | psi",
    "frequency": "hz hertz | khz kilohertz | mhz megahertz | ghz gigahertz",
    "voltage": "volt | kv kilovolt",
    "sound level": "db decibel",
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
        "l",
        "w",
        "degree",
        "percent",
        "mw",
        "bit",
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


# A unit's size in its dimension's base unit (metre, gram, litre, second, byte, joule, watt,
# square metre, metre per second, pascal, hertz, volt, decibel), keyed by the unit's first
# name in MEASURES; a unit read more than one way (US and imperial gallons, decimal and binary
# kilobytes) has every reading. Temperatures are not proportional: see :func:`to_base`. "ton"
# is left out: short, long and metric tons differ by up to 12%, so no conversion of it can be
# trusted. A decibel is a ratio on a log scale: one name, nothing to convert.
FACTORS: dict[str, tuple[float, ...]] = {
    "mm": (1e-3,), "cm": (1e-2,), "metre": (1.0,), "km": (1e3,), "inch": (0.0254,),
    "foot": (0.3048,), "yard": (0.9144,), "mile": (1609.344,),
    "mg": (1e-3,), "microgram": (1e-6,), "gram": (1.0,), "kg": (1e3,), "tonne": (1e6,),
    "lb": (453.59237,), "ounce": (28.349523125,),
    "ml": (1e-3,), "dl": (0.1,), "litre": (1.0,), "gallon": (3.785411784, 4.54609), "pint": (0.473176473, 0.56826125),
    "millisecond": (1e-3,), "second": (1.0,), "minute": (60.0,), "hour": (3600.0,),
    "day": (86400.0,), "week": (604800.0,), "month": (2629800.0,), "year": (31557600.0,),
    "decade": (315576000.0,), "century": (3155760000.0,), "millennium": (31557600000.0,),
    "fortnight": (1209600.0,),
    "byte": (1.0,), "kb": (1e3, 1024.0), "megabyte": (1e6, 1024.0**2), "gb": (1e9, 1024.0**3),
    "tb": (1e12, 1024.0**4),
    "joule": (1.0,), "calorie": (4.184,), "kcal": (4184.0,), "kwh": (3.6e6,), "mwh": (3.6e9,),
    "gwh": (3.6e12,),
    "watt": (1.0,), "kw": (1e3,), "megawatt": (1e6,), "gw": (1e9,),
    "acre": (4046.8564224,), "hectare": (1e4,), "mm2": (1e-6,), "cm2": (1e-4,), "m2": (1.0,),
    "km2": (1e6,), "in2": (0.0254**2,), "ft2": (0.3048**2,), "yd2": (0.9144**2,),
    "mi2": (1609.344**2,),
    "kph": (1 / 3.6,), "mph": (0.44704,), "knot": (1852 / 3600,),
    "pascal": (1.0,), "kpa": (1e3,), "mpa": (1e6,), "bar": (1e5,), "psi": (6894.757293168,),
    "hz": (1.0,), "khz": (1e3,), "mhz": (1e6,), "ghz": (1e9,),
    "volt": (1.0,), "kv": (1e3,),
    "db": (1.0,),
}  # fmt: skip

# A length unit squared is an area: "square kilometres", "sq mi", "km²" (compared in NFKC
# form, "km2"), "m²"; keyed by the length unit's first name in MEASURES ("metre" for the "m"
# that is no unit alone, see OTHER_UNIT_WORDS).
SQUARE_WORDS = frozenset({"square", "sq"})
"""Words that square the length unit after them: "square miles", "sq km"."""

SQUARED = {
    "mm": "mm2", "cm": "cm2", "metre": "m2", "km": "km2", "inch": "in2", "foot": "ft2",
    "yard": "yd2", "mile": "mi2",
}  # fmt: skip

# A rate's dimension, where it has a name of its own in MEASURES (a rate's value is in the
# base unit of its numerator per the base unit of its denominator: "120 km/h" → 33.3 m/s,
# as "kph" is); other rates are "<dimension>/<dimension>" ("mg/dL" → "mass/volume").
RATES = {"length/time": "speed"}

# Letters that name a unit only as part of a rate, next to a slash: "m/s", "km/h", "50 L/min",
# "mg/L"; alone, "5 m" may be millions or minutes and "5 h" anything.
SLASH_ABBREVIATIONS = {"m": "metre", "l": "litre", "h": "hour", "s": "second"}

# Kelvin = (value + offset) * scale
_TEMPERATURES = {"celsius": (273.15, 1.0), "fahrenheit": (459.67, 5 / 9), "kelvin": (0.0, 1.0)}


def to_base(unit: str, value: float) -> tuple[float, ...]:
    """``value`` in ``unit`` (a unit's first name in :data:`MEASURES`) expressed in its
    dimension's base unit, once per reading of the unit ("gallon": US and imperial); () for a
    unit that cannot be converted ("ton"). Temperatures go to kelvin."""
    if unit in _TEMPERATURES:
        offset, scale = _TEMPERATURES[unit]
        return ((value + offset) * scale,)
    return tuple(value * factor for factor in FACTORS.get(unit, ()))


def is_unit_word(word: str) -> bool:
    """Whether ``word`` names a unit of measure or money ("kg", "miles", "Celsius", "euros")."""
    key = normalize_term(word)
    return key in UNITS or key in OTHER_UNIT_WORDS


def dimension(word: str) -> str | None:
    """The dimension of the unit ``word`` names ("Celsius" → "temperature"), or None."""
    unit = UNITS.get(normalize_term(word))
    return None if unit is None else unit[0]


def unit_names(word: str) -> list[str]:
    """The other names of the unit ``word`` names, its letter in a rate included ("km" →
    "kilometre", "kilometer"; "hour" → "hr", "hrs", "h" of "km/h"); [] for a word that names
    no unit of :data:`MEASURES`."""
    key = normalize_term(word)
    if key not in UNITS:
        return []
    names = [name for name, unit in UNITS.items() if unit == UNITS[key] and name != key]
    return names + [letter for letter, unit in SLASH_ABBREVIATIONS.items() if unit == UNITS[key][1]]
