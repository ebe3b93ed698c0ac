"""Knowledge distillation for the verifier (enoki_hd.train.teacher): the teacher's cached,
resumable probabilities, the loss and the config checks (a tiny training run with a teacher:
tests/test_train_verifier.py)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from enoki_hd.train import teacher as teacher_module
from enoki_hd.train.teacher import (
    cache_key,
    distillation_loss,
    distinct_pairs,
    teacher_probabilities,
    validate_teacher,
)

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Pair:
    premise: str
    hypothesis: str


PAIRS = [
    Pair("A man plays a guitar on stage.", "A man plays music."),
    Pair("Two dogs run in a park.", "The dogs are brothers."),
    Pair("A man plays a guitar on stage.", "A man plays music."),  # a repeat (repeat: 2)
    Pair("A child sleeps on a sofa.", "A child is jumping."),
    Pair("The band formed in London in 1989.", "The band formed in 1989."),
    Pair("Two dogs run in a park.", "The dogs are brothers."),
    Pair("A woman reads in a cafe.", "The woman reads a novel."),
]


def test_validate_teacher_defaults_and_named_errors() -> None:
    assert validate_teacher(None) is None
    assert validate_teacher({"path": None}) is None
    assert validate_teacher({"path": "ckpt"}) == {
        "path": "ckpt",
        "weight": 0.5,
        "temperature": 2.0,
        "workers": 1,
    }
    with pytest.raises(ValueError, match=r"trainer\.teacher\.weight must be in \(0, 1\], got 0\.0"):
        validate_teacher({"path": "ckpt", "weight": 0})
    with pytest.raises(ValueError, match=r"trainer\.teacher\.temperature must be > 0, got -1\.0"):
        validate_teacher({"path": "ckpt", "temperature": -1})
    with pytest.raises(ValueError, match=r"trainer\.teacher\.workers must be >= 1, got 0"):
        validate_teacher({"path": "ckpt", "workers": 0})


def test_distinct_pairs_keep_first_seen_order_and_map_every_row() -> None:
    unique, rows = distinct_pairs(PAIRS)
    assert len(unique) == 5
    assert unique[0] == ("A man plays a guitar on stage.", "A man plays music.")
    assert rows == [0, 1, 0, 2, 3, 1, 4]


def test_cache_key_changes_with_teacher_length_chunk_and_pairs() -> None:
    unique, _ = distinct_pairs(PAIRS)
    key = cache_key("sha-a", 128, unique, 2000)
    assert key == cache_key("sha-a", 128, list(unique), 2000)
    others = {
        cache_key("sha-b", 128, unique, 2000),
        cache_key("sha-a", 256, unique, 2000),
        cache_key("sha-a", 128, unique, 1000),
        cache_key("sha-a", 128, unique[::-1], 2000),
        cache_key("sha-a", 128, unique[:-1], 2000),
    }
    assert len(others | {key}) == 6


def test_distillation_loss_is_the_tempered_kl() -> None:
    torch = pytest.importorskip("torch")
    teacher = torch.tensor([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8]])
    # a student whose logits are the teacher's log-probabilities matches it at any temperature
    same = torch.log(teacher)
    for t in (1.0, 2.0, 4.0):
        assert float(distillation_loss(same, teacher, t)) == pytest.approx(0.0, abs=1e-6)
    student = torch.tensor([[0.0, 1.0, 0.0], [2.0, 0.0, -1.0]])
    # T = 1: the plain KL(teacher || student), averaged over rows
    q = torch.softmax(student, dim=-1)
    expected = float((teacher * (teacher.log() - q.log())).sum(-1).mean())
    assert float(distillation_loss(student, teacher, 1.0)) == pytest.approx(expected, rel=1e-5)
    # T = 2: both sides softened, scaled by T^2
    p2 = torch.softmax(teacher.log() / 2, dim=-1)
    q2 = torch.softmax(student / 2, dim=-1)
    expected2 = 4 * float((p2 * (p2.log() - q2.log())).sum(-1).mean())
    assert float(distillation_loss(student, teacher, 2.0)) == pytest.approx(expected2, rel=1e-5)


def test_teacher_probabilities_match_the_verifier_and_resume(
    tiny_nli_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from enoki_hd.verify.nli import NLICrossEncoder

    monkeypatch.setattr(teacher_module, "CHUNK", 2)
    spec = {"path": str(tiny_nli_dir), "weight": 0.5, "temperature": 2.0, "workers": 1}
    probs = teacher_probabilities(PAIRS, spec, max_length=64, cache_dir=tmp_path, progress=False)
    assert probs.shape == (7, 3) and probs.dtype == np.float32
    verifier = NLICrossEncoder(tiny_nli_dir, max_length=64, cache_size=0)
    for pair, row in zip(PAIRS, probs, strict=True):
        (scores,) = verifier.predict([(pair.premise, pair.hypothesis)])
        expected = [scores.entailment, scores.neutral, scores.contradiction]
        np.testing.assert_allclose(row, expected, atol=1e-6)
    np.testing.assert_array_equal(probs[0], probs[2])
    (folder,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    chunks = sorted(folder.glob("chunk_*.npy"))
    assert [c.name for c in chunks] == ["chunk_00000.npy", "chunk_00001.npy", "chunk_00002.npy"]
    about = json.loads((folder / "about.json").read_text())
    assert about["pairs"] == 5 and about["max_length"] == 64

    # an interrupted run: one chunk missing, a stray temporary file; only that chunk is scored
    chunks[1].unlink()
    (folder / "chunk_00001.npy.tmp.npy").write_bytes(b"half")
    kept = {c.name: c.stat().st_mtime_ns for c in (chunks[0], chunks[2])}
    scored: list[int] = []
    original = teacher_module._score_chunk

    def counting(pairs, target):
        scored.append(len(pairs))
        return original(pairs, target)

    monkeypatch.setattr(teacher_module, "_score_chunk", counting)
    again = teacher_probabilities(PAIRS, spec, max_length=64, cache_dir=tmp_path, progress=False)
    assert scored == [2]
    assert {c.name: c.stat().st_mtime_ns for c in (chunks[0], chunks[2])} == kept
    np.testing.assert_array_equal(again, probs)

    assert teacher_module._WORKER == {}  # the teacher is not kept after scoring

    # a different length is a different cache
    teacher_probabilities(PAIRS, spec, max_length=32, cache_dir=tmp_path, progress=False)
    assert len([p for p in tmp_path.iterdir() if p.is_dir()]) == 2


def test_teacher_workers_give_the_same_probabilities(
    tiny_nli_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(teacher_module, "CHUNK", 2)
    one = {"path": str(tiny_nli_dir), "workers": 1}
    two = {"path": str(tiny_nli_dir), "workers": 2}
    alone = teacher_probabilities(PAIRS, one, max_length=64, cache_dir=tmp_path / "a")
    side_by_side = teacher_probabilities(PAIRS, two, max_length=64, cache_dir=tmp_path / "b")
    np.testing.assert_array_equal(alone, side_by_side)
    (folder,) = (tmp_path / "b").iterdir()
    assert sorted(p.name for p in folder.iterdir()) == [
        "about.json",
        "chunk_00000.npy",
        "chunk_00001.npy",
        "chunk_00002.npy",
    ]


def test_the_distilled_experiment_names_the_shipped_teacher() -> None:
    from hydra import compose, initialize

    with initialize(version_base="1.3", config_path="../configs"):
        cfg = compose(
            config_name="train_verifier",
            overrides=["+experiment=l3kd", f"paths.root_dir={ROOT}"],
        )
    assert cfg.model.num_layers == 3
    assert cfg.trainer.teacher.path == f"{ROOT}/checkpoints/verifier-minilm"
    assert (cfg.trainer.teacher.weight, cfg.trainer.teacher.temperature) == (0.5, 2.0)
    assert cfg.trainer.lr_stages is None
    assert cfg.reproduce == "make train-verifier EXP=l3kd"
    assert cfg.ship_dir == f"{ROOT}/outputs/train_verifier/minilm-l3kd/ship"  # not checkpoints/
    assert (ROOT / "checkpoints" / "verifier-minilm" / "model.onnx").is_file()
