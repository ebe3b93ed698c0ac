"""enoki detect-batch: streaming, input-ordered, resumable JSONL reports."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from detector_fakes import DELAY_ENV, KILL_ANSWER, dying_detector, lexical_detector

from enoki_hd.batch import (
    BatchError,
    BatchSummary,
    WorkerDied,
    finished_rows,
    parse_row,
    run_batch,
)
from enoki_hd.cli import main
from enoki_hd.verify.loading import default_verifier_path

TESTS = Path(__file__).resolve().parent
CONTEXTS = [
    "The Eiffel Tower is in Paris. It was completed in 1889. Gustave Eiffel's company built it.",
    "Marie Curie was born in Warsaw. She won the Nobel Prize in Physics in 1903.",
    "The Amazon river flows through Brazil. It is the largest river by discharge.",
]
ANSWERS = [
    "The Eiffel Tower is in Paris. It was completed in 1899.",
    "Marie Curie was born in Warsaw. She won the Nobel Prize in Chemistry in 1903.",
    "The Amazon river flows through Peru and Brazil.",
    "Gustave Eiffel's company built the tower in Paris.",
]
BAD_ROWS = {
    5: '{"id": "r5", "answer": "No context here."}',
    9: '{"id": "r9", "answer": 42, "context": "x"}',
    13: "{not json",
    17: '{"id": "r1", "answer": "dup", "context": "dup"}',
    21: "",
    25: '{"id": [1], "answer": "a", "context": "b"}',
}


def _rows(n: int) -> list[str]:
    lines = []
    for i in range(1, n + 1):
        if i in BAD_ROWS:
            lines.append(BAD_ROWS[i])
            continue
        row = {"id": f"r{i}", "answer": ANSWERS[i % 4], "context": CONTEXTS[i % 3]}
        if i % 2:
            row["question"] = "What does the text say?"
        if i % 7 == 0:
            row.pop("id")  # the line number stands in
        lines.append(json.dumps(row))
    return lines


@pytest.fixture
def rows_file(tmp_path: Path) -> Path:
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(_rows(30)) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def reference(rows_file: Path, tmp_path: Path) -> bytes:
    """The output of one uninterrupted in-process run."""
    out = tmp_path / "reference.jsonl"
    summary = run_batch(rows_file, out, detector=lexical_detector, progress=False)
    assert summary.done == summary.rows == 30 and summary.skipped == 0
    return out.read_bytes()


def test_every_row_once_in_input_order(reference: bytes) -> None:
    lines = [json.loads(line) for line in reference.decode().splitlines()]
    assert [line["line"] for line in lines] == list(range(1, 31))
    for line in lines:
        assert ("report" in line) != ("error" in line)
        expected_id = line["line"] if line["line"] % 7 == 0 else f"r{line['line']}"
        if line["line"] not in (13, 17, 21, 25):  # unparseable rows: the line number as id
            assert line["id"] == expected_id
        assert "timings" not in line.get("report", {})
    errors = {line["line"]: line["error"] for line in lines if "error" in line}
    assert set(errors) == set(BAD_ROWS)
    assert errors[5]["field"] == "context" and "missing" in errors[5]["message"]
    assert errors[9]["field"] == "answer" and "string" in errors[9]["message"]
    assert errors[13]["field"] is None and "JSON" in errors[13]["message"]
    assert errors[17]["field"] == "id" and "first on line 1" in errors[17]["message"]
    assert errors[25]["field"] == "id"
    flagged = next(line for line in lines if line["line"] == 1)["report"]
    assert [s["text"] for s in flagged["spans"]] == ["Chemistry"]


def test_killed_and_rerun_is_byte_identical(rows_file: Path, reference: bytes, tmp_path: Path):
    """kill -9 mid-run (plus a torn last line, as a crash mid-write leaves), rerun: the same
    bytes as an uninterrupted run, every row exactly once."""
    out = tmp_path / "killed.jsonl"
    script = (
        "import sys; from enoki_hd.batch import run_batch; from detector_fakes import "
        f"lexical_detector; run_batch({str(rows_file)!r}, {str(out)!r}, "
        "detector=lexical_detector, progress=False)"
    )
    env = {
        **os.environ,
        DELAY_ENV: "0.15",
        "PYTHONPATH": f"{TESTS}{os.pathsep}" + os.environ.get("PYTHONPATH", ""),
    }
    process = subprocess.Popen([sys.executable, "-c", script], env=env, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if out.exists() and out.read_bytes().count(b"\n") >= 8:
            break
        time.sleep(0.05)
    assert process.poll() is None, process.stderr.read().decode()[-2000:] if process.stderr else ""
    process.send_signal(signal.SIGKILL)
    process.wait()
    partial = out.read_bytes()
    written = partial.count(b"\n")
    assert 8 <= written < 30
    assert reference.startswith(partial)
    with out.open("ab") as handle:  # a torn write of the next row
        handle.write(b'{"id": "r99", "line": 9')

    summary = run_batch(rows_file, out, detector=lexical_detector, progress=False)
    assert summary.skipped == written and summary.done == 30 - written
    assert out.read_bytes() == reference
    again = run_batch(rows_file, out, detector=lexical_detector, progress=False)
    assert again.done == 0 and again.skipped == 30
    assert out.read_bytes() == reference


def test_workers_write_the_same_bytes(rows_file: Path, reference: bytes, tmp_path: Path) -> None:
    out = tmp_path / "workers.jsonl"
    summary = run_batch(rows_file, out, detector=lexical_detector, workers=2, progress=False)
    assert summary.done == 30
    assert out.read_bytes() == reference


def test_a_worker_that_cannot_build_its_detector_fails_the_job(tmp_path: Path) -> None:
    """With --workers 2 a missing verifier is the error it is, not a job that hangs while
    the pool restarts worker after worker."""
    rows = tmp_path / "rows.jsonl"
    rows.write_text("\n".join(_rows(4)) + "\n")
    out = tmp_path / "out.jsonl"
    missing = tmp_path / "no-verifier"
    with pytest.raises(FileNotFoundError, match=f"NLI verifier not found at {missing}"):
        run_batch(rows, out, detector={"verifier": {"path": str(missing)}}, workers=2)
    assert not out.exists()


def test_a_killed_worker_fails_the_job_and_a_rerun_resumes(tmp_path: Path) -> None:
    """A worker killed mid-row (out of memory) ends the job with WorkerDied instead of
    waiting forever for its row; the rows written before it stay and a rerun resumes."""
    rows = tmp_path / "rows.jsonl"
    lines = _rows(4)
    lines[2] = json.dumps({"id": "kill", "answer": KILL_ANSWER, "context": CONTEXTS[0]})
    rows.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out.jsonl"
    with pytest.raises(WorkerDied, match="worker process died"):
        run_batch(rows, out, detector=dying_detector, workers=2, in_flight=1, progress=False)
    assert [json.loads(line)["line"] for line in out.read_text().splitlines()] == [1, 2]
    summary = run_batch(rows, out, detector=lexical_detector, progress=False)
    assert (summary.skipped, summary.done) == (2, 2)


def test_cli_a_killed_worker_is_a_runtime_error(
    rows_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    import enoki_hd.batch

    def dies(*args: object, **kwargs: object) -> BatchSummary:
        raise WorkerDied("a detect-batch worker process died")

    monkeypatch.setattr(enoki_hd.batch, "run_batch", dies)
    argv = ["detect-batch", "--input", str(rows_file), "--out", str(tmp_path / "o.jsonl")]
    assert main([*argv, "--workers", "2"]) == 1
    assert (
        capsys.readouterr().err == "enoki detect-batch: error: a detect-batch worker process died\n"
    )


def test_out_of_another_input_is_refused(rows_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "other.jsonl"
    out.write_text('{"id": "zz", "line": 1, "report": {}}\n')
    with pytest.raises(BatchError, match="does not belong to this input"):
        run_batch(rows_file, out, detector=lexical_detector, progress=False)
    out.write_text("garbage\n")
    with pytest.raises(BatchError, match="not a detect-batch output line"):
        finished_rows(out)
    with pytest.raises(ValueError, match="workers"):
        run_batch(rows_file, out, detector=lexical_detector, workers=0)


def test_a_second_job_on_the_same_output_is_refused(rows_file: Path, tmp_path: Path) -> None:
    import fcntl

    out = tmp_path / "busy.jsonl"
    with out.open("ab") as other_job:
        fcntl.flock(other_job.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(BatchError, match="another detect-batch job"):
            run_batch(rows_file, out, detector=lexical_detector, progress=False)
    assert run_batch(rows_file, out, detector=lexical_detector, progress=False).done == 30


def test_resuming_reads_the_output_a_line_at_a_time(tmp_path: Path) -> None:
    """A rerun read the whole output into memory, three copies of it at once (the bytes, the
    complete lines, their split): a long job's output can be larger than memory."""
    import tracemalloc

    out = tmp_path / "out.jsonl"
    line = {"id": 0, "line": 0, "row_sha256": "0" * 16, "report": {"answer": "x" * 20_000}}
    with out.open("w") as handle:
        for n in range(1, 501):
            handle.write(json.dumps({**line, "id": n, "line": n}) + "\n")
        handle.write('{"id": 501, "line": 501, "rep')  # torn
    size = out.stat().st_size
    tracemalloc.start()
    try:
        done = finished_rows(out)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(done) == 500 and done.rows[-1] == (500, 500, "0" * 16)
    assert out.stat().st_size == size - len('{"id": 501, "line": 501, "rep')
    assert size > 10_000_000 and peak < size / 10


