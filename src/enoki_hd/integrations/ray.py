"""Ray Data: one detector per actor, ``map_batches`` over a dataset of answers.

On an existing dataset (the same code on a laptop and on a cluster; ``ray.init()`` connects
to ``$RAY_ADDRESS`` when it is set)::

    import ray
    from enoki_hd.integrations.ray import detect_dataset

    ds = ray.data.read_json("s3://bucket/answers.jsonl")  # line, answer, context, question?, id?
    reports = detect_dataset(ds, detector={"extractor": "rules"}, actors=16)
    reports.write_json("s3://bucket/reports/")

Every row needs a unique ``line`` number (see :func:`detect_dataset`). Each output row holds
``id``, ``line`` and ``output``: the same JSON line
``enoki detect-batch`` writes for that row (``{"id", "line", "row_sha256"?, "report" |
"error"}``; ``row_sha256`` when the row came from detect-batch's file).
``enoki detect-batch --ray ADDRESS`` runs a local JSONL file through the same actors in
chunks, keeping its resumable, input-ordered output.

Ray is an optional dependency (``pip install "enoki-hd[ray]"``); this module imports it only
when a function is called.
"""

from __future__ import annotations

import itertools
import json
import re
import socket
from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any

from enoki_hd.batch import (
    BatchError,
    BatchRow,
    DetectorSpec,
    build_detector,
    detect_row,
    output_line,
    validate_example,
)
from enoki_hd.runtime.onnx import THREADS_ENV

# Rows per Ray dataset in detect-batch --ray: actors start once per chunk (the models load
# in seconds), and the rows of a chunk are the ones in flight.
DEFAULT_CHUNK_ROWS = 2048


def _ray() -> Any:
    try:
        import ray
    except ImportError as err:
        raise ImportError(
            'the Ray integration needs ray: pip install "enoki-hd[ray]" (ray[data])'
        ) from err
    return ray


class DetectorActor:
    """A ``map_batches`` callable class: builds its detector once, then turns batches of
    rows (``line``, ``answer``, ``context``, optional ``question`` and ``id``) into output
    rows (``id``, ``line``, ``output``), validating each row as detect-batch does.

    A detector that fails to build is raised on the first batch, not from ``__init__``: Ray
    reports an actor that dies in its constructor as ``ActorDiedError`` with the error's
    text only, while an error raised from a batch reaches the driver as itself (with
    ``raise_original_map_exception``, which :func:`detect_rows_on_ray` sets).
    """

    def __init__(self, detector: DetectorSpec | None = None, threads: int = 1) -> None:
        import os

        os.environ.setdefault(THREADS_ENV, str(threads))
        self.detector: Any = None
        self.failure: Exception | None = None
        try:
            self.detector = build_detector(detector if detector is not None else {})
        except Exception as err:
            self.failure = err

    def __call__(self, batch: Any) -> dict[str, Any]:
        """``batch``: a ``pyarrow.Table`` (``batch_format="pyarrow"``), whose ``to_pylist``
        gives each value as the Python value it was (an int id stays an int, a null is None)."""
        if self.failure is not None:
            raise self.failure
        columns = {name: batch.column(name).to_pylist() for name in batch.column_names}
        if "line" not in columns:
            raise ValueError(_LINE_NEEDED)
        ids, lines, outputs = [], [], []
        for i, line in enumerate(columns["line"]):
            if not isinstance(line, int) or isinstance(line, bool):
                raise ValueError(f"{_LINE_NEEDED}; got {line!r}")
            row = _batch_row(line, {name: values[i] for name, values in columns.items()})
            ids.append(row.id)
            lines.append(line)
            outputs.append(output_line(detect_row(self.detector, row)).rstrip("\n"))
        return {"id": ids, "line": lines, "output": outputs}


_LINE_NEEDED = (
    "every row needs a 'line' column holding its unique number (e.g. its 1-based line in the "
    "input file): Ray Data has no row index, and the number is what ties a report to its row"
)


