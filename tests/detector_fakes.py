"""Detector factories for tests that run detection in other processes (detect-batch workers,
a killed subprocess, a served app): module-level, so a spawned process can import them."""

from __future__ import annotations

import os
import signal
import time

from fakes import LexicalVerifier

from enoki_hd.detector import Detector

DELAY_ENV = "ENOKI_TEST_DETECT_DELAY"


class SlowDetector(Detector):
    """Sleeps ``$ENOKI_TEST_DETECT_DELAY`` seconds per answer, so a test can kill a run
    midway; the reports are those of the plain detector."""

    def detect(self, **kwargs):
        time.sleep(float(os.environ.get(DELAY_ENV, "0")))
        return super().detect(**kwargs)


def lexical_detector() -> Detector:
    """The rules extractor over the deterministic lexical fake verifier."""
    return SlowDetector(LexicalVerifier(), sentence_backend="regex")


KILL_ANSWER = "This answer kills its worker."


class DyingDetector(SlowDetector):
    """Kills its own process (as the out-of-memory killer would) on :data:`KILL_ANSWER`."""

    def detect(self, **kwargs):
        if kwargs.get("answer") == KILL_ANSWER:
            os.kill(os.getpid(), signal.SIGKILL)
        return super().detect(**kwargs)


def dying_detector() -> Detector:
    return DyingDetector(LexicalVerifier(), sentence_backend="regex")
