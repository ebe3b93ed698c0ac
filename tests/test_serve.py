"""enoki serve: /detect (one and a batch), /health, /metrics, limits and JSON errors, a small
load test against a real uvicorn server on 127.0.0.1."""

from __future__ import annotations

import http.client
import json
import re
import socket
import statistics
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from detector_fakes import DELAY_ENV, lexical_detector
from fakes import FailingVerifier

from enoki_hd.detector import Detector
from enoki_hd.verify.loading import default_verifier_path

pytest.importorskip("fastapi", reason="the serve extra is not installed (make install adds it)")
pytest.importorskip("prometheus_client")
uvicorn = pytest.importorskip("uvicorn")
from fastapi.testclient import TestClient  # noqa: E402

from enoki_hd.serve import ServeSettings, create_app  # noqa: E402

CONTEXT = "Marie Curie was born in Warsaw. She won the Nobel Prize in Physics in 1903."
WRONG = {"answer": "Marie Curie was born in Paris.", "context": CONTEXT}
RIGHT = {"answer": "Marie Curie was born in Warsaw.", "context": CONTEXT, "question": "Where?"}


def metric(text: str, name: str, **labels: str) -> float:
    """The value of one sample in Prometheus text format (0 when absent)."""
    want = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
    for line in text.splitlines():
        match = re.match(r"^([a-z_]+)(?:\{(.*)\})? (\S+)$", line)
        if match and match.group(1) == name:
            got = ",".join(sorted((match.group(2) or "").split(","))) if match.group(2) else ""
            if got == want:
                return float(match.group(3))
    return 0.0


@pytest.fixture
def client() -> Iterator[TestClient]:
    app = create_app(lexical_detector(), ServeSettings(max_body_bytes=4000, max_batch=3))
    with TestClient(app) as test_client:
        yield test_client


def test_detect_one_and_a_batch_and_the_metrics_they_move(client: TestClient) -> None:
    one = client.post("/detect", json=WRONG)
    assert one.status_code == 200
    assert [s["text"] for s in one.json()["spans"]] == ["Paris"]
    batch = client.post("/detect", json={"examples": [WRONG, RIGHT]})
    assert batch.status_code == 200
    reports = batch.json()["reports"]
    assert [len(r["spans"]) for r in reports] == [1, 0]
    assert reports[1]["question"] == "Where?"

    health = client.get("/health").json()
    assert health["status"] == "ok" and health["pending"] == 0
    assert health["verifier"] == "lexical-fake"

    text = client.get("/metrics").text
    assert metric(text, "enoki_requests_total", endpoint="/detect", status="200") == 2
    assert metric(text, "enoki_answers_total") == 3
    assert metric(text, "enoki_flagged_answers_total") == 2
    assert metric(text, "enoki_request_seconds_count", endpoint="/detect") == 2
    facts = [f["label"] for r in [one.json(), *reports] for f in r["facts"]]
    for label in set(facts):
        assert metric(text, "enoki_verdicts_total", level="fact", label=label) == facts.count(label)
    hallucinated = sum(label != "supported" for label in facts)
    assert metric(text, "enoki_hallucination_rate", level="fact") == pytest.approx(
        hallucinated / len(facts)
    )
    assert metric(text, "enoki_hallucination_rate", level="answer") == pytest.approx(2 / 3)


@pytest.mark.parametrize(
    ("body", "status", "kind", "field"),
    [
        (b"{not json", 400, "invalid_json", None),
        (b"[" * 3000, 400, "invalid_json", None),  # nested too deep for the decoder
        (b'{"answer": "a\\ud800", "context": "c"}', 422, "invalid_request", "answer"),
        (b"[1]", 422, "invalid_request", None),
        (json.dumps({"answer": "x"}).encode(), 422, "invalid_request", "context"),
        (json.dumps({"answer": 1, "context": "c"}).encode(), 422, "invalid_request", "answer"),
        (
            json.dumps({"examples": [RIGHT, {"context": "c"}]}).encode(),
            422,
            "invalid_request",
            "examples[1].answer",
        ),
        (json.dumps({"examples": [RIGHT] * 4}).encode(), 422, "invalid_request", "examples"),
        (json.dumps({"examples": []}).encode(), 422, "invalid_request", "examples"),
        (json.dumps({"answer": "a" * 5000, "context": "c"}).encode(), 413, "too_large", None),
    ],
)
def test_errors_are_json_and_name_the_field(
    client: TestClient, body: bytes, status: int, kind: str, field: str | None
) -> None:
    response = client.post("/detect", content=body, headers={"content-type": "application/json"})
    assert response.status_code == status
    error = response.json()["error"]
    assert error["type"] == kind and error["message"]
    assert error.get("field") == field
    text = client.get("/metrics").text
    assert metric(text, "enoki_errors_total", type=kind) == 1
    assert metric(text, "enoki_requests_total", endpoint="/detect", status=str(status)) == 1


