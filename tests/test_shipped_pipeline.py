"""The shipped default pipeline (rules extractor + checkpoints/verifier-minilm) on the bundled
example and on the issue's value-conflict case: real models, exact spans.

The expectations are read off the texts, not recorded from a run: the answer's first two
sentences restate the context; the third invents a founder and a city the context never
names; the fourth invents an album count and a split year that conflicts with "disbanded in
2003"."""

from __future__ import annotations

from importlib.resources import files

import pytest

from enoki_hd.detector import Detector
from enoki_hd.verify.evidence import EvidenceSelector
from enoki_hd.verify.loading import default_verifier_path

pytestmark = pytest.mark.skipif(
    not (default_verifier_path() / "model.onnx").is_file(),
    reason="the shipped verifier is missing; run `make train-verifier`",
)

EXAMPLES = files("enoki_hd") / "examples"
ANSWER = (EXAMPLES / "suede_answer.txt").read_text().strip()


@pytest.fixture(scope="module")
def detector() -> Detector:
    return Detector()


@pytest.fixture(scope="module")
def report(detector: Detector):
    return detector.detect(
        answer=ANSWER,
        context=(EXAMPLES / "suede_context.txt").read_text(),
        question=(EXAMPLES / "suede_question.txt").read_text().strip(),
    )


def at(phrase: str) -> tuple[int, int, str]:
    start = ANSWER.index(phrase)
    return start, start + len(phrase), phrase


def test_supported_sentences_and_hallucinated_sentences(report) -> None:
    assert [s.label for s in report.sentences] == [
        "supported",
        "supported",
        "contradicted",
        "contradicted",
    ]
    assert report.summary.status == "ok" and report.checked


def test_hallucinated_spans_are_the_invented_facts(report) -> None:
    spans = {(s.start, s.end, s.text): s for s in report.spans}
    # the invented founder and place are one phrase: one span across "by" and "in"
    assert at("founded by Noel Gallagher in Manchester") in spans
    assert at("1998") in spans
    assert spans[at("1998")].label == "contradicted"  # against "disbanded in 2003"
    assert any("twelve" in text for _, _, text in spans)
    # nothing of the two restated sentences is blamed
    second_end = report.sentences[1].span.end
    assert all(s.start >= second_end for s in report.spans)
    for span in report.spans:
        assert report.answer[span.start : span.end] == span.text


def test_a_value_conflict_worded_differently_is_contradicted(detector: Detector) -> None:
    answer = "The concert in Oslo drew a crowd of 18,250."
    report = detector.detect(
        answer=answer,
        context="The band closed its tour in Oslo in front of 16,250 spectators.",
    )
    assert [s.label for s in report.sentences] == ["contradicted"]
    assert [(s.start, s.end, s.text, s.label) for s in report.spans] == [
        (36, 42, "18,250", "contradicted")
    ]


@pytest.mark.parametrize(
    ("context", "answer", "decided_by", "span"),
    [
        (
            "In 2019, Crestline Credit bought the regional lender Harbor Bank for $2.1 billion.",
            "Harbor Bank bought Crestline Credit in 2019.",
            "role_conflict",
            (19, 35, "Crestline Credit"),
        ),
        (
            "The museum is open every day except Mondays, when it is closed for maintenance.",
            "The museum is open on Mondays.",
            "exception_conflict",
            (22, 29, "Mondays"),
        ),
    ],
)
def test_the_verification_issue_rows_are_contradicted(
    detector: Detector, context: str, answer: str, decided_by: str, span: tuple[int, int, str]
) -> None:
    # The verifier entails both (0.99, 0.93); the structural conflict check decides.
    report = detector.detect(answer=answer, context=context)
    assert [s.label for s in report.sentences] == ["contradicted"]
    assert [v.decided_by for v in report.facts if v.label == "contradicted"] == [decided_by]
    assert [(s.start, s.end, s.text, s.label) for s in report.spans] == [(*span, "contradicted")]
    off = Detector(detector.verifier, conflicts=False).detect(answer=answer, context=context)
    assert [s.label for s in off.sentences] == ["supported"] and off.spans == []


