from __future__ import annotations

import io
import json
import os
import threading
from collections import Counter
from pathlib import Path

import pytest

from enoki_hd import __version__
from enoki_hd.cli import main


def run_cli(
    args: list[str], capsys, stdin: str | bytes | None = None, monkeypatch=None
) -> tuple[int, str, str]:
    if stdin is not None:
        raw = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8"))
    try:
        code = main(args)
    except SystemExit as exit_:
        code = exit_.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    context = tmp_path / "context.txt"
    answer = tmp_path / "answer.txt"
    context.write_text("Suede formed in London in 1989. The band split in 2003.", encoding="utf-8")
    answer.write_text("Suede formed in London. It split in 1998.", encoding="utf-8")
    return context, answer


def test_version(capsys) -> None:
    assert run_cli(["version"], capsys) == (0, f"enoki-hd {__version__}\n", "")


def test_help_lists_examples(capsys) -> None:
    code, out, _ = run_cli(["detect", "--help"], capsys)
    assert code == 0
    assert "enoki detect --context context.txt --answer answer.txt" in out
    assert "exit codes" in out


def test_missing_file_is_usage_error_naming_argument(files, capsys) -> None:
    context, _ = files
    code, out, err = run_cli(["detect", "--context", str(context), "--answer", "nope.txt"], capsys)
    assert code == 2 and out == ""
    assert err == "enoki detect: error: argument --answer: file not found: nope.txt\n"


def test_a_pipe_is_read_like_a_file(files, capsys, tmp_path: Path) -> None:
    """``--context <(curl ...)`` hands the command a pipe (``/dev/fd/63``): it exists, it is
    no regular file, and its text is the context."""
    context, answer = files
    pipe = tmp_path / "context.pipe"
    os.mkfifo(pipe)
    writer = threading.Thread(target=pipe.write_text, args=(context.read_text(),), daemon=True)
    writer.start()
    try:
        code, out, err = run_cli(
            ["detect", "--context", str(pipe), "--answer", str(answer), "--stable"], capsys
        )
    finally:
        writer.join(timeout=10)
    assert (code, err) == (0, "")
    expected = run_cli(
        ["detect", "--context", str(context), "--answer", str(answer), "--stable"], capsys
    )
    assert out == expected[1]


def test_unreadable_text_files_are_usage_errors_naming_argument_and_fix(
    files, capsys, tmp_path: Path
) -> None:
    context, _ = files
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes("Café Noir opened in 1991.".encode("cp1252"))
    utf16 = tmp_path / "utf16.txt"
    utf16.write_text("Café Noir opened in 1991.", encoding="utf-16")  # with its byte-order mark
    utf16_bare = tmp_path / "utf16le.txt"
    utf16_bare.write_text("Cafe Noir opened in 1991.", encoding="utf-16-le")  # decodes, with NULs
    cases = [
        (
            latin1,
            f"argument --answer: {latin1} is not UTF-8 text (invalid continuation byte at byte 3);"
            f" save it as UTF-8, e.g. iconv -f WINDOWS-1252 -t UTF-8 {latin1}",
        ),
        (
            utf16,
            f"argument --answer: {utf16} is not UTF-8 text (invalid start byte at byte 0); it "
            f"starts with a UTF-16 byte-order mark; convert it: iconv -f UTF-16 -t UTF-8 {utf16}",
        ),
        (
            utf16_bare,
            f"argument --answer: {utf16_bare} contains NUL characters (UTF-16 or a binary file?); "
            "give UTF-8 text",
        ),
        (tmp_path, f"argument --answer: {tmp_path} is a directory; give a text file"),
    ]
    for path, message in cases:
        code, out, err = run_cli(
            ["detect", "--context", str(context), "--answer", str(path)], capsys
        )
        assert (code, out, err) == (2, "", f"enoki detect: error: {message}\n")


