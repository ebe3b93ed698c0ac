"""The orchestrator: answer + context (+ question) → :class:`~enoki_hd.types.Report`.

:meth:`Detector.detect` runs the stages in order, each one module with one contract:

1. segment — :func:`enoki_hd.text.segment_sentences`: sentence spans of the answer;
2. language — the extractor's ``unparseable_sentences`` (or
   :func:`enoki_hd.extract.rules.language.unparseable_sentences`): sentences the verifier
   cannot read, reported ``unsupported_language``, never checked;
2b. select — :func:`enoki_hd.select.select_claims`: sentences that state no checkable fact
   (headings, lead-ins, questions, meta, opinions, table headers) are reported
   ``not_a_claim`` with a reason, never checked; a table row becomes one fact per cell, a
   list item is judged whole in the frame of its lead-in;
3. extract — the :class:`~enoki_hd.extract.base.Extractor`: anchored facts (none at sentence
   level, ``extractor=None``);
4. evidence — the :class:`~enoki_hd.verify.evidence.EvidenceSelector`'s index of the context
   (cached per context);
5. verify — :func:`enoki_hd.verify.hypothesis.verify_hypotheses`: every fact and sentence
   hypothesis of the answer judged in one batched verifier call (long ones in pieces), then
   :class:`enoki_hd.verify.judge.FactJudge`: NLI fused with lexical grounding per fact;
   in ``llm`` / ``adaptive`` mode :class:`enoki_hd.verify.routing.Escalation` then sends every
   fact / the high-risk facts to the escalation judge;
6. project — :mod:`enoki_hd.project`: unsupported facts (and context-absent words of flagged
   sentences that no fact covers) → merged character spans;
7. aggregate — :mod:`enoki_hd.aggregate`: sentence verdicts and the summary.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal, cast

from enoki_hd.aggregate import (
    SENTENCE_AGGREGATIONS,
    SentenceAggregation,
    count_labels,
    flag_uncovered_names,
    sentence_verdicts,
    sentences_to_judge,
    summarize,
)
from enoki_hd.extract.base import Extractor
from enoki_hd.extract.coverage import uncovered_clause_facts
from enoki_hd.extract.verbalize import verbalize
from enoki_hd.lru import LRUCache
from enoki_hd.project import (
    blame_sentence_words,
    blame_whole_sentences,
    finish_spans,
    project_spans,
)
from enoki_hd.select import (
    SELECTIONS,
    LLMSelector,
    Selection,
    SelectionMode,
    cell_facts,
    select_claims,
)
from enoki_hd.text import (
    blank_spans,
    inline_marker_spans,
    join_passages,
    mask_citations,
    mask_frames,
    require_text,
    segment_sentences,
    strip_span,
    unescape_entities,
)
from enoki_hd.types import (
    Evidence,
    Fact,
    FactVerdict,
    Report,
    SentenceVerdict,
    Span,
    Summary,
)
from enoki_hd.verify.aliases import blame_names, flag_unfound_names, unfound_aliases
from enoki_hd.verify.attributes import judge_attributes
from enoki_hd.verify.calibration import FUSION_FILE, FusionCalibration
from enoki_hd.verify.evidence import (
    EvidenceDecision,
    EvidenceIndex,
    EvidenceSelector,
    require_bool,
    require_int,
)
from enoki_hd.verify.grounding import GroundingIndex
from enoki_hd.verify.hours import judge_hours
from enoki_hd.verify.hypothesis import verify_chains, verify_hypotheses
from enoki_hd.verify.judge import FactJudge, VerificationMode
from enoki_hd.verify.listings import judge_listed_sentences
from enoki_hd.verify.loading import (
    load_default_verifier,
    load_verifier_from_config,
    resolve_checkpoint,
)
from enoki_hd.verify.nli import NLICrossEncoder, Verifier
from enoki_hd.verify.quoted import quoted_sentences
from enoki_hd.verify.references import restate_answer_pronouns
from enoki_hd.verify.relative_dates import relative_pairs, vouch_by_relative_dates
from enoki_hd.verify.routing import (
    DetectorVerification,
    EscalationJudge,
    RoutingPolicy,
    build_escalation,
)

logger = logging.getLogger(__name__)

__all__ = ["Detector"]


class Detector:
    """Detect unsupported content in an answer against its reference context.

    Args:
        verifier: a :class:`~enoki_hd.verify.nli.Verifier`, a checkpoint path or hub id, the
            name of a shipped checkpoint (``"verifier-minilm-l3"``: the 3-layer verifier, half
            the cost per NLI pair), or None for the shipped default
            (``checkpoints/verifier-minilm``).
        extractor: a registered extractor name (``"rules"``, the default; ``"preextracted"``),
            an :class:`~enoki_hd.extract.base.Extractor`, or None for sentence-level detection
            (no decomposition).
        selector: evidence selection (default: ``retrieve``, top 3 sentences ± 1 neighbour).
        sentence_backend: segmentation of the answer (``spacy`` or ``regex``).
        context_backend: segmentation of the context; ``regex`` by default because contexts
            can be whole web pages and the regex splitter is linear and fast.
        threshold: a unit (fact or sentence) whose hallucination score is at least this is
            reported as not supported; None: the calibration's threshold in ``calibrated``
            mode, else 0.5.
        verification: how a fact is judged: ``nli``, ``grounding`` (the lexical check of the
            fact's delta alone), ``hybrid`` (both by a fixed rule) or ``calibrated`` (both
            through a fitted logistic regression; see :mod:`enoki_hd.verify.judge`); ``llm``
            (every fact also goes to ``judge``) or ``adaptive`` (only the facts ``routing``
            finds high-risk or uncertain do; see :mod:`enoki_hd.verify.routing`).
        calibration: the fitted fusion of ``calibrated`` mode: a
            :class:`~enoki_hd.verify.calibration.FusionCalibration` or a path to its JSON file;
            None: ``fusion.json`` next to the verifier's checkpoint.
        record_features: keep every fact's fusion features on its verdict (and judge each
            fact's sentence whole): what ``make calibrate`` fits on.
        hybrid_weight: weight of the NLI score in ``hybrid``.
        conflicts: label a fact ``contradicted`` when its evidence states it with the roles
            swapped, as an exception or negated (:mod:`enoki_hd.verify.conflicts`;
            ``hybrid`` and ``grounding`` modes).
        absent_names: in ``hybrid`` mode, a fact whose number, date or name occurs nowhere in
            the context (nor the question) is not supported unless the verifier is decisive
            (:func:`~enoki_hd.verify.judge.fuse`, rule 5).
        refinement_support: in ``hybrid`` mode, a fact failed by its words' grounding alone
            is supported when the verifier decisively entails one of its supported refinements
            (:mod:`enoki_hd.verify.judge`).
        period_support: in ``hybrid`` mode, a fact that failed and dates itself by a decade
            or a century ("founded in the late 1990s") is supported when the verifier entails
            it restated with a year its evidence gives the fact's event inside that period
            ("founded in 1998"; :mod:`enoki_hd.verify.periods`); and one that states a length
            in years ("for 18 years") when the verifier entails it restated as the period of
            its evidence that lasts it ("from 1996 to 2014").
        inherit_entailment: facts of a coarse-to-fine chain are judged refinements first, and
            an ancestor of a refinement the verifier finds supported with at least this
            entailment takes that decision instead of being judged
            (:func:`~enoki_hd.verify.hypothesis.verify_chains`; never under negation): at 0.5
            (the default) about two NLI pairs in five fewer on RAGTruth-sized answers, with
            accuracy within noise of judging every fact (README, Speed). None: every fact is
            judged on its own.
        judge: the escalation judge of ``verification="llm"`` (every fact) and ``"adaptive"``
            (the facts ``routing`` selects): ``{"name": "llm", "model", "base_url", ...}``,
            ``{"name": "nli", "path": <larger NLI model>}``, ``{"name": "oracle"}`` (gold
            labels; for measuring routing only) or a judge object (:mod:`enoki_hd.verify.routing`).
        routing: :class:`~enoki_hd.verify.routing.RoutingPolicy` or its options (``base``,
            ``max_margin``, ``risky_margin``, ``values``, ``entities``).
        sentence_aggregation: how a sentence's score is made from its facts: ``max`` (default),
            ``mean``, ``sentence-nli`` (the sentence judged as a whole), ``hybrid`` (mean of
            ``max`` and ``sentence-nli``).
        language_check: report sentences with no parseable English as
            ``unsupported_language`` instead of sending them to an English verifier.
        index_cache_size: contexts whose evidence index is kept between calls (batches often
            share one context).
        selection: claim selection before extraction (:mod:`enoki_hd.select`): ``rules``
            (default: non-claims reported ``not_a_claim``, Markdown lists and tables read with
            their structure) or ``none`` (every sentence is checked as written).
        mask_citations: the answer's citation markers (``[1]``, ``[Doc 2]``, ``(Source 3)``,
            ``[^4]``, ``【5†source】``, URLs and link targets with the words that point to them,
            "see https://…"; :func:`enoki_hd.text.citation_spans`) are not part of any
            claim: they are read as spaces (offsets unchanged), so they are never verified,
            flagged or split into sentences of their own. The report keeps the answer as given.
        mask_frames: the attribution frames and openers that begin a sentence ("According to
            the provided context, ", "Based on the passages, ", "The passage states that ",
            "In summary, ", "Sure! "; :func:`enoki_hd.text.frame_spans`) are read as spaces
            too: they say where a claim comes from, not what is the case, and judged as part
            of it they read as contradictions ("Suede formed according to context").
        quoted_support: an answer sentence the context states word for word, as a whole
            sentence of its own (:func:`enoki_hd.verify.quoted.quoted_sentences`), is
            supported with all its facts (``decided_by="quoted"``, score 0, the context
            sentence as evidence), whatever the verifier makes of the facts cut from it.
        clause_coverage: every clause of a sentence with facts that holds three or more
            content words, none inside any fact's spans, is judged as a fact of its own
            (``source="clause"``; :func:`enoki_hd.extract.coverage.uncovered_clause_facts`):
            an extractor that returns fewer facts than a sentence states (the tagger emits at
            most ``depth`` rows per window) leaves nothing unchecked that passes as checked.
        join_phrases: two hallucinated spans of one sentence and one label with only words
            that hold a phrase together between them ("of", "and", "to", …;
            :data:`enoki_hd.text.PHRASE_GLUE`) become one span ("tropical regions of Asia"
            rather than "tropical regions" and "Asia"), as annotators mark a wrong phrase.
            Raises span IoU and character F1 and lowers the Enoki paper's coverage F1,
            which counts a span only inside a gold one (README, "Spans as phrases"); off,
            only punctuation joins spans.
        restate_pronouns: a fact whose subject is "it", "he", "she" or "they" is judged as
            a hypothesis about the subject the answer opened with, where that subject
            plainly agrees (:func:`enoki_hd.verify.references.restate_answer_pronouns`:
            "It lasted until 1924." → "Autonomous province lasted until 1924."); the
            fact's spans and its grounding stay the answer's words.
        sentence_entailment: off (None) by default. A number in [0, 1]: in ``hybrid``
            verification, a fact that only the verifier's reading of it failed (no
            conflict, absent name or grounding decided) is supported when its whole sentence
            is entailed at least this much (``decided_by="sentence"``); the sentences with such
            a fact are then judged whole too. Fewer false alarms on paraphrased answers, more missed
            errors in long compositional sentences (:mod:`enoki_hd.verify.judge`; README,
            "Options").
    """

    def __init__(
        self,
        verifier: Verifier | str | Path | None = None,
        *,
        extractor: Extractor | str | None = "rules",
        selector: EvidenceSelector | None = None,
        sentence_backend: Literal["spacy", "regex"] = "spacy",
        context_backend: Literal["spacy", "regex"] = "regex",
        threshold: float | None = None,
        verification: DetectorVerification = "hybrid",
        hybrid_weight: float = 0.5,
        conflicts: bool = True,
        absent_names: bool = True,
        refinement_support: bool = True,
        period_support: bool = True,
        inherit_entailment: float | None = 0.5,
        judge: EscalationJudge | Mapping[str, Any] | str | None = None,
        routing: RoutingPolicy | Mapping[str, Any] | None = None,
        sentence_aggregation: SentenceAggregation = "max",
        language_check: bool = True,
        index_cache_size: int = 8,
        calibration: FusionCalibration | str | Path | None = None,
        record_features: bool = False,
        selection: SelectionMode | LLMSelector | Mapping[str, Any] = "rules",
        mask_citations: bool = True,
        mask_frames: bool = True,
        quoted_support: bool = True,
        clause_coverage: bool = True,
        join_phrases: bool = True,
        restate_pronouns: bool = True,
        sentence_entailment: float | None = None,
    ) -> None:
        if sentence_aggregation not in SENTENCE_AGGREGATIONS:
            raise ValueError(
                "sentence_aggregation must be 'max', 'mean', 'sentence-nli' or 'hybrid', "
                f"got {sentence_aggregation!r}"
            )
        self.selector_llm = _llm_selector(selection)
        for option, value in (
            ("sentence_backend", sentence_backend),
            ("context_backend", context_backend),
        ):
            if value not in ("spacy", "regex"):
                raise ValueError(f"{option} must be 'spacy' or 'regex', got {value!r}")
        for option, number in (
            ("threshold", threshold),
            ("hybrid_weight", hybrid_weight),
            ("inherit_entailment", inherit_entailment),
            ("sentence_entailment", sentence_entailment),
        ):
            optional = option != "hybrid_weight"
            if (number is None and optional) or (
                isinstance(number, (int, float)) and not isinstance(number, bool)
            ):
                continue
            expected = "a number in [0, 1]" + (" or None" if optional else "")
            raise TypeError(f"{option} must be {expected}, got {type(number).__name__} {number!r}")
        for option, switch in (
            ("conflicts", conflicts),
            ("absent_names", absent_names),
            ("refinement_support", refinement_support),
            ("period_support", period_support),
            ("language_check", language_check),
            ("record_features", record_features),
            ("mask_citations", mask_citations),
            ("mask_frames", mask_frames),
            ("quoted_support", quoted_support),
            ("clause_coverage", clause_coverage),
            ("join_phrases", join_phrases),
            ("restate_pronouns", restate_pronouns),
        ):
            require_bool(switch, option)
        require_int(index_cache_size, "index_cache_size", minimum=0)
        if not (extractor is None or isinstance(extractor, str) or hasattr(extractor, "extract")):
            raise TypeError(
                "extractor must be a name ('rules', 'encoder', 'none'), an Extractor (with "
                f"an extract method) or None, got {type(extractor).__name__}"
            )
        if not (selector is None or hasattr(selector, "build_index")):
            raise TypeError(
                "selector must be an EvidenceSelector (e.g. EvidenceSelector(strategy="
                f"'window', top_k=3)) or None, got {type(selector).__name__} {selector!r}"
            )
        if not (
            verifier is None or isinstance(verifier, (str, Path)) or hasattr(verifier, "predict")
        ):
            raise TypeError(
                "verifier must be a Verifier (with a predict method), a checkpoint path, a hub "
                f"id, a shipped checkpoint name or None, got {type(verifier).__name__}"
            )
        if not (calibration is None or isinstance(calibration, (FusionCalibration, str, Path))):
            raise TypeError(
                "calibration must be a FusionCalibration, a path to its JSON file or None, got "
                f"{type(calibration).__name__}"
            )
        if verifier is None:
            verifier = load_default_verifier()
        elif isinstance(verifier, (str, Path)):
            verifier = NLICrossEncoder(resolve_checkpoint(verifier))
        self.verifier: Verifier = verifier
        self.escalation = build_escalation(verification, judge, routing)
        base = (
            self.escalation.policy.base if self.escalation else cast(VerificationMode, verification)
        )
        fusion = _load_calibration(calibration, verifier) if base == "calibrated" else None
        if threshold is None:
            threshold = fusion.threshold if fusion is not None else 0.5
        self.judge = FactJudge(
            base,
            hybrid_weight,
            threshold,
            fusion,
            record_features,
            conflicts=conflicts,
            absent_names=absent_names,
            refinement_support=refinement_support,
            sentence_entailment=sentence_entailment,
            period_support=period_support,
        )
        if isinstance(extractor, str):
            from enoki_hd.extract import get_extractor

            extractor = None if extractor == "none" else get_extractor(extractor)
        self.extractor: Extractor | None = extractor
        if getattr(extractor, "coarse_roots", False) is True:
            # an extractor of coarse root facts (the encoder's rows): their objects are
            # grounded alone too, so one new word is not diluted in a long fact
            self.judge = replace(self.judge, root_delta=True)
        if self.escalation is not None and extractor is None:
            raise ValueError(
                f"verification={verification!r} escalates facts to a judge, and with "
                "extractor=None there are none (sentences are judged by NLI alone): give an "
                "extractor ('rules', 'encoder', 'llm') or verification='hybrid'"
            )
        check_fact_options(
            verification,
            base,
            facts=extractor is not None,
            sentence_entailment=sentence_entailment,
        )
        if inherit_entailment is not None and not 0.0 <= inherit_entailment <= 1.0:
            raise ValueError(
                f"inherit_entailment must be in [0, 1] or None, got {inherit_entailment!r}"
            )
        self.inherit_entailment = inherit_entailment
        self.selector = selector or EvidenceSelector()
        self.sentence_backend = sentence_backend
        self.context_backend = context_backend
        self.sentence_aggregation = sentence_aggregation
        self.language_check = language_check
        self.selection: SelectionMode = (
            "llm" if self.selector_llm else cast(SelectionMode, selection)
        )
        self.mask_citations = mask_citations
        self.mask_frames = mask_frames
        self.quoted_support = quoted_support
        self.clause_coverage = clause_coverage
        self.join_phrases = join_phrases
        self.restate_pronouns = restate_pronouns
        self._indexes: LRUCache[str, EvidenceIndex] = LRUCache(index_cache_size)
        self._groundings: LRUCache[str, GroundingIndex] = LRUCache(index_cache_size)

    @property
    def threshold(self) -> float:
        return self.judge.threshold

    @property
    def verification(self) -> DetectorVerification:
        if self.escalation is not None:
            return cast(DetectorVerification, self.escalation.mode)
        return self.judge.verification

    @property
    def hybrid_weight(self) -> float:
        return self.judge.hybrid_weight

    @property
    def level(self) -> str:
        return "sentence" if self.extractor is None else "fact"

    @classmethod
    def from_config(cls, cfg: Mapping[str, Any]) -> Detector:
        """Build from a plain mapping (a resolved Hydra ``detector`` node, or the output of
        :meth:`config`, which this round-trips)::

        {"verifier": {"path": null, "backend": "onnx", "max_length": 256, "batch_size": 1},
         "evidence": {"strategy": "retrieve", "top_k": 3, "neighbours": 1},
         "extractor": {"name": "rules"}, "verification": "hybrid", "hybrid_weight": 0.5,
         "sentence_aggregation": "max", "sentence_backend": "spacy",
         "context_backend": "regex", "threshold": 0.5, "language_check": true}

        ``extractor`` may also be a bare name; ``"none"`` or None means sentence level;
        ``verifier`` a bare path or shipped name (``"verifier-minilm-l3"``), as in
        :class:`Detector`. Unknown keys are an error (a typo would otherwise be silently
        ignored), and so is a group (``evidence``, ``verifier``) that is not a mapping.
        """
        if not isinstance(cfg, Mapping):
            raise TypeError(
                "Detector.from_config takes a mapping of detector options (what "
                f"Detector.config() returns), got {type(cfg).__name__}"
            )
        unknown = set(cfg) - _CONFIG_KEYS
        if unknown:
            raise ValueError(
                f"unknown detector config key(s) {sorted(unknown)}; "
                f"known keys: {sorted(_CONFIG_KEYS)}"
            )
        numbers = {  # checked before any model loads
            key: _config_float(cfg, key, default)
            for key, default in (
                ("threshold", None),
                ("hybrid_weight", 0.5),
                ("inherit_entailment", 0.5),
                ("sentence_entailment", None),
            )
        }
        switches = {key: _config_bool(cfg, key, default) for key, default in _CONFIG_SWITCHES}
        with _config_group("evidence"):
            selector = EvidenceSelector(**config_group(cfg, "evidence"))
        verifier = load_verifier_from_config(config_group(cfg, "verifier"))
        with _config_group("extractor"):
            extractor = _extractor_from_config(cfg.get("extractor", "rules"))
        return cls(
            verifier,
            extractor=extractor,
            selector=selector,
            sentence_backend=cfg.get("sentence_backend", "spacy"),
            context_backend=cfg.get("context_backend", "regex"),
            threshold=numbers["threshold"],
            verification=cfg.get("verification", "hybrid"),
            hybrid_weight=numbers["hybrid_weight"],
            conflicts=switches["conflicts"],
            absent_names=switches["absent_names"],
            refinement_support=switches["refinement_support"],
            period_support=switches["period_support"],
            inherit_entailment=numbers["inherit_entailment"],
            judge=cfg.get("judge"),
            routing=cfg.get("routing"),
            sentence_aggregation=cfg.get("sentence_aggregation", "max"),
            language_check=switches["language_check"],
            calibration=_calibration_from_config(cfg.get("calibration")),
            record_features=switches["record_features"],
            selection=cfg.get("selection", "rules"),
            mask_citations=switches["mask_citations"],
            mask_frames=switches["mask_frames"],
            quoted_support=switches["quoted_support"],
            clause_coverage=switches["clause_coverage"],
            join_phrases=switches["join_phrases"],
            restate_pronouns=switches["restate_pronouns"],
            sentence_entailment=numbers["sentence_entailment"],
        )

    def config(self) -> dict[str, Any]:
        """Every setting that can change an output, recorded in every report and in the eval
        cache keys; :meth:`from_config` rebuilds an equivalent detector from it (``level`` is
        derived and ignored there)."""
        return {
            "level": self.level,
            "verifier": _verifier_config(self.verifier),
            "evidence": self.selector.config(),
            "extractor": None if self.extractor is None else self.extractor.config(),
            "sentence_backend": self.sentence_backend,
            "context_backend": self.context_backend,
            "threshold": self.threshold,
            "verification": self.verification,
            "hybrid_weight": self.hybrid_weight,
            "conflicts": self.judge.conflicts,
            "absent_names": self.judge.absent_names,
            "refinement_support": self.judge.refinement_support,
            "period_support": self.judge.period_support,
            "inherit_entailment": self.inherit_entailment,
            **({} if self.escalation is None else self.escalation.config()),
            "sentence_aggregation": self.sentence_aggregation,
            "language_check": self.language_check,
            "calibration": None
            if self.judge.calibration is None
            else self.judge.calibration.config(),
            **({"record_features": True} if self.judge.record_features else {}),
            "selection": self.selector_llm.config() if self.selector_llm else self.selection,
            "mask_citations": self.mask_citations,
            "mask_frames": self.mask_frames,
            "quoted_support": self.quoted_support,
            "clause_coverage": self.clause_coverage,
            "join_phrases": self.join_phrases,
            "restate_pronouns": self.restate_pronouns,
            "sentence_entailment": self.judge.sentence_entailment,
        }

    def index(self, context: str, passages: Sequence[Span] | None = None) -> EvidenceIndex:
        """The evidence index of ``context`` (its ``passages``, when it was given as a list;
        see :func:`enoki_hd.text.join_passages`), built once and kept in a small LRU cache."""
        bounds = "" if not passages else ",".join(f"{p.start}:{p.end}" for p in passages)
        key = hashlib.sha256(f"{context}\x00{bounds}".encode()).hexdigest()
        return self._indexes.get_or_build(
            key,
            lambda: self.selector.build_index(
                context, sentence_backend=self.context_backend, passages=passages
            ),
        )

    def grounding_index(self, context: str, question: str | None) -> GroundingIndex:
        """The lexical grounding index of context + question (cached like :meth:`index`)."""
        key = hashlib.sha256(f"{context}\x00{question or ''}".encode()).hexdigest()
        return self._groundings.get_or_build(key, lambda: GroundingIndex(context, question))

    def detect(
        self, *, answer: str, context: str | Sequence[str], question: str | None = None
    ) -> Report:
        """Check ``answer`` against ``context`` at every level the detector is set up for.

        ``context`` is one string or a list of passages (retrieved documents): passages are
        joined by a blank line (:func:`enoki_hd.text.join_passages`), no evidence window spans
        two of them, and each evidence records the ``passage`` it came from.

        Raises:
            TypeError: ``answer`` is not a str, ``context`` neither a str nor a list of str
                (``question`` may be None).
            ValueError: a text holds a lone surrogate (no character; the message names it).
            VerifierError: the verifier failed; a failure is never reported as a hallucination.
        """
        require_text(answer, "answer")
        context, passages = join_passages(context)
        require_text(question, "question", optional=True)
        timings: dict[str, float] = {}
        clock = _Clock(timings)
        given = answer
        answer = unescape_entities(answer)  # "&amp;" is "&", "&nbsp;" a space: same length
        if self.mask_citations:
            answer = mask_citations(answer)  # the same length: every offset holds
        # "1) ...; 2) ..." in a sentence: the markers are no numbers the context must state
        answer = blank_spans(answer, inline_marker_spans(answer))
        # sentences are cut before the frames are masked: "London. In summary, the band ..."
        # is two sentences, where "London.              the band ..." reads as one
        segmented = answer
        if self.mask_frames:
            answer = mask_frames(answer)
        if not answer.strip():
            summary = Summary("empty_answer", None, count_labels([]), 0, None)
            return self._report(given, [], [], [], summary, clock.total(), question)

        with clock("segment"):
            spans = segment_sentences(segmented, backend=self.sentence_backend)
            if segmented is not answer:  # a sentence starts after its frame; a frame alone goes
                spans = [t for t in (strip_span(answer, s) for s in spans) if t.end > t.start]
        with clock("language"):
            unreadable = self._unreadable(answer, spans)
        with clock("select"):
            selections = self._select(answer, spans)
        # structure decides before the language check: a heading is not a claim in any
        # language, and a table row ("| Length | 77 km |") is checked cell by cell though it
        # does not parse as an English sentence
        unreadable = unreadable - {s.index for s in selections if s.reason is not None or s.cells}
        not_claims = {s.index: s.reason for s in selections if s.reason is not None}
        unchecked = unreadable | set(not_claims)
        facts: list[Fact] | None = None
        if self.extractor is not None:
            with clock("extract"):
                facts = [
                    f
                    for f in self.extractor.extract(answer, sentences=spans)
                    if f.sentence not in unchecked and not selections[f.sentence].cells
                ]
                facts += [f for s in selections for f in cell_facts(s)]
                if self.clause_coverage:
                    facts += uncovered_clause_facts(answer, spans, [f for f in facts if f.anchored])
                facts.sort(key=lambda f: f.sentence)
        with clock("index"):
            index = self.index(context, passages)

        # the names the answer gives ("also known as …") that the context lacks: a name is
        # right or wrong as a whole (verify/aliases.py)
        names = unfound_aliases(answer, context) if self.judge.names_rule else []
        with clock("verify"):
            hypotheses = [verbalize(f, answer) for f in facts or []]
            if self.restate_pronouns and facts:
                hypotheses = restate_answer_pronouns(facts, hypotheses, answer)
            whole = sentences_to_judge(
                len(spans),
                # a sentence whose facts are all unanchored is judged whole (Fact.anchored)
                None if facts is None else {f.sentence for f in facts if f.anchored},
                unchecked,
                aggregation=self.sentence_aggregation,
            )
            # calibrated fusion reads every fact's sentence judged whole as well
            expected = set(whole)
            if facts is not None and self.judge.needs_sentence_nli:
                whole = sorted(expected | ({f.sentence for f in facts} - unchecked))
            # with query_windows, each fact's sentence retrieves evidence for it too
            queries = None
            if facts and getattr(self.selector, "query_windows", "off") != "off":
                queries = [
                    selections[f.sentence].hypothesis or spans[f.sentence].text(answer)
                    for f in facts
                ]
            chains = verify_chains(
                self.selector,
                self.verifier,
                index,
                facts or [],
                hypotheses,
                [selections[i].hypothesis or spans[i].text(answer) for i in whole],
                inherit_threshold=self.inherit_entailment,
                queries=queries,
            )
            fact_judged, sentence_judged = chains.facts, chains.extra
        verdicts: list[FactVerdict] | None = None
        if facts is not None:
            with clock("ground"):
                grounding = (
                    self.grounding_index(context, question) if self.judge.uses_grounding else None
                )
                verdicts = self.judge.judge(
                    answer,
                    facts,
                    hypotheses,
                    [j.decision for j in fact_judged],
                    grounding=grounding,
                    question=question,
                    sentence_decisions={
                        i: j.decision for i, j in zip(whole, sentence_judged, strict=True)
                    },
                )
                for verdict, j in zip(verdicts, fact_judged, strict=True):
                    verdict.split = j.split
                for i, source in chains.inherited.items():
                    verdicts[i].inherited_from = facts[source].id
            vouch = [i for i in self.judge.sentences_to_vouch(verdicts) if i not in whole]
            if vouch:
                with clock("vouch"):
                    judged = verify_hypotheses(
                        self.selector,
                        self.verifier,
                        index,
                        [selections[i].hypothesis or spans[i].text(answer) for i in vouch],
                    )
                    verdicts = self.judge.vouch_by_sentences(
                        verdicts, {i: j.decision for i, j in zip(vouch, judged, strict=True)}
                    )
            periods = self.judge.periods_to_check(verdicts, answer, context)
            if periods:
                with clock("periods"):
                    judged = verify_hypotheses(
                        self.selector, self.verifier, index, [h for _, h in periods]
                    )
                    verdicts = self.judge.vouch_by_periods(
                        verdicts,
                        [(i, j.decision) for (i, _), j in zip(periods, judged, strict=True)],
                    )
            relative = []
            if self.judge.period_support and self.judge.verification == "hybrid":
                relative = relative_pairs(verdicts, context)
            if relative:
                with clock("relative_dates"):
                    probs = self.verifier.predict(
                        [(r.text, verdicts[i].hypothesis) for i, r in relative]
                    )
                    verdicts = vouch_by_relative_dates(
                        verdicts, relative, probs, context, self.threshold
                    )
            if self.judge.conflicts and self.judge.verification in ("hybrid", "grounding"):
                # opening hours read day by day against the context's (verify/hours.py)
                with clock("hours"):
                    verdicts = judge_hours(verdicts, answer, context)
                # yes-or-no attributes of a listing (verify/attributes.py)
                with clock("attributes"):
                    verdicts = judge_attributes(verdicts, answer, context)
            if self.escalation is not None:
                with clock("escalate"):
                    self.escalation.apply(
                        answer, context, verdicts, selector=self.selector, index=index
                    )

        quoted: dict[int, Span] = {}
        if self.quoted_support and spans:
            with clock("quoted"):
                quoted = quoted_sentences(answer, spans, context)
                if verdicts:
                    verdicts = _quoted_facts(verdicts, quoted, context)
        with clock("project"):
            hallucinated = project_spans(answer, verdicts or [], threshold=self.threshold)
        with clock("aggregate"):
            sentences = sentence_verdicts(
                answer,
                spans,
                verdicts,
                {
                    i: j.decision
                    for i, j in zip(whole, sentence_judged, strict=True)
                    if i in expected
                },
                unreadable=unreadable,
                not_claims=not_claims,
                aggregation=self.sentence_aggregation,
                threshold=self.threshold,
                splits={
                    i: j.split for i, j in zip(whole, sentence_judged, strict=True) if i in expected
                },
            )
            if verdicts is not None and self.judge.verification == "hybrid":
                decided = {i: j.decision for i, j in zip(whole, sentence_judged, strict=True)}
                sentences = self._ground_sentences(sentences, verdicts, decided, context, question)
                sentences = flag_unfound_names(sentences, names, self.threshold)
            if (
                verdicts is not None
                and self.judge.conflicts
                and self.judge.verification in ("hybrid", "grounding")
            ):
                # a sentence without facts read against the listing (verify/listings.py)
                sentences, listed = judge_listed_sentences(sentences, answer, context)
                if listed:
                    hallucinated = sorted([*hallucinated, *listed], key=lambda h: h.start)
            if quoted:
                sentences = _quoted_sentences_supported(sentences, quoted, context)
            summary = summarize(sentences, verdicts, no_context=index.is_empty)
        if verdicts is not None and self.judge.uses_grounding:
            # a flagged sentence's context-absent words: projection that needs the sentence labels
            with clock("project_words"):
                hallucinated = blame_sentence_words(
                    answer,
                    sentences,
                    hallucinated,
                    verdicts,
                    self.grounding_index(context, question),
                    question=question,
                )
        hallucinated = blame_names(answer, sentences, hallucinated, names)
        # a flagged sentence in which nothing was blamed (no extractor, NLI alone, or a
        # sentence without facts whose words are all in the context) is its own span, so that
        # `spans` never says less than the sentences do
        hallucinated = blame_whole_sentences(answer, sentences, hallucinated)
        hallucinated = finish_spans(
            answer,
            hallucinated,
            [s.span for s in sentences],
            phrases=self.join_phrases,
            names=names,
        )
        if passages:
            _mark_passages(index, verdicts or [], sentences)
        if answer != given:  # texts as the answer gives them, with its markers and frames
            for sentence in sentences:
                sentence.text = sentence.span.text(given)
            for span in hallucinated:
                span.text = given[span.start : span.end]
        return self._report(
            given, sentences, verdicts or [], hallucinated, summary, clock.total(), question
        )

    def _ground_sentences(
        self,
        sentences: list[SentenceVerdict],
        verdicts: list[FactVerdict],
        decided: Mapping[int, EvidenceDecision],
        context: str,
        question: str | None,
    ) -> list[SentenceVerdict]:
        """``hybrid`` fact level: each sentence without facts judged by the fact rule
        (:meth:`FactJudge.judge_fallback`), then the supported sentences whose words outside
        every fact hold an absent name flagged (:func:`flag_uncovered_names`)."""
        grounding = self.grounding_index(context, question)
        sentences = [
            self.judge.judge_fallback(s, decided[s.index], grounding, question)
            if s.method == "sentence-nli-fallback"
            else s
            for s in sentences
        ]
        if self.judge.names_rule:
            sentences = flag_uncovered_names(sentences, verdicts, grounding, question=question)
        return sentences

    def _select(self, answer: str, spans: list[Span]) -> list[Selection]:
        if self.selector_llm is not None:
            return self.selector_llm.select(answer, spans)
        if self.selection == "none":
            return [Selection(i, True) for i in range(len(spans))]
        return select_claims(answer, spans)

    def _unreadable(self, answer: str, spans: list[Span]) -> set[int]:
        if not self.language_check or not spans:
            return set()
        if self.extractor is not None:
            return set(self.extractor.unparseable_sentences(answer, spans))
        from enoki_hd.extract.rules.language import unparseable_sentences

        return unparseable_sentences(answer, spans)

    def _report(self, answer, sentences, verdicts, spans, summary, timings, question) -> Report:
        return Report(
            answer=answer,
            sentences=sentences,
            facts=verdicts,
            spans=spans,
            summary=summary,
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
        return list(self.detect_stream(examples, progress=progress, total=len(examples)))

    def detect_stream(
        self,
        examples: Iterable[Mapping[str, Any]],
        *,
        progress: bool = False,
        total: int | None = None,
    ) -> Iterator[Report]:
        """:meth:`detect_batch` lazily: one report at a time, in input order, reading
        ``examples`` as it goes (memory stays flat over any number of rows; for a resumable
        job over a file see :mod:`enoki_hd.batch`)."""
        from tqdm.auto import tqdm  # here, not at import: it costs ~0.06 s of cold start

        for i, example in enumerate(
            tqdm(examples, desc="detect", total=total, disable=not progress)
        ):
            if not isinstance(example, Mapping):
                raise TypeError(
                    f"examples[{i}] must be a mapping with 'answer' and 'context', "
                    f"got {type(example).__name__}"
                )
            missing = [k for k in ("answer", "context") if k not in example]
            if missing:
                raise KeyError(f"examples[{i}] lacks {', '.join(missing)}")
            # checked here too, so that the error names the example, not just its field
            require_text(example["answer"], f"examples[{i}]['answer']")
            join_passages(example["context"], f"examples[{i}]['context']")
            require_text(example.get("question"), f"examples[{i}]['question']", optional=True)
            yield self.detect(
                answer=example["answer"],
                context=example["context"],
                question=example.get("question"),
            )


def check_fact_options(
    verification: str, base: str, *, facts: bool, sentence_entailment: float | None
) -> None:
    """Refuse options that judge facts when there are none (``facts``: an extractor is set),
    or that the fact judgement ``base`` (``verification`` itself, or the rule an escalating
    mode judges by first) would silently skip. :class:`Detector` calls it; the command line
    calls it before any model loads.

    Raises:
        ValueError: naming the options and the fix.
    """
    if not facts and base in ("grounding", "calibrated"):
        # at sentence level every sentence takes the verifier's decision: the lexical
        # check and the fitted fusion judge facts, and would be silently skipped
        raise ValueError(
            f"verification={verification!r} judges facts, and with extractor=None there "
            "are none (sentences are judged by NLI alone): give an extractor ('rules', "
            "'encoder') or verification='nli'"
        )
    if sentence_entailment is not None and not facts:
        raise ValueError(
            "sentence_entailment clears facts, and with extractor=None there are none "
            "(sentences are judged whole): give an extractor ('rules', 'encoder') or leave "
            "sentence_entailment None"
        )
    if sentence_entailment is not None and base != "hybrid":
        # only the hybrid rule's NLI-decided facts are cleared
        raise ValueError(
            f"sentence_entailment clears facts the hybrid rule failed, and "
            f"verification={verification!r} judges facts by {base!r}: use "
            "verification='hybrid' (the default) or leave sentence_entailment None"
        )


_CONFIG_KEYS = frozenset(
    {
        "level",
        "verifier",
        "evidence",
        "extractor",
        "sentence_backend",
        "context_backend",
        "threshold",
        "verification",
        "hybrid_weight",
        "conflicts",
        "absent_names",
        "refinement_support",
        "period_support",
        "inherit_entailment",
        "sentence_aggregation",
        "language_check",
        "calibration",
        "record_features",
        "judge",
        "routing",
        "selection",
        "mask_citations",
        "mask_frames",
        "quoted_support",
        "clause_coverage",
        "join_phrases",
        "restate_pronouns",
        "sentence_entailment",
    }
)
# The on/off options of the config and their defaults.
_CONFIG_SWITCHES = (
    ("conflicts", True),
    ("absent_names", True),
    ("refinement_support", True),
    ("period_support", True),
    ("language_check", True),
    ("record_features", False),
    ("mask_citations", True),
    ("mask_frames", True),
    ("quoted_support", True),
    ("clause_coverage", True),
    ("join_phrases", True),
    ("restate_pronouns", True),
)


class _Clock:
    """Stage timings: ``with clock("verify"): ...`` adds the stage's seconds to ``timings``."""

    def __init__(self, timings: dict[str, float]) -> None:
        self.timings = timings
        self.started = time.perf_counter()
        self._stage: str | None = None
        self._mark = 0.0

    def __call__(self, stage: str) -> _Clock:
        self._stage = stage
        return self

    def __enter__(self) -> None:
        self._mark = time.perf_counter()

    def __exit__(self, *exc: object) -> None:
        assert self._stage is not None
        self.timings[self._stage] = time.perf_counter() - self._mark

    def total(self) -> dict[str, float]:
        self.timings["total"] = time.perf_counter() - self.started
        return self.timings


