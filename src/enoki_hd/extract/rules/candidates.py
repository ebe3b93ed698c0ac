"""Candidate facts over token indices, and their shaping into anchored :class:`Fact` objects.

Rule families propose candidates through a :class:`FactBuilder` (which filters and
de-duplicates as they come); :func:`shape_facts` turns token sets into half-open character
spans into the ORIGINAL answer, adds back punctuation inside a phrase, and computes ids,
parents and deltas.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING

from enoki_hd.extract.rules.families import polarity
from enoki_hd.extract.rules.syntax import HYPHENS
from enoki_hd.types import Fact, Span

if TYPE_CHECKING:
    from collections.abc import Iterable

    from spacy.tokens import Doc

    from enoki_hd.extract.rules.phrases import Step

logger = logging.getLogger(__name__)

# Confidence of a fact by the rule family that proposed it. Hand-set priors, not fitted: how
# likely the family's parse pattern is to yield a well-formed, checkable fact. Direct verb and
# copula arguments rank highest; coordination, "including" lists and clausal complements
# (whole clauses as objects, hard to verify) lowest. Only the order matters to CaRB's AUC.
FAMILY_CONFIDENCE: dict[str, float] = {
    "verb_object": 0.9,
    "copula": 0.9,
    "appositive": 0.85,
    "date": 0.85,
    "prepositional": 0.8,
    "participial": 0.8,
    "composite": 0.8,
    "coordination": 0.75,
    "including": 0.7,
    "purpose": 0.7,
    "temporal": 0.7,
    "clausal": 0.6,
}

_QUOTES = frozenset({'"', "“", "”", "„", "``", "''", "'", "‘", "’", "«", "»"})
# Parts of speech that glue a refinement to its parent rather than carry its content.
_FUNCTION_POS = frozenset({"ADP", "DET", "PUNCT", "CCONJ", "SCONJ", "PART", "SPACE"})


@dataclass(frozen=True)
class Candidate:
    """A proposed fact over token indices of one sentence ``Doc``.

    ``relation_text`` is set for a synthesized relation (the appositive ``is``), whose
    ``relation`` token set is empty. ``parent`` is the index of the coarser candidate.
    ``relation_order`` splits the relation tokens into groups read one after the other (verb
    group, folded object, preposition), so the relation text reads ``formed in`` for ``In
    1992, Suede formed`` and ``fires from`` for ``the energy that he fires from his eyes``;
    empty means text order.
    """

    family: str
    subject: frozenset[int]
    relation: frozenset[int]
    object: frozenset[int]
    parent: int | None = None
    relation_text: str | None = None
    relation_order: tuple[frozenset[int], ...] = ()
    negated: bool = False
    modality: str | None = None

    @property
    def tokens(self) -> frozenset[int]:
        return self.subject | self.relation | self.object


class FactBuilder:
    """Collects the candidates of one sentence ``Doc``, filtered and de-duplicated.

    A candidate is dropped when its subject is empty, when it has neither relation tokens nor
    a synthesized relation, or when two of its parts share a token. A candidate equal to an
    earlier one (same token sets and relation) is not added again; the earlier one's index is
    returned so chains continue from it. At most ``max_facts`` candidates are kept; later ones
    are dropped and the drop is logged.
    """

    def __init__(self, doc: Doc, *, max_facts: int, max_phrase_tokens: int) -> None:
        self.doc = doc
        self.max_facts = max_facts
        self.max_phrase_tokens = max_phrase_tokens
        self.candidates: list[Candidate] = []
        self._index: dict[tuple, int] = {}
        self.dropped = 0

    def add(
        self,
        family: str,
        subject: frozenset[int],
        relation: frozenset[int],
        obj: frozenset[int],
        *,
        parent: int | None = None,
        relation_text: str | None = None,
        relation_order: tuple[frozenset[int], ...] = (),
    ) -> int | None:
        """Add a candidate; returns its index (or the equal earlier one's), None if filtered."""
        if not subject or (not relation and relation_text is None):
            return None
        subject, obj = hyphen_words(self.doc, subject), hyphen_words(self.doc, obj)
        if subject & relation or subject & obj or relation & obj:
            return None
        if any(polarity.denies_unsaid(part, self.doc) for part in (subject, relation, obj)):
            return None
        key = (subject, relation, obj, relation_text)
        if key in self._index:
            return self._index[key]
        if len(self.candidates) >= self.max_facts:
            self.dropped += 1
            return None
        relation_tokens = [self.doc[i] for i in relation]
        candidate = Candidate(
            family=family,
            subject=subject,
            relation=relation,
            object=obj,
            parent=parent,
            relation_text=relation_text,
            relation_order=relation_order,
            negated=polarity.is_negated(relation_tokens, (self.doc[i] for i in obj)),
            modality=polarity.modality_of(relation_tokens),
        )
        self.candidates.append(candidate)
        self._index[key] = len(self.candidates) - 1
        return len(self.candidates) - 1

    def chain(
        self,
        family: str,
        subject: frozenset[int],
        relation: frozenset[int],
        steps: Iterable[Step],
        *,
        parent: int | None = None,
        relation_text: str | None = None,
        relation_order: tuple[frozenset[int], ...] = (),
    ) -> int | None:
        """Add one candidate per phrase step, each the parent of the next.

        The first step's parent is ``parent``. Returns the index of the last candidate added,
        or None when none was (the chain stops at the first filtered step).
        """
        last = None
        for step in steps:
            index = self.add(
                step.family or family,
                subject,
                relation,
                step.tokens,
                parent=parent if last is None else last,
                relation_text=relation_text,
                relation_order=relation_order,
            )
            if index is None:
                break
            last = index
        return last


def _neighbours(doc: Doc, index: int) -> tuple[int | None, int | None]:
    """Indices of the nearest non-whitespace tokens before and after ``index``."""
    before = index - 1
    while before >= 0 and doc[before].is_space:
        before -= 1
    after = index + 1
    while after < len(doc) and doc[after].is_space:
        after += 1
    return (before if before >= 0 else None), (after if after < len(doc) else None)


def hyphen_words(doc: Doc, tokens: frozenset[int]) -> frozenset[int]:
    """``tokens`` grown to whole hyphenated words: the parser sometimes splits one written word
    across heads ("e", "-", "bike" as three subjects of "will retail"), and a phrase that ends
    in "e" says something else than one that ends in "e-bike"."""
    out = set(tokens)
    for i in tokens:
        for step in (1, -1):  # the word's parts after the token, then before it
            j = i
            while 0 <= j + 2 * step < len(doc):
                hyphen, part = doc[j + step], doc[j + 2 * step]
                glued = not doc[min(j, part.i)].whitespace_ and not hyphen.whitespace_
                if not (glued and hyphen.text in HYPHENS and part.is_alpha):
                    break
                out.update((hyphen.i, part.i))
                j = part.i
    return frozenset(out) if len(out) > len(tokens) else tokens


def with_punctuation(doc: Doc, tokens: frozenset[int]) -> set[int]:
    """``tokens`` plus the punctuation inside the phrase.

    A punctuation token joins when the tokens on both sides of it are in the phrase
    (``Bath, Somerset``, ``LSTM-based``). Quotes around part of the phrase join when they
    come in pairs (``"Animal Nitrate"``); an unpaired quote joins only from inside.
    """
    if not tokens:
        return set()
    result = set(tokens)
    first, _ = _neighbours(doc, min(tokens))
    _, last = _neighbours(doc, max(tokens))
    start = min(tokens) if first is None else first
    stop = max(tokens) if last is None else last
    quotes: list[tuple[int, bool]] = []  # (index, interior)
    for i in range(start, stop + 1):
        if i in tokens or doc[i].is_space:
            continue
        before, after = _neighbours(doc, i)
        inside_left = before is not None and before in tokens
        inside_right = after is not None and after in tokens
        if doc[i].text in _QUOTES:
            if inside_left or inside_right:
                quotes.append((i, inside_left and inside_right))
        elif doc[i].is_punct and inside_left and inside_right:
            result.add(i)
    paired = len(quotes) % 2 == 0
    result.update(i for i, interior in quotes if paired or interior)
    return result


def token_spans(doc: Doc, tokens: Iterable[int], answer: str, base: int) -> list[Span]:
    """Half-open spans into ``answer`` covering ``tokens`` (``base`` = the doc's offset).

    Neighbouring tokens share a span when only whitespace separates them in the answer.
    """
    spans: list[Span] = []
    for i in sorted(tokens):
        token = doc[i]
        start = base + token.idx
        end = start + len(token.text)
        if spans and answer[spans[-1].end : start].strip() == "":
            spans[-1] = Span(spans[-1].start, end)
        else:
            spans.append(Span(start, end))
    return spans


def _text(answer: str, spans: list[Span]) -> str:
    return " ".join(answer[s.start : s.end] for s in spans)


def _relation_text(doc: Doc, candidate: Candidate, answer: str, base: int) -> str | None:
    """The relation text read group by group (``relation_order``), or None for text order."""
    groups = [g for g in candidate.relation_order if g]
    if len(groups) < 2 or all(max(a) < min(b) for a, b in pairwise(groups)):
        return None
    first_token = next((t.i for t in doc if not t.is_space), None)
    words: list[str] = []
    for k, group in enumerate(groups):
        text = _text(answer, token_spans(doc, with_punctuation(doc, group), answer, base))
        # moved away from the start of the sentence, a word loses its capital ("In 1992, ...")
        if k > 0 and min(group) == first_token and doc[first_token].pos_ != "PROPN":
            text = text[:1].lower() + text[1:]
        words.append(text)
    return " ".join(words)


def _content(doc: Doc, tokens: Iterable[int]) -> set[int]:
    """``tokens`` less function words, unless nothing else is left."""
    tokens = set(tokens)
    content = {i for i in tokens if doc[i].pos_ not in _FUNCTION_POS or _is_per_cent(doc, i)}
    return content or tokens


def _is_per_cent(doc: Doc, i: int) -> bool:
    """The ``per`` of ``per cent``: part of a unit, not a preposition."""
    return doc[i].lower_ == "per" and i + 1 < len(doc) and doc[i + 1].lower_ == "cent"


def blamed_tokens(doc: Doc, candidate: Candidate, parent: Candidate | None) -> set[int]:
    """What a fact adds: its tokens not in the parent; for a root, its object.

    Function words (prepositions, determiners, punctuation) are left out unless nothing else
    is added, so ``formed in Bath`` → ``formed in Bath, Somerset`` adds ``Somerset``. A root
    fact (no parent) adds its object, else its relation, else its subject.
    """
    if parent is not None:
        return _content(doc, candidate.tokens - parent.tokens)
    for part in (candidate.object, candidate.relation, candidate.subject):
        if part:
            return _content(doc, part)
    return set()


# punctuation that separates, never part of the word it is written against
_SEPARATORS = frozenset({",", ";", ":", ".", "!", "?"})


def glued_punctuation(doc: Doc, tokens: set[int], phrase: set[int]) -> set[int]:
    """``tokens`` plus the punctuation of ``phrase`` (not quotes or brackets) written against
    one of them with no space between: the ``%`` of ``6%`` belongs to the number a refinement
    adds (else the delta reads "6", a plain number the context's "6%" does not ground). A
    comma, colon, semicolon or full stop after a word ends the phrase, not the word: "March
    20, 2012" adds "20", not "20,"."""

    def glued(j: int) -> bool:
        if j not in phrase:  # phrase indices lie inside the doc
            return False
        token = doc[j]
        return token.is_punct and token.text not in _QUOTES and not token.is_bracket

    out = set(tokens)
    for i in tokens:
        if glued(i + 1) and not doc[i].whitespace_ and doc[i + 1].text not in _SEPARATORS:
            out.add(i + 1)
        if glued(i - 1) and not doc[i - 1].whitespace_:
            out.add(i - 1)
    return out


def shape_facts(
    doc: Doc,
    candidates: list[Candidate],
    *,
    answer: str,
    base: int,
    sentence: int,
    first_k: int = 0,
) -> list[Fact]:
    """Turn candidates into facts anchored in ``answer`` (``base`` = the doc's offset).

    Ids are ``f{sentence}.{k}`` with ``k`` counting from ``first_k`` in candidate order, so a
    parent always precedes its refinements.
    """
    ids = [f"f{sentence}.{first_k + k}" for k in range(len(candidates))]
    facts: list[Fact] = []
    for k, candidate in enumerate(candidates):
        parts = [
            token_spans(doc, with_punctuation(doc, tokens), answer, base)
            for tokens in (candidate.subject, candidate.relation, candidate.object)
        ]
        parent = None if candidate.parent is None else candidates[candidate.parent]
        phrase = set().union(
            *(
                with_punctuation(doc, t)
                for t in (candidate.subject, candidate.relation, candidate.object)
            )
        )
        added = glued_punctuation(doc, blamed_tokens(doc, candidate, parent), phrase)
        delta = token_spans(doc, added, answer, base)
        relation = candidate.relation_text
        if relation is None:
            relation = _relation_text(doc, candidate, answer, base) or _text(answer, parts[1])
        facts.append(
            Fact(
                id=ids[k],
                sentence=sentence,
                subject=_text(answer, parts[0]),
                relation=relation,
                object=_text(answer, parts[2]),
                subject_spans=parts[0],
                relation_spans=parts[1],
                object_spans=parts[2],
                parent=None if candidate.parent is None else ids[candidate.parent],
                delta=delta,
                confidence=FAMILY_CONFIDENCE[candidate.family],
                source=f"rules:{candidate.family}",
                negated=candidate.negated,
                modality=candidate.modality,
            )
        )
    return facts