def test_a_byte_order_mark_is_not_part_of_the_text(
    files, capsys, monkeypatch, tmp_path: Path
) -> None:
    """Offsets count from after a UTF-8 byte-order mark, in a file as on standard input."""
    context, _ = files
    text = "Suede formed in London. It split in 1998."
    answer = tmp_path / "bom.txt"
    answer.write_bytes(b"\xef\xbb\xbf" + text.encode())
    for source, stdin in ((str(answer), None), ("-", "\ufeff" + text)):
        code, out, _ = run_cli(
            ["detect", "--context", str(context), "--answer", source, "--stable"],
            capsys,
            stdin,
            monkeypatch,
        )
        report = json.loads(out)
        assert code == 0 and report["answer"] == text
        assert [(s["start"], s["end"], s["text"]) for s in report["spans"]] == [(36, 40, "1998")]


def test_keep_frames_judges_the_frame_as_claim_text(files, capsys, tmp_path: Path) -> None:
    context, _ = files
    answer = tmp_path / "framed.txt"
    answer.write_text("According to the provided context, Suede formed in London.")
    spans = {}
    for flag in ([], ["--keep-frames"]):
        code, out, _ = run_cli(
            ["detect", "--context", str(context), "--answer", str(answer), "--stable", *flag],
            capsys,
        )
        report = json.loads(out)
        assert code == 0 and report["config"]["mask_frames"] is not bool(flag)
        spans[bool(flag)] = [s["text"] for s in report["spans"]]
    assert spans[False] == [] and "According" in " ".join(spans[True])


def test_both_from_stdin_is_usage_error(capsys, monkeypatch) -> None:
    code, _, err = run_cli(["detect", "--context", "-", "--answer", "-"], capsys, "x", monkeypatch)
    assert code == 2
    assert "argument --answer: standard input is already used by --context" in err


def test_bad_format_and_threshold(files, capsys) -> None:
    context, answer = files
    code, _, err = run_cli(
        ["detect", "--context", str(context), "--answer", str(answer), "--format", "pdf"], capsys
    )
    assert code == 2 and "argument --format: invalid choice: 'pdf'" in err
    code, _, err = run_cli(
        ["detect", "--context", str(context), "--answer", str(answer), "--threshold", "2"], capsys
    )
    assert code == 2 and "argument --threshold: must be in [0, 1], got 2.0" in err


def test_missing_verifier_names_path_and_fix(files, capsys, tmp_path: Path) -> None:
    context, answer = files
    missing = tmp_path / "no-such-verifier"
    code, _, err = run_cli(
        ["detect", "--context", str(context), "--answer", str(answer), "--verifier", str(missing)],
        capsys,
    )
    assert code == 2
    assert str(missing) in err and "make train-verifier" in err


def test_detect_json_with_a_model_path(files, capsys, tiny_nli_dir: Path, tmp_path: Path) -> None:
    context, answer = files
    out_file = tmp_path / "report.json"
    code, out, _ = run_cli(
        [
            "detect",
            "--context",
            str(context),
            "--answer",
            str(answer),
            "--verifier",
            str(tiny_nli_dir),
            "--stable",
            "--out",
            str(out_file),
        ],
        capsys,
    )
    assert code == 0 and out == ""
    report = json.loads(out_file.read_text(encoding="utf-8"))
    assert [s["text"] for s in report["sentences"]] == [
        "Suede formed in London.",
        "It split in 1998.",
    ]
    assert [(s["span"]["start"], s["span"]["end"]) for s in report["sentences"]] == [
        (0, 23),
        (24, 41),
    ]
    assert "timings" not in report
    assert report["summary"]["checked"] == 2


@pytest.fixture
def lexical_verifier(monkeypatch) -> None:
    """`--verifier anything` loads the deterministic lexical fake."""
    from fakes import LexicalVerifier

    monkeypatch.setattr("enoki_hd.detector.NLICrossEncoder", lambda path: LexicalVerifier())


