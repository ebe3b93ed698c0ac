"""A date the context gives relative to another, written out: "in February. Three months later,
it announced …" is "In May, it announced …".

A context dates one event by another: "Vanderloo Foods completed its takeover of Crumbworth in
February. Three months later, it announced the closure of Crumbworth's factory", "The board
meeting, originally scheduled for 14 November 2023, was postponed by one week". An answer
that does the sum — "The closure was announced in May", "The meeting took place on November
21, 2023" — is right, but the small verifier cannot count: it contradicts the first (0.91),
and the value check reads "21 November" against the context's "14 November" as a conflict.

:func:`resolved_sentences` writes each context sentence that holds such a date with the date
it stands for, counted from the date it is relative to (its *anchor*):

- "N days / weeks / months / years later" (also "afterwards", "after that", "on"; "a year
  later", "the following month", "the next day") is replaced by the date: "Three months
  later, it announced" → "In May, it announced". The anchor is the last date before it, in
  its sentence or the two before, with no blank line between (another passage or section): a day date ("14 November 2023"), a month ("in February",
  "March 2021") or a year ("in 1906"). Days and weeks need a day date; months a month or a
  day; years any date with a year;
- "postponed / delayed / pushed back / put back / put off / deferred / brought forward /
  moved forward by N days / weeks / months / years" gets the date it lands on after it,
  counted from the last date before it in its sentence: "postponed by one week" → "postponed
  by one week to 21 November 2023".

A fact that failed on the verifier's reading, its words' grounding or a value conflict, and
that states the date a sentence was resolved to, is judged again against the resolved
sentence (:func:`relative_pairs`); the detector makes it ``supported`` when the verifier
entails that (``decided_by="relative_date"``, the evidence the sentences from the anchor's to
the resolved one). A wrong date is never resolved to, so it stays flagged.
"""

from __future__ import annotations

import calendar
import datetime
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from enoki_hd.text import segment_sentences
from enoki_hd.types import Evidence, FactVerdict, NLIScores, Span
from enoki_hd.verify.grounding import parse_dates, parse_numbers
from enoki_hd.verify.periods import year_count

_MONTHS = [m.lower() for m in calendar.month_name[1:]]
_MONTH_RE = "|".join(calendar.month_name[1:])
_UNIT = r"(?P<unit>day|week|month|year)s?"
_COUNT = r"(?P<n>\d{1,3}|an?|one|[a-z]+(?:-[a-z]+)?)"
_LATER_RE = re.compile(
    rf"\b(?:{_COUNT}\s+{_UNIT}\s+(?:later|afterwards?|after\s+that|on)|"
    rf"the\s+(?P<next>following|next)\s+(?P<nunit>day|week|month|year))\b",
    flags=re.IGNORECASE,
)
_SHIFT_RE = re.compile(
    r"\b(?P<verb>postponed|delayed|pushed\s+back|put\s+back|put\s+off|moved\s+back|deferred|"
    rf"brought\s+forward|moved\s+forward)\s+(?:by\s+){_COUNT}\s+{_UNIT}\b",
    flags=re.IGNORECASE,
)
# a month named alone: "in February", "by March 2021" ("May" only after a preposition)
_BARE_MONTH_RE = re.compile(
    rf"\b(?:in|by|from|since|until|till|during|of|early|late|mid-?)\s+"
    rf"(?:(?:early|late|mid-?)\s*)?(?P<month>{_MONTH_RE})(?:\s+(?P<year>1\d{{3}}|20\d\d))?\b"
)
_ANCHOR_SENTENCES = 2  # sentences before a "later" that its anchor may lie in


@dataclass(frozen=True)
class When:
    """A date as precise as the text gives it: a year, a month (of a year or of none) or a
    day."""

    year: int | None
    month: int | None = None
    day: int | None = None

    def written(self) -> str:
        """The date as an answer writes it: "21 November 2023", "May", "May 2021", "1919"."""
        if self.month is None:
            return str(self.year)
        month = calendar.month_name[self.month]
        if self.day is None:
            return month if self.year is None else f"{month} {self.year}"
        day = f"{self.day} {month}"
        return day if self.year is None else f"{day} {self.year}"


