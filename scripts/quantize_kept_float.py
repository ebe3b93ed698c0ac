"""Quantise the MatMuls a verifier checkpoint kept float, after an accuracy check.

python scripts/quantize_kept_float.py checkpoints/verifier-minilm --out DIR   # a new checkpoint
python scripts/quantize_kept_float.py DIR [DIR ...]    # in place
python scripts/quantize_kept_float.py --pairs 2000 --max-drop 0.005 DIR
make int8-all ARGS="..."

The export's int8 recipe (``int8.keep_float`` in ``configs/train_verifier.yaml``) keeps the
attention-output and FFN projections float, chosen by label agreement with torch; they hold
two thirds of the model's multiply-adds. This pass quantises them as the others are (int8
weights per output channel, activations dynamically: ``enoki_hd.export.onnx.quantize_kept_float``),
from the graph alone — the torch weights need not be at hand.

It changes the scores, so nothing is written unless the new graph's SNLI test accuracy (the
``snli/test.jsonl.gz`` of the shared data folder: ``$ENOKI_SHARED_DIR``, else ``../shared``)
is at most ``--max-drop`` below the old graph's, both scored here by the package's own
inference path. Then the checkpoint folder is written whole (staged beside it and swapped in by
two renames, so an interrupt leaves it wholly old or new) — in place, or with
``--out DIR`` into a new checkpoint folder beside the original — the manifest's sha256, size
and ONNX accuracy updated, its ``reproduce`` extended by this command, and the pass recorded
under ``graph_passes`` (previous sha256, both accuracies, label agreement; with
``--against-float`` also both graphs' agreement with the source's float-activation reference,
``enoki_hd.export.onnx.dequantize_matmuls``). A ``fusion.json``
was fitted on the old graph's scores, so it is left out of the result (``make calibrate`` fits
one for the new graph; the script prints the command). A checkpoint with no float MatMul
left is not touched.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from enoki_hd.eval.files import replace_dir
from enoki_hd.export.onnx import dequantize_matmuls, quantize_kept_float, sha256_file

REPO = Path(__file__).resolve().parents[1]
PASS = "quantize_kept_float"


def shared_dir() -> Path:
    return Path(os.environ.get("ENOKI_SHARED_DIR") or REPO.parent / "shared")


def snli_test(limit: int | None) -> list[tuple[str, str, str]]:
    """(premise, hypothesis, label) of SNLI test, the first ``limit`` rows (None: all)."""
    from enoki_hd.train.nli_data import load_pairs

    path = shared_dir() / "data" / "snli" / "test.jsonl.gz"
    pairs = load_pairs(path, source="snli_test", limit=limit)
    return [(p.premise, p.hypothesis, p.label) for p in pairs]


def predictions(
    directory: Path, rows: list[tuple[str, str, str]], *, desc: str = "SNLI test"
) -> list[str]:
    """The label each pair gets from the ONNX graph in ``directory`` (no score cache), with a
    progress bar on stderr."""
    from tqdm.auto import tqdm

    from enoki_hd.verify.nli import NLICrossEncoder

    verifier = NLICrossEncoder(directory, backend="onnx", cache_size=0)
    labels: list[str] = []
    with tqdm(total=len(rows), desc=desc, unit="pair", disable=None) as bar:
        for start in range(0, len(rows), 256):
            chunk = rows[start : start + 256]
            scores = verifier.predict([(p, h) for p, h, _ in chunk])
            labels += [s.label() for s in scores]
            bar.update(len(chunk))
    return labels


def accuracy(labels: list[str], rows: list[tuple[str, str, str]]) -> float:
    return sum(a == gold for a, (_, _, gold) in zip(labels, rows, strict=True)) / len(rows)


def _agreement(first: list[str], second: list[str]) -> float:
    return sum(a == b for a, b in zip(first, second, strict=True)) / len(first)


def _write_json(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")  # keys in their order
    os.replace(tmp, path)


def quantize_checkpoint(
    directory: Path,
    rows: list[tuple[str, str, str]],
    *,
    max_drop: float,
    out: Path | None = None,
    keep_float: Sequence[str] = (),
    against_float: bool = False,
) -> str:
    """Quantise ``directory``'s kept-float MatMuls when SNLI accuracy allows, in place or into
    the new folder ``out``; returns what was done."""
    manifest_path = directory / "manifest.json"
    if not (directory / "model.onnx").is_file() or not manifest_path.is_file():
        raise FileNotFoundError(
            f"{directory} is not a shipped ONNX checkpoint (model.onnx and manifest.json)"
        )
    if out is not None and out.exists():
        raise SystemExit(f"--out {out} exists; name a new folder (nothing is overwritten)")
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    if manifest.get("kind", "nli-cross-encoder") != "nli-cross-encoder":
        raise SystemExit(
            f"{directory}: manifest kind {manifest.get('kind')!r}; this pass is for NLI "
            "verifiers (kind 'nli-cross-encoder'), whose accuracy it can check on SNLI"
        )
    target = directory if out is None else out
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        staged = Path(tmp) / target.name
        shutil.copytree(directory, staged)
        quantized = quantize_kept_float(
            directory / "model.onnx", staged / "model.onnx", keep_float=keep_float
        )
        if not quantized:
            return f"{directory}: no float MatMul left, left as it is"
        previous = manifest["files"]["model.onnx"]
        new = sha256_file(staged / "model.onnx")
        manifest["files"]["model.onnx"] = new
        _write_json(staged / "manifest.json", manifest)  # the staged copy loads without a warning
        before = predictions(directory, rows, desc=f"SNLI test, {directory.name}")
        after = predictions(staged, rows, desc="SNLI test, quantised")
        acc_before, acc_after = accuracy(before, rows), accuracy(after, rows)
        agreement = _agreement(before, after)
        checked = (
            f"SNLI test accuracy {acc_before:.4f} -> {acc_after:.4f} on {len(rows):,} pairs, "
            f"label agreement with the previous graph {agreement:.4f}"
        )
        reference: dict[str, float] = {}
        if against_float:
            # the source's weights with float activations (Q/K/V dequantised): what the export
            # was checked against, as far as the graph alone can give it
            floats = Path(tmp) / "float-reference"
            shutil.copytree(directory, floats)
            dequantize_matmuls(directory / "model.onnx", floats / "model.onnx")
            _write_json(
                floats / "manifest.json",
                {**manifest, "files": {"model.onnx": sha256_file(floats / "model.onnx")}},
            )
            labels = predictions(floats, rows, desc="SNLI test, float reference")
            reference = {
                "float_reference_accuracy": round(accuracy(labels, rows), 4),
                "float_reference_agreement_before": round(_agreement(before, labels), 4),
                "float_reference_agreement_after": round(_agreement(after, labels), 4),
            }
            checked += (
                f"; with the float reference (accuracy {reference['float_reference_accuracy']:.4f})"
                f" {reference['float_reference_agreement_before']:.4f} -> "
                f"{reference['float_reference_agreement_after']:.4f}"
            )
        if acc_after < acc_before - max_drop:
            raise SystemExit(
                f"{directory}: {checked}: more than --max-drop {max_drop} lost; nothing written"
            )
        metrics = manifest.setdefault("metrics", {})
        if len(rows) == metrics.get("snli_test_n"):
            metrics["snli_test_accuracy_onnx"] = round(acc_after, 4)
        size = (staged / "model.onnx").stat().st_size
        metrics["onnx_size_mb"] = round(size / 2**20, 2)
        options = "".join(f" --keep-float '{pattern}'" for pattern in keep_float)
        options += "" if out is None else f" --out {out}"
        command = f'make int8-all ARGS="{directory}{options}"'
        reproduce = manifest.get("reproduce")
        if reproduce and command not in reproduce:
            manifest["reproduce"] = f"{reproduce} && {command}"
        # a calibrated fusion was fitted on the previous graph's scores: it does not belong here
        fusion = manifest.pop("fusion", None)
        dropped_fusion = manifest["files"].pop("fusion.json", None) is not None
        (staged / "fusion.json").unlink(missing_ok=True)
        manifest.setdefault("graph_passes", []).append(
            {
                "pass": PASS,
                "quantized": quantized,
                "keep_float": list(keep_float),
                "previous_sha256": previous,
                "snli_test_accuracy_before": round(acc_before, 4),
                "snli_test_accuracy_after": round(acc_after, 4),
                "snli_test_n": len(rows),
                "label_agreement": round(agreement, 4),
                **reference,
                "fusion_removed": dropped_fusion or fusion is not None,
                "check": f"{checked}; at most {max_drop} may be lost",
            }
        )
        _write_json(staged / "manifest.json", manifest)
        if out is not None:
            os.replace(staged, out)
        else:  # the whole folder swapped in: an interrupt leaves it wholly old or wholly new
            replace_dir(staged, directory)
    refit = ""
    if dropped_fusion:
        refit = (
            "; its fusion.json, fitted on the previous graph's scores, was left out: "
            f"`make calibrate ARGS='name={target.name} "
            f'eval_overrides=["verifier.path={target}"]\'` fits one'
        )
    return f"{target}: {quantized} MatMuls quantised, {checked}, sha256 {new}{refit}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoints", nargs="+", type=Path, help="verifier checkpoint folders")
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="write the quantised checkpoint to this new folder (one checkpoint only); "
        "default: in place",
    )
    parser.add_argument(
        "--keep-float",
        action="append",
        default=[],
        metavar="REGEX",
        help="leave MatMuls whose node name matches float (repeatable), e.g. "
        r"'layer\.\d+/output/dense' for the FFN output projections",
    )
    parser.add_argument(
        "--against-float",
        action="store_true",
        help="also score the float-activation reference of the source graph (its int8 MatMuls "
        "dequantised) and report both graphs' label agreement with it",
    )
    parser.add_argument(
        "--pairs", type=int, default=None, help="SNLI test pairs to check on (default: all)"
    )
    parser.add_argument(
        "--max-drop",
        type=float,
        default=0.005,
        help="largest SNLI accuracy loss allowed, as a fraction (default 0.005: half a point)",
    )
    args = parser.parse_args(argv)
    if args.pairs is not None and args.pairs < 1:
        parser.error(f"--pairs must be >= 1, got {args.pairs}")
    if not 0 <= args.max_drop <= 1:
        parser.error(f"--max-drop must be a fraction in [0, 1], got {args.max_drop}")
    if args.out is not None and len(args.checkpoints) != 1:
        parser.error(f"--out takes one checkpoint, got {len(args.checkpoints)}")
    for pattern in args.keep_float:
        try:
            re.compile(pattern)
        except re.error as error:
            parser.error(f"--keep-float {pattern!r} is not a regular expression: {error}")
    for directory in args.checkpoints:
        if not (directory / "model.onnx").is_file() or not (directory / "manifest.json").is_file():
            parser.error(
                f"{directory} is not a shipped ONNX checkpoint (model.onnx and manifest.json)"
            )
    rows = snli_test(args.pairs)
    for directory in args.checkpoints:
        message = quantize_checkpoint(
            directory,
            rows,
            max_drop=args.max_drop,
            out=args.out,
            keep_float=args.keep_float,
            against_float=args.against_float,
        )
        print(message, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
