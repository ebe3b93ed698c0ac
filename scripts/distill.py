"""Distil teacher triples into the IGL tagger, export it to ONNX int8, ship it, score it on CaRB.

python scripts/distill.py                          # the shipped default (MiniLM, CPU)
python scripts/distill.py +experiment=cpu_smoke    # tiny model, a few dozen steps
python scripts/distill.py +experiment=rules_teacher
python scripts/distill.py model=igl_modernbert_base trainer=distill_gpu
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import hydra
from omegaconf import DictConfig, OmegaConf
from tqdm.contrib.logging import logging_redirect_tqdm

from enoki_hd.eval.files import atomic_write

logger = logging.getLogger(__name__)


def run(
    cfg: DictConfig, overrides: Sequence[str] | None = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Compose → train → export → ship → CaRB dev. Returns ``(metrics, objects)``.

    ``overrides``: those ``cfg`` was composed with, recorded in the manifest as the command
    that reruns the run (default: Hydra's task overrides when Hydra composed ``cfg``, else
    none; a caller that composes ``cfg`` itself passes its own).
    """
    from hydra.core.hydra_config import HydraConfig

    from enoki_hd.train.distill import (
        check_carb_files,
        check_ship_settings,
        distill,
        distill_command,
        score_carb,
        ship_tagger,
    )

    if overrides is None:
        overrides = list(HydraConfig.get().overrides.task) if HydraConfig.initialized() else []

    plain = OmegaConf.to_container(cfg, resolve=True)
    if plain["trainer"].get("num_threads"):
        import torch

        torch.set_num_threads(int(plain["trainer"]["num_threads"]))
    # read after training: a missing file or a typo must not wait for it
    check_ship_settings(plain)
    check_carb_files(plain)
    output_dir = Path(plain["paths"]["output_dir"])
    output_dir.mkdir(parents=True, exist_ok=True)
    # the folder's config.yaml describes the run its state belongs to: a rerun that the saved
    # state refuses (other settings) must not overwrite it, so it is written when missing and
    # again once training has gone through
    config_file = output_dir / "config.yaml"
    if not config_file.exists():
        atomic_write(config_file, OmegaConf.to_yaml(cfg, resolve=True))
    metrics, objects = distill(plain)
    atomic_write(config_file, OmegaConf.to_yaml(cfg, resolve=True))
    ship_dir = ship_tagger(plain, metrics, objects, reproduce=distill_command(overrides))
    score_carb(plain, ship_dir, metrics)
    logger.info("shipped %s; metrics %s", ship_dir, metrics)
    return metrics, {**objects, "ship_dir": ship_dir}


@hydra.main(version_base="1.3", config_path="../configs", config_name="distill")
def main(cfg: DictConfig) -> None:
    from enoki_hd.train.distill import interrupted_message
    from enoki_hd.train.settings import SettingsError

    # log lines go above the run's progress bar (tqdm.write), not onto its line
    with logging_redirect_tqdm():
        try:
            run(cfg)
        except SettingsError as err:  # the message names the key and the way out
            sys.exit(f"error: {err}")
        except KeyboardInterrupt:
            # the state is saved: a traceback would only bury where the rerun picks up
            plain = OmegaConf.to_container(cfg, resolve=True)
            sys.stderr.write(f"scripts/distill.py: {interrupted_message(plain)}\n")
            sys.exit(130)


if __name__ == "__main__":
    main()
