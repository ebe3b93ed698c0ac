"""Opening hours read day by day (verify/hours.py): claims of days and hours in answers and
contexts, the context's table, conflicts, and the verdicts they change."""

from __future__ import annotations

from dataclasses import replace

import pytest

from enoki_hd.types import Fact, FactVerdict, NLIScores, Span
from enoki_hd.verify.hours import (
    checked_claims,
    conflicting_claims,
    context_hours,
    hour_claims,
    judge_hours,
)

# a data-to-text context as RAGTruth writes a business's hours (Yelp's table: hour:minute)
YELP = (
    "{'name': 'Mala Town', 'city': 'Goleta', 'hours': {'Monday': '17:0-21:0', 'Tuesday': "
    "'17:0-21:0', 'Wednesday': '11:0-15:0', 'Thursday': '17:0-21:0', 'Friday': '11:0-22:0', "
    "'Saturday': '12:0-22:0', 'Sunday': '12:0-22:0'}}"
)
ALL_DAYS = frozenset(range(7))


def claims(text: str) -> list[tuple[frozenset[int], tuple[int, int] | None, str]]:
    return [(c.days, c.hours, c.span.text(text)) for c in hour_claims(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "The hours are Monday to Thursday from 5:00 PM to 9:00 PM, Friday from 11:00 AM "
            "to 10:00 PM, and Saturday to Sunday from 12:00 PM to 10:00 PM.",
            [
                (
                    frozenset({0, 1, 2, 3}),
                    (1020, 1260),
                    "Monday to Thursday from 5:00 PM to 9:00 PM",
                ),
                (frozenset({4}), (660, 1320), "Friday from 11:00 AM to 10:00 PM"),
                (frozenset({5, 6}), (720, 1320), "Saturday to Sunday from 12:00 PM to 10:00 PM"),
            ],
        ),
        (  # the hours first, the days after; "closed on" a day
            "Open 9am-5pm weekdays, closed on Sundays.",
            [
                (frozenset(range(5)), (540, 1020), "9am-5pm weekdays"),
                (frozenset({6}), None, "closed on Sundays"),
            ],
        ),
        (  # prose with a colon, 24-hour times, a day marked closed; "p.m." keeps its dots
            "Monday–Friday: 9 a.m. to 5 p.m.; Saturday 10:00-14:00; Sunday: closed",
            [
                (frozenset(range(5)), (540, 1020), "Monday–Friday: 9 a.m. to 5 p.m."),
                (frozenset({5}), (600, 840), "Saturday 10:00-14:00"),
                (frozenset({6}), None, "Sunday: closed"),
            ],
        ),
        (  # noon and midnight; closing at midnight is the day's end
            "The shop is open daily from noon to midnight.",
            [(ALL_DAYS, (720, 1440), "daily from noon to midnight")],
        ),
        (  # a list of days; "5 to 9 pm": the first time takes the second's half of the day
            "It opens Monday, Wednesday and Friday from 5 to 9 pm.",
            [(frozenset({0, 2, 4}), (1020, 1260), "Monday, Wednesday and Friday from 5 to 9 pm")],
        ),
        (  # a range of days across the week's end; abbreviations
            "Hours: Fri-Mon 10:30 AM - 4 PM",
            [(frozenset({4, 5, 6, 0}), (630, 960), "Fri-Mon 10:30 AM - 4 PM")],
        ),
        # no hours: years, numbers and decimals are no times; hours with no days
        ("Between 1990-1995 on Monday 3.5 to 4.5 inches of rain fell.", []),
        ("The bar is open from 5 PM to 2 AM.", []),
        ("On Monday the team met from 10 to 12 people.", []),
    ],
)
def test_hour_claims(text: str, expected: list) -> None:
    assert claims(text) == expected


