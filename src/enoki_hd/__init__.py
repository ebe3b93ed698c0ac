"""enoki-hd: multi-level hallucination detection from anchored relational facts.

``from enoki_hd import Detector`` is the entry point; the names below are imported on first
use (PEP 562), so ``import enoki_hd`` alone loads no model code.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# public name -> the module that defines it
_LAZY = {
    "Detector": "enoki_hd.detector",
    "Report": "enoki_hd.types",
    "Fact": "enoki_hd.types",
    "FactVerdict": "enoki_hd.types",
    "SentenceVerdict": "enoki_hd.types",
    "HallucinatedSpan": "enoki_hd.types",
    "Span": "enoki_hd.types",
}

__all__ = [
    "Detector",
    "Fact",
    "FactVerdict",
    "HallucinatedSpan",
    "Report",
    "SentenceVerdict",
    "Span",
    "__version__",
]

if TYPE_CHECKING:
    from enoki_hd.detector import Detector
    from enoki_hd.types import (
        Fact,
        FactVerdict,
        HallucinatedSpan,
        Report,
        SentenceVerdict,
        Span,
    )


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'enoki_hd' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
