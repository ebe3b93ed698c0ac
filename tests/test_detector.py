from __future__ import annotations

import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from fakes import ConstantVerifier, FailingVerifier, LexicalVerifier, content_words

from enoki_hd.detector import Detector
from enoki_hd.types import FactVerdict, NLIScores, Report, Span
from enoki_hd.verify.evidence import EvidenceSelector
from enoki_hd.verify.loading import load_default_verifier
from enoki_hd.verify.nli import VerifierError

CONTEXT = (
    "Suede are an English rock band formed in London in 1989. "
    "Their debut album won the Mercury Music Prize in 1993. "
    "The band disbanded in 2003."
)
ANSWER = "Suede is a rock band formed in London. It was formed in Manchester. The band was not formed in London."


@pytest.fixture
def detector() -> Detector:
    return Detector(LexicalVerifier(), extractor=None, sentence_backend="regex")


def test_sentence_verdicts_offsets_labels_and_evidence(detector: Detector) -> None:
    report = detector.detect(answer=ANSWER, context=CONTEXT)
    assert [(s.span.start, s.span.end) for s in report.sentences] == [(0, 38), (39, 67), (68, 102)]
    assert [s.text for s in report.sentences] == [ANSWER[0:38], ANSWER[39:67], ANSWER[68:102]]
    assert [s.label for s in report.sentences] == ["supported", "unverifiable", "contradicted"]
    assert [s.score for s in report.sentences] == [
        pytest.approx(0.1),
        pytest.approx(0.9),
        pytest.approx(0.95),
    ]
    first = report.sentences[0].evidence
    assert first is not None and CONTEXT[first.start : first.end] == first.text
    assert "formed in London in 1989" in first.text
    summary = report.summary
    assert summary.status == "ok"
    assert summary.counts == {"supported": 1, "contradicted": 1, "unverifiable": 1}
    assert summary.faithfulness == pytest.approx(1 / 3, abs=1e-6)
    assert (summary.intrinsic, summary.extrinsic, summary.hallucinated) == (1, 1, True)
    # sentence level: a flagged sentence is its own span (without its full stop)
    assert report.facts == []
    assert [(h.start, h.end, h.label) for h in report.spans] == [
        (39, 66, "unverifiable"),
        (68, 101, "contradicted"),
    ]
    assert set(report.timings) >= {"segment", "index", "verify", "total"}


def test_report_json_round_trip(detector: Detector) -> None:
    report = detector.detect(answer=ANSWER, context=CONTEXT, question="What is Suede?")
    data = json.loads(json.dumps(report.to_dict()))
    assert Report.from_dict(data).to_dict() == report.to_dict()
    assert data["question"] == "What is Suede?"


def test_empty_answer_makes_no_model_call() -> None:
    verifier = LexicalVerifier()
    report = Detector(verifier, extractor=None, sentence_backend="regex").detect(
        answer="  \n\t", context=CONTEXT
    )
    assert report.summary.status == "empty_answer"
    assert report.sentences == [] and report.summary.faithfulness is None
    # every status counts the three labels (README "Report JSON"); this one gave {}
    assert report.summary.counts == {"supported": 0, "contradicted": 0, "unverifiable": 0}
    assert verifier.calls == []


def test_empty_context_is_unverifiable_not_supported() -> None:
    verifier = LexicalVerifier()
    report = Detector(verifier, extractor=None, sentence_backend="regex").detect(
        answer=ANSWER, context="   "
    )
    assert report.summary.status == "no_context"
    assert [s.label for s in report.sentences] == ["unverifiable"] * 3
    assert report.summary.faithfulness == 0.0
    assert verifier.calls == []


@pytest.mark.parametrize(
    ("kwargs", "name", "got"),
    [
        ({"answer": None, "context": CONTEXT}, "answer", "NoneType"),
        ({"answer": b"bytes", "context": CONTEXT}, "answer", "bytes"),
        ({"answer": ANSWER, "context": 3}, "context", "int"),
        ({"answer": ANSWER, "context": CONTEXT, "question": b"q"}, "question", "bytes"),
    ],
)
def test_non_str_input_raises_type_error_naming_argument(detector, kwargs, name, got) -> None:
    with pytest.raises(TypeError, match=rf"^{name} must be str.*got {got}"):
        detector.detect(**kwargs)


def test_verifier_failure_is_an_error_not_a_hallucination() -> None:
    with pytest.raises(VerifierError, match="NaN"):
        Detector(FailingVerifier(), extractor=None, sentence_backend="regex").detect(
            answer=ANSWER, context=CONTEXT
        )


