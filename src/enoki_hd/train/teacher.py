"""A verifier teacher for knowledge distillation: its probabilities on every training pair.

``trainer.teacher.path`` names a verifier checkpoint (the shipped ONNX one, or any directory or
hub id :class:`~enoki_hd.verify.nli.NLICrossEncoder` loads). Before training, the teacher scores
each distinct ``(premise, hypothesis)`` pair of the training mix once, through the detector's own
inference path (each pair alone, as the shipped int8 graph is run), at the student's training
``max_length``. The scores are written in chunks, each atomically, under
``<output_dir>/teacher/<key>/`` — ``key`` a sha256 of the teacher graph, the length, the chunk
size and every pair — so an interrupted run rescores only the chunks it had not finished, and a changed mix or
teacher never reuses old scores. ``workers`` processes score chunks side by side.

The student then trains on ``(1 - weight) * hard loss + weight * T**2 * KL(teacher_T ||
student_T)`` (:func:`distillation_loss`; Hinton et al., "Distilling the knowledge in a neural
network", 2015), the teacher's distribution softened by ``temperature``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import multiprocessing
import os
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import numpy as np

logger = logging.getLogger(__name__)

CHUNK = 2000
_WORKER: dict[str, Any] = {}


def validate_teacher(cfg: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """``trainer.teacher`` checked and with defaults; None when no teacher is configured.

    Raises:
        ValueError: a field out of range, named with its fix.
    """
    if not cfg or not cfg.get("path"):
        return None
    weight = float(cfg.get("weight", 0.5))
    temperature = float(cfg.get("temperature", 2.0))
    workers = int(cfg.get("workers", 1))
    if not 0.0 < weight <= 1.0:
        raise ValueError(f"trainer.teacher.weight must be in (0, 1], got {weight}")
    if temperature <= 0:
        raise ValueError(f"trainer.teacher.temperature must be > 0, got {temperature}")
    if workers < 1:
        raise ValueError(f"trainer.teacher.workers must be >= 1, got {workers}")
    return {
        "path": str(cfg["path"]),
        "weight": weight,
        "temperature": temperature,
        "workers": workers,
    }


def distinct_pairs(pairs: Sequence[Any]) -> tuple[list[tuple[str, str]], list[int]]:
    """The distinct ``(premise, hypothesis)`` pairs in first-seen order, and for each input pair
    the index of its distinct pair."""
    index: dict[tuple[str, str], int] = {}
    rows: list[int] = []
    for pair in pairs:
        key = (pair.premise, pair.hypothesis)
        rows.append(index.setdefault(key, len(index)))
    return list(index), rows


def cache_key(
    teacher_id: str, max_length: int, pairs: Sequence[tuple[str, str]], chunk: int
) -> str:
    """sha256 over the teacher's identity, the length, the chunk size and every pair (order
    included)."""
    digest = hashlib.sha256(f"{teacher_id}\n{max_length}\n{chunk}\n".encode())
    for premise, hypothesis in pairs:
        digest.update(premise.encode())
        digest.update(b"\x00")
        digest.update(hypothesis.encode())
        digest.update(b"\x01")
    return digest.hexdigest()[:16]


def teacher_identity(path: str) -> str:
    """The sha256 of the teacher's ONNX graph (what the detector runs from a checkpoint folder
    holding ``model.onnx``), else its path or hub id as given. Read without loading the model,
    so a run whose scores are all cached loads no teacher."""
    from enoki_hd.export.onnx import sha256_file

    graph = Path(path).expanduser() / "model.onnx"
    return sha256_file(graph) if graph.is_file() else str(path)


def _load(path: str, max_length: int) -> Any:
    from enoki_hd.verify.nli import NLICrossEncoder

    return NLICrossEncoder(path, max_length=max_length, cache_size=0)


def _init_worker(path: str, max_length: int) -> None:
    os.environ["ENOKI_ONNX_THREADS"] = "1"
    os.environ["OMP_NUM_THREADS"] = "1"
    _WORKER["model"] = _load(path, max_length)


def _score_chunk(pairs: list[tuple[str, str]], target: str) -> str:
    model = _WORKER["model"]
    scores = model.predict(pairs)
    probs = np.array([[s.entailment, s.neutral, s.contradiction] for s in scores], np.float32)
    tmp = f"{target}.tmp.npy"
    np.save(tmp, probs)
    os.replace(tmp, target)
    return target


def teacher_probabilities(
    pairs: Sequence[Any],
    teacher: Mapping[str, Any],
    *,
    max_length: int,
    cache_dir: Path,
    progress: bool = True,
) -> np.ndarray:
    """The teacher's probabilities (entailment, neutral, contradiction) per pair of ``pairs``,
    shape ``(len(pairs), 3)``, float32 — scored once per distinct pair, cached and resumable
    (module docstring)."""
    from tqdm.auto import tqdm

    from enoki_hd.types import NLI_LABELS

    if tuple(NLI_LABELS) != ("entailment", "neutral", "contradiction"):  # pragma: no cover
        raise AssertionError("teacher probabilities are stored in NLI_LABELS order")
    unique, rows = distinct_pairs(pairs)
    teacher_id = teacher_identity(teacher["path"])
    key = cache_key(teacher_id, max_length, unique, CHUNK)
    folder = Path(cache_dir) / key
    folder.mkdir(parents=True, exist_ok=True)
    about = folder / "about.json"
    about.with_suffix(".tmp").write_text(
        json.dumps(
            {
                "teacher": teacher["path"],
                "teacher_id": teacher_id,
                "max_length": max_length,
                "pairs": len(unique),
                "chunk": CHUNK,
            },
            indent=2,
        )
    )
    os.replace(about.with_suffix(".tmp"), about)
    chunks = [
        (start, str(folder / f"chunk_{start // CHUNK:05d}.npy"))
        for start in range(0, len(unique), CHUNK)
    ]
    todo = [(start, target) for start, target in chunks if not Path(target).is_file()]
    logger.info(
        "teacher %s: %d distinct pairs, %d of %d chunks to score (%s)",
        teacher["path"],
        len(unique),
        len(todo),
        len(chunks),
        folder,
    )
    bar = tqdm(
        total=len(chunks), initial=len(chunks) - len(todo), desc="teacher", disable=not progress
    )
    if todo:
        workers = int(teacher.get("workers", 1))
        if workers == 1:
            _WORKER["model"] = _load(teacher["path"], max_length)
            try:
                for start, target in todo:
                    _score_chunk(unique[start : start + CHUNK], target)
                    bar.update(1)
            finally:
                _WORKER.clear()  # the teacher's session is not kept past scoring
        else:
            # spawn, not fork: the training process has torch's thread pools running
            with ProcessPoolExecutor(
                workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_init_worker,
                initargs=(teacher["path"], max_length),
            ) as pool:
                futures = [
                    pool.submit(_score_chunk, unique[start : start + CHUNK], target)
                    for start, target in todo
                ]
                for future in as_completed(futures):
                    future.result()
                    bar.update(1)
    bar.close()
    table = (
        np.concatenate([np.load(target) for _, target in chunks])
        if chunks
        else np.zeros((0, 3), np.float32)
    )
    if table.shape != (len(unique), 3):
        raise RuntimeError(
            f"teacher cache {folder} holds {table.shape[0]} rows for {len(unique)} pairs; "
            "delete the folder and rerun"
        )
    return table[np.asarray(rows, dtype=np.int64)] if rows else table


def distillation_loss(logits: Any, teacher_probs: Any, temperature: float) -> Any:
    """``T**2 * KL(softmax(log p_teacher / T) || softmax(logits / T))``, averaged over the batch."""
    import torch

    t = float(temperature)
    target = torch.softmax(torch.log(teacher_probs.float().clamp_min(1e-8)) / t, dim=-1)
    log_student = torch.log_softmax(logits.float() / t, dim=-1)
    kl = (target * (torch.log(target.clamp_min(1e-12)) - log_student)).sum(dim=-1)
    return kl.mean() * t * t
