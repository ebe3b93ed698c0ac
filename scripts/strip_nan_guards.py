"""Remove the torch exporter's NaN guards from shipped ONNX graphs, in place, outputs unchanged.

python scripts/strip_nan_guards.py                 # checkpoints/verifier-minilm and tagger-minilm
python scripts/strip_nan_guards.py DIR [DIR ...]   # other checkpoints of the same kinds
make strip-guards

New exports leave the guards out already (``enoki_hd.export.onnx.strip_nan_guards``, called by
``export_onnx`` and the tagger export); this brings checkpoints exported before that to the
same graph. For each checkpoint a stripped copy of ``model.onnx`` is run beside the original,
through the package's own inference path (the verifier on every answer-sentence x
context-sentence pair of the bundled example, the tagger on every sentence of the bundled
example's context and answer, batch sizes 1, 7 and 32), and nothing is written unless every
score is **bitwise** identical. Then the checkpoint folder is replaced as a whole (a copy
staged beside it, swapped in by two renames: an interrupted run leaves it wholly old or
wholly new): ``model.onnx`` stripped, the manifest's sha256 updated and the pass is recorded under ``graph_passes`` with the previous sha256; a
verifier's ``fusion.json`` gets the new ``verifier_sha256`` (its coefficients were fitted on
scores that have not changed). A checkpoint without guards is left untouched.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import enoki_hd
from enoki_hd.eval.files import replace_dir
from enoki_hd.export.onnx import sha256_file, strip_nan_guards_file

REPO = Path(__file__).resolve().parents[1]
DEFAULTS = (REPO / "checkpoints" / "verifier-minilm", REPO / "checkpoints" / "tagger-minilm")
PASS = "strip_nan_guards"


def _example() -> tuple[str, str]:
    examples = Path(enoki_hd.__file__).parent / "examples"
    return (
        (examples / "suede_context.txt").read_text(encoding="utf-8"),
        (examples / "suede_answer.txt").read_text(encoding="utf-8"),
    )


def _sentences(text: str) -> list[str]:
    from enoki_hd.text import segment_sentences

    return [text[s.start : s.end] for s in segment_sentences(text)]


def _verifier_scores(directory: Path) -> list[Any]:
    from enoki_hd.verify.nli import NLICrossEncoder

    context, answer = _example()
    pairs = [(p, h) for h in _sentences(answer) for p in _sentences(context)]
    scores = []
    for batch_size in (1, 7, 32):
        verifier = NLICrossEncoder(directory, backend="onnx", cache_size=0, batch_size=batch_size)
        scores.append(verifier.predict(pairs))  # NLIScores compare field by field, exactly
    return scores


def _tagger_facts(directory: Path) -> list[Any]:
    from enoki_hd.extract.encoder import EncoderExtractor

    context, answer = _example()
    texts = _sentences(context) + _sentences(answer)
    facts = []
    for batch_size in (1, 7, 32):
        extractor = EncoderExtractor(path=directory, backend="onnx", batch_size=batch_size)
        facts.append([[f.to_dict() for f in fs] for fs in extractor.extract_batch(texts)])
    return facts


def _outputs(directory: Path, kind: str) -> list[Any]:
    return _tagger_facts(directory) if kind == "igl-tagger" else _verifier_scores(directory)


def _write_json(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")  # keys in their order
    os.replace(tmp, path)


def strip_checkpoint(directory: Path) -> str:
    """Strip ``directory``'s graph when that changes no output; returns what was done."""
    manifest_path = directory / "manifest.json"
    if not (directory / "model.onnx").is_file() or not manifest_path.is_file():
        raise FileNotFoundError(
            f"{directory} is not a shipped ONNX checkpoint (model.onnx and manifest.json)"
        )
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    kind = manifest.get("kind", "nli")
    # a graph that is not the manifest's (truncated, replaced) was a protobuf DecodeError
    # traceback, or was stripped under a manifest recording the wrong previous sha256
    recorded = (manifest.get("files") or {}).get("model.onnx")
    actual = sha256_file(directory / "model.onnx")
    if actual != recorded:
        raise ValueError(
            f"{directory / 'model.onnx'} has sha256 {actual}, but manifest.json records "
            f"{recorded}: it is not the shipped graph; restore it (`git checkout -- "
            "checkpoints/`) or re-export the checkpoint, then strip it"
        )
    # the whole folder is staged beside the checkpoint (same file system) and swapped in by
    # two renames: an interrupted run leaves the checkpoint wholly old or wholly new, never a
    # new graph under the old manifest and fusion.json
    staged = directory.with_name(f".{directory.name}.strip-tmp")
    if staged.exists():
        shutil.rmtree(staged)
    try:
        shutil.copytree(directory, staged)
        removed = strip_nan_guards_file(staged / "model.onnx")
        if not removed:
            return f"{directory}: no NaN guards, left as it is"
        if _outputs(directory, kind) != _outputs(staged, kind):
            raise SystemExit(f"{directory}: outputs differ without the guards; nothing written")
        previous = manifest["files"]["model.onnx"]
        new = sha256_file(staged / "model.onnx")
        fusion_path = staged / "fusion.json"
        if fusion_path.is_file():
            fusion = json.loads(fusion_path.read_text(encoding="utf-8"))
            if fusion.get("verifier_sha256") == previous:
                fusion["verifier_sha256"] = new
                _write_json(fusion_path, fusion)
                manifest["files"]["fusion.json"] = sha256_file(fusion_path)
                if isinstance(manifest.get("fusion"), dict):
                    manifest["fusion"]["sha256"] = manifest["files"]["fusion.json"]
        manifest["files"]["model.onnx"] = new
        manifest.setdefault("graph_passes", []).append(
            {
                "pass": PASS,
                "removed": removed,
                "previous_sha256": previous,
                "check": "bitwise-identical outputs on the bundled example, batch sizes 1, 7, 32",
            }
        )
        _write_json(staged / "manifest.json", manifest)
        replace_dir(staged, directory)
    finally:
        if staged.exists():
            shutil.rmtree(staged)
    return f"{directory}: {removed} NaN guards removed, outputs bitwise identical, sha256 {new}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoints", nargs="*", type=Path, default=list(DEFAULTS))
    args = parser.parse_args(argv)
    for directory in args.checkpoints:
        try:
            # resolved: "." (run inside the checkpoint) has no name to stage a sibling by
            print(strip_checkpoint(directory.resolve()))
        except FileNotFoundError as error:
            print(f"strip-guards: error: {error}", file=sys.stderr)
            return 2
        except ValueError as error:
            print(f"strip-guards: error: {error}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
