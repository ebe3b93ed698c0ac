"""The held-out span set: hand-written RAG answers with the exact characters that are wrong
(``data/spans_fresh/*.jsonl``), written blind and measured once (its README).

Each row is ``{id, kind, question, context, answer, hallucinated, rationale}`` (``kind``,
``question`` and ``rationale`` may be left out or null; the held-out set's ``kind`` is ``qa``, a
question over two or three retrieved passages joined by a blank line, ``summary``, an article
or report summarised, or ``about``, an encyclopedia-style article); ``hallucinated`` lists every
wrong piece as ``{"text", "occurrence"}`` (an exact substring of ``answer`` and its 0-based
index among that substring's occurrences), empty when the answer is fully supported. An
example carries the pieces as its gold spans, so the span metrics (IoU, char-F1, coverage F1)
and the example-level ones apply.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from enoki_hd.eval.datasets.markdown_suite import quoted_span
from enoki_hd.eval.datasets.rows import Row, jsonl_examples, span_example
from enoki_hd.eval.datasets.schema import Benchmark, EvalExample, PathLike

SPAN_SET_KINDS = ("qa", "summary", "about")  # the held-out set's
# the package's data/ links to the repository's (an installed package holds a copy)
SPANS_FRESH_DIR = (Path(__file__).resolve().parents[2] / "data" / "spans_fresh").resolve()


def _example(row: Row) -> EvalExample:
    answer = row.text("answer")
    kind = row.optional_text("kind")
    gold = sorted(
        quoted_span(row, "hallucinated", i, item, answer)
        for i, item in enumerate(row.items("hallucinated"))
    )
    metadata = {"kind": kind, "rationale": row.optional_text("rationale")}
    return span_example(
        row.text("id"), row.optional_text("question"), row.text("context"), answer, gold, metadata
    )


def load_span_set(
    paths: PathLike | Sequence[PathLike] | None = None, *, name: str = "spans_fresh"
) -> Benchmark:
    """The rows of ``paths`` (files, or folders read as their ``*.jsonl`` sorted by name;
    default the repository's ``data/spans_fresh/``), in file then line order; ids unique.

    Raises:
        DatasetError: a malformed row, naming the file, line and field.
        FileNotFoundError: a path does not exist or a folder holds no ``*.jsonl``.
    """
    examples, source = jsonl_examples(
        paths if paths is not None else SPANS_FRESH_DIR, "span set", _example
    )
    return Benchmark(name, "span", examples, source=source)
