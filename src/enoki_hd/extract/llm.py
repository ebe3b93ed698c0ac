"""Facts extracted by a chat model over any OpenAI-compatible endpoint (Enoki-LLM).

One request per sentence, sent concurrently (``workers`` threads) across the sentences of an
answer and, through :meth:`LLMExtractor.extract_rows`, across answers. The prompt is one of
the package's templates (:mod:`enoki_hd.llm.prompt`): ``incremental`` (coarse-to-fine
refinement chains, composite arguments split; the default) or ``flat``, or a template file.
The answer is parsed tolerantly (:func:`enoki_hd.llm.parse.parse_triples`); lines that could
not be read are counted.

Every triple is anchored to the sentence with the project's aligner
(:func:`enoki_hd.igl.align.align_triple`: verbatim, then word alignment). Nothing is anchored
by guesswork:

- a triple the aligner cannot place is kept with empty spans and ``source="llm:<reason>"``
  (``subject_unaligned``, ``relation_unaligned``, ``object_unaligned``, ``overlap``);
- a subject or object that could sit in two places of the sentence (it occurs there twice
  verbatim, or one of its content words does) is kept the same way as ``llm:ambiguous_subject``
  / ``llm:ambiguous_object``; an ambiguous relation keeps the subject and object spans but no
  relation span (``llm:ambiguous_relation``).

Such facts are still verified (their strings are) but blame no characters. Chains become
explicit links: a fact whose subject and relation words equal another's and whose object words
strictly include its object words refines it (:func:`enoki_hd.igl.labels.chain_parents`);
its ``delta`` is the object words it adds. A root fact's ``delta`` is its object spans (else
relation, else subject). Every offset is a half-open character offset into the ORIGINAL answer.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from enoki_hd.extract import register
from enoki_hd.igl.align import Alignment, SentenceAligner
from enoki_hd.igl.labels import chain_parents
from enoki_hd.llm.client import Usage
from enoki_hd.llm.component import PromptedLLM
from enoki_hd.llm.parse import parse_triples
from enoki_hd.text import STOP_WORDS, merge_spans, segment_sentences, tokenize_words
from enoki_hd.types import Fact, Span

logger = logging.getLogger(__name__)

PROMPT_VARIANTS = {"incremental": "extract_incremental", "flat": "extract_flat"}
ANCHORED = "anchored"


@dataclass
class Extraction:
    """The facts of some sentences, what they cost, and counts of what happened to the
    triples (``triples`` read, ``anchored``, ``malformed_lines``, ``prose_lines``,
    ``duplicate`` and one key per reason a fact was kept unanchored)."""

    facts: list[Fact] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    counts: Counter[str] = field(default_factory=Counter)


def _fold_tokens(text: str) -> list[str]:
    return [w.text(text).casefold() for w in tokenize_words(text)]


def _is_content(fold: str) -> bool:
    return any(c.isalnum() for c in fold) and fold not in STOP_WORDS


def _ambiguous(aligner: SentenceAligner, part: str, indices: Sequence[int]) -> bool:
    """Whether the words ``indices`` chosen for ``part`` could as well be others: the part
    occurs twice verbatim, or (aligned loosely) one of its content words occurs twice."""
    if not indices:
        return False
    folds = aligner.folds
    tokens = _fold_tokens(part)
    m = len(tokens)
    verbatim = sum(folds[i : i + m] == tokens for i in range(len(folds) - m + 1)) if m else 0
    if verbatim:
        return verbatim > 1
    counts = Counter(folds)
    return any(_is_content(folds[i]) and counts[folds[i]] > 1 for i in indices)


def anchor_triples(
    answer: str, sentence: Span, index: int, triples: Sequence[Mapping[str, str]]
) -> tuple[list[Fact], Counter[str]]:
    """Anchor the triples the model gave for the sentence ``sentence`` (a span of ``answer``,
    the ``index``-th) to the answer's characters; see the module docstring for the rules.

    Returns the facts (ids ``f{index}.{k}`` in the triples' order, repeated triples left out)
    and the counts (``anchored``, ``duplicate`` and the reasons facts were left unanchored).
    """
    text = sentence.text(answer)
    words = tokenize_words(text)
    aligner = SentenceAligner(text, words)
    counts: Counter[str] = Counter()
    seen: set[tuple[Any, ...]] = set()
    kept: list[tuple[tuple[str, str, str], Alignment | None, str]] = []
    for triple in triples:
        parts = (triple["subject"], triple["relation"], triple["object"])
        dropped: Counter[str] = Counter()
        alignment = aligner.align(*parts, dropped=dropped)
        reason = next(iter(dropped), ANCHORED)
        if alignment is not None:
            if _ambiguous(aligner, parts[0], alignment.subject):
                alignment, reason = None, "ambiguous_subject"
            elif _ambiguous(aligner, parts[2], alignment.object):
                alignment, reason = None, "ambiguous_object"
            elif _ambiguous(aligner, parts[1], alignment.relation):
                reason = "ambiguous_relation"
        key = (
            (alignment.subject, alignment.relation, alignment.object, alignment.sentinels)
            if alignment is not None and reason == ANCHORED
            else tuple(" ".join(p.casefold().split()) for p in parts)
        )
        if key in seen:
            counts["duplicate"] += 1
            continue
        seen.add(key)
        counts[reason] += 1
        kept.append((parts, alignment, reason))

    def spans(indices: Sequence[int]) -> list[Span]:
        shifted = [
            Span(words[i].start + sentence.start, words[i].end + sentence.start) for i in indices
        ]
        return merge_spans(shifted, answer)

    # chains among the wholly anchored facts only: an unsure anchor links nothing
    chained = [k for k, (_, a, reason) in enumerate(kept) if a is not None and reason == ANCHORED]
    rows = [kept[k][1].row(len(words)) for k in chained]  # type: ignore[union-attr]
    parent_of = {chained[b]: chained[a] for b, a in enumerate(chain_parents(rows)) if a is not None}
    facts: list[Fact] = []
    for k, (parts, alignment, reason) in enumerate(kept):
        if alignment is None:
            subject, relation, obj = [], [], []
        else:
            subject, obj = spans(alignment.subject), spans(alignment.object)
            relation = [] if reason == "ambiguous_relation" else spans(alignment.relation)
        parent = parent_of.get(k)
        if parent is not None:
            added = sorted(set(alignment.object) - set(kept[parent][1].object))  # type: ignore[union-attr]
            delta = spans(added)
        else:
            delta = list(next((s for s in (obj, relation, subject) if s), []))
        facts.append(
            Fact(
                id=f"f{index}.{k}",
                sentence=index,
                subject=parts[0],
                relation=parts[1],
                object=parts[2],
                subject_spans=subject,
                relation_spans=relation,
                object_spans=obj,
                parent=None if parent is None else f"f{index}.{parent}",
                delta=delta,
                confidence=None,
                source="llm" if reason == ANCHORED else f"llm:{reason}",
            )
        )
    return facts, counts


@register("llm")
class LLMExtractor(PromptedLLM):
    """Facts from a chat model, anchored to the answer (see the module docstring).

    Args:
        model: the served model's name.
        base_url: the OpenAI-compatible endpoint (``http://localhost:8000/v1``).
        prompt: ``incremental`` (default), ``flat`` or the path of a template file with a
            ``{sentence}`` placeholder.
        workers: requests in flight at once.
        client: a ready :class:`~enoki_hd.llm.client.ChatClient` (then ``model``,
            ``base_url`` and ``client_options`` are taken from it).
        prompt_sha256: when given (as :meth:`config` records it), the prompt must match it.
        client_options: more :class:`~enoki_hd.llm.client.ChatClient` options (``timeout``,
            ``max_retries``, ``price_in``, ``max_cost``, ``temperature``, ...).

    ``stats`` counts, over the extractor's life, triples read, anchored, kept unanchored by
    reason, malformed and prose lines, and ``usage`` the tokens spent.
    """

    node = "extractor"
    placeholders = ("sentence",)

    def __init__(self, *args: Any, prompt: str = "incremental", **kwargs: Any) -> None:
        super().__init__(*args, prompt=prompt, **kwargs)
        self.stats: Counter[str] = Counter()
        self.usage = Usage()
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None

    def template(self, prompt: str) -> str:
        return PROMPT_VARIANTS.get(prompt, prompt)

    def unparseable_sentences(self, answer: str, sentences: list[Span] | None = None) -> set[int]:
        """Sentences with no parseable English (:mod:`enoki_hd.extract.rules.language`)."""
        from enoki_hd.extract.rules.language import unparseable_sentences

        if sentences is None:
            sentences = segment_sentences(answer)
        return unparseable_sentences(answer, sentences)

    def _executor(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="enoki-llm")
            return self._pool

    def close(self, *, wait: bool = True) -> None:
        """Stop the worker threads (a later call starts them again); queued requests are
        cancelled. ``wait=False`` does not wait for the requests in flight (an interrupted
        run: they may hang for their whole timeout and retries)."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=wait, cancel_futures=True)

    def extract_sentence(self, answer: str, sentence: Span, index: int) -> Extraction:
        """One request for the sentence ``sentence`` (a span of ``answer``): its anchored facts,
        tokens and counts. Raises :class:`~enoki_hd.llm.client.LLMError` when it fails."""
        completion = self.client.complete(self.prompt.messages(sentence=sentence.text(answer)))
        parsed = parse_triples(completion.text)
        for line in parsed.malformed:
            logger.info("sentence %d: could not read the line %r", index, line)
        facts, counts = anchor_triples(answer, sentence, index, parsed.triples)
        counts["triples"] = len(parsed.triples)
        counts["malformed_lines"] = len(parsed.malformed)
        counts["prose_lines"] = parsed.prose
        return Extraction(facts, completion.usage, counts)

    def submit(self, answer: str, sentences: Sequence[Span]) -> list[Future[Extraction]]:
        """Queue one request per sentence; the futures give each sentence's
        :class:`Extraction` (or raise its error)."""
        pool = self._executor()
        return [pool.submit(self.extract_sentence, answer, s, i) for i, s in enumerate(sentences)]

    def _record(self, extraction: Extraction) -> None:
        with self._lock:
            self.stats.update(extraction.counts)
            self.usage = self.usage + extraction.usage

    def collect(self, futures: Sequence[Future[Extraction]]) -> Extraction:
        """Wait for the sentences of one answer and join them (facts in sentence order).
        Raises the first sentence error, after every request of the answer has ended; on an
        interrupt (Ctrl-C) the answer's queued requests are cancelled, not sent."""
        results: list[Extraction] = []
        errors: list[BaseException] = []
        for future in futures:
            try:
                results.append(future.result())
            except Exception as err:
                errors.append(err)
            except BaseException:
                for queued in futures:
                    queued.cancel()
                raise
        joined = Extraction()
        for result in results:
            self._record(result)
            joined.facts.extend(result.facts)
            joined.usage = joined.usage + result.usage
            joined.counts.update(result.counts)
        if errors:
            raise errors[0]
        return joined

    def extract(self, answer: str, *, sentences: list[Span] | None = None) -> list[Fact]:
        """The anchored facts of ``answer`` (see the module docstring); sentences are judged
        concurrently. Raises :class:`~enoki_hd.llm.client.LLMError` when a request fails."""
        if not isinstance(answer, str):
            raise TypeError(f"answer must be str, got {type(answer).__name__}")
        if sentences is None:
            sentences = segment_sentences(answer)
        return self.collect(self.submit(answer, sentences)).facts
