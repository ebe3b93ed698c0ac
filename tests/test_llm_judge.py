"""verification=llm and verification=adaptive: the LLM judge against a real local server
(structured answers, quotes checked against the context), the routing rule escalating exactly
the facts it selects, a second NLI model and the oracle as judges, and the escalation share
in make eval."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

import pytest

pytest.importorskip("openai")

from fakes import ConstantVerifier, LexicalVerifier
from llm_server import ScriptedLLM, Step

from enoki_hd.detector import Detector
from enoki_hd.extract.preextracted import PreextractedExtractor
from enoki_hd.llm import LLMError
from enoki_hd.types import NLIScores, Report, Span
from enoki_hd.verify.llm_judge import LLMJudge, locate_quote
from enoki_hd.verify.routing import NLIJudge, OracleJudge, RoutingPolicy

CONTEXT = (
    "The Eiffel Tower is a wrought-iron tower in Paris. It was designed by the company of "
    "Gustave Eiffel and opened in 1889. Visitors climb 674 steps to the second floor."
)
ANSWER = (
    "The Eiffel Tower is in Paris. The tower opened in 1889. It has 3 elevators. "
    "It is made of iron. It was designed by Gustave Eiffel. The tower opened in 1890."
)
TRIPLES = [
    {"subject": "The Eiffel Tower", "relation": "is in", "object": "Paris"},  # f0.0
    {"subject": "The tower", "relation": "opened in", "object": "1889"},  # f1.0
    {"subject": "It", "relation": "has", "object": "3 elevators"},  # f2.0
    {"subject": "It", "relation": "is made of", "object": "iron"},  # f3.0
    {"subject": "It", "relation": "was designed by", "object": "Gustave Eiffel"},  # f4.0
    {"subject": "The tower", "relation": "opened in", "object": "1890"},  # f5.0
]
# NLI probabilities per fact hypothesis (entailment, neutral, contradiction)
PROBS = {
    "Eiffel Tower is in Paris": (0.95, 0.03, 0.02),  # margin 0.90: certain, not escalated
    "opened in 1889": (0.80, 0.15, 0.05),  # margin 0.60, a date: escalated (risky)
    "has 3 elevators": (0.20, 0.70, 0.10),  # margin 0.60, a number: escalated (risky)
    "made of iron": (0.20, 0.70, 0.10),  # margin 0.60, nothing risky: not escalated
    "designed by Gustave Eiffel": (0.85, 0.10, 0.05),  # margin 0.70, an entity: escalated
    "opened in 1890": (0.55, 0.40, 0.05),  # margin 0.10 but a value conflict: not escalated
}
EXPECTED = {"f1.0": ["date"], "f2.0": ["number"], "f4.0": ["entity"]}


class ScriptedVerifier(LexicalVerifier):
    """The probabilities of :data:`PROBS` for the facts; whole sentences are entailed."""

    name = "scripted-fake"

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[NLIScores]:
        self.calls.append(list(pairs))
        out = []
        for _, hypothesis in pairs:
            probs = next((p for key, p in PROBS.items() if key in hypothesis), (0.9, 0.05, 0.05))
            out.append(NLIScores(*probs))
        return out


class RecordingJudge:
    """Says ``label`` to every fact it is asked about and remembers which."""

    name = "recording"

    def __init__(self, label: str = "unverifiable") -> None:
        self.label = label
        self.asked: list[str] = []

    def config(self) -> dict:
        return {"name": self.name}

    def judge_many(self, answer, context, verdicts, **_):
        from enoki_hd.verify.llm_judge import LABEL_SCORES, JudgeAnswer

        self.asked += [v.fact.id for v in verdicts]
        return [JudgeAnswer(self.label, LABEL_SCORES[self.label], self.name) for _ in verdicts]


def detector(verification: str, judge, **options) -> Detector:
    return Detector(
        ScriptedVerifier(),
        extractor=PreextractedExtractor({ANSWER: TRIPLES}),
        sentence_backend="regex",
        verification=verification,
        judge=judge,
        **options,
    )


def test_adaptive_escalates_exactly_the_facts_its_rule_selects() -> None:
    judge = RecordingJudge()
    report = detector("adaptive", judge).detect(answer=ANSWER, context=CONTEXT)
    verdicts = {v.fact.id: v for v in report.facts}
    assert list(verdicts) == [f"f{i}.0" for i in range(6)]
    assert verdicts["f5.0"].decided_by == "value_conflict"
    assert judge.asked == list(EXPECTED)
    escalated = {i: v.escalation["reasons"] for i, v in verdicts.items() if v.escalation}
    assert escalated == EXPECTED
    steps = verdicts["f2.0"].escalation
    assert steps["margin"] == pytest.approx(0.6) and steps["judge"] == "recording"
    assert steps["before"]["label"] == "unverifiable" and steps["applied"] is True
    # the judge's answer replaced the verdicts it was asked about, and only those
    assert verdicts["f1.0"].label == "unverifiable" and verdicts["f1.0"].decided_by == "recording"
    assert verdicts["f0.0"].label == "supported" and verdicts["f0.0"].escalation is None
    # the record survives the report's JSON round trip
    again = Report.from_dict(report.to_dict())
    assert again.facts[2].escalation == steps
    assert report.config["verification"] == "adaptive"
    assert report.config["routing"] == RoutingPolicy().config()


def test_thresholds_and_risk_kinds_come_from_the_config() -> None:
    judge = RecordingJudge()
    strict = {"max_margin": 0.65, "risky_margin": 0.0, "entities": False}
    detector("adaptive", judge, routing=strict).detect(answer=ANSWER, context=CONTEXT)
    # only the uncertain ones now: margins 0.60 (f1.0, f2.0, f3.0); f5.0 is a value conflict
    assert judge.asked == ["f1.0", "f2.0", "f3.0"]
    judge = RecordingJudge()
    detector("adaptive", judge, routing={"values": False}).detect(answer=ANSWER, context=CONTEXT)
    assert judge.asked == ["f4.0"]
    with pytest.raises(ValueError, match=re.escape("unknown routing option(s) routing.margin")):
        detector("adaptive", judge, routing={"margin": 0.2})
    with pytest.raises(ValueError, match=re.escape("routing.max_margin must be in [0, 1]")):
        detector("adaptive", judge, routing={"max_margin": 2})
    with pytest.raises(ValueError, match="needs a judge to escalate to: judge=llm"):
        detector("adaptive", None)


def test_llm_mode_sends_every_fact_to_the_judge() -> None:
    judge = RecordingJudge("supported")
    report = detector("llm", judge).detect(answer=ANSWER, context=CONTEXT)
    assert judge.asked == [f"f{i}.0" for i in range(6)]
    assert all(v.escalation["reasons"] == ["all"] for v in report.facts)
    assert all(v.label == "supported" for v in report.facts)
    assert report.spans == []


def test_the_llm_judge_checks_its_quote_against_the_context() -> None:
    with ScriptedLLM() as llm:
        llm.route(
            "Claim: The tower opened in 1889",
            '```json\n{"label": "supported", "evidence": "opened in 1889"}\n```',
        )
        llm.route(
            # the judge reads the answer's "It" as the tower it stands for (restate_pronouns)
            "Claim: The tower has 3 elevators",
            '{"label": "contradicted", "evidence": "Visitors climb 674  steps"}',
        )
        # the quote is not in the context: the answer is not trusted
        llm.route(
            "Claim: The tower was designed by Gustave Eiffel",
            '{"label": "supported", "evidence": "Eiffel himself designed every rivet"}',
        )
        judge = LLMJudge("m", llm.url, api_key="k", max_retries=0)
        report = detector("adaptive", judge).detect(answer=ANSWER, context=CONTEXT)
        assert len(llm.requests) == 3
        prompt = llm.requests[0]["messages"][1]["content"]
        assert "Passage:\n" in prompt and "Gustave Eiffel and opened in 1889" in prompt
    verdicts = {v.fact.id: v for v in report.facts}
    opened = verdicts["f1.0"].escalation["answer"]
    assert (verdicts["f1.0"].label, verdicts["f1.0"].decided_by) == ("supported", "llm")
    start = CONTEXT.index("opened in 1889")
    assert opened["quote_span"] == {"start": start, "end": start + len("opened in 1889")}
    assert opened["quote_found"] is True
    steps = verdicts["f2.0"]
    assert steps.label == "contradicted" and steps.score == 1.0
    assert steps.escalation["answer"]["quote_found"] is True  # whitespace-tolerant
    designed = verdicts["f4.0"]
    assert designed.escalation["applied"] is False
    assert designed.escalation["answer"]["quote_found"] is False
    assert designed.label == designed.escalation["before"]["label"] == "supported"
    assert designed.decided_by != "llm"


def test_a_failing_judge_is_an_error_not_a_hallucination() -> None:
    with ScriptedLLM(Step(status=500)) as llm:
        judge = LLMJudge("m", llm.url, api_key="k", max_retries=1, backoff=0.01)
        with pytest.raises(LLMError, match="HTTP 500"):
            detector("adaptive", judge).detect(answer=ANSWER, context=CONTEXT)


def test_locate_quote() -> None:
    start = CONTEXT.index("opened in 1889")
    assert locate_quote(CONTEXT, '"opened in 1889"') == (True, Span(start, start + 14))
    start = CONTEXT.index("wrought-iron")
    # tolerant: a dash and the case differ
    assert locate_quote(CONTEXT, "Wrought\u2014iron tower") == (True, Span(start, start + 18))
    # found only after normalising (an ambiguous tolerant match has no single span)
    assert locate_quote("A b. a  B.", "a b") == (True, None)
    assert locate_quote(CONTEXT, "built in 1900") == (False, None)
    assert locate_quote(CONTEXT, "") == (False, None)


def test_a_second_nli_model_as_the_judge() -> None:
    larger = ConstantVerifier(NLIScores(0.05, 0.15, 0.8))
    report = detector("adaptive", NLIJudge(larger)).detect(answer=ANSWER, context=CONTEXT)
    verdicts = {v.fact.id: v for v in report.facts}
    assert {i for i, v in verdicts.items() if v.escalation} == set(EXPECTED)
    assert all(len(pairs) > 0 for pairs in larger.calls)
    for fact_id in EXPECTED:
        assert verdicts[fact_id].label == "contradicted"
        assert verdicts[fact_id].score == pytest.approx(0.95)
        assert verdicts[fact_id].decided_by == "nli"
    assert verdicts["f0.0"].label == "supported"
    with pytest.raises(ValueError, match=re.escape("judge.name=nli needs judge.path")):
        detector("adaptive", {"name": "nli"})


def test_the_oracle_answers_from_gold_spans() -> None:
    oracle = OracleJudge()
    report = detector("llm", oracle).detect(answer=ANSWER, context=CONTEXT)
    assert all(v.escalation["answer"] is None for v in report.facts)  # no gold: no opinion
    gold_start = ANSWER.index("3 elevators")
    oracle.add_gold(ANSWER, [Span(gold_start, gold_start + 1)])
    report = detector("llm", oracle).detect(answer=ANSWER, context=CONTEXT)
    labels = {v.fact.id: v.label for v in report.facts}
    assert labels == {
        "f0.0": "supported",
        "f1.0": "supported",
        "f2.0": "unverifiable",
        "f3.0": "supported",
        "f4.0": "supported",
        "f5.0": "supported",
    }
    assert [s.text for s in report.spans] == ["3 elevators"]


def test_make_eval_reports_the_escalation_share(tmp_path: Path) -> None:
    from hydra import compose, initialize

    from enoki_hd.eval.datasets import Benchmark, EvalExample
    from enoki_hd.eval.runner import run_eval

    golds = [Span(ANSWER.index(t), ANSWER.index(t) + len(t)) for t in ("3", "Gustave Eiffel")]
    bench = Benchmark("toy", "span", [EvalExample("a", None, CONTEXT, ANSWER, gold_spans=golds)])
    with initialize(config_path="../configs", version_base="1.3"):
        cfg = compose(
            config_name="eval",
            overrides=[
                f"paths.root_dir={tmp_path}",
                "methods=[detector,mark_none]",
                "cache=false",
                "progress=false",
                "detector.verification=adaptive",
                "judge=oracle",
            ],
        )
    assert cfg.detector.judge.name == "oracle"
    metrics, objects = run_eval(cfg, detector=detector("adaptive", OracleJudge()), benchmark=bench)
    assert metrics["escalation"] == {
        "facts": 6,
        "escalated": 3,
        "share": 0.5,
        "calls_saved": 3,
        "reasons": {"date": 1, "number": 1, "entity": 1},
        "answered": 3,
        "applied": 3,
        "labels_changed": 1,
    }
    report = objects["files"]["report"].read_text()
    assert "escalated 3 of 6 facts (50.0%)" in report
    assert metrics["methods"]["detector"]["span"]["char"]["f1"] > 0


def test_a_judge_without_an_extractor_is_refused(tiny_nli_dir: Path) -> None:
    """With no extractor there are no facts to escalate: the judge was never called while the
    report's config said verification=llm."""
    with pytest.raises(ValueError, match="escalates facts to a judge, and with extractor=None"):
        Detector(str(tiny_nli_dir), extractor=None, verification="llm", judge={"name": "oracle"})


def test_adaptive_config_round_trips_through_from_config(tiny_nli_dir: Path) -> None:
    with ScriptedLLM() as llm:
        for judge in ({"name": "oracle"}, {"name": "llm", "model": "m", "base_url": llm.url}):
            made = Detector(
                str(tiny_nli_dir),
                extractor="rules",
                verification="adaptive",
                judge=judge,
                routing={"max_margin": 0.2, "base": "nli"},
            )
            config = json.loads(json.dumps(made.config()))
            assert config["judge"]["name"] == judge["name"]
            assert config["routing"]["max_margin"] == 0.2 and made.judge.verification == "nli"
            assert Detector.from_config(config).config() == config
