"""Mask Markdown markup without moving any character.

The parser should read ``**Suede** formed in [Bath](https://...)`` as plain prose, yet every
offset must still point into the original answer. :func:`mask_markdown` therefore returns a
string of the SAME length in which markup characters are replaced by spaces (line breaks are
kept), so a token at ``[i, j)`` in the masked text is the same characters at ``[i, j)`` in the
answer.
"""

from __future__ import annotations

import re
import unicodedata

from enoki_hd.text import URL_RE, unescape_entities

_FENCE_RE = re.compile(r"[ \t]{0,3}(```|~~~)")
_LINE_MARKERS = (
    re.compile(r"[ \t]{0,3}#{1,6}(?=[ \t]|$)"),  # heading
    re.compile(r"[ \t]*(?:>[ \t]?)+"),  # block quote
    re.compile(r"[ \t]*(?:[-*+•]|\d{1,3}[.)])(?=[ \t])"),  # list item
)
_RULE_RE = re.compile(r"[ \t]*(?:(?:[-*_][ \t]*){3,}|=+|[|:\- \t]*-[|:\- \t]*)$")
# A link target or URL holds balanced parentheses, as Markdown renderers and GitHub read
# ".../wiki/Suede_(band)": a "(...)" pair belongs to it, an unmatched ")" closes what holds it.
_TARGET = r"(?:[^()\n]|\([^()\n]*\))*"
_INLINE = (
    re.compile(r"<[a-zA-Z/][^<>\n]*>"),  # HTML tag
    URL_RE,  # a URL: trailing sentence punctuation is not part of it
    re.compile(r"\*\*|__|~~|`+"),  # strong, strikethrough, code ticks (code text stays)
    re.compile(r"(?<![\w*])\*(?=\S)|(?<=\S)\*(?![\w*])"),  # *emphasis*
    re.compile(r"\|"),  # table pipes
)
# zero-width joiner, variation selectors, keycap, skin tones (category Sk, not So)
_EMOJI_GLUE = frozenset(
    {"\u200d", "\ufe0e", "\ufe0f", "\u20e3", *map(chr, range(0x1F3FB, 0x1F400))}
)
# Symbols of category So that are written text, not pictures: kept for the parser (the degree
# sign of "40.5 °C", "№ 5", "™"); every other So character is an emoji or a pictograph.
_WRITTEN_SYMBOLS = frozenset(
    {*(chr(c) for c in range(0xA0, 0x100)), *(chr(c) for c in range(0x2100, 0x2150))}
)
# [text](url): the brackets and the (url) part go, the link text stays; ![alt](url), an image,
# goes whole. The text is read possessively and the (url) part is optional, so a "[" that opens no
# link (group 2 unset) still takes its text: every "[" inside it would fail at the same "]" or
# line end, and reading on from each of them was quadratic ('"[" * 100000').
_LINK_RE = re.compile(rf"\[([^\]\n]*+)(?:\]\(({_TARGET})\))?")
_IMAGE_RE = re.compile(rf"!\[[^\]\n]*+(\]\({_TARGET}\))?")


def _inside_word(text: str, i: int) -> bool:
    return 0 < i < len(text) - 1 and text[i - 1].isalnum() and text[i + 1].isalnum()


def _blank(chars: list[str], start: int, end: int) -> None:
    for i in range(start, end):
        if chars[i] not in "\r\n":
            chars[i] = " "


def mask_markdown(text: str) -> str:
    """``text`` with Markdown markup replaced by spaces; same length, same line breaks.

    Masked: fenced code blocks (fences and contents), heading / block-quote / list markers,
    rules and table separator rows, table pipes, ``**`` / ``__`` / ``~~`` / ``*``, inline-code
    backticks (the code text stays), link brackets and link targets (the link text stays),
    images, HTML tags and bare URLs. Pictographic symbols (emoji, with their joiners and
    variation selectors) are masked too: the parser would read them as words. HTML character
    references are read as their characters first (:func:`enoki_hd.text.unescape_entities`).
    """
    text = unescape_entities(text)
    chars = list(text)
    pos = 0
    in_fence = False
    for line in text.splitlines(keepends=True):
        start, end = pos, pos + len(line.rstrip("\r\n"))
        pos += len(line)
        body = text[start:end]
        if _FENCE_RE.match(body):
            in_fence = not in_fence
            _blank(chars, start, end)
            continue
        if in_fence or _RULE_RE.match(body):
            _blank(chars, start, end)
            continue
        for marker in _LINE_MARKERS:
            m = marker.match(body)
            if m:
                _blank(chars, start, start + m.end())
        for m in _LINK_RE.finditer(body):
            if m.group(2) is not None:
                _blank(chars, start + m.start(), start + m.start(1))
                _blank(chars, start + m.end(1), start + m.end())
        for m in _IMAGE_RE.finditer(body):
            if m.group(1) is not None:
                _blank(chars, start + m.start(), start + m.end())
        for pattern in _INLINE:
            for m in pattern.finditer(body):
                _blank(chars, start + m.start(), start + m.end())
    for i, char in enumerate(chars):
        if char == "\u200d" and _inside_word(text, i):
            continue  # a joiner inside a word ("met\u200dres") is invisible, not emoji glue
        if char in _EMOJI_GLUE or (
            unicodedata.category(char) == "So" and char not in _WRITTEN_SYMBOLS
        ):
            chars[i] = " "
    return "".join(chars)
