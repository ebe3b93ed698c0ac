"""Ray Data: detect_dataset (map_batches, one detector per actor) and detect-batch --ray on a
local Ray instance, against the in-process output."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from detector_fakes import lexical_detector
from test_batch import _rows

from enoki_hd.batch import run_batch

ray = pytest.importorskip("ray", reason="ray is not installed (make install adds the ray extra)")

TESTS = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def local_ray():
    """A local Ray instance with 2 CPUs; its workers import the test fakes."""
    path = os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": path, "OMP_NUM_THREADS": "1"}},
    )
    yield ray
    ray.shutdown()


def test_detect_batch_on_ray_matches_local(local_ray, tmp_path: Path) -> None:
    rows = tmp_path / "rows.jsonl"
    rows.write_text("\n".join(_rows(12)) + "\n", encoding="utf-8")
    local = tmp_path / "local.jsonl"
    run_batch(rows, local, detector=lexical_detector, progress=False)
    on_ray = tmp_path / "ray.jsonl"
    summary = run_batch(
        rows, on_ray, detector=lexical_detector, ray_address="local", workers=1, progress=False
    )
    assert summary.done == 12 and summary.errors == 2  # rows 5 and 9 of test_batch.BAD_ROWS
    assert on_ray.read_bytes() == local.read_bytes()


def test_detect_dataset(local_ray) -> None:
    from enoki_hd.integrations.ray import detect_dataset

    items = [
        {
            "id": "a",
            "answer": "Marie Curie was born in Paris.",
            "context": "Marie Curie was born in Warsaw.",
        },
        {
            "id": "b",
            "answer": "Marie Curie was born in Warsaw.",
            "context": "Marie Curie was born in Warsaw.",
        },
    ]
    dataset = local_ray.data.from_items(items)
    rows = detect_dataset(dataset, detector=lexical_detector, actors=1, batch_size=2).take_all()
    outputs = {row["id"]: json.loads(row["output"]) for row in rows}
    assert set(outputs) == {"a", "b"}
    assert [s["text"] for s in outputs["a"]["report"]["spans"]] == ["Paris"]
    assert outputs["b"]["report"]["spans"] == []


def test_contexts_given_as_passages_on_ray(local_ray, tmp_path: Path) -> None:
    """A file mixing one-text contexts with lists of passages (Arrow holds neither mix in one
    column) gives on Ray the bytes it gives in process; a list column of a user's dataset too."""
    from enoki_hd.integrations.ray import detect_dataset

    passages = ["Suede is a rock band.", "The band formed in London."]
    answer = "Suede formed in London."
    rows = tmp_path / "rows.jsonl"
    items = [
        {"id": 1, "answer": answer, "context": "\n\n".join(passages)},
        {"id": "two", "answer": answer, "context": passages},
        {"id": 3, "answer": answer, "context": ["a", 3]},
    ]
    rows.write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")
    local = tmp_path / "local.jsonl"
    run_batch(rows, local, detector=lexical_detector, progress=False)
    on_ray = tmp_path / "ray.jsonl"
    summary = run_batch(
        rows, on_ray, detector=lexical_detector, ray_address="local", workers=1, progress=False
    )
    assert summary.done == 3 and summary.errors == 1
    assert on_ray.read_bytes() == local.read_bytes()
    outputs = [json.loads(line) for line in local.read_text().splitlines()]
    assert [s["text"] for s in outputs[1]["report"]["spans"]] == ["London"]
    assert outputs[0]["report"]["spans"] == []
    assert outputs[2]["error"]["field"] == "context[1]"

    dataset = local_ray.data.from_items([{"id": "p", "answer": answer, "context": passages}])
    rows_out = detect_dataset(dataset, detector=lexical_detector, batch_size=1).take_all()
    report = json.loads(rows_out[0]["output"])["report"]
    assert [s["text"] for s in report["spans"]] == ["London"]
    assert report["facts"][0]["evidence"]["passage"] == 0
