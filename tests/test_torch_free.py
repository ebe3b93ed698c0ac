"""Torch-free inference: detection on the shipped ONNX checkpoints never imports torch or
transformers.

- ``test_detect_with_torch_blocked``: this venv, in a subprocess where importing torch or
  transformers raises;
- ``test_fresh_venv_install`` (about 1 min; in ``make test``, so CI runs it; alone:
  ``make test-install``): a new venv, ``pip
  install`` of the wheel (non-editable, base dependencies only, so no torch at all), ``enoki
  detect`` on the bundled example, ``sys.modules`` after a detection, and the configs and
  capability suites ``enoki eval`` reads.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from enoki_hd.eval.datasets.capabilities import load_capabilities
from enoki_hd.eval.datasets.markdown_suite import load_markdown_suite
from enoki_hd.eval.runner import benchmark_names
from enoki_hd.verify.loading import default_checkpoint_dir

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("torch", "transformers")
pytestmark = pytest.mark.skipif(
    not (default_checkpoint_dir() / "verifier-minilm" / "model.onnx").is_file(),
    reason="the shipped verifier is not built (make train-verifier)",
)

# Detection on the bundled example; prints the heavy modules that got imported and the spans.
PROBE = """
import json, sys
from pathlib import Path
import enoki_hd
from enoki_hd import Detector
ex = Path(enoki_hd.__file__).parent / "examples"
context, answer = (ex / "suede_context.txt").read_text(), (ex / "suede_answer.txt").read_text()
out = {}
for extractor in sys.argv[1:]:
    report = Detector(extractor=extractor).detect(context=context, answer=answer)
    out[extractor] = {"spans": len(report.spans), "verifier": report.config["verifier"]["path"]}
out["heavy"] = sorted(m for m in sys.modules if m.split(".")[0] in ("torch", "transformers"))
print(json.dumps(out))
"""

# Where the installed package finds enoki eval's configs and the capability suites (the loaders
# and config lookup need no eval extra; composing does).
EVAL_PROBE = """
import json
from enoki_hd.eval.datasets.capabilities import load_capabilities
from enoki_hd.eval.datasets.markdown_suite import load_markdown_suite
from enoki_hd.eval.runner import benchmark_names, default_config_dir
print(json.dumps({
    "configs": str(default_config_dir()),
    "benchmarks": benchmark_names(),
    "capabilities": len(load_capabilities().examples),
    "markdown": len(load_markdown_suite().examples),
}))
"""

BLOCKER = """
import importlib.abc, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("torch", "transformers"):
            raise ImportError(f"{name} is blocked: inference must not import it")
        return None
