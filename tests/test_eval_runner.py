from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from fakes import LexicalVerifier
from hydra import compose, initialize

from enoki_hd.cli import main as cli_main
from enoki_hd.detector import Detector
from enoki_hd.eval.datasets import (
    BENCHMARKS,
    FILE_FORMATS,
    Benchmark,
    BenchmarkConfigError,
    ClaimGold,
    EntityGold,
    EvalExample,
    SentenceGold,
    load_mushroom,
)
from enoki_hd.eval.runner import (
    DEFAULT_METHODS,
    REPO_ROOT,
    EvalSetupError,
    _git_state,
    benchmark_names,
    compose_eval_config,
    evaluate,
    prediction_from_report,
    run_eval,
    run_eval_all,
    run_settings,
    three_way_label,
    threshold_sweep,
    unit_scores,
)
from enoki_hd.types import (
    Fact,
    FactVerdict,
    HallucinatedSpan,
    NLIScores,
    Report,
    SentenceVerdict,
    Span,
    Summary,
)

SHARED = Path(
    os.environ.get("ENOKI_SHARED_DIR") or Path(__file__).resolve().parents[1].parent / "shared"
)
# Only the tests that run a shared benchmark need the shared data folder; the config tests and
# the benchmark=file runs read tests/fixtures.
needs_shared = pytest.mark.skipif(
    not (SHARED / "benchmarks").is_dir(), reason=f"shared benchmarks not found at {SHARED}"
)
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "benchmarks"
# The fake detector is sentence level, so the runs are named for extractor "none".
FAST = [
    "detector.sentence_backend=regex",
    "progress=false",
    "extractor=none",
]
BASELINES_ONLY = "methods=[lexical_absent,mark_all,mark_none]"


def compose_eval(root: Path, *overrides: str, shared: Path = SHARED):
    with initialize(config_path="../configs", version_base="1.3"):
        return compose(
            config_name="eval",
            overrides=[f"paths.root_dir={root}", f"paths.shared_dir={shared}", *FAST, *overrides],
        )


def fake_detector() -> Detector:
    return Detector(LexicalVerifier(), extractor=None, sentence_backend="regex")


def cache_files(root: Path, method: str) -> list[Path]:
    return sorted((root / ".cache/enoki/eval" / method).glob("*/*.json"))


@pytest.mark.parametrize("name", benchmark_names())
def test_benchmark_configs_compose(tmp_path, name) -> None:
    cfg = compose_eval(tmp_path, f"benchmark={name}")
    assert cfg.benchmark.name == name and name in BENCHMARKS
    assert cfg.benchmark.level in ("span", "sentence", "claim", "entity")
    assert cfg.paths.output_dir == f"{tmp_path}/outputs/eval/{name}/none-shipped"
    assert list(cfg.methods) == list(DEFAULT_METHODS)


def test_default_pipeline_is_the_rules_extractor() -> None:
    with initialize(config_path="../configs", version_base="1.3"):
        cfg = compose(config_name="eval", overrides=["paths.root_dir=/r"])
    assert cfg.extractor.name == "rules"
    assert cfg.paths.output_dir == "/r/outputs/eval/psiloqa_en50/rules-shipped"


def test_verifier_and_extractor_groups_compose(tmp_path) -> None:
    cfg = compose_eval(tmp_path, "verifier=window")
    assert cfg.verifier.evidence.strategy == "window"
    # null: the checkpoint's manifest decides (one model, one behaviour)
    assert cfg.verifier.max_length is None and cfg.verifier.path is None
    assert cfg.verifier.backend == "auto"
    assert cfg.extractor.name == "none"
    assert cfg.run_name == "none-window"


@pytest.fixture(scope="module")
def psiloqa_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("eval")
    cfg = compose_eval(root, "benchmark=psiloqa_en50", "limit=3")
    metrics, objects = run_eval(cfg, detector=fake_detector())
    return root, metrics, objects


