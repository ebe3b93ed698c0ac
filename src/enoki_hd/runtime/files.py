"""Checkpoint files read without transformers.

A local checkpoint directory saved by ``save_pretrained`` holds everything ONNX inference
needs as plain files: ``config.json`` (labels, position embeddings), ``tokenizer.json`` (the
fast tokenizer, which the ``tokenizers`` library loads on its own) and ``tokenizer_config.json``
(``model_max_length``, the pad token). Reading them directly is what keeps the detector
torch-free: ``transformers.AutoConfig`` alone imports torch when it is installed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tokenizers import Tokenizer

CONFIG_FILE = "config.json"
TOKENIZER_FILE = "tokenizer.json"
TOKENIZER_CONFIG_FILE = "tokenizer_config.json"
# transformers writes this sentinel (int(1e30)) for "no limit" into tokenizer_config.json.
_NO_LIMIT = 10**29


def read_json(path: Path) -> dict[str, Any]:
    """The JSON object in ``path``; ``{}`` when the file does not exist.

    Raises:
        ValueError: the file is not a JSON object in UTF-8 (the message names it).
    """
    if not path.is_file():
        return {}
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise ValueError(f"{path} is not valid JSON ({err})") from err
    if not isinstance(value, dict):
        raise ValueError(f"{path} holds a JSON {type(value).__name__}, not an object")
    return value


def position_count(value: Any, where: str) -> int | None:
    """A config's ``max_position_embeddings`` (``where`` names the file and key): a whole
    number, or None when the config gives none.

    Raises:
        ValueError: any other value (a string, a float, a bool), named with ``where``.
    """
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise ValueError(f"{where} must be a whole number, got {value!r}")
    return value


def load_local_config(directory: Path) -> dict[str, Any]:
    """``<directory>/config.json`` as a dict, ``id2label`` keys as ints (as ``AutoConfig``
    gives them).

    Raises:
        FileNotFoundError: there is no ``config.json``.
        ValueError: it is no JSON object (:func:`read_json`), or an ``id2label`` key is no
            integer; the message names the file.
    """
    config = read_json(directory / CONFIG_FILE)
    if not config:
        raise FileNotFoundError(f"no {CONFIG_FILE} in {directory}")
    if isinstance(config.get("id2label"), Mapping):
        try:
            config["id2label"] = {int(k): str(v) for k, v in config["id2label"].items()}
        except ValueError as err:
            raise ValueError(
                f"{directory / CONFIG_FILE}: id2label keys must be integers ({err})"
            ) from err
    return config


def pad_token_id(tokenizer: Any, settings: Mapping[str, Any]) -> int:
    """The padding id of a ``tokenizers.Tokenizer`` read from ``tokenizer.json``: the id of
    ``tokenizer_config.json``'s ``pad_token`` (``settings``), else the file's own padding id,
    else 0."""
    pad_token = settings.get("pad_token")
    if isinstance(pad_token, dict):
        pad_token = pad_token.get("content")
    pad_id = tokenizer.token_to_id(pad_token) if isinstance(pad_token, str) else None
    if pad_id is None and tokenizer.padding:
        pad_id = tokenizer.padding["pad_id"]
    return int(pad_id or 0)


@dataclass(frozen=True)
class LocalTokenizer:
    """A checkpoint's fast tokenizer with the two settings inference reads beside it.

    ``model_max_length`` is None when ``tokenizer_config.json`` sets none (or transformers'
    "unlimited" sentinel).
    """

    tokenizer: Tokenizer
    model_max_length: int | None
    pad_token_id: int


def load_local_tokenizer(directory: Path) -> LocalTokenizer:
    """``<directory>/tokenizer.json`` with ``tokenizer_config.json``'s length and pad token.

    Raises:
        FileNotFoundError: there is no ``tokenizer.json`` (save the fast tokenizer beside the
            model).
        ValueError: ``tokenizer.json`` cannot be loaded, or ``tokenizer_config.json`` is no JSON
            object; the message names the file.
    """
    path = directory / TOKENIZER_FILE
    if not path.is_file():
        raise FileNotFoundError(
            f"no {TOKENIZER_FILE} in {directory}; ONNX inference without transformers needs "
            "the fast tokenizer file (save_pretrained of a fast tokenizer writes it)"
        )
    try:
        tokenizer = Tokenizer.from_file(str(path))
    except Exception as err:  # the tokenizers library raises a bare Exception
        raise ValueError(f"cannot load the tokenizer {path}: {' '.join(str(err).split())}") from err
    settings = read_json(directory / TOKENIZER_CONFIG_FILE)
    length = settings.get("model_max_length")
    limit = int(length) if isinstance(length, (int, float)) and length < _NO_LIMIT else None
    return LocalTokenizer(tokenizer, limit, pad_token_id(tokenizer, settings))


def installed_checkpoint_dir() -> Path:
    """Where a non-editable install keeps the shipped checkpoints: the package data folder
    ``enoki_hd/checkpoints`` (in the source tree a link to the top-level ``checkpoints/``)."""
    return Path(__file__).resolve().parents[1] / "checkpoints"
