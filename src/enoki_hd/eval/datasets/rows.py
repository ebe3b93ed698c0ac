"""Row access and validation shared by the loaders: JSON-lines and CSV readers that keep each
record's location, typed field access whose errors name the field, and span helpers."""

from __future__ import annotations

import codecs
import csv
import io
import json
import os
import shlex
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeGuard

from enoki_hd.eval.datasets.schema import DatasetError, EvalExample, PathLike
from enoki_hd.text import surrogate_at, surrogate_message
from enoki_hd.types import Span


class Row:
    """One record of a data file together with its location, for exact error messages."""

    def __init__(self, path: Path, line: int, data: Mapping[str, Any]) -> None:
        self.path = path
        self.line = line
        self.data = data

    def error(self, field: str | None, problem: str) -> DatasetError:
        return DatasetError(self.path, self.line, field, problem)

    def has(self, name: str) -> bool:
        return self.data.get(name) is not None

    def value(self, name: str) -> Any:
        if name not in self.data:
            raise self.error(name, "is missing")
        return self.data[name]

    def text(self, name: str) -> str:
        """A required string field."""
        value = self.value(name)
        if not isinstance(value, str):
            raise self.error(name, f"must be a string, got {type(value).__name__}")
        return value

    def optional_text(self, name: str) -> str | None:
        """A string field that may be absent or null (None then)."""
        return None if self.data.get(name) is None else self.text(name)

    def ident(self, name: str) -> str:
        """An identifier given as a string or an integer, returned as a string."""
        value = self.value(name)
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            raise self.error(name, f"must be a string or an integer, got {type(value).__name__}")
        return str(value)

    def items(self, name: str) -> list[Any]:
        """A required list field."""
        value = self.value(name)
        if not isinstance(value, list):
            raise self.error(name, f"must be a list, got {type(value).__name__}")
        return value

    def mapping(self, name: str) -> Mapping[str, Any]:
        value = self.value(name)
        if not isinstance(value, Mapping):
            raise self.error(name, f"must be an object, got {type(value).__name__}")
        return value


def read_text(path: Path) -> str:
    """The text of a UTF-8 file; a leading byte-order mark (Excel and Notepad write one) is
    skipped.

    Raises:
        DatasetError: the file is not UTF-8 or holds NUL bytes (UTF-16 without a byte-order
            mark); the message names the line of the first byte that is not UTF-8 text and the
            ``iconv`` command that converts the file.
    """
    raw = path.read_bytes()
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise _not_utf8(path, raw, 0, "is UTF-16 text, not UTF-8", "UTF-16")
    # UTF-16 without a byte-order mark decodes as UTF-8 when it is all ASCII, a NUL byte next
    # to each character: after it ("{\0") in little-endian order, before it in big-endian.
    nul = raw.find(b"\0")
    if nul >= 0:
        source = "UTF-16LE" if nul % 2 else "UTF-16BE"
        problem = f"holds NUL bytes ({source} text without a byte-order mark?), not UTF-8 text"
        raise _not_utf8(path, raw, nul, problem, source)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        problem = f"is not UTF-8 text (byte 0x{raw[err.start]:02x})"
        raise _not_utf8(path, raw, err.start, problem, "<enc>") from err


def _not_utf8(path: Path, raw: bytes, at: int, problem: str, source: str) -> DatasetError:
    """The error for a file in encoding ``source`` (``<enc>`` when unknown) whose first byte
    that is not UTF-8 text is ``raw[at]``, with the ``iconv`` command that converts it."""
    line = raw.count(b"\n", 0, at) + 1
    name = shlex.quote(str(path))
    which = ", <enc> being its encoding (e.g. LATIN1, CP1252)" if source == "<enc>" else ""
    return DatasetError(
        path,
        line,
        None,
        f"{problem}; convert the file: iconv -f {source} -t UTF-8 {name} > {name}.utf8{which}",
    )


