"""Risk-adaptive routing: send only the facts worth it to a stronger judge.

Verifying every fact with the strongest judge is wasteful; FACTOR (risk-aware verification)
routes only high-risk claims to the strict path. ``verification=adaptive`` does the same:
every fact is first judged by the small verifier (the ``routing.base`` mode, ``hybrid`` by
default), then :class:`RoutingPolicy` picks the facts to escalate:

- **uncertain**: the NLI margin ``|P(entailment) - P(not entailed)|`` is below
  ``max_margin``, whatever the fact says;
- **risky**: the fact's new words (its delta; its object text when unanchored) hold a
  ``number``, a ``date`` (a year, a date) or an ``entity`` (a capitalised word not starting a
  sentence, or one with an inner capital) — the kinds of claim small verifiers get wrong most
  — and the margin is below ``risky_margin`` (a looser bar);
- never a fact whose verdict a value conflict decided (a number or date of the fact differs
  from the evidence's: certain by rule).

The escalation judge is an :class:`~enoki_hd.verify.llm_judge.LLMJudge` (``judge.name=llm``),
a second, larger NLI model given by hub id or path (:class:`NLIJudge`, ``judge.name=nli``) or,
for measuring what routing can reach, :class:`OracleJudge` (``judge.name=oracle``), which
answers from the benchmark's gold spans — an oracle, not a detector. ``verification=llm``
sends every fact to the judge.

An escalated fact's verdict records the escalation (``FactVerdict.escalation``): the reasons,
the margin, the verdict before and the judge's answer; the judge's label and score replace the
verdict only when its answer is trusted (an LLM's quote must occur in the context).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal, Protocol

from enoki_hd.project import blamed_spans
from enoki_hd.text import tokenize_words
from enoki_hd.types import FactLabel, FactVerdict, Span
from enoki_hd.verify.grounding import _is_entity_like, parse_dates, parse_numbers
from enoki_hd.verify.judge import VERIFICATION_MODES, VerificationMode, rounded
from enoki_hd.verify.llm_judge import LABEL_SCORES, JudgeAnswer, LLMJudge
from enoki_hd.verify.nli import Verifier

logger = logging.getLogger(__name__)

DetectorVerification = Literal["nli", "grounding", "hybrid", "calibrated", "llm", "adaptive"]
ESCALATING_MODES = ("llm", "adaptive")
RISK_KINDS = ("number", "date", "entity")
JUDGE_NAMES = ("llm", "nli", "oracle")


class EscalationJudge(Protocol):
    """A judge facts can be escalated to: one answer (or None: no opinion, keep the verdict)
    per verdict, in order."""

    name: str

    def config(self) -> dict[str, Any]: ...

    def judge_many(
        self, answer: str, context: str, verdicts: list[FactVerdict], **stage: Any
    ) -> list[JudgeAnswer | None]: ...


@dataclass(frozen=True)
class RoutingPolicy:
    """Which facts ``verification=adaptive`` escalates (see the module docstring).

    Args:
        base: how every fact is judged first (``nli``, ``grounding``, ``hybrid``,
            ``calibrated``).
        max_margin: a fact whose NLI margin is below this is escalated (uncertain).
        risky_margin: a risky fact (number, date, entity) whose margin is below this is
            escalated.
        values: numbers and dates count as risky.
        entities: named entities count as risky.
    """

    base: VerificationMode = "hybrid"
    max_margin: float = 0.3
    risky_margin: float = 0.8
    values: bool = True
    entities: bool = True

    def __post_init__(self) -> None:
        if self.base not in VERIFICATION_MODES:
            raise ValueError(
                f"routing.base must be one of {', '.join(VERIFICATION_MODES)}, got {self.base!r}"
            )
        for name in ("max_margin", "risky_margin"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"routing.{name} must be in [0, 1], got {value!r}")

    def config(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def margin(verdict: FactVerdict) -> float:
        """``|P(entailment) - P(not entailed)|`` of the verdict's NLI probabilities."""
        return abs(verdict.probs.entailment - verdict.probs.hall_prob)

    def risks(self, answer: str, verdict: FactVerdict) -> list[str]:
        """The risky kinds (of :data:`RISK_KINDS`) in what the fact asserts: its blamed
        characters in the answer, else its object (else relation) text."""
        spans = blamed_spans(verdict.fact)
        if spans:
            pieces = [(answer, s) for s in spans]
        else:
            text = verdict.fact.object or verdict.fact.relation
            pieces = [(text, Span(0, len(text)))]
        found: set[str] = set()
        for text, span in pieces:
            piece = span.text(text)
            if self.values:
                numbers = parse_numbers(piece)
                if any(n.kind == "year" for n in numbers) or parse_dates(piece):
                    found.add("date")
                if any(n.kind != "year" for n in numbers):
                    found.add("number")
            if self.entities and any(
                _is_entity_like(w.text(piece), text, span.start + w.start)
                for w in tokenize_words(piece)
                if w.text(piece)[:1].isalpha()
            ):
                found.add("entity")
        return [k for k in RISK_KINDS if k in found]

    def reasons(self, answer: str, verdict: FactVerdict) -> list[str]:
        """Why the fact is escalated (``uncertain`` and / or its risky kinds); empty: it is
        not."""
        if verdict.decided_by.endswith("_conflict"):  # a value or structural conflict is sure
            return []
        margin = self.margin(verdict)
        reasons = ["uncertain"] if margin < self.max_margin else []
        if margin < self.risky_margin:
            reasons += self.risks(answer, verdict)
        return reasons


