"""``enoki detect-batch``: a JSONL file of answers in, one report line per row out.

Input rows (one JSON object a line)::

    {"id": "q17", "answer": "...", "context": "...", "question": "..."}

``id`` is optional (default: the 1-based line number) and must be unique; ``question`` may be
missing or null; other fields are ignored. Output lines, in input order, exactly one per input
line::

    {"id": "q17", "line": 1, "row_sha256": "…", "report": {...Report.to_dict() without timings...}}
    {"id": 2, "line": 2, "row_sha256": "…", "error": {"field": "context", "message": "missing field 'context'"}}

``row_sha256`` is the first 16 hex digits of the SHA-256 of the input line's bytes (without
its line break): what a rerun checks the finished lines against.

Lines are cut at ``\n`` only (``\r\n`` is read as ``\n``; U+2028 and other Unicode line
separators are characters of a row); a UTF-8 byte-order mark before the first row is dropped.
Bad rows (not UTF-8, not JSON, blank, a missing or non-string field, a duplicate id, an input
the detector refuses with ``TypeError``/``ValueError``) are reported on their own line with the field that
was wrong, and the job goes on: one malformed row in a million must not stop the other rows.
A verifier failure or any other exception stops the job: it says nothing about the row, and
writing it as a result would hide a broken model.

Resumable: every finished row is appended to ``--out`` with one ``write`` + ``flush`` +
``fsync`` as soon as all rows before it are written; a rerun reads the lines already there
(a torn last line from a crash is cut off — only when every complete line is an output line
and the torn one starts like one, so a file that is not an output is refused untouched),
checks that they answer the input's first rows (line, id and ``row_sha256``: another input, or
an input edited since, is refused) and that the detector's options are the ones the earlier
reports were made with, skips those rows and appends the rest. A crash loses at most the rows in flight, and a run
killed and rerun writes the same bytes as one uninterrupted run: reports hold no timings and
each worker's verifier runs without a score cache (the shipped int8 graph scores each pair
alone, so a cache could not change a score; with an explicit ``verifier.batch_size`` above 1
a score depends on the batch a pair was first scored in, and a cache would remember that
batch across rows).

``workers > 1`` runs that many processes, each with its own detector (ONNX intra-op threads
set to share the cores); ``ray_address`` runs the rows on a Ray cluster through
:mod:`enoki_hd.integrations.ray`.
"""

from __future__ import annotations

import dataclasses
import fcntl
import hashlib
import json
import logging
import multiprocessing
import os
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from enoki_hd.eval.files import to_json
from enoki_hd.runtime.heap import settle_heap
from enoki_hd.runtime.onnx import THREADS_ENV
from enoki_hd.text import surrogate_at, surrogate_message

logger = logging.getLogger(__name__)

# What builds a worker's detector: a ``Detector.from_config`` mapping or a picklable
# zero-argument callable (a module-level function) returning a Detector.
DetectorSpec = Mapping[str, Any] | Callable[[], Any]
FIELDS = ("answer", "context", "question")


class BatchError(RuntimeError):
    """The job cannot go on (the output does not belong to the input, a worker died)."""


class WorkerDied(BatchError):
    """A worker process ended without answering (killed, out of memory): not a usage error."""


@dataclass(frozen=True)
class BatchRow:
    """One input line: its 1-based ``line`` number, ``id`` and either the ``example``
    (``answer``, ``context``, ``question``) or the ``error`` that makes it unusable."""

    line: int
    id: Any
    example: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    digest: str | None = None  # row_sha256, set when read from a file