def test_the_verifier_is_the_shipped_onnx_model(report) -> None:
    verifier = report.config["verifier"]
    assert str(verifier["path"]).endswith("verifier-minilm") and verifier["backend"] == "onnx"
    assert report.config["extractor"]["name"] == "rules"


def test_a_family_the_context_never_states_is_the_only_span(detector: Detector) -> None:
    # "Pteridaceae" occurs nowhere in the context; every other word does
    context = (
        "The amber fern is a species of plant in the family Polypodiaceae. It grows in Chile "
        "and Argentina."
    )
    answer = "The amber fern is a plant in the family Pteridaceae. It grows in Chile."
    report = detector.detect(answer=answer, context=context)
    assert [s.text for s in report.spans] == ["Pteridaceae"]
    assert report.sentences[0].label != "supported"
    assert report.sentences[1].label == "supported"
    flagged = [v for v in report.facts if v.label != "supported"]
    assert flagged and all("Pteridaceae" in v.hypothesis for v in flagged)


def test_a_context_extracted_from_a_pdf_reads_as_the_words_it_spells(
    detector: Detector,
) -> None:
    """Ligatures ("ﬁ", "ﬃ"), a soft hyphen and a decomposed accent, as PDF and web extraction
    leave them, are the plain words the answer writes: before they were compared in
    compatibility form, "official figures" was unverifiable and "Café" counted as absent. The
    one span is the year the answer changed."""
    context = (
        "The o\ufb03cial \ufb01gures of the Cafe\u0301 Noir were pub\u00adlished in 1994. "
        "The Cafe\u0301 Noir opened in 1991."
    )
    answer = "The official figures of the Café Noir were published in 1994. The Café Noir opened in 1990."
    report = detector.detect(answer=answer, context=context)
    assert [(s.start, s.end, s.text, s.label) for s in report.spans] == [
        (answer.index("1990"), answer.index("1990") + 4, "1990", "contradicted")
    ]
    assert [s.label for s in report.sentences] == ["supported", "contradicted"]


def test_a_cited_answer_is_judged_on_its_words_not_its_citation_markers(
    detector: Detector,
) -> None:
    """RAG answers cite their passages: "[1]", "[Doc 2]", "(Source 1)", "[^1]". None is a
    claim, a span or a sentence of its own; the one span is the year the answer changed."""
    context = (
        "The Louvre in Paris opened as a museum on 10 August 1793. It is the world's "
        "most-visited museum, with 8.9 million visitors in 2023."
    )
    answer = (
        "The Louvre opened as a museum in 1793 [1][Doc 2]. It is the most-visited museum "
        "(Source 1). It had 8.9 million visitors in 2024.[^1]"
    )
    report = detector.detect(answer=answer, context=context)
    assert [(s.text, s.label) for s in report.sentences] == [
        ("The Louvre opened as a museum in 1793 [1][Doc 2].", "supported"),
        ("It is the most-visited museum (Source 1).", "supported"),
        ("It had 8.9 million visitors in 2024.", "contradicted"),
    ]
    assert [(s.start, s.end, s.text) for s in report.spans] == [
        (answer.index("2024"), answer.index("2024") + 4, "2024")
    ]


@pytest.mark.parametrize(
    ("answer", "spans"),
    [
        ("Smith was born on 4 March 1950 in Leeds.", []),
        ("Smith was born on March 4, 1950, in Leeds.", []),
        ("Smith was born in March 1950 in Leeds.", []),
        ("Smith was born on 5 March 1950 in Leeds.", [("5 March 1950", "contradicted")]),
        ("Smith was born on 4 April 1950 in Leeds.", [("4 April 1950", "contradicted")]),
    ],
)
def test_a_date_the_context_states_is_supported_whatever_its_format(
    detector: Detector, answer: str, spans: list
) -> None:
    """The date chain (1950 -> March 1950 -> 4 March 1950) grounds each refinement on its
    whole date: before, the day "4" and the month "March" were grounded alone, found nowhere
    (the context's date is one date, not a number and a word), and every dated answer had its
    date flagged, the context's own words included."""
    report = detector.detect(answer=answer, context="Smith was born on 4 March 1950 in Leeds.")
    assert [(s.text, s.label) for s in report.spans] == spans


