"""Hypotheses longer than the verifier can judge: split, judge each piece, aggregate.

A cross-encoder sees premise and hypothesis in one sequence of ``max_length`` tokens. A
hypothesis that takes more than :data:`MAX_HYPOTHESIS_SHARE` of it leaves too little room for
evidence, so it is split (:func:`split_hypothesis`): at clause boundaries first (``;``, ``:``,
``,``, and before coordinating words such as "and", "but", "while", "which"), clauses packed
greedily back together while they fit; a clause that alone does not fit is cut into
overlapping word windows (half a window of overlap, so no fact straddles a cut unseen).

Each piece is judged against its own evidence and the verdicts are aggregated
(:func:`aggregate_pieces`) by the weakest link: the hypothesis is supported only when every
piece is; otherwise the worst piece (highest hallucination probability) decides — its
probabilities and evidence — and the label is ``contradicted`` when any piece is contradicted.
The split is recorded in the report (``split``: the pieces' half-open offsets into the
hypothesis text). Nothing is ever cut silently.

:func:`verify_chains` judges the facts of coarse-to-fine chains refinements first. A
refinement ("X located at 3132 State St in Santa Barbara") says everything its ancestors say
("X located at State St") and more, so when the verifier finds it supported with entailment of
at least ``inherit_threshold``, its ancestors take that decision instead of being judged
themselves. This saves NLI pairs (on RAGTruth-sized answers, about two in five at 0.5) and
keeps a chain consistent: an ancestor the extractor cut badly ("Restaurant is open from PM")
is no longer flagged beside the refinement that vouches for it. It is off by default: the
ancestors' own judgements, noisy as they are, help rank hallucinated sentences (RAGTruth-48
ROC-AUC 0.720 judged, 0.701 inheriting at 0.9, 0.688 at 0.5; see the README's Speed
section). Monotonicity holds only outside negation and other downward-entailing words ("did
not win in 2019" does not say "did not win"), so a refinement or ancestor holding one
(:data:`DOWNWARD_WORDS`) never passes its decision on.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from enoki_hd.text import tokenize_words
from enoki_hd.types import Fact, FactLabel, Span
from enoki_hd.verify.evidence import EvidenceDecision, EvidenceIndex, EvidenceSelector
from enoki_hd.verify.nli import Verifier

logger = logging.getLogger(__name__)

MAX_CHARS_PER_TOKEN = 16
"""Characters one token is assumed to cover at most when a word is cut to fit
(:func:`_cut_word`); a piece may come out shorter than would fit, never longer."""

MAX_HYPOTHESIS_SHARE = 0.5
"""Largest share of the verifier's ``max_length`` one hypothesis piece may take."""

_DOWNWARD_TEXT = """not never no none nobody nothing neither nor cannot without few fewer less
least only hardly barely rarely seldom scarcely except unless fail fails failed deny denies
denied refuse refuses refused lack lacks lacked"""
DOWNWARD_WORDS = frozenset(_DOWNWARD_TEXT.split())
"""Words under which adding a modifier weakens a claim instead of strengthening it (negation,
"few", "only", "without", ...): a hypothesis holding one (or a word ending in "n't") neither
passes its decision on to its ancestors nor takes one from a refinement."""

# A clause boundary: after ; : , (the punctuation stays with the left clause) or before a
# coordinating or relative word that follows a space.
_CLAUSE_BREAK_RE = re.compile(
    r"(?<=[;:,])\s+|\s+(?=(?:and|but|or|while|whereas|although|though|because|which|who|"
    r"where|when|so|yet)\b)",
    re.IGNORECASE,
)


@dataclass
class HypothesisDecision:
    """The decision for one hypothesis and how it was split (``split`` is empty when it was
    judged whole; else the pieces' half-open offsets into the hypothesis)."""

    decision: EvidenceDecision
    split: list[Span] = field(default_factory=list)


def hypothesis_budget(verifier: Verifier) -> int:
    """Tokens one hypothesis piece may take (special tokens of the pair excluded)."""
    return max(1, int(verifier.max_length * MAX_HYPOTHESIS_SHARE))


def split_hypothesis(text: str, count_tokens: Callable[[str], int], budget: int) -> list[Span]:
    """Pieces of ``text`` (half-open offsets into it) of at most ``budget`` tokens each, by
    the rule in the module docstring. A text that fits is one piece ``[0, len)``.

    Raises:
        ValueError: ``budget`` < 1.
    """
    if budget < 1:
        raise ValueError(f"budget must be >= 1 token, got {budget}")
    whole = Span(0, len(text))
    if count_tokens(text) <= budget:
        return [whole]
    clauses = clause_spans(text)
    pieces: list[Span] = []
    current: Span | None = None
    for clause in clauses:
        if current is not None and count_tokens(text[current.start : clause.end]) <= budget:
            current = Span(current.start, clause.end)
            continue
        if current is not None:
            pieces.append(current)
            current = None
        if count_tokens(clause.text(text)) <= budget:
            current = clause
        else:
            pieces.extend(_word_windows(text, clause, count_tokens, budget))
    if current is not None:
        pieces.append(current)
    return pieces


