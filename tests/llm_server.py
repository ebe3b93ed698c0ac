"""A scripted OpenAI-compatible chat server on 127.0.0.1, for the LLM regime's tests.

``ScriptedLLM`` serves ``POST /v1/chat/completions`` from a real ``http.server`` in a thread.
Routes map a substring of the last user message to a list of :class:`Step`: the k-th request
that matches a route gets its k-th step (the last one repeats). A step answers with a status
(429 and 500 with an OpenAI-style error body), a completion text with token usage, or hangs
for ``delay`` seconds first. Requests are recorded for the tests to count.

Run it by hand to point ``enoki teach`` at it::

    python tests/llm_server.py  # prints its base URL and serves until Ctrl-C
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Step:
    """One scripted reply: HTTP ``status``, the completion ``text`` (200 only), the usage it
    reports, seconds to wait before answering, extra headers."""

    text: str = ""
    status: int = 200
    delay: float = 0.0
    prompt_tokens: int = 100
    completion_tokens: int = 20
    headers: dict[str, str] = field(default_factory=dict)
    finish_reason: str = "stop"
    usage: bool = True  # False: a server that reports no token usage
    body: str | None = None  # the raw reply body instead of a completion (a broken server)
    content_type: str = "application/json"


def lines(*triples: tuple[str, str, str]) -> str:
    """JSON lines of triples, as a well-behaved model answers."""
    return "\n".join(json.dumps({"subject": s, "relation": r, "object": o}) for s, r, o in triples)


class ScriptedLLM:
    """The server; use as a context manager (``with ScriptedLLM() as llm: llm.url``)."""

    def __init__(self, default: Step | Callable[[str], Step] | None = None) -> None:
        self.routes: list[tuple[str, list[Step]]] = []
        self.default = default or Step("")
        self.requests: list[dict[str, Any]] = []
        self.hits: Counter[str] = Counter()
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                step = server._step(body)
                if step.delay:
                    time.sleep(step.delay)
                if step.status == 200:
                    payload: dict[str, Any] = {
                        "id": "chatcmpl-test",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body.get("model", ""),
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": step.text},
                                "finish_reason": step.finish_reason,
                            }
                        ],
                    }
                    if step.usage:
                        payload["usage"] = {
                            "prompt_tokens": step.prompt_tokens,
                            "completion_tokens": step.completion_tokens,
                            "total_tokens": step.prompt_tokens + step.completion_tokens,
                        }
                else:
                    payload = {"error": {"message": f"scripted {step.status}", "type": "test"}}
                data = (json.dumps(payload) if step.body is None else step.body).encode()
                try:
                    self.send_response(step.status)
                    self.send_header("Content-Type", step.content_type)
                    self.send_header("Content-Length", str(len(data)))
                    for key, value in step.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def route(self, key: str, *steps: Step | str) -> ScriptedLLM:
        """Requests whose last user message contains ``key`` get ``steps`` in turn (a str is a
        200 reply with that text)."""
        self.routes.append((key, [Step(s) if isinstance(s, str) else s for s in steps]))
        return self

    def _step(self, body: dict[str, Any]) -> Step:
        user = [m["content"] for m in body.get("messages", []) if m.get("role") == "user"]
        message = user[-1] if user else ""
        with self._lock:
            self.requests.append(body)
            for key, steps in self.routes:
                if key in message:
                    k = self.hits[key]
                    self.hits[key] += 1
                    return steps[min(k, len(steps) - 1)]
        return self.default(message) if callable(self.default) else self.default

    def count(self, key: str) -> int:
        """Requests so far whose last user message contains ``key``."""
        with self._lock:
            return sum(
                key in [m["content"] for m in r["messages"] if m["role"] == "user"][-1]
                for r in self.requests
            )

    def __enter__(self) -> ScriptedLLM:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def echo(message: str) -> Step:
    """A toy model for trying ``enoki teach`` by hand: the sentence's first word is the
    subject, its second the relation, the rest the object."""
    words = message.split("Sentence: ")[-1].strip().rstrip(".").split()
    if len(words) < 3:
        return Step("")
    return Step(lines((words[0], words[1], " ".join(words[2:]))))


def ctrl_c_during_the_first_request(delay: float = 1.0) -> Callable[[str], Step]:
    """A default reply taking ``delay`` seconds that sends this process SIGINT (Ctrl-C) 0.2 s
    into the first request."""
    sent = threading.Event()

    def reply(message: str) -> Step:
        if not sent.is_set():
            sent.set()
            threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT)).start()
        return Step("", delay=delay)

    return reply


if __name__ == "__main__":
    with ScriptedLLM(echo) as llm:
        print(llm.url, flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
