"""Claim selection (enoki_hd.select): reasons, frames, table cells, exact offsets; and the
detector's handling of non-claims (label, summary, spans, JSON, HTML)."""

from __future__ import annotations

import pytest
from fakes import LexicalVerifier

from enoki_hd.detector import Detector
from enoki_hd.extract.verbalize import verbalize
from enoki_hd.report import render_html, render_markdown
from enoki_hd.select import cell_facts, reason_from_text, select_claims
from enoki_hd.text import segment_sentences
from enoki_hd.types import Report, Span
from enoki_hd.verify.loading import default_verifier_path

ASTRA_CONTEXT = (
    "The ASTRA study followed 480 children with asthma for two years. After 12 months, 64% of "
    "children on the new inhaler had no severe attack, compared with 38% on the standard "
    "inhaler. Side effects were mild."
)
ASTRA_ANSWER = """## Summary of the ASTRA study

The study found that:

- **64%** of children on the new inhaler had no severe attack after 12 months.
- The standard inhaler group reached *45%*.
- Side effects were severe in most children.

| group | no severe attack |
|---|---|
| new inhaler | 64% |
| standard | 38% |
"""


def selections(answer: str):
    return select_claims(answer, segment_sentences(answer, backend="regex"))


def at(text: str, phrase: str, occurrence: int = 0) -> Span:
    start = -1
    for _ in range(occurrence + 1):
        start = text.index(phrase, start + 1)
    return Span(start, start + len(phrase))


def test_the_issue_example_sentence_by_sentence() -> None:
    got = [(s.checkworthy, s.reason, s.kind, s.hypothesis) for s in selections(ASTRA_ANSWER)]
    assert got == [
        (False, "heading", "heading", None),
        (False, "lead_in", "prose", None),
        (
            True,
            None,
            "list_item",
            "The study found that 64% of children on the new inhaler had no severe attack "
            "after 12 months.",
        ),
        (True, None, "list_item", "The study found that the standard inhaler group reached 45%."),
        (
            True,
            None,
            "list_item",
            "The study found that Side effects were severe in most children.",
        ),
        (False, "table_header", "table_header", None),
        (True, None, "table_row", "new inhaler — no severe attack: 64%."),
        (True, None, "table_row", "standard — no severe attack: 38%."),
    ]


def test_table_cells_are_anchored_to_their_own_characters() -> None:
    rows = [s for s in selections(ASTRA_ANSWER) if s.cells]
    cells = [c for s in rows for c in s.cells]
    assert [(c.span, c.text, c.row, c.row_span, c.header) for c in cells] == [
        (
            at(ASTRA_ANSWER, "64%", 1),
            "64%",
            "new inhaler",
            at(ASTRA_ANSWER, "new inhaler", 1),
            "no severe attack",
        ),
        (
            at(ASTRA_ANSWER, "38%"),
            "38%",
            "standard",
            at(ASTRA_ANSWER, "standard", 1),
            "no severe attack",
        ),
    ]
    facts = cell_facts(rows[1])
    assert [
        (f.id, f.sentence, f.subject, f.relation, f.object, f.delta, f.source) for f in facts
    ] == [("f7.0", 7, "standard", "no severe attack", "38%", [at(ASTRA_ANSWER, "38%")], "table")]
    assert verbalize(facts[0]) == "standard — no severe attack: 38%."


def test_wide_table_with_markup_escaped_pipe_and_code() -> None:
    answer = (
        "| Drug | Dose | Note |\n"
        "|:---|---:|---|\n"
        "| **Corvanel** | 20 mg | take `a|b` daily |\n"
        "| Velto | | 5 \\| 6 |\n"
    )
    rows = [s for s in selections(answer) if s.cells]
    assert [[(c.text, c.row, c.header) for c in s.cells] for s in rows] == [
        # the hypothesis reads the cell without markup; pipes in a cell are content
        [("20 mg", "Corvanel", "Dose"), ("take a|b daily", "Corvanel", "Note")],
        [("5 | 6", "Velto", "Note")],
    ]
    assert answer[rows[0].cells[1].span.start : rows[0].cells[1].span.end] == "take `a|b` daily"
    assert rows[0].hypothesis == "Corvanel — Dose: 20 mg. Corvanel — Note: take a|b daily."


