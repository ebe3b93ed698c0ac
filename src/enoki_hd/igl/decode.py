"""Grid rows → anchored facts: the inverse of :func:`enoki_hd.igl.labels.facts_to_example`.

One row of the grid is one extraction: a label id per word of the sentence, then one per
sentinel (``[is]``, ``[of]``, ``[from]``). :func:`decode_rows` reads each row as

- subject = the ``ARG1`` words;
- relation = the words of the sentinels labelled ``REL`` (an implicit relation such as the
  ``is`` of an appositive; it has no span), then the ``REL`` words;
- object = the ``ARG2`` words, then the ``LOC_TMP`` words (location and time arguments);
- ``TYPE`` (kept for OpenIE6 format compatibility) and any label other than ``REL`` on a
  sentinel read as ``NONE``.

A row without a subject word or without a relation (word or sentinel) yields no fact. Each part's
words become spans: a run of consecutive words is one span (only whitespace can lie between
consecutive words), so a span is exactly the characters of its words. A part's string is the
text of its spans joined by single spaces (as the rules extractor writes it).

Rows that decode to the same spans (and the same implicit relation) are one fact: the first
keeps its place and the highest confidence. Parent links are rebuilt from nesting, since rows
carry none (:func:`~enoki_hd.igl.labels.chain_parents`): a fact's parent is the fact with the
same subject and relation words whose object words are a strict subset of its own (the largest
such; the earliest on a tie), and its ``delta`` the spans of the object words the parent lacks. A fact without parent has as ``delta`` its
object spans, else its relation spans, else its subject spans (what it asserts).

With ``split`` (off by default) an object is first cut at the prepositions inside it, into a
coarse-to-fine chain or into one fact per prepositional phrase, the pieces the rules extractor
judges apart (see :func:`decode_rows`).

All spans are half-open ``[start, end)`` character offsets into the ORIGINAL answer: word spans
are into the sentence ``text`` and shifted by ``offset`` (the sentence's start in the answer).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from enoki_hd.igl.labels import (
    ARG1,
    ARG2,
    LOC_TMP,
    NONE,
    REL,
    SENTINEL_WORDS,
    SENTINELS,
    chain_parents,
    empty_row,
)
from enoki_hd.types import Fact, Span

__all__ = [
    "ARGUMENT_PREPOSITIONS",
    "Split",
    "dangling_articles_dropped",
    "decode_rows",
    "edges_trimmed",
    "keep_negations",
    "negation_positions",
]

Split = Literal["none", "chain", "atoms"]

# Prepositions that open a further argument inside an object ("Noel Gallagher | in |
# Manchester"); "of", "to", "as" and "than" are left out: they mostly bind inside a noun
# phrase or a verb ("the capital of France", "wanted to go", "such as", "more than").
ARGUMENT_PREPOSITIONS = frozenset(
    {
        "in", "on", "at", "during", "since", "from", "by", "with", "for", "after", "before",
        "until", "between", "among", "under", "into", "through", "near", "within", "against",
        "throughout", "across", "outside", "inside", "without", "despite",
    }
)  # fmt: skip
_RELATION_PREPOSITIONS = ARGUMENT_PREPOSITIONS | {"of", "to", "as", "than"}
# Words that deny what they stand next to, and the adverbs that may follow one ("no longer",
# "not yet"); contractions ("isn't", "can't") are one word to tokenize_words.
_NEGATIONS = frozenset({"not", "never", "no", "without", "cannot"})
_NEGATION_ADVERBS = frozenset({"longer", "yet", "even", "ever", "once", "always"})
# after these a negation word denies nothing: "not only", "no doubt", "without doubt", "not
# just a museum", "no sooner", "no matter"
_NOT_DENYING_AFTER = frozenset({"only", "doubt", "just", "merely", "simply", "sooner", "matter"})
_AUXILIARIES = frozenset(
    {
        "do", "does", "did", "is", "are", "was", "were", "be", "been", "has", "have", "had",
        "will", "would", "can", "could", "shall", "should", "may", "might", "must",
    }
)  # fmt: skip


@dataclass(frozen=True)
class _Extraction:
    """One decoded row as word indices (into ``words``), before spans are built."""

    subject: tuple[int, ...]
    relation: tuple[int, ...]
    implicit: tuple[int, ...]  # indices into SENTINELS labelled REL
    argument: tuple[int, ...]  # ARG2 then LOC_TMP words, in that order
    confidence: float | None

    @property
    def key(self) -> tuple[tuple[int, ...], ...]:
        return self.subject, self.relation, self.implicit, self.argument

    def canonical_row(self, n_words: int) -> list[int]:
        """The row with only what decoding reads (object words as ARG2)."""
        row = empty_row(n_words)
        for label, indices in ((ARG1, self.subject), (REL, self.relation), (ARG2, self.argument)):
            for i in indices:
                row[i] = label
        for k in self.implicit:
            row[n_words + k] = REL
        return row


def _is_negation(word: str) -> bool:
    return word in _NEGATIONS or word.endswith(("n't", "n\u2019t"))


def negation_positions(text: str, words: Sequence[Span]) -> list[int]:
    """The indices of ``words`` that are negation words (``not``, ``never``, a contraction in
    ``n't``, ...): what :func:`keep_negations` looks at. A caller decoding many rows of one
    sentence reads them once and passes them to every row."""
    return [i for i in range(len(words)) if _is_negation(_word(text, words, i))]


def keep_negations(
    row: np.ndarray | Sequence[int],
    text: str,
    words: Sequence[Span],
    negations: Sequence[int] | None = None,
) -> list[int]:
    """``row`` with each unlabelled negation word given the label of the part it stands next to.

    A tagger row that leaves "never" out of "UVA has never expelled a student" reads as "UVA
    expelled a student": the opposite claim. A negation word (``not``, ``never``, ``no``,
    ``without``, ``cannot``, a contraction in ``n't``; with an adverb after it, "no longer",
    "not yet", as one phrase) labelled ``NONE`` takes ``REL`` when a relation word is its
    neighbour on either side, else the label of the part that follows it ("no children",
    "without tools", "Not all Fodies"); an unlabelled auxiliary before a negation that joins the
    relation joins it too ("did not play", not "not play"). Left alone: one beside no part,
    "whether or not", and one that denies nothing ("not only", "no doubt", "not just").
    ``row`` holds ``len(words)`` word labels, then the sentinels' (untouched); ``negations``
    is :func:`negation_positions` of the sentence, read here when not given (reading every
    word of a long sentence once per row made a 10,000-character sentence's decoding
    quadratic).
    """
    n = len(words)
    out = [int(label) for label in row]
    if negations is None:
        negations = negation_positions(text, words)
    resume = 0  # the word after the last phrase given a label
    for i in negations:
        if i < resume:
            continue  # the adverb of the phrase before, itself a negation word
        # the phrase is words i..j: the negation, then an adverb if one follows
        j = i + 1 if i + 1 < n and _word(text, words, i + 1) in _NEGATION_ADVERBS else i
        if (
            any(out[k] != NONE for k in range(i, j + 1))
            or (i > 0 and _word(text, words, i - 1) == "or")
            or (j + 1 < n and _word(text, words, j + 1) in _NOT_DENYING_AFTER)
        ):
            continue
        before = out[i - 1] if i > 0 else NONE
        after = out[j + 1] if j + 1 < n else NONE
        label = REL if REL in (before, after) else after
        if label in (ARG1, REL, ARG2, LOC_TMP):
            out[i : j + 1] = [label] * (j + 1 - i)
            if (
                label == REL
                and i > 0
                and before == NONE
                and _word(text, words, i - 1) in _AUXILIARIES
            ):
                out[i - 1] = REL  # "did not play", not "not play"
        resume = j + 1
    return out


_PAIRS = {"(": ")", "[": "]", "{": "}", "\u201c": "\u201d", "\u2018": "\u2019"}
_SAME_QUOTES = frozenset("\"'")


# marks a part does not begin or end on; not "%", "$", "€", "°" or "&", which belong to a value
# or a name ("6.2%", "$5", "Brook &")
_EDGE_MARKS = frozenset(",.;:!?\"'\u201c\u201d\u2018\u2019()[]{}\u2026-\u2013\u2014/")


def _is_punctuation(word: str) -> bool:
    return bool(word) and all(c in _EDGE_MARKS for c in word)


def _balanced_at(part: list[str], k: int) -> bool:
    """Whether the punctuation word ``part[k]`` at an edge of a part is one of a pair the part
    closes or opens within itself (the quotes of ``the episode "Scrubbed"``, the brackets of
    ``Échecs (FIDE)``)."""
    mark = part[k]
    if mark in _SAME_QUOTES:  # paired left to right: of three, the last is the odd one
        same = [i for i, w in enumerate(part) if w == mark]
        return len(same) % 2 == 0 or k != same[-1]
    if mark in _PAIRS:
        return _PAIRS[mark] in part[k + 1 :]
    openers = [o for o, c in _PAIRS.items() if c == mark]
    return bool(openers) and openers[0] in part[:k]


def edges_trimmed(row: np.ndarray, text: str, words: Sequence[Span]) -> np.ndarray:
    """``row`` (a copy when changed) without the punctuation its parts begin or end on,
    except a quote or bracket the part pairs within itself: ``,`` alone is no object,
    ``"10 Day`` is ``10 Day``, ``"Delley" and "`` is ``"Delley" and``, and ``"Scrubbed"``
    keeps its quotes. A part of punctuation only is left out."""
    n = len(words)
    out = row
    for label in (ARG1, REL, ARG2, LOC_TMP):
        indices = [k for k in range(n) if row[k] == label]
        part = [text[words[k].start : words[k].end] for k in indices]
        first, last = 0, len(indices)
        while last > first and _is_punctuation(part[last - 1]):
            if _balanced_at(part[first:last], last - 1 - first):
                break
            last -= 1
        while first < last and _is_punctuation(part[first]):
            if _balanced_at(part[first:last], 0):
                break
            first += 1
        dropped = indices[:first] + indices[last:]
        if dropped:
            if out is row:
                out = row.copy()
            out[dropped] = NONE
    return out


_ARTICLES = frozenset({"a", "an", "the"})


def dangling_articles_dropped(row: np.ndarray, text: str, words: Sequence[Span]) -> np.ndarray:
    """``row`` (a copy when changed) without the articles whose noun it leaves out: an article
    is read with the next word of the sentence that is not punctuation, so one followed by a
    word the row does not label, or by none, is no part of what the row states — the tagger's
    "the weather in Sausalito | appears to be mild | the" (of "… mild throughout the year") has
    no object. Nor is a subject or object of articles alone: "the | Vacuum pre-filter every |
    two weeks" (of "Vacuum the pre-filter every two weeks") has no subject. A relation of
    articles alone before its object ("Lyon | the | third largest city of France") is kept:
    the implicit "is" (:func:`enoki_hd.extract.asserted.relation_implicit`). An article
    before a word of any part stays ("stayed within the | Ridley legal arsenic limit", "is a
    | New Mexican")."""
    n = len(words)
    out = row
    for k in range(n):
        if row[k] == NONE or text[words[k].start : words[k].end].casefold() not in _ARTICLES:
            continue
        following = k + 1
        while following < n and _is_punctuation(
            text[words[following].start : words[following].end]
        ):
            following += 1
        # (a relation of articles alone is the implicit "is": asserted.relation_implicit)
        alone = row[k] != REL and all(
            row[i] != row[k] or text[words[i].start : words[i].end].casefold() in _ARTICLES
            for i in range(n)
        )
        if following < n and row[following] != NONE and not alone:
            continue
        if out is row:
            out = row.copy()
        out[k] = NONE
    return out


def _read_row(row: Sequence[int], n_words: int, confidence: float | None) -> _Extraction | None:
    words = range(n_words)
    subject = tuple(i for i in words if row[i] == ARG1)
    relation = tuple(i for i in words if row[i] == REL)
    implicit = tuple(k for k in range(len(SENTINELS)) if row[n_words + k] == REL)
    if not subject or not (relation or implicit):
        return None
    argument = tuple(i for i in words if row[i] == ARG2) + tuple(
        i for i in words if row[i] == LOC_TMP
    )
    return _Extraction(subject, relation, implicit, argument, confidence)


def _runs(indices: Sequence[int]) -> list[tuple[int, int]]:
    """``(first, last)`` word index of each run of consecutive indices, in the given order."""
    runs: list[tuple[int, int]] = []
    for i in indices:
        if runs and i == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], i)
        else:
            runs.append((i, i))
    return runs


