"""Rendering reports as JSON, Markdown and HTML, on small reports built by hand."""

from __future__ import annotations

import html
import json
import logging
import re

import pytest

from enoki_hd.report import (
    REPORT_FORMATS,
    STATUS_EXPLANATIONS,
    batch_to_jsonl,
    render,
    render_html,
    render_json,
    render_markdown,
)
from enoki_hd.types import (
    Evidence,
    EvidenceFocus,
    Fact,
    FactVerdict,
    HallucinatedSpan,
    NLIScores,
    Report,
    SentenceVerdict,
    Span,
    Summary,
)

ANSWER = "The Eiffel Tower in Paris was completed in 1887. It is painted gold every year."
CONTEXT_EVIDENCE = Evidence(0, 49, "The Eiffel Tower in Paris was completed in 1889.")
# A pipe and a line break, which a Markdown table cell must escape.
PAINT_EVIDENCE = Evidence(50, 90, "Repainting | every 7 years\n(official site)")


def fact_verdict(
    fact_id: str,
    sentence: int,
    triple: tuple[str, str, str],
    spans: tuple[Span, Span, Span],
    probs: tuple[float, float, float],
    label: str,
    **kwargs: object,
) -> FactVerdict:
    parent = kwargs.pop("parent", None)
    fact = Fact(
        id=fact_id,
        sentence=sentence,
        subject=triple[0],
        relation=triple[1],
        object=triple[2],
        subject_spans=[spans[0]],
        relation_spans=[spans[1]],
        object_spans=[spans[2]],
        parent=parent,  # type: ignore[arg-type]
        delta=[spans[2]],
        confidence=0.9,
        source="rules:svo",
    )
    return FactVerdict(
        fact=fact,
        hypothesis=" ".join(triple) + ".",
        probs=NLIScores(*probs),
        label=label,  # type: ignore[arg-type]
        **kwargs,  # type: ignore[arg-type]
    )


def make_report() -> Report:
    """Two sentences: "1887" contradicted, "gold" unverifiable; f4 refines the failed f3."""
    facts = [
        fact_verdict(
            "f1",
            0,
            ("The Eiffel Tower", "is in", "Paris"),
            (Span(0, 16), Span(17, 19), Span(20, 25)),
            (0.8125, 0.125, 0.0625),
            "supported",
            evidence=CONTEXT_EVIDENCE,
        ),
        fact_verdict(
            "f2",
            0,
            ("The Eiffel Tower", "was completed in", "1887"),
            (Span(0, 16), Span(26, 42), Span(43, 47)),
            (0.03125, 0.09375, 0.875),
            "contradicted",
            evidence=CONTEXT_EVIDENCE,
        ),
        fact_verdict(
            "f3",
            1,
            ("It", "is painted", "gold"),
            (Span(49, 51), Span(52, 62), Span(63, 67)),
            (0.1875, 0.75, 0.0625),
            "unverifiable",
            decided_by="grounding",
        ),
        fact_verdict(
            "f4",
            1,
            ("It", "is painted gold", "every year"),
            (Span(49, 51), Span(52, 67), Span(68, 78)),
            (0.25, 0.625, 0.125),
            "unverifiable",
            parent="f3",
            suppressed=True,
            suppressed_by="f3",
        ),
    ]
    sentences = [
        SentenceVerdict(
            index=0,
            span=Span(0, 48),
            text=ANSWER[0:48],
            score=0.96875,
            label="contradicted",
            evidence=CONTEXT_EVIDENCE,
            method="max",
            facts=["f1", "f2"],
        ),
        SentenceVerdict(
            index=1,
            span=Span(49, 79),
            text=ANSWER[49:79],
            score=0.8125,
            label="unverifiable",
            evidence=PAINT_EVIDENCE,
            method="max",
            facts=["f3", "f4"],
        ),
    ]
    spans = [
        HallucinatedSpan(43, 47, "1887", 0.96875, ["f2"], "contradicted"),
        HallucinatedSpan(63, 67, "gold", 0.8125, ["f3"], "unverifiable"),
    ]
    summary = Summary(
        status="ok",
        faithfulness=1 / 3,
        counts={"supported": 1, "contradicted": 1, "unverifiable": 1},
        checked=3,
        hallucinated=True,
        intrinsic=1,
        extrinsic=1,
    )
    return Report(
        answer=ANSWER,
        sentences=sentences,
        facts=facts,
        spans=spans,
        summary=summary,
        timings={"segment": 0.0012345678, "verify": 0.5},
        question="When was the Eiffel Tower completed?",
        config={"extractor": "rules"},
    )