def test_table_without_a_header_and_single_column() -> None:
    answer = "| Paris | 2.1 million |\n\n| Only |\n|---|\n| one cell |\n"
    got = [(s.reason, [(c.text, c.row, c.header) for c in s.cells]) for s in selections(answer)]
    assert got == [
        (None, [("2.1 million", "Paris", "")]),
        ("table_header", []),
        (None, [("one cell", "", "Only")]),
    ]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("The study found that:", "lead_in"),
        ("Here are the key points:", "lead_in"),
        ("Here is a summary of the news in 77 words:", None),  # it states a count
        ("What's new in Quillmark 3.4:", "lead_in"),  # a version is part of a name
        ("Overall, the deli is a great place for lunch and is highly recommended.", None),
        ("What does the study say?", "question"),
        ("I hope this helps!", "meta"),
        ("Hope this helps.", "meta"),
        ("As an AI language model, I cannot browse the web.", "meta"),
        ("Note that the sources differ on the exact date.", "meta"),
        ("Let me know if you need more details.", "meta"),
        ("If you have more details about what you need, please let me know!", "meta"),
        # "Note that " is masked as a frame before selection: what is left is still meta
        ("the sources differ on the exact date.", "meta"),
        ("The provided passages may be incomplete.", "meta"),
        ("The reports differ on the number injured.", None),  # what the reports say: a claim
        ("The data vary by region.", None),
        ("I cannot provide medical advice.", "meta"),
        ("I don't have access to real-time prices.", "meta"),
        ("Here is a summary of the findings.", "meta"),
        ("Thanks.", "meta"),  # was judged, and contradicted (0.95), failing the CLI gate
        ("Thank you so much for asking!", "meta"),
        ("Hello!", "meta"),
        ("Hi there,", "meta"),
        ("You're welcome.", "meta"),
        ("Have a great day!", "meta"),
        ("Best regards,", "meta"),
        ("Sure.", "meta"),
        (
            "Note: These instructions are based on the given passages and may not be "
            "comprehensive.",
            "meta",
        ),
        ("This answer is based solely on the provided context.", "meta"),
        ("The ruling is based on the 1998 statute.", None),  # a claim
        ("Thanks to the new dam, the valley no longer floods.", None),
        ("Hello Kitty was created by Sanrio.", None),
        ("Cheers rang out when the team won the cup.", None),
        ("Yes.", None),  # an answer to a yes/no question states something
        ("I think the second option is better.", "opinion"),
        ("In my opinion, Suede were the best band of the decade.", "opinion"),
        ("This is a great choice for beginners.", "opinion"),
        ("Please consult your doctor before changing the dose.", "instruction"),
        ("For more details, see the official website.", "instruction"),
        ("Always read the label before giving a dose.", "instruction"),
        ("For most travellers, the Fenwick 14 is the better pick.", "opinion"),
        ("The therapy results look impressive.", "opinion"),
        ("That is a lot to carry up the stairs.", "opinion"),
        ("Paris is a great choice for a first trip.", "opinion"),
        # claims stay claims
        ("The study followed 480 children.", None),
        ("Take one tablet twice daily with food.", None),
        ("At $9 a month it is a great choice.", None),
        ("At $9 a month, it is a great choice.", None),
        ("Never take more than four tablets.", None),
        ("Never give Paxdrin to infants.", None),
        ("The drug is good for headaches.", None),
        ("The Fenwick 14 is better for battery life.", None),
        ("Note that the drug must be taken with food.", None),
        # statements of absence are claims about the content
        ("The provided context does not mention the price.", None),
        ("I couldn't find any information about a reservation in the county.", None),
        ("Suede formed in London in 1989.", None),
        ("", None),
        # punctuation alone states nothing (it was judged, and "...!!!" was contradicted)
        ("...!!!", "no_words"),
        ("—", "no_words"),
        ("😀", "no_words"),
        ("x.", None),
    ],
)
def test_reasons_from_the_words(text: str, reason: str | None) -> None:
    assert reason_from_text(text) == reason


