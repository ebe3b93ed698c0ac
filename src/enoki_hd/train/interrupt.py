"""Ctrl-C at step boundaries: a training loop is interrupted between steps, never inside one.

A ``SIGINT`` that lands inside ``optimizer.step()`` or a best-model save leaves the model, the
optimizer and the run record out of step with each other; a checkpoint saved then resumes to
other weights than an uninterrupted run reaches. :class:`StepBoundaryInterrupt` turns the first
Ctrl-C into a request that the loop honours once the step in progress (and its evaluation and
saves) has finished; a second Ctrl-C stops at once, and the run resumes from its last saved
checkpoint.
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Callable
from types import FrameType, TracebackType

logger = logging.getLogger(__name__)


class StepBoundaryInterrupt:
    """Defers ``KeyboardInterrupt`` to :meth:`check` (call it where a step has finished).

    ``in_step`` is True between :meth:`step_started` and :meth:`check`: a ``KeyboardInterrupt``
    raised while it is True (a second Ctrl-C) came from inside a step, whose state must not be
    saved. Outside the main thread (where no signal handler can be set) it only tracks
    ``in_step``.
    """

    def __init__(self) -> None:
        self.requested = False
        self.in_step = False
        self._previous: object = None
        self._installed = False

    def __enter__(self) -> StepBoundaryInterrupt:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handle)
            self._installed = True
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._installed:
            signal.signal(signal.SIGINT, self._previous)  # type: ignore[arg-type]
            self._installed = False

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.requested or not self.in_step:
            raise KeyboardInterrupt
        self.requested = True
        logger.warning(
            "interrupt: finishing the step in progress, then saving a checkpoint "
            "(press Ctrl-C again to stop at once and resume from the last checkpoint)"
        )

    def step_started(self) -> None:
        self.in_step = True

    def check(self) -> None:
        """The step is finished (evaluation and saves included): stop here if asked to."""
        self.in_step = False
        if self.requested:
            raise KeyboardInterrupt

    def save_on_stop(self, step: int, saved_step: int, save: Callable[[], None]) -> None:
        """What a loop does when a ``KeyboardInterrupt`` stopped it at ``step`` (the last
        checkpoint holds ``saved_step``): inside a step (a second Ctrl-C) its state is not
        whole, so nothing is saved and the rerun resumes from ``saved_step``; between steps
        ``save()`` writes the finished step unless it is already saved. The caller re-raises."""
        if self.in_step:
            logger.warning(
                "stopped inside step %d; a rerun resumes from step %d", step + 1, saved_step
            )
            return
        logger.warning("interrupted at step %d; saving a checkpoint before exiting", step)
        if step > saved_step:
            save()