def _quoted_evidence(context: str, span: Span) -> Evidence:
    return Evidence(span.start, span.end, span.text(context))


def _quoted_facts(
    verdicts: list[FactVerdict], quoted: Mapping[int, Span], context: str
) -> list[FactVerdict]:
    """The facts of the sentences the context states word for word, supported by the quote."""
    return [
        replace(
            v,
            label="supported",
            decided_by="quoted",
            score=0.0,
            evidence=_quoted_evidence(context, quoted[v.fact.sentence]),
            blamed=None,
            suppressed=False,
            suppressed_by=None,
        )
        if v.fact.sentence in quoted
        else v
        for v in verdicts
    ]


def _quoted_sentences_supported(
    sentences: list[SentenceVerdict], quoted: Mapping[int, Span], context: str
) -> list[SentenceVerdict]:
    """Sentences the context states word for word, supported (those judged without facts
    too); a sentence that is not a claim stays one."""
    return [
        replace(
            s,
            label="supported",
            score=0.0,
            method="quoted",
            evidence=_quoted_evidence(context, quoted[s.index]),
        )
        if s.index in quoted and s.label in ("contradicted", "unverifiable")
        else s
        for s in sentences
    ]


def _mark_passages(
    index: EvidenceIndex, verdicts: list[FactVerdict], sentences: list[SentenceVerdict]
) -> None:
    """Set each evidence's ``passage`` (a context given as passages)."""
    evidences = [v.evidence for v in verdicts] + [s.evidence for s in sentences]
    for evidence in evidences:
        if evidence is not None:
            evidence.passage = index.passage_of(evidence.start)


