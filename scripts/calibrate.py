"""Fit the calibrated fusion leave-one-benchmark-out and ship it next to the verifier.

python scripts/calibrate.py                                   # the shipped verifier
python scripts/calibrate.py 'eval_overrides=[verifier=window]' name=window ship=false
make calibrate

Writes outputs/calibrate/<name>/summary.md (held-out numbers beside the hybrid rule and the
baselines), calibration.json, folds/<benchmark>.json and the eval run folders; see
enoki_hd.train.calibrate.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import hydra
from omegaconf import DictConfig, OmegaConf

from enoki_hd.train.calibrate import run_calibrate
from enoki_hd.train.settings import SettingsError
from enoki_hd.verify.nli import VerifierError

logger = logging.getLogger(__name__)


@hydra.main(version_base="1.3", config_path="../configs", config_name="calibrate")
def main(cfg: DictConfig) -> None:
    plain = OmegaConf.to_container(cfg, resolve=True)
    assert isinstance(plain, dict)
    if plain.get("limit") is not None and plain.get("ship"):
        raise SystemExit(
            "limit is for smoke runs: add ship=false (a fusion fitted on a sample is not shipped)"
        )
    try:
        record = run_calibrate(
            benchmarks=list(plain["benchmarks"]),
            eval_overrides=list(plain.get("eval_overrides") or []),
            output_dir=plain["output_dir"],
            c=plain["C"],
            ship=bool(plain["ship"]),
            limit=plain.get("limit"),
            progress=bool(plain.get("progress", True)),
        )
    except SettingsError as err:  # the message names the key and what it accepts
        sys.exit(f"error: {err}")
    except VerifierError as err:  # a damaged checkpoint: the message names the file and the fix
        sys.exit(f"error: {' '.join(str(err).split())}")
    except KeyboardInterrupt:
        # every finished example is in the eval prediction cache: the same command resumes there
        sys.stderr.write("scripts/calibrate.py: interrupted (rerun the same command to resume)\n")
        sys.exit(130)
    sys.stdout.write((Path(plain["output_dir"]) / "summary.md").read_text(encoding="utf-8"))
    logger.info("fusion: %s; shipped: %s", record["fusion"], record["shipped"])


if __name__ == "__main__":
    main()
