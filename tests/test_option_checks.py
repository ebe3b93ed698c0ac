"""Wrongly typed or out-of-range options of the detector, its evidence selector and the encoder
extractor are refused with one message naming the option and what it accepts, before any model
loads; a switch given as "false" or "no" never reads as on.

In Python a wrong type is a TypeError; in a config (``Detector.from_config``, what ``enoki
eval`` builds from Hydra) every bad value is a ValueError naming the key, as the numbers'
already were, so ``enoki eval`` reports it in one line."""

from __future__ import annotations

from typing import Any

import pytest
from fakes import LexicalVerifier

import enoki_hd.detector as detector_module
from enoki_hd.detector import Detector
from enoki_hd.extract.encoder import EncoderExtractor, default_tagger_path
from enoki_hd.verify.evidence import EvidenceSelector

SWITCHES = (
    "conflicts",
    "absent_names",
    "refinement_support",
    "period_support",
    "language_check",
    "record_features",
    "mask_citations",
    "mask_frames",
    "quoted_support",
)
SHIPPED_TAGGER = default_tagger_path()


@pytest.fixture
def no_model_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    """from_config must refuse the option before it loads the verifier."""

    def load(cfg: Any) -> None:
        raise AssertionError("the verifier was loaded before the options were checked")

    monkeypatch.setattr(detector_module, "load_verifier_from_config", load)


@pytest.mark.parametrize("key", SWITCHES)
@pytest.mark.parametrize("value", ["false", "no", 0, 1, None])
def test_from_config_refuses_a_switch_that_is_not_a_bool(
    key: str, value: object, no_model_loads: None
) -> None:
    with pytest.raises(ValueError) as err:
        Detector.from_config({key: value})
    assert str(err.value) == (
        f"detector config '{key}' must be true or false, got {type(value).__name__} {value!r}"
    )


@pytest.mark.parametrize("value", [False, True])
def test_from_config_reads_switches_as_given(value: bool, monkeypatch) -> None:
    monkeypatch.setattr(detector_module, "load_verifier_from_config", lambda cfg: LexicalVerifier())
    config = Detector.from_config(dict.fromkeys(SWITCHES, value)).config()
    # record_features is recorded only when on
    assert {key: config.get(key, False) for key in SWITCHES} == dict.fromkeys(SWITCHES, value)


def test_from_config_refuses_a_bool_threshold(no_model_loads: None) -> None:
    with pytest.raises(ValueError) as err:
        Detector.from_config({"threshold": True})
    assert str(err.value) == "detector config 'threshold' must be a number, got True"


def test_from_config_checks_the_evidence_options_before_the_verifier_loads(
    no_model_loads: None,
) -> None:
    with pytest.raises(ValueError) as err:
        Detector.from_config({"evidence": {"top_k": "3"}})
    assert str(err.value) == (
        "detector config 'evidence': top_k must be an integer >= 1, got str '3'"
    )
    with pytest.raises(ValueError) as err:
        Detector.from_config({"evidence": {"top_k": 0}})
    assert str(err.value) == "top_k must be an integer >= 1, got 0"