def test_missing_checkpoint_names_path_and_make_target(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    with pytest.raises(FileNotFoundError) as err:
        load_default_verifier(missing)
    assert str(missing) in str(err.value) and "make train-verifier" in str(err.value)


def test_one_megabyte_context_is_fully_indexed_without_truncation(detector: Detector) -> None:
    filler = " ".join(f"Item {i} is stored in warehouse {i % 97}." for i in range(40_000))
    middle = filler.index(". ", 500_000) + 1  # a sentence boundary past the middle
    context = filler[:middle] + " The capital of Freedonia is Sylvania." + filler[middle:]
    assert len(context) > 1_000_000
    tracemalloc.start()
    report = detector.detect(answer="The capital of Freedonia is Sylvania.", context=context)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert report.sentences[0].label == "supported"
    evidence = report.sentences[0].evidence
    assert evidence is not None and "Freedonia is Sylvania" in evidence.text
    target = context.index("The capital of Freedonia")
    assert target > 500_000  # past the middle of the context: nothing was cut off
    assert evidence.start <= target < evidence.end
    assert peak < 1_500 * 2**20


def test_detect_batch_keeps_order_and_validates(detector: Detector) -> None:
    reports = detector.detect_batch(
        [
            {"answer": "Suede is a rock band.", "context": CONTEXT},
            {"answer": "", "context": CONTEXT},
        ],
        progress=False,
    )
    assert [r.summary.status for r in reports] == ["ok", "empty_answer"]
    with pytest.raises(KeyError, match=r"examples\[0\] lacks context"):
        detector.detect_batch([{"answer": "x"}], progress=False)
    with pytest.raises(TypeError, match=r"examples\[0\] must be a mapping"):
        detector.detect_batch(["x"], progress=False)


def test_detect_batch_names_the_example_with_a_bad_text(detector: Detector) -> None:
    """In a batch of thousands, "answer must be str" does not say which row: the error
    names the example, before it is detected."""
    good = {"answer": "Suede is a rock band.", "context": CONTEXT}
    cases = [
        ({"answer": None, "context": CONTEXT}, TypeError, r"examples\[1\]\['answer'\] must be str"),
        ({"answer": "x", "context": [CONTEXT, 3]}, TypeError, r"examples\[1\]\['context'\]\[1\]"),
        ({**good, "question": b"q"}, TypeError, r"examples\[1\]\['question'\] must be str or None"),
        ({**good, "answer": "x\ud800"}, ValueError, r"examples\[1\]\['answer'\]: holds a lone"),
    ]
    for bad, error, message in cases:
        with pytest.raises(error, match=message):
            detector.detect_batch([good, bad], progress=False)


def test_retrieve_sends_fewer_pairs_than_window_on_long_context() -> None:
    context = (
        " ".join(f"Fact number {i} concerns topic {i}." for i in range(200))
        + " Suede formed in London."
    )
    pairs = {}
    for strategy in ("retrieve", "window"):
        from enoki_hd.verify.evidence import EvidenceSelector

        verifier = LexicalVerifier()
        verifier.max_length = 64
        det = Detector(
            verifier,
            extractor=None,
            selector=EvidenceSelector(strategy=strategy),
            sentence_backend="regex",
        )
        report = det.detect(answer="Suede formed in London.", context=context)
        assert report.sentences[0].label == "supported"
        pairs[strategy] = sum(len(c) for c in verifier.calls)
    assert pairs["retrieve"] * 5 <= pairs["window"]


FACT_CONTEXT = (
    "Suede are an English rock band formed in London in 1989. "
    "Their debut album won the Mercury Music Prize in 1993."
)
FACT_ANSWER = (
    "Suede is an English rock band formed in Manchester in 1989. "
    "Their debut album won the Mercury Music Prize in 1995."
)


@pytest.mark.parametrize("verification", ["nli", "hybrid"])
def test_fact_level_spans_facts_and_sentences(verification: str) -> None:
    detector = Detector(LexicalVerifier(), extractor="rules", verification=verification)
    report = detector.detect(answer=FACT_ANSWER, context=FACT_CONTEXT)
    spans = [(s.start, s.end, s.text, s.facts) for s in report.spans]
    assert spans == [(40, 50, "Manchester", ["f0.3"]), (109, 113, "1995", ["f1.1"])]
    by_id = {v.fact.id: v for v in report.facts}
    assert by_id["f0.3"].hypothesis == "Suede formed in Manchester."
    if verification == "hybrid":
        # the evidence fills the slot of "formed in" with another name: a name-role conflict
        assert (by_id["f0.3"].label, by_id["f0.3"].decided_by) == (
            "contradicted",
            "name_role_conflict",
        )
    else:
        assert by_id["f0.3"].label == "unverifiable"
    assert by_id["f0.4"].label == "supported"  # (Suede, formed in, 1989)
    if verification == "hybrid":
        # the lexical grounding check sees a year of the same kind in the evidence: contradiction
        assert (
            by_id["f1.1"].label == "contradicted" and by_id["f1.1"].decided_by == "value_conflict"
        )
        assert [s.label for s in report.spans] == ["contradicted", "contradicted"]
    assert report.sentences[0].label == (
        "contradicted" if verification == "hybrid" else "unverifiable"
    )
    assert report.sentences[0].facts == ["f0.0", "f0.1", "f0.2", "f0.3", "f0.4"]
    assert report.sentences[0].method == "max"
    # the fake entails a fact exactly when every content word of its hypothesis is in the
    # context, so the supported facts are known without running the detector
    context_words = content_words(FACT_CONTEXT)
    entailed = {v.fact.id for v in report.facts if content_words(v.hypothesis) <= context_words}
    assert entailed == {v.fact.id for v in report.facts if v.label == "supported"}
    assert entailed.isdisjoint({"f0.3", "f1.1"})  # Manchester, 1995
    assert report.summary.checked == len(report.facts)  # no failed parent suppresses a child
    assert report.summary.counts["supported"] == len(entailed)


def test_sentence_without_facts_falls_back_to_sentence_nli() -> None:
    detector = Detector(LexicalVerifier(), extractor="rules")
    report = detector.detect(answer="Yes. Suede formed in London.", context=FACT_CONTEXT)
    assert report.sentences[0].text == "Yes."
    assert report.sentences[0].method == "sentence-nli-fallback"
    assert report.sentences[0].facts == []
    assert report.sentences[1].method == "max"


def test_no_facts_status() -> None:
    detector = Detector(LexicalVerifier(), extractor="rules")
    report = detector.detect(answer="Yes.", context=FACT_CONTEXT)
    assert report.summary.status == "no_facts"
    assert report.facts == [] and report.sentences[0].label != "supported"


def test_non_english_sentence_is_reported_not_crashed() -> None:
    detector = Detector(LexicalVerifier(), extractor="rules")
    answer = "Suede formed in London. Der Hund läuft schnell über die grüne Wiese im Park."
    report = detector.detect(answer=answer, context=FACT_CONTEXT)
    labels = [s.label for s in report.sentences]
    assert labels[0] == "supported"
    assert labels[1:] and set(labels[1:]) == {"unsupported_language"}
    assert report.sentences[-1].span.end == len(answer)
    assert all(v.fact.sentence == 0 for v in report.facts)


def test_flagged_sentence_blames_context_absent_words_no_fact_covers() -> None:
    detector = Detector(LexicalVerifier(), extractor="rules")
    answer = "Yes, definitely Zorblax. Suede formed in London."
    report = detector.detect(answer=answer, context=FACT_CONTEXT)
    assert report.sentences[0].method == "sentence-nli-fallback"
    assert report.sentences[0].label == "unverifiable"
    spans = [(s.start, s.end, s.text, s.facts) for s in report.spans]
    # "Yes" and "definitely Zorblax" are context-absent; only a comma separates them in one
    # sentence, so they are one span
    assert spans == [(0, 23, "Yes, definitely Zorblax", [])]
    assert all(s.end <= 24 for s in report.spans)  # the supported sentence blames nothing


def _entailing(**options: Any) -> Detector:
    """A rules detector whose verifier entails everything: only the grounding rules can flag
    anything."""
    return Detector(ConstantVerifier(NLIScores(0.9, 0.08, 0.02)), extractor="rules", **options)


def test_an_entailment_does_not_vouch_for_a_name_the_context_never_states() -> None:
    context = "The amber fern is a plant in the family Polypodiaceae. It grows in Chile."
    answer = "The amber fern is a plant in the family Pteridaceae. It grows in Chile."
    report = _entailing().detect(answer=answer, context=context)
    assert [(s.text, s.label) for s in report.spans] == [("Pteridaceae", "unverifiable")]
    flagged = [v for v in report.facts if v.label != "supported"]
    assert flagged and {v.decided_by for v in flagged} == {"absent_name"}
    assert [s.label for s in report.sentences] == ["unverifiable", "supported"]
    # with the rule off the mean of NLI and grounding lets it pass
    off = _entailing(absent_names=False)
    assert off.detect(answer=answer, context=context).spans == []
    assert off.config()["absent_names"] is False
    assert Detector.from_config({"absent_names": False}).judge.absent_names is False


def test_spans_of_one_phrase_are_joined_across_its_small_words() -> None:
    context = "The amber fern is a plant. It grows in Chile."
    answer = "The amber fern grows in Peru and Bolivia."
    report = _entailing().detect(answer=answer, context=context)
    # two absent names of one fact's object: one span across "and"
    assert [(s.start, s.end, s.text, s.label) for s in report.spans] == [
        (24, 40, "Peru and Bolivia", "unverifiable")
    ]
    off = _entailing(join_phrases=False)
    assert [s.text for s in off.detect(answer=answer, context=context).spans] == [
        "Peru",
        "Bolivia",
    ]
    assert Detector.from_config(off.config()).join_phrases is False


def test_a_chain_is_judged_refinements_first_and_ancestors_inherit() -> None:
    context = "Harwick Town Council voted to close the Linden Street footbridge for repairs."
    answer = "The Harwick Town Council voted to close the old Linden Street footbridge."
    verifier = LexicalVerifier()
    chained = Detector(verifier, extractor="rules")  # the default: inherit at 0.5
    report = chained.detect(answer=answer, context=context)
    facts = [(v.fact.id, v.fact.parent, v.label, v.inherited_from) for v in report.facts]
    assert facts == [
        ("f0.0", None, "supported", "f0.1"),
        ("f0.1", "f0.0", "supported", None),
        ("f0.2", "f0.1", "unverifiable", None),
    ]
    # round one: the finest fact; round two: its parent; the root is never sent
    assert [{h for _, h in call} for call in verifier.calls] == [
        {"Harwick Town Council voted to close old Linden Street footbridge."},
        {"Harwick Town Council voted to close Linden Street footbridge."},
    ]
    assert [s.text for s in report.spans] == ["old"]
    root = report.facts[0]
    assert root.probs == report.facts[1].probs and root.evidence == report.facts[1].evidence
    assert root.to_dict()["inherited_from"] == "f0.1"
    assert "inherited_from" not in report.facts[1].to_dict()
    assert FactVerdict.from_dict(root.to_dict()) == root
    # off: every fact judged, in one call, and the same spans here
    off = Detector(LexicalVerifier(), extractor="rules", inherit_entailment=None)
    again = off.detect(answer=answer, context=context)
    assert len(off.verifier.calls) == 1 and len({h for _, h in off.verifier.calls[0]}) == 3
    assert [v.inherited_from for v in again.facts] == [None, None, None]
    assert [s.text for s in again.spans] == ["old"]
    assert off.config()["inherit_entailment"] is None
    assert Detector.from_config({"inherit_entailment": None}).inherit_entailment is None
    assert chained.config()["inherit_entailment"] == 0.5
    assert Detector.from_config({"inherit_entailment": 0.5}).inherit_entailment == 0.5
    assert Detector.from_config({}).inherit_entailment == 0.5
    with pytest.raises(ValueError, match=r"inherit_entailment must be in \[0, 1\] or None"):
        Detector(LexicalVerifier(), inherit_entailment=2.0)


def test_an_extractor_of_coarse_root_facts_has_their_objects_grounded_alone() -> None:
    class Coarse:
        name = "coarse"
        coarse_roots = True

        def extract(self, answer, *, sentences=None):
            return []

        def unparseable_sentences(self, answer, sentences=None):
            return set()

        def config(self):
            return {"name": "coarse"}

    assert Detector(LexicalVerifier(), extractor=Coarse()).judge.root_delta is True
    assert Detector(LexicalVerifier(), extractor="rules").judge.root_delta is False
    assert Detector(LexicalVerifier(), extractor=None).judge.root_delta is False


@pytest.mark.parametrize("verification", ["grounding", "calibrated"])
def test_sentence_level_refuses_a_verification_that_judges_facts(verification: str) -> None:
    """At sentence level every sentence takes the verifier's decision: ``grounding`` (the
    lexical check alone) and ``calibrated`` (the fitted fusion) judge facts, and were taken
    and silently skipped (the reports equal ``verification="nli"``'s)."""
    fusion = Path(__file__).parents[1] / "checkpoints" / "verifier-minilm" / "fusion.json"
    with pytest.raises(ValueError, match=f"verification='{verification}' judges facts"):
        Detector(LexicalVerifier(), extractor=None, verification=verification, calibration=fusion)


# --- regressions of the hardening issue -----------------------------------------------------

LONG_SENTENCE = (
    ", ".join(["the committee reviewed the annual budget and approved the projects"] * 40) + "."
)


@pytest.mark.parametrize("extractor", [None, "rules"])
def test_a_sentence_longer_than_the_verifier_is_split_not_crashed(extractor) -> None:
    verifier = LexicalVerifier()  # max_length 128: a hypothesis piece takes at most 64 tokens
    assert verifier.count_tokens(LONG_SENTENCE) > 3 * verifier.max_length
    detector = Detector(verifier, extractor=extractor, sentence_backend="regex")
    context = "The committee reviewed the annual budget. It approved the projects."
    report = detector.detect(answer=LONG_SENTENCE, context=context)
    (sentence,) = report.sentences
    judged_whole = extractor is None or not report.facts
    if judged_whole:
        assert len(sentence.split) > 1
        assert all(0 <= s.start < s.end <= len(LONG_SENTENCE) for s in sentence.split)
        assert all(verifier.count_tokens(s.text(LONG_SENTENCE)) <= 64 for s in sentence.split)
        # every piece was sent to the verifier, none cut
        sent = {h for call in verifier.calls for _, h in call}
        assert {s.text(LONG_SENTENCE) for s in sentence.split} <= sent
    assert sentence.label == "supported"  # every word of it is in the context
    assert report.summary.status == "ok"


def test_an_answer_in_another_language_is_unchecked_not_passed() -> None:
    answer = "Die Band wurde 1989 in London gegründet. Ihr erstes Album gewann den Preis."
    for extractor in (None, "rules"):
        report = Detector(LexicalVerifier(), extractor=extractor).detect(
            answer=answer, context=FACT_CONTEXT
        )
        assert report.summary.status == "unsupported_language"
        assert report.summary.faithfulness is None and report.summary.hallucinated is None
        assert report.summary.unchecked == 2 and report.checked is False
        assert [s.label for s in report.sentences] == ["unsupported_language"] * 2


def test_zero_width_spaces_do_not_make_an_answer_foreign() -> None:
    answer = "\u200bSuede\u200b was\u200b formed in London."
    report = Detector(LexicalVerifier(), extractor="rules").detect(
        answer=answer, context="Suede was formed in London in 1989."
    )
    assert report.summary.status == "ok"
    assert [(s.span.start, s.span.end, s.label) for s in report.sentences] == [(0, 30, "supported")]
    assert report.spans == []


def test_an_entity_inside_a_word_reads_as_its_character_in_the_hypothesis() -> None:
    answer = "AT&amp;T was founded in 1885."
    report = Detector(LexicalVerifier(), extractor="rules").detect(
        answer=answer, context="AT&T was founded in 1885."
    )
    assert report.answer == answer
    assert [(v.hypothesis, v.label) for v in report.facts] == [
        ("AT&T was founded in 1885.", "supported")
    ]
    assert report.facts[0].fact.subject_spans == [Span(0, 8)]  # "AT&amp;T" in the answer
    assert [(s.span.start, s.span.end, s.label) for s in report.sentences] == [(0, 29, "supported")]
    assert report.spans == []


def test_a_partly_foreign_answer_is_not_wholly_checked() -> None:
    answer = "Suede formed in London. Der Hund läuft schnell über die grüne Wiese im Park."
    report = Detector(LexicalVerifier(), extractor="rules").detect(
        answer=answer, context=FACT_CONTEXT
    )
    assert report.summary.status == "ok" and report.summary.faithfulness == 1.0
    # spaCy may cut the German sentence in two; every piece of it is unchecked
    assert report.summary.unchecked == len(report.sentences) - 1 >= 1
    assert report.checked is False


def test_value_conflict_in_other_words_is_contradicted_and_blames_only_the_value() -> None:
    context = "The band closed its tour in Oslo in front of 16,250 spectators."
    answer = "The concert in Oslo drew a crowd of 18,250."
    # an undecided verifier, as the shipped one is here (entailment 0.41): the lexical check
    # decides that "concert", "drew", "crowd" are absent, and the value conflict explains them
    undecided = ConstantVerifier(NLIScores(0.4, 0.36, 0.24))
    report = Detector(undecided, extractor="rules").detect(answer=answer, context=context)
    assert [s.label for s in report.sentences] == ["contradicted"]
    assert [(s.text, s.label) for s in report.spans] == [("18,250", "contradicted")]
    # a verifier decisive against the coarser fact keeps its words blamed; the sentence is
    # contradicted all the same
    report = Detector(LexicalVerifier(), extractor="rules").detect(answer=answer, context=context)
    assert [s.label for s in report.sentences] == ["contradicted"]
    # ("drew", "crowd" and the value are one phrase across "a" and "of")
    assert [s.text for s in report.spans] == ["concert", "drew a crowd of 18,250"]


SETTINGS = [
    ("threshold", 0.6),
    ("verification", "nli"),
    ("hybrid_weight", 0.3),
    ("sentence_aggregation", "mean"),
    ("sentence_backend", "regex"),
    ("context_backend", "spacy"),
    ("language_check", False),
    ("extractor", None),
    ("selector", "top_k=5"),
    ("selector", "strategy=window"),
    ("selector", "neighbours=0"),
    ("selector", "max_premise_tokens=64"),
    ("selector", "premises=sentence+window"),
    ("join_phrases", False),
    ("restate_pronouns", False),
    ("sentence_entailment", 0.7),
]


def _detector(**overrides) -> Detector:
    selector = overrides.pop("selector", None)
    if selector is not None:
        key, value = selector.split("=")
        parsed = {"strategy": value, "premises": tuple(value.split("+"))}.get(key)
        overrides["selector"] = EvidenceSelector(**{key: parsed or int(value)})
    return Detector(LexicalVerifier(), **overrides)


@pytest.mark.parametrize(("setting", "value"), SETTINGS)
def test_every_setting_changes_the_config_and_the_eval_cache_key(setting, value) -> None:
    from enoki_hd.eval.cache import PredictionCache
    from enoki_hd.eval.methods import DetectorMethod

    base, changed = _detector(), _detector(**{setting: value})
    assert base.config() != changed.config()
    keys = [
        PredictionCache.method_key(DetectorMethod("detector", d, "model-id"))
        for d in (base, changed)
    ]
    assert keys[0] != keys[1]


def test_config_round_trips_through_from_config(tiny_nli_dir: Path) -> None:
    detector = Detector(
        str(tiny_nli_dir),
        extractor="rules",
        selector=EvidenceSelector(top_k=2, neighbours=0),
        threshold=0.4,
        verification="nli",
        hybrid_weight=0.3,
        sentence_aggregation="mean",
        sentence_backend="regex",
        language_check=False,
    )
    config = json.loads(json.dumps(detector.config()))
    assert Detector.from_config(config).config() == config
    hybrid = Detector(str(tiny_nli_dir), sentence_entailment=0.8)
    config = json.loads(json.dumps(hybrid.config()))
    assert config["sentence_entailment"] == 0.8
    assert Detector.from_config(config).config() == config


def test_from_config_rejects_unknown_keys() -> None:
    with pytest.raises(ValueError, match=r"unknown detector config key\(s\) \['treshold'\]"):
        Detector.from_config({"treshold": 0.5})


def test_from_config_takes_a_bare_verifier_and_names_a_group_that_is_no_mapping(
    tiny_nli_dir: Path,
) -> None:
    """``verifier`` may be a path or shipped name, as ``Detector(verifier)`` takes it; a
    group or a config of another type is a one-line error naming it, not a traceback."""
    detector = Detector.from_config({"verifier": str(tiny_nli_dir)})
    assert detector.config()["verifier"]["path"] == str(tiny_nli_dir)
    with pytest.raises(ValueError, match="detector config 'evidence' must be a mapping"):
        Detector.from_config({"evidence": "retrieve"})
    with pytest.raises(ValueError, match="detector config 'verifier' must be a mapping"):
        Detector.from_config({"verifier": 3})
    with pytest.raises(TypeError, match=r"from_config takes a mapping .* got str"):
        Detector.from_config("threshold: 0.5")  # type: ignore[arg-type]


def test_citation_markers_are_never_checked_flagged_or_split_off() -> None:
    """A RAG answer's "[1]" and "(Source 2)" are read as spaces: the sentences end where the
    answer's do, no marker is a span or a fact, and the report keeps the answer's own text."""
    answer = "Suede formed in London [1]. The band split in 1998 (Source 2).[3]"
    verifier = LexicalVerifier()
    report = Detector(verifier, sentence_backend="regex").detect(answer=answer, context=CONTEXT)
    assert report.answer == answer
    assert [(s.span.start, s.span.end, s.text) for s in report.sentences] == [
        (0, 27, "Suede formed in London [1]."),
        (28, 62, "The band split in 1998 (Source 2)."),
    ]
    assert [(s.text, s.label) for s in report.spans] == [("split in 1998", "contradicted")]
    judged = " ".join(h for batch in verifier.calls for _, h in batch)
    assert "[" not in judged and "Source" not in judged
    for fact in (v.fact for v in report.facts):
        assert not any(c in f"{fact.subject} {fact.relation} {fact.object}" for c in "[]()")
    # kept as text when asked: the markers become words of the answer
    kept = Detector(LexicalVerifier(), sentence_backend="regex", mask_citations=False)
    assert kept.config()["mask_citations"] is False
    assert Detector.from_config(kept.config()).mask_citations is False
    report = kept.detect(answer=answer, context=CONTEXT)
    assert [s.text for s in report.spans] == ["1", "split in 1998 (Source 2).[3"]


def test_attribution_frames_are_not_part_of_the_claim() -> None:
    """ "According to the context, " says where the claim comes from: it is read as spaces, so
    the sentence is the claim alone and no frame word is judged or flagged."""
    answer = "According to the context, Suede formed in London. In summary, the band split in 1998."
    verifier = LexicalVerifier()
    report = Detector(verifier, sentence_backend="regex").detect(answer=answer, context=CONTEXT)
    assert report.answer == answer
    assert [s.text for s in report.sentences] == [
        "Suede formed in London.",
        "the band split in 1998.",
    ]
    assert [s.text for s in report.spans] == ["split in 1998"]
    judged = " ".join(h for batch in verifier.calls for _, h in batch).lower()
    assert "according" not in judged and "context" not in judged and "summary" not in judged
    kept = Detector(LexicalVerifier(), sentence_backend="regex", mask_frames=False)
    assert Detector.from_config(kept.config()).mask_frames is False
    spans = [s.text for s in kept.detect(answer=answer, context=CONTEXT).spans]
    assert spans[0] == "According to the context"


def test_a_sentence_the_context_states_word_for_word_is_supported() -> None:
    """Whatever the verifier makes of the facts cut from it, a copied context sentence is
    supported, with the context sentence as evidence; a claim the context only reports is not
    copied, and the switch turns the rule off."""
    answer = "Their debut album won the Mercury Music Prize in 1993. Suede split in 1998."
    against = NLIScores(0.02, 0.08, 0.9)  # every pair contradicted
    report = Detector(ConstantVerifier(against), sentence_backend="regex").detect(
        answer=answer, context=CONTEXT
    )
    first = [v for v in report.facts if v.fact.sentence == 0]
    assert first and {(v.label, v.decided_by, v.score) for v in first} == {
        ("supported", "quoted", 0.0)
    }
    quote = "Their debut album won the Mercury Music Prize in 1993."
    start = CONTEXT.index(quote)
    assert {(v.evidence.start, v.evidence.end, v.evidence.text) for v in first} == {
        (start, start + len(quote), quote)
    }
    assert first[0].probs == against  # the verifier's own reading is kept
    assert (report.sentences[0].label, report.sentences[0].score) == ("supported", 0.0)
    assert report.sentences[1].label == "contradicted"
    assert all(s.start >= answer.index("Suede") for s in report.spans)
    off = Detector(ConstantVerifier(against), sentence_backend="regex", quoted_support=False)
    assert Detector.from_config(off.config()).quoted_support is False
    assert [s.label for s in off.detect(answer=answer, context=CONTEXT).sentences] == [
        "contradicted",
        "contradicted",
    ]
    reported = Detector(ConstantVerifier(against), sentence_backend="regex").detect(
        answer="The band was formed in London.",
        context="Critics say the band was formed in London. It was not.",
    )
    assert reported.sentences[0].label == "contradicted"
    # judged whole (no extractor): the sentence itself is supported by the quote
    whole = Detector(ConstantVerifier(against), extractor="none", sentence_backend="regex")
    sentences = whole.detect(answer=answer, context=CONTEXT).sentences
    assert (sentences[0].label, sentences[0].method, sentences[0].score) == (
        "supported",
        "quoted",
        0.0,
    )
    assert sentences[0].evidence.text == quote and sentences[1].label == "contradicted"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"answer": "Suede\ud800 formed.", "context": CONTEXT}, "answer: holds a lone surrogate"),
        ({"answer": "Suede.", "context": ["x", "\udcff"]}, r"context\[1\]: holds a lone"),
        ({"answer": "Suede.", "context": CONTEXT, "question": "\ud83d"}, "question: holds a"),
    ],
)
def test_a_lone_surrogate_is_a_clear_error_naming_the_argument(kwargs, message) -> None:
    """What errors="surrogateescape" or a broken JSON escape leaves is no character: refused
    before any work, with the offset and the fix, instead of failing inside spaCy."""
    detector = Detector(LexicalVerifier(), sentence_backend="regex")
    with pytest.raises(ValueError, match=message) as info:
        detector.detect(**kwargs)
    assert "errors='replace'" in str(info.value)


