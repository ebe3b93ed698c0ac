"""Grid labels of the IGL tagger: the label set, grid examples, OIE4 files and teacher JSONL.

A :class:`GridExample` is one sentence with one row of labels per extraction. A row has one
label per word of the sentence (words as :func:`enoki_hd.text.tokenize_words` finds them) and
then one per implicit-relation sentinel (``[is]``, ``[of]``, ``[from]``): a relation the
sentence does not spell out ("Paris, the capital of France" → Paris *is* the capital of France)
puts REL on the sentinel.

Offsets are half-open ``[start, end)`` character offsets into the example's ``text``.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from enoki_hd.text import SegmentBackend, normalize_term, segment_sentences, tokenize_words
from enoki_hd.types import Fact, Span

logger = logging.getLogger(__name__)

LABELS: tuple[str, ...] = ("NONE", "ARG1", "REL", "ARG2", "LOC_TMP", "TYPE")
LABEL2ID: dict[str, int] = {name: i for i, name in enumerate(LABELS)}
NONE, ARG1, REL, ARG2, LOC_TMP, TYPE = range(6)
# Implicit relation words, in the order their positions follow the sentence's words.
SENTINELS: tuple[str, ...] = ("[is]", "[of]", "[from]")
SENTINEL_WORDS: tuple[str, ...] = ("is", "of", "from")
# How OIE4 files (OpenIE6) write the sentinels.
OIE4_SENTINELS: tuple[str, ...] = ("[unused1]", "[unused2]", "[unused3]")
IGNORE = -100  # padding label id in tensors

# OpenIE6 reads LOC and TIME as one label (its id 4) and ARGS as ARG2; LOC_TMP is written as
# LOC so OpenIE6 can read our files.
_OIE4_READ = {**LABEL2ID, "LOC": LOC_TMP, "TIME": LOC_TMP, "ARGS": ARG2}
_OIE4_WRITE = {**{i: name for i, name in enumerate(LABELS)}, LOC_TMP: "LOC"}


@dataclass(frozen=True)
class GridExample:
    """One sentence and its extractions as label rows.

    ``words`` are spans into ``text`` (from :func:`~enoki_hd.text.tokenize_words`); each row
    holds one label id per word and then one per sentinel (``len(words) + 3`` in all).
    ``parents[i]`` is the index of the coarser row that row ``i`` refines, or None.
    """

    text: str
    words: list[Span]
    rows: list[list[int]]
    parents: list[int | None]
    source: str
    id: str = ""

    def __post_init__(self) -> None:
        width = len(self.words) + len(SENTINELS)
        where = f"grid example {self.id!r}" if self.id else "grid example"
        for i, row in enumerate(self.rows):
            if len(row) != width:
                raise ValueError(
                    f"{where}: row {i} has {len(row)} labels, expected {width} "
                    f"({len(self.words)} words + {len(SENTINELS)} sentinels)"
                )
            bad = [x for x in row if not 0 <= x < len(LABELS)]
            if bad:
                raise ValueError(f"{where}: row {i} has label ids outside 0..5: {bad[:3]}")
        if len(self.parents) != len(self.rows):
            raise ValueError(
                f"{where}: {len(self.parents)} parents for {len(self.rows)} rows; give one "
                "parent (or None) per row"
            )
        for i, parent in enumerate(self.parents):
            if parent is not None and not (0 <= parent < len(self.rows) and parent != i):
                raise ValueError(f"{where}: row {i} has parent {parent}, not another row index")

    def word_texts(self) -> list[str]:
        return [w.text(self.text) for w in self.words]

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "words": [[w.start, w.end] for w in self.words],
            "rows": [list(r) for r in self.rows],
            "parents": list(self.parents),
            "source": self.source,
            "id": self.id,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GridExample:
        return cls(
            text=d["text"],
            words=[Span.from_dict(w) for w in d["words"]],
            rows=[[int(x) for x in r] for r in d["rows"]],
            parents=[None if p is None else int(p) for p in d["parents"]],
            source=d.get("source", ""),
            id=d.get("id", ""),
        )


# ---------------------------------------------------------------------------------------------
# Rows


def empty_row(num_words: int) -> list[int]:
    return [NONE] * (num_words + len(SENTINELS))


def _part(row: Sequence[int], labels: Iterable[int]) -> frozenset[int]:
    wanted = set(labels)
    return frozenset(i for i, x in enumerate(row) if x in wanted)


def chain_parents(rows: Sequence[Sequence[int]]) -> list[int | None]:
    """Parent links rebuilt from nesting: row B refines row A when both have the same ARG1 and
    REL positions (sentinels included) and A's object positions (ARG2, LOC_TMP) are a strict
    subset of B's. Among such A the one with the largest object is the parent (the earliest
    row on ties)."""
    keys = [(_part(r, [ARG1]), _part(r, [REL]), _part(r, [ARG2, LOC_TMP])) for r in rows]
    parents: list[int | None] = []
    for b, (subj_b, rel_b, obj_b) in enumerate(keys):
        best: int | None = None
        for a, (subj_a, rel_a, obj_a) in enumerate(keys):
            if a == b or subj_a != subj_b or rel_a != rel_b or not obj_a < obj_b:
                continue
            if best is None or len(obj_a) > len(keys[best][2]):
                best = a
        parents.append(best)
    return parents


# ---------------------------------------------------------------------------------------------
# Teacher facts → rows


def _covered_words(words: Sequence[Span], spans: Sequence[Span]) -> list[int]:
    return [i for i, w in enumerate(words) if any(w.overlaps(s) for s in spans)]


def implicit_relation_words(relation: str, covered: str) -> list[str]:
    """The leading sentinel words ("is", "of", "from") of ``relation`` that the sentence text
    ``covered`` by its relation spans does not start with: "is" over "the capital of" → ["is"];
    "is" over nothing → ["is"]; "is" over "is" → []."""
    rel = relation.casefold().split()
    cov = covered.casefold().split()
    implicit: list[str] = []
    for token in rel:
        if token not in SENTINEL_WORDS or token in implicit or cov[:1] == [token]:
            break
        implicit.append(token)
    return implicit


def facts_to_example(
    text: str,
    facts: Sequence[Fact],
    *,
    source: str,
    id: str = "",
    dropped: Counter[str] | None = None,
) -> GridExample:
    """Teacher facts of one sentence → a grid example.

    The facts' subject / relation / object spans are character offsets into ``text``. A word is
    labelled with the part whose span overlaps it (subject before relation before object when
    spans overlap). Leading relation words "is" / "of" / "from" that the relation spans do not
    cover go to the sentinels. A fact without subject words, or with neither relation words nor
    a sentinel, gives no row; a fact whose row repeats an earlier fact's row gives none either
    (two gold rows alike would teach the tagger to say one fact twice); a parent link to a
    fact without a row moves to its nearest kept ancestor, or to the row it repeats. Rows keep
    the facts' order. ``dropped``, when given, counts the facts without a row by reason:
    ``no_subject_or_relation`` and ``duplicate``.
    """
    words = tokenize_words(text)
    n = len(words)
    rows: list[list[int]] = []
    kept: dict[str, int] = {}  # fact id → its row, or the earlier row it repeats
    owners: list[Fact] = []  # the fact each row came from
    by_id = {f.id: f for f in facts}
    for fact in facts:
        for name in ("subject_spans", "relation_spans", "object_spans"):
            for span in getattr(fact, name):
                if span.end > len(text):
                    raise ValueError(
                        f"fact {fact.id!r}: {name} {span.start}:{span.end} lies outside the "
                        f"text of length {len(text)}"
                    )
        row = empty_row(n)
        for label, spans in (
            (ARG2, fact.object_spans),
            (REL, fact.relation_spans),
            (ARG1, fact.subject_spans),
        ):
            for i in _covered_words(words, spans):
                row[i] = label
        covered = " ".join(s.text(text) for s in sorted(fact.relation_spans))
        for word in implicit_relation_words(fact.relation, covered):
            row[n + SENTINEL_WORDS.index(word)] = REL
        if ARG1 not in row or REL not in row:
            logger.debug("fact %s has no subject or relation words in %r; no row", fact.id, text)
            if dropped is not None:
                dropped["no_subject_or_relation"] += 1
            continue
        if row in rows:
            logger.debug("fact %s repeats an earlier fact's row in %r; no row", fact.id, text)
            if dropped is not None:
                dropped["duplicate"] += 1
            kept[fact.id] = rows.index(row)
            continue
        kept[fact.id] = len(rows)
        rows.append(row)
        owners.append(fact)
    parents: list[int | None] = []
    for index, fact in enumerate(owners):
        parent, seen = fact.parent, {fact.id}
        while parent is not None and parent not in kept and parent in by_id:
            seen.add(parent)
            parent = by_id[parent].parent
            if parent in seen:
                parent = None
        row_of_parent = kept.get(parent) if parent is not None else None
        parents.append(None if row_of_parent == index else row_of_parent)
    return GridExample(text=text, words=words, rows=rows, parents=parents, source=source, id=id)


# ---------------------------------------------------------------------------------------------
# Teacher JSONL


def _bad(where: str, problem: str) -> ValueError:
    return ValueError(f"{where}: {problem}")


def _parse_spans(value: Any, where: str, text_len: int | None) -> list[Span]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise _bad(where, f"expected a list of spans, got {type(value).__name__}")
    spans = []
    for k, item in enumerate(value):
        try:
            span = Span.from_dict(item)
        except (KeyError, TypeError, ValueError, IndexError) as err:
            raise _bad(
                f"{where}[{k}]", f"expected {{'start': int, 'end': int}} or [start, end]: {err}"
            ) from None
        if text_len is not None and span.end > text_len:
            raise _bad(
                f"{where}[{k}]",
                f"span {span.start}:{span.end} lies outside the text of length {text_len} "
                "(spans are character offsets into the text, not UTF-8 byte offsets)",
            )
        spans.append(span)
    return spans


def _parse_fact(d: Any, where: str, text_len: int | None) -> Fact:
    if not isinstance(d, dict):
        raise _bad(where, f"expected a fact object, got {type(d).__name__}")
    for key in ("id", "subject", "relation", "object"):
        if key not in d:
            raise _bad(where, f"missing field {key!r} (a fact as Fact.to_dict() writes it)")
    for key in ("subject", "relation", "object"):
        if not isinstance(d[key], str):
            raise _bad(f"{where}.{key}", f"expected a string, got {type(d[key]).__name__}")
    parent = d.get("parent")
    if parent is not None and not isinstance(parent, (str, int)):
        raise _bad(f"{where}.parent", f"expected a fact id or null, got {parent!r}")
    sentence = d.get("sentence", 0)
    if not isinstance(sentence, int):
        raise _bad(f"{where}.sentence", f"expected an int, got {sentence!r}")
    subject_spans, relation_spans, object_spans = (
        _parse_spans(d.get(name), f"{where}.{name}", text_len)
        for name in ("subject_spans", "relation_spans", "object_spans")
    )
    return Fact(
        id=str(d["id"]),
        sentence=sentence,
        subject=d["subject"],
        relation=d["relation"],
        object=d["object"],
        subject_spans=subject_spans,
        relation_spans=relation_spans,
        object_spans=object_spans,
        parent=None if parent is None else str(parent),
        source=str(d.get("source", "")),
    )


def _sentence_regions(text: str, facts: Sequence[Fact], segmenter: SegmentBackend) -> list[Span]:
    """Sentence spans of ``text``, merged where a fact's spans cross a sentence boundary."""
    regions = [[s.start, s.end] for s in segment_sentences(text, backend=segmenter)]
    for fact in facts:
        spans = [*fact.subject_spans, *fact.relation_spans, *fact.object_spans]
        if not spans:
            continue
        lo, hi = min(s.start for s in spans), max(s.end for s in spans)
        hit = [i for i, (a, b) in enumerate(regions) if a < hi and lo < b]
        if not hit:
            regions.append([lo, hi])
            regions.sort()
            continue
        first, last = hit[0], hit[-1]
        merged = [min(regions[first][0], lo), max(regions[last][1], hi)]
        regions[first : last + 1] = [merged]
    return [Span(a, b) for a, b in regions]