@dataclass
class BatchSummary:
    """What a run did: rows in the input, ``skipped`` (finished by an earlier run), ``done``
    now, ``errors`` (bad rows, counted among ``done``), ``flagged`` answers (with at least one
    hallucinated span), the mean faithfulness of the reports written now, seconds;
    ``skipped_errors`` counts the bad rows among the ``skipped`` ones (so that a resumed job
    ends with the exit status of an uninterrupted one);
    ``error_fields`` counts the errors by the field they name (``row`` for a line that is not a
    JSON object)."""

    rows: int = 0
    skipped: int = 0
    skipped_errors: int = 0
    done: int = 0
    errors: int = 0
    flagged: int = 0
    faithfulness_sum: float = 0.0
    faithfulness_count: int = 0
    seconds: float = 0.0
    error_fields: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        mean = (
            round(self.faithfulness_sum / self.faithfulness_count, 4)
            if self.faithfulness_count
            else None
        )
        return {
            "rows": self.rows,
            "skipped": self.skipped,
            "skipped_errors": self.skipped_errors,
            "done": self.done,
            "errors": self.errors,
            "error_fields": dict(sorted(self.error_fields.items())),
            "flagged_answers": self.flagged,
            "mean_faithfulness": mean,
            "seconds": round(self.seconds, 3),
            "rows_per_second": round(self.done / self.seconds, 3) if self.seconds else None,
        }

    def add(self, output: dict[str, Any]) -> None:
        self.done += 1
        if "error" in output:
            self.errors += 1
            # a row that is not a JSON object has no field: counted as "row"
            name = output["error"].get("field") or "row"
            self.error_fields[name] = self.error_fields.get(name, 0) + 1
            return
        report = output["report"]
        if report.get("spans"):
            self.flagged += 1
        faithfulness = report.get("summary", {}).get("faithfulness")
        if faithfulness is not None:
            self.faithfulness_sum += float(faithfulness)
            self.faithfulness_count += 1


def parse_row(line_number: int, text: str) -> BatchRow:
    """One input line → a :class:`BatchRow` (never raises: problems become ``error``)."""
    if not text.strip():
        return BatchRow(
            line_number,
            line_number,
            error=_error(None, "blank line (every line is a row: remove it or give it a row)"),
        )
    try:
        value = json.loads(text)
    except json.JSONDecodeError as err:
        return BatchRow(
            line_number,
            line_number,
            error=_error(None, f"not valid JSON: {err.msg} at column {err.colno}"),
        )
    if not isinstance(value, dict):
        return BatchRow(
            line_number,
            line_number,
            error=_error(None, f"expected a JSON object, got {type(value).__name__}"),
        )
    row_id = value.get("id", line_number)
    if not isinstance(row_id, (str, int)) or isinstance(row_id, bool):
        return BatchRow(
            line_number,
            line_number,
            error=_error("id", f"must be a string or an integer, got {type(row_id).__name__}"),
        )
    example, error = validate_example(value)
    return BatchRow(line_number, row_id, example=example, error=error)


def validate_example(value: dict[str, Any]) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """``(example, None)`` with the ``answer``, ``context`` and ``question`` of ``value``, or
    ``(None, {"field", "message"})`` naming the first missing or non-string field
    (``question`` may be missing or null; ``context`` may be a list of passages, see
    :meth:`enoki_hd.detector.Detector.detect`)."""
    for name in ("answer", "context"):
        if name not in value:
            return None, _error(name, f"missing field {name!r}")
    for name in FIELDS:
        item = value.get(name)
        if name == "question" and item is None:
            continue
        if name == "context" and isinstance(item, list):  # passages (retrieved documents)
            bad = next((i for i, p in enumerate(item) if not isinstance(p, str)), None)
            if bad is not None:
                found = type(item[bad]).__name__
                return None, _error(f"context[{bad}]", f"must be a string, got {found}")
            continue
        if not isinstance(item, str):
            expected = "a string or a list of strings" if name == "context" else "a string"
            return None, _error(name, f"must be {expected}, got {type(item).__name__}")
    for name in FIELDS:
        texts = value.get(name)
        for i, text in enumerate(texts if isinstance(texts, list) else [texts]):
            at = surrogate_at(text) if isinstance(text, str) else None
            if at is not None:
                where = f"{name}[{i}]" if isinstance(texts, list) else name
                return None, _error(where, surrogate_message(text, at))
    return {name: value.get(name) for name in FIELDS}, None


def row_digest(raw: bytes) -> str:
    """``row_sha256`` of an input line: the first 16 hex digits of the SHA-256 of its bytes
    without the line break."""
    return hashlib.sha256(raw.rstrip(b"\n").rstrip(b"\r")).hexdigest()[:16]


def _raw_lines(path: Path) -> Iterator[bytes]:
    """The lines of ``path`` as bytes, cut at ``\n`` only, the first one's UTF-8 BOM dropped."""
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            yield raw[3:] if number == 1 and raw.startswith(b"\xef\xbb\xbf") else raw


