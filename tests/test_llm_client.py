"""The chat client against a real local HTTP server: retries with backoff on 429 / 5xx /
timeouts, no retry on other errors, the token ledger, the cost cap and the key lookup."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

pytest.importorskip("openai")

from llm_server import ScriptedLLM, Step

from enoki_hd.llm import ChatClient, CostCapReached, LLMError, load_api_key

MESSAGES = [{"role": "user", "content": "ping"}]


def client(url: str, sleeps: list[float], **options) -> ChatClient:
    options = {"timeout": 5.0, "max_retries": 3, "backoff": 0.5, **options}
    return ChatClient("test-model", url, api_key="k", sleep=sleeps.append, **options)


def test_429_then_success_retries_once_with_jittered_backoff() -> None:
    sleeps: list[float] = []
    with ScriptedLLM() as llm:
        llm.route("ping", Step(status=429), Step(status=429), Step("pong", prompt_tokens=7))
        chat = client(llm.url, sleeps, price_in=1.0, price_out=2.0)
        completion = chat.complete(MESSAGES)
        assert llm.count("ping") == 3
    assert completion.text == "pong"
    assert (completion.usage.requests, completion.usage.retries) == (3, 2)
    # full jitter: attempt k waits in [0, backoff * 2**k]
    assert len(sleeps) == 2 and 0 <= sleeps[0] <= 0.5 and 0 <= sleeps[1] <= 1.0
    total = chat.ledger.total
    assert (total.prompt_tokens, total.completion_tokens, total.requests) == (7, 20, 3)
    assert total.cost == pytest.approx((7 * 1.0 + 20 * 2.0) / 1e6)


def test_retry_after_is_honoured() -> None:
    sleeps: list[float] = []
    with ScriptedLLM() as llm:
        llm.route("ping", Step(status=429, headers={"Retry-After": "2"}), Step("pong"))
        client(llm.url, sleeps).complete(MESSAGES)
    assert sleeps == [2.0]


def test_a_500_storm_gives_up_after_max_retries() -> None:
    sleeps: list[float] = []
    with ScriptedLLM() as llm:
        llm.route("ping", Step(status=500))
        chat = client(llm.url, sleeps, max_retries=3)
        with pytest.raises(LLMError, match="HTTP 500"):
            chat.complete(MESSAGES)
        assert llm.count("ping") == 4
    assert len(sleeps) == 3
    assert (chat.ledger.total.requests, chat.ledger.total.retries) == (4, 3)


def test_a_400_is_not_retried() -> None:
    sleeps: list[float] = []
    with ScriptedLLM() as llm:
        llm.route("ping", Step(status=400), Step("pong"))
        with pytest.raises(LLMError, match="HTTP 400"):
            client(llm.url, sleeps).complete(MESSAGES)
        assert llm.count("ping") == 1
    assert sleeps == []


def test_a_hang_past_the_timeout_is_retried() -> None:
    sleeps: list[float] = []
    with ScriptedLLM() as llm:
        llm.route("ping", Step("late", delay=2.0), Step("pong"))
        completion = client(llm.url, sleeps, timeout=0.5).complete(MESSAGES)
        assert llm.count("ping") == 2
    assert completion.text == "pong" and completion.usage.retries == 1


def test_the_cost_cap_stops_before_the_next_request() -> None:
    sleeps: list[float] = []
    with ScriptedLLM(Step("ok", prompt_tokens=1000, completion_tokens=0)) as llm:
        # $1 per million prompt tokens: each request costs $0.001
        chat = client(llm.url, sleeps, price_in=1.0, max_cost=0.0025)
        for _ in range(3):
            chat.complete(MESSAGES)
        with pytest.raises(CostCapReached, match=re.escape("spent $0.0030 of max_cost $0.0025")):
            chat.complete(MESSAGES)
        assert len(llm.requests) == 3


def test_bad_options_name_the_field() -> None:
    with pytest.raises(ValueError, match="max_cost needs prices"):
        ChatClient("m", "http://127.0.0.1:1/v1", max_cost=1.0)
    with pytest.raises(ValueError, match="model must name"):
        ChatClient("", "http://127.0.0.1:1/v1")


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("temperature", "hot", "temperature must be a finite number >= 0, got 'hot'"),
        ("temperature", -1, "temperature must be a finite number >= 0, got -1"),
        ("max_tokens", 0, "max_tokens must be a whole number >= 1 or None, got 0"),
        ("timeout", None, "timeout must be a finite number > 0, got None"),
        ("timeout", 0, "timeout must be a finite number > 0, got 0"),
        ("timeout", "abc", "timeout must be a finite number > 0, got 'abc'"),
        ("timeout", float("inf"), "timeout must be a finite number > 0, got inf"),
        ("max_retries", -1, "max_retries must be a whole number >= 0, got -1"),
        ("max_retries", 1.5, "max_retries must be a whole number >= 0, got 1.5"),
        ("seed", "x", "seed must be a whole number or None, got 'x'"),
        ("max_cost", "5", "max_cost must be a finite number >= 0 or None, got '5'"),
    ],
)
def test_a_bad_option_is_refused_when_the_client_is_built(option, value, message) -> None:
    """They were accepted, and every request then failed with HTTP 400 (or a TypeError
    from deep in a request)."""
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        ChatClient("m", "http://127.0.0.1:1/v1", **{option: value})
    ChatClient("m", "http://127.0.0.1:1/v1", max_tokens=None, seed=None, timeout=5)


def test_teach_names_the_flag_of_a_bad_option(capsys) -> None:
    from enoki_hd.cli import main

    for flag, value, message in [
        ("--timeout", "0", "argument --timeout: must be a finite number > 0, got 0.0"),
        ("--max-retries", "-1", "argument --max-retries: must be >= 0, got -1"),
        ("--max-tokens", "0", "argument --max-tokens: must be >= 1, got 0"),
    ]:
        args = ["teach", "--input", __file__, "--out", "o.jsonl", "--model", "m"]
        with pytest.raises(SystemExit) as exit_info:
            main([*args, "--base-url", "http://127.0.0.1:1/v1", flag, value])
        assert exit_info.value.code == 2
        assert capsys.readouterr().err == f"enoki teach: error: {message}\n"


def test_the_key_comes_from_the_environment_else_dotenv(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    env = tmp_path / ".env"
    assert load_api_key(env) is None
    env.write_text("# secrets\nOTHER=1\nexport OPENAI_API_KEY='sk-from-file'\n")
    assert load_api_key(env) == "sk-from-file"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    assert load_api_key(env) == "sk-from-env"


def test_a_401_refuses_this_and_every_later_request() -> None:
    from enoki_hd.llm import EndpointRefused

    sleeps: list[float] = []
    with ScriptedLLM() as llm:
        llm.route("ping", Step(status=401), Step("pong"))
        chat = client(llm.url, sleeps)
        with pytest.raises(EndpointRefused, match=r"HTTP 401.*check the key"):
            chat.complete(MESSAGES)
        with pytest.raises(EndpointRefused):
            chat.complete(MESSAGES)
        assert llm.count("ping") == 1
    assert sleeps == []


def test_an_endpoint_must_be_named(monkeypatch) -> None:
    """Nothing is sent to a hosted API unless it is named: without base_url the openai client
    sent every text to https://api.openai.com/v1."""
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ValueError, match="base_url must name the endpoint"):
        ChatClient("m")
    with pytest.raises(ValueError, match="must start with http:// or https://"):
        ChatClient("m", "localhost:8000/v1")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    assert ChatClient("m").base_url == "http://127.0.0.1:9/v1"


