"""A name the answer gives a thing, checked as a whole (verify/aliases.py): the names found
after each naming cue and between quotation marks, the ones a context lacks, the sentences
made unverifiable, a blamed word grown to the whole name, and the shipped detector flagging an
invented second name."""

from __future__ import annotations

from dataclasses import replace

import pytest

from enoki_hd import Detector
from enoki_hd.project import finish_spans
from enoki_hd.types import HallucinatedSpan, SentenceVerdict, Span
from enoki_hd.verify.aliases import (
    alias_spans,
    blame_names,
    flag_unfound_names,
    quoted_names,
    unfound_aliases,
)
from enoki_hd.verify.loading import default_verifier_path


@pytest.mark.parametrize(
    ("answer", "names"),
    [
        (
            "Pope John Paul II canonized Thomas of Cana, also known as Thomas the Spaniard, in 1990.",
            ["Thomas the Spaniard"],
        ),
        (
            "The alternative name for the mink frog is the northern mink frog.",
            ["northern mink frog"],
        ),
        ("The team is called Club Deportivo Tecos UAG.", ["Club Deportivo Tecos UAG"]),
        (
            "Nepenthes chang (also known as Nepenthes changhi) is a pitcher plant.",
            ["Nepenthes changhi"],
        ),
        (
            'Stephen Thomas, also known as "The Great White One," played for Boston.',
            ["The Great White One"],
        ),
        (
            "The species that is also known as the jewel oak gall wasp is Acraspis cerasi.",
            ["jewel oak gall wasp"],
        ),
        ("The period after it is called the Kamakura period.", ["Kamakura period"]),
        (
            "Rocca dei Rettori is often referred to as Rocca dei Rettori in Italian.",
            ["Rocca dei Rettori"],
        ),
        ("The ship, dubbed Titan by its crew, sank in 1911.", ["Titan"]),
        ("A commander named Robertson led them.", ["Robertson"]),
        ('Duke Snider was named "Golden Bear" by the press.', ["Golden Bear"]),
        ("Casablanca was originally called Anfa.", ["Anfa"]),
        ("The Golden Horde, later known as the Great Horde, ruled the steppe.", ["Great Horde"]),
        ('It was later rebranded as "Primera Air" in 2010.', ["Primera Air"]),
        ("The club was renamed Westham United in 1904.", ["Westham United"]),
        ("In 1990 the firm changed its name to Arcon Group.", ["Arcon Group"]),
        ("A dentist named Lisandra Lafitta signed it.", ["Lisandra Lafitta"]),
        # descriptions, appointments and other senses are no names
        ("It was also named 2008 Best Video Game Soundtrack.", []),
        ("It was renamed after the war.", []),
        ("He is known as a leading expert on whales.", []),
        ("Perry was known as a Major League pitcher.", []),
        ("The species was named after the Chinese botanist Chang Yu-hsiang.", []),
        ("He was named Player of the Year in 2019.", []),
        ("Sachin Lawande Named VP of Engineering Services at QNX.", []),
        ("She called the police at once.", []),
        ("The meeting was called on Monday.", []),
        ("The river is known as the main source of water.", []),
    ],
)
def test_the_names_an_answer_gives_after_a_naming_cue(answer: str, names: list[str]) -> None:
    assert [answer[s.start : s.end] for s in alias_spans(answer)] == names


@pytest.mark.parametrize(
    ("answer", "names"),
    [
        ('She starred in the 1980s film "La Dolce Vita" in Rome.', ["La Dolce Vita"]),
        (
            "Tap “Wipe Data/Factory Reset,” then “Reboot System”.",
            ["Wipe Data/Factory Reset", "Reboot System"],
        ),
        ('Her novel "The Sleep of Glass" won.', ["The Sleep of Glass"]),
        # a cut, or a quotation longer than a title, is no name
        ('Critics called it "mature, tasteful, and [...] sexy".', []),
        ('He said "we will keep building the new line through the whole of next year".', []),
        ("No quotation marks here.", []),
    ],
)
def test_what_quotation_marks_hold_is_checked_as_one_name(answer: str, names: list[str]) -> None:
    assert [answer[s.start : s.end] for s in quoted_names(answer)] == names


