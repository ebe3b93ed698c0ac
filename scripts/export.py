"""Re-export a trained verifier (a transformers model directory) to ONNX int8 and ship it.

python scripts/export.py                                  # the last `make train-verifier`
python scripts/export.py model_dir=path/to/model ship_dir=checkpoints/my-verifier
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Any

import hydra
from omegaconf import DictConfig, OmegaConf

logger = logging.getLogger(__name__)


class ExportConfigError(ValueError):
    """An export setting no export can run with; the message names it and what to give."""


def check_config(plain: dict[str, Any]) -> None:
    """Refuse bad settings before the export work (torch export and quantisation take
    seconds), so a typo costs nothing."""
    model_dir = Path(plain["model_dir"])
    if not (model_dir / "config.json").exists():
        raise FileNotFoundError(
            f"model_dir {model_dir} holds no trained model (config.json); run `make train-verifier` "
            "first or pass model_dir=<a transformers model directory>"
        )
    pairs = plain["parity_pairs"]
    if pairs is not None and (isinstance(pairs, bool) or not isinstance(pairs, int) or pairs < 1):
        raise ExportConfigError(
            "parity_pairs must be a number of SNLI test pairs of at least 1 (null = all of them), "
            f"got {pairs!r}"
        )
    opset = plain["opset"]
    if isinstance(opset, bool) or not isinstance(opset, int) or opset < 1:
        raise ExportConfigError(f"opset must be an ONNX opset version such as 17, got {opset!r}")
    quantize = plain["quantize"]
    if quantize not in ("int8", None, "none"):
        raise ExportConfigError(f"quantize must be 'int8' or null (float), got {quantize!r}")
    if quantize != "int8":
        return
    int8 = plain.get("int8") or {}
    from enoki_hd.export.onnx import check_int8_storage

    try:
        check_int8_storage(int8, "int8")
    except ValueError as err:
        raise ExportConfigError(str(err)) from err


def run(cfg: DictConfig) -> tuple[dict[str, Any], dict[str, Any]]:
    from enoki_hd.export.onnx import export_and_ship
    from enoki_hd.train.nli_data import load_pairs

    plain = OmegaConf.to_container(cfg, resolve=True)
    assert isinstance(plain, dict)
    check_config(plain)
    model_dir = Path(plain["model_dir"])
    train_metrics = model_dir.parent / "train_metrics.json"
    metrics: dict[str, Any] = {}
    sources: dict[str, Any] = {}
    if train_metrics.exists():
        saved = json.loads(train_metrics.read_text())
        metrics, sources = saved["metrics"], saved["sources"]
    train_config = model_dir.parent / "config.yaml"
    if train_config.exists():  # the manifest carries the training config beside the export one
        plain["train"] = OmegaConf.to_container(OmegaConf.load(train_config), resolve=True)
    parity = load_pairs(plain["parity_data"], source="snli_test", limit=plain["parity_pairs"])
    work_dir = Path(plain["paths"]["output_dir"])
    work_dir.mkdir(parents=True, exist_ok=True)
    ship_dir = export_and_ship(
        model_dir,
        plain["ship_dir"],
        work_dir=work_dir,
        parity_pairs=parity,
        metrics=metrics,
        data_sources=sources,
        config=plain,
        opset=plain["opset"],
        quantize=plain["quantize"],
        int8_options=plain.get("int8"),
    )
    return metrics, {"ship_dir": ship_dir}


@hydra.main(version_base="1.3", config_path="../configs", config_name="export")
def main(cfg: DictConfig) -> None:
    try:
        run(cfg)
    except (ExportConfigError, FileNotFoundError) as err:
        # A wrong setting or an absent model or data file: the message says which and what to
        # give instead; a traceback would only bury it.
        sys.exit(f"error: {err}")


if __name__ == "__main__":
    main()
