"""Rule families of the rules extractor, one module each.

Every family module names its ``FAMILY`` (the ``<family>`` in a fact's ``source``,
``rules:<family>``) and lists ``EXAMPLES``: sentences with (subject, relation, object) triples
the extractor must produce for them. The examples are run as tests.
"""

from __future__ import annotations

from typing import NamedTuple


class Example(NamedTuple):
    """A sentence and (subject, relation, object) triples expected among its facts."""

    sentence: str
    triples: tuple[tuple[str, str, str], ...]
