"""Calibrated fusion: the feature vector, the fitted logistic regression file, the calibrated
judge and detector, and the leave-one-benchmark-out pieces of ``make calibrate``."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from enoki_hd.detector import Detector
from enoki_hd.eval.datasets.schema import ClaimGold, EvalExample, SentenceGold
from enoki_hd.train.calibrate import (
    FactRow,
    benchmark_weights,
    calibrate_command,
    choose_threshold,
    fact_label,
    fit_fusion,
    run_calibrate,
    ship_fusion,
    weighted_macro_f1,
)
from enoki_hd.train.settings import SettingsError
from enoki_hd.types import Evidence, Fact, NLIScores, Span
from enoki_hd.verify.calibration import (
    FEATURES,
    CalibrationError,
    FusionCalibration,
    fusion_features,
)
from enoki_hd.verify.evidence import EvidenceDecision
from enoki_hd.verify.grounding import GroundingIndex, GroundingResult
from enoki_hd.verify.judge import FactJudge
from tests.fakes import LexicalVerifier

N = len(FEATURES)


def _calibration(**overrides) -> FusionCalibration:
    """Only the fact's NLI logit counts: probability = sigmoid(nli_hall_logit)."""
    coef = [0.0] * N
    coef[FEATURES.index("nli_hall_logit")] = 1.0
    values = dict(
        coef=tuple(coef),
        intercept=0.0,
        mean=(0.0,) * N,
        scale=(1.0,) * N,
        threshold=0.5,
        verifier_sha256="abc",
    )
    values.update(overrides)
    return FusionCalibration(**values)  # type: ignore[arg-type]


def test_features_of_a_fact_are_exact() -> None:
    absent = GroundingResult("absent", 0.75, ["noel"], [], 2)
    features = fusion_features(
        NLIScores(0.2, 0.3, 0.5), NLIScores(0.5, 0.25, 0.25), absent, refinement=True
    )
    assert list(features) == list(FEATURES)
    assert features["nli_hall_logit"] == pytest.approx(math.log(0.8 / 0.2), abs=1e-6)
    assert features["nli_contradiction"] == 0.5
    assert features["sentence_hall_logit"] == pytest.approx(0.0, abs=1e-6)
    assert features["sentence_contradiction"] == 0.25
    assert features["grounding_score"] == 0.75
    assert (features["grounding_absent"], features["grounding_grounded"]) == (1.0, 0.0)
    assert (features["grounding_empty"], features["value_conflict"]) == (0.0, 0.0)
    assert features["refinement"] == 1.0


def test_features_clip_certain_probabilities_and_default_the_sentence_to_the_fact() -> None:
    features = fusion_features(NLIScores(0.0, 0.0, 1.0), None, None, refinement=False)
    assert features["nli_hall_logit"] == 8.0
    assert features["sentence_hall_logit"] == 8.0
    assert features["grounding_empty"] == 1.0 and features["grounding_score"] == 0.0
    mismatch = GroundingResult("mismatch", 0.4, ["12"], [("12", "7")], 4)
    conflict = fusion_features(NLIScores(1.0, 0.0, 0.0), None, mismatch, refinement=False)
    assert conflict["value_conflict"] == 1.0 and conflict["nli_hall_logit"] == -8.0


def test_probability_is_the_standardised_logistic() -> None:
    coef = [0.0] * N
    coef[FEATURES.index("grounding_score")] = 2.0
    mean = [0.0] * N
    mean[FEATURES.index("grounding_score")] = 0.5
    scale = [1.0] * N
    scale[FEATURES.index("grounding_score")] = 0.25
    fusion = FusionCalibration(tuple(coef), -1.0, tuple(mean), tuple(scale), 0.5)
    features = dict.fromkeys(FEATURES, 0.0) | {"grounding_score": 1.0}
    # z = -1 + 2 * (1.0 - 0.5) / 0.25 = 3
    assert fusion.probability(features) == pytest.approx(1 / (1 + math.exp(-3)))
    with pytest.raises(KeyError, match="missing"):
        fusion.probability({"nli_hall_logit": 0.0})