def empty_answer_report() -> Report:
    return Report(
        answer="",
        sentences=[],
        facts=[],
        spans=[],
        summary=Summary(
            status="empty_answer", faithfulness=None, counts={}, checked=0, hallucinated=False
        ),
    )


def no_context_report() -> Report:
    return Report(
        answer="Paris is in France.",
        sentences=[],
        facts=[],
        spans=[],
        summary=Summary(
            status="no_context", faithfulness=None, counts={}, checked=0, hallucinated=False
        ),
    )


def answer_report(answer: str, spans: list[HallucinatedSpan]) -> Report:
    """A minimal report whose only content is ``answer`` and its hallucinated ``spans``."""
    return Report(
        answer=answer,
        sentences=[],
        facts=[],
        spans=spans,
        summary=Summary(status="ok", faithfulness=0.0, counts={}, checked=0, hallucinated=True),
    )


def html_answer_text(page: str) -> str:
    """The answer block of a rendered page with its tags stripped and entities unescaped."""
    match = re.search(r'<div class="answer-text">(.*?)</div>', page, flags=re.DOTALL)
    assert match is not None
    return html.unescape(re.sub(r"<[^>]*>", "", match.group(1)))


# ---------------------------------------------------------------------------------------------
# JSON
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("build", [make_report, empty_answer_report, no_context_report])
def test_json_round_trips_through_report_from_dict(build) -> None:
    report = build()
    data = json.loads(render_json(report))
    assert data == report.to_dict()
    assert Report.from_dict(data).to_dict() == data


@pytest.mark.parametrize("fmt", REPORT_FORMATS)
def test_rendering_is_byte_identical_for_equal_reports(fmt) -> None:
    assert render(make_report(), fmt).encode() == render(make_report(), fmt).encode()


def test_stable_json_drops_timings_only() -> None:
    report = make_report()
    full = json.loads(render_json(report))
    stable = json.loads(render_json(report, stable=True))
    assert full["timings"] == {"segment": 0.001235, "verify": 0.5}
    assert "timings" not in stable
    assert stable == {k: v for k, v in full.items() if k != "timings"}
    assert report.timings == {"segment": 0.0012345678, "verify": 0.5}

    other = make_report()
    other.timings = {"segment": 9.0, "verify": 9.0}
    assert render_json(other, stable=True) == render_json(report, stable=True)


def test_json_keeps_non_ascii_and_honours_indent() -> None:
    report = answer_report("Le café est fermé.", [])
    assert "café" in render_json(report)
    assert "\n" not in render_json(report, indent=None)


def test_batch_to_jsonl_writes_one_compact_line_per_report() -> None:
    reports = [make_report(), no_context_report()]
    text = batch_to_jsonl(reports)
    lines = text.split("\n")
    assert lines[-1] == ""
    assert [json.loads(line) for line in lines[:-1]] == [r.to_dict() for r in reports]
    assert "timings" not in json.loads(batch_to_jsonl(reports, stable=True).split("\n")[0])
    assert batch_to_jsonl([]) == ""


# ---------------------------------------------------------------------------------------------
# Markdown
# ---------------------------------------------------------------------------------------------


