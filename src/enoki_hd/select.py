"""Claim selection: which answer sentences state a checkable fact, read with their Markdown.

The stage runs between segmentation and extraction. :func:`select_claims` gives every sentence
a :class:`Selection`: ``checkworthy`` or not, and when not, a ``reason``:

- ``heading`` — an ATX (``## Summary``) or setext heading, a line that is bold and nothing
  else (``**Key findings**``), or a title line: a whole line opening its block, with no end
  punctuation and no number, right above a list item or a ``Label: value`` line (``Key facts
  about the club`` / ``Founded: 1901``);
- ``table_header`` — the row above a table's ``|---|`` separator;
- ``code`` — a line inside a fenced code block;
- ``lead_in`` — a sentence that ends with a colon (``The study found that:``) and holds no
  number (``Here is a summary in 77 words:`` states a count);
- ``question`` — a sentence that ends with a question mark;
- ``meta`` — talk about the answer itself (``I hope this helps``, ``As an AI ...``, a
  greeting, thanks or sign-off as the whole sentence: ``Thanks!``, ``Hello!``, ``Sure.``,
  ``Note that the sources differ``, ``I cannot browse the web``); a statement of absence
  (``I couldn't find any reservation in the county``, ``The context does not mention a
  price``) is a claim about the content and is checked. A source list is meta too: the
  entries under a ``Sources`` / ``References:`` / ``## Further reading`` title, a line led by
  ``Source:`` or ``See also:``, a footnote definition (``[^1]: ...``) and a bare link;
- ``opinion`` — an opinion marker at the start (``I think``, ``In my opinion``) or a sentence
  that is an evaluation and nothing else, with no number (``This is a great choice.``, ``For
  most travellers, the Fenwick 14 is the better pick.``, ``The results look impressive.``);
  "X is a great place for breakfast and is highly recommended" states more and is a claim;
- ``instruction`` — a pointer to someone else (``Consult your doctor ...``, ``For more
  details, see ...``) or generic advice led by always / never / please with no number and no
  name in it (``Always read the label before giving a dose.``). Instructions that carry
  content (``Take one tablet twice daily``, ``Never take more than four tablets``) stay
  claims on purpose: a manual or a leaflet can support or contradict them, and a wrong dose is
  exactly what a user needs flagged;
- ``no_words`` — a sentence with no letter or digit (``...!!!``, ``—``): nothing to check.

Non-claims are neither supported nor hallucinated: the detector reports them ``not_a_claim``,
extracts no facts from them, leaves them out of the faithfulness denominator and never blames
their characters.

Structure is kept for the claims:

- a list item under a lead-in that it completes (``The study found that:`` / ``- 64% of
  ...``) is judged whole in the lead-in's frame (:attr:`Selection.hypothesis`: ``The study
  found that 64% of ...``); offsets stay in the item. A nested item's frame is its parent item
  when that ends with a colon. A lead-in the item does not complete (``follow these steps:``)
  frames nothing;
- a list item may be marked by a pictograph or an arrow instead of ``-`` (``✅ Open daily``);
- a table body row is one claim per cell, built from its row label (first cell) and the cell's
  column header (:class:`TableCell`: ``standard — no severe attack: 38%``), blamed on the
  cell's own characters; a ``"key": value`` pair of a JSON object (segmentation gives each
  pair of a flat object its own sentence) is one such cell, its header the key (``capital:
  Paris``);
- a sentence led by a symbol bullet is judged without it (:attr:`Selection.hypothesis`:
  ``✅ Free Wi-Fi`` → ``Free Wi-Fi``), as other list markers are left out of the sentence.

Everything here is rules on the Markdown and the sentence text; no model is loaded.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, cast, get_args

from enoki_hd.extract.rules.markdown import mask_markdown
from enoki_hd.extract.verbalize import TABLE_SOURCE, cell_hypothesis
from enoki_hd.text import (
    _BOLD_LINE_RE,
    _HEADING_RE,
    _LABEL_LINE_RE,
    _LIST_ITEM_RE,
    _RULE_LINE_RE,
    _TABLE_ROW_RE,
    JSON_PAIR_RE,
    STOP_WORDS,
    _lines,
    _starts_with_symbol_bullet,
    strip_span,
)
from enoki_hd.types import Fact, Span

__all__ = [
    "NOT_A_CLAIM_REASONS",
    "SELECTIONS",
    "LLMSelector",
    "NotAClaimReason",
    "Selection",
    "SelectionMode",
    "TableCell",
    "cell_facts",
    "select_claims",
]

NotAClaimReason = Literal[
    "heading",
    "lead_in",
    "question",
    "instruction",
    "meta",
    "opinion",
    "table_header",
    "code",
    "no_words",
]
NOT_A_CLAIM_REASONS: tuple[NotAClaimReason, ...] = get_args(NotAClaimReason)
SelectionMode = Literal["rules", "none", "llm"]
SELECTIONS: tuple[SelectionMode, ...] = ("rules", "none", "llm")


@dataclass(frozen=True)
class TableCell:
    """One body cell of a table row: its own characters, its row label and column header
    (markup removed; ``""`` when the table has none)."""

    span: Span
    text: str
    row: str
    row_span: Span | None
    header: str

    @property
    def hypothesis(self) -> str:
        """``row — header: value.``; the parts that are empty are left out."""
        return cell_hypothesis(self.row, self.header, self.text)


@dataclass(frozen=True)
class Selection:
    """What the selection stage says about one sentence.

    ``kind`` is the sentence's place in the Markdown: ``prose``, ``list_item``, ``heading``,
    ``table_header``, ``table_row``, ``record`` (a JSON pair) or ``code``. ``hypothesis`` is
    what the verifier judges when the sentence is judged whole (None: the sentence's own
    text); ``cells`` holds the claims of a table row or a JSON pair.
    """

    index: int
    checkworthy: bool
    reason: NotAClaimReason | None = None
    kind: str = "prose"
    frame: str | None = None
    hypothesis: str | None = None
    cells: tuple[TableCell, ...] = field(default_factory=tuple)


# ---------------------------------------------------------------------------------------------
# Sentence-text rules
# ---------------------------------------------------------------------------------------------

_FLAGS = re.IGNORECASE
_META_RES = tuple(
    re.compile(p, _FLAGS)
    for p in (
        r"^(?:i )?hope (?:this|that|it) (?:helps|answers|clarifies)",
        r"\bas an ai\b|\bas an? (?:large )?language model\b|\bi(?:'m| am) an ai\b",
        r"^(?:please )?(?:let me know|feel free to)\b",
        r"\b(?:please )?let (?:me|us) know[\s!.]*$",  # "If you have more details, let me know!"
        r"^if you have (?:any )?(?:other |more |further |additional )?questions\b",
        r"^(?:i(?:'m| am) )?(?:happy|glad) to help\b|^(?:good|great) question\b",
        r"^(?:please )?(?:note|keep in mind|be aware)(?: that)?\b.*\b(?:sources?|context|"
        r"documents?|information|reports?|passages?|data)\b.*\b(?:differ|vary|varies|conflict|"
        r"disagree|may (?:not )?be (?:incomplete|outdated|inaccurate|complete|exhaustive|"
        r"comprehensive|up[- ]to[- ]date))",
        # the same with its note opener masked as a frame: "the sources differ on the date"
        r"^(?:the |these |those |some |different |available |provided )*(?:sources|documents|"
        r"passages)\b.*\b(?:differ|vary|conflict|disagree|may (?:not )?be "
        r"(?:incomplete|outdated|inaccurate|complete|exhaustive|comprehensive|up[- ]to[- ]date))",
        # what the assistant can do; "I couldn't find any reservation in the county" and "the
        # context does not mention a price" are claims about the content, checked as such
        r"^i (?:do not|don't|cannot|can't|could not|couldn't) (?:have access|access|browse|"
        r"provide (?:medical|legal|financial|personal|professional))\b",
        r"^(?:here(?:'s|’s| is| are)|below (?:is|are)) (?:what (?:i|we) (?:found|know|could find)|"
        r"(?:a |an |the |some |my )?(?:quick |short |brief )?(?:summary|overview|breakdown|list|"
        r"answer|explanation|table|information|info|details|rundown))\b",
        # a greeting, thanks, a sign-off or a bare "Sure!" as the whole sentence
        r"^(?:hi|hello|hey|greetings|good (?:morning|afternoon|evening))(?: there| everyone| all)?"
        r"[\s!.,]*$",
        r"^(?:thanks?(?: you)?(?: (?:so|very) much)?(?: for (?:asking|your question|the question|"
        r"reaching out|your patience))?|you(?:'re| are) (?:very |most )?welcome|cheers|"
        r"(?:best|kind|warm) (?:regards|wishes)|regards|have a (?:great|good|nice|wonderful) "
        r"(?:day|one|week|weekend|evening))[\s!.,]*$",
        r"^(?:sure|certainly|of course|absolutely|okay|ok)[\s!.,]*$",
        # a disclaimer about the answer's own grounding: "Note: these instructions are based
        # on the given passages and may not be comprehensive."
        r"^(?:(?:please )?note:?,?\s*)?(?:these|this|the above|my|the) (?:instructions?|steps?|"
        r"answers?|response|information|overview|summary|list|guidelines?)(?: above| below)? "
        r"(?:is|are) (?:solely |only |entirely )?(?:based|drawn|taken|derived|sourced) "
        r"(?:solely |only |entirely )?(?:on|from) (?:the )?(?:given |provided |above |available )?"
        r"(?:passages?|context|information|sources?|documents?|data|text)\b",
    )
)
_OPINION_START_RE = re.compile(
    r"^(?:i (?:think|believe|feel|would (?:recommend|suggest|say))|i'd (?:recommend|suggest|"
    r"say)|i (?:recommend|suggest)|in my (?:opinion|view|experience)|personally\b)",
    _FLAGS,
)
_INSTRUCTION_RE = re.compile(
    r"^(?:please |always |be sure to |make sure to )?(?:consult|contact|ask|talk to|speak "
    r"(?:to|with)|check with|reach out to|refer to|see|visit) (?:with )?(?:your|a|an|the) "
    r"(?:own )?(?:doctor|physician|pharmacist|health ?care|medical|professional|specialist|"
    r"lawyer|attorney|legal|advisor|adviser|financial|tax|accountant|vet|veterinarian|"
    r"provider|documentation|official|manufacturer|support|customer|local|qualified|"
    r"licensed|relevant)\b"
    r"|^for (?:more|further|additional|the latest|up-to-date) (?:information|details|help|"
    r"guidance|updates)\b",
    _FLAGS,
)
# A whole sentence that is an evaluation: "[lead-in phrase,] X is/looks <evaluative>[ noun
# [for/to ...]]." ("For most travellers, the Fenwick 14 is the better pick.", "The results look
# impressive.", "That is a lot to carry."), with no number in it ("At $9 a month, it is a
# great choice." states a price).
_EVALUATIVE_ADJECTIVE = (
    r"(?:great|excellent|good|wonderful|fantastic|perfect|ideal|nice|amazing|solid|smart|wise|"
    r"terrific|superb|impressive|promising|outstanding|remarkable|attractive|appealing|"
    r"sensible|awesome|better|best|worse|worst)"
)
# "for most people", "to carry up the stairs" — not a second statement ("... and is highly
# recommended by customers")
_SHORT_TAIL = r"(?:(?!\b(?:and|but|while|which|because|with)\b)[^,]){1,50}"
_PICK_NOUN = (
    r"(?:choice|option|idea|pick|fit|decision|way|start|place|read|resource|bet|value|deal)"
)
_EVALUATION_SENTENCE_RE = re.compile(
    r"^(?:[^,]{1,60},\s+)?[^,]{1,60}?\s+(?:is|are|was|were|'s|would be|will be|"
    r"makes?|seems?|looks?|sounds?|feels?)\s+(?:a |an |the )?(?:really |very |truly |quite |"
    r"by far |much |clearly |definitely |especially |pretty |rather )?(?:"
    # "... is the better pick [for most people]" / "... looks impressive"
    + _EVALUATIVE_ADJECTIVE
    + r"(?:\s+"
    + _PICK_NOUN
    + r"(?:\s+(?:for|to)\s+"
    + _SHORT_TAIL
    + r")?)?"
    # "That is a lot to carry"
    r"|(?:a lot|too much|plenty)(?:\s+(?:for|to)\s+" + _SHORT_TAIL + r")?"
    r")[.!]?$",
    _FLAGS,
)
# Generic advice: "Always read the label before giving a dose.", "Never leave it unattended."
# — an imperative led by always / never / please with nothing specific in it (no number,
# no name): advice a leaflet that names a dose would contradict stays a claim.
_GENERIC_ADVICE_RE = re.compile(r"^(?:always|never|please)\s+[a-z]+", _FLAGS)
_NUMBER_WORD_RE = re.compile(
    r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|"
    r"hundred|thousand|million|billion|once|twice|half|dozen|first|second|third)\b",
    _FLAGS,
)
_DIGIT_RE = re.compile(r"\d")
_NAMED_NUMBER_RE = re.compile(r"\b[A-Z][\w-]*\s+\d+(?:\.\d+)*\b")  # "Fenwick 14", "Quillmark 3.4"


def _is_specific(text: str) -> bool:
    """Whether ``text`` names a number or (past its first word) a capitalised name."""
    if _DIGIT_RE.search(text) or _NUMBER_WORD_RE.search(text):
        return True
    return any(word[:1].isupper() for word in text.split()[1:])


_SPACE_BEFORE_PUNCT_RE = re.compile(r"\s+(?=[.,;:!?%)])")


def clean(text: str) -> str:
    """``text`` without Markdown markup, whitespace collapsed (``*45%*.`` → ``45%.``)."""
    return _SPACE_BEFORE_PUNCT_RE.sub("", " ".join(mask_markdown(text).split()))


# The title of a source list ("Sources", "References:", "## Further reading") and a line that
# names the answer's source ("Source: WHO fact sheet, 2023", a footnote "[^1]: Nobel Prize
# Facts"): where the answer comes from, not what is the case.
_SOURCES_TITLE_RE = re.compile(
    r"(?:sources?|references?|citations?|bibliography|further reading|(?:useful )?links|"
    r"see also|read more|learn more)(?: used| cited| consulted)?[ \t]*:?",
    _FLAGS,
)
_SOURCE_LINE_RE = re.compile(
    r"^(?:(?:sources?|references?|citations?|see also|read more|learn more)[ \t]*:"
    r"|\[\^[^\]\s]+\]:)[ \t]*\S",
    _FLAGS,
)
_TITLE_LENGTH = 40  # a longer line is no source list's title
# what a reference holds and a claim does not: a link or a domain, a DOI or ISBN, "et al.",
# a year in brackets or closing the line ("WHO fact sheet, 2023")
_CITATION_RE = re.compile(
    r"https?://|www\.|\b[\w-]+\.(?:com|org|gov|edu|net|int|io|info)\b|\bdoi\b|\bisbn\b|"
    r"\bet al\b|\((?:1[5-9]|20)\d\d[a-z]?\)|,[ \t]*(?:1[5-9]|20)\d\d\.?[ \t]*$",
    _FLAGS,
)
_SOURCE_MAX_WORDS = 6  # "WHO fact sheet on malaria": a name without a year or link


def _names_a_source(text: str) -> bool:
    """Whether an entry of a source list (or the rest of a "Source: …" line) reads as a
    reference — a link, a domain, a DOI, "et al.", a year in brackets or closing it, or a few
    words with no finite verb — and not as a claim ("Sources\n- The drug was approved in 2005." is a
    claim that happens to follow the title)."""
    if _CITATION_RE.search(text):
        return True
    tokens = clean(text).lower().split()
    return len(tokens) <= _SOURCE_MAX_WORDS and not any(
        t in _TITLE_VERBS or t.endswith("ed") for t in tokens
    )


def reason_from_text(text: str) -> NotAClaimReason | None:
    """Why a sentence (markup already removed) is not a claim, by its words alone; None when
    it may state a fact."""
    stripped = text.strip().rstrip("\"'”’)*_ ")
    if not stripped:
        return None
    if not any(c.isalnum() for c in stripped):
        return "no_words"
    if stripped.endswith("?"):
        return "question"
    if (source := _SOURCE_LINE_RE.match(stripped)) and _names_a_source(
        stripped[source.end() - 1 :]
    ):
        return "meta"  # before the number rule: "Source: WHO, 2023" states no fact
    # a number makes it a claim ("Here is a summary in 77 words:", "see a doctor if it lasts 3
    # days"); a model number in a name ("the Fenwick 14 is the better pick") is no quantity
    if _DIGIT_RE.search(_NAMED_NUMBER_RE.sub("", stripped)):
        return None
    if stripped.endswith(":"):
        return "lead_in"
    if any(p.search(stripped) for p in _META_RES):
        return "meta"
    if _OPINION_START_RE.search(stripped):
        return "opinion"
    if _EVALUATION_SENTENCE_RE.match(stripped):
        return "opinion"
    if _INSTRUCTION_RE.search(stripped):
        return "instruction"
    if _GENERIC_ADVICE_RE.match(stripped) and not _is_specific(stripped):
        return "instruction"
    return None


# ---------------------------------------------------------------------------------------------
# Markdown lines
# ---------------------------------------------------------------------------------------------

_FENCE_RE = re.compile(r"[ \t]{0,3}(?:```|~~~)")
_SETEXT_RE = re.compile(r"[ \t]{0,3}(?:=+|-+)[ \t]*$")
_SYMBOL_MARKER_RE = re.compile(r"[ \t]*\S+[ \t]+")
# Marks that deny the item they lead ("❌ Pets allowed"): kept in what the verifier reads,
# since the item without its mark says the opposite
_DENYING_MARKS = frozenset("❌❎✗✘✖🚫⛔")


def _denied(sentence: str) -> bool:
    """Whether ``sentence`` is led by a symbol bullet holding a denying mark ("❌ Pool")."""
    symbol = _SYMBOL_MARKER_RE.match(sentence) if _starts_with_symbol_bullet(sentence) else None
    return symbol is not None and bool(_DENYING_MARKS & set(symbol.group()))


_TABLE_SEPARATOR_RE = re.compile(r"[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")


@dataclass
class _Line:
    start: int
    end: int
    kind: str  # blank, heading, setext, rule, fence, code, separator, table, item, text
    indent: int = 0
    body: int = 0  # where the text of a list item starts


def _classify_lines(text: str) -> list[_Line]:
    lines: list[_Line] = []
    in_fence = False
    for start, end in _lines(text):
        line = text[start:end]
        if _FENCE_RE.match(line):
            lines.append(_Line(start, end, "fence"))
            in_fence = not in_fence
            continue
        if in_fence:
            lines.append(_Line(start, end, "code"))
        elif not line.strip():
            lines.append(_Line(start, end, "blank"))
        elif _TABLE_ROW_RE.match(line) and "-" in line and _TABLE_SEPARATOR_RE.match(line):
            lines.append(_Line(start, end, "separator"))
        elif _TABLE_ROW_RE.match(line):
            lines.append(_Line(start, end, "table"))
        elif _HEADING_RE.match(line) or _BOLD_LINE_RE.match(line):
            lines.append(_Line(start, end, "heading"))
        elif _SETEXT_RE.match(line) and lines and lines[-1].kind == "text":
            lines[-1].kind = "heading"  # the paragraph line above is a setext heading
            lines.append(_Line(start, end, "setext"))
        elif _RULE_LINE_RE.match(line):
            lines.append(_Line(start, end, "rule"))
        elif item := _LIST_ITEM_RE.match(line):
            indent = len(line) - len(line.lstrip(" \t"))
            lines.append(_Line(start, end, "item", indent, start + item.end()))
        elif _starts_with_symbol_bullet(line) and (symbol := _SYMBOL_MARKER_RE.match(line)):
            # "✅ Open daily": an item whose marker is the symbol
            indent = len(line) - len(line.lstrip(" \t"))
            lines.append(_Line(start, end, "item", indent, start + symbol.end()))
        else:
            lines.append(_Line(start, end, "text", len(line) - len(line.lstrip(" \t"))))
    return lines


def _line_of(lines: list[_Line], position: int) -> int:
    """Index of the line holding ``position`` (lines are in order and cover the text)."""
    low, high = 0, len(lines) - 1
    while low < high:
        middle = (low + high + 1) // 2
        if lines[middle].start <= position:
            low = middle
        else:
            high = middle - 1
    return low


# ---------------------------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------------------------


def _cells(text: str, line: _Line) -> list[Span]:
    """The cells of a table row: spans between unescaped pipes (not inside backticks),
    trimmed of whitespace and of enclosing emphasis; empty cells kept as empty spans."""
    bounds = []
    in_code = False
    for i in range(line.start, line.end):
        c = text[i]
        if c == "`":
            in_code = not in_code
        elif c == "|" and not in_code and (i == line.start or text[i - 1] != "\\"):
            bounds.append(i)
    body = text[line.start : line.end]
    lead = line.start + len(body) - len(body.lstrip())
    trail = line.start + len(body.rstrip())
    previous = lead
    if bounds and bounds[0] == lead:
        previous, bounds = lead + 1, bounds[1:]
    pieces = []
    for pipe in bounds:
        pieces.append((previous, pipe))
        previous = pipe + 1
    if previous < trail:  # no closing pipe
        pieces.append((previous, trail))
    cells = []
    for start, end in pieces:
        while start < end and text[start] in " \t*_~":
            start += 1
        while end > start and text[end - 1] in " \t*_~":
            end -= 1
        cells.append(Span(start, end))
    return cells


def _table_rows(text: str, lines: list[_Line], row: int) -> tuple[list[Span], list[Span] | None]:
    """The cells of table row ``row`` and of its table's header row (None: no header)."""
    first = row
    while first > 0 and lines[first - 1].kind in ("table", "separator"):
        first -= 1
    separator = next((i for i in range(first, len(lines)) if lines[i].kind == "separator"), None)
    header = None
    if separator is not None and separator > first and lines[separator - 1].kind == "table":
        header = _cells(text, lines[separator - 1])
    return _cells(text, lines[row]), header


