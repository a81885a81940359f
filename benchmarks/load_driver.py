"""A bounded asyncio + httpx load driver shared by `make load` and `make bench`.

Closed loop: `concurrency` clients each send their next request as soon as the last one answered,
until `duration_s` has passed or `max_requests` were sent, whichever comes first.
"""

from __future__ import annotations

import asyncio
import itertools
import statistics
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

# A request factory gets a running number and returns (endpoint class, method, path, kwargs for httpx).
RequestFactory = Callable[[int], tuple[str, str, str, dict[str, Any]]]


@dataclass
class ClassStats:
    latencies_ms: list[float] = field(default_factory=list)
    errors: int = 0
    shed: int = 0  # 503 + Retry-After: the server refused work it had no slot for (not a failure)
    sample_error: str = ""

    def percentile_ms(self, q: float) -> float:
        if not self.latencies_ms:
            return 0.0
        ordered = sorted(self.latencies_ms)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    @property
    def p50_ms(self) -> float:
        return statistics.median(self.latencies_ms) if self.latencies_ms else 0.0


@dataclass
class LoadResult:
    elapsed_s: float
    by_class: dict[str, ClassStats]

    @property
    def requests(self) -> int:
        return sum(len(s.latencies_ms) for s in self.by_class.values())

    @property
    def errors(self) -> int:
        return sum(s.errors for s in self.by_class.values())

    @property
    def requests_per_s(self) -> float:
        return self.requests / self.elapsed_s if self.elapsed_s else 0.0


async def _client_loop(
    client: httpx.AsyncClient,
    make: RequestFactory,
    counter: itertools.count,
    deadline: float,
    max_requests: int,
    stats: dict[str, ClassStats],
) -> None:
    while time.monotonic() < deadline:
        number = next(counter)
        if number >= max_requests:
            return
        kind, method, path, kwargs = make(number)
        began = time.perf_counter()
        try:
            response = await client.request(method, path, **kwargs)
            ok, detail = response.status_code < 400, f"{response.status_code} {method} {path}"
            if response.status_code == 503 and "retry-after" in response.headers:
                stats[kind].shed += 1
                ok = True
        except httpx.HTTPError as exc:
            ok, detail = False, f"{type(exc).__name__} {method} {path}"
        entry = stats[kind]
        entry.latencies_ms.append((time.perf_counter() - began) * 1000)
        if not ok:
            entry.errors += 1
            entry.sample_error = entry.sample_error or detail


async def run_load(
    base_url: str, make: RequestFactory, concurrency: int, duration_s: float, max_requests: int
) -> LoadResult:
    stats: dict[str, ClassStats] = defaultdict(ClassStats)
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=base_url, limits=limits, timeout=60) as client:
        counter = itertools.count()
        began = time.monotonic()
        deadline = began + duration_s
        await asyncio.gather(
            *(_client_loop(client, make, counter, deadline, max_requests, stats) for _ in range(concurrency))
        )
        elapsed_s = time.monotonic() - began
    return LoadResult(elapsed_s=elapsed_s, by_class=dict(stats))


def drive(base_url: str, make: RequestFactory, concurrency: int, duration_s: float, max_requests: int) -> LoadResult:
    return asyncio.run(run_load(base_url, make, concurrency, duration_s, max_requests))