def test_an_answer_that_names_its_sources_is_judged_on_its_claims(detector: Detector) -> None:
    """RAG answers frame their claims ("According to the provided context, ", "In summary, ");
    judged as part of the claim, the frame read as a contradiction ("Suede formed according to
    context"). The one span is the year the answer changed."""
    context = (EXAMPLES / "suede_context.txt").read_text()
    answer = (
        "According to the provided context, Suede formed in London in 1989. "
        "In summary, the band disbanded in 2005."
    )
    report = detector.detect(answer=answer, context=context)
    assert [(s.text, s.label) for s in report.sentences] == [
        ("Suede formed in London in 1989.", "supported"),
        ("the band disbanded in 2005.", "contradicted"),
    ]
    assert [s.text for s in report.spans] == ["2005"]


@pytest.mark.parametrize(
    ("context", "copied"),
    [
        (
            "The study mapped 40 loci linked to chronic pain. Additionally, pleiotropy was not "
            "limited to different types of pain but also extended to psychiatric, metabolic, "
            "and immunological traits. Correlations were found with depression and asthma.",
            "Additionally, pleiotropy was not limited to different types of pain but also "
            "extended to psychiatric, metabolic, and immunological traits.",
        ),
        (
            "We ordered three pizzas on Friday. The workers wore their masks during work, and "
            "every time they made a new pizza, they wore a different glove to ensure there is "
            "no contamination. The portions were generous.",
            "The workers wore their masks during work, and every time they made a new pizza, "
            "they wore a different glove to ensure there is no contamination.",
        ),
    ],
)
def test_a_sentence_copied_from_the_context_is_never_flagged(
    detector: Detector, context: str, copied: str
) -> None:
    """The verifier fails facts cut from these sentences ("pleiotropy … extended", "there is
    no contamination"), yet the answer says exactly what the context says. Appended to it, an
    invented sentence is still flagged."""
    report = detector.detect(answer=f"{copied} It was funded by Wellcome.", context=context)
    assert [s.label for s in report.sentences] == ["supported", "unverifiable"]
    assert report.sentences[0].evidence.text == copied
    assert {v.decided_by for v in report.facts if v.fact.sentence == 0} == {"quoted"}
    assert [s.text for s in report.spans] == ["funded by Wellcome"]


@pytest.mark.parametrize(
    ("answer", "context", "span"),
    [
        ("The deal was worth $40 million.", "The deal was worth €40 million.", "$40 million"),
        ("It cost £40m.", "It cost $40m, the filing shows.", "£40m"),
    ],
)
def test_an_amount_in_another_currency_sign_is_contradicted(
    detector: Detector, answer: str, context: str, span: str
) -> None:
    """The currency sign is part of the amount: "$40 million" was extracted as "40 million",
    which the context's "€40 million" entails."""
    report = detector.detect(answer=answer, context=context)
    assert [s.label for s in report.sentences] == ["contradicted"]
    assert [s.text for s in report.spans] == [span]
    same = detector.detect(answer=answer, context=context.replace("€", "$").replace("$40m", "£40m"))
    assert [s.label for s in same.sentences] == ["supported"] and same.spans == []


def test_the_same_number_in_another_unit_is_contradicted(detector: Detector) -> None:
    """ "7 miles" against "7 kilometres": the fact keeps its number ("will be 7 miles long",
    not "will be long") and the grounding check finds the value stated in another unit."""
    context = "The Marrowby Bypass will be 7 kilometres long."
    answer = "The Marrowby Bypass will be 7 miles long."
    report = detector.detect(answer=answer, context=context)
    assert [(v.fact.object, v.label, v.decided_by) for v in report.facts] == [
        ("7 miles long", "contradicted", "value_conflict")
    ]
    assert [(s.text, s.label) for s in report.spans] == [("7 miles", "contradicted")]
    same = detector.detect(answer="The Marrowby Bypass will be 7 km long.", context=context)
    assert [(v.label, v.decided_by) for v in same.facts] == [("supported", "nli")]
    assert same.spans == []


