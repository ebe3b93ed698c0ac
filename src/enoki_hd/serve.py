"""``enoki serve``: detection over HTTP (FastAPI + uvicorn) with Prometheus metrics.

Endpoints:

- ``POST /detect`` — one example ``{"answer", "context", "question"?}`` (``context`` a
  string or a list of passages) → its report (``Report.to_dict()``), or a batch ``{"examples": [...]}`` → ``{"reports": [...]}``;
- ``GET /health`` — ``{"status": "ok", "version", "verifier", "extractor", "pending"}``;
- ``GET /metrics`` — Prometheus text format (see :class:`Metrics`).

Limits, each answered with a JSON error ``{"error": {"type", "message", "field"?}}``: a body
over ``max_body_bytes`` → 413; not JSON → 400; a missing or non-string field, or more than
``max_batch`` examples → 422 naming the field (``examples[3].context``); more than
``max_pending`` requests admitted → 503 with ``Retry-After``; a request not answered within
``timeout_s`` → 504 (its detection finishes in the background and is not counted twice);
a verifier failure → 500 ``verifier_error`` (never a verdict).

One detector serves every request, one detection at a time on a dedicated thread (the ONNX
sessions use the cores in parallel); requests beyond that wait in line up to ``max_pending``.

FastAPI, uvicorn and prometheus-client are the ``serve`` extra (``pip install
"enoki-hd[serve]"``); this module imports them when an app is created.
"""

# No ``from __future__ import annotations``: FastAPI reads the endpoints' annotations
# (``request: Request``) at definition time, and fastapi is imported inside create_app.
import asyncio
import contextlib
import json
import logging
import math
import socket
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from enoki_hd import __version__
from enoki_hd.batch import DetectorSpec, build_detector, validate_example
from enoki_hd.runtime.heap import settle_heap

logger = logging.getLogger(__name__)

