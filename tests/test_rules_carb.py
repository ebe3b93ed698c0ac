"""scripts/carb_eval.py end to end on a two-sentence CaRB fixture."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import subprocess
from pathlib import Path

import pytest

spacy = pytest.importorskip("spacy")

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "carb_eval.py"
SENTENCES = [
    "Suede is an English rock band formed in London in 1989 .",
    "The band was founded by Brett Anderson .",
]
GOLD = [
    (SENTENCES[0], "is", "Suede", "an English rock band"),
    (SENTENCES[0], "formed in", "Suede", "London", "in 1989"),
    (SENTENCES[1], "was founded by", "The band", "Brett Anderson"),
]


def _load(tmp_path: Path):
    """The script as a module, with a two-sentence CaRB fixture under ``tmp_path/shared``."""
    carb = tmp_path / "shared" / "data" / "carb"
    carb.mkdir(parents=True)
    (carb / "dev_sentences.txt").write_text("\n".join(SENTENCES) + "\n")
    (carb / "dev_gold.tsv").write_text("\n".join("\t".join(row) for row in GOLD) + "\n")
    spec = importlib.util.spec_from_file_location("carb_eval", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_carb_eval_writes_metrics(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    module = _load(tmp_path)
    out = tmp_path / "out"
    metrics = module.main(["--shared-dir", str(tmp_path / "shared"), "--out", str(out)])
    written = json.loads((out / "metrics.json").read_text())
    assert written == json.loads(json.dumps(metrics))
    assert written["n_sentences"] == 2 and written["match"] == "carb"
    for setting in ("chains", "collapsed"):
        scores = written[setting]
        assert set(scores) >= {"precision", "recall", "f1", "auc"}
        assert 0.0 < scores["recall"] <= 1.0 and scores["n_gold"] == 3
    assert written["collapsed"]["n_pred"] < written["chains"]["n_pred"]
    assert written["latency_s_per_sentence"]["median"] > 0
    # the numbers name the code and the parser they came from
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=SCRIPT.parents[1], capture_output=True, text=True
    )
    assert written["git"]["commit"] == (head.stdout.strip() or None)
    assert written["versions"]["spacy"] == importlib.metadata.version("spacy")
    assert written["model_version"] == spacy.load(written["model"]).meta["version"]
    assert "collapsed" in capsys.readouterr().out


def test_carb_eval_scores_the_shipped_tagger_with_and_without_the_parse(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from enoki_hd.extract.encoder import default_tagger_path

    if not (default_tagger_path() / "model.onnx").is_file():
        pytest.skip("the shipped tagger is missing; run `make distill`")
    module = _load(tmp_path)
    shared = ["--shared-dir", str(tmp_path / "shared")]
    read = module.main([*shared, "--extractor", "encoder", "--out", str(tmp_path / "a")])
    raw = module.main(
        [*shared, "--extractor", "encoder", "--raw-rows", "--out", str(tmp_path / "b")]
    )
    assert read["extractor"] == raw["extractor"] == "encoder"
    assert read["config"]["asserted"] is True and raw["config"]["asserted"] is False
    assert read["collapsed"]["n_gold"] == raw["collapsed"]["n_gold"] == 3
    assert read["collapsed"]["recall"] > 0
    assert "encoder, raw rows, carb match" in capsys.readouterr().out


def test_carb_eval_refuses_raw_rows_for_the_rules(tmp_path: Path, capsys) -> None:
    module = _load(tmp_path)
    with pytest.raises(SystemExit) as stopped:
        module.main(["--shared-dir", str(tmp_path / "shared"), "--raw-rows"])
    assert stopped.value.code == 2
    assert "--raw-rows reads the encoder's rows" in capsys.readouterr().err


def test_carb_eval_names_a_missing_carb_folder_and_the_fix(tmp_path: Path, capsys) -> None:
    module = _load(tmp_path)
    with pytest.raises(SystemExit) as stopped:
        module.main(["--shared-dir", str(tmp_path / "nowhere"), "--out", str(tmp_path / "out")])
    assert stopped.value.code == 2
    # argparse's prog is argv[0]: carb_eval.py from make, pytest here
    assert (
        capsys.readouterr()
        .err.splitlines()[-1]
        .endswith(
            f": error: CaRB dev file {tmp_path}/nowhere/data/carb/dev_sentences.txt "
            "does not exist: point --shared-dir (or ENOKI_SHARED_DIR) at the shared folder that "
            "holds data/carb/"
        )
    )
    assert not (tmp_path / "out").exists()


def test_carb_eval_refuses_an_out_under_a_file_before_extracting(
    tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = _load(tmp_path)

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("the extractor was loaded")

    monkeypatch.setattr(module, "get_extractor", never)
    (tmp_path / "taken").write_text("kept\n")
    shared = ["--shared-dir", str(tmp_path / "shared")]
    for out in (tmp_path / "taken", tmp_path / "taken" / "carb"):
        with pytest.raises(SystemExit) as stopped:
            module.main([*shared, "--out", str(out)])
        assert stopped.value.code == 2
        assert (
            capsys.readouterr()
            .err.splitlines()[-1]
            .endswith(
                f": error: --out {out}: {tmp_path / 'taken'} is a file; "
                "name a folder for metrics.json"
            )
        )
    assert (tmp_path / "taken").read_text() == "kept\n"


def test_carb_eval_names_an_empty_sentence_file(tmp_path: Path, capsys) -> None:
    module = _load(tmp_path)
    carb = tmp_path / "shared" / "data" / "carb"
    (carb / "dev_sentences.txt").write_text("\n")
    (carb / "dev_gold.tsv").write_text("")
    with pytest.raises(SystemExit) as stopped:
        module.main(["--shared-dir", str(tmp_path / "shared"), "--out", str(tmp_path / "out")])
    assert stopped.value.code == 2
    assert (
        capsys.readouterr()
        .err.splitlines()[-1]
        .endswith(f": error: {carb}/dev_sentences.txt holds no sentence (an empty copy?)")
    )
