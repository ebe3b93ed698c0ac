"""``enoki teach``: teacher triples for ``make distill`` from a chat model, resumable.

Reads answers from a JSONL file, extracts anchored facts from every sentence with
:class:`~enoki_hd.extract.llm.LLMExtractor` (requests concurrent across sentences and rows)
and writes one record per answer, the layout ``make distill`` reads
(``data.teacher_jsonl=[teacher.jsonl]``, :func:`enoki_hd.igl.labels.read_teacher_jsonl`)::

    {"id": "q17", "text": "<the answer>", "facts": [Fact.to_dict(), ...],
     "model": "...", "prompt": "incremental", "prompt_sha256": "...",
     "usage": {"prompt_tokens", "completion_tokens", "requests", "retries", "cost"},
     "counts": {"triples", "anchored", "ambiguous_object", ..., "malformed_lines"}}

Never losing or corrupting work:

- a record is written only when every sentence of its answer succeeded, then flushed and
  fsynced, in input order; a failed row is not written (its sentences' errors are logged);
- a rerun skips the ids already in the output and retries the rest (a line cut short by a
  kill is cut off the file first);
- with ``max_cost`` (and prices) no request is sent once the run has spent that much: the rows
  in flight end (those that could not finish are not written) and the run stops cleanly; so
  does a run whose last ``max_consecutive_failures`` rows all failed (the endpoint is down)
  and one the endpoint refuses outright (HTTP 401 / 403 / 404: a wrong key, model or URL);
- a token ledger per row (``usage``) and for the run (:class:`TeachResult`).
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import sys
from collections import Counter, deque
from collections.abc import Iterator, Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from enoki_hd.extract.llm import Extraction, LLMExtractor
from enoki_hd.llm.client import CostCapReached, EndpointRefused, LLMError, Usage
from enoki_hd.text import SegmentBackend, segment_sentences
from enoki_hd.train.nli_data import read_jsonl

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class TeachRow:
    """One answer to extract from: its id (the ``id_field`` value, else ``line<N>``) and text."""

    id: str
    text: str


@dataclass
class TeachResult:
    """What one ``enoki teach`` run did.

    ``rows`` in the input (after ``limit``), ``skipped`` already in the output, ``written``
    now, ``failed`` ids (a request failed for good), ``stopped_rows`` (left undone because the
    run stopped early: in flight at the cost cap, or never sent); ``endpoint_down`` /
    ``refused`` say why a run stopped besides the cap; ``usage`` is this run's ledger (failed rows included), ``file_usage``
    the sum of the ``usage`` of every record in the output; ``counts`` the extraction counts
    of the rows written now.
    """

    output: Path
    rows: int = 0
    skipped: int = 0
    written: int = 0
    failed: list[str] = field(default_factory=list)
    stopped_rows: int = 0
    cost_cap_reached: bool = False
    endpoint_down: bool = False
    refused: str | None = None
    usage: Usage = field(default_factory=Usage)
    file_usage: Usage = field(default_factory=Usage)
    counts: Counter[str] = field(default_factory=Counter)

    @property
    def complete(self) -> bool:
        """Every row is in the output."""
        return self.skipped + self.written == self.rows

    def format(self) -> str:
        u, f = self.usage, self.file_usage
        lines = [
            f"enoki teach: {self.output}",
            f"  rows {self.rows}: {self.skipped} already done, {self.written} written, "
            f"{len(self.failed)} failed, {self.stopped_rows} left undone (the run stopped)",
            f"  this run: {u.requests} requests ({u.retries} retries), {u.prompt_tokens} prompt "
            f"+ {u.completion_tokens} completion tokens, ${u.cost:.4f}",
            f"  whole file: {f.prompt_tokens} prompt + {f.completion_tokens} completion tokens, "
            f"${f.cost:.4f}",
        ]
        if self.counts:
            counts = ", ".join(f"{k} {v}" for k, v in sorted(self.counts.items()))
            lines.append(f"  triples of the rows written: {counts}")
        if self.cost_cap_reached:
            lines.append("  stopped: the cost cap was reached; raise --max-cost and rerun")
        if self.endpoint_down:
            lines.append("  stopped: every recent row failed; is the endpoint up? rerun then")
        if self.refused:
            lines.append(f"  stopped: the endpoint refused the request: {self.refused}")
        if self.failed:
            shown = ", ".join(self.failed[:10]) + (" ..." if len(self.failed) > 10 else "")
            lines.append(f"  failed rows (retried on rerun): {shown}")
        if self.complete:
            lines.append("  done: every row is in the output")
        else:
            lines.append("  incomplete: rerun the same command to finish")
        return "\n".join(lines)


def read_rows(
    path: str | Path, *, text_field: str = "answer", id_field: str = "id", limit: int | None = None
) -> list[TeachRow]:
    """The rows of a JSONL file (the first ``limit``).

    Raises:
        ValueError: a line that is not a JSON object, lacks ``text_field`` (or holds no
            string there), or repeats an id, naming the file, line and field.
    """
    path = Path(path)
    rows: list[TeachRow] = []
    ids: dict[str, int] = {}
    for lineno, record in read_jsonl(path):
        if limit is not None and len(rows) >= limit:
            break
        where = f"{path}:{lineno}"
        if not isinstance(record, dict):
            raise ValueError(f"{where}: expected a JSON object, got {type(record).__name__}")
        text = record.get(text_field)
        if not isinstance(text, str):
            raise ValueError(
                f"{where}: field {text_field!r} must hold the answer text (a string), got "
                f"{type(text).__name__}; name the text field with --text-field "
                f"(fields here: {', '.join(sorted(record)[:8])})"
            )
        row_id = record.get(id_field)
        row_id = f"line{lineno}" if row_id is None else str(row_id)
        if row_id in ids:
            raise ValueError(
                f"{where}: field {id_field!r}: id {row_id!r} repeats line {ids[row_id]}; ids "
                "must be unique (or pass --id-field with a field that is)"
            )
        ids[row_id] = lineno
        rows.append(TeachRow(row_id, text))
    return rows


def finished_records(path: Path) -> Iterator[dict[str, Any]]:
    """The records already in ``path``; a last line cut short (a killed run) is removed from
    the file. Raises ``ValueError`` for a bad line anywhere else."""
    if not path.exists():
        return
    data = path.read_bytes()
    end = data.rfind(b"\n") + 1
    if end < len(data):
        tail = data[end:]
        try:
            json.loads(tail)
        except ValueError:
            logger.warning("%s: cutting off an unfinished last line (%d bytes)", path, len(tail))
            with path.open("r+b") as handle:
                handle.truncate(end)
                handle.flush()
                os.fsync(handle.fileno())
            data = data[:end]
        else:
            with path.open("ab") as handle:  # a whole record without its newline
                handle.write(b"\n")
    for lineno, line in enumerate(data.decode("utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            raise ValueError(
                f"{path}:{lineno}: not valid JSON ({err.msg}); this output file is damaged — "
                "move it away or remove the line"
            ) from None
        if not isinstance(record, dict) or "id" not in record or "facts" not in record:
            raise ValueError(
                f"{path}:{lineno}: not an enoki teach record (needs 'id', 'text', 'facts'); "
                "is --out another file?"
            )
        yield record


def _record(row: TeachRow, extraction: Extraction, extractor: LLMExtractor) -> dict[str, Any]:
    config = extractor.config()
    return {
        "id": row.id,
        "text": row.text,
        "facts": [f.to_dict() for f in extraction.facts],
        "model": config["model"],
        "prompt": config["prompt"],
        "prompt_sha256": config["prompt_sha256"],
        "usage": extraction.usage.to_dict(),
        "counts": dict(sorted(extraction.counts.items())),
    }


def teach(
    rows: list[TeachRow],
    out: str | Path,
    extractor: LLMExtractor,
    *,
    segmenter: SegmentBackend = "regex",
    progress: bool = True,
    max_consecutive_failures: int = 20,
) -> TeachResult:
    """Extract the facts of every row not yet in ``out`` and append their records (see the
    module docstring). Rows are written in input order; ``max_consecutive_failures`` failed
    rows in a row stop the run."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    result = TeachResult(output=out, rows=len(rows))
    lock = _lock_output(out)  # held until the run ends: two runs never append to one file
    try:
        return _teach(rows, out, extractor, result, segmenter, progress, max_consecutive_failures)
    finally:
        lock.close()


