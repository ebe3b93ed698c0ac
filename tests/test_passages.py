"""A context given as a list of passages (retrieved documents): joined by a blank line, no
evidence window or sentence pair spans two passages, each evidence names its passage — in the
Python API, JSON reports, Markdown, detect-batch rows and the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from detector_fakes import lexical_detector
from test_cli import lexical_verifier, run_cli  # noqa: F401  (a fixture)
from test_evidence import WordVerifier

from enoki_hd.batch import validate_example
from enoki_hd.report import render
from enoki_hd.text import join_passages
from enoki_hd.types import Evidence, Report, Span
from enoki_hd.verify.evidence import EvidenceIndex, EvidenceSelector, _cut_at_passages

PASSAGES = ["Suede is a rock band.", "The band formed in London."]
ANSWER = "Suede formed in London."


def test_join_passages_offsets_and_errors() -> None:
    text, spans = join_passages(["ab", "", "cde"])
    assert text == "ab\n\n\n\ncde"
    assert spans == [Span(0, 2), Span(4, 4), Span(6, 9)]
    assert [text[s.start : s.end] for s in spans] == ["ab", "", "cde"]
    assert join_passages("one text") == ("one text", None)
    assert join_passages([]) == ("", [])
    with pytest.raises(TypeError, match=r"^context\[1\] must be str, got int$"):
        join_passages(["a", 3])
    with pytest.raises(TypeError, match=r"context\[0\] must be str, got bytes \(decode"):
        join_passages([b"a"])
    with pytest.raises(
        TypeError, match=r"^context must be str or a list of str \(passages\), got dict$"
    ):
        join_passages({"a": 1})


def test_a_sentence_over_a_passage_boundary_is_cut_there() -> None:
    context = "A b c\n\nD e."
    assert _cut_at_passages(context, [Span(0, 11)], [Span(0, 5), Span(7, 11)]) == [
        Span(0, 5),
        Span(7, 11),
    ]
    index = EvidenceIndex(context, sentences=[Span(0, 11)], passages=[Span(0, 5), Span(7, 11)])
    assert index.sentences == [Span(0, 5), Span(7, 11)]
    assert index.blocks == [(0, 0), (1, 1)]
    assert [index.passage_of(o) for o in (0, 4, 7, 10)] == [0, 0, 1, 1]
    assert EvidenceIndex(context, sentence_backend="regex").passage_of(7) is None


def test_a_long_sentence_is_cut_into_pieces_inside_its_passage() -> None:
    # a passage without a full stop is indexed in pieces; no piece crosses into the next
    # passage, and the passages' blocks hold their own pieces
    run_on = ", ".join(f"clause {i} about topic{i}" for i in range(12))
    context, passages = join_passages([run_on, "Beta one. Beta two."])
    assert passages is not None
    index = EvidenceIndex(
        context, sentence_backend="regex", passages=passages, max_sentence_chars=60
    )
    texts = index.sentence_texts()
    assert texts[-2:] == ["Beta one.", "Beta two."]
    assert all(len(t) <= 60 for t in texts) and len(texts) == 8
    assert all(p.end <= passages[0].end for p in index.sentences[:6])
    assert index.blocks == [(0, 5), (6, 7)]
    assert " ".join(texts[:6]) == run_on


def _passage_context(n: int = 12) -> tuple[str, list[Span]]:
    first = [f"Alpha sentence {i} mentions topic{i}." for i in range(n)]
    second = [f"Beta sentence {i} mentions other{i}." for i in range(n)]
    return join_passages([" ".join(first), " ".join(second)])  # type: ignore[return-value]


def test_retrieved_windows_stay_inside_their_passage() -> None:
    context, passages = _passage_context()
    joined = EvidenceIndex(context, sentence_backend="regex")
    split = EvidenceIndex(context, sentence_backend="regex", passages=passages)
    assert joined.sentences == split.sentences and len(split) == 24
    assert split.blocks == [(0, 11), (12, 23)]
    s = split.sentences
    selector = EvidenceSelector(top_k=2, neighbours=1, max_premise_tokens=200)
    # topic11 ends the first passage, other0 starts the second
    hypothesis = "topic11 other0"
    one_text = selector.windows(joined, hypothesis, verifier=WordVerifier())
    assert [(w.start, w.end) for w in one_text] == [(s[10].start, s[13].end)]
    by_passage = selector.windows(split, hypothesis, verifier=WordVerifier())
    assert [(w.start, w.end) for w in by_passage] == [
        (s[10].start, s[11].end),
        (s[12].start, s[13].end),
    ]
    # sentence pairs never join the two passages either
    pairs = EvidenceSelector(top_k=2, max_premise_tokens=200, premises=("pair",))
    premises = pairs.premise_list(split, hypothesis, verifier=WordVerifier())
    assert sorted((p.start, p.end) for p in premises) == [
        (s[10].start, s[11].end),
        (s[12].start, s[13].end),
    ]
    # nothing retrieved: the whole context, one passage after another
    fallback = selector.windows(split, "zebra", verifier=WordVerifier())
    assert [(w.start, w.end) for w in fallback] == [
        (s[0].start, s[11].end),
        (s[12].start, s[23].end),
    ]


def test_detector_judges_each_passage_apart_and_names_it() -> None:
    detector = lexical_detector()
    # one text: "formed in London" is read beside "Suede is a rock band" and entailed
    whole = detector.detect(answer=ANSWER, context="\n\n".join(PASSAGES))
    assert [(f.hypothesis, f.label) for f in whole.facts] == [(ANSWER, "supported")]
    assert whole.spans == []
    assert "passage" not in whole.facts[0].evidence.to_dict()
    # passages: no window holds both "Suede" and "formed in London"
    report = detector.detect(answer=ANSWER, context=PASSAGES)
    assert [(f.hypothesis, f.label) for f in report.facts] == [(ANSWER, "unverifiable")]
    assert [(s.start, s.end, s.text) for s in report.spans] == [(16, 22, "London")]
    evidence = report.facts[0].evidence
    assert (evidence.start, evidence.end, evidence.passage) == (0, 21, 0)
    assert evidence.text == PASSAGES[0]
    # JSON round trip keeps the passage; Markdown names it
    data = report.to_dict()
    assert data["facts"][0]["evidence"]["passage"] == 0
    assert Report.from_dict(json.loads(json.dumps(data))).to_dict() == data
    assert "context[0]: Suede is a rock band." in render(report, "md")
    assert "<b>context[0]:</b> Suede is a rock band." in render(report, "html")
    assert "context[" not in render(whole, "md") + render(whole, "html")
    assert Evidence.from_dict({"start": 0, "end": 1, "text": "a"}).passage is None
    # a tuple works like a list; a bad passage is named
    assert (
        detector.detect(answer=ANSWER, context=tuple(PASSAGES)).to_dict()["spans"] == data["spans"]
    )
    with pytest.raises(TypeError, match=r"context\[1\] must be str, got NoneType"):
        detector.detect(answer=ANSWER, context=["a", None])


def test_batch_rows_take_passages() -> None:
    example, error = validate_example({"answer": "a", "context": ["x", "y"]})
    assert error is None and example == {"answer": "a", "context": ["x", "y"], "question": None}
    assert validate_example({"answer": "a", "context": ["x", 2]}) == (
        None,
        {"field": "context[1]", "message": "must be a string, got int"},
    )
    assert validate_example({"answer": "a", "context": 2})[1] == {
        "field": "context",
        "message": "must be a string or a list of strings, got int",
    }


def test_cli_takes_context_several_times(tmp_path: Path, capsys, lexical_verifier) -> None:  # noqa: F811
    for i, text in enumerate(PASSAGES):
        (tmp_path / f"c{i}.txt").write_text(text, encoding="utf-8")
    (tmp_path / "a.txt").write_text(ANSWER, encoding="utf-8")
    args = ["detect", "--answer", str(tmp_path / "a.txt"), "--verifier", "fake", "--stable"]
    args += ["--context", str(tmp_path / "c0.txt"), "--context", str(tmp_path / "c1.txt")]
    code, out, _ = run_cli(args, capsys)
    report = json.loads(out)
    assert code == 0
    assert [(s["start"], s["end"], s["text"]) for s in report["spans"]] == [(16, 22, "London")]
    assert report["facts"][0]["evidence"]["passage"] == 0
    # one file: one document, as before
    one = ["detect", "--answer", str(tmp_path / "a.txt"), "--verifier", "fake", "--stable"]
    (tmp_path / "c.txt").write_text("\n\n".join(PASSAGES), encoding="utf-8")
    code, out, _ = run_cli([*one, "--context", str(tmp_path / "c.txt")], capsys)
    assert code == 0 and json.loads(out)["spans"] == []


def test_serve_takes_passages() -> None:
    pytest.importorskip("fastapi", reason="the serve extra is not installed (make install adds it)")
    from fastapi.testclient import TestClient

    from enoki_hd.serve import ServeSettings, create_app

    with TestClient(create_app(lexical_detector(), ServeSettings())) as client:
        response = client.post("/detect", json={"answer": ANSWER, "context": PASSAGES})
        assert response.status_code == 200
        body = response.json()
        assert [s["text"] for s in body["spans"]] == ["London"]
        assert body["facts"][0]["evidence"]["passage"] == 0
        bad = client.post("/detect", json={"answer": ANSWER, "context": ["a", 1]})
        assert bad.status_code == 422
        assert bad.json()["error"]["field"] == "context[1]"


def test_empty_passages() -> None:
    detector = lexical_detector()
    assert detector.detect(answer=ANSWER, context=[]).summary.status == "no_context"
    assert detector.detect(answer=ANSWER, context=["", " "]).summary.status == "no_context"
    report = detector.detect(answer=ANSWER, context=["", "Suede formed in London.", ""])
    assert [(f.label, f.evidence.passage) for f in report.facts] == [("supported", 1)]
    assert report.facts[0].evidence.start == 2  # after the first passage's blank line