def test_a_completion_cut_at_max_tokens_is_an_error_not_a_row() -> None:
    with ScriptedLLM() as llm:
        llm.route("ping", Step("half an ans", finish_reason="length"))
        with pytest.raises(LLMError, match=r"cut at max_tokens=1024 \(finish_reason 'length'\)"):
            client(llm.url, []).complete(MESSAGES)


def test_a_filtered_completion_is_an_error_not_an_empty_answer() -> None:
    # an empty text read as "no facts" (or half a list read as all of them) was a silent loss
    with ScriptedLLM() as llm:
        llm.route("ping", Step("", finish_reason="content_filter"))
        with pytest.raises(LLMError, match=r"content filter.*finish_reason 'content_filter'"):
            client(llm.url, []).complete(MESSAGES)


def test_a_cost_cap_needs_token_usage() -> None:
    """A server that reports no usage made every request cost $0: the cap never held."""
    with ScriptedLLM() as llm:
        llm.route("ping", Step("pong", usage=False))
        chat = client(llm.url, [], price_in=1.0, price_out=1.0, max_cost=0.01)
        assert chat.complete(MESSAGES).text == "pong"
        with pytest.raises(CostCapReached, match="without token usage"):
            chat.complete(MESSAGES)
        assert llm.count("ping") == 1
        uncapped = client(llm.url, [])
        uncapped.complete(MESSAGES)
        uncapped.complete(MESSAGES)  # no cap: nothing to keep