def _shift(fact: Fact, offset: int) -> Fact:
    def move(spans: list[Span]) -> list[Span]:
        return [Span(s.start - offset, s.end - offset) for s in spans]

    return replace(
        fact,
        subject_spans=move(fact.subject_spans),
        relation_spans=move(fact.relation_spans),
        object_spans=move(fact.object_spans),
        delta=move(fact.delta),
    )


def teacher_examples(
    text: str,
    facts: Sequence[Fact],
    *,
    source: str = "teacher_jsonl",
    id: str = "",
    segmenter: SegmentBackend = "regex",
    keep_empty: bool = True,
) -> list[GridExample]:
    """One grid example per sentence of ``text`` from facts anchored to it (spans into
    ``text``). Facts go to the sentence their spans lie in (sentences a fact crosses are
    merged); a fact without any span lies in none and gives no row. Sentences without facts
    give examples without rows unless ``keep_empty`` is False. Example ids are ``{id}:{k}``
    for the k-th sentence."""
    return [
        example
        for example, _, _ in _sentence_examples(
            text, facts, source=source, id=id, segmenter=segmenter, keep_empty=keep_empty
        )
    ]


def _sentence_examples(
    text: str,
    facts: Sequence[Fact],
    *,
    source: str,
    id: str,
    segmenter: SegmentBackend,
    keep_empty: bool,
) -> list[tuple[GridExample, int, Counter[str]]]:
    """:func:`teacher_examples`, each with the number of facts its sentence holds and those
    of them that gave no row, by reason."""
    examples = []
    for k, region in enumerate(_sentence_regions(text, facts, segmenter)):
        inside = [
            _shift(f, region.start)
            for f in facts
            if any(
                region.start <= s.start and s.end <= region.end
                for s in (*f.subject_spans, *f.relation_spans, *f.object_spans)
            )
        ]
        if not inside and not keep_empty:
            continue
        sentence = region.text(text)
        dropped: Counter[str] = Counter()
        example = facts_to_example(sentence, inside, source=source, id=f"{id}:{k}", dropped=dropped)
        examples.append((example, len(inside), dropped))
    return examples


