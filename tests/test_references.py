"""A premise's "it" or "the lake" restated as the name the hypothesis writes
(``enoki_hd.verify.references``), and the selector handing the restated premise to the verifier."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from enoki_hd.extract.verbalize import verbalize
from enoki_hd.text import segment_sentences
from enoki_hd.types import Evidence, Fact, NLIScores, Span
from enoki_hd.verify.evidence import EvidenceIndex, EvidenceSelector
from enoki_hd.verify.references import (
    hypothesis_names,
    resolve_references,
    restate_answer_pronouns,
)

LAKE = (
    "Lake Sorvanne is a glacial lake in the Ettmark uplands. Its maximum depth of 61 metres "
    "makes it the deepest lake in the region. The lake is fed by three streams. A small "
    "fishing village lies on its eastern shore, and the lake has been a nature reserve since 1987."
)


def resolved(context: str, sentence: str, hypothesis: str) -> str:
    """``sentence`` (one sentence of ``context``) as the verifier would read it."""
    start = context.index(sentence)
    return resolve_references(
        sentence,
        hypothesis,
        context=context,
        start=start,
        sentences=segment_sentences(context, backend="regex"),
    )


@pytest.mark.parametrize(
    ("hypothesis", "names"),
    [
        ("Lake Sorvanne has been a nature reserve since 1987.", ["Lake Sorvanne"]),
        ("The Battle of Long Island was fought in 1776.", ["Battle of Long Island"]),
        ("Moraine's steeplechase bronze came in her third final.", ["Moraine"]),
        ("Headaches go away without treatment.", []),  # a plain word opening the sentence
        ("Norvik Systems was bought by Crestline Credit.", ["Norvik Systems", "Crestline Credit"]),
        ("It was founded in 1998.", []),  # a pronoun is no name
    ],
)
def test_the_names_a_hypothesis_writes(hypothesis: str, names: list[str]) -> None:
    assert hypothesis_names(hypothesis) == names


def test_the_kind_of_a_name_is_restated_as_the_name() -> None:
    last = "A small fishing village lies on its eastern shore, and the lake has been a nature reserve since 1987."
    hypothesis = "Lake Sorvanne has been a nature reserve since 1987."
    assert resolved(LAKE, last, hypothesis) == (
        "A small fishing village lies on its eastern shore, and Lake Sorvanne has been a "
        "nature reserve since 1987."
    )
    fed = "The lake is fed by three streams."
    assert resolved(LAKE, fed, "Lake Sorvanne is fed by three streams.") == (
        "Lake Sorvanne is fed by three streams."
    )
    bridge = "The Halden Bridge has a clearance of 4.1 metres. The bridge was resurfaced in 2019."
    assert resolved(
        bridge, "The bridge was resurfaced in 2019.", "Halden Bridge was resurfaced in 2019."
    ) == ("Halden Bridge was resurfaced in 2019.")


@pytest.mark.parametrize(
    ("context", "sentence", "hypothesis"),
    [
        # another lake is named: "the lake" may be either
        (
            "Lake Sorvanne lies east of Lake Ettmark. The lake is fed by three streams.",
            "The lake is fed by three streams.",
            "Lake Sorvanne is fed by three streams.",
        ),
        # the context never names the hypothesis's lake: nothing to refer to
        (
            "Lake Sorvanne lies in the uplands. The lake is fed by three streams.",
            "The lake is fed by three streams.",
            "Lake Ettmark is fed by three streams.",
        ),
        # the name only after the premise
        (
            "The lake is fed by three streams. Lake Sorvanne lies in the uplands.",
            "The lake is fed by three streams.",
            "Lake Sorvanne is fed by three streams.",
        ),
        # the premise writes the name already
        (
            "Lake Sorvanne lies in the uplands. Lake Sorvanne and the lake beside it are fed by streams.",
            "Lake Sorvanne and the lake beside it are fed by streams.",
            "Lake Sorvanne is fed by streams.",
        ),
        # "the new" is no kind ("New Harbour")
        (
            "New Harbour opened in 1990. The new terminal followed in 2001.",
            "The new terminal followed in 2001.",
            "New Harbour followed in 2001.",
        ),
        # a name's word that is no kind of thing: "the pizza" is a pizza
        (
            "Blaze Pizza opened on State Street. The pizza was cold.",
            "The pizza was cold.",
            "Blaze Pizza was cold.",
        ),
        # a name of two things joined
        (
            "Spudnuts & Bagels opened in 2019. The bagels are made daily.",
            "The bagels are made daily.",
            "Spudnuts & Bagels are made daily.",
        ),
        # a compound ("the lake-side path") is no reference to the lake
        (
            "Lake Sorvanne lies in the uplands. The lake-side path is closed.",
            "The lake-side path is closed.",
            "Lake Sorvanne is closed.",
        ),
    ],
)
def test_a_kind_is_left_alone_unless_the_context_says_plainly_which(
    context: str, sentence: str, hypothesis: str
) -> None:
    assert resolved(context, sentence, hypothesis) == sentence


def test_a_pronoun_opening_the_premise_is_restated_as_the_previous_sentences_subject() -> None:
    context = (
        "Norvik Systems is a software maker. It was founded in 1998 in Oslo. It employs 300 "
        "people. Its largest office is in Bergen."
    )
    founded = "Norvik Systems was founded in 1998."
    assert resolved(context, "It was founded in 1998 in Oslo.", founded) == (
        "Norvik Systems was founded in 1998 in Oslo."
    )
    # a run of sentences opening with the same pronoun leads back to the name
    assert resolved(context, "It employs 300 people.", "Norvik Systems employs 300 people.") == (
        "Norvik Systems employs 300 people."
    )
    # a possessive
    assert (
        resolved(
            context,
            "Its largest office is in Bergen.",
            "Norvik Systems's largest office is in Bergen.",
        )
        == "Norvik Systems's largest office is in Bergen."
    )
    # the name after a time or place said first
    introduced = "In 1998, Norvik Systems was founded in Oslo. It now employs 300 people."
    assert resolved(
        introduced, "It now employs 300 people.", "Norvik Systems employs 300 people."
    ) == ("Norvik Systems now employs 300 people.")
    person = "Elsbeth Moraine ran in three Games. She reached the final twice."
    assert resolved(
        person, "She reached the final twice.", "Elsbeth Moraine reached the final twice."
    ) == ("Elsbeth Moraine reached the final twice.")


@pytest.mark.parametrize(
    ("context", "sentence", "hypothesis"),
    [
        # the sentence before opens with another name: "it" is that one
        (
            "Norvik Systems bought Crestline in 2001. Crestline Credit is a lender. It was founded in 1998.",
            "It was founded in 1998.",
            "Norvik Systems was founded in 1998.",
        ),
        # the name stands in the sentence before, but not as its subject
        (
            "The lender was bought by Norvik Systems. It was founded in 1998.",
            "It was founded in 1998.",
            "Norvik Systems was founded in 1998.",
        ),
        # what is said first is a clause of its own, and the name its object
        (
            "After Norvik Systems bought it, Crestline Credit grew. It was founded in 1998.",
            "It was founded in 1998.",
            "Norvik Systems was founded in 1998.",
        ),
        # a pronoun inside the premise, not opening it
        (
            "Norvik Systems is a software maker. In 1998 it was founded in Oslo.",
            "In 1998 it was founded in Oslo.",
            "Norvik Systems was founded in 1998.",
        ),
        # "It is" followed by a capital: no clause of the name ("It Follows is a film")
        (
            "Norvik Systems is a software maker. It Follows was filmed there.",
            "It Follows was filmed there.",
            "Norvik Systems was filmed there.",
        ),
    ],
)
def test_a_pronoun_is_left_alone_unless_the_sentence_before_opens_with_the_name(
    context: str, sentence: str, hypothesis: str
) -> None:
    assert resolved(context, sentence, hypothesis) == sentence


def test_a_pronoun_is_never_resolved_across_passages() -> None:
    context = "Norvik Systems is a software maker.\n\nIt was founded in 1998."
    passages = [(0, 35), (37, len(context))]
    index = EvidenceIndex(context, sentence_backend="regex", passages=[_span(*p) for p in passages])
    premise = EvidenceSelector()._referred(
        index, _evidence(context, "It was founded in 1998."), "Norvik Systems was founded in 1998."
    )
    assert premise == "It was founded in 1998."
    one = EvidenceIndex(context, sentence_backend="regex")
    premise = EvidenceSelector()._referred(
        one, _evidence(context, "It was founded in 1998."), "Norvik Systems was founded in 1998."
    )
    assert premise == "Norvik Systems was founded in 1998."


class RecordingVerifier:
    """Entailment when the premise writes every word of the hypothesis, else neutral; records
    the pairs it was given."""

    name = "recording"
    max_length = 512

    def __init__(self) -> None:
        self.calls: list[list[tuple[str, str]]] = []

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[NLIScores]:
        self.calls.append(list(pairs))
        out = []
        for premise, hypothesis in pairs:
            words = set(premise.lower().rstrip(".").split())
            wanted = set(hypothesis.lower().rstrip(".").split())
            out.append(NLIScores(0.9, 0.05, 0.05) if wanted <= words else NLIScores(0.1, 0.8, 0.1))
        return out


def test_the_verifier_reads_the_premise_with_the_name_and_the_evidence_stays_the_context() -> None:
    context = "Norvik Systems is a software maker based in Oslo.\n\nIt was founded in 1998 by two engineers."
    hypothesis = "Norvik Systems was founded in 1998 by two engineers."
    index = EvidenceIndex(context, sentence_backend="regex")
    verifier = RecordingVerifier()
    [decision] = EvidenceSelector(top_k=1, neighbours=0).verify(verifier, index, [hypothesis])
    assert [premise for premise, _ in verifier.calls[0]] == [
        "Norvik Systems was founded in 1998 by two engineers."
    ]
    assert decision.label == "supported"
    assert decision.evidence is not None
    assert decision.evidence.text == "It was founded in 1998 by two engineers."
    verifier = RecordingVerifier()
    [off] = EvidenceSelector(top_k=1, neighbours=0, resolve_references=False).verify(
        verifier, index, [hypothesis]
    )
    assert [premise for premise, _ in verifier.calls[0]] == [
        "It was founded in 1998 by two engineers."
    ]
    assert off.label == "unverifiable"


def _span(start: int, end: int) -> Span:
    return Span(start, end)


def _evidence(context: str, text: str) -> Evidence:
    start = context.index(text)
    return Evidence(start, start + len(text), text)


@pytest.mark.parametrize(
    ("context", "sentence", "hypothesis", "expected"),
    [
        (
            "Dana Holt, the chief executive, spoke on Monday. Holt said profits rose by 4%.",
            "Holt said profits rose by 4%.",
            "Dana Holt said profits rose by 4%.",
            "Dana Holt said profits rose by 4%.",
        ),
        (
            "Dana Holt, the chief executive, spoke on Monday. Ms Holt said profits rose by 4%.",
            "Ms Holt said profits rose by 4%.",
            "Dana Holt said profits rose by 4%.",
            "Dana Holt said profits rose by 4%.",
        ),
        (
            "The Greyhollow Tunnel opened in 1994. Greyhollow is 4.2 km long.",
            "Greyhollow is 4.2 km long.",
            "The Greyhollow Tunnel is 4.2 km long.",
            "Greyhollow Tunnel is 4.2 km long.",
        ),
        # a surname two people share: left alone
        (
            "Dana Holt and Sam Holt founded the firm. Holt said profits rose by 4%.",
            "Holt said profits rose by 4%.",
            "Dana Holt said profits rose by 4%.",
            "Holt said profits rose by 4%.",
        ),
        # a name the context never writes whole: left alone
        (
            "Dana Holt, the chief executive, spoke on Monday. Holt said profits rose by 4%.",
            "Holt said profits rose by 4%.",
            "Sam Holt said profits rose by 4%.",
            "Holt said profits rose by 4%.",
        ),
        # the kind word of a name is no short form of it
        (
            "The Greyhollow Tunnel opened in 1994. Tunnel tolls rose in 2020.",
            "Tunnel tolls rose in 2020.",
            "Greyhollow Tunnel tolls rose in 2020.",
            "Tunnel tolls rose in 2020.",
        ),
    ],
)
def test_a_name_said_short_is_restated_whole(
    context: str, sentence: str, hypothesis: str, expected: str
) -> None:
    assert resolved(context, sentence, hypothesis) == expected


@pytest.mark.parametrize(
    ("context", "sentence", "hypothesis"),
    [
        # a first word is no short form of a person's or a product's name
        (
            "The Korean BBQ place opened in May. The best Korean food I have had.",
            "The best Korean food I have had.",
            "Korean BBQ is the best.",
        ),
        (
            "Gavin Newsom met officials. Gavin said the talks went well.",
            "Gavin said the talks went well.",
            "Gavin Newsom said the talks went well.",
        ),
        # "New Mexican" is no longer "Mexican", nor "North Korea" "Korea"
        (
            "Alito's serves New Mexican food. The best Mexican food in town.",
            "The best Mexican food in town.",
            "Alito's is a New Mexican restaurant.",
        ),
    ],
)
def test_a_word_of_a_name_that_is_no_short_form_is_left_alone(
    context: str, sentence: str, hypothesis: str
) -> None:
    assert resolved(context, sentence, hypothesis) == sentence


def test_a_club_is_said_short_by_its_first_word() -> None:
    context = "Corran Athletic beat Westmarch United 3-1. Corran had taken the lead early."
    assert resolved(
        context, "Corran had taken the lead early.", "Corran Athletic took the lead early."
    ) == ("Corran Athletic had taken the lead early.")


def _fact(answer: str, sentence: int, subject: str, rest: str, at: int = 0) -> Fact:
    """A fact whose subject is the first ``subject`` of ``answer`` from offset ``at``."""
    start = answer.index(subject, at)
    return Fact(
        id=f"f{start}",
        sentence=sentence,
        subject=subject,
        relation=rest,
        object="",
        subject_spans=[Span(start, start + len(subject))],
    )


def _restated(answer: str, facts: Sequence[Fact]) -> list[str]:
    return restate_answer_pronouns(facts, [verbalize(f) for f in facts], answer)


def test_an_answers_pronoun_in_a_later_clause_is_restated_as_the_sentences_subject() -> None:
    answer = "A pork chop is a cut of meat, and as such, it does not have any chromosomes."
    facts = [
        _fact(answer, 0, "pork chop", "is a cut of meat"),
        _fact(answer, 0, "it", "does not have any chromosomes"),
    ]
    assert _restated(answer, facts) == [
        "Pork chop is a cut of meat.",
        "Pork chop does not have any chromosomes.",
    ]


def test_an_answers_pronoun_opening_a_sentence_is_restated_through_a_run_of_them() -> None:
    answer = "Lake Sorvanne lies in the uplands. It is 61 metres deep. It drains to the north."
    facts = [
        _fact(answer, 0, "Lake Sorvanne", "lies in the uplands"),
        _fact(answer, 1, "It", "is 61 metres deep"),
        _fact(answer, 2, "It", "drains to the north", at=answer.index("drains") - 3),
    ]
    assert _restated(answer, facts)[1:] == [
        "Lake Sorvanne is 61 metres deep.",
        "Lake Sorvanne drains to the north.",
    ]


@pytest.mark.parametrize(
    ("opening", "pronoun", "expected"),
    [
        ("giant planets in our solar system", "they", "Giant planets"),  # the core phrase
        ("Jupiter and Saturn", "they", "Jupiter and Saturn"),
        ("Beatles", "they", None),  # a name: no plural to be sure of
        ("Dana Holt", "she", "Dana Holt"),
        ("museum", "it", "Museum"),
        ("Battle of Long Island", "it", "Battle of Long Island"),  # a name saying its kind
        ("Marie Curie", "it", None),  # a name that says no kind of thing: a person, maybe
        ("company", "she", None),
        ("museums", "it", None),
        ("museum", "they", None),
        ("this", "it", None),
        ("antennae are appendages", "they", None),  # a subject the extractor cut badly
        ("his sister", "she", None),
    ],
)
def test_an_answers_pronoun_is_restated_only_as_a_subject_that_agrees(
    opening: str, pronoun: str, expected: str | None
) -> None:
    answer = f"{opening} did well. {pronoun} won in 2001."
    facts = [
        _fact(answer, 0, opening, "did well"),
        _fact(answer, 1, pronoun, "won in 2001", at=len(opening)),
    ]
    said = _restated(answer, facts)[1]
    assert said == (f"{expected} won in 2001." if expected else f"{pronoun.title()} won in 2001.")


def test_an_answers_pronoun_with_nothing_before_it_is_left_alone() -> None:
    answer = "It won in 2001. The museum did well."
    facts = [_fact(answer, 0, "It", "won in 2001"), _fact(answer, 1, "museum", "did well")]
    assert _restated(answer, facts)[0] == "It won in 2001."
    # a sentence with no fact between the pronoun and the subject breaks the run
    answer = "The museum did well. Visitors came. It won in 2001."
    facts = [_fact(answer, 0, "museum", "did well"), _fact(answer, 2, "It", "won in 2001")]
    assert _restated(answer, facts)[1] == "It won in 2001."


def test_the_detector_judges_an_answers_pronoun_fact_as_its_subject() -> None:
    """The report's hypothesis is the restated one; the fact's spans stay the pronoun's."""
    from enoki_hd.detector import Detector

    answer = "The Harlow Bay strike began in March. It ended when workers accepted a pay rise."
    report = Detector().detect(
        answer=answer, context="The Harlow Bay strike ended when workers accepted a pay offer."
    )
    pronoun = [v for v in report.facts if v.fact.subject == "It"]
    assert pronoun and all(v.hypothesis.startswith("Harlow Bay strike ended") for v in pronoun)
    assert all(answer[s.start : s.end] == "It" for v in pronoun for s in v.fact.subject_spans)
    off = Detector(restate_pronouns=False).detect(
        answer=answer, context="The Harlow Bay strike ended when workers accepted a pay offer."
    )
    assert next(v.hypothesis for v in off.facts if v.fact.subject == "It").startswith("It ended")


@pytest.mark.parametrize(
    ("second", "restated"),
    [
        ("It is believed that the museum won in 2001.", False),
        ("It's important to note that the museum won in 2001.", False),
        ("It is still unclear when the museum won.", False),
        ("It is still open in winter.", True),  # the same check, an "it" that is the museum
    ],
)
def test_an_it_that_stands_for_a_clause_is_left_alone(second: str, restated: bool) -> None:
    answer = f"The museum did well. {second}"
    start = answer.index(second)
    facts = [
        _fact(answer, 0, "museum", "did well"),
        _fact(answer, 1, "It", second.split(" ", 1)[1].rstrip("."), at=start),
    ]
    said = _restated(answer, facts)[1]
    assert said == (f"Museum {facts[1].relation}." if restated else verbalize(facts[1]))
