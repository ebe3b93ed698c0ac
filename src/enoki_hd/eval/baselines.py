"""Reference methods that every evaluation table carries next to the detector.

- ``mark_all``: the whole answer (stripped of surrounding whitespace) is one hallucinated span;
- ``mark_none``: nothing is hallucinated;
- ``lexical_absent``: the answer's content words that occur neither in the context nor in the
  question, neighbours within a sentence merged (:func:`lexical_absent_spans`).

The decomposition-free ``sentence_nli`` baseline needs the verifier and is a sentence-level
:class:`~enoki_hd.detector.Detector`; the runner builds it (``enoki_hd.eval.runner``).

Every span here is a half-open ``[start, end)`` character offset pair into the ANSWER.
"""

from __future__ import annotations

import bisect
import functools
import logging
import re
from collections.abc import Iterable
from typing import Literal

from enoki_hd.text import segment_sentences, strip_span, tokenize_words
from enoki_hd.types import Span

logger = logging.getLogger(__name__)

SentenceBackend = Literal["spacy", "regex"]

# spaCy's English stop list names numbers ("two", "fifty", "first", ...); a changed number is a
# typical hallucination, so number words stay content words.
NUMBER_WORDS = frozenset(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty "
    "ninety hundred thousand million billion trillion first second third fourth fifth sixth "
    "seventh eighth ninth tenth once twice".split()
)
_WORD_CHAR_RE = re.compile(r"\w")
_NUMBER_RE = re.compile(r"\d+(?:[.,]\d+)+")
_POSSESSIVE_RE = re.compile(r"'s$")
_HYPHENS_RE = re.compile(r"[-‐‑]")


@functools.lru_cache(maxsize=1)
def stop_words() -> frozenset[str]:
    """spaCy's English stop words (lowercase) without :data:`NUMBER_WORDS`."""
    from spacy.lang.en.stop_words import STOP_WORDS

    words = {w.lower().replace("’", "'") for w in STOP_WORDS}
    return frozenset(words - NUMBER_WORDS)


def normalize_word(word: str) -> str:
    """The form words are compared in: casefolded, curly apostrophes straightened, a trailing
    possessive ``'s`` dropped and thousands separators removed from numbers
    (``"Einstein’s"`` → ``"einstein"``, ``"1,900"`` → ``"1900"``)."""
    word = word.casefold().replace("’", "'")
    if _NUMBER_RE.fullmatch(word) and "," in word:
        word = word.replace(",", "")
    return _POSSESSIVE_RE.sub("", word)


def is_word(token: str) -> bool:
    """A word token has at least one word character; the rest is punctuation or symbols."""
    return _WORD_CHAR_RE.search(token) is not None


def vocabulary(*texts: str | None) -> frozenset[str]:
    """The normalized words of ``texts`` (None entries are skipped)."""
    words: set[str] = set()
    for text in texts:
        if text:
            words.update(normalize_word(s.text(text)) for s in tokenize_words(text))
    return frozenset(words)


def is_content_word(token: str) -> bool:
    """A word that is not a stop word; numbers and number words are content words."""
    return is_word(token) and normalize_word(token) not in stop_words()


def is_absent(token: str, vocab: frozenset[str]) -> bool:
    """``token`` occurs nowhere in ``vocab`` (case-insensitive, whole words). A hyphenated word
    counts as present when the whole word, or each of its parts, occurs."""
    word = normalize_word(token)
    if word in vocab:
        return False
    parts = [p for p in _HYPHENS_RE.split(word) if p]
    return not (len(parts) > 1 and all(p in vocab for p in parts))


def _sentence_of(starts: list[int], offset: int) -> int:
    return bisect.bisect_right(starts, offset) - 1


def lexical_absent_spans(
    answer: str,
    context: str,
    question: str | None = None,
    *,
    sentence_backend: SentenceBackend = "spacy",
) -> list[Span]:
    """Spans of the answer's content words that occur neither in ``context`` nor ``question``.

    Words are :func:`~enoki_hd.text.tokenize_words` tokens compared with
    :func:`normalize_word` (case-insensitive, whole words; see :func:`is_absent`). Stop words
    (:func:`stop_words`) are never flagged; numbers are. Two flagged words merge into one span
    when they lie in the same sentence and only punctuation or whitespace separates them, so
    ``"in Lyon, France"`` with both names absent gives the one span ``"Lyon, France"``.

    Returns spans into ``answer``, sorted, non-overlapping.
    """
    vocab = vocabulary(context, question)
    starts = [s.start for s in segment_sentences(answer, backend=sentence_backend)] or [0]
    spans: list[Span] = []
    open_span: Span | None = None
    open_sentence = -1
    for token in tokenize_words(answer):
        text = token.text(answer)
        if not is_word(text):
            continue  # punctuation neither flags nor separates
        if is_content_word(text) and is_absent(text, vocab):
            sentence = _sentence_of(starts, token.start)
            if open_span is not None and sentence == open_sentence:
                open_span = Span(open_span.start, token.end)
            else:
                if open_span is not None:
                    spans.append(open_span)
                open_span, open_sentence = token, sentence
        elif open_span is not None:
            spans.append(open_span)
            open_span = None
    if open_span is not None:
        spans.append(open_span)
    return spans


def absent_fraction(answer: str, context: str, question: str | None = None) -> float:
    """Share of the answer's content words that :func:`lexical_absent_spans` would flag; 0.0
    when the answer has no content word. The continuous score of ``lexical_absent``."""
    vocab = vocabulary(context, question)
    content = [t for t in (s.text(answer) for s in tokenize_words(answer)) if is_content_word(t)]
    if not content:
        return 0.0
    return sum(is_absent(t, vocab) for t in content) / len(content)


def mark_all_spans(answer: str) -> list[Span]:
    """The whole answer without surrounding whitespace; nothing for a blank answer."""
    span = strip_span(answer, Span(0, len(answer)))
    return [span] if len(span) else []


def mark_none_spans(answer: str) -> list[Span]:
    """No span at all."""
    del answer
    return []


def spans_to_dicts(
    answer: str, spans: Iterable[Span], score: float = 1.0
) -> list[dict[str, object]]:
    """``{"start", "end", "text", "score"}`` rows for spans into ``answer``."""
    return [
        {"start": s.start, "end": s.end, "text": s.text(answer), "score": score} for s in spans
    ]
