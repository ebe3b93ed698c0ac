"""The methods the runner evaluates: the configured detector, its sentence-level twin
(``sentence_nli``) and the baselines of :mod:`enoki_hd.eval.baselines`, all behind one
:class:`Method` protocol that returns prediction records."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from enoki_hd.eval.baselines import BASELINES, make_prediction, sentence_row
from enoki_hd.export.onnx import sha256_file
from enoki_hd.project import blamed_spans
from enoki_hd.types import Report, Span

DEFAULT_METHODS = (
    "detector",
    "sentence_nli",
    "lexical_absent",
    "lexical_phrases",
    "mark_all",
    "mark_none",
)
# Every name the config's ``methods`` accepts.
METHOD_NAMES = ("detector", "sentence_nli", *BASELINES)


class Method(Protocol):
    """Anything the runner can evaluate."""

    name: str
    uses_verifier: bool

    def config(self) -> dict[str, Any]: ...

    def predict(
        self, *, answer: str, context: str, question: str | None = None
    ) -> dict[str, Any]: ...


def prediction_from_report(report: Report) -> dict[str, Any]:
    """The prediction record (:func:`~enoki_hd.eval.baselines.make_prediction`) of a report.

    Spans are ``report.spans`` when the detector works below sentence level
    (``report.config["level"] != "sentence"``); a sentence-level report has no spans of its
    own, so its spans are the sentences whose label is not ``supported``, scored with the
    sentence score (one span per sentence, not merged).
    """
    answer = report.answer
    level = str(report.config.get("level", "sentence"))
    sentences = [
        sentence_row(
            s.index,
            s.span,
            s.score,
            s.label,
            Span(s.evidence.start, s.evidence.end) if s.evidence else None,
        )
        for s in report.sentences
    ]
    facts = [
        {
            "id": v.fact.id,
            "sentence": v.fact.sentence,
            "subject": v.fact.subject,
            "relation": v.fact.relation,
            "object": v.fact.object,
            "parent": v.fact.parent,
            "delta": [[s.start, s.end] for s in v.fact.delta],
            "label": v.label,
            "hall_prob": round(v.hall_prob, 6),
            "score": round(float(v.score if v.score is not None else v.hall_prob), 6),
            "suppressed": v.suppressed,
            "decided_by": v.decided_by,
            # the characters this fact is blamed for when unsupported
            "spans": [[s.start, s.end] for s in blamed_spans(v.fact)],
            **({} if v.features is None else {"features": v.features}),
            **({} if v.escalation is None else {"escalation": v.escalation}),
        }
        for v in report.facts
    ]
    if level == "sentence":
        spans = [
            (s.span, s.score)
            for s in report.sentences
            if s.label not in ("supported", "not_a_claim")
        ]
    else:
        spans = [(Span(s.start, s.end), s.score) for s in report.spans]
    return make_prediction(
        answer,
        level=level,
        spans=spans,
        sentences=sentences,
        facts=facts,
        status=report.summary.status,
    )


class DetectorMethod:
    """A :class:`~enoki_hd.detector.Detector` as an evaluated method.

    ``model_id`` names the verifier in cache keys: the sha256 of its ``manifest.json`` when
    the checkpoint has one, so that the cache does not depend on where the model lies.
    """

    uses_verifier = True

    def __init__(self, name: str, detector: Any, model_id: str) -> None:
        self.name = name
        self.detector = detector
        self.model_id = model_id

    def config(self) -> dict[str, Any]:
        """Every setting of the detector (:meth:`~enoki_hd.detector.Detector.config`), with
        the verifier's location replaced by ``model_id`` so that cache keys do not depend on
        where the model lies (its other settings — backend, max_length, the graph's sha256 —
        stay)."""
        out = self.detector.config()
        verifier = {k: v for k, v in dict(out.get("verifier") or {}).items() if k != "path"}
        out["verifier"] = {**verifier, "id": self.model_id}
        return out

    def predict(self, *, answer: str, context: str, question: str | None = None) -> dict[str, Any]:
        report = self.detector.detect(answer=answer, context=context, question=question)
        return prediction_from_report(report)


def _detector_config(cfg: Mapping[str, Any]) -> dict[str, Any]:
    """The ``Detector.from_config`` mapping of an eval config."""
    verifier = dict(cfg.get("verifier") or {})
    detector = dict(cfg.get("detector") or {})
    return {
        "verifier": {k: v for k, v in verifier.items() if k not in ("name", "evidence")},
        "evidence": dict(verifier.get("evidence") or {}),
        "extractor": dict(cfg.get("extractor") or {}),
        **detector,
    }


def sentence_level_twin(detector: Any) -> Any:
    """A sentence-level :class:`~enoki_hd.detector.Detector` sharing ``detector``'s verifier,
    evidence selection, segmentation, threshold and every switch that acts on whole sentences
    — claim selection, the masking of citations and frames, quoted support — (the
    ``sentence_nli`` baseline: the same detector without facts, whatever its options)."""
    from enoki_hd.detector import Detector

    return Detector(
        detector.verifier,
        extractor=None,
        selector=detector.selector,
        sentence_backend=detector.sentence_backend,
        context_backend=detector.context_backend,
        threshold=detector.threshold,
        language_check=detector.language_check,
        selection=detector.selector_llm or detector.selection,
        mask_citations=detector.mask_citations,
        mask_frames=detector.mask_frames,
        quoted_support=detector.quoted_support,
    )


def describe_model(verifier: Any) -> tuple[str, dict[str, Any]]:
    """``(model_id, record)`` of a verifier. A verifier loaded from a local checkpoint is
    named by its directory; its id is ``sha256:<sha of manifest.json>`` (else of
    ``model.onnx``), so cache keys do not depend on where the model lies. Any other verifier's
    id is its name. The record holds the name, path, id and the manifest itself."""
    name = str(getattr(verifier, "name", type(verifier).__name__))
    directory = Path(name) if Path(name).is_dir() else None
    record: dict[str, Any] = {"name": name, "path": str(directory) if directory else None}
    model_id = name
    if directory is not None:
        manifest = directory / "manifest.json"
        graph = directory / "model.onnx"
        if manifest.is_file():
            model_id = f"sha256:{sha256_file(manifest)}"
            record["manifest"] = json.loads(manifest.read_text(encoding="utf-8"))
        elif graph.is_file():
            model_id = f"sha256:{sha256_file(graph)}"
    record["id"] = model_id
    return model_id, record


def build_methods(
    names: Sequence[str], cfg: Mapping[str, Any], detector: Any | None = None
) -> tuple[list[Method], dict[str, Any]]:
    """The methods named in ``names`` and the records of the models they use.

    ``detector`` replaces the configured one (tests inject a fake verifier this way);
    ``sentence_nli`` always shares the detector's verifier.
    """
    unknown = [n for n in names if n not in METHOD_NAMES]
    if unknown:
        known = ", ".join(METHOD_NAMES)
        raise ValueError(f"unknown method(s) {', '.join(unknown)}; known: {known}")
    if len(set(names)) != len(names):
        raise ValueError(f"methods must be distinct, got {list(names)}")
    detector_cfg = _detector_config(cfg)
    sentence_backend = detector_cfg.get("sentence_backend", "spacy")
    models: dict[str, Any] = {}
    methods: list[Method] = []
    needs_verifier = any(n in ("detector", "sentence_nli") for n in names)
    model_id = ""
    if needs_verifier:
        if detector is None:
            from enoki_hd.detector import Detector

            detector = Detector.from_config(detector_cfg)
        model_id, record = describe_model(detector.verifier)
        models["verifier"] = record
        sentence_backend = detector.sentence_backend
    for name in names:
        if name == "detector":
            methods.append(DetectorMethod(name, detector, model_id))
        elif name == "sentence_nli":
            methods.append(DetectorMethod(name, sentence_level_twin(detector), model_id))
        else:
            methods.append(BASELINES[name](sentence_backend=sentence_backend))
    return methods, models
