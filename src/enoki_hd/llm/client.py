"""A chat client for any OpenAI-compatible endpoint (vLLM, llama.cpp server, a hosted API).

:class:`ChatClient` wraps the ``openai`` client with what a long extraction job needs:

- retries with exponential backoff and full jitter on 429, 5xx, timeouts and dropped
  connections (the ``openai`` client's own retries are switched off so every attempt is
  counted here); other errors (400, 401, 404) are raised at once;
- a thread-safe :class:`TokenLedger` of requests, retries, prompt and completion tokens and
  cost;
- a cost cap: once the ledger's cost reaches ``max_cost`` no new request is sent and
  :class:`CostCapReached` is raised, so a job stops cleanly between requests.

``openai`` is an optional dependency (``pip install 'enoki-hd[llm]'``): this module imports
without it and fails with that hint only when a client is built.
"""

from __future__ import annotations

import datetime
import email.utils
import json
import logging
import math
import os
import random
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

logger = logging.getLogger(__name__)

API_KEY_ENV = "OPENAI_API_KEY"
BASE_URL_ENV = "OPENAI_BASE_URL"
# The longest Retry-After honoured (seconds); a longer one stops the request as failed.
RETRY_AFTER_MAX = 600.0
# A local server (vLLM, llama.cpp) takes any key; the openai client insists on one.
NO_KEY = "EMPTY"
# What a required Hydra config value left unset (``???``) reads as.
MISSING = "???"


class LLMError(RuntimeError):
    """A request that failed for good (retries exhausted, or an error not worth retrying)."""


class CostCapReached(LLMError):
    """The ledger's cost reached ``max_cost``; no further request is sent."""


class EndpointRefused(LLMError):
    """The endpoint refuses the requests themselves (HTTP 401, 403, 404: a wrong key, model
    name or URL): every other request would fail the same way."""


# Statuses that say the request can never succeed as configured.
_REFUSED = (401, 403, 404)


