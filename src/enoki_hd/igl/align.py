"""String triples → grid rows: PTB detokenisation, triple alignment and the OpenIE training sets.

- :func:`detokenize` turns PTB tokens back into natural text (what the student sees) and says
  where each token landed, as half-open ``[start, end)`` character offsets into that text.
- :func:`align_triple` maps a (subject, relation, object) of strings to word indices of a
  sentence: verbatim first, then a word alignment that tolerates reordered chunks, dropped
  function words and implicit "is" / "of" / "from" (which go to the sentinels). A part that
  cannot be aligned drops the triple, and the reason is counted.
- :func:`load_lsoie_gpt` and :func:`load_oie2016` read the training sets in
  ``shared/data/oie_train/`` into :class:`~enoki_hd.igl.labels.GridExample` rows with an
  :class:`AlignmentReport` of the coverage per source.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import product
from pathlib import Path
from typing import Any

from enoki_hd.igl.labels import (
    ARG1,
    ARG2,
    REL,
    GridExample,
    chain_parents,
    empty_row,
)
from enoki_hd.text import STOP_WORDS, normalize_term, tokenize_words
from enoki_hd.types import Span

logger = logging.getLogger(__name__)

# ---------------------------------------------------------------------------------------------
# PTB detokenisation

PTB_ESCAPES = {
    "-LRB-": "(",
    "-RRB-": ")",
    "-LSB-": "[",
    "-RSB-": "]",
    "-LCB-": "{",
    "-RCB-": "}",
    "``": '"',
    "''": '"',
    "`": "'",
}
# Tokens written without a space before them (closing punctuation, clitics) or after them.
_GLUE_LEFT = frozenset(
    {",", ".", ";", ":", "!", "?", "%", ")", "]", "}", "...", "''", "'", "-RRB-", "-RSB-", "-RCB-"}
)
_CLITICS = frozenset({"'s", "n't", "'re", "'ve", "'ll", "'d", "'m"})
_GLUE_RIGHT = frozenset({"(", "[", "{", "``", "`", "$", "#", "-LRB-", "-LSB-", "-LCB-"})


def detokenize(tokens: Sequence[str]) -> tuple[str, list[Span]]:
    """Natural text from PTB tokens and each token's span in it.

    ``-LRB-`` → ``(`` (and the other bracket escapes), ``````/``''`` → ``"``, no space before
    closing punctuation or clitics (``people 's`` → ``people's``, ``do n't`` → ``don't``), none
    after opening brackets, quotes, ``$`` and ``#``. A plain ``"`` alternates between opening
    and closing. Returns ``(text, spans)`` with ``spans[i]`` the half-open character span of
    ``tokens[i]`` in ``text``.
    """
    pieces: list[str] = []
    spans: list[Span] = []
    pos = 0
    glue_next = True  # no space before the first token
    quote_open = False
    for token in tokens:
        surface = PTB_ESCAPES.get(token, token)
        glue_left = token in _GLUE_LEFT or token.casefold() in _CLITICS
        glue_right = token in _GLUE_RIGHT
        if token == '"':
            glue_left, glue_right = quote_open, not quote_open
            quote_open = not quote_open
        if not (glue_next or glue_left):
            pieces.append(" ")
            pos += 1
        spans.append(Span(pos, pos + len(surface)))
        pieces.append(surface)
        pos += len(surface)
        glue_next = glue_right
    return "".join(pieces), spans


def detokenize_text(ptb: str) -> str:
    """:func:`detokenize` of a space-separated PTB string, text only."""
    return detokenize(ptb.split())[0]


# ---------------------------------------------------------------------------------------------
# Triple alignment

SUBJECT_UNALIGNED = "subject_unaligned"
RELATION_UNALIGNED = "relation_unaligned"
OBJECT_UNALIGNED = "object_unaligned"
OVERLAP = "overlap"
DUPLICATE = "duplicate"
MALFORMED = "malformed"
MISSING_SUBJECT = "missing_subject"
MISSING_RELATION = "missing_relation"

# Function words that carry meaning and are never skipped: negations, and the verbs and modals
# whose loss changes what a relation says ("became the most successful" is not "the most
# successful"). Forms of "be" stay skippable: "were equipped with" ~ "equipped with".
_KEEP = frozenset(
    {
        "not", "no", "never", "nor", "neither", "cannot", "without", "n't",
        "became", "become", "has", "had", "have", "having", "do", "does", "did", "doing", "done",
        "used", "using", "can", "could", "may", "might", "must", "should", "will", "would",
    }
)  # fmt: skip
# Leading relation words that the sentinels stand for when the sentence leaves them implicit;
# any form of "be" goes to [is].
_IMPLICIT_WORDS = {"is": 0, "are": 0, "was": 0, "were": 0, "am": 0, "be": 0, "of": 1, "from": 2}
_SKIP_FUNCTION = 1.0  # a function word of the part left unaligned
_SKIP_PUNCT = 0.05  # a punctuation token of the part left unaligned
_GAP = 0.1  # per sentence word between two aligned words of one part
_GAP_PUNCT = 0.02  # per punctuation token between them
_SPLIT = 1.0  # the part aligned as two chunks (reordered or apart)
_IMPLICIT = 0.3  # a leading "is" / "of" / "from" put on a sentinel
_SPREAD = 0.05  # per sentence word inside the triple's extent that no part covers
_MAX_CANDIDATES = 6
# A part costlier than this is not aligned: one function word left out plus small gaps, or
# two chunks close together ("was in exile during" → "[is] exile" is too loose).
_MAX_PART_COST = 1.5


@dataclass(frozen=True)
class Alignment:
    """Word indices of each part of a triple in one sentence; ``sentinels`` are the indices
    (0 = ``[is]``, 1 = ``[of]``, 2 = ``[from]``) of implicit relation words. ``exact`` is True
    when every part occurs verbatim (case-insensitive, whole words)."""

    subject: tuple[int, ...]
    relation: tuple[int, ...]
    object: tuple[int, ...]
    sentinels: tuple[int, ...] = ()
    exact: bool = False
    cost: float = 0.0

    def row(self, num_words: int) -> list[int]:
        """The grid row: one label per word, then one per sentinel."""
        row = empty_row(num_words)
        for label, indices in ((ARG1, self.subject), (REL, self.relation), (ARG2, self.object)):
            for i in indices:
                row[i] = label
        for k in self.sentinels:
            row[num_words + k] = REL
        return row


@dataclass(frozen=True)
class _Token:
    fold: str
    norm: str
    optional: bool
    skip_cost: float


def _is_punct(word: str) -> bool:
    return not any(c.isalnum() for c in word)


def _part_tokens(part: str) -> list[_Token]:
    texts = [w.text(part) for w in tokenize_words(part)]
    folds = [t.casefold() for t in texts]
    has_content = any(not _is_punct(f) and (f not in STOP_WORDS or f in _KEEP) for f in folds)
    tokens = []
    for fold in folds:
        if _is_punct(fold):
            tokens.append(_Token(fold, fold, True, _SKIP_PUNCT))
        else:
            function = fold in STOP_WORDS and fold not in _KEEP
            tokens.append(
                _Token(fold, normalize_term(fold), function and has_content, _SKIP_FUNCTION)
            )
    return tokens


@dataclass
class _Candidate:
    indices: tuple[int, ...]
    cost: float
    sentinels: tuple[int, ...] = ()
    exact: bool = False


class SentenceAligner:
    """Aligns triples to the words of one sentence (``words``: spans into ``text``)."""

    def __init__(self, text: str, words: Sequence[Span]) -> None:
        self.text = text
        self.words = list(words)
        self.folds = [w.text(text).casefold() for w in self.words]
        self.norms = [normalize_term(f) for f in self.folds]
        # _gap_prefix[k]: cost of the gaps before word k (punctuation is cheap to step over)
        self._gap_prefix = [0.0]
        for fold in self.folds:
            self._gap_prefix.append(
                self._gap_prefix[-1] + (_GAP_PUNCT if _is_punct(fold) else _GAP)
            )
        self._positions: dict[str, list[int]] = {}
        for i, (fold, norm) in enumerate(zip(self.folds, self.norms, strict=True)):
            self._positions.setdefault(fold, []).append(i)
            if norm != fold:
                self._positions.setdefault(norm, []).append(i)

    def _matches(self, token: _Token) -> list[int]:
        found = set(self._positions.get(token.fold, ()))
        found.update(self._positions.get(token.norm, ()))
        return sorted(found)

    def _exact(self, tokens: Sequence[_Token]) -> list[tuple[int, ...]]:
        folds = [t.fold for t in tokens]
        m = len(folds)
        return [
            tuple(range(i, i + m))
            for i in self._positions.get(folds[0], ())
            if self.folds[i : i + m] == folds
        ]

    def _monotone(
        self, tokens: Sequence[_Token], blocked: frozenset[int]
    ) -> tuple[float, tuple[int, ...]] | None:
        """Cheapest in-order alignment of ``tokens``: every required token matched, optional
        ones matched or skipped, gaps between matched words paid for."""
        states: dict[int, tuple[float, tuple[int, ...]]] = {-1: (0.0, ())}
        for token in tokens:
            nxt: dict[int, tuple[float, tuple[int, ...]]] = {}
            matches = [k for k in self._matches(token) if k not in blocked]
            for last, (cost, path) in states.items():
                moves = [(last, cost + token.skip_cost, path)] if token.optional else []
                moves += [(k, cost + self._gap(last, k), (*path, k)) for k in matches if k > last]
                for end, new_cost, new_path in moves:
                    if end not in nxt or new_cost < nxt[end][0]:
                        nxt[end] = (new_cost, new_path)
            states = nxt
            if not states:
                return None
        done = [state for last, state in states.items() if last >= 0]
        return min(done) if done else None

    def _gap(self, last: int, k: int) -> float:
        """Cost of the sentence words strictly between ``last`` and ``k`` (0 when ``last`` is
        -1, the start)."""
        return self._gap_prefix[k] - self._gap_prefix[last + 1] if last >= 0 else 0.0

    def _fuzzy(self, tokens: Sequence[_Token], blocked: frozenset[int]) -> _Candidate | None:
        """In order, or as two chunks aligned separately (reordered, or apart)."""
        best = self._monotone(tokens, blocked)
        if best is None or best[0] >= _SPLIT:
            for cut in range(1, len(tokens)):
                for first, second in (
                    (tokens[:cut], tokens[cut:]),
                    (tokens[cut:], tokens[:cut]),
                ):
                    a = self._monotone(first, blocked)
                    if a is None:
                        continue
                    b = self._monotone(second, blocked | frozenset(a[1]))
                    if b is None:
                        continue
                    cost = a[0] + b[0] + _SPLIT
                    if best is None or cost < best[0]:
                        best = (cost, tuple(sorted(a[1] + b[1])))
        if best is None or best[0] > _MAX_PART_COST:
            return None
        return _Candidate(best[1], best[0])

    def _candidates(self, tokens: Sequence[_Token]) -> list[_Candidate]:
        if not tokens:
            return []
        exact = self._exact(tokens)
        if exact:
            return [_Candidate(ix, 0.0, exact=True) for ix in exact[:_MAX_CANDIDATES]]
        fuzzy = self._fuzzy(tokens, frozenset())
        return [fuzzy] if fuzzy else []

    def _relation_candidates(self, tokens: Sequence[_Token]) -> list[_Candidate]:
        candidates = self._candidates(tokens)
        implicit: list[int] = []
        for j, token in enumerate(tokens):
            sentinel = _IMPLICIT_WORDS.get(token.fold)
            if sentinel is None or sentinel in implicit:
                break
            implicit.append(sentinel)
            rest = tokens[j + 1 :]
            sentinels = tuple(sorted(implicit))
            cost = _IMPLICIT * len(implicit)
            if not rest:
                candidates.append(_Candidate((), cost, sentinels))
                continue
            candidates.extend(
                _Candidate(c.indices, c.cost + cost, sentinels)
                for c in self._candidates(rest)
                if c.cost + cost <= _MAX_PART_COST
            )
        return sorted(candidates, key=lambda c: c.cost)[:_MAX_CANDIDATES]

    def align(
        self, subject: str, relation: str, obj: str, *, dropped: Counter[str] | None = None
    ) -> Alignment | None:
        """See :func:`align_triple`."""
        alignment, reason = self._align(subject, relation, obj)
        if alignment is None and dropped is not None:
            dropped[reason] += 1
        return alignment

    def _align(self, subject: str, relation: str, obj: str) -> tuple[Alignment | None, str]:
        subject_tokens = _part_tokens(subject)
        relation_tokens = _part_tokens(relation)
        object_tokens = _part_tokens(obj)
        subjects = self._candidates(subject_tokens)
        if not subjects:
            return None, SUBJECT_UNALIGNED
        relations = self._relation_candidates(relation_tokens)
        if not relations:
            return None, RELATION_UNALIGNED
        objects = (
            self._candidates(object_tokens) if object_tokens else [_Candidate((), 0.0, exact=True)]
        )
        if not objects:
            return None, OBJECT_UNALIGNED
        best: tuple[float, tuple[_Candidate, _Candidate, _Candidate]] | None = None
        for combo in product(subjects, relations, objects):
            used = [i for c in combo for i in c.indices]
            if len(used) != len(set(used)):
                continue
            cost = sum(c.cost for c in combo) + _SPREAD * _uncovered(used)
            if best is None or cost < best[0]:
                best = (cost, combo)
        if best is None:
            best = self._realign_overlap(
                (subject_tokens, relation_tokens, object_tokens),
                subjects[0],
                relations[0],
                objects[0],
            )
            if best is None:
                return None, OVERLAP
        cost, (s, r, o) = best
        return (
            Alignment(
                subject=s.indices,
                relation=r.indices,
                object=o.indices,
                sentinels=r.sentinels,
                exact=s.exact and r.exact and o.exact and not r.sentinels,
                cost=round(cost, 6),
            ),
            "",
        )

    def _realign_overlap(
        self,
        tokens: tuple[Sequence[_Token], Sequence[_Token], Sequence[_Token]],
        *combo: _Candidate,
    ) -> tuple[float, tuple[_Candidate, _Candidate, _Candidate]] | None:
        """The best candidates overlap: align one part again around the other two."""
        best = None
        for k in range(3):
            if not combo[k].indices:
                continue
            others = [c for j, c in enumerate(combo) if j != k]
            blocked = frozenset(i for c in others for i in c.indices)
            if len(blocked) != sum(len(c.indices) for c in others):
                continue
            again = self._fuzzy(tokens[k], blocked)
            if again is None:
                continue
            again.sentinels = combo[k].sentinels
            new = list(combo)
            new[k] = again
            used = [i for c in new for i in c.indices]
            cost = sum(c.cost for c in new) + _SPREAD * _uncovered(used)
            if best is None or cost < best[0]:
                best = (cost, (new[0], new[1], new[2]))
        return best


def _uncovered(used: Sequence[int]) -> int:
    if not used:
        return 0
    return max(used) - min(used) + 1 - len(set(used))


def align_triple(
    text: str,
    words: Sequence[Span],
    subject: str,
    relation: str,
    obj: str,
    *,
    dropped: Counter[str] | None = None,
) -> Alignment | None:
    """Map a triple of strings to word indices of the sentence ``text`` (``words``: its word
    spans, as :func:`~enoki_hd.text.tokenize_words` gives them).

    Each part is first looked up verbatim (case-insensitive, whole words). Otherwise its words
    are aligned to the sentence in order — content words must match after
    :func:`~enoki_hd.text.normalize_term`, function words and punctuation may be left out (a
    part made only of function words must match whole; negations are never left out) — or as
    two chunks in either order when that is cheaper. A leading "is" / "of" / "from" of the
    relation that the sentence does not spell out goes to the sentinels. The parts must not
    share words; among the candidates the cheapest compact combination wins.

    Returns None when a part cannot be aligned, after adding the reason (``subject_unaligned``,
    ``relation_unaligned``, ``object_unaligned``, ``overlap``) to ``dropped``. An empty object
    is allowed.
    """
    return SentenceAligner(text, words).align(subject, relation, obj, dropped=dropped)


# ---------------------------------------------------------------------------------------------
# Coverage report


@dataclass
class SourceCoverage:
    """Alignment counts of one training source. ``dropped`` counts triples by reason, so
    ``aligned + sum(dropped.values()) == triples``; ``exact`` of the aligned triples occur
    verbatim, ``implicit`` use a sentinel."""

    sentences: int = 0
    sentences_with_rows: int = 0
    sentences_skipped: int = 0
    triples: int = 0
    aligned: int = 0
    exact: int = 0
    implicit: int = 0
    dropped: Counter[str] = field(default_factory=Counter)

    @property
    def coverage(self) -> float:
        """Aligned triples / triples read (0.0 when there are none)."""
        return self.aligned / self.triples if self.triples else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "sentences": self.sentences,
            "sentences_with_rows": self.sentences_with_rows,
            "sentences_skipped": self.sentences_skipped,
            "triples": self.triples,
            "aligned": self.aligned,
            "exact": self.exact,
            "implicit": self.implicit,
            "coverage": round(self.coverage, 4),
            "dropped": dict(self.dropped.most_common()),
        }


@dataclass
class AlignmentReport:
    """Coverage per source (the manifest's ``alignment`` entry)."""

    sources: dict[str, SourceCoverage] = field(default_factory=dict)

    def source(self, name: str) -> SourceCoverage:
        return self.sources.setdefault(name, SourceCoverage())

    def merge(self, other: AlignmentReport) -> AlignmentReport:
        """A report with the sources of both (a source in both takes ``other``'s counts)."""
        return AlignmentReport({**self.sources, **other.sources})

    def to_dict(self) -> dict[str, Any]:
        return {name: cov.to_dict() for name, cov in self.sources.items()}

    def format(self) -> str:
        """One line per source: sentences, triples, aligned (coverage), drops by reason."""
        lines = []
        for name, c in self.sources.items():
            drops = ", ".join(f"{k} {v}" for k, v in c.dropped.most_common()) or "none"
            lines.append(
                f"{name}: {c.sentences_with_rows}/{c.sentences} sentences with rows, "
                f"{c.aligned}/{c.triples} triples aligned ({c.coverage:.1%}; exact {c.exact}, "
                f"implicit {c.implicit}); dropped: {drops}"
            )
        return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Rows of one sentence → grid example


def _parents_first(
    rows: list[list[int]], parents: list[int | None]
) -> tuple[list[list[int]], list[int | None]]:
    """Reorder rows so each chain reads coarse to fine, placed where its first row was; other
    rows keep their order."""
    children: dict[int | None, list[int]] = {}
    for i, p in enumerate(parents):
        children.setdefault(p, []).append(i)

    def subtree(i: int) -> list[int]:
        return [i, *(j for child in children.get(i, ()) for j in subtree(child))]

    chains = sorted((subtree(root) for root in children.get(None, ())), key=min)
    order = [i for chain in chains for i in chain]
    new_index = {old: new for new, old in enumerate(order)}
    new_parents: list[int | None] = []
    for i in order:
        parent = parents[i]
        new_parents.append(None if parent is None else new_index[parent])
    return [rows[i] for i in order], new_parents


def _sentence_example(
    text: str,
    words: list[Span],
    rows: list[tuple[list[int], bool, bool]],
    coverage: SourceCoverage,
    *,
    source: str,
    id: str,
) -> GridExample | None:
    """Count and drop repeated rows; order chains coarse to fine; None without rows.
    ``rows``: (row, aligned verbatim, uses a sentinel)."""
    unique: list[list[int]] = []
    for row, exact, implicit in rows:
        if row in unique:
            coverage.dropped[DUPLICATE] += 1
            continue
        unique.append(row)
        coverage.aligned += 1
        coverage.exact += exact
        coverage.implicit += implicit
    if not unique:
        return None
    coverage.sentences_with_rows += 1
    ordered, parents = _parents_first(unique, chain_parents(unique))
    return GridExample(text=text, words=words, rows=ordered, parents=parents, source=source, id=id)


# ---------------------------------------------------------------------------------------------
# LSOIE-GPT

# The one LSOIE-GPT sentence that is also a CaRB dev sentence (see the data README).
CARB_DEV_OVERLAP = "Plans to artificially oxygenate areas of the Baltic"
_TRIPLE_RE = re.compile(r"subject <is> (.*?) <and> relation <is> (.*?) <and> object <is>(?: (.*))?")


def load_lsoie_gpt(
    path: str | Path, *, source: str = "lsoie_gpt", limit: int | None = None
) -> tuple[list[GridExample], AlignmentReport]:
    """LSOIE-GPT (TSV ``source<TAB>target``, PTB tokens, triples joined by `` <then> ``, each
    ``subject <is> S <and> relation <is> R <and> object <is> O``) as grid examples of the
    detokenised sentences, with the alignment coverage. The sentence shared with CaRB dev is
    left out; so are sentences none of whose triples align. ``limit`` reads only the first
    sentences."""
    report = AlignmentReport()
    coverage = report.source(source)
    examples: list[GridExample] = []
    for lineno, ptb_sentence, target in _tsv_rows(Path(path)):
        if limit is not None and coverage.sentences >= limit:
            break
        text = detokenize_text(ptb_sentence)
        if text.startswith(CARB_DEV_OVERLAP):
            coverage.sentences_skipped += 1
            continue
        coverage.sentences += 1
        words = tokenize_words(text)
        aligner = SentenceAligner(text, words)
        rows: list[tuple[list[int], bool, bool]] = []
        for chunk in target.split(" <then> "):
            coverage.triples += 1
            match = _TRIPLE_RE.fullmatch(chunk.strip())
            if match is None:
                coverage.dropped[MALFORMED] += 1
                continue
            subject, relation, obj = (detokenize_text(p or "") for p in match.groups())
            alignment = aligner.align(subject, relation, obj, dropped=coverage.dropped)
            if alignment is None:
                continue
            rows.append((alignment.row(len(words)), alignment.exact, bool(alignment.sentinels)))
        example = _sentence_example(
            text, words, rows, coverage, source=source, id=f"{source}:{lineno}"
        )
        if example is not None:
            examples.append(example)
    return examples, report


def _tsv_rows(path: Path) -> Iterator[tuple[int, str, str]]:
    with path.open(encoding="utf-8") as handle:
        header = handle.readline().rstrip("\n").split("\t")
        if header != ["source", "target"]:
            raise ValueError(f"{path}:1: expected the header 'source<TAB>target', got {header}")
        for lineno, line in enumerate(handle, start=2):
            line = line.rstrip("\n")
            if not line.strip():
                continue
            if line.count("\t") != 1:
                raise ValueError(f"{path}:{lineno}: expected 2 tab-separated fields")
            sentence, target = line.split("\t")
            yield lineno, _unquote(sentence), _unquote(target)


def _unquote(field: str) -> str:
    """Undo CSV quoting: 194 targets of LSOIE-GPT are written ``"..."`` with inner quotes
    doubled, though the file has no quoting otherwise."""
    if len(field) >= 2 and field[0] == field[-1] == '"':
        return field[1:-1].replace('""', '"')
    return field


# ---------------------------------------------------------------------------------------------
# OIE2016 (token BIO CoNLL)

_OIE2016_LABEL = re.compile(r"(A\d|P)-[BI]")


def load_oie2016(
    path: str | Path, *, source: str = "oie2016", limit: int | None = None
) -> tuple[list[GridExample], AlignmentReport]:
    """OIE2016 token BIO CoNLL (``word_id word pred pred_id head_pred_id sent_id run_id
    label``, a blank line between extractions) as grid examples of the detokenised sentences:
    A0 → ARG1, P → REL, A1 and later → ARG2. A word of the natural text takes the first
    non-O label of the PTB tokens it holds (``Barbara 's`` → ``Barbara's``). Extractions
    without A0 or P are dropped and counted."""
    report = AlignmentReport()
    coverage = report.source(source)
    examples: list[GridExample] = []
    sentences: dict[str, tuple[list[str], list[list[str]]]] = {}
    for block in _conll_blocks(Path(path)):
        tokens = [r[1] for r in block]
        sent_id = block[0][5]
        known = sentences.setdefault(sent_id, (tokens, []))
        if known[0] != tokens:
            raise ValueError(f"{path}: sentence {sent_id} has extractions over different tokens")
        known[1].append([r[7] for r in block])
    for sent_id, (tokens, extractions) in sentences.items():
        if limit is not None and coverage.sentences >= limit:
            break
        coverage.sentences += 1
        text, token_spans = detokenize(tokens)
        words = tokenize_words(text)
        owners = [[t for t, s in enumerate(token_spans) if s.overlaps(w)] for w in words]
        rows: list[tuple[list[int], bool, bool]] = []
        for labels in extractions:
            coverage.triples += 1
            token_ids = [_oie2016_label(x) for x in labels]
            if ARG1 not in token_ids:
                coverage.dropped[MISSING_SUBJECT] += 1
                continue
            if REL not in token_ids:
                coverage.dropped[MISSING_RELATION] += 1
                continue
            row = empty_row(len(words))
            for w, owner in enumerate(owners):
                row[w] = next((token_ids[t] for t in owner if token_ids[t]), 0)
            rows.append((row, True, False))
        example = _sentence_example(
            text, words, rows, coverage, source=source, id=f"{source}:{sent_id}"
        )
        if example is not None:
            examples.append(example)
    return examples, report


def _oie2016_label(label: str) -> int:
    match = _OIE2016_LABEL.fullmatch(label)
    if match is None:
        return 0
    kind = match.group(1)
    return REL if kind == "P" else ARG1 if kind == "A0" else ARG2


def _conll_blocks(path: Path) -> Iterator[list[list[str]]]:
    block: list[list[str]] = []
    with path.open(encoding="utf-8") as handle:
        header = handle.readline().split()
        if header[:2] != ["word_id", "word"] or len(header) != 8:
            raise ValueError(
                f"{path}:1: expected the header 'word_id word pred pred_id head_pred_id sent_id "
                f"run_id label', got {header}"
            )
        for lineno, line in enumerate(handle, start=2):
            if not line.strip():
                if block:
                    yield block
                block = []
                continue
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 8:
                raise ValueError(f"{path}:{lineno}: expected 8 tab-separated fields")
            block.append(fields)
    if block:
        yield block
