"""The shipped tagger is what its manifest says: the files hash to the recorded sha256, the
recorded CaRB numbers are those of the acceptance, and the ONNX graph loads through the encoder
extractor and extracts facts whose spans are exact character offsets into the answer."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from enoki_hd import Detector
from enoki_hd.extract import get_extractor
from enoki_hd.extract.encoder import default_tagger_path

SHIPPED: Path = default_tagger_path()

pytestmark = pytest.mark.skipif(
    not (SHIPPED / "model.onnx").is_file(),
    reason="the shipped tagger is missing; run `make distill`",
)


@pytest.fixture(scope="module")
def manifest() -> dict:
    return json.loads((SHIPPED / "manifest.json").read_text())


def test_files_match_the_manifest(manifest: dict) -> None:
    assert set(manifest["files"]) == {p.name for p in SHIPPED.iterdir()} - {"manifest.json"}
    for name, digest in manifest["files"].items():
        assert hashlib.sha256((SHIPPED / name).read_bytes()).hexdigest() == digest, name


def test_manifest_records_teacher_data_parity_and_carb(manifest: dict) -> None:
    assert manifest["reproduce"] == "make distill"
    assert manifest["data"]["alignment"]["lsoie_gpt"]["aligned"] > 20000
    assert manifest["inference"]["depth"] == manifest["depth"] == 5
    parity = manifest["metrics"]["onnx_parity"]["int8_vs_torch"]
    assert parity["label_agreement"] >= 0.99 and parity["row_agreement"] >= 0.95
    carb = manifest["metrics"]["carb_dev"]["collapsed"]
    assert round(carb["f1"], 3) >= 0.50 and carb["auc"] >= 0.30


def test_the_shipped_graph_extracts_anchored_facts(manifest: dict) -> None:
    answer = "Suede was formed in London in 1989. Brett Anderson is the singer of the band."
    extractor = get_extractor("encoder")
    facts = extractor.extract(answer)
    assert facts and {f.sentence for f in facts} == {0, 1}
    for fact in facts:
        for part, spans in (
            (fact.subject, fact.subject_spans),
            (fact.object, fact.object_spans),
        ):
            assert " ".join(answer[s.start : s.end] for s in spans) == part
        assert fact.confidence is not None and 0.0 < fact.confidence <= 1.0
    assert any(f.subject == "Suede" and "London" in f.object and f.sentence == 0 for f in facts), [
        (f.subject, f.relation, f.object) for f in facts
    ]
    assert extractor.config()["sha256"] == manifest["files"]["model.onnx"]


def test_split_atoms_cuts_the_shipped_taggers_coarse_object() -> None:
    answer = "The band was founded by Noel Gallagher in Manchester."
    whole = get_extractor("encoder").extract(answer)
    assert [(f.relation, f.object, f.parent) for f in whole] == [
        ("was founded by", "Noel Gallagher in Manchester", None)
    ]
    atoms = get_extractor("encoder", split="atoms").extract(answer)
    assert [(f.id, f.relation, f.object, f.parent) for f in atoms] == [
        ("f0.0", "was founded by", "Noel Gallagher", None),
        ("f0.1", "was founded in", "Manchester", "f0.0"),
    ]
    assert [answer[s.start : s.end] for s in atoms[1].delta] == ["Manchester"]


FIRMS = [
    ("Apple", "Steve Jobs", 1976),
    ("Microsoft", "Bill Gates", 1975),
    ("Google", "Larry Page", 1998),
    ("Amazon", "Jeff Bezos", 1994),
    ("Tesla", "Martin Eberhard", 2003),
    ("Netflix", "Reed Hastings", 1997),
    ("Oracle", "Larry Ellison", 1977),
]
FIRMS_CONTEXT = (
    " ".join(f"{f} was founded by {p} in {y}." for f, p, y in FIRMS)
    + " Intel was founded by Robert Noyce in 1968."
)
FIRMS_ANSWER = (
    "; ".join(f"{f} was founded by {p} in {y}" for f, p, y in FIRMS[:-1])
    + "; Oracle was founded by Robert Noyce in 1977."
)


def test_clauses_the_tagger_leaves_out_get_rows_from_the_parse() -> None:
    """Seven founders in one sentence: the tagger emits one row (at most `depth` rows per
    window); each clause no row states gets one from the parse (asserted.clauses_added), so
    the swapped founder is a fact, read against the context's founders."""
    pytest.importorskip("onnxruntime")
    report = Detector(extractor="encoder").detect(answer=FIRMS_ANSWER, context=FIRMS_CONTEXT)
    (sentence,) = report.sentences
    assert sentence.label == "contradicted"
    assert [(v.fact.subject, v.fact.relation) for v in report.facts] == [
        ("Apple", "founded by"),
        *[(firm, "was founded by") for firm, _, _ in FIRMS[1:]],
    ]
    oracle = report.facts[-1]
    assert (oracle.fact.object, oracle.label) == ("Robert Noyce in 1977", "contradicted")
    assert [v.label for v in report.facts[:-1]] == ["supported"] * 6
    assert [s.text for s in report.spans] == ["Robert Noyce"]