def test_a_quote_is_never_found_across_two_passages() -> None:
    against = NLIScores(0.02, 0.08, 0.9)
    detector = Detector(ConstantVerifier(against), sentence_backend="regex")
    split = detector.detect(
        answer="Marie Curie was born in Paris.", context=["Marie Curie was born", "in Paris."]
    )
    assert split.sentences[0].label == "contradicted"
    whole = detector.detect(
        answer="Marie Curie was born in Paris.",
        context=["Notes.", "Marie Curie was born in Paris."],
    )
    assert whole.sentences[0].label == "supported"
    assert {(v.decided_by, v.evidence.passage) for v in whole.facts} == {("quoted", 1)}


@pytest.mark.parametrize("options", [{"extractor": None}, {"verification": "nli"}])
def test_a_flagged_sentence_without_a_blamed_word_is_its_own_span(options) -> None:
    """Sentence-level detection (no extractor) and NLI-only judgement of a sentence without
    facts blame no words: the flagged sentence is the span, so a guard that reads `spans` sees
    what the sentences say."""
    answer = "Suede formed in London. It split in 1998. - Died in 1934"
    report = Detector(LexicalVerifier(), sentence_backend="regex", **options).detect(
        answer=answer, context=CONTEXT
    )
    flagged = [s for s in report.sentences if s.label in ("contradicted", "unverifiable")]
    assert flagged
    for sentence in flagged:
        inside = [h for h in report.spans if sentence.span.start <= h.start < sentence.span.end]
        assert inside, sentence.text
    for span in report.spans:
        assert answer[span.start : span.end] == span.text
    if options == {"extractor": None}:
        assert [(h.text, h.label) for h in report.spans] == [
            ("It split in 1998", "unverifiable"),
            ("- Died in 1934", "unverifiable"),
        ]