@dataclass(frozen=True)
class Usage:
    """Tokens and cost of one or more requests."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    requests: int = 0
    retries: int = 0
    cost: float = 0.0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.requests + other.requests,
            self.retries + other.retries,
            self.cost + other.cost,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "requests": self.requests,
            "retries": self.retries,
            "cost": round(self.cost, 6),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Usage:
        return cls(
            int(d.get("prompt_tokens", 0)),
            int(d.get("completion_tokens", 0)),
            int(d.get("requests", 0)),
            int(d.get("retries", 0)),
            float(d.get("cost", 0.0)),
        )


@dataclass
class TokenLedger:
    """Running totals of every request a client sent (thread-safe); ``unmetered`` counts the
    answers that came without token usage (no cost cap can be kept against them)."""

    total: Usage = field(default_factory=Usage)
    unmetered: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, usage: Usage, *, metered: bool = True) -> None:
        with self._lock:
            self.total = self.total + usage
            self.unmetered += not metered

    @property
    def cost(self) -> float:
        return self.total.cost


@dataclass(frozen=True)
class Completion:
    """The text of one chat completion and what it took (``usage.retries``: attempts - 1)."""

    text: str
    usage: Usage


def load_api_key(env_file: str | Path | None = ".env") -> str | None:
    """``OPENAI_API_KEY`` from the environment, else from ``env_file`` (``KEY=VALUE`` lines,
    as a git-ignored ``.env`` holds them); None when neither has it."""
    key = os.environ.get(API_KEY_ENV)
    if key:
        return key
    if env_file is None or not Path(env_file).is_file():
        return None
    for line in Path(env_file).read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line.startswith("export "):
            line = line[len("export ") :].strip()
        name, sep, value = line.partition("=")
        if sep and name.strip() == API_KEY_ENV:
            return value.strip().strip("'\"") or None
    return None


class ChatClient:
    """Chat completions from an OpenAI-compatible endpoint, with retries, a ledger and a cap.

    Args:
        model: the model name the server knows (``--model`` of vLLM / llama.cpp).
        base_url: the endpoint, e.g. ``http://localhost:8000/v1``.
        api_key: None: ``OPENAI_API_KEY`` or ``.env``, else a placeholder (local servers take
            any key).
        timeout: seconds one attempt may take before it counts as a timeout.
        max_retries: attempts after the first on 429 / 5xx / timeouts / connection errors.
        backoff: base delay in seconds; attempt ``k`` (from 0) waits a uniform random time in
            ``[0, min(backoff_max, backoff * 2**k)]`` (full jitter), at least a server's
            ``Retry-After``.
        price_in, price_out: USD per million prompt / completion tokens (cost = 0 without).
        max_cost: USD; no request is sent once the ledger's cost reaches it.
        temperature, max_tokens, seed: passed to every request.
        sleep: the waiting function (tests pass a recorder).
    """

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        *,
        api_key: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 6,
        backoff: float = 1.0,
        backoff_max: float = 30.0,
        price_in: float = 0.0,
        price_out: float = 0.0,
        max_cost: float | None = None,
        temperature: float = 0.0,
        max_tokens: int | None = 1024,
        seed: int | None = 0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not model or model == MISSING:
            raise ValueError("model must name the served model (e.g. --model Qwen2.5-7B-Instruct)")
        base_url = base_url or os.environ.get(BASE_URL_ENV) or None
        if base_url is None or base_url == MISSING:
            raise ValueError(
                "base_url must name the endpoint the texts are sent to, e.g. "
                f"http://localhost:8000/v1 (or set {BASE_URL_ENV}); nothing is sent to a "
                "hosted API unless it is named — for OpenAI's, https://api.openai.com/v1"
            )
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must start with http:// or https://, got {base_url!r}")
        # checked here, not by the server: a bad value fails every request with HTTP 400, or
        # later with a TypeError far from the option
        for name, value in (("timeout", timeout), ("backoff_max", backoff_max)):
            _check_option(name, value, minimum=0, above=True)
        for name, value in (
            ("backoff", backoff),
            ("price_in", price_in),
            ("price_out", price_out),
            ("temperature", temperature),
        ):
            _check_option(name, value, minimum=0)
        _check_option("max_cost", max_cost, minimum=0, optional=True)
        _check_option("max_retries", max_retries, minimum=0, whole=True)
        _check_option("max_tokens", max_tokens, minimum=1, whole=True, optional=True)
        _check_option("seed", seed, whole=True, optional=True)
        if max_cost is not None and max_cost > 0 and price_in == 0 and price_out == 0:
            raise ValueError(
                "max_cost needs prices to count against: give price_in / price_out (USD per "
                "million prompt / completion tokens, --price-in / --price-out)"
            )
        try:
            import openai
        except ImportError as err:
            raise ImportError(
                "the LLM regime needs the openai client: pip install 'enoki-hd[llm]'"
            ) from err
        self._openai = openai
        self.model = model
        self.base_url = base_url
        self.timeout = float(timeout)
        self.max_retries = int(max_retries)
        self.backoff = float(backoff)
        self.backoff_max = float(backoff_max)
        self.price_in = float(price_in)
        self.price_out = float(price_out)
        self.max_cost = max_cost
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.seed = seed
        self.ledger = TokenLedger()
        # once the endpoint refused a request, the others are not sent (they would fail alike)
        self.refused: EndpointRefused | None = None
        self._sleep = sleep
        self._client = openai.OpenAI(
            api_key=api_key or load_api_key() or NO_KEY,
            base_url=base_url,
            timeout=self.timeout,
            max_retries=0,
        )

    def config(self) -> dict[str, Any]:
        """Every option that can change a completion (no key, no retry policy)."""
        return {
            "model": self.model,
            "base_url": self.base_url,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "seed": self.seed,
        }

    def cost_of(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.price_in + completion_tokens * self.price_out) / 1e6

    def check_budget(self) -> None:
        """Raise :class:`CostCapReached` when the ledger's cost has reached ``max_cost``."""
        if self.max_cost is not None and self.ledger.cost >= self.max_cost:
            raise CostCapReached(
                f"cost cap reached: spent ${self.ledger.cost:.4f} of max_cost ${self.max_cost}"
            )
        if self.max_cost is not None and self.ledger.unmetered:
            raise CostCapReached(
                f"the endpoint answered {self.ledger.unmetered} request(s) without token usage, so "
                f"max_cost ${self.max_cost} cannot be kept; drop --max-cost (and watch the "
                "spending on the provider's side) or use a server that reports usage"
            )

    def complete(self, messages: Sequence[dict[str, str]]) -> Completion:
        """One chat completion of ``messages`` (``{"role", "content"}`` dicts).

        Raises:
            CostCapReached: the cap was reached before this request.
            EndpointRefused: HTTP 401 / 403 / 404 (a wrong key, model or URL), now or on an
                earlier request of this client.
            LLMError: every attempt failed, or the server refused the request (4xx other
                than 429), or answered without a completion text (the error shows, shortened,
                what came back instead).
        """
        retries = 0
        while True:
            if self.refused is not None:
                raise EndpointRefused(str(self.refused))
            self.check_budget()
            try:
                omit = self._openai.omit  # leave an option out of the request body
                response = self._client.chat.completions.create(
                    model=self.model,
                    messages=cast(Any, list(messages)),
                    temperature=self.temperature,
                    max_tokens=omit if self.max_tokens is None else self.max_tokens,
                    seed=omit if self.seed is None else self.seed,
                )
            except Exception as err:
                delay = self._retry_delay(err, retries)
                if delay is None:
                    self.ledger.add(Usage(requests=retries + 1, retries=retries))
                    where = self.base_url
                    if getattr(err, "status_code", None) in _REFUSED:
                        self.refused = EndpointRefused(
                            f"{where}: {_describe(err)}; check the key (OPENAI_API_KEY or .env), "
                            f"the model name ({self.model!r}) and the base URL"
                        )
                        raise self.refused from err
                    if _unreachable(self._openai, err):
                        # every request would wait out its retries alike: stop them all
                        self.refused = EndpointRefused(
                            f"{where}: {_describe(err)} after {retries + 1} attempt(s); is the "
                            "server up, and the base URL (host, port, /v1) right?"
                        )
                        raise self.refused from err
                    raise LLMError(f"{where}: {_describe(err)}") from err
                logger.info(
                    "attempt %d failed (%s); retrying in %.2f s", retries + 1, _describe(err), delay
                )
                self._sleep(delay)
                retries += 1
                continue
            usage = getattr(response, "usage", None)
            prompt = int(getattr(usage, "prompt_tokens", 0) or 0)
            completion = int(getattr(usage, "completion_tokens", 0) or 0)
            spent = Usage(
                prompt, completion, retries + 1, retries, self.cost_of(prompt, completion)
            )
            self.ledger.add(spent, metered=usage is not None)
            choices = getattr(response, "choices", None) or []
            message = getattr(choices[0], "message", None) if choices else None
            text = getattr(message, "content", None)
            if text is not None and not isinstance(text, str):
                raise LLMError(
                    f"{self.base_url}: a completion whose content is {type(text).__name__}, "
                    f"not text: {_shortened(text)}"
                )
            if text is None:
                # an HTML page, an {"error": ...} body, a choice without a message
                raise LLMError(
                    f"{self.base_url}: a reply without a completion message: {_shortened(response)}"
                )
            finish_reason = getattr(choices[0], "finish_reason", None)
            if finish_reason == "content_filter":
                # what is left is part of an answer, or none: never "no facts" nor a verdict
                raise LLMError(
                    f"{self.base_url}: the provider's content filter withheld the completion "
                    "(finish_reason 'content_filter')"
                )
            if finish_reason == "length":
                raise LLMError(
                    f"{self.base_url}: the completion was cut at max_tokens={self.max_tokens} "
                    "(finish_reason 'length'); raise max_tokens (--max-tokens) so that whole "
                    "answers fit"
                )
            return Completion(text, spent)

    def _retry_delay(self, err: Exception, retries: int) -> float | None:
        """Seconds to wait before the next attempt, or None when ``err`` is final."""
        openai = self._openai
        if retries >= self.max_retries:
            return None
        transient = isinstance(err, (openai.APITimeoutError, openai.APIConnectionError))
        # a body cut short in transit ("Expecting ',' delimiter"): worth another attempt
        transient = transient or isinstance(
            err, (json.JSONDecodeError, openai.APIResponseValidationError)
        )
        retry_after = 0.0
        if isinstance(err, openai.APIStatusError):
            transient = err.status_code == 429 or err.status_code >= 500
            retry_after = _retry_after_seconds(err.response.headers.get("retry-after"))
        if not transient:
            return None
        if retry_after > RETRY_AFTER_MAX:
            return None  # the server asks for a longer pause than a job should sit through
        ceiling = min(self.backoff_max, self.backoff * 2**retries)
        return max(retry_after, random.uniform(0.0, ceiling))