@pytest.mark.parametrize("key", SWITCHES)
def test_detector_refuses_a_switch_that_is_not_a_bool(key: str) -> None:
    options: dict[str, Any] = {key: "false"}
    with pytest.raises(TypeError) as err:
        Detector(LexicalVerifier(), extractor=None, **options)
    assert str(err.value) == f"{key} must be True or False, got str 'false'"


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        ("8", TypeError, "index_cache_size must be an integer >= 0, got str '8'"),
        (8.0, TypeError, "index_cache_size must be an integer >= 0, got float 8.0"),
        (True, TypeError, "index_cache_size must be an integer >= 0, got bool True"),
        (-1, ValueError, "index_cache_size must be an integer >= 0, got -1"),
    ],
)
def test_detector_refuses_a_bad_index_cache_size(
    value: object, error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as err:
        Detector(LexicalVerifier(), extractor=None, index_cache_size=value)  # type: ignore[arg-type]
    assert str(err.value) == message


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"top_k": 2.5}, TypeError, "top_k must be an integer >= 1, got float 2.5"),
        ({"top_k": float("nan")}, TypeError, "top_k must be an integer >= 1, got float nan"),
        ({"top_k": float("inf")}, TypeError, "top_k must be an integer >= 1, got float inf"),
        ({"top_k": True}, TypeError, "top_k must be an integer >= 1, got bool True"),
        ({"top_k": "3"}, TypeError, "top_k must be an integer >= 1, got str '3'"),
        ({"top_k": 0}, ValueError, "top_k must be an integer >= 1, got 0"),
        (
            {"neighbours": float("nan")},
            TypeError,
            "neighbours must be an integer >= 0, got float nan",
        ),
        ({"neighbours": -1}, ValueError, "neighbours must be an integer >= 0, got -1"),
        (
            {"dense_weight": "0.5"},
            TypeError,
            "dense_weight must be a number in [0, 1], got str '0.5'",
        ),
        (
            {"dense_weight": float("nan")},
            ValueError,
            "dense_weight must be a number in [0, 1], got nan",
        ),
        (
            {"max_premise_tokens": 60.0},
            TypeError,
            "max_premise_tokens must be an integer >= 1 or None, got float 60.0",
        ),
        (
            {"fallback_sentences": "64"},
            TypeError,
            "fallback_sentences must be an integer >= 1 or None, got str '64'",
        ),
        (
            {"fallback_chars": 20000.0},
            TypeError,
            "fallback_chars must be an integer >= 1 or None, got float 20000.0",
        ),
        (
            {"fallback_chars": 0},
            ValueError,
            "fallback_chars must be an integer >= 1 or None, got 0",
        ),
        (
            {"max_sentence_chars": True},
            TypeError,
            "max_sentence_chars must be an integer >= 100 or None, got bool True",
        ),
        (
            {"max_sentence_chars": 50},
            ValueError,
            "max_sentence_chars must be an integer >= 100 or None, got 50",
        ),
        (
            {"restate_quantities": "no"},
            TypeError,
            "restate_quantities must be True or False, got str 'no'",
        ),
        (
            {"resolve_references": "yes"},
            TypeError,
            "resolve_references must be True or False, got str 'yes'",
        ),
        (
            {"value_sentences": 0},
            TypeError,
            "value_sentences must be True or False, got int 0",
        ),
    ],
)
def test_evidence_selector_refuses_bad_options(
    options: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as err:
        EvidenceSelector(**options)
    assert str(err.value) == message


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        (
            {"max_length": "256"},
            TypeError,
            "max_length must be an integer >= 1 or None, got str '256'",
        ),
        (
            {"max_length": 4.5},
            TypeError,
            "max_length must be an integer >= 1 or None, got float 4.5",
        ),
        ({"depth": "5"}, TypeError, "depth must be an integer >= 1 or None, got str '5'"),
        ({"batch_size": 2.0}, TypeError, "batch_size must be an integer >= 1, got float 2.0"),
        ({"batch_size": 0}, ValueError, "batch_size must be an integer >= 1, got 0"),
        (
            {"min_confidence": "0.5"},
            TypeError,
            "min_confidence must be a number in [0, 1], got str '0.5'",
        ),
        (
            {"min_confidence": 2.0},
            ValueError,
            "min_confidence must be a number in [0, 1], got 2.0",
        ),
        (
            {"min_english_share": None},
            TypeError,
            "min_english_share must be a number in [0, 1], got NoneType None",
        ),
    ],
)
def test_encoder_refuses_bad_options_before_loading(
    options: dict[str, Any], error: type[Exception], message: str, tmp_path
) -> None:
    # the directory does not exist: the options are checked first
    with pytest.raises(error) as err:
        EncoderExtractor(path=tmp_path / "missing", **options)
    assert str(err.value) == message


@pytest.mark.skipif(
    not (SHIPPED_TAGGER / "model.onnx").is_file(),
    reason="the shipped tagger is missing; run `make distill`",
)
@pytest.mark.parametrize("max_length", [1, 5])
def test_encoder_refuses_a_window_with_no_room_for_a_word(max_length: int) -> None:
    with pytest.raises(ValueError) as err:
        EncoderExtractor(path=SHIPPED_TAGGER, max_length=max_length)
    assert str(err.value) == (
        "max_length must be an integer >= 6 (a window holds 2 special tokens and 3 sentinels "
        f"besides its words), got {max_length}"
    )
    assert EncoderExtractor(path=SHIPPED_TAGGER, max_length=6).max_length == 6


