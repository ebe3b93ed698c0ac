"""The extractor registry, the pre-extracted backend, verbalization and the CaRB helpers."""

from __future__ import annotations

import dataclasses

import pytest

from enoki_hd.extract import Extractor, available_extractors, get_extractor, register, verbalize
from enoki_hd.extract.carb import carb_predictions, carb_tuples, widest_facts
from enoki_hd.extract.preextracted import PreextractedExtractor
from enoki_hd.extract.verbalize import reading_order
from enoki_hd.types import Fact, Span

# --- registry -------------------------------------------------------------------------------


def test_builtin_names_are_known() -> None:
    names = available_extractors()
    assert {"rules", "preextracted"} <= set(names)
    assert names == sorted(names)


def test_unknown_name_lists_known_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown extractor 'nope'.*preextracted.*rules"):
        get_extractor("nope")


def test_register_and_build_with_kwargs() -> None:
    @register("test-constant")
    class ConstantExtractor:
        name = "test-constant"

        def __init__(self, *, relation: str = "is") -> None:
            self.relation = relation

        def extract(self, answer: str, *, sentences: list[Span] | None = None) -> list[Fact]:
            return [Fact("f0.0", 0, answer, self.relation, "", [Span(0, len(answer))])]

        def unparseable_sentences(
            self, answer: str, sentences: list[Span] | None = None
        ) -> set[int]:
            return set()

        def config(self) -> dict:
            return {"name": self.name, "relation": self.relation}

    extractor = get_extractor("test-constant", relation="was")
    assert isinstance(extractor, Extractor)
    assert extractor.extract("Suede")[0].relation == "was"
    assert "test-constant" in available_extractors()
    with pytest.raises(ValueError, match="already registered"):

        @register("test-constant")
        class Other:
            name = "other"

    register("test-constant")(ConstantExtractor)  # the same class again is no clash


def test_an_extractor_missing_a_protocol_method_is_not_an_extractor() -> None:
    class ExtractOnly:
        name = "extract-only"

        def extract(self, answer: str, *, sentences: list[Span] | None = None) -> list[Fact]:
            return []

    assert not isinstance(ExtractOnly(), Extractor)


@pytest.mark.parametrize("name", ["rules", "preextracted"])
def test_builtin_extractors_implement_the_protocol_and_rebuild_from_config(name: str) -> None:
    extractor = get_extractor(name)
    assert isinstance(extractor, Extractor)
    options = extractor.config()
    assert options.pop("name") == name
    assert get_extractor(name, **options).config() == extractor.config()


# --- pre-extracted triples ------------------------------------------------------------------

ANSWER = "Marie Curie, a physicist, discovered radium. Radium glows. Curie won the Nobel Prize."


def test_preextracted_anchors_each_part() -> None:
    extractor = get_extractor(
        "preextracted",
        facts={
            ANSWER: [
                {"subject": "Curie", "relation": "won", "object": "the Nobel Prize"},
                {"subject": "Marie Curie", "relation": "is", "object": "physicist"},
                {"subject": "Marie Curie", "relation": "discovered", "object": "radium",
                 "negated": False, "confidence": 0.7},
            ]
        },
    )  # fmt: skip
    assert isinstance(extractor, PreextractedExtractor)
    facts = extractor.extract(ANSWER)
    got = [
        (f.id, f.sentence, f.subject_spans, f.relation_spans, f.object_spans, f.delta, f.source)
        for f in facts
    ]
    assert got == [
        ("f0.0", 0, [Span(0, 11)], [], [Span(15, 24)], [Span(15, 24)], "preextracted"),
        ("f0.1", 0, [Span(0, 11)], [Span(26, 36)], [Span(37, 43)], [Span(37, 43)], "preextracted"),
        ("f2.0", 2, [Span(59, 64)], [Span(65, 68)], [Span(69, 84)], [Span(69, 84)], "preextracted"),
    ]
    assert facts[1].confidence == 0.7 and facts[0].confidence is None
    assert ANSWER[69:84] == "the Nobel Prize"


def test_preextracted_ambiguous_is_kept_unanchored() -> None:
    answer = "Suede formed in London. Blur formed in London."
    facts = PreextractedExtractor().extract(
        answer, triples=[{"subject": "formed", "relation": "in", "object": "London"}]
    )
    assert len(facts) == 1
    fact = facts[0]
    assert fact.source == "preextracted:unanchored"
    assert fact.subject_spans == fact.relation_spans == fact.object_spans == fact.delta == []
    assert fact.sentence == 0 and fact.id == "f0.0"


def test_preextracted_parts_in_different_sentences() -> None:
    answer = "Marie Curie was a chemist. She discovered polonium."
    facts = PreextractedExtractor().extract(
        answer,
        triples=[{"subject": "Marie Curie", "relation": "discovered", "object": "polonium"}],
    )
    assert facts[0].source == "preextracted"
    assert (facts[0].sentence, facts[0].subject_spans, facts[0].object_spans) == (
        1,
        [Span(0, 11)],
        [Span(42, 50)],
    )
    assert facts[0].relation_spans == [Span(31, 41)]


