"""Deterministic stand-ins for model components, so tests can assert exact behaviour."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import pytest

from enoki_hd.eval.files import atomic_write
from enoki_hd.types import NLIScores

STOP = {"a", "an", "the", "is", "are", "was", "were", "in", "of", "and", "to", "by", "it", "its"}
_WORD = re.compile(r"\w+")


def content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in STOP}


class LexicalVerifier:
    """Entailment when every content word of the hypothesis is in the premise; contradiction
    when they all are but exactly one side says "not"; neutral otherwise."""

    name = "lexical-fake"
    max_length = 128

    def __init__(self) -> None:
        self.calls: list[list[tuple[str, str]]] = []

    def count_tokens(self, text: str) -> int:
        return len(_WORD.findall(text)) + text.count(".")

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[NLIScores]:
        self.calls.append(list(pairs))
        out = []
        for premise, hypothesis in pairs:
            p, h = content_words(premise), content_words(hypothesis)
            if (h - {"not"}) <= p and (("not" in h) != ("not" in p)):
                out.append(NLIScores(0.05, 0.15, 0.8))
            elif h <= p:
                out.append(NLIScores(0.9, 0.05, 0.05))
            else:
                out.append(NLIScores(0.1, 0.8, 0.1))
        return out


class FailingVerifier(LexicalVerifier):
    name = "failing-fake"

    def predict(self, pairs):
        from enoki_hd.verify.nli import VerifierError

        raise VerifierError("model output has NaN")


class ConstantVerifier(LexicalVerifier):
    """The same scores for every pair."""

    name = "constant-fake"

    def __init__(self, scores: NLIScores) -> None:
        super().__init__()
        self.scores = scores

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[NLIScores]:
        self.calls.append(list(pairs))
        return [self.scores for _ in pairs]


def record_atomic_writes(monkeypatch: pytest.MonkeyPatch, module: ModuleType) -> list[str]:
    """The names of the files ``module`` writes through its ``atomic_write`` (temporary file +
    rename), in order; the writes still happen."""

    written: list[str] = []

    def recording(path: Path, data: str | bytes) -> None:
        written.append(Path(path).name)
        atomic_write(path, data)

    monkeypatch.setattr(module, "atomic_write", recording)
    return written
