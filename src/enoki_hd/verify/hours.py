"""Opening hours: an answer's "open Monday to Thursday from 5:00 PM to 9:00 PM" read day by
day against the hours the context gives each day.

Data-to-text answers restate a table of opening hours ("'hours': {'Monday': '17:0-21:0',
'Wednesday': '11:0-15:0', …}", or "Monday–Friday: 9am–5pm" in prose) in day ranges and
12-hour times, and get them wrong: a range that covers a day with other hours, a closing time
of another day. Neither the verifier (it cannot read the table, nor count days in a range) nor
word overlap (every time it writes may be in the table, for another day) sees that.

:func:`hour_claims` finds each run of days ("Monday to Thursday", "Saturday and Sunday",
"weekdays", "daily"; a day alone) given hours ("from 5:00 PM to 9:00 PM", "9am–5pm",
"17:0-21:0"), in either order with at most three of "from", "between", "on", "every",
"open", "opening", "hours", "are", "is" and a colon, a comma or quotes between (days first,
also a clause that says the hours are opening hours: "On weekends, Mala Town is open
from …"), and the days
a text marks closed ("Sunday: closed", "closed on Mondays"). The context's table is the same
claims read from the context (:func:`context_hours`): a day it gives two different ways (the
hours of two places) is left out, and so is a day whose opening and closing times are the
same ("0:0-0:0", which a table writes for closed and for open all day alike).

:func:`judge_hours` reads each claim of the answer against that table. A claim *conflicts*
when, for a day it names whose hours the context gives, the context's hours for that day are
not the claimed ones (the day closed, or other times): every fact whose spans meet the claim
is then ``contradicted`` (``decided_by="hours_conflict"``), blamed for the claim's words. A
claim *agrees* when the context gives each day it names the claimed hours: a failed fact
that states nothing but the claim ("Mala Town | is open | Monday": the verifier cannot read
the table; "open on | weekends": the context never writes the word) is then ``supported``
(``decided_by="hours"``). The evidence is the context's entry for the deciding day. Claims
the context cannot check (hours for none of their days, or for only some when all agree) are
left to the other checks.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass

from enoki_hd.types import Evidence, Fact, FactVerdict, Span
from enoki_hd.verify.grounding import parse_numbers
from enoki_hd.verify.judge import VOUCHABLE, relabel

_DAY_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# a day: its name (any case, plural too) or a capitalised abbreviation ("Mon", "Thurs.")
_DAY = (
    r"(?:(?i:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?"
    r"|(?:Mon|Tues?|Wed|Thu(?:rs?)?|Fri|Sat|Sun)\b\.?)"
)
_DAY_RE = re.compile(_DAY)
_THROUGH = r"\s*(?:-|–|—|\bto\b|\bthrough\b|\bthru\b|\buntil\b|\btill\b)\s*"
_AND = r"\s*(?:,\s*(?:and\s+|&\s*)?|\s(?:and|&)\s)\s*"
_DAYS_RE = re.compile(
    rf"(?P<days>\b{_DAY}(?:{_THROUGH}{_DAY}|(?:{_AND}{_DAY})+)?"
    r"|\b(?i:weekdays|weekends|the weekend|daily|every day|seven days a week|all week)\b)"
)
_MERIDIEM = r"(?P<half{k}>[ap])\.?\s?m\b\.?"
_TIME = (
    r"(?:(?P<hour{k}>[01]?\d|2[0-4])(?:[:.](?P<minute{k}>[0-5]\d)|:(?P<short{k}>\d))?\s?(?:"
    + _MERIDIEM
    + r")?|(?P<word{k}>noon|midday|midnight))"
)
_RANGE_RE = re.compile(
    r"(?i)(?<![\w:.])"
    + _TIME.format(k=1)
    + r"\s*(?:-|–|—|\bto\b|\buntil\b|\btill\b|\band\b)\s*"
    + _TIME.format(k=2)
    + r"(?![\w:])"
)
# a day marked closed: "Sunday: closed", "'Monday': 'Closed'"; "closed on Mondays"
_CLOSED_AFTER_RE = re.compile(r"""(?i)['"]?\s*[:–—-]\s*['"]?\s*(?:closed|shut)\b""")
_CLOSED_BEFORE_RE = re.compile(r"(?i)\b(?:closed|shut)\s+(?:on\s+)?$")
# what may stand between a run of days and its hours
_BETWEEN_RE = re.compile(
    r"""(?i)^[\s,:;('"]*(?:(?:from|between|on|every|open|opening|hours|are|is)\b[\s,:('"]*){0,3}$"""
)


