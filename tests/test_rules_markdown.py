"""Markdown masking keeps every offset: same length, markup replaced by spaces."""

from __future__ import annotations

import pytest

from enoki_hd.extract.rules import mask_markdown


def masked_words(text: str) -> list[str]:
    return mask_markdown(text).split()


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("## Suede formed", ["Suede", "formed"]),
        ("**Suede** formed in *Bath*.", ["Suede", "formed", "in", "Bath", "."]),
        (
            "- first item\n* second\n1. third\n2) fourth",
            ["first", "item", "second", "third", "fourth"],
        ),
        ("> quoted text", ["quoted", "text"]),
        ("| Album | Year |\n|---|:---:|\n| Suede | 1993 |", ["Album", "Year", "Suede", "1993"]),
        ("Use `pip install` now.", ["Use", "pip", "install", "now."]),
        ("```python\nprint('x is y')\n```\nAfter.", ["After."]),
        ("~~~\ncode\n~~~", []),
        ("See [the site](https://suede.co.uk/a?b=1) today.", ["See", "the", "site", "today."]),
        (
            "Visit https://suede.co.uk/tour. Then www.example.org, too.",
            ["Visit", ".", "Then", ",", "too."],
        ),
        ("![logo](logo.png) Suede<br>rocks", ["Suede", "rocks"]),
        # a "(...)" pair inside a URL is part of it; an unmatched ")" and a full stop are not
        (
            "Suede formed in London (see https://en.wikipedia.org/wiki/Suede_(band)).",
            ["Suede", "formed", "in", "London", "(see", ")."],
        ),
        ("Visit www.example.org/a_(b)_c, then.", ["Visit", ",", "then."]),
        ("See [Suede](https://en.wikipedia.org/wiki/Suede_(band)) now.", ["See", "Suede", "now."]),
        ("![logo](logo_(dark).png) Suede", ["Suede"]),
        ("Hot 🔥 band 👍🏽 ok ❤️", ["Hot", "band", "ok"]),
        # written symbols of category So stay for the parser: a degree, a copyright, a number
        (
            "It reached 40 °C ✅ in № 5 © 2020",
            ["It", "reached", "40", "°C", "in", "№", "5", "©", "2020"],
        ),
        ("snake_case and 2*3 stay", ["snake_case", "and", "2*3", "stay"]),
        ("---\nText\n===", ["Text"]),
    ],
)
def test_mask_markdown(text: str, words: list[str]) -> None:
    masked = mask_markdown(text)
    assert len(masked) == len(text)
    assert [i for i, c in enumerate(masked) if c == "\n"] == [
        i for i, c in enumerate(text) if c == "\n"
    ]
    for i, (a, b) in enumerate(zip(text, masked, strict=True)):
        assert b in (a, " "), f"position {i}: {a!r} became {b!r}"
    assert masked.split() == words


def test_unclosed_fence_masks_to_the_end() -> None:
    text = "Intro.\n```\nnever closed\nstill code"
    assert mask_markdown(text).split() == ["Intro."]


def test_crlf_line_breaks_are_kept() -> None:
    text = "# Title\r\n- item one\r\n"
    masked = mask_markdown(text)
    assert masked == "  Title\r\n  item one\r\n"


def test_entities_are_read_and_a_joiner_inside_a_word_stays() -> None:
    assert mask_markdown("Smith &amp; Wesson, 450&nbsp;m") == "Smith &     Wesson, 450      m"
    # a zero-width joiner glues emoji (masked) but is invisible inside a word (kept)
    assert mask_markdown("met\u200dres 👨\u200d👩") == "met\u200dres    "


def test_runs_of_brackets_unmask_only_the_links_they_open() -> None:
    # every "[" and "![" was read to the end of its line ('"[" * 100000'; docs/speed.md): the
    # first one before a "](target)" opens the link or image, the rest stay
    assert mask_markdown("[[[a](b) ![![c](d) [e](f") == " [[a               [e](f"
    assert mask_markdown("[[[a](b) ![![c](d) [e](f)") == " [[a                e    "