def test_from_config_names_the_extractor_option(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(detector_module, "load_verifier_from_config", lambda cfg: None)
    with pytest.raises(ValueError) as err:
        Detector.from_config({"extractor": {"name": "encoder", "max_length": "256"}})
    assert str(err.value) == (
        "detector config 'extractor': max_length must be an integer >= 1 or None, got str '256'"
    )


def test_eval_reports_a_switch_given_as_a_string_in_one_line(tmp_path, capsys) -> None:
    pytest.importorskip("hydra")
    from enoki_hd.cli import main

    overrides = [
        "limit=1",
        "methods=[detector]",
        "detector.absent_names=no",
        "run_name=option_checks",
        f"paths.output_dir={tmp_path / 'out'}",
    ]
    try:
        code = main(["eval", *overrides])
    except SystemExit as exit_:
        code = exit_.code
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert err.endswith("detector config 'absent_names' must be true or false, got str 'no'\n")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"selector": "window"},
            "selector must be an EvidenceSelector (e.g. EvidenceSelector(strategy='window', "
            "top_k=3)) or None, got str 'window'",
        ),
        (
            {"selector": {"top_k": 3}},
            "selector must be an EvidenceSelector (e.g. EvidenceSelector(strategy='window', "
            "top_k=3)) or None, got dict {'top_k': 3}",
        ),
        (
            {"verifier": 123},
            "verifier must be a Verifier (with a predict method), a checkpoint path, a hub id, "
            "a shipped checkpoint name or None, got int",
        ),
        (
            {"calibration": 3, "verification": "calibrated"},
            "calibration must be a FusionCalibration, a path to its JSON file or None, got int",
        ),
    ],
)
def test_detector_refuses_a_wrongly_typed_component(options: dict[str, Any], message: str) -> None:
    """A selector, verifier or calibration of the wrong type was taken as given and failed on
    the first detect with an AttributeError deep in the pipeline (or a bare os.fspath error)."""
    options.setdefault("verifier", LexicalVerifier())
    with pytest.raises(TypeError) as err:
        Detector(extractor=None, **options)
    assert str(err.value) == message


def test_sentence_entailment_is_a_number_in_range_or_none(no_model_loads: None) -> None:
    with pytest.raises(TypeError) as err:
        Detector(LexicalVerifier(), sentence_entailment="0.7")  # type: ignore[arg-type]
    assert str(err.value) == (
        "sentence_entailment must be a number in [0, 1] or None, got str '0.7'"
    )
    with pytest.raises(ValueError) as err:
        Detector(LexicalVerifier(), sentence_entailment=1.5)
    assert str(err.value) == (
        "sentence_entailment must be a number in [0, 1] or None (off), got 1.5"
    )
    with pytest.raises(ValueError) as err:
        Detector.from_config({"sentence_entailment": "high"})
    assert str(err.value) == "detector config 'sentence_entailment' must be a number, got 'high'"


def test_sentence_entailment_needs_facts_judged_by_the_hybrid_rule() -> None:
    with pytest.raises(ValueError) as err:
        Detector(LexicalVerifier(), extractor=None, sentence_entailment=0.7)
    assert str(err.value) == (
        "sentence_entailment clears facts, and with extractor=None there are none (sentences "
        "are judged whole): give an extractor ('rules', 'encoder') or leave sentence_entailment "
        "None"
    )
    with pytest.raises(ValueError) as err:
        Detector(LexicalVerifier(), verification="nli", sentence_entailment=0.7)
    assert str(err.value) == (
        "sentence_entailment clears facts the hybrid rule failed, and verification='nli' "
        "judges facts by 'nli': use verification='hybrid' (the default) or leave "
        "sentence_entailment None"
    )
    # the escalating modes judge every fact by the hybrid rule first
    detector = Detector(
        LexicalVerifier(), verification="adaptive", judge="oracle", sentence_entailment=0.7
    )
    assert detector.judge.sentence_entailment == 0.7