sys.meta_path.insert(0, Block())
"""


def _env() -> dict[str, str]:
    return {**os.environ, "OMP_NUM_THREADS": "1", "ENOKI_ONNX_THREADS": "1"}


def test_detect_with_torch_blocked() -> None:
    """Both local extractors and the ONNX verifier run with torch and transformers
    unimportable (spaCy's thinc tries torch and copes; nothing of ours may need it)."""
    result = subprocess.run(
        [sys.executable, "-c", BLOCKER + PROBE, "rules", "encoder"],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["heavy"] == []
    assert out["rules"]["spans"] > 0 and out["encoder"]["spans"] > 0


def test_fresh_venv_install(tmp_path: Path) -> None:
    """``pip install`` of the wheel into a new venv (base dependencies only) carries the
    shipped checkpoints, and ``enoki detect`` runs without torch ever imported."""
    wheels = tmp_path / "wheels"
    pip = [sys.executable, "-m", "pip"]
    build = subprocess.run(
        [*pip, "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(wheels), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert build.returncode == 0, build.stderr[-3000:]
    (wheel,) = wheels.glob("enoki_hd-*.whl")
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    # the fresh venv sees nothing of the checkout: with PYTHONPATH=src set by hand, pip would
    # find the source tree's metadata there and skip the install as already satisfied
    bare = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    install = subprocess.run(
        [*pip, "--python", str(python), "install", "-q", str(wheel)],
        capture_output=True,
        text=True,
        timeout=900,
        env=bare,
    )
    assert install.returncode == 0, install.stderr[-3000:]
    listed = subprocess.run(
        [str(python), "-c", "import importlib.util as u; print(bool(u.find_spec('torch')))"],
        capture_output=True,
        text=True,
        env=bare,
    )
    assert listed.stdout.strip() == "False", "base dependencies must not pull torch"

    outside = tmp_path / "elsewhere"  # not the source tree: checkpoints come from the package
    outside.mkdir()
    site = subprocess.run(
        [
            str(python),
            "-c",
            "import enoki_hd, pathlib; print(pathlib.Path(enoki_hd.__file__).parent)",
        ],
        capture_output=True,
        text=True,
        cwd=outside,
        env=bare,
    ).stdout.strip()
    examples = Path(site) / "examples"
    env = {k: v for k, v in _env().items() if k not in ("PYTHONPATH", "ENOKI_CHECKPOINTS")}

    def detect(*options: str) -> dict:
        """``enoki detect`` of the installed package on its bundled example, outside the tree."""
        done = subprocess.run(
            [
                str(env_dir / "bin" / "enoki"),
                "detect",
                "--context",
                str(examples / "suede_context.txt"),
                "--answer",
                str(examples / "suede_answer.txt"),
                "--stable",
                *options,
            ],
            capture_output=True,
            text=True,
            cwd=outside,
            env=env,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        return json.loads(done.stdout)

    def shipped_sha256(name: str) -> str:
        manifest = json.loads((Path(site) / "checkpoints" / name / "manifest.json").read_text())
        return manifest["files"]["model.onnx"]

    # the checkpoints come from the installed package's data, not from the source tree
    resolved = subprocess.run(
        [
            str(python),
            "-c",
            "from enoki_hd.verify.loading import default_checkpoint_dir as d; print(d())",
        ],
        capture_output=True,
        text=True,
        cwd=outside,
        env=env,
    )
    assert resolved.stdout.strip() == str(Path(site) / "checkpoints"), resolved.stderr[-2000:]

    report = detect()
    assert report["spans"], "the bundled example has hallucinated spans"
    # named by its folder, as from a source checkout: the same report bytes anywhere
    assert report["config"]["verifier"]["path"] == "verifier-minilm"
    assert report["config"]["verifier"]["sha256"] == shipped_sha256("verifier-minilm")

    # the 3-layer verifier by its bare name, from the installed package's data
    fast_report = detect("--verifier", "verifier-minilm-l3")
    assert fast_report["config"]["verifier"]["path"] == "verifier-minilm-l3"
    assert fast_report["config"]["verifier"]["sha256"] == shipped_sha256("verifier-minilm-l3")
    assert [s["label"] for s in fast_report["sentences"]] == [
        "supported",
        "supported",
        "contradicted",
        "contradicted",
    ]

    probe = subprocess.run(
        [str(python), "-c", PROBE, "rules", "encoder"],
        capture_output=True,
        text=True,
        cwd=outside,
        env=env,
        timeout=300,
    )
    assert probe.returncode == 0, probe.stderr[-3000:]
    out = json.loads(probe.stdout.strip().splitlines()[-1])
    assert out["heavy"] == []
    assert out["rules"]["verifier"] == "verifier-minilm"

    # enoki eval composes the package's configs and reads its capability suites: the wheel
    # carried neither, so an installed enoki eval failed with "no eval.yaml in .../lib/configs"
    shipped = subprocess.run(
        [str(python), "-c", EVAL_PROBE], capture_output=True, text=True, cwd=outside, env=env
    )
    assert shipped.returncode == 0, shipped.stderr[-3000:]
    found = json.loads(shipped.stdout)
    assert found["configs"] == str(Path(site) / "configs")
    assert found["benchmarks"] == benchmark_names()
    assert found["capabilities"] == len(load_capabilities().examples)
    assert found["markdown"] == len(load_markdown_suite().examples)
