"""Train, evaluate, export (ONNX int8) and ship the NLI verifier.

python scripts/train_verifier.py                       # the shipped default (MiniLM, CPU)
python scripts/train_verifier.py trainer=tiny          # smoke test
python scripts/train_verifier.py model=modernbert_large_nli trainer=gpu
"""

from __future__ import annotations

import logging
import platform
import subprocess
from pathlib import Path
from typing import Any

import hydra
from omegaconf import DictConfig, OmegaConf

logger = logging.getLogger(__name__)


def git_commit() -> str | None:
    try:
        return subprocess.run(
            ["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def run(cfg: DictConfig) -> tuple[dict[str, Any], dict[str, Any]]:
    """Compose → train → export → parity → ship. Returns ``(metrics, objects)``."""
    from enoki_hd.export.onnx import export_onnx, onnx_probs, parity, quantize_int8, ship_model
    from enoki_hd.train.verifier import predict_probs, train_verifier

    plain = OmegaConf.to_container(cfg, resolve=True)
    output_dir = Path(plain["paths"]["output_dir"])
    output_dir.mkdir(parents=True, exist_ok=True)
    (output_dir / "config.yaml").write_text(OmegaConf.to_yaml(cfg, resolve=True))
    metrics, objects = train_verifier(plain)

    model_dir = objects["model_dir"]
    fp32 = export_onnx(model_dir, output_dir / "model.fp32.onnx", opset=int(cfg.export.opset))
    shipped_graph = fp32
    if cfg.export.quantize == "int8":
        shipped_graph = quantize_int8(fp32, output_dir / "model.int8.onnx")

    data = objects["data"]
    parity_set = data.evaluation.get("snli_test") or next(iter(data.evaluation.values()))
    if cfg.export.parity_pairs:
        parity_set = parity_set[: int(cfg.export.parity_pairs)]
    max_length = int(cfg.model.max_length)
    torch_probs = predict_probs(
        objects["model"],
        objects["tokenizer"],
        parity_set,
        max_length=max_length,
        batch_size=64,
        device="cpu",
    )
    candidate = onnx_probs(
        shipped_graph,
        objects["tokenizer"],
        [(p.premise, p.hypothesis) for p in parity_set],
        max_length=max_length,
    )
    metrics["onnx_parity"] = parity(torch_probs, candidate)
    if "snli_test_accuracy" in metrics:
        from enoki_hd.train.verifier import accuracy

        metrics["snli_test_accuracy_onnx_int8"] = round(accuracy(parity_set, candidate), 4)
    metrics["onnx_size_mb"] = round(shipped_graph.stat().st_size / 2**20, 2)
    logger.info("metrics: %s", metrics)

    manifest = {
        "name": Path(cfg.ship_dir).name,
        "kind": "nli-cross-encoder",
        "labels": ["entailment", "neutral", "contradiction"],
        "backbone": cfg.model.backbone,
        "max_length": max_length,
        "quantization": cfg.export.quantize,
        "data": objects["data"].sources,
        "config": plain,
        "metrics": metrics,
        "git_commit": git_commit(),
        "python": platform.python_version(),
        "reproduce": "make train-verifier",
        "licence": "model weights derived from all-MiniLM-L6-v2 (Apache-2.0); trained on SNLI "
        "(CC BY-SA 4.0) and the other sets listed under data",
    }
    ship_dir = ship_model(model_dir, shipped_graph, cfg.ship_dir, manifest=manifest)
    logger.info("shipped %s", ship_dir)
    return metrics, {**objects, "ship_dir": ship_dir}


@hydra.main(version_base="1.3", config_path="../configs", config_name="train_verifier")
def main(cfg: DictConfig) -> None:
    run(cfg)


if __name__ == "__main__":
    main()
