"""Rendering a :class:`~enoki_hd.types.Report` as JSON, Markdown or one self-contained HTML page.

Every renderer is deterministic: the same report gives byte-identical output, so rendered
reports can be diffed. Timings vary from run to run; they appear only in JSON, and
``render_json(..., stable=True)`` drops them. Markdown and HTML leave them out.

Hallucinated spans are half-open ``[start, end)`` character offsets into the answer. The
renderers mark ``answer[start:end]``; spans are expected to be merged and non-overlapping
upstream, but overlapping or out-of-range spans are clipped (with a warning), never a crash.

Every score shown is a hallucination score in [0, 1] — higher means more likely unsupported —
and the tables name it so. An evidence window is shown with its ``focus`` (the window's
best-matching sentence, :class:`~enoki_hd.types.EvidenceFocus`) in bold (Markdown) or in
``<mark class="focus">`` (HTML); JSON carries it as ``evidence.focus {start, end, text}``.
"""

from __future__ import annotations

import html
import json
import logging
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

from enoki_hd.extract.verbalize import CLAUSE_SOURCE
from enoki_hd.types import Evidence, FactVerdict, HallucinatedSpan, Report, SentenceVerdict

logger = logging.getLogger(__name__)

ReportFormat = Literal["json", "md", "html"]
REPORT_FORMATS: tuple[str, ...] = ("json", "md", "html")

# One line per non-``ok`` status, shown instead of empty tables.
STATUS_EXPLANATIONS: dict[str, str] = {
    "empty_answer": "The answer is empty: there is nothing to check.",
    "no_context": "No reference context was given, so the answer could not be checked.",
    "no_facts": (
        "No facts could be extracted from the answer, so no fact was checked "
        "(this is not a verdict of 'supported')."
    ),
    "no_claims": (
        "No sentence of the answer states a checkable fact (headings, lead-ins, questions, "
        "meta remarks, opinions), so nothing was checked."
    ),
}

_LABEL_ORDER = ("supported", "contradicted", "unverifiable", "unsupported_language")
_MISSING = "—"

# The column that holds FactVerdict.score / SentenceVerdict.score, and what it means.
SCORE_COLUMN = "hallucination score"
SCORE_LEGEND = (
    "hallucination score: 0–1, higher = more likely unsupported by the context "
    "(it is not a confidence in support)"
)
FOCUS_LEGEND = (
    "evidence: the context window the verdict was decided on; its sentence that best matches "
    "the fact or sentence (by retrieval score, not a separate verdict) is highlighted"
)


# ---------------------------------------------------------------------------------------------
# JSON
# ---------------------------------------------------------------------------------------------


def _report_dict(report: Report, *, stable: bool) -> dict[str, Any]:
    data = report.to_dict()
    if stable:
        del data["timings"]
    return data


def render_json(report: Report, *, indent: int | None = 2, stable: bool = False) -> str:
    """``report.to_dict()`` as JSON text, byte-identical for the same report.

    ``stable=True`` drops ``timings`` (they vary run to run) so two runs can be diffed; the
    result then no longer has a ``timings`` key (``Report.from_dict`` reads it as empty).
    """
    return json.dumps(
        _report_dict(report, stable=stable), ensure_ascii=False, indent=indent, sort_keys=False
    )


def batch_to_jsonl(reports: Iterable[Report], *, stable: bool = False) -> str:
    """One compact JSON line per report, each ending in a newline ("" for no reports)."""
    return "".join(render_json(r, indent=None, stable=stable) + "\n" for r in reports)


# ---------------------------------------------------------------------------------------------
# Shared helpers
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Segment:
    """A run of answer characters, marked when ``span`` is the hallucinated span covering it."""

    text: str
    span: HallucinatedSpan | None