def test_a_value_in_other_words_is_supported(detector: Detector) -> None:
    """ "1.85 kg" against "1,850 grams" beside other numbers: the verifier alone reads the
    three-sentence context as a contradiction; restated and judged in its own sentence, the
    weight is supported, and a wrong weight stays a value conflict."""
    context = (
        "Each Tamber hiking tent weighs 1,850 grams including poles and pegs. "
        "The packed size is 45 by 15 centimetres. It sleeps two adults."
    )
    answer = "The Tamber tent weighs 1.85 kg."
    report = detector.detect(answer=answer, context=context)
    assert [(v.fact.object, v.label) for v in report.facts] == [("1.85 kg", "supported")]
    assert report.spans == []
    plain = Detector(
        detector.verifier,
        selector=EvidenceSelector(value_sentences=False, restate_quantities=False),
    ).detect(answer=answer, context=context)
    assert [(v.fact.object, v.label, v.decided_by) for v in plain.facts] == [
        ("1.85 kg", "contradicted", "nli")
    ]
    wrong = detector.detect(answer="The Tamber tent weighs 3 kg.", context=context)
    assert [(v.label, v.decided_by) for v in wrong.facts] == [("contradicted", "value_conflict")]
    assert [s.text for s in wrong.spans] == ["3 kg"]


def test_a_name_given_another_agents_deed_is_contradicted(detector: Detector) -> None:
    """ "Ana Ruiz scored the winning goal" where the context gives the goal to Carla Mendes and
    names Ana Ruiz for a sending-off: the verifier entails it (0.99) from the two sentences;
    the agent check finds the goal given to another name, and the name alone is blamed. The
    context's own scorer stays supported."""
    context = (
        "Carla Mendes scored the winning goal in the 88th minute. Her teammate Ana Ruiz was "
        "sent off earlier in the match."
    )
    answer = "Ana Ruiz scored the winning goal in the 88th minute."
    report = detector.detect(answer=answer, context=context)
    assert [s.label for s in report.sentences] == ["contradicted"]
    assert [v.decided_by for v in report.facts if v.label != "supported"] == ["agent_conflict"]
    assert [(s.start, s.end, s.text, s.label) for s in report.spans] == [
        (0, 8, "Ana Ruiz", "contradicted")
    ]
    off = Detector(detector.verifier, conflicts=False).detect(answer=answer, context=context)
    assert [s.label for s in off.sentences] == ["supported"] and off.spans == []
    right = detector.detect(answer=answer.replace("Ana Ruiz", "Carla Mendes"), context=context)
    assert [s.label for s in right.sentences] == ["supported"] and right.spans == []


def test_a_value_the_context_gives_another_role_is_contradicted(detector: Detector) -> None:
    """ "export revenue rose 4%" where the context's 4% is the fall of the total and export
    revenue "rose 9%": every word and the value occur in the context, the value-role check
    finds the relation given another value, and the value alone is blamed."""
    context = (
        "Revenue at Kestrel Foods fell 4% in the first half, the company said on Monday. "
        "Export revenue, however, rose 9% and now makes up a fifth of the total."
    )
    report = detector.detect(
        answer="Kestrel Foods' export revenue rose 4% in the first half.", context=context
    )
    assert (report.facts[0].fact.object, report.facts[0].label, report.facts[0].decided_by) == (
        "4%",
        "contradicted",
        "value_role_conflict",
    )
    assert [(s.text, s.label) for s in report.spans] == [("4%", "contradicted")]
    right = detector.detect(
        answer="Kestrel Foods' export revenue rose 9% in the first half.", context=context
    )
    assert right.spans == [] and all(v.label == "supported" for v in right.facts)


