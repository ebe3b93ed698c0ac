"""Evaluate on every benchmark configured in configs/benchmark/ whose files exist under the
shared data folder, and write outputs/eval/summary.md (benchmark × method × key metrics).

python scripts/eval_all.py                     # every benchmark, shipped verifier
python scripts/eval_all.py limit=10 verifier=window

Arguments are Hydra overrides of configs/eval.yaml, applied to every benchmark. A benchmark
whose files are missing is skipped with the reason logged and listed in the summary.
"""

from __future__ import annotations

import logging
import sys

from hydra.errors import HydraException

from enoki_hd.eval.datasets import BenchmarkConfigError
from enoki_hd.eval.runner import EvalSetupError, exit_interrupted, run_eval_all
from enoki_hd.verify.nli import VerifierError

logger = logging.getLogger(__name__)


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(
        level=logging.INFO, format="[%(asctime)s][%(name)s][%(levelname)s] - %(message)s"
    )
    overrides = list(sys.argv[1:] if argv is None else argv)
    try:
        results, objects = run_eval_all(overrides)
    except (HydraException, BenchmarkConfigError, EvalSetupError, FileNotFoundError) as err:
        # a wrong setting, an absent file or a run folder of other settings: one line, exit 2,
        # as scripts/eval.py and `enoki eval --all`
        sys.stderr.write(f"error: {err}\n")
        return 2
    except VerifierError as err:
        sys.stderr.write(f"error: {' '.join(str(err).split())}\n")
        return 1
    except KeyboardInterrupt:
        # every finished example is in the prediction cache: the same command resumes there
        exit_interrupted("scripts/eval_all.py")
    sys.stdout.write(objects["summary"].read_text(encoding="utf-8"))
    return 0 if results else 1


if __name__ == "__main__":
    sys.exit(main())