def clause_spans(text: str) -> list[Span]:
    """The clauses of ``text`` (half-open offsets into it) at the boundaries of
    :data:`_CLAUSE_BREAK_RE`; blank ones left out."""
    clauses, start = [], 0
    for match in _CLAUSE_BREAK_RE.finditer(text):
        if match.start() > start:
            clauses.append(Span(start, match.start()))
        start = match.end()
    if start < len(text):
        clauses.append(Span(start, len(text)))
    return [c for c in clauses if text[c.start : c.end].strip()]


def _word_windows(
    text: str, clause: Span, count_tokens: Callable[[str], int], budget: int
) -> list[Span]:
    """Overlapping windows of whole words over ``clause`` (offsets into ``text``); a word that
    alone is over budget (a run of 300 CJK characters is one word) is cut into pieces that
    fit (:func:`_cut_word`)."""
    words = [
        piece
        for w in tokenize_words(clause.text(text))
        for piece in _cut_word(
            text, Span(clause.start + w.start, clause.start + w.end), count_tokens, budget
        )
    ]
    if not words:
        return [clause]
    windows: list[Span] = []
    first = 0
    while True:
        last = first
        # grow the window while it fits
        while last + 1 < len(words) and (
            count_tokens(text[words[first].start : words[last + 1].end]) <= budget
        ):
            last += 1
        windows.append(Span(words[first].start, words[last].end))
        if last == len(words) - 1:
            return windows
        first = max(first + 1, first + (last - first + 1) // 2)
        # a window that could not reach the next word would only repeat part of this one
        while first <= last and (
            count_tokens(text[words[first].start : words[last + 1].end]) > budget
        ):
            first += 1


def _cut_word(text: str, word: Span, count_tokens: Callable[[str], int], budget: int) -> list[Span]:
    """``word`` (offsets into ``text``) as consecutive pieces of at most ``budget`` tokens
    each, each as long as fits (at least one character); the word itself when it fits."""
    if count_tokens(word.text(text)) <= budget:
        return [word]
    pieces: list[Span] = []
    start = word.start
    while start < word.end:
        # the longest end whose piece fits, by bisection over at most MAX_CHARS_PER_TOKEN
        # characters a token (a bound, so that a run of 30,000 characters stays linear)
        low, high = start + 1, min(word.end, start + budget * MAX_CHARS_PER_TOKEN)
        while low < high:
            middle = (low + high + 1) // 2
            if count_tokens(text[start:middle]) <= budget:
                low = middle
            else:
                high = middle - 1
        pieces.append(Span(start, low))
        start = low
    return pieces


def aggregate_pieces(decisions: Sequence[EvidenceDecision]) -> EvidenceDecision:
    """One decision from the decisions of a hypothesis's pieces (weakest link; see the module
    docstring)."""
    if not decisions:
        raise ValueError("no piece decisions to aggregate")
    worst = max(decisions, key=lambda d: d.probs.hall_prob)
    label: FactLabel
    if all(d.label == "supported" for d in decisions):
        label = "supported"
    elif any(d.label == "contradicted" for d in decisions):
        label = "contradicted"
    else:
        label = "unverifiable"
    return EvidenceDecision(label, worst.probs, worst.evidence, sum(d.n_windows for d in decisions))


def verify_hypotheses(
    selector: EvidenceSelector,
    verifier: Verifier,
    index: EvidenceIndex,
    hypotheses: Sequence[str],
    queries: Sequence[str | None] | None = None,
) -> list[HypothesisDecision]:
    """Judge every hypothesis against ``index`` in one batched verifier call, splitting the
    ones too long to judge whole; ``queries`` (one per hypothesis, or None) are passed to
    :meth:`EvidenceSelector.verify`, a split hypothesis's for each of its pieces."""
    if queries is not None and len(queries) != len(hypotheses):
        raise ValueError(f"{len(queries)} queries for {len(hypotheses)} hypotheses")
    budget = hypothesis_budget(verifier)
    splits: list[list[Span]] = []
    texts: list[str] = []
    piece_queries: list[str | None] = []
    for n, hypothesis in enumerate(hypotheses):
        pieces = split_hypothesis(hypothesis, verifier.count_tokens, budget)
        if len(pieces) > 1:
            logger.info(
                "hypothesis of %d characters exceeds %d tokens; judged in %d pieces",
                len(hypothesis),
                budget,
                len(pieces),
            )
        splits.append(pieces if len(pieces) > 1 else [])
        texts.extend(p.text(hypothesis) for p in pieces)
        piece_queries.extend([None if queries is None else queries[n]] * len(pieces))
    if queries is None:  # a selector of its own may take no queries
        flat = selector.verify(verifier, index, texts)
    else:
        flat = selector.verify(verifier, index, texts, piece_queries)
    out: list[HypothesisDecision] = []
    cursor = 0
    for split in splits:
        n = max(1, len(split))
        group = flat[cursor : cursor + n]
        cursor += n
        decision = group[0] if n == 1 else aggregate_pieces(group)
        out.append(HypothesisDecision(decision, split))
    return out


@dataclass
class ChainJudgement:
    """What :func:`verify_chains` decided: ``facts`` (one per fact, in order), ``extra`` (one
    per extra hypothesis, in order) and ``inherited`` (fact index → the index of the refinement
    whose decision it took instead of being judged)."""

    facts: list[HypothesisDecision]
    extra: list[HypothesisDecision]
    inherited: dict[int, int] = field(default_factory=dict)


def is_downward(hypothesis: str) -> bool:
    """Whether ``hypothesis`` holds a word of :data:`DOWNWARD_WORDS` or a word ending in "n't"."""
    words = [w.text(hypothesis).lower().replace("\u2019", "'") for w in tokenize_words(hypothesis)]
    return any(w in DOWNWARD_WORDS or w.endswith("n't") for w in words)


def verify_chains(
    selector: EvidenceSelector,
    verifier: Verifier,
    index: EvidenceIndex,
    facts: Sequence[Fact],
    hypotheses: Sequence[str],
    extra: Sequence[str] = (),
    *,
    inherit_threshold: float | None = None,
    queries: Sequence[str | None] | None = None,
) -> ChainJudgement:
    """Judge ``facts`` (verbalised as ``hypotheses``) and the ``extra`` hypotheses (whole
    sentences), refinements first (see the module docstring). ``queries`` (one per fact, or
    None) are passed to :meth:`EvidenceSelector.verify` with the facts' hypotheses (the
    extra ones have none).

    Rounds go from the finest facts up: round one judges every fact no other fact refines,
    with the extra hypotheses; each later round judges the facts whose refinements are all
    decided. Before it is judged, a fact whose refinement (at any depth) is ``supported`` with
    entailment >= ``inherit_threshold`` takes the decision of the most entailed such refinement
    (its probabilities and evidence, no split). None: every fact is judged, in one round.

    Raises:
        ValueError: ``hypotheses`` (or ``queries``) and ``facts`` differ in length, or
            ``inherit_threshold`` is outside [0, 1].
    """
    if len(hypotheses) != len(facts):
        raise ValueError(f"{len(hypotheses)} hypotheses for {len(facts)} facts")
    if queries is not None and len(queries) != len(facts):
        raise ValueError(f"{len(queries)} queries for {len(facts)} facts")
    fact_queries: list[str | None] = list(queries) if queries is not None else [None] * len(facts)
    if inherit_threshold is not None and not 0.0 <= inherit_threshold <= 1.0:
        raise ValueError(f"inherit_threshold must be in [0, 1] or None, got {inherit_threshold}")
    if inherit_threshold is None or not facts:
        judged = verify_hypotheses(
            selector,
            verifier,
            index,
            [*hypotheses, *extra],
            None if queries is None else [*fact_queries, *[None] * len(extra)],
        )
        return ChainJudgement(judged[: len(facts)], judged[len(facts) :])
    position = {fact.id: i for i, fact in enumerate(facts)}
    parent = [position.get(f.parent) if f.parent is not None else None for f in facts]
    children: list[list[int]] = [[] for _ in facts]
    for i, p in enumerate(parent):
        if p is not None:
            children[p].append(i)
    downward = [is_downward(h) for h in hypotheses]
    decided: dict[int, HypothesisDecision] = {}
    inherited: dict[int, int] = {}
    # the refinement (at any depth) whose decision a fact would take: most entailed first
    donor: dict[int, int] = {}

    threshold = inherit_threshold

    def offer(i: int) -> None:
        """Pass fact ``i``'s decision up its chain if it is decisive and monotone."""
        decision = decided[i].decision
        if downward[i] or decision.label != "supported" or decision.probs.entailment < threshold:
            return
        source = inherited.get(i, i)
        p, seen = parent[i], {i}
        while p is not None and p not in seen and not downward[p]:
            best = donor.get(p)
            if best is None or decided[best].decision.probs.entailment < decision.probs.entailment:
                donor[p] = source
            seen.add(p)
            p = parent[p]

    pending = set(range(len(facts)))
    extra_judged: list[HypothesisDecision] | None = None
    while pending or extra_judged is None:
        ready = sorted(i for i in pending if all(c in decided for c in children[i]))
        if pending and not ready:  # a cycle of parent links: judge what is left at once
            ready = sorted(pending)
        for i in ready:
            if i in donor:
                decided[i] = HypothesisDecision(dataclasses.replace(decided[donor[i]].decision))
                inherited[i] = donor[i]
                offer(i)
        ready = [i for i in ready if i not in inherited]
        more = list(extra) if extra_judged is None else []
        texts = [hypotheses[i] for i in ready] + more
        asked = None
        if queries is not None:
            asked = [fact_queries[i] for i in ready] + [None] * len(more)
        judged = verify_hypotheses(selector, verifier, index, texts, asked) if texts else []
        for i, judgement in zip(ready, judged, strict=False):
            decided[i] = judgement
            offer(i)
        if extra_judged is None:
            extra_judged = judged[len(ready) :]
        pending -= set(decided)
    return ChainJudgement([decided[i] for i in range(len(facts))], extra_judged, inherited)