def test_fusion_file_round_trips_and_refuses_another_verifier(tmp_path: Path) -> None:
    fusion = _calibration(metadata={"fitted_on": {"a": {"facts": 3}}})
    path = fusion.save(tmp_path / "fusion.json")
    loaded = FusionCalibration.load(path, verifier_sha256="abc")
    assert loaded == fusion and loaded.metadata == fusion.metadata
    assert loaded.config() == {"path": str(path), "sha256": fusion.sha256, "threshold": 0.5}
    with pytest.raises(CalibrationError, match="fitted for the verifier with model sha256 abc"):
        FusionCalibration.load(path, verifier_sha256="other")
    with pytest.raises(FileNotFoundError, match="make calibrate"):
        FusionCalibration.load(tmp_path / "missing.json")


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d.update(format_version=0), "format_version 0"),
        (lambda d: d.pop("coef"), "missing field 'coef'"),
        (lambda d: d.update(features=["x"] * N), "not this version's"),
        (lambda d: d.update(coef=[0.0]), "coef has 1 values"),
        (lambda d: d.update(threshold=1.5), "threshold must be in"),
    ],
)
def test_a_bad_fusion_file_is_refused_with_its_field(tmp_path: Path, edit, message) -> None:
    data = _calibration().to_dict()
    edit(data)
    path = tmp_path / "fusion.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(CalibrationError, match=message):
        FusionCalibration.load(path)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[1, 2]", "not a fusion file (a JSON object), got list"),
        ({"coef": 5}, "field 'coef' must be a list of 10 numbers, got 5"),
        ({"mean": [0.0] * (N - 1) + [None]}, "field 'mean' must be a list of 10 numbers"),
        ({"threshold": "high"}, "field 'threshold' must be a number, got 'high'"),
        ({"intercept": True}, "field 'intercept' must be a number, got True"),
        ({"features": None}, "field 'features' must be a list of feature names, got None"),
        ({"verifier_sha256": 5}, "field 'verifier_sha256' must be a string or null, got 5"),
        ({"metadata": [1]}, "field 'metadata' must be an object, got list"),
        ({"scale": [0.0] * N}, "fusion scale values must be > 0"),
        (b"\xff\xfe{", "not a readable fusion JSON file"),
    ],
)
def test_a_malformed_fusion_file_names_the_file_and_field(tmp_path: Path, content, message) -> None:
    """A hand-edited or foreign fusion file is a CalibrationError naming the file and the field
    (it used to escape as an AttributeError or TypeError, or a ValueError naming neither)."""
    path = tmp_path / "fusion.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif isinstance(content, dict):
        path.write_text(json.dumps({**_calibration().to_dict(), **content}), encoding="utf-8")
    else:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(CalibrationError) as caught:
        FusionCalibration.load(path)
    assert str(caught.value).startswith(f"{path}: ")
    assert message in str(caught.value)


ANSWER = "Suede sold 12 albums."
CONTEXT = "Suede released 12 albums."


def _fact() -> Fact:
    return Fact(
        "f0.0",
        0,
        "Suede",
        "sold",
        "12 albums",
        subject_spans=[Span(0, 5)],
        relation_spans=[Span(6, 10)],
        object_spans=[Span(11, 20)],
    )


def _decision(probs: NLIScores) -> EvidenceDecision:
    return EvidenceDecision(probs.label(), probs, Evidence(0, len(CONTEXT), CONTEXT), 1)


@pytest.mark.parametrize(
    ("probs", "label"),
    [
        (NLIScores(0.7, 0.2, 0.1), "supported"),  # p = 0.3
        (NLIScores(0.1, 0.3, 0.6), "contradicted"),  # p = 0.9, contradiction > neutral
        (NLIScores(0.1, 0.6, 0.3), "unverifiable"),  # p = 0.9, neutral > contradiction
    ],
)
def test_calibrated_judge_scores_by_the_regression_and_labels_by_the_evidence(probs, label) -> None:
    judge = FactJudge("calibrated", threshold=0.5, calibration=_calibration())
    verdict = judge.judge(
        ANSWER,
        [_fact()],
        ["Suede sold 12 albums."],
        [_decision(probs)],
        grounding=GroundingIndex(CONTEXT),
    )[0]
    assert verdict.label == label and verdict.decided_by == "calibrated"
    assert verdict.score == pytest.approx(probs.hall_prob, abs=1e-6)
    assert verdict.features is not None and verdict.features["grounding_score"] > 0  # "sold"
    assert verdict.to_dict()["features"] == verdict.features


def test_calibrated_judge_needs_a_calibration() -> None:
    with pytest.raises(ValueError, match="needs a fusion calibration"):
        FactJudge("calibrated")


