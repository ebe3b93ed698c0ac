"""The orchestrator: answer + context (+ question) → :class:`~enoki_hd.types.Report`.

Sentence level (this module's first job): every answer sentence is one hypothesis, judged
against evidence windows of the context by the NLI verifier, with no decomposition. This is the
baseline every finer level is compared with.
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
from enoki_hd.types import NLIScores, Report, SentenceVerdict, Summary
from enoki_hd.verify.evidence import EvidenceIndex, EvidenceSelector
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


class Detector:
    """Detect unsupported content in an answer against its reference context.

    Args:
        verifier: a :class:`~enoki_hd.verify.nli.Verifier`, a checkpoint path or hub id, or
            None for the shipped default (``checkpoints/verifier-minilm``).
        selector: evidence selection (default: ``retrieve``, top 3 sentences ± 1 neighbour).
        sentence_backend: segmentation of the answer (``spacy`` or ``regex``).
        context_backend: segmentation of the context; ``regex`` by default because contexts
            can be whole web pages and the regex splitter is linear and fast.
        threshold: a sentence whose hallucination score (neutral + contradiction of its deciding
            window) is at least this is reported as not supported.
        index_cache_size: contexts whose evidence index is kept between calls (batches often
            share one context).
    """

    def __init__(
        self,
        verifier: Verifier | str | Path | None = None,
        *,
        selector: EvidenceSelector | None = None,
        sentence_backend: Literal["spacy", "regex"] = "spacy",
        context_backend: Literal["spacy", "regex"] = "regex",
        threshold: float = 0.5,
        index_cache_size: int = 8,
    ) -> None:
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"threshold must be in [0, 1], got {threshold}")
        if verifier is None:
            verifier = load_default_verifier()
        elif isinstance(verifier, (str, Path)):
            verifier = NLICrossEncoder(verifier)
        self.verifier: Verifier = verifier
        self.selector = selector or EvidenceSelector()
        self.sentence_backend = sentence_backend
        self.context_backend = context_backend
        self.threshold = threshold
        self._indexes: OrderedDict[str, EvidenceIndex] = OrderedDict()
        self._index_cache_size = index_cache_size

    @classmethod
    def from_config(cls, cfg: Mapping[str, Any]) -> Detector:
        """Build from a plain mapping (a resolved Hydra ``detector`` node)::

        {"verifier": {"path": null, "backend": "auto", "max_length": 256, "batch_size": 32},
         "evidence": {"strategy": "retrieve", "top_k": 3, "neighbours": 1},
         "sentence_backend": "spacy", "context_backend": "regex", "threshold": 0.5}
        """
        verifier_cfg = dict(cfg.get("verifier") or {})
        path = verifier_cfg.pop("path", None)
        backend = verifier_cfg.pop("backend", "auto")
        if path is None:
            verifier: Verifier = load_default_verifier(**verifier_cfg)
        else:
            verifier = NLICrossEncoder(path, backend=backend, **verifier_cfg)
        selector = EvidenceSelector(**dict(cfg.get("evidence") or {}))
        return cls(
            verifier,
            selector=selector,
            sentence_backend=cfg.get("sentence_backend", "spacy"),
            context_backend=cfg.get("context_backend", "regex"),
            threshold=float(cfg.get("threshold", 0.5)),
        )

    def config(self) -> dict[str, Any]:
        """The behaviour-changing settings, recorded in every report."""
        return {
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
            "level": "sentence",
        }

    def index(self, context: str) -> EvidenceIndex:
        """The evidence index of ``context``, built once and kept in a small LRU cache."""
        key = hashlib.sha256(context.encode("utf-8")).hexdigest()
        cached = self._indexes.get(key)
        if cached is not None:
            self._indexes.move_to_end(key)
            return cached
        built = EvidenceIndex(context, sentence_backend=self.context_backend)
        self._indexes[key] = built
        while len(self._indexes) > self._index_cache_size:
            self._indexes.popitem(last=False)
        return built

    def detect(self, *, answer: str, context: str, question: str | None = None) -> Report:
        """Check every sentence of ``answer`` against ``context``.

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

        mark = time.perf_counter()
        hypotheses = [span.text(answer) for span in spans]
        decisions = self.selector.verify(self.verifier, index, hypotheses)
        timings["verify"] = time.perf_counter() - mark

        sentences = []
        for i, (span, decision) in enumerate(zip(spans, decisions, strict=True)):
            score = decision.probs.hall_prob
            label = decision.label
            if label == "supported" and score >= self.threshold:
                label = "unverifiable"
            elif label != "supported" and score < self.threshold:
                label = "supported"
            sentences.append(
                SentenceVerdict(
                    index=i,
                    span=span,
                    text=span.text(answer),
                    score=round(score, 6),
                    label=label,
                    probs=_rounded(decision.probs),
                    evidence=decision.evidence,
                    method="sentence-nli",
                )
            )
        timings["total"] = time.perf_counter() - started
        return Report(
            answer=answer,
            sentences=sentences,
            facts=[],
            spans=[],
            summary=summarize_sentences(sentences, no_context=index.is_empty),
            timings=timings,
            question=question,
            config=self.config(),
        )

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


def _rounded(probs: NLIScores) -> NLIScores:
    return NLIScores(
        round(probs.entailment, 6), round(probs.neutral, 6), round(probs.contradiction, 6)
    )


def summarize_sentences(sentences: list[SentenceVerdict], *, no_context: bool) -> Summary:
    """Summary over sentence verdicts: faithfulness = supported / checked sentences."""
    counts = {"supported": 0, "contradicted": 0, "unverifiable": 0}
    for sentence in sentences:
        counts[sentence.label] = counts.get(sentence.label, 0) + 1
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
