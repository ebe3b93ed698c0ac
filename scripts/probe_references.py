"""How the shipped verifier reads a premise that names its subject, and the same premise cut from
its context: the held-out check behind ``verifier.evidence.resolve_references``.

python scripts/probe_references.py                 # → outputs/probes/references.json
python scripts/probe_references.py --out outputs/probes/references_v2.json --verifier <dir>

From MNLI (TaxiNLI), Fool-Me-Twice dev and RTE dev (``$ENOKI_SHARED_DIR/data/nli/``; none is a
benchmark of this package) it takes every pair whose premise opens with a name of two or more
words that the hypothesis writes (:func:`enoki_hd.verify.references.hypothesis_names`), and
judges three premises against the hypothesis: as written ("named"), with the name replaced by
"It" ("pronoun") and by its last word ("short") — what a sentence cut from its context looks
like. The counts of gold label × predicted label and the 3-way accuracy of each go to the JSON
file and the terminal. Restating a reference (what the selector does before NLI) turns the
second and third premise back into the first, so the gap between them is what a rightly
restated reference is worth.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from enoki_hd.eval.datasets.registry import SHARED_DIR_ENV
from enoki_hd.eval.files import atomic_write
from enoki_hd.train.nli_data import THREE_WAY, TWO_WAY, load_fool_me_twice, load_pairs
from enoki_hd.verify.loading import default_checkpoint_dir
from enoki_hd.verify.nli import NLICrossEncoder
from enoki_hd.verify.references import hypothesis_names

SOURCES = ("mnli_taxinli", "fool_me_twice_dev", "rte_dev")
MAX_PREMISE_CHARS = 400
VARIANTS = ("named", "pronoun", "short")


def read_pairs(folder: Path, sources: Iterable[str] = SOURCES) -> Iterator[dict[str, str]]:
    """``{"premise", "hypothesis", "label", "source"}`` of each source file, read by the
    training data's loaders (Fool-Me-Twice's claim and gold evidence as hypothesis and premise;
    its distractor pairs left out)."""
    for source in sources:
        path = folder / f"{source}.jsonl.gz"
        if source.startswith("fool_me_twice"):
            pairs = [p for p in load_fool_me_twice(path, source=source) if p.source == source]
        else:
            labels = TWO_WAY if source.startswith("rte") else THREE_WAY
            pairs = load_pairs(path, source=source, labels=labels)
        for pair in pairs:
            yield {
                "premise": pair.premise,
                "hypothesis": pair.hypothesis,
                "label": pair.label,
                "source": source,
            }


def variants(pair: dict[str, str]) -> dict[str, str] | None:
    """The three premises of ``pair`` (see the module docstring), or None when its premise does
    not open with a name of two or more words that its hypothesis writes, or is long."""
    premise = pair["premise"]
    if len(premise) >= MAX_PREMISE_CHARS:
        return None
    for name in hypothesis_names(pair["hypothesis"]):
        if len(name.split()) >= 2 and premise.startswith(name + " "):
            rest = premise[len(name) :]
            return {"named": premise, "pronoun": "It" + rest, "short": name.split()[-1] + rest}
    return None


def probe(pairs: list[dict[str, str]], verifier: Any) -> dict[str, Any]:
    """Gold × predicted counts and 3-way accuracy of each premise variant."""
    chosen = [(pair, v) for pair in pairs if (v := variants(pair)) is not None]
    out: dict[str, Any] = {
        "pairs": len(chosen),
        "gold": dict(collections.Counter(pair["label"] for pair, _ in chosen)),
    }
    for variant in VARIANTS:
        scores = verifier.predict([(v[variant], pair["hypothesis"]) for pair, v in chosen])
        table: collections.Counter[str] = collections.Counter()
        right = 0
        for (pair, _), score in zip(chosen, scores, strict=True):
            predicted = score.label()
            table[f"{pair['label']} -> {predicted}"] += 1
            right += predicted == pair["label"]
        out[variant] = {
            "counts": dict(sorted(table.items())),
            "accuracy_3way": round(right / len(chosen), 4) if chosen else None,
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared-dir", default=os.environ.get(SHARED_DIR_ENV, "../shared"))
    parser.add_argument("--verifier", default=None, help="a checkpoint folder (default: shipped)")
    parser.add_argument("--out", default="outputs/probes/references.json")
    args = parser.parse_args(argv)
    pairs = list(read_pairs(Path(args.shared_dir) / "data" / "nli"))
    directory = (
        Path(args.verifier) if args.verifier else default_checkpoint_dir() / "verifier-minilm"
    )
    result = probe(pairs, NLICrossEncoder(directory))
    result["verifier"] = str(directory)
    result["sources"] = list(SOURCES)
    atomic_write(Path(args.out), json.dumps(result, indent=2, sort_keys=True) + "\n")
    print(f"{result['pairs']} pairs, gold {result['gold']}")
    for variant in VARIANTS:
        print(f"{variant:8s} 3-way accuracy {result[variant]['accuracy_3way']}")
        for key, count in result[variant]["counts"].items():
            print(f"    {key}: {count}")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