def test_option_types_are_checked_naming_the_option() -> None:
    with pytest.raises(
        TypeError, match="threshold must be a number in \\[0, 1\\] or None, got str"
    ):
        Detector(LexicalVerifier(), threshold="0.5")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"extractor must be a name .* got int"):
        Detector(LexicalVerifier(), extractor=123)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="detector config 'threshold' must be a number, got 'abc'"):
        Detector.from_config({"threshold": "abc"})  # before any model loads


class _InventingExtractor:
    """One anchored fact per sentence of ANSWER-like text, plus a triple with no place in the
    answer (what an LLM extractor's invented words become: no spans)."""

    name = "inventing-fake"

    def extract(self, text, sentences=None):
        from enoki_hd.types import Fact, Span

        start = text.index("London")
        return [
            Fact(
                "f0.0",
                0,
                "Suede",
                "formed in",
                "London",
                subject_spans=[Span(0, 5)],
                relation_spans=[Span(6, 15)],
                object_spans=[Span(start, start + 6)],
                delta=[Span(start, start + 6)],
            ),
            Fact("f0.1", 0, "Napoleon", "founded", "Suede", source="llm:subject_unaligned"),
        ]

    def unparseable_sentences(self, text, sentences):
        return []

    def config(self):
        return {"name": self.name}


