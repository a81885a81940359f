"""/docs render time in one process: the first request (FastAPI builds the OpenAPI schema, then the reference's
structure and HTML), later requests (the cached HTML, the host put in), and later requests with the cache dropped
before each (what every request would cost without it). Run: python -m benchmarks.bench_api_docs"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

RUNS = 20


def _ms(client: Any, before: Any = None) -> float:
    if before is not None:
        before()
    began = time.perf_counter()
    response = client.get("/docs", headers={"accept-encoding": "identity"})  # the render, not the gzip
    assert response.status_code == 200
    return (time.perf_counter() - began) * 1000


def measure() -> dict[str, float]:
    from fastapi.testclient import TestClient

    from app.config import Settings
    from app.main import create_app

    with tempfile.TemporaryDirectory() as folder:
        app = create_app(Settings(database_url=f"sqlite:///{Path(folder) / 'empty.db'}"))  # type: ignore[call-arg]
        with TestClient(app) as client:
            first = _ms(client)
            cached = statistics.median(_ms(client) for _ in range(RUNS))
            uncached = statistics.median(
                _ms(client, lambda: app.state.__delattr__("api_reference")) for _ in range(RUNS)
            )
            size_kb = len(client.get("/docs", headers={"accept-encoding": "identity"}).content) / 1024
        app.state.engine.dispose()
    return {"first_ms": first, "cached_ms": cached, "uncached_ms": uncached, "page_kb": size_kb}


def main() -> None:
    r = measure()
    print(
        f"/docs: first {r['first_ms']:.0f} ms (schema + reference built); cached median {r['cached_ms']:.1f} ms; "
        f"rebuilt every request {r['uncached_ms']:.1f} ms ({r['uncached_ms'] / r['cached_ms']:.1f}x); "
        f"{r['page_kb']:.0f} KB of HTML"
    )


if __name__ == "__main__":
    main()
