"""Labelled NLI pairs for verifier training and evaluation, read from local files.

Every source becomes a list of :class:`NLIPair`. Three-way sources carry a label in
``entailment | neutral | contradiction``; two-way sources (RTE) carry ``entailment`` or
``not_entailment`` and are trained with a loss on p(entailment) vs p(neutral)+p(contradiction),
so they never have to invent a neutral/contradiction split they do not have.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

logger = logging.getLogger(__name__)

THREE_WAY = ("entailment", "neutral", "contradiction")
TWO_WAY = ("entailment", "not_entailment")


@dataclass(frozen=True)
class NLIPair:
    premise: str
    hypothesis: str
    label: str
    source: str

    @property
    def binary(self) -> bool:
        return self.label == "not_entailment"


def stable_fraction(key: str) -> float:
    """A deterministic number in [0, 1) for ``key``; used for reproducible held-out splits."""
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def read_jsonl(path: str | Path) -> Iterator[tuple[int, dict]]:
    """Yield ``(line_number, row)`` from a JSONL file, gzipped or not."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(
            f"{path} does not exist; set paths.shared_dir (or ENOKI_SHARED_DIR) to the folder "
            "that holds data/ and benchmarks/"
        )
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                try:
                    yield number, json.loads(line)
                except json.JSONDecodeError as err:
                    raise ValueError(f"{path}:{number}: invalid JSON ({err.msg})") from err


def _check_label(path: Path, number: int, label: object, allowed: tuple[str, ...]) -> str:
    if label not in allowed:
        raise ValueError(f"{path}:{number}: field 'label' is {label!r}; expected one of {allowed}")
    return str(label)


def load_pairs(
    path: str | Path,
    *,
    source: str,
    labels: tuple[str, ...] = THREE_WAY,
    limit: int | None = None,
) -> list[NLIPair]:
    """Load ``premise``/``hypothesis``/``label`` rows; rows with an unknown label are an error.

    ``limit``: the first that many rows (None: every row).
    """
    if limit is not None and limit < 0:
        raise ValueError(f"limit must be 0 or more rows (None for every row), got {limit}")
    path = Path(path)
    pairs: list[NLIPair] = []
    for number, row in islice(read_jsonl(path), limit):
        for name in ("premise", "hypothesis"):
            if not isinstance(row.get(name), str) or not row[name].strip():
                raise ValueError(f"{path}:{number}: field {name!r} must be a non-empty string")
        label = _check_label(path, number, row.get("label"), labels)
        pairs.append(NLIPair(row["premise"], row["hypothesis"], label, source))
    return pairs


def load_fool_me_twice(path: str | Path, *, source: str = "fool_me_twice") -> list[NLIPair]:
    """FM2 claims against their gold evidence (SUPPORTS → entailment, REFUTES → contradiction),
    plus one retrieved distractor per claim that is not gold evidence, labelled neutral."""
    path = Path(path)
    pairs: list[NLIPair] = []
    mapping = {"SUPPORTS": "entailment", "REFUTES": "contradiction"}
    for number, row in read_jsonl(path):
        raw_label = row.get("label")
        label = mapping.get(raw_label) if isinstance(raw_label, str) else None
        if label is None:
            raise ValueError(f"{path}:{number}: field 'label' is {raw_label!r}")
        evidence = [e for e in row.get("evidence", []) if e]
        if not evidence:
            continue
        pairs.append(NLIPair(" ".join(evidence), row["claim"], label, source))
        distractors = [d for d in row.get("distractors", []) if d not in evidence]
        if distractors:
            pick = distractors[int(stable_fraction(row["claim"]) * len(distractors))]
            pairs.append(NLIPair(pick, row["claim"], "neutral", source + "_distractor"))
    return pairs


def split_heldout(
    pairs: list[NLIPair], *, fraction: float, key: str = "premise"
) -> tuple[list[NLIPair], list[NLIPair]]:
    """Deterministic train / held-out split by hashing the premise (no premise in both)."""
    train: list[NLIPair] = []
    heldout: list[NLIPair] = []
    for pair in pairs:
        (heldout if stable_fraction(getattr(pair, key)) < fraction else train).append(pair)
    return train, heldout