def _counted(
    pairs: list[tuple[GridExample, int, Counter[str]]],
    facts: Sequence[Fact],
    counts: Counter[str] | None,
    mismatched: int = 0,
) -> Iterator[GridExample]:
    """The examples of ``pairs``; each one's facts and rows go into ``counts`` as it is taken
    (a reader that stops early counts no fact of the examples it did not take). ``mismatched``
    facts were left out before (:func:`_anchored`); they count with the record's first
    example."""
    if counts is not None:
        unplaced = sum(
            1 for f in facts if not (f.subject_spans or f.relation_spans or f.object_spans)
        )
        counts["facts"] += unplaced + mismatched
        counts["no_spans"] += unplaced
        if mismatched:
            counts["spans_do_not_match"] += mismatched
    for example, inside, dropped in pairs:
        if counts is not None:
            counts["facts"] += inside
            counts["rows"] += len(example.rows)
            counts["no_subject_or_relation"] += dropped["no_subject_or_relation"]
            if dropped["duplicate"]:
                counts["duplicate"] += dropped["duplicate"]
        yield example


def read_teacher_jsonl(
    path: str | Path,
    *,
    text: str | None = None,
    source: str = "teacher_jsonl",
    segmenter: SegmentBackend = "regex",
    keep_empty: bool = True,
    counts: Counter[str] | None = None,
) -> Iterator[GridExample]:
    """Grid examples from a teacher JSONL file, one per sentence.

    Two layouts are read:

    - one record per line, ``{"text": str, "facts": [Fact.to_dict(), ...], "id": str}`` (the
      fact spans are offsets into that record's ``text``; ``id`` is optional);
    - one fact per line, as ``enoki extract`` writes them for ONE answer; that answer must be
      passed as ``text``.

    ``counts``, when given, is updated as each example is yielded: ``facts`` read, ``rows``
    made, and the facts that gave no row by reason, ``no_spans`` (no span at all, so no
    sentence), ``spans_do_not_match`` (spans that cover words their strings do not have:
    offsets in bytes, or into another text; the first is logged), ``no_subject_or_relation``
    and ``duplicate`` (:func:`facts_to_example`).

    Raises ``ValueError`` naming the file, line and field of the first bad entry.
    """
    path = Path(path)
    fact_lines: list[tuple[int, Any]] = []
    warned = [False]  # a fact whose spans disagree with its strings was logged
    with path.open(encoding="utf-8") as handle:
        for lineno, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            where = f"{path}:{lineno}"
            try:
                record = json.loads(line)
            except json.JSONDecodeError as err:
                raise _bad(where, f"not valid JSON ({err.msg} at column {err.colno})") from None
            if not isinstance(record, dict):
                raise _bad(where, f"expected a JSON object, got {type(record).__name__}")
            if "facts" in record or "text" in record:
                if fact_lines:
                    raise _bad(where, "a {text, facts} record after fact lines; use one layout")
                yield from _record_examples(
                    record, where, lineno, source, segmenter, keep_empty, counts, warned
                )
            elif "subject" in record:
                fact_lines.append((lineno, record))
            else:
                raise _bad(
                    where,
                    "neither a {text, facts} record nor a fact (Fact.to_dict()); "
                    f"got fields {sorted(record)[:6]}",
                )
    if not fact_lines:
        return
    if text is None:
        raise ValueError(
            f"{path}: the lines are facts without their text (as `enoki extract` writes them "
            "for one answer); write one record per line with `enoki extract --format teacher` "
            '({"text": ..., "facts": [...]}), or pass text=<that answer>'
        )
    facts = [_parse_fact(d, f"{path}:{lineno}", len(text)) for lineno, d in fact_lines]
    _check_parents(facts, str(path))
    facts, mismatched = _anchored(text, facts, str(path), warned)
    pairs = _sentence_examples(
        text, facts, source=source, id=path.stem, segmenter=segmenter, keep_empty=keep_empty
    )
    yield from _counted(pairs, facts, counts, mismatched)