def test_an_unanchored_fact_is_reported_but_decides_nothing() -> None:
    """An extractor's invented triple (no word placed in the answer) is verified and shown,
    but it is no claim of the answer: it flagged a faithful sentence, counted in the summary
    and failed the CLI gate."""
    report = Detector(
        LexicalVerifier(), extractor=_InventingExtractor(), sentence_backend="regex"
    ).detect(answer="Suede formed in London.", context=CONTEXT)
    invented = next(v for v in report.facts if v.fact.id == "f0.1")
    assert invented.label != "supported" and not invented.fact.anchored
    assert [(s.label, s.facts) for s in report.sentences] == [("supported", ["f0.0"])]
    assert report.spans == []
    assert (report.summary.faithfulness, report.summary.hallucinated) == (1.0, False)


@pytest.mark.parametrize(
    "answer",
    [
        "Suede formed in London (see https://en.wikipedia.org/wiki/Suede_(band)).",
        "Suede formed in London, see https://en.wikipedia.org/wiki/Britpop for more.",
        "Suede formed in London [source](https://en.wikipedia.org/wiki/Suede).",
    ],
)
def test_a_url_the_answer_cites_is_no_claim(answer: str) -> None:
    """A URL, a link's target and the words that point to them are references, as "[1]" is:
    "see https://…" was flagged, and "[source](…)" judged as "Suede formed in source"."""
    report = Detector().detect(answer=answer, context="Suede formed in London in 1989.")
    assert report.spans == []
    assert [v.hypothesis for v in report.facts] == ["Suede formed in London."]


