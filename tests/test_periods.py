"""A decade or century the context dates by a year inside it (verify/periods.py): the periods
an answer names, the years its evidence gives the fact's event, the restated hypotheses, and the
shipped detector supporting "founded in the late 1990s" against "founded in 1998"."""

from __future__ import annotations

from dataclasses import replace

import pytest

from enoki_hd import Detector
from enoki_hd.types import Evidence, Fact, FactVerdict, NLIScores, Span
from enoki_hd.verify.evidence import EvidenceDecision
from enoki_hd.verify.judge import FactJudge
from enoki_hd.verify.periods import (
    Period,
    day_duration_phrases,
    duration_phrases,
    elapsed_days,
    elapsed_years,
    periods,
    relation_years,
    relative_year_phrases,
    restated_durations,
    restated_periods,
    restated_relative_years,
    year_count,
    years,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("founded in the 1990s", (11, 20, 1990, 1999)),
        ("founded in the early 1930s", (11, 26, 1930, 1934)),
        ("rose in the mid-1990s", (8, 21, 1993, 1997)),
        ("founded in late 1990s", (11, 21, 1996, 1999)),
        ("built in the 19th century", (9, 25, 1800, 1899)),
        ("built in the late nineteenth century", (9, 36, 1860, 1899)),
        # a decade that ends a century is read as the century too
        ("built in the 1900s", (9, 18, 1900, 1999)),
    ],
)
def test_a_period_spans_its_qualifier_and_the_years_inside_it(
    text: str, expected: tuple[int, int, int, int]
) -> None:
    assert periods(text) == [Period(*expected)]


def test_years_are_four_digit_numbers_standing_alone() -> None:
    text = "In 1998, $1999 of 2001-2003 and 1,998 units, the 1990s, 45% in 2010; born 12 May 1950."
    assert years(text) == [1998, 2010, 1950]


def test_the_year_given_the_relation_is_the_first_after_its_word_else_the_last_before() -> None:
    evidence = "The band formed in 1994 and split up in 2005. In 1990, its singer moved away."
    assert relation_years(evidence, "split up in") == [2005]
    assert relation_years(evidence, "formed in") == [1994]
    assert relation_years("In 1998, two students founded the company.", "was founded in") == [1998]
    # no word of the relation in the evidence: its only year, if it states one
    assert relation_years("The company dates from 1998.", "was established in") == [1998]
    assert relation_years("It dates from 1998 and moved in 2004.", "was established in") == []


def test_a_period_is_restated_with_each_year_the_evidence_gives_inside_it() -> None:
    evidence = "The company was founded in 1998 by two students."
    assert list(
        restated_periods("company was founded in late 1990s", evidence, "was founded in")
    ) == ["company was founded in 1998"]
    assert (
        list(restated_periods("company was founded in early 1990s", evidence, "was founded in"))
        == []
    )
    assert list(restated_periods("company was founded in 1998", evidence, "was founded in")) == []


def _verdict(hypothesis: str, evidence: str, *, decided_by: str = "nli") -> FactVerdict:
    fact = Fact("f0", 0, "company", "was founded in", hypothesis.rsplit(" in ", 1)[1])
    return FactVerdict(
        fact=fact,
        hypothesis=hypothesis,
        probs=NLIScores(0.02, 0.08, 0.9),
        label="contradicted",
        evidence=Evidence(0, len(evidence), evidence),
        decided_by=decided_by,
        score=0.98,
    )