@dataclass(frozen=True)
class Resolved:
    """A context sentence with its relative date written out: ``span`` the sentence, ``text``
    the sentence as rewritten, ``when`` the date written in, ``evidence`` the context from
    the anchor's sentence to this one."""

    span: Span
    text: str
    when: When
    evidence: Span


def _count(word: str) -> int | None:
    word = word.lower()
    if word in ("a", "an"):
        return 1
    return year_count(word)


def _dates(text: str) -> list[tuple[int, When]]:
    """(end offset, date) of every date of ``text``: day dates, months, years (a year inside
    a day date or a month is that date's)."""
    spans: list[tuple[int, int, When]] = [
        (d.span.start, d.span.end, When(d.year, d.month, d.day))
        for d in parse_dates(text)
        if d.kind in ("day", "month") and d.month is not None
    ]
    for m in _BARE_MONTH_RE.finditer(text):
        if not any(start <= m.start("month") < end for start, end, _ in spans):
            year = int(m.group("year")) if m.group("year") else None
            month = _MONTHS.index(m.group("month").lower()) + 1
            spans.append((m.start("month"), m.end(), When(year, month)))
    for n in parse_numbers(text):
        if n.kind == "year" and not any(start <= n.span.start < end for start, end, _ in spans):
            spans.append((n.span.start, n.span.end, When(int(n.value))))
    return sorted(((end, when) for _, end, when in spans), key=lambda x: x[0])