def test_headings_code_and_frames() -> None:
    answer = (
        "Results\n"
        "=======\n"
        "**Key findings**\n"
        "The trial showed that:\n"
        "1. Fewer attacks overall. It also cut costs.\n"
        "2. Hospital stays were:\n"
        "   - two days on average\n"
        "\n"
        "To enrol, follow these steps:\n"
        "- Call the clinic.\n"
        "```\n"
        "print(x)\n"
        "```\n"
        "Plain prose here.\n"
    )
    got = [(s.span.text(answer), s.reason, s.kind, s.hypothesis) for s in _with_spans(answer)]
    assert got == [
        ("Results", "heading", "heading", None),
        ("**Key findings**", "heading", "heading", None),
        ("The trial showed that:", "lead_in", "prose", None),
        (
            "Fewer attacks overall.",
            None,
            "list_item",
            "The trial showed that Fewer attacks overall.",
        ),
        ("It also cut costs.", None, "list_item", None),
        ("Hospital stays were:", "lead_in", "list_item", None),
        ("two days on average", None, "list_item", "Hospital stays were two days on average"),
        ("To enrol, follow these steps:", "lead_in", "prose", None),
        ("Call the clinic.", None, "list_item", None),  # the lead-in frames nothing
        ("print(x)", "code", "code", None),
        ("Plain prose here.", None, "prose", None),
    ]


def _with_spans(answer: str):
    spans = segment_sentences(answer, backend="regex")

    class WithSpan:
        def __init__(self, selection, span):
            self.__dict__.update(selection.__dict__, span=span)

    return [WithSpan(s, span) for s, span in zip(select_claims(answer, spans), spans, strict=True)]


# ---------------------------------------------------------------------------------------------
# The detector
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def lexical_report() -> Report:
    detector = Detector(LexicalVerifier(), sentence_backend="regex", verification="nli")
    return detector.detect(answer=ASTRA_ANSWER, context=ASTRA_CONTEXT)


def test_non_claims_are_reported_and_never_blamed(lexical_report: Report) -> None:
    report = lexical_report
    by_text = {s.text: s for s in report.sentences}
    for text, reason in (
        ("Summary of the ASTRA study", "heading"),
        ("The study found that:", "lead_in"),
        ("| group | no severe attack |", "table_header"),
    ):
        verdict = by_text[text]
        assert (verdict.label, verdict.reason, verdict.score, verdict.method) == (
            "not_a_claim",
            reason,
            0.0,
            "selection",
        )
        assert not any(verdict.span.overlaps(Span(s.start, s.end)) for s in report.spans)
        assert not any(v.fact.sentence == verdict.index for v in report.facts)
    assert report.summary.not_a_claim == 3
    # the denominator counts the facts of claims only
    assert report.summary.checked == sum(
        report.summary.counts[k] for k in ("supported", "contradicted", "unverifiable")
    )
    assert "not_a_claim" not in report.summary.counts
    table_facts = [v for v in report.facts if v.fact.source == "table"]
    assert [(v.fact.object, v.hypothesis) for v in table_facts] == [
        ("64%", "new inhaler — no severe attack: 64%."),
        ("38%", "standard — no severe attack: 38%."),
    ]


def test_to_dict_round_trip_and_rendering(lexical_report: Report) -> None:
    data = lexical_report.to_dict()
    heading = data["sentences"][0]
    assert (heading["label"], heading["checkworthy"], heading["reason"]) == (
        "not_a_claim",
        False,
        "heading",
    )
    assert data["sentences"][2]["checkworthy"] is True and data["sentences"][2]["reason"] is None
    assert data["summary"]["not_a_claim"] == 3
    assert Report.from_dict(data).to_dict() == data
    html = render_html(lexical_report)
    assert (
        '<span class="not-a-claim" title="not a claim: heading">Summary of the ASTRA study</span>'
        in html
    )
    assert '<tr class="not-a-claim">' in html
    markdown = render_markdown(lexical_report)
    assert "| 0 | not_a_claim (heading) | 0.00 | Summary of the ASTRA study | — |" in markdown
    assert "not a claim (not checked) 3" in markdown