def _pair(tmp_path: Path, context: str, answer: str) -> list[str]:
    (tmp_path / "c.txt").write_text(context, encoding="utf-8")
    (tmp_path / "a.txt").write_text(answer, encoding="utf-8")
    return [
        "detect",
        "--context",
        str(tmp_path / "c.txt"),
        "--answer",
        str(tmp_path / "a.txt"),
        "--verifier",
        "fake",
    ]


def test_fail_under_exits_3(tmp_path, capsys, lexical_verifier) -> None:
    args = _pair(tmp_path, "Suede formed in London.", "Suede formed in Manchester.")
    code, _, err = run_cli([*args, "--fail-under", "0.9"], capsys)
    assert code == 3 and "faithfulness 0.000 < 0.9" in err
    assert run_cli([*args, "--fail-under", "0"], capsys)[0] == 0


def test_fail_on_contradicted_exits_4(tmp_path, capsys, lexical_verifier) -> None:
    args = _pair(tmp_path, "Suede was formed in 1989.", "Suede was formed in 1995.")
    code, out, err = run_cli([*args, "--fail-on-contradicted", "--stable"], capsys)
    assert code == 4 and "contradicts" in err
    report = json.loads(out)
    assert [(s["start"], s["end"], s["text"], s["label"]) for s in report["spans"]] == [
        (20, 24, "1995", "contradicted")
    ]


def test_html_report_file(tmp_path, capsys, lexical_verifier) -> None:
    args = _pair(tmp_path, "Suede formed in London.", "Suede formed in Manchester.")
    out_file = tmp_path / "report.html"
    assert run_cli([*args, "--format", "html", "--out", str(out_file)], capsys)[0] == 0
    page = out_file.read_text(encoding="utf-8")
    # "formed in London" in the context: Manchester fills its slot wrongly (name-role conflict)
    assert '<mark class="contradicted"' in page and ">Manchester</mark>" in page
    assert "http://" not in page.replace("http://www.w3.org", "")


def test_unknown_extractor_is_usage_error(tmp_path, capsys, lexical_verifier) -> None:
    args = _pair(tmp_path, "x.", "y.")
    code, _, err = run_cli([*args, "--extractor", "magic"], capsys)
    assert code == 2 and "argument --extractor: unknown extractor 'magic'; choose from none" in err


def test_extract_prints_fact_json_lines(tmp_path, capsys) -> None:
    (tmp_path / "a.txt").write_text("Suede formed in London.", encoding="utf-8")
    code, out, _ = run_cli(["extract", "--answer", str(tmp_path / "a.txt")], capsys)
    facts = [json.loads(line) for line in out.splitlines()]
    assert code == 0
    assert [(f["subject"], f["relation"], f["object"]) for f in facts] == [
        ("Suede", "formed in", "London")
    ]
    assert facts[0]["object_spans"] == [{"start": 16, "end": 22}]


GERMAN = "Die Band wurde 1989 in London gegründet. Ihr erstes Album gewann den Preis."


@pytest.mark.parametrize(
    "gate", [["--fail-under", "0.9"], ["--fail-on-contradicted"], ["--fail-under", "0"]]
)
def test_gates_fail_closed_on_an_unchecked_answer(tmp_path, capsys, lexical_verifier, gate) -> None:
    args = _pair(tmp_path, "Suede formed in London in 1989.", GERMAN)
    code, out, err = run_cli([*args, *gate, "--stable"], capsys)
    assert code == 3
    assert "not wholly checked (status unsupported_language, 2 sentence(s) unchecked)" in err
    assert "--allow-unchecked" in err
    summary = json.loads(out)["summary"]
    assert (summary["status"], summary["faithfulness"], summary["hallucinated"]) == (
        "unsupported_language",
        None,
        None,
    )
    assert run_cli([*args, *gate, "--allow-unchecked"], capsys)[0] == 0