class FragmentVerifier(LexicalVerifier):
    """Reads the whole answer sentence as entailed and each fragment of it with "without" as
    a contradiction, as the small SNLI-trained verifier reads "Headaches go away without
    treatment" against "... usually resolve on their own"."""

    name = "fragment-fake"
    sentence = "Headaches happen fairly often and go away without treatment."

    def predict(self, pairs):
        self.calls.append(list(pairs))
        return [
            NLIScores(0.85, 0.1, 0.05)
            if hypothesis == self.sentence
            else NLIScores(0.02, 0.03, 0.95)
            if "without" in hypothesis
            else NLIScores(0.95, 0.03, 0.02)
            for _, hypothesis in pairs
        ]


def test_sentence_entailment_clears_facts_only_the_verifier_failed() -> None:
    context = (
        "Mild headaches happen fairly often in the first week, and they go away without "
        "treatment. Serious reactions are rare."
    )
    answer = FragmentVerifier.sentence
    verifier = FragmentVerifier()
    off = Detector(verifier, extractor="rules").detect(answer=answer, context=context)
    assert [s.label for s in off.sentences] == ["contradicted"]
    assert [s.text for s in off.spans] == ["treatment"]
    # off, the sentence is never judged whole: it has facts
    assert answer not in [h for batch in verifier.calls for _, h in batch]
    detector = Detector(FragmentVerifier(), extractor="rules", sentence_entailment=0.7)
    report = detector.detect(answer=answer, context=context)
    assert [s.label for s in report.sentences] == ["supported"] and report.spans == []
    # only a sentence with a fact the verifier alone failed is judged whole: a supported
    # answer costs not one NLI pair more
    plain, vouching = FragmentVerifier(), FragmentVerifier()
    for verifier, option in ((plain, None), (vouching, 0.7)):
        Detector(verifier, extractor="rules", sentence_entailment=option).detect(
            answer="Mild headaches happen in the first week.", context=context
        )
    assert vouching.calls == plain.calls and plain.calls
    cleared = [f for f in report.facts if f.decided_by == "sentence"]
    assert cleared and all(f.label == "supported" for f in cleared)
    assert all("without" in f.hypothesis for f in cleared)
    assert {f.fact.id for f in cleared} == {f.fact.id for f in off.facts if f.label != "supported"}
    assert detector.config()["sentence_entailment"] == 0.7


