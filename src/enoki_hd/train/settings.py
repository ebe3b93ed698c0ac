"""Training settings checked before any work: values a trainer cannot run with, and a resume
from a run made with other settings.

A negative batch size used to spin forever, a negative ``max_steps`` shipped an untrained
model, ``batch_size=0`` died in a division; and a rerun into an output folder resumed its
saved state whatever the new settings said, so a manifest could record a learning rate the
model was never trained with. :func:`check_trainer` and :func:`check_resume` say which key is
wrong and what to do instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any


class SettingsError(ValueError):
    """A training setting no run can start with, or a resume the saved state refuses; the
    message names the key and what to do (the training scripts print it as one line)."""


RESUME_KEYS = ("model", "data", "trainer", "seed", "loss")
"""The config groups a saved training state belongs to."""

# settings a resumed run may change: they do not touch the weights trained so far, or they
# extend the run (a longer budget, its learning-rate stages: "train on to step N")
_FREE = frozenset(
    {
        "trainer.resume",
        "trainer.log_every",
        "trainer.eval_batch_size",
        "trainer.keep_checkpoints",
        "trainer.smoke",
        "data.smoke",
        "trainer.max_steps",
        "trainer.epochs",
        "trainer.lr_stages",
        "trainer.patience",
    }
)


def _flat(value: Any, prefix: str) -> dict[str, Any]:
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            out.update(_flat(item, f"{prefix}.{key}" if prefix else str(key)))
        return out
    return {prefix: value}


def training_settings(cfg: Mapping[str, Any]) -> dict[str, Any]:
    """The settings of ``cfg`` a saved state is bound to, as dotted keys."""
    flat = _flat({k: cfg[k] for k in RESUME_KEYS if k in cfg}, "")
    return {k: v for k, v in flat.items() if k not in _FREE}


def check_resume(saved: Mapping[str, Any] | None, current: Mapping[str, Any], where: Path) -> None:
    """Refuse to resume the state in ``where`` made with other settings than ``current``
    (states saved before settings were recorded, ``saved`` None, resume as before).

    Raises:
        SettingsError: naming the first keys that differ, with their old and new values.
    """
    if saved is None:
        return
    keys = sorted(k for k in set(saved) | set(current) if saved.get(k) != current.get(k))
    if not keys:
        return
    shown = "; ".join(f"{k}: {saved.get(k)!r} → {current.get(k)!r}" for k in keys[:4])
    more = f" and {len(keys) - 4} more" if len(keys) > 4 else ""
    raise SettingsError(
        f"{where} holds a run made with other settings ({shown}{more}): rerun with the first "
        "run's settings to resume it, pass another output folder, or trainer.resume=false to "
        "start over"
    )


def check_trainer(trainer: Mapping[str, Any], *, every: tuple[str, ...] = ("log_every",)) -> None:
    """Values no trainer can run with, each named by its key; ``every`` names the
    ``*_every`` settings this trainer divides by (>= 1; the others may be 0: never).

    Raises:
        SettingsError: ``trainer.batch_size`` < 1, ``trainer.max_steps`` < 0, ``trainer.lr`` <= 0,
            ``trainer.epochs`` <= 0 (when no ``max_steps``), a ``*_every`` below its bound.
    """

    def number(key: str) -> float | None:
        value = trainer.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise SettingsError(f"trainer.{key} must be a number, got {value!r}")
        return float(value)

    batch = number("batch_size")
    if batch is not None and batch < 1:
        raise SettingsError(f"trainer.batch_size must be >= 1, got {trainer['batch_size']!r}")
    steps = number("max_steps")
    if steps is not None and steps < 0:
        raise SettingsError(
            f"trainer.max_steps must be >= 1 (or 0 / null to train for trainer.epochs), got "
            f"{trainer['max_steps']!r}"
        )
    if not steps:
        epochs = number("epochs")
        if epochs is not None and epochs <= 0:
            raise SettingsError(f"trainer.epochs must be > 0, got {trainer['epochs']!r}")
    lr = number("lr")
    if lr is not None and lr <= 0:
        raise SettingsError(f"trainer.lr must be > 0, got {trainer['lr']!r}")
    for key in ("save_every", "eval_every", "log_every"):
        value = number(key)
        low = 1 if key in every else 0
        if value is not None and value < low:
            bound = ">= 1" if low else ">= 0 (0: never)"
            raise SettingsError(f"trainer.{key} must be {bound}, got {trainer[key]!r}")


def check_model_folders(
    model_cfg: Mapping[str, Any], keys: tuple[str, ...] = ("backbone",)
) -> None:
    """Refuse a ``model.<key>`` (of ``keys``) that names a local folder (it starts with ``/``,
    ``./``, ``../`` or ``~``) that is not there: transformers reported it as a malformed hub id.

    Raises:
        SettingsError: naming ``model.<key>``, what it accepts and the value given.
    """
    for key in keys:
        name = str(model_cfg.get(key) or "")
        if name.startswith(("/", "./", "../", "~")) and not Path(name).expanduser().exists():
            raise SettingsError(
                f"model.{key}: {name} does not exist; give a local folder, a hub id "
                "(e.g. answerdotai/ModernBERT-base) or minilm"
            )