def test_retry_after_as_a_date_and_beyond_the_longest_wait() -> None:
    from datetime import datetime, timedelta, timezone
    from email.utils import format_datetime

    sleeps: list[float] = []
    later = format_datetime(datetime.now(timezone.utc) + timedelta(seconds=90), usegmt=True)
    with ScriptedLLM() as llm:
        llm.route("ping", Step(status=429, headers={"Retry-After": later}), Step("pong"))
        client(llm.url, sleeps).complete(MESSAGES)
    assert len(sleeps) == 1 and 80 <= sleeps[0] <= 91  # was capped at 30 s
    with ScriptedLLM() as llm:
        llm.route("ping", Step(status=429, headers={"Retry-After": "3600"}))
        with pytest.raises(LLMError, match="HTTP 429"):
            client(llm.url, []).complete(MESSAGES)
        assert llm.count("ping") == 1


def test_errors_carry_the_servers_explanation_and_a_dead_endpoint_stops_every_request() -> None:
    with ScriptedLLM() as llm:
        llm.route("ping", Step(status=400))
        with pytest.raises(LLMError, match=r"HTTP 400\): scripted 400"):
            client(llm.url, []).complete(MESSAGES)
    sleeps: list[float] = []
    dead = client("http://127.0.0.1:9/v1", sleeps, max_retries=2)
    with pytest.raises(LLMError, match=r"Connection error.*is the server up"):
        dead.complete(MESSAGES)
    assert len(sleeps) == 2
    with pytest.raises(LLMError, match="is the server up"):
        dead.complete(MESSAGES)  # at once: no second round of retries
    assert len(sleeps) == 2


def _reply(**choice) -> str:
    return json.dumps({"id": "c", "choices": [{"index": 0, "finish_reason": "stop", **choice}]})


@pytest.mark.parametrize(
    ("body", "content_type", "message"),
    [
        (_reply(), "application/json", 'without a completion message: {"id": "c", "choices"'),
        (
            _reply(message={"role": "assistant", "content": [{"type": "text", "text": "hi"}]}),
            "application/json",
            'content is list, not text: [{"type": "text", "text": "hi"}]',
        ),
        (
            _reply(message={"role": "assistant", "content": 42}),
            "application/json",
            "content is int, not text: 42",
        ),
        (
            "<html><body><h1>502 Bad Gateway</h1></body></html>",
            "text/html",
            "without a completion message: <html><body><h1>502 Bad Gateway</h1></body></html>",
        ),
        (
            json.dumps({"error": {"message": "model overloaded"}}),
            "application/json",
            'without a completion message: {"error": {"message": "model overloaded"}}',
        ),
        ("x" * 1000, "text/plain", "without a completion message: " + "x" * 299 + "…"),
    ],
)
def test_a_reply_without_completion_text_says_what_came_back(
    body: str, content_type: str, message: str
) -> None:
    """A choice without a message was an AttributeError, content that is a list or a number
    was returned as the text, and an HTML page or an error body read only "a completion
    without a message"."""
    with ScriptedLLM() as llm:
        llm.route("ping", Step(body=body, content_type=content_type))
        with pytest.raises(LLMError) as raised:
            client(llm.url, []).complete(MESSAGES)
    assert message in str(raised.value)
