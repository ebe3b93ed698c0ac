"""Factcheck-Bench (Factcheck-GPT): one example per sentence or per claim."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from enoki_hd.eval.datasets.rows import (
    Row,
    context_or_missing,
    locate_in_order,
    parse_bool,
    read_jsonl,
)
from enoki_hd.eval.datasets.schema import (
    Benchmark,
    ClaimGold,
    EvalExample,
    PathLike,
    SentenceGold,
)
from enoki_hd.text import anchor
from enoki_hd.types import Span


def _join_evidence(passages: Sequence[str]) -> str:
    """Passages joined by blank lines, exact repeats removed (first occurrence kept)."""
    return "\n\n".join(dict.fromkeys(p.strip() for p in passages if p.strip()))


@dataclass
class _FactcheckClaim:
    text: str
    label: bool | None  # None: the set says it cannot be judged ('unknown', 'NA')
    raw_label: str
    evidence: list[str]


def _factcheck_claims(row: Row, key: str, sentence: Mapping[str, Any]) -> list[_FactcheckClaim]:
    name = f"sentences.{key}"

    def column(column_name: str) -> list[Any]:
        value = sentence.get(column_name, [])
        if not isinstance(value, list):
            raise row.error(f"{name}.{column_name}", "must be a list")
        return value

    claims = column("claims")
    labels = column("claims_factuality_label")
    human = column("human_evidence")
    auto = column("auto_evidence")
    for column_name, values in (
        ("claims_factuality_label", labels),
        ("human_evidence", human),
        ("auto_evidence", auto),
    ):
        if len(values) != len(claims):
            raise row.error(
                f"{name}.{column_name}",
                f"must have one entry per claim ({len(claims)}), got {len(values)}",
            )
    result: list[_FactcheckClaim] = []
    for index, (text, label, human_ev, auto_ev) in enumerate(
        zip(claims, labels, human, auto, strict=True)
    ):
        if not isinstance(text, str):
            raise row.error(f"{name}.claims", f"item {index} must be a string")
        if not isinstance(human_ev, str):
            raise row.error(f"{name}.human_evidence", f"item {index} must be a string")
        if not isinstance(auto_ev, list) or not all(isinstance(p, str) for p in auto_ev):
            raise row.error(f"{name}.auto_evidence", f"item {index} must be a list of strings")
        parsed = parse_bool(label)
        if parsed is None and not (label is None or str(label).lower() in ("unknown", "na")):
            raise row.error(
                f"{name}.claims_factuality_label",
                f"item {index} must be true, false, 'unknown' or 'NA', got {label!r}",
            )
        evidence = ([] if human_ev.strip().upper() in ("", "NA") else [human_ev]) + auto_ev
        result.append(_FactcheckClaim(text, parsed, str(label), evidence))
    return result


def load_factcheck(
    path: PathLike,
    level: Literal["sentence", "claim"] = "sentence",
    *,
    name: str | None = None,
) -> Benchmark:
    """Factcheck-Bench (Factcheck-GPT) responses, one example per sentence or per claim.

    Each unit is its own example because Factcheck-Bench's evidence is per claim: the runner
    calls the detector with ``answer`` = the unit and ``context`` = that unit's evidence, and
    the verdict for the whole ``answer`` is the unit's verdict.

    - ``level="sentence"``: ``answer`` = the decontextualised sentence (``decontext``, else
      ``text``); ``context`` = the human evidence (when not ``NA``) and the automatically
      retrieved passages of all its claims, repeats removed, joined by blank lines;
      ``sentence_labels`` = one label spanning the whole answer, hallucinated =
      ``not sentence_factuality_label``. Sentences labelled ``NA`` / None are counted in
      ``dropped["label_na"]``. ``metadata`` has the response, the original sentence text and
      its span in the response (``sentence_span``, None if not located).
    - ``level="claim"``: ``answer`` = the claim, ``context`` = its own evidence,
      ``claim_labels`` = one label with the raw value (``True`` / ``False``). Claims labelled
      ``unknown`` / ``NA`` are counted in ``dropped["label_unknown"]``.

    ``question`` is the user prompt; ids are ``{row}/{sentenceN}`` (``/{claim}``), row
    0-based.

    At both levels the benchmark's ``checkworthiness`` lists every sentence
    (``sentence_checkworthiness``: ``yes`` is a claim; ``opinion``, ``other``,
    ``not_a_claim`` are not) and every claim (``claim_checkworthiness``: ``factual`` is a
    claim), those without a factuality label included.
    """
    if level not in ("sentence", "claim"):
        raise ValueError(f"level must be 'sentence' or 'claim', got {level!r}")
    path = Path(path)
    examples: list[EvalExample] = []
    units: list[dict[str, Any]] = []
    dropped: Counter[str] = Counter()
    flagged: Counter[str] = Counter()
    for row_index, row in enumerate(read_jsonl(path)):
        prompt = row.optional_text("prompt")
        response = row.text("response")
        sentences = row.mapping("sentences")
        for key, sentence in sentences.items():
            if not isinstance(sentence, Mapping):
                raise row.error(f"sentences.{key}", "must be an object")
            if not isinstance(sentence.get("text"), str):
                raise row.error(f"sentences.{key}.text", "must be a string")
            if not isinstance(sentence.get("decontext") or "", str):
                raise row.error(f"sentences.{key}.decontext", "must be a string")
        # Sentences follow the response, so locating them in order places a repeated one.
        in_order = locate_in_order(response, [s["text"] for s in sentences.values()])
        for (key, sentence), ordered_span in zip(sentences.items(), in_order, strict=True):
            text = sentence["text"]
            decontext = sentence.get("decontext") or text
            claims = _factcheck_claims(row, key, sentence)
            units += _checkworthiness(row, f"{row_index}/{key}", key, sentence, decontext)
            base_metadata: dict[str, Any] = {
                "response": response,
                "sentence_key": key,
                "sentence_text": text,
            }
            if level == "claim":
                for claim_index, claim in enumerate(claims):
                    if claim.label is None:
                        dropped["label_unknown"] += 1
                        continue
                    hallucinated = not claim.label
                    metadata = {**base_metadata, "claim_index": claim_index}
                    examples.append(
                        EvalExample(
                            id=f"{row_index}/{key}/{claim_index}",
                            question=prompt,
                            context=context_or_missing(
                                _join_evidence(claim.evidence), metadata, flagged
                            ),
                            answer=claim.text,
                            claim_labels=[ClaimGold(claim.text, hallucinated, claim.raw_label)],
                            example_label=hallucinated,
                            metadata=metadata,
                        )
                    )
                continue
            raw_label = sentence.get("sentence_factuality_label")
            label = parse_bool(raw_label)
            if label is None:
                if raw_label is None or str(raw_label).upper() == "NA":
                    dropped["label_na"] += 1
                    continue
                raise row.error(
                    f"sentences.{key}.sentence_factuality_label",
                    f"must be true, false or 'NA', got {raw_label!r}",
                )
            hallucinated = not label
            located = ordered_span or anchor(response, text)
            if located is None:
                flagged["sentence_not_located"] += 1
            metadata = {
                **base_metadata,
                "sentence_span": located.to_dict() if located else None,
            }
            context = _join_evidence([e for claim in claims for e in claim.evidence])
            examples.append(
                EvalExample(
                    id=f"{row_index}/{key}",
                    question=prompt,
                    context=context_or_missing(context, metadata, flagged),
                    answer=decontext,
                    sentence_labels=[
                        SentenceGold(Span(0, len(decontext)), decontext, hallucinated)
                    ],
                    example_label=hallucinated,
                    metadata=metadata,
                )
            )
    default_name = "factcheck" if level == "sentence" else "factcheck_claims"
    return Benchmark(
        name or default_name,
        level,
        examples,
        dropped=dict(dropped),
        flagged=dict(flagged),
        source=str(path),
        checkworthiness=units,
    )


def _checkworthiness(
    row: Row, unit_id: str, key: str, sentence: Mapping[str, Any], text: str
) -> list[dict[str, Any]]:
    """The sentence's and its claims' check-worthiness gold (see :func:`load_factcheck`)."""
    label = sentence.get("sentence_checkworthiness")
    units = []
    if label is not None:
        units.append(
            {
                "id": unit_id,
                "level": "sentence",
                "text": text,
                "label": str(label),
                "not_a_claim": str(label).lower() != "yes",
            }
        )
    claims = sentence.get("claims") or []
    labels = sentence.get("claim_checkworthiness")
    if labels is None:
        return units
    field = f"sentences.{key}.claim_checkworthiness"
    if not isinstance(labels, list):
        raise row.error(
            field,
            f"must be a list with one entry per claim ({len(claims)}), got {type(labels).__name__}",
        )
    if len(labels) != len(claims):
        raise row.error(field, f"must have one entry per claim ({len(claims)}), got {len(labels)}")
    for index, (claim, claim_label) in enumerate(zip(claims, labels, strict=True)):
        units.append(
            {
                "id": f"{unit_id}/{index}",
                "level": "claim",
                "text": str(claim),
                "label": str(claim_label),
                "not_a_claim": str(claim_label).lower() != "factual",
            }
        )
    return units
