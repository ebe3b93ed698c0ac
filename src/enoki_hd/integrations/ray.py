"""Ray Data: one detector per actor, ``map_batches`` over a dataset of answers.

On an existing dataset (the same code on a laptop and on a cluster; ``ray.init()`` connects
to ``$RAY_ADDRESS`` when it is set)::

    import ray
    from enoki_hd.integrations.ray import detect_dataset

    ds = ray.data.read_json("s3://bucket/answers.jsonl")  # answer, context, question?, id?
    reports = detect_dataset(ds, detector={"extractor": "rules"}, actors=16)
    reports.write_json("s3://bucket/reports/")

Each output row holds ``id``, ``line`` and ``output``: the same JSON line
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
import math
from collections.abc import Iterator
from typing import Any

from enoki_hd.batch import BatchRow, DetectorSpec, build_detector, detect_row, output_line
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
    rows (``answer``, ``context``, optional ``question``, ``id`` and ``line``) into output
    rows (``id``, ``line``, ``output``)."""

    def __init__(self, detector: DetectorSpec | None = None, threads: int = 1) -> None:
        import os

        os.environ.setdefault(THREADS_ENV, str(threads))
        self.detector = build_detector(detector if detector is not None else {})

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        size = len(batch["answer"])
        ids, lines, outputs = [], [], []
        for i in range(size):
            line = int(batch["line"][i]) if "line" in batch else i + 1
            if "id_json" in batch:  # detect-batch's ids, kept exact (see detect_rows_on_ray)
                row_id = json.loads(_plain(batch["id_json"][i]))
            else:
                row_id = _plain(batch["id"][i]) if "id" in batch else line
            question = _missing_as_none(batch["question"][i]) if "question" in batch else None
            if "context_json" in batch:
                context = json.loads(_plain(batch["context_json"][i]))
            else:
                context = _plain(batch["context"][i])
            example = {
                "answer": _plain(batch["answer"][i]),
                "context": context,
                "question": question,
            }
            digest = _plain(batch["row_sha256"][i]) if "row_sha256" in batch else None
            row = BatchRow(line, row_id, example=example, digest=digest)
            ids.append(row_id)
            lines.append(line)
            outputs.append(output_line(detect_row(self.detector, row)).rstrip("\n"))
        return {"id": ids, "line": lines, "output": outputs}


def _plain(value: Any) -> Any:
    """A numpy scalar from a Ray batch as the Python value it came from; an array (a column
    of lists, e.g. a context given as passages) as a list of such values."""
    if getattr(value, "ndim", 0):
        return [_plain(v) for v in value]
    item = getattr(value, "item", None)
    return item() if callable(item) else value


def _missing_as_none(value: Any) -> Any:
    """A value of an optional column: Ray hands a null (a row without a question, or a
    whole column of them) over as None or as a float NaN."""
    plain = _plain(value)
    if plain is None or (isinstance(plain, float) and math.isnan(plain)):
        return None
    return plain


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
    default, ``threads_per_actor`` ONNX threads); lazy, like every Ray Data transform."""
    ray = _ray()
    return dataset.map_batches(
        DetectorActor,
        fn_constructor_kwargs={"detector": detector, "threads": threads_per_actor},
        batch_size=batch_size,
        batch_format="numpy",
        compute=ray.data.ActorPoolStrategy(size=actors),
        num_cpus=threads_per_actor,
    )


def init(address: str) -> None:
    """Connect to ``address`` (``"local"``: start a local instance) unless already connected."""
    ray = _ray()
    if ray.is_initialized():
        return
    if address == "local":
        ray.init(include_dashboard=False, log_to_driver=False)
    else:
        ray.init(address=address, log_to_driver=False)


def detect_rows_on_ray(
    rows: Iterator[BatchRow],
    detector: DetectorSpec,
    *,
    address: str,
    actors: int = 1,
    chunk_rows: int = DEFAULT_CHUNK_ROWS,
) -> Iterator[str]:
    """detect-batch's output lines for ``rows``, in input order, computed by Ray actors in
    chunks of ``chunk_rows`` rows; bad rows are answered here without a round trip."""
    ray = _ray()
    init(address)
    while True:
        chunk = list(itertools.islice(rows, chunk_rows))
        if not chunk:
            return
        good = [r for r in chunk if r.error is None]
        results: dict[int, str] = {}
        if good:
            # ids and contexts travel as JSON text: Arrow would coerce a column mixing str and
            # int ids, and cannot hold one mixing str contexts with lists of passages
            items = [_ray_item(r) for r in good]
            dataset = ray.data.from_items(items)
            for out in detect_dataset(dataset, detector=detector, actors=actors).iter_rows():
                results[int(out["line"])] = str(out["output"]) + "\n"
        for row in chunk:
            yield output_line(detect_row(None, row)) if row.error is not None else results[row.line]