def test_markdown_has_the_expected_header_tables_spans_and_answer() -> None:
    lines = render_markdown(make_report()).splitlines()
    assert lines[0] == "**Faithfulness:** 0.33 (1/3 supported) · status: ok"
    assert "**Counts:** supported 1 · contradicted 1 · unverifiable 1" in lines
    assert "**Question:** When was the Eiffel Tower completed?" in lines

    assert lines[lines.index("**Question:** When was the Eiffel Tower completed?") + 2 :][:2] == [
        "- hallucination score: 0–1, higher = more likely unsupported by the context "
        "(it is not a confidence in support).",
        "- evidence: the context window the verdict was decided on; its sentence that best "
        "matches the fact or sentence (by retrieval score, not a separate verdict) is "
        "highlighted in **bold**.",
    ]
    sentence_header = lines.index("| # | label | hallucination score | sentence | evidence |")
    assert lines[sentence_header + 1 : sentence_header + 4] == [
        "|---|---|---|---|---|",
        "| 0 | contradicted | 0.97 | The Eiffel Tower in Paris was completed in 1887. "
        "| The Eiffel Tower in Paris was completed in 1889. |",
        "| 1 | unverifiable | 0.81 | It is painted gold every year. "
        "| Repainting \\| every 7 years<br>(official site) |",
    ]

    fact_header = lines.index(
        "| id | fact (subject · relation · object) | label | hallucination score | evidence "
        "| note |"
    )
    assert lines[fact_header + 1 : fact_header + 6] == [
        "|---|---|---|---|---|---|",
        "| f1 | The Eiffel Tower · is in · Paris | supported | 0.19 "
        "| The Eiffel Tower in Paris was completed in 1889. | decided_by: nli |",
        "| f2 | The Eiffel Tower · was completed in · 1887 | contradicted | 0.97 "
        "| The Eiffel Tower in Paris was completed in 1889. | decided_by: nli |",
        "| f3 | It · is painted · gold | unverifiable | 0.81 | — | decided_by: grounding |",
        "| f4 | It · is painted gold · every year | unverifiable | 0.75 | — "
        "| suppressed by f3; decided_by: nli |",
    ]

    spans = lines.index("## Hallucinated spans")
    assert lines[spans + 2 : spans + 4] == [
        '- [43, 47) "1887" · contradicted · hallucination score 0.97 · f2',
        '- [63, 67) "gold" · unverifiable · hallucination score 0.81 · f3',
    ]
    assert lines[-1] == (
        "The Eiffel Tower in Paris was completed in **[[1887]]**. "
        "It is painted **[[gold]]** every year."
    )


def test_markdown_notes_a_fact_that_took_a_refinements_decision() -> None:
    report = make_report()
    report.facts[0].inherited_from = "f2"
    lines = render_markdown(report).splitlines()
    row = next(line for line in lines if line.startswith("| f1 |"))
    assert row.endswith("| inherited from f2; decided_by: nli |")
    assert "inherited from" in render(report, "html")


def test_markdown_notes_a_fact_its_sentence_vouched_for() -> None:
    """sentence_entailment: the note says why a fact the verifier read as not entailed is
    supported, with the fact's own reading."""
    report = make_report()
    report.facts[1].decided_by = "sentence"
    lines = render_markdown(report).splitlines()
    row = next(line for line in lines if line.startswith("| f2 |"))
    assert row.endswith(
        "| its sentence entailed whole; the fact alone: not entailed 0.97; decided_by: sentence |"
    )


def test_markdown_empty_answer_is_one_explanation_without_tables() -> None:
    assert render_markdown(empty_answer_report()) == (
        "**Faithfulness:** n/a · status: empty_answer\n\n"
        "The answer is empty: there is nothing to check.\n"
    )


def test_markdown_no_context_explains_and_shows_the_answer() -> None:
    text = render_markdown(no_context_report())
    lines = text.splitlines()
    assert lines[0] == "**Faithfulness:** n/a · status: no_context"
    assert STATUS_EXPLANATIONS["no_context"] in lines
    assert not any(line.startswith("|") for line in lines)
    assert "## Hallucinated spans" not in lines
    assert lines[-1] == "Paris is in France."


def test_markdown_no_facts_keeps_sentences_and_explains_missing_facts() -> None:
    report = make_report()
    report.facts, report.spans = [], []
    report.summary = Summary(
        status="no_facts", faithfulness=None, counts={}, checked=0, hallucinated=False
    )
    lines = render_markdown(report).splitlines()
    assert STATUS_EXPLANATIONS["no_facts"] in lines
    assert "| # | label | hallucination score | sentence | evidence |" in lines
    assert "## Facts" not in lines


def test_markdown_groups_adjacent_spans_and_clips_overlaps(caplog) -> None:
    report = answer_report(
        "abcdef!",
        [
            HallucinatedSpan(0, 2, "ab", 0.9, ["f1"], "contradicted"),
            HallucinatedSpan(2, 4, "cd", 0.8, ["f2"], "unverifiable"),
            HallucinatedSpan(3, 6, "def", 0.7, ["f3"], "unverifiable"),
        ],
    )
    with caplog.at_level(logging.WARNING, logger="enoki_hd.report"):
        text = render_markdown(report)
    assert text.splitlines()[-1] == "**[[ab]][[cd]][[ef]]**!"
    assert "clipped to [4, 6)" in caplog.text


