"""Results page render time: the full HTML of `/` through the app (ranking, charts, template), over the
seeded catalog's offers and over 100x distinct sellers (every offer copied 99 times under new provider ids,
as bench_rank does for the engine alone). Target (issue 12): 100x within 2x of 1x, because a page builds
only the rows it shows. A view sorted by a column (`&sort=ttft`) reads that column's value of every feasible option
(the ranking's sort_value: from its estimate, offer or cost, no option built) to sort them: it grows with the
offers, so it is measured beside them and not held to that target.

Every request carries a different workload (input_len / seq_len), so no memo of an earlier request helps.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from benchmarks.bench_data import bench_snapshot
from benchmarks.bench_rank import OFFER_MULTIPLIER

RUNS = 30
WARM_UP = 3  # requests before timing: templates compiled, the snapshot's offer memos built
PATHS = {
    "inference": "/?phase=inference&model=llama-3.1-70b&weight_dtype=fp8&input_len={n}",
    "training": "/?phase=training&model=llama-3.1-8b&seq_len={n}",
    "inference sorted by TTFT": "/?phase=inference&model=llama-3.1-70b&weight_dtype=fp8&input_len={n}&sort=ttft",
}
# Off the defaults (no redirect) and off bench_rank's workloads (no estimate cached by an earlier part).
FIRST = {"inference": 3001, "training": 5001, "inference sorted by TTFT": 7001}
HELD_TO_TARGET = {"inference": True, "training": True, "inference sorted by TTFT": False}


@contextmanager
def page_client(snapshot: Any) -> Iterator[Any]:
    """A TestClient over the app (a seeded temporary database) whose catalog snapshot is `snapshot`."""
    from fastapi.testclient import TestClient

    from app.cli.common import setup_database
    from app.config import PROJECT_ROOT, Settings
    from app.main import create_app
    from app.web.deps import get_snapshot

    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'bench.db'}"
        setup_database(url, PROJECT_ROOT / "seed_data", quiet=True)
        app = create_app(Settings(database_url=url))  # type: ignore[call-arg]
        app.dependency_overrides[get_snapshot] = lambda: snapshot
        with TestClient(app) as client:
            yield client
        app.state.engine.dispose()


def median_ms(client: Any, phase: str, start: int, runs: int = RUNS) -> tuple[float, int]:
    """Median wall ms of GET <results page> over `runs` distinct workloads, and the last page's size."""
    timings_ms, size = [], 0
    for n in range(FIRST[phase] + start, FIRST[phase] + start + runs):
        began = time.perf_counter()
        response = client.get(PATHS[phase].format(n=n))
        timings_ms.append((time.perf_counter() - began) * 1000)
        assert response.status_code == 200, response.text[:500]
        size = len(response.content)
    return statistics.median(timings_ms), size


def measure() -> list[dict[str, Any]]:
    small, big = bench_snapshot(1), bench_snapshot(OFFER_MULTIPLIER)
    rows = []
    with page_client(small) as small_client, page_client(big) as big_client:
        for phase in PATHS:
            median_ms(small_client, phase, start=10_000, runs=WARM_UP)
            median_ms(big_client, phase, start=10_000, runs=WARM_UP)
            base_ms, base_bytes = median_ms(small_client, phase, start=0)
            big_ms, big_bytes = median_ms(big_client, phase, start=2 * RUNS)
            rows.append(
                {
                    "phase": phase,
                    "offers": len(small.offers),
                    "median_ms": base_ms,
                    "page_kb": base_bytes / 1024,
                    "offers_big": len(big.offers),
                    "median_ms_big": big_ms,
                    "page_kb_big": big_bytes / 1024,
                    "ratio": big_ms / base_ms,
                    "held_to_target": HELD_TO_TARGET[phase],
                }
            )
    return rows


if __name__ == "__main__":
    for row in measure():
        print(row)