def test_preextracted_validation_and_unknown_answer() -> None:
    extractor = PreextractedExtractor()
    assert extractor.extract("No triples were given for this answer.") == []
    with pytest.raises(ValueError, match="needs string values for relation"):
        extractor.add("x", [{"subject": "a", "object": "b"}])
    with pytest.raises(TypeError, match="must be a dict"):
        extractor.add("x", [("a", "b", "c")])  # type: ignore[list-item]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        # bool("false") is True: the string negated a fact its writer marked as not negated
        ({"negated": "false"}, "triple 0: 'negated' must be true or false, got 'false'"),
        ({"negated": 0}, "triple 0: 'negated' must be true or false, got 0"),
        ({"confidence": "high"}, "triple 0: 'confidence' must be a number or null, got 'high'"),
        ({"confidence": True}, "triple 0: 'confidence' must be a number or null, got True"),
        ({"modality": 1}, "triple 0: 'modality' must be a string or null, got 1"),
    ],
)
def test_preextracted_flags_and_scores_have_their_json_types(extra, message) -> None:
    answer = "Suede formed in London."
    triple = {"subject": "Suede", "relation": "formed in", "object": "London"}
    with pytest.raises(ValueError) as caught:
        PreextractedExtractor().extract(answer, triples=[{**triple, **extra}])
    assert str(caught.value) == message
    (fact,) = PreextractedExtractor().extract(
        answer, triples=[{**triple, "negated": False, "confidence": 1, "modality": None}]
    )
    assert (fact.negated, fact.confidence, fact.modality) == (False, 1.0, None)


# --- verbalize ------------------------------------------------------------------------------


def _fact(subject: str, relation: str, obj: str, **kwargs: object) -> Fact:
    return Fact("f0.0", 0, subject, relation, obj, **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("fact", "expected"),
    [
        (_fact("Suede", "was not formed in", "London", negated=True, relation_spans=[Span(6, 23)]),
         "Suede was not formed in London."),
        (_fact("Suede", "was formed in", "London", negated=True), "Suede was not formed in London."),
        (_fact("Suede", "formed in", "London", negated=True), "Suede not formed in London."),
        (_fact("Marie Curie", "is", "physicist"), "Marie Curie is a physicist."),
        (_fact("Suede", "is", "influential English rock band"),
         "Suede is an influential English rock band."),
        (_fact("Suede", "is", "English rock band", relation_spans=[Span(6, 8)]),
         "Suede is an English rock band."),
        (_fact("Wales", "is", "United Kingdom"), "Wales is United Kingdom."),
        (_fact("Curies", "are", "physicists"), "Curies are physicists."),
        (_fact("He", "became", "university professor", relation_spans=[Span(3, 9)]),
         "He became a university professor."),
        (_fact("band", "split  up", ""), "Band split up."),
        (_fact("band", "has", "no children", negated=True), "Band has no children."),
        (_fact("the song", "ends with", "a question?"), "The song ends with a question?"),
    ],
)  # fmt: skip
def test_verbalize(fact: Fact, expected: str) -> None:
    assert verbalize(fact) == expected


@pytest.mark.parametrize(
    ("answer", "fact", "expected"),
    [
        ("The museum is open on Mondays.",
         _fact("museum", "is", "open", relation_spans=[Span(11, 13)], object_spans=[Span(14, 18)]),
         "Museum is open."),
        ("It became part of Braathens.",
         _fact("It", "became", "part of Braathens", relation_spans=[Span(3, 9)],
               object_spans=[Span(10, 27)]),
         "It became part of Braathens."),
        ("They were also surprised.",
         _fact("They", "were", "surprised", relation_spans=[Span(5, 9)],
               object_spans=[Span(15, 24)]),
         "They were surprised."),
        ("Marie Curie is a physicist.",
         _fact("Marie Curie", "is", "physicist", relation_spans=[Span(12, 14)],
               object_spans=[Span(17, 26)]),
         "Marie Curie is a physicist."),
        ("Suede is an English rock band.",
         _fact("Suede", "is", "band", relation_spans=[Span(6, 8)], object_spans=[Span(25, 29)]),
         "Suede is a band."),
        ("Suede, a band from London.",  # an appositive: a copula of the extractor's own
         _fact("Suede", "is", "band", object_spans=[Span(9, 13)]),
         "Suede is a band."),
    ],
)  # fmt: skip
def test_verbalize_adds_no_article_the_answer_does_not_have(
    answer: str, fact: Fact, expected: str
) -> None:
    assert verbalize(fact, answer) == expected


MUSEUM = "The museum was founded in 1901 by a local trader."


def _museum_fact(relation: list[tuple[int, int]], obj: list[tuple[int, int]], **kw: object) -> Fact:
    """A fact of MUSEUM whose relation and object strings are their spans' text, as the
    tagger's decoding writes them."""

    def text(spans: list[tuple[int, int]]) -> str:
        return " ".join(MUSEUM[a:b] for a, b in spans)

    return _fact(
        "The museum",
        text(relation),
        text(obj),
        subject_spans=[Span(0, 10)],
        relation_spans=[Span(a, b) for a, b in relation],
        object_spans=[Span(a, b) for a, b in obj],
        **kw,
    )