# ---------------------------------------------------------------------------------------------
# HTML
# ---------------------------------------------------------------------------------------------


def test_html_marks_spans_and_keeps_every_answer_character() -> None:
    page = render_html(make_report())
    assert html_answer_text(page) == ANSWER
    assert ANSWER in html.unescape(re.sub(r"<[^>]*>", "", page))
    assert re.search(r'<mark class="contradicted" title="[^"]*0\.97[^"]*f2[^"]*">1887</mark>', page)
    assert re.search(r'<mark class="unverifiable" title="[^"]*0\.81[^"]*f3[^"]*">gold</mark>', page)
    assert "suppressed by f3; decided_by: nli" in page
    assert "Repainting | every 7 years\n(official site)" in page


@pytest.mark.parametrize("build", [make_report, empty_answer_report, no_context_report])
def test_html_is_self_contained(build) -> None:
    page = render_html(build(), title="My <report>")
    assert page.startswith("<!DOCTYPE html>")
    assert "<title>My &lt;report&gt;</title>" in page
    for forbidden in ("http://", "https://", "<script", "<link", "@import", "url("):
        assert forbidden not in page


def test_html_explains_empty_and_no_context_reports() -> None:
    assert STATUS_EXPLANATIONS["empty_answer"] in render_html(empty_answer_report())
    page = render_html(no_context_report())
    assert STATUS_EXPLANATIONS["no_context"] in page
    assert html_answer_text(page) == "Paris is in France."
    assert "<table>" not in page


def test_html_escapes_markup_in_the_answer_and_in_marks() -> None:
    answer = 'Use <script>alert("x")</script> & "quotes" \'here\'.\nNext line.'
    start = answer.index("<script>")
    report = answer_report(
        answer,
        [HallucinatedSpan(start, start + 8, "<script>", 0.5, ['f"1'], "contradicted")],
    )
    page = render_html(report)
    assert "<script" not in page
    assert '<mark class="contradicted"' in page
    assert "&lt;script&gt;</mark>" in page
    assert "&amp;" in page
    assert "f&quot;1" in page
    assert html_answer_text(page) == answer


def test_html_survives_adjacent_overlapping_and_out_of_range_spans() -> None:
    answer = "abcdef"
    report = answer_report(
        answer,
        [
            HallucinatedSpan(2, 4, "cd", 0.8, ["f2"], "unverifiable"),
            HallucinatedSpan(0, 2, "ab", 0.9, ["f1"], "contradicted"),
            HallucinatedSpan(1, 3, "bc", 0.6, ["f4"], "contradicted"),
            HallucinatedSpan(5, 40, "f", 0.7, ["f3"], "unverifiable"),
        ],
    )
    page = render_html(report)
    assert html_answer_text(page) == answer
    assert re.findall(r"<mark[^>]*>([^<]*)</mark>", page) == ["ab", "c", "d", "f"]


# ---------------------------------------------------------------------------------------------
# Dispatch
# ---------------------------------------------------------------------------------------------


def test_render_dispatches_with_keyword_options() -> None:
    report = make_report()
    assert render(report, "json", stable=True) == render_json(report, stable=True)
    assert render(report, "md") == render_markdown(report)
    assert render(report, "html", title="t") == render_html(report, title="t")


def test_render_rejects_unknown_formats_naming_the_allowed_ones() -> None:
    with pytest.raises(ValueError, match=r"'pdf'.*'json', 'md', 'html'"):
        render(make_report(), "pdf")  # type: ignore[arg-type]


def test_markdown_clips_long_evidence_but_json_keeps_it() -> None:
    from enoki_hd.report import MARKDOWN_EVIDENCE_CHARS
    from enoki_hd.types import Evidence, Report, SentenceVerdict, Span, Summary

    evidence = Evidence(0, 600, "word " * 120)
    sentence = SentenceVerdict(0, Span(0, 5), "Hello", 0.9, "unverifiable", evidence=evidence)
    report = Report("Hello", [sentence], [], [], Summary("ok", 0.0, {}, 1, True))
    row = next(line for line in render_markdown(report).splitlines() if line.startswith("| 0 |"))
    cell = row.split(" | ")[4].removesuffix(" |")
    assert cell.endswith(" …") and len(cell) <= MARKDOWN_EVIDENCE_CHARS + 2
    assert json.loads(render_json(report))["sentences"][0]["evidence"]["text"] == "word " * 120