def test_the_judge_supports_a_fact_whose_restatement_is_entailed() -> None:
    evidence = "The company was founded in 1998 by two students."
    verdicts = [
        _verdict("company was founded in the late 1990s", evidence),
        _verdict("company was founded in the 1990s", evidence, decided_by="value_conflict"),
    ]
    judge = FactJudge()
    checks = judge.periods_to_check(verdicts)
    assert checks == [(0, "company was founded in 1998")]  # a conflict is never lifted
    entailed = EvidenceDecision("supported", NLIScores(0.95, 0.04, 0.01), None, 1)
    out = judge.vouch_by_periods(verdicts, [(0, entailed)])
    assert (out[0].label, out[0].decided_by, out[0].score) == ("supported", "period", 0.05)
    assert out[1] is verdicts[1]
    refused = EvidenceDecision("contradicted", NLIScores(0.3, 0.1, 0.6), None, 1)
    assert judge.vouch_by_periods(verdicts, [(0, refused)])[0] is verdicts[0]
    assert FactJudge(period_support=False).periods_to_check(verdicts) == []


@pytest.fixture(scope="module")
def detector() -> Detector:
    return Detector()


@pytest.mark.parametrize(
    ("context", "answer", "flagged"),
    [
        (
            "The company was founded in 1998 by two students.",
            "The company was founded in the late 1990s.",
            [],
        ),
        (
            "The band was formed in Manchester in 1994 by two brothers.",
            "The band was formed in the 1990s.",
            [],
        ),
        # a year outside the period, or the year of another event, is no support
        (
            "The company was founded in 1998 by two students.",
            "The company was founded in the early 1990s.",
            ["early"],
        ),
        (
            "The band formed in 1994 and split up in 2005.",
            "The band split up in the 1990s.",
            ["1990s"],
        ),
    ],
)
def test_the_shipped_detector_reads_a_period_against_a_year_inside_it(
    detector: Detector, context: str, answer: str, flagged: list[str]
) -> None:
    report = detector.detect(answer=answer, context=context)
    assert [s.text for s in report.spans] == flagged
    assert report.summary.hallucinated is bool(flagged)
    if not flagged:
        assert "period" in {v.decided_by for v in report.facts}


def test_period_support_off_leaves_the_verifiers_reading() -> None:
    off = Detector(period_support=False)
    report = off.detect(
        answer="The company was founded in the late 1990s.",
        context="The company was founded in 1998 by two students.",
    )
    assert report.summary.hallucinated is True
    assert "period" not in {v.decided_by for v in report.facts}
    assert off.config()["period_support"] is False


# ---------------------------------------------------------------------------------------------
# a length in years restated as the period that lasts it
# ---------------------------------------------------------------------------------------------

SERVED = (
    "Dr. Selma Årdal served as director of the Kingsreach Observatory from 1996 until her"
    " retirement in 2014. During her tenure the observatory installed its 4-metre telescope."
)


@pytest.mark.parametrize(
    ("word", "expected"),
    [("22", 22), ("twelve", 12), ("Twenty-two", 22), ("forty", 40), ("several", None), ("twenty-zero", None)],
)  # fmt: skip
def test_a_count_of_years_is_read_as_written(word: str, expected: int | None) -> None:
    assert year_count(word) == expected


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("She served from 1996 until her retirement in 2014.", (1996, 2014)),
        ("He was mayor between 2002 and 2010.", (2002, 2010)),
        ("It ran from 1980 to 1995.", (1980, 1995)),
        ("It ran from 1980 to 1995 and from 2000 to 2004.", None),  # two periods
        ("It ran from 1995 to 1980.", None),  # an end before its start
        ("It ran from March to May 2004.", None),
    ],
)
def test_a_sentence_gives_one_period_by_two_years(
    sentence: str, expected: tuple[int, int] | None
) -> None:
    assert elapsed_years(sentence) == expected


def test_a_length_is_restated_as_the_period_that_lasts_it() -> None:
    hypothesis = "Årdal directed Kingsreach Observatory for 18 years."
    assert duration_phrases(hypothesis) == [(42, 50, 18)]
    assert list(restated_durations(hypothesis, SERVED)) == [
        "Årdal directed Kingsreach Observatory from 1996 to 2014."
    ]
    # counted inclusively, a year more; the verb of "lasted" kept
    assert list(
        restated_durations("The war lasted five years.", "It raged from 1914 to 1918.")
    ) == ["The war lasted from 1914 to 1918."]
    # another length, a hedged one, none at all: nothing to restate
    assert list(restated_durations("Årdal directed it for 22 years.", SERVED)) == []
    assert list(restated_durations("Årdal directed it for nearly 18 years.", SERVED)) == []
    assert list(restated_durations("Årdal directed it.", SERVED)) == []