def _is_header_row(lines: list[_Line], row: int) -> bool:
    return row + 1 < len(lines) and lines[row + 1].kind == "separator"


def _clean_cell(cell: str) -> str:
    """A cell's text without markup; its pipes (escaped, or in code) are content and stay."""
    return clean(cell.replace("\\|", "\ue000").replace("|", "\ue000")).replace("\ue000", "|")


def _row_cells(text: str, lines: list[_Line], row: int) -> tuple[TableCell, ...]:
    cells, header = _table_rows(text, lines, row)
    names = [_clean_cell(text[h.start : h.end]) for h in header] if header else []
    label_span = cells[0] if len(cells) > 1 and cells[0].end > cells[0].start else None
    label = _clean_cell(text[label_span.start : label_span.end]) if label_span else ""
    out = []
    for column, cell in enumerate(cells):
        if len(cells) > 1 and column == 0:
            continue
        value = _clean_cell(text[cell.start : cell.end])
        if not value:
            continue
        out.append(
            TableCell(cell, value, label, label_span, names[column] if column < len(names) else "")
        )
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# JSON records
# ---------------------------------------------------------------------------------------------


def _record_cell(text: str, span: Span) -> tuple[TableCell, ...]:
    """The cell of a sentence that is one ``"key": value`` pair of a JSON object (segmentation
    gives each pair of a flat object its own sentence): its header the key (``_`` read as a
    space), its characters the value's (a string's without its quotes); ``()`` for any other
    sentence."""
    pair = JSON_PAIR_RE.fullmatch(text, span.start, span.end)
    if pair is None:
        return ()
    group = "string" if pair.group("string") is not None else "value"
    start, end = pair.span(group)
    if end == start:
        return ()
    header = pair.group("key").replace("_", " ").strip()
    return (TableCell(Span(start, end), text[start:end], "", None, header),)