def test_without_a_gate_an_unchecked_answer_is_reported_not_failed(
    tmp_path, capsys, lexical_verifier
) -> None:
    args = _pair(tmp_path, "Suede formed in London in 1989.", GERMAN)
    assert run_cli(args, capsys)[0] == 0


def test_a_long_sentence_is_judged_in_pieces(tmp_path, capsys, lexical_verifier) -> None:
    sentence = ", ".join(["the band formed in London"] * 60) + "."
    args = _pair(tmp_path, "The band formed in London.", sentence[0].upper() + sentence[1:])
    code, out, _ = run_cli([*args, "--extractor", "none", "--stable"], capsys)
    assert code == 0
    (verdict,) = json.loads(out)["sentences"]
    assert verdict["label"] == "supported" and len(verdict["split"]) > 1


def test_eval_with_a_bad_file_format_is_a_usage_error(capsys) -> None:
    code, _, err = run_cli(
        ["eval", "benchmark=file", "benchmark.path=x.jsonl", "benchmark.format=jsonl"], capsys
    )
    assert code == 2
    assert "enoki eval: error: benchmark.format must be one of mushroom" in err
    assert "Traceback" not in err


def test_inherit_entailment_reaches_the_detector_and_is_checked(files, capsys) -> None:
    context, answer = files
    context.write_text(
        "Harwick Town Council voted to close the Linden Street footbridge for repairs.",
        encoding="utf-8",
    )
    answer.write_text("Harwick Town Council voted to close the Linden Street footbridge.")
    base = ["detect", "--context", str(context), "--answer", str(answer), "--stable"]
    code, out, _ = run_cli(base, capsys)  # the default: inherit at 0.5
    report = json.loads(out)
    assert code == 0 and report["config"]["inherit_entailment"] == 0.5
    assert [f.get("inherited_from") for f in report["facts"]] == ["f0.1", None]
    code, out, _ = run_cli([*base, "--inherit-entailment", "0.9"], capsys)
    assert code == 0 and json.loads(out)["config"]["inherit_entailment"] == 0.9
    code, out, _ = run_cli([*base, "--inherit-entailment", "none"], capsys)
    plain = json.loads(out)
    assert code == 0 and plain["config"]["inherit_entailment"] is None
    assert all("inherited_from" not in f for f in plain["facts"])
    # the facts and labels are the same; only where the ancestors' decisions came from differs
    assert [(f["fact"]["id"], f["label"]) for f in report["facts"]] == [
        (f["fact"]["id"], f["label"]) for f in plain["facts"]
    ]
    code, _, err = run_cli([*base, "--inherit-entailment", "1.5"], capsys)
    assert code == 2 and "argument --inherit-entailment: must be in [0, 1], got 1.5" in err
    code, _, err = run_cli([*base, "--inherit-entailment", "half"], capsys)
    assert (
        code == 2
        and "argument --inherit-entailment: must be a number in [0, 1] or 'none', got 'half'" in err
    )
    from enoki_hd.cli import _check_inherit

    assert _check_inherit(None) is None and _check_inherit(0.9) == 0.9


def test_non_utf8_on_standard_input_is_a_usage_error(files, capsys, monkeypatch) -> None:
    """The same check as for a file (it failed inside spaCy with a UnicodeEncodeError)."""
    context, _ = files
    args = ["detect", "--context", str(context), "--answer", "-"]
    code, _, err = run_cli(args, capsys, "Suede formed in Zürich.".encode("latin-1"), monkeypatch)
    assert code == 2
    assert (
        "argument --answer: standard input is not UTF-8 text (invalid start byte at byte 17)" in err
    )
    assert "iconv -f WINDOWS-1252 -t UTF-8" in err