def _answer_segments(answer: str, spans: list[HallucinatedSpan]) -> list[_Segment]:
    """Cut ``answer`` into plain and marked runs that together are exactly ``answer``.

    Spans are half-open character offsets into ``answer``. A span overlapping an earlier one
    is clipped to start where the earlier one ends; a span past the end of the answer is
    clipped to it; a span left empty by clipping is skipped.
    """
    segments: list[_Segment] = []
    cursor = 0
    for span in sorted(spans, key=lambda s: (s.start, s.end)):
        start = max(span.start, cursor)
        end = min(span.end, len(answer))
        if (start, end) != (span.start, span.end):
            logger.warning(
                "hallucinated span [%d, %d) overlaps another span or runs past the answer "
                "(length %d); rendering it clipped to [%d, %d)",
                span.start,
                span.end,
                len(answer),
                start,
                max(start, end),
            )
        if end <= start:
            continue
        if answer[start:end] != span.text and (start, end) == (span.start, span.end):
            logger.warning(
                "hallucinated span [%d, %d) has text %r but the answer there reads %r; "
                "marking the answer's characters",
                span.start,
                span.end,
                span.text,
                answer[start:end],
            )
        if cursor < start:
            segments.append(_Segment(answer[cursor:start], None))
        segments.append(_Segment(answer[start:end], span))
        cursor = end
    if cursor < len(answer):
        segments.append(_Segment(answer[cursor:], None))
    return segments


def _score(value: float | None) -> str:
    return _MISSING if value is None else f"{value:.2f}"


def _faithfulness_text(report: Report) -> str:
    """``0.67 (2/3 supported)``, or ``n/a`` when nothing was checked."""
    summary = report.summary
    text = _score(summary.faithfulness) if summary.faithfulness is not None else "n/a"
    if summary.checked:
        text += f" ({summary.counts.get('supported', 0)}/{summary.checked} supported)"
    return text


def _ordered_counts(counts: dict[str, int]) -> list[tuple[str, int]]:
    known = [(label, counts[label]) for label in _LABEL_ORDER if label in counts]
    return known + sorted((k, v) for k, v in counts.items() if k not in _LABEL_ORDER)


def _fact_triple(verdict: FactVerdict) -> str:
    fact = verdict.fact
    if fact.source == CLAUSE_SOURCE:  # a clause no fact covered, judged whole: no triple
        return fact.subject
    return f"{fact.subject} · {fact.relation} · {fact.object}"


def _fact_note(verdict: FactVerdict) -> str:
    parts = []
    if verdict.suppressed:
        by = f" by {verdict.suppressed_by}" if verdict.suppressed_by else ""
        parts.append(f"suppressed{by}")
    if verdict.fact.source == CLAUSE_SOURCE:
        parts.append("a clause no fact covered, judged whole")
    if verdict.inherited_from:  # not sent to the verifier: a refinement's decision
        parts.append(f"inherited from {verdict.inherited_from}")
    if verdict.decided_by == "sentence":  # sentence_entailment: its probs are the fact's own
        parts.append(
            "its sentence entailed whole; the fact alone: not entailed "
            f"{verdict.probs.hall_prob:.2f}"
        )
    if verdict.decided_by == "period":  # its probs are the fact's own, as written
        parts.append(
            "restated with a year its evidence gives inside the decade or century; as "
            f"written: not entailed {verdict.probs.hall_prob:.2f}"
        )
    parts.append(f"decided_by: {verdict.decided_by}")
    return "; ".join(parts)


# Markdown tables show at most this many characters of an evidence window besides its focus
# sentence, which is always shown whole (JSON and HTML keep the whole window).
MARKDOWN_EVIDENCE_CHARS = 200