HALLUCINATED_LABELS = ("contradicted", "unverifiable")
LATENCY_BUCKETS = (0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


@dataclass(frozen=True)
class ServeSettings:
    """Limits of the service (``enoki serve --max-body-bytes ... --timeout ...``).

    ``rate_window``: verdicts (and answers) in the rolling ``enoki_hallucination_rate`` gauge.
    """

    max_body_bytes: int = 2_000_000
    max_batch: int = 32
    max_pending: int = 32
    timeout_s: float = 30.0
    rate_window: int = 1000

    def check(self, names: Mapping[str, str] | None = None) -> None:
        """Raises ValueError naming the setting that is out of range as ``names`` spells it
        (``enoki serve`` passes its options), else by its field name."""
        names = names or {}
        for field in ("max_body_bytes", "max_batch", "max_pending", "rate_window"):
            if getattr(self, field) < 1:
                raise ValueError(
                    f"{names.get(field, field)} must be >= 1, got {getattr(self, field)}"
                )
        # nan compares false with everything, so `<= 0` alone lets it (and inf) through
        if not math.isfinite(self.timeout_s) or self.timeout_s <= 0:
            raise ValueError(
                f"{names.get('timeout_s', 'timeout_s')} must be a finite number of seconds > 0, "
                f"got {self.timeout_s}"
            )


SERVE_EXTRA_HINT = 'enoki serve needs the serve extra: pip install "enoki-hd[serve]"'


def require_serve_extra() -> None:
    """Raises ImportError naming the extra when fastapi, uvicorn or prometheus-client is
    missing (the base install has none of them)."""
    import importlib.util

    missing = [
        name
        for name in ("fastapi", "uvicorn", "prometheus_client")
        if importlib.util.find_spec(name) is None
    ]
    if missing:
        raise ImportError(f"{SERVE_EXTRA_HINT} (missing: {', '.join(missing)})")


class ServiceError(Exception):
    """An error answered as JSON with ``status``."""

    def __init__(self, status: int, kind: str, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.status, self.kind, self.message, self.field = status, kind, message, field

    def body(self) -> dict[str, Any]:
        error: dict[str, Any] = {"type": self.kind, "message": self.message}
        if self.field is not None:
            error["field"] = self.field
        return {"error": error}


class _RollingRate:
    """The share of ``True`` among the last ``size`` observations."""

    def __init__(self, size: int) -> None:
        self.values: deque[bool] = deque(maxlen=size)
        self.hits = 0

    def add(self, value: bool) -> float:
        if len(self.values) == self.values.maxlen and self.values[0]:
            self.hits -= 1
        self.values.append(value)
        self.hits += int(value)
        return self.hits / len(self.values)


class Metrics:
    """The service's Prometheus metrics, in their own registry (one per app):

    - ``enoki_requests_total{endpoint, status}``, ``enoki_request_seconds{endpoint}``;
    - ``enoki_errors_total{type}`` (``invalid_json``, ``invalid_request``, ``too_large``,
      ``overloaded``, ``timeout``, ``verifier_error``, ``internal_error``, and
      ``client_closed``, status 499, for a client gone before its body arrived);
    - ``enoki_answers_total``, ``enoki_flagged_answers_total`` (answers with a hallucinated
      span);
    - ``enoki_verdicts_total{level, label}`` — level ``fact`` or ``sentence``, label as in the
      report: the hallucination rate of any window is a PromQL ratio of these
      (``docs/prometheus-alerts.yml``);
    - ``enoki_hallucination_rate{level}`` — contradicted + unverifiable share of the last
      ``rate_window`` checked verdicts (``fact``, ``sentence``) or answers flagged
      (``answer``), for a dashboard without PromQL;
    - ``enoki_pending_requests`` — admitted, not yet answered.
    """

    def __init__(self, rate_window: int) -> None:
        from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

        self.registry = CollectorRegistry()
        r = self.registry
        self.requests = Counter(
            "enoki_requests", "HTTP requests", ["endpoint", "status"], registry=r
        )
        self.latency = Histogram(
            "enoki_request_seconds",
            "request latency",
            ["endpoint"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.errors = Counter("enoki_errors", "errors answered", ["type"], registry=r)
        self.answers = Counter("enoki_answers", "answers checked", registry=r)
        self.flagged = Counter(
            "enoki_flagged_answers", "answers with a hallucinated span", registry=r
        )
        self.verdicts = Counter(
            "enoki_verdicts", "verdicts by level and label", ["level", "label"], registry=r
        )
        self.rate = Gauge(
            "enoki_hallucination_rate",
            "contradicted+unverifiable share of the last rate_window verdicts (answers: flagged)",
            ["level"],
            registry=r,
        )
        self.pending = Gauge("enoki_pending_requests", "requests admitted", registry=r)
        self._rolling = {
            level: _RollingRate(rate_window) for level in ("fact", "sentence", "answer")
        }
        self._lock = threading.Lock()

    def observe_report(self, report: dict[str, Any]) -> None:
        """Count one report's verdicts and update the rolling rates."""
        with self._lock:
            self.answers.inc()
            flagged = bool(report.get("spans"))
            if flagged:
                self.flagged.inc()
            self.rate.labels("answer").set(self._rolling["answer"].add(flagged))
            for level, items in (("fact", report["facts"]), ("sentence", report["sentences"])):
                for item in items:
                    label = item["label"]
                    self.verdicts.labels(level, label).inc()
                    if label == "supported" or label in HALLUCINATED_LABELS:
                        rate = self._rolling[level].add(label in HALLUCINATED_LABELS)
                        self.rate.labels(level).set(rate)


class DetectorService:
    """The detector behind the app: admission (``max_pending``), one detection thread,
    timeouts, and the metrics of what it found."""

    def __init__(self, detector: Any, settings: ServeSettings) -> None:
        settings.check()
        self.detector = detector
        self.settings = settings
        self.metrics = Metrics(settings.rate_window)
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="enoki-detect")
        self._pending = 0
        self._lock = threading.Lock()

    @property
    def pending(self) -> int:
        return self._pending

    def _admit(self) -> None:
        with self._lock:
            if self._pending >= self.settings.max_pending:
                raise ServiceError(
                    503,
                    "overloaded",
                    f"{self._pending} requests are already waiting (max_pending "
                    f"{self.settings.max_pending}); retry shortly",
                )
            self._pending += 1
            self.metrics.pending.set(self._pending)

    def _release(self) -> None:
        with self._lock:
            self._pending -= 1
            self.metrics.pending.set(self._pending)

    def _detect_all(self, examples: list[dict[str, Any]]) -> list[dict[str, Any]]:
        try:
            reports = []
            for example in examples:
                report = self.detector.detect(**example).to_dict()
                self.metrics.observe_report(report)
                reports.append(report)
            return reports
        finally:
            self._release()  # when the work is done, even if the client has given up

    async def detect(self, examples: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Reports for ``examples`` (validated), run on the detection thread."""
        from enoki_hd.verify.nli import VerifierError

        self._admit()
        try:
            job = self._executor.submit(self._detect_all, examples)
        except BaseException:
            self._release()
            raise
        try:
            # shielded: a timeout or a client gone away must not cancel the job behind
            # asyncio's back; it is cancelled here, and its slot freed, only if it never started
            # (a job that started frees its slot when it ends)
            return await asyncio.wait_for(
                asyncio.shield(asyncio.wrap_future(job)), self.settings.timeout_s
            )
        except asyncio.TimeoutError as err:
            if job.cancel():
                self._release()
            raise ServiceError(
                504, "timeout", f"no answer within {self.settings.timeout_s:g} s"
            ) from err
        except asyncio.CancelledError:
            if job.cancel():
                self._release()
            raise
        except VerifierError as err:
            logger.error("verifier failure: %s", err)
            raise ServiceError(500, "verifier_error", " ".join(str(err).split())) from err
        except (TypeError, ValueError) as err:
            raise ServiceError(422, "invalid_request", str(err)) from err

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)


def parse_request(body: bytes, max_batch: int) -> tuple[list[dict[str, Any]], bool]:
    """``(examples, is_batch)`` from a request body.

    Raises:
        ServiceError: 400 for a body that is not JSON, 422 naming the field otherwise.
    """
    try:
        value = json.loads(body)
    except (ValueError, RecursionError) as err:  # also numbers too long, nesting too deep
        raise ServiceError(400, "invalid_json", f"the body is not valid JSON: {err}") from err
    if not isinstance(value, dict):
        raise ServiceError(
            422, "invalid_request", f"expected a JSON object, got {type(value).__name__}"
        )
    if "examples" not in value:
        example, error = validate_example(value)
        if error is not None:
            raise ServiceError(422, "invalid_request", error["message"], error["field"])
        assert example is not None
        return [example], False
    items = value["examples"]
    if not isinstance(items, list) or not items:
        raise ServiceError(
            422, "invalid_request", "must be a non-empty list of examples", "examples"
        )
    if len(items) > max_batch:
        raise ServiceError(
            422,
            "invalid_request",
            f"{len(items)} examples, at most {max_batch} per request (max_batch)",
            "examples",
        )
    examples = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise ServiceError(
                422,
                "invalid_request",
                f"expected an object, got {type(item).__name__}",
                f"examples[{i}]",
            )
        example, error = validate_example(item)
        if error is not None:
            raise ServiceError(
                422, "invalid_request", error["message"], f"examples[{i}].{error['field']}"
            )
        assert example is not None
        examples.append(example)
    return examples, True


def create_app(detector: Any, settings: ServeSettings | None = None) -> Any:
    """The FastAPI app over ``detector`` (a built detector, or a :data:`DetectorSpec` —
    a ``Detector.from_config`` mapping or a factory — built now).

    Raises:
        ImportError: the serve extra is not installed (the message says how to install it).
    """
    require_serve_extra()
    from fastapi import FastAPI, Request
    from fastapi.responses import JSONResponse, Response
    from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
    from starlette.requests import ClientDisconnect

    settings = settings or ServeSettings()
    if isinstance(detector, Mapping) or (callable(detector) and not hasattr(detector, "detect")):
        detector = build_detector(detector)
    service = DetectorService(detector, settings)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        service.close()

    app = FastAPI(
        title="enoki-hd", version=__version__, docs_url=None, redoc_url=None, lifespan=lifespan
    )
    app.state.service = service
    metrics = service.metrics

    def error_response(err: ServiceError, endpoint: str) -> JSONResponse:
        metrics.errors.labels(err.kind).inc()
        metrics.requests.labels(endpoint, str(err.status)).inc()
        headers = {"Retry-After": "1"} if err.status == 503 else None
        return JSONResponse(err.body(), status_code=err.status, headers=headers)

    async def read_body(request: Request) -> bytes:
        limit = settings.max_body_bytes
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            raise ServiceError(
                413, "too_large", f"the body has {declared} bytes, at most {limit} (max_body_bytes)"
            )
        chunks, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise ServiceError(
                    413, "too_large", f"the body exceeds {limit} bytes (max_body_bytes)"
                )
            chunks.append(chunk)
        return b"".join(chunks)

    @app.post("/detect")
    async def detect(request: Request) -> Response:
        started = time.perf_counter()
        try:
            examples, is_batch = parse_request(await read_body(request), settings.max_batch)
            reports = await service.detect(examples)
        except ServiceError as err:
            return error_response(err, "/detect")
        except ClientDisconnect:
            # the client (or a proxy timing it out) left before its body arrived: no server
            # error, so neither a traceback nor an internal_error for the alert to count
            logger.info("a client closed its connection before sending the whole body")
            disconnect = ServiceError(499, "client_closed", "the body was not sent in full")
            return error_response(disconnect, "/detect")
        except Exception as err:  # answered as JSON, logged with its traceback
            logger.exception("detect failed")
            return error_response(ServiceError(500, "internal_error", str(err)), "/detect")
        finally:
            metrics.latency.labels("/detect").observe(time.perf_counter() - started)
        metrics.requests.labels("/detect", "200").inc()
        return JSONResponse({"reports": reports} if is_batch else reports[0])

    @app.get("/health")
    async def health() -> dict[str, Any]:
        metrics.requests.labels("/health", "200").inc()
        config = detector.config() if hasattr(detector, "config") else {}
        verifier = config.get("verifier") or {}
        return {
            "status": "ok",
            "version": __version__,
            "verifier": verifier.get("path") or verifier.get("name"),
            "extractor": config.get("extractor"),
            "pending": service.pending,
        }

    @app.get("/metrics")
    async def prometheus() -> Response:
        return Response(generate_latest(metrics.registry), media_type=CONTENT_TYPE_LATEST)

    @app.exception_handler(404)
    async def not_found(request: Request, exc: Exception) -> JSONResponse:
        return error_response(
            ServiceError(404, "not_found", f"no endpoint {request.url.path}"), "other"
        )

    @app.exception_handler(405)
    async def not_allowed(request: Request, exc: Exception) -> JSONResponse:
        return error_response(
            ServiceError(405, "method_not_allowed", f"{request.method} {request.url.path}"),
            "other",
        )

    return app


def bind_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port`` (port 0: any free one), not yet listening, as
    uvicorn binds one: connections are refused until the server runs. Raises OSError (a port
    in use: ``errno.EADDRINUSE``)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


def run_server(
    detector: DetectorSpec | Any,
    settings: ServeSettings | None = None,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    sock: socket.socket | None = None,
) -> None:
    """Build the detector, warm it up and serve until interrupted.

    ``sock``: :func:`bind_socket` of ``host:port``, bound here when not given. It is bound
    before the warm-up, so a port in use is found at once, not after the models have loaded.
    The warm-up detection loads what the first request would otherwise wait for (spaCy
    pipelines, the ONNX sessions' first runs), so ``/health`` answers only when requests are
    served at full speed.
    """
    import uvicorn

    if sock is None:
        sock = bind_socket(host, port)
    with sock:
        app = create_app(detector, settings)
        app.state.service.detector.detect(
            answer="The service is warming up.", context="The service is warming up for requests."
        )
        settle_heap()  # the loaded models out of every later garbage-collector pass
        config = uvicorn.Config(app, host=host, port=port, log_level="info", timeout_keep_alive=5)
        sock.listen(config.backlog)
        # uvicorn announces only the addresses it binds itself
        address = f"[{host}]" if ":" in host else host
        logging.getLogger("uvicorn.error").info(
            "Uvicorn running on http://%s:%d (Press CTRL+C to quit)",
            address,
            sock.getsockname()[1],
        )
        # Ctrl+C ends in a graceful shutdown, after which uvicorn re-raises the signal
        with contextlib.suppress(KeyboardInterrupt):
            uvicorn.Server(config).run(sockets=[sock])
