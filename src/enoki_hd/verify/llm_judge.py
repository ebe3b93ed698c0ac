"""``verification=llm``: a chat model judges a fact against its evidence.

The judge (:class:`LLMJudge`) sends the fact's hypothesis and its evidence passage (the
window the NLI stage chose, or the whole context) with the ``judge`` prompt
(:mod:`enoki_hd.llm.prompt`) and reads a structured answer: a 3-way ``label``
(``supported`` / ``contradicted`` / ``unverifiable``) and a quoted ``evidence`` span. The
quote is checked to occur in the context (exactly, else whitespace-, quote-, dash- and
case-tolerant). A ``supported`` or ``contradicted`` answer whose quote is not in the context,
or holds fewer than :data:`MIN_QUOTE_WORDS` words (a one-letter quote is in any context), is
not trusted: :class:`JudgeAnswer` marks it ``trusted=False`` and the fact keeps the verdict
it had (see :mod:`enoki_hd.verify.routing`). A failed request is an error, never a
hallucination.
"""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from enoki_hd.llm.client import Usage
from enoki_hd.llm.component import PromptedLLM
from enoki_hd.llm.parse import parse_judgement
from enoki_hd.text import anchor, tokenize_words
from enoki_hd.types import FactLabel, FactVerdict, Span

logger = logging.getLogger(__name__)

# Hallucination scores of a judge's label (a judge gives no probability).
LABEL_SCORES: dict[str, float] = {"supported": 0.0, "unverifiable": 1.0, "contradicted": 1.0}
_NORMALISE = str.maketrans(
    {c: "'" for c in "’‘‛‚"} | {c: '"' for c in "“”„‟"} | {c: "-" for c in "‐‑‒–—−"}
)


@dataclass(frozen=True)
class JudgeAnswer:
    """What an escalation judge said about one fact.

    ``label`` and ``score`` (a hallucination score) replace the fact's verdict when
    ``trusted``. ``quote`` is the evidence the judge quoted, ``quote_span`` its offsets in the
    CONTEXT when it occurs there (None: absent, or found only after normalising), and
    ``quote_found`` whether it occurs at all (None: the judge quotes nothing by design).
    """

    label: FactLabel
    score: float
    by: str
    trusted: bool = True
    quote: str = ""
    quote_span: Span | None = None
    quote_found: bool | None = None
    explanation: str = ""
    usage: Usage = field(default_factory=Usage)

    def to_dict(self) -> dict[str, Any]:
        return {
            "by": self.by,
            "label": self.label,
            "score": self.score,
            "trusted": self.trusted,
            "quote": self.quote,
            "quote_span": None if self.quote_span is None else self.quote_span.to_dict(),
            "quote_found": self.quote_found,
            "explanation": self.explanation,
        }


MIN_QUOTE_WORDS = 3
"""Words a decisive judge's quote must hold to be trusted."""


def _normalised(text: str) -> str:
    return " ".join(text.translate(_NORMALISE).casefold().split())


def locate_quote(context: str, quote: str) -> tuple[bool, Span | None]:
    """Whether ``quote`` occurs in ``context`` and where (half-open offsets into the context):
    an exact match (the first), else a unique tolerant match (:func:`enoki_hd.text.anchor`),
    else a match after normalising whitespace, quotes, dashes and case (found, no span)."""
    quote = quote.strip().strip('"').strip()
    if not quote:
        return False, None
    start = context.find(quote)
    if start >= 0:
        return True, Span(start, start + len(quote))
    span = anchor(context, quote)
    if span is not None:
        return True, span
    return _normalised(quote) in _normalised(context), None


class LLMJudge(PromptedLLM):
    """A chat model as the fact judge (see the module docstring).

    Args:
        model, base_url: the served model and its OpenAI-compatible endpoint.
        prompt: ``judge`` (the built-in template) or a template file with ``{claim}`` and
            ``{evidence}`` placeholders.
        workers: requests in flight at once.
        client: a ready :class:`~enoki_hd.llm.client.ChatClient` instead of model/base_url.
        prompt_sha256: when given (as :meth:`config` records it), the prompt must match it.
        client_options: more :class:`~enoki_hd.llm.client.ChatClient` options.
    """

    node = "judge"
    placeholders = ("claim", "evidence")

    def __init__(self, *args: Any, prompt: str = "judge", **kwargs: Any) -> None:
        super().__init__(*args, prompt=prompt, **kwargs)

    def judge(self, claim: str, evidence: str, context: str) -> JudgeAnswer:
        """The judge's answer for ``claim`` against the passage ``evidence``; its quote is
        looked up in ``context``. Raises :class:`~enoki_hd.llm.client.LLMError` when the
        request fails; an answer without a readable label is ``unverifiable``, not trusted."""
        completion = self.client.complete(self.prompt.messages(claim=claim, evidence=evidence))
        parsed = parse_judgement(completion.text)
        if parsed is None:
            logger.info("judge answer without a readable label: %r", completion.text[:200])
            return JudgeAnswer("unverifiable", 1.0, self.name, False, usage=completion.usage)
        label: FactLabel = parsed.label  # type: ignore[assignment]
        found, span = locate_quote(context, parsed.quote)
        # an unverifiable answer needs no quote; a decision must show one from the context, of
        # a few words at least ("e" is in any context)
        substantial = len(tokenize_words(parsed.quote)) >= MIN_QUOTE_WORDS
        trusted = label == "unverifiable" or (found and substantial)
        if not trusted:
            logger.info(
                "judge quote %s, answer not trusted: %r",
                "not in the context" if not found else f"under {MIN_QUOTE_WORDS} words",
                parsed.quote,
            )
        return JudgeAnswer(
            label,
            LABEL_SCORES[label],
            self.name,
            trusted,
            parsed.quote,
            span,
            found if parsed.quote or label != "unverifiable" else None,
            parsed.explanation,
            completion.usage,
        )

    def judge_many(
        self, answer: str, context: str, verdicts: list[FactVerdict], **_: Any
    ) -> list[JudgeAnswer | None]:
        """:meth:`judge` of every verdict's hypothesis against its evidence (the whole context
        when it has none), concurrently."""

        def one(verdict: FactVerdict) -> JudgeAnswer:
            evidence = verdict.evidence.text if verdict.evidence is not None else context
            return self.judge(verdict.hypothesis, evidence, context)

        if len(verdicts) <= 1:
            return [one(v) for v in verdicts]
        pool = ThreadPoolExecutor(min(self.workers, len(verdicts)))
        interrupted = False
        try:
            return list(pool.map(one, verdicts))
        except KeyboardInterrupt:
            interrupted = True
            raise
        finally:
            # on Ctrl-C the requests in flight may hang for their whole timeout and retries:
            # the interrupt is not held until they end
            pool.shutdown(wait=not interrupted, cancel_futures=True)