def test_an_output_path_that_cannot_be_written_fails_before_any_work(
    tmp_path, capsys, lexical_verifier
) -> None:
    args = _pair(tmp_path, "Suede formed in London.", "Suede formed in Manchester.")
    code, _, err = run_cli([*args, "--out", str(tmp_path)], capsys)
    assert code == 2 and f"argument --out: {tmp_path} is a directory; give a file name" in err
    missing = tmp_path / "no" / "report.json"
    code, _, err = run_cli([*args, "--out", str(missing)], capsys)
    assert code == 2 and "does not exist; create it first" in err and not missing.exists()


@pytest.mark.parametrize("name", ["llm", "preextracted"])
def test_extractors_the_command_line_cannot_configure_are_usage_errors(
    tmp_path, capsys, lexical_verifier, name
) -> None:
    code, _, err = run_cli([*_pair(tmp_path, "x.", "y."), "--extractor", name], capsys)
    assert code == 2 and f"argument --extractor: {name!r} needs" in err
    assert "on the command line choose from none, encoder, rules" in err


def test_extract_names_its_choices_and_prints_nothing_for_no_fact(tmp_path, capsys) -> None:
    (tmp_path / "a.txt").write_text("", encoding="utf-8")
    code, out, _ = run_cli(["extract", "--answer", str(tmp_path / "a.txt")], capsys)
    assert code == 0 and out == ""
    code, _, err = run_cli(
        ["extract", "--answer", str(tmp_path / "a.txt"), "--extractor", "none"], capsys
    )
    assert code == 2 and "unknown extractor 'none'; choose from encoder, rules" in err


def test_extract_teacher_records_are_what_distill_reads_back(tmp_path, capsys) -> None:
    # `enoki extract` wrote only fact lines, without their text: make distill
    # ARGS="data.teacher=FILE" refused the file ("pass text=<that answer>")
    from enoki_hd.igl.decode import decode_rows
    from enoki_hd.igl.labels import read_teacher_jsonl

    answers = [
        "The café “Le Zéphyr” opened in Montréal in 1998 😀. It serves crêpes to tourists. "
        "東京 is the capital of Japan.",
        "Marie Curie was born in Warsaw.\nShe won the Nobel Prize in Physics.",
    ]
    lines = []
    for k, answer in enumerate(answers):
        (tmp_path / f"a{k}.txt").write_text(answer, encoding="utf-8")
        args = ["extract", "--answer", str(tmp_path / f"a{k}.txt"), "--format", "teacher"]
        code, out, _ = run_cli(args, capsys)
        assert code == 0 and out.count("\n") == 1
        lines.append(out)
    (tmp_path / "teacher.jsonl").write_text("".join(lines), encoding="utf-8")
    records = [json.loads(line) for line in lines]
    assert [r["text"] for r in records] == answers
    counts: Counter[str] = Counter()
    examples = list(read_teacher_jsonl(tmp_path / "teacher.jsonl", counts=counts))
    assert counts["facts"] == counts["rows"] == sum(len(r["facts"]) for r in records) == 9

    def key(f: dict) -> tuple:
        parts = ("subject", "relation", "object", "subject_spans", "relation_spans")
        return tuple(json.dumps(f[p], ensure_ascii=False) for p in (*parts, "object_spans"))

    # rows decode back to the teacher's facts: strings and character offsets into the answer
    for record in records:
        text, teacher = record["text"], record["facts"]
        decoded = []
        for example in (e for e in examples if e.text in text):
            offset = text.index(example.text)
            rows = decode_rows(example.text, example.words, example.rows, offset=offset)
            decoded.extend(f.to_dict() for f in rows)
        assert sorted(map(key, decoded)) == sorted(map(key, teacher))
        for fact in teacher:  # offsets count characters of the answer (emoji, CJK)
            for part in ("subject", "object"):
                spans = fact[f"{part}_spans"]
                assert " ".join(text[s["start"] : s["end"]] for s in spans) == fact[part]
    # parent links: row i of a sentence refines the row of its teacher parent
    by_text = {e.text: e for e in examples}
    chain = by_text["It serves crêpes to tourists."]
    assert (len(chain.rows), chain.parents) == (2, [None, 0])


