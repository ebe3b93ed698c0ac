"""The rules extractor: relational facts from a spaCy dependency parse, no training needed.

See :class:`RulesExtractor` for the pipeline and :mod:`.families` for the rule families.
"""

from __future__ import annotations

from enoki_hd.extract.rules.extractor import RulesAnalysis, RulesExtractor
from enoki_hd.extract.rules.language import unparseable_sentences
from enoki_hd.extract.rules.markdown import mask_markdown

__all__ = ["RulesAnalysis", "RulesExtractor", "mask_markdown", "unparseable_sentences"]