def _record_examples(
    record: dict[str, Any],
    where: str,
    lineno: int,
    source: str,
    segmenter: SegmentBackend,
    keep_empty: bool,
    counts: Counter[str] | None,
    warned: list[bool],
) -> Iterator[GridExample]:
    text = record.get("text")
    if not isinstance(text, str):
        raise _bad(f"{where}: field 'text'", f"expected a string, got {type(text).__name__}")
    facts_raw = record.get("facts")
    if not isinstance(facts_raw, list):
        raise _bad(
            f"{where}: field 'facts'", f"expected a list of facts, got {type(facts_raw).__name__}"
        )
    facts = [
        _parse_fact(d, f"{where}: field 'facts[{k}]'", len(text)) for k, d in enumerate(facts_raw)
    ]
    _check_parents(facts, where)
    facts, mismatched = _anchored(text, facts, where, warned)
    record_id = record.get("id")
    pairs = _sentence_examples(
        text,
        facts,
        source=str(record.get("source", source)),
        id=str(record_id) if record_id is not None else f"line{lineno}",
        segmenter=segmenter,
        keep_empty=keep_empty,
    )
    return _counted(pairs, facts, counts, mismatched)


def _word_forms(text: str) -> list[str]:
    """The words of ``text`` as lexical checks compare them; punctuation left out."""
    forms = (normalize_term(w.text(text)) for w in tokenize_words(text))
    return [f for f in forms if any(c.isalnum() for c in f)]