def test_clauses_the_tagger_leaves_out_are_judged_and_blamed() -> None:
    """The rows as tagged (``asserted=False``, no row added from the parse): the swapped
    founder of the last clause went unjudged and the sentence was reported supported at 0.0.
    The clauses no fact covers are facts of their own now."""

    pytest.importorskip("onnxruntime")
    answer, context = FIRMS_ANSWER, FIRMS_CONTEXT
    tagger = get_extractor("encoder", asserted=False)
    report = Detector(extractor=tagger).detect(answer=answer, context=context)
    (sentence,) = report.sentences
    assert sentence.label == "contradicted"
    assert [s.text for s in report.spans] == ["Oracle was founded by Robert Noyce in 1977"]
    clauses = [v.fact for v in report.facts if v.fact.source == "clause"]
    assert [f.subject for f in clauses][-1] == "Oracle was founded by Robert Noyce in 1977"
    assert (
        Detector(extractor=tagger, clause_coverage=False)
        .detect(answer=answer, context=context)
        .sentences[0]
        .label
        == "supported"
    )
    # the Markdown report shows the clause, not a triple with two empty parts
    from enoki_hd.report import render_markdown

    row = next(line for line in render_markdown(report).splitlines() if line.startswith("| c0.5 "))
    assert row.startswith(
        "| c0.5 | Oracle was founded by Robert Noyce in 1977 | contradicted | 1.00 |"
    )
    assert row.endswith("| a clause no fact covered, judged whole; decided_by: nli |")


def test_a_long_sentence_is_read_in_windows_as_long_as_the_training_ones(manifest: dict) -> None:
    """At 256 sub-tokens per window (twice the training windows) the tagger's rows collapsed
    to NONE on long sentences: 30 joined clauses gave no fact at all."""
    extractor = get_extractor("encoder")
    assert extractor.max_length == manifest["inference"]["max_length"] == 128
    assert manifest["config"]["model"]["max_length"] == 128  # the training windows
    people = [("Alice", "Paris"), ("Bob", "Berlin"), ("Carol", "Rome"), ("Dave", "Madrid")]
    clauses = [f"{n} moved to {c} in {1900 + i}" for i, (n, c) in enumerate(people * 8)]
    facts = extractor.extract(", and ".join(clauses[:30]) + ".")
    assert len(facts) >= 4


def test_the_shipped_tagger_is_recorded_by_name_and_loads_back() -> None:
    config = get_extractor("encoder").config()
    assert config["path"] == "tagger-minilm"  # not the checkout's absolute path
    rebuilt = get_extractor(**config)
    assert rebuilt.path == SHIPPED and rebuilt.config() == config


def test_the_shipped_tagger_keeps_the_negations_of_its_facts() -> None:
    # the raw rows read "UVA | expelled | a student" and "The restaurant | offer": the opposite
    answers = [
        "According to the article, UVA has never expelled a student for sexual assault.",
        "The restaurant does not offer reservations or outdoor seating.",
    ]
    extractor = get_extractor("encoder")
    for answer, negation in zip(answers, ("has never expelled", "does not offer"), strict=True):
        facts = extractor.extract(answer)
        assert facts and all(f.relation == negation for f in facts), [
            (f.subject, f.relation, f.object) for f in facts
        ]
        assert all(f.negated for f in facts)


def test_the_shipped_taggers_negated_facts_skip_the_checks_that_fail_under_negation() -> None:
    """ "not the only band" is no uniqueness claim: the tagger's fact was not marked negated, so
    the uniqueness check read it against "one of many bands" and contradicted it."""
    from enoki_hd.detector import Detector

    report = Detector(extractor="encoder").detect(
        answer="Suede is not the only band from London.",
        context="Suede is one of many bands from London.",
    )
    assert report.facts and all(v.fact.negated for v in report.facts)
    assert not [v for v in report.facts if v.decided_by.endswith("_conflict")]