@dataclass(frozen=True)
class HourClaim:
    """Days (0 = Monday) said to have ``hours`` (minutes after midnight, opening and closing;
    None: closed), and where the claim stands (its days and hours, half-open offsets)."""

    days: frozenset[int]
    hours: tuple[int, int] | None
    span: Span


def _day_index(word: str) -> int:
    lower = word.lower().rstrip(".")
    return next(i for i, name in enumerate(_DAY_NAMES) if name.startswith(lower[:3]))


def _days(text: str) -> frozenset[int]:
    lower = text.lower()
    if "weekday" in lower:
        return frozenset(range(5))
    if "weekend" in lower:
        return frozenset({5, 6})
    if any(w in lower for w in ("daily", "every day", "seven days", "all week")):
        return frozenset(range(7))
    found = list(_DAY_RE.finditer(text))
    named = [_day_index(m.group()) for m in found]
    if len(named) == 2 and re.match(_THROUGH, text[found[0].end() :]):
        first, last = named  # "Friday to Monday": the days between, across the week's end
        return frozenset((first + k) % 7 for k in range((last - first) % 7 + 1))
    return frozenset(named)


def _minutes(m: re.Match[str], k: int, half: str | None = None) -> int | None:
    """The minutes after midnight of time ``k`` of a range, in ``half`` of the day when it
    writes none ("5" of "5 to 9 PM"); None without a half of the day when the hour alone
    cannot say it."""
    word = m.group(f"word{k}")
    if word:
        return 0 if word.lower() == "midnight" else 720
    hour = int(m.group(f"hour{k}"))
    minute = int(m.group(f"minute{k}") or m.group(f"short{k}") or 0)
    half = m.group(f"half{k}") or half
    if half:
        if not 1 <= hour <= 12:
            return None
        return (hour % 12 + (12 if half.lower() == "p" else 0)) * 60 + minute
    if m.group(f"minute{k}") is None and m.group(f"short{k}") is None:
        return None  # "5" alone: the half of the day comes from the other time
    return hour * 60 + minute


def _hours(m: re.Match[str]) -> tuple[int, int] | None:
    opening, closing = _minutes(m, 1), _minutes(m, 2)
    if opening is None and closing is not None and m.group("half2"):
        # "5 to 9 PM": the first time takes the second's half of the day
        opening = _minutes(m, 1, half=m.group("half2"))
    if opening is None or closing is None:
        return None
    if closing == 0:
        closing = 1440  # closing at midnight ("0:0", "24:00", "12 AM")
    return opening, closing


# "On weekends, Mala Town is open from": days before their clause, the hours in it
_OPENING_SAID_RE = re.compile(r"(?i)\b(?:open|opens|opening|hours|operates|operating)\b")


def _opening_said(between: str) -> bool:
    """Whether the words between a run of days and hours say the hours are opening hours,
    within one clause: at most 60 characters, no number and no end of a sentence."""
    return (
        len(between) <= 60
        and not re.search(r"[\d.;!?]", between)
        and _OPENING_SAID_RE.search(between) is not None
    )


def _end(m: re.Match[str]) -> int:
    """The end of a range, without the full stop of a sentence that ends on "PM." (the dots
    of "p.m." stay)."""
    half = m.group("half2") and m.group()[m.start("half2") - m.start() :]
    if half and half.endswith(".") and half.count(".") == 1:
        return m.end() - 1
    return m.end()


