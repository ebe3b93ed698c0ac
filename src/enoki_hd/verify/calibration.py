"""Calibrated fusion: a fact's hallucination probability from a small logistic regression over
the NLI probabilities (fact and sentence level), the lexical grounding and the value-conflict
flag, instead of the hand-set rule of :func:`enoki_hd.verify.judge.fuse`.

The coefficients live in a versioned JSON file next to the verifier they were fitted for
(``checkpoints/verifier-minilm/fusion.json``), written by ``make calibrate``
(``scripts/calibrate.py``, :mod:`enoki_hd.train.calibrate`). Inference needs only this module:
no scikit-learn. A file fitted for another verifier is refused (``verifier_sha256``), since its
coefficients describe that model's probabilities.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from enoki_hd.types import NLIScores
from enoki_hd.verify.grounding import GroundingResult

FUSION_FILE = "fusion.json"
FORMAT_VERSION = 1
# logits are clipped here: a probability of 1e-4 and one of 1e-9 say the same thing
LOGIT_CLIP = 8.0

# The features, in the order the coefficients use. Changing the list is a new FORMAT_VERSION.
FEATURES: tuple[str, ...] = (
    "nli_hall_logit",  # logit of the fact's neutral + contradiction
    "nli_contradiction",  # the fact's contradiction probability
    "sentence_hall_logit",  # logit of neutral + contradiction of the fact's sentence, judged whole
    "sentence_contradiction",
    "grounding_score",  # weighted share of the fact's words and values not found in the context
    "grounding_absent",  # the grounding status, one-hot (partial is the reference level)
    "grounding_grounded",
    "grounding_empty",  # nothing lexical to check
    "value_conflict",  # a number or date differs from one of the same kind in the evidence
    "refinement",  # the fact refines a coarser one (its delta is what is checked)
)


class CalibrationError(ValueError):
    """A fusion file that cannot be used: unreadable, wrong version, or for another model."""


def _logit(p: float) -> float:
    p = min(1.0, max(0.0, p))
    if p <= 0.0:
        return -LOGIT_CLIP
    if p >= 1.0:
        return LOGIT_CLIP
    return max(-LOGIT_CLIP, min(LOGIT_CLIP, math.log(p / (1.0 - p))))


def fusion_features(
    nli: NLIScores,
    sentence: NLIScores | None,
    grounding: GroundingResult | None,
    *,
    refinement: bool,
) -> dict[str, float]:
    """The :data:`FEATURES` of one fact. ``sentence`` is the whole-sentence NLI decision
    (None: taken equal to the fact's); ``grounding`` None counts as nothing to check."""
    sentence = sentence or nli
    status = grounding.status if grounding is not None else "empty"
    return {
        "nli_hall_logit": round(_logit(nli.hall_prob), 6),
        "nli_contradiction": round(float(nli.contradiction), 6),
        "sentence_hall_logit": round(_logit(sentence.hall_prob), 6),
        "sentence_contradiction": round(float(sentence.contradiction), 6),
        "grounding_score": round(float(grounding.score) if grounding is not None else 0.0, 6),
        "grounding_absent": float(status == "absent"),
        "grounding_grounded": float(status == "grounded"),
        "grounding_empty": float(status == "empty"),
        "value_conflict": float(status == "mismatch"),
        "refinement": float(refinement),
    }


@dataclass(frozen=True)
class FusionCalibration:
    """A fitted logistic regression on standardised :data:`FEATURES`.

    ``probability(features) = sigmoid(intercept + sum(coef * (x - mean) / scale))``; a fact is
    not supported when its probability is at least ``threshold``.
    """

    coef: tuple[float, ...]
    intercept: float
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    threshold: float
    features: tuple[str, ...] = FEATURES
    verifier_sha256: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict, compare=False)
    path: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if tuple(self.features) != FEATURES:
            raise CalibrationError(
                f"fusion features {list(self.features)} are not this version's {list(FEATURES)}; "
                "re-run `make calibrate`"
            )
        for name, values in (("coef", self.coef), ("mean", self.mean), ("scale", self.scale)):
            if len(values) != len(FEATURES):
                raise CalibrationError(
                    f"fusion {name} has {len(values)} values, expected {len(FEATURES)}"
                )
            if not all(math.isfinite(v) for v in values):
                raise CalibrationError(f"fusion {name} holds a value that is not finite")
        if any(s <= 0 for s in self.scale):
            raise CalibrationError("fusion scale values must be > 0")
        if not 0.0 <= self.threshold <= 1.0:
            raise CalibrationError(f"fusion threshold must be in [0, 1], got {self.threshold}")

    def probability(self, features: Mapping[str, float]) -> float:
        missing = [name for name in FEATURES if name not in features]
        if missing:
            raise KeyError(f"fusion features missing: {missing}")
        z = self.intercept + sum(
            c * (float(features[name]) - m) / s
            for c, name, m, s in zip(self.coef, FEATURES, self.mean, self.scale, strict=True)
        )
        return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))

    def to_dict(self) -> dict[str, Any]:
        return {
            "format_version": FORMAT_VERSION,
            "kind": "logistic_regression",
            "features": list(self.features),
            "coef": [round(c, 8) for c in self.coef],
            "intercept": round(self.intercept, 8),
            "mean": [round(m, 8) for m in self.mean],
            "scale": [round(s, 8) for s in self.scale],
            "threshold": round(self.threshold, 6),
            "verifier_sha256": self.verifier_sha256,
            "metadata": self.metadata,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], *, path: str | None = None) -> FusionCalibration:
        where = path or "fusion file"
        if not isinstance(d, Mapping):
            raise CalibrationError(
                f"{where}: not a fusion file (a JSON object), got {type(d).__name__}; re-run "
                "`make calibrate`"
            )
        if d.get("format_version") != FORMAT_VERSION:
            raise CalibrationError(
                f"{where}: format_version {d.get('format_version')!r}, this enoki-hd reads "
                f"{FORMAT_VERSION}; re-run `make calibrate`"
            )

        def field_value(name: str) -> Any:
            if name not in d:
                raise CalibrationError(f"{where}: missing field {name!r}")
            return d[name]

        def is_number(value: Any) -> bool:
            return isinstance(value, (int, float)) and not isinstance(value, bool)

        def number(name: str) -> float:
            value = field_value(name)
            if not is_number(value):
                raise CalibrationError(
                    f"{where}: field {name!r} must be a number, got {value!r}; re-run "
                    "`make calibrate`"
                )
            return float(value)

        def numbers(name: str) -> tuple[float, ...]:
            value = field_value(name)
            if not isinstance(value, list) or not all(is_number(v) for v in value):
                raise CalibrationError(
                    f"{where}: field {name!r} must be a list of {len(FEATURES)} numbers, got "
                    f"{value!r}; re-run `make calibrate`"
                )
            return tuple(float(v) for v in value)

        features = field_value("features")
        if not isinstance(features, list):
            raise CalibrationError(
                f"{where}: field 'features' must be a list of feature names, got {features!r}; "
                "re-run `make calibrate`"
            )
        sha256 = d.get("verifier_sha256")
        if sha256 is not None and not isinstance(sha256, str):
            raise CalibrationError(
                f"{where}: field 'verifier_sha256' must be a string or null, got {sha256!r}"
            )
        metadata = d.get("metadata") or {}
        if not isinstance(metadata, Mapping):
            raise CalibrationError(
                f"{where}: field 'metadata' must be an object, got {type(metadata).__name__}"
            )
        values: dict[str, Any] = {
            "coef": numbers("coef"),
            "intercept": number("intercept"),
            "mean": numbers("mean"),
            "scale": numbers("scale"),
            "threshold": number("threshold"),
        }
        try:
            return cls(
                **values,
                features=tuple(features),
                verifier_sha256=sha256,
                metadata=dict(metadata),
                path=path,
            )
        except CalibrationError as err:  # the checks of __post_init__ do not know the file
            raise CalibrationError(f"{where}: {err}") from None

    def save(self, path: str | Path) -> Path:
        from enoki_hd.eval.files import atomic_write

        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, json.dumps(self.to_dict(), indent=2, sort_keys=True) + "\n")
        return path

    @classmethod
    def load(cls, path: str | Path, *, verifier_sha256: str | None = None) -> FusionCalibration:
        """Read a fusion file; with ``verifier_sha256``, refuse one fitted for another model.

        Raises:
            FileNotFoundError: no file at ``path``.
            CalibrationError: unreadable, another format version, or another verifier.
        """
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(
                f"no fusion calibration at {path}; run `make calibrate` or use verification=hybrid"
            )
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
            raise CalibrationError(f"{path}: not a readable fusion JSON file ({err})") from None
        calibration = cls.from_dict(data, path=str(path))
        if (
            verifier_sha256 is not None
            and calibration.verifier_sha256 is not None
            and calibration.verifier_sha256 != verifier_sha256
        ):
            raise CalibrationError(
                f"{path} was fitted for the verifier with model sha256 "
                f"{calibration.verifier_sha256}, not {verifier_sha256}; run `make calibrate` "
                "for this verifier"
            )
        return calibration

    @property
    def sha256(self) -> str:
        """sha256 of the canonical JSON of the fitted values (not of the file's bytes)."""
        canonical = json.dumps(self.to_dict(), sort_keys=True).encode("utf-8")
        return hashlib.sha256(canonical).hexdigest()

    def config(self) -> dict[str, Any]:
        return {"path": self.path, "sha256": self.sha256, "threshold": self.threshold}
