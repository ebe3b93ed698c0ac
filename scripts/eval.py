"""Evaluate the detector and the baselines on one benchmark.

python scripts/eval.py                                   # psiloqa_en50, shipped verifier
python scripts/eval.py benchmark=wice_dev verifier=window limit=20
make eval BENCH=ragtruth_sent48 ARGS="methods=[detector,lexical_absent]"
make eval BENCH=file ARGS="benchmark.path=my_set.jsonl benchmark.format=mushroom"  # your own file

Writes outputs/eval/<benchmark>/<run_name>/ (metrics.json, predictions.jsonl, report.md,
thresholds.png); see enoki_hd.eval.runner and configs/benchmark/file.yaml for the formats.
"""

from __future__ import annotations

import logging
import shlex
import sys
from typing import Any

import hydra
from omegaconf import DictConfig

from enoki_hd.eval.datasets import BenchmarkConfigError
from enoki_hd.eval.runner import EvalSetupError, exit_interrupted, run_eval
from enoki_hd.llm.client import LLMError
from enoki_hd.verify.nli import VerifierError

logger = logging.getLogger(__name__)


def run(cfg: DictConfig) -> tuple[dict[str, Any], dict[str, Any]]:
    """Compose → evaluate → write the run folder. Returns ``(metrics, objects)``."""
    command = shlex.join(["python", "scripts/eval.py", *sys.argv[1:]])
    return run_eval(cfg, command=command)


@hydra.main(version_base="1.3", config_path="../configs", config_name="eval")
def main(cfg: DictConfig) -> tuple[dict[str, Any], dict[str, Any]]:
    try:
        metrics, objects = run(cfg)
    except (BenchmarkConfigError, EvalSetupError, FileNotFoundError) as err:
        # A wrong setting or an absent file: the message says which and what to give instead;
        # a traceback would only bury it. Exit 2, as `enoki eval` does.
        sys.stderr.write(f"error: {err}\n")
        sys.exit(2)
    except (VerifierError, LLMError) as err:
        # a damaged verifier or tagger checkpoint (TaggerError is one): the message names the
        # file and how to restore it; an LLM endpoint that failed for good (down, a wrong key,
        # model or URL, retries used up): the message names the endpoint and what to check.
        # One line, exit 1, as `enoki eval` does.
        sys.stderr.write(f"error: {' '.join(str(err).split())}\n")
        sys.exit(1)
    except KeyboardInterrupt:
        # every finished example is in the prediction cache: the same command resumes there
        exit_interrupted("scripts/eval.py")
    sys.stdout.write(objects["files"]["report"].read_text(encoding="utf-8"))
    return metrics, objects


if __name__ == "__main__":
    main()