def _mismatch(text: str, fact: Fact) -> str | None:
    """How ``fact``'s spans disagree with its strings, or None: every word a part's spans cover
    in ``text`` must be a word of that part's string (the string may add words, as an implicit
    "is" or a resolved name, but the spans may not point at other words — the mark of offsets
    counted in bytes, or into another text)."""
    for part in ("subject", "relation", "object"):
        allowed = set(_word_forms(getattr(fact, part)))
        for span in getattr(fact, f"{part}_spans"):
            covered = span.text(text)
            if any(word not in allowed for word in _word_forms(covered)):
                return f"its {part}_spans cover {covered!r}, not words of {part} {getattr(fact, part)!r}"
    return None


def _anchored(
    text: str, facts: list[Fact], where: str, warned: list[bool]
) -> tuple[list[Fact], int]:
    """``facts`` without those whose spans do not cover their strings' words (see
    :func:`_mismatch`), and how many were left out; a child of a fact left out takes that
    fact's parent. The first fact left out in a file is logged (``warned`` is the file's
    flag), each after it only counted."""
    bad: dict[str, str | None] = {}
    for fact in facts:
        problem = _mismatch(text, fact)
        if problem is None:
            continue
        bad[fact.id] = fact.parent
        if not warned[0]:
            warned[0] = True
            logger.warning(
                "%s: fact %r left out of training: %s. Spans are character offsets into the "
                "record's text (Python string indices, not UTF-8 byte offsets); the facts "
                "whose spans disagree with their strings are counted as spans_do_not_match",
                where,
                fact.id,
                problem,
            )
    if not bad:
        return facts, 0

    def parent_kept(parent: str | None) -> str | None:
        seen: set[str] = set()
        while parent is not None and parent in bad and parent not in seen:
            seen.add(parent)
            parent = bad[parent]
        return None if parent in bad else parent

    kept = [replace(f, parent=parent_kept(f.parent)) for f in facts if f.id not in bad]
    return kept, len(bad)


