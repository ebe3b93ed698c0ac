"""The :class:`Extractor` protocol every fact-extraction backend implements."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from enoki_hd.types import Fact, Span


@runtime_checkable
class Extractor(Protocol):
    """Extracts relational facts anchored to the characters of an answer.

    ``extract`` returns facts whose spans are half-open ``[start, end)`` character offsets
    into the ORIGINAL ``answer``. ``sentences`` are the answer's sentence spans (offsets into
    ``answer``); a fact's ``sentence`` is an index into them. When ``sentences`` is None the
    backend segments the answer itself with :func:`enoki_hd.text.segment_sentences`.
    """

    name: str

    def extract(self, answer: str, *, sentences: list[Span] | None = None) -> list[Fact]: ...
