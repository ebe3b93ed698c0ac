"""One value said two ways: measures, their equivalence, and premises restated before NLI."""

from __future__ import annotations

import pytest

from enoki_hd.units import FACTORS, MEASURES, to_base
from enoki_hd.verify.grounding import _analyse, ground, parse_numbers, restate_quantities
from enoki_hd.verify.quantities import Measure, same_value


def measures(text: str) -> list[tuple[str, str, tuple[float, ...]]]:
    return [
        (m.text, m.dimension, tuple(round(v, 6) for v in m.values)) for m in _analyse(text).measures
    ]


def test_every_unit_but_the_ton_converts() -> None:
    firsts = {group.split()[0] for groups in MEASURES.values() for group in groups.split("|")}
    assert firsts - set(FACTORS) == {"celsius", "fahrenheit", "kelvin", "ton"}
    assert to_base("mile", 10) == (16093.44,)
    assert to_base("gallon", 1) == (3.785411784, 4.54609)  # US and imperial
    assert to_base("ton", 3) == ()
    assert to_base("fahrenheit", 77) == pytest.approx((298.15,))
    assert to_base("celsius", 25) == pytest.approx((298.15,))


def test_measures_of_a_text() -> None:
    text = (
        "The 1.85kg tent, 25 degrees Celsius, a 5-km run, 25% of them, a quarter of the "
        "votes, three out of four patients, $2.1bn and 7 albums in 2019, his third term."
    )
    assert measures(text) == [
        ("1.85kg", "mass", (1850.0,)),
        ("25 degrees Celsius", "temperature", (298.15,)),
        ("5-km", "length", (5000.0,)),
        ("25%", "ratio", (0.25,)),
        ("a quarter", "ratio", (0.25,)),
        ("three out of four", "ratio", (0.75,)),
        ("three", "count", (3.0,)),
        ("four", "count", (4.0,)),
        ("$2.1bn", "money:dollar", (2.1e9,)),
        ("7", "count", (7.0,)),
    ]


@pytest.mark.parametrize(
    ("said", "evidence"),
    [
        ("weighs 1.85 kg", "weighs 1,850 grams"),
        ("10 miles long", "runs 16 kilometres"),  # 9.94 miles, rounded to the mile
        ("takes about 90 minutes", "takes 1.5 hours"),
        ("under 25 degrees Celsius", "below 77°F"),
        ("a quarter of commuters", "25% of commuters"),
        ("nearly two-thirds of the route", "67% of the route"),
        ("Half a million people", "500,000 people"),
        ("2 GB of memory", "2048 megabytes of memory"),  # binary megabytes
    ],
)
def test_one_value_said_two_ways_is_found(said: str, evidence: str) -> None:
    result = ground(said, evidence)
    assert result.mismatches == []
    assert not {"1.85", "kg", "10", "mile", "90", "minute", "25", "a million"} & set(result.missing)


@pytest.mark.parametrize(
    ("said", "evidence"),
    [
        # a fraction in words alone, found as the value stated another way
        ("a quarter of commuters", "25% of commuters"),
        ("half of the staff", "50% of the staff"),
        ("three quarters of the land", "75% of the land"),
        ("the first half of 2020", "in the first half of 2020"),  # found by its words
        # a fraction of one unit
        ("repayable over a quarter of a century", "repayable over 25 years"),
        ("half an hour", "30 minutes"),
        ("three quarters of an hour", "45 minutes"),
        ("a quarter of a mile", "400 metres"),  # said loosely, as a round value is
        # one unit in words: "and a half" of any unit, a long unit of time said alone
        ("took an hour and a half", "took 90 minutes"),
        ("took 90 minutes", "took an hour and a half"),
        ("a year and a half later", "18 months later"),
        ("lasted a fortnight", "lasted two weeks"),
        ("lasted 14 days", "lasted a fortnight"),
        ("a decade of growth", "ten years of growth"),
        ("a decade of growth", "11 years of growth"),  # "a decade" is a round number
        ("ten years of growth", "a decade of growth"),
        ("a century old", "100 years old"),
        # any unit of time that measures a relative time
        ("recalled a week later", "recalled seven days later"),
        ("left a year later", "left 12 months later"),
        # an area: a length unit squared, in words, abbreviated or with its exponent
        ("1,000 km²", "1,000 square kilometres"),
        ("1,000 square kilometres", "1,000 km2"),
        ("10 sq mi", "10 square miles"),
        ("386 square miles", "1,000 km²"),
        ("150 square feet", "14 m2"),
        ("40 hectares", "0.4 km2"),
        # a percent hyphened before its noun
        ("a 40% rise", "a 40-per-cent rise"),
        ("a 40-percent rise", "a 40% rise"),
        # an era written two ways, a time of day in words
        ("in 44 BC", "in 44 BCE"),
        ("in AD 79", "in 79 CE"),
        ("opens at noon", "opens at 12:00"),
        ("closes at midnight", "closes at 00:00"),
    ],
)
def test_a_value_written_another_way_is_grounded(said: str, evidence: str) -> None:
    result = ground(said, evidence)
    assert (result.status, result.missing) == ("grounded", [])