def _config_float(cfg: Mapping[str, Any], key: str, default: float | None = None) -> Any:
    """A number of the config (Hydra writes ``null`` for None), or an error naming its key."""
    value = cfg.get(key, default)
    if value is None:
        return None
    message = f"detector config {key!r} must be a number, got {value!r}"
    if isinstance(value, bool):  # float(True) is 1.0
        raise ValueError(message)
    try:
        return float(value)
    except (TypeError, ValueError) as err:
        raise ValueError(message) from err


def _config_bool(cfg: Mapping[str, Any], key: str, default: bool) -> bool:
    """A switch of the config (YAML, JSON and Hydra overrides give true/false as bools), or
    an error naming its key."""
    value = cfg.get(key, default)
    if not isinstance(value, bool):  # "false" and "no" would read as on
        raise ValueError(
            f"detector config {key!r} must be true or false, got {type(value).__name__} {value!r}"
        )
    return value


def config_group(cfg: Mapping[str, Any], key: str) -> dict[str, Any]:
    """The options of the config's ``key`` group (null: none); a ``verifier`` may be given
    as its bare path or shipped name. Anything else is an error naming the group."""
    value = cfg.get(key)
    if key == "verifier" and isinstance(value, (str, Path)):
        return {"path": str(value)}
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ValueError(
            f"detector config {key!r} must be a mapping of its options (what "
            f"Detector.config() holds there), got {type(value).__name__} {value!r}"
        )
    return dict(value)