def _evidence_parts(evidence: Evidence) -> tuple[str, str, str]:
    """``(before, focus, after)``: the window's text split around its focus sentence (``focus``
    is "" when there is none, or when the focus does not lie inside the window's text)."""
    text, focus = evidence.text, evidence.focus
    if focus is None:
        return text, "", ""
    start, end = focus.start - evidence.start, focus.end - evidence.start
    if not 0 <= start <= end <= len(text) or text[start:end] != focus.text:
        logger.warning(
            "evidence focus [%d, %d) %r is not inside its window [%d, %d); showing the window "
            "without it",
            focus.start,
            focus.end,
            focus.text,
            evidence.start,
            evidence.end,
        )
        return text, "", ""
    return text[:start], text[start:end], text[end:]


def _clip_parts(before: str, focus: str, after: str, limit: int) -> tuple[str, str, str]:
    """Cut ``before`` and ``after`` on word boundaries so that they take about ``limit``
    characters together, half before and the rest after the focus, marking each cut with ….
    Without a focus, the start of the text is kept."""
    if len(before) + len(focus) + len(after) <= limit:
        return before, focus, after
    if not focus:
        return before[:limit].rsplit(" ", 1)[0] + " …", "", ""
    room = max(0, limit - len(focus))
    cut = len(before) - room // 2
    if cut > 0:
        kept = before[cut:]
        if not before[cut - 1].isspace():  # the cut went through a word: drop the rest of it
            kept = kept.split(" ", 1)[1] if " " in kept else ""
        before = "… " + kept.lstrip()
    room = max(0, room - len(before))
    if len(after) > room:
        kept = after[:room]
        if not after[room].isspace():
            kept = kept.rsplit(" ", 1)[0] if " " in kept else ""
        after = kept.rstrip() + " …"
    return before, focus, after


def _split_edges(text: str) -> tuple[str, str, str]:
    """``(leading whitespace, core, trailing whitespace)``: emphasis must hug its text."""
    core = text.strip()
    if not core:
        return text, "", ""
    start = text.index(core)
    return text[:start], core, text[start + len(core) :]


def _md_evidence(evidence: Evidence | None, *, limit: int) -> _Markdown:
    """The window, clipped around its focus sentence and escaped (:func:`_md_text`), the focus
    in ``**bold**``; prefixed with ``context[k]:`` when the context was given as passages."""
    if evidence is None:
        return _Markdown(_MISSING)
    where = "" if evidence.passage is None else f"context[{evidence.passage}]: "
    before, focus, after = _clip_parts(*_evidence_parts(evidence), limit)
    if not focus:
        return _Markdown(where + _md_text(before + after))
    lead, core, trail = _split_edges(focus)
    return _Markdown(
        f"{where}{_md_text(before + lead)}**{_md_text(core)}**{_md_text(trail + after)}"
    )


def _span_tooltip(span: HallucinatedSpan) -> str:
    facts = ", ".join(span.facts) if span.facts else _MISSING
    return f"{span.label} · hallucination score {span.score:.2f} · facts: {facts}"


# ---------------------------------------------------------------------------------------------
# Markdown
# ---------------------------------------------------------------------------------------------


# Inline Markdown syntax: emphasis, code, strikethrough, links, and the backslash that escapes
# them. An answer's own ``**`` would pair with the report's marks and unbold a flagged span.
_MD_INLINE_RE = re.compile(r"([\\`*_~\[\]])")
# "&lt;", "&#42;": a character reference a renderer would read as its character
_MD_ENTITY_RE = re.compile(r"&(?=#?\w+;)")


class _Markdown(str):
    """Text that is already Markdown: escaped content (:func:`_md_text`), the report's marks."""


def _md_text(text: str) -> _Markdown:
    """Answer or context text for Markdown, shown as the characters it holds: ``<`` as ``&lt;``,
    so that a tag in it (``<script>``, ``<img onerror=…>``) is shown as text, never run by a
    renderer (the HTML report escapes the same way); ``&`` of a character reference as
    ``&amp;``; emphasis, code, strikethrough and link syntax (``\\ ` * _ ~ [ ]``)
    backslash-escaped, so that only the report's own marks are bold."""
    text = _MD_INLINE_RE.sub(r"\\\1", _MD_ENTITY_RE.sub("&amp;", text))
    return _Markdown(text.replace("<", "&lt;"))