def _check_option(
    name: str,
    value: object,
    *,
    minimum: float | None = None,
    above: bool = False,
    whole: bool = False,
    optional: bool = False,
) -> None:
    """Raise ValueError naming the option ``name`` unless ``value`` is a finite number (an
    integer when ``whole``; a bool is none) of at least ``minimum`` (above it when ``above``);
    None passes when ``optional``."""
    if value is None and optional:
        return
    expected = "a whole number" if whole else "a finite number"
    if minimum is not None:
        expected += f" {'>' if above else '>='} {minimum:g}"
    expected += " or None" if optional else ""
    ok = isinstance(value, int if whole else (int, float)) and not isinstance(value, bool)
    if ok and not whole:
        ok = math.isfinite(cast(float, value))
    if ok and minimum is not None:
        ok = cast(float, value) > minimum if above else cast(float, value) >= minimum
    if not ok:
        raise ValueError(f"{name} must be {expected}, got {value!r}")


def _shortened(value: object, limit: int = 300) -> str:
    """``value`` (a parsed reply, or the body text when it was no JSON) as one line of at most
    ``limit`` characters, for an error message."""
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        value = dump(exclude_unset=True)
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _retry_after_seconds(value: str | None) -> float:
    """A ``Retry-After`` header in seconds: delta-seconds or an HTTP date (0 when absent or
    unreadable)."""
    if not value:
        return 0.0
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return 0.0
    if when.tzinfo is None:
        when = when.replace(tzinfo=datetime.timezone.utc)
    return max(0.0, (when - datetime.datetime.now(datetime.timezone.utc)).total_seconds())


