"""The unit tables shared by the rules extractor and the grounding check."""

from __future__ import annotations

import pytest

from enoki_hd.text import normalize_term
from enoki_hd.units import (
    MEASURES,
    OTHER_UNIT_WORDS,
    UNITS,
    dimension,
    is_unit_word,
    to_base,
    unit_names,
)


@pytest.mark.parametrize(
    "word", ["kg", "Kilometres", "miles", "Celsius", "hrs", "euros", "per", "percent", "degrees"]
)
def test_unit_words(word: str) -> None:
    assert is_unit_word(word) is (word != "per")


@pytest.mark.parametrize("word", ["band", "members", "points", "albums", "thirds", "off"])
def test_other_words_are_not_units(word: str) -> None:
    assert not is_unit_word(word)


def test_names_of_one_unit() -> None:
    assert unit_names("km") == ["kilometer"]  # "kilometre", as normalize_term spells it
    assert sorted(unit_names("Pounds")) == ["lb", "lbs"]
    assert unit_names("degrees") == []  # not compared across units (angles, temperatures)
    assert unit_names("band") == []
    # the letter a rate writes the unit with: "h" of "km/h"
    assert sorted(unit_names("hours")) == ["h", "hr", "hrs"]


def test_speeds_and_pressures_convert() -> None:
    assert to_base("kph", 120) == pytest.approx(to_base("mph", 74.5645))
    assert to_base("bar", 2.2) == pytest.approx(to_base("psi", 31.9083))
    assert dimension("mph") == "speed" and dimension("kPa") == "pressure"


def test_frequencies_voltages_and_sound_levels() -> None:
    assert to_base("mhz", 2400) == pytest.approx(to_base("ghz", 2.4))
    assert to_base("kv", 11) == pytest.approx(to_base("volt", 11000))
    assert dimension("MHz") == "frequency" and dimension("kV") == "voltage"
    assert dimension("dB") == dimension("decibels") == "sound level"
    assert sorted(unit_names("dB")) == ["decibel"]


def test_every_name_belongs_to_one_unit() -> None:
    names = [
        normalize_term(name)
        for groups in MEASURES.values()
        for group in groups.split("|")
        for name in group.split()
    ]
    assert len(names) == len(set(names)) == len(UNITS)
    assert not set(UNITS) & OTHER_UNIT_WORDS
    assert UNITS[normalize_term("kilometres")] == UNITS["km"] == ("length", "km")
    assert UNITS["mile"] == ("length", "mile")


def test_dimension() -> None:
    assert dimension("Celsius") == dimension("fahrenheit") == "temperature"
    assert dimension("kilometres") == "length"
    assert dimension("euros") is None and dimension("band") is None
