"""The served app's collector settings side by side through real HTTP: one uvicorn worker per setting, each asked the
same rank API requests (bench_http's POST, every request a new workload) in blocks of BLOCK, the order turned each
block so the machine's drift falls on all; prints each one's server CPU ms per request and its RSS as it went.

    python -m benchmarks.gc_ab [--blocks 20] [--settings served,freeze_50k]

A setting is applied after the app's own start-up (which loads the catalog snapshot and sets app.main's threshold),
read by this file's factory from GPUMATCH_GC_AB; each one's collections are timed (gc.callbacks, thread CPU). Found by
speed29: in process, freezing the start-up objects with a 50,000 threshold cost 0.87-0.91x a ranking's CPU, and
speed16 saw gc.freeze() add nothing through the app. Through it, at app.main's 10,000 then, the collector took 7.8 % of
a request's CPU, freezing alone 7.3 %, 50,000 with freezing 3.2 %, 200,000 2.1 % (then adopted: app.main).
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import ExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import httpx

from benchmarks import bench_http

BLOCK = 100
CPU_PATH = "/__cpu"
SETTINGS: dict[str, tuple[bool, int | None]] = {  # name: (freeze the start-up objects, young threshold or as served)
    "served": (False, None),
    "freeze": (True, None),
    "10k": (False, 10_000),
    "50k": (False, 50_000),
    "freeze_50k": (True, 50_000),
    "100k": (False, 100_000),
    "200k": (False, 200_000),
}


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


_GC = {"began_s": 0.0, "gc_s": 0.0}


def _time_collections(phase: str, _: dict[str, int]) -> None:
    """gc.callbacks: the thread CPU of each collection, summed (a collection runs in the thread that triggered it)."""
    if phase == "start":
        _GC["began_s"] = time.thread_time()
    else:
        _GC["gc_s"] += time.thread_time() - _GC["began_s"]


def gc_app() -> Any:
    """uvicorn's factory (benchmarks.gc_ab:gc_app): the app, GPUMATCH_GC_AB's setting applied after its start-up."""
    from starlette.requests import Request
    from starlette.responses import JSONResponse

    from app.main import create_app

    freeze, young = SETTINGS[os.environ["GPUMATCH_GC_AB"]]
    app = create_app()
    served_lifespan = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(app_: Any) -> AsyncIterator[Any]:
        async with served_lifespan(app_) as state:
            if freeze:
                gc.freeze()
            if young:
                gc.set_threshold(young, *gc.get_threshold()[1:])
            yield state

    app.router.lifespan_context = lifespan
    gc.callbacks.append(_time_collections)

    async def cpu(_: Request) -> JSONResponse:
        cpu = {"process_s": time.process_time(), "gc_s": _GC["gc_s"], "rss_mb": _rss_mb()}
        return JSONResponse({**cpu, "threshold": gc.get_threshold()})

    app.router.add_route(CPU_PATH, cpu)
    return app


def _block(base_url: str, start: int, concurrency: int) -> tuple[float, float, float]:
    """CPU ms per request over one block of BLOCK rank requests, the collector's part of it, and the RSS after it."""
    from benchmarks.load_driver import drive

    before = httpx.get(base_url + CPU_PATH).json()
    result = drive(base_url, lambda n: bench_http.rank(start + n), concurrency, 600, BLOCK)
    after = httpx.get(base_url + CPU_PATH).json()
    assert result.errors == 0, result.by_class
    cpu_ms, gc_ms = ((after[key] - before[key]) * 1e3 / BLOCK for key in ("process_s", "gc_s"))
    return cpu_ms, gc_ms, after["rss_mb"]


def measure(names: list[str], blocks: int) -> dict[str, dict[str, list[float]]]:
    from app.cli.common import setup_database
    from app.config import PROJECT_ROOT
    from benchmarks.live_server import live_server
    from benchmarks.load_driver import drive

    concurrency = bench_http.default_concurrency()
    out: dict[str, dict[str, list[float]]] = {name: {"cpu_ms": [], "gc_ms": [], "rss_mb": []} for name in names}
    with tempfile.TemporaryDirectory() as folder, ExitStack() as stack:
        url = f"sqlite:///{Path(folder) / 'bench.db'}"
        setup_database(url, PROJECT_ROOT / "seed_data", quiet=True)
        servers = {}
        for name in names:
            os.environ["GPUMATCH_GC_AB"] = name
            servers[name] = stack.enter_context(live_server(url, workers=1, factory="benchmarks.gc_ab:gc_app"))
            drive(servers[name], bench_http.warm_up_rank, concurrency, 600, bench_http.WARM_UP_REQUESTS)
            bench_http.wait_for_api_reference(servers[name])
            out[name]["rss_mb"].append(httpx.get(servers[name] + CPU_PATH).json()["rss_mb"])
        for block in range(blocks):
            order = names[block % len(names) :] + names[: block % len(names)]
            for name in order:
                cpu_ms, gc_ms, rss_mb = _block(servers[name], block * BLOCK, concurrency)
                out[name]["cpu_ms"].append(cpu_ms)
                out[name]["gc_ms"].append(gc_ms)
                out[name]["rss_mb"].append(rss_mb)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=20)
    parser.add_argument("--settings", default="served,10k")
    args = parser.parse_args()
    names = args.settings.split(",")
    out = measure(names, args.blocks)
    base = out[names[0]]["cpu_ms"]
    print(
        f"| setting | CPU ms/request (median of {args.blocks} blocks) | ratio (median of blocks') "
        "| collector ms/request (share) | RSS MB: after warm-up, mid, end |"
    )
    print("|---|---:|---:|---:|---|")
    for name in names:
        cpu, gc_ms = statistics.median(out[name]["cpu_ms"]), sum(out[name]["gc_ms"]) / args.blocks
        ratio = statistics.median(new / old for new, old in zip(out[name]["cpu_ms"], base, strict=True))
        rss = out[name]["rss_mb"]
        print(
            f"| {name} | {cpu:.2f} | {ratio:.3f} | {gc_ms:.2f} ({gc_ms / statistics.mean(out[name]['cpu_ms']):.1%}) "
            f"| {rss[0]:.0f}, {rss[len(rss) // 2]:.0f}, {rss[-1]:.0f} |"
        )
    print({name: [round(v, 1) for v in out[name]["cpu_ms"]] for name in names})


if __name__ == "__main__":
    main()