def test_summary_counts_errors_by_field() -> None:
    """A line that is not a JSON object is counted under "row", never under "None"."""
    summary = BatchSummary()
    for number, text in enumerate(["not json", "[1]", '{"answer": 3, "context": "c"}'], 1):
        summary.add({"id": number, "line": number, "error": parse_row(number, text).error})
    assert summary.to_dict()["error_fields"] == {"answer": 1, "row": 2}
    assert summary.errors == 3 and summary.done == 3


def test_parse_row_names_the_field() -> None:
    assert parse_row(3, '{"answer": "a", "context": "c"}').id == 3
    assert parse_row(1, '{"answer": "a", "context": "c", "question": 5}').error == {
        "field": "question",
        "message": "must be a string, got int",
    }
    assert parse_row(1, "[1, 2]").error["message"] == "expected a JSON object, got list"


@pytest.mark.skipif(
    not (default_verifier_path() / "model.onnx").is_file(), reason="no shipped verifier"
)
def test_cli_on_the_shipped_checkpoints(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """End to end on the real models: exit 3 for a bad row, reports for the others, a rerun
    does nothing."""
    rows = tmp_path / "rows.jsonl"
    rows.write_text(
        json.dumps({"id": "ok", "answer": ANSWERS[0], "context": CONTEXTS[0]})
        + "\n"
        + json.dumps({"id": "bad", "answer": ANSWERS[0]})
        + "\n",
        encoding="utf-8",
    )
    out = tmp_path / "reports.jsonl"
    argv = ["detect-batch", "--input", str(rows), "--out", str(out), "--no-progress"]
    assert main(argv) == 3
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["id"] for line in lines] == ["ok", "bad"]
    report = lines[0]["report"]
    assert report["config"]["verifier"]["backend"] == "onnx"
    assert any("1899" in span["text"] for span in report["spans"])
    assert lines[1]["error"]["field"] == "context"
    summary = json.loads(capsys.readouterr().err.split("enoki detect-batch: ", 1)[1])
    assert summary["done"] == 2 and summary["errors"] == 1 and summary["flagged_answers"] == 1
    assert main(argv) == 3  # nothing left to do; the bad row stays bad
    summary = json.loads(capsys.readouterr().err.split("enoki detect-batch: ", 1)[1])
    assert summary["skipped"] == 2 and summary["done"] == 0 and summary["skipped_errors"] == 1
    with pytest.raises(SystemExit) as exit_info:
        main(["detect-batch", "--input", str(rows), "--out", str(out), "--workers", "0"])
    assert exit_info.value.code == 2