def hour_claims(text: str) -> list[HourClaim]:
    """The runs of days given hours (or marked closed) in ``text``, in order."""
    runs = list(_DAYS_RE.finditer(text))
    ranges = [(m, _hours(m)) for m in _RANGE_RE.finditer(text)]
    claims: list[HourClaim] = []
    used: set[int] = set()
    for run in runs:
        days = _days(run.group("days"))
        if not days:
            continue
        closed = _CLOSED_AFTER_RE.match(text, run.end())
        if closed is not None:
            claims.append(HourClaim(days, None, Span(run.start(), closed.end())))
            continue
        before = _CLOSED_BEFORE_RE.search(text, max(0, run.start() - 16), run.start())
        if before is not None:
            claims.append(HourClaim(days, None, Span(before.start(), run.end())))
            continue
        # the first range after the days, if only "from", a colon … stand between
        j, (m, hours) = next(
            ((j, r) for j, r in enumerate(ranges) if r[0].start() >= run.end()), (-1, (None, None))
        )
        if m is None or j in used or hours is None:
            continue
        between = text[run.end() : m.start()]
        if _BETWEEN_RE.match(between) or _opening_said(between):
            claims.append(HourClaim(days, hours, Span(run.start(), _end(m))))
            used.add(j)
    for j, (m, hours) in enumerate(ranges):
        if j in used or hours is None:
            continue
        after = next((run for run in runs if run.start() >= m.end()), None)
        if after is not None and _BETWEEN_RE.match(text[m.end() : after.start()]):
            days = _days(after.group("days"))
            if days and not any(c.span.start == after.start() for c in claims):
                claims.append(HourClaim(days, hours, Span(m.start(), after.end())))
    return sorted(claims, key=lambda c: c.span.start)


# what ends a sentence: "!", "?", a line break, a full stop before a capital
_SENTENCE_END_RE = re.compile(r"[!?\n]|\.(?=\s+[A-Z])")
# an exception just before a run of days: "every day except Mondays"
_EXCEPT_RE = re.compile(r"(?i)\b(?:except|but not|other than|apart from|excluding)\s+(?:on\s+)?$")


def _quoted(text: str, span: Span) -> Span:
    """``span`` with the quotes around it when a listing's pair starts and ends inside them
    ("Wednesday': '11:0-15:0" → "'Wednesday': '11:0-15:0'"), so that the evidence reads as
    the context writes it."""
    quote = text[span.start - 1] if span.start > 0 else ""
    if quote in ("'", '"') and span.end < len(text) and text[span.end] == quote:
        return Span(span.start - 1, span.end + 1)
    return span


def context_hours(context: str) -> dict[int, tuple[tuple[int, int] | None, Span]]:
    """Per day (0 = Monday), the hours the context gives it (None: closed) and where. Left
    out: a day given two different ways, with the same opening and closing time, excepted
    from a claim ("every day except Mondays") or named beside a time of day outside a claim
    ("On Saturdays it closes early, at 4 pm"): the context says more of it than a claim
    reads."""
    table: dict[int, tuple[tuple[int, int] | None, Span]] = {}
    claims = hour_claims(context)
    ambiguous: set[int] = set()
    for claim in claims:
        if claim.hours is not None and claim.hours[0] == claim.hours[1] % 1440:
            ambiguous |= claim.days
            continue
        for day in claim.days:
            if day in table and table[day][0] != claim.hours:
                ambiguous.add(day)
            table.setdefault(day, (claim.hours, _quoted(context, claim.span)))
    ends = [m.start() for m in _SENTENCE_END_RE.finditer(context)]
    for run in _DAYS_RE.finditer(context):
        if any(c.span.start <= run.start() and run.end() <= c.span.end for c in claims):
            continue
        sentence = _sentence(context, Span(run.start(), run.end()), ends)
        if _EXCEPT_RE.search(context, max(0, run.start() - 24), run.start()) or any(
            n.kind == "time" for n in parse_numbers(sentence.text(context))
        ):
            ambiguous |= _days(run.group("days"))
    return {day: entry for day, entry in table.items() if day not in ambiguous}