# ---------------------------------------------------------------------------------------------
# Evidence focus
# ---------------------------------------------------------------------------------------------

# A context with markup characters; the window is its first three sentences.
FOCUS_CONTEXT = "Tags like <b> & co. exist. The tower opened in 1889. It is made of iron. Rain."
FOCUS_WINDOW = Evidence(
    0, 72, FOCUS_CONTEXT[:72], EvidenceFocus(27, 52, "The tower opened in 1889.")
)


def focus_report(evidence: Evidence) -> Report:
    answer = "The tower opened in 1887."
    verdict = fact_verdict(
        "f1",
        0,
        ("The tower", "opened in", "1887"),
        (Span(0, 9), Span(10, 19), Span(20, 24)),
        (0.05, 0.05, 0.9),
        "contradicted",
        evidence=evidence,
    )
    sentence = SentenceVerdict(
        0, Span(0, 25), answer, 0.9, "contradicted", evidence=evidence, method="max"
    )
    summary = Summary("ok", 0.0, {"contradicted": 1}, 1, True, intrinsic=1)
    return Report(answer, [sentence], [verdict], [], summary)


def test_focus_fixture_offsets_point_into_the_context() -> None:
    focus = FOCUS_WINDOW.focus
    assert focus is not None
    assert FOCUS_CONTEXT[focus.start : focus.end] == focus.text
    assert FOCUS_CONTEXT[FOCUS_WINDOW.start : FOCUS_WINDOW.end] == FOCUS_WINDOW.text


def test_markdown_bolds_the_focus_sentence_inside_its_window() -> None:
    lines = render_markdown(focus_report(FOCUS_WINDOW)).splitlines()
    # a tag in the context is shown as text (&lt;), never rendered
    cell = "Tags like &lt;b> & co. exist. **The tower opened in 1889.** It is made of iron."
    assert f"| 0 | contradicted | 0.90 | The tower opened in 1887. | {cell} |" in lines
    assert (
        f"| f1 | The tower · opened in · 1887 | contradicted | 0.95 | {cell} | decided_by: nli |"
        in lines
    )


def test_markdown_clips_a_long_window_around_its_focus() -> None:
    from enoki_hd.report import MARKDOWN_EVIDENCE_CHARS

    before = " ".join(f"b{i:03d}" for i in range(100)) + " "  # 500 characters
    focus = "The tower opened in 1889."
    after = " " + " ".join(f"a{i:03d}" for i in range(100))
    text = before + focus + after
    evidence = Evidence(10, 10 + len(text), text, EvidenceFocus(510, 535, focus))
    row = next(
        line
        for line in render_markdown(focus_report(evidence)).splitlines()
        if line.startswith("| 0 |")
    )
    cell = row.split(" | ")[4].removesuffix(" |")
    # 175 characters besides the focus: 87 before (whole words), the rest after.
    assert cell == (
        "… "
        + " ".join(f"b{i:03d}" for i in range(83, 100))
        + " **The tower opened in 1889.** "
        + " ".join(f"a{i:03d}" for i in range(17))
        + " …"
    )
    assert len(cell) - len("****") <= MARKDOWN_EVIDENCE_CHARS + 4


def test_html_marks_the_focus_inside_the_escaped_window() -> None:
    page = render_html(focus_report(FOCUS_WINDOW))
    cell = (
        "<td>Tags like &lt;b&gt; &amp; co. exist. "
        '<mark class="focus">The tower opened in 1889.</mark> It is made of iron.</td>'
    )
    assert page.count(cell) == 2  # the sentence row and the fact row
    assert "<b>" not in page
    assert "<th>hallucination score</th>" in page
    assert "higher = more likely unsupported" in page


def test_json_carries_the_focus_and_round_trips() -> None:
    report = focus_report(FOCUS_WINDOW)
    data = json.loads(render_json(report))
    assert data["facts"][0]["evidence"]["focus"] == {
        "start": 27,
        "end": 52,
        "text": "The tower opened in 1889.",
    }
    assert data["sentences"][0]["evidence"]["focus"]["start"] == 27
    assert Report.from_dict(data) == report


