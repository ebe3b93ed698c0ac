"""ONNX Runtime sessions with the settings a deployment wants to control.

onnxruntime's default uses one intra-op thread per physical core, which is right for one
process on an idle machine and wrong for N batch workers, Ray actors or a server beside other
jobs: each then oversubscribes the cores. ``threads`` (or ``$ENOKI_ONNX_THREADS``) caps it;
graph optimisation is set to all levels explicitly so that a changed default cannot slow the
shipped graphs down.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

THREADS_ENV = "ENOKI_ONNX_THREADS"


def _threads(threads: int | None) -> int:
    if threads is None:
        raw = os.environ.get(THREADS_ENV, "").strip()
        if not raw:
            return 0
        try:
            threads = int(raw)
        except ValueError as err:
            raise ValueError(f"${THREADS_ENV} must be an integer >= 0, got {raw!r}") from err
    if threads < 0:
        raise ValueError(f"intra-op threads must be >= 0 (0: onnxruntime's default), got {threads}")
    return threads


def session_options(threads: int | None = None) -> Any:
    """``onnxruntime.SessionOptions``: ``threads`` intra-op threads (None: ``$ENOKI_ONNX_THREADS``,
    else onnxruntime's default; 0: the default), one inter-op thread, sequential execution,
    every graph optimisation.

    Raises:
        ValueError: a negative or non-integer thread count.
    """
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = _threads(threads)
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return options


def create_session(path: Path, *, threads: int | None = None) -> Any:
    """A CPU ``onnxruntime.InferenceSession`` over ``path`` with :func:`session_options`."""
    import onnxruntime as ort

    return ort.InferenceSession(
        str(path), sess_options=session_options(threads), providers=["CPUExecutionProvider"]
    )
