"""WiCE: claim-level 3-way labels against the whole cited page or the oracle chunks."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from enoki_hd.eval.datasets.rows import (
    Row,
    check_unique,
    context_or_missing,
    is_int,
    read_jsonl,
)
from enoki_hd.eval.datasets.schema import Benchmark, ClaimGold, EvalExample, PathLike
from enoki_hd.types import Span

_WICE_LABELS = ("supported", "partially_supported", "not_supported")


def _wice_label(row: Row) -> str:
    label = row.text("label")
    if label not in _WICE_LABELS:
        raise row.error("label", f"must be one of {', '.join(_WICE_LABELS)}")
    return label


def _wice_evidence(row: Row) -> list[str]:
    evidence = row.items("evidence")
    if not all(isinstance(s, str) for s in evidence):
        raise row.error("evidence", "must be a list of strings")
    return evidence


def _sentence_offsets(sentences: Sequence[str], separator: str = "\n") -> list[Span]:
    """Offsets of each sentence in ``separator.join(sentences)``."""
    spans: list[Span] = []
    pos = 0
    for sentence in sentences:
        spans.append(Span(pos, pos + len(sentence)))
        pos += len(sentence) + len(separator)
    return spans


def _wice_example(
    example_id: str,
    claim: str,
    label: str,
    sentences: list[str],
    supporting: list[list[int]],
    positions: Mapping[int, int],
    meta: Mapping[str, Any],
    flagged: Counter,
    extra: dict[str, Any],
) -> EvalExample:
    """One WiCE claim; ``positions`` maps a document sentence index to its place in
    ``sentences`` (the identity for the full document)."""
    offsets = _sentence_offsets(sentences)
    metadata: dict[str, Any] = {
        "supporting_sentences": supporting,
        "supporting_spans": [
            [offsets[positions[i]].to_dict() for i in group if i in positions]
            for group in supporting
        ],
        **{k: meta[k] for k in ("claim_title", "claim_section", "claim_context") if k in meta},
        **extra,
    }
    hallucinated = label != "supported"
    return EvalExample(
        id=example_id,
        question=None,
        context=context_or_missing("\n".join(sentences), metadata, flagged),
        answer=claim,
        claim_labels=[ClaimGold(claim, hallucinated, label)],
        example_label=hallucinated,
        metadata=metadata,
    )


def _has_chunk_idx(row: Row) -> bool:
    meta = row.data.get("meta")
    return isinstance(meta, Mapping) and "chunk_idx" in meta


def load_wice(path: PathLike, *, name: str | None = None) -> Benchmark:
    """WiCE claims (claim-level), from ``claims_*.jsonl`` or ``oracle_chunks_*.jsonl``.

    ``answer`` = the claim; ``claim_labels`` = one label with the raw value (supported /
    partially_supported / not_supported), hallucinated = label != supported; the context is
    evidence sentences joined by newlines. ``metadata["supporting_sentences"]`` holds the
    alternative sets of supporting sentence indices (into the cited document) and
    ``metadata["supporting_spans"]`` the same sentences as ``{start, end}`` offsets into the
    context.

    The file kind is recognised from its rows:

    - full document (rows have ``supporting_sentences``): one example per row, context = the
      whole cited page (``evidence``);
    - oracle chunks (``meta.chunk_idx``; several chunk rows per claim): the rows of one
      claim ``meta.id`` are merged into one example — so both files give the same claims —
      whose context is the union of the chunks' sentences in document order;
      ``supporting_sentences`` are the distinct ``meta.oracle_idx`` sets. All chunks of a
      claim must agree on claim and label.
    """
    path = Path(path)
    rows = list(read_jsonl(path))
    # a row with neither key is read as a full-document row, whose error names the
    # supporting_sentences it lacks
    oracle = bool(rows) and "supporting_sentences" not in rows[0].data and _has_chunk_idx(rows[0])
    examples: list[EvalExample] = []
    flagged: Counter[str] = Counter()
    if not oracle:
        seen: dict[str, tuple[Path, int]] = {}
        for row in rows:
            meta = row.mapping("meta")
            example_id = _wice_meta_id(row, meta)
            check_unique(row, "meta.id", example_id, seen)
            claim, label, evidence = row.text("claim"), _wice_label(row), _wice_evidence(row)
            supporting = _wice_index_sets(
                row, "supporting_sentences", row.value("supporting_sentences"), len(evidence)
            )
            examples.append(
                _wice_example(
                    example_id,
                    claim,
                    label,
                    evidence,
                    supporting,
                    {i: i for i in range(len(evidence))},
                    meta,
                    flagged,
                    {},
                )
            )
        return Benchmark(name or "wice", "claim", examples, flagged=dict(flagged), source=str(path))

    groups: dict[str, list[Row]] = {}
    for row in rows:
        groups.setdefault(_wice_meta_id(row, row.mapping("meta")), []).append(row)
    for example_id, chunk_rows in groups.items():
        first = chunk_rows[0]
        claim, label = first.text("claim"), _wice_label(first)
        sentences: dict[int, str] = {}
        origin: dict[int, int] = {}
        chunks: list[list[int]] = []
        supporting = []
        for row in chunk_rows:
            if row.text("claim") != claim:
                raise row.error(
                    "claim", f"differs from the claim on line {first.line} for the same meta.id"
                )
            if _wice_label(row) != label:
                raise row.error(
                    "label", f"differs from the label on line {first.line} for the same meta.id"
                )
            meta = row.mapping("meta")
            evidence = _wice_evidence(row)
            chunk_idx = meta.get("chunk_idx")
            if (
                not isinstance(chunk_idx, list)
                or len(chunk_idx) != len(evidence)
                or not all(is_int(i) and i >= 0 for i in chunk_idx)
            ):
                raise row.error(
                    "meta.chunk_idx", "must list one sentence index per evidence sentence"
                )
            for i, sentence in zip(chunk_idx, evidence, strict=True):
                if sentences.setdefault(i, sentence) != sentence:
                    raise row.error(
                        "evidence", f"gives another text for sentence {i} than line {origin[i]}"
                    )
                origin.setdefault(i, row.line)
            chunks.append(list(chunk_idx))
            if meta.get("oracle_idx") is not None:
                group = _wice_index_sets(row, "meta.oracle_idx", [meta["oracle_idx"]], None)[0]
                if group not in supporting:
                    supporting.append(group)
        order = sorted(sentences)
        examples.append(
            _wice_example(
                example_id,
                claim,
                label,
                [sentences[i] for i in order],
                supporting,
                {doc_index: k for k, doc_index in enumerate(order)},
                first.mapping("meta"),
                flagged,
                {"chunk_idx": chunks},
            )
        )
    return Benchmark(
        name or "wice_oracle", "claim", examples, flagged=dict(flagged), source=str(path)
    )


def _wice_meta_id(row: Row, meta: Mapping[str, Any]) -> str:
    value = meta.get("id")
    if not isinstance(value, str) or not value:
        raise row.error("meta.id", "must be a non-empty string")
    return value


def _wice_index_sets(row: Row, name: str, value: Any, n_sentences: int | None) -> list[list[int]]:
    """A list of lists of sentence indices (each below ``n_sentences`` when given)."""
    problem = "must be a list of lists of sentence indices" + (
        f" below {n_sentences}" if n_sentences is not None else ""
    )
    if not isinstance(value, list):
        raise row.error(name, problem)
    groups: list[list[int]] = []
    for group in value:
        if not isinstance(group, list) or not all(
            is_int(i) and i >= 0 and (n_sentences is None or i < n_sentences) for i in group
        ):
            raise row.error(name, problem)
        groups.append(list(group))
    return groups
