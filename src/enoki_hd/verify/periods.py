"""A decade or century the context dates by a year inside it; a length in years it dates by
two years.

An answer generalises: the context says "founded in 1998", the answer "founded in the late
1990s". The small verifier reads the two as different dates and calls the fact contradicted
(entailment 0.03), and grounding cannot find "late" in the context; neither is a hallucination.
Whatever entails "founded in 1998" entails "founded in the late 1990s", so a fact that failed
and dates itself by a decade or a century ("the 1990s", "the early 1930s", "the mid-1990s",
"the 19th century", "the late nineteenth century") is judged again with the period replaced
by each year of its evidence that lies inside it (:func:`restated_periods`); when the verifier
entails one of those restatements, the fact is supported (``decided_by="period"``; see
:meth:`~enoki_hd.verify.judge.FactJudge.vouch_by_periods`). The same year for another event
is no support, and the small verifier cannot be trusted to see it (it entails "The band split
up in 1994" from "The band formed in 1994 and split up in 2005"), so the year must be the one
the evidence gives the fact's relation (:func:`relation_years`): the first year after a word
of the relation in its sentence, else the last one before it ("split … in 2005"); when no
word of the relation is in the evidence, its only year, if it states one.

Inside a period: a decade's ten years ("the 1990s": 1990–1999); "early", "mid" and "late"
its first five, its middle five and its last four (1990–1994, 1993–1997, 1996–1999); a
century's hundred years ("the 19th century": 1800–1899; "early", "mid", "late" its first 40,
middle 40 and last 40). A decade that ends a century ("the 1900s") is read as the century too
(1900–1999), as writers use it. Years are four-digit numbers of the evidence from 1000 to 2099
that are not part of a longer number, an amount or a percentage, a decade themselves or a
range's end.

A length in years is the same kind of generalisation: the context says "served as director
from 1996 until her retirement in 2014", the answer "directed the observatory for 18 years".
The verifier does not do the sum, and "18" is in no context. :func:`restated_durations` puts
the period back ("directed the observatory from 1996 to 2014"; 19 years, counted inclusively,
too), and the verifier judges that. The duration check of :mod:`enoki_hd.verify.conflicts`
reads the same periods the other way: a length more than a year from the period's is
contradicted. A length in weeks or days ("The strike lasted two weeks") is restated the same
way against a sentence that gives a period by two dates of a day, a day either way ("began on
3 March and ended on 17 March": "… lasted from 3 March to 17 March"; :func:`elapsed_days`);
no check contradicts a wrong one (the verifier and grounding see "three weeks").
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterator
from dataclasses import dataclass

from enoki_hd.text import segment_sentences
from enoki_hd.verify.grounding import parse_dates

# the qualifier before a period: its part of the decade or century, as offsets into it
_DECADE_PARTS = {"early": (0, 4), "mid": (3, 7), "late": (6, 9)}
_CENTURY_PARTS = {"early": (0, 39), "mid": (30, 69), "late": (60, 99)}
_QUALIFIER_RE = re.compile(
    r"(?:\bthe\s+)?(?:\b(?P<part>early|mid|late)(?:\s+|-))?$", flags=re.IGNORECASE
)
_THE_RE = re.compile(r"\bthe\s+$", flags=re.IGNORECASE)
# a year of the evidence: four digits from 1000 to 2099 standing alone, not "$1998", "1998%",
# "1,998", "1998.5", "1990s", "1998-2001" (a range: its end is not the event's year)
_YEAR_RE = re.compile(r"(?<![\w$€£.,\-–/])(?P<year>1\d{3}|20\d{2})(?![\w%.,]\d|[\w%\-–/])")


@dataclass(frozen=True)
class Period:
    """A decade or century of a text: ``start``/``end`` its characters (qualifier and "the"
    included), ``first``/``last`` the years inside it."""

    start: int
    end: int
    first: int
    last: int


def periods(text: str) -> list[Period]:
    """The decades and centuries ``text`` names, with their qualifiers."""
    found = []
    for date in parse_dates(text):
        if date.kind not in ("decade", "century") or date.year is None:
            continue
        start = date.span.start
        before = text[:start]
        qualifier = _QUALIFIER_RE.search(before)
        part = qualifier.group("part") if qualifier else None
        if qualifier is not None and qualifier.group(0):
            start = qualifier.start()
        elif (the := _THE_RE.search(before)) is not None:
            start = the.start()
        year = date.year
        if date.kind == "decade" and year % 100 != 0:
            low, high = _DECADE_PARTS.get(part.lower(), (0, 9)) if part else (0, 9)
        else:  # a century, or "the 1900s" read as one
            low, high = _CENTURY_PARTS.get(part.lower(), (0, 99)) if part else (0, 99)
        found.append(Period(start, date.span.end, year + low, year + high))
    return found


def _year_mentions(text: str) -> list[tuple[int, int]]:
    """(character offset, year) of each year ``text`` states (see the module docstring)."""
    return [(m.start(), int(m.group("year"))) for m in _YEAR_RE.finditer(text)]


def years(text: str) -> list[int]:
    """The years ``text`` states, each once, in order."""
    return list(dict.fromkeys(year for _, year in _year_mentions(text)))


# words of a relation that say nothing of which event it is
_FUNCTION_WORDS = frozenset(
    {"was", "were", "is", "are", "be", "been", "being", "has", "have", "had", "did", "does",
     "the", "and", "not", "its", "his", "her", "their", "from", "into", "with", "for", "about",
     "after", "before", "during", "since", "until", "than", "then", "also", "first", "later"}
)  # fmt: skip
_WORD_RE = re.compile(r"[^\W\d_]{3,}")
_SENTENCE_END_RE = re.compile(r"[.!?;](?:\s|$)|\n")


def _stem(word: str) -> str:
    """A word's first letters, enough to meet its other forms ("founded", "founding")."""
    word = word.lower()
    return word[: max(4, len(word) - 3)]