def _md_line(value: object) -> str:
    """A value on one line: line breaks turned into ``<br>``, so that no line of it starts a
    heading or a list. Text that is not :class:`_Markdown` yet (the report's own words: labels,
    notes, fact ids) has its tags escaped."""
    text = value if isinstance(value, _Markdown) else str(value).replace("<", "&lt;")
    return text.replace("\r\n", "<br>").replace("\r", "<br>").replace("\n", "<br>")


def _md_cell(value: object) -> str:
    """A table cell: :func:`_md_line` with pipes escaped, so the row stays one row."""
    return _md_line(value).replace("|", "\\|")


def _md_row(cells: Iterable[object]) -> str:
    return "| " + " | ".join(_md_cell(c) for c in cells) + " |"


def _md_table(header: list[str], rows: list[list[object]]) -> list[str]:
    return [_md_row(header), "|" + "---|" * len(header), *(_md_row(r) for r in rows)]


def _sentence_label(sentence: SentenceVerdict) -> str:
    """The label, with the reason of a ``not_a_claim`` (``not_a_claim (heading)``)."""
    return f"{sentence.label} ({sentence.reason})" if sentence.reason else sentence.label


def _md_sentence_row(sentence: SentenceVerdict) -> list[object]:
    return [
        sentence.index,
        _sentence_label(sentence),
        _score(sentence.score),
        _md_text(sentence.text),
        _md_evidence(sentence.evidence, limit=MARKDOWN_EVIDENCE_CHARS),
    ]


def _md_fact_row(verdict: FactVerdict) -> list[object]:
    return [
        verdict.fact.id,
        _md_text(_fact_triple(verdict)),
        verdict.label,
        _score(verdict.score),
        _md_evidence(verdict.evidence, limit=MARKDOWN_EVIDENCE_CHARS),
        _fact_note(verdict),
    ]


def _md_span_line(span: HallucinatedSpan) -> str:
    facts = ", ".join(span.facts) if span.facts else _MISSING
    quoted = _md_text(json.dumps(span.text, ensure_ascii=False))
    return (
        f"- [{span.start}, {span.end}) {quoted} · {span.label} · "
        f"hallucination score {span.score:.2f} · {facts}"
    )


def _md_marked_answer(report: Report) -> str:
    """The answer with each hallucinated span as ``**[[text]]**``.

    Adjacent spans share one bold run (``**[[a]][[b]]**``): ``**a****b**`` is not bold.
    """
    pieces: list[str] = []
    in_bold = False
    for segment in _answer_segments(report.answer, report.spans):
        if segment.span is None:
            if in_bold:
                pieces.append("**")
                in_bold = False
            pieces.append(_md_text(segment.text))
            continue
        if not in_bold:
            pieces.append("**")
            in_bold = True
        pieces.append(f"[[{_md_text(segment.text)}]]")
    if in_bold:
        pieces.append("**")
    return "".join(pieces)