# a sentence that says the hours are opening hours, and none that says they are those of a
# meal, a service or an offer ("Happy hour runs daily from 3 to 6 PM")
_OPENING_WORDS_RE = re.compile(r"(?i)\b(?:open\w*|hours|operat\w*|clos\w*|shut)\b")
_OTHER_HOURS_RE = re.compile(
    r"(?i)\b(?:happy hours?|brunch|breakfast|lunch|dinner|kitchen|delivery|deliveries|"
    r"takeout|take-out|bar|buffet|specials?|served|serves|serving|events?|classes|sessions?|"
    r"visiting|office hours|pharmacy|drive-thru|appointments?)\b"
)


def _sentence(text: str, span: Span, ends: list[int] | None = None) -> Span:
    """The sentence of ``text`` that ``span`` stands in (ended by "!", "?", a line break, or
    a full stop before a capital); ``ends``: where the text's sentence ends are (the
    :data:`_SENTENCE_END_RE` matches' starts), found once for many spans of one text."""
    if ends is None:
        ends = [m.start() for m in _SENTENCE_END_RE.finditer(text)]
    k = bisect.bisect_left(ends, span.start)  # the first end at or after the span's start
    start = ends[k - 1] + 1 if k > 0 else 0
    after = bisect.bisect_left(ends, span.end)
    return Span(start, ends[after] if after < len(ends) else len(text))


# a line that leads a list in ("Hours of operation:", "**Opening hours**:")
_LEAD_IN_RE = re.compile(r"(?m)^[^\n]*:[*_\s]*$")
# a line of a list: a bullet or number, or a day's name, first
_LIST_LINE_RE = re.compile(rf"^\s*(?:[-*•+]|\d+[.)]|{_DAY})")


def _says_opening_hours(text: str, span: Span) -> bool:
    """Whether the sentence of ``span`` in ``text`` speaks of opening hours and of no other
    hours — or, when the sentence is a line of a list ("- Monday: 5:00 PM - 9:00 PM"), the
    line that leads the list in ("Hours of operation:") does."""
    sentence = _sentence(text, span)
    said = sentence.text(text)
    if _OTHER_HOURS_RE.search(said):
        return False
    if _OPENING_WORDS_RE.search(said):
        return True
    lines = text[: sentence.start].split("\n")
    if lines and not lines[-1].strip():
        lines.pop()  # the line break that ends the line before
    while lines and _LIST_LINE_RE.match(lines[-1]) and not _LEAD_IN_RE.match(lines[-1]):
        lines.pop()  # the list's lines above this one
    lead = lines[-1] if lines else ""
    return bool(
        _LEAD_IN_RE.match(lead)
        and _OPENING_WORDS_RE.search(lead)
        and not _OTHER_HOURS_RE.search(lead)
    )


def checked_claims(answer: str, context: str) -> list[tuple[HourClaim, Span, bool]]:
    """The answer's claims the context's hours can check: each with the context's entry that
    decides it and whether it agrees. Only a claim whose sentence speaks of opening hours
    ("open", "hours", "operates", "closes") and of no other (a meal, happy hour, the
    kitchen, delivery, events) is checked. A claim conflicts when a day it names has other hours in
    the context (the entry: the first such day's); it agrees when the context gives every day
    it names, each the claimed hours (the entry: its first day's)."""
    claims = [c for c in hour_claims(answer) if _says_opening_hours(answer, c.span)]
    # ("Happy hour runs daily from 3 to 6 PM": not the table's hours)
    table = context_hours(context) if claims else {}
    if not table:
        return []
    out = []
    for claim in claims:
        days = sorted(claim.days)
        wrong = next((d for d in days if d in table and table[d][0] != claim.hours), None)
        if wrong is not None:
            out.append((claim, table[wrong][1], False))
        elif all(d in table for d in days):
            out.append((claim, table[days[0]][1], True))
    return out