def relation_years(evidence: str, relation: str) -> list[int]:
    """The years ``evidence`` gives the event ``relation`` names (see the module docstring)."""
    stems = {_stem(w) for w in _WORD_RE.findall(relation) if w.lower() not in _FUNCTION_WORDS}
    stated = _year_mentions(evidence)
    if not stated:
        return []
    ends = [m.start() for m in _SENTENCE_END_RE.finditer(evidence)]
    found: dict[int, None] = {}
    for word in _WORD_RE.finditer(evidence):
        if not stems or _stem(word.group()) not in stems:
            continue
        start = max((e for e in ends if e < word.start()), default=-1)
        end = min((e for e in ends if e >= word.end()), default=len(evidence))
        after = [y for at, y in stated if word.end() <= at <= end]
        before = [y for at, y in stated if start < at < word.start()]
        if after:
            found.setdefault(after[0], None)
        elif before:
            found.setdefault(before[-1], None)
    if found:
        return list(found)
    matched = stems and any(_stem(w.group()) in stems for w in _WORD_RE.finditer(evidence))
    distinct = {y for _, y in stated}
    return [] if matched or len(distinct) != 1 else list(distinct)


def restated_periods(hypothesis: str, evidence: str, relation: str) -> Iterator[str]:
    """``hypothesis`` with one of its periods replaced by a year ``evidence`` gives
    ``relation`` (:func:`relation_years`) inside it, for every such pair (none when it names
    no period or the evidence no such year)."""
    stated = relation_years(evidence, relation)
    for period in periods(hypothesis):
        for year in stated:
            if period.first <= year <= period.last:
                yield f"{hypothesis[: period.start]}{year}{hypothesis[period.end :]}"


# "for 22 years", "lasted 22 years", "spent twenty-two years": a length of time stated
# plainly (a hedge before the number, "for nearly 22 years", "for over 20 years", is none)
DURATION_RE = re.compile(
    r"\b(?:for|lasted|lasting|spent|spending)\s+(?P<n>\d{1,3}|[a-z]+(?:-[a-z]+)?)\s+years?\b",
    flags=re.IGNORECASE,
)
# a period given by two years: "from 1996 until her retirement in 2014", "from 1996 to 2014",
# "between 1996 and 2014" (up to five words between the second word and the second year)
_YEAR = r"(?:1[0-9]|20)\d\d"
_PERIOD_RE = re.compile(
    rf"\b(?:from\s+(?P<a>{_YEAR})\s*,?\s+(?:until|till|to|through)\b"
    rf"|between\s+(?P<c>{_YEAR})\s+and\b)"
    rf"(?:\s+[^\s\d;]+){{0,5}}?\s+(?P<b>{_YEAR})(?![\w%])",
    flags=re.IGNORECASE,
)
_COUNT_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty"
)
_COUNTS = {w: n for n, w in enumerate(_COUNT_WORDS.split())}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70}


