"""Verification: NLI verifiers (torch / ONNX) and their loading, evidence selection over the
context, long hypotheses judged in pieces, lexical grounding, and the fact judgement that fuses
them into verdicts."""

from __future__ import annotations

from enoki_hd.verify.evidence import (
    EvidenceDecision,
    EvidenceIndex,
    EvidenceSelector,
    MeanPoolingEmbedder,
    OnnxMeanPoolingEmbedder,
    aggregate,
    default_embedder,
    export_embedder_onnx,
    minilm_embedder,
    minilm_onnx_embedder,
    segment_context,
    split_to_budget,
)
from enoki_hd.verify.hypothesis import split_hypothesis, verify_hypotheses
from enoki_hd.verify.judge import FactJudge, VerificationMode, fuse
from enoki_hd.verify.loading import (
    default_verifier_path,
    load_default_verifier,
    load_verifier_from_config,
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
    "FactJudge",
    "MeanPoolingEmbedder",
    "NLICrossEncoder",
    "NLILabelMap",
    "OnnxMeanPoolingEmbedder",
    "VerificationMode",
    "Verifier",
    "VerifierError",
    "aggregate",
    "default_embedder",
    "default_verifier_path",
    "export_embedder_onnx",
    "fuse",
    "load_default_verifier",
    "load_verifier",
    "load_verifier_from_config",
    "minilm_embedder",
    "minilm_onnx_embedder",
    "segment_context",
    "split_hypothesis",
    "split_to_budget",
    "verify_hypotheses",
]