class NLIJudge:
    """A second, larger NLI model as the escalation judge: the fact's hypothesis is judged
    again over the same evidence selection (``verifier``: a
    :class:`~enoki_hd.verify.nli.Verifier`, or a path / hub id; ``options`` as in a
    ``verifier`` config node)."""

    name = "nli"

    def __init__(self, verifier: Verifier | str, *, threshold: float = 0.5, **options: Any):
        if isinstance(verifier, str):
            from enoki_hd.verify.loading import load_verifier_from_config

            verifier = load_verifier_from_config({"path": verifier, **options})
        self.verifier = verifier
        self.threshold = threshold

    def config(self) -> dict[str, Any]:
        """The name and the model's settings (``path``, ``backend``, ``sha256``, ...), the
        options :func:`build_judge` rebuilds it from."""
        described = getattr(self.verifier, "config", None)
        model = (
            dict(described())
            if callable(described)
            else {"path": getattr(self.verifier, "name", "")}
        )
        return {"name": self.name, **model}

    def judge_many(
        self, answer: str, context: str, verdicts: list[FactVerdict], **stage: Any
    ) -> list[JudgeAnswer | None]:
        from enoki_hd.verify.hypothesis import verify_hypotheses

        selector, index = stage.get("selector"), stage.get("index")
        if selector is None or index is None:
            raise ValueError("the nli judge needs the detector's evidence selector and index")
        judged = verify_hypotheses(selector, self.verifier, index, [v.hypothesis for v in verdicts])
        answers: list[JudgeAnswer | None] = []
        for j in judged:
            probs = rounded(j.decision.probs)
            score = min(1.0, max(0.0, probs.hall_prob))
            label: FactLabel = "supported"
            if score >= self.threshold:
                label = "contradicted" if probs.contradiction > probs.neutral else "unverifiable"
            evidence = j.decision.evidence
            answers.append(
                JudgeAnswer(
                    label,
                    round(score, 6),
                    self.name,
                    quote=evidence.text if evidence else "",
                    quote_span=Span(evidence.start, evidence.end) if evidence else None,
                )
            )
        return answers