def _spans(indices: Sequence[int], words: Sequence[Span], offset: int) -> list[Span]:
    return [
        Span(words[first].start + offset, words[last].end + offset)
        for first, last in _runs(indices)
    ]


def _text(text: str, indices: Sequence[int], words: Sequence[Span]) -> str:
    return " ".join(text[words[a].start : words[b].end] for a, b in _runs(indices))


def _deduplicate(extractions: list[_Extraction]) -> list[_Extraction]:
    """One extraction per key, at its first place, with the highest confidence of its copies."""
    kept: dict[tuple[tuple[int, ...], ...], _Extraction] = {}
    for extraction in extractions:
        known = kept.get(extraction.key)
        if known is None:
            kept[extraction.key] = extraction
        elif extraction.confidence is not None and (
            known.confidence is None or extraction.confidence > known.confidence
        ):
            kept[extraction.key] = _Extraction(
                known.subject,
                known.relation,
                known.implicit,
                known.argument,
                extraction.confidence,
            )
    return list(kept.values())


def _word(text: str, words: Sequence[Span], i: int) -> str:
    return text[words[i].start : words[i].end].casefold()


def _without_final_prepositions(
    relation: tuple[int, ...], text: str, words: Sequence[Span]
) -> tuple[int, ...]:
    """``relation`` without the prepositions it ends with ("was founded by" → "was founded"):
    an ``atoms`` fact puts its own preposition there."""
    end = len(relation)
    while end > 0 and _word(text, words, relation[end - 1]) in _RELATION_PREPOSITIONS:
        end -= 1
    return relation[:end]