def test_the_shipped_taggers_rows_say_what_the_sentence_asserts() -> None:
    # raw rows: "Robertson | led | the British forces …" and "red wine | has been left | …"
    answer = (
        'There was no British commander named "Robertson" who led the British forces during '
        "the Battle of Long Island. If red wine has been left overnight, it may have left stains."
    )
    extractor = get_extractor("encoder")
    facts = extractor.extract(answer)
    assert {(f.subject, f.relation, f.object) for f in facts if f.sentence == 0} >= {
        ("There", "was", 'no British commander named "Robertson"'),  # added from the parse
    }
    assert {f.subject for f in facts if f.sentence == 0} == {
        'no British commander named "Robertson"',
        "There",
    }
    assert [(f.relation, f.object) for f in facts if f.sentence == 1] == [
        ("may have left", "stains")
    ]
    raw = get_extractor("encoder", asserted=False).extract(answer)
    assert {f.subject for f in raw if f.sentence == 0} == {'"Robertson"'}
    assert "red wine" in {f.subject for f in raw if f.sentence == 1}


def test_the_shipped_taggers_existential_rows_say_what_exists() -> None:
    # raw rows: "There bridges | are | three over the river", "There 40 passengers | were on
    # board | the ferry" (verbalised "There bridges are three over the river.")
    answer = "There are three bridges over the river. There were 40 passengers on board the ferry."
    facts = get_extractor("encoder").extract(answer)
    assert [(f.subject, f.relation, f.object) for f in facts] == [
        ("There", "are", "three bridges over the river"),
        ("There", "were", "40 passengers on board the ferry"),
    ]
    raw = get_extractor("encoder", asserted=False).extract(answer)
    assert ("There bridges", "are", "three over the river") in [
        (f.subject, f.relation, f.object) for f in raw
    ]


@pytest.mark.parametrize(
    ("answer", "read", "stat", "raw"),
    [
        # "Bass violins | were | ∅" (PsiloQA): "smaller", the claim, left out
        (
            "Bass violins were smaller and had a lower pitch than violones of the viol family.",
            ("Bass violins", "were", "smaller"),
            "filled_objects",
            ("Bass violins", "were", ""),
        ),
        # "∅ | shares its western border with | Illinois" (unlabelled MuSHROOM training
        # answers), dropped by decoding without a subject
        (
            "It is situated along the Ohio River and shares its western border with Illinois.",
            ("It", "shares its western border with", "Illinois"),
            "filled_subjects",
            ("It", "shares", "its western border with Illinois"),
        ),
        # "This arena | is | the home ground for" (unlabelled MuSHROOM training answers)
        (
            "The Salzburg Red Bull Arena is located in Austria. This arena is the home ground "
            "for the Austrian football club, Red Bull Salzburg.",
            (
                "This arena",
                "is",
                "the home ground for the Austrian football club, Red Bull Salzburg",
            ),
            "completed_objects",
            ("This arena", "is", "the home ground for"),
        ),
        # "Lyon | the | third largest city of France" (found by an audit of Fool-Me-Twice
        # claims): a relation of a determiner alone
        (
            "Lyon, the third largest city of France, is known for its food.",
            ("Lyon", "is", "the third largest city of France"),
            "implicit_relations",
            ("Lyon", "the", "third largest city of France"),
        ),
    ],
)
def test_the_shipped_taggers_rows_take_a_part_they_lack_from_the_parse(
    answer: str, read: tuple[str, str, str], stat: str, raw: tuple[str, str, str]
) -> None:
    extractor = get_extractor("encoder")
    assert read in [(f.subject, f.relation, f.object) for f in extractor.extract(answer)]
    assert extractor.stats[stat] == 1
    rows = get_extractor("encoder", asserted=False).extract(answer)
    raw_triples = [(f.subject, f.relation, f.object) for f in rows]
    assert raw in raw_triples and read not in raw_triples


def test_the_shipped_taggers_row_without_a_relation_takes_its_objects_verb() -> None:
    """The tagger's row "The … Championships | ∅ | February 24 to February 28, 2013" (an
    unlabelled MuSHROOM training answer) has more than a verb group between its subject and
    its object, so decoding dropped it and the dates were judged only as a fragment of the
    sentence; the verb and the preposition that govern the object are its relation."""
    answer = (
        "The 26th biennial biathlon World Championships were held in Oberhof, Germany, from "
        "February 24 to February 28, 2013."
    )
    extractor = get_extractor("encoder")
    read = ("The 26th biennial biathlon World Championships", "were held from")
    facts = [f for f in extractor.extract(answer) if (f.subject, f.relation) == read]
    assert [f.object for f in facts] == ["February 24 to February 28, 2013"]
    assert [answer[s.start : s.end] for s in facts[0].relation_spans] == ["were held", "from"]
    assert extractor.stats["parsed_relations"] == 1
    raw = get_extractor("encoder", asserted=False).extract(answer)
    assert not [f for f in raw if "February" in f.object]


