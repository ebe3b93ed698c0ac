"""Export the IGL tagger to ONNX (fixed depth, dynamic batch and length, int8) and ship it.

:func:`export_tagger` traces :meth:`IGLTagger.predict_with_scores
<enoki_hd.igl.model.IGLTagger.predict_with_scores>` with its depth loop unrolled to ``depth``:
inputs ``input_ids`` / ``attention_mask`` (batch, tokens) int64, ``word_index`` (batch, words)
int64, ``word_mask`` (batch, words) bool; outputs ``labels`` (batch, depth, words) int64 and
``probs`` (batch, depth, words) float, the probability of each chosen label. Batch, tokens and
words are dynamic axes.

The int8 recipe is checked by label agreement, as for the verifier: torch, the float graph and
the int8 graph label the parity sentences (encoded as :class:`~enoki_hd.extract.encoder.
EncoderExtractor` encodes them); when int8 agrees with torch on fewer than
``min_label_agreement`` of the word labels, the layers named by the next entry of
:data:`KEEP_FLOAT_LADDER` stay float and it is tried again; when no entry is enough, the float
graph is shipped. Every attempt is written to the manifest.

The shipped directory (:func:`enoki_hd.export.onnx.ship_model`) holds ``model.onnx``, the
tokenizer files, ``config.json`` and ``manifest.json`` (data, config, metrics, parity, the
sha256 of every file and the ``inference`` block every loading of the checkpoint runs with).
"""

from __future__ import annotations

import logging
import platform
import tempfile
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from enoki_hd.export.onnx import (
    attends_globally,
    git_commit,
    quantize_int8,
    ship_model,
    strip_nan_guards_file,
    transformers_progress_off,
)
from enoki_hd.extract.encoder import (
    MODEL_INPUTS,
    MODEL_OUTPUTS,
    TAGGER_KIND,
    WordTokenizer,
    pad_windows,
)
from enoki_hd.igl.data import EncodedWindow, encode_example
from enoki_hd.igl.labels import LABELS, SENTINELS, GridExample
from enoki_hd.text import tokenize_words

logger = logging.getLogger(__name__)

__all__ = ["KEEP_FLOAT_LADDER", "export_tagger", "export_tagger_onnx", "label_parity"]

# MatMul name patterns kept float (float16 storage, float32 compute), tried in turn while int8
# breaks label or row agreement: the classifier, then the re-applied layers as well (every depth
# runs them), then the verifier's recipe (attention-output and FFN projections float too), then
# every MatMul (only the token embeddings stay int8, one scale per row).
KEEP_FLOAT_LADDER: tuple[tuple[str, ...], ...] = (
    (),
    ("classifier",),
    ("classifier", "iterative_layers"),
    ("classifier", "iterative_layers", "output/dense", "intermediate/dense"),
    ("MatMul",),
)
_BATCH = 32


def _predict_module(model: Any, depth: int) -> Any:
    """A ``torch.nn.Module`` whose forward is ``model.predict_with_scores`` at ``depth``."""
    import torch

    class PredictWithScores(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask, word_index, word_mask):
            return self.model.predict_with_scores(
                input_ids, attention_mask, word_index, word_mask, depth=depth
            )

    return PredictWithScores().eval()


