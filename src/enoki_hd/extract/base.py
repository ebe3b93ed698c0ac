"""The :class:`Extractor` protocol every fact-extraction backend implements."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from enoki_hd.types import Fact, Span


@runtime_checkable
class Extractor(Protocol):
    """Extracts relational facts anchored to the characters of an answer.

    This is everything the detector calls on a backend.

    ``extract`` returns facts whose spans are half-open ``[start, end)`` character offsets
    into the ORIGINAL ``answer``. ``sentences`` are the answer's sentence spans (offsets into
    ``answer``); a fact's ``sentence`` is an index into them. When ``sentences`` is None the
    backend segments the answer itself with :func:`enoki_hd.text.segment_sentences`.

    ``unparseable_sentences`` names the sentences the backend cannot read (another language):
    they yield no facts and are reported ``unsupported_language``, never "supported".

    ``config`` returns the backend's name and every option that can change its output, as
    keyword arguments of its registered factory (``get_extractor(**config)`` rebuilds it).
    """

    name: str

    def extract(self, answer: str, *, sentences: list[Span] | None = None) -> list[Fact]: ...

    def unparseable_sentences(
        self, answer: str, sentences: list[Span] | None = None
    ) -> set[int]: ...

    def config(self) -> dict[str, Any]: ...