def test_context_hours_reads_the_table_day_by_day() -> None:
    table = context_hours(YELP)
    assert {day: hours for day, (hours, _) in table.items()} == {
        0: (1020, 1260),
        1: (1020, 1260),
        2: (660, 900),
        3: (1020, 1260),
        4: (660, 1320),
        5: (720, 1320),
        6: (720, 1320),
    }
    assert table[2][1].text(YELP) == "'Wednesday': '11:0-15:0'"


def test_context_hours_leaves_out_what_it_cannot_tell() -> None:
    # "0:0-0:0" is closed or open all day; a day with the hours of two places is no one's
    context = (
        "{'hours': {'Monday': '0:0-0:0', 'Tuesday': '11:30-20:0'}} The pool is open Tuesday "
        "from 6 AM to 9 PM. The cafe: Sunday 8:00-12:00."
    )
    assert {day: hours for day, (hours, _) in context_hours(context).items()} == {6: (480, 720)}
    assert context_hours("The museum was founded on a Monday in 1901.") == {}


def test_context_hours_leaves_out_days_the_context_says_more_of() -> None:
    """An exception after "every day", or a day named beside a time outside a claim, is more
    than the claim reads: those days are not in the table."""
    context = (
        "The pool is open from 6 am to 9 pm every day except Tuesdays. On Sundays it closes "
        "early, at 5 pm."
    )
    assert {day: hours for day, (hours, _) in context_hours(context).items()} == {
        day: (360, 1260) for day in (0, 2, 3, 4, 5)
    }
    assert conflicting_claims("The pool is open on Tuesday from 6 am to 9 pm.", context) == []


def test_a_claim_that_gets_one_day_wrong_conflicts() -> None:
    answer = "Mala Town is open Monday to Thursday from 5:00 PM to 9:00 PM."
    [(claim, entry)] = conflicting_claims(answer, YELP)
    assert claim.span.text(answer) == "Monday to Thursday from 5:00 PM to 9:00 PM"
    assert entry.text(YELP) == "'Wednesday': '11:0-15:0'"  # the first day it gets wrong
    for right in (
        "Mala Town is open Monday from 5:00 PM to 9:00 PM.",
        "On weekends it opens from 12 PM to 10 PM.",
        "It is open from noon to 10 p.m. on Saturday and Sunday.",
        "Mala Town is open daily.",  # no hours: nothing to compare
    ):
        assert conflicting_claims(right, YELP) == [], right
    wrong_close = "Its Friday hours are 11:00 AM to 9:00 PM."
    assert [c.span.text(wrong_close) for c, _ in conflicting_claims(wrong_close, YELP)] == [
        "Friday hours are 11:00 AM to 9:00 PM"
    ]


def test_only_opening_hours_are_checked() -> None:
    """The table gives opening hours: a sentence about a meal's, happy hour's or the
    kitchen's hours, or one that does not say they are opening hours, is not read against it."""
    assert [c.days for c, _ in conflicting_claims("It is open daily from 5 PM to 9 PM.", YELP)] == [
        ALL_DAYS
    ]
    for other in (
        "Happy hour is daily from 3 to 6 PM.",
        "The kitchen is open Monday from 6 PM to 8 PM.",
        "Brunch is served on Saturday from 10 AM to 2 PM.",
        "A jazz trio plays on Friday from 7 PM to 9 PM.",
    ):
        assert conflicting_claims(other, YELP) == [], other


def test_a_list_of_days_is_read_under_the_line_that_leads_it_in() -> None:
    """ "- Wednesday: 5:00 PM - 9:00 PM" says nothing of opening itself: the list's lead-in
    does ("Hours of operation:"); a list led in by another kind of hours is not read."""
    answer = (
        "Mala Town is a restaurant.\n\nHours of operation:\n- Monday: 5:00 PM - 9:00 PM\n"
        "- Wednesday: 5:00 PM - 9:00 PM\n- Friday: 11:00 AM - 10:00 PM"
    )
    assert [(c.span.text(answer), agrees) for c, _, agrees in checked_claims(answer, YELP)] == [
        ("Monday: 5:00 PM - 9:00 PM", True),
        ("Wednesday: 5:00 PM - 9:00 PM", False),
        ("Friday: 11:00 AM - 10:00 PM", True),
    ]
    for lead in ("Happy hour:", "Schedule:", "Mala Town is a restaurant."):
        assert checked_claims(f"{lead}\n- Wednesday: 5:00 PM - 9:00 PM", YELP) == [], lead