def test_chunked_body_over_the_limit_is_413(client: TestClient) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"answer": "'
        for _ in range(10):
            yield b"a" * 1000
        yield b'", "context": "c"}'

    response = client.post("/detect", content=chunks())
    assert response.status_code == 413 and response.json()["error"]["type"] == "too_large"


def test_unknown_path_and_verifier_failure(client: TestClient) -> None:
    missing = client.get("/nope")
    assert missing.status_code == 404 and missing.json()["error"]["type"] == "not_found"
    app = create_app(Detector(FailingVerifier(), sentence_backend="regex"))
    with TestClient(app) as failing:
        response = failing.post("/detect", json=WRONG)
        assert response.status_code == 500
        assert response.json()["error"]["type"] == "verifier_error"
        assert "NaN" in response.json()["error"]["message"]


# -- a real server -------------------------------------------------------------------------


class Server:
    """uvicorn on 127.0.0.1 in a background thread."""

    def __init__(self, app: Any) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> Server:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, dict | str]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            data = None if body is None else json.dumps(body)
            connection.request(method, path, data, {"content-type": "application/json"})
            response = connection.getresponse()
            raw = response.read().decode()
            kind = response.getheader("content-type", "")
            return response.status, json.loads(raw) if "json" in kind else raw
        finally:
            connection.close()


def test_concurrency_limit_and_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    """With max_pending 1, a second request while one runs gets 503; a request slower than
    timeout_s gets 504, and the pending count returns to 0 once its detection ends."""
    monkeypatch.setenv(DELAY_ENV, "0.6")
    app = create_app(lexical_detector(), ServeSettings(max_pending=1, timeout_s=0.3))
    with Server(app) as server, ThreadPoolExecutor(2) as pool:
        first = pool.submit(server.request, "POST", "/detect", WRONG)
        time.sleep(0.1)
        status, body = server.request("POST", "/detect", WRONG)
        assert status == 503 and body["error"]["type"] == "overloaded"
        status, body = first.result()
        assert status == 504 and body["error"]["type"] == "timeout"
        time.sleep(0.6)
        assert server.request("GET", "/health")[1]["pending"] == 0
        monkeypatch.setenv(DELAY_ENV, "0")
        assert server.request("POST", "/detect", RIGHT)[0] == 200


def test_a_queued_request_that_times_out_frees_its_slot(monkeypatch: pytest.MonkeyPatch):
    """A request waiting behind a slow one times out before it starts: its job is cancelled
    and its slot freed, so the server never loses capacity."""
    monkeypatch.setenv(DELAY_ENV, "0.5")
    app = create_app(lexical_detector(), ServeSettings(max_pending=3, timeout_s=0.3))
    with Server(app) as server, ThreadPoolExecutor(2) as pool:
        for _ in range(2):
            slow = pool.submit(server.request, "POST", "/detect", WRONG)
            time.sleep(0.05)
            queued = pool.submit(server.request, "POST", "/detect", RIGHT)
            assert slow.result()[0] == 504 and queued.result()[0] == 504
            time.sleep(0.6)  # the slow job ends; the queued one never ran
            assert server.request("GET", "/health")[1]["pending"] == 0
        monkeypatch.setenv(DELAY_ENV, "0")
        statuses = list(pool.map(lambda _: server.request("POST", "/detect", RIGHT)[0], range(3)))
        assert statuses == [200, 200, 200]
        text = server.request("GET", "/metrics")[1]
        assert metric(text, "enoki_pending_requests") == 0