@needs_shared
def test_run_writes_every_file(psiloqa_run) -> None:
    root, metrics, objects = psiloqa_run
    out = root / "outputs/eval/psiloqa_en50/none-shipped"
    assert objects["output_dir"] == out
    written = json.loads((out / "metrics.json").read_text())
    assert written["benchmark"]["n_examples"] == 3 and written["benchmark"]["n_total"] == 50
    assert list(written["methods"]) == list(DEFAULT_METHODS)
    for values in written["methods"].values():
        span = values["span"]
        assert set(span["coverage"]) == {"0", "1", "2", "3", "4", "5"}
        assert {"precision", "recall", "f1"} <= set(span["char"])
        assert 0.0 <= span["iou"] <= 1.0
        assert span["references"]["names"] == ["1_annotator", "2_annotator", "3_annotator", "gpt"]
        assert "f1" in span["references"]["mean"]["char"]
    assert written["methods"]["mark_none"]["span"]["char"]["f1"] == 0.0
    assert written["config"]["benchmark"]["name"] == "psiloqa_en50"
    assert written["models"]["verifier"]["id"] == "lexical-fake"
    assert set(written["timings"]) == {"load", "methods", "metrics", "total"}
    assert "commit" in written["git"]

    lines = (out / "predictions.jsonl").read_text().splitlines()
    rows = [json.loads(line) for line in lines]
    assert len(rows) == 3 * len(DEFAULT_METHODS)
    assert [r["method"] for r in rows[: len(DEFAULT_METHODS)]] == list(DEFAULT_METHODS)
    assert list(rows[0])[:4] == ["id", "method", "status", "level"]
    for row in rows:
        answer = (
            objects["benchmark"]
            .examples[[e.id for e in objects["benchmark"].examples].index(row["id"])]
            .answer
        )
        assert all(answer[s["start"] : s["end"]] == s["text"] for s in row["spans"])

    report = (out / "report.md").read_text()
    assert "## Span level (gold: 1_annotator)" in report
    assert "## Span level, mean over 4 references" in report
    for method in DEFAULT_METHODS:
        assert f"| {method} |" in report
    assert (out / "thresholds.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert metrics["threshold_sweep"]["family"] == "span"


@needs_shared
def test_run_reports_bootstrap_intervals(psiloqa_run) -> None:
    _, _, objects = psiloqa_run
    written = json.loads(objects["files"]["metrics"].read_text())
    boot = written["bootstrap"]
    assert (boot["samples"], boot["seed"], boot["level"], boot["n"]) == (1000, 0, 0.95, 3)
    assert boot["reference"] == "detector"
    for method, values in written["methods"].items():
        assert boot["methods"][method]["span.iou"]["value"] == values["span"]["iou"]
        assert boot["methods"][method]["span.char_f1"]["value"] == values["span"]["char"]["f1"]
    assert set(boot["differences"]) == set(DEFAULT_METHODS) - {"detector"}
    report = objects["files"]["report"].read_text()
    assert report.index("## Uncertainty (95% bootstrap intervals)") < report.index("## Timings")


@needs_shared
def test_rerun_reuses_the_cache(psiloqa_run) -> None:
    root, _, first = psiloqa_run
    before = (first["output_dir"] / "predictions.jsonl").read_bytes()
    detector = fake_detector()
    cfg = compose_eval(root, "benchmark=psiloqa_en50", "limit=3")
    metrics, objects = run_eval(cfg, detector=detector)
    assert objects["cache"] == {"hits": 6, "misses": 0}  # detector + sentence_nli, 3 examples
    assert detector.verifier.calls == []
    assert metrics["timings"]["methods"]["detector"]["cached"] == 3
    assert (objects["output_dir"] / "predictions.jsonl").read_bytes() == before
    assert len(cache_files(root, "detector")) == 3


@needs_shared
def test_interrupted_run_resumes_with_identical_predictions(psiloqa_run, tmp_path) -> None:
    _, _, uninterrupted = psiloqa_run
    cfg = compose_eval(tmp_path, "benchmark=psiloqa_en50", "limit=3")
    failing = fake_detector()
    real_detect = failing.detect
    calls = []

    def detect_then_crash(**kwargs):
        if len(calls) == 2:
            raise KeyboardInterrupt
        calls.append(1)
        return real_detect(**kwargs)

    failing.detect = detect_then_crash
    with pytest.raises(KeyboardInterrupt):
        run_eval(cfg, detector=failing)
    assert len(cache_files(tmp_path, "detector")) == 2
    assert len(cache_files(tmp_path, "sentence_nli")) == 2
    assert not (tmp_path / "outputs/eval/psiloqa_en50/none-shipped/predictions.jsonl").exists()

    _, objects = run_eval(cfg, detector=fake_detector())
    assert objects["cache"] == {"hits": 4, "misses": 2}
    resumed = (objects["output_dir"] / "predictions.jsonl").read_bytes()
    assert resumed == (uninterrupted["output_dir"] / "predictions.jsonl").read_bytes()


@needs_shared
def test_sentence_and_claim_benchmarks(tmp_path) -> None:
    cfg = compose_eval(tmp_path, "benchmark=ragtruth_sent48", "limit=6")
    metrics, _ = run_eval(cfg, detector=fake_detector())
    sentence = metrics["methods"]["detector"]["sentence"]
    assert sentence["n"] == 6 and sentence["threshold"] == 0.5
    assert {"macro_f1", "roc_auc", "pr_auc", "best_threshold", "best_macro_f1"} <= set(sentence)
    assert metrics["methods"]["mark_none"]["sentence"]["recall"] == 0.0

    cfg = compose_eval(tmp_path, "benchmark=wice_dev", "limit=4")
    metrics, objects = run_eval(cfg, detector=fake_detector())
    claim = metrics["methods"]["detector"]["claim"]
    assert claim["n"] == 4 and claim["three_way"]["n"] == 4
    assert (
        metrics["methods"]["mark_all"]["claim"]["three_way"]["confusion"]["supported"]["supported"]
        == 0
    )
    report = (objects["output_dir"] / "report.md").read_text()
    assert "## Claim level (4 claims)" in report and "3-way acc" in report


@needs_shared
def test_real_verifier_from_config(tmp_path, tiny_nli_dir) -> None:
    cfg = compose_eval(
        tmp_path,
        "benchmark=factcheck_dev30_claims",
        "limit=2",
        f"verifier.path={tiny_nli_dir}",
        "verifier.max_length=128",
        "methods=[detector,mark_none]",
    )
    metrics, objects = run_eval(cfg)
    assert metrics["models"]["verifier"]["path"] == str(tiny_nli_dir)
    assert metrics["models"]["verifier"]["id"].startswith("sha256:")
    assert metrics["methods"]["detector"]["claim"]["n"] == 2
    assert len(objects["predictions"]["detector"]) == 2


@needs_shared
def test_cli_eval_runs_baselines(tmp_path, capsys) -> None:
    code = cli_main(
        [
            "eval",
            "benchmark=mushroom_dev30",
            "limit=3",
            f"paths.root_dir={tmp_path}",
            f"paths.shared_dir={SHARED}",
            *FAST,
            BASELINES_ONLY,
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "# Evaluation: mushroom_dev30" in out and "soft ρ" in out
    assert (tmp_path / "outputs/eval/mushroom_dev30/none-shipped/metrics.json").is_file()


def test_git_state_ignores_a_repository_around_an_installed_package(tmp_path) -> None:
    """An installed package's REPO_ROOT is ``<venv>/lib/python3.X``: a venv inside the user's own
    repository must not record that repository's commit as enoki-hd's."""
    git = ["git", "-c", "user.name=u", "-c", "user.email=u@example.com"]
    subprocess.run([*git, "init", "-q", str(tmp_path)], check=True)
    subprocess.run(
        [*git, "-C", str(tmp_path), "commit", "-q", "--allow-empty", "-m", "x"], check=True
    )
    lib = tmp_path / ".venv" / "lib" / "python3.11"
    lib.mkdir(parents=True)
    assert _git_state(lib) == {"commit": None, "dirty": None}
    assert _git_state(tmp_path)["commit"] is not None
    if (REPO_ROOT / ".git").exists():  # a checkout, not an unpacked archive
        assert _git_state(REPO_ROOT)["commit"] is not None


def test_cli_eval_all_without_benchmark_configs_is_a_usage_error(tmp_path, capsys) -> None:
    """A --config-dir with no benchmark/ folder: one line naming it, not a traceback."""
    with pytest.raises(SystemExit) as exit_:
        cli_main(["eval", "--all", "--config-dir", str(tmp_path)])
    assert exit_.value.code == 2
    assert f"no *.yaml in {tmp_path / 'benchmark'}" in capsys.readouterr().err


def test_cli_eval_rejects_a_bare_word(capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        cli_main(["eval", "psiloqa_en50"])
    assert exit_.value.code == 2
    assert "expected KEY=VALUE overrides" in capsys.readouterr().err


@needs_shared
def test_eval_all_skips_missing_files_and_writes_summary(tmp_path) -> None:
    shared = tmp_path / "shared"
    (shared / "benchmarks").mkdir(parents=True)
    (shared / "benchmarks/psiloqa_en50").symlink_to(SHARED / "benchmarks/psiloqa_en50")
    results, objects = run_eval_all(
        [
            f"paths.root_dir={tmp_path}",
            *FAST,
            f"paths.shared_dir={shared}",
            "limit=2",
            "methods=[lexical_absent,mark_all]",
        ]
    )
    # the capability suites are the repository's own, so they never lack their files
    ran = [
        "capabilities",
        "capabilities_fresh",
        "capabilities_markdown",
        "psiloqa_en50",
        "spans_fresh",
    ]
    assert list(results) == ran
    assert set(objects["skipped"]) == set(benchmark_names()) - set(ran)
    summary = (tmp_path / "outputs/eval/summary.md").read_text()
    assert "| psiloqa_en50 | span | lexical_absent | 2 |" in summary
    assert "- `wice_dev`: benchmark file" in summary


@needs_shared
def test_eval_all_refuses_a_run_folder_of_other_settings_before_any_benchmark(
    tmp_path, capsys
) -> None:
    """A folder holding a run with another limit stopped `make eval-all` only at its turn,
    after the benchmarks before it, with a traceback and no summary.md."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
    import eval_all

    shared = tmp_path / "shared"
    (shared / "benchmarks").mkdir(parents=True)
    (shared / "benchmarks/psiloqa_en50").symlink_to(SHARED / "benchmarks/psiloqa_en50")
    overrides = [
        f"paths.root_dir={tmp_path}",
        *FAST,
        f"paths.shared_dir={shared}",
        "methods=[lexical_absent,mark_all]",
        "run_name=all",
    ]
    run_eval_all([*overrides, "limit=2"], benchmarks=["psiloqa_en50"])
    summary = tmp_path / "outputs/eval/summary.md"
    before = summary.read_bytes()
    with pytest.raises(EvalSetupError) as refused:
        run_eval_all([*overrides, "limit=3"], benchmarks=["capabilities", "psiloqa_en50"])
    folder = tmp_path / "outputs/eval/psiloqa_en50/all"
    message = str(refused.value)
    assert message.startswith(f"{folder} holds a finished run with other settings (limit 2 → 3, ")
    assert message.endswith(
        "; give this run another run_name=NAME, or overwrite=true to replace that run"
    )
    assert not (tmp_path / "outputs/eval/capabilities").exists()  # nothing evaluated first
    assert summary.read_bytes() == before
    # the script: one line, exit 2, as scripts/eval.py
    capsys.readouterr()
    assert eval_all.main([*overrides, "limit=3"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {folder} holds a finished run with other settings (limit 2")
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "outputs/eval/capabilities").exists()


# --------------------------------------------------------------------------------------------
# benchmark=file: a user's own file in each loader's format (tests/fixtures/benchmarks), with
# the baselines only, so no verifier and no shared data are needed
# --------------------------------------------------------------------------------------------


def run_file(root: Path, path: str, file_format: str, *overrides: str):
    """``benchmark=file`` on a fixture; returns the loaded benchmark and the metrics.json read
    back from the run folder."""
    cfg = compose_eval(
        root,
        "benchmark=file",
        f"benchmark.path={FIXTURES / path}",
        f"benchmark.format={file_format}",
        BASELINES_ONLY,
        *overrides,
        shared=root / "no-shared-data",
    )
    metrics, objects = run_eval(cfg)
    out = root / "outputs/eval/file/none-shipped"
    assert objects["output_dir"] == out
    written = json.loads((out / "metrics.json").read_text())
    assert written["benchmark"]["name"] == "file"
    assert written["benchmark"]["families"] == metrics["benchmark"]["families"]
    assert list(written["methods"]) == ["lexical_absent", "mark_all", "mark_none"]
    assert written["config"]["benchmark"]["format"] == file_format
    assert (out / "report.md").is_file() and (out / "predictions.jsonl").is_file()
    return objects["benchmark"], written


def gold_texts(example: EvalExample) -> list[str]:
    return [example.answer[s.start : s.end] for s in example.gold_spans or []]


def test_file_benchmark_composes_without_shared_data(tmp_path) -> None:
    cfg = compose_eval_config(
        [
            "benchmark=file",
            "benchmark.path=my_set.jsonl",
            "benchmark.format=mushroom",
            "benchmark.name=my_set",
            f"paths.root_dir={tmp_path}",
            f"paths.shared_dir={tmp_path / 'absent'}",
            *FAST,
        ]
    )
    assert (cfg.benchmark.path, cfg.benchmark.format) == ("my_set.jsonl", "mushroom")
    assert cfg.benchmark.sources is None and cfg.benchmark.level is None
    assert cfg.paths.output_dir == f"{tmp_path}/outputs/eval/my_set/none-shipped"
    assert "file" not in benchmark_names()


def test_file_mushroom(tmp_path) -> None:
    bench, metrics = run_file(tmp_path, "mushroom.jsonl", "mushroom")
    assert [e.id for e in bench.examples] == ["m1", "m2"]
    assert [gold_texts(e) for e in bench.examples] == [["Rome"], []]
    assert bench.examples[0].soft_labels == [{"start": 23, "end": 27, "prob": 0.8}]
    assert bench.examples[0].context.startswith("The Eiffel Tower is a wrought-iron tower")
    assert metrics["benchmark"]["families"] == ["span"]
    assert metrics["methods"]["mark_none"]["span"]["char"]["f1"] == 0.0
    assert metrics["methods"]["mark_all"]["span"]["char"]["recall"] == 1.0
    assert metrics["methods"]["mark_all"]["span"]["soft_spearman_n"] == 2


def test_file_psiloqa_csv_folder_with_a_chosen_gold(tmp_path) -> None:
    bench, metrics = run_file(tmp_path, "psiloqa", "psiloqa_csv", "benchmark.gold=2_annotator")
    first = bench.examples[0]
    assert (first.id, first.answer) == ("p1", "Marie Curie was born in Paris in 1867.")
    assert bench.references == {
        "1_annotator": [[Span(24, 29)], []],
        "2_annotator": [[Span(24, 37)], [Span(24, 37)]],
    }
    assert [gold_texts(e) for e in bench.examples] == [["Paris in 1867"], ["Mediterranean"]]
    assert first.context == "Marie Curie was born in Warsaw in 1867."
    assert metrics["benchmark"]["gold_reference"] == "2_annotator"
    references = metrics["methods"]["mark_all"]["span"]["references"]
    assert references["names"] == ["1_annotator", "2_annotator"]


def test_file_psiloqa_hub_keeps_one_language(tmp_path) -> None:
    bench, metrics = run_file(tmp_path, "psiloqa_hub.jsonl", "psiloqa_hub", "benchmark.lang=en")
    (example,) = bench.examples
    assert (example.id, gold_texts(example)) == ("ph1", ["North Sea"])
    assert example.context == "The Danube flows into the Black Sea."
    assert metrics["benchmark"]["dropped"] == {"other_lang": 1}
    assert metrics["benchmark"]["n_total"] == 1


@pytest.mark.parametrize(
    ("path", "file_format", "override", "dropped"),
    [
        (
            "ragtruth_processed.jsonl",
            "ragtruth_processed",
            "benchmark.split=dev",
            "2 rows of another split than benchmark.split=dev (change or remove benchmark.split)",
        ),
        (
            "psiloqa_hub.jsonl",
            "psiloqa_hub",
            "benchmark.lang=xx",
            "2 rows of another language than benchmark.lang=xx (change or remove benchmark.lang)",
        ),
    ],
)
def test_a_filter_that_drops_every_row_says_so_and_names_its_key(
    tmp_path, path, file_format, override, dropped
) -> None:
    """It said "(is the file empty?)" about a file whose rows a key had filtered out."""
    cfg = compose_eval(
        tmp_path,
        "benchmark=file",
        f"benchmark.path={FIXTURES / path}",
        f"benchmark.format={file_format}",
        override,
        BASELINES_ONLY,
        shared=tmp_path,
    )
    with pytest.raises(EvalSetupError) as info:
        run_eval(cfg)
    assert str(info.value) == (
        f"benchmark file has no examples to evaluate, the loader dropped them all: {dropped}"
    )


def test_sentences_all_labelled_na_name_the_level_that_reads_the_claims(tmp_path) -> None:
    data = tmp_path / "factcheck.jsonl"
    rows = (FIXTURES / "factcheck.jsonl").read_text()
    data.write_text(
        rows.replace(
            '"sentence_factuality_label": true', '"sentence_factuality_label": "NA"'
        ).replace('"sentence_factuality_label": false', '"sentence_factuality_label": null')
    )
    cfg = compose_eval(
        tmp_path,
        "benchmark=file",
        f"benchmark.path={data}",
        "benchmark.format=factcheck",
        BASELINES_ONLY,
        shared=tmp_path,
    )
    with pytest.raises(EvalSetupError) as info:
        run_eval(cfg)
    assert str(info.value) == (
        "benchmark file has no examples to evaluate, the loader dropped them all: 2 sentences "
        "labelled NA (benchmark.level=claim reads the claims' labels instead)"
    )


def test_file_ragtruth_with_sources_and_split(tmp_path) -> None:
    bench, metrics = run_file(
        tmp_path,
        "ragtruth/response.jsonl",
        "ragtruth",
        f"benchmark.sources={FIXTURES / 'ragtruth/source_info.jsonl'}",
        "benchmark.split=test",
    )
    qa, summary = bench.examples
    assert [gold_texts(e) for e in bench.examples] == [["21 July"], ["June"]]
    assert (qa.id, qa.question) == ("r1", "When did Apollo 11 land on the Moon?")
    assert qa.context == "passage 1: Apollo 11 landed on the Moon on 20 July 1969."
    assert (summary.question, summary.metadata["task_type"]) == (None, "Summary")
    assert summary.context.startswith("The city council approved a new park")
    assert metrics["benchmark"]["dropped"] == {"other_split": 1}
    assert metrics["benchmark"]["flagged"] == {}


def test_file_ragtruth_without_sources_has_no_contexts(tmp_path) -> None:
    bench, metrics = run_file(tmp_path, "ragtruth/response.jsonl", "ragtruth")
    assert [e.context for e in bench.examples] == ["", "", ""]
    assert [gold_texts(e) for e in bench.examples] == [["21 July"], ["June"], []]
    assert metrics["benchmark"]["flagged"] == {"missing_context": 3}


def test_file_ragtruth_processed(tmp_path) -> None:
    bench, metrics = run_file(tmp_path, "ragtruth_processed.jsonl", "ragtruth_processed")
    assert [e.id for e in bench.examples] == ["rp1", "rp2"]
    assert [gold_texts(e) for e in bench.examples] == [["Peru"], []]
    assert bench.examples[0].question == "Tell me about Mount Everest."
    assert metrics["methods"]["mark_none"]["span"]["example"]["recall"] == 0.0


def test_file_factcheck_sentences_and_claims(tmp_path) -> None:
    bench, metrics = run_file(tmp_path, "factcheck.jsonl", "factcheck")
    assert [e.id for e in bench.examples] == ["0/sentence1", "0/sentence2"]
    assert [e.sentence_labels for e in bench.examples] == [
        [SentenceGold(Span(0, 31), "Paris is the capital of France.", False)],
        [SentenceGold(Span(0, 33), "Paris has 20 million inhabitants.", True)],
    ]
    assert bench.examples[1].context == "Paris has about 2.1 million inhabitants."
    assert metrics["benchmark"]["families"] == ["sentence"]
    assert metrics["methods"]["mark_all"]["sentence"]["n"] == 2

    # the same folder, other settings: replaced only when asked
    bench, metrics = run_file(
        tmp_path, "factcheck.jsonl", "factcheck", "benchmark.level=claim", "overwrite=true"
    )
    assert [e.claim_labels for e in bench.examples] == [
        [ClaimGold("Paris is the capital of France.", False, "True")],
        [ClaimGold("Paris has 20 million inhabitants.", True, "False")],
    ]
    assert metrics["benchmark"]["level"] == "claim"
    assert metrics["methods"]["mark_all"]["claim"]["n"] == 2


def test_the_checkworthiness_section_scores_the_limited_examples(tmp_path) -> None:
    """With limit=1 it scored the sentences and claims of the whole file."""
    data = tmp_path / "factcheck.jsonl"
    rows = [json.loads(line) for line in (FIXTURES / "factcheck.jsonl").read_text().splitlines()]
    for row in rows:
        for sentence in row["sentences"].values():
            sentence["sentence_checkworthiness"] = "yes"
            sentence["claim_checkworthiness"] = ["factual"]
    data.write_text("".join(json.dumps(row) + "\n" for row in rows))
    cfg = compose_eval(
        tmp_path,
        "benchmark=file",
        f"benchmark.path={data}",
        "benchmark.format=factcheck",
        "methods=[mark_none]",
        "limit=1",
        "bootstrap.samples=0",
        *FAST,
        shared=tmp_path,
    )
    metrics, _ = run_eval(cfg)
    assert metrics["benchmark"]["n_examples"] == 1
    levels = metrics["checkworthiness"]["levels"]
    assert {level: values["n"] for level, values in levels.items()} == {"sentence": 1, "claim": 1}


def test_file_sentence_sample(tmp_path) -> None:
    bench, metrics = run_file(tmp_path, "sentence_sample.jsonl", "sentence_sample")
    assert [e.id for e in bench.examples] == ["q1:0", "q1:1"]
    assert [e.sentence_labels for e in bench.examples] == [
        [SentenceGold(Span(0, 26), "The Moon orbits the Earth.", False)],
        [SentenceGold(Span(27, 48), "It is made of cheese.", True)],
    ]
    sentence = metrics["methods"]["mark_none"]["sentence"]
    assert (sentence["n"], sentence["recall"]) == (2, 0.0)


def test_file_wice(tmp_path) -> None:
    bench, metrics = run_file(tmp_path, "wice.jsonl", "wice")
    assert [e.claim_labels[0].label for e in bench.examples] == [
        "supported",
        "partially_supported",
        "not_supported",
    ]
    assert bench.examples[0].metadata["supporting_spans"] == [[{"start": 50, "end": 77}]]
    three_way = metrics["methods"]["mark_all"]["claim"]["three_way"]
    assert three_way["n"] == 3
    assert three_way["confusion"]["supported"] == {
        "supported": 0,
        "partially_supported": 0,
        "not_supported": 1,
    }


def test_file_halluentity_with_contexts(tmp_path) -> None:
    bench, metrics = run_file(
        tmp_path,
        "halluentity.jsonl",
        "halluentity",
        f"benchmark.contexts={FIXTURES / 'halluentity_contexts.csv'}",
    )
    ada, alan = bench.examples
    assert alan.entity_labels == [
        EntityGold(Span(0, 11), "Alan Turing", False),
        EntityGold(Span(24, 34), "Manchester", True),
        EntityGold(Span(38, 42), "1912", False),
    ]
    assert (ada.example_label, alan.example_label) == (False, True)
    assert alan.context.startswith("Alan Turing was born in Maida Vale")  # joined on id
    assert metrics["benchmark"]["families"] == ["entity"]
    assert metrics["methods"]["mark_all"]["entity"]["unlocated"] == 0


def test_file_enokiqa(tmp_path) -> None:
    bench, metrics = run_file(tmp_path, "enokiqa.jsonl", "enokiqa")
    assert [e.claim_labels for e in bench.examples] == [
        [ClaimGold("The Great Wall of China is visible from the Moon", True, "contradiction")],
        [ClaimGold("The Great Wall is over 20,000 km long", False, "entailment")],
    ]
    assert bench.examples[0].metadata["fact_spans"] == [{"start": 24, "end": 48}]
    assert bench.examples[0].metadata["context_field"] == "paragraph_context"
    assert metrics["methods"]["mark_all"]["claim"]["n"] == 2


def test_every_file_format_has_a_test() -> None:
    tested = {
        "mushroom",
        "psiloqa_csv",
        "psiloqa_hub",
        "ragtruth",
        "ragtruth_processed",
        "factcheck",
        "sentence_sample",
        "wice",
        "halluentity",
        "enokiqa",
        "capabilities",  # tests/test_capabilities.py
        "span_set",  # tests/test_spans_fresh.py
    }
    assert set(FILE_FORMATS) == tested


@pytest.mark.parametrize(
    ("overrides", "error", "message"),
    [
        (
            ["benchmark.path=x.jsonl", "benchmark.format=jsonl"],
            BenchmarkConfigError,
            "benchmark.format must be one of mushroom, psiloqa_csv, psiloqa_hub, ragtruth, "
            "ragtruth_processed, factcheck, sentence_sample, wice, halluentity, enokiqa, "
            "capabilities, span_set; got 'jsonl'",
        ),
        (
            ["benchmark.path=x.jsonl"],
            BenchmarkConfigError,
            "benchmark.format is not set; give one of: mushroom, ",
        ),
        (["benchmark.format=wice"], BenchmarkConfigError, "benchmark.path is not set"),
        (
            ["benchmark.path=absent.jsonl", "benchmark.format=wice"],
            FileNotFoundError,
            "benchmark.path: absent.jsonl does not exist",
        ),
        (
            [f"benchmark.path={FIXTURES}", "benchmark.format=wice"],
            BenchmarkConfigError,
            f"benchmark.path must be a file for format wice; {FIXTURES} is a folder",
        ),
        (
            [
                f"benchmark.path={FIXTURES / 'mushroom.jsonl'}",
                "benchmark.format=mushroom",
                "benchmark.sources=s.jsonl",
            ],
            BenchmarkConfigError,
            "benchmark.sources is not read by format mushroom (only by ragtruth); leave it unset",
        ),
        (
            [
                f"benchmark.path={FIXTURES / 'ragtruth/response.jsonl'}",
                "benchmark.format=ragtruth",
                "benchmark.sources=absent.jsonl",
            ],
            FileNotFoundError,
            "benchmark.sources: absent.jsonl does not exist",
        ),
        (
            [
                f"benchmark.path={FIXTURES / 'factcheck.jsonl'}",
                "benchmark.format=factcheck",
                "benchmark.level=span",
            ],
            BenchmarkConfigError,
            "benchmark.level must be one of sentence, claim for format factcheck; got 'span'",
        ),
    ],
)
def test_file_benchmark_config_errors_name_the_key(tmp_path, overrides, error, message) -> None:
    cfg = compose_eval(tmp_path, "benchmark=file", BASELINES_ONLY, *overrides)
    with pytest.raises(error) as info:
        run_eval(cfg)
    assert message in str(info.value)
    assert not (tmp_path / "outputs").exists()


def test_cli_eval_on_a_file(tmp_path, capsys) -> None:
    code = cli_main(
        [
            "eval",
            "benchmark=file",
            f"benchmark.path={FIXTURES / 'wice.jsonl'}",
            "benchmark.format=wice",
            f"paths.root_dir={tmp_path}",
            *FAST,
            BASELINES_ONLY,
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "# Evaluation: file" in out and "## Claim level (3 claims)" in out
    assert (tmp_path / "outputs/eval/file/none-shipped/metrics.json").is_file()


# --------------------------------------------------------------------------------------------
# Metric plumbing on hand-made predictions
# --------------------------------------------------------------------------------------------


def _record(sentences, *, facts=(), spans=(), level="sentence", score=None):
    return {
        "status": "ok",
        "level": level,
        "hallucinated": bool(spans),
        "score": score if score is not None else max((s["score"] for s in sentences), default=0.0),
        "spans": list(spans),
        "sentences": list(sentences),
        "facts": list(facts),
    }


def test_sentence_units_take_the_overlapping_prediction() -> None:
    answer = "One. Two. Three."
    examples = [
        EvalExample(
            "a", None, "ctx", answer, sentence_labels=[SentenceGold(Span(5, 9), "Two.", True)]
        ),
        EvalExample("b", None, "ctx", answer, sentence_labels=[SentenceGold(None, "Lost.", False)]),
    ]
    sentences = [
        {"index": 0, "start": 0, "end": 4, "score": 0.9, "label": "unverifiable"},
        {"index": 1, "start": 5, "end": 9, "score": 0.3, "label": "supported"},
        {"index": 2, "start": 10, "end": 16, "score": 0.1, "label": "supported"},
    ]
    scores, gold, _, caveats = unit_scores(
        examples, [_record(sentences), _record(sentences)], "sentence"
    )
    assert scores == [0.3, 0.9]  # the second gold sentence is not located: the answer's score
    assert gold == [1, 0]
    assert caveats == {"unlocated": 1, "unmatched": 0}


def test_a_list_marker_unit_takes_the_next_sentence() -> None:
    answer = "Steps:\n3. Rinse well. Dry."
    marker = EvalExample(
        "m", None, "ctx", answer, sentence_labels=[SentenceGold(Span(7, 9), "3.", True)]
    )
    trailing = EvalExample(
        "t", None, "ctx", "Done. !", sentence_labels=[SentenceGold(Span(6, 7), "!", True)]
    )
    sentences = [
        {"index": 0, "start": 0, "end": 6, "score": 0.1, "label": "supported"},
        {"index": 1, "start": 10, "end": 21, "score": 0.7, "label": "unverifiable"},
        {"index": 2, "start": 22, "end": 26, "score": 0.2, "label": "supported"},
    ]
    done = [{"index": 0, "start": 0, "end": 5, "score": 0.9, "label": "unverifiable"}]
    scores, _, _, caveats = unit_scores(
        [marker, trailing], [_record(sentences), _record(done)], "sentence"
    )
    assert scores == [0.7, 0.0]
    assert caveats == {"unlocated": 0, "unmatched": 1}


def test_facts_of_one_answer_take_the_scores_on_their_own_spans() -> None:
    """Every fact of an EnokiQA answer took the answer's score, its worst fact's."""
    answer = "Suede formed in London in 1989. Suede released twelve albums."
    facts = [
        ClaimGold("Suede formed in London", False, "entailment"),
        ClaimGold("Suede released twelve albums", True, "contradiction"),
        ClaimGold("Suede is a band", False, "entailment"),
    ]
    example = EvalExample(
        "q1",
        None,
        "ctx",
        answer,
        claim_labels=facts,
        metadata={"fact_spans": [{"start": 0, "end": 22}, {"start": 32, "end": 60}, None]},
    )
    sentences = [
        {"index": 0, "start": 0, "end": 31, "score": 0.2, "label": "supported"},
        {"index": 1, "start": 32, "end": 61, "score": 0.8, "label": "contradicted"},
    ]
    flagged = [{"start": 47, "end": 60, "text": "twelve albums", "score": 0.9}]
    by_sentence = _record(sentences)
    by_fact = _record(sentences, spans=flagged, level="fact", score=0.9)
    scores, gold, _, caveats = unit_scores([example], [by_sentence], "claim")
    assert (scores, gold, caveats) == ([0.2, 0.8, 0.8], [0, 1, 0], {"unlocated": 1, "unmatched": 0})
    # a fact-level method's candidates are its spans: a fact it flagged nothing of scores 0
    scores, _, _, _ = unit_scores([example], [by_fact], "claim")
    assert scores == [0.0, 0.9, 0.9]


def test_three_way_label_from_units() -> None:
    def sentence(label):
        return {"index": 0, "start": 0, "end": 1, "score": 0.0, "label": label}

    assert three_way_label(_record([sentence("supported")])) == "supported"
    assert three_way_label(_record([sentence("unverifiable")])) == "not_supported"
    facts = [
        {"label": "supported", "suppressed": False},
        {"label": "contradicted", "suppressed": False},
        {"label": "unverifiable", "suppressed": True},
    ]
    assert (
        three_way_label(_record([sentence("unverifiable")], facts=facts)) == "partially_supported"
    )


def test_claim_metrics_three_way() -> None:
    examples = [
        EvalExample(
            str(i), None, "c", "x", claim_labels=[ClaimGold("x", label != "supported", label)]
        )
        for i, label in enumerate(["supported", "not_supported", "partially_supported"])
    ]
    bench = Benchmark("toy", "claim", examples)

    def sentence(score):
        label = "supported" if score < 0.5 else "unverifiable"
        return {"index": 0, "start": 0, "end": 1, "score": score, "label": label}

    preds = [_record([sentence(0.1)]), _record([sentence(0.8)]), _record([sentence(0.6)])]
    result = evaluate(bench, preds)["claim"]
    assert result["macro_f1"] == 1.0 and result["roc_auc"] == 1.0
    assert result["three_way"]["accuracy"] == pytest.approx(2 / 3)


def test_prediction_from_a_fact_level_report_uses_its_spans() -> None:
    answer = "Suede formed in Lyon."
    fact = Fact("f0", 0, "Suede", "formed in", "Lyon", delta=[Span(16, 20)])
    report = Report(
        answer=answer,
        sentences=[
            SentenceVerdict(0, Span(0, 21), answer, 0.8, "unverifiable", method="max", facts=["f0"])
        ],
        facts=[
            FactVerdict(fact, "Suede formed in Lyon.", NLIScores(0.1, 0.8, 0.1), "unverifiable")
        ],
        spans=[HallucinatedSpan(16, 20, "Lyon", 0.8, ["f0"])],
        summary=Summary("ok", 0.0, {"unverifiable": 1}, 1, True),
        config={"level": "fact"},
    )
    record = prediction_from_report(report)
    assert record["level"] == "fact"
    assert record["spans"] == [{"start": 16, "end": 20, "text": "Lyon", "score": 0.8}]
    assert record["facts"][0]["delta"] == [[16, 20]] and record["facts"][0]["score"] == 0.9
    report.config = {"level": "sentence"}
    assert prediction_from_report(report)["spans"] == [
        {"start": 0, "end": 21, "text": answer, "score": 0.8}
    ]


def test_changed_code_never_reuses_cached_predictions(tmp_path, monkeypatch) -> None:
    from enoki_hd.eval import cache

    cfg = compose_eval(
        tmp_path,
        "benchmark=file",
        f"benchmark.path={FIXTURES / 'mushroom.jsonl'}",
        "benchmark.format=mushroom",
    )
    _, first = run_eval(cfg, detector=fake_detector())
    assert first["cache"] == {"hits": 0, "misses": 4}  # detector + sentence_nli, 2 examples
    _, cached = run_eval(cfg, detector=fake_detector())
    assert cached["cache"] == {"hits": 4, "misses": 0}
    assert len(cache.code_fingerprint()) == 64
    monkeypatch.setattr(cache, "code_fingerprint", lambda: "another version of enoki_hd")
    detector = fake_detector()
    _, again = run_eval(cfg, detector=detector)
    assert again["cache"] == {"hits": 0, "misses": 4}
    assert detector.verifier.calls  # the detector really ran again
    assert len(cache_files(tmp_path, "detector")) == 4


# --------------------------------------------------------------------------------------------
# enoki compare: two runs of one benchmark, paired bootstrap
# --------------------------------------------------------------------------------------------


def two_runs(root: Path) -> tuple[Path, Path]:
    """A mushroom-file run, and a copy whose ``mark_all`` flags nothing (another config)."""
    run_file(root, "mushroom.jsonl", "mushroom")
    first = root / "outputs/eval/file/none-shipped"
    second = root / "outputs/eval/file/other"
    second.mkdir()
    (second / "metrics.json").write_text((first / "metrics.json").read_text())
    rows = [json.loads(line) for line in (first / "predictions.jsonl").read_text().splitlines()]
    for row in rows:
        if row["method"] == "mark_all":
            row["spans"] = []
    (second / "predictions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return first, second


def test_compare_runs_pairs_the_resamples(tmp_path, capsys) -> None:
    first, second = two_runs(tmp_path)
    out = tmp_path / "compare.json"
    options = ["--method", "mark_all", "--samples", "200", "--out", str(out)]
    code = cli_main(["compare", str(first), str(second), *options])
    assert code == 0
    result = json.loads(out.read_text())
    written = json.loads((first / "metrics.json").read_text())
    iou = result["methods"]["none-shipped"]["span.iou"]
    assert iou["value"] == written["methods"]["mark_all"]["span"]["iou"]
    assert result["methods"]["other"]["span.char_f1"]["value"] == 0.0
    gap = result["differences"]["other"]["span.char_f1"]
    assert gap["value"] == written["methods"]["mark_all"]["span"]["char"]["f1"] > 0
    # a resample without any gold character scores 0 for both: never behind, not always ahead
    assert gap["low"] >= 0 and 0.5 < gap["ahead"] <= 1.0
    assert result["runs"] == {"none-shipped": str(first), "other": str(second)}
    assert (result["benchmark"], result["method"], result["samples"]) == ("file", "mark_all", 200)
    text = capsys.readouterr().out
    assert text.startswith("# file: none-shipped vs other (mark_all)")
    assert "none-shipped minus each other run on the same resamples" in text


def test_compare_refuses_runs_it_cannot_pair(tmp_path, capsys) -> None:
    first, second = two_runs(tmp_path)
    with pytest.raises(SystemExit):
        cli_main(["compare", str(first), str(tmp_path / "nowhere")])
    assert "no metrics.json in" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli_main(["compare", str(first), str(second), "--method", "detector"])
    assert "has no predictions of method 'detector'" in capsys.readouterr().err
    rows = (second / "predictions.jsonl").read_text().splitlines()
    (second / "predictions.jsonl").write_text("\n".join(rows[3:]) + "\n")
    with pytest.raises(SystemExit):
        cli_main(["compare", str(first), str(second), "--method", "mark_all"])
    assert "the runs scored different examples of file" in capsys.readouterr().err


def test_compare_refuses_one_run_given_twice(tmp_path, capsys) -> None:
    """The same folder twice gave one row (the labels collide) and exit code 0."""
    first, _ = two_runs(tmp_path)
    again = first.parent / ".." / first.parent.name / first.name
    with pytest.raises(SystemExit) as exit_info:
        cli_main(["compare", str(first), str(again), "--method", "mark_all"])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.endswith(
        f"error: {first} and {again} are the same run folder: a run compared with itself "
        "differs by nothing; give the folders of two runs (e.g. another run_name=)\n"
    )


def test_compare_refuses_runs_on_other_or_changed_data(tmp_path, capsys) -> None:
    """Two files under one benchmark.name (every user file is "file") with the same ids, or a
    data file edited since the runs: both were compared, one run scored on the other's gold."""
    first, second = two_runs(tmp_path)
    digest = json.loads((first / "metrics.json").read_text())["benchmark"]["examples_sha256"]
    assert len(digest) == 64
    metrics_b = json.loads((second / "metrics.json").read_text())
    metrics_b["benchmark"]["examples_sha256"] = "0" * 64
    (second / "metrics.json").write_text(json.dumps(metrics_b))
    with pytest.raises(SystemExit):
        cli_main(["compare", str(first), str(second), "--method", "mark_all"])
    assert "the runs scored different data under the name file" in capsys.readouterr().err
    # the data file as read now differs from what both runs scored
    for run in (first, second):
        metrics = json.loads((run / "metrics.json").read_text())
        metrics["benchmark"]["examples_sha256"] = "f" * 64
        (run / "metrics.json").write_text(json.dumps(metrics))
    with pytest.raises(SystemExit):
        cli_main(["compare", str(first), str(second), "--method", "mark_all"])
    assert "is not the data the runs scored" in capsys.readouterr().err


def test_the_threshold_sweep_leaves_out_what_the_run_never_kept() -> None:
    """Spans the run cut at its threshold cannot be re-selected below it: those points are
    None (they drew a flat, wrong line), while sentence projections are swept everywhere."""
    example = EvalExample("a", None, "ctx", "Alpha beta gamma.", gold_spans=[Span(0, 5)])
    bench = Benchmark("toy", "span", [example])
    spans = {
        "level": "fact",
        "spans": [{"start": 0, "end": 5, "score": 0.9}, {"start": 6, "end": 10, "score": 0.7}],
        "sentences": [],
    }
    sweep = threshold_sweep(bench, {"detector": [spans]}, (0.3, 0.6, 0.8), run_threshold=0.6)
    assert sweep["methods"]["detector"]["iou"] == [None, pytest.approx(5 / 9), pytest.approx(1.0)]


def test_an_oracle_judged_prediction_is_cached_under_its_gold() -> None:
    """judge=oracle answers from the gold spans: after the gold changed, a rerun reused the
    old predictions (the key held the texts only)."""
    from enoki_hd.eval.cache import PredictionCache
    from enoki_hd.verify.routing import reads_gold_labels

    example = EvalExample("a", None, "ctx", "Alpha beta.", gold_spans=[Span(0, 5)])
    edited = EvalExample("a", None, "ctx", "Alpha beta.", gold_spans=[Span(6, 10)])
    key = PredictionCache.key
    assert key("m", example) == key("m", edited)  # a method that never reads the gold
    assert key("m", example, gold=True) != key("m", edited, gold=True)
    oracle = Detector(
        LexicalVerifier(), sentence_backend="regex", verification="llm", judge="oracle"
    )
    assert reads_gold_labels(oracle) and not reads_gold_labels(fake_detector())


@pytest.mark.parametrize(
    ("rows", "overrides", "message"),
    [
        ("", [], "has no examples to evaluate (is the file empty?)"),
        ('{"id": "a"}\n', [], "field 'model_output_text' is missing (is benchmark.format=mushroom"),
        ("{not json\n", [], "is not valid JSON"),
        (None, ["limit=0"], "limit must be a whole number >= 1 or null, got 0 (e.g. limit=5)"),
        (None, ["bootstrap.level=95"], "bootstrap.level must be between 0 and 1"),
        (None, ["methods=[lexical_absnt]"], "unknown method(s) lexical_absnt"),
        (
            None,
            ["methods=[]"],
            "methods is empty: name at least one, e.g. methods=[detector,lexical_absent] "
            "(known: detector, sentence_nli, mark_all, mark_none, lexical_absent, lexical_phrases)",
        ),
        (
            None,
            ["limit=abc"],
            "limit must be a whole number >= 1 or null, got 'abc' (e.g. limit=5)",
        ),
        (None, ["limit=2.5"], "limit must be a whole number >= 1 or null, got 2.5 (e.g. limit=5)"),
        (
            None,
            ["deltas=[0,x]"],
            "deltas must be a list of whole numbers of characters >= 0, got [0, 'x'] "
            "(e.g. deltas=[0,5])",
        ),
        (
            None,
            ["deltas=[-3]"],
            "deltas must be a list of whole numbers of characters >= 0, got [-3]",
        ),
        (None, ["deltas=5"], "deltas must be a list of whole numbers of characters >= 0, got 5 "),
        (
            None,
            ["cache=no"],
            "cache must be True or False, got str 'no': write cache=true or cache=false",
        ),
        (
            None,
            ["+benchmark.contxt_field=x"],
            "unknown key benchmark.contxt_field (did you mean benchmark.context_field?)",
        ),
    ],
)
def test_a_bad_file_or_setting_is_one_line_before_any_method_runs(
    tmp_path, capsys, rows, overrides, message
) -> None:
    data = tmp_path / "data.jsonl"
    if rows is None:
        data.write_text((FIXTURES / "mushroom.jsonl").read_text())
    else:
        data.write_text(rows)
    args = [
        "eval",
        "benchmark=file",
        f"benchmark.path={data}",
        "benchmark.format=mushroom",
        "methods=[lexical_absent]",
        f"paths.output_dir={tmp_path / 'out'}",
        f"paths.shared_dir={tmp_path}",
        *overrides,
    ]
    with pytest.raises(SystemExit) as exit_info:
        cli_main(args)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("enoki eval: error: ") and message in err and "Traceback" not in err


@pytest.mark.parametrize("threshold", [2, -0.5])
def test_a_threshold_out_of_range_is_refused_without_a_detector(threshold) -> None:
    """The baselines' metrics read detector.threshold; only the detector checked its range."""
    with pytest.raises(ValueError) as info:
        run_settings({"methods": ["mark_all"], "detector": {"threshold": threshold}})
    assert str(info.value) == f"detector.threshold must be in [0, 1], got {float(threshold)}"


def test_methods_may_be_one_name() -> None:
    """methods=detector (no brackets) was split into 'd, e, t, ...'."""
    assert run_settings({"methods": "mark_all"}).methods == ["mark_all"]
    assert run_settings({}).methods == list(DEFAULT_METHODS)


def test_a_finished_run_is_replaced_only_when_asked(tmp_path, capsys) -> None:
    """The same run_name with other settings silently replaced a finished run; the same
    settings rerun (or resume) as before."""
    data = tmp_path / "data.jsonl"
    data.write_text((FIXTURES / "mushroom.jsonl").read_text())
    out = tmp_path / "out"
    args = [
        "eval",
        "benchmark=file",
        f"benchmark.path={data}",
        "benchmark.format=mushroom",
        "methods=[lexical_absent,mark_all]",
        f"paths.output_dir={out}",
        f"paths.shared_dir={tmp_path}",
        "progress=false",
    ]
    assert cli_main(args) == 0
    assert cli_main([*args, "cache=false"]) == 0  # progress / cache do not change the results
    finished = (out / "metrics.json").read_bytes()
    full_sha = json.loads(finished)["benchmark"]["examples_sha256"]
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_info:
        cli_main([*args, "limit=1"])
    assert exit_info.value.code == 2
    one_sha = Benchmark("file", "span", load_mushroom(data).examples[:1]).examples_sha256()
    assert capsys.readouterr().err == (
        f"enoki eval: error: {out} holds a finished run with other settings (limit null → 1, "
        f"benchmark.examples_sha256 {full_sha[:12]} → {one_sha[:12]}); give this run another "
        "run_name=NAME, or overwrite=true to replace that run\n"
    )
    assert (out / "metrics.json").read_bytes() == finished
    assert cli_main([*args, "limit=1", "overwrite=true"]) == 0
    assert json.loads((out / "metrics.json").read_text())["benchmark"]["n_examples"] == 1


def test_the_same_sources_file_by_another_path_is_the_same_run(
    tmp_path, capsys, monkeypatch
) -> None:
    """benchmark.sources named relatively, then absolutely, was refused as other settings."""
    folder = FIXTURES / "ragtruth"
    args = [
        "eval",
        "benchmark=file",
        f"benchmark.path={folder / 'response.jsonl'}",
        "benchmark.format=ragtruth",
        "methods=[mark_all]",
        f"paths.output_dir={tmp_path / 'out'}",
        f"paths.shared_dir={tmp_path}",
        "progress=false",
        "bootstrap.samples=0",
    ]
    monkeypatch.chdir(folder)
    assert cli_main([*args, "benchmark.sources=source_info.jsonl"]) == 0
    assert cli_main([*args, f"benchmark.sources={folder / 'source_info.jsonl'}"]) == 0
    assert "holds a finished run" not in capsys.readouterr().err


def test_the_eval_script_reports_an_interrupt_and_config_errors_in_one_line(
    tmp_path, capsys, monkeypatch
) -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "eval_script", Path(__file__).resolve().parents[1] / "scripts/eval.py"
    )
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    cfg = compose_eval(tmp_path, "benchmark=file", BASELINES_ONLY)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    def exit_now(code):  # os._exit would end pytest too
        raise SystemExit(code)

    monkeypatch.setattr(script, "run_eval", interrupted)
    monkeypatch.setattr("enoki_hd.eval.runner.os._exit", exit_now)
    with pytest.raises(SystemExit) as exit_info:
        script.main(cfg)
    assert exit_info.value.code == 130
    err = capsys.readouterr().err
    assert err == "scripts/eval.py: interrupted (rerun the same command to resume)\n"
    monkeypatch.undo()
    with pytest.raises(SystemExit) as exit_info:
        script.main(cfg)
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.startswith("error: benchmark.format is not set; give one of")

    # a damaged tagger or verifier checkpoint was a Hydra traceback (enoki eval: one line)
    from enoki_hd.extract.encoder import TaggerError

    def damaged(*args, **kwargs):
        raise TaggerError("/x/tagger/manifest.json is not valid JSON (...);\n restore it")

    monkeypatch.setattr(script, "run_eval", damaged)
    with pytest.raises(SystemExit) as exit_info:
        script.main(cfg)
    assert exit_info.value.code == 1
    assert capsys.readouterr().err == (
        "error: /x/tagger/manifest.json is not valid JSON (...); restore it\n"
    )


def test_compare_names_the_file_or_flag_at_fault(tmp_path, capsys) -> None:
    first, second = two_runs(tmp_path)
    with pytest.raises(SystemExit) as exit_info:
        cli_main(["compare", str(first), str(second), "--method", "mark_all", "--samples", "0"])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err == (
        "enoki compare: error: --samples must be a whole number >= 1, got 0\n"
    )
    metrics = json.loads((second / "metrics.json").read_text())
    del metrics["benchmark"]
    (second / "metrics.json").write_text(json.dumps(metrics))
    with pytest.raises(SystemExit) as exit_info:
        cli_main(["compare", str(first), str(second), "--method", "mark_all"])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err == (
        f"enoki compare: error: {second / 'metrics.json'} has no benchmark.name: it is not a "
        "metrics.json of `make eval` (or was edited); rerun the evaluation that wrote this "
        "folder\n"
    )


def test_the_sentence_level_baseline_takes_the_detectors_sentence_switches() -> None:
    # it was built with the defaults: a run with detector.mask_citations=false compared the
    # detector against a baseline that still masked citations
    from enoki_hd.eval.methods import sentence_level_twin

    options = {"mask_citations": False, "mask_frames": False, "quoted_support": False}
    detector = Detector(LexicalVerifier(), selection="none", threshold=0.3, **options)
    twin = sentence_level_twin(detector)
    assert twin.extractor is None and twin.verifier is detector.verifier
    got = {key: twin.config()[key] for key in ("selection", "threshold", *options)}
    assert got == {"selection": "none", "threshold": 0.3, **options}
    # at the defaults it is the detector it always was (cache keys, numbers unchanged)
    default = sentence_level_twin(Detector(LexicalVerifier())).config()
    assert default == Detector(LexicalVerifier(), extractor=None).config()