def conflicting_claims(answer: str, context: str) -> list[tuple[HourClaim, Span]]:
    """The answer's claims that the context's hours deny, each with the context's entry for
    the first day it gets wrong."""
    return [(c, entry) for c, entry, agrees in checked_claims(answer, context) if not agrees]


# words a fact may add to the days and hours of a claim and still state nothing but them
_HOURS_WORDS = frozenset(
    (
        *("is", "are", "was", "were", "be", "open", "opens", "opened", "closes", "closed"),
        *("close", "shut", "hours", "opening", "operates", "operating", "from", "to"),
        *("until", "till", "between", "on", "at", "and", "every", "daily"),
    )
)


def _only_hours(fact: Fact, claim: HourClaim, answer: str) -> bool:
    """Whether the fact states nothing but the claim: its object (not empty) inside the claim,
    its relation's words inside it or words of opening hours; or all its relation's and
    object's words words of opening hours ("is | open") in the claim's clause (at most 60
    characters away, no end of a sentence between)."""
    inside = claim.span
    said = " ".join(s.text(answer) for s in fact.relation_spans + fact.object_spans)
    words = re.findall(r"[\w']+", said.lower())
    if words and all(w in _HOURS_WORDS for w in words):
        parts = fact.relation_spans + fact.object_spans
        start, end = min(p.start for p in parts), max(p.end for p in parts)
        gap = answer[end : inside.start] if end <= inside.start else answer[inside.end : start]
        return len(gap) <= 60 and re.search(r"[.;!?]", gap) is None
    if not fact.object_spans or not all(
        inside.start <= s.start and s.end <= inside.end for s in fact.object_spans
    ):
        return False
    for span in fact.relation_spans:  # its words outside the claim
        outside = answer[span.start : max(span.start, min(span.end, inside.start))]
        outside += " " + answer[min(span.end, max(span.start, inside.end)) : span.end]
        if not all(w in _HOURS_WORDS for w in re.findall(r"[\w']+", outside.lower())):
            return False
    return True


def judge_hours(verdicts: Sequence[FactVerdict], answer: str, context: str) -> list[FactVerdict]:
    """``verdicts`` with the facts of the answer's hour claims that the context checks
    (:func:`checked_claims`) relabelled: every fact that meets a conflicting claim
    ``contradicted`` (``decided_by="hours_conflict"``, at least the contradiction floor),
    blamed for the claim; every fact failed by the verifier, its words' grounding or an absent
    name that states nothing but an agreeing claim (its object inside the claim, its relation
    inside it or words of opening hours: "Mala Town | is open | Monday") ``supported``
    (``decided_by="hours"``, score 0) — the table decides what neither the verifier nor word
    overlap can read. The evidence: the context's entry for the deciding day
    (:func:`~enoki_hd.verify.judge.relabel`)."""
    checked = checked_claims(answer, context) if verdicts else []
    if not checked:
        return list(verdicts)
    out = []
    for verdict in verdicts:
        fact = verdict.fact
        parts = fact.subject_spans + fact.relation_spans + fact.object_spans
        for claim, entry, agrees in checked:
            evidence = Evidence(entry.start, entry.end, entry.text(context))
            if not agrees and any(
                p.start < claim.span.end and claim.span.start < p.end for p in parts
            ):
                verdict = relabel(verdict, "contradicted", "hours_conflict", evidence, [claim.span])
                break
            if (
                agrees
                and verdict.label != "supported"
                and verdict.decided_by in VOUCHABLE
                and _only_hours(fact, claim, answer)
            ):
                verdict = relabel(verdict, "supported", "hours", evidence)
                break
        out.append(verdict)
    return out