def test_detect_stream_is_lazy_and_in_order() -> None:
    detector = lexical_detector()
    consumed: list[int] = []

    def rows():
        for i, answer in enumerate(ANSWERS):
            consumed.append(i)
            yield {"answer": answer, "context": CONTEXTS[0]}

    stream = detector.detect_stream(rows())
    first = next(stream)
    assert consumed == [0]
    assert [r.answer for r in [first, *stream]] == ANSWERS
    assert [r.answer for r in detector.detect_batch(rows(), progress=False)] == ANSWERS


def _run(rows_file: Path, out: Path) -> BatchSummary:
    return run_batch(rows_file, out, detector=lexical_detector, progress=False)


def test_unicode_line_separators_inside_rows_do_not_break_resuming(tmp_path: Path) -> None:
    """Rows are cut at \\n only: a U+2028, U+2029 or U+0085 inside a row is one of its
    characters, in the input and when a rerun reads the output back."""
    rows = tmp_path / "rows.jsonl"
    answers = ["Paris\u2028is the capital.", "It was\u2029completed in 1889.", "Nel\u0085here."]
    rows.write_text(
        "".join(
            json.dumps({"id": i, "answer": a, "context": CONTEXTS[0]}, ensure_ascii=False) + "\n"
            for i, a in enumerate(answers)
        ),
        encoding="utf-8",
    )
    out = tmp_path / "out.jsonl"
    first = _run(rows, out)
    assert (first.rows, first.done) == (3, 3)
    reference = out.read_bytes()
    again = _run(rows, out)
    assert (again.skipped, again.done) == (3, 0) and out.read_bytes() == reference
    assert [json.loads(line)["report"]["answer"] for line in reference.split(b"\n")[:-1]] == (
        answers
    )