def _shifted(anchor: When, n: int, unit: str) -> When | None:
    """``anchor`` moved by ``n`` units (negative: back); None when the anchor is not precise
    enough for the unit."""
    unit = unit.lower()
    if unit in ("day", "week"):
        if anchor.day is None or anchor.month is None:
            return None
        try:
            moved = datetime.date(
                anchor.year or 2001,
                anchor.month,
                anchor.day,  # 2001: no 29 February
            ) + datetime.timedelta(days=n * (7 if unit == "week" else 1))
        except ValueError:
            return None
        if anchor.year is None and moved.year != 2001:
            return None  # the year turns, and which year it is the context does not say
        return When(moved.year if anchor.year is not None else None, moved.month, moved.day)
    if unit == "month":
        if anchor.month is None:
            return None
        index = anchor.month - 1 + n
        if anchor.year is None:
            return When(None, index + 1) if 0 <= index < 12 else None
        return When(anchor.year + index // 12, index % 12 + 1)
    if anchor.year is None:
        return None
    return When(anchor.year + n)


def resolved_sentences(context: str) -> list[Resolved]:
    """Each sentence of ``context`` with a date given relative to another written out (the
    module docstring). A relative date resolved is the anchor of the next one ("Two weeks
    later, the jury retired. The verdict came the following day": the day after that), and one
    that cannot be resolved leaves the next without an anchor."""
    if not _LATER_RE.search(context) and not _SHIFT_RE.search(context):
        return []
    sentences = segment_sentences(context, backend="regex")
    dates: list[tuple[int, When | None]] = list(_dates(context))
    out: list[Resolved] = []
    for k, sentence in enumerate(sentences):
        text = sentence.text(context)
        first = sentences[max(0, k - _ANCHOR_SENTENCES)]
        found = [(m, False) for m in _LATER_RE.finditer(text)]
        found += [(m, True) for m in _SHIFT_RE.finditer(text)]
        for match, shift in sorted(found, key=lambda x: x[0].start()):
            at = sentence.start + match.start()
            anchor = _last_before(dates, sentence.start if shift else first.start, at)
            if anchor is not None and "\n\n" in context[anchor[0] : at]:
                anchor = None  # another passage or section: not what "later" counts from
            when = None if anchor is None else _resolve(match, anchor[1], shift=shift)
            dates.append((sentence.start + match.end(), when))
            dates.sort(key=lambda x: x[0])
            if when is None or anchor is None:
                continue
            if shift:
                cut = match.end()
                rewritten = f"{text[:cut]} to {when.written()}{text[cut:]}"
                out.append(Resolved(sentence, rewritten, when, sentence))
                continue
            preposition = "on" if when.day is not None else "in"
            if match.start() == 0:
                preposition = preposition.capitalize()
            written = f"{preposition} {when.written()}"
            rewritten = f"{text[: match.start()]}{written}{text[match.end() :]}"
            start = next(s.start for s in sentences if s.end >= anchor[0])
            out.append(Resolved(sentence, rewritten, when, Span(start, sentence.end)))
    return out


def _resolve(match: re.Match[str], anchor: When, *, shift: bool) -> When | None:
    """The date a "later" or a "postponed by" ``match`` stands for, from ``anchor``."""
    if not shift and match.group("next"):
        return _shifted(anchor, 1, match.group("nunit"))
    n = _count(match.group("n"))
    if n is None:
        return None
    if shift and "forward" in match.group("verb").lower():
        n = -n
    return _shifted(anchor, n, match.group("unit"))


def _last_before(
    dates: Sequence[tuple[int, When | None]], start: int, end: int
) -> tuple[int, When] | None:
    """The last of ``dates`` (by end offset) that ends in ``[start, end]``; None when there is
    none or it is a relative date that could not be resolved."""
    found = [d for d in dates if start <= d[0] <= end]
    if not found:
        return None
    at, when = found[-1]
    return None if when is None else (at, when)


def states(hypothesis: str, when: When) -> bool:
    """Whether ``hypothesis`` states the date ``when``: a day date of the same day and month
    (and year, when both give one), a month of the same month (and year), or the same year."""
    for _, date in _dates(hypothesis):
        if when.day is not None:
            if date.day == when.day and date.month == when.month and _same_year(date, when):
                return True
        elif when.month is not None:
            if date.day is None and date.month == when.month and _same_year(date, when):
                return True
        elif date.month is None and date.year == when.year:
            return True
    return False


def _same_year(a: When, b: When) -> bool:
    return a.year is None or b.year is None or a.year == b.year


_RELATIVE_DECIDERS = frozenset({"nli", "grounding", "value_conflict"})


def relative_pairs(verdicts: Sequence[FactVerdict], context: str) -> list[tuple[int, Resolved]]:
    """(verdict index, resolved sentence of ``context``) for each fact that failed on the
    verifier's reading, its words' grounding or a value conflict and states the date a
    sentence was resolved to: the pairs to judge again. The context is read only when such a
    fact states a date at all."""
    failed = [
        (i, v)
        for i, v in enumerate(verdicts)
        if v.label != "supported" and v.decided_by in _RELATIVE_DECIDERS and _dates(v.hypothesis)
    ]
    if not failed:
        return []
    resolved = resolved_sentences(context)
    return [(i, r) for i, v in failed for r in resolved if states(v.hypothesis, r.when)]


def vouch_by_relative_dates(
    verdicts: Sequence[FactVerdict],
    pairs: Sequence[tuple[int, Resolved]],
    probs: Sequence[NLIScores],
    context: str,
    threshold: float,
) -> list[FactVerdict]:
    """``verdicts`` with each fact of ``pairs`` whose resolved sentence the verifier entails
    (``probs``, in the order of ``pairs``: entailment its most likely label, a hallucination
    probability below ``threshold``) made ``supported``: ``decided_by="relative_date"``, the
    score the entailed pair's, the evidence the context from the anchor's sentence to the
    resolved one."""
    best: dict[int, tuple[Resolved, NLIScores]] = {}
    for (i, resolved), p in zip(pairs, probs, strict=True):
        if p.entailment <= max(p.neutral, p.contradiction) or p.hall_prob >= threshold:
            continue
        if i not in best or p.hall_prob < best[i][1].hall_prob:
            best[i] = (resolved, p)
    out = list(verdicts)
    for i, (resolved, p) in best.items():
        span = resolved.evidence
        out[i] = replace(
            verdicts[i],
            label="supported",
            decided_by="relative_date",
            score=round(p.hall_prob, 6),
            evidence=Evidence(span.start, span.end, span.text(context)),
            blamed=None,
        )
    return out
