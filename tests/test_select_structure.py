"""Claim selection on the structure of RAG answers (enoki_hd.select): source lists, title
lines, symbol bullets, answers without markup, JSON records; exact spans, labels and reasons,
and one structured answer end to end on the shipped models."""

from __future__ import annotations

import pytest

from enoki_hd.detector import Detector
from enoki_hd.select import cell_facts, reason_from_text, select_claims
from enoki_hd.text import segment_sentences
from enoki_hd.types import Span
from enoki_hd.verify.loading import default_verifier_path


def read(answer: str) -> list[tuple[str, str | None, str, str | None]]:
    """(sentence, reason, kind, hypothesis) of every sentence of ``answer``."""
    spans = segment_sentences(answer, backend="regex")
    return [
        (span.text(answer), s.reason, s.kind, s.hypothesis)
        for span, s in zip(spans, select_claims(answer, spans), strict=True)
    ]


def at(text: str, phrase: str) -> Span:
    start = text.index(phrase)
    return Span(start, start + len(phrase))


def test_source_lists_are_meta() -> None:
    # the URLs and titles under "Sources:" were judged: "unverifiable", and blamed
    answer = (
        "She won in 1903.\n"
        "\n"
        "Sources:\n"
        "- https://en.wikipedia.org/wiki/Marie_Curie\n"
        '- Wikipedia, "Marie Curie"\n'
        "\n"
        "She died in 1934.\n"
        "\n"
        "## Further reading\n"
        "\n"
        "Nobel Prize Facts, nobelprize.org\n"
        "\n"
        "Source: Wikipedia, 2024\n"
        "See also: https://www.nobelprize.org\n"
        "\n"
        "[^1]: Nobel Prize Facts\n"
        "\n"
        "https://www.nobelprize.org/prizes/physics/1903/\n"
    )
    assert read(answer) == [
        ("She won in 1903.", None, "prose", None),
        ("Sources:", "lead_in", "prose", None),
        ("https://en.wikipedia.org/wiki/Marie_Curie", "meta", "list_item", None),
        ('Wikipedia, "Marie Curie"', "meta", "list_item", None),
        # a paragraph after the list is no entry of it
        ("She died in 1934.", None, "prose", None),
        ("Further reading", "heading", "heading", None),
        ("Nobel Prize Facts, nobelprize.org", "meta", "prose", None),
        # a line that names its source, with a year in it, states no fact
        ("Source: Wikipedia, 2024", "meta", "prose", None),
        # without its link (no words to judge) the line is a lead-in: not a claim either
        ("See also: https://www.nobelprize.org", "lead_in", "prose", None),
        ("[^1]: Nobel Prize Facts", "meta", "prose", None),
        # a bare link
        ("https://www.nobelprize.org/prizes/physics/1903/", "meta", "prose", None),
    ]


def test_a_title_line_above_a_list_or_labels_is_a_heading() -> None:
    # "Key facts about the Riverside Rowing Club" was judged and "Key facts" blamed
    answer = (
        "Key facts about the Riverside Rowing Club\n"
        "Founded: 1901\n"
        "\n"
        "Holm Bridge at a glance\n"
        "- Steel suspension bridge\n"
        "\n"
        "The bridge opened in 1966\n"
        "- It is 450 metres long.\n"
        "\n"
        "A line that opens no list\n"
    )
    assert read(answer) == [
        ("Key facts about the Riverside Rowing Club", "heading", "prose", None),
        ("Founded: 1901", None, "prose", None),
        ("Holm Bridge at a glance", "heading", "prose", None),
        ("Steel suspension bridge", None, "list_item", None),
        # a number makes it a claim
        ("The bridge opened in 1966", None, "prose", None),
        ("It is 450 metres long.", None, "list_item", None),
        ("A line that opens no list", None, "prose", None),
    ]


def test_symbol_bullets_are_items_judged_without_their_symbol() -> None:
    # "✅ Free Wi-Fi" was contradicted by the verifier; "Free Wi-Fi" is supported
    answer = (
        "The bakery is open to:\n✅ dogs on the terrace\n## Extras\n✅ Free Wi-Fi\n"
        "- **Avoid if:** allergic"
    )
    assert read(answer) == [
        ("The bakery is open to:", "lead_in", "prose", None),
        ("✅ dogs on the terrace", None, "list_item", "The bakery is open to dogs on the terrace"),
        ("Extras", "heading", "heading", None),
        ("✅ Free Wi-Fi", None, "list_item", "Free Wi-Fi"),
        # other markup stays for the verifier
        ("**Avoid if:** allergic", None, "list_item", None),
    ]


