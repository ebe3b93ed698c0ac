"""JSON round trips of every data contract in enoki_hd.types, and Span validation."""

from __future__ import annotations

import json
from typing import Any

import pytest

from enoki_hd.types import (
    REPORT_SCHEMA_VERSION,
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


def json_round_trip(obj: Any) -> Any:
    """``obj.to_dict()`` through real JSON text and back with ``from_dict``."""
    return type(obj).from_dict(json.loads(json.dumps(obj.to_dict())))


def make_fact(**overrides: Any) -> Fact:
    values: dict[str, Any] = {
        "id": "f2",
        "sentence": 3,
        "subject": "The Eiffel Tower",
        "relation": "was completed in",
        "object": "1889",
        "subject_spans": [Span(0, 16)],
        "relation_spans": [Span(17, 20), Span(21, 30)],
        "object_spans": [Span(34, 38)],
        "parent": "f1",
        "delta": [Span(34, 38)],
        "confidence": 0.875,
        "source": "rules:svo",
        "negated": True,
        "modality": "possible",
    }
    values.update(overrides)
    return Fact(**values)


def make_fact_verdict() -> FactVerdict:
    return FactVerdict(
        fact=make_fact(),
        hypothesis="The Eiffel Tower was completed in 1889.",
        probs=NLIScores(entailment=0.125, neutral=0.25, contradiction=0.625),
        label="contradicted",
        evidence=Evidence(start=10, end=52, text="The tower was finished in 1887."),
        suppressed=True,
        decided_by="grounding",
    )


def make_sentence_verdict() -> SentenceVerdict:
    return SentenceVerdict(
        index=2,
        span=Span(30, 55),
        text="It was completed in 1889.",
        score=0.75,
        label="unverifiable",
        probs=NLIScores(0.1, 0.75, 0.15),
        evidence=Evidence(0, 12, "Some context"),
        method="max",
        facts=["f1", "f2"],
    )


def make_summary() -> Summary:
    return Summary(
        status="ok",
        faithfulness=0.5,
        counts={"supported": 1, "contradicted": 1, "unverifiable": 0},
        checked=2,
        hallucinated=True,
        intrinsic=1,
        extrinsic=2,
    )


def make_report() -> Report:
    return Report(
        answer="The Eiffel Tower is in Paris. It was completed in 1889.",
        sentences=[make_sentence_verdict()],
        facts=[make_fact_verdict()],
        spans=[
            HallucinatedSpan(
                start=50, end=54, text="1889", score=0.625, facts=["f2"], label="contradicted"
            )
        ],
        summary=make_summary(),
        timings={"segment": 0.001234, "verify": 1.5},
        question="When was the Eiffel Tower completed?",
        config={"extractor": "rules", "threshold": 0.5, "windows": [1, 2]},
    )


@pytest.mark.parametrize(
    "obj",
    [
        Span(3, 9),
        Span(4, 4),
        make_fact(),
        make_fact(parent=None, confidence=None, modality=None, delta=[], subject_spans=[]),
        Evidence(start=5, end=17, text="Paris is big."),
        Evidence(0, 24, "Paris is big. It is old.", EvidenceFocus(14, 24, "It is old.")),
        EvidenceFocus(14, 24, "It is old."),
        NLIScores(entailment=0.7, neutral=0.2, contradiction=0.1),
        make_fact_verdict(),
        FactVerdict(
            fact=make_fact(),
            hypothesis="h",
            probs=NLIScores(0.9, 0.05, 0.05),
            label="supported",
        ),
        make_sentence_verdict(),
        SentenceVerdict(index=0, span=Span(0, 5), text="Hello", score=0.0, label="supported"),
        HallucinatedSpan(
            start=1, end=8, text="1889 by", score=0.9, facts=["f3"], label="contradicted"
        ),
        make_summary(),
        Summary(status="no_facts", faithfulness=None, counts={}, checked=0, hallucinated=False),
        make_report(),
    ],
    ids=lambda obj: type(obj).__name__,
)
def test_json_round_trip_is_lossless(obj: Any) -> None:
    assert json_round_trip(obj) == obj


def test_every_dataclass_is_covered_by_a_round_trip() -> None:
    import dataclasses

    import enoki_hd.types as types_module

    dataclass_names = {
        name
        for name, value in vars(types_module).items()
        if isinstance(value, type) and dataclasses.is_dataclass(value)
    }
    assert dataclass_names == {
        "Span",
        "Fact",
        "Evidence",
        "EvidenceFocus",
        "NLIScores",
        "FactVerdict",
        "SentenceVerdict",
        "HallucinatedSpan",
        "Summary",
        "Report",
    }


def test_report_to_dict_has_schema_version_and_derived_fields() -> None:
    d = make_report().to_dict()
    assert d["schema_version"] == REPORT_SCHEMA_VERSION
    assert d["facts"][0]["hall_prob"] == pytest.approx(0.875)
    assert d["spans"][0] == {
        "start": 50,
        "end": 54,
        "text": "1889",
        "score": 0.625,
        "facts": ["f2"],
        "label": "contradicted",
    }
    assert json.loads(json.dumps(d)) == d


def test_report_timings_are_rounded_to_microseconds() -> None:
    report = make_report()
    report.timings = {"verify": 0.123456789}
    assert report.to_dict()["timings"] == {"verify": 0.123457}


def test_span_from_dict_accepts_pairs() -> None:
    assert Span.from_dict([2, 5]) == Span(2, 5)
    assert Span.from_dict((2, 5)) == Span(2, 5)
    assert Span.from_dict({"start": 2, "end": 5}) == Span(2, 5)


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        ({"start": 2.5, "end": 5}, TypeError, "Span start must be a whole number, got float 2.5"),
        ([True, 5], TypeError, "Span start must be a whole number, got bool True"),
        ({"start": 2, "end": "5"}, TypeError, "Span end must be a whole number, got str '5'"),
        ({"start": None, "end": 5}, TypeError, "Span start must be a whole number, got NoneType"),
        ([2, 5, 9], ValueError, r"a Span pair is \[start, end\], got \[2, 5, 9\]"),
    ],
)
def test_span_from_dict_refuses_offsets_it_would_truncate(
    value: Any, error: type[Exception], message: str
) -> None:
    """``int()`` read 2.5 as 2, true as 1 and [2, 5, 9] as [2, 5]: a span over other
    characters than the data meant, without a word. 5.0 (a JSON writer's 5) is still 5."""
    with pytest.raises(error, match=message):
        Span.from_dict(value)
    assert Span.from_dict({"start": 2.0, "end": 5.0}) == Span(2, 5)


