"""Liveness under saturation: /healthz latency while `--heavy-clients` clients send heavy rankings.

The heavy clients run a closed loop of large training rankings (a 7B pretrain over up to 512 GPUs,
the slowest golden question); one more client polls /healthz every 20 ms. Reported: /healthz p50 and
p99, and how many heavy requests were served or shed (503 + Retry-After, GPUMATCH_MAX_CONCURRENT_RANKINGS).
Target (issue 11): /healthz p99 under 100 ms with 60 heavy clients. Exit 1 when it is missed or a
request failed.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import httpx

from benchmarks.load_driver import ClassStats, run_load

HEAVY_BODY = {"model": "llama-2-7b", "method": "pretrain", "total_tokens": 1e12, "max_gpus": 512}
HEALTHZ_P99_TARGET_MS = 100.0  # issue 11's "done when"
POLL_INTERVAL_S = 0.02


def heavy(_: int) -> tuple[str, str, str, dict[str, Any]]:
    return "heavy ranking", "POST", "/api/v1/rank/training?limit=5&terms=false", {"json": HEAVY_BODY}


def poll_healthz(base_url: str, duration_s: float) -> tuple[list[float], int]:
    """In its own process (a plain blocking client), so the 60 heavy clients' event loop in this one
    does not add its own scheduling delay to the /healthz latencies."""
    latencies_ms, errors = [], 0
    deadline = time.monotonic() + duration_s
    with httpx.Client(base_url=base_url, timeout=30) as client:
        while time.monotonic() < deadline:
            began = time.perf_counter()
            response = client.get("/healthz")
            latencies_ms.append((time.perf_counter() - began) * 1000)
            errors += response.status_code != 200
            time.sleep(POLL_INTERVAL_S)
    return latencies_ms, errors


def measure(base_url: str, heavy_clients: int, duration_s: float) -> tuple[ClassStats, ClassStats]:
    with ProcessPoolExecutor(max_workers=1) as pool:
        polled = pool.submit(poll_healthz, base_url, duration_s)
        load = asyncio.run(run_load(base_url, heavy, heavy_clients, duration_s, 1_000_000))
        latencies_ms, errors = polled.result()
    health = ClassStats(latencies_ms=latencies_ms, errors=errors)
    return health, load.by_class.get("heavy ranking", ClassStats())


def report(health: ClassStats, ranked: ClassStats, heavy_clients: int, duration_s: float) -> str:
    p99 = health.percentile_ms(0.99)
    served = len(ranked.latencies_ms) - ranked.shed - ranked.errors
    verdict = "meets" if p99 < HEALTHZ_P99_TARGET_MS else "MISSES"
    return "\n".join(
        [
            f"## Liveness under {heavy_clients} concurrent heavy rankings ({duration_s:g} s)",
            "",
            "| /healthz requests | p50 ms | p99 ms | heavy served | heavy shed (503) | heavy p50 ms | errors |",
            "|---:|---:|---:|---:|---:|---:|---:|",
            f"| {len(health.latencies_ms)} | {health.p50_ms:.1f} | {p99:.1f} | {served} | {ranked.shed}"
            f" | {ranked.p50_ms:.0f} | {health.errors + ranked.errors} |",
            "",
            f"/healthz p99 {p99:.1f} ms {verdict} the {HEALTHZ_P99_TARGET_MS:g} ms target."
            + (f" Heavy errors, e.g. `{ranked.sample_error}`." if ranked.errors else ""),
            "",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.liveness", description=__doc__)
    parser.add_argument("base_url", help="e.g. http://127.0.0.1:8000 (loopback only)")
    parser.add_argument("--heavy-clients", type=int, default=60)
    parser.add_argument("--duration-s", type=float, default=15.0)
    parser.add_argument("--append", help="append the markdown section to this file")
    args = parser.parse_args(argv)
    if not args.base_url.startswith(("http://127.0.0.1", "http://localhost")):
        parser.error("load runs against loopback only")
    health, ranked = measure(args.base_url, args.heavy_clients, args.duration_s)
    text = report(health, ranked, args.heavy_clients, args.duration_s)
    print(text)
    if args.append:
        with Path(args.append).open("a", encoding="utf-8") as out:
            out.write("\n" + text)
    failed = health.errors or ranked.errors or health.percentile_ms(0.99) >= HEALTHZ_P99_TARGET_MS
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
