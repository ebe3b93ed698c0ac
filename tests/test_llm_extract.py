"""The llm extractor against a real local server: exact facts and offsets, chains, ambiguous
and unanchorable triples kept with a reason, malformed lines counted, concurrency, the
registry, the detector, and pre-extracted facts read from a file."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("openai")

from fakes import LexicalVerifier
from llm_server import ScriptedLLM, Step, ctrl_c_during_the_first_request, lines

from enoki_hd.extract import get_extractor
from enoki_hd.extract.llm import LLMExtractor
from enoki_hd.llm import LLMError
from enoki_hd.types import Span

ANSWER = "Suede was formed in London in 1989. The band played in London and sold records in London."
FIRST, SECOND = Span(0, 35), Span(36, len(ANSWER))


def texts(answer: str, spans: list[Span]) -> list[str]:
    return [s.text(answer) for s in spans]


def scripted(llm: ScriptedLLM) -> ScriptedLLM:
    return llm.route(
        "Sentence: Suede was formed",
        "```json\n"
        + lines(
            ("Suede", "was formed", "in London"),
            ("Suede", "was formed", "in London in 1989"),
            ("Suede", "was formed", "in London"),  # repeated
        )
        + '\n{"subject": "Suede", "relation":\n```',
    ).route(
        "Sentence: The band played",
        lines(
            ("The band", "played in", "London"),  # London occurs twice: ambiguous
            ("The band", "sold", "records"),
            ("Blur", "sold", "records"),  # not in the sentence
        ),
    )


def extractor(url: str, **options) -> LLMExtractor:
    return LLMExtractor("m", url, api_key="k", max_retries=2, backoff=0.01, **options)


def test_facts_offsets_chains_and_reasons() -> None:
    with scripted(ScriptedLLM()) as llm:
        llm_extractor = extractor(llm.url)
        facts = llm_extractor.extract(ANSWER, sentences=[FIRST, SECOND])
        assert len(llm.requests) == 2
    by_id = {f.id: f for f in facts}
    assert list(by_id) == ["f0.0", "f0.1", "f1.0", "f1.1", "f1.2"]
    core, refined = by_id["f0.0"], by_id["f0.1"]
    assert (core.subject_spans, core.relation_spans, core.object_spans) == (
        [Span(0, 5)],
        [Span(6, 16)],
        [Span(17, 26)],
    )
    assert texts(ANSWER, core.object_spans) == ["in London"]
    assert (core.parent, core.delta, core.source, core.confidence) == (
        None,
        [Span(17, 26)],
        "llm",
        None,
    )
    assert refined.parent == "f0.0"
    assert texts(ANSWER, refined.object_spans) == ["in London in 1989"]
    assert texts(ANSWER, refined.delta) == ["in 1989"]
    ambiguous, sold, absent = by_id["f1.0"], by_id["f1.1"], by_id["f1.2"]
    assert ambiguous.source == "llm:ambiguous_object"
    assert ambiguous.subject_spans == ambiguous.object_spans == ambiguous.delta == []
    assert (ambiguous.subject, ambiguous.relation, ambiguous.object) == (
        "The band",
        "played in",
        "London",
    )
    assert texts(ANSWER, sold.subject_spans + sold.relation_spans + sold.object_spans) == [
        "The band",
        "sold",
        "records",
    ]
    assert sold.subject_spans == [Span(36, 44)] and sold.source == "llm"
    assert absent.source == "llm:subject_unaligned" and absent.sentence == 1
    assert llm_extractor.stats == {
        "triples": 6,
        "anchored": 3,
        "duplicate": 1,
        "ambiguous_object": 1,
        "subject_unaligned": 1,
        "malformed_lines": 1,
        "prose_lines": 0,
    }
    assert llm_extractor.usage.requests == 2 and llm_extractor.usage.prompt_tokens == 200


def test_an_ambiguous_relation_keeps_subject_and_object() -> None:
    answer = "Ann was born in Rome and was raised in Paris."
    with ScriptedLLM(Step(lines(("Ann", "was", "raised in Paris")))) as llm:
        (fact,) = extractor(llm.url).extract(answer, sentences=[Span(0, len(answer))])
    assert fact.source == "llm:ambiguous_relation"
    assert texts(answer, fact.subject_spans) == ["Ann"] and fact.relation_spans == []
    assert texts(answer, fact.object_spans) == ["raised in Paris"]


def test_sentences_are_requested_concurrently() -> None:
    sentences = [f"Fact number {i} is true." for i in range(6)]
    answer = " ".join(sentences)
    spans, start = [], 0
    for s in sentences:
        spans.append(Span(start, start + len(s)))
        start += len(s) + 1
    active = {"now": 0, "max": 0}
    lock = threading.Lock()

    def reply(message: str) -> Step:
        with lock:
            active["now"] += 1
            active["max"] = max(active["max"], active["now"])
        threading.Event().wait(0.2)
        with lock:
            active["now"] -= 1
        n = message.split("Fact number ")[-1].split()[0]
        return Step(lines((f"Fact number {n}", "is", "true")))

    with ScriptedLLM(reply) as llm:
        facts = extractor(llm.url, workers=6).extract(answer, sentences=spans)
    assert active["max"] >= 3
    assert [f.sentence for f in facts] == list(range(6))
    assert [texts(answer, f.subject_spans) for f in facts] == [
        [f"Fact number {i}"] for i in range(6)
    ]


def test_a_failed_sentence_is_an_error_not_an_empty_answer() -> None:
    with ScriptedLLM() as llm:
        scripted(llm).route("Sentence: The band", Step(status=500))
        llm.routes.reverse()  # the failing route first
        with pytest.raises(LLMError, match="HTTP 500"):
            extractor(llm.url).extract(ANSWER, sentences=[FIRST, SECOND])


def test_ctrl_c_sends_none_of_the_answers_queued_requests() -> None:
    sentences = [f"Fact number {i} is true." for i in range(4)]
    answer = " ".join(sentences)
    spans = [Span(answer.index(s), answer.index(s) + len(s)) for s in sentences]
    with ScriptedLLM(ctrl_c_during_the_first_request()) as llm:
        llm_extractor = extractor(llm.url, workers=1)
        with pytest.raises(KeyboardInterrupt):
            llm_extractor.extract(answer, sentences=spans)
        time.sleep(2.5)  # the request in flight ends; the three queued ones must not follow
        assert len(llm.requests) == 1
        llm_extractor.close()


ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("command", "node", "overrides"),
    [
        (["-m", "enoki_hd.cli", "eval"], "extractor", ["extractor=llm"]),
        (["scripts/eval.py"], "judge", ["detector.verification=llm", "judge=llm"]),
    ],
)
def test_ctrl_c_in_eval_ends_at_once_and_keeps_the_finished_examples(
    tmp_path: Path, command: list[str], node: str, overrides: list[str]
) -> None:
    """The interrupted eval waited at exit (the judge: before its interrupt line) for the
    requests in flight, timeout x (max_retries + 1)."""

    def reply(message: str) -> Step:
        if "Hamlet" in message:  # the second example: hangs
            return Step("", delay=30.0)
        if "Sentence: " in message:
            return Step(lines(("The Eiffel Tower", "is in", "Rome")))
        return Step('{"label": "unverifiable", "evidence": ""}')

    rows = (ROOT / "tests/fixtures/benchmarks/mushroom.jsonl").read_text().splitlines()
    second = json.loads(rows[1])  # two sentences: the judge sends their facts concurrently
    second["model_output_text"] += " Hamlet is a tragedy."
    bench = tmp_path / "bench.jsonl"
    bench.write_text(rows[0] + "\n" + json.dumps(second) + "\n")
    with ScriptedLLM(reply) as llm:
        args = [
            "benchmark=file",
            f"benchmark.path={bench}",
            "benchmark.format=mushroom",
            "methods=[detector]",
            f"paths.root_dir={tmp_path}",
            "progress=false",
            *overrides,
            f"{node}.model=m",
            f"{node}.base_url={llm.url}",
            f"{node}.timeout=30",
            f"{node}.max_retries=1",
        ]
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "OPENAI_API_KEY": "k"}
        process = subprocess.Popen(
            [sys.executable, *command, *args], cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True
        )
        deadline = time.monotonic() + 120
        while llm.count("Hamlet") == 0 and time.monotonic() < deadline:
            assert process.poll() is None, process.communicate()[1]
            time.sleep(0.05)
        time.sleep(0.3)
        process.send_signal(signal.SIGINT)
        interrupted = time.monotonic()
        _, stderr = process.communicate(timeout=120)
        took = time.monotonic() - interrupted
    assert process.returncode == 130, stderr
    assert stderr.endswith("interrupted (rerun the same command to resume)\n")
    assert took < 10, f"the exit waited {took:.1f} s for the requests in flight"
    # the first example was finished before Ctrl-C: it is in the prediction cache
    assert len(list((tmp_path / ".cache/enoki/eval/detector").rglob("*.json"))) == 1


def test_registry_flat_prompt_config_and_missing_model() -> None:
    with ScriptedLLM(Step(lines(("Suede", "was formed in", "1989")))) as llm:
        flat = get_extractor("llm", model="m", base_url=llm.url, prompt="flat", api_key="k")
        flat.extract("Suede was formed in 1989.")
        assert "each as complete as the sentence" in llm.requests[0]["messages"][1]["content"]
        config = flat.config()
        assert config["name"] == "llm" and config["prompt"] == "flat"
        assert get_extractor(**config, api_key="k").config() == config
        with pytest.raises(ValueError, match="prompt_sha256"):
            get_extractor(**{**config, "prompt_sha256": "0" * 64}, api_key="k")
    with pytest.raises(ValueError, match="needs model="):
        get_extractor("llm")


def test_detector_with_the_llm_extractor() -> None:
    from enoki_hd.detector import Detector

    context = "Suede was formed in London in 1992."
    with scripted(ScriptedLLM()) as llm:
        detector = Detector(
            LexicalVerifier(), extractor=extractor(llm.url), sentence_backend="regex"
        )
        report = detector.detect(answer="Suede was formed in London in 1989.", context=context)
    labels = {v.fact.id: v.label for v in report.facts}
    assert labels["f0.0"] == "supported"
    assert labels["f0.1"] != "supported"
    assert [s.text for s in report.spans] == ["1989"]
    assert report.config["extractor"]["name"] == "llm"


def test_preextracted_path_reads_teacher_records_and_triples(tmp_path: Path) -> None:
    from enoki_hd.extract.llm import anchor_triples

    first = "Intro here. Suede was formed in London in 1989."
    facts, _ = anchor_triples(
        first,
        Span(12, len(first)),
        1,
        [
            {"subject": "Suede", "relation": "was formed", "object": "in London"},
            {"subject": "Suede", "relation": "was formed", "object": "in London in 1989"},
        ],
    )
    second = "Paris is the capital of France."
    path = tmp_path / "facts.jsonl"
    path.write_text(
        json.dumps({"text": first, "facts": [f.to_dict() for f in facts]})
        + "\n"
        + json.dumps(
            {
                "text": second,
                "triples": [
                    {"subject": "Paris", "relation": "is", "object": "the capital of France"}
                ],
            }
        )
        + "\n"
    )
    pre = get_extractor("preextracted", path=str(path))
    # the detector's segmentation files the facts under its own sentences
    got = pre.extract(first, sentences=[Span(0, len(first))])
    assert [(f.id, f.parent, f.sentence) for f in got] == [
        ("f0.0", None, 0),
        ("f0.1", "f0.0", 0),
    ]
    assert got[1].delta == facts[1].delta and texts(first, got[1].delta) == ["in 1989"]
    (paris,) = pre.extract(second)
    assert texts(second, paris.object_spans) == ["the capital of France"]
    assert pre.extract("unknown answer") == []
    config = pre.config()
    assert config["sha256"] and get_extractor(**config).config() == config
    path.write_text(json.dumps({"text": second, "triples": []}) + "\n")
    with pytest.raises(ValueError, match="sha256: the config was written for a file"):
        get_extractor(**config)
    path.write_text('{"text": "x"}\n')
    with pytest.raises(
        ValueError, match=re.escape("facts.jsonl:1: a record needs a 'facts' or a 'triples'")
    ):
        get_extractor("preextracted", path=str(path))


def test_preextracted_warns_once_for_answers_its_file_does_not_hold(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A file of other answers made every answer `no_facts` without a word."""
    path = tmp_path / "facts.jsonl"
    triple = {"subject": "Paris", "relation": "is", "object": "the capital of France"}
    path.write_text(json.dumps({"text": "Paris is the capital.", "triples": [triple]}) + "\n")
    pre = get_extractor("preextracted", path=str(path))
    with caplog.at_level("DEBUG", logger="enoki_hd.extract.preextracted"):
        assert pre.extract("Lyon is big.") == []
        assert pre.extract("Nice is small.") == []
    warnings = [r for r in caplog.records if r.levelname == "WARNING"]
    assert [r.getMessage() for r in warnings] == [
        f"no pre-extracted triples for an answer in {path} (1 so far): it gets no facts and "
        "its sentences are judged whole"
    ]
    assert pre.missing == 2