def test_a_detector_records_features_only_when_asked() -> None:
    plain = Detector(LexicalVerifier(), sentence_backend="regex")
    report = plain.detect(answer=ANSWER, context=CONTEXT)
    assert report.facts and all(v.features is None for v in report.facts)
    assert "features" not in report.facts[0].to_dict()
    recording = Detector(LexicalVerifier(), sentence_backend="regex", record_features=True)
    recorded = recording.detect(answer=ANSWER, context=CONTEXT)
    assert [v.label for v in recorded.facts] == [v.label for v in report.facts]
    assert [s.score for s in recorded.sentences] == [s.score for s in report.sentences]
    assert all(v.features is not None for v in recorded.facts)
    assert recording.config()["record_features"] is True and "record_features" not in plain.config()


def test_calibrated_detector_uses_the_fusion_threshold_and_round_trips_its_config(
    tmp_path: Path,
) -> None:
    path = _calibration(threshold=0.42, verifier_sha256=None).save(tmp_path / "fusion.json")
    detector = Detector(
        LexicalVerifier(), sentence_backend="regex", verification="calibrated", calibration=path
    )
    assert detector.threshold == 0.42
    report = detector.detect(answer=ANSWER, context=CONTEXT)
    assert {v.decided_by for v in report.facts} == {"calibrated"}
    config = detector.config()
    assert config["calibration"]["path"] == str(path)
    assert config["calibration"]["threshold"] == 0.42
    rebuilt = Detector.from_config({**config, "verifier": None} | {"verifier": {}})
    assert rebuilt.judge.calibration == detector.judge.calibration
    assert rebuilt.threshold == 0.42
    # an explicit threshold wins over the fusion's
    assert (
        Detector(
            LexicalVerifier(), verification="calibrated", calibration=path, threshold=0.6
        ).threshold
        == 0.6
    )
    with pytest.raises(ValueError, match=r"calibration\.sha256"):
        Detector.from_config({"calibration": {"path": str(path), "sha256": "0" * 64}})


def test_calibrated_detector_without_a_fusion_file_says_how_to_make_one() -> None:
    with pytest.raises(ValueError, match=r"pass calibration=<path to fusion\.json>"):
        Detector(LexicalVerifier(), verification="calibrated")


def _example(**gold) -> EvalExample:
    return EvalExample("e1", None, "ctx", "Suede sold 12 albums. It was 1989.", **gold)


SENTENCES = [{"index": 0, "start": 0, "end": 21}, {"index": 1, "start": 22, "end": 34}]


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (
            {"benchmarks": ["capabilities", "nope"]},
            "benchmarks: no benchmark named 'nope'; known: capabilities, capabilities_fresh, capabilities_markdown,",
        ),
        (
            {"benchmarks": ["capabilities", "capabilities"]},
            "benchmarks: leave-one-benchmark-out needs at least two distinct benchmarks, got "
            "['capabilities', 'capabilities']",
        ),
        ({"c": -1.0}, "C (the inverse L2 strength) must be a number > 0, got -1.0"),
        ({"c": "abc"}, "C (the inverse L2 strength) must be a number > 0, got 'abc'"),
        ({"limit": 0}, "limit must be a whole number >= 1 or null, got 0"),
        # overrides of the eval config were tracebacks once the verifier had been loaded
        (
            {"eval_overrides": ["deltas=[-1]"]},
            "eval_overrides: deltas must be a list of whole numbers of characters >= 0, got "
            "[-1] (e.g. deltas=[0,5])",
        ),
        (
            {"eval_overrides": ["verifier=nope"]},
            "eval_overrides: In 'eval': Could not find 'verifier/nope' Available options in "
            "'verifier': fast shipped window",
        ),
        (
            {"eval_overrides": ["bootstrap.samples=-2"]},
            "eval_overrides: bootstrap.samples must be a whole number >= 1",
        ),
    ],
)
def test_calibrate_refuses_bad_settings_before_any_benchmark_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, settings: dict, message: str
) -> None:
    """An unknown benchmark used to fail as a Hydra traceback once the benchmarks before it
    had been evaluated; C <= 0 only in the fit, after every benchmark."""
    options = {"benchmarks": ["capabilities", "mushroom_dev30"], "c": 1.0, "limit": None}
    options.update(settings)

    def loads_the_verifier(*args, **kwargs):
        raise AssertionError("verifier loaded")

    monkeypatch.setattr(Detector, "from_config", loads_the_verifier)
    with pytest.raises(SettingsError) as caught:
        run_calibrate(output_dir=tmp_path, ship=False, **options)
    assert message in str(caught.value)
    assert not any(tmp_path.iterdir())


