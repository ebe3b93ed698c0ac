"""Ray Data: detect_dataset (map_batches, one detector per actor) and detect-batch --ray on a
local Ray instance, against the in-process output."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from detector_fakes import lexical_detector
from test_batch import _rows

from enoki_hd.batch import BatchRow, run_batch
from enoki_hd.cli import main

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
            "line": 1,
            "id": "a",
            "answer": "Marie Curie was born in Paris.",
            "context": "Marie Curie was born in Warsaw.",
        },
        {
            "line": 2,
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

    dataset = local_ray.data.from_items(
        [{"line": 1, "id": "p", "answer": answer, "context": passages}]
    )
    rows_out = detect_dataset(dataset, detector=lexical_detector, batch_size=1).take_all()
    report = json.loads(rows_out[0]["output"])["report"]
    assert [s["text"] for s in report["spans"]] == ["London"]
    assert report["facts"][0]["evidence"]["passage"] == 0


CURIE = "Marie Curie was born in Warsaw."


def test_detect_dataset_numbers_rows_by_their_line(local_ray) -> None:
    """Ids and lines unique across batches and actors: a row's line is its own column, and a
    missing or null id is that line."""
    from enoki_hd.integrations.ray import detect_dataset

    items = [
        {"line": n, "answer": f"Marie Curie was born in Paris {n}.", "context": CURIE}
        for n in range(1, 21)
    ]
    items[0]["id"] = "first"
    items[1]["id"] = None
    dataset = local_ray.data.from_items(items)
    rows = detect_dataset(dataset, detector=lexical_detector, actors=2, batch_size=8).take_all()
    found = sorted((row["line"], row["id"]) for row in rows)
    assert found == [(1, "first")] + [(n, n) for n in range(2, 21)]
    for row in rows:
        output = json.loads(row["output"])
        assert (output["line"], output["id"]) == (row["line"], row["id"])
        assert "report" in output

    no_line = local_ray.data.from_items([{"answer": "a.", "context": CURIE}])
    with pytest.raises(ValueError, match=r"needs a 'line' column"):
        detect_dataset(no_line, detector=lexical_detector)


def test_detect_dataset_reports_bad_rows_as_detect_batch_does(local_ray, tmp_path: Path) -> None:
    """Each bad row's output line is detect-batch's for the same row (less row_sha256, which
    only a file has); one dataset per row, since Arrow holds none of these mixes in a column."""
    from enoki_hd.integrations.ray import detect_dataset

    answer = "Marie Curie was born in Paris."
    items = [
        {"line": 1, "answer": None, "context": CURIE},
        {"line": 2, "context": CURIE},  # no answer column at all
        {"line": 3, "answer": answer, "context": ["a", 3]},
        {"line": 4, "id": 1.5, "answer": answer, "context": CURIE},
        {"line": 5, "id": True, "answer": answer, "context": CURIE},
        {"line": 6, "answer": answer, "context": CURIE, "question": 3},
        {"line": 7, "answer": answer, "context": 7},
    ]
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")
    local = tmp_path / "local.jsonl"
    run_batch(rows, local, detector=lexical_detector, progress=False)
    expected = []
    for text in local.read_text(encoding="utf-8").splitlines():
        output = json.loads(text)
        output.pop("row_sha256")
        assert "error" in output
        expected.append(output)

    datasets = [local_ray.data.from_items([item]) for item in items]
    dataset = datasets[0].union(*datasets[1:])
    out = detect_dataset(dataset, detector=lexical_detector, batch_size=1).take_all()
    found = sorted((json.loads(row["output"]) for row in out), key=lambda o: o["line"])
    assert found == expected
    assert [o["error"]["field"] for o in found] == [
        "answer",
        "answer",
        "context[1]",
        "id",
        "id",
        "question",
        "context",
    ]


def test_rows_are_written_as_soon_as_the_rows_before_them_are_done() -> None:
    from enoki_hd.integrations.ray import _in_order

    bad = {"field": None, "message": "blank line"}
    chunk = [BatchRow(1, "a"), BatchRow(2, 2, error=bad), BatchRow(3, "c"), BatchRow(4, "d")]
    written: list[str] = []

    def finished():
        yield 3, "three\n"
        assert written == []  # line 1 is not done: nothing can be written yet
        yield 1, "one\n"
        assert len(written) == 3  # 1, the bad row 2 and 3, before line 4 is done
        yield 4, "four\n"

    for line in _in_order(chunk, finished()):
        written.append(line)
    assert written[0] == "one\n" and written[2:] == ["three\n", "four\n"]
    assert json.loads(written[1]) == {"id": 2, "line": 2, "error": bad}


def test_a_missing_verifier_on_ray_is_the_in_process_error(
    local_ray, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Same one line and exit code as without --ray, and no --out left behind; a detector
    that fails inside the actors (run_batch, no check first) raises its own error too."""
    rows = tmp_path / "rows.jsonl"
    rows.write_text("\n".join(_rows(3)) + "\n", encoding="utf-8")
    missing = tmp_path / "no-such-verifier"
    base = ["detect-batch", "--input", str(rows), "--verifier", str(missing), "--no-progress"]
    errors = []
    for extra in ([], ["--ray", "local"]):
        out = tmp_path / f"out{len(extra)}.jsonl"
        with pytest.raises(SystemExit) as exit_info:
            main([*base, "--out", str(out), *extra])
        assert exit_info.value.code == 2
        errors.append(capsys.readouterr().err)
    assert errors[1] == errors[0]
    assert errors[1].count("\n") == 1 and "NLI verifier not found at" in errors[1]
    assert not (tmp_path / "out2.jsonl").exists()

    with pytest.raises(FileNotFoundError, match=r"NLI verifier not found at"):
        run_batch(
            rows,
            tmp_path / "lib.jsonl",
            detector={"verifier": {"path": str(missing)}},
            ray_address="local",
            progress=False,
        )


@pytest.mark.parametrize(
    ("address", "message"),
    [
        ("foo", "--ray 'foo': cannot connect"),
        ("bogus://", "--ray 'bogus://': cannot connect (Module: bogus does not exist."),
        # nothing listens there: Ray retried for minutes, a socket says so at once
        ("127.0.0.1:1", "--ray '127.0.0.1:1': nothing answers at 127.0.0.1:1"),
    ],
)
def test_a_bad_ray_address_is_a_usage_error(tmp_path: Path, address: str, message: str) -> None:
    """Run in a fresh process: this module's Ray instance would be reused whatever --ray says."""
    rows = tmp_path / "rows.jsonl"
    rows.write_text("\n".join(_rows(2)) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    args = ["detect-batch", "--input", str(rows), "--out", str(out), "--ray", address]
    done = subprocess.run(
        [sys.executable, "-m", "enoki_hd.cli", *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 2
    last = done.stderr.splitlines()[-1]  # Ray may log a line of its own before
    assert last.startswith(f"enoki detect-batch: error: {message}")
    assert not out.exists()
