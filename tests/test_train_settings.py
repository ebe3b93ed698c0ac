"""Training settings checked before any work (enoki_hd.train.settings)."""

from __future__ import annotations

from pathlib import Path

import pytest

from enoki_hd.train.settings import check_resume, check_trainer, training_settings


@pytest.mark.parametrize(
    ("trainer", "message"),
    [
        ({"batch_size": -4}, "trainer.batch_size must be >= 1, got -4"),  # spun forever
        ({"batch_size": 0}, "trainer.batch_size must be >= 1, got 0"),  # ZeroDivisionError
        ({"max_steps": -5}, "trainer.max_steps must be >= 1"),  # shipped an untrained model
        ({"max_steps": 0, "epochs": 0}, "trainer.epochs must be > 0"),
        ({"lr": -1e-4}, "trainer.lr must be > 0"),
        ({"log_every": 0}, "trainer.log_every must be >= 1"),
        ({"save_every": -1}, "trainer.save_every must be >= 0 (0: never)"),
        ({"batch_size": "8"}, "trainer.batch_size must be a number"),
    ],
)
def test_impossible_trainer_values_name_their_key(trainer, message) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        check_trainer(trainer)


def test_an_every_setting_the_trainer_divides_by_must_be_positive() -> None:
    check_trainer({"save_every": 0, "log_every": 10})  # distill: 0 saves never
    with pytest.raises(ValueError, match=r"trainer.save_every must be >= 1"):
        check_trainer({"save_every": 0}, every=("log_every", "save_every"))


def test_a_resume_must_match_the_settings_it_was_saved_with() -> None:
    cfg = {"seed": 13, "trainer": {"lr": 5e-5, "batch_size": 32, "max_steps": 100}, "logger": {}}
    saved = training_settings(cfg)
    assert "logger" not in {k.split(".")[0] for k in saved}
    check_resume(saved, training_settings(cfg), Path("run"))
    longer = {**cfg, "trainer": {**cfg["trainer"], "max_steps": 400, "log_every": 5}}
    check_resume(saved, training_settings(longer), Path("run"))  # train on: allowed
    check_resume(None, training_settings(longer), Path("run"))  # a state saved before settings
    other = {**cfg, "trainer": {**cfg["trainer"], "lr": 1e-4}}
    with pytest.raises(ValueError, match=r"run holds a run made with other settings \(trainer.lr"):
        check_resume(saved, training_settings(other), Path("run"))