def test_query_windows_ask_each_fact_with_its_answer_sentence() -> None:
    from enoki_hd.verify.evidence import EvidenceSelector

    class Recording(EvidenceSelector):
        def verify(self, verifier, index, hypotheses, queries=None):  # type: ignore[override]
            self.asked = [*getattr(self, "asked", []), (list(hypotheses), queries)]
            return super().verify(verifier, index, hypotheses, queries)

    first = "Suede is an English rock band formed in Manchester in 1989."
    second = "Their debut album won the Mercury Music Prize in 1995."
    selector = Recording(query_windows="defer")
    detector = Detector(
        LexicalVerifier(), extractor="rules", selector=selector, sentence_backend="regex"
    )
    detector.detect(answer=FACT_ANSWER, context=FACT_CONTEXT)
    # refinements first (the two coarsest facts of sentence 0 inherit and are not asked)
    assert selector.asked == [
        (
            [
                "Suede is an English rock band.",
                "Suede formed in Manchester.",
                "Suede formed in 1989.",
                "Their debut album won Mercury Music Prize in 1995.",
            ],
            [first, first, first, second],
        ),
        (["Their debut album won Mercury Music Prize."], [second]),
    ]
    off = Recording()
    Detector(LexicalVerifier(), extractor="rules", selector=off, sentence_backend="regex").detect(
        answer=FACT_ANSWER, context=FACT_CONTEXT
    )
    assert [queries for _, queries in off.asked] == [None, None]
