"""What inference needs without torch or transformers.

- :mod:`enoki_hd.runtime.files` — a checkpoint's ``config.json``, ``tokenizer.json`` and
  ``tokenizer_config.json`` read directly (the slice of ``AutoConfig`` / ``AutoTokenizer`` the
  ONNX verifier and tagger use), and where the shipped checkpoints are (the source tree or the
  installed package's data);
- :mod:`enoki_hd.runtime.heap` — :func:`settle_heap`, the loaded models left out of the
  garbage collector's passes in a long-running process;
- :mod:`enoki_hd.runtime.onnx` — ONNX Runtime sessions with explicit threads and graph
  optimisation, and whether a graph quantises activations per batch (its rows then depend on
  each other).

Nothing here imports torch or transformers; ``tests/test_torch_free.py`` checks that a whole
detection on the shipped checkpoints never does.
"""

from __future__ import annotations

from enoki_hd.runtime.files import (
    LocalTokenizer,
    installed_checkpoint_dir,
    load_local_config,
    load_local_tokenizer,
    pad_token_id,
    read_json,
)
from enoki_hd.runtime.heap import settle_heap
from enoki_hd.runtime.onnx import (
    THREADS_ENV,
    create_session,
    intra_op_threads,
    quantizes_activations_per_batch,
    session_options,
)

__all__ = [
    "THREADS_ENV",
    "LocalTokenizer",
    "create_session",
    "installed_checkpoint_dir",
    "intra_op_threads",
    "load_local_config",
    "load_local_tokenizer",
    "pad_token_id",
    "quantizes_activations_per_batch",
    "read_json",
    "session_options",
    "settle_heap",
]