def year_count(word: str) -> int | None:
    """A whole number of years as written: "22", "twelve", "twenty-two"; None otherwise."""
    word = word.lower()
    if word.isdigit():
        return int(word)
    if word in _COUNTS:
        return _COUNTS[word]
    if word in _TENS:
        return _TENS[word]
    tens, _, unit = word.partition("-")
    if tens in _TENS and 0 < _COUNTS.get(unit, 0) < 10:
        return _TENS[tens] + _COUNTS[unit]
    return None


def elapsed_years(sentence: str) -> tuple[int, int] | None:
    """The two years of the one period ``sentence`` gives ("from 1996 until her retirement in
    2014" → (1996, 2014)); None when it gives none, more than one, or an end before its
    start."""
    found = list(_PERIOD_RE.finditer(sentence))
    if len(found) != 1:
        return None
    first = int(found[0].group("a") or found[0].group("c"))
    last = int(found[0].group("b"))
    return (first, last) if last > first else None


def duration_phrases(hypothesis: str) -> list[tuple[int, int, int]]:
    """(start, end, years) of each plainly stated length in years of ``hypothesis``: the
    number and its "years" ("for 18 years" → the characters of "18 years"); a length in weeks
    or days (:func:`day_duration_phrases`) counts too, its number of years 0."""
    out = []
    for match in DURATION_RE.finditer(hypothesis):
        years = year_count(match.group("n"))
        if years is not None:
            out.append((match.start("n"), match.end(), years))
    out += [(start, end, 0) for start, end, _ in day_duration_phrases(hypothesis)]
    return sorted(out)


# "lasted two weeks", "for 15 days": a length in weeks or days stated plainly
_DAY_DURATION_RE = re.compile(
    r"\b(?:for|lasted|lasting|spent|spending)\s+(?P<n>\d{1,3}|[a-z]+(?:-[a-z]+)?)\s+"
    r"(?P<unit>days?|weeks?)\b",
    flags=re.IGNORECASE,
)
# what opens a period's first day and what joins it to its last: "from 3 March to 17 March",
# "began on 3 March and ended on 17 March", "ran from March 3 until March 17"
_DAY_OPENING_RE = re.compile(
    r"\b(?:from|on|began|started|opened|commenced)\s+(?:on\s+)?$", flags=re.IGNORECASE
)
_DAY_JOIN_RE = re.compile(
    r"^\s*,?\s*(?:to|until|till|through|and\s+(?:ended|finished|closed|concluded|ran\s+until)"
    r"(?:\s+on)?)\s+$",
    flags=re.IGNORECASE,
)


def day_duration_phrases(hypothesis: str) -> list[tuple[int, int, int]]:
    """(start, end, days) of each plainly stated length in weeks or days of ``hypothesis``
    ("lasted two weeks" → the characters of "two weeks", 14)."""
    out = []
    for match in _DAY_DURATION_RE.finditer(hypothesis):
        count = year_count(match.group("n"))
        if count is not None:
            days = count * 7 if match.group("unit").lower().startswith("week") else count
            out.append((match.start("n"), match.end(), days))
    return out


def elapsed_days(sentence: str) -> tuple[str, str, int] | None:
    """The first and last day of the one period ``sentence`` gives by two dates of a day
    ("began on 3 March and ended on 17 March" → ("3 March", "17 March", 14)), in one year;
    None when it gives no such period, more than one, or an end before its start."""
    days = [d for d in parse_dates(sentence) if d.kind == "day"]
    if len(days) != 2:
        return None
    first, last = days
    if not _DAY_OPENING_RE.search(sentence[: first.span.start]):
        return None
    if not _DAY_JOIN_RE.match(sentence[first.span.end : last.span.start]):
        return None
    if first.year is not None and last.year is not None and first.year != last.year:
        return None
    year = last.year or first.year or 2001  # a year without 29 February, when none is given
    if first.month is None or first.day is None or last.month is None or last.day is None:
        return None
    try:
        start = datetime.date(year, first.month, first.day)
        end = datetime.date(year, last.month, last.day)
    except ValueError:
        return None
    if end <= start:
        return None
    return first.text, last.text, (end - start).days