def test_a_rerun_on_fewer_benchmarks_removes_the_earlier_runs_folds_of_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a run on six benchmarks then one on two left four folds (fusions, held-out runs) that
    # calibration.json no longer listed, beside the new ones, in the same folder
    for name in ("capabilities", "mushroom_dev30", "wice_dev"):
        (tmp_path / "folds").mkdir(exist_ok=True)
        (tmp_path / "folds" / f"{name}.json").write_text("{}")
        for sub in ("features", "heldout"):
            (tmp_path / sub / name).mkdir(parents=True, exist_ok=True)
            (tmp_path / sub / name / "report.md").write_text("old")
    (tmp_path / "folds" / "notes.txt").write_text("mine")

    class Stop(Exception):
        pass

    def stops(*args, **kwargs):
        raise Stop

    monkeypatch.setattr(Detector, "from_config", stops)
    with pytest.raises(Stop):
        run_calibrate(
            output_dir=tmp_path, benchmarks=["capabilities", "mushroom_dev30"], ship=False
        )
    left = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert left == [
        "features/capabilities/report.md",
        "features/mushroom_dev30/report.md",
        "folds/capabilities.json",
        "folds/mushroom_dev30.json",
        "folds/notes.txt",
        "heldout/capabilities/report.md",
        "heldout/mushroom_dev30/report.md",
    ]


def test_fact_labels_come_from_span_sentence_and_claim_gold() -> None:
    fact = {"id": "f0.0", "sentence": 0, "spans": [[11, 20]]}
    other = {"id": "f1.0", "sentence": 1, "spans": [[29, 33]]}
    spans = _example(gold_spans=[Span(11, 13)])
    assert [fact_label(spans, f, SENTENCES) for f in (fact, other)] == [1, 0]
    sentences = _example(sentence_labels=[SentenceGold(Span(22, 34), "It was 1989.", True)])
    assert [fact_label(sentences, f, SENTENCES) for f in (fact, other)] == [None, 1]
    claims = _example(claim_labels=[ClaimGold("c", False, "supported")])
    assert fact_label(claims, fact, SENTENCES) == 0
    assert fact_label(_example(), fact, SENTENCES) is None


def test_every_benchmark_weighs_the_same() -> None:
    rows = [FactRow("a", "e", str(i), {}, 0) for i in range(3)] + [FactRow("b", "e", "x", {}, 1)]
    assert benchmark_weights(rows) == [1 / 3, 1 / 3, 1 / 3, 1.0]


def test_weighted_macro_f1_and_threshold_choice() -> None:
    probs, labels, weights = [0.1, 0.4, 0.6, 0.9], [0, 0, 1, 1], [1.0, 1.0, 1.0, 1.0]
    assert weighted_macro_f1(probs, labels, weights, 0.5) == 1.0
    # at 0.3: tp 2, fp 1, fn 0, tn 1 → F1+ = 4/5, F1- = 2/3
    assert weighted_macro_f1(probs, labels, weights, 0.3) == pytest.approx((0.8 + 2 / 3) / 2)
    threshold, value = choose_threshold(probs, labels, weights)
    assert threshold == 0.41 and value == 1.0  # the lowest of the perfect thresholds


def test_fit_fusion_learns_the_informative_feature_and_records_its_data() -> None:
    rows = []
    for i in range(40):
        label = i % 2
        features = dict.fromkeys(FEATURES, 0.0)
        features["grounding_score"] = 0.8 if label else 0.1
        features["nli_contradiction"] = (i % 5) / 10  # noise
        rows.append(FactRow("a" if i < 20 else "b", f"e{i}", "f", features, label))
    fusion = fit_fusion(rows, verifier_sha256="abc")
    weight = dict(zip(FEATURES, fusion.coef, strict=True))
    assert weight["grounding_score"] > 1.0
    assert abs(weight["grounding_score"]) > abs(weight["nli_contradiction"])
    assert fusion.metadata["fitted_on"] == {
        "a": {"facts": 20, "unsupported": 10},
        "b": {"facts": 20, "unsupported": 10},
    }
    assert fusion.metadata["train_weighted_macro_f1"] == 1.0
    flagged = [fusion.probability(r.features) >= fusion.threshold for r in rows]
    assert flagged == [bool(r.label) for r in rows]


