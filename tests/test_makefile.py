"""`make help` lists every documented target of the Makefile (names with digits included)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_help_lists_every_documented_target() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    documented = re.findall(r"^([A-Za-z0-9_.-]+):[^\n]*?## ", makefile, flags=re.MULTILINE)
    assert "int8-all" in documented and "test" in documented
    listed = subprocess.run(
        ["make", "-s", "--no-print-directory", "help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    names = [line.split()[0] for line in listed.splitlines() if line.strip()]
    assert names == documented
