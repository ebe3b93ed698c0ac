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

from enoki_hd.eval.runner import run_eval_all

logger = logging.getLogger(__name__)


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(
        level=logging.INFO, format="[%(asctime)s][%(name)s][%(levelname)s] - %(message)s"
    )
    overrides = list(sys.argv[1:] if argv is None else argv)
    results, objects = run_eval_all(overrides)
    sys.stdout.write(objects["summary"].read_text(encoding="utf-8"))
    return 0 if results else 1


if __name__ == "__main__":
    sys.exit(main())
