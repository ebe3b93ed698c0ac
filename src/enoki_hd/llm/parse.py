"""Tolerant parsing of what a chat model answers.

Models asked for JSON lines answer in many shapes. :func:`parse_triples` reads them all and
says what it could not read instead of dropping it silently:

- ``<think>…</think>`` preambles (reasoning models) are removed; an unclosed ``<think>``
  leaves nothing to read;
- Markdown code fences are removed;
- one ``{"subject", "relation", "object"}`` object per line, a JSON array of such objects,
  ``("s", "r", "o")`` or ``["s", "r", "o"]`` tuples, list bullets and numbering in front;
- an answer that is nothing but JSON objects, pretty-printed over several lines or wrapped as
  ``{"triples": [...]}`` (prose around them sends the answer to the line-by-line reading);
- other lines are prose (counted, ignored); a line that looks like a triple but cannot be read
  is ``malformed`` (counted, kept for the log).

:func:`parse_judgement` reads the judge's ``{"label", "evidence"}`` answer likewise.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from typing import Any

PARTS = ("subject", "relation", "object")
JUDGE_LABELS = ("supported", "contradicted", "unverifiable")

_THINK_RE = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_FENCE_RE = re.compile(r"^\s*(```|~~~)")
_BULLET_RE = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+")
# a label under a negation ("not supported", "isn't directly supported") is not that label
_NEGATED_LABEL_RE = re.compile(
    rf"\b(?:not|never|\w+n't)[\s_]+(?:\w+ly\s+)?({'|'.join(JUDGE_LABELS)})\b"
)
_LABEL_ALIASES = {
    "supported": "supported",
    "support": "supported",
    "entailed": "supported",
    "entailment": "supported",
    "true": "supported",
    "contradicted": "contradicted",
    "contradiction": "contradicted",
    "contradicts": "contradicted",
    "refuted": "contradicted",
    "false": "contradicted",
    "unverifiable": "unverifiable",
    "neutral": "unverifiable",
    "not enough info": "unverifiable",
    "not_enough_info": "unverifiable",
    "unsupported": "unverifiable",
    "not supported": "unverifiable",
    "not_supported": "unverifiable",
}


@dataclass
class ParsedTriples:
    """Triples read from one answer (dicts with string ``subject`` / ``relation`` /
    ``object``, in order), the malformed lines and the number of prose lines skipped."""

    triples: list[dict[str, str]] = field(default_factory=list)
    malformed: list[str] = field(default_factory=list)
    prose: int = 0


def strip_reasoning(text: str) -> str:
    """``text`` without ``<think>…</think>`` blocks; an unclosed ``<think>`` (the model ran
    out of tokens while reasoning) leaves nothing."""
    text = _THINK_RE.sub("", text)
    opened = text.lower().find("<think>")
    return text[:opened] if opened >= 0 else text


def _unfenced_lines(text: str) -> list[str]:
    return [line for line in strip_reasoning(text).splitlines() if not _FENCE_RE.match(line)]


def _as_triple(value: Any) -> dict[str, str] | None:
    """A triple from a parsed JSON / Python value, or None when it is not one."""
    if isinstance(value, dict):
        lowered = {str(k).strip().lower(): v for k, v in value.items()}
        relation = lowered.get("relation", lowered.get("predicate"))
        obj = lowered.get("object")
        found = [lowered.get("subject"), relation, "" if obj is None else obj]
        if found[0] is None or found[1] is None:
            return None
    elif isinstance(value, (list, tuple)) and len(value) in (2, 3):
        found = [*value, ""][:3]
    else:
        return None
    if not all(isinstance(p, (str, int, float)) for p in found):
        return None
    return dict(zip(PARTS, (str(p).strip() for p in found), strict=True))


def _read_value(text: str) -> Any:
    """JSON, else a Python literal (single-quoted tuples), else raise ValueError."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError) as err:
        raise ValueError(str(err)) from None


