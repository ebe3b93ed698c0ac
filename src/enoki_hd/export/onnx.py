"""ONNX export, dynamic int8 quantization, parity checks and shipping manifests."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import platform
import re
import shutil
import subprocess
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from enoki_hd.eval.files import replace_dir

logger = logging.getLogger(__name__)

# The manifest's ``kind`` of a verifier checkpoint (the tagger's records another).
VERIFIER_KIND = "nli-cross-encoder"
TOKENIZER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "vocab.txt",
    "config.json",
)


def export_onnx(
    model_dir: str | Path,
    onnx_path: str | Path,
    *,
    opset: int = 17,
    strip_guards: bool | None = None,
) -> Path:
    """Export a sequence-classification model to ONNX with dynamic batch and sequence axes.

    The graph takes the inputs the model's tokenizer produces (``input_ids``,
    ``attention_mask`` and, for BERT-style models, ``token_type_ids``) and returns ``logits``.
    ``strip_guards`` removes the exporter's NaN guards (:func:`strip_nan_guards`); None
    removes them when they are no-ops, i.e. when every layer attends globally
    (:func:`attends_globally`).
    """
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    model_dir = Path(model_dir)
    onnx_path = Path(onnx_path)
    with transformers_progress_off():
        model = AutoModelForSequenceClassification.from_pretrained(model_dir).eval()
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    sample = tokenizer(["a premise"], ["a hypothesis"], return_tensors="pt")
    names = [n for n in ("input_ids", "attention_mask", "token_type_ids") if n in sample]
    dynamic = {n: {0: "batch", 1: "sequence"} for n in names}
    dynamic["logits"] = {0: "batch"}
    onnx_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = onnx_path.with_name(onnx_path.name + ".tmp")
    # The tracer warns about control flow that is constant for an encoder-only classifier.
    with torch.inference_mode(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            model,
            args=(),
            kwargs={n: sample[n] for n in names},
            f=str(tmp),
            input_names=names,
            output_names=["logits"],
            dynamic_axes=dynamic,
            opset_version=opset,
            dynamo=False,
        )
    if strip_guards or (strip_guards is None and attends_globally(model.config)):
        strip_nan_guards_file(tmp)
    os.replace(tmp, onnx_path)
    return onnx_path


def attends_globally(config: Any) -> bool:
    """Whether every attention layer of ``config``'s encoder lets each query see every key
    that is not padding (BERT, MiniLM); False for local or sliding-window attention
    (ModernBERT's ``local_attention``, a ``sliding_window``), where a query near padding can
    have every key of its window masked — the case :func:`strip_nan_guards` must not touch."""
    return not (getattr(config, "local_attention", None) or getattr(config, "sliding_window", None))


def strip_nan_guards(model: Any) -> int:
    """Remove the ``Where(IsNaN(p), 0, p)`` guard the torch exporter puts after every
    attention softmax; returns how many were removed (``model``, an ``onnx.ModelProto``, is
    changed in place).

    The guard zeroes the attention of a query whose keys are *all* masked (softmax of a row of
    ``-inf`` is NaN, which would then spread through the values to every token). In an encoder
    that attends globally (:func:`attends_globally`) the mask covers padding keys only, and
    every sequence the tokenizers build keeps at least its ``[CLS]`` and ``[SEP]`` tokens, so
    no row is ever all masked and the guard returns its input unchanged: outputs are bitwise
    identical without it, and ONNX Runtime is spared two elementwise passes over every
    attention matrix (``tests/test_export_quantize.py`` checks both on a padded batch). Do not
    use it on local or sliding-window attention.
    Constant nodes left without consumers are removed with the guards.
    """
    import onnx

    graph = model.graph
    consumers: dict[str, list[Any]] = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    outputs = {o.name for o in graph.output}
    alias: dict[str, str] = {}
    dropped: set[int] = set()
    for node in graph.node:
        if node.op_type != "IsNaN" or node.output[0] in outputs:
            continue
        users = consumers.get(node.output[0], [])
        if len(users) != 1 or users[0].op_type != "Where":
            continue
        where = users[0]
        if where.input[0] != node.output[0] or where.input[2] != node.input[0]:
            continue
        if where.output[0] in outputs:
            continue
        alias[where.output[0]] = node.input[0]
        dropped.update((id(node), id(where)))
    if not alias:
        return 0
    kept = [n for n in graph.node if id(n) not in dropped]
    for node in kept:
        for k, name in enumerate(node.input):
            if name in alias:
                node.input[k] = alias[name]
    used = {name for n in kept for name in n.input} | outputs
    kept = [n for n in kept if n.op_type != "Constant" or any(o in used for o in n.output)]
    del graph.node[:]
    graph.node.extend(kept)
    onnx.checker.check_model(model)
    return len(alias)


def strip_nan_guards_file(path: str | Path) -> int:
    """:func:`strip_nan_guards` on the graph at ``path``, rewritten atomically when anything
    was removed; returns the number of guards removed."""
    import onnx

    path = Path(path)
    model = onnx.load(str(path))
    removed = strip_nan_guards(model)
    if removed:
        tmp = path.with_name(path.name + ".tmp")
        onnx.save(model, str(tmp))
        os.replace(tmp, path)
    return removed


EMBEDDING_STORAGES = ("fp16", "int8_rows", "float")
"""How :func:`quantize_int8` can store the token-embedding table."""


def check_int8_storage(int8: Any, key: str) -> None:
    """Raise ``ValueError`` naming ``key`` (where the options sit in the config, e.g.
    ``"export.int8"``) when ``int8``'s ``embeddings`` is no storage :func:`quantize_int8` knows
    or one of its ``keep_float`` patterns is no regular expression — checked before a run that
    ends in an export, so a typo does not surface after training."""
    embeddings = int8.get("embeddings", "fp16")
    if embeddings not in EMBEDDING_STORAGES:
        raise ValueError(
            f"{key}.embeddings must be 'fp16', 'int8_rows' or 'float', got {embeddings!r}"
        )
    for pattern in int8.get("keep_float") or ():
        try:
            re.compile(pattern)
        except (re.error, TypeError) as err:
            raise ValueError(
                f"{key}.keep_float {pattern!r} is not a regular expression ({err})"
            ) from err


def quantize_int8(
    onnx_path: str | Path,
    out_path: str | Path,
    *,
    per_channel: bool = True,
    keep_float: Sequence[str] = (),
    embeddings: str = "fp16",
) -> Path:
    """Dynamic int8 quantization of the MatMul weights (activations stay float).

    Args:
        per_channel: one scale per output channel instead of one per tensor.
        keep_float: MatMul nodes whose name matches one of these regular expressions stay
            float (the layers whose quantization moves the output most).
        embeddings: how the token-embedding table (the largest tensor) is stored:
            ``"fp16"`` (float16, cast back when ONNX Runtime loads the model), ``"int8_rows"``
            (int8 with one scale per token row, dequantized after the lookup: a quarter of the
            float32 bytes, and rounding error bounded by half a step of that token's own scale)
            or ``"float"`` (left as exported).
    """
    import onnx

    out_path = Path(out_path)
    model = onnx.load(str(onnx_path))
    matmuls = [n.name for n in model.graph.node if n.op_type == "MatMul"]
    excluded = [n for n in matmuls if any(re.search(p, n) for p in keep_float)]
    tmp = out_path.with_name(out_path.name + ".tmp")
    _quantize_matmuls(onnx_path, tmp, per_channel=per_channel, nodes_to_exclude=excluded)
    quantized = onnx.load(str(tmp))
    initializers = {init.name for init in quantized.graph.initializer}
    float_weights = [
        n.input[1]
        for n in quantized.graph.node
        if n.name in excluded and len(n.input) > 1 and n.input[1] in initializers
    ]
    if embeddings not in EMBEDDING_STORAGES:
        raise ValueError(
            f"int8.embeddings must be 'fp16', 'int8_rows' or 'float', got {embeddings!r}"
        )
    gathers = [
        n for n in quantized.graph.node if n.op_type == "Gather" and n.input[0] in initializers
    ]
    sizes = {i.name: int(np.prod(i.dims)) for i in quantized.graph.initializer}
    table = max((g.input[0] for g in gathers), key=sizes.__getitem__) if gathers else None
    if table is not None and embeddings == "fp16":
        float_weights.append(table)
    _store_fp16(quantized, float_weights)
    if table is not None and embeddings == "int8_rows":
        _store_int8_rows(quantized, table)
    onnx.save(quantized, str(tmp))
    os.replace(tmp, out_path)
    return out_path


def quantize_kept_float(
    onnx_path: str | Path,
    out_path: str | Path,
    *,
    per_channel: bool = True,
    keep_float: Sequence[str] = (),
) -> int:
    """Quantise the MatMuls an int8 graph kept float (the ``keep_float`` layers of
    :func:`quantize_int8`, stored as float16 and cast back, or float initializers) as
    :func:`quantize_int8` quantises the others: int8 weights, per output channel, and
    activations quantised dynamically. MatMuls whose name matches one of the regular
    expressions in ``keep_float`` stay as they are. Returns how many MatMuls were quantised;
    ``out_path`` is written atomically (even when that is 0, as a copy).

    A graph pass for a shipped checkpoint whose torch weights are gone: it needs only the
    graph. Unlike :func:`strip_nan_guards` it changes the outputs, so a caller checks accuracy
    (``scripts/quantize_kept_float.py`` does).
    """
    import onnx
    from onnx import TensorProto, numpy_helper

    out_path = Path(out_path)
    model = onnx.load(str(onnx_path))
    graph = model.graph
    initializers = {init.name: init for init in graph.initializer}
    # Cast(float16 initializer) -> float: the stored form of a kept-float weight
    casts = {
        n.output[0]: n
        for n in graph.node
        if n.op_type == "Cast"
        and n.input[0] in initializers
        and initializers[n.input[0]].data_type == TensorProto.FLOAT16
    }
    targets = [
        n
        for n in graph.node
        if n.op_type == "MatMul"
        and len(n.input) > 1
        and (n.input[1] in initializers or n.input[1] in casts)
        and not any(re.search(pattern, n.name) for pattern in keep_float)
    ]
    if not targets:
        tmp = out_path.with_name(out_path.name + ".tmp")
        shutil.copy2(onnx_path, tmp)
        os.replace(tmp, out_path)
        return 0
    folded: dict[str, str] = {}  # cast output -> its float32 initializer
    for node in targets:
        cast = casts.get(node.input[1])
        if cast is None:
            continue
        if cast.output[0] not in folded:
            weight = numpy_helper.to_array(initializers[cast.input[0]]).astype(np.float32)
            name = cast.input[0] + "_float"
            graph.initializer.append(numpy_helper.from_array(weight, name))
            folded[cast.output[0]] = name
        node.input[1] = folded[cast.output[0]]
    used = {name for n in graph.node for name in n.input}
    for node in [n for n in graph.node if n.op_type == "Cast" and n.output[0] in folded]:
        if node.output[0] not in used:
            graph.node.remove(node)
    used = {name for n in graph.node for name in n.input}
    for init in [i for i in graph.initializer if i.name not in used]:
        graph.initializer.remove(init)
    tmp = out_path.with_name(out_path.name + ".tmp")
    tmp_float = out_path.with_name(out_path.name + ".float.tmp")
    try:
        onnx.save(model, str(tmp_float))
        _quantize_matmuls(
            tmp_float, tmp, per_channel=per_channel, nodes_to_quantize=[n.name for n in targets]
        )
        onnx.checker.check_model(onnx.load(str(tmp)))
        os.replace(tmp, out_path)
    finally:
        for leftover in (tmp, tmp_float):
            leftover.unlink(missing_ok=True)
    return len(targets)


def dequantize_matmuls(onnx_path: str | Path, out_path: str | Path) -> int:
    """The float-activation reference of a dynamically quantised graph: every
    ``DynamicQuantizeLinear -> MatMulInteger -> Cast -> Mul(scales)`` chain becomes a float
    ``MatMul`` on the dequantised weights (``(W - zero_point) * scale``), so the weights are
    the graph's own int8 values and only the activations' rounding is gone. Returns how many
    MatMuls were dequantised; ``out_path`` is written atomically.

    Raises:
        ValueError: a ``MatMulInteger`` whose surroundings are not that chain.
    """
    import onnx
    from onnx import helper, numpy_helper

    out_path = Path(out_path)
    model = onnx.load(str(onnx_path))
    graph = model.graph
    initializers = {init.name: init for init in graph.initializer}
    producer = {out: n for n in graph.node for out in n.output}
    consumers: dict[str, list[Any]] = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    replaced: dict[int, Any] = {}
    dropped: set[int] = set()
    for node in graph.node:
        if node.op_type != "MatMulInteger":
            continue
        x_q, w_q, _, w_zero = node.input
        quantize = producer.get(x_q)
        cast = _only_consumer(consumers, node.output[0])
        mul = _only_consumer(consumers, cast.output[0]) if cast is not None else None
        scales = producer.get(mul.input[1]) if mul is not None else None
        if (
            quantize is None
            or quantize.op_type != "DynamicQuantizeLinear"
            or cast is None
            or cast.op_type != "Cast"
            or mul is None
            or mul.op_type != "Mul"
            or scales is None
            or scales.op_type != "Mul"
            or w_q not in initializers
            or scales.input[1] not in initializers
        ):
            raise ValueError(f"{node.name}: not a dynamically quantised MatMul of an int8 weight")
        weight = numpy_helper.to_array(initializers[w_q]).astype(np.float32)
        zero = numpy_helper.to_array(initializers[w_zero]).astype(np.float32)
        scale = numpy_helper.to_array(initializers[scales.input[1]]).astype(np.float32)
        name = w_q + "_dequantized"
        graph.initializer.append(numpy_helper.from_array((weight - zero) * scale, name))
        replaced[id(node)] = helper.make_node(
            "MatMul", [quantize.input[0], name], [mul.output[0]], name=node.name + "_float"
        )
        dropped.update((id(cast), id(mul), id(scales), id(quantize)))
    nodes = [replaced.get(id(n), n) for n in graph.node if id(n) not in dropped]
    del graph.node[:]
    graph.node.extend(nodes)
    used = {name for n in graph.node for name in n.input}
    for init in [i for i in graph.initializer if i.name not in used]:
        graph.initializer.remove(init)
    onnx.checker.check_model(model)
    tmp = out_path.with_name(out_path.name + ".tmp")
    onnx.save(model, str(tmp))
    os.replace(tmp, out_path)
    return len(replaced)


def _only_consumer(consumers: dict[str, list[Any]], name: str) -> Any | None:
    users = consumers.get(name, [])
    return users[0] if len(users) == 1 else None


def _quantize_matmuls(
    source: str | Path, target: str | Path, *, per_channel: bool, **selection: list[str]
) -> None:
    """onnxruntime's dynamic quantisation of MatMuls (int8 weights, per output channel when
    ``per_channel``) with a node ``selection``: ``nodes_to_exclude`` or ``nodes_to_quantize``."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    # the quantizer logs on the root logger itself, a line per MatMul it skips and per tensor
    # without parameters (~30 for the tagger, through the run's console handler)
    root = logging.getLogger()
    noise = _QuantizerNoise()
    root.addFilter(noise)
    try:
        quantize_dynamic(
            str(source),
            str(target),
            weight_type=QuantType.QInt8,
            per_channel=per_channel,
            op_types_to_quantize=["MatMul"],
            **selection,
        )
    finally:
        root.removeFilter(noise)


class _QuantizerNoise(logging.Filter):
    """Drops the records below WARNING logged on the logger it is added to, and the quantizer's
    advice to pre-process (meant for static quantisation of CNNs; not ours to act on); its
    other warnings and errors pass."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING:
            return False
        return not record.getMessage().startswith(
            "Please consider to run pre-processing before quantization"
        )


@contextmanager
def transformers_progress_off() -> Iterator[None]:
    """Turn transformers' progress bars ("Loading weights", "Writing model shards") off for
    the block, as they were after it: a local save or load takes milliseconds, and each bar
    broke the run's own progress bar. Its warnings still show."""
    from transformers.utils import logging as transformers_logging

    was_on = transformers_logging.is_progress_bar_enabled()
    transformers_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_on:
            transformers_logging.enable_progress_bar()


def _store_fp16(model, names: Sequence[str]) -> None:
    """Store the named float initializers as float16, cast back to float32 in the graph (ONNX
    Runtime folds the cast when it loads the model): half the bytes, no int8 rounding."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    by_name = {init.name: init for init in model.graph.initializer}
    casts = []
    for name in dict.fromkeys(names):
        weight = by_name[name]
        half = numpy_helper.to_array(weight).astype(np.float16)
        model.graph.initializer.remove(weight)
        model.graph.initializer.append(numpy_helper.from_array(half, name + "_fp16"))
        casts.append(
            helper.make_node(
                "Cast", [name + "_fp16"], [name], to=TensorProto.FLOAT, name=name + "_cast"
            )
        )
    for position, cast in enumerate(casts):
        model.graph.node.insert(position, cast)
    onnx.checker.check_model(model)


def _store_int8_rows(model, name: str) -> None:
    """Store embedding table ``name`` as int8 with one float scale per row (symmetric).

    Every ``Gather`` of the table becomes ``Gather(int8 rows) -> Cast -> Mul(Gather(scales))``:
    the lookup dequantizes only the rows it reads.
    """
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    by_name = {init.name: init for init in model.graph.initializer}
    table = numpy_helper.to_array(by_name[name]).astype(np.float32)
    scales = np.abs(table).max(axis=1, keepdims=True) / 127.0
    scales[scales == 0] = 1.0
    rows = np.clip(np.rint(table / scales), -127, 127).astype(np.int8)
    model.graph.initializer.remove(by_name[name])
    model.graph.initializer.append(numpy_helper.from_array(rows, name + "_int8"))
    model.graph.initializer.append(
        numpy_helper.from_array(scales.astype(np.float32), name + "_row_scale")
    )
    nodes = []
    for node in model.graph.node:
        if node.op_type != "Gather" or node.input[0] != name:
            nodes.append(node)
            continue
        out, ids = node.output[0], node.input[1]
        nodes += [
            helper.make_node("Gather", [name + "_int8", ids], [out + "_q"], axis=0,
                             name=node.name + "_q"),
            helper.make_node("Cast", [out + "_q"], [out + "_qf"], to=TensorProto.FLOAT,
                             name=node.name + "_cast"),
            helper.make_node("Gather", [name + "_row_scale", ids], [out + "_s"], axis=0,
                             name=node.name + "_scale"),
            helper.make_node("Mul", [out + "_qf", out + "_s"], [out], name=node.name + "_dq"),
        ]  # fmt: skip
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    onnx.checker.check_model(model)


def parity(reference_probs: np.ndarray, candidate_probs: np.ndarray) -> dict[str, float]:
    """Label agreement and the largest absolute probability difference between two backends."""
    if reference_probs.shape != candidate_probs.shape:
        raise ValueError(
            f"parity needs equal shapes, got {reference_probs.shape} and {candidate_probs.shape}"
        )
    agree = float((reference_probs.argmax(1) == candidate_probs.argmax(1)).mean())
    return {
        "label_agreement": round(agree, 5),
        "max_prob_diff": round(float(np.abs(reference_probs - candidate_probs).max()), 5),
        "mean_prob_diff": round(float(np.abs(reference_probs - candidate_probs).mean()), 6),
        "n": int(reference_probs.shape[0]),
    }


def sha256_file(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def ship_model(
    model_dir: str | Path,
    onnx_file: str | Path,
    ship_dir: str | Path,
    *,
    manifest: dict[str, Any],
) -> Path:
    """Copy the ONNX graph, tokenizer and config into ``ship_dir`` with ``manifest.json``
    (which gets a sha256 per shipped file). The folder is replaced atomically."""
    model_dir, ship_dir = Path(model_dir), Path(ship_dir)
    tmp = ship_dir.with_name(ship_dir.name + ".tmp")
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    shutil.copy2(onnx_file, tmp / "model.onnx")
    for name in TOKENIZER_FILES:
        if (model_dir / name).exists():
            shutil.copy2(model_dir / name, tmp / name)
    files = {p.name: sha256_file(p) for p in sorted(tmp.iterdir()) if p.is_file()}
    manifest = {**manifest, "files": files}
    (tmp / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    replace_dir(tmp, ship_dir)
    return ship_dir


def onnx_probs(
    onnx_path: str | Path,
    tokenizer,
    pairs: Sequence[tuple[str, str]],
    *,
    max_length: int,
    batch_size: int = 64,
) -> np.ndarray:
    """Softmax probabilities from an ONNX graph, in the model's own label order."""
    import onnxruntime as ort

    session = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    inputs = {i.name for i in session.get_inputs()}
    order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
    out = np.zeros((len(pairs), 0), dtype=np.float32)
    for start in range(0, len(order), batch_size):
        idx = order[start : start + batch_size]
        enc = tokenizer(
            [pairs[i][0] for i in idx],
            [pairs[i][1] for i in idx],
            truncation="only_first",
            max_length=max_length,
            padding=True,
            return_tensors="np",
        )
        logits = session.run(
            ["logits"], {k: v.astype(np.int64) for k, v in enc.items() if k in inputs}
        )[0]
        logits = logits - logits.max(axis=1, keepdims=True)
        probs = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
        if out.shape[1] == 0:
            out = np.zeros((len(pairs), probs.shape[1]), dtype=np.float32)
        out[idx] = probs
    return out


def inference_settings(model_config: dict[str, Any], model_dir: Path) -> dict[str, Any]:
    """The manifest's ``inference`` block: how the shipped graph is run by every loader.

    ``max_length`` is the model config's ``inference_max_length`` (evidence windows are sized
    to it), which may exceed the training ``max_length`` but not the position embeddings.

    Raises:
        ValueError: ``model.inference_max_length`` is missing or beyond the model's position
            embeddings.
    """
    length = model_config.get("inference_max_length")
    if not isinstance(length, int) or length < 1:
        raise ValueError(
            f"model.inference_max_length must be a positive integer (the tokens per pair the "
            f"shipped verifier runs at), got {length!r}; set it in configs/model/"
        )
    positions = json.loads((model_dir / "config.json").read_text()).get("max_position_embeddings")
    if positions and length > positions:
        raise ValueError(
            f"model.inference_max_length={length} exceeds the {positions} position embeddings "
            f"of {model_dir}; use at most {positions}"
        )
    return {"backend": "onnx", "max_length": length}


def git_commit() -> str | None:
    """The repository's HEAD commit, or None outside a git checkout."""
    try:
        return subprocess.run(
            ["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def export_and_ship(
    model_dir: str | Path,
    ship_dir: str | Path,
    *,
    work_dir: str | Path,
    parity_pairs: Sequence,
    metrics: dict[str, Any],
    data_sources: dict[str, Any],
    config: dict[str, Any],
    opset: int = 17,
    quantize: str | None = "int8",
    int8_options: dict[str, Any] | None = None,
) -> Path:
    """Export a trained NLI model to ONNX (int8 by default), measure torch-vs-ONNX parity on
    ``parity_pairs`` (``NLIPair`` objects), and ship graph + tokenizer + manifest.

    ``metrics`` gains ``onnx_parity``, ``<set>_accuracy_onnx`` and ``onnx_size_mb``. The
    manifest's ``inference`` block (:func:`inference_settings`) is what every loading of the
    shipped checkpoint runs with.
    """
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from enoki_hd.train.verifier import accuracy, predict_probs

    model_dir, work_dir = Path(model_dir), Path(work_dir)
    inference = inference_settings(config["model"], model_dir)
    graph = export_onnx(model_dir, work_dir / "model.fp32.onnx", opset=opset)
    if quantize == "int8":
        graph = quantize_int8(graph, work_dir / "model.int8.onnx", **(int8_options or {}))
    elif quantize not in (None, "none"):
        raise ValueError(f"export.quantize must be 'int8' or null, got {quantize!r}")
    max_length = int(config["model"]["max_length"])
    if parity_pairs:
        with transformers_progress_off():
            model = AutoModelForSequenceClassification.from_pretrained(model_dir).eval()
        tokenizer = AutoTokenizer.from_pretrained(model_dir)
        reference = predict_probs(
            model, tokenizer, list(parity_pairs), max_length=max_length, batch_size=64, device="cpu"
        )
        candidate = onnx_probs(
            graph,
            tokenizer,
            [(p.premise, p.hypothesis) for p in parity_pairs],
            max_length=max_length,
        )
        metrics["onnx_parity"] = parity(reference, candidate)
        metrics[f"{parity_pairs[0].source}_accuracy_onnx"] = round(
            accuracy(list(parity_pairs), candidate), 4
        )
    metrics["onnx_size_mb"] = round(graph.stat().st_size / 2**20, 2)
    logger.info("metrics: %s", metrics)
    manifest = {
        "name": Path(ship_dir).name,
        "kind": VERIFIER_KIND,
        "labels": ["entailment", "neutral", "contradiction"],
        "backbone": config["model"]["backbone"],
        "max_length": max_length,
        "inference": inference,
        "quantization": quantize,
        "data": data_sources,
        "config": config,
        "metrics": metrics,
        "git_commit": git_commit(),
        "python": platform.python_version(),
        "reproduce": str(
            config.get("reproduce")
            or (config.get("train") or {}).get("reproduce")
            or "make train-verifier"
        ),
        "licence": "weights derived from all-MiniLM-L6-v2 (Apache-2.0), fine-tuned on SNLI "
        "(CC BY-SA 4.0) and the other NLI sets listed under data (see their licences)",
    }
    shipped = ship_model(model_dir, graph, ship_dir, manifest=manifest)
    logger.info("shipped %s", shipped)
    return shipped