def test_all_said_of_what_the_context_says_of_most_blames_the_all(detector: Detector) -> None:
    """The quantifier check: the libraries' Sunday opening is the context's, for most of
    them; the span is the universal that makes the answer wrong, not its other words."""
    context = (
        "Most of the 30 libraries in Harwell County will open on Sundays from March; only the"
        " two mobile libraries will keep weekday hours."
    )
    report = detector.detect(
        answer="All of Harwell County's libraries will open on Sundays from March.", context=context
    )
    assert {(v.label, v.decided_by) for v in report.facts} == {
        ("contradicted", "quantifier_conflict")
    }
    assert [(s.text, s.label) for s in report.spans] == [("All", "contradicted")]
    right = detector.detect(
        answer="Most of Harwell County's libraries will open on Sundays from March.",
        context=context,
    )
    assert right.spans == []


def test_a_clause_proved_where_the_context_hedges_it_blames_the_verb(detector: Detector) -> None:
    """ "prove that" for the context's "could indicate that": unverifiable, and the span is the
    verb of proof, not the clause the context also states."""
    context = (
        "The trial ran for two winters in four regions. Its early results could indicate that the"
        " vaccine reduces hospital admissions among older adults, the authors wrote."
    )
    answer = (
        "The early results prove that the vaccine reduces hospital admissions among older adults."
    )
    report = detector.detect(answer=answer, context=context)
    assert [(s.text, s.label) for s in report.spans] == [("prove", "unverifiable")]
    hedged = answer.replace("prove", "could indicate")
    assert detector.detect(answer=hedged, context=context).spans == []


def test_a_word_swapped_for_its_opposite_blames_that_word(detector: Detector) -> None:
    """The antonym check: "least stately" where the context says "most stately"; the blame
    is the swapped word."""
    context = (
        "Cabourg is the most stately of the old Channel resorts, with a casino and a grand hotel."
    )
    report = detector.detect(
        answer="Cabourg is the least stately of the old Channel resorts.", context=context
    )
    assert "antonym_conflict" in {v.decided_by for v in report.facts}
    assert [(s.text, s.label) for s in report.spans] == [("least", "contradicted")]


def test_a_value_given_only_in_a_unit_of_another_dimension_is_not_supported(
    detector: Detector,
) -> None:
    """ "5 mg" where the context gives 5 only as "5 ml" (and "mg" only for another value):
    the quantity is not found, so the fact is not supported and the 5 is blamed."""
    context = "Give 5 ml of the syrup twice a day. Each 5 ml dose contains 120 mg of paracetamol."
    report = detector.detect(answer="The dose is 5 mg of the syrup twice a day.", context=context)
    assert report.facts[0].fact.object == "5 mg" and report.facts[0].label != "supported"
    assert [s.text for s in report.spans] == ["5"]
    right = detector.detect(answer="The dose is 5 ml of the syrup twice a day.", context=context)
    assert right.spans == [] and all(v.label == "supported" for v in right.facts)


def test_greetings_and_thanks_are_not_claims(detector: Detector) -> None:
    """ "Thanks." was judged as a claim and contradicted (0.95), failing the CLI's gate on a
    wholly supported answer."""
    report = detector.detect(
        answer="Hello! Marie Curie was born in Warsaw in 1867. I hope this helps. Thanks.",
        context="Marie Curie was born in Warsaw in 1867. She won two Nobel Prizes.",
    )
    assert [(s.label, s.reason) for s in report.sentences] == [
        ("not_a_claim", "meta"),
        ("supported", None),
        ("not_a_claim", "meta"),
        ("not_a_claim", "meta"),
    ]
    assert report.spans == [] and report.summary.status == "ok"


def test_a_dose_in_grams_against_milligrams_is_contradicted(detector: Detector) -> None:
    """A thousandfold dose error: "g" after a number was read as no unit, so "10 mg" was found
    as the context's "10"."""
    report = detector.detect(
        answer="Adults should take 10 mg of the powder daily.",
        context="Adults should take 10 g of the powder daily, dissolved in water.",
    )
    assert [s.label for s in report.sentences] == ["contradicted"]
    assert [s.text for s in report.spans] == ["10 mg"]
    # a sentence without facts whose every word is in the context, flagged by the value
    # conflict: the whole sentence is the span
    imperative = detector.detect(
        answer="Take 10 g of the powder daily.", context="Take 10 mg of the powder daily."
    )
    assert [(s.label, s.text) for s in imperative.spans] == [
        ("contradicted", "Take 10 g of the powder daily")
    ]