# ---------------------------------------------------------------------------------------------
# Lists
# ---------------------------------------------------------------------------------------------

_JOINING_ENDS = frozenset(
    {
        "that", "because", "whether", "if", "to", "by", "include", "includes", "included",
        "including", "are", "were", "is", "was", "be", "as", "with", "of", "for", "on", "in",
    }
)  # fmt: skip


def _framed(frame: str, item: str) -> str | None:
    """The item read in its lead-in's frame, when the two make one sentence: the lead-in ends
    in a word that runs on into the item (``The study found that:`` + ``64% of ...`` → ``The
    study found that 64% of ...``). None otherwise: ``follow these steps:`` or ``Here are the
    measurements:`` frame nothing an entailment model can use."""
    body = frame.rstrip().rstrip(":").rstrip()
    last = body.split()[-1].lower() if body.split() else ""
    if last not in _JOINING_ENDS:
        return None
    first = item.split(maxsplit=1)[0] if item.split() else ""
    if first.lower() in STOP_WORDS and first[1:].islower():
        item = item[0].lower() + item[1:]  # "found that The group" → "found that the group"
    return f"{body} {item}"


def _frame(text: str, lines: list[_Line], item: int) -> str | None:
    """The lead-in of list item ``item``: the parent item (for a nested item) or the text line
    above the list, when it ends with a colon."""
    indent = lines[item].indent
    for i in range(item - 1, -1, -1):
        line = lines[i]
        if line.kind == "blank":
            continue
        if line.kind == "item" and line.indent >= indent:
            continue
        if line.kind == "text" and line.indent > indent:
            continue  # a continuation line of an item at this depth
        if line.kind in ("item", "text", "heading"):
            candidate = clean(text[line.body or line.start : line.end])
            return candidate if candidate.endswith(":") else None
        return None
    return None