@contextlib.contextmanager
def _config_group(key: str) -> Iterator[None]:
    """A wrongly typed option of the config's ``key`` group (``top_k: "3"``) is a ValueError
    naming the group, like every bad config value (``enoki eval`` reports it in one line)."""
    try:
        yield
    except TypeError as err:
        raise ValueError(f"detector config {key!r}: {err}") from err


def _verifier_config(verifier: Verifier) -> dict[str, Any]:
    config = getattr(verifier, "config", None)
    if callable(config):
        return dict(config())
    return {"name": getattr(verifier, "name", type(verifier).__name__)}


def _llm_selector(value: Any) -> LLMSelector | None:
    """The LLM selector of ``selection`` (an :class:`LLMSelector`, or a ``{"name": "llm",
    "model", "base_url", ...}`` mapping of :class:`enoki_hd.llm.ChatClient` options); None
    for ``rules`` / ``none``."""
    if isinstance(value, LLMSelector):
        return value
    if isinstance(value, Mapping):
        options = dict(value)
        if options.pop("name", "llm") != "llm":
            raise ValueError("selection as a mapping is the LLM regime's: {name: llm, model: ...}")
        prompt = options.pop("prompt", "select")
        prompt_sha256 = options.pop("prompt_sha256", None)
        from enoki_hd.llm import ChatClient

        return LLMSelector(ChatClient(**options), prompt=prompt, prompt_sha256=prompt_sha256)
    if value == "llm":
        raise ValueError(
            "selection='llm' needs an endpoint: pass selection=LLMSelector(ChatClient(model, "
            "base_url)) or, in a config, selection={name: llm, model: ..., base_url: ...}"
        )
    if value not in SELECTIONS:
        raise ValueError(f"selection must be 'rules', 'none' or 'llm', got {value!r}")
    return None