def test_selection_none_checks_every_sentence_and_round_trips() -> None:
    detector = Detector(LexicalVerifier(), sentence_backend="regex", selection="none")
    report = detector.detect(answer=ASTRA_ANSWER, context=ASTRA_CONTEXT)
    assert all(s.label != "not_a_claim" for s in report.sentences)
    assert report.config["selection"] == "none"
    assert Detector.from_config(detector.config()).selection == "none"
    with pytest.raises(ValueError, match="selection='llm' needs an endpoint"):
        Detector(LexicalVerifier(), selection="llm")
    with pytest.raises(ValueError, match="selection must be 'rules', 'none' or 'llm', got 'x'"):
        Detector(LexicalVerifier(), selection="x")  # type: ignore[arg-type]


def test_an_answer_of_non_claims_only() -> None:
    detector = Detector(LexicalVerifier(), sentence_backend="regex")
    report = detector.detect(answer="## Overview\n\nI hope this helps!", context=ASTRA_CONTEXT)
    assert [s.reason for s in report.sentences] == ["heading", "meta"]
    assert (report.summary.status, report.summary.faithfulness, report.summary.checked) == (
        "no_claims",
        None,
        0,
    )
    assert report.spans == [] and not report.checked


@pytest.mark.skipif(
    not (default_verifier_path() / "model.onnx").is_file(),
    reason="the shipped verifier is missing; run `make train-verifier`",
)
def test_the_issue_example_on_the_shipped_models() -> None:
    report = Detector().detect(answer=ASTRA_ANSWER, context=ASTRA_CONTEXT)
    structural = [
        at(ASTRA_ANSWER, "Summary of the ASTRA study"),
        at(ASTRA_ANSWER, "The study found that:"),
        at(ASTRA_ANSWER, "| group | no severe attack |"),
    ]
    spans = [Span(s.start, s.end) for s in report.spans]
    assert not any(s.overlaps(g) for s in spans for g in structural)
    assert any(s.overlaps(at(ASTRA_ANSWER, "45%")) for s in spans)
    row = next(s for s in report.sentences if s.text == "| standard | 38% |")
    assert row.label == "supported"
    cell = next(v for v in report.facts if v.fact.object == "38%")
    assert (cell.label, cell.fact.delta) == ("supported", [at(ASTRA_ANSWER, "38%")])
    # the denominator: the facts of claims only, no heading, lead-in or table header
    assert report.summary.not_a_claim == 3
    assert report.summary.checked == len([v for v in report.facts if not v.suppressed])


def test_a_table_row_is_one_unit_and_skips_the_language_check() -> None:
    answer = "| feature | value |\n|---|---|\n| Length | 77 km |\n| over 25 kg | 10 ml | every 8 hours |\n"
    rows = [s.text(answer) for s in segment_sentences(answer, backend="spacy")]
    assert rows == [
        "| feature | value |",
        "| Length | 77 km |",
        "| over 25 kg | 10 ml | every 8 hours |",
    ]
    detector = Detector(LexicalVerifier(), sentence_backend="spacy")
    report = detector.detect(answer=answer, context="The canal is 77 km long.")
    # checked cell by cell, not "unsupported_language" though "| Length | 77 km |" is no sentence
    assert [s.label != "unsupported_language" for s in report.sentences] == [True] * 3
    assert report.sentences[0].label == "not_a_claim"
    assert [(v.fact.id, v.fact.object) for v in report.facts] == [
        ("f1.0", "77 km"),
        ("f2.0", "10 ml"),
        ("f2.1", "every 8 hours"),
    ]


