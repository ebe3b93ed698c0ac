"""Answer sentences the context states word for word.

An answer that copies a sentence of its context makes no claim the context does not make, and
a user who sees such a sentence flagged stops trusting the tool. The verifier cannot be relied
on for it: the facts it judges are cut from their sentence ("the programme isn't meant for
loads" from "… isn't meant for loads with dried-on food"), and the small model fails some of
the cuts (the ``verbatim`` benchmark: 13 of 235 context sentences given back as answers were
flagged before this rule, 12 of them by the verifier).

:func:`quoted_sentences` finds the answer sentences that occur in the context **as a whole
sentence**: the match starts at the start of the context, of a line, or after a sentence's
final ``.``, ``!`` or ``?`` (or a list item's bullet, or a one-word label such as "Note:" that
starts a sentence), and ends at one of those or at a line's end;
it never crosses a blank line, so never two passages of a context given as a list. A match inside a
longer sentence does not count — "The vaccine causes autism." is not stated by "Critics claim
that the vaccine causes autism." Text is compared in Unicode compatibility form, case-folded,
with straight quotes and dashes and runs of spaces as one; the sentence's own final
punctuation is not compared. What it cannot see: a context that states the sentence only to
deny it in the next one ("Vaccines cause autism. This claim is false.").
"""

from __future__ import annotations

import functools
import re
import string
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from enoki_hd.text import fold_compat
from enoki_hd.types import Span

MIN_WORDS = 3
"""Shorter sentences ("Yes.", "Step 2.") are left to the other checks."""

_MARKS = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"',
                        "\u2013": "-", "\u2014": "-", "\u2212": "-"})  # fmt: skip
_SENTENCE_END = ".!?"
_CLOSERS = "\"')]"
_TRAILING_RE = re.compile(r"[\s.!?]+$")
_PARAGRAPH = "\u2029"  # a blank line in the folded text
_BULLET_RE = re.compile(r"(?:[-*+\u2022]|\d{1,3}[.)]) ?")  # what a list line starts with


# the line breaks of str.splitlines: a run of white space holding two of them is a blank line
_NEWLINES = "\n\r\u2028\u2029\x0b\x0c\x1c\x1d\x1e\x85"
_NON_ASCII_RE = re.compile(r"[^\x00-\x7f]")
# a run of white space other than one space before a word, tried from its start only
_RUN_RE = re.compile(r"(?<!\s)(?! (?!\s))\s+")
_ASCII_LOWER = {ord(c): c.lower() for c in string.ascii_uppercase}


def _separator(newlines: int) -> str:
    """What a run of white space holding ``newlines`` line breaks is folded to: a paragraph
    break (a blank line, between passages too, which no sentence crosses), a line break or a
    space."""
    return _PARAGRAPH if newlines > 1 else "\n" if newlines else " "


def _gap(run: re.Match[str]) -> str:
    return _separator(sum(c in _NEWLINES for c in run.group()))


def _fold_char(c: str) -> str:
    return fold_compat(c).casefold().translate(_MARKS)


def _fold_by_character(text: str) -> tuple[str, list[int]]:
    """The folded text with each character's offset in ``text``: every character folded on its
    own — with the combining marks after it, so an accent written as a separate mark
    ("Pa\u0301ris") folds as the composed letter does ("Páris") — a run of white space written
    as one space, one line break or (two or more) :data:`_PARAGRAPH`, none at either end."""
    chars: list[str] = []
    offsets: list[int] = []
    space_at: int | None = None  # the original offset of a pending run of white space
    newlines = 0
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            if space_at is None:
                space_at = i
            newlines += c in _NEWLINES
            i += 1
            continue
        if space_at is not None:
            if chars:
                chars.append(_separator(newlines))
                offsets.append(space_at)
            space_at, newlines = None, 0
        j = i + 1
        while j < n and unicodedata.combining(text[j]):
            j += 1
        for f in _fold_char(text[i:j]):
            chars.append(f)
            offsets.append(i)
        i = j
    return "".join(chars), offsets