def test_a_client_gone_before_its_body_arrived_is_no_server_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A client (or a proxy timing it out) that closes its connection mid-body was logged
    with a traceback and counted as a 500 internal_error, which pages the EnokiErrors alert."""
    app = create_app(lexical_detector())
    heads = [
        b"Content-Length: 1000\r\n\r\n" + b'{"answer": ',
        b"Transfer-Encoding: chunked\r\n\r\n" + b'5\r\n{"ans\r\n',
    ]
    with Server(app) as server, caplog.at_level("INFO", logger="enoki_hd.serve"):
        for head in heads:
            with socket.create_connection(("127.0.0.1", server.port)) as client:
                client.sendall(b"POST /detect HTTP/1.1\r\nHost: x\r\n" + head)
                time.sleep(0.2)
        deadline = time.monotonic() + 10
        while True:
            text = server.request("GET", "/metrics")[1]
            assert isinstance(text, str)
            if metric(text, "enoki_errors_total", type="client_closed") == 2:
                break
            assert time.monotonic() < deadline, text
            time.sleep(0.05)
        assert metric(text, "enoki_requests_total", endpoint="/detect", status="499") == 2
        assert metric(text, "enoki_errors_total", type="internal_error") == 0
        assert metric(text, "enoki_requests_total", endpoint="/detect", status="500") == 0
        assert server.request("POST", "/detect", RIGHT)[0] == 200
    assert not [r for r in caplog.records if r.levelname == "ERROR"]


def test_load_200_requests_without_errors() -> None:
    """200 requests from 4 clients against uvicorn: all answered 200, counted once each."""
    app = create_app(lexical_detector())
    latencies: list[float] = []

    def one(i: int) -> int:
        started = time.perf_counter()
        status, _ = server.request("POST", "/detect", WRONG if i % 2 else RIGHT)
        latencies.append(time.perf_counter() - started)
        return status

    with Server(app) as server, ThreadPoolExecutor(4) as pool:
        statuses = list(pool.map(one, range(200)))
        _, text = server.request("GET", "/metrics")
    assert statuses == [200] * 200
    assert isinstance(text, str)
    assert metric(text, "enoki_requests_total", endpoint="/detect", status="200") == 200
    assert metric(text, "enoki_answers_total") == 200
    assert metric(text, "enoki_flagged_answers_total") == 100
    p95 = statistics.quantiles(latencies, n=20)[-1]
    print(f"200 requests: median {statistics.median(latencies):.4f} s, p95 {p95:.4f} s")


@pytest.mark.skipif(
    not (default_verifier_path() / "model.onnx").is_file(), reason="no shipped verifier"
)
def test_shipped_checkpoints_end_to_end() -> None:
    app = create_app({"extractor": "rules"})
    with TestClient(app) as client:
        response = client.post("/detect", json=WRONG)
        assert response.status_code == 200
        report = response.json()
        assert report["config"]["verifier"]["backend"] == "onnx"
        assert [s["text"] for s in report["spans"]] == ["Paris"]
        assert client.get("/health").json()["verifier"].endswith("verifier-minilm")


def test_alert_rules_use_exported_metrics(client: TestClient) -> None:
    """docs/prometheus-alerts.yml parses and every metric it reads is one the service exports."""
    yaml = pytest.importorskip("yaml")
    from pathlib import Path

    rules = yaml.safe_load(
        (Path(__file__).resolve().parents[1] / "docs" / "prometheus-alerts.yml").read_text()
    )
    exprs = " ".join(rule["expr"] for group in rules["groups"] for rule in group["rules"])
    client.post("/detect", json=WRONG)
    client.post("/detect", content=b"{")
    exported = set(re.findall(r"^(enoki_[a-z_]+)", client.get("/metrics").text, re.M))
    used = set(re.findall(r"\b(enoki_[a-z_]+)\b", exprs))
    assert used and used <= exported
    assert any(
        r.get("alert") == "EnokiHallucinationRateRising" for r in rules["groups"][0]["rules"]
    )


def test_cli_serve_options_are_checked() -> None:
    from enoki_hd.cli import main

    with pytest.raises(SystemExit) as exit_info:
        main(["serve", "--max-pending", "0"])
    assert exit_info.value.code == 2


def test_missing_serve_extra_is_a_clear_usage_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    import importlib.util

    from enoki_hd.cli import main

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "uvicorn" else real(name, *a)
    )
    with pytest.raises(SystemExit) as exit_info:
        main(["serve"])
    assert exit_info.value.code == 2
    assert 'pip install "enoki-hd[serve]"' in capsys.readouterr().err