def test_an_llm_endpoint_that_fails_is_one_line_not_a_traceback(
    capsys, monkeypatch, tmp_path
) -> None:
    import importlib.util

    from enoki_hd.llm.client import EndpointRefused

    message = (
        "http://127.0.0.1:9/v1: APIConnectionError: Connection error. after 7 attempt(s); is "
        "the server up, and the base URL (host, port, /v1) right?"
    )

    def refused(*args, **kwargs):
        raise EndpointRefused(message)

    monkeypatch.setattr("enoki_hd.cli._run_eval", refused)
    code, _, err = run_cli(["eval", "extractor=llm"], capsys)
    assert (code, err) == (1, f"enoki eval: error: {message}\n")
    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location("eval_script", root / "scripts/eval.py")
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    monkeypatch.setattr(script, "run", refused)
    with pytest.raises(SystemExit) as exit_info:
        script.main.__wrapped__(None)  # the function under @hydra.main
    assert exit_info.value.code == 1
    assert capsys.readouterr().err == f"error: {message}\n"


def test_ctrl_c_is_one_line_with_the_way_to_resume(capsys, monkeypatch, tmp_path) -> None:
    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr("enoki_hd.cli._run_detect_batch", interrupted)
    (tmp_path / "rows.jsonl").write_text("")
    code, _, err = run_cli(
        ["detect-batch", "--input", str(tmp_path / "rows.jsonl"), "--out", str(tmp_path / "o")],
        capsys,
    )
    assert code == 130
    assert err == "enoki detect-batch: interrupted (rerun the same command to resume)\n"


def test_detect_writes_utf8_to_stdout_whatever_the_locale(
    tmp_path, capsys, lexical_verifier, monkeypatch
) -> None:
    """Under a cp1252 stdout (a Windows pipe) an emoji in the answer was a UnicodeEncodeError
    traceback after the detection had run, and no report."""
    args = _pair(tmp_path, "Suede formed in London.", "Suede 🎸 formed in Manchester.")
    raw = io.BytesIO()
    monkeypatch.setattr("sys.stdout", io.TextIOWrapper(raw, encoding="cp1252"))
    assert main([*args, "--format", "md"]) == 0
    text = raw.getvalue().decode("utf-8")
    assert "Suede 🎸 formed in **[[Manchester]]**." in text
    assert "· status: ok" in text


@pytest.mark.parametrize("context", ["", " \n\t"])
def test_the_contradiction_gate_fails_closed_on_an_empty_context(
    tmp_path, capsys, lexical_verifier, context: str
) -> None:
    """An empty context file (a retrieval that found nothing) left every fact unverifiable, so
    --fail-on-contradicted passed with exit 0 an answer that nothing was checked against."""
    args = _pair(tmp_path, context, "Suede formed in Manchester in 1995.")
    code, out, err = run_cli([*args, "--fail-on-contradicted", "--stable"], capsys)
    assert code == 3
    assert "not wholly checked (status no_context, the context is empty)" in err
    assert json.loads(out)["summary"]["status"] == "no_context"
    assert run_cli([*args, "--fail-on-contradicted", "--allow-unchecked"], capsys)[0] == 0