def _fold(text: str) -> str:
    """:func:`_fold_by_character`'s text by whole-string operations, a 50,000-character
    context in about 2 ms instead of 12: the few characters outside ASCII folded one by one,
    the rest lower-cased at once, and only the runs of white space other than one space
    looked at. Where this cannot give the same text (a character that folds to nothing or to
    white space, or a combining mark, folded with the letter before it), the character loop does
    it."""
    folds: dict[str, str] = {}
    for c in set(_NON_ASCII_RE.findall(text)):
        if not c.isspace():
            folded = _fold_char(c)
            if not folded or any(f.isspace() for f in folded) or unicodedata.combining(c):
                return _fold_by_character(text)[0]
            folds[c] = folded
    body = text.strip()
    if folds:
        body = _NON_ASCII_RE.sub(lambda m: folds.get(m.group(), m.group()), body)
    if all(f.lower() == f for f in folds.values()):
        body = body.lower()  # ASCII's lower case is its case fold
    else:
        body = body.translate(_ASCII_LOWER)  # "Ꭰ" folds to itself; lower() would not keep it
    return _RUN_RE.sub(_gap, body)


@dataclass(frozen=True)
class _Folded:
    """A text compared in folded form; ``offsets`` gives each folded character's offset in
    the original (found on first use: only a match needs it)."""

    text: str
    original: str

    @classmethod
    def of(cls, text: str) -> _Folded:
        return cls(_fold(text), text)

    @functools.cached_property
    def offsets(self) -> list[int]:
        return _fold_by_character(self.original)[1]

    def starts_sentence(self, at: int) -> bool:
        line = max(self.text.rfind("\n", 0, at), self.text.rfind(_PARAGRAPH, 0, at)) + 1
        if _BULLET_RE.fullmatch(self.text[line:at]) or line == at:
            return True
        if self.text[at - 1] != " ":
            return False
        before = self.text[: at - 1].rstrip(_CLOSERS)
        if before.endswith(":"):
            # after a one-word label that starts a sentence: "Note: I am not thin-skinned …"
            label = re.search(r"[^\W\d_]{1,12}:$", before)
            return label is not None and (label.start() == 0 or self.starts_sentence(label.start()))
        return bool(before) and before[-1] in _SENTENCE_END

    def ends_sentence(self, at: int) -> bool:
        after = self.text[at:].lstrip(_CLOSERS)
        return not after or after[0] in _SENTENCE_END or after[0] in ("\n", _PARAGRAPH)


@functools.lru_cache(maxsize=8)
def _folded_context(context: str) -> _Folded:
    """The folded context, kept for the next answers checked against the same context (a
    batch over one document folds it once)."""
    return _Folded.of(context)


def _key(text: str) -> str:
    folded = _Folded.of(text).text
    return _TRAILING_RE.sub("", folded).replace("\n", " ").replace(_PARAGRAPH, " ")


def quoted_sentences(
    answer: str, sentences: Sequence[Span], context: str, *, min_words: int = MIN_WORDS
) -> dict[int, Span]:
    """The answer sentences (indices into ``sentences``) the context states word for word, each
    with the span of its first occurrence as a whole sentence of the context (see the module
    docstring)."""
    if not context.strip():
        return {}
    folded = _folded_context(context)
    # a line break inside a context sentence is layout, but it is also where lists start:
    # match on spaces, test boundaries on the text with its line breaks; a blank line (and so
    # the break between two passages) is never crossed
    flat = folded.text.replace("\n", " ")
    found: dict[int, Span] = {}
    for index, sentence in enumerate(sentences):
        key = _key(sentence.text(answer))
        if len(key.split()) < min_words:
            continue
        start = flat.find(key)
        while start >= 0:
            end = start + len(key)
            if folded.starts_sentence(start) and folded.ends_sentence(end):
                first, last = folded.offsets[start], folded.offsets[end - 1] + 1
                while last < len(context) and unicodedata.combining(context[last]):
                    last += 1  # the marks the last letter was folded with
                while last < len(context) and context[last] in _SENTENCE_END:
                    last += 1  # the context sentence's own full stop
                found[index] = Span(first, last)
                break
            start = flat.find(key, start + 1)
    return found
