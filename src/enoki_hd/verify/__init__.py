"""Verification: NLI verifiers (torch / ONNX) and evidence selection over the context."""

from __future__ import annotations

from enoki_hd.verify.evidence import (
    EvidenceDecision,
    EvidenceIndex,
    EvidenceSelector,
    MeanPoolingEmbedder,
    aggregate,
    minilm_embedder,
    segment_context,
    split_to_budget,
)
from enoki_hd.verify.nli import (
    NLICrossEncoder,
    NLILabelMap,
    Verifier,
    VerifierError,
    load_verifier,
)

__all__ = [
    "EvidenceDecision",
    "EvidenceIndex",
    "EvidenceSelector",
    "MeanPoolingEmbedder",
    "NLICrossEncoder",
    "NLILabelMap",
    "Verifier",
    "VerifierError",
    "aggregate",
    "load_verifier",
    "minilm_embedder",
    "segment_context",
    "split_to_budget",
]