def test_a_quoted_run_of_cjk_longer_than_the_verifier_is_judged_in_pieces(
    detector: Detector,
) -> None:
    # 300 CJK characters are one "word" of 300 verifier tokens: the sentence used to raise
    # "leaving no room for a premise" out of detect(); now the run is cut into pieces that fit
    answer = "Apple was founded by Bill Gates in 1976 according to record " + "東" * 300 + "."
    report = detector.detect(answer=answer, context="Apple was founded by Steve Jobs in 1976.")
    (sentence,) = report.sentences
    assert sentence.label == "contradicted"
    assert report.spans[0].text == "Bill Gates"


CURIE = (
    "Marie Curie was born in Warsaw in 1867. She died in 1934 in Passy, France. She won the "
    "Nobel Prize in Chemistry in 1911."
)


@pytest.mark.parametrize(
    "answer",
    [
        "1. Marie Curie was born in Warsaw. 2. She died in 1934. 3. She won the Nobel Prize in "
        "Chemistry in 1911.",
        "1) Marie Curie was born in Warsaw. 2) She died in 1934. 3) She won the Nobel Prize in "
        "Chemistry in 1911.",
        "Key facts: 1) Marie Curie was born in Warsaw; 2) she died in 1934; 3) she won the Nobel "
        "Prize in Chemistry in 1911.",
    ],
)
def test_the_markers_of_a_list_on_one_line_are_never_blamed(
    detector: Detector, answer: str
) -> None:
    # "2" and "3" were flagged at 1.00 as numbers the context never states, and "2)" became a
    # contradicted sentence of its own
    report = detector.detect(answer=answer, context=CURIE)
    assert [s.label for s in report.sentences] == ["supported"] * len(report.sentences)
    assert report.spans == []


@pytest.mark.parametrize("answer", ["...!!!", "—", "👍👍👍"])
def test_punctuation_alone_is_no_claim(detector: Detector, answer: str) -> None:
    report = detector.detect(answer=answer, context=CURIE)
    assert [(s.label, s.reason) for s in report.sentences] == [("not_a_claim", "no_words")]
    assert report.to_dict()["summary"]["status"] == "no_claims"
    assert report.spans == []


def test_a_list_cut_off_after_its_last_marker_is_not_blamed(detector: Detector) -> None:
    for answer in (
        "1. Marie Curie was born in Warsaw. 2. She died in 1934. 3.",
        "Key facts: 1) Marie Curie was born in Warsaw; 2) she died in 1934; 3)",
    ):
        report = detector.detect(answer=answer, context=CURIE)
        assert report.spans == [], answer
        assert {s.label for s in report.sentences} == {"supported"}, answer


def test_a_table_of_times_restated_still_fits_the_verifier(caplog) -> None:
    """A structured context (a record of opening hours, as RAG data-to-text prompts hold) is
    cut into windows that fill the verifier's 256 tokens; restating "17:00" as "5:00 PM" for
    the hypothesis lengthens them, and the verifier used to truncate two of them with a
    warning that evidence selection had passed windows that do not fit."""
    days = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    record = {
        "name": "Harbor Noodle House",
        "city": "Lisbon",
        "hours": {day: "17:00-22:00" for day in days},
        "attributes": {f"Feature{i}": i % 2 == 0 for i in range(12)},
        "kitchen_hours": {day: "17:30-21:30" for day in days},
        "bar_hours": {day: "16:00-23:00" for day in days},
    }
    detector = Detector()
    with caplog.at_level("WARNING"):
        report = detector.detect(
            answer="The restaurant is open from 5:00 PM to 10:00 PM every day.",
            context=str(record),
        )
    assert detector.verifier.stats["truncated"] == 0
    assert detector.verifier.stats["pairs"] > 1  # the record took more than one window
    assert not [r for r in caplog.records if "truncated" in r.getMessage()]
    assert report.summary.status == "ok"