def test_sentence_entailment_reaches_the_detector_and_is_checked(files, capsys) -> None:
    context, answer = files
    context.write_text("Harwick Town Council voted to close the footbridge.", encoding="utf-8")
    answer.write_text("Harwick Town Council voted to close the footbridge.")
    base = ["detect", "--context", str(context), "--answer", str(answer), "--stable"]
    code, out, _ = run_cli(base, capsys)  # off by default
    assert code == 0 and json.loads(out)["config"]["sentence_entailment"] is None
    code, out, _ = run_cli([*base, "--sentence-entailment", "0.7"], capsys)
    assert code == 0 and json.loads(out)["config"]["sentence_entailment"] == 0.7
    code, _, err = run_cli([*base, "--sentence-entailment", "1.5"], capsys)
    assert code == 2 and "argument --sentence-entailment: must be in [0, 1], got 1.5" in err
    code, _, err = run_cli([*base, "--sentence-entailment", "high"], capsys)
    assert code == 2 and "must be a number in [0, 1] or 'none', got 'high'" in err


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            ["--extractor", "none", "--sentence-entailment", "0.7"],
            "--extractor none --verification hybrid --sentence-entailment 0.7: sentence_entailment "
            "clears facts, and with extractor=None there are none (sentences are judged whole): "
            "give an extractor ('rules', 'encoder') or leave sentence_entailment None",
        ),
        (
            ["--verification", "nli", "--sentence-entailment", "0.7"],
            "--extractor rules --verification nli --sentence-entailment 0.7: sentence_entailment "
            "clears facts the hybrid rule failed, and verification='nli' judges facts by 'nli': "
            "use verification='hybrid' (the default) or leave sentence_entailment None",
        ),
        (
            ["--extractor", "none", "--verification", "grounding"],
            "--extractor none --verification grounding: verification='grounding' judges facts, "
            "and with extractor=None there are none (sentences are judged by NLI alone): give an "
            "extractor ('rules', 'encoder') or verification='nli'",
        ),
    ],
)
@pytest.mark.parametrize("command", ["detect", "detect-batch", "serve"])
def test_options_that_would_be_skipped_are_a_usage_error_before_any_model_loads(
    command, options, message, files, tmp_path, capsys, monkeypatch
) -> None:
    import enoki_hd.detector as detector_module

    def refuse(*args, **kwargs):
        raise AssertionError("a model was loaded before the options were checked")

    monkeypatch.setattr(detector_module, "load_default_verifier", refuse)
    monkeypatch.setattr(detector_module, "NLICrossEncoder", refuse)
    context, answer = files
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"answer": "Suede formed in Leeds.", "context": "Suede formed."}\n')
    given = {
        "detect": ["detect", "--context", str(context), "--answer", str(answer)],
        "detect-batch": ["detect-batch", "--input", str(rows), "--out", str(tmp_path / "o")],
        "serve": ["serve", "--port", "0"],
    }[command]
    code, out, err = run_cli([*given, *options], capsys)
    assert (code, out) == (2, "")
    assert err == f"enoki {command}: error: {message}\n"
    assert not (tmp_path / "o").exists()


def test_query_windows_reaches_the_detector_and_is_checked(files, capsys) -> None:
    from enoki_hd.cli import QUERY_WINDOWS, _detector_config, build_parser
    from enoki_hd.verify.evidence import QUERY_WINDOW_MODES

    assert QUERY_WINDOWS == QUERY_WINDOW_MODES  # written out so the CLI parses without models
    context, answer = files
    context.write_text("Harwick Town Council voted to close the footbridge.", encoding="utf-8")
    answer.write_text("Harwick Town Council voted to close the footbridge.")
    base = ["detect", "--context", str(context), "--answer", str(answer), "--stable"]
    code, out, _ = run_cli(base, capsys)  # off by default
    assert code == 0 and json.loads(out)["config"]["evidence"]["query_windows"] == "off"
    code, out, _ = run_cli([*base, "--query-windows", "defer"], capsys)
    assert code == 0 and json.loads(out)["config"]["evidence"]["query_windows"] == "defer"
    code, _, err = run_cli([*base, "--query-windows", "on"], capsys)
    assert code == 2 and "argument --query-windows: invalid choice: 'on'" in err
    batch = ["detect-batch", "--input", "x.jsonl", "--out", "y.jsonl"]
    for command in (batch, ["serve"]):
        args = build_parser().parse_args([*command, "--query-windows", "any"])
        assert _detector_config(args)["evidence"]["query_windows"] == "any"
