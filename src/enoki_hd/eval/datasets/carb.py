"""CaRB (OpenIE): gold tuples for the fact quality of an extractor."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from enoki_hd.eval.datasets.schema import DatasetError, PathLike

logger = logging.getLogger(__name__)


@dataclass
class CarbGold:
    """CaRB gold tuples keyed by sentence: ``(arg1, relation, args)``, plus the sentence list
    in file order (the input an OpenIE system is run on)."""

    sentences: list[str]
    gold: dict[str, list[tuple[str, str, list[str]]]]

    @property
    def n_tuples(self) -> int:
        return sum(len(tuples) for tuples in self.gold.values())


def load_carb(sentences_path: PathLike, gold_path: PathLike) -> CarbGold:
    """CaRB sentences (one a line) and gold tuples (TSV: sentence, RELATION, arg1, arg2, …).

    Tuples are returned as ``(arg1, relation, [arg2, ...])`` — the order
    :func:`enoki_hd.extract.carb.carb_score` takes — read as the official CaRB scorer reads
    them: trailing empty argument columns are left out, an empty column between two
    arguments keeps its place (it is a slot a prediction must fill), and an empty relation
    is an implicit relation (14 rows of the official test gold), kept and never matched.
    Sentences are compared after stripping surrounding whitespace (some gold rows carry a
    trailing space the sentence file does not); keys are the sentence file's text. A gold
    sentence that is not in the sentence file is a malformed row.
    """
    sentences_path, gold_path = Path(sentences_path), Path(gold_path)
    with sentences_path.open(encoding="utf-8") as handle:
        sentences = [line.strip() for line in handle if line.strip()]
    known = set(sentences)
    gold: dict[str, list[tuple[str, str, list[str]]]] = {}
    with gold_path.open(encoding="utf-8", newline="") as handle:
        for line_no, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            columns = line.rstrip("\r\n").split("\t")
            sentence = columns[0].strip()
            if sentence not in known:
                raise DatasetError(
                    gold_path, line_no, "sentence", f"is not in {sentences_path.name}"
                )
            if len(columns) < 3:
                raise DatasetError(gold_path, line_no, "arg1", "is missing")
            relation, arg1 = columns[1].strip(), columns[2].strip()
            if not arg1:
                raise DatasetError(gold_path, line_no, "arg1", "is empty")
            args = [a.strip() for a in columns[3:]]
            while args and not args[-1]:
                args.pop()
            gold.setdefault(sentence, []).append((arg1, relation, args))
    without = len(known - gold.keys())
    if without:
        logger.info("CaRB: %d of %d sentences have no gold tuple", without, len(known))
    return CarbGold(sentences, gold)