def test_ship_fusion_writes_the_file_and_the_manifest_entry(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text(json.dumps({"files": {"model.onnx": "x"}}))
    fusion = _calibration(metadata={"held_out_metrics": {"a": {"IoU": 0.5}}})
    path = ship_fusion(fusion, tmp_path)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["files"] == {"model.onnx": "x", "fusion.json": manifest["fusion"]["sha256"]}
    assert manifest["fusion"]["file"] == "fusion.json" and path == tmp_path / "fusion.json"
    assert manifest["fusion"]["held_out_metrics"] == {"a": {"IoU": 0.5}}
    assert len(manifest["fusion"]["sha256"]) == 64
    assert manifest["fusion"]["made_by"] == "make calibrate"
    with pytest.raises(FileNotFoundError, match="not a checkpoint directory"):
        ship_fusion(fusion, tmp_path / "absent")
    ship_fusion(fusion, tmp_path, made_by=calibrate_command(["verifier=fast"]))
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert (
        manifest["fusion"]["made_by"] == "make calibrate ARGS='eval_overrides=[\"verifier=fast\"]'"
    )


def test_the_fast_verifier_has_its_own_fusion() -> None:
    from enoki_hd.verify.loading import resolve_checkpoint

    fast = Path(resolve_checkpoint("verifier-minilm-l3"))
    detector = Detector("verifier-minilm-l3", verification="calibrated")
    fusion = detector.judge.calibration
    assert fusion is not None and fusion.verifier_sha256 == detector.verifier.sha256
    assert fusion.path == str(fast / "fusion.json")
    manifest = json.loads((fast / "manifest.json").read_text())
    assert manifest["fusion"]["threshold"] == fusion.threshold == detector.threshold == 0.51
    assert (
        manifest["fusion"]["made_by"]
        == fusion.metadata["command"]
        == calibrate_command(["verifier=fast"])
    )
    # the default verifier's fusion is refused for it: the sha256 differs
    default = json.loads((fast.parent / "verifier-minilm" / "fusion.json").read_text())
    assert default["verifier_sha256"] != fusion.verifier_sha256


def test_the_shipped_fusion_belongs_to_the_shipped_verifier() -> None:
    from enoki_hd.verify.loading import default_verifier_path, load_default_verifier

    verifier = load_default_verifier()
    detector = Detector(verifier, verification="calibrated")
    fusion = detector.judge.calibration
    assert fusion is not None and fusion.verifier_sha256 == verifier.sha256
    assert fusion.path == str(default_verifier_path() / "fusion.json")
    manifest = json.loads((default_verifier_path() / "manifest.json").read_text())
    assert manifest["fusion"]["threshold"] == fusion.threshold == detector.threshold
    assert set(manifest["fusion"]["held_out_metrics"]) == set(fusion.metadata["benchmarks"])
    report = detector.detect(
        answer="Harbor Bank bought Crestline Credit in 2019.",
        context="In 2019, Crestline Credit bought the regional lender Harbor Bank for $2.1 billion.",
    )
    assert report.facts and {v.decided_by for v in report.facts} == {"calibrated"}
    assert all(v.features is not None for v in report.facts)


def test_the_calibrate_script_reports_an_interrupt_and_a_damaged_checkpoint_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util

    from hydra import compose, initialize

    from enoki_hd.verify.nli import VerifierError

    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location("calibrate_script", root / "scripts/calibrate.py")
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    with initialize(version_base="1.3", config_path="../configs"):
        cfg = compose(
            config_name="calibrate",
            overrides=[
                f"paths.root_dir={tmp_path}",
                f"paths.output_dir={tmp_path / 'out'}",
                f"output_dir={tmp_path / 'out'}",
            ],
        )

    def interrupted(**kwargs):
        raise KeyboardInterrupt

    # a traceback before; every finished example is cached, so the same command resumes
    monkeypatch.setattr(script, "run_calibrate", interrupted)
    with pytest.raises(SystemExit) as exit_info:
        script.main(cfg)
    assert exit_info.value.code == 130
    assert capsys.readouterr().err == (
        "scripts/calibrate.py: interrupted (rerun the same command to resume)\n"
    )

    def damaged(**kwargs):
        raise VerifierError("/x/verifier/model.onnx is damaged;\n  restore it with git checkout")

    monkeypatch.setattr(script, "run_calibrate", damaged)
    with pytest.raises(SystemExit) as exit_info:
        script.main(cfg)
    assert exit_info.value.code == (
        "error: /x/verifier/model.onnx is damaged; restore it with git checkout"
    )
