"""`enoki serve`'s options: out-of-range values and a port in use are one-line usage errors
(exit 2) found before any model loads; a normal start serves and stops on Ctrl+C."""

from __future__ import annotations

import http.client
import json
import math
import os
import signal
import socket
import subprocess
import sys

import pytest

from enoki_hd import serve
from enoki_hd.cli import main
from enoki_hd.verify.loading import default_verifier_path

pytest.importorskip("fastapi", reason="the serve extra is not installed (make install adds it)")
pytest.importorskip("prometheus_client")
pytest.importorskip("uvicorn")


def _never_serve(*args: object, **kwargs: object) -> None:
    raise AssertionError("the server started despite a bad option")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--port", "99999"], "argument --port: must be in [0, 65535], got 99999"),
        (["--port", "-1"], "argument --port: must be in [0, 65535], got -1"),
        (
            ["--timeout", "nan"],
            "argument --timeout: must be a finite number of seconds > 0, got nan",
        ),
        (
            ["--timeout", "inf"],
            "argument --timeout: must be a finite number of seconds > 0, got inf",
        ),
        (["--timeout", "0"], "argument --timeout: must be a finite number of seconds > 0, got 0.0"),
        (["--max-body-bytes", "0"], "argument --max-body-bytes: must be >= 1, got 0"),
        (["--max-batch", "-3"], "argument --max-batch: must be >= 1, got -3"),
        (["--max-pending", "0"], "argument --max-pending: must be >= 1, got 0"),
    ],
)
def test_out_of_range_options_are_usage_errors(
    options: list[str],
    message: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture,
) -> None:
    monkeypatch.setattr(serve, "run_server", _never_serve)
    with pytest.raises(SystemExit) as exit_info:
        main(["serve", *options])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err == f"enoki serve: error: {message}\n"


def test_a_port_in_use_is_a_usage_error_before_the_models_load(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    # exit 3 (uvicorn's startup failure) would read as "faithfulness below --fail-under"
    monkeypatch.setattr(serve, "run_server", _never_serve)
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        with pytest.raises(SystemExit) as exit_info:
            main(["serve", "--port", str(port)])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err == (
        f"enoki serve: error: argument --port: 127.0.0.1:{port} is already in use; pick "
        "another --port (0: any free one) or stop the server on it\n"
    )


def test_a_host_that_cannot_be_bound_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.setattr(serve, "run_server", _never_serve)
    with pytest.raises(SystemExit) as exit_info:
        main(["serve", "--host", "no-such-host.invalid", "--port", "0"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(
        "enoki serve: error: argument --host/--port: cannot listen on no-such-host.invalid:0 ("
    )
    assert err.count("\n") == 1


@pytest.mark.parametrize("timeout", [math.nan, math.inf, -1.0, 0.0])
def test_settings_refuse_a_timeout_that_is_not_a_positive_number(timeout: float) -> None:
    with pytest.raises(ValueError, match=r"^timeout_s must be a finite number of seconds > 0"):
        serve.ServeSettings(timeout_s=timeout).check()


def test_bind_socket_binds_without_listening() -> None:
    # connections are refused until the server runs, so /health answers only once it serves
    sock = serve.bind_socket("127.0.0.1", 0)
    with sock:
        port = sock.getsockname()[1]
        assert port > 0
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), timeout=5).close()


@pytest.mark.skipif(
    not (default_verifier_path() / "model.onnx").is_file(), reason="no shipped verifier"
)
def test_serve_answers_health_and_stops_on_ctrl_c() -> None:
    server = subprocess.Popen(
        [sys.executable, "-m", "enoki_hd.cli", "serve", "--port", "0"],
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ | {"OMP_NUM_THREADS": "1"},
    )
    try:
        assert server.stderr is not None
        line = ""
        while "Uvicorn running on http://127.0.0.1:" not in line:
            line = server.stderr.readline()
            assert line, f"enoki serve exited with {server.wait()} before serving"
        port = int(line.split("127.0.0.1:")[1].split()[0])
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        connection.request("GET", "/health")
        response = connection.getresponse()
        assert response.status == 200
        assert json.loads(response.read())["status"] == "ok"
        connection.close()
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=60) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
