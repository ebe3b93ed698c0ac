"""Distil teacher triples into the iterative-grid-labeling tagger (:mod:`enoki_hd.igl`).

Teacher data (``data`` config group) become grid examples: LSOIE-GPT's LLM-extracted triples
and OIE2016's human extractions aligned to their sentences (:mod:`enoki_hd.igl.align`), teacher
JSONL files (what ``enoki teach`` and ``enoki extract --format teacher`` write), OIE4 files, or
the rules extractor run over the sentences of another source (cached under
``paths.cache_dir``). A held-out share of the sentences (by a hash of the text, so the split
never depends on the order or the seed) is the dev set for early stopping.

The loop runs through ``accelerate`` (CPU, one GPU or many with the same code): linear warm-up
and decay, gradient clipping, depths matched to gold rows by the Hungarian loss (or the
positional one), dev label F1 every ``eval_every`` steps with the same matching, the best model
kept, early stopping after ``patience`` evaluations without a better F1. A checkpoint (model,
optimizer, scheduler, random states, early-stopping state) is written every ``save_every``
steps, after each evaluation and on interruption, into a temporary folder that is then renamed:
a crash leaves the previous checkpoint or the new one, never half of one. A rerun with the same
config resumes from the newest checkpoint and replays no finished step; ``trainer.resume=false``
removes the earlier checkpoints and starts over. The composed config is saved beside each
checkpoint.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
import random
import shlex
import shutil
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any

import numpy as np

from enoki_hd.eval.files import atomic_write, replace_dir
from enoki_hd.export.onnx import check_int8_storage, transformers_progress_off
from enoki_hd.igl.align import AlignmentReport, SourceCoverage, load_lsoie_gpt, load_oie2016
from enoki_hd.igl.labels import (
    IGNORE,
    NONE,
    GridExample,
    facts_to_example,
    read_oie4,
    read_teacher_jsonl,
    teacher_examples,
)
from enoki_hd.train.interrupt import StepBoundaryInterrupt
from enoki_hd.train.nli_data import read_jsonl, stable_fraction
from enoki_hd.train.settings import (
    SettingsError,
    check_model_folders,
    check_resume,
    check_trainer,
    training_settings,
)
from enoki_hd.train.verifier import linear_lr_factor, make_accelerator, resolve_backbone
from enoki_hd.types import Fact, Span
from enoki_hd.verify.evidence import require_bool, require_fraction, require_int

logger = logging.getLogger(__name__)

SOURCE_KINDS = ("lsoie_gpt", "oie2016", "teacher_jsonl", "oie4", "rules", "texts")
STATE_FILE = "state.pt"
STATE_DIR = "train_state"  # under paths.output_dir: the checkpoints
CONFIG_FILE = "config.yaml"
_CHECKPOINT_PREFIX = "step-"
# The int8 options export.int8 passes to enoki_hd.export.onnx.quantize_int8, and the storages
# of the token embeddings it knows.
_INT8_OPTIONS = ("per_channel", "keep_float", "embeddings")
# Token-id fields a random backbone takes from the tokenizer (when its config class has them).
_TOKEN_ID_FIELDS = {
    "pad_token_id": "pad_token_id",
    "cls_token_id": "cls_token_id",
    "sep_token_id": "sep_token_id",
    "bos_token_id": "cls_token_id",
    "eos_token_id": "sep_token_id",
}


# ---------------------------------------------------------------------------------------------
# Teacher data


@dataclass
class TeacherData:
    """Grid examples split into ``train`` and ``dev`` (held out by sentence), the alignment
    coverage per source, and per source its kind, path and sizes (the manifest's ``data``)."""

    train: list[GridExample]
    dev: list[GridExample]
    alignment: AlignmentReport
    sources: dict[str, dict[str, Any]] = field(default_factory=dict)


def _existing_path(value: Any, where: str, holder: str | None = "data/oie_train/") -> Path:
    """``value`` as the path of a file that exists, else a ``FileNotFoundError`` (an
    ``IsADirectoryError`` for a folder) naming the config field and the shared folder it
    should be in (``holder`` None: a file of the user's own)."""
    if value in (None, ""):
        raise ValueError(f"{where} is not set; give the path of the file to read")
    path = Path(str(value)).expanduser()
    if not path.exists():
        fix = "fix the path"
        if holder is not None:
            fix += (
                f", or set paths.shared_dir (or ENOKI_SHARED_DIR) to the folder that holds {holder}"
            )
        raise FileNotFoundError(f"{where}: {path} does not exist; {fix}")
    if path.is_dir():
        raise IsADirectoryError(f"{where}: {path} is a folder; give the path of the file in it")
    return path


def check_carb_files(cfg: Mapping[str, Any]) -> None:
    """The CaRB dev files :func:`score_carb` reads after training, checked before it starts."""
    carb_cfg = cfg.get("carb") or {}
    if carb_cfg:
        _existing_path(carb_cfg.get("sentences"), "carb.sentences", "data/carb/")
        _existing_path(carb_cfg.get("gold"), "carb.gold", "data/carb/")


def check_ship_settings(cfg: Mapping[str, Any]) -> None:
    """The ``export`` and ``carb`` settings :func:`ship_tagger` and :func:`score_carb` read
    after training, checked before it starts: a typo must not cost a whole run.

    Raises:
        SettingsError: naming the key, what it must be and the value given.
    """
    export_cfg, carb_cfg = cfg.get("export") or {}, cfg.get("carb") or {}
    quantize = export_cfg.get("quantize", "int8")
    if quantize not in ("int8", None, "none"):
        raise SettingsError(f"export.quantize must be 'int8' or null (float), got {quantize!r}")
    int8 = (export_cfg.get("int8") or {}) if quantize == "int8" else {}
    unknown = sorted(set(int8) - set(_INT8_OPTIONS))
    if unknown:
        raise SettingsError(f"export.int8: unknown options {unknown}; known: {list(_INT8_OPTIONS)}")
    try:
        check_int8_storage(int8, "export.int8")
    except ValueError as err:
        raise SettingsError(str(err)) from err
    try:
        require_bool(int8.get("per_channel", True), "export.int8.per_channel")
        require_int(export_cfg.get("opset", 17), "export.opset", minimum=1)
        require_int(
            export_cfg.get("parity_sentences"), "export.parity_sentences", minimum=1, optional=True
        )
        for key in ("min_label_agreement", "min_row_agreement"):
            require_fraction(export_cfg.get(key, 0.0), f"export.{key}")
        require_int(carb_cfg.get("batch_size", 32), "carb.batch_size", minimum=1)
        require_int(carb_cfg.get("limit"), "carb.limit", minimum=1, optional=True)
    except (TypeError, ValueError) as err:  # the message names the key
        raise SettingsError(str(err)) from err


def load_source(
    name: str,
    spec: Mapping[str, Any],
    *,
    cache_dir: str | Path | None = None,
    where: str | None = None,
) -> tuple[list[GridExample], AlignmentReport]:
    """The grid examples of one ``data.sources`` entry and their coverage.

    ``spec["kind"]`` is ``lsoie_gpt``, ``oie2016``, ``teacher_jsonl`` (one ``{text, facts}``
    record per line), ``oie4`` (OpenIE6's format), ``texts`` (the sentences, without rows, of
    the string field ``spec["field"]``, default ``text``, of each JSONL record, segmented as
    the detector segments answers: unlabelled answers for a teacher to read) or ``rules`` (the
    rules extractor over the sentences of the source ``spec["sentences"]``, itself a source
    spec). ``limit`` keeps the first sentences.

    ``where``: the config field errors name (default ``data.sources.<name>``; a file of
    ``data.teacher`` is named so, not by the source name made up for it).

    Raises:
        FileNotFoundError / ValueError: a missing file or an unknown kind, naming the field
            (``data.sources.<name>.path``).
    """
    own_file = where is not None
    where = where or f"data.sources.{name}"
    kind = spec.get("kind")
    if kind not in SOURCE_KINDS:
        raise ValueError(f"{where}.kind must be one of {', '.join(SOURCE_KINDS)}; got {kind!r}")
    limit = None if spec.get("limit") is None else int(spec["limit"])
    if kind == "rules":
        inner = spec.get("sentences")
        if not isinstance(inner, Mapping):
            raise ValueError(
                f"{where}.sentences must be a source spec ({{kind, path}}) whose sentences the "
                "rules extractor reads"
            )
        if limit is not None and inner.get("limit") is None:
            inner = {**inner, "limit": limit}
        texts, _ = load_source(f"{name}.sentences", inner, cache_dir=cache_dir)
        texts = texts[:limit]
        return rules_teacher_examples(
            [(e.id, e.text) for e in texts],
            source=name,
            extractor=dict(spec.get("extractor") or {"name": "rules"}),
            cache_dir=cache_dir,
        )
    if own_file:
        path = _existing_path(spec.get("path"), where, holder=None)
    else:
        path = _existing_path(spec.get("path"), f"{where}.path")
    if kind == "lsoie_gpt":
        examples, report = load_lsoie_gpt(path, source=name, limit=limit)
    elif kind == "oie2016":
        examples, report = load_oie2016(path, source=name, limit=limit)
    elif kind == "oie4":
        examples = read_oie4(path, source=name)[:limit]
        report = _rows_report(name, examples)
    elif kind == "texts":
        field_name = str(spec.get("field") or "text")
        examples = text_sentences(path, field=field_name, source=name, limit=limit)
        report = _rows_report(name, examples)
    else:
        counts: Counter[str] = Counter()
        # islice: the example past the limit is never read, so its facts are not counted
        examples = list(islice(read_teacher_jsonl(path, source=name, counts=counts), limit))
        reasons = ("no_spans", "spans_do_not_match", "no_subject_or_relation", "duplicate")
        dropped = {k: counts[k] for k in reasons}
        report = _rows_report(name, examples, dropped=dropped)
    return examples, report


def text_sentences(
    path: Path, *, field: str, source: str, limit: int | None = None
) -> list[GridExample]:
    """One example without rows per sentence of the string ``field`` of each JSONL record of
    ``path`` (gzipped or not; spaCy segmentation, as the detector's), ids ``line{n}:{k}``; a
    record without the field or with an empty one gives no sentence, a sentence without words
    neither. ``limit``: the first sentences only (later records are not read).

    Raises:
        ValueError: a line that is not a JSON object, or a ``field`` that is not a string,
            naming the file, line and field.
    """
    examples: list[GridExample] = []
    for lineno, record in read_jsonl(path):
        if limit is not None and len(examples) >= limit:
            break
        if not isinstance(record, dict):
            raise ValueError(f"{path}:{lineno}: expected a JSON object")
        text = record.get(field)
        if text is None:
            continue
        if not isinstance(text, str):
            raise ValueError(
                f"{path}:{lineno}: field {field!r} must be a string, got "
                f"{type(text).__name__}; set data.sources.<name>.field to the text field"
            )
        if text.strip():
            examples.extend(
                e
                for e in teacher_examples(
                    text, [], source=source, id=f"line{lineno}", segmenter="spacy"
                )
                if e.words
            )
    return examples[:limit]


def _rows_report(
    name: str, examples: Sequence[GridExample], dropped: Mapping[str, int] | None = None
) -> AlignmentReport:
    """Coverage of a source whose rows need no alignment: every row counts as aligned, and
    ``dropped`` counts the teacher facts that gave no row, by reason."""
    report = AlignmentReport()
    coverage: SourceCoverage = report.source(name)
    rows = sum(len(e.rows) for e in examples)
    coverage.sentences = len(examples)
    coverage.sentences_with_rows = sum(1 for e in examples if e.rows)
    coverage.aligned = rows
    coverage.exact = rows
    coverage.dropped.update({k: v for k, v in (dropped or {}).items() if v > 0})
    coverage.triples = rows + sum(coverage.dropped.values())
    return report


def rules_teacher_examples(
    sentences: Sequence[tuple[str, str]],
    *,
    source: str,
    extractor: dict[str, Any],
    cache_dir: str | Path | None,
) -> tuple[list[GridExample], AlignmentReport]:
    """The rules extractor as a teacher: its facts of each ``(id, text)`` sentence as grid
    rows (:func:`~enoki_hd.igl.labels.facts_to_example`).

    The facts are cached as teacher JSONL (``{"id", "text", "facts"}`` per line, the format
    ``data.sources.<name>.kind=teacher_jsonl`` reads) under ``cache_dir/distill/``, keyed by the
    sentences, the extractor's config and the package version; ``make clean`` drops the cache.
    """
    import enoki_hd
    from enoki_hd.extract import get_extractor

    options = {k: v for k, v in extractor.items() if k != "name"}
    name = str(extractor.get("name", "rules"))
    key = hashlib.sha256(
        json.dumps(
            [enoki_hd.__version__, name, sorted(options.items()), list(sentences)],
            sort_keys=True,
            default=str,
        ).encode("utf-8")
    ).hexdigest()[:16]
    cache = Path(cache_dir) / "distill" / f"{source}-{name}-{key}.jsonl" if cache_dir else None
    records: list[dict[str, Any]]
    if cache is not None and cache.is_file():
        logger.info("%s: teacher facts from the cache %s", source, cache)
        with cache.open(encoding="utf-8") as handle:
            records = [json.loads(line) for line in handle if line.strip()]
    else:
        backend = get_extractor(name, **options)
        logger.info("%s: running the %s extractor over %d sentences", source, name, len(sentences))
        records = []
        for id_, text in sentences:
            facts = backend.extract(text, sentences=[Span(0, len(text))])
            records.append({"id": id_, "text": text, "facts": [f.to_dict() for f in facts]})
        if cache is not None:
            cache.parent.mkdir(parents=True, exist_ok=True)
            tmp = cache.with_suffix(".tmp")
            with tmp.open("w", encoding="utf-8") as handle:
                for record in records:
                    handle.write(json.dumps(record) + "\n")
            os.replace(tmp, cache)
    dropped: Counter[str] = Counter({"no_subject_or_relation": 0, "duplicate": 0})
    examples = [
        facts_to_example(
            r["text"],
            [Fact.from_dict(f) for f in r["facts"]],
            source=source,
            id=str(r["id"]),
            dropped=dropped,
        )
        for r in records
    ]
    report = _rows_report(source, examples, dropped=dict(dropped))
    return examples, report


def split_dev(
    examples: Sequence[GridExample], *, fraction: float
) -> tuple[list[GridExample], list[GridExample]]:
    """Hold out about ``fraction`` of the sentences by a hash of their text: the same sentence
    is always on the same side, whatever the source, order or seed."""
    train: list[GridExample] = []
    dev: list[GridExample] = []
    for example in examples:
        (dev if stable_fraction(example.text) < fraction else train).append(example)
    return train, dev


def build_teacher_data(
    data_cfg: Mapping[str, Any], *, cache_dir: str | Path | None = None
) -> TeacherData:
    """Load every source of ``data_cfg["sources"]`` (and each file of
    ``data_cfg["teacher_jsonl"]``, and ``data_cfg["teacher"]``, as a ``teacher_jsonl`` source
    named by its file name) and
    hold out ``dev_fraction`` of the sentences (at most ``dev_limit``; the others go back to
    training). A sentence in two sources is used once, from the first. Sentences without rows
    are left out of training unless ``keep_empty``, and always out of dev."""
    sources = dict(data_cfg.get("sources") or {})
    # the config field each teacher file came from, named in its errors
    fields: dict[str, str] = {}
    teacher = data_cfg.get("teacher")  # one file: make distill ARGS="data.teacher=FILE"
    files = [
        (f"data.teacher_jsonl[{i}]", p) for i, p in enumerate(data_cfg.get("teacher_jsonl") or [])
    ]
    for where, path in [*files, *([("data.teacher", teacher)] if teacher else [])]:
        name = f"teacher_{Path(str(path)).stem}"
        if name in sources:
            raise ValueError(f"{where}: a source named {name!r} is already given")
        sources[name] = {"kind": "teacher_jsonl", "path": path}
        fields[name] = where
    if not sources:
        raise ValueError("data.sources is empty: name at least one teacher source")
    fraction = float(data_cfg.get("dev_fraction", 0.05))
    dev_limit = data_cfg.get("dev_limit")
    keep_empty = bool(data_cfg.get("keep_empty", False))
    train: list[GridExample] = []
    dev: list[GridExample] = []
    alignment = AlignmentReport()
    summary: dict[str, dict[str, Any]] = {}
    seen: set[str] = set()
    for name, spec in sources.items():
        examples, report = load_source(name, spec, cache_dir=cache_dir, where=fields.get(name))
        if not examples and spec.get("limit") != 0:
            # it trained nothing while the manifest listed it among the teachers
            where = fields.get(name, f"data.sources.{name}")
            path = spec.get("path") or (spec.get("sentences") or {}).get("path")
            raise ValueError(
                f"{where}: {path} gives no sentence; fix the file (one {{text, facts}} record "
                "per line for teacher JSONL), or drop the source"
            )
        alignment = alignment.merge(report)
        unique = [e for e in examples if e.text not in seen]
        seen.update(e.text for e in unique)
        fit, held = split_dev(unique, fraction=fraction)
        if not keep_empty:
            fit = [e for e in fit if e.rows]
        held = [e for e in held if e.rows]
        train.extend(fit)
        dev.extend(held)
        summary[name] = {
            "kind": spec.get("kind", "teacher_jsonl"),
            "path": str(spec.get("path", "")),
            "sentences": len(examples),
            "duplicate_sentences": len(examples) - len(unique),
            "train_sentences": len(fit),
            "train_rows": sum(len(e.rows) for e in fit),
            "dev_sentences": len(held),
            "dev_rows": sum(len(e.rows) for e in held),
        }
        if spec.get("kind") == "rules":
            summary[name]["sentences_of"] = str((spec.get("sentences") or {}).get("path", ""))
        logger.info("%s: %d sentences, %d train, %d dev", name, len(examples), len(fit), len(held))
    if dev_limit is not None and len(dev) > int(dev_limit):
        ranked = sorted(dev, key=lambda e: stable_fraction("dev:" + e.text))
        dev, extra = ranked[: int(dev_limit)], ranked[int(dev_limit) :]
        train.extend(extra)
    if not train:
        raise ValueError("the teacher data give no training sentence with rows; check data.sources")
    return TeacherData(train=train, dev=dev, alignment=alignment, sources=summary)


# ---------------------------------------------------------------------------------------------
# Model


def build_tagger(model_cfg: Mapping[str, Any]):
    """The tagger and its tokenizer (with the sentinels added) from the ``model`` config.

    ``backbone`` is ``minilm`` (the offline default), a local path or a hub id; ``tokenizer``
    (default: the backbone's) likewise. With ``random_init`` (a transformers config: a
    ``model_type`` and sizes) the backbone is built from that config with random weights
    instead of loaded: tiny models for tests, or a backbone whose weights are not at hand. Its
    ``vocab_size`` and special token ids come from the tokenizer unless given.
    """
    from transformers import AutoConfig, AutoTokenizer

    from enoki_hd.igl.model import IGLTagger

    hub_kwargs: dict[str, Any] = {
        "local_files_only": bool(model_cfg.get("local_files_only", False)),
        "revision": model_cfg.get("revision"),
        "trust_remote_code": bool(model_cfg.get("trust_remote_code", False)),
    }
    backbone = resolve_backbone(str(model_cfg["backbone"]))
    tokenizer_name = resolve_backbone(str(model_cfg.get("tokenizer") or model_cfg["backbone"]))
    tokenizer = AutoTokenizer.from_pretrained(tokenizer_name, use_fast=True, **hub_kwargs)
    source: Any = backbone
    random_init = model_cfg.get("random_init")
    if random_init:
        fields = dict(random_init)
        if "model_type" not in fields:
            raise ValueError("model.random_init needs a model_type (bert, modernbert, ...)")
        model_type = fields.pop("model_type")
        defaults = AutoConfig.for_model(model_type)
        fields.setdefault("vocab_size", len(tokenizer))
        for name, token in _TOKEN_ID_FIELDS.items():
            value = getattr(tokenizer, token, None)
            if hasattr(defaults, name) and value is not None:
                fields.setdefault(name, value)
        source = AutoConfig.for_model(model_type, **fields)
    model = IGLTagger.from_backbone(
        source,
        tokenizer=tokenizer,
        local_files_only=hub_kwargs["local_files_only"],
        revision=hub_kwargs["revision"],
        trust_remote_code=hub_kwargs["trust_remote_code"],
        depth=int(model_cfg.get("depth", 3)),
        iterative_layers=int(model_cfg.get("iterative_layers", 2)),
        label_embeddings=bool(model_cfg.get("label_embeddings", True)),
        dropout=float(model_cfg.get("dropout", 0.1)),
    )
    return model, tokenizer


# ---------------------------------------------------------------------------------------------
# Batches and evaluation


def length_grouped_batches(
    lengths: Sequence[int], *, batch_size: int, seed: int, epoch: int, group: int = 64
) -> list[list[int]]:
    """Shuffle, sort by length within mega-batches of ``group * batch_size``, cut into batches,
    shuffle the batches: little padding, still random. Deterministic per (seed, epoch)."""
    rng = random.Random(seed * 1000 + epoch)
    order = list(range(len(lengths)))
    rng.shuffle(order)
    batches: list[list[int]] = []
    mega = group * batch_size
    for start in range(0, len(order), mega):
        chunk = sorted(order[start : start + mega], key=lambda i: lengths[i])
        batches.extend(chunk[i : i + batch_size] for i in range(0, len(chunk), batch_size))
    rng.shuffle(batches)
    return batches


@dataclass
class LabelCounts:
    """Word-level label counts over non-NONE labels: ``correct`` predicted labels equal to the
    matched gold row's, ``predicted`` non-NONE predictions (every depth), ``gold`` non-NONE
    gold labels (every gold row)."""

    correct: int = 0
    predicted: int = 0
    gold: int = 0

    def add(self, predicted, labels, word_mask, matches: list[list[tuple[int, int]]]) -> None:
        """``predicted`` (batch, depth, words) label ids; ``labels`` (batch, rows, words)."""
        mask = word_mask.bool()
        valid = (labels != IGNORE) & mask.unsqueeze(1)
        gold_on = valid & (labels != NONE)
        self.predicted += int(((predicted != NONE) & mask.unsqueeze(1)).sum())
        self.gold += int(gold_on.sum())
        for b, pairs in enumerate(matches):
            for d, g in pairs:
                self.correct += int(((predicted[b, d] == labels[b, g]) & gold_on[b, g]).sum())

    def scores(self) -> dict[str, float]:
        precision = self.correct / self.predicted if self.predicted else 0.0
        recall = self.correct / self.gold if self.gold else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        return {"precision": precision, "recall": recall, "f1": f1}


def evaluate_dev(model, windows, *, batch_size: int, device, loss_type: str) -> dict[str, float]:
    """Dev loss and word-level label F1 over non-NONE labels, depths matched to gold rows as
    the loss matches them (:func:`enoki_hd.igl.loss.match_depths`)."""
    import torch

    from enoki_hd.igl.data import collate
    from enoki_hd.igl.loss import match_depths

    counts = LabelCounts()
    losses: list[float] = []
    sizes: list[int] = []
    order = sorted(range(len(windows)), key=lambda i: len(windows[i].input_ids))
    model.eval()
    with torch.inference_mode():
        for start in range(0, len(order), batch_size):
            batch = collate([windows[i] for i in order[start : start + batch_size]])
            batch = {k: v.to(device) for k, v in batch.items()}
            out = model(**batch, loss_type=loss_type)
            losses.append(float(out.loss))
            sizes.append(batch["input_ids"].shape[0])
            predicted = out.logits.argmax(dim=-1)
            predicted = predicted.masked_fill(~batch["word_mask"].bool().unsqueeze(1), NONE)
            matches = match_depths(out.logits, batch["labels"], batch["word_mask"])
            counts.add(predicted, batch["labels"], batch["word_mask"], matches)
    model.train()
    scores = counts.scores()
    return {
        "dev_loss": float(np.average(losses, weights=sizes)) if losses else float("nan"),
        "dev_precision": round(scores["precision"], 4),
        "dev_recall": round(scores["recall"], 4),
        "dev_f1": round(scores["f1"], 4),
    }


# ---------------------------------------------------------------------------------------------
# Checkpoints


def checkpoint_dirs(state_dir: str | Path) -> list[Path]:
    """Finished checkpoints (``step-NNNNNNN``, no ``.tmp``) under ``state_dir``, oldest first."""
    state_dir = Path(state_dir)
    if not state_dir.is_dir():
        return []
    found = [
        p
        for p in state_dir.iterdir()
        if p.is_dir()
        and p.name.startswith(_CHECKPOINT_PREFIX)
        and p.name[len(_CHECKPOINT_PREFIX) :].isdigit()
    ]
    return sorted(found, key=lambda p: int(p.name[len(_CHECKPOINT_PREFIX) :]))


def interrupted_message(cfg: Mapping[str, Any]) -> str:
    """One line for a run stopped by Ctrl-C: the checkpoint its rerun resumes from (training
    saves one before it stops; after a second Ctrl-C inside a step, the one before)."""
    found = checkpoint_dirs(Path(cfg["paths"]["output_dir"]) / STATE_DIR)
    if not found:
        return "interrupted before the first checkpoint; rerun the same command to start again"
    step = int(found[-1].name[len(_CHECKPOINT_PREFIX) :])
    if cfg["trainer"].get("resume", True):
        rerun = "rerun the same command"
    else:
        rerun = "rerun without trainer.resume=false"
    return f"interrupted; the last checkpoint is step {step}: {rerun} to resume from {found[-1]}"


def save_checkpoint(
    state_dir: str | Path,
    state: dict[str, Any],
    *,
    config_yaml: str,
    keep: int = 1,
) -> Path:
    """Write ``state`` (with ``state["step"]``) and the composed config as
    ``state_dir/step-NNNNNNN/`` atomically: into ``step-NNNNNNN.tmp/`` first, then one rename.
    Older checkpoints beyond the newest ``keep`` are removed after the rename."""
    import torch

    state_dir = Path(state_dir)
    state_dir.mkdir(parents=True, exist_ok=True)
    final = state_dir / f"{_CHECKPOINT_PREFIX}{int(state['step']):07d}"
    tmp = final.with_name(final.name + ".tmp")
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir()
    torch.save(state, tmp / STATE_FILE)
    (tmp / CONFIG_FILE).write_text(config_yaml, encoding="utf-8")
    if final.exists():  # the same step saved again (a rerun that trained nothing)
        shutil.rmtree(final)
    os.replace(tmp, final)
    for old in checkpoint_dirs(state_dir)[: -max(1, keep)]:
        shutil.rmtree(old, ignore_errors=True)
    return final


def _save_model(
    model, tokenizer, target: Path, extra: Mapping[str, Any], inference: Mapping[str, Any]
) -> None:
    """``save_pretrained`` of model and tokenizer into ``target`` via a temporary folder, with
    ``extra`` written as ``dev_metrics.json`` and ``inference`` as the ``inference`` block of
    a ``manifest.json``, the settings :class:`~enoki_hd.extract.encoder.EncoderExtractor`
    loads the folder with (as the shipped ONNX folder's manifest gives them)."""
    from enoki_hd.extract.encoder import MANIFEST_FILE, TAGGER_KIND

    tmp = target.with_name(target.name + ".tmp")
    if tmp.exists():
        shutil.rmtree(tmp)
    with transformers_progress_off():
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
    (tmp / "dev_metrics.json").write_text(json.dumps(dict(extra), indent=2) + "\n")
    manifest = {"kind": TAGGER_KIND, "inference": dict(inference)}
    (tmp / MANIFEST_FILE).write_text(json.dumps(manifest, indent=2) + "\n")
    replace_dir(tmp, target)


def _config_yaml(cfg: Mapping[str, Any]) -> str:
    from omegaconf import OmegaConf

    return OmegaConf.to_yaml(OmegaConf.create(dict(cfg)))


def _rng_state() -> dict[str, Any]:
    import torch

    return {
        "torch": torch.get_rng_state(),
        "python": random.getstate(),
        "numpy": np.random.get_state(),
    }


def _set_rng_state(rng: Mapping[str, Any]) -> None:
    import torch

    torch.set_rng_state(rng["torch"])
    random.setstate(rng["python"])
    np.random.set_state(rng["numpy"])


# ---------------------------------------------------------------------------------------------
# Training


@dataclass
class RunState:
    """What a checkpoint carries besides the weights and the optimizer: the step, the early
    stopping state, the loss / dev F1 history and the training time so far."""

    step: int = 0
    best_f1: float | None = None
    bad_evals: int = 0
    stopped: bool = False
    train_seconds: float = 0.0
    history: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "best_f1": self.best_f1,
            "bad_evals": self.bad_evals,
            "stopped": self.stopped,
            "train_seconds": self.train_seconds,
            "history": list(self.history),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> RunState:
        return cls(
            step=int(d["step"]),
            best_f1=d["best_f1"],
            bad_evals=int(d["bad_evals"]),
            stopped=bool(d["stopped"]),
            train_seconds=float(d.get("train_seconds", 0.0)),
            history=list(d.get("history", [])),
        )


def check_distill_settings(cfg: Mapping[str, Any]) -> None:
    """The ``loss``, ``seed``, ``model`` and source ``limit`` settings :func:`distill` reads,
    checked before any data is read (they failed inside numpy, transformers or the model
    without their key, or after a whole run).

    Raises:
        SettingsError: naming the key, what it must be and the value given.
    """
    loss = cfg.get("loss", "hungarian")
    if loss not in ("hungarian", "position"):
        raise SettingsError(f"loss must be 'hungarian' or 'position', got {loss!r}")
    model_cfg = cfg["model"]
    try:
        require_int(cfg.get("seed", 13), "seed", minimum=0)
        require_int(model_cfg.get("depth", 3), "model.depth", minimum=1)
        require_int(model_cfg.get("iterative_layers", 2), "model.iterative_layers", minimum=0)
        require_int(model_cfg.get("max_length", 128), "model.max_length", minimum=1)
        require_int(
            model_cfg.get("inference_max_length"),
            "model.inference_max_length",
            minimum=1,
            optional=True,
        )
        for name, spec in (cfg.get("data", {}).get("sources") or {}).items():
            require_int(spec.get("limit"), f"data.sources.{name}.limit", minimum=0, optional=True)
    except (TypeError, ValueError) as err:  # the message names the key
        raise SettingsError(str(err)) from err
    check_model_folders(model_cfg, ("backbone", "tokenizer"))


def total_steps(trainer: Mapping[str, Any], steps_per_epoch: int) -> int:
    """``trainer.max_steps``, else ``trainer.epochs`` epochs of ``steps_per_epoch``."""
    if trainer.get("max_steps"):
        return int(trainer["max_steps"])
    return max(1, math.ceil(float(trainer["epochs"]) * steps_per_epoch))


def distill(cfg: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Train the tagger on the teacher data; returns ``(metrics, objects)``.

    ``cfg`` is the resolved Hydra config as a plain dict (keys: model, data, trainer, logger,
    paths, seed, loss). The best model by dev F1 (the last one without a dev set) is saved with
    its tokenizer to ``paths.output_dir/model``, with a ``manifest.json`` whose ``inference``
    block gives the windows the exported graph reads; ``train_metrics.json`` beside it holds the
    metrics, the data sources, the alignment coverage and the loss / dev F1 history.
    """
    import torch
    from tqdm.auto import tqdm

    from enoki_hd.igl.data import GridDataset, collate
    from enoki_hd.igl.model import IGLTagger

    trainer = cfg["trainer"]
    check_trainer(trainer)  # before any data is read
    check_distill_settings(cfg)
    seed = int(cfg.get("seed", 13))
    model_cfg = cfg["model"]
    loss_type = str(cfg.get("loss", "hungarian"))
    output_dir = Path(cfg["paths"]["output_dir"])
    output_dir.mkdir(parents=True, exist_ok=True)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    config_yaml = _config_yaml(cfg)

    try:
        data = build_teacher_data(cfg["data"], cache_dir=cfg["paths"].get("cache_dir"))
    except (OSError, ValueError) as err:  # a missing or malformed file: the message names it
        raise SettingsError(f"teacher data: {err}") from err
    accelerator = make_accelerator(cfg, trainer)
    model, tokenizer = build_tagger(model_cfg)
    max_length = int(model_cfg.get("max_length", 128))
    # longer windows overran the position embeddings inside torch, or (inference_max_length)
    # failed the export after the whole run
    positions = model.config.backbone_config().max_position_embeddings
    for key in ("max_length", "inference_max_length"):
        value = max_length if key == "max_length" else model_cfg.get(key)
        if positions and value and int(value) > positions:
            raise SettingsError(
                f"model.{key}={value} exceeds the {positions} position embeddings of the "
                f"backbone {model_cfg['backbone']!r}; set it to at most {positions}"
            )
    # the windows the exported graph reads (ship_tagger exports with this length), for the
    # torch backend too: without it, it read the model folder in windows as long as the
    # position embeddings (256 or 512 sub-tokens where training and the graph read 128)
    inference = {"backend": "torch", "depth": int(model_cfg.get("depth", 3))}
    if model_cfg.get("inference_max_length"):
        inference["max_length"] = int(model_cfg["inference_max_length"])
    train_set = GridDataset(data.train, tokenizer, max_length=max_length)
    dev_set = GridDataset(data.dev, tokenizer, max_length=max_length)
    windows = train_set.windows
    if not windows:
        raise SettingsError(
            f"model.max_length={max_length}: no training window survived encoding (a window "
            "holds the special tokens, the sentinels and whole words); raise model.max_length"
        )
    batch_size = int(trainer["batch_size"])
    steps_per_epoch = math.ceil(len(windows) / batch_size)
    n_steps = total_steps(trainer, steps_per_epoch)
    optimizer = torch.optim.AdamW(
        model.parameters(),
        lr=float(trainer["lr"]),
        weight_decay=float(trainer.get("weight_decay", 0.01)),
    )
    warmup_ratio = float(trainer.get("warmup_ratio", 0.06))
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: linear_lr_factor(s, n_steps, warmup_ratio)
    )

    state_dir = output_dir / STATE_DIR
    model_dir = output_dir / "model"
    run = RunState()
    # the losses since the last logged mean: saved with the state, so that the first mean
    # logged after a resume averages the steps the uninterrupted run's mean averages
    running: list[float] = []
    found = checkpoint_dirs(state_dir)
    settings = training_settings(cfg)
    if found and not trainer.get("resume", True):
        # left in place, the newest by step number outlived this run's own checkpoints (kept
        # by keep_checkpoints) and the next rerun resumed the old run
        logger.warning(
            "trainer.resume=false: removing the %d earlier checkpoints in %s", len(found), state_dir
        )
        for old in found:
            shutil.rmtree(old)
        found = []
    if found:
        state = torch.load(found[-1] / STATE_FILE, map_location="cpu", weights_only=False)
        check_resume(state.get("settings"), settings, found[-1])
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        _set_rng_state(state["rng"])
        run = RunState.from_dict(state["run"])
        running = [float(x) for x in state.get("running_losses", [])]
        logger.info("resuming from step %d of %d (%s)", run.step, n_steps, found[-1])
    model, optimizer, scheduler = accelerator.prepare(model, optimizer, scheduler)

    eval_every = int(trainer.get("eval_every") or 0)
    patience = int(trainer.get("patience") or 0)
    min_delta = float(trainer.get("min_delta", 0.0))
    save_every = int(trainer.get("save_every") or 0)
    log_every = int(trainer.get("log_every", 50))
    max_grad_norm = trainer.get("max_grad_norm", 1.0)
    keep = int(trainer.get("keep_checkpoints", 1))
    eval_batch = int(trainer.get("eval_batch_size", 64))
    lengths = [len(w.input_ids) for w in windows]
    start_step = saved_step = run.step
    rng = _rng_state()
    started = time.time()

    def checkpoint() -> None:
        """Save the state after the last finished step (its random states included, so the
        resumed run draws the dropout masks the uninterrupted one would have drawn)."""
        nonlocal saved_step
        saved_step = run.step
        if not accelerator.is_main_process:
            return
        state = {
            "model": accelerator.unwrap_model(model).state_dict(),
            "optimizer": optimizer.state_dict(),
            "scheduler": scheduler.state_dict(),
            "step": run.step,
            "rng": rng,
            "run": {**run.to_dict(), "train_seconds": run.train_seconds + time.time() - started},
            "settings": settings,
            "running_losses": list(running),
        }
        save_checkpoint(state_dir, state, config_yaml=config_yaml, keep=keep)

    def evaluate() -> float:
        """Dev scores now; keeps the best model, counts evaluations without progress."""
        scores = evaluate_dev(
            model,
            dev_set.windows,
            batch_size=eval_batch,
            device=accelerator.device,
            loss_type=loss_type,
        )
        run.history.append({"step": run.step, **scores})
        accelerator.log(scores, step=run.step)
        if run.best_f1 is None or scores["dev_f1"] > run.best_f1 + min_delta:
            run.best_f1, run.bad_evals = scores["dev_f1"], 0
            if accelerator.is_main_process:
                unwrapped = accelerator.unwrap_model(model)
                _save_model(
                    unwrapped, tokenizer, model_dir, {"step": run.step, **scores}, inference
                )
        else:
            run.bad_evals += 1
            run.stopped = bool(patience) and run.bad_evals >= patience
        logger.info(
            "step %d: dev F1 %.4f (best %.4f; %d evaluations without a better one)",
            run.step,
            scores["dev_f1"],
            run.best_f1,
            run.bad_evals,
        )
        return float(scores["dev_f1"])

    progress = tqdm(
        total=n_steps, initial=run.step, desc="distill", disable=not accelerator.is_main_process
    )
    shown: dict[str, str] = {}

    def show(**values: float) -> None:
        shown.update({k: f"{v:.4f}" for k, v in values.items()})
        progress.set_postfix(shown)

    if run.best_f1 is not None:
        show(dev_f1=next(h["dev_f1"] for h in reversed(run.history) if "dev_f1" in h))
    epoch = run.step // steps_per_epoch
    # Ctrl-C stops between steps (after the step's evaluation and saves), never inside one
    interrupt = StepBoundaryInterrupt()
    try:
        with interrupt:
            while run.step < n_steps and not run.stopped:
                batches = length_grouped_batches(
                    lengths, batch_size=batch_size, seed=seed, epoch=epoch
                )
                for position, indices in enumerate(batches):
                    global_step = epoch * steps_per_epoch + position
                    if global_step < run.step:
                        continue  # trained before a resume
                    if global_step >= n_steps or run.stopped:
                        break
                    if position % accelerator.num_processes != accelerator.process_index:
                        run.step += 1  # another process trains this batch
                        continue
                    interrupt.step_started()
                    model.train()
                    batch = {
                        k: v.to(accelerator.device)
                        for k, v in collate([windows[i] for i in indices]).items()
                    }
                    with accelerator.autocast():
                        loss = model(**batch, loss_type=loss_type).loss
                    accelerator.backward(loss)
                    if max_grad_norm:
                        accelerator.clip_grad_norm_(model.parameters(), float(max_grad_norm))
                    optimizer.step()
                    scheduler.step()
                    optimizer.zero_grad()
                    run.step += 1  # only now is the step finished (an interruption saves run.step)
                    rng = _rng_state()  # as it was after the step, not inside the next one
                    progress.update(1)
                    running.append(float(loss.item()))
                    if not run.history:  # the loss the run started from
                        run.history.append({"step": run.step, "loss": running[-1]})
                    if run.step % log_every == 0 or run.step == n_steps:
                        mean, lr = float(np.mean(running)), scheduler.get_last_lr()[0]
                        run.history.append({"step": run.step, "loss": mean, "lr": lr})
                        accelerator.log({"loss": mean, "lr": lr}, step=run.step)
                        show(loss=mean)
                        running = []
                    due = run.step % eval_every == 0 or run.step == n_steps if eval_every else False
                    if due and dev_set.windows:
                        show(dev_f1=evaluate())
                        checkpoint()
                    elif (save_every and run.step % save_every == 0) or run.step == n_steps:
                        checkpoint()
                    interrupt.check()  # a Ctrl-C during the step stops here, its state whole
                epoch += 1
    except KeyboardInterrupt:
        interrupt.save_on_stop(run.step, saved_step, checkpoint)
        raise
    finally:
        progress.close()
    if run.stopped:
        logger.info(
            "early stop at step %d: %d evaluations without a better dev F1", run.step, patience
        )
    if run.step > saved_step:
        checkpoint()
    if run.step > start_step:
        run.train_seconds += time.time() - started
    accelerator.wait_for_everyone()

    # no evaluation chose a best model (no dev set, or eval_every 0): the last one is shipped,
    # also over the folder an earlier, shorter run of the same state left behind
    if run.best_f1 is None and accelerator.is_main_process:
        unwrapped = accelerator.unwrap_model(model)
        _save_model(unwrapped, tokenizer, model_dir, {"step": run.step}, inference)
    accelerator.wait_for_everyone()
    with transformers_progress_off():
        best = IGLTagger.from_pretrained(model_dir).eval()
    best_scores = json.loads((model_dir / "dev_metrics.json").read_text())
    losses = [h["loss"] for h in run.history if "loss" in h]
    metrics: dict[str, Any] = {
        "train_sentences": len(data.train),
        "train_windows": len(windows),
        "dev_sentences": len(data.dev),
        "dev_windows": len(dev_set.windows),
        "steps": run.step,
        "max_steps": n_steps,
        "steps_per_epoch": steps_per_epoch,
        "early_stopped": run.stopped,
        "best_step": best_scores.get("step"),
        "loss_start": losses[0] if losses else None,
        "loss_end": losses[-1] if losses else None,
        "train_seconds": round(run.train_seconds, 1),
        **{k: v for k, v in best_scores.items() if k.startswith("dev_")},
    }
    encoding = {"train": train_set.stats.to_dict(), "dev": dev_set.stats.to_dict()}
    if accelerator.is_main_process:
        # atomic: a crash inside a plain write left a half-written file beside the model
        atomic_write(
            output_dir / "train_metrics.json",
            json.dumps(
                {
                    "metrics": metrics,
                    "sources": data.sources,
                    "alignment": data.alignment.to_dict(),
                    "encoding": encoding,
                    "history": run.history,
                },
                indent=2,
            )
            + "\n",
        )
    accelerator.log(
        {k: v for k, v in metrics.items() if isinstance(v, (int, float))}, step=run.step
    )
    accelerator.end_training()
    return metrics, {
        "model": best,
        "tokenizer": tokenizer,
        "data": data,
        "encoding": encoding,
        "model_dir": model_dir,
        "history": run.history,
    }


# ---------------------------------------------------------------------------------------------
# Shipping and CaRB


def _write_json_atomic(path: Path, payload: Any) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(payload, indent=2, sort_keys=True) + "\n")
    os.replace(tmp, path)


def distill_command(overrides: Sequence[str]) -> str:
    """The ``make distill`` command that reruns a run composed with ``overrides`` (Hydra's task
    overrides): ``+experiment=<name>`` as ``EXP=<name>``, the others as ``ARGS``."""
    experiment = "+experiment="
    words = ["make", "distill"]
    words += [f"EXP={o[len(experiment) :]}" for o in overrides if o.startswith(experiment)]
    others = [o for o in overrides if not o.startswith(experiment)]
    if others:
        words.append(f"ARGS={shlex.join(others)}")
    return shlex.join(words)


def ship_tagger(
    cfg: Mapping[str, Any],
    metrics: dict[str, Any],
    objects: Mapping[str, Any],
    *,
    reproduce: str = "make distill",
) -> Path:
    """Export the best model to ONNX (unrolled to ``model.depth``, int8 checked by label
    agreement on ``export.parity_sentences`` dev sentences) and ship it to ``ship_dir`` with a
    manifest: teacher sources with sizes, alignment coverage, encoding counts, the composed
    config, the metrics and ``reproduce``, the command that reruns the run
    (:func:`distill_command`). ``metrics`` gains the export's ``onnx_parity``,
    ``quantization_attempts`` and ``onnx_size_mb``."""
    from enoki_hd.igl.export import export_tagger

    model_cfg, export_cfg = cfg["model"], cfg.get("export") or {}
    data: TeacherData = objects["data"]
    limit = export_cfg.get("parity_sentences")
    parity = data.dev[: int(limit)] if limit else list(data.dev)
    if not parity:  # no dev set: the first training sentences
        parity = data.train[: int(limit or 100)]
    work_dir = Path(cfg["paths"]["output_dir"]) / "export"
    work_dir.mkdir(parents=True, exist_ok=True)
    licence = "; ".join(str(x) for x in (model_cfg.get("licence"), cfg["data"].get("licence")) if x)
    ship_dir = export_tagger(
        objects["model_dir"],
        cfg["ship_dir"],
        depth=int(model_cfg.get("depth", 3)),
        parity_examples=parity,
        opset=int(export_cfg.get("opset", 17)),
        quantize=export_cfg.get("quantize", "int8"),
        max_length=model_cfg.get("inference_max_length"),
        int8_options=export_cfg.get("int8"),
        min_label_agreement=float(export_cfg.get("min_label_agreement", 0.99)),
        min_row_agreement=float(export_cfg.get("min_row_agreement", 0.0)),
        metrics=metrics,
        data={
            "sources": data.sources,
            "alignment": data.alignment.to_dict(),
            "encoding": objects.get("encoding", {}),
        },
        config=dict(cfg),
        licence=licence,
        reproduce=reproduce,
        work_dir=work_dir,
    )
    manifest = json.loads((Path(ship_dir) / "manifest.json").read_text())
    for key in ("onnx_parity", "quantization_attempts", "onnx_size_mb"):
        if key in manifest["metrics"]:
            metrics[key] = manifest["metrics"][key]
    return Path(ship_dir)


def score_carb(
    cfg: Mapping[str, Any], ship_dir: str | Path, metrics: dict[str, Any]
) -> dict[str, Any]:
    """Score the shipped tagger (its ONNX graph, through the ``encoder`` extractor) on CaRB dev
    with :func:`enoki_hd.extract.carb.carb_score` (the official scorer's reproduction), every
    fact of each chain (``chains``) and only the widest fact of each chain (``collapsed``, the
    number the acceptance reads) — as ``make carb`` scores the rules extractor.

    ``metrics["carb_dev"]`` gets the scores; they are written into the shipped manifest and
    ``paths.output_dir/metrics.json`` too.
    """
    from enoki_hd.eval.datasets import load_carb
    from enoki_hd.extract.carb import carb_score, carb_tuples
    from enoki_hd.extract.encoder import EncoderExtractor

    carb_cfg = cfg.get("carb") or {}
    sentences_path = _existing_path(carb_cfg.get("sentences"), "carb.sentences", "data/carb/")
    gold_path = _existing_path(carb_cfg.get("gold"), "carb.gold", "data/carb/")
    carb = load_carb(sentences_path, gold_path)
    sentences = list(carb.sentences)
    if carb_cfg.get("limit"):
        sentences = sentences[: int(carb_cfg["limit"])]
    gold = {s: carb.gold.get(s, []) for s in sentences}
    ship_dir = Path(ship_dir)
    extractor = EncoderExtractor(path=ship_dir, batch_size=int(carb_cfg.get("batch_size", 32)))
    started = time.perf_counter()
    facts = extractor.extract_batch(sentences, sentences=[[Span(0, len(s))] for s in sentences])
    seconds = time.perf_counter() - started
    reported = ("precision", "recall", "f1", "auc", "threshold", "n_gold", "n_pred")
    scores: dict[str, Any] = {
        "match": "carb",
        "n_sentences": len(sentences),
        "extract_seconds": round(seconds, 2),
    }
    for setting, collapse in (("chains", False), ("collapsed", True)):
        predicted = {
            s: carb_tuples(f, collapse_chains=collapse)
            for s, f in zip(sentences, facts, strict=True)
        }
        result = carb_score(predicted, gold, match="carb")
        scores[setting] = {key: result[key] for key in reported}
    metrics["carb_dev"] = scores
    collapsed = scores["collapsed"]
    logger.info(
        "CaRB dev (%d sentences, chains collapsed): P %.3f R %.3f F1 %.3f AUC %.3f",
        len(sentences),
        collapsed["precision"],
        collapsed["recall"],
        collapsed["f1"],
        collapsed["auc"],
    )
    manifest_path = ship_dir / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["metrics"] = {**manifest.get("metrics", {}), "carb_dev": scores}
    _write_json_atomic(manifest_path, manifest)
    _write_json_atomic(Path(cfg["paths"]["output_dir"]) / "metrics.json", metrics)
    return scores