def parse_triples(text: str) -> ParsedTriples:
    """Every triple in a model's answer (see the module docstring). Triples with an empty
    subject or relation are malformed."""
    out = ParsedTriples()
    lines = _unfenced_lines(text)
    whole = "\n".join(lines).strip()
    if whole.startswith("["):
        try:
            value = _read_value(whole)
        except ValueError:
            value = None
        if isinstance(value, list) and value and all(isinstance(v, (dict, list)) for v in value):
            for item in value:
                _add(out, _as_triple(item), json.dumps(item, ensure_ascii=False))
            return out
    items = _json_objects(whole) if whole.startswith("{") else None
    if items is not None:
        for item in items:
            _add(out, _as_triple(item), json.dumps(item, ensure_ascii=False))
        return out
    for raw in lines:
        line = _BULLET_RE.sub("", raw).strip().rstrip(",;")
        if not line:
            continue
        if not (line.startswith(("{", "(", "[")) or '"subject"' in line):
            out.prose += 1
            continue
        start = min((line.find(c) for c in "{([" if line.find(c) >= 0), default=0)
        try:
            value = _read_value(line[start:])
        except ValueError:
            out.malformed.append(raw)
            continue
        _add(out, _as_triple(value), raw)
    return out


_VALUE_START_RE = re.compile(r"[^\s,]")  # what is not between two objects


def _json_objects(text: str) -> list[Any] | None:
    """The items of ``text`` when it is nothing but JSON objects (commas or whitespace between
    them) and one of them spans several lines (pretty-printed) or is a ``{"triples": [...]}``
    wrapper (its list's items are the items); else None: JSON lines, prose and anything
    mixed are read line by line."""
    decoder = json.JSONDecoder()
    items: list[Any] = []
    spans_lines = wrapped = False
    at = _next_value(text, 0)
    while at < len(text):
        try:
            value, end = decoder.raw_decode(text, at)
        except json.JSONDecodeError:
            return None
        if not isinstance(value, dict):
            return None
        spans_lines = spans_lines or "\n" in text[at:end]
        lowered = {str(k).strip().lower(): v for k, v in value.items()}
        if len(lowered) == 1 and isinstance(lowered.get("triples"), list):
            wrapped = True
            items.extend(lowered["triples"])
        else:
            items.append(value)
        at = _next_value(text, end)
    return items if spans_lines or wrapped else None


def _next_value(text: str, at: int) -> int:
    found = _VALUE_START_RE.search(text, at)
    return found.start() if found else len(text)


def _add(out: ParsedTriples, triple: dict[str, str] | None, raw: str) -> None:
    if triple is None or not triple["subject"] or not triple["relation"]:
        out.malformed.append(raw)
    else:
        out.triples.append(triple)


@dataclass(frozen=True)
class Judgement:
    """The judge's answer: a label, the quoted evidence (may be empty) and its reasoning."""

    label: str
    quote: str
    explanation: str = ""


def parse_judgement(text: str) -> Judgement | None:
    """The judge's ``{"label", "evidence", "explanation"}`` object, tolerating fences,
    reasoning preambles, prose around the object and label synonyms (``entailment``,
    ``neutral``, ``not enough info``); without an object, prose naming exactly one of the
    three labels (a negated one does not count; "not supported" is unverifiable). None when
    no label can be read."""
    body = "\n".join(_unfenced_lines(text))
    start, end = body.find("{"), body.rfind("}")
    if start >= 0 and end > start:
        try:
            value = _read_value(body[start : end + 1])
        except ValueError:
            value = None
        if isinstance(value, dict):
            fields = {str(k).strip().lower(): v for k, v in value.items()}
            label = _LABEL_ALIASES.get(str(fields.get("label", "")).strip().lower())
            if label is not None:
                quote = fields.get("evidence", fields.get("quote", "")) or ""
                return Judgement(label, str(quote).strip(), str(fields.get("explanation", "")))
    # "not supported" and "unsupported" read as in an object (unverifiable); "not
    # contradicted" names no label
    lowered = _NEGATED_LABEL_RE.sub(
        lambda m: " unverifiable " if m[1] == "supported" else " ", body.lower()
    )
    lowered = re.sub(r"\bunsupported\b", "unverifiable", lowered)
    found = [label for label in JUDGE_LABELS if re.search(rf"\b{label}\b", lowered)]
    return Judgement(found[0], "") if len(found) == 1 else None