def test_an_answer_that_hedges_as_the_context_does_is_not_a_dropped_hedge(
    detector: Detector,
) -> None:
    """The rules extractor left "likely" (and "perhaps", "typically", ...) out of the
    relation, so "was likely caused by" was checked as "was caused by" and the dropped-hedge
    check flagged it against the context's "may have been caused by" — an answer that hedges
    exactly as its context does."""
    context = "Officials said the outbreak may have been caused by contaminated water."
    for answer in (
        "The outbreak was likely caused by contaminated water.",
        "The outbreak was perhaps caused by contaminated water.",
    ):
        report = detector.detect(answer=answer, context=context)
        assert [s.label for s in report.sentences] == ["supported"], answer
        assert all(v.decided_by != "hedge_conflict" for v in report.facts), answer
    # the claim made without the hedge is still the dropped hedge it was
    report = detector.detect(
        answer="The outbreak was caused by contaminated water.", context=context
    )
    assert [s.label for s in report.sentences] == ["unverifiable"]
    assert {v.decided_by for v in report.facts} == {"hedge_conflict"}


def test_a_length_of_time_the_contexts_dates_deny_blames_the_length(detector: Detector) -> None:
    """The duration check: 1996 to 2014 is 18 years, not 22; the length is contradicted and
    blamed (the answer's words the context lacks, "directed", "retiring", are marked in the
    flagged sentence as before). The right length is supported."""
    context = (
        "Dr. Selma Årdal served as director of the Kingsreach Observatory from 1996 until her"
        " retirement in 2014. During her tenure the observatory installed its 4-metre telescope."
    )
    report = detector.detect(
        answer="Årdal directed the Kingsreach Observatory for 22 years before retiring in 2014.",
        context=context,
    )
    assert ("contradicted", "duration_conflict") in {(v.label, v.decided_by) for v in report.facts}
    assert ("22 years", "contradicted") in [(s.text, s.label) for s in report.spans]
    right = detector.detect(
        answer="Årdal directed the Kingsreach Observatory for 18 years before retiring in 2014.",
        context=context,
    )
    # the right length: restated as "from 1996 to 2014", which the verifier entails
    assert right.spans == []
    assert "period" in {v.decided_by for v in right.facts}


def test_an_event_still_to_come_that_the_context_says_is_done_is_contradicted(
    detector: Detector,
) -> None:
    """The status check: a reopening the context dates in May is no reopening still to come,
    and sea trials the context plans are not completed; the words of the wrong status are
    blamed. The event as the context states it is supported."""
    context = (
        "The Marden footbridge, closed since storms damaged its deck in 2021, reopened to"
        " pedestrians in May. The repairs cost £1.2 million."
    )
    report = detector.detect(
        answer="The Marden footbridge is expected to reopen to pedestrians later this year.",
        context=context,
    )
    assert ("contradicted", "status_conflict") in {(v.label, v.decided_by) for v in report.facts}
    assert ("expected to reopen", "contradicted") in [(s.text, s.label) for s in report.spans]
    right = detector.detect(
        answer="The Marden footbridge reopened to pedestrians in May after £1.2 million of repairs.",
        context=context,
    )
    assert right.spans == []
    ship = (
        "The research ship Aldvik was launched in March. Sea trials are planned for the autumn,"
        " and the ship is due to enter service next year."
    )
    done = detector.detect(answer="The Aldvik has already completed its sea trials.", context=ship)
    assert {(v.label, v.decided_by) for v in done.facts} == {("contradicted", "status_conflict")}
    assert [(s.text, s.label) for s in done.spans] == [("completed", "contradicted")]
    planned = detector.detect(
        answer="The Aldvik will begin sea trials in the autumn.", context=ship
    )
    assert planned.spans == []