def read_rows(path: Path) -> Iterator[BatchRow]:
    """The rows of a JSONL file, each with its ``row_sha256`` (``digest``), streamed; blank lines are rows too
    (reported as errors), so that output line N always answers input line N. A repeated id is
    an error on the later row (ids defaulted to line numbers included)."""
    seen: dict[Any, int] = {}
    for number, raw in enumerate(_raw_lines(path), start=1):
        try:
            row = parse_row(number, raw.decode("utf-8"))
        except UnicodeDecodeError as err:
            row = BatchRow(
                number,
                number,
                error=_error(
                    None,
                    f"not UTF-8 (byte {err.start + 1} of the line); convert the file, e.g. "
                    "`iconv -f latin1 -t utf-8`",
                ),
            )
        first = seen.setdefault(row.id, number)
        if first != number and row.error is None:
            row = BatchRow(
                number, row.id, error=_error("id", f"duplicate id, first on line {first}")
            )
        yield dataclasses.replace(row, digest=row_digest(raw))


def _error(name: str | None, message: str) -> dict[str, Any]:
    return {"field": name, "message": message}


def output_line(output: dict[str, Any]) -> str:
    """The JSON line written for one row (``ensure_ascii=False``; key order as built)."""
    return to_json(output) + "\n"


# -- detection (in this process, in worker processes or in Ray actors) ---------------------


def build_detector(spec: DetectorSpec) -> Any:
    """The detector ``spec`` describes; a config mapping gets a cache-free verifier (see the
    module docstring) unless it sets ``verifier.cache_size`` itself."""
    if callable(spec):
        return spec()
    from enoki_hd.detector import Detector, config_group

    config = dict(spec)
    config["verifier"] = {"cache_size": 0, **config_group(config, "verifier")}
    return Detector.from_config(config)


def detect_row(detector: Any, row: BatchRow) -> dict[str, Any]:
    """The output object of one row: its report, or its error (a row the detector refuses
    with ``TypeError``/``ValueError`` is reported; anything else propagates)."""
    from enoki_hd.verify.nli import VerifierError

    head: dict[str, Any] = {"id": row.id, "line": row.line}
    if row.digest is not None:
        head["row_sha256"] = row.digest
    if row.error is not None:
        return {**head, "error": row.error}
    assert row.example is not None
    try:
        report = detector.detect(**row.example)
    except VerifierError:
        raise
    except (TypeError, ValueError) as err:
        return {**head, "error": _error(None, str(err))}
    report_dict = report.to_dict()
    report_dict.pop("timings", None)
    return {**head, "report": report_dict}


_WORKER_DETECTOR: Any = None
_WORKER_FAILURE: Exception | None = None
_WORKER_SETTLED = False


def _init_worker(spec: DetectorSpec, threads: int) -> None:
    """Build the worker's detector. A failure is raised on the first row, not here: a worker
    whose initializer raises dies, and the job would only learn that a process broke, not
    that the verifier is missing (as :class:`enoki_hd.integrations.ray.DetectorActor` does)."""
    global _WORKER_DETECTOR, _WORKER_FAILURE, _WORKER_SETTLED
    os.environ.setdefault(THREADS_ENV, str(threads))
    _WORKER_DETECTOR, _WORKER_FAILURE, _WORKER_SETTLED = None, None, False
    try:
        _WORKER_DETECTOR = build_detector(spec)
    except Exception as err:
        _WORKER_FAILURE = err


def _detect_in_worker(row: BatchRow) -> str:
    global _WORKER_SETTLED
    if _WORKER_FAILURE is not None:
        raise _WORKER_FAILURE
    line = output_line(detect_row(_WORKER_DETECTOR, row))
    if not _WORKER_SETTLED:  # the first row has loaded the models: a worker only detects
        settle_heap()
        _WORKER_SETTLED = True
    return line


# -- the job --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Finished:
    """The rows an earlier run wrote to the output: ``(line, id, row_sha256)`` each
    (``row_sha256`` None in lines written before it existed), how many of them are errors,
    and the ``config`` of their first report (None when there is none)."""

    rows: list[tuple[int, Any, str | None]]
    errors: int = 0
    config: dict[str, Any] | None = None

    def __len__(self) -> int:
        return len(self.rows)


_OUTPUT_START = b'{"id": '