def _cuts(extraction: _Extraction, text: str, words: Sequence[Span]) -> list[int]:
    """Positions in ``extraction.argument`` where a preposition opens a further argument: not
    its first word, not its last, and not right after another cut."""
    argument = extraction.argument
    cuts: list[int] = []
    for j in range(1, len(argument) - 1):
        if _word(text, words, argument[j]) in ARGUMENT_PREPOSITIONS and (
            not cuts or cuts[-1] < j - 1
        ):
            cuts.append(j)
    return cuts


def _split(
    extractions: list[_Extraction], text: str, words: Sequence[Span], split: Split
) -> tuple[list[_Extraction], dict[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]]:
    """Each extraction cut at the prepositions of its object (see :func:`decode_rows`), and
    the explicit parent (by key) of each ``atoms`` fact."""
    out: list[_Extraction] = []
    parents: dict[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]] = {}
    for e in extractions:
        cuts = _cuts(e, text, words) if split != "none" else []
        if not cuts:
            out.append(e)
            continue
        if split == "chain":
            for end in [*cuts, len(e.argument)]:
                out.append(
                    _Extraction(e.subject, e.relation, e.implicit, e.argument[:end], e.confidence)
                )
            continue
        head = _Extraction(e.subject, e.relation, e.implicit, e.argument[: cuts[0]], e.confidence)
        out.append(head)
        stem = _without_final_prepositions(e.relation, text, words)
        for start, end in zip(cuts, [*cuts[1:], len(e.argument)], strict=True):
            relation = tuple(sorted({*stem, e.argument[start]}))
            atom = _Extraction(
                e.subject, relation, e.implicit, e.argument[start + 1 : end], e.confidence
            )
            out.append(atom)
            parents.setdefault(atom.key, head.key)
    return out, parents


