"""The orchestrator: answer + context (+ question) → :class:`~enoki_hd.types.Report`.

Two levels of decomposition share one code path:

- ``extractor=None`` (sentence level): every answer sentence is one hypothesis, judged against
  evidence windows of the context by the NLI verifier. This is the decomposition-free baseline.
- ``extractor="rules"`` (or another registered backend): anchored facts are extracted from the
  answer, each verbalized fact is judged (NLI, a lexical grounding check of the fact's delta, or
  both), unsupported facts are projected onto character spans, and each sentence's score
  aggregates its facts. A sentence with no facts falls back to the sentence-level verdict and is
  marked so (``method="sentence-nli-fallback"``), never silently "supported".

All sentence, fact and sentence-fallback hypotheses of one answer go to the verifier in one
batched call.
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

from tqdm.auto import tqdm

from enoki_hd.text import segment_sentences
from enoki_hd.types import (
    Fact,
    FactVerdict,
    NLIScores,
    Report,
    SentenceVerdict,
    Span,
    Summary,
)
from enoki_hd.verify.evidence import EvidenceDecision, EvidenceIndex, EvidenceSelector
from enoki_hd.verify.nli import NLICrossEncoder, Verifier

logger = logging.getLogger(__name__)

VERIFIER_ENV = "ENOKI_VERIFIER"
DEFAULT_VERIFIER_NAME = "verifier-minilm"


def default_checkpoint_dir() -> Path:
    """Where the shipped checkpoints live: ``$ENOKI_CHECKPOINTS`` or the repository's
    ``checkpoints/`` folder (next to ``src/``)."""
    env = os.environ.get("ENOKI_CHECKPOINTS")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / "checkpoints"


def default_verifier_path() -> Path:
    """The shipped verifier: ``$ENOKI_VERIFIER`` or ``checkpoints/verifier-minilm``."""
    env = os.environ.get(VERIFIER_ENV)
    return Path(env) if env else default_checkpoint_dir() / DEFAULT_VERIFIER_NAME


def load_default_verifier(path: str | Path | None = None, **kwargs: Any) -> NLICrossEncoder:
    """Load the shipped ONNX int8 verifier, with an error that says how to build it."""
    path = Path(path) if path is not None else default_verifier_path()
    if not (path / "model.onnx").is_file():
        raise FileNotFoundError(
            f"no verifier at {path} (expected {path / 'model.onnx'}); run `make train-verifier` "
            f"to build the shipped verifier, or set {VERIFIER_ENV} / pass verifier=<path or hub id>"
        )
    kwargs.setdefault("max_length", 256)
    return NLICrossEncoder(path, backend="onnx", **kwargs)


def _require_str(name: str, value: object, *, optional: bool = False) -> None:
    if value is None and optional:
        return
    if not isinstance(value, str):
        expected = "str or None" if optional else "str"
        raise TypeError(
            f"{name} must be {expected}, got {type(value).__name__}"
            + (
                " (decode bytes first, e.g. value.decode('utf-8'))"
                if isinstance(value, bytes)
                else ""
            )
        )


VerificationMode = Literal["nli", "grounding", "hybrid"]
SentenceAggregation = Literal["max", "mean", "sentence-nli", "hybrid"]


class Detector:
    """Detect unsupported content in an answer against its reference context.

    Args:
        verifier: a :class:`~enoki_hd.verify.nli.Verifier`, a checkpoint path or hub id, or
            None for the shipped default (``checkpoints/verifier-minilm``).
        extractor: a registered extractor name (``"rules"``, the default; ``"preextracted"``),
            an :class:`~enoki_hd.extract.base.Extractor`, or None for sentence-level detection
            (no decomposition).
        selector: evidence selection (default: ``retrieve``, top 3 sentences ± 1 neighbour).
        sentence_backend: segmentation of the answer (``spacy`` or ``regex``).
        context_backend: segmentation of the context; ``regex`` by default because contexts
            can be whole web pages and the regex splitter is linear and fast.
        threshold: a unit (fact or sentence) whose hallucination score is at least this is
            reported as not supported.
        verification: how a fact is judged: ``nli``, ``grounding`` (the lexical check of the
            fact's delta alone) or ``hybrid`` (both; see :func:`enoki_hd.verify.grounding.combine`).
        hybrid_weight: weight of the NLI score in ``hybrid``.
        sentence_aggregation: how a sentence's score is made from its facts: ``max`` (default),
            ``mean``, ``sentence-nli`` (the sentence judged as a whole), ``hybrid`` (mean of
            ``max`` and ``sentence-nli``).
        index_cache_size: contexts whose evidence index is kept between calls (batches often
            share one context).
    """

    def __init__(
        self,
        verifier: Verifier | str | Path | None = None,
        *,
        extractor: Any = "rules",
        selector: EvidenceSelector | None = None,
        sentence_backend: Literal["spacy", "regex"] = "spacy",
        context_backend: Literal["spacy", "regex"] = "regex",
        threshold: float = 0.5,
        verification: VerificationMode = "hybrid",
        hybrid_weight: float = 0.5,
        sentence_aggregation: SentenceAggregation = "max",
        index_cache_size: int = 8,
    ) -> None:
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"threshold must be in [0, 1], got {threshold}")
        if verification not in ("nli", "grounding", "hybrid"):
            raise ValueError(
                f"verification must be 'nli', 'grounding' or 'hybrid', got {verification!r}"
            )
        if sentence_aggregation not in ("max", "mean", "sentence-nli", "hybrid"):
            raise ValueError(
                "sentence_aggregation must be 'max', 'mean', 'sentence-nli' or 'hybrid', "
                f"got {sentence_aggregation!r}"
            )
        if not 0.0 <= hybrid_weight <= 1.0:
            raise ValueError(f"hybrid_weight must be in [0, 1], got {hybrid_weight}")
        if verifier is None:
            verifier = load_default_verifier()
        elif isinstance(verifier, (str, Path)):
            verifier = NLICrossEncoder(verifier)
        self.verifier: Verifier = verifier
        if isinstance(extractor, str):
            from enoki_hd.extract import get_extractor

            extractor = get_extractor(extractor)
        self.extractor = extractor
        self.selector = selector or EvidenceSelector()
        self.sentence_backend = sentence_backend
        self.context_backend = context_backend
        self.threshold = threshold
        self.verification = verification
        self.hybrid_weight = hybrid_weight
        self.sentence_aggregation = sentence_aggregation
        self._indexes: OrderedDict[str, EvidenceIndex] = OrderedDict()
        self._groundings: OrderedDict[str, Any] = OrderedDict()
        self._index_cache_size = index_cache_size

    @classmethod
    def from_config(cls, cfg: Mapping[str, Any]) -> Detector:
        """Build from a plain mapping (a resolved Hydra ``detector`` node)::

        {"verifier": {"path": null, "backend": "auto", "max_length": 256, "batch_size": 32},
         "evidence": {"strategy": "retrieve", "top_k": 3, "neighbours": 1},
         "extractor": "rules", "verification": "hybrid", "hybrid_weight": 0.5,
         "sentence_aggregation": "max", "sentence_backend": "spacy",
         "context_backend": "regex", "threshold": 0.5}
        """
        verifier_cfg = dict(cfg.get("verifier") or {})
        path = verifier_cfg.pop("path", None)
        backend = verifier_cfg.pop("backend", "auto")
        if path is None:
            verifier: Verifier = load_default_verifier(**verifier_cfg)
        else:
            verifier = NLICrossEncoder(path, backend=backend, **verifier_cfg)
        selector = EvidenceSelector(**dict(cfg.get("evidence") or {}))
        extractor = cfg.get("extractor", "rules")
        if isinstance(extractor, Mapping):
            from enoki_hd.extract import get_extractor

            options = dict(extractor)
            name = options.pop("name")
            extractor = None if name in (None, "none") else get_extractor(name, **options)
        elif extractor == "none":
            extractor = None
        return cls(
            verifier,
            extractor=extractor,
            selector=selector,
            sentence_backend=cfg.get("sentence_backend", "spacy"),
            context_backend=cfg.get("context_backend", "regex"),
            threshold=float(cfg.get("threshold", 0.5)),
            verification=cfg.get("verification", "hybrid"),
            hybrid_weight=float(cfg.get("hybrid_weight", 0.5)),
            sentence_aggregation=cfg.get("sentence_aggregation", "max"),
        )

    @property
    def level(self) -> str:
        return "sentence" if self.extractor is None else "fact"

    def config(self) -> dict[str, Any]:
        """The behaviour-changing settings, recorded in every report."""
        out: dict[str, Any] = {
            "verifier": getattr(self.verifier, "name", type(self.verifier).__name__),
            "evidence": {
                "strategy": self.selector.strategy,
                "top_k": self.selector.top_k,
                "neighbours": self.selector.neighbours,
                "dense_weight": self.selector.dense_weight,
            },
            "sentence_backend": self.sentence_backend,
            "context_backend": self.context_backend,
            "threshold": self.threshold,
            "level": self.level,
        }
        if self.extractor is not None:
            out["extractor"] = getattr(self.extractor, "name", type(self.extractor).__name__)
            out["verification"] = self.verification
            out["hybrid_weight"] = self.hybrid_weight
            out["sentence_aggregation"] = self.sentence_aggregation
        return out

    def _cached(self, cache: OrderedDict, key: str, build):
        value = cache.get(key)
        if value is not None:
            cache.move_to_end(key)
            return value
        value = build()
        cache[key] = value
        while len(cache) > self._index_cache_size:
            cache.popitem(last=False)
        return value

    def index(self, context: str) -> EvidenceIndex:
        """The evidence index of ``context``, built once and kept in a small LRU cache."""
        key = hashlib.sha256(context.encode("utf-8")).hexdigest()
        return self._cached(
            self._indexes,
            key,
            lambda: EvidenceIndex(context, sentence_backend=self.context_backend),
        )

    def grounding_index(self, context: str, question: str | None):
        """The lexical grounding index of context + question (cached like :meth:`index`)."""
        from enoki_hd.verify.grounding import GroundingIndex

        key = hashlib.sha256(f"{context}\x00{question or ''}".encode()).hexdigest()
        return self._cached(self._groundings, key, lambda: GroundingIndex(context, question))

    def detect(self, *, answer: str, context: str, question: str | None = None) -> Report:
        """Check ``answer`` against ``context`` at every level the detector is set up for.

        Raises:
            TypeError: ``answer`` or ``context`` is not a str (``question`` may be None).
            VerifierError: the verifier failed; a failure is never reported as a hallucination.
        """
        _require_str("answer", answer)
        _require_str("context", context)
        _require_str("question", question, optional=True)
        timings: dict[str, float] = {}
        started = time.perf_counter()
        if not answer.strip():
            return Report(
                answer=answer,
                sentences=[],
                facts=[],
                spans=[],
                summary=Summary("empty_answer", None, {}, 0, False),
                timings={"total": time.perf_counter() - started},
                question=question,
                config=self.config(),
            )
        spans = segment_sentences(answer, backend=self.sentence_backend)
        timings["segment"] = time.perf_counter() - started

        mark = time.perf_counter()
        index = self.index(context)
        timings["index"] = time.perf_counter() - mark

        facts: list[Fact] = []
        foreign: set[int] = set()
        if self.extractor is not None:
            mark = time.perf_counter()
            facts = self.extractor.extract(answer, sentences=spans)
            foreign = _unparseable(self.extractor, answer, spans)
            facts = [f for f in facts if f.sentence not in foreign]
            timings["extract"] = time.perf_counter() - mark

        mark = time.perf_counter()
        hypotheses = [_fact_hypothesis(f) for f in facts]
        sentence_units = self._sentences_to_judge(spans, facts, foreign)
        decisions = self.selector.verify(
            self.verifier, index, hypotheses + [spans[i].text(answer) for i in sentence_units]
        )
        fact_decisions = decisions[: len(facts)]
        sentence_decisions = dict(zip(sentence_units, decisions[len(facts) :], strict=True))
        timings["verify"] = time.perf_counter() - mark

        verdicts: list[FactVerdict] = []
        if facts:
            mark = time.perf_counter()
            grounding = (
                self.grounding_index(context, question) if self.verification != "nli" else None
            )
            verdicts = [
                self._judge_fact(answer, fact, hypothesis, decision, grounding, question)
                for fact, hypothesis, decision in zip(
                    facts, hypotheses, fact_decisions, strict=True
                )
            ]
            timings["ground"] = time.perf_counter() - mark

        mark = time.perf_counter()
        hallucinated_spans = []
        if verdicts:
            from enoki_hd.project import project_spans

            hallucinated_spans = project_spans(answer, verdicts, threshold=self.threshold)
        sentences = [
            self._sentence_verdict(
                i, span, answer, verdicts, sentence_decisions.get(i), i in foreign
            )
            for i, span in enumerate(spans)
        ]
        if self.extractor is not None and self.verification != "nli":
            hallucinated_spans = self._add_sentence_words(
                answer,
                sentences,
                hallucinated_spans,
                self.grounding_index(context, question),
                question,
            )
        timings["project"] = time.perf_counter() - mark
        timings["total"] = time.perf_counter() - started
        if self.extractor is None:
            summary = summarize_sentences(sentences, no_context=index.is_empty)
        else:
            summary = summarize_facts(verdicts, sentences, no_context=index.is_empty)
        return Report(
            answer=answer,
            sentences=sentences,
            facts=verdicts,
            spans=hallucinated_spans,
            summary=summary,
            timings=timings,
            question=question,
            config=self.config(),
        )

    def _add_sentence_words(self, answer, sentences, spans, grounding, question):
        """Spans for the words of flagged sentences that have no trace in the context and that
        no fact covered (facts miss parts of sentences; a sentence judged unsupported still
        points at its context-absent words). They carry the sentence's score and no fact id."""
        from enoki_hd.project import merge_hallucinated
        from enoki_hd.verify.grounding import ground

        extra = []
        for sentence in sentences:
            if sentence.label not in ("contradicted", "unverifiable"):
                continue
            result = ground(sentence.text, "", question=question, scope=grounding)
            for span in result.missing_spans:
                start = sentence.span.start + span.start
                extra.append((Span(start, start + len(span)), sentence.score, sentence.label))
        return merge_hallucinated(answer, spans, extra) if extra else spans

    def _sentences_to_judge(
        self, spans: list[Span], facts: list[Fact], foreign: set[int]
    ) -> list[int]:
        """Sentences that need a whole-sentence NLI verdict: all of them at sentence level or
        with a sentence-based aggregation, else only those without facts (the fallback)."""
        if self.extractor is None or self.sentence_aggregation in ("sentence-nli", "hybrid"):
            return [i for i in range(len(spans)) if i not in foreign]
        with_facts = {f.sentence for f in facts}
        return [i for i in range(len(spans)) if i not in with_facts and i not in foreign]

    def _judge_fact(
        self,
        answer: str,
        fact: Fact,
        hypothesis: str,
        decision: EvidenceDecision,
        grounding,
        question: str | None,
    ) -> FactVerdict:
        hall = min(1.0, max(0.0, decision.probs.hall_prob))  # float32 sums can exceed 1 by ulps
        decided_by = "nli"
        override = None
        blamed = None
        if grounding is not None:
            from enoki_hd.verify.grounding import combine, ground

            # A root fact is new as a whole: its subject and relation words can be the
            # hallucination too ("Noel Gallagher founded the band"); a refinement adds its delta.
            parts = (
                fact.delta
                if fact.parent is not None and fact.delta
                else fact.subject_spans + fact.relation_spans + fact.object_spans
            )
            text, offsets = _join_spans(answer, parts)
            evidence_text = decision.evidence.text if decision.evidence else ""
            result = ground(text, evidence_text, question=question, scope=grounding)
            hall, decided_by, override = combine(
                hall, result, mode=self.verification, weight=self.hybrid_weight
            )
            # Blame only the words with no trace in the context when there are such words.
            blamed = [_to_answer(span, offsets) for span in result.missing_spans] or None
        if override is not None:
            label = override
        elif hall < self.threshold:
            label = "supported"
        else:
            label = decision.label if decision.label != "supported" else "unverifiable"
        return FactVerdict(
            fact=fact,
            hypothesis=hypothesis,
            probs=_rounded(decision.probs),
            label=label,
            evidence=decision.evidence,
            decided_by=decided_by,
            score=round(hall, 6),
            blamed=blamed,
        )

    def _sentence_verdict(
        self,
        index: int,
        span: Span,
        answer: str,
        verdicts: list[FactVerdict],
        decision: EvidenceDecision | None,
        foreign: bool,
    ) -> SentenceVerdict:
        text = span.text(answer)
        if foreign:
            return SentenceVerdict(
                index, span, text, 0.0, "unsupported_language", method="unsupported_language"
            )
        own = [v for v in verdicts if v.fact.sentence == index]
        nli_score = decision.probs.hall_prob if decision is not None else None
        if not own:
            assert decision is not None  # every sentence without facts was judged as a whole
            method = "sentence-nli" if self.extractor is None else "sentence-nli-fallback"
            label = self._label(decision.label, nli_score)
            return SentenceVerdict(
                index,
                span,
                text,
                round(nli_score, 6),
                label,
                _rounded(decision.probs),
                decision.evidence,
                method,
            )
        counted = [v for v in own if not v.suppressed] or own
        scores = [v.score for v in counted]
        if self.sentence_aggregation == "mean":
            score = sum(scores) / len(scores)
        elif self.sentence_aggregation == "sentence-nli" and nli_score is not None:
            score = nli_score
        elif self.sentence_aggregation == "hybrid" and nli_score is not None:
            score = (max(scores) + nli_score) / 2
        else:
            score = max(scores)
        failing = [v for v in counted if v.label != "supported"]
        if score < self.threshold:
            label = "supported"
        elif any(v.label == "contradicted" for v in failing):
            label = "contradicted"
        else:
            label = "unverifiable"
        worst = max(counted, key=lambda v: v.score)
        return SentenceVerdict(
            index,
            span,
            text,
            round(score, 6),
            label,
            worst.probs,
            worst.evidence,
            self.sentence_aggregation,
            [v.fact.id for v in own],
        )

    def _label(self, label: str, score: float) -> str:
        if label == "supported" and score >= self.threshold:
            return "unverifiable"
        if label != "supported" and score < self.threshold:
            return "supported"
        return label

    def detect_batch(
        self,
        examples: Iterable[Mapping[str, Any]],
        *,
        progress: bool = True,
    ) -> list[Report]:
        """``detect`` over many ``{"answer", "context", "question"?}`` mappings, in order."""
        examples = list(examples)
        reports = []
        for i, example in enumerate(tqdm(examples, desc="detect", disable=not progress)):
            if not isinstance(example, Mapping):
                raise TypeError(
                    f"examples[{i}] must be a mapping with 'answer' and 'context', "
                    f"got {type(example).__name__}"
                )
            missing = [k for k in ("answer", "context") if k not in example]
            if missing:
                raise KeyError(f"examples[{i}] lacks {', '.join(missing)}")
            reports.append(
                self.detect(
                    answer=example["answer"],
                    context=example["context"],
                    question=example.get("question"),
                )
            )
        return reports


def _join_spans(answer: str, spans: list[Span]) -> tuple[str, list[tuple[int, int]]]:
    """The spans' texts joined by single spaces, with ``(offset in joined text, answer start)``
    per piece so positions in the joined text map back to the answer."""
    pieces, offsets, cursor = [], [], 0
    for span in sorted(spans):
        offsets.append((cursor, span.start))
        pieces.append(span.text(answer))
        cursor += len(span) + 1
    return " ".join(pieces), offsets


def _to_answer(span: Span, offsets: list[tuple[int, int]]) -> Span:
    """A span of the joined text of :func:`_join_spans` as a span of the answer."""
    joined_start, answer_start = next(o for o in reversed(offsets) if o[0] <= span.start)
    shift = answer_start - joined_start
    return Span(span.start + shift, span.end + shift)


def _fact_hypothesis(fact: Fact) -> str:
    from enoki_hd.extract.verbalize import verbalize

    return verbalize(fact)


def _unparseable(extractor: Any, answer: str, spans: list[Span]) -> set[int]:
    """Sentences the extractor cannot read as English (reported ``unsupported_language``)."""
    check = getattr(extractor, "unparseable_sentences", None)
    return set(check(answer, spans)) if check is not None else set()


def _rounded(probs: NLIScores) -> NLIScores:
    return NLIScores(
        round(probs.entailment, 6), round(probs.neutral, 6), round(probs.contradiction, 6)
    )


def _count(labels: Iterable[str]) -> dict[str, int]:
    counts = {"supported": 0, "contradicted": 0, "unverifiable": 0}
    for label in labels:
        counts[label] = counts.get(label, 0) + 1
    return counts


def summarize_sentences(sentences: list[SentenceVerdict], *, no_context: bool) -> Summary:
    """Summary over sentence verdicts: faithfulness = supported / checked sentences."""
    counts = _count(s.label for s in sentences)
    checked = counts["supported"] + counts["contradicted"] + counts["unverifiable"]
    return Summary(
        status="no_context" if no_context else "ok",
        faithfulness=round(counts["supported"] / checked, 6) if checked else None,
        counts=counts,
        checked=checked,
        hallucinated=counts["contradicted"] + counts["unverifiable"] > 0,
        intrinsic=counts["contradicted"],
        extrinsic=counts["unverifiable"],
    )


def summarize_facts(
    verdicts: list[FactVerdict], sentences: list[SentenceVerdict], *, no_context: bool
) -> Summary:
    """Summary over fact verdicts: faithfulness = supported / checked facts, where suppressed
    refinements (their coarser parent already failed) are not counted again. With no facts at
    all the status is ``no_facts`` and the counts come from the sentence fallback verdicts."""
    if not verdicts:
        fallback = summarize_sentences(sentences, no_context=no_context)
        fallback.status = "no_context" if no_context else "no_facts"
        return fallback
    counted = [v for v in verdicts if not v.suppressed]
    counts = _count(v.label for v in counted)
    checked = len(counted)
    flagged = any(s.label in ("contradicted", "unverifiable") for s in sentences)
    return Summary(
        status="no_context" if no_context else "ok",
        faithfulness=round(counts["supported"] / checked, 6) if checked else None,
        counts=counts,
        checked=checked,
        hallucinated=counts["contradicted"] + counts["unverifiable"] > 0 or flagged,
        intrinsic=counts["contradicted"],
        extrinsic=counts["unverifiable"],
    )
