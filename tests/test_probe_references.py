"""scripts/probe_references.py: the held-out pairs it picks, the premises it builds, and a run
end to end on a small shared folder with a recording verifier."""

from __future__ import annotations

import gzip
import importlib.util
import json
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import pytest

from enoki_hd.types import NLIScores

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "probe_references.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("probe_references", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _write(folder: Path, name: str, rows: list[dict]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    with gzip.open(folder / f"{name}.jsonl.gz", "wt", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row) + "\n")


@pytest.mark.parametrize(
    ("premise", "hypothesis", "expected"),
    [
        (
            "Dana Holt said profits rose by 4%.",
            "Dana Holt said profits rose.",
            {
                "named": "Dana Holt said profits rose by 4%.",
                "pronoun": "It said profits rose by 4%.",
                "short": "Holt said profits rose by 4%.",
            },
        ),
        # a one-word name, a name the premise does not open with, one the hypothesis lacks
        ("Holt said profits rose by 4%.", "Holt said profits rose.", None),
        ("Profits rose, Dana Holt said.", "Dana Holt said profits rose.", None),
        ("Dana Holt said profits rose by 4%.", "Profits rose by 4%.", None),
    ],
)
def test_the_premises_of_a_pair(premise: str, hypothesis: str, expected: dict | None) -> None:
    module = _load()
    pair = {"premise": premise, "hypothesis": hypothesis, "label": "entailment"}
    assert module.variants(pair) == expected


class Recording:
    """Entailment when the premise opens with "Dana Holt", else contradiction."""

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[NLIScores]:
        return [
            NLIScores(0.9, 0.05, 0.05) if p.startswith("Dana Holt") else NLIScores(0.05, 0.05, 0.9)
            for p, _ in pairs
        ]


def test_the_probe_counts_each_variant(tmp_path: Path) -> None:
    module = _load()
    folder = tmp_path / "data" / "nli"
    entailed = {"premise": "Dana Holt said profits rose.", "hypothesis": "Dana Holt spoke."}
    _write(folder, "mnli_taxinli", [{**entailed, "label": "entailment"}])
    _write(
        folder,
        "fool_me_twice_dev",
        [
            {
                "claim": "Dana Holt resigned.",
                "evidence": ["Dana Holt stayed on."],
                "label": "REFUTES",
            }
        ],
    )
    _write(folder, "rte_dev", [{"premise": "x", "hypothesis": "y", "label": "not_entailment"}])
    pairs = list(module.read_pairs(folder))
    assert [p["label"] for p in pairs] == ["entailment", "contradiction", "not_entailment"]
    result = module.probe(pairs, Recording())
    assert result["pairs"] == 2
    assert result["named"]["counts"] == {
        "contradiction -> entailment": 1,
        "entailment -> entailment": 1,
    }
    assert result["named"]["accuracy_3way"] == 0.5
    assert result["pronoun"]["counts"] == {
        "contradiction -> contradiction": 1,
        "entailment -> contradiction": 1,
    }


def test_a_missing_source_names_the_folder_and_the_fix(tmp_path: Path) -> None:
    module = _load()
    with pytest.raises(FileNotFoundError, match="ENOKI_SHARED_DIR"):
        list(module.read_pairs(tmp_path))