def export_tagger_onnx(
    model: Any, sample: dict[str, np.ndarray], onnx_path: str | Path, *, depth: int, opset: int = 17
) -> Path:
    """Trace ``model.predict_with_scores`` at ``depth`` on ``sample`` (a padded batch, as
    :func:`~enoki_hd.extract.encoder.pad_windows` builds) into ``onnx_path``; the exporter's
    NaN guards are removed when the backbone attends globally
    (:func:`~enoki_hd.export.onnx.strip_nan_guards`)."""
    import os

    import torch

    onnx_path = Path(onnx_path)
    onnx_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = onnx_path.with_name(onnx_path.name + ".tmp")
    inputs = tuple(torch.from_numpy(sample[name]) for name in MODEL_INPUTS)
    tokens = {0: "batch", 1: "tokens"}
    words = {0: "batch", 1: "words"}
    dynamic = {
        "input_ids": tokens,
        "attention_mask": tokens,
        "word_index": words,
        "word_mask": words,
        "labels": {0: "batch", 2: "words"},
        "probs": {0: "batch", 2: "words"},
    }
    # The tracer warns about Python control flow that is constant for a fixed depth.
    with torch.inference_mode(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            _predict_module(model, depth),
            args=inputs,
            f=str(tmp),
            input_names=list(MODEL_INPUTS),
            output_names=list(MODEL_OUTPUTS),
            dynamic_axes=dynamic,
            opset_version=opset,
            dynamo=False,
        )
    _fold_weight_identities(tmp)
    if attends_globally(model.backbone.config):
        strip_nan_guards_file(tmp)
    os.replace(tmp, onnx_path)
    return onnx_path


def _fold_weight_identities(path: Path) -> None:
    """Point the consumers of ``Identity(initializer)`` nodes at the initializer itself.

    The tracer reaches a weight used more than once (the re-applied layers and the classifier,
    once per depth) through such nodes, and dynamic quantization only quantizes a MatMul whose
    weight is an initializer: without this, every depth after the first would stay float.
    """
    import onnx

    model = onnx.load(str(path))
    initializers = {i.name for i in model.graph.initializer}
    outputs = {o.name for o in model.graph.output}
    alias = {
        n.output[0]: n.input[0]
        for n in model.graph.node
        if n.op_type == "Identity" and n.input[0] in initializers and n.output[0] not in outputs
    }
    if not alias:
        return
    kept = [n for n in model.graph.node if not (n.op_type == "Identity" and n.output[0] in alias)]
    for node in kept:
        for k, name in enumerate(node.input):
            if name in alias:
                node.input[k] = alias[name]
    del model.graph.node[:]
    model.graph.node.extend(kept)
    onnx.checker.check_model(model)
    onnx.save(model, str(path))


def _encode(
    sentences: Sequence[str | GridExample], tokenizer: WordTokenizer, max_length: int
) -> list[EncodedWindow]:
    windows: list[EncodedWindow] = []
    for sentence in sentences:
        text = sentence.text if isinstance(sentence, GridExample) else sentence
        words = tokenize_words(text)
        if words:
            example = GridExample(text=text, words=words, rows=[], parents=[], source="parity")
            windows.extend(encode_example(example, tokenizer, max_length=max_length))
    return windows


def _batches(windows: list[EncodedWindow]) -> list[dict[str, np.ndarray]]:
    ordered = sorted(windows, key=lambda w: len(w.input_ids))
    return [pad_windows(ordered[i : i + _BATCH]) for i in range(0, len(ordered), _BATCH)]


def _torch_outputs(
    model: Any, batches: list[dict[str, np.ndarray]], depth: int
) -> list[tuple[np.ndarray, np.ndarray]]:
    import torch

    outputs = []
    with torch.inference_mode():
        for batch in batches:
            tensors = {k: torch.from_numpy(v) for k, v in batch.items()}
            labels, probs = model.predict_with_scores(**tensors, depth=depth)
            outputs.append((labels.numpy().astype(np.int64), probs.float().numpy()))
    return outputs


def _onnx_outputs(
    graph: Path, batches: list[dict[str, np.ndarray]]
) -> list[tuple[np.ndarray, np.ndarray]]:
    from enoki_hd.extract.encoder import _OnnxTagger

    session = _OnnxTagger(graph)
    return [session.run(batch) for batch in batches]


