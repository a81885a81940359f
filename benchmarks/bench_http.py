"""HTTP speed on ONE uvicorn worker (SQLite, seeded): rankings served a second over /healthz requests/s.

Both phases use the same concurrency and duration in the same run, so the machine's speed cancels out. The
concurrency is the server's ranking slots (GPUMATCH_MAX_CONCURRENT_RANKINGS, 2 x CPU cores by default) capped at 8:
beyond them the server sheds rankings at once with 503 + Retry-After, and a 503 is no ranking. Only rankings
answered 200 count as served; the shed ones are reported beside them (until 2026-12-06 they counted as requests,
and most of the rank requests/s this file reported were 503s).
Every rank request carries a different workload, so no memo of an earlier request helps: the warm-up's rankings
too, whose input lengths lie below the measured ones' (until 2026-12-07 both counted up from 1000, so the first
rankings measured, as many as the warm-up had served, repeated its questions, and a repeated question ranks from the
catalog snapshot's memo in about a twentieth of the time).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from benchmarks.load_driver import LoadResult, drive

MAX_CONCURRENCY = 8
DURATION_S = 10.0
MAX_REQUESTS = 200_000
WARM_UP_S = 2.0
WARM_UP_REQUESTS = 500  # its rankings ask input_len 500..999: none of them is asked again when measured
RANK_PATH = "/api/v1/rank/inference?limit=10&terms=false"


def healthz(_: int) -> tuple[str, str, str, dict[str, Any]]:
    return "healthz", "GET", "/healthz", {}


def rank(number: int) -> tuple[str, str, str, dict[str, Any]]:
    body = {"model": "llama-3.1-70b", "weight_dtype": "fp8", "input_len": 1000 + number}
    return "rank", "POST", RANK_PATH, {"json": body}


def warm_up_rank(number: int) -> tuple[str, str, str, dict[str, Any]]:
    """A warm-up ranking: input lengths below every measured one's (rank: 1000 + n)."""
    return rank(number - WARM_UP_REQUESTS)


def wait_for_api_reference(base_url: str) -> None:
    """Return once the server's start-up thread has built the API reference (/docs waits for it): that second or more
    of CPU would otherwise fall in the first phase measured (/healthz), on a busy machine most of it."""
    import httpx

    httpx.get(f"{base_url}/docs", timeout=120).raise_for_status()


def default_concurrency() -> int:
    """The server's ranking slots on this machine (Settings.ranking_slots), at most MAX_CONCURRENCY."""
    from app.config import Settings

    return min(MAX_CONCURRENCY, Settings().ranking_slots())


def measure(duration_s: float = DURATION_S, concurrency: int | None = None) -> dict[str, Any]:
    from app.cli.common import setup_database
    from app.config import PROJECT_ROOT
    from benchmarks.live_server import live_server

    concurrency = concurrency or default_concurrency()

    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'bench.db'}"
        setup_database(url, PROJECT_ROOT / "seed_data", quiet=True)
        with live_server(url, workers=1) as base_url:
            drive(base_url, warm_up_rank, concurrency, WARM_UP_S, WARM_UP_REQUESTS)  # imports, snapshot, caches
            wait_for_api_reference(base_url)
            health = drive(base_url, healthz, concurrency, duration_s, MAX_REQUESTS)
            ranked = drive(base_url, rank, concurrency, duration_s, MAX_REQUESTS)
    return _summary(health, ranked, concurrency, duration_s)


def _summary(health: LoadResult, ranked: LoadResult, concurrency: int, duration_s: float) -> dict[str, Any]:
    errors = health.errors + ranked.errors
    rank = ranked.by_class["rank"]
    served = len(rank.latencies_ms) - rank.shed - rank.errors
    served_rps = served / ranked.elapsed_s if ranked.elapsed_s else 0.0
    return {
        "concurrency": concurrency,
        "duration_s": duration_s,
        "errors": errors,
        "healthz_rps": health.requests_per_s,
        "rank_rps": served_rps,
        "rank_shed": rank.shed,
        "rank_served": served,
        "healthz_p50_ms": health.by_class["healthz"].p50_ms,
        "rank_p50_ms": rank.p50_ms,
        "ratio": served_rps / health.requests_per_s if health.requests_per_s else 0.0,
    }
