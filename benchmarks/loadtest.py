"""`make load`: a bounded mixed load on a running server, per endpoint class, into docs/PERFORMANCE.md.

Closed loop of `--clients` concurrent clients for `--duration-s` seconds, never more than
`--max-requests` requests. Exit status 1 when any request failed (status >= 400 or transport error).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from benchmarks.load_driver import LoadResult, drive

PAGES = ("/", "/?phase=inference&model=llama-3.1-70b&weight_dtype=fp8", "/gpus", "/gpus/H100-SXM")
CATALOG = ("/api/v1/gpus", "/api/v1/offers?gpu=H100-SXM")
RANK_QUERY = "?limit=10&terms=false"
# Out of every 10 requests: 3 pages, 2 catalog API, 3 rank API, 1 new share link, 1 saved one opened.
MIX = ("page", "catalog", "rank", "page", "catalog", "rank", "page", "share_create", "rank", "share_open")


def _rank(number: int) -> tuple[str, str, str, dict[str, Any]]:
    if number % 2:
        body = {"model": "llama-3.1-8b", "input_len": 500 + number % 3000, "output_len": 200 + number % 500}
        return "rank API", "POST", f"/api/v1/rank/inference{RANK_QUERY}", {"json": body}
    body = {"model": "llama-3.1-8b", "seq_len": 2048 + 16 * (number % 200)}
    return "rank API", "POST", f"/api/v1/rank/training{RANK_QUERY}", {"json": body}


def request_mix(share_paths: list[str]):  # type: ignore[no-untyped-def]
    def make(number: int) -> tuple[str, str, str, dict[str, Any]]:
        kind = MIX[number % len(MIX)]
        if kind == "page":
            return "pages", "GET", PAGES[number // len(MIX) % len(PAGES)], {}
        if kind == "catalog":
            return "catalog API", "GET", CATALOG[number // len(MIX) % len(CATALOG)], {}
        if kind == "share_open":
            return "share open", "GET", share_paths[number // len(MIX) % len(share_paths)], {}
        if kind == "share_create":
            return "share create", "POST", "/share", {"data": _share_form(number), "headers": JSON_ACCEPT}
        return _rank(number)

    return make


JSON_ACCEPT = {"accept": "application/json"}


def _share_form(number: int) -> dict[str, str]:
    # A different question per number, so every save writes a new row.
    query = f"phase=inference&model=llama-3.1-70b&weight_dtype=fp8&input_len={1500 + number}"
    return {"path": "/", "query": query}


def create_shares(base_url: str, count: int = 4) -> list[str]:
    """Share links made before the timed load, for the "share open" requests to replay."""
    paths = []
    for i in range(count):
        response = httpx.post(f"{base_url}/share", data=_share_form(-1 - i), headers=JSON_ACCEPT, timeout=60)
        response.raise_for_status()
        paths.append(response.json()["url"])
    return paths


def table(result: LoadResult) -> list[str]:
    lines = [
        "| endpoint class | requests | requests/s | p50 ms | p99 ms | shed (503) | errors |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for kind, stats in sorted(result.by_class.items()):
        count = len(stats.latencies_ms)
        lines.append(
            f"| {kind} | {count} | {count / result.elapsed_s:.1f} | {stats.p50_ms:.1f} | "
            f"{stats.percentile_ms(0.99):.1f} | {stats.shed} | {stats.errors} |"
        )
    shed = sum(s.shed for s in result.by_class.values())
    lines.append(f"| **all** | {result.requests} | {result.requests_per_s:.1f} | | | {shed} | {result.errors} |")
    return lines


def report(result: LoadResult, args: argparse.Namespace) -> str:
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    machine = f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"
    errors = [f"- {k}: {s.errors} errors, e.g. `{s.sample_error}`" for k, s in result.by_class.items() if s.errors]
    return "\n".join(
        [
            "# Performance under load (`make load`)",
            "",
            f"- date: {when}",
            f"- machine: {machine} (load generator on the same machine)",
            f"- server: uvicorn, {args.workers} workers, 127.0.0.1; database: {args.database}",
            f"- load: {args.clients} concurrent clients, {result.elapsed_s:.1f} s (cap {args.max_requests} requests)",
            "- mix per 10 requests: 3 pages (`/`, a results page, `/gpus`, `/gpus/H100-SXM`), 2 catalog API "
            "(`/api/v1/gpus`, `/api/v1/offers?gpu=H100-SXM`), 3 rank API (inference and training, each a "
            f"different workload, `{RANK_QUERY}`), 1 new share link (POST /share), "
            "1 saved link opened (GET /s/…)",
            "",
            *table(result),
            "",
            *(errors or ["No errors."]),
            "",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.loadtest", description=__doc__)
    parser.add_argument("base_url", help="e.g. http://127.0.0.1:8000 (loopback only)")
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--duration-s", type=float, default=30.0)
    parser.add_argument("--max-requests", type=int, default=20_000)
    parser.add_argument("--workers", type=int, default=2, help="for the report only")
    parser.add_argument("--database", default="?", help="for the report only")
    parser.add_argument("--out", help="write the markdown report here")
    args = parser.parse_args(argv)
    if not args.base_url.startswith(("http://127.0.0.1", "http://localhost")):
        parser.error("load runs against loopback only")
    result = drive(
        args.base_url, request_mix(create_shares(args.base_url)), args.clients, args.duration_s, args.max_requests
    )
    text = report(result, args)
    print(text)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    return 1 if result.errors else 0


if __name__ == "__main__":
    sys.exit(main())
