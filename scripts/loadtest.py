"""Load test of ``enoki serve`` on 127.0.0.1 → ``bench/loadtest.json``.

    python scripts/loadtest.py                        # 1,000 requests, 4 clients
    python scripts/loadtest.py --requests 200 --clients 8 --benchmark psiloqa_en50

Starts ``enoki serve`` (the shipped models) in a subprocess, sends ``--warmup`` requests, reads
the server's resident memory, sends ``--requests`` requests cycling over the examples of a span
benchmark (the bundled example when ../shared is absent), and reports status counts, latency
percentiles, throughput and the server's memory at the start, at each quarter and at the end.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

ROOT = Path(__file__).resolve().parents[1]


def _examples(benchmark: str | None, shared: str) -> tuple[str, list[dict[str, Any]]]:
    if benchmark:
        try:
            from enoki_hd.eval.datasets import load_benchmark

            bench = load_benchmark(benchmark, shared)
            return bench.name, [
                {"answer": e.answer, "context": e.context, "question": e.question}
                for e in bench.examples
            ]
        except (FileNotFoundError, ImportError, KeyError) as err:
            print(
                f"loadtest: {benchmark} unavailable ({err}); the bundled example", file=sys.stderr
            )
    examples = ROOT / "src" / "enoki_hd" / "examples"
    return "bundled", [
        {
            "answer": (examples / "suede_answer.txt").read_text(),
            "context": (examples / "suede_context.txt").read_text(),
            "question": (examples / "suede_question.txt").read_text().strip(),
        }
    ]


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


def _post(port: int, body: dict[str, Any]) -> tuple[int, float]:
    started = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        connection.request(
            "POST", "/detect", json.dumps(body), {"content-type": "application/json"}
        )
        response = connection.getresponse()
        response.read()
        return response.status, time.perf_counter() - started
    finally:
        connection.close()


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def run(args: argparse.Namespace) -> dict[str, Any]:
    name, examples = _examples(args.benchmark, args.shared)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-m", "enoki_hd.cli", "serve", "--port", str(port)]
    command += ["--max-pending", str(max(32, 2 * args.clients)), "--timeout", "120"]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        started = time.perf_counter()
        while True:
            try:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                connection.request("GET", "/health")
                if connection.getresponse().status == 200:
                    break
            except OSError:
                if server.poll() is not None:
                    raise RuntimeError(server.stderr.read().decode()[-2000:]) from None
                time.sleep(0.2)
        ready_seconds = time.perf_counter() - started
        for i in range(args.warmup):
            _post(port, examples[i % len(examples)])
        rss = {"after_warmup": _rss_mb(server.pid)}
        statuses: dict[str, int] = {}
        latencies: list[float] = []
        quarter = max(1, args.requests // 4)
        began = time.perf_counter()
        with (
            ThreadPoolExecutor(args.clients) as pool,
            tqdm(total=args.requests, desc="requests", unit="req", disable=None) as bar,
        ):
            bodies = (examples[i % len(examples)] for i in range(args.requests))
            for i, (status, seconds) in enumerate(pool.map(lambda b: _post(port, b), bodies), 1):
                statuses[str(status)] = statuses.get(str(status), 0) + 1
                latencies.append(seconds)
                bar.update()
                if status != 200:
                    bar.set_postfix(errors=len(latencies) - statuses.get("200", 0))
                if i % quarter == 0:
                    rss[f"after_{i}"] = _rss_mb(server.pid)
        elapsed = time.perf_counter() - began
        rss["end"] = _rss_mb(server.pid)
    finally:
        server.terminate()
        server.wait(timeout=30)
    return {
        "benchmark": name,
        "examples": len(examples),
        "requests": args.requests,
        "clients": args.clients,
        "statuses": statuses,
        "errors": sum(n for s, n in statuses.items() if s != "200"),
        "server_ready_seconds": round(ready_seconds, 2),
        "latency_seconds": {
            "median": round(statistics.median(latencies), 4),
            "p95": round(_percentile(latencies, 0.95), 4),
            "p99": round(_percentile(latencies, 0.99), 4),
            "max": round(max(latencies), 4),
        },
        "requests_per_second": round(args.requests / elapsed, 2),
        "server_rss_mb": rss,
        "rss_growth_mb": round(rss["end"] - rss["after_warmup"], 1),
        # ONNX Runtime's arena grows until the largest batch shapes have been seen once;
        # growth after the first quarter is what a leak would show
        "rss_growth_after_first_quarter_mb": round(rss["end"] - rss[f"after_{quarter}"], 1),
        "cpus": os.cpu_count(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--benchmark", default="mushroom_dev30")
    parser.add_argument("--shared", default=os.environ.get("ENOKI_SHARED_DIR", "../shared"))
    parser.add_argument("--out", default=str(ROOT / "bench" / "loadtest.json"))
    args = parser.parse_args()
    result = run(args)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
    os.replace(tmp, out)
    print(json.dumps(result, indent=2, sort_keys=True))


if __name__ == "__main__":
    main()