# ---------------------------------------------------------------------------------------------
# Source lists
# ---------------------------------------------------------------------------------------------


def _source_rows(text: str, lines: list[_Line]) -> set[int]:
    """The lines that are entries of a source list: the items and lines under a sources title
    (:data:`_SOURCES_TITLE_RE`, as a heading, a line or an item), up to the next heading or
    other block; a blank line may part the title from its first entry and one item from the
    next, while a paragraph after a blank line ("I hope this helps!") is no entry."""
    rows: set[int] = set()
    in_list = after_title = after_blank = False
    for i, line in enumerate(lines):
        if line.kind == "blank":
            after_blank = True
            continue
        body = text[line.body or line.start : line.end]
        if (
            line.kind in ("heading", "item", "text")
            and len(body) <= _TITLE_LENGTH
            and _SOURCES_TITLE_RE.fullmatch(clean(body))
        ):
            in_list = after_title = True
        elif (
            in_list
            and line.kind in ("item", "text")
            and (after_title or not after_blank or line.kind == "item")
        ):
            rows.add(i)
            after_title = False
        else:
            in_list = False
        after_blank = False
    return rows


_TITLE_MAX_WORDS = 8
# finite verbs no title holds ("-ed" forms are checked apart)
_TITLE_VERBS = frozenset(
    {
        "is", "are", "was", "were", "be", "been", "has", "have", "had", "will", "would", "can",
        "could", "may", "might", "must", "should", "shall", "do", "does", "did", "won", "wins",
        "made", "makes", "became", "becomes", "began", "begins", "led", "leads", "lost",
        "loses", "left", "built", "wrote", "writes", "took", "takes", "gave", "gives", "got",
        "gets", "went", "goes", "came", "comes", "found", "held", "holds", "grew", "grows",
        "fell", "falls", "rose", "rises", "ran", "runs", "said", "says", "saw", "sees",
        "knew", "knows", "contains", "includes", "lies", "sits", "stands",
    }
)  # fmt: skip


