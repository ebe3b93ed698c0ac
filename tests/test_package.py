"""The package's top level: ``from enoki_hd import Detector`` and the report types, imported
on first use so that ``import enoki_hd`` alone loads no model code."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import enoki_hd
import enoki_hd.detector
import enoki_hd.types


def test_top_level_names_are_the_modules_objects() -> None:
    assert enoki_hd.Detector is enoki_hd.detector.Detector
    for name in ("Report", "Fact", "FactVerdict", "SentenceVerdict", "HallucinatedSpan", "Span"):
        assert getattr(enoki_hd, name) is getattr(enoki_hd.types, name)
    assert set(enoki_hd.__all__) <= set(dir(enoki_hd))
    assert "Detector" in enoki_hd.__all__


def test_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="module 'enoki_hd' has no attribute 'Detektor'"):
        enoki_hd.Detektor  # noqa: B018
    with pytest.raises(ImportError, match="Detektor"):
        exec("from enoki_hd import Detektor", {})


def test_import_loads_no_model_code() -> None:
    probe = (
        "import json, sys; import enoki_hd; "
        "before = sorted(m for m in sys.modules if m.startswith('enoki_hd')); "
        "from enoki_hd import Detector; "
        "print(json.dumps([before, Detector.__module__, 'enoki_hd.detector' in sys.modules]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    before, module, loaded = json.loads(out)
    assert before == ["enoki_hd"]
    assert module == "enoki_hd.detector" and loaded is True


def test_all_names_every_lazy_export() -> None:
    assert sorted(enoki_hd.__all__) == sorted(["__version__", *enoki_hd._LAZY])
