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


def intra_op_threads(threads: int | None = None) -> int:
    """``threads``, else ``$ENOKI_ONNX_THREADS``, else 0 (onnxruntime's default). Loaders read
    it before they load a graph, so that a bad setting is not reported as a graph onnxruntime
    cannot run.

    Raises:
        ValueError: a negative or non-integer thread count (the message names the variable).
    """
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
    options.intra_op_num_threads = intra_op_threads(threads)
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


# ``DynamicQuantizeLinear`` computes one scale and zero point for its whole input tensor: in a
# graph quantised dynamically (onnxruntime's ``quantize_dynamic``, as the shipped verifier is),
# every activation of a batch shares the range of the batch's most extreme value, padding
# included, so a row's outputs depend on the other rows it is run with.
_PER_BATCH_QUANTIZATION_OP = b"DynamicQuantizeLinear"


def quantizes_activations_per_batch(path: Path) -> bool:
    """Whether the ONNX graph at ``path`` quantises activations with one range per batch tensor
    (it holds a ``DynamicQuantizeLinear`` node). The op's name is stored as plain bytes in the
    protobuf, so the file is searched without the ``onnx`` package (a few ms on 30 MB)."""
    import mmap

    with open(path, "rb") as handle:
        if handle.seek(0, 2) == 0:
            return False
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
            return data.find(_PER_BATCH_QUANTIZATION_OP) >= 0
