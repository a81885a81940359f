"""Where one uvicorn worker's CPU goes per rank API request (bench_http's POST, each a new workload): the ranking
(`ranking.rank`), the rest of the answer (`ranking.rank_payload` around it: the shown rows built and made plain, the
body) and the rest of the request (HTTP, middleware, validation, the threadpool hop, JSON, gzip), beside a /healthz
request's whole CPU.

    python -m benchmarks.rank_api_split [--duration-s 10] [--rounds 3]

Found by speed25: bench_http's 92.6 rankings/s at p50 42.6 ms (4 clients) looked like ~20 ms a request outside the
ranking; it is 4 requests queued on one GIL-bound worker, and the ranking is most of each request's CPU. The server
runs this tree's app with those two functions wrapped to add up their thread CPU, read at /__cpu with the process's.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from benchmarks import bench_http

CPU_PATH = "/__cpu"
_SUMS = {"rank_s": 0.0, "payload_s": 0.0}


def _thread_cpu(function: Callable[..., Any], key: str) -> Callable[..., Any]:
    def timed(*args: Any, **kwargs: Any) -> Any:
        began = time.thread_time()
        try:
            return function(*args, **kwargs)
        finally:
            _SUMS[key] += time.thread_time() - began

    return timed


def timed_app() -> Any:
    """uvicorn's factory (benchmarks.rank_api_split:timed_app): the app, its ranking and answer timed."""
    from starlette.requests import Request
    from starlette.responses import JSONResponse

    from app.main import create_app
    from app.service.rank import ranking

    ranking.rank = _thread_cpu(ranking.rank, "rank_s")  # rank_payload calls it through the module
    ranking.rank_payload = _thread_cpu(ranking.rank_payload, "payload_s")  # as the API's handler does
    app = create_app()

    async def cpu(_: Request) -> JSONResponse:
        return JSONResponse({**_SUMS, "process_s": time.process_time()})

    app.router.add_route(CPU_PATH, cpu)
    return app


def _phase(base_url: str, make: Any, concurrency: int, duration_s: float) -> dict[str, float]:
    from benchmarks.load_driver import drive

    before = httpx.get(base_url + CPU_PATH).json()
    result = drive(base_url, make, concurrency, duration_s, bench_http.MAX_REQUESTS)
    after = httpx.get(base_url + CPU_PATH).json()
    ms = {key: (after[key] - before[key]) * 1e3 / max(result.requests, 1) for key in after}
    return {
        "per_s": result.requests_per_s,
        "errors": result.errors,
        "cpu_ms": ms["process_s"],
        "rank_ms": ms["rank_s"],
        "answer_ms": ms["payload_s"] - ms["rank_s"],
        "request_ms": ms["process_s"] - ms["payload_s"],
    }


def measure(duration_s: float, rounds: int) -> list[tuple[str, dict[str, float]]]:
    from app.cli.common import setup_database
    from app.config import PROJECT_ROOT
    from benchmarks.live_server import live_server

    concurrency = bench_http.default_concurrency()
    phases = []
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'bench.db'}"
        setup_database(url, PROJECT_ROOT / "seed_data", quiet=True)
        with live_server(url, workers=1, factory="benchmarks.rank_api_split:timed_app") as base_url:
            phases.append(("warm-up", _phase(base_url, bench_http.warm_up_rank, concurrency, bench_http.WARM_UP_S)))
            bench_http.wait_for_api_reference(base_url)
            phases.append(("healthz", _phase(base_url, bench_http.healthz, concurrency, duration_s)))
            for round_ in range(rounds):  # each round's workloads new: 3000 input lengths apart
                make = _offset(round_ * 3000)
                phases.append((f"rank, round {round_ + 1}", _phase(base_url, make, concurrency, duration_s)))
    return phases[1:]


def _offset(start: int) -> Callable[[int], tuple[str, str, str, dict[str, Any]]]:
    return lambda number: bench_http.rank(start + number)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration-s", type=float, default=bench_http.DURATION_S)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print("| phase | requests/s | server CPU ms/request | ranking | rest of answer | rest of request | errors |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, p in measure(args.duration_s, args.rounds):
        print(
            f"| {name} | {p['per_s']:.1f} | {p['cpu_ms']:.2f} | {p['rank_ms']:.2f} | {p['answer_ms']:.2f} "
            f"| {p['request_ms']:.2f} | {p['errors']:.0f} |"
        )


if __name__ == "__main__":
    main()
