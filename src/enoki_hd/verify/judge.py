"""Fact judgement: one :class:`~enoki_hd.types.FactVerdict` per fact, fused from the NLI
decision over its evidence and the lexical grounding of its words.

The fusion rule (:func:`fuse`) decides on evidence, not on a mean crossing 0.5:

1. ``nli`` mode, or nothing lexical to check (grounding ``empty``): the NLI decision alone.
2. A **value conflict** — a number or date of the fact differs from one of the same kind in the
   deciding evidence (grounding ``mismatch``) — is ``contradicted``, score at least
   :data:`~enoki_hd.verify.grounding.CONTRADICTED_HALL_FLOOR`, whatever NLI says. So is a
   **structural conflict** (:mod:`enoki_hd.verify.conflicts`: swapped roles, a stated
   exception, a negation, a direction word, a value the evidence gives the relation in
   another role, "the only / main one" against "one of several") when ``conflicts`` is on; a
   value-role conflict blames the fact's value. A **dropped hedge** (the evidence states the
   fact only under "may", "suggest", …) makes the fact ``unverifiable`` the same way.
3. ``grounding`` mode: the grounding status alone (``absent`` → unverifiable, ``grounded`` /
   ``partial`` → supported), score = share of unfound words.
4. ``hybrid`` mode, **decisive NLI**: when the verifier gives at least
   :data:`NLI_DECISIVE` to not-entailed (neutral + contradiction), the fact is not supported
   even if every word occurs in the context — word overlap cannot see a swapped role or a
   negation. Label ``contradicted`` when contradiction outweighs neutral, else
   ``unverifiable``; score = the NLI hallucination probability.
5. ``hybrid`` mode, **an absent name** (``absent_names``): when a number, date or
   named-entity-like word of the fact occurs nowhere in the context nor the question
   (grounding ``missing_names``), the fact is not supported even if NLI leans to entailment —
   ``contradicted`` when contradiction is the verifier's most likely label, else
   ``unverifiable`` (decisive NLI, 4, comes first):
   an entailment from a small verifier cannot vouch for a name the context never states
   ("Myricaceae" for "Myrtaceae", "52 episodes"). Score = the larger of the weighted mean (6)
   and ``(1 + grounding score) / 2``, so at least 0.5 and higher the more is missing.
6. ``hybrid`` mode otherwise: score = ``weight * nli + (1 - weight) * grounding``; the fact is
   supported below the threshold, else labelled by the NLI decision (``contradicted`` when the
   evidence contradicts, else ``unverifiable``).

Whatever the branch, a fact whose score is below the judge's ``threshold`` is ``supported``
(at the default 0.5 no rule's label is ever overruled so: each of 2, 4 and 5 scores at least
0.5), so a raised threshold moves facts, sentences and spans together.

``decided_by`` names the signal that decided: ``value_conflict`` (or ``role_conflict``,
``exception_conflict``, ``negation_conflict``, ``direction_conflict``,
``value_role_conflict``, ``name_role_conflict``, ``agent_conflict``, ``uniqueness_conflict``,
``identity_conflict``, ``quantifier_conflict``, ``antonym_conflict``, ``duration_conflict``,
``status_conflict``, ``pairing_conflict``, ``hedge_conflict``) for 2, ``grounding`` for 3,
``absent_name`` for 5, ``grounding`` when the weighted grounding term outweighs the NLI term in
6, else ``nli``. (The detector sets ``quoted`` on the facts of a sentence the context states
word for word, after this judgement: :mod:`enoki_hd.verify.quoted`.)

**An entailed refinement vouches for its ancestors** (:meth:`FactJudge.judge`,
``refinement_support``): a fact that only its words' grounding failed (``decided_by`` grounding
in 6: no conflict, no absent name, NLI not decisive) is supported when the verifier decisively
entails one of its supported refinements (not-entailed at most ``1 - NLI_DECISIVE``, the
mirror of rule 4's bar) — the refinement holds every word of the fact, and whatever entails
"takes 90 minutes in calm conditions" entails "takes 90 minutes in conditions", whose
"conditions" the context words "calm weather". ``decided_by="refinement"``, score = the
refinement's. A refinement merely leaning to entailment vouches for nothing: its grounding
checked only its own added words, not the ancestor's.

**A year inside a decade or century vouches for it** (``period_support``, on): in ``hybrid``
mode, a fact that failed on the verifier's reading or its words' grounding alone and dates
itself by a decade or a century ("founded in the late 1990s") is supported when the verifier
entails it restated with the year its evidence gives the fact's event inside that period
("founded in 1998"): :meth:`FactJudge.periods_to_check` lists the restatements, the detector
judges them, :meth:`FactJudge.vouch_by_periods` reads the decisions. ``decided_by="period"``,
score and evidence the restatement's (:mod:`enoki_hd.verify.periods`). The same for a length
in years ("directed the observatory for 18 years"), restated as the period of an evidence
sentence that lasts it ("from 1996 to 2014" of "from 1996 until her retirement in 2014"): the
verifier reads dates, it does not do sums. This one also lifts an absent name when every name
or number the fact blames is part of the length ("18" is in no context that dates the tenure).

**A sentence entailed whole vouches for its facts** (opt-in, ``sentence_entailment``): in
``hybrid`` mode, a fact that the verifier's own reading failed (``decided_by`` nli: decisive
NLI, 4, or the NLI term outweighing grounding in 6 — never a conflict, an absent name or
grounding) is supported when its whole answer sentence, judged as one hypothesis against its own
evidence, is entailed with probability at least ``sentence_entailment``: a fragment such as
"team has not ruled out workshop" reads as a contradiction (0.99) to a small SNLI-trained
verifier where the sentence it comes from ("… possibly a grain store, though the team has not
yet ruled out other uses such as a workshop") is entailed. ``decided_by="sentence"``, score =
the sentence's hallucination probability, evidence = the sentence's. Off by default: on the
development sets it lowers the suite's false alarms (0.600 → 0.508 at 0.7) and raises WiCE, but
it also clears real errors in long, compositional sentences, whose whole-sentence entailment
the small verifier overrates (RAGTruth-48 and Factcheck lose about 0.03 ROC-AUC; README,
"Fewer false alarms, opt-in").

``calibrated`` mode replaces the rule by a fitted logistic regression over the same signals
(:mod:`enoki_hd.verify.calibration`): score = its probability, ``decided_by="calibrated"``; a
fact at or above the calibration's threshold is ``contradicted`` when its evidence contradicts or
a value conflicts, else ``unverifiable``.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from enoki_hd.project import blamed_spans
from enoki_hd.text import merge_spans
from enoki_hd.types import (
    Evidence,
    Fact,
    FactLabel,
    FactVerdict,
    NLIScores,
    SentenceLabel,
    SentenceVerdict,
    Span,
)
from enoki_hd.verify.calibration import FusionCalibration, fusion_features
from enoki_hd.verify.conflicts import Conflict, find_conflict
from enoki_hd.verify.evidence import EvidenceDecision
from enoki_hd.verify.grounding import (
    CONTRADICTED_HALL_FLOOR,
    GroundingIndex,
    GroundingResult,
    Written,
    ground,
    parse_dates,
    rate_spans,
)
from enoki_hd.verify.periods import (
    duration_phrases,
    relative_year_phrases,
    restated_durations,
    restated_periods,
    restated_relative_years,
    year_count,
)

VerificationMode = Literal["nli", "grounding", "hybrid", "calibrated"]
VERIFICATION_MODES: tuple[VerificationMode, ...] = ("nli", "grounding", "hybrid", "calibrated")
_MODES_TEXT = "'nli', 'grounding', 'hybrid' or 'calibrated'"

# A not-entailed probability this high is taken as the verifier's evidence against the fact,
# even when all its words occur in the context. Fixed a priori, not fitted on any benchmark:
# of the 5,736 SNLI test pairs the shipped verifier puts at or above it, 97.1% are indeed not
# entailed (gold neutral or contradiction).
NLI_DECISIVE = 0.9
# The words that deny what a fact's blamed words say ("no British commander", "never won").
_DENIAL_RE = re.compile(
    r"\b(?:no(?!\.\s*\d)|not|never|none|nothing|nobody|neither|nor|cannot)\b|n't", re.I
)
# the signals whose failure a period's restatement can lift: not a conflict, not an absent name
_PERIOD_DECIDERS = frozenset({"nli", "grounding"})


def _denies(answer: str, spans: Sequence[Span]) -> bool:
    """Whether a word of ``spans`` in ``answer`` denies ("no", "not", "never", "n't", ...)."""
    return any(_DENIAL_RE.search(answer[span.start : span.end]) for span in spans)


def _only_the_length_unfound(answer: str, verdict: FactVerdict) -> bool:
    """Whether the fact failed as an absent name and every name or number it blames is part
    of a length in years of ``answer`` ("18 years", which a context dating the same thing
    from 1996 to 2014 never writes; a plain word it blames, "directed" for the context's
    "director", is the verifier's to read): the one such verdict a restated length may
    still overturn."""
    if verdict.decided_by != "absent_name" or not verdict.blamed:
        return False
    lengths = [(start, end) for start, end, _ in duration_phrases(answer)]
    lengths += relative_year_phrases(answer)

    def in_length(span: Span) -> bool:
        return any(start <= span.start and span.end <= end for start, end in lengths)

    named = [
        b
        for b in verdict.blamed
        if any(c.isdigit() for c in answer[b.start : b.end])
        or answer[b.start : b.end][:1].isupper()
        or year_count(answer[b.start : b.end]) is not None
    ]
    return bool(named) and all(in_length(b) for b in named)


@dataclass(frozen=True)
class Fusion:
    """The fused judgement of one fact: ``score`` (hallucination score in [0, 1]), the label
    when the rule fixes it (None: label from ``score`` and the NLI decision), the deciding
    signal."""

    score: float
    label: FactLabel | None
    decided_by: str


def fuse(
    nli: NLIScores,
    grounding: GroundingResult | None,
    *,
    mode: VerificationMode,
    weight: float = 0.5,
    conflict: Conflict | None = None,
    absent_names: bool = True,
) -> Fusion:
    """Fuse an NLI decision with a grounding result by the rule in the module docstring.

    Raises:
        ValueError: unknown ``mode``, a hallucination probability outside [0, 1] or NaN, or
            ``weight`` outside [0, 1].
    """
    if mode not in VERIFICATION_MODES or mode == "calibrated":
        raise ValueError(
            f"mode must be 'nli', 'grounding' or 'hybrid' (calibrated fusion is "
            f"FactJudge's), got {mode!r}"
        )
    # float32 sums can exceed 1 by a few ulps
    hall = nli.hall_prob
    if not (math.isfinite(hall) and -1e-4 <= hall <= 1 + 1e-4):
        raise ValueError(f"the NLI hallucination probability must be in [0, 1], got {hall!r}")
    hall = min(1.0, max(0.0, hall))
    if not 0 <= weight <= 1:
        raise ValueError(f"weight must be in [0, 1], got {weight!r}")
    if mode == "nli" or grounding is None or grounding.status == "empty":
        return Fusion(hall, None, "nli")
    if grounding.status == "mismatch" or conflict is not None:
        floor = grounding.score if mode == "grounding" else hall
        decided_by = "value_conflict" if conflict is None else conflict.decided_by
        label: FactLabel = "contradicted"
        if conflict is not None and grounding.status != "mismatch":
            label = conflict.label
        return Fusion(max(CONTRADICTED_HALL_FLOOR, floor), label, decided_by)
    if mode == "grounding":
        label = "unverifiable" if grounding.status == "absent" else "supported"
        return Fusion(grounding.score, label, "grounding")
    if hall >= NLI_DECISIVE:
        label = "contradicted" if nli.contradiction > nli.neutral else "unverifiable"
        return Fusion(hall, label, "nli")
    nli_part, grounding_part = weight * hall, (1 - weight) * grounding.score
    if absent_names and grounding.missing_names:
        score = max(nli_part + grounding_part, (1 + grounding.score) / 2)
        contradicts = nli.contradiction > max(nli.neutral, nli.entailment)
        return Fusion(score, "contradicted" if contradicts else "unverifiable", "absent_name")
    decided_by = "grounding" if grounding_part > nli_part else "nli"
    return Fusion(nli_part + grounding_part, None, decided_by)


@dataclass(frozen=True)
class FactJudge:
    """Turns each fact's evidence decision (and grounding) into a :class:`FactVerdict`.

    Args:
        verification: ``nli``, ``grounding``, ``hybrid`` (see :func:`fuse`) or ``calibrated``
            (``calibration``'s logistic regression).
        hybrid_weight: weight of the NLI score in ``hybrid``.
        threshold: a fact whose fused score is at least this is not supported.
        calibration: the fitted fusion, required by ``calibrated``.
        record_features: keep each fact's fusion features on its verdict (``features``);
            always on in ``calibrated`` mode. ``make calibrate`` fits on them.
        conflicts: look for structural conflicts (:mod:`enoki_hd.verify.conflicts`) in the
            ``hybrid`` and ``grounding`` modes.
        absent_names: in ``hybrid`` mode, a fact with a number, date or name found nowhere in
            the context is not supported unless NLI is decisive (rule 5 of :func:`fuse`).
        refinement_support: a fact failed by its words' grounding alone is supported when
            the verifier decisively entails one of its supported refinements (see the module
            docstring).
        period_support: a fact dated by a decade or a century that failed is supported when
            the verifier entails it restated with a year inside the period (see the module
            docstring).
        root_delta: a root fact is also grounded on its delta (its object) alone, and the
            higher absent share counts — for extractors whose root facts are coarse (the
            encoder's rows carry whole clauses; the rules' roots are short heads whose
            refinements are grounded apart). Off: all its words only.
    """

    verification: VerificationMode = "hybrid"
    hybrid_weight: float = 0.5
    threshold: float = 0.5
    calibration: FusionCalibration | None = None
    record_features: bool = False
    conflicts: bool = True
    absent_names: bool = True
    refinement_support: bool = True
    root_delta: bool = False
    sentence_entailment: float | None = None
    period_support: bool = True

    def __post_init__(self) -> None:
        if self.verification not in VERIFICATION_MODES:
            raise ValueError(f"verification must be {_MODES_TEXT}, got {self.verification!r}")
        if self.verification == "calibrated" and self.calibration is None:
            raise ValueError(
                "verification='calibrated' needs a fusion calibration (fusion.json next to the "
                "verifier, written by `make calibrate`); pass calibration=<path> or use "
                "verification='hybrid'"
            )
        if not 0.0 <= self.hybrid_weight <= 1.0:
            raise ValueError(f"hybrid_weight must be in [0, 1], got {self.hybrid_weight}")
        if not 0.0 <= self.threshold <= 1.0:
            raise ValueError(f"threshold must be in [0, 1], got {self.threshold}")
        minimum = self.sentence_entailment
        if minimum is not None and not (
            isinstance(minimum, (int, float))
            and not isinstance(minimum, bool)
            and 0 <= minimum <= 1
        ):
            raise ValueError(
                f"sentence_entailment must be a number in [0, 1] or None (off), got {minimum!r}"
            )

    @property
    def uses_grounding(self) -> bool:
        return self.verification != "nli"

    @property
    def names_rule(self) -> bool:
        """Whether absent names decide (rule 5 of :func:`fuse`): ``hybrid`` with
        ``absent_names``."""
        return self.verification == "hybrid" and self.absent_names

    @property
    def needs_sentence_nli(self) -> bool:
        """Whether each fact's sentence must also be judged whole (a fusion feature)."""
        return self.verification == "calibrated" or self.record_features

    def sentences_to_vouch(self, verdicts: list[FactVerdict]) -> list[int]:
        """The sentences whose whole-sentence decision ``sentence_entailment`` would read:
        those with a fact failed by the verifier's reading of it alone (none when the option
        is off or the mode is not ``hybrid``). Judging only these keeps the option's cost to
        the sentences it can change."""
        if self.sentence_entailment is None or self.verification != "hybrid":
            return []
        return sorted(
            {v.fact.sentence for v in verdicts if v.label != "supported" and v.decided_by == "nli"}
        )

    def vouch_by_sentences(
        self, verdicts: list[FactVerdict], sentence_decisions: Mapping[int, EvidenceDecision]
    ) -> list[FactVerdict]:
        """``verdicts`` with the facts their sentence's whole-sentence decision vouches for
        relabelled (``sentence_entailment``; the module docstring); unchanged when it is off.
        :meth:`judge` applies it to the decisions it is given."""
        if self.sentence_entailment is None or self.verification != "hybrid":
            return verdicts
        return _vouched_by_sentences(
            verdicts, sentence_decisions, self.sentence_entailment, self.threshold
        )

    def periods_to_check(
        self, verdicts: list[FactVerdict], answer: str | None = None, context: str | None = None
    ) -> list[tuple[int, str]]:
        """The restatements :meth:`vouch_by_periods` reads, as (verdict index, hypothesis): for
        each fact that failed on the verifier's reading or its words' grounding alone (no
        conflict, no absent name) and dates itself by a decade or a century, its hypothesis
        with the period replaced by each year of its evidence inside it
        (:func:`~enoki_hd.verify.periods.restated_periods`); then for each fact that failed so,
        or on an absent name that is only a length in years of ``answer``, and states such a
        length, its hypothesis with the length replaced by an evidence period that lasts it
        (:func:`~enoki_hd.verify.periods.restated_durations`); last, given the ``context``,
        for each fact that failed so and states a time between its event and another ("two
        years before it moved into its present boathouse"; an absent name only that time), its
        hypothesis with its event dated by the year that time from the other event's
        (:func:`~enoki_hd.verify.periods.restated_relative_years`); none when
        ``period_support`` is off or the mode is not ``hybrid``."""
        if not self.period_support or self.verification != "hybrid":
            return []
        out = [
            (i, restated)
            for i, v in enumerate(verdicts)
            if v.label != "supported"
            and v.decided_by in _PERIOD_DECIDERS
            and v.evidence is not None
            for restated in restated_periods(v.hypothesis, v.evidence.text, v.fact.relation)
        ]

        def restatable(v: FactVerdict) -> bool:
            """Failed on the verifier's reading or the grounding alone, or on an absent name
            that is only a length or a time between two events of the answer."""
            return v.label != "supported" and (
                v.decided_by in _PERIOD_DECIDERS
                or (answer is not None and _only_the_length_unfound(answer, v))
            )

        out += [
            (i, restated)
            for i, v in enumerate(verdicts)
            if v.evidence is not None and restatable(v)
            for restated in restated_durations(v.hypothesis, v.evidence.text)
        ]
        if context is None:
            return out
        return out + [
            (i, restated)
            for i, v in enumerate(verdicts)
            if restatable(v)
            for restated in restated_relative_years(v.hypothesis, context)
        ]

    def vouch_by_periods(
        self,
        verdicts: list[FactVerdict],
        decisions: Sequence[tuple[int, EvidenceDecision]],
    ) -> list[FactVerdict]:
        """``verdicts`` with each fact whose restatement with a year inside its period
        (:meth:`periods_to_check`) the verifier entails — entailment its most likely label,
        a hallucination probability below the threshold — relabelled ``supported``
        (``decided_by="period"``; its score and evidence the restatement's)."""
        best: dict[int, EvidenceDecision] = {}
        for i, decision in decisions:
            probs = decision.probs
            if probs.entailment <= max(probs.neutral, probs.contradiction):
                continue
            if probs.hall_prob >= self.threshold:
                continue
            if i not in best or probs.hall_prob < best[i].probs.hall_prob:
                best[i] = decision
        out = list(verdicts)
        for i, decision in best.items():
            out[i] = replace(
                verdicts[i],
                label="supported",
                decided_by="period",
                score=round(decision.probs.hall_prob, 6),
                evidence=decision.evidence,
                blamed=None,
            )
        return out

    def judge(
        self,
        answer: str,
        facts: list[Fact],
        hypotheses: list[str],
        decisions: list[EvidenceDecision],
        *,
        grounding: GroundingIndex | None = None,
        question: str | None = None,
        sentence_decisions: Mapping[int, EvidenceDecision] | None = None,
    ) -> list[FactVerdict]:
        """One verdict per fact, in order. ``grounding`` indexes the whole context (needed
        unless ``verification == "nli"``); ``sentence_decisions`` holds the whole-sentence NLI
        decision per sentence index (a feature of calibrated fusion, and what
        ``sentence_entailment`` reads)."""
        if self.uses_grounding and grounding is None and facts:
            raise ValueError(f"verification={self.verification!r} needs a grounding index")
        sentence_decisions = sentence_decisions or {}
        verdicts = [
            self._judge_one(
                answer,
                fact,
                hypothesis,
                decision,
                grounding,
                question,
                sentence_decisions.get(fact.sentence),
            )
            for fact, hypothesis, decision in zip(facts, hypotheses, decisions, strict=True)
        ]
        if self.refinement_support and self.verification == "hybrid":
            verdicts = _vouched_by_refinements(verdicts)
        return self.vouch_by_sentences(verdicts, sentence_decisions)

    def _judge_one(
        self,
        answer: str,
        fact: Fact,
        hypothesis: str,
        decision: EvidenceDecision,
        grounding: GroundingIndex | None,
        question: str | None,
        sentence_decision: EvidenceDecision | None = None,
    ) -> FactVerdict:
        result = None
        offsets: list[tuple[int, int]] = []
        widened = False  # a refinement's delta widened to its whole date or rate (whole_dates)
        if self.uses_grounding:
            # A root fact is new as a whole: its subject and relation words can be the
            # hallucination too ("Noel Gallagher founded the band"); a refinement adds its delta.
            refinement = fact.parent is not None and bool(fact.delta)
            parts = (
                whole_rates(answer, fact, whole_dates(answer, fact, fact.delta))
                if refinement
                else fact.subject_spans + fact.relation_spans + fact.object_spans
            )
            widened = refinement and parts is not fact.delta
            parts = cut_dates_widened(answer, parts)
            evidence_text = decision.evidence.text if decision.evidence else ""

            def grounded(spans: list[Span]) -> tuple[GroundingResult, str, list[tuple[int, int]]]:
                joined, at = join_spans(answer, spans)
                written = _written_in(answer, at)
                found = ground(
                    joined, evidence_text, question=question, scope=grounding, written=written
                )
                return found, joined, at

            result, text, offsets = grounded(parts)
            if self.root_delta and not refinement and fact.delta and fact.delta != parts:
                # a coarse root fact: what it asserts (its object) is also grounded alone, so
                # one new word is not diluted among the fact's other words (the blame, a value
                # conflict's included, then maps through the object's own offsets)
                alone = grounded(cut_dates_widened(answer, fact.delta))
                if alone[0].score > result.score:
                    result, text, offsets = alone
        features = None
        if self.needs_sentence_nli:
            features = fusion_features(
                decision.probs,
                sentence_decision.probs if sentence_decision is not None else None,
                result,
                refinement=fact.parent is not None and bool(fact.delta),
            )
        conflict = None
        if self.verification == "calibrated":
            assert self.calibration is not None and features is not None
            fusion = self._calibrated(decision, features)
        else:
            if self.conflicts and self.uses_grounding and decision.evidence is not None:
                # a value the grounding check already found in conflict is a value conflict
                value_role = result is None or result.status != "mismatch"
                conflict = find_conflict(
                    fact, decision.evidence.text, value_role=value_role, answer=answer
                )
            fusion = fuse(
                decision.probs,
                result,
                mode=self.verification,
                weight=self.hybrid_weight,
                conflict=conflict,
                absent_names=self.absent_names,
            )
        # the threshold has the last word: a rule's label (a conflict, decisive NLI, an absent
        # name) stands only at or above it, so a raised threshold never leaves a fact
        # "contradicted" that its sentence and the spans count as supported
        label: FactLabel
        if fusion.score < self.threshold:
            label = "supported"
        elif fusion.label is not None:
            label = fusion.label
        else:
            label = decision.label if decision.label != "supported" else "unverifiable"
        # Blame only the words with no trace in the context when there are such words.
        blamed = None
        if result is not None:
            blamed = [p for span in result.missing_spans for p in answer_pieces(span, offsets)]
            blamed = blamed or None
            # a denial the verifier contradicts is wrong as a whole: its polarity, not only the
            # words the context lacks ("there | was | no British commander named "Robertson""
            # blames the object, not "Robertson" alone)
            denial = label == "contradicted" and fusion.decided_by == "nli"
            if blamed and denial and _denies(answer, blamed_spans(fact)):
                blamed = None
            if blamed and widened:
                # a wrong date of a refinement: blame what the refinement added ("5" of
                # "5 March 1950"), not the month and year its ancestors vouch for
                blamed = _within(blamed, fact.delta) or blamed
            if conflict is not None and conflict.value is not None:
                # a value given the wrong role, a universal said of a part, a word swapped for
                # its opposite: that is what is wrong
                at = text.rfind(conflict.value)
                if at >= 0:
                    blamed = answer_pieces(Span(at, at + len(conflict.value)), offsets)
        return FactVerdict(
            fact=fact,
            hypothesis=hypothesis,
            probs=rounded(decision.probs),
            label=label,
            evidence=decision.evidence,
            decided_by=fusion.decided_by,
            score=round(fusion.score, 6),
            blamed=blamed,
            features=features,
        )

    def judge_fallback(
        self,
        sentence: SentenceVerdict,
        decision: EvidenceDecision,
        grounding: GroundingIndex,
        question: str | None = None,
    ) -> SentenceVerdict:
        """A sentence without facts (``sentence-nli-fallback``) judged like a fact in
        ``hybrid`` mode: its whole-sentence NLI decision fused (:func:`fuse`) with the grounding
        of its words, so that a bare "Skyfall" the context never mentions is not vouched for by
        an NLI model that never saw a fact in it. Other modes, and sentences judged otherwise,
        are returned as they are."""
        if self.verification != "hybrid" or sentence.method != "sentence-nli-fallback":
            return sentence
        evidence_text = decision.evidence.text if decision.evidence else ""
        result = ground(sentence.text, evidence_text, question=question, scope=grounding)
        fusion = fuse(
            decision.probs,
            result,
            mode="hybrid",
            weight=self.hybrid_weight,
            absent_names=self.absent_names,
        )
        if fusion.score < self.threshold:
            label: SentenceLabel = "supported"
        elif fusion.label is not None:
            label = fusion.label
        else:
            label = decision.label if decision.label != "supported" else "unverifiable"
        return replace(sentence, score=round(fusion.score, 6), label=label)

    def _calibrated(self, decision: EvidenceDecision, features: Mapping[str, float]) -> Fusion:
        assert self.calibration is not None
        score = self.calibration.probability(features)
        if score < self.threshold:
            return Fusion(score, "supported", "calibrated")
        probs = decision.probs
        contradicts = features["value_conflict"] > 0 or probs.contradiction > probs.neutral
        return Fusion(score, "contradicted" if contradicts else "unverifiable", "calibrated")


# the failures a value the context lists overrules (a table of hours, a listing's yes or no):
# the verifier's reading, the words' grounding, an absent name ("PM"); never a conflict
# another check found
VOUCHABLE = frozenset({"nli", "grounding", "absent_name"})


def relabel(
    verdict: FactVerdict,
    label: FactLabel,
    decided_by: str,
    evidence: Evidence,
    blamed: list[Span] | None = None,
) -> FactVerdict:
    """``verdict`` decided by a value the context lists (``verify/hours.py``,
    ``verify/attributes.py``): ``supported`` at score 0 and blaming nothing; a failing label
    at least the contradiction floor, blamed for ``blamed`` and not suppressed (the listing
    names what is wrong)."""
    if label == "supported":
        return replace(
            verdict, label=label, decided_by=decided_by, score=0.0, evidence=evidence, blamed=None
        )
    return replace(
        verdict,
        label=label,
        decided_by=decided_by,
        score=round(max(verdict.score or 0.0, CONTRADICTED_HALL_FLOOR), 6),
        evidence=evidence,
        blamed=blamed,
        suppressed=False,
    )


def _vouched_by_refinements(verdicts: list[FactVerdict]) -> list[FactVerdict]:
    """Verdicts with every fact failed by grounding alone relabelled ``supported`` when a
    refinement of it (a descendant in its chain) is supported and decisively entailed."""
    by_id = {v.fact.id: i for i, v in enumerate(verdicts)}
    supporter: dict[str, FactVerdict] = {}
    for verdict in verdicts:
        if verdict.label != "supported" or verdict.probs.hall_prob > 1 - NLI_DECISIVE:
            continue
        parent = verdict.fact.parent
        while parent is not None and parent in by_id:
            supporter.setdefault(parent, verdict)
            parent = verdicts[by_id[parent]].fact.parent
    out = []
    for verdict in verdicts:
        refinement = supporter.get(verdict.fact.id)
        if verdict.label != "supported" and verdict.decided_by == "grounding" and refinement:
            verdict = replace(
                verdict,
                label="supported",
                decided_by="refinement",
                score=refinement.score,
                blamed=None,
            )
        out.append(verdict)
    return out


def _vouched_by_sentences(
    verdicts: list[FactVerdict],
    sentence_decisions: Mapping[int, EvidenceDecision],
    minimum: float,
    threshold: float,
) -> list[FactVerdict]:
    """Verdicts with every fact failed by the verifier's reading of it alone (``decided_by``
    nli) relabelled ``supported`` when its sentence, judged whole, is entailed at least
    ``minimum`` and scores below ``threshold`` (the threshold has the last word); the
    sentence's score and evidence replace the fact's."""
    out = []
    for verdict in verdicts:
        decision = sentence_decisions.get(verdict.fact.sentence)
        if (
            verdict.label != "supported"
            and verdict.decided_by == "nli"
            and decision is not None
            and decision.probs.entailment >= minimum
            and decision.probs.hall_prob < threshold
        ):
            verdict = replace(
                verdict,
                label="supported",
                decided_by="sentence",
                score=round(decision.probs.hall_prob, 6),
                evidence=decision.evidence,
                blamed=None,
            )
        out.append(verdict)
    return out


def whole_dates(answer: str, fact: Fact, delta: list[Span]) -> list[Span]:
    """A refinement's ``delta`` widened to each date of the fact it falls in.

    Date chains refine "born in 1950" to "born in March 1950" to "born on 4 March 1950", so
    a delta is a month name or a day number; grounded alone, neither is found, since the
    context's "4 March 1950" is read as one date, not as the number 4 and the word "March".
    The fact's date is grounded whole instead: found when the context states it (or a finer
    date that agrees with it), a mismatch when it states another. ``delta`` itself is
    returned when it touches no date (the list object, so callers can tell).

    A fact's date may be pieces of the answer's: "November 2018" of "died on November 10,
    2018" (the day left out); its pieces are then added, so the month is grounded as that
    month, not as a word the context never writes ("Nov 10, 2018").
    """
    return _widened(answer, fact, delta, lambda text: [d.span for d in parse_dates(text)])


def whole_rates(answer: str, fact: Fact, delta: list[Span]) -> list[Span]:
    """A refinement's ``delta`` widened to each rate of the fact it falls in, as
    :func:`whole_dates` widens it to a date: "per day" refining "at least 4 hours" is
    grounded as "4 hours per day", so that "4 hours per week" in the context is a mismatch,
    not a missing word. ``delta`` itself when it touches no rate."""
    return _widened(answer, fact, delta, rate_spans, as_written=False)


def _widened(
    answer: str,
    fact: Fact,
    delta: list[Span],
    values: Callable[[str], list[Span]],
    *,
    as_written: bool = True,
) -> list[Span]:
    """``delta`` widened to each value (``values`` of the fact's joined parts) it touches,
    the value's pieces in the answer added; ``delta`` itself (the list object) when it
    touches none. ``as_written``: only values whose words are the answer's words as joined."""
    parts = sorted(fact.subject_spans + fact.relation_spans + fact.object_spans)
    text, offsets = join_spans(answer, parts)
    touched: list[Span] = []
    for value in values(text):
        pieces = answer_pieces(value, offsets)
        if as_written and " ".join(p.text(answer) for p in pieces) != value.text(text):
            continue  # the value's words are not the answer's words as joined
        if any(p.start < d.end and d.start < p.end for d in pieces for p in delta):
            touched.extend(pieces)
    if not touched:
        return delta
    return merge_spans([*delta, *touched])


def answer_pieces(span: Span, offsets: list[tuple[int, int]]) -> list[Span]:
    """A span of the joined text of :func:`join_spans` as the pieces of the answer it covers,
    in order (one per joined piece it overlaps; :func:`to_answer_span` maps by its start
    alone)."""
    pieces = []
    ends = [start - 1 for start, _ in offsets[1:]] + [span.end]  # a piece ends before the space
    for (joined_start, answer_start), joined_end in zip(offsets, ends, strict=True):
        start, end = max(span.start, joined_start), min(span.end, joined_end)
        if start < end:
            shift = answer_start - joined_start
            pieces.append(Span(start + shift, end + shift))
    return pieces


_BARE_DAY_RE = re.compile(r"\d{1,2}(?:st|nd|rd|th)?")


@functools.lru_cache(maxsize=64)
def _answer_dates(answer: str) -> tuple[Span, ...]:
    return tuple(d.span for d in parse_dates(answer))


def cut_dates_widened(answer: str, parts: list[Span]) -> list[Span]:
    """``parts`` widened to each date of the answer that a part cuts at its day: "born 10" of
    "(born 10 March 1937)", "… 1919 – 17" of "(18 March 1919 – 17 June 1990)", where the parse
    ended a fact inside a date. A day number alone is no value to ground (the context's date
    is read whole), so the answer's date is grounded instead. A part that holds more of the
    date than its day ("March 1950" of "5 March 1950") is left as it is: that is a coarser
    fact of a date chain, for :func:`whole_dates`. ``parts`` itself is returned when no part
    cuts a date (the list object)."""
    cut = []
    for date in _answer_dates(answer):
        for part in parts:
            start, end = max(part.start, date.start), min(part.end, date.end)
            inside = part.start <= date.start and date.end <= part.end
            if start < end and not inside and _BARE_DAY_RE.fullmatch(answer[start:end]):
                cut.append(date)
                break
    if not cut:
        return parts
    return merge_spans([*parts, *cut])


def _within(spans: list[Span], bounds: list[Span]) -> list[Span]:
    """The parts of ``spans`` inside any of ``bounds``."""
    out = []
    for span in spans:
        for bound in bounds:
            start, end = max(span.start, bound.start), min(span.end, bound.end)
            if start < end:
                out.append(Span(start, end))
    return out


def join_spans(answer: str, spans: list[Span]) -> tuple[str, list[tuple[int, int]]]:
    """The spans' texts (half-open offsets into ``answer``) joined by single spaces, with
    ``(offset in joined text, answer start)`` per piece so positions in the joined text map
    back to the answer (:func:`to_answer_span`)."""
    pieces, offsets, cursor = [], [], 0
    for span in sorted(spans):
        offsets.append((cursor, span.start))
        pieces.append(span.text(answer))
        cursor += len(span) + 1
    return " ".join(pieces), offsets


def _written_in(answer: str, offsets: list[tuple[int, int]]) -> Written:
    """For the joined text of :func:`join_spans`: where a word at an offset of it stands in
    ``answer`` (a fact's first word is no sentence start unless the answer's sentence begins
    with it)."""

    def written(position: int) -> tuple[str, int]:
        return answer, to_answer_span(Span(position, position), offsets).start

    return written


def to_answer_span(span: Span, offsets: list[tuple[int, int]]) -> Span:
    """A span of the joined text of :func:`join_spans` as a span of the answer."""
    joined_start, answer_start = next(o for o in reversed(offsets) if o[0] <= span.start)
    shift = answer_start - joined_start
    return Span(span.start + shift, span.end + shift)


def rounded(probs: NLIScores) -> NLIScores:
    """``probs`` rounded to 6 decimals (stable JSON)."""
    return NLIScores(
        round(probs.entailment, 6), round(probs.neutral, 6), round(probs.contradiction, 6)
    )