def label_parity(
    reference: list[tuple[np.ndarray, np.ndarray]],
    candidate: list[tuple[np.ndarray, np.ndarray]],
    batches: list[dict[str, np.ndarray]],
) -> dict[str, float]:
    """How far ``candidate`` labels agree with ``reference`` over the words of ``batches``:
    ``label_agreement`` (word labels, every depth), ``row_agreement`` (rows identical on all
    their words), ``max_prob_diff`` (of the chosen labels' probabilities where both chose the
    same label), ``n_words`` and ``n_rows``."""
    same_words = total_words = same_rows = total_rows = 0
    prob_diff = 0.0
    for (ref_labels, ref_probs), (cand_labels, cand_probs), batch in zip(
        reference, candidate, batches, strict=True
    ):
        mask = np.broadcast_to(batch["word_mask"][:, None, :], ref_labels.shape)
        equal = ref_labels == cand_labels
        same_words += int((equal & mask).sum())
        total_words += int(mask.sum())
        same_rows += int((equal | ~mask).all(axis=-1).sum())
        total_rows += ref_labels.shape[0] * ref_labels.shape[1]
        both = equal & mask
        if both.any():
            prob_diff = max(prob_diff, float(np.abs(ref_probs - cand_probs)[both].max()))
    return {
        "label_agreement": round(same_words / total_words, 5) if total_words else 1.0,
        "row_agreement": round(same_rows / total_rows, 5) if total_rows else 1.0,
        "max_prob_diff": round(prob_diff, 5),
        "n_words": total_words,
        "n_rows": total_rows,
    }


def export_tagger(
    model_dir: str | Path,
    out_dir: str | Path,
    *,
    depth: int,
    parity_examples: Sequence[str | GridExample],
    opset: int = 17,
    quantize: str | None = "int8",
    max_length: int | None = None,
    int8_options: dict[str, Any] | None = None,
    min_label_agreement: float = 0.99,
    min_row_agreement: float = 0.0,
    metrics: dict[str, Any] | None = None,
    data: dict[str, Any] | None = None,
    config: dict[str, Any] | None = None,
    licence: str = "",
    reproduce: str = "make distill",
    work_dir: str | Path | None = None,
) -> Path:
    """Export the tagger saved in ``model_dir`` and ship it to ``out_dir``.

    Args:
        model_dir: ``IGLTagger.save_pretrained`` output with the tokenizer saved beside it
            (``tokenizer.json`` holding the sentinels).
        out_dir: the shipped checkpoint directory (replaced atomically), e.g.
            ``checkpoints/tagger-minilm``.
        depth: extraction rows the graph is unrolled to (the manifest's ``inference.depth``).
        parity_examples: sentences (or grid examples) on which torch, float ONNX and int8
            ONNX labels are compared.
        quantize: ``"int8"`` (checked by label agreement, see the module docstring) or None.
        max_length: sub-tokens per window at inference (default the position embeddings, at
            most 512); recorded as ``inference.max_length``.
        int8_options: :func:`~enoki_hd.export.onnx.quantize_int8` options (``per_channel``,
            ``keep_float``, ``embeddings``); ladder entries add to ``keep_float``.
        min_label_agreement: the int8 graph's least word-label agreement with torch.
        min_row_agreement: its least share of extraction rows labelled exactly as torch does
            (a fact is a whole row: a few flipped words can still change many facts).
        metrics, data, config: the training metrics, teacher data (sources, sizes, alignment
            coverage) and composed config, written into the manifest; ``metrics`` gains
            ``onnx_parity``, ``quantization_attempts`` and ``onnx_size_mb``.
        licence: the licence line of the manifest (the backbone's and the data's).
        reproduce: the command that reruns the training run, recorded in the manifest
            (:func:`enoki_hd.train.distill.distill_command`).
        work_dir: where intermediate graphs go (default a temporary directory).

    Returns the shipped directory.
    """
    from enoki_hd.igl.model import IGLTagger

    if quantize not in (None, "none", "int8"):
        raise ValueError(f"quantize must be 'int8' or None, got {quantize!r}")
    if not parity_examples:
        raise ValueError("export_tagger needs parity_examples to check the graph against torch")
    model_dir = Path(model_dir)
    with transformers_progress_off():
        model = IGLTagger.from_pretrained(model_dir).eval()
    tokenizer = WordTokenizer.from_dir(model_dir)
    positions = model.config.backbone_config().max_position_embeddings
    max_length = int(max_length or min(positions or 512, 512))
    if positions and max_length > positions:
        raise ValueError(
            f"max_length={max_length} exceeds the {positions} position embeddings of the "
            f"tagger in {model_dir}"
        )
    windows = _encode(parity_examples, tokenizer, max_length)
    if not windows:
        raise ValueError("no parity example has a word the tokenizer can encode")
    batches = _batches(windows)
    metrics = dict(metrics or {})
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(work_dir) if work_dir is not None else Path(scratch)
        fp32 = export_tagger_onnx(
            model, batches[-1], work / "tagger.fp32.onnx", depth=depth, opset=opset
        )
        reference = _torch_outputs(model, batches, depth)
        parity = {"fp32_vs_torch": label_parity(reference, _onnx_outputs(fp32, batches), batches)}
        graph: Path = fp32
        attempts: list[dict[str, Any]] = []
        options = dict(int8_options or {})
        quantization: dict[str, Any] = {"mode": None}
        if quantize == "int8":
            graph, attempts = _quantize_checked(
                fp32,
                work,
                batches,
                reference,
                options,
                min_label_agreement,
                min_row_agreement=min_row_agreement,
            )
            chosen = next((a for a in attempts if a["shipped"]), None)
            if chosen is not None:
                parity["int8_vs_torch"] = chosen["parity"]
                quantization = {"mode": "int8", **options, "keep_float": chosen["keep_float"]}
        metrics["onnx_parity"] = parity
        metrics["quantization_attempts"] = attempts
        metrics["onnx_size_mb"] = round(graph.stat().st_size / 2**20, 2)
        logger.info("tagger export metrics: %s", metrics)
        backbone = model.config.backbone or {}
        manifest = {
            "name": Path(out_dir).name,
            "kind": TAGGER_KIND,
            "labels": list(LABELS),
            "sentinels": list(SENTINELS),
            "backbone": backbone.get("_name_or_path") or backbone.get("model_type"),
            "depth": depth,
            "max_length": max_length,
            "inference": {"backend": "onnx", "max_length": max_length, "depth": depth},
            "quantization": quantization,
            "data": data or {},
            "config": config or {},
            "metrics": metrics,
            "git_commit": git_commit(),
            "python": platform.python_version(),
            "reproduce": reproduce,
            "licence": licence,
        }
        return ship_model(model_dir, graph, out_dir, manifest=manifest)


