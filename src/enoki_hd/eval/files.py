"""How the evaluation writes its files: atomically, with one JSON dialect."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

FILE_MODE = 0o644


def atomic_write(path: Path, data: str | bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder + ``os.replace``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data.encode("utf-8") if isinstance(data, str) else data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, FILE_MODE)  # mkstemp creates 0600
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def to_json(value: Any, **kwargs: Any) -> str:
    return json.dumps(value, ensure_ascii=False, **kwargs)


def read_run_metrics(path: Path) -> dict[str, Any]:
    """The ``metrics.json`` of a run folder, with the entries a rerun and ``enoki compare``
    read (``benchmark.name``, ``config.benchmark``).

    Raises:
        ValueError: the file is not JSON or lacks one of them; the message names the file.
    """
    try:
        metrics = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ValueError(f"{path} is not a metrics.json of `make eval` ({err})") from err
    for outer, inner in (("benchmark", "name"), ("config", "benchmark")):
        entry = metrics.get(outer) if isinstance(metrics, dict) else None
        if not isinstance(entry, dict) or inner not in entry:
            raise ValueError(
                f"{path} has no {outer}.{inner}: it is not a metrics.json of `make eval` "
                "(or was edited); rerun the evaluation that wrote this folder"
            )
    return metrics


def replace_dir(tmp: Path, target: Path) -> None:
    """Put the finished folder ``tmp`` in place of ``target`` by two renames (the old folder
    aside, the new one in) and only then delete the old one: a crash leaves ``target`` whole,
    old or new, except between the two renames (a few microseconds, not the whole deletion
    of a model folder), and then the old folder is at ``<target>.old``."""
    old = target.with_name(target.name + ".old")
    if old.exists():
        shutil.rmtree(old)
    if target.exists():
        os.replace(target, old)
    os.replace(tmp, target)
    if old.exists():
        shutil.rmtree(old)