def _unreachable(openai: Any, err: Exception) -> bool:
    """A connection that could not be made (refused, no such host), not a timeout."""
    return isinstance(err, openai.APIConnectionError) and not isinstance(
        err, openai.APITimeoutError
    )


def _describe(err: Exception) -> str:
    """The error's type, HTTP status and the server's own explanation (or the cause of a
    connection error: "Connection refused", "Name or service not known")."""
    status = getattr(err, "status_code", None)
    name = type(err).__name__
    if status is not None:
        detail = _server_message(err)
        return f"{name} (HTTP {status})" + (f": {detail}" if detail else "")
    cause = err.__cause__ or err.__context__
    while cause is not None and (cause.__cause__ or cause.__context__) is not None:
        cause = cause.__cause__ or cause.__context__
    reason = f" ({cause})" if cause is not None and str(cause) else ""
    return f"{name}: {err}{reason}"


def _server_message(err: Exception) -> str:
    body = getattr(err, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        message = inner.get("message") if isinstance(inner, dict) else inner
        if message:
            return " ".join(str(message).split())[:300]
    message = getattr(err, "message", "")
    return " ".join(str(message).split())[:300]


def client_for(
    client: ChatClient | None, model: str | None, base_url: str | None, *, node: str, **options: Any
) -> ChatClient:
    """``client`` when given, else a new :class:`ChatClient` of ``model`` at ``base_url``;
    ``node`` names the config node (``extractor``, ``judge``) the error tells the user to set."""
    if client is not None:
        return client
    if not model or model == MISSING:
        raise ValueError(
            f"the llm {node} needs model=<served model name> and base_url=<endpoint>, e.g. "
            f"{node}.model=Qwen2.5-7B-Instruct {node}.base_url=http://localhost:8000/v1"
        )
    return ChatClient(model, base_url, **options)
