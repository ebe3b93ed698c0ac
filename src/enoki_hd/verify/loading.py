"""Where the shipped verifier lives and how a ``verifier`` config node becomes a verifier.

Every way of loading a checkpoint — the default (``verifier.path: null``), ``--verifier
checkpoints/verifier-minilm``, ``NLICrossEncoder(path)`` — reads the same settings from the
checkpoint's ``manifest.json`` (``inference``: backend, max_length), so one model has one
behaviour. A config option that cannot apply is an error naming the ``verifier.*`` field.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from enoki_hd.runtime.files import installed_checkpoint_dir
from enoki_hd.verify.nli import NLICrossEncoder

VERIFIER_ENV = "ENOKI_VERIFIER"
CHECKPOINTS_ENV = "ENOKI_CHECKPOINTS"
DEFAULT_VERIFIER_NAME = "verifier-minilm"
# The 3-layer verifier shipped beside the default (``verifier=fast``).
FAST_VERIFIER_NAME = "verifier-minilm-l3"

# Options of a ``verifier`` config node that NLICrossEncoder takes (besides ``path``).
VERIFIER_OPTIONS = (
    "sha256",
    "backend",
    "max_length",
    "batch_size",
    "device",
    "cache_size",
    "onnx_file",
    "local_files_only",
    "revision",
    "trust_remote_code",
)
# Keys of the same node that belong to others: the config's label and the evidence selector's.
NOT_VERIFIER_OPTIONS = ("name", "evidence")


def default_checkpoint_dir() -> Path:
    """Where the shipped checkpoints live: ``$ENOKI_CHECKPOINTS``, else the repository's
    ``checkpoints/`` folder (next to ``src/``) in a source checkout, else the installed
    package's data (``enoki_hd/checkpoints``, which a non-editable ``pip install`` carries)."""
    env = os.environ.get(CHECKPOINTS_ENV)
    if env:
        return Path(env)
    root = Path(__file__).resolve().parents[3]
    if (root / "pyproject.toml").is_file() and (root / "checkpoints").is_dir():
        return root / "checkpoints"
    return installed_checkpoint_dir()


def default_verifier_path() -> Path:
    """The shipped verifier: ``$ENOKI_VERIFIER`` or ``checkpoints/verifier-minilm``."""
    env = os.environ.get(VERIFIER_ENV)
    return Path(env) if env else default_checkpoint_dir() / DEFAULT_VERIFIER_NAME


def resolve_checkpoint(path: str | Path) -> str | Path:
    """``path`` itself, unless it is the bare name of a shipped checkpoint that no file or
    folder of that name shadows (``"verifier-minilm-l3"``): then that checkpoint's folder under
    :func:`default_checkpoint_dir`, in a source checkout and in an installed package alike."""
    candidate = Path(path)
    if len(candidate.parts) == 1 and not candidate.exists():
        shipped = default_checkpoint_dir() / candidate
        if (shipped / "model.onnx").is_file():
            return shipped
    return path


def portable_reference(ref: str | Path) -> str:
    """``ref`` as reports and cache keys record it: the bare name of a shipped checkpoint
    folder (``"verifier-minilm"``, which :func:`resolve_checkpoint` maps back) when ``ref`` is
    one under :func:`default_checkpoint_dir`, else ``ref`` as given (another path, a hub id).
    An absolute path made every report depend on where the repository was checked out: two
    clones wrote different bytes for the same answers, and a ``detect-batch`` output could
    not be resumed from another copy of the same code and model (the graph's sha256 is
    recorded beside the name, so the name alone vouches for nothing)."""
    path = Path(ref)
    try:
        shipped = default_checkpoint_dir().resolve()
        if path.is_dir() and path.resolve().parent == shipped and (path / "model.onnx").is_file():
            return path.name
    except OSError:  # an unreadable path is recorded as given
        pass
    return str(ref)


def load_default_verifier(path: str | Path | None = None, **options: Any) -> NLICrossEncoder:
    """Load the shipped ONNX int8 verifier, with an error that says how to build it.

    ``options`` go to :class:`~enoki_hd.verify.nli.NLICrossEncoder`; what is not given comes
    from the checkpoint's manifest.

    Raises:
        FileNotFoundError: there is no ``model.onnx`` at ``path``.
    """
    path = Path(path) if path is not None else default_verifier_path()
    if not (path / "model.onnx").is_file():
        raise FileNotFoundError(
            f"no verifier at {path} (expected {path / 'model.onnx'}); run `make train-verifier` "
            f"to build the shipped verifier, or set {VERIFIER_ENV} / pass verifier=<path or hub id>"
        )
    return NLICrossEncoder(path, **options)


def load_verifier_from_config(cfg: Mapping[str, Any]) -> NLICrossEncoder:
    """The verifier a ``verifier`` config node describes (``configs/verifier/*.yaml``)::

        {"path": null, "backend": "auto", "max_length": null, "batch_size": null, ...}

    ``path`` null is the shipped default (:func:`default_verifier_path`), a bare name that of
    the shipped checkpoints (:func:`resolve_checkpoint`); ``sha256``, when
    given (as :meth:`NLICrossEncoder.config` records it), must match the loaded graph; any
    other option that is null takes the checkpoint's own setting (its manifest's ``inference`` block, else the
    :class:`~enoki_hd.verify.nli.NLICrossEncoder` default). ``name`` and ``evidence`` belong to
    the config's label and the evidence selector and are not read here.

    Raises:
        ValueError: an unknown option, or one the checkpoint cannot honour (``backend: torch``
            on an ONNX-only checkpoint, ``backend: onnx`` on a hub id, ``max_length`` beyond
            the position embeddings); the message names the ``verifier.*`` field.
        FileNotFoundError: the checkpoint does not exist.
    """
    options = {k: v for k, v in cfg.items() if k not in NOT_VERIFIER_OPTIONS}
    path = options.pop("path", None)
    unknown = sorted(set(options) - set(VERIFIER_OPTIONS))
    if unknown:
        raise ValueError(
            f"unknown verifier option(s) {', '.join('verifier.' + k for k in unknown)}; "
            f"known: path, {', '.join(VERIFIER_OPTIONS)}"
        )
    options = {k: v for k, v in options.items() if v is not None}
    expected_sha256 = options.pop("sha256", None)
    verifier = (
        load_default_verifier(**options)
        if path is None
        else NLICrossEncoder(resolve_checkpoint(path), **options)
    )
    if expected_sha256 is not None and verifier.sha256 != expected_sha256:
        raise ValueError(
            f"verifier.sha256: the config was written for a model.onnx with sha256 "
            f"{expected_sha256}, but {verifier.name} holds {verifier.sha256}; the checkpoint "
            "changed since — drop verifier.sha256 to accept the new model"
        )
    return verifier