def finished_rows(out: Path) -> Finished:
    """The rows already in ``out``. A torn last line (a crash mid-write) is cut off the file
    — only after every complete line was read as an output line, and only when the torn one
    starts like one: a file that is not an output of detect-batch is refused untouched.

    Raises:
        BatchError: a line of ``out`` is not an output line of detect-batch.
    """
    if not out.exists():
        return Finished([])
    rows: list[tuple[int, Any, str | None]] = []
    errors = 0
    config = None
    keep, torn = 0, b""  # the bytes of the complete lines; the torn last line
    # a line at a time: the output of a long job can be larger than memory
    with out.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.endswith(b"\n"):
                torn = raw
                break
            try:
                value = json.loads(raw.decode("utf-8"))
                rows.append((int(value["line"]), value["id"], value.get("row_sha256")))
            except (
                UnicodeDecodeError,
                json.JSONDecodeError,
                KeyError,
                TypeError,
                ValueError,
            ) as err:
                raise BatchError(
                    f"--out {out}: line {number} is not a detect-batch output line ({err}); "
                    "pass another --out (the file was not changed)"
                ) from err
            keep += len(raw)
            errors += "error" in value
            if config is None and isinstance(value.get("report"), dict):
                config = value["report"].get("config")
    if torn:
        if not torn.startswith(_OUTPUT_START[: len(torn)]):
            raise BatchError(
                f"--out {out}: its last line is not a detect-batch output line; pass another "
                "--out (the file was not changed)"
            )
        logger.warning("%s: cutting off a torn last line (%d bytes)", out, len(torn))
        with out.open("r+b") as handle:
            handle.truncate(keep)
            handle.flush()
            os.fsync(handle.fileno())
    return Finished(rows, errors, config)


