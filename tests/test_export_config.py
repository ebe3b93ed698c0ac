"""`make export` refuses a bad setting in one line before any export work, and never checks
parity on fewer pairs than asked."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hydra import compose, initialize

from enoki_hd.train.nli_data import load_pairs

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))


@pytest.fixture
def model_dir(tmp_path: Path) -> Path:
    """A folder that passes for a trained model (config.json); nothing ever loads it."""
    directory = tmp_path / "model"
    directory.mkdir()
    (directory / "config.json").write_text("{}")
    return directory


BAD_SETTINGS = [
    (
        "parity_pairs=-1",
        "parity_pairs must be a number of SNLI test pairs of at least 1 (null = all of them), "
        "got -1",
    ),
    (
        "parity_pairs=0",
        "parity_pairs must be a number of SNLI test pairs of at least 1 (null = all of them), "
        "got 0",
    ),
    ("quantize=foo", "quantize must be 'int8' or null (float), got 'foo'"),
    (
        "int8.embeddings=bad",
        "int8.embeddings must be 'fp16', 'int8_rows' or 'float', got 'bad'",
    ),
    ("opset=abc", "opset must be an ONNX opset version such as 17, got 'abc'"),
    (
        "int8.keep_float=['(']",
        "int8.keep_float '(' is not a regular expression "
        "(missing ), unterminated subpattern at position 0)",
    ),
]


@pytest.mark.parametrize(("override", "message"), BAD_SETTINGS)
def test_bad_settings_are_refused_before_the_export(
    override: str,
    message: str,
    model_dir: Path,
    tmp_path: Path,
    shared_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import export

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("the export ran despite a bad setting")

    monkeypatch.setattr("enoki_hd.export.onnx.export_and_ship", never)
    with initialize(version_base="1.3", config_path="../configs"):
        cfg = compose(
            config_name="export",
            overrides=[
                f"paths.shared_dir={shared_dir}",
                f"model_dir={model_dir}",
                f"ship_dir={tmp_path / 'ship'}",
                override,
            ],
        )
    cfg.paths.output_dir = str(tmp_path / "export")
    with pytest.raises(export.ExportConfigError) as error:
        export.run(cfg)
    assert str(error.value) == message
    assert not (tmp_path / "ship").exists()


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["parity_pairs=-1"], BAD_SETTINGS[0][1]),
        (["quantize=foo"], BAD_SETTINGS[2][1]),
        (
            ["model_dir=/nonexistent/model"],
            "model_dir /nonexistent/model holds no trained model (config.json); run "
            "`make train-verifier` first or pass model_dir=<a transformers model directory>",
        ),
    ],
)
def test_the_script_prints_one_line_without_a_traceback(
    overrides: list[str], message: str, model_dir: Path, tmp_path: Path
) -> None:
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "export.py"),
            f"model_dir={model_dir}",
            f"ship_dir={tmp_path / 'ship'}",
            f"hydra.run.dir={tmp_path / 'hydra'}",
            *overrides,
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert result.returncode == 1
    assert result.stderr == f"error: {message}\n"
    assert not (tmp_path / "ship").exists()


def _rows(tmp_path: Path, n: int) -> Path:
    path = tmp_path / "pairs.jsonl.gz"
    with gzip.open(path, "wt") as handle:
        for i in range(n):
            row = {"premise": f"premise {i}", "hypothesis": f"hypothesis {i}", "label": "neutral"}
            handle.write(json.dumps(row) + "\n")
    return path


def test_load_pairs_limit(tmp_path: Path) -> None:
    path = _rows(tmp_path, 5)
    assert len(load_pairs(path, source="x", limit=3)) == 3
    assert load_pairs(path, source="x", limit=0) == []
    assert len(load_pairs(path, source="x")) == 5
    with pytest.raises(
        ValueError, match=r"^limit must be 0 or more rows \(None for every row\), got -1$"
    ):
        load_pairs(path, source="x", limit=-1)