def test_span_helpers() -> None:
    text = "Paris is big."
    span = Span(0, 5)
    assert len(span) == 5
    assert span.text(text) == "Paris"
    assert span.overlaps(Span(4, 8))
    assert not span.overlaps(Span(5, 8))  # half-open: touching is not overlapping
    assert sorted([Span(3, 4), Span(0, 9), Span(0, 2)]) == [Span(0, 2), Span(0, 9), Span(3, 4)]


@pytest.mark.parametrize(
    ("start", "end", "error", "message"),
    [
        (-1, 3, ValueError, "0 <= start <= end"),
        (5, 4, ValueError, "0 <= start <= end"),
        (1.0, 3, TypeError, "must be int"),
        (1, "3", TypeError, "must be int"),
        (None, 3, TypeError, "must be int"),
    ],
)
def test_span_validation(start: Any, end: Any, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        Span(start, end)


def test_nli_scores_label_and_hall_prob() -> None:
    scores = NLIScores(entailment=0.2, neutral=0.3, contradiction=0.5)
    assert scores.label() == "contradiction"
    assert scores.hall_prob == pytest.approx(0.8)
    assert NLIScores(0.6, 0.3, 0.1).label() == "entailment"


def test_evidence_from_none_is_none() -> None:
    assert Evidence.from_dict(None) is None


def test_evidence_focus_round_trips_and_old_dicts_still_load() -> None:
    evidence = Evidence(3, 27, "Paris is big. It is old.", EvidenceFocus(17, 27, "It is old."))
    assert evidence.to_dict() == {
        "start": 3,
        "end": 27,
        "text": "Paris is big. It is old.",
        "focus": {"start": 17, "end": 27, "text": "It is old."},
    }
    assert Evidence.from_dict(json.loads(json.dumps(evidence.to_dict()))) == evidence
    # Reports written before the focus existed have no "focus" key.
    assert Evidence.from_dict({"start": 0, "end": 5, "text": "Paris"}) == Evidence(0, 5, "Paris")
    assert Evidence(0, 5, "Paris").to_dict()["focus"] is None


def test_a_report_on_an_empty_context_is_not_checked() -> None:
    """Status no_context: every unit unverifiable, faithfulness 0.0, but nothing was checked
    against anything, so a gate on Report.checked must fail closed."""
    summary = Summary("no_context", 0.0, {"unverifiable": 1}, 1, True, extrinsic=1)
    assert Report("Paris is in France.", [], [], [], summary).checked is False
    ok = Summary("ok", 0.0, {"unverifiable": 1}, 1, True, extrinsic=1)
    assert Report("Paris is in France.", [], [], [], ok).checked is True


@pytest.mark.parametrize(
    ("read", "message"),
    [
        (
            lambda: Summary.from_dict({**make_summary().to_dict(), "hallucinated": "false"}),
            "summary['hallucinated'] must be a boolean (true or false), got string 'false'",
        ),
        (
            lambda: Fact.from_dict({**make_fact().to_dict(), "negated": "false"}),
            "fact['negated'] must be a boolean (true or false), got string 'false'",
        ),
        (
            lambda: Fact.from_dict({**make_fact().to_dict(), "negated": 0}),
            "fact['negated'] must be a boolean (true or false), got integer 0",
        ),
        (
            lambda: FactVerdict.from_dict({**make_fact_verdict().to_dict(), "suppressed": "no"}),
            "fact_verdict['suppressed'] must be a boolean (true or false), got string 'no'",
        ),
        (
            lambda: Report.from_dict(
                {
                    **make_report().to_dict(),
                    "summary": {**make_summary().to_dict(), "hallucinated": 1},
                }
            ),
            "report['summary']['hallucinated'] must be a boolean (true or false), got integer 1",
        ),
    ],
)
def test_a_bool_field_must_be_a_json_boolean(read: Any, message: str) -> None:
    """``bool()`` read the string "false" (and 0, "no") as a flag: a hallucinated answer read
    back as clean, or the other way round. The field is named instead."""
    with pytest.raises(ValueError) as caught:
        read()
    assert str(caught.value) == message


def test_a_bool_field_may_be_left_out_and_hallucinated_may_be_null() -> None:
    fact = make_fact().to_dict()
    del fact["negated"]
    assert Fact.from_dict(fact).negated is False
    summary = {**make_summary().to_dict(), "hallucinated": None}
    assert Summary.from_dict(summary).hallucinated is None


def _report_dict_with(change: Any) -> dict[str, Any]:
    """``make_report()``'s dict as JSON reads it, after ``change(d)`` edits it in place."""
    d = json.loads(json.dumps(make_report().to_dict()))
    change(d)
    return d


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(timings=None), "report['timings'] must be an object, got null"),
        (lambda d: d.update(config=None), "report['config'] must be an object, got null"),
        (lambda d: d.update(sentences=None), "report['sentences'] must be a list, got null"),
        (lambda d: d.update(answer=7), "report['answer'] must be a string, got integer 7"),
        (
            lambda d: d["facts"][0].pop("label"),
            "report['facts'][0]['label'] is missing; expected a string",
        ),
        (
            lambda d: d["facts"][0]["fact"].update(sentence="3"),
            "report['facts'][0]['fact']['sentence'] must be a whole number, got string '3'",
        ),
        (
            lambda d: d["summary"]["counts"].update(supported=1.5),
            "report['summary']['counts']['supported'] must be a whole number, got number 1.5",
        ),
        (
            lambda d: d["sentences"][0].update(span="30:55"),
            "report['sentences'][0]['span'] must be a span {start, end}, got string '30:55'",
        ),
        (
            lambda d: d["facts"][0].update(label="false"),
            "report['facts'][0]['label'] must be one of supported, contradicted, unverifiable; "
            "got 'false'",
        ),
        (
            lambda d: d["sentences"][0].update(label="hallucinated"),
            "report['sentences'][0]['label'] must be one of supported, contradicted, "
            "unverifiable, unsupported_language, not_a_claim; got 'hallucinated'",
        ),
        (
            lambda d: d["spans"][0].update(label="supported!"),
            "report['spans'][0]['label'] must be one of supported, contradicted, unverifiable; "
            "got 'supported!'",
        ),
        (
            lambda d: d["sentences"][0].update(span={"start": 30, "end": 56}),
            "report['sentences'][0]['span'] is [30, 56), past the end of the answer "
            "(55 characters); spans are character offsets into the answer",
        ),
        (
            lambda d: d["facts"][0]["fact"].update(object_spans=[[50, 60]]),
            "report['facts'][0]['fact']['object_spans'][0] is [50, 60), past the end of the "
            "answer (55 characters); spans are character offsets into the answer",
        ),
        (
            lambda d: d["spans"][0].update(end=99),
            "report['spans'][0] is [50, 99), past the end of the answer (55 characters); "
            "spans are character offsets into the answer",
        ),
        (
            lambda d: d.pop("schema_version"),
            "report['schema_version'] is missing; expected a string",
        ),
        (
            lambda d: d.update(schema_version="1.5"),
            f"report['schema_version'] is '1.5', newer than the {REPORT_SCHEMA_VERSION} this "
            "enoki-hd reads and writes; upgrade enoki-hd (pip install -U enoki-hd) to read this "
            "report",
        ),
        (
            lambda d: d.update(schema_version="2.0"),
            f"report['schema_version'] is '2.0', newer than the {REPORT_SCHEMA_VERSION} this "
            "enoki-hd reads and writes; upgrade enoki-hd (pip install -U enoki-hd) to read this "
            "report",
        ),
        (
            lambda d: d.update(schema_version="v1"),
            "report['schema_version'] is 'v1', no schema version enoki-hd has written; "
            f"this enoki-hd reads 1.0 to {REPORT_SCHEMA_VERSION}",
        ),
    ],
)
def test_report_from_dict_names_the_field_it_cannot_read(change: Any, message: str) -> None:
    """Was an AttributeError/TypeError with no field named (null timings, config or
    sentences), or read without a word (unknown labels, spans past the answer, a report of a
    newer schema)."""
    with pytest.raises(ValueError) as caught:
        Report.from_dict(_report_dict_with(change))
    assert str(caught.value) == message