def restated_durations(hypothesis: str, evidence: str) -> Iterator[str]:
    """``hypothesis`` with a length in years ("Årdal directed the observatory for 18 years")
    restated as the period of an evidence sentence that lasts it, or a year more when counted
    inclusively ("… from 1996 to 2014", of "from 1996 until her retirement in 2014"); the
    verifier then reads dates, which it can, instead of doing sums, which it cannot."""
    yield from _restated_day_durations(hypothesis, evidence)
    phrases = [p for p in duration_phrases(hypothesis) if p[2] > 0]
    if not phrases:
        return
    for span in segment_sentences(evidence, backend="regex"):
        period = elapsed_years(span.text(evidence))
        if period is None:
            continue
        first, last = period
        for start, end, years in phrases:
            if years in (last - first, last - first + 1):
                yield _as_period(hypothesis, start, end, str(first), str(last))


def _restated_day_durations(hypothesis: str, evidence: str) -> Iterator[str]:
    """``hypothesis`` with a length in weeks or days ("The strike lasted two weeks") restated
    as the period of an evidence sentence that lasts it, a day either way ("… lasted from 3
    March to 17 March", of "began on 3 March and ended on 17 March")."""
    phrases = day_duration_phrases(hypothesis)
    if not phrases:
        return
    for span in segment_sentences(evidence, backend="regex"):
        period = elapsed_days(span.text(evidence))
        if period is None:
            continue
        first, last, elapsed = period
        for start, end, days in phrases:
            if abs(days - elapsed) <= 1:
                yield _as_period(hypothesis, start, end, first, last)


def _as_period(hypothesis: str, start: int, end: int, first: str, last: str) -> str:
    """``hypothesis`` with the length at ``start:end`` written as the period from ``first`` to
    ``last``: "for 18 years" → "from 1996 to 2014", "lasted two weeks" → "lasted from 3 March
    to 17 March" (a "for" before the length is replaced, any other word kept)."""
    opening = hypothesis.rfind(" ", 0, start - 1) + 1
    if hypothesis[opening : start - 1].lower() != "for":
        opening = start
    return f"{hypothesis[:opening]}from {first} to {last}{hypothesis[end:]}"


# "some 44 years after the reservoir was completed", "two years before it moved into its
# present boathouse": the time between the fact's event and another the context dates
_RELATIVE_YEARS_RE = re.compile(
    r"\b(?P<hedge>(?:some|about|around|nearly|almost|roughly|approximately|just|over|more\s+"
    r"than|less\s+than|only)\s+)?(?P<n>\d{1,3}|[a-z]+(?:-[a-z]+)?)(?P<unit>\s+years?)\s+"
    r"(?P<dir>after|before|later\s+than|earlier\s+than|prior\s+to)\s+(?P<event>[^.;!?]+)",
    flags=re.IGNORECASE,
)


def relative_year_phrases(hypothesis: str) -> list[tuple[int, int]]:
    """(start, end) of the number and its "years" of each time between two events
    ``hypothesis`` states ("44 years" of "some 44 years after the reservoir was
    completed")."""
    return [
        (m.start("n"), m.end("unit"))
        for m in _RELATIVE_YEARS_RE.finditer(hypothesis)
        if year_count(m.group("n"))
    ]


def restated_relative_years(hypothesis: str, context: str) -> Iterator[str]:
    """``hypothesis`` with a time between its event and another ("Fire destroyed the
    premises two years before it moved into its present boathouse") restated as the year it
    puts its own event in, counted from each year ``context`` gives the other event
    (:func:`relation_years` of the other event's words): "Fire destroyed the premises in 1950,
    before it moved into its present boathouse" for a context that dates the move 1952. A
    hedged time ("some 44 years") is restated a year either way too. The verifier then reads
    a year, which it can, instead of doing the sum, which it cannot."""
    for match in _RELATIVE_YEARS_RE.finditer(hypothesis):
        count = year_count(match.group("n"))
        if not count:
            continue
        event = match.group("event").strip()
        later = match.group("dir").lower() in ("after", "later than")
        spread = (-1, 0, 1) if match.group("hedge") else (0,)
        word = "after" if later else "before"
        for anchor in relation_years(context, event):
            for extra in spread:
                year = anchor + count + extra if later else anchor - count - extra
                yield (
                    f"{hypothesis[: match.start()]}in {year}, {word} {event}"
                    f"{hypothesis[match.start('event') + len(match.group('event')) :]}"
                )
