"""Where detection spends its time: cProfile over span-benchmark examples.

    python scripts/profile_detect.py                      # 12 MuSHROOM dev examples, rules
    python scripts/profile_detect.py --benchmark psiloqa_en50 --limit 20 --extractor encoder

Two examples are detected first as a warm-up (spaCy and the ONNX sessions load); the index
caches hold one context, so every profiled example builds its own evidence and grounding
indexes as a stream of distinct documents would. Prints seconds per example and the
functions by cumulative time.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import time

from enoki_hd.detector import Detector
from enoki_hd.eval.datasets import load_benchmark


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--benchmark", default="mushroom_dev30")
    parser.add_argument("--limit", type=int, default=12)
    parser.add_argument("--extractor", default="rules")
    parser.add_argument("--evidence", default="retrieve", choices=("retrieve", "window"))
    parser.add_argument("--top", type=int, default=40, help="functions to print")
    parser.add_argument("--shared", default=os.environ.get("ENOKI_SHARED_DIR", "../shared"))
    args = parser.parse_args()

    from enoki_hd.verify.evidence import EvidenceSelector

    examples = load_benchmark(args.benchmark, args.shared).examples[: args.limit]
    detector = Detector(
        extractor=args.extractor,
        selector=EvidenceSelector(strategy=args.evidence),
        index_cache_size=1,
    )
    for e in examples[:2]:
        detector.detect(answer=e.answer, context=e.context, question=e.question)
    profile = cProfile.Profile()
    started = time.perf_counter()
    profile.enable()
    for e in examples:
        detector.detect(answer=e.answer, context=e.context, question=e.question)
    profile.disable()
    seconds = time.perf_counter() - started
    print(f"{args.benchmark}: {len(examples)} examples, {seconds / len(examples):.3f} s each")
    pstats.Stats(profile).sort_stats("cumulative").print_stats(args.top)


if __name__ == "__main__":
    main()