def _quantize_checked(
    fp32: Path,
    work: Path,
    batches: list[dict[str, np.ndarray]],
    reference: list[tuple[np.ndarray, np.ndarray]],
    options: dict[str, Any],
    min_label_agreement: float,
    *,
    min_row_agreement: float = 0.0,
) -> tuple[Path, list[dict[str, Any]]]:
    """The first int8 graph of the ladder that agrees with torch well enough (else ``fp32``),
    and every attempt with its parity."""
    options = dict(options)
    base = list(options.pop("keep_float", ()))
    attempts: list[dict[str, Any]] = []
    for step, extra in enumerate(KEEP_FLOAT_LADDER):
        keep_float = base + [p for p in extra if p not in base]
        graph = quantize_int8(
            fp32, work / f"tagger.int8.{step}.onnx", keep_float=keep_float, **options
        )
        parity = label_parity(reference, _onnx_outputs(graph, batches), batches)
        ok = (
            parity["label_agreement"] >= min_label_agreement
            and parity["row_agreement"] >= min_row_agreement
        )
        attempts.append({"keep_float": keep_float, "parity": parity, "shipped": ok})
        logger.info("int8 keeping %s float: %s", keep_float or "nothing", parity)
        if ok:
            return graph, attempts
    logger.warning(
        "no int8 recipe reaches label agreement %.3f and row agreement %.3f with torch; "
        "shipping the float graph",
        min_label_agreement,
        min_row_agreement,
    )
    return fp32, attempts