def test_json_pairs_are_read_as_cells() -> None:
    # a one-line JSON answer was one sentence: '"capital"' the subject, "Lyon" judged supported
    answer = '{"capital": "Lyon", "population_millions": 68}'
    spans = segment_sentences(answer, backend="regex")
    selections = select_claims(answer, spans)
    assert [(s.kind, s.hypothesis) for s in selections] == [
        ("record", "capital: Lyon."),
        ("record", "population millions: 68."),
    ]
    facts = [f for s in selections for f in cell_facts(s)]
    assert [(f.subject, f.relation, f.object, f.delta, f.source) for f in facts] == [
        ("", "capital", "Lyon", [at(answer, "Lyon")], "table"),
        ("", "population millions", "68", [at(answer, "68")], "table"),
    ]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("Here is what I found about the Holm Bridge.", "meta"),
        ("here's the answer.", "meta"),
        ("Here's a breakdown.", "meta"),
        ("The information above is drawn from the given passage and may not be complete.", "meta"),
        ("This answer is based only on the provided context.", "meta"),
        ("Note that the information may not be complete.", "meta"),
        # claims stay claims
        ("Here is the bridge that opened in 1966.", None),
        ("The information above the door is drawn in red.", None),
    ],
)  # fmt: skip
def test_announcements_and_disclaimers_are_meta(text: str, reason: str | None) -> None:
    assert reason_from_text(text) == reason


@pytest.mark.skipif(
    not (default_verifier_path() / "model.onnx").is_file(),
    reason="the shipped verifier is missing; run `make train-verifier`",
)
def test_a_structured_answer_on_the_shipped_models() -> None:
    context = (
        "The Riverside Rowing Club was founded in 1901 by a group of students. Its boathouse "
        "stands on the east bank of the Avon. The club has about 300 members."
    )
    answer = (
        "Sure! Here is what I found.\n"
        "\n"
        "Key facts about the Riverside Rowing Club\n"
        "Founded: 1910\n"
        "Members: about 300\n"
        "\n"
        "Note: The information above is drawn from the provided passage and may not be "
        "complete.\n"
        "\n"
        "Sources:\n"
        "- https://example.org/riverside-rowing\n"
        "\n"
        "I hope this helps!"
    )
    report = Detector().detect(answer=answer, context=context)
    assert [(s.text, s.label, s.reason) for s in report.sentences] == [
        ("Here is what I found.", "not_a_claim", "meta"),
        ("Key facts about the Riverside Rowing Club", "not_a_claim", "heading"),
        ("Founded: 1910", "contradicted", None),
        ("Members: about 300", "supported", None),
        ("Note:", "not_a_claim", "lead_in"),
        (
            "The information above is drawn from the provided passage and may not be complete.",
            "not_a_claim",
            "meta",
        ),
        # the URL is a reference, read as spaces like "[1]": no sentence of its own
        ("Sources:", "not_a_claim", "heading"),
        ("I hope this helps!", "not_a_claim", "meta"),
    ]
    year = at(answer, "1910")
    assert [(s.start, s.end, s.text) for s in report.spans] == [(year.start, year.end, "1910")]


def test_a_denying_mark_is_neither_dropped_nor_framed() -> None:
    # "❌ dogs" under "open to:" read as "The bakery is open to dogs": the opposite claim
    answer = "The bakery is open to:\n❌ dogs on the terrace\n✅ cats\n## Extras\n🚫 Smoking"
    assert read(answer) == [
        ("The bakery is open to:", "lead_in", "prose", None),
        ("❌ dogs on the terrace", None, "list_item", None),
        ("✅ cats", None, "list_item", "The bakery is open to cats"),
        ("Extras", "heading", "heading", None),
        ("🚫 Smoking", None, "list_item", None),
    ]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # a claim that drops its full stop above a list is no title
        ("The Eiffel Tower was designed by Gustave Courbet\n- It is in Paris",
         [("The Eiffel Tower was designed by Gustave Courbet", None),
          ("It is in Paris", None)]),
        ("Einstein won the Nobel Prize\n- in 1921",
         [("Einstein won the Nobel Prize", None), ("in 1921", None)]),
        ("Key facts about the club\n- Founded in 1901",
         [("Key facts about the club", "heading"), ("Founded in 1901", None)]),
        # an entry under a sources title is meta only when it reads as a reference
        ("Sources\n- The drug was approved in 2005.",
         [("Sources", "heading"), ("The drug was approved in 2005.", None)]),
        ("Sources:\n- WHO fact sheet, 2023\n- Smith et al. (2019) Trials\n- Nature Medicine",
         [("Sources:", "lead_in"), ("WHO fact sheet, 2023", "meta"),
          ("Smith et al. (2019) Trials", "meta"), ("Nature Medicine", "meta")]),
        ("Source: the drug cures cancer in all patients.",
         [("Source: the drug cures cancer in all patients.", None)]),
        ("See also: Paris was founded in 250 BC.", [("See also: Paris was founded in 250 BC.", None)]),
        ("Source: WHO, 2023", [("Source: WHO, 2023", "meta")]),
    ],
)  # fmt: skip
def test_claims_near_titles_and_sources_stay_claims(
    answer: str, expected: list[tuple[str, str | None]]
) -> None:
    assert [(text, reason) for text, reason, _, _ in read(answer)] == expected


def test_a_mathematical_sign_is_no_bullet() -> None:
    answer = "- ≤ 50 mg per day is safe\n- − 5 °C is the record low.\n✅ Free Wi-Fi"
    assert [hypothesis for _, _, _, hypothesis in read(answer)] == [None, None, "Free Wi-Fi"]
