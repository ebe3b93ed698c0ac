"""The garbage collector in a long-running detection process.

A detection allocates tens of thousands of small objects (the tokens, numbers and dates of a
50,000-character context), and every so often the cycle collector's full pass walks every
object the process holds — the loaded spaCy pipelines and vocabularies, the tokenizers, some
360,000 objects: about 130 ms a pass, one every eight or so 50,000-character examples on this
project's 2-core machine, so 16 ms an example on average and a spike in the tail
(docs/speed.md). :func:`settle_heap`, called once the models are loaded, leaves those objects
out of every later pass (1.8 ms an example then). The service calls it after its warm-up
detection and each ``detect-batch`` worker process after its first row; a library user
serving many requests from one detector may call it the same way.
"""

from __future__ import annotations

import gc
import logging

logger = logging.getLogger(__name__)


def settle_heap() -> int:
    """Collect garbage, then move every object alive now out of the cycle collector's sight
    (:func:`gc.freeze`); returns how many objects were moved.

    Call it once the detector has run once (its models load on first use). It is process-wide:
    an object moved is still freed when its last reference goes, but a reference cycle among
    moved objects never is — a process that builds and drops detectors should not call it.
    """
    gc.collect()
    gc.freeze()
    moved = gc.get_freeze_count()
    logger.debug("settled %d objects out of the cycle collector's passes", moved)
    return moved