def test_closed_days_and_hours_on_closed_days_conflict() -> None:
    context = "Opening hours: Monday–Saturday 9:00-17:30, Sunday: closed."
    answer = "The shop is closed on Mondays and open Sunday from 10 AM to 4 PM."
    assert [(c.days, c.span.text(answer)) for c, _ in conflicting_claims(answer, context)] == [
        (frozenset({0}), "closed on Mondays"),
        (frozenset({6}), "Sunday from 10 AM to 4 PM"),
    ]
    assert conflicting_claims("It is closed on Sundays.", context) == []


def _fact(fid: str, obj: tuple[int, int], relation: tuple[int, int]) -> Fact:
    return Fact(
        id=fid,
        sentence=0,
        subject="Mala Town",
        relation="r",
        object="o",
        subject_spans=[Span(0, 9)],
        relation_spans=[Span(*relation)],
        object_spans=[Span(*obj)],
    )


def _verdict(fact: Fact, label: str, score: float) -> FactVerdict:
    return FactVerdict(
        fact=fact,
        hypothesis="h",
        probs=NLIScores(1 - score, score, 0.0),
        label=label,
        decided_by="nli",
        score=score,
    )


def test_judge_hours_contradicts_the_facts_of_a_wrong_claim() -> None:
    answer = "Mala Town is Chinese. It is open Monday to Thursday from 5:00 PM to 9:00 PM."
    chinese = _verdict(_fact("f0.0", (13, 20), (10, 12)), "supported", 0.1)
    hours = _verdict(_fact("f1.0", (50, 76), (25, 32)), "supported", 0.12)
    out = judge_hours([chinese, hours], answer, YELP)
    assert out[0] == chinese
    assert (out[1].label, out[1].decided_by, out[1].score) == (
        "contradicted",
        "hours_conflict",
        0.9,
    )
    assert [s.text(answer) for s in out[1].blamed or []] == [
        "Monday to Thursday from 5:00 PM to 9:00 PM"
    ]
    assert out[1].evidence is not None and out[1].evidence.text == "'Wednesday': '11:0-15:0'"
    # an agreeing claim vouches for a fact the verifier or grounding failed, never for one
    # another check found in conflict
    monday = "Mala Town is open Monday from 5:00 PM to 9:00 PM."
    failed = _verdict(_fact("f0.0", (18, 24), (13, 17)), "contradicted", 0.93)
    [vouched] = judge_hours([failed], monday, YELP)
    assert (vouched.label, vouched.decided_by, vouched.score) == ("supported", "hours", 0.0)
    conflict = replace(failed, decided_by="exception_conflict")
    assert judge_hours([conflict], monday, YELP) == [conflict]
    # right hours, or a context with none: the verdicts as they were
    right = answer.replace("Thursday", "Tuesday")
    assert judge_hours([chinese, hours], right, YELP) == [chinese, hours]
    assert judge_hours([chinese, hours], answer, "Mala Town serves noodles.") == [
        chinese,
        hours,
    ]


def test_a_listings_entry_is_given_with_its_quotes_a_sentences_without() -> None:
    assert context_hours(YELP)[0][1].text(YELP) == "'Monday': '17:0-21:0'"
    prose = "The shop is open 'Monday to Friday from 9 am to 5 pm' and closed at weekends."
    table = context_hours(prose)
    assert table[0][1].text(prose) == "'Monday to Friday from 9 am to 5 pm'"
    prose = "The shop is open Monday to Friday from 9 am to 5 pm."
    assert context_hours(prose)[4][1].text(prose) == "Monday to Friday from 9 am to 5 pm"