@pytest.mark.parametrize(
    ("said", "evidence", "missing", "mismatches"),
    [
        ("half of the staff", "40% of the staff", ["half"], []),
        ("a quarter of commuters", "14% of commuters", ["a quarter"], []),
        ("half an hour", "20 minutes", ["half an hour"], [("half an hour", "20 minutes")]),
        (
            "a third of a mile",
            "800 metres",
            ["a third of a mile"],
            [("a third of a mile", "800 metres")],
        ),
        # a value written with words is one unit: its words are not blamed again
        (
            "1 hour 45 minutes",
            "100 minutes",
            ["1 hour 45 minutes"],
            [("1 hour 45 minutes", "100 minutes")],
        ),
        ("10 square miles", "10 square kilometres", ["10", "mile"], [("10 mile", "10 kilometer")]),
        ("a 40-per-cent rise", "a 30% rise", ["40-per-cent"], [("40-per-cent", "30%")]),
        ("in 44 BC", "in 44 AD", ["bc"], []),
        ("opens at noon", "opens at 1 p.m.", ["noon"], [("noon", "1 p.m.")]),
        ("a midnight feast", "a feast", ["midnight"], []),  # no time of day without "at", "by" …
        (
            "lasted a fortnight",
            "lasted three weeks",
            ["a fortnight"],
            [("a fortnight", "three weeks")],
        ),
        ("a decade of growth", "8 years of growth", ["a decade"], [("a decade", "8 years")]),
        ("recalled a week later", "recalled ten days later", ["a week"], [("a week", "ten days")]),
        (
            "took an hour and a half",
            "took 2 hours",
            ["an hour and a half"],
            [("an hour and a half", "2 hours")],
        ),
        # a frequency is no length of time; "a year" alone is no measure ("$50,000 a year")
        ("meets once a decade", "meets every 8 years", ["decade"], []),
        ("paid $50,000 a year", "paid $50,000 in 3 months", ["year"], []),
    ],
)
def test_another_value_written_another_way_is_not_found(
    said: str, evidence: str, missing: list[str], mismatches: list[tuple[str, str]]
) -> None:
    result = ground(said, evidence)
    assert (result.missing, result.mismatches) == (missing, mismatches)


def test_half_a_million_is_half() -> None:
    assert [(m.text, m.value) for m in parse_numbers("Half a million people, half a dozen")] == [
        ("Half a million", 500_000.0),
        ("half a dozen", 6.0),
    ]


@pytest.mark.parametrize(
    ("said", "evidence", "rival"),
    [
        ("7 miles long", "The trail runs 16 kilometres.", "16 kilometres"),
        ("weighs 3 kg", "weighs 1,850 grams", "1,850 grams"),
        ("takes 2 hours", "takes 90 minutes", "90 minutes"),
    ],
)
def test_another_value_in_another_unit_is_a_mismatch(said: str, evidence: str, rival: str) -> None:
    result = ground(said, evidence)
    assert result.status == "mismatch"
    assert [pair[1] for pair in result.mismatches] == [rival]


def test_rounding_needs_the_written_precision() -> None:
    def length(text: str, metres: float, step: float, hedged: bool = False) -> Measure:
        return Measure(0, len(text), text, "length", (metres,), step, hedged)

    ten_miles = length("10 miles", 16093.44, 804.672)
    assert same_value(ten_miles, length("16 km", 16000.0, 500.0))
    assert not same_value(ten_miles, length("13 km", 13000.0, 500.0))
    # rounding never explains more than 10%: "1 mile" is not "2 km"
    assert not same_value(length("1 mile", 1609.344, 804.672), length("2 km", 2000.0, 500.0))
    assert not same_value(ten_miles, Measure(0, 5, "10 kg", "mass", (10000.0,), 500.0))