STRIKE = (
    "The strike at the Harlow Bay terminal began on 3 March and ended on 17 March, when workers"
    " accepted a 6% pay offer. About 400 ships were delayed."
)


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        (STRIKE.split(". ")[0], ("3 March", "17 March", 14)),
        ("The fair ran from 1 June to 15 June.", ("1 June", "15 June", 14)),
        ("The trial ran from March 3, 2021 until April 2, 2021.", ("March 3, 2021", "April 2, 2021", 30)),
        ("The fair opened on 1 June, two weeks before 15 June.", None),  # no word of an end
        ("The fair ran from 15 June to 1 June.", None),  # an end before its start
        ("It ran from 1 June 2020 to 5 June 2021.", None),  # two years
        ("It ran from 1 June to 5 June and from 1 July to 5 July.", None),  # two periods
        ("It ran between 1 and 15 June.", None),  # one date of a day only
    ],
)  # fmt: skip
def test_a_sentence_gives_one_period_by_two_days(
    sentence: str, expected: tuple[str, str, int] | None
) -> None:
    assert elapsed_days(sentence) == expected


def test_a_length_in_weeks_or_days_is_restated_as_the_period_that_lasts_it() -> None:
    hypothesis = "Harlow Bay terminal strike lasted two weeks."
    assert day_duration_phrases(hypothesis) == [(34, 43, 14)]
    # a length in weeks or days counts as a length, of no years
    assert duration_phrases(hypothesis) == [(34, 43, 0)]
    assert list(restated_durations(hypothesis, STRIKE)) == [
        "Harlow Bay terminal strike lasted from 3 March to 17 March."
    ]
    # a day either way; "for" replaced by "from"
    assert list(
        restated_durations("The fair ran for 15 days.", "It ran from 1 June to 15 June.")
    ) == ["The fair ran from 1 June to 15 June."]
    # another length: nothing to restate
    assert list(restated_durations("Harlow Bay terminal strike lasted three weeks.", STRIKE)) == []
    assert list(restated_durations("The strike lasted 20 days.", STRIKE)) == []


def test_the_shipped_detector_supports_a_length_in_weeks_its_dates_last() -> None:
    detector = Detector()
    right = detector.detect(
        answer="The Harlow Bay terminal strike lasted two weeks.", context=STRIKE
    )
    assert [(v.label, v.decided_by) for v in right.facts] == [("supported", "period")]
    assert right.spans == []
    wrong = detector.detect(
        answer="The Harlow Bay terminal strike lasted three weeks.", context=STRIKE
    )
    assert wrong.spans and all(v.label != "supported" for v in wrong.facts)


def test_the_judge_restates_a_length_only_where_no_other_name_is_unfound() -> None:
    answer = "Årdal directed Kingsreach Observatory for 18 years."
    fact = Fact("f0", 0, "Årdal", "directed Kingsreach Observatory for", "18 years")

    def verdict(blamed: list[Span]) -> FactVerdict:
        return FactVerdict(
            fact=fact,
            hypothesis=answer,
            probs=NLIScores(0.1, 0.3, 0.6),
            label="unverifiable",
            evidence=Evidence(0, len(SERVED), SERVED),
            decided_by="absent_name",
            score=0.9,
            blamed=blamed,
        )

    restated = "Årdal directed Kingsreach Observatory from 1996 to 2014."
    judge = FactJudge()
    # "18" and the plain word "directed" unfound: the length is restated
    only_length = verdict([Span(6, 14), Span(42, 44)])
    assert judge.periods_to_check([only_length], answer) == [(0, restated)]
    # a name unfound too ("Kingsreach"): the absent name stands
    assert judge.periods_to_check([verdict([Span(15, 25), Span(42, 44)])], answer) == []
    # without the answer the judge cannot tell, and restates nothing of an absent name
    assert judge.periods_to_check([only_length]) == []
    assert FactJudge(period_support=False).periods_to_check([only_length], answer) == []