def test_the_shipped_taggers_facts_record_their_modal_and_read_past_markup() -> None:
    """The tagger's facts carried no ``modality`` ("can vary" read as no hedge, where the rules
    extractor records "can"), and a part spanning Markdown read the blanked characters as
    spaces ("the   Eiffel Tower   in Paris")."""
    answer = (
        "The size of a Western oriole can vary with its diet. Tom visited the **Eiffel "
        "Tower** in Paris. It *cannot* be moved."
    )
    facts = get_extractor("encoder").extract(answer)
    read = {(f.subject, f.relation, f.object, f.negated, f.modality) for f in facts}
    assert ("The size of a Western oriole", "can vary with", "its diet", False, "can") in read
    assert ("Tom", "visited the Eiffel Tower in", "Paris", False, None) in read
    assert ("It", "cannot be moved", "", True, "can") in read
    (tower,) = [f for f in facts if f.object == "Paris"]
    assert [answer[s.start : s.end] for s in tower.relation_spans] == [
        "visited the **Eiffel Tower** in"
    ]


def test_the_shipped_taggers_parts_keep_the_commas_and_conjunctions_of_their_lists() -> None:
    answer = (
        "The 26th biennial World Championships were held in Oberhof, Germany. Captain Morgan "
        "was invented in 1944 by George T. Stagg and James E. DeKuyper."
    )
    extractor = get_extractor("encoder")
    objects = [f.object for f in extractor.extract(answer)]
    assert "Oberhof, Germany" in objects
    assert "George T. Stagg and James E. DeKuyper" in objects
    assert extractor.stats["joined_pieces"] == 2
    raw = [f.object for f in get_extractor("encoder", asserted=False).extract(answer)]
    assert "Oberhof Germany" in raw and "George T. Stagg James E. DeKuyper" in raw


def test_the_tagger_reads_prose_not_markup_emoji_or_entities() -> None:
    context = (
        "The Keller Bridge opened in 1932. It is 450 metres long. Smith & Wesson built the rails."
    )
    detector = Detector(extractor="encoder")
    answers = [
        "The Keller Bridge opened in 1932 🎉.",
        "<p>The <b>Keller Bridge</b> opened in 1932.</p>",
        "The [Keller Bridge](https://example.org/kb) opened in 1932.",
        "It is __450 metres__ long.",
        "Smith &amp; Wesson built the rails.",
        "The bridge is 450&nbsp;metres long.",
    ]
    for answer in answers:
        report = detector.detect(answer=answer, context=context)
        assert [s.label for s in report.sentences] == ["supported"], answer
        for verdict in report.facts:
            for part in (verdict.fact.subject, verdict.fact.relation, verdict.fact.object):
                assert not set(part) & set("<>[]()_🎉;"), (answer, part)
    wrong = detector.detect(answer="The bridge is 460&nbsp;metres long.", context=context)
    assert [s.text for s in wrong.spans] == ["460"]


def test_the_encoders_root_facts_are_grounded_on_their_objects_too() -> None:
    """A row is a coarse fact; its object's new words are not diluted by its subject's."""
    from dataclasses import replace

    context = (
        "The Funicular Rigiblick is a funicular railway in the north-east of the city of "
        "Zurich, Switzerland. It links a lower station served by tram routes 9 and 10 with an "
        "upper station at Rigiblick."
    )
    answer = (
        "The Funicular Rigiblick is a popular mode of transportation for both locals and "
        "tourists alike."
    )
    detector = Detector(extractor="encoder")
    assert detector.judge.root_delta is True
    short = "The Funicular Rigiblick is a popular mode of transportation."

    def verdict() -> tuple[str, str]:
        report = detector.detect(answer=answer, context=context)
        (fact,) = [v for v in report.facts if v.hypothesis == short]
        return fact.label, fact.decided_by

    assert verdict() == ("unverifiable", "grounding")
    detector.judge = replace(detector.judge, root_delta=False)
    assert verdict() == ("supported", "nli")