def _check_parents(facts: Sequence[Fact], where: str) -> None:
    ids = {f.id for f in facts}
    for f in facts:
        if f.parent is not None and f.parent not in ids:
            raise _bad(
                where, f"fact {f.id!r} has parent {f.parent!r}, which is not among its facts"
            )


# ---------------------------------------------------------------------------------------------
# OIE4 files (OpenIE6)


def write_oie4(examples: Iterable[GridExample], path: str | Path) -> None:
    """Write examples in the OIE4 format OpenIE6 reads: per sentence a line with the words
    joined by spaces and `` [unused1] [unused2] [unused3]``, one line per row with its label
    names (LOC_TMP written as LOC), a blank line between sentences."""
    with Path(path).open("w", encoding="utf-8") as handle:
        for example in examples:
            handle.write(" ".join([*example.word_texts(), *OIE4_SENTINELS]) + "\n")
            for row in example.rows:
                handle.write(" ".join(_OIE4_WRITE[x] for x in row) + "\n")
            handle.write("\n")


def read_oie4(path: str | Path, *, source: str = "oie4") -> list[GridExample]:
    """Read an OIE4 file (as :func:`write_oie4` or OpenIE6 write them).

    The text of an example is its tokens joined by single spaces. When
    :func:`~enoki_hd.text.tokenize_words` splits a token (OpenIE6's PTB tokens such as ``'s``),
    its words take the token's label. Parents are rebuilt by :func:`chain_parents` (the format
    has no links). Labels LOC and TIME read as LOC_TMP, ARGS as ARG2.
    """
    path = Path(path)
    examples: list[GridExample] = []
    block: list[tuple[int, str]] = []

    def flush() -> None:
        if block:
            examples.append(_oie4_example(block, path, source, len(examples)))
            block.clear()

    with path.open(encoding="utf-8") as handle:
        for lineno, line in enumerate(handle, start=1):
            line = line.rstrip("\n")
            if line.strip():
                block.append((lineno, line))
            else:
                flush()
    flush()
    return examples


def _oie4_example(block: list[tuple[int, str]], path: Path, source: str, index: int) -> GridExample:
    lineno, sentence = block[0]
    tokens = sentence.split()
    if tuple(tokens[-3:]) != OIE4_SENTINELS:
        raise _bad(f"{path}:{lineno}", f"a sentence line must end with {' '.join(OIE4_SENTINELS)}")
    tokens = tokens[:-3]
    text = " ".join(tokens)
    words = tokenize_words(text)
    token_spans, pos = [], 0
    for token in tokens:
        token_spans.append(Span(pos, pos + len(token)))
        pos += len(token) + 1
    # word -> index of the token it lies in (tokens are space-separated, so exactly one)
    owner = [next(t for t, s in enumerate(token_spans) if s.overlaps(w)) for w in words]
    rows = []
    for row_lineno, line in block[1:]:
        names = line.split()
        if len(names) != len(tokens) + 3:
            raise _bad(
                f"{path}:{row_lineno}",
                f"{len(names)} labels for {len(tokens)} words + 3 sentinels",
            )
        unknown = [x for x in names if x not in _OIE4_READ]
        if unknown:
            raise _bad(f"{path}:{row_lineno}", f"unknown label {unknown[0]!r}")
        ids = [_OIE4_READ[x] for x in names]
        rows.append([ids[t] for t in owner] + ids[len(tokens) :])
    return GridExample(
        text=text,
        words=words,
        rows=rows,
        parents=chain_parents(rows),
        source=source,
        id=f"{path.stem}:{index}",
    )