def decode_rows(
    text: str,
    words: Sequence[Span],
    labels: np.ndarray | Sequence[Sequence[int]],
    confidences: Sequence[float] | None = None,
    *,
    offset: int = 0,
    sentence: int = 0,
    source: str = "encoder",
    id_prefix: str = "",
    split: Split = "none",
) -> list[Fact]:
    """Facts of one sentence from its grid rows (see the module docstring).

    Args:
        text: the sentence text the ``words`` point into.
        words: word spans into ``text`` (:func:`enoki_hd.text.tokenize_words`).
        labels: ``(rows, len(words) + 3)`` label ids, the last three on the sentinels.
        confidences: one score per row (None: facts get no confidence).
        offset: where ``text`` starts in the answer; every returned span is shifted by it.
        sentence: the sentence index the facts get.
        source: the facts' ``source``.
        id_prefix: put before the ids ``f{sentence}.{k}`` (``k`` counts the facts in row order).
        split: ``"none"`` reads each row as one fact. ``"chain"`` cuts an object at each
            preposition of :data:`ARGUMENT_PREPOSITIONS` inside it (not its first or last
            word) into a coarse-to-fine chain: "Noel Gallagher in Manchester" gives "Noel
            Gallagher", then "Noel Gallagher in Manchester" refining it. ``"atoms"`` makes each
            prepositional phrase a fact of its own whose relation takes the preposition (in
            place of those the relation ends with: "was founded by | Noel Gallagher" and "was
            founded in | Manchester"), its parent the fact with the object's head, its delta
            the phrase's object words.

    Raises:
        ValueError: a row's length is not ``len(words) + 3``, ``confidences`` does not have
            one value per row, or ``split`` is not one of its three values.
    """
    if split not in ("none", "chain", "atoms"):
        raise ValueError(f"split must be 'none', 'chain' or 'atoms', got {split!r}")
    rows = [[int(label) for label in row] for row in labels]
    width = len(words) + len(SENTINELS)
    if any(len(row) != width for row in rows):
        raise ValueError(
            f"each row needs {width} labels ({len(words)} words + {len(SENTINELS)} sentinels), "
            f"got rows of {sorted({len(row) for row in rows})}"
        )
    if confidences is not None and len(confidences) != len(rows):
        raise ValueError(f"got {len(confidences)} confidences for {len(rows)} rows")
    decoded = (
        _read_row(row, len(words), None if confidences is None else float(confidences[r]))
        for r, row in enumerate(rows)
    )
    extractions = _deduplicate([e for e in decoded if e is not None])
    explicit: dict[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]] = {}
    if split != "none":
        expanded, explicit = _split(extractions, text, words, split)
        extractions = _deduplicate(expanded)
    parents = chain_parents([e.canonical_row(len(words)) for e in extractions])
    if explicit:
        index = {e.key: k for k, e in enumerate(extractions)}
        for k, e in enumerate(extractions):
            if parents[k] is None and e.key in explicit:
                parents[k] = index[explicit[e.key]]
    ids = [f"{id_prefix}f{sentence}.{k}" for k in range(len(extractions))]
    facts: list[Fact] = []
    for extraction, parent in zip(extractions, parents, strict=True):
        subject = _spans(extraction.subject, words, offset)
        relation = _spans(extraction.relation, words, offset)
        obj = _spans(extraction.argument, words, offset)
        if parent is not None:
            added = sorted(set(extraction.argument) - set(extractions[parent].argument))
            delta = _spans(added, words, offset)
        else:
            delta = sorted(next((s for s in (obj, relation, subject) if s), []))
        relation_text = " ".join(
            [SENTINEL_WORDS[k] for k in extraction.implicit]
            + ([_text(text, extraction.relation, words)] if extraction.relation else [])
        )
        facts.append(
            Fact(
                id=ids[len(facts)],
                sentence=sentence,
                subject=_text(text, extraction.subject, words),
                relation=relation_text,
                object=_text(text, extraction.argument, words),
                subject_spans=subject,
                relation_spans=relation,
                object_spans=obj,
                parent=None if parent is None else ids[parent],
                delta=delta,
                confidence=extraction.confidence,
                source=source,
            )
        )
    return facts