class OracleJudge:
    """**An oracle, not a detector**: answers from the gold hallucinated spans of the answers
    it was given (:meth:`add_gold`), to measure how far routing gets and what it saves. A fact
    is unsupported when the characters it blames overlap a gold span; a fact without spans,
    or an answer without gold, gets no answer (its verdict stays)."""

    name = "oracle"

    def __init__(self, gold: Mapping[str, Sequence[Span]] | None = None) -> None:
        self.gold: dict[str, list[Span]] = {}
        for answer, spans in (gold or {}).items():
            self.add_gold(answer, spans)

    def add_gold(self, answer: str, spans: Iterable[Span]) -> None:
        self.gold[answer] = list(spans)

    def config(self) -> dict[str, Any]:
        return {"name": self.name}

    def judge_many(
        self, answer: str, context: str, verdicts: list[FactVerdict], **_: Any
    ) -> list[JudgeAnswer | None]:
        gold = self.gold.get(answer)
        answers: list[JudgeAnswer | None] = []
        for verdict in verdicts:
            blamed = verdict.blamed or blamed_spans(verdict.fact)
            if gold is None or not blamed:
                answers.append(None)
                continue
            hallucinated = any(b.overlaps(g) for b in blamed for g in gold)
            label: FactLabel = "unverifiable" if hallucinated else "supported"
            answers.append(JudgeAnswer(label, LABEL_SCORES[label], self.name))
        return answers


def build_judge(value: EscalationJudge | Mapping[str, Any] | str | None) -> EscalationJudge | None:
    """An escalation judge from a config value: ``{name: llm, model, base_url, ...}``,
    ``{name: nli, path, ...}``, ``{name: oracle}``, a bare name, None / ``none`` (no judge) or a
    ready judge."""
    if value is None or value == "none":
        return None
    if not isinstance(value, (str, Mapping)):
        return value
    options = {"name": value} if isinstance(value, str) else dict(value)
    name = options.pop("name", None)
    if name in (None, "none"):
        return None
    if name == "llm":
        return LLMJudge(**options)
    if name == "nli":
        path = options.pop("path", None)
        if not path or path == "???":
            raise ValueError(
                "judge.name=nli needs judge.path: the larger NLI model's hub id or checkpoint "
                "path (e.g. tasksource/ModernBERT-large-nli)"
            )
        return NLIJudge(str(path), **options)
    if name == "oracle":
        if options:
            raise ValueError(f"the oracle judge takes no options, got {sorted(options)}")
        return OracleJudge()
    raise ValueError(f"unknown judge {name!r}; known judges: {', '.join(JUDGE_NAMES)}")


class Escalation:
    """The detector stage after fact judgement in ``llm`` / ``adaptive`` mode: picks the
    facts (every one in ``llm`` mode, the policy's in ``adaptive``), asks the judge, records
    the escalation on each verdict and applies trusted answers."""

    def __init__(self, mode: str, judge: EscalationJudge, policy: RoutingPolicy) -> None:
        if mode not in ESCALATING_MODES:
            raise ValueError(f"escalation mode must be 'llm' or 'adaptive', got {mode!r}")
        self.mode = mode
        self.judge = judge
        self.policy = policy

    def config(self) -> dict[str, Any]:
        return {"judge": self.judge.config(), "routing": self.policy.config()}

    def select(self, answer: str, verdicts: Sequence[FactVerdict]) -> list[tuple[int, list[str]]]:
        """``(position, reasons)`` of the verdicts to escalate."""
        if self.mode == "llm":
            return [(i, ["all"]) for i in range(len(verdicts))]
        chosen = [(i, self.policy.reasons(answer, v)) for i, v in enumerate(verdicts)]
        return [(i, reasons) for i, reasons in chosen if reasons]

    def apply(self, answer: str, context: str, verdicts: list[FactVerdict], **stage: Any) -> int:
        """Escalate the selected verdicts in place; returns how many were escalated."""
        chosen = self.select(answer, verdicts)
        if not chosen:
            return 0
        answers = self.judge.judge_many(answer, context, [verdicts[i] for i, _ in chosen], **stage)
        for (i, reasons), reply in zip(chosen, answers, strict=True):
            verdict = verdicts[i]
            record: dict[str, Any] = {
                "reasons": reasons,
                "margin": round(self.policy.margin(verdict), 6),
                "judge": self.judge.name,
                "before": {
                    "label": verdict.label,
                    "score": verdict.score,
                    "decided_by": verdict.decided_by,
                },
                "answer": None if reply is None else reply.to_dict(),
                "applied": reply is not None and reply.trusted,
            }
            verdict.escalation = record
            if reply is not None and reply.trusted:
                verdict.label = reply.label
                verdict.score = reply.score
                verdict.decided_by = reply.by
        return len(chosen)