def test_a_value_given_the_name_the_context_pairs_with_another_is_contradicted(
    detector: Detector,
) -> None:
    """The pairing check with the rules' facts: "11% of patients" and "patients taking
    Corvastin" are two facts, read together through the answer; the value is blamed."""
    context = (
        "Patients were randomised to receive either Corvastin 10 mg or Luvadipine 5 mg once"
        " daily. Ankle swelling was reported by 11% of patients taking Luvadipine and by 2% of"
        " those taking Corvastin."
    )
    wrong = detector.detect(
        answer="Ankle swelling was reported by 11% of patients taking Corvastin.", context=context
    )
    assert ("contradicted", "pairing_conflict") in {(v.label, v.decided_by) for v in wrong.facts}
    assert [(s.text, s.label) for s in wrong.spans] == [("11%", "contradicted")]
    right = detector.detect(
        answer="Ankle swelling was reported by 11% of patients taking Luvadipine.", context=context
    )
    assert right.spans == []


# a data-to-text context as RAGTruth gives a business's hours (Yelp's table)
HOURS = (
    "{'name': 'Mala Town', 'city': 'Goleta', 'hours': {'Monday': '17:0-21:0', 'Tuesday': "
    "'17:0-21:0', 'Wednesday': '11:0-15:0', 'Thursday': '17:0-21:0', 'Friday': '11:0-22:0', "
    "'Saturday': '12:0-22:0', 'Sunday': '12:0-22:0'}}"
)


@pytest.mark.parametrize(
    "answer",
    [
        "Mala Town is open on Monday from 5:00 PM to 9:00 PM.",
        "Mala Town is open Monday to Tuesday from 5:00 PM to 9:00 PM.",
        "On weekends, Mala Town is open from 12:00 PM to 10:00 PM.",
    ],
)
def test_opening_hours_the_table_gives_are_supported(detector: Detector, answer: str) -> None:
    """The verifier cannot read the table ("is open | Monday" alone: 0.93) and the context never
    writes "weekends" or "PM": the hours, read day by day, decide."""
    report = detector.detect(answer=answer, context=HOURS)
    assert [s.label for s in report.sentences] == ["supported"]
    assert report.spans == []


def test_a_day_range_that_covers_a_day_with_other_hours_is_contradicted(
    detector: Detector,
) -> None:
    """Every time the answer writes is in the table, but Wednesday's hours are 11:00-15:00."""
    answer = "Mala Town is open Monday to Thursday from 5:00 PM to 9:00 PM."
    report = detector.detect(answer=answer, context=HOURS)
    assert [s.label for s in report.sentences] == ["contradicted"]
    assert [(s.start, s.end, s.text, s.label) for s in report.spans] == [
        (13, 60, "open Monday to Thursday from 5:00 PM to 9:00 PM", "contradicted")
    ]
    decided = {v.decided_by for v in report.facts if v.label != "supported"}
    assert decided == {"hours_conflict"}
    evidence = {v.evidence.text for v in report.facts if v.evidence and v.label != "supported"}
    assert evidence == {"'Wednesday': '11:0-15:0'"}


LISTING = (
    "{'name': 'Javan's', 'attributes': {'RestaurantsReservations': False, 'OutdoorSeating': "
    "True, 'WiFi': 'free', 'RestaurantsTakeOut': True, 'Music': None}}"
)


@pytest.mark.parametrize(
    ("answer", "label", "spans"),
    [
        # says no to a listed yes: the attribute blamed (with "offer", a word no listing
        # writes; "does" is a stop word)
        (
            "Javan's does not offer outdoor seating.",
            "contradicted",
            [(17, 38, "offer outdoor seating")],
        ),
        # says what the listing says: the verifier contradicted "offers takeout" (0.55)
        ("Javan's offers free WiFi and takeout.", "supported", []),
        # an attribute the listing leaves unknown ('Music': None)
        (
            "Javan's does not provide music.",
            "unverifiable",
            [(17, 30, "provide music")],
        ),
    ],
)
def test_a_listings_yes_or_no_decides_its_attribute(
    detector: Detector, answer: str, label: str, spans: list
) -> None:
    report = detector.detect(answer=answer, context=LISTING)
    assert [s.label for s in report.sentences] == [label]
    assert [(s.start, s.end, s.text) for s in report.spans] == spans