def test_a_file_that_is_not_an_output_is_refused_untouched(rows_file: Path, tmp_path: Path):
    precious = tmp_path / "notes.txt"
    precious.write_bytes(b"first line\nlast line, no newline")
    with pytest.raises(BatchError, match="not a detect-batch output line"):
        _run(rows_file, precious)
    assert precious.read_bytes() == b"first line\nlast line, no newline"
    only_torn = tmp_path / "torn.txt"
    only_torn.write_bytes(b"precious text without a newline")
    with pytest.raises(BatchError, match="last line is not a detect-batch output line"):
        _run(rows_file, only_torn)
    assert only_torn.read_bytes() == b"precious text without a newline"
    with pytest.raises(BatchError, match="is the input file"):
        _run(rows_file, rows_file)
    with pytest.raises(BatchError, match="is a directory"):
        _run(rows_file, tmp_path)
    with pytest.raises(FileNotFoundError, match="is a directory"):
        _run(tmp_path, tmp_path / "out.jsonl")


def test_the_output_of_another_or_an_edited_input_is_refused(tmp_path: Path) -> None:
    """Rows without ids get their line numbers as ids, so ids alone cannot tell two inputs
    apart: each output line carries its row's row_sha256."""
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text(json.dumps({"answer": ANSWERS[0], "context": CONTEXTS[0]}) + "\n")
    b.write_text(json.dumps({"answer": ANSWERS[1], "context": CONTEXTS[1]}) + "\n")
    out = tmp_path / "out.jsonl"
    _run(a, out)
    written = out.read_bytes()
    line = json.loads(written)
    expected = hashlib.sha256(a.read_bytes().rstrip(b"\n")).hexdigest()[:16]
    assert list(line)[:3] == ["id", "line", "row_sha256"] and line["row_sha256"] == expected
    with pytest.raises(BatchError, match="another text of input line 1"):
        _run(b, out)
    assert out.read_bytes() == written
    # an output longer than its input
    longer = tmp_path / "longer.jsonl"
    longer.write_bytes(written + written.replace(b'"line": 1', b'"line": 2'))
    with pytest.raises(BatchError, match="it has 2 lines, the input only 1 rows"):
        _run(a, longer)