def test_report_from_dict_wants_a_dict_not_json_text() -> None:
    text = json.dumps(make_report().to_dict())
    with pytest.raises(TypeError) as caught:
        Report.from_dict(text)  # type: ignore[arg-type]
    assert str(caught.value) == (
        "Report.from_dict expects a dict (as Report.to_dict() writes it), got str; "
        "parse JSON text with json.loads first"
    )


def test_report_from_dict_reads_a_report_of_schema_1_0() -> None:
    """What 1.0 wrote, before fact scores, blame, splits, checkworthiness and evidence focus
    existed: the fields added since read as their defaults."""

    def as_1_0(d: dict[str, Any]) -> None:
        d["schema_version"] = "1.0"
        for key in ("score", "blamed", "suppressed_by", "split"):
            del d["facts"][0][key]
        for key in ("checkworthy", "reason", "split"):
            del d["sentences"][0][key]
        for key in ("intrinsic", "extrinsic", "unchecked", "not_a_claim"):
            del d["summary"][key]
        del d["facts"][0]["evidence"]["focus"]

    report = Report.from_dict(_report_dict_with(as_1_0))
    assert report.facts[0].score == report.facts[0].hall_prob
    assert report.facts[0].blamed is None and report.sentences[0].split == []
    assert report.summary.not_a_claim == 0 and report.sentences[0].checkworthy