def render_markdown(report: Report) -> str:
    """A compact Markdown report: header, sentence and fact tables, spans, marked answer.

    Tables appear only when they have rows, under a two-line legend (what the hallucination
    score means, what the bold sentence in the evidence is); a status other than ``ok`` adds a
    one-line explanation under the header. Scores are shown with 2 decimals.
    """
    summary = report.summary
    lines = [f"**Faithfulness:** {_faithfulness_text(report)} · status: {summary.status}"]
    explanation = STATUS_EXPLANATIONS.get(summary.status)
    if explanation:
        lines.append("")
        lines.append(explanation)
    counts = _ordered_counts(summary.counts)
    if summary.not_a_claim:
        counts.append(("not a claim (not checked)", summary.not_a_claim))
    if counts:
        lines.append("")
        lines.append("**Counts:** " + " · ".join(f"{label} {n}" for label, n in counts))
    if report.question:
        lines += ["", f"**Question:** {_md_line(_md_text(report.question))}"]

    if report.sentences or report.facts:
        lines += ["", f"- {SCORE_LEGEND}.", f"- {FOCUS_LEGEND} in **bold**."]
    if report.sentences:
        lines += ["", "## Sentences", ""]
        lines += _md_table(
            ["#", "label", SCORE_COLUMN, "sentence", "evidence"],
            [_md_sentence_row(s) for s in report.sentences],
        )
    if report.facts:
        lines += ["", "## Facts", ""]
        lines += _md_table(
            ["id", "fact (subject · relation · object)", "label", SCORE_COLUMN, "evidence", "note"],
            [_md_fact_row(f) for f in report.facts],
        )
    if report.spans or summary.status == "ok":
        lines += ["", "## Hallucinated spans", ""]
        lines += [_md_span_line(s) for s in report.spans] or ["None."]
    if report.answer:
        lines += ["", "## Answer", "", _md_marked_answer(report)]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# HTML
# ---------------------------------------------------------------------------------------------

_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 2rem;
       color: #1f2937; background: #ffffff; line-height: 1.5; }
