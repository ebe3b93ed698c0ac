"""Fact quality of an extractor on CaRB dev: P / R / F1 / AUC, chains kept and collapsed.

python scripts/carb_eval.py                      # the rules extractor → outputs/carb/metrics.json
python scripts/carb_eval.py --model en_core_web_lg --out outputs/carb_lg
python scripts/carb_eval.py --match strict       # the project's earlier, stricter match
python scripts/carb_eval.py --extractor encoder --out outputs/carb_encoder
python scripts/carb_eval.py --extractor encoder --raw-rows --out outputs/carb_encoder_raw

The rules extractor reads each CaRB sentence once (timed with ``time.perf_counter``); the
encoder reads them all in one ``extract_batch``, in batches of 32 as ``make distill`` scores
the shipped tagger (its int8 graph's activation ranges depend on the batch), ``--raw-rows``
without reading its rows against the parse (``asserted=False``). The same facts are scored
with every fact of each incremental chain (``chains``) and with only the widest fact of each
chain (``collapsed``), by :func:`enoki_hd.extract.carb.carb_score` (the official CaRB scorer
unless ``--match strict``).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import time
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from enoki_hd.eval.cache import dependency_versions
from enoki_hd.eval.datasets import SHARED_DIR_ENV, load_carb
from enoki_hd.eval.files import atomic_write
from enoki_hd.eval.runner import _git_state
from enoki_hd.extract import get_extractor
from enoki_hd.extract.carb import CarbMatch, carb_score, carb_tuples
from enoki_hd.types import Fact, Span

logger = logging.getLogger(__name__)

_SETTINGS = {"chains": False, "collapsed": True}
_REPORTED = ("precision", "recall", "f1", "auc", "threshold", "n_gold", "n_pred")
_ROOT = Path(__file__).resolve().parents[1]


def provenance() -> dict[str, Any]:
    """What the numbers depend on besides the data and options: the git commit of the
    repository (``dirty``: uncommitted changes to tracked files) and the versions of the
    packages a prediction depends on (:func:`enoki_hd.eval.cache.dependency_versions`: the
    parser and its model, the ONNX runtime, the tokenizers; None: not installed)."""
    return {"git": _git_state(_ROOT), "versions": dependency_versions()}


def run(
    shared_dir: Path,
    out_dir: Path,
    *,
    model: str | None = None,
    match: CarbMatch = "carb",
    extractor_name: str = "rules",
    raw_rows: bool = False,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Extract, score and write ``metrics.json``. Returns ``(metrics, objects)``.

    Raises:
        ValueError: a bad option, ``out_dir`` under a file, or an empty or malformed CaRB file.
        FileNotFoundError: no CaRB dev files under ``shared_dir``.
    """
    # both fail before the extraction (minutes for the encoder) rather than after it
    folder = next(p for p in (out_dir, *out_dir.parents) if p.exists())
    if not folder.is_dir():
        raise ValueError(f"--out {out_dir}: {folder} is a file; name a folder for metrics.json")
    carb_dir = shared_dir / "data" / "carb"
    for path in (carb_dir / "dev_sentences.txt", carb_dir / "dev_gold.tsv"):
        if not path.is_file():
            raise FileNotFoundError(
                f"CaRB dev file {path} does not exist: point --shared-dir (or {SHARED_DIR_ENV}) "
                "at the shared folder that holds data/carb/"
            )
    carb = load_carb(carb_dir / "dev_sentences.txt", carb_dir / "dev_gold.tsv")
    if not carb.sentences:
        raise ValueError(f"{carb_dir / 'dev_sentences.txt'} holds no sentence (an empty copy?)")
    facts: dict[str, list[Fact]] = {}
    latencies: list[float] = []
    if extractor_name == "rules":
        if raw_rows:
            raise ValueError("--raw-rows reads the encoder's rows; the rules extractor has none")
        extractor = get_extractor("rules", **({"model": model} if model else {}))
        extractor.extract(carb.sentences[0])  # load the pipeline before timing
        for sentence in tqdm(carb.sentences, desc="CaRB dev", unit="sentence", disable=None):
            start = time.perf_counter()
            facts[sentence] = extractor.extract(sentence, sentences=[Span(0, len(sentence))])
            latencies.append(time.perf_counter() - start)
    elif extractor_name == "encoder":
        if model:
            raise ValueError("--model names the rules extractor's spaCy pipeline")
        extractor = get_extractor("encoder", asserted=not raw_rows)
        sentences = list(carb.sentences)
        start = time.perf_counter()
        batch = extractor.extract_batch(sentences, sentences=[[Span(0, len(s))] for s in sentences])
        latencies = [(time.perf_counter() - start) / len(sentences)] * len(sentences)
        facts = dict(zip(sentences, batch, strict=True))
    else:
        raise ValueError(f"--extractor must be rules or encoder, got {extractor_name!r}")
    metrics: dict[str, Any] = {
        "extractor": extractor_name,
        "model": getattr(extractor, "model", None),
        # the spaCy pipeline's own version (the rules extractor's parse; None for the encoder)
        "model_version": extractor.nlp.meta.get("version") if extractor_name == "rules" else None,
        "config": extractor.config(),
        "match": match,
        "n_sentences": len(carb.sentences),
        "latency_s_per_sentence": {
            "median": statistics.median(latencies),
            "mean": statistics.fmean(latencies),
            "max": max(latencies),
        },
        **provenance(),
    }
    for setting, collapse in _SETTINGS.items():
        predicted = {s: carb_tuples(f, collapse_chains=collapse) for s, f in facts.items()}
        scores = carb_score(predicted, carb.gold, match=match)
        metrics[setting] = {key: scores[key] for key in _REPORTED}
    atomic_write(out_dir / "metrics.json", json.dumps(metrics, indent=2) + "\n")
    return metrics, {"facts": facts, "latencies": latencies}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--shared-dir",
        type=Path,
        default=Path(os.environ.get(SHARED_DIR_ENV, "../shared")),
        help=f"shared folder holding data/carb/ (default ${SHARED_DIR_ENV} or ../shared)",
    )
    parser.add_argument("--out", type=Path, default=Path("outputs/carb"))
    parser.add_argument("--model", default=None, help="spaCy pipeline for the rules extractor")
    parser.add_argument(
        "--extractor",
        choices=["rules", "encoder"],
        default="rules",
        help="rules (default) or encoder (the shipped tagger, batched as `make distill` scores it)",
    )
    parser.add_argument(
        "--raw-rows",
        action="store_true",
        help="encoder only: its rows as tagged, not read against the parse (asserted=false)",
    )
    parser.add_argument(
        "--match",
        choices=["carb", "strict"],
        default="carb",
        help="carb: the official CaRB scorer (default); strict: the earlier, stricter match",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        metrics, _ = run(
            args.shared_dir,
            args.out,
            model=args.model,
            match=args.match,
            extractor_name=args.extractor,
            raw_rows=args.raw_rows,
        )
    except (ValueError, FileNotFoundError) as error:
        parser.error(str(error))
    what = f"rules extractor ({metrics['model']})" if args.extractor == "rules" else "encoder"
    if args.raw_rows:
        what += ", raw rows"
    print(f"CaRB dev, {metrics['n_sentences']} sentences, {what}, {args.match} match")
    print(f"{'setting':<10} {'P':>6} {'R':>6} {'F1':>6} {'AUC':>6} {'#pred':>6}")
    for setting in _SETTINGS:
        m = metrics[setting]
        print(
            f"{setting:<10} {m['precision']:6.3f} {m['recall']:6.3f} {m['f1']:6.3f} "
            f"{m['auc']:6.3f} {m['n_pred']:6d}"
        )
    latency = metrics["latency_s_per_sentence"]
    print(f"extraction latency per sentence: median {latency['median'] * 1000:.1f} ms")
    print(f"wrote {args.out / 'metrics.json'}")
    return metrics


if __name__ == "__main__":
    main()
