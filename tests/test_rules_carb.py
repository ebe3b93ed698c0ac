"""scripts/carb_eval.py end to end on a two-sentence CaRB fixture."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

pytest.importorskip("spacy")

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


def test_carb_eval_writes_metrics(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    carb = tmp_path / "shared" / "data" / "carb"
    carb.mkdir(parents=True)
    (carb / "dev_sentences.txt").write_text("\n".join(SENTENCES) + "\n")
    (carb / "dev_gold.tsv").write_text("\n".join("\t".join(row) for row in GOLD) + "\n")
    spec = importlib.util.spec_from_file_location("carb_eval", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

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
    assert "collapsed" in capsys.readouterr().out