def test_a_quoted_name_the_context_lacks_is_unfound() -> None:
    answer = 'She starred in "La Dolce Vita" and in "The Sleep of Glass".'
    context = "Her films include La Dolce Vita (1960). She also read Sleep of Glass aloud."
    # the first is held whole; of the second, the leading article is optional
    assert unfound_aliases(answer, context) == []
    assert [
        answer[s.start : s.end] for s in unfound_aliases(answer, "Her films include Roma.")
    ] == [
        "La Dolce Vita",
        "The Sleep of Glass",
    ]
    # a quoted name after a naming cue is read once
    named = 'It was later rebranded as "Primera Air Sweden" in 2010.'
    assert [named[s.start : s.end] for s in unfound_aliases(named, "Primera Air was founded.")] == [
        "Primera Air Sweden"
    ]


def test_a_name_the_context_holds_whole_is_found() -> None:
    # case, hyphens, "&", quotation marks and a plural ending aside
    answer = "The trail, also known as the Grey-Stone Path, crosses the moor."
    assert unfound_aliases(answer, "The grey stone path crosses the moor.") == []
    assert unfound_aliases('The firm is called "Brook & Lyle".', "Brook and Lyle audits it.") == []
    # every word of the name in the context, but not the name
    frog = "The alternative name for the mink frog is the northern mink frog."
    context = "The mink frog is native to Canada. It is sometimes referred to as the north frog."
    assert unfound_aliases(frog, context) == [Span(46, 64)]
    thomas = "Thomas of Cana, also known as Thomas the Spaniard, was a merchant."
    assert unfound_aliases(thomas, "Thomas of Cana was a merchant from Persia.") == [Span(30, 49)]
    assert unfound_aliases("No naming cue here.", "Nothing.") == []


def test_a_sentence_that_holds_a_name_the_context_lacks_is_unverifiable() -> None:
    answer = "The mink frog is native to Canada. Its other name is the northern mink frog."
    first, second = Span(0, 34), Span(35, len(answer))
    name = Span(answer.index("northern"), len(answer) - 1)
    sentences = [
        SentenceVerdict(0, first, first.text(answer), 0.1, "supported", method="max"),
        SentenceVerdict(1, second, second.text(answer), 0.31, "supported", method="max"),
    ]
    flagged = flag_unfound_names(sentences, [name], 0.5)
    assert flagged[0] is sentences[0]
    assert (flagged[1].label, flagged[1].score, flagged[1].method) == ("unverifiable", 0.5, "alias")
    # a sentence flagged already keeps its label and its score, higher or lower
    failed = [sentences[0], replace(sentences[1], label="contradicted", score=0.93)]
    assert flag_unfound_names(failed, [name], 0.5) == failed
    assert flag_unfound_names(sentences, [], 0.5) == sentences
    # the name is blamed whole in a flagged sentence, merged with what its facts blamed
    northern = HallucinatedSpan(
        start=name.start,
        end=name.start + 8,
        text="northern",
        score=0.7,
        facts=["f1.2"],
        label="unverifiable",
    )
    spans = blame_names(answer, flagged, [northern], [name])
    assert [(s.text, s.score, s.facts, s.label) for s in spans] == [
        ("northern mink frog", 0.7, ["f1.2"], "unverifiable")
    ]
    # not in a supported sentence
    assert blame_names(answer, sentences, [], [name]) == []


def test_a_flagged_word_of_a_name_the_context_lacks_grows_to_the_whole_name() -> None:
    answer = "Thomas of Cana, also known as Thomas the Spaniard, was a merchant."
    spaniard = HallucinatedSpan(
        start=41, end=49, text="Spaniard", score=0.9, facts=["f3"], label="unverifiable"
    )
    sentences = [Span(0, len(answer))]
    finished = finish_spans(answer, [spaniard], sentences, names=[Span(30, 49)])
    assert [(s.start, s.end, s.text, s.score, s.facts) for s in finished] == [
        (30, 49, "Thomas the Spaniard", 0.9, ["f3"])
    ]
    # without the names the span stays as it was
    assert finish_spans(answer, [spaniard], sentences) == [spaniard]


@pytest.mark.skipif(
    not (default_verifier_path() / "model.onnx").is_file(),
    reason="the shipped verifier is missing; run `make train-verifier`",
)
def test_the_shipped_detector_flags_a_second_name_the_context_lacks_as_a_whole() -> None:
    detector = Detector()
    context = (
        "The mink frog (Lithobates septentrionalis) is a small species of frog native to the"
        " United States and Canada. It is also sometimes referred to as the north frog."
    )
    wrong = detector.detect(
        answer="The alternative name for the mink frog is the northern mink frog.", context=context
    )
    assert "northern mink frog" in [s.text for s in wrong.spans]
    assert wrong.sentences[0].label != "supported"
    right = detector.detect(
        answer="The mink frog is also known as the north frog.", context=context
    )
    assert right.spans == [] and right.sentences[0].label == "supported"