main { max-width: 72rem; margin: 0 auto; }
h1 { font-size: 1.4rem; margin-bottom: 0.5rem; }
h2 { font-size: 1.1rem; margin-top: 1.5rem; }
.summary { border: 1px solid #d1d5db; border-radius: 6px; padding: 0.75rem 1rem;
           background: #f9fafb; }
.summary dl { display: grid; grid-template-columns: max-content auto; gap: 0.2rem 1rem;
              margin: 0; }
.summary dt { font-weight: 600; }
.summary dd { margin: 0; }
.explanation { font-style: italic; }
.answer-text { white-space: pre-wrap; border-left: 4px solid #d1d5db; padding: 0.5rem 1rem;
               background: #fcfcfd; }
mark { border-radius: 3px; padding: 0 1px; background: #e5e7eb; color: inherit; }
mark.contradicted, .swatch.contradicted { background: #fecaca;
                                           box-shadow: inset 0 -2px 0 #dc2626; }
mark.unverifiable, .swatch.unverifiable { background: #fde68a;
                                           box-shadow: inset 0 -2px 0 #d97706; }
mark.focus, .swatch.focus { background: #dbeafe; box-shadow: inset 0 -2px 0 #2563eb; }
.swatch { display: inline-block; width: 1.2em; height: 1em; vertical-align: middle;
          border-radius: 3px; margin-right: 0.3em; }
.legend ul { list-style: none; padding: 0; margin: 0; }
table { border-collapse: collapse; width: 100%; font-size: 0.92rem; }
th, td { border: 1px solid #e5e7eb; padding: 0.3rem 0.5rem; text-align: left;
         vertical-align: top; white-space: pre-wrap; }
th { background: #f3f4f6; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.label-supported { color: #15803d; font-weight: 600; }
.label-contradicted { color: #b91c1c; font-weight: 600; }
.label-unverifiable { color: #b45309; font-weight: 600; }
.label-not_a_claim { color: #9ca3af; }
tr.suppressed { color: #6b7280; }
tr.not-a-claim, span.not-a-claim { color: #9ca3af; }
.swatch.not-a-claim { background: #f3f4f6; box-shadow: inset 0 -2px 0 #9ca3af; }
""".strip()

_LEGEND = (
    ("contradicted", "contradicted: the context says otherwise"),
    ("unverifiable", "unverifiable: the context does not say"),
    ("focus", FOCUS_LEGEND),
    (
        "not-a-claim",
        "grey text: not a claim (a heading, lead-in, question, remark or opinion), not checked",
    ),
)


def _esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def _html_marked_answer(report: Report) -> str:
    """The answer, HTML-escaped, with each hallucinated span wrapped in ``<mark>``.

    Stripping the tags and unescaping gives back the answer exactly.
    """
    greyed = sorted(
        (s.span.start, s.span.end, s.reason or "")
        for s in report.sentences
        if s.label == "not_a_claim"
    )
    pieces: list[str] = []
    position = 0
    for segment in _answer_segments(report.answer, report.spans):
        start, position = position, position + len(segment.text)
        if segment.span is None:
            pieces.append(_html_greyed(segment.text, start, greyed))
        else:
            pieces.append(
                f'<mark class="{_esc(segment.span.label)}" '
                f'title="{_esc(_span_tooltip(segment.span))}">{_esc(segment.text)}</mark>'
            )
    return "".join(pieces)


def _html_greyed(text: str, offset: int, greyed: list[tuple[int, int, str]]) -> str:
    """``text`` (the answer from ``offset``), escaped, with the parts of non-claim sentences
    (``greyed``: start, end, reason) in ``<span class="not-a-claim">``."""
    pieces, cursor, end = [], offset, offset + len(text)
    for start, stop, reason in greyed:
        start, stop = max(start, cursor), min(stop, end)
        if stop <= start:
            continue
        pieces.append(_esc(text[cursor - offset : start - offset]))
        pieces.append(
            f'<span class="not-a-claim" title="{_esc(f"not a claim: {reason}")}">'
            f"{_esc(text[start - offset : stop - offset])}</span>"
        )
        cursor = stop
    pieces.append(_esc(text[cursor - offset :]))
    return "".join(pieces)


def _html_evidence(evidence: Evidence | None) -> str:
    """The whole window, escaped, its focus sentence in ``<mark class="focus">``; prefixed
    with ``context[k]:`` when the context was given as passages."""
    if evidence is None:
        return _esc(_MISSING)
    where = "" if evidence.passage is None else f"<b>context[{evidence.passage}]:</b> "
    before, focus, after = _evidence_parts(evidence)
    if not focus:
        return where + _esc(before)
    return f'{where}{_esc(before)}<mark class="focus">{_esc(focus)}</mark>{_esc(after)}'


def _html_label(label: str) -> str:
    return f'<span class="label-{_esc(label)}">{_esc(label)}</span>'


def _html_table(header: list[str], rows: list[str]) -> list[str]:
    head = "".join(f"<th>{_esc(h)}</th>" for h in header)
    return ["<table>", f"<thead><tr>{head}</tr></thead>", "<tbody>", *rows, "</tbody>", "</table>"]


def _html_sentence_row(sentence: SentenceVerdict) -> str:
    row = '<tr class="not-a-claim">' if sentence.label == "not_a_claim" else "<tr>"
    label = _html_label(sentence.label)
    if sentence.reason:
        label += f" ({_esc(sentence.reason)})"
    return (
        row + f'<td class="num">{_esc(sentence.index)}</td>'
        f"<td>{label}</td>"
        f'<td class="num">{_esc(_score(sentence.score))}</td>'
        f"<td>{_esc(sentence.text)}</td>"
        f"<td>{_html_evidence(sentence.evidence)}</td>"
        "</tr>"
    )


def _html_fact_row(verdict: FactVerdict) -> str:
    row_class = ' class="suppressed"' if verdict.suppressed else ""
    return (
        f"<tr{row_class}>"
        f"<td>{_esc(verdict.fact.id)}</td>"
        f"<td>{_esc(_fact_triple(verdict))}</td>"
        f"<td>{_html_label(verdict.label)}</td>"
        f'<td class="num">{_esc(_score(verdict.score))}</td>'
        f"<td>{_html_evidence(verdict.evidence)}</td>"
        f"<td>{_esc(_fact_note(verdict))}</td>"
        "</tr>"
    )


def _html_summary(report: Report) -> list[str]:
    summary = report.summary
    items: list[tuple[str, str]] = [
        ("Faithfulness", _faithfulness_text(report)),
        ("Status", summary.status),
        ("Hallucinated", "yes" if summary.hallucinated else "no"),
        ("Checked", str(summary.checked)),
    ]
    items += [(label, str(n)) for label, n in _ordered_counts(summary.counts)]
    items += [("intrinsic", str(summary.intrinsic)), ("extrinsic", str(summary.extrinsic))]
    if summary.not_a_claim:
        items.append(("not a claim", str(summary.not_a_claim)))
    if report.question:
        items.append(("Question", report.question))
    lines = ['<section class="summary">', "<dl>"]
    lines += [f"<dt>{_esc(k)}</dt><dd>{_esc(v)}</dd>" for k, v in items]
    lines.append("</dl>")
    explanation = STATUS_EXPLANATIONS.get(summary.status)
    if explanation:
        lines.append(f'<p class="explanation">{_esc(explanation)}</p>')
    lines.append("</section>")
    return lines


def render_html(report: Report, *, title: str = "enoki-hd report") -> str:
    """One self-contained HTML page (inline CSS, no scripts, no external resources).

    The answer is shown with hallucinated spans in ``<mark class="<label>">`` (contradicted in
    red, unverifiable in amber) whose ``title`` tooltip gives the label, hallucination score and
    fact ids; then a summary box, a legend, the sentence table and the fact table, whose
    evidence cells show the whole window with its focus sentence in ``<mark class="focus">``
    (blue). All text is escaped with :func:`html.escape`.
    """
    lines = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_esc(title)}</title>",
        f"<style>\n{_CSS}\n</style>",
        "</head>",
        "<body>",
        "<main>",
        f"<h1>{_esc(title)}</h1>",
        *_html_summary(report),
        '<section class="answer">',
        "<h2>Answer</h2>",
    ]
    if report.answer:
        lines.append(f'<div class="answer-text">{_html_marked_answer(report)}</div>')
    else:
        lines.append('<p class="explanation">(empty answer)</p>')
    lines.append("</section>")

    lines += ['<section class="legend">', "<h2>Legend</h2>", "<ul>"]
    lines += [
        f'<li><span class="swatch {_esc(label)}"></span>{_esc(text)}</li>'
        for label, text in _LEGEND
    ]
    lines += [f"<li>{_esc(SCORE_LEGEND)}</li>", "</ul>", "</section>"]

    lines += ['<section class="sentences">', "<h2>Sentences</h2>"]
    if report.sentences:
        lines += _html_table(
            ["#", "label", SCORE_COLUMN, "sentence", "evidence"],
            [_html_sentence_row(s) for s in report.sentences],
        )
    else:
        lines.append("<p>No sentences.</p>")
    lines.append("</section>")

    lines += ['<section class="facts">', "<h2>Facts</h2>"]
    if report.facts:
        lines += _html_table(
            ["id", "fact (subject · relation · object)", "label", SCORE_COLUMN, "evidence", "note"],
            [_html_fact_row(f) for f in report.facts],
        )
    else:
        lines.append("<p>No facts were checked.</p>")
    lines += ["</section>", "</main>", "</body>", "</html>"]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# Dispatch
# ---------------------------------------------------------------------------------------------

_RENDERERS: dict[str, Callable[..., str]] = {
    "json": render_json,
    "md": render_markdown,
    "html": render_html,
}


def render(report: Report, fmt: ReportFormat, **kwargs: Any) -> str:
    """Render ``report`` as ``fmt`` (``json``, ``md`` or ``html``); ``kwargs`` go to the renderer."""
    renderer = _RENDERERS.get(fmt)
    if renderer is None:
        allowed = ", ".join(repr(f) for f in REPORT_FORMATS)
        raise ValueError(f"unknown report format {fmt!r}; expected one of {allowed}")
    return renderer(report, **kwargs)