def test_verbalize_reads_interleaved_relation_and_object_in_answer_order() -> None:
    # relation "was founded in" + "by", object "1901" + "a local trader", interleaved
    fact = _museum_fact([(11, 25), (31, 33)], [(26, 30), (34, 48)], source="encoder")
    assert fact.relation == "was founded in by" and fact.object == "1901 a local trader"
    assert verbalize(fact) == "The museum was founded in by 1901 a local trader."
    assert reading_order(fact, MUSEUM) == "was founded in 1901 by a local trader"
    assert verbalize(fact, MUSEUM) == "The museum was founded in 1901 by a local trader."


@pytest.mark.parametrize(
    ("relation", "obj"),
    [
        ([(11, 25)], [(26, 30)]),  # relation, then object: already in order
        ([(11, 25)], [(26, 30), (34, 48)]),  # a gap in the object only
        ([(31, 33)], [(26, 30)]),  # the object wholly before the relation: left as it is
    ],
)
def test_reading_order_leaves_facts_that_do_not_interleave(
    relation: list[tuple[int, int]], obj: list[tuple[int, int]]
) -> None:
    fact = _museum_fact(relation, obj)
    assert reading_order(fact, MUSEUM) is None
    assert verbalize(fact, MUSEUM) == verbalize(fact)


def test_reading_order_needs_strings_that_are_the_spans_text() -> None:
    # the rules extractor writes its own strings (articles dropped, words moved): not re-read
    fact = _museum_fact([(11, 25), (31, 33)], [(26, 30), (34, 48)])
    rules = dataclasses.replace(fact, object="1901 local trader")
    assert reading_order(rules, MUSEUM) is None
    implicit = dataclasses.replace(fact, relation="is", relation_spans=[])
    assert reading_order(implicit, MUSEUM) is None


def test_reading_order_keeps_negation_and_rejects_a_foreign_answer() -> None:
    text = "The band did not play in 2019 at the festival."
    fact = _fact(
        "The band",
        "did not play in at",
        "2019 the festival",
        relation_spans=[Span(9, 24), Span(30, 32)],
        object_spans=[Span(25, 29), Span(33, 45)],
        negated=True,
    )
    assert verbalize(fact, text) == "The band did not play in 2019 at the festival."
    with pytest.raises(
        ValueError, match=r"fact f0.0: span \[9, 24\) is outside the answer \(10 characters\)"
    ):
        verbalize(fact, "The band.!")


def test_verbalize_rules_facts() -> None:
    pytest.importorskip("spacy")
    facts = get_extractor("rules").extract("Suede, an English rock band, was not formed in London.")
    hypotheses = [verbalize(f) for f in facts]
    assert "Suede is an English rock band." in hypotheses
    assert "Suede was not formed in London." in hypotheses


def test_verbalize_reads_a_rules_fact_with_its_object_inside_the_relation_in_order() -> None:
    # the rules extractor folds "to pay" into the relation of "ordered"; its object "Acme"
    # stands between them: read part after part, the hypothesis would make Acme the payee
    pytest.importorskip("spacy")
    text = "The court ordered Acme to pay the fine."
    facts = {f.object: f for f in get_extractor("rules").extract(text)}
    acme = facts["Acme"]
    assert acme.relation == "ordered to pay"
    assert verbalize(acme) == "Court ordered to pay Acme."
    assert verbalize(acme, text) == "Court ordered Acme to pay."
    assert (
        verbalize(facts["fine"], text) == verbalize(facts["fine"]) == "Court ordered to pay fine."
    )


# --- CaRB helpers ---------------------------------------------------------------------------


def _chain() -> list[Fact]:
    return [
        Fact("f0.0", 0, "Suede", "is", "band", confidence=0.9),
        Fact("f0.1", 0, "Suede", "is", "rock band", parent="f0.0", confidence=0.9),
        Fact("f0.2", 0, "Suede", "formed in", "Bath", confidence=0.8),
    ]


def test_widest_facts_and_carb_tuples() -> None:
    facts = _chain()
    assert [f.id for f in widest_facts(facts)] == ["f0.1", "f0.2"]
    assert carb_tuples(facts, collapse_chains=True) == [
        ("Suede", "is", "rock band", 0.9),
        ("Suede", "formed in", "Bath", 0.8),
    ]
    assert len(carb_tuples(facts)) == 3


def test_carb_predictions_runs_one_sentence_each() -> None:
    seen: list[list[Span] | None] = []

    class Recording:
        name = "recording"

        def extract(self, answer: str, *, sentences: list[Span] | None = None) -> list[Fact]:
            seen.append(sentences)
            return _chain()

    sentences = ["Suede is a rock band . It formed in Bath .", "Second ."]
    predicted = carb_predictions(Recording(), sentences, collapse_chains=True)
    assert list(predicted) == sentences
    assert seen == [[Span(0, 42)], [Span(0, 8)]]
    assert predicted["Second ."][0] == ("Suede", "is", "rock band", 0.9)