RESERVOIR = (
    "The Orrin Valley reservoir was completed in 1978. It supplies drinking water to 300,000"
    " people. A drought in 2022 reduced its level to 23% of capacity."
)
BOATHOUSE = (
    "The Aldgate Rowing Club was founded in 1889. The club moved to its current boathouse on"
    " the Wensum in 1952 after its original premises were destroyed by fire in 1950."
)


@pytest.mark.parametrize(
    ("hypothesis", "context", "expected"),
    [
        (
            "Fire destroyed the club's premises two years before it moved into its boathouse"
            " on the Wensum.",
            BOATHOUSE,
            [
                "Fire destroyed the club's premises in 1950, before it moved into its boathouse"
                " on the Wensum."
            ],
        ),
        # a hedged time: a year either way too
        (
            "Drought cut its level some 44 years after the reservoir was completed.",
            RESERVOIR,
            [
                f"Drought cut its level in {year}, after the reservoir was completed."
                for year in (2021, 2022, 2023)
            ],
        ),
        # the other event dated nowhere: nothing to count from
        ("Drought cut its level 44 years after the dam was opened.", RESERVOIR, []),
        ("Drought cut its level in 2022.", RESERVOIR, []),
    ],
)
def test_a_time_between_two_events_is_restated_as_the_year_it_gives_the_event(
    hypothesis: str, context: str, expected: list[str]
) -> None:
    assert list(restated_relative_years(hypothesis, context)) == expected


def test_the_judge_restates_a_time_between_two_events_against_the_context() -> None:
    answer = (
        "Fire destroyed the club's premises two years before it moved into its boathouse on"
        " the Wensum."
    )
    assert relative_year_phrases(answer) == [(35, 44)]
    fact = Fact(id="f0.0", sentence=0, subject="Fire", relation="destroyed", object="premises")
    verdict = FactVerdict(
        fact=fact,
        hypothesis=answer,
        probs=NLIScores(0.1, 0.3, 0.6),
        label="unverifiable",
        evidence=Evidence(0, len(BOATHOUSE), BOATHOUSE),
        decided_by="absent_name",
        score=0.75,
        blamed=[Span(35, 38), Span(39, 44)],  # "two", "years": only the time is unfound
    )
    restated = (
        "Fire destroyed the club's premises in 1950, before it moved into its boathouse on the"
        " Wensum."
    )
    judge = FactJudge()
    assert judge.periods_to_check([verdict], answer, BOATHOUSE) == [(0, restated)]
    # without the context there is nothing to count from
    assert judge.periods_to_check([verdict], answer) == []
    # a name unfound too: the absent name stands
    named = replace(verdict, blamed=[Span(35, 38), Span(0, 4)])
    assert judge.periods_to_check([named], answer, BOATHOUSE) == []


def test_the_shipped_detector_supports_a_time_between_two_events_the_context_dates() -> None:
    detector = Detector()
    right = detector.detect(
        answer="Fire destroyed the club's original premises two years before it moved to its"
        " current boathouse on the Wensum.",
        context=BOATHOUSE,
    )
    assert right.spans == [] and right.sentences[0].label == "supported"
    assert "period" in {v.decided_by for v in right.facts}
    wrong = detector.detect(
        answer="Fire destroyed the club's original premises three years before it moved to its"
        " current boathouse on the Wensum.",
        context=BOATHOUSE,
    )
    assert wrong.sentences[0].label != "supported"
    assert "three years" in [s.text for s in wrong.spans]
