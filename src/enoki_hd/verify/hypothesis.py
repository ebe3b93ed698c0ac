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
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from enoki_hd.text import tokenize_words
from enoki_hd.types import FactLabel, Span
from enoki_hd.verify.evidence import EvidenceDecision, EvidenceIndex, EvidenceSelector
from enoki_hd.verify.nli import Verifier

logger = logging.getLogger(__name__)

MAX_HYPOTHESIS_SHARE = 0.5
"""Largest share of the verifier's ``max_length`` one hypothesis piece may take."""

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
    clauses = _clauses(text)
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


def _clauses(text: str) -> list[Span]:
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
    """Overlapping windows of whole words over ``clause`` (offsets into ``text``)."""
    words = [
        Span(clause.start + w.start, clause.start + w.end)
        for w in tokenize_words(clause.text(text))
    ]
    if not words:
        return [clause]
    windows: list[Span] = []
    first = 0
    while True:
        last = first
        # grow the window while it fits; a single word over budget still forms a window
        while last + 1 < len(words) and (
            count_tokens(text[words[first].start : words[last + 1].end]) <= budget
        ):
            last += 1
        windows.append(Span(words[first].start, words[last].end))
        if last == len(words) - 1:
            return windows
        first = max(first + 1, first + (last - first + 1) // 2)


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
) -> list[HypothesisDecision]:
    """Judge every hypothesis against ``index`` in one batched verifier call, splitting the
    ones too long to judge whole."""
    budget = hypothesis_budget(verifier)
    splits: list[list[Span]] = []
    texts: list[str] = []
    for hypothesis in hypotheses:
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
    flat = selector.verify(verifier, index, texts)
    out: list[HypothesisDecision] = []
    cursor = 0
    for split in splits:
        n = max(1, len(split))
        group = flat[cursor : cursor + n]
        cursor += n
        decision = group[0] if n == 1 else aggregate_pieces(group)
        out.append(HypothesisDecision(decision, split))
    return out