def _is_title_line(text: str, lines: list[_Line], row: int, span: Span) -> bool:
    """Whether sentence ``span`` (offsets into ``text``) is a title: the whole of text line
    ``row``, opening its block, with no end punctuation and no number, right above a list item
    or a "Label: value" line ("Key facts about the club" / "Founded: 1901"), of at most
    :data:`_TITLE_MAX_WORDS` words and no finite verb (a short list, and "-ed" forms)."""
    line = lines[row]
    if line.kind != "text" or strip_span(text, Span(line.start, line.end)) != span:
        return False
    if row > 0 and lines[row - 1].kind not in ("blank", "heading", "setext", "rule"):
        return False
    below = lines[row + 1] if row + 1 < len(lines) else None
    if below is None or not (
        below.kind == "item"
        or (below.kind == "text" and _LABEL_LINE_RE.match(text, below.start, below.end))
    ):
        return False
    words = clean(span.text(text))
    if not words[-1:].isalnum() or _DIGIT_RE.search(words):
        return False
    # a short phrase with no verb: "The Eiffel Tower was designed by Gustave Courbet" or
    # "Einstein won the Nobel Prize" above a list are claims that drop their full stop
    tokens = words.lower().split()
    return len(tokens) <= _TITLE_MAX_WORDS and not any(
        t in _TITLE_VERBS or t.endswith("ed") for t in tokens
    )


