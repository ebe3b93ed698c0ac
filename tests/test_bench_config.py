"""`make bench` refuses an unknown section before measuring or writing anything; it and
`make wheel` build the wheel from what the checkout holds (no stale setuptools build/)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hydra import compose, initialize

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

KNOWN = (
    "nli, evidence, extraction, end_to_end, tagger, end_to_end_encoder, memory, startup, matrix, "
    "run_on, gpu"
)


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


def _compose(tmp_path: Path, *overrides: str) -> Any:
    """The bench config on a fake shared folder and verifier, writing under ``tmp_path``."""
    (tmp_path / "shared" / "data").mkdir(parents=True, exist_ok=True)
    (tmp_path / "verifier").mkdir(exist_ok=True)
    (tmp_path / "verifier" / "model.onnx").write_bytes(b"\0" * 2**20)
    with initialize(version_base="1.3", config_path="../configs"):
        return compose(
            config_name="bench",
            overrides=[
                "sections=[extraction]",
                f"paths.shared_dir={tmp_path / 'shared'}",
                f"paths.output_dir={tmp_path}",
                f"verifier_dir={tmp_path / 'verifier'}",
                f"output={tmp_path / 'results.json'}",
                *overrides,
            ],
        )


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("repeats=0", "repeats must be a whole number >= 1, got 0"),
        ("startup.repeats=-1", "startup.repeats must be a whole number >= 1, got -1"),
        ("nli.pairs=abc", "nli.pairs must be a whole number >= 1, got 'abc'"),
        (
            "extraction.limit=-2",
            "extraction.limit must be a whole number >= 1 or null (all), got -2 "
            "(e.g. extraction.limit=5)",
        ),
        (
            "matrix.limit=0",
            "matrix.limit must be a whole number >= 1 or null (all), got 0 (e.g. matrix.limit=5)",
        ),
        (
            "matrix.long_context_limit=-1",
            "matrix.long_context_limit must be a whole number >= 0 or null (0 and null: "
            "matrix.limit, else every example), got -1",
        ),
        ("run_on.repeats=0", "run_on.repeats must be a whole number >= 1, got 0"),
        (
            "run_on.chars=[50000,0]",
            "run_on.chars must list whole numbers >= 1, got 0 (e.g. run_on.chars=[10000,50000])",
        ),
        (
            "run_on.fallback_chars=[0]",
            "run_on.fallback_chars must list whole numbers >= 1 or null (no cap), got 0 (e.g. "
            "run_on.fallback_chars=[20000,null])",
        ),
        (
            "run_on.max_sentence_chars=[1000,50]",
            "run_on.max_sentence_chars must list whole numbers >= 100 or null (sentences as "
            "segmented), got 50 (e.g. run_on.max_sentence_chars=[1000,null])",
        ),
    ],
)
def test_a_bad_count_or_limit_measures_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, override: str, message: str
) -> None:
    # a negative limit sliced from the end (extraction.limit=-2: all but two sentences);
    # repeats=0 failed on an empty median after the models were loaded
    import bench

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("a section was measured")

    monkeypatch.setattr(bench, "bench_extraction", never)
    with pytest.raises(bench.BenchConfigError) as error:
        bench.run(_compose(tmp_path, override))
    assert str(error.value) == message
    assert not (tmp_path / "results.json").exists()


def test_a_missing_shared_folder_is_named_before_measuring(tmp_path: Path) -> None:
    import bench

    cfg = _compose(tmp_path, f"paths.shared_dir={tmp_path / 'nowhere'}")
    with pytest.raises(bench.BenchConfigError) as error:
        bench.run(cfg)
    assert str(error.value) == (
        f"the shared data folder {tmp_path / 'nowhere'} has no data/ folder: set "
        "ENOKI_SHARED_DIR (or paths.shared_dir=...) to the shared folder that holds data/"
    )


def test_an_output_folder_or_unreadable_results_file_is_refused_before_measuring(
    tmp_path: Path,
) -> None:
    # both failed only at the write, after every section had been measured
    import bench

    folder = tmp_path / "out"
    folder.mkdir()
    with pytest.raises(bench.BenchConfigError) as error:
        bench.run(_compose(tmp_path, f"output={folder}"))
    assert str(error.value) == (
        f"output={folder} is a folder: name a file, e.g. output={folder}/results.json"
    )
    broken = tmp_path / "results.json"
    broken.write_text('{"nli": ')
    with pytest.raises(bench.BenchConfigError) as error:
        bench.run(_compose(tmp_path))
    assert str(error.value) == (
        f"output={broken} is not a bench results file (Expecting value: line 1 column 9 "
        "(char 8)): remove it, name another output=, or pass keep_other_sections=false to "
        "replace it"
    )
    assert broken.read_text() == '{"nli": '


def test_a_bad_setting_exits_2_with_one_line(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "bench.py"),
            "sections=[extraction]",
            "repeats=0",
            f"output={tmp_path / 'results.json'}",
            f"hydra.run.dir={tmp_path / 'hydra'}",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert result.returncode == 2
    assert result.stderr == "bench: repeats must be a whole number >= 1, got 0\n"


def test_the_results_record_the_machine_and_commit_of_each_section(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import bench

    monkeypatch.setattr(bench, "bench_extraction", lambda cfg: {"sentences": 5})
    out = tmp_path / "results.json"
    out.write_text(json.dumps({"machine": {"cpus": 64}, "nli": {"pairs": 16}}))
    results, _ = bench.run(_compose(tmp_path))
    commit = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    machine = results["section_machines"]["extraction"]
    assert machine["git"]["commit"] == commit
    assert set(machine) == {
        "python",
        "platform",
        "processor",
        "cpu_model",
        "cpus",
        "cpus_usable",
        "threads_env",
        "versions",
        "git",
    }
    assert set(machine["threads_env"]) == {"OMP_NUM_THREADS", "ENOKI_ONNX_THREADS"}
    assert machine["versions"]["onnxruntime"] is not None
    # the kept section's numbers keep the machine they were measured on
    assert results["machine"] == {"cpus": 64} and results["nli"] == {"pairs": 16}
    assert json.loads(out.read_text()) == results
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".results")] == []


def test_a_verifier_folder_without_model_onnx_is_named(tmp_path: Path) -> None:
    import bench

    with pytest.raises(bench.BenchConfigError) as error:
        bench.run(_compose(tmp_path, f"verifier_dir={tmp_path / 'nowhere'}"))
    assert str(error.value) == (
        f"verifier_dir={tmp_path / 'nowhere'} has no model.onnx: name a verifier checkpoint "
        "folder (null: the shipped checkpoints/verifier-minilm)"
    )
