"""Score NLI verifiers on the held-out targeted perturbation pairs, per perturbation type.

python scripts/score_perturbations.py checkpoints/verifier-minilm \
    outputs/train_verifier/minilm-v2/export --out outputs/perturbation_scores.json

The pairs are those `make train-verifier EXP=v2` holds out (the `perturbation` source of
configs/data/nli_v2.yaml, the run's seed, 10% of source sentences), rebuilt from
``../shared`` (``ENOKI_SHARED_DIR``). Each verifier directory is scored with its ONNX graph;
the JSON maps verifier → group → [accuracy, pairs], the groups being each perturbation type,
``all``, and the pairs with and without distractor sentences.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def heldout_perturbation_pairs(shared_dir: str) -> list[Any]:
    """The held-out pairs of the v2 experiment's ``perturbation`` source."""
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf

    from enoki_hd.train.verifier import build_pair_data

    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base=None):
        cfg = compose(
            config_name="train_verifier",
            overrides=["+experiment=v2", f"paths.shared_dir={shared_dir}"],
        )
    data = OmegaConf.to_container(cfg.data, resolve=True)
    assert isinstance(data, dict)
    data["sources"] = {"perturbation": data["sources"]["perturbation"]}
    return build_pair_data(data, seed=int(cfg.seed)).evaluation["perturbation"]


def score(directory: str, pairs: list[Any]) -> dict[str, list[float]]:
    """``group → [accuracy, pairs]`` of the verifier in ``directory`` on ``pairs``."""
    from enoki_hd.verify.nli import NLICrossEncoder

    verifier = NLICrossEncoder(directory, backend="onnx")
    predicted = verifier.predict([(p.premise, p.hypothesis) for p in pairs])
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for pair, probs in zip(pairs, predicted, strict=True):
        placed = "with distractors" if pair.distractors else "no distractors"
        for group in (pair.kind, "all", placed):
            counts[group][0] += probs.label() == pair.label
            counts[group][1] += 1
    return {g: [round(right / n, 4), n] for g, (right, n) in sorted(counts.items())}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("verifiers", nargs="+", help="verifier directories (ONNX checkpoints)")
    parser.add_argument("--out", type=Path, default=ROOT / "outputs/perturbation_scores.json")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    for directory in args.verifiers:
        if not (Path(directory) / "model.onnx").is_file():
            parser.error(f"{directory} holds no model.onnx; pass an exported verifier directory")
    shared = os.environ.get("ENOKI_SHARED_DIR", str(ROOT.parent / "shared"))
    pairs = heldout_perturbation_pairs(shared)
    results = {directory: score(directory, pairs) for directory in args.verifiers}
    from enoki_hd.eval.files import atomic_write

    atomic_write(args.out, json.dumps(results, indent=1, sort_keys=True) + "\n")
    print(json.dumps(results, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