# ---------------------------------------------------------------------------------------------
# The stage
# ---------------------------------------------------------------------------------------------


def select_claims(answer: str, sentences: Sequence[Span]) -> list[Selection]:
    """One :class:`Selection` per sentence span (half-open offsets into ``answer``), by the
    rules in the module docstring."""
    lines = _classify_lines(answer)
    sources = _source_rows(answer, lines)
    out: list[Selection] = []
    for index, span in enumerate(sentences):
        row = _line_of(lines, span.start)
        line = lines[row]
        sentence = span.text(answer)
        if line.kind == "code":
            out.append(Selection(index, False, "code", "code"))
        elif line.kind == "heading":
            out.append(Selection(index, False, "heading", "heading"))
        elif line.kind == "table" and _is_header_row(lines, row):
            out.append(Selection(index, False, "table_header", "table_header"))
        elif line.kind == "table":
            cells = _row_cells(answer, lines, row)
            hypothesis = " ".join(c.hypothesis for c in cells) or None
            out.append(
                Selection(index, True, None, "table_row", hypothesis=hypothesis, cells=cells)
            )
        elif record := _record_cell(answer, span):
            out.append(
                Selection(
                    index, True, None, "record", hypothesis=record[0].hypothesis, cells=record
                )
            )
        else:
            text = clean(sentence)
            # the raw sentence decides "no words": cleaning drops emoji ("👍👍👍" became "")
            reason: NotAClaimReason | None = (
                "no_words" if not any(c.isalnum() for c in sentence) else None
            )
            reason = reason or reason_from_text(text)
            if reason is None and (
                (row in sources and _names_a_source(text)) or not any(c.isalnum() for c in text)
            ):
                reason = "meta"  # a source list's entry, or a bare link ("https://...")
            if reason is None and _is_title_line(answer, lines, row, span):
                reason = "heading"
            kind = "list_item" if line.kind == "item" else "prose"
            if reason is not None:
                out.append(Selection(index, False, reason, kind))
                continue
            # "Allowed:\n❌ dogs" is no "Allowed: dogs"
            frame = (
                _frame(answer, lines, row)
                if kind == "list_item" and not _denied(sentence)
                else None
            )
            # the frame applies to the item's first sentence, the one the lead-in introduces
            first = index == 0 or sentences[index - 1].start < line.start
            framed = _framed(frame, text) if frame is not None and first else None
            if framed is not None:
                out.append(Selection(index, True, None, kind, frame, framed))
            else:
                # a leading symbol bullet is a marker, no word to judge ("✅ Free Wi-Fi" was
                # contradicted, "Free Wi-Fi" is supported); other markup stays: the verifier
                # entails "unpack it with `tar`" and not "unpack it with tar"
                symbol = _starts_with_symbol_bullet(sentence) and _SYMBOL_MARKER_RE.match(sentence)
                bare = sentence[symbol.end() :] if symbol and not _denied(sentence) else None
                out.append(Selection(index, True, None, kind, hypothesis=bare))
    return out