def test_counts_and_amounts_are_exact_unless_hedged() -> None:
    def count(value: float, hedged: bool = False) -> Measure:
        return Measure(0, 1, str(value), "count", (value,), 50_000.0, hedged)

    assert not same_value(count(1_900_000), count(1_893_000))  # "1.9 million": a rounding
    assert same_value(count(1_900_000, hedged=True), count(1_893_000))
    euros = Measure(0, 1, "€5m", "money:euro", (5e6,), 0.0)
    assert not same_value(euros, Measure(0, 1, "$5m", "money:dollar", (5e6,), 0.0))


def test_premise_restated_in_the_hypothesis_words() -> None:
    premise = (
        "Each Tamber hiking tent weighs 1,850 grams including poles and pegs. "
        "The packed size is 45 by 15 centimetres."
    )
    assert restate_quantities(premise, "Tamber tent weighs 1.85 kg.") == (
        "Each Tamber hiking tent weighs 1.85 kg including poles and pegs. "
        "The packed size is 45 by 15 centimetres."
    )
    survey = "The survey found that 25% of commuters cycle. The figure was 14% in 2019."
    assert restate_quantities(survey, "A quarter of commuters ride a bike.") == (
        "The survey found that a quarter of commuters cycle. The figure was 14% in 2019."
    )  # the capital that opens the hypothesis is not carried into the premise's sentence
    assert restate_quantities("25% of commuters cycle.", "A quarter of commuters ride.") == (
        "A quarter of commuters cycle."
    )
    ferry = "The crossing takes 1.5 hours in calm weather."
    assert restate_quantities(ferry, "The ferry takes about 90 minutes.") == (
        "The crossing takes 90 minutes in calm weather."
    )


def test_a_wrong_value_is_not_restated() -> None:
    premise = "The trail runs 16 kilometres. The tent weighs 1,850 grams."
    for hypothesis in ["The trail is 7 miles long.", "The tent weighs 3 kg.", "It rained."]:
        assert restate_quantities(premise, hypothesis) == premise
    # a value rounded to the precision it is written in is the same value: 1.85 kg is 2 kg to
    # the kilogram, as 16 km is 10 miles to the mile
    assert restate_quantities(premise, "The tent weighs 2 kg.") == (
        "The trail runs 16 kilometres. The tent weighs 2 kg."
    )


def test_rates_and_compounds_are_measures_of_their_own() -> None:
    assert measures("120 km/h, 75 miles per hour, 10 mg/dL, 5 m/s") == [
        ("120 km/h", "speed", (33.333333,)),
        ("75 miles per hour", "speed", (33.528,)),
        ("10 mg/dL", "mass/volume", (0.1,)),
        ("5 m/s", "speed", (5.0,)),
    ]
    assert measures("1 hour 45 minutes") == [
        ("1 hour 45 minutes", "time", (6300.0,)),
        ("1 hour", "time", (3600.0,)),
        ("45 minutes", "time", (2700.0,)),
    ]
    [compound, *_] = _analyse("1 hour 45 minutes").measures
    assert compound.composite and compound.step == 30.0  # to the minute
    # a part as large as the unit before it, or a larger unit after, is no compound
    assert [m.text for m in _analyse("90 minutes 30 seconds, 30 seconds 2 minutes").measures] == [
        "90 minutes 30 seconds",
        "90 minutes",
        "30 seconds",
        "30 seconds",
        "2 minutes",
    ]
    assert [m.text for m in _analyse("2 hours 75 minutes").measures] == ["2 hours", "75 minutes"]


def test_a_glued_capital_c_or_f_is_a_temperature() -> None:
    assert measures("-5C and 86F, 4K video") == [
        ("-5C", "temperature", (268.15,)),
        ("86F", "temperature", (303.15,)),
        ("4K", "count", (4000.0,)),  # "k" scales, as in "10k runners"
    ]


def test_a_fraction_of_a_year_is_no_ratio() -> None:
    assert measures("scored 3 in 2019") == [("3", "count", (3.0,))]
    assert [m.composite for m in _analyse("one in five adults").measures] == [True, False, False]