def _batch_row(line: int, item: dict[str, Any]) -> BatchRow:
    """One dataset row as detect-batch's :class:`BatchRow`: the same checks, the same error
    (``field``, ``message``) for a bad id or field; a missing or null id is the ``line``."""
    # detect-batch's ids and contexts travel as JSON text, kept exact (see _detect_chunk)
    row_id = json.loads(item.pop("id_json")) if "id_json" in item else item.get("id")
    if "context_json" in item:
        item["context"] = json.loads(item.pop("context_json"))
    digest = item.get("row_sha256")
    if row_id is None:
        row_id = line
    elif not isinstance(row_id, (str, int)) or isinstance(row_id, bool):
        message = f"must be a string or an integer, got {type(row_id).__name__}"
        return BatchRow(line, line, error={"field": "id", "message": message}, digest=digest)
    example, error = validate_example(item)
    return BatchRow(line, row_id, example=example, error=error, digest=digest)


def _ray_item(row: BatchRow) -> dict[str, Any]:
    """A valid detect-batch row as a Ray dataset item (id and context as JSON text)."""
    example = dict(row.example or {})
    context = example.pop("context")
    return {
        "id_json": json.dumps(row.id),
        "line": row.line,
        "context_json": json.dumps(context),
        **({} if row.digest is None else {"row_sha256": row.digest}),
        **example,
    }


def detect_dataset(
    dataset: Any,
    *,
    detector: DetectorSpec | None = None,
    actors: int = 1,
    batch_size: int = 8,
    threads_per_actor: int = 1,
) -> Any:
    """``dataset.map_batches`` with ``actors`` :class:`DetectorActor` s (one CPU each by
    default, ``threads_per_actor`` ONNX threads); lazy, like every Ray Data transform.

    Every row needs a ``line`` column: an integer unique across the dataset (e.g. the row's
    1-based line in the input file), which each output row carries and which a missing or
    null ``id`` defaults to. Ray Data has no global row index (``map_batches`` sees one batch
    at a time, in no fixed order), so the number must come with the data: add it where the
    rows are made, e.g. ``ray.data.from_items([{**row, "line": n} for n, row in
    enumerate(rows, 1)])``. Unlike detect-batch, ids are not checked for uniqueness.

    Rows are validated as detect-batch validates them: a missing or non-string field, or an
    id that is not a string or an integer, gives that row the same ``error`` object. A
    detector that fails (a missing or corrupt verifier) fails the job; set
    ``dataset.context.raise_original_map_exception = True`` to get its own exception (as the
    ``cause`` of Ray's ``RayTaskError``) rather than Ray's ``UserCodeException``.

    Raises:
        ValueError: the dataset has no ``line`` column (here when its schema is known
            without running it, else from the first batch).
    """
    ray = _ray()
    columns = dataset.columns(fetch_if_missing=False)  # stays lazy: else checked per batch
    if columns is not None and "line" not in columns:
        raise ValueError(_LINE_NEEDED)
    return dataset.map_batches(
        DetectorActor,
        fn_constructor_kwargs={"detector": detector, "threads": threads_per_actor},
        batch_size=batch_size,
        batch_format="pyarrow",
        compute=ray.data.ActorPoolStrategy(size=actors),
        num_cpus=threads_per_actor,
    )


CONNECT_TIMEOUT_S = 5.0
"""How long ``--ray HOST:PORT`` waits for the cluster's port to accept a connection."""


def _tcp_address(address: str) -> tuple[str, int] | None:
    """(host, port) of ``HOST:PORT`` or ``ray://HOST:PORT``; None for ``auto``, ``local`` and
    anything else (which Ray itself reads or refuses)."""
    match = re.fullmatch(r"(?:ray://)?\[?([\w.:-]+?)\]?:(\d{1,5})", address.strip())
    if match is None:
        return None
    return match.group(1), int(match.group(2))