def test_a_focus_outside_its_window_is_dropped_with_a_warning(caplog) -> None:
    stray = Evidence(0, 26, FOCUS_CONTEXT[:26], EvidenceFocus(27, 52, "The tower opened in 1889."))
    with caplog.at_level(logging.WARNING, logger="enoki_hd.report"):
        text = render_markdown(focus_report(stray))
    assert "**The tower" not in text
    assert "not inside its window" in caplog.text


def test_markdown_shows_tags_in_the_texts_as_text() -> None:
    """Answer, question, evidence and spans holding HTML are escaped as the HTML report escapes
    them: a renderer must never run an answer's <script> or <img onerror>."""
    from fakes import LexicalVerifier

    from enoki_hd.detector import Detector

    answer = 'Suede formed in <img src=x onerror="alert(1)"> Manchester. <script>go()</script>'
    report = Detector(LexicalVerifier(), sentence_backend="regex").detect(
        answer=answer,
        context="Suede formed in London. <b>Bold</b> claims.",
        question="<i>Where</i>?",
    )
    text = render_markdown(report)
    for tag in ("<img", "<script", "<b>", "<i>"):
        assert tag not in text, tag
    assert "&lt;img src=x" in text and "&lt;script>go()&lt;/script>" in text
    assert "**Question:** &lt;i>Where&lt;/i>?" in text


def test_markdown_shows_the_answers_own_markup_as_text_so_only_flags_are_bold() -> None:
    """An LLM answer in Markdown bold: its ``**`` paired with the report's marks and the flagged
    span rendered as plain text (``**The tower opened in **[[1925]]****.``)."""
    answer = "**The tower opened in 1925.** See `x_y` ~~old~~ [a](b) C:\\ &lt; & co."
    start = answer.index("1925")
    report = answer_report(
        answer, [HallucinatedSpan(start, start + 4, "1925", 0.9, ["f1"], "contradicted")]
    )
    last = render_markdown(report).splitlines()[-1]
    assert last == (
        "\\*\\*The tower opened in **[[1925]]**.\\*\\* See \\`x\\_y\\` \\~\\~old\\~\\~ "
        "\\[a\\](b) C:\\\\ &amp;lt; & co."
    )
    markdown_it = pytest.importorskip("markdown_it")
    rendered = markdown_it.MarkdownIt("commonmark").enable("strikethrough").render(last)
    assert rendered == (
        "<p>**The tower opened in <strong>[[1925]]</strong>.** See `x_y` ~~old~~ [a](b) "
        "C:\\ &amp;lt; &amp; co.</p>\n"
    )


def test_markdown_escapes_markup_in_cells_and_keeps_the_question_on_one_line() -> None:
    text = "A **bold** claim | with `code`\\"
    focus = "**Bold** focus."
    context = "Before _it_. " + focus
    evidence = Evidence(0, len(context), context, EvidenceFocus(13, len(context), focus))
    verdict = fact_verdict(
        "f1",
        0,
        ("A", "is", "**bold**"),
        (Span(0, 1), Span(2, 3), Span(4, 12)),
        (0, 0, 1),
        "contradicted",
        evidence=evidence,
    )
    sentence = SentenceVerdict(0, Span(0, len(text)), text, 1.0, "contradicted", evidence=evidence)
    summary = Summary("ok", 0.0, {"contradicted": 1}, 1, True)
    report = Report(
        text, [sentence], [verdict], [], summary, question="Why?\n## Hallucinated spans\nNone."
    )
    lines = render_markdown(report).splitlines()
    cell = "Before \\_it\\_. **\\*\\*Bold\\*\\* focus.**"
    assert (
        f"| 0 | contradicted | 1.00 | A \\*\\*bold\\*\\* claim \\| with \\`code\\`\\\\ | {cell} |"
        in lines
    )
    assert (
        f"| f1 | A · is · \\*\\*bold\\*\\* | contradicted | 1.00 | {cell} | decided_by: nli |"
        in lines
    )
    assert "**Question:** Why?<br>## Hallucinated spans<br>None." in lines
    assert lines.count("## Hallucinated spans") == 1