def test_other_detector_options_are_not_mixed_into_one_output(rows_file: Path, tmp_path: Path):
    out = tmp_path / "out.jsonl"
    rows_file.write_text("\n".join(_rows(30)[:2]) + "\n")
    run_batch(rows_file, out, detector={"threshold": 0.5}, progress=False)
    rows_file.write_text("\n".join(_rows(30)[:3]) + "\n")
    before = out.read_bytes()
    with pytest.raises(BatchError, match=r"other detector options \(threshold differs\)"):
        run_batch(rows_file, out, detector={"threshold": 0.7}, progress=False)
    assert out.read_bytes() == before
    assert run_batch(rows_file, out, detector={"threshold": 0.5}, progress=False).done == 1
    # a finished output too: a rerun with other options exited 0 over the old reports
    finished = out.read_bytes()
    with pytest.raises(BatchError, match=r"other detector options \(threshold differs\)"):
        run_batch(rows_file, out, detector={"threshold": 0.7}, progress=False)
    assert out.read_bytes() == finished
    assert run_batch(rows_file, out, detector={"threshold": 0.5}, progress=False).done == 0


def test_a_resumed_job_counts_the_bad_rows_an_earlier_run_wrote(
    rows_file: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out.jsonl"
    _run(rows_file, out)
    again = _run(rows_file, out)
    assert again.done == 0 and again.skipped_errors == len(BAD_ROWS)
    assert again.to_dict()["skipped_errors"] == len(BAD_ROWS)


def test_bad_bytes_a_bom_blank_lines_and_a_missing_last_newline(tmp_path: Path) -> None:
    rows = tmp_path / "rows.jsonl"
    good = json.dumps({"id": "a", "answer": ANSWERS[0], "context": CONTEXTS[0]}).encode()
    rows.write_bytes(
        b"\xef\xbb\xbf"
        + good
        + b"\n"
        + b'{"id": "b", "answer": "caf\xe9", "context": "x"}\n'
        + b"   \n"
        + b'{"id": "c", "answer": "a", "context": "b"'
    )
    out = tmp_path / "out.jsonl"
    summary = _run(rows, out)
    assert (summary.rows, summary.done, summary.errors) == (4, 4, 3)
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert "report" in lines[0] and lines[0]["id"] == "a"
    assert lines[1]["error"]["message"].startswith("not UTF-8 (byte 27 of the line)")
    assert "iconv" in lines[1]["error"]["message"]
    assert lines[2]["error"]["message"].startswith("blank line")
    assert lines[3]["error"]["message"] == "not valid JSON: Expecting ',' delimiter at column 42"


def test_an_id_a_bad_row_defaulted_to_is_not_given_twice(tmp_path: Path) -> None:
    rows = tmp_path / "rows.jsonl"
    rows.write_text(
        "{broken\n" + json.dumps({"id": 1, "answer": ANSWERS[0], "context": CONTEXTS[0]}) + "\n"
    )
    out = tmp_path / "out.jsonl"
    _run(rows, out)
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert lines[1]["error"] == {"field": "id", "message": "duplicate id, first on line 1"}


def test_a_detector_that_cannot_load_leaves_no_output_behind(
    rows_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    out = tmp_path / "reports.jsonl"
    missing = tmp_path / "no-verifier"
    argv = ["detect-batch", "--input", str(rows_file), "--out", str(out), "--no-progress"]
    argv += ["--verifier", str(missing)]
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    assert f"NLI verifier not found at {missing}" in capsys.readouterr().err
    assert not out.exists()  # an empty file was left, as if a job had started
    # an output that was there before is never removed by a failed run
    out.write_text("")
    with pytest.raises(SystemExit):
        main(argv)
    assert out.exists()


def test_a_bare_verifier_name_builds_a_cache_free_verifier(tiny_nli_dir: Path) -> None:
    """``{"verifier": "<path or shipped name>"}`` (as ``Detector(verifier)`` takes it) builds,
    and its verifier keeps no score cache, like a ``verifier`` mapping's."""
    from enoki_hd.batch import build_detector

    for spec in ({"verifier": str(tiny_nli_dir)}, {"verifier": {"path": str(tiny_nli_dir)}}):
        assert build_detector(spec).verifier.cache_size == 0
    assert (
        build_detector(
            {"verifier": {"path": str(tiny_nli_dir), "cache_size": 8}}
        ).verifier.cache_size
        == 8
    )
