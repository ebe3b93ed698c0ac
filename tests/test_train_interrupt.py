"""Ctrl-C in a training loop lands between steps (enoki_hd.train.interrupt)."""

from __future__ import annotations

import os
import signal

import pytest

from enoki_hd.train.interrupt import StepBoundaryInterrupt


def test_a_ctrl_c_inside_a_step_waits_for_the_step_to_finish() -> None:
    finished = []
    interrupt = StepBoundaryInterrupt()
    with pytest.raises(KeyboardInterrupt), interrupt:
        for step in range(5):
            interrupt.step_started()
            if step == 2:
                os.kill(os.getpid(), signal.SIGINT)  # lands mid-step
            finished.append(step)  # the rest of the step still runs
            interrupt.check()
    assert finished == [0, 1, 2] and not interrupt.in_step
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # restored


def test_a_second_ctrl_c_stops_at_once_inside_the_step() -> None:
    interrupt = StepBoundaryInterrupt()
    reached = []
    with pytest.raises(KeyboardInterrupt), interrupt:
        interrupt.step_started()
        os.kill(os.getpid(), signal.SIGINT)
        os.kill(os.getpid(), signal.SIGINT)
        reached.append("after")
    assert reached == [] and interrupt.in_step  # the caller must not save this state


def test_between_steps_a_ctrl_c_stops_at_once() -> None:
    interrupt = StepBoundaryInterrupt()
    with pytest.raises(KeyboardInterrupt), interrupt:
        os.kill(os.getpid(), signal.SIGINT)
    assert not interrupt.in_step


@pytest.mark.parametrize(
    ("in_step", "step", "saved_step", "saves", "message"),
    [
        (False, 7, 5, 1, "interrupted at step 7; saving a checkpoint before exiting"),
        (False, 5, 5, 0, "interrupted at step 5; saving a checkpoint before exiting"),
        (True, 7, 5, 0, "stopped inside step 8; a rerun resumes from step 5"),
    ],
)
def test_save_on_stop_saves_a_finished_step_once_and_never_a_half_one(
    in_step: bool,
    step: int,
    saved_step: int,
    saves: int,
    message: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    interrupt = StepBoundaryInterrupt()
    interrupt.in_step = in_step
    calls: list[int] = []
    with caplog.at_level("WARNING", logger="enoki_hd.train.interrupt"):
        interrupt.save_on_stop(step, saved_step, lambda: calls.append(step))
    assert len(calls) == saves
    assert caplog.messages == [message]
