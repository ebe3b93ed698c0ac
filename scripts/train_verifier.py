"""Train, evaluate, export (ONNX int8) and ship the NLI verifier.

python scripts/train_verifier.py                       # the shipped default (MiniLM, CPU)
python scripts/train_verifier.py trainer=tiny          # smoke test (ships under outputs/)
python scripts/train_verifier.py model=modernbert_large_nli trainer=gpu
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any

import hydra
from omegaconf import DictConfig, OmegaConf
from tqdm.contrib.logging import logging_redirect_tqdm

from enoki_hd.eval.files import atomic_write

logger = logging.getLogger(__name__)


def run(cfg: DictConfig) -> tuple[dict[str, Any], dict[str, Any]]:
    """Compose → train → export → parity → ship. Returns ``(metrics, objects)``."""
    from enoki_hd.export.onnx import export_and_ship
    from enoki_hd.train.verifier import check_verifier_settings, train_verifier

    plain = OmegaConf.to_container(cfg, resolve=True)
    check_verifier_settings(plain)  # before the output folder and its config.yaml are written
    if plain["trainer"].get("smoke") or plain["data"].get("smoke"):
        _keep_smoke_apart(plain)
    output_dir = Path(plain["paths"]["output_dir"])
    output_dir.mkdir(parents=True, exist_ok=True)
    # the folder's config.yaml describes the run its state belongs to: a rerun that the saved
    # state refuses (other settings) must not overwrite it, so it is written when missing and
    # again once training has gone through. It is the config the run uses, a smoke run's
    # folders included (cfg still names checkpoints/ as its ship_dir).
    config_file = output_dir / "config.yaml"
    if not config_file.exists():
        atomic_write(config_file, OmegaConf.to_yaml(plain))
    metrics, objects = train_verifier(plain)
    atomic_write(config_file, OmegaConf.to_yaml(plain))
    data = objects["data"]
    parity_set = data.evaluation.get("snli_test") or next(iter(data.evaluation.values()))
    ship_dir = export_and_ship(
        objects["model_dir"],
        plain["ship_dir"],
        work_dir=output_dir,
        parity_pairs=parity_set[: plain["export"]["parity_pairs"] or None],
        metrics=metrics,
        data_sources=data.sources,
        config=plain,
        opset=int(plain["export"]["opset"]),
        quantize=plain["export"]["quantize"],
        int8_options=plain["export"].get("int8"),
    )
    return metrics, {**objects, "ship_dir": ship_dir}


def _keep_smoke_apart(plain: dict[str, Any]) -> None:
    """A smoke run (``trainer=tiny``, or ``data=nli_tiny`` under any trainer) that would ship
    into ``checkpoints/`` never replaces the shipped verifier nor leaves its state where the
    real run resumes from: both move under ``<output_dir>/smoke``. An explicit ``ship_dir``
    elsewhere is the caller's choice."""
    root = Path(plain["paths"]["root_dir"]).resolve()
    if not Path(plain["ship_dir"]).resolve().is_relative_to(root / "checkpoints"):
        return
    smoke_dir = Path(plain["paths"]["output_dir"]) / "smoke"
    plain["paths"]["output_dir"] = str(smoke_dir)
    plain["ship_dir"] = str(smoke_dir / "ship")
    logger.warning(
        "smoke run: state in %s, shipped to %s (not checkpoints/)", smoke_dir, smoke_dir / "ship"
    )


@hydra.main(version_base="1.3", config_path="../configs", config_name="train_verifier")
def main(cfg: DictConfig) -> None:
    from enoki_hd.train.settings import SettingsError

    # log lines go above the run's progress bar (tqdm.write), not onto its line
    with logging_redirect_tqdm():
        try:
            run(cfg)
        except SettingsError as err:  # the message names the key and the way out
            sys.exit(f"error: {err}")
        except KeyboardInterrupt:
            # the last finished step is saved: a traceback would only bury where a rerun resumes
            sys.stderr.write(
                "scripts/train_verifier.py: interrupted (rerun the same command to resume from "
                "the last saved step)\n"
            )
            sys.exit(130)


if __name__ == "__main__":
    main()
