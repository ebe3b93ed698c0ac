"""Every rule family's own example sentences, run through the rules extractor."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import enoki_hd.extract.rules.families as families
from enoki_hd.extract.rules import RulesExtractor
from enoki_hd.extract.rules.candidates import FAMILY_CONFIDENCE
from enoki_hd.extract.rules.families import Example
from enoki_hd.extract.rules.families.polarity import negated_text
from enoki_hd.types import Span

pytest.importorskip("spacy")

FAMILY_MODULES = [
    importlib.import_module(f"{families.__name__}.{m.name}")
    for m in pkgutil.iter_modules(families.__path__)
]
CASES = [
    pytest.param(example, id=f"{module.__name__.rsplit('.', 1)[-1]}:{example.sentence[:40]}")
    for module in FAMILY_MODULES
    for example in getattr(module, "EXAMPLES", ())
]


@pytest.fixture(scope="module")
def extractor() -> RulesExtractor:
    return RulesExtractor()


def test_every_family_module_has_examples_and_a_confidence() -> None:
    named = {m.FAMILY: m for m in FAMILY_MODULES if hasattr(m, "FAMILY")}
    for family, module in named.items():
        assert module.EXAMPLES, f"family {family} lists no example sentences"
    # every family that writes facts has a documented confidence (polarity only annotates)
    assert set(named) - {"polarity"} == set(FAMILY_CONFIDENCE)
    assert all(0.0 < c <= 1.0 for c in FAMILY_CONFIDENCE.values())


@pytest.mark.parametrize("example", CASES)
def test_family_example(extractor: RulesExtractor, example: Example) -> None:
    facts = extractor.extract(example.sentence)
    found = {(f.subject, f.relation, f.object) for f in facts}
    missing = [t for t in example.triples if t not in found]
    assert not missing, f"missing {missing}; got {sorted(found)}"
    for fact in facts:
        for span in fact.subject_spans + fact.relation_spans + fact.object_spans + fact.delta:
            assert 0 <= span.start < span.end <= len(example.sentence)


def test_sources_name_the_family(extractor: RulesExtractor) -> None:
    facts = extractor.extract(
        "Marie Curie, a Polish physicist, discovered radium on 15 March 1898 in Paris, France."
    )
    by_object = {f.object: f.source for f in facts}
    assert by_object["physicist"] == "rules:appositive"
    assert by_object["radium"] == "rules:verb_object"
    assert by_object["1898"] == "rules:prepositional"
    assert by_object["March 1898"] == "rules:date"
    assert by_object["15 March 1898"] == "rules:date"
    assert by_object["Paris, France"] == "rules:composite"


def test_date_chain_deltas_are_exact(extractor: RulesExtractor) -> None:
    sentence = "Marie Curie discovered radium on 15 March 1898."
    facts = [f for f in extractor.extract(sentence) if f.relation == "discovered radium on"]
    assert [(f.object, f.object_spans, f.delta) for f in facts] == [
        ("1898", [Span(42, 46)], [Span(42, 46)]),
        ("March 1898", [Span(36, 46)], [Span(36, 41)]),
        ("15 March 1898", [Span(33, 46)], [Span(33, 35)]),
    ]
    assert [f.parent for f in facts] == [facts[0].parent, facts[0].id, facts[1].id]


def test_coordination_gives_separate_roots(extractor: RulesExtractor) -> None:
    facts = extractor.extract("The virus causes fever, cough and toxins.")
    roots = [(f.object, f.object_spans, f.parent, f.source) for f in facts]
    assert roots == [
        ("fever", [Span(17, 22)], None, "rules:coordination"),
        ("cough", [Span(24, 29)], None, "rules:coordination"),
        ("toxins", [Span(34, 40)], None, "rules:coordination"),
    ]


@pytest.mark.parametrize(
    ("relation", "obj", "negated"),
    [
        ("is not caused solely by", "smoking", True),
        ("isn't", "a band", True),
        ("isn’t", "a band", True),
        ("never released", "an album", True),
        ("has", "no children", True),
        ("cannot pass under", "the bridge", True),
        ("is", "notable", False),
        ("knows", "nothing new", False),
        ("was formed in", "London", False),
    ],
)
def test_negation_read_from_a_facts_words(relation: str, obj: str, negated: bool) -> None:
    assert negated_text(relation, obj) is negated