def cell_facts(selection: Selection) -> list[Fact]:
    """The facts of a table row, one per cell (``source="table"``): subject the row label,
    relation the column header, object and delta the cell's own characters, so that an
    unsupported cell is blamed on itself only."""
    return [
        Fact(
            id=f"f{selection.index}.{k}",
            sentence=selection.index,
            subject=cell.row,
            relation=cell.header,
            object=cell.text,
            subject_spans=[cell.row_span] if cell.row_span else [],
            object_spans=[cell.span],
            delta=[cell.span],
            source=TABLE_SOURCE,
        )
        for k, cell in enumerate(selection.cells)
    ]


# ---------------------------------------------------------------------------------------------
# The LLM regime's selection
# ---------------------------------------------------------------------------------------------

# reasons an LLM may give; structure (headings, table headers, code) stays with the rules
_LLM_REASONS = frozenset({"heading", "lead_in", "question", "instruction", "meta", "opinion"})


class LLMSelector:
    """Claim selection by a chat model over an OpenAI-compatible endpoint (``selection="llm"``).

    The Markdown structure is read by the rules (headings, table headers and rows, code); the
    model decides for the prose sentences and list items, all of an answer in one request
    (prompt ``select``: one ``{"index", "checkworthy", "reason"}`` JSON line per sentence).
    A sentence the model leaves out, or answers with an unknown reason, keeps the rules'
    decision; ``stats`` counts requests, answered sentences and those fallbacks. A failed
    request is an error (:class:`enoki_hd.llm.LLMError`), never a guess.

    Args:
        client: a :class:`enoki_hd.llm.ChatClient`.
        prompt: a built-in prompt name or a template file (``### system`` / ``### user``,
            with a ``{sentences}`` placeholder).
        prompt_sha256: when given (as :meth:`config` records it), the prompt must match it.
    """

    def __init__(
        self, client: Any, prompt: str = "select", *, prompt_sha256: str | None = None
    ) -> None:
        from enoki_hd.llm.prompt import load_checked_prompt

        self.client = client
        # a template without {sentences} would ask about sentences the model never sees
        self.prompt = load_checked_prompt(prompt, sha256=prompt_sha256, placeholders=("sentences",))
        self.stats: dict[str, int] = {"requests": 0, "answered": 0, "fallback": 0}

    def config(self) -> dict[str, Any]:
        return {
            "name": "llm",
            **self.client.config(),
            "prompt": self.prompt.name,
            "prompt_sha256": self.prompt.sha256,
        }

    def select(self, answer: str, sentences: Sequence[Span]) -> list[Selection]:
        rules = select_claims(answer, sentences)
        asked = [s for s in rules if s.kind in ("prose", "list_item")]
        if not asked:
            return rules
        numbered = "\n".join(f"{s.index}. {clean(sentences[s.index].text(answer))}" for s in asked)
        completion = self.client.complete(self.prompt.messages(sentences=numbered))
        self.stats["requests"] += 1
        answers = _parse_selection(completion.text)
        out = list(rules)
        for selection in asked:
            decision = answers.get(selection.index)
            if decision is None:
                self.stats["fallback"] += 1
                continue
            self.stats["answered"] += 1
            checkworthy, reason = decision
            if checkworthy and selection.checkworthy:
                continue  # keep the rules' frame
            out[selection.index] = (
                Selection(selection.index, True, None, selection.kind)
                if checkworthy
                else Selection(selection.index, False, reason, selection.kind)
            )
        return out


def _parse_selection(text: str) -> dict[int, tuple[bool, NotAClaimReason | None]]:
    """``{index: (checkworthy, reason)}`` from the model's JSON lines; lines that cannot be
    read, and a not-checkworthy answer without a known reason, are left out."""
    from enoki_hd.llm.parse import strip_reasoning

    out: dict[int, tuple[bool, NotAClaimReason | None]] = {}
    for line in strip_reasoning(text).splitlines():
        line = line.strip().rstrip(",")
        if not line.startswith("{"):
            continue
        try:
            value = json.loads(line)
            index, checkworthy = int(value["index"]), value["checkworthy"]
        except (ValueError, KeyError, TypeError):
            continue
        if not isinstance(checkworthy, bool):
            continue
        reason = value.get("reason")
        if checkworthy:
            out[index] = (True, None)
        elif reason in _LLM_REASONS:
            out[index] = (False, cast(NotAClaimReason, reason))
    return out
