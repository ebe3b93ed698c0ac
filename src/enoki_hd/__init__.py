"""enoki-hd: multi-level hallucination detection from anchored relational facts."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