class _Appender:
    """Appends whole lines to the output: one ``write`` + ``flush`` + ``fsync`` per call, so a
    crash leaves at most one torn line, which :func:`finished_rows` cuts off. Holds an
    exclusive lock on the file (released when the process ends, however it ends), so two jobs
    never append to one output.

    Raises:
        BatchError: another job holds the output.
    """

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.handle = path.open("ab")
        try:
            fcntl.flock(self.handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as err:
            self.handle.close()
            raise BatchError(
                f"{path} is being written by another detect-batch job; wait for it to end "
                "(a rerun then resumes where it stopped) or pass another --out"
            ) from err

    def write(self, lines: list[str]) -> None:
        if not lines:
            return
        self.handle.write("".join(lines).encode("utf-8"))
        self.handle.flush()
        os.fsync(self.handle.fileno())

    def close(self) -> None:
        self.handle.close()


def _count_lines(path: Path) -> int:
    """Lines of ``path`` as :func:`read_rows` reads them (a last line without ``\n`` counts)."""
    count, last = 0, b"\n"
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            count += chunk.count(b"\n")
            last = chunk[-1:]
    return count + (last != b"\n")


def _pending(rows: Iterator[BatchRow], done: Finished, out: Path) -> Iterator[BatchRow]:
    """``rows`` after the first ``len(done)``, which must be the rows ``done`` lists.

    Raises:
        BatchError: a finished line answers another row, or there are more of them than rows.
    """
    index = -1
    for index, row in enumerate(rows):
        if index < len(done):
            line, row_id, done_digest = done.rows[index]
            if (line, row_id) != (row.line, row.id):
                raise BatchError(
                    f"--out {out} does not belong to this input: its line {index + 1} answers "
                    f"input line {line} id {row_id!r}, but input line {row.line} has id "
                    f"{row.id!r}; pass another --out"
                )
            if done_digest is not None and done_digest != row.digest:
                raise BatchError(
                    f"--out {out} does not belong to this input: its line {index + 1} answers "
                    f"another text of input line {row.line} (row_sha256 {done_digest}, the "
                    f"input's is {row.digest}); the input was changed or is another file: pass "
                    "another --out"
                )
            continue
        yield row
    if index + 1 < len(done):
        raise BatchError(
            f"--out {out} does not belong to this input: it has {len(done)} lines, the input "
            f"only {index + 1} rows; pass another --out"
        )


def run_batch(
    input_path: str | Path,
    out_path: str | Path,
    *,
    detector: DetectorSpec | None = None,
    workers: int = 1,
    ray_address: str | None = None,
    progress: bool = True,
    in_flight: int | None = None,
) -> BatchSummary:
    """Run the detector over every row of ``input_path`` into ``out_path`` (resuming it).

    Args:
        detector: a ``Detector.from_config`` mapping or a picklable zero-argument callable;
            None: the shipped defaults.
        workers: processes (1: this process); with ``ray_address``, Ray actors.
        ray_address: a Ray cluster (``"auto"``, ``"ray://head:10001"``, ``"local"`` for a
            local instance); None runs here.
        in_flight: rows handed to workers ahead of the next row to write (default
            ``4 * workers``); a crash loses at most these.

    Raises:
        ValueError: ``workers`` < 1.
        BatchError: ``out_path`` holds lines that are not this input's first rows.
        WorkerDied: a worker process died (killed, out of memory); rerun to resume.
        VerifierError: the verifier failed (rerun to resume after fixing it).
    """
    if workers < 1:
        raise ValueError(f"workers (--workers) must be >= 1, got {workers}")
    input_path, out_path = Path(input_path), Path(out_path)
    if input_path.is_dir():
        raise FileNotFoundError(f"--input {input_path} is a directory; pass a JSONL file")
    if not input_path.is_file():
        raise FileNotFoundError(f"--input {input_path} does not exist")
    if out_path.is_dir():
        raise BatchError(f"--out {out_path} is a directory; pass a file name")
    if out_path.exists() and out_path.samefile(input_path):
        raise BatchError(f"--out {out_path} is the input file; pass another --out")
    spec: DetectorSpec = detector if detector is not None else {}
    started = time.perf_counter()
    created = not out_path.exists()
    appender = _Appender(out_path)  # locked before anything is read
    try:
        done = finished_rows(out_path)
    except BaseException:
        appender.close()
        raise
    summary = BatchSummary(
        rows=_count_lines(input_path), skipped=len(done), skipped_errors=done.errors
    )
    pending = _pending(read_rows(input_path), done, out_path)
    bar = tqdm(
        total=summary.rows,
        initial=summary.skipped,
        desc="detect-batch",
        unit="row",
        disable=not progress,
    )
    try:
        if ray_address is not None:
            from enoki_hd.integrations.ray import detect_rows_on_ray

            lines = detect_rows_on_ray(pending, spec, address=ray_address, actors=workers)
        else:
            lines = _detect_lines(pending, spec, workers, in_flight or 4 * workers)
        expected = done.config  # the options the finished reports were made with
        for line in lines:
            output = json.loads(line)
            if expected is not None and "report" in output:
                _check_config(expected, output["report"].get("config"), out_path)
                expected = None
            appender.write([line])
            summary.add(output)
            bar.update(1)
        if expected is not None:
            # nothing was left to do, so no new report was compared: a rerun with other
            # options must not exit 0 over reports made with the old ones
            _check_config(expected, build_detector(spec).config(), out_path)
    except BaseException:
        appender.close()
        if created and out_path.stat().st_size == 0:
            out_path.unlink()  # a job that failed before its first row leaves no empty output
        raise
    finally:
        appender.close()
        bar.close()
        summary.seconds = time.perf_counter() - started
    return summary


def _check_config(expected: dict[str, Any], found: Any, out: Path) -> None:
    """Refuse to append reports made with other detector options than the finished ones."""
    if found == expected:
        return
    found = found if isinstance(found, dict) else {}
    keys = sorted(k for k in expected.keys() | found.keys() if expected.get(k) != found.get(k))
    raise BatchError(
        f"--out {out} holds reports made with other detector options ({', '.join(keys)} "
        f"{'differs' if len(keys) == 1 else 'differ'}); rerun with the options of the first "
        "run, or pass another --out"
    )


def _detect_lines(
    rows: Iterator[BatchRow], spec: DetectorSpec, workers: int, in_flight: int
) -> Iterator[str]:
    """Output lines in input order, from this process or from ``workers`` processes."""
    if workers == 1:
        detector = build_detector(spec)
        for row in rows:
            yield output_line(detect_row(detector, row))
        return
    threads = max(1, (os.cpu_count() or 1) // workers)
    # a ProcessPoolExecutor, not a multiprocessing.Pool: a Pool replaces a worker that was
    # killed (out of memory, kill -9) and waits forever for the row it held
    pool = ProcessPoolExecutor(
        workers,
        mp_context=multiprocessing.get_context("spawn"),  # no forked onnxruntime thread pools
        initializer=_init_worker,
        initargs=(spec, threads),
    )
    queue: deque[Future[str]] = deque()
    try:
        for row in rows:
            queue.append(pool.submit(_detect_in_worker, row))
            if len(queue) >= in_flight:
                yield _result(queue.popleft())
        while queue:
            yield _result(queue.popleft())
    finally:
        # rows not started are dropped (a rerun does them); the running ones end first
        pool.shutdown(wait=True, cancel_futures=True)


def _result(future: Future[str]) -> str:
    """The output line a worker made.

    Raises:
        WorkerDied: the worker process ended before answering.
    """
    try:
        return future.result()
    except BrokenProcessPool as err:
        raise WorkerDied(
            "a detect-batch worker process died (killed, or out of memory?); the rows "
            "before it are written: rerun the same command to resume, with fewer --workers "
            "if memory ran out"
        ) from err