def read_jsonl(path: Path) -> Iterator[Row]:
    """Rows of a JSON-lines file (UTF-8, see :func:`read_text`); blank lines are skipped, line
    numbers are 1-based."""
    # newline=None: \r\n and \r end a line too, as in a file opened in text mode
    for line_no, line in enumerate(io.StringIO(read_text(path), newline=None), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DatasetError(path, line_no, None, f"is not valid JSON ({exc.msg})") from exc
        if not isinstance(data, dict):
            raise DatasetError(path, line_no, None, "is not a JSON object")
        # read_text decodes strictly, so a lone surrogate can only come from a \u escape; it
        # would pass every check here and fail only when a result is written out.
        found = _lone_surrogate(data, None) if "\\u" in line else None
        if found is not None:
            field, text, at = found
            raise DatasetError(path, line_no, field, surrogate_message(text, at))
        yield Row(path, line_no, data)


def _lone_surrogate(value: Any, field: str | None) -> tuple[str | None, str, int] | None:
    """The field (``a.b[0]``), text and offset of the first string in ``value`` that holds a
    lone surrogate; None when none does."""
    if isinstance(value, str):
        at = surrogate_at(value)
        return None if at is None else (field, value, at)
    if isinstance(value, dict):
        parts = [(item, key if field is None else f"{field}.{key}") for key, item in value.items()]
    elif isinstance(value, list):
        parts = [(item, f"{field}[{i}]") for i, item in enumerate(value)]
    else:
        return None
    for item, name in parts:
        found = _lone_surrogate(item, name)
        if found is not None:
            return found
    return None


def read_csv(path: Path, required: Sequence[str]) -> Iterator[Row]:
    """Records of a CSV file with a header (UTF-8, see :func:`read_text`); ``line`` is each
    record's first line."""
    reader = csv.DictReader(io.StringIO(read_text(path), newline=""))
    header = reader.fieldnames or []
    for name in required:
        if name not in header:
            raise DatasetError(path, 1, name, "is missing from the header")
    start = reader.line_num + 1
    for record in reader:
        yield Row(path, start, record)
        start = reader.line_num + 1


def is_int(value: object) -> TypeGuard[int]:
    """An int that is not a bool (JSON ``true`` must not pass as an offset)."""
    return isinstance(value, int) and not isinstance(value, bool)


def parse_bool(value: Any) -> bool | None:
    """True / False from a bool, 0 / 1 or a "true" / "false" string; None if it is neither."""
    if isinstance(value, bool):
        return value
    if is_int(value) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return None


def pair_spans(row: Row, name: str, value: Any, length: int, length_of: str) -> list[Span]:
    """``[[start, end], ...]`` validated against a text of ``length`` characters."""
    problem = f"must be a list of [start, end] pairs with 0 <= start <= end <= len({length_of})"
    if not isinstance(value, list):
        raise row.error(name, problem)
    spans: list[Span] = []
    for pair in value:
        if (
            not isinstance(pair, (list, tuple))
            or len(pair) != 2
            or not all(is_int(x) for x in pair)
            or not 0 <= pair[0] <= pair[1] <= length
        ):
            raise row.error(name, problem)
        spans.append(Span(pair[0], pair[1]))
    return spans


def jsonl_files(paths: PathLike | Sequence[PathLike], what: str) -> list[Path]:
    """The files ``paths`` (one path or several) name, in order: a file itself, a folder its
    ``*.jsonl`` sorted by name. ``what`` names the set in the errors ("capability suite").

    Raises:
        FileNotFoundError: a path does not exist or a folder holds no ``*.jsonl``.
    """
    files: list[Path] = []
    for path in map(Path, [paths] if isinstance(paths, (str, os.PathLike)) else paths):
        if path.is_dir():
            found = sorted(path.glob("*.jsonl"))
            if not found:
                raise FileNotFoundError(f"no {what} files (*.jsonl) in {path}")
            files.extend(found)
        elif path.is_file():
            files.append(path)
        else:
            raise FileNotFoundError(f"{what} path {path} does not exist")
    return files


def jsonl_examples(
    paths: PathLike | Sequence[PathLike], what: str, example: Callable[[Row], EvalExample]
) -> tuple[list[EvalExample], str]:
    """``example`` of every row of the files ``paths`` name (:func:`jsonl_files`), in file then
    line order, ids unique across them; and the files, joined by ", " (a benchmark's
    ``source``).

    Raises:
        DatasetError: a malformed row or a repeated id, naming the file, line and field.
        FileNotFoundError: as :func:`jsonl_files`.
    """
    files = jsonl_files(paths, what)
    examples: list[EvalExample] = []
    seen: dict[str, tuple[Path, int]] = {}
    for file in files:
        for row in read_jsonl(file):
            check_unique(row, "id", row.text("id"), seen)
            examples.append(example(row))
    return examples, ", ".join(str(f) for f in files)


def check_unique(row: Row, name: str, value: str, seen: dict[str, tuple[Path, int]]) -> None:
    """Refuse a ``value`` of field ``name`` that an earlier row holds; ``seen`` maps each
    value to its row's file and line (rows of several files may share it)."""
    if value in seen:
        path, line = seen[value]
        where = f"line {line}" if path == row.path else f"{path}:{line}"
        raise row.error(name, f"repeats the {name} {value!r} of {where}")
    seen[value] = (row.path, row.line)


def context_or_missing(context: str | None, metadata: dict[str, Any], flagged: Counter) -> str:
    """The context, or "" with the caveat recorded when there is none."""
    if context is None or not context.strip():
        metadata["missing_context"] = True
        flagged["missing_context"] += 1
        return ""
    return context


def span_example(
    example_id: str,
    question: str | None,
    context: str,
    answer: str,
    spans: list[Span],
    metadata: dict[str, Any],
    *,
    soft_labels: list[dict[str, Any]] | None = None,
) -> EvalExample:
    """An example labelled by hallucinated spans (half-open offsets into ``answer``); it counts
    as hallucinated when any span is non-empty."""
    return EvalExample(
        id=example_id,
        question=question,
        context=context,
        answer=answer,
        gold_spans=spans,
        soft_labels=soft_labels,
        example_label=any(len(s) > 0 for s in spans),
        metadata=metadata,
    )


def locate_in_order(text: str, pieces: Sequence[str]) -> list[Span | None]:
    """Spans of ``pieces`` that occur in ``text`` in this order (offsets into ``text``).

    Each piece is searched from the end of the previous located one, so a repeated piece
    ("3.") takes its occurrence in sequence instead of being ambiguous. A piece not found
    after that point is None and does not move the cursor. Surrounding whitespace of a
    piece is not part of its span.
    """
    spans: list[Span | None] = []
    cursor = 0
    for piece in pieces:
        needle = piece.strip()
        pos = text.find(needle, cursor) if needle else -1
        if pos < 0:
            spans.append(None)
            continue
        spans.append(Span(pos, pos + len(needle)))
        cursor = pos + len(needle)
    return spans