def _extractor_from_config(value: Any) -> Extractor | None:
    if value is None or value == "none":
        return None
    from enoki_hd.extract import get_extractor

    if isinstance(value, str):
        return get_extractor(value)
    options = dict(value)
    name = options.pop("name", None)
    if name is None:
        raise ValueError("detector config 'extractor' needs a 'name' (e.g. {name: rules})")
    return None if name == "none" else get_extractor(name, **options)


def _load_calibration(
    calibration: FusionCalibration | str | Path | None, verifier: Verifier
) -> FusionCalibration:
    """The calibrated mode's fusion: as given, from a path, or ``fusion.json`` next to the
    verifier's checkpoint; a file fitted for another verifier graph is refused."""
    if isinstance(calibration, FusionCalibration):
        return calibration
    sha256 = getattr(verifier, "sha256", None)
    if calibration is None:
        name = getattr(verifier, "name", None)
        if name is None or not Path(str(name)).is_dir():
            raise ValueError(
                "verification='calibrated' without a calibration needs a verifier checkpoint "
                f"directory holding {FUSION_FILE}; pass calibration=<path to fusion.json>"
            )
        calibration = Path(str(name)) / FUSION_FILE
    return FusionCalibration.load(calibration, verifier_sha256=sha256)


def _calibration_from_config(value: Any) -> FusionCalibration | str | None:
    """A ``calibration`` config value: None, a path, or a :meth:`FusionCalibration.config`
    mapping (its ``sha256`` must match the file)."""
    if value is None or isinstance(value, str):
        return value
    options = dict(value)
    path = options.get("path")
    if path is None:
        return None
    calibration = FusionCalibration.load(path)
    expected = options.get("sha256")
    if expected is not None and expected != calibration.sha256:
        raise ValueError(
            f"calibration.sha256: the config was written for a fusion file with sha256 "
            f"{expected}, but {path} holds {calibration.sha256}; drop calibration.sha256 to "
            "accept the new file"
        )
    return calibration