def test_llm_selection_against_a_local_server() -> None:
    pytest.importorskip("openai")
    from llm_server import ScriptedLLM

    from enoki_hd.llm import ChatClient
    from enoki_hd.select import LLMSelector

    answer = (
        "## Overview\n\nThe study found that:\n\n- 64% had no attack.\n- It was a fine study.\n\n"
        "I hope this helps!\n"
    )
    # sentences: 0 heading (rules), 1 lead-in, 2 and 3 list items, 4 meta
    reply = "\n".join(
        [
            "<think>numbering the sentences</think>```json",
            '{"index": 1, "checkworthy": false, "reason": "lead_in"}',
            '{"index": 2, "checkworthy": true, "reason": null}',
            '{"index": 3, "checkworthy": false, "reason": "opinion"}',
            '{"index": 4, "checkworthy": false, "reason": "small talk"}',  # unknown reason
            "```",
        ]
    )
    with ScriptedLLM() as llm:
        llm.route("Sentences:", reply)
        selector = LLMSelector(ChatClient("m", llm.url, max_retries=0))
        spans = segment_sentences(answer, backend="regex")
        got = [(s.reason, s.hypothesis) for s in selector.select(answer, spans)]
        asked = llm.requests[0]["messages"][-1]["content"]
    assert got == [
        ("heading", None),  # structure: never asked
        ("lead_in", None),
        (None, "The study found that 64% had no attack."),  # the rules' frame kept
        ("opinion", None),  # the model's call (the rules see a claim)
        ("meta", None),  # unknown reason: the rules' decision
    ]
    assert "1. The study found that:\n2. 64% had no attack.\n3. It was a fine study." in asked
    assert "0. Overview" not in asked
    assert selector.stats == {"requests": 1, "answered": 3, "fallback": 1}
    config = Detector(LexicalVerifier(), selection=selector).config()["selection"]
    assert (config["name"], config["model"], config["prompt"]) == ("llm", "m", "select")
    rebuilt = Detector.from_config({"selection": {k: v for k, v in config.items()}})
    assert rebuilt.selection == "llm" and rebuilt.selector_llm is not None


def test_an_llm_selection_prompt_must_show_the_sentences(tmp_path) -> None:
    pytest.importorskip("openai")
    from enoki_hd.llm import ChatClient
    from enoki_hd.select import LLMSelector

    # "{sentence}" (no s) would send the model no sentence, and its answers would be applied
    # to sentences it never saw
    template = tmp_path / "select.txt"
    template.write_text("### system\nDecide.\n### user\nSentences:\n{sentence}\n")
    client = ChatClient("m", "http://127.0.0.1:9/v1", max_retries=0)
    with pytest.raises(ValueError, match=r"user section needs \{sentences\}"):
        LLMSelector(client, prompt=str(template))
    # a saved config's digest is checked, as the extractor's and the judge's are
    options = {"name": "llm", "model": "m", "base_url": "http://127.0.0.1:9/v1"}
    with pytest.raises(ValueError, match="prompt_sha256"):
        Detector(LexicalVerifier(), selection={**options, "prompt_sha256": "0" * 64})


@pytest.mark.skipif(
    not (default_verifier_path() / "model.onnx").is_file(),
    reason="the shipped verifier is missing; run `make train-verifier`",
)
def test_cli_selection_switch(tmp_path, capsys) -> None:
    import json

    from enoki_hd.cli import main

    (tmp_path / "c.txt").write_text(ASTRA_CONTEXT)
    (tmp_path / "a.md").write_text(ASTRA_ANSWER)
    labels = {}
    for selection in ("rules", "none"):
        argv = ["detect", "--context", str(tmp_path / "c.txt"), "--answer", str(tmp_path / "a.md")]
        assert main([*argv, "--selection", selection, "--stable"]) == 0
        report = json.loads(capsys.readouterr().out)
        assert report["config"]["selection"] == selection
        labels[selection] = [s["label"] for s in report["sentences"]]
    assert labels["rules"].count("not_a_claim") == 3
    assert "not_a_claim" not in labels["none"]
