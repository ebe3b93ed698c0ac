"""`make bench` refuses an unknown section before measuring or writing anything; it and
`make wheel` build the wheel from what the checkout holds (no stale setuptools build/)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hydra import compose, initialize

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

KNOWN = "nli, evidence, extraction, end_to_end, tagger, end_to_end_encoder, memory, startup, matrix, gpu"


def test_an_unknown_section_exits_2_and_leaves_the_results(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    out.write_text('{"kept": true}\n')
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "bench.py"),
            "sections=[nil]",
            f"output={out}",
            f"hydra.run.dir={tmp_path / 'hydra'}",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert result.returncode == 2
    assert result.stderr == (f"bench: unknown section 'nil' in sections=[...] (known: {KNOWN})\n")
    assert out.read_text() == '{"kept": true}\n'


def test_an_unknown_section_among_known_ones_measures_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import bench

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("a section was measured")

    monkeypatch.setattr(bench, "bench_nli", never)
    monkeypatch.setattr(bench, "sample_pairs", never)
    with initialize(version_base="1.3", config_path="../configs"):
        cfg = compose(
            config_name="bench",
            overrides=["sections=[nli,startpu]", f"output={tmp_path / 'results.json'}"],
        )
    with pytest.raises(bench.UnknownSectionError) as error:
        bench.run(cfg)
    assert str(error.value) == f"unknown section 'startpu' in sections=[...] (known: {KNOWN})"
    assert not (tmp_path / "results.json").exists()


def test_the_installed_wheel_is_built_without_a_stale_build_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # setuptools copies build/lib into the wheel, files deleted from the checkout included
    import bench

    steps: list[Any] = []

    def rmtree(path: str | Path, ignore_errors: bool = False) -> None:
        steps.append(("rmtree", Path(path)))

    def run(command: list[str], **kwargs: object) -> subprocess.CompletedProcess:
        steps.append(("pip", command[3]))
        if command[3] == "wheel":
            wheels = Path(command[command.index("-w") + 1])
            wheels.mkdir(parents=True, exist_ok=True)
            (wheels / "enoki_hd-0.1.0-py3-none-any.whl").touch()
        return subprocess.CompletedProcess(command, 0)

    monkeypatch.setattr(shutil, "rmtree", rmtree)
    monkeypatch.setattr(bench.subprocess, "run", run)
    python = tmp_path / "venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.touch()
    with initialize(version_base="1.3", config_path="../configs"):
        cfg = compose(config_name="bench", overrides=[f"startup.install_dir={tmp_path}"])
    assert bench._installed_python(cfg) == python
    assert steps.index(("rmtree", ROOT / "build")) < steps.index(("pip", "wheel"))


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_wheel_removes_the_build_folder_first() -> None:
    commands = subprocess.run(
        ["make", "-n", "--no-print-directory", "wheel"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    build = commands.index("rm -rf build")
    assert any(" wheel " in c and c.endswith("-w dist .") for c in commands[build + 1 :])
