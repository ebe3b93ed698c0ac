"""The LLM regime's plumbing: a chat client for any OpenAI-compatible endpoint
(:mod:`.client`), tolerant parsing of model answers (:mod:`.parse`) and the prompt templates
(:mod:`.prompt`, files under ``prompts/``). The extractor (:mod:`enoki_hd.extract.llm`), the
judge (:mod:`enoki_hd.verify.llm_judge`) and ``enoki teach`` (:mod:`enoki_hd.train.teach`) are
built on them."""

from __future__ import annotations

from enoki_hd.llm.client import (
    ChatClient,
    Completion,
    CostCapReached,
    EndpointRefused,
    LLMError,
    TokenLedger,
    Usage,
    load_api_key,
)
from enoki_hd.llm.parse import Judgement, ParsedTriples, parse_judgement, parse_triples
from enoki_hd.llm.prompt import BUILTIN_PROMPTS, Prompt, load_prompt

__all__ = [
    "BUILTIN_PROMPTS",
    "ChatClient",
    "Completion",
    "CostCapReached",
    "EndpointRefused",
    "Judgement",
    "LLMError",
    "ParsedTriples",
    "Prompt",
    "TokenLedger",
    "Usage",
    "load_api_key",
    "load_prompt",
    "parse_judgement",
    "parse_triples",
]