def build_escalation(
    verification: str,
    judge: EscalationJudge | Mapping[str, Any] | str | None,
    routing: RoutingPolicy | Mapping[str, Any] | None,
) -> Escalation | None:
    """The escalation stage of a detector (None unless ``verification`` is ``llm`` or
    ``adaptive``).

    Raises:
        ValueError: ``llm`` / ``adaptive`` without a judge, or a bad routing option (naming
            ``routing.<field>``).
    """
    if verification not in ESCALATING_MODES:
        return None
    built = build_judge(judge)
    if built is None:
        raise ValueError(
            f"verification={verification!r} needs a judge to escalate to: judge=llm "
            "(judge.model, judge.base_url), judge=nli (judge.path: a larger NLI model) or "
            "judge=oracle (gold labels: an oracle for measuring routing, not a detector)"
        )
    if isinstance(routing, RoutingPolicy):
        policy = routing
    else:
        options = dict(routing or {})
        known = set(RoutingPolicy.__dataclass_fields__)
        unknown = sorted(set(options) - known)
        if unknown:
            raise ValueError(
                f"unknown routing option(s) {', '.join('routing.' + k for k in unknown)}; "
                f"known: {', '.join(sorted(known))}"
            )
        policy = RoutingPolicy(**options)
    return Escalation(verification, built, policy)


def reads_gold_labels(detector: Any) -> bool:
    """Whether ``detector`` escalates to an oracle judge (whose answers come from the gold)."""
    escalation = getattr(detector, "escalation", None)
    return escalation is not None and isinstance(escalation.judge, OracleJudge)


def attach_gold(detector: Any, examples: Iterable[Any]) -> bool:
    """Give an oracle judge of ``detector`` the gold spans of ``examples`` (objects with
    ``answer`` and ``gold_spans``); False when the detector has no oracle judge."""
    escalation = getattr(detector, "escalation", None)
    if escalation is None or not isinstance(escalation.judge, OracleJudge):
        return False
    for example in examples:
        if example.gold_spans is not None:
            escalation.judge.add_gold(example.answer, example.gold_spans)
    return True


def escalation_summary(predictions: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """How many facts a run escalated, why, and what the judge changed, from prediction
    records whose facts carry ``escalation``; None when no fact carries the field."""
    facts = [f for p in predictions for f in p.get("facts", [])]
    escalated = [f["escalation"] for f in facts if f.get("escalation")]
    if not any("escalation" in f for f in facts):
        return None
    reasons: Counter[str] = Counter(r for e in escalated for r in e["reasons"])
    applied = [e for e in escalated if e["applied"]]
    changed = sum(1 for e in applied if e["answer"]["label"] != e["before"]["label"])
    n = len(facts)
    return {
        "facts": n,
        "escalated": len(escalated),
        "share": round(len(escalated) / n, 4) if n else 0.0,
        "calls_saved": n - len(escalated),
        "reasons": dict(reasons.most_common()),
        "answered": sum(1 for e in escalated if e["answer"] is not None),
        "applied": len(applied),
        "labels_changed": changed,
    }


def render_escalation(summary: Mapping[str, Any]) -> str:
    """The ``report.md`` section of :func:`escalation_summary`."""
    reasons = ", ".join(f"{k} {v}" for k, v in summary["reasons"].items()) or "none"
    return "\n".join(
        [
            "## Escalation (detector)",
            "",
            f"- escalated {summary['escalated']} of {summary['facts']} facts "
            f"({summary['share']:.1%}); judge calls saved vs judging every fact: "
            f"{summary['calls_saved']}",
            f"- reasons: {reasons}",
            f"- judge answers {summary['answered']}, applied {summary['applied']}, labels "
            f"changed {summary['labels_changed']}",
            "",
        ]
    )
