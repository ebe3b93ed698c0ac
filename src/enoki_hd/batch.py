"""``enoki detect-batch``: a JSONL file of answers in, one report line per row out.

Input rows (one JSON object a line)::

    {"id": "q17", "answer": "...", "context": "...", "question": "..."}

``id`` is optional (default: the 1-based line number) and must be unique; ``question`` may be
missing or null; other fields are ignored. Output lines, in input order, exactly one per input
line::

    {"id": "q17", "line": 1, "report": {...Report.to_dict() without timings...}}
    {"id": 2, "line": 2, "error": {"field": "context", "message": "missing field 'context'"}}

Bad rows (not JSON, a missing or non-string field, a duplicate id, an input the detector
refuses with ``TypeError``/``ValueError``) are reported on their own line with the field that
was wrong, and the job goes on: one malformed row in a million must not stop the other rows.
A verifier failure or any other exception stops the job: it says nothing about the row, and
writing it as a result would hide a broken model.

Resumable: every finished row is appended to ``--out`` with one ``write`` + ``flush`` +
``fsync`` as soon as all rows before it are written; a rerun reads the lines already there
(a torn last line from a crash is cut off), checks that they are the input's first rows,
skips those ids and appends the rest. A crash loses at most the rows in flight, and a run
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

import fcntl
import json
import logging
import multiprocessing
import os
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from enoki_hd.eval.files import to_json
from enoki_hd.runtime.onnx import THREADS_ENV

logger = logging.getLogger(__name__)

# What builds a worker's detector: a ``Detector.from_config`` mapping or a picklable
# zero-argument callable (a module-level function) returning a Detector.
DetectorSpec = Mapping[str, Any] | Callable[[], Any]
FIELDS = ("answer", "context", "question")


class BatchError(RuntimeError):
    """The job cannot go on (the output does not belong to the input, a worker died)."""


@dataclass(frozen=True)
class BatchRow:
    """One input line: its 1-based ``line`` number, ``id`` and either the ``example``
    (``answer``, ``context``, ``question``) or the ``error`` that makes it unusable."""

    line: int
    id: Any
    example: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


@dataclass
class BatchSummary:
    """What a run did: rows in the input, ``skipped`` (finished by an earlier run), ``done``
    now, ``errors`` (bad rows, counted among ``done``), ``flagged`` answers (with at least one
    hallucinated span), the mean faithfulness of the reports written now, seconds;
    ``error_fields`` counts the errors by the field they name (``row`` for a line that is not a
    JSON object)."""

    rows: int = 0
    skipped: int = 0
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
    try:
        value = json.loads(text)
    except json.JSONDecodeError as err:
        return BatchRow(line_number, line_number, error=_error(None, f"not valid JSON: {err}"))
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
    return {name: value.get(name) for name in FIELDS}, None


def read_rows(path: Path) -> Iterator[BatchRow]:
    """The rows of a JSONL file, streamed; blank lines are rows too (reported as errors), so
    that output line N always answers input line N. A repeated id is an error on the later row."""
    seen: dict[Any, int] = {}
    with path.open(encoding="utf-8") as handle:
        for number, text in enumerate(handle, start=1):
            row = parse_row(number, text)
            if row.error is None:
                first = seen.setdefault(row.id, number)
                if first != number:
                    row = BatchRow(
                        number, row.id, error=_error("id", f"duplicate id, first on line {first}")
                    )
            yield row


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
    from enoki_hd.detector import Detector

    config = dict(spec)
    verifier = dict(config.get("verifier") or {})
    verifier.setdefault("cache_size", 0)
    config["verifier"] = verifier
    return Detector.from_config(config)


def detect_row(detector: Any, row: BatchRow) -> dict[str, Any]:
    """The output object of one row: its report, or its error (a row the detector refuses
    with ``TypeError``/``ValueError`` is reported; anything else propagates)."""
    from enoki_hd.verify.nli import VerifierError

    if row.error is not None:
        return {"id": row.id, "line": row.line, "error": row.error}
    assert row.example is not None
    try:
        report = detector.detect(**row.example)
    except VerifierError:
        raise
    except (TypeError, ValueError) as err:
        return {"id": row.id, "line": row.line, "error": _error(None, str(err))}
    report_dict = report.to_dict()
    report_dict.pop("timings", None)
    return {"id": row.id, "line": row.line, "report": report_dict}


_WORKER_DETECTOR: Any = None


def _init_worker(spec: DetectorSpec, threads: int) -> None:
    global _WORKER_DETECTOR
    os.environ.setdefault(THREADS_ENV, str(threads))
    _WORKER_DETECTOR = build_detector(spec)


def _detect_in_worker(row: BatchRow) -> str:
    return output_line(detect_row(_WORKER_DETECTOR, row))


# -- the job --------------------------------------------------------------------------------


def finished_rows(out: Path) -> list[tuple[int, Any]]:
    """``(line, id)`` of the rows already in ``out``; a torn last line (a crash mid-write) is
    cut off the file first.

    Raises:
        BatchError: a complete line of ``out`` is not an output line of this job.
    """
    if not out.exists():
        return []
    data = out.read_bytes()
    keep = data.rfind(b"\n") + 1
    if keep < len(data):
        logger.warning("%s: cutting off a torn last line (%d bytes)", out, len(data) - keep)
        with out.open("r+b") as handle:
            handle.truncate(keep)
            handle.flush()
            os.fsync(handle.fileno())
    done = []
    for number, text in enumerate(data[:keep].decode("utf-8").splitlines(), start=1):
        try:
            value = json.loads(text)
            done.append((int(value["line"]), value["id"]))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as err:
            raise BatchError(
                f"{out} line {number} is not a detect-batch output line ({err}); "
                "pass another --out or remove the file"
            ) from err
    return done


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
    with path.open("rb") as handle:
        return sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(1 << 20), b""))


def _pending(
    rows: Iterator[BatchRow], done: list[tuple[int, Any]], out: Path
) -> Iterator[BatchRow]:
    """``rows`` after the first ``len(done)``, which must be the rows ``done`` lists."""
    for index, row in enumerate(rows):
        if index < len(done):
            if done[index] != (row.line, row.id):
                raise BatchError(
                    f"{out} does not belong to this input: its line {index + 1} answers input "
                    f"line {done[index][0]} id {done[index][1]!r}, but input line {row.line} "
                    f"has id {row.id!r}; pass another --out"
                )
            continue
        yield row


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
        VerifierError: the verifier failed (rerun to resume after fixing it).
    """
    if workers < 1:
        raise ValueError(f"workers (--workers) must be >= 1, got {workers}")
    input_path, out_path = Path(input_path), Path(out_path)
    if not input_path.is_file():
        raise FileNotFoundError(f"--input {input_path} does not exist")
    spec: DetectorSpec = detector if detector is not None else {}
    started = time.perf_counter()
    appender = _Appender(out_path)  # locked before anything is read
    try:
        done = finished_rows(out_path)
    except BaseException:
        appender.close()
        raise
    summary = BatchSummary(rows=_count_lines(input_path), skipped=len(done))
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
        for line in lines:
            appender.write([line])
            summary.add(json.loads(line))
            bar.update(1)
    finally:
        appender.close()
        bar.close()
        summary.seconds = time.perf_counter() - started
    return summary


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
    context = multiprocessing.get_context("spawn")  # no forked onnxruntime thread pools
    with context.Pool(workers, initializer=_init_worker, initargs=(spec, threads)) as pool:
        queue: deque[Any] = deque()
        for row in rows:
            queue.append(pool.apply_async(_detect_in_worker, (row,)))
            if len(queue) >= in_flight:
                yield queue.popleft().get()
        while queue:
            yield queue.popleft().get()
