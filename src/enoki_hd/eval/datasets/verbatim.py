"""The verbatim probe: sentences of the other benchmarks' contexts given back as the answer.

A sentence copied from the context is supported by it, so every span a method flags on such an
answer is a false alarm. The probe is built, not annotated: from each source benchmark's
distinct contexts, in an order shuffled with a fixed seed, up to two sentences per context
(regex segmentation; 40–250 characters, at least six words, ending with a period, on one line)
until ``per_set`` sentences are taken. Gold: no span, not hallucinated. The number to read is
the share of answers with any span (``1 - `` the mean IoU of the report, since an answer with
no gold span and no flagged character has IoU 1 and any flagged character gives 0).

The detector supports a sentence its context states word for word by rule
(``quoted_support``, :mod:`enoki_hd.verify.quoted`), so it passes this probe by construction;
``detector.quoted_support=false`` measures what the rest of the pipeline does with such
sentences (the facts cut from them, judged one by one).
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from enoki_hd.eval.datasets.schema import Benchmark, EvalExample
from enoki_hd.text import segment_sentences

MIN_CHARS, MAX_CHARS, MIN_WORDS, PER_CONTEXT = 40, 250, 6, 2


def _candidates(context: str) -> list[str]:
    sentences = [s.text(context).strip() for s in segment_sentences(context, backend="regex")]
    return [
        s
        for s in sentences
        if MIN_CHARS <= len(s) <= MAX_CHARS
        and s.endswith(".")
        and len(s.split()) >= MIN_WORDS
        and "\n" not in s
    ]


def build_verbatim(
    sources: Mapping[str, Benchmark], *, per_set: int = 60, seed: int = 0, name: str = "verbatim"
) -> Benchmark:
    """Up to ``per_set`` verbatim answers from each source benchmark, in the order of
    ``sources``; ids are ``<source>:<k>``. Raises ValueError on ``per_set`` < 1."""
    if per_set < 1:
        raise ValueError(f"per_set must be >= 1, got {per_set}")
    rng = random.Random(seed)
    examples: list[EvalExample] = []
    for source, benchmark in sources.items():
        contexts = list(dict.fromkeys(e.context for e in benchmark.examples if e.context))
        rng.shuffle(contexts)
        taken: list[tuple[str, str]] = []
        for context in contexts:
            sentences = _candidates(context)
            rng.shuffle(sentences)
            taken.extend((context, s) for s in sentences[:PER_CONTEXT])
            if len(taken) >= per_set:
                break
        for k, (context, sentence) in enumerate(taken[:per_set]):
            examples.append(
                EvalExample(
                    id=f"{source}:{k}",
                    question=None,
                    context=context,
                    answer=sentence,
                    gold_spans=[],
                    example_label=False,
                    metadata={"source": source},
                )
            )
    return Benchmark(
        name=name,
        level="span",
        examples=examples,
        source="verbatim sentences of " + ", ".join(sources),
    )