def _lock_output(out: Path) -> Any:
    handle = out.open("ab")
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as err:
        handle.close()
        raise ValueError(
            f"--out {out} is being written by another enoki teach run; wait for it to end (a "
            "rerun then resumes) or pass another --out"
        ) from err
    return handle


def _check_finished(
    record: dict[str, Any], row: TeachRow | None, config: Mapping[str, Any]
) -> None:
    """A finished record must be this input's row and the work of the extractor whose
    ``config`` is given."""
    if row is not None and record.get("text") is not None and record["text"] != row.text:
        raise ValueError(
            f"the record of id {row.id!r} in --out holds another text than the input's row: "
            "the input changed since (a line added or removed shifts the line-number ids of "
            "rows without an id field) — pass another --out, or give the rows ids"
        )
    for key, flag in (("model", "--model"), ("prompt_sha256", "--prompt")):
        if record.get(key) is not None and record[key] != config[key]:
            raise ValueError(
                f"--out holds rows extracted with another {key.split('_')[0]} "
                f"({record[key]!r}, this run: {config[key]!r}); one file holds one teacher: "
                f"pass another --out, or the {flag} of the first run"
            )


def _teach(
    rows: list[TeachRow],
    out: Path,
    extractor: LLMExtractor,
    result: TeachResult,
    segmenter: SegmentBackend,
    progress: bool,
    max_consecutive_failures: int,
) -> TeachResult:
    done: set[str] = set()
    by_id = {r.id: r for r in rows}
    config = extractor.config()
    for record in finished_records(out):
        _check_finished(record, by_id.get(str(record["id"])), config)
        done.add(str(record["id"]))
        result.file_usage = result.file_usage + Usage.from_dict(record.get("usage") or {})
    todo = [r for r in rows if r.id not in done]
    result.skipped = len(rows) - len(todo)
    spent_before = extractor.client.ledger.total
    window = max(2, 2 * extractor.workers)  # rows queued ahead, so the workers never idle
    queue: deque[tuple[TeachRow, list[Future[Extraction]]]] = deque()
    pending = iter(todo)
    stopped = False
    failures = 0  # consecutive failed rows
    bar = tqdm(total=len(todo), desc="teach", unit="row", disable=not progress)
    try:
        with out.open("a", encoding="utf-8") as handle:
            while True:
                while not stopped and len(queue) < window:
                    row = next(pending, None)
                    if row is None:
                        break
                    spans = segment_sentences(row.text, backend=segmenter)
                    queue.append((row, extractor.submit(row.text, spans)))
                if not queue:
                    break
                row, futures = queue.popleft()
                try:
                    extraction = extractor.collect(futures)
                except CostCapReached:
                    stopped = result.cost_cap_reached = True
                    result.stopped_rows += 1
                    continue
                except EndpointRefused as err:
                    if result.refused is None:
                        result.failed.append(row.id)
                        result.refused = str(err)
                    else:
                        result.stopped_rows += 1
                    stopped = True
                    continue
                except LLMError as err:
                    logger.warning("row %s failed: %s", row.id, err)
                    result.failed.append(row.id)
                    failures += 1
                    if failures >= max_consecutive_failures and not stopped:
                        logger.error("%d rows in a row failed; stopping", failures)
                        stopped = result.endpoint_down = True
                    continue
                finally:
                    bar.update(1)
                handle.write(json.dumps(_record(row, extraction, extractor), ensure_ascii=False))
                handle.write("\n")
                handle.flush()
                os.fsync(handle.fileno())
                result.written += 1
                failures = 0
                result.counts.update(extraction.counts)
                result.file_usage = result.file_usage + extraction.usage
                spent = extractor.client.ledger.total
                bar.set_postfix(
                    tokens=spent.prompt_tokens + spent.completion_tokens, cost=f"${spent.cost:.4f}"
                )
    finally:
        bar.close()
        # interrupted (Ctrl-C, an error): do not wait for requests in flight
        extractor.close(wait=sys.exc_info()[0] is None)
    result.stopped_rows += sum(1 for _ in pending)
    total = extractor.client.ledger.total
    result.usage = Usage(
        total.prompt_tokens - spent_before.prompt_tokens,
        total.completion_tokens - spent_before.completion_tokens,
        total.requests - spent_before.requests,
        total.retries - spent_before.retries,
        total.cost - spent_before.cost,
    )
    return result