def init(address: str) -> None:
    """Connect to ``address`` (``"local"``: start a local instance) unless already connected.

    Raises:
        BatchError: ``address`` is not a Ray address, or no cluster answers there (the
            message names ``--ray``: a usage error of detect-batch).
    """
    ray = _ray()
    if ray.is_initialized():
        return
    hint = "pass auto (a cluster started with `ray start --head`), ray://HOST:10001, or local"
    reachable = _tcp_address(address)
    if reachable is not None:
        # Ray retries an address where nothing listens for minutes; a socket says it at once
        try:
            socket.create_connection(reachable, timeout=CONNECT_TIMEOUT_S).close()
        except OSError as err:
            raise BatchError(
                f"--ray {address!r}: nothing answers at {reachable[0]}:{reachable[1]} "
                f"({err.strerror or err}); {hint}"
            ) from err
    try:
        if address == "local":
            ray.init(include_dashboard=False, log_to_driver=False)
        else:
            ray.init(address=address, log_to_driver=False)
    except (ValueError, ConnectionError, RuntimeError) as err:
        reason = " ".join(str(err).split())
        raise BatchError(f"--ray {address!r}: cannot connect ({reason}); {hint}") from err


def check_detector(detector: DetectorSpec, *, address: str) -> None:
    """Connect to ``address`` and build the detector once in a Ray task, so that a missing
    or corrupt verifier fails before any output is written, with the error it raised.

    Raises:
        BatchError: see :func:`init`.
        Exception: what building the detector raised (e.g. ``FileNotFoundError``,
            ``VerifierError``).
    """
    ray = _ray()
    init(address)
    # max_calls=1: the worker exits after it, not holding a detector's memory beside the actors
    task = ray.remote(num_cpus=1, max_calls=1)(_load_detector)
    try:
        ray.get(task.remote(detector))
    except ray.exceptions.RayTaskError as err:
        raise err.cause from err


def _load_detector(detector: DetectorSpec) -> None:
    failure = DetectorActor(detector).failure
    if failure is not None:
        raise failure


def detect_rows_on_ray(
    rows: Iterator[BatchRow],
    detector: DetectorSpec,
    *,
    address: str,
    actors: int = 1,
    chunk_rows: int = DEFAULT_CHUNK_ROWS,
) -> Iterator[str]:
    """detect-batch's output lines for ``rows``, in input order, computed by Ray actors in
    chunks of ``chunk_rows`` rows; bad rows are answered here without a round trip. A line
    is yielded as soon as it and every line before it are done (the chunk's blocks are run
    in order), not at the end of its chunk.

    Raises:
        BatchError: see :func:`init`.
        Exception: what the detector raised in an actor (e.g. ``FileNotFoundError``,
            ``VerifierError``), unwrapped from Ray's ``RayTaskError``.
    """
    ray = _ray()
    init(address)
    while True:
        chunk = list(itertools.islice(rows, chunk_rows))
        if not chunk:
            return
        good = [r for r in chunk if r.error is None]
        yield from _in_order(chunk, _detect_chunk(ray, good, detector, actors) if good else ())


def _detect_chunk(
    ray: Any, good: list[BatchRow], detector: DetectorSpec, actors: int
) -> Iterator[tuple[int, str]]:
    """``(line, output line)`` of each of the valid rows ``good``, as the actors finish them."""
    # ids and contexts travel as JSON text: Arrow would coerce a column mixing str and int
    # ids, and cannot hold one mixing str contexts with lists of passages
    dataset = ray.data.from_items([_ray_item(r) for r in good])  # its own DataContext copy
    dataset.context.raise_original_map_exception = True  # the detector's error, not Ray's
    dataset.context.execution_options.preserve_order = True  # the first rows finish first
    try:
        for out in detect_dataset(dataset, detector=detector, actors=actors).iter_rows():
            yield int(out["line"]), str(out["output"]) + "\n"
    except ray.exceptions.RayTaskError as err:
        raise err.cause from err


def _in_order(chunk: list[BatchRow], finished: Iterable[tuple[int, str]]) -> Iterator[str]:
    """The output lines of ``chunk`` in its order, each as soon as the rows before it are
    done: bad rows from their error, valid ones from ``finished`` (in any order).

    Raises:
        RuntimeError: a valid row of ``chunk`` never came back from Ray.
    """
    done: dict[int, str] = {}
    pending = deque(chunk)

    def ready() -> Iterator[str]:
        while pending and (pending[0].error is not None or pending[0].line in done):
            row = pending.popleft()
            bad = row.error is not None
            yield output_line(detect_row(None, row)) if bad else done.pop(row.line)

    yield from ready()
    for line, text in finished:
        done[line] = text
        yield from ready()
    if pending:
        raise RuntimeError(f"Ray returned no report for input line {pending[0].line}")
