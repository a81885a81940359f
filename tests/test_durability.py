"""Durability: SQLite pragmas on a live connection, share links that outlive the process, and
concurrent share writes (threads and processes against a real server) that lose nothing."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from app.db import make_engine
from app.main import create_app
from benchmarks.live_server import live_server
from tests.conftest import settings_for

SHARE_COUNT = 24
JSON = {"accept": "application/json"}


def share_query(i: int) -> str:
    # A different prompt length per request, so every share is a different slug.
    return f"phase=inference&model=llama-3.1-70b&weight_dtype=fp8&input_len={1000 + i}"


def post_share(base_url: str, i: int) -> str:
    response = httpx.post(f"{base_url}/share", data={"path": "/", "query": share_query(i)}, headers=JSON, timeout=60)
    assert response.status_code == 201, response.text
    return response.json()["slug"]


def test_sqlite_connection_runs_in_wal_with_a_busy_timeout(fresh_url: str) -> None:
    if not fresh_url.startswith("sqlite"):
        pytest.skip("SQLite pragmas")
    engine = make_engine(fresh_url)
    with engine.connect() as connection:
        assert connection.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert connection.execute(text("PRAGMA busy_timeout")).scalar() == 30000
        assert connection.execute(text("PRAGMA foreign_keys")).scalar() == 1
    engine.dispose()


def test_share_link_survives_a_restart(fresh_url: str) -> None:
    first = create_app(settings_for(fresh_url))
    with TestClient(first) as client:
        slug = client.post("/share", data={"path": "/", "query": share_query(0)}, headers=JSON).json()["slug"]
        before = client.get(f"/s/{slug}.json").json()
    first.state.engine.dispose()
    second = create_app(settings_for(fresh_url))  # a new process would see exactly this
    with TestClient(second) as client:
        after = client.get(f"/s/{slug}.json")
    second.state.engine.dispose()
    assert after.status_code == 200
    assert after.json()["options"] == before["options"]


def _assert_every_slug_resolves(base_url: str, slugs: list[str]) -> None:
    assert len(set(slugs)) == SHARE_COUNT, "distinct queries must give distinct slugs"
    with httpx.Client(base_url=base_url, timeout=60) as client:
        missing = [s for s in slugs if client.get(f"/s/{s}.json").status_code != 200]
    assert not missing


@pytest.mark.slow  # starts a live server: ~6 s
def test_concurrent_share_writes_from_threads_lose_nothing(fresh_url: str) -> None:
    with live_server(fresh_url) as base_url, ThreadPoolExecutor(max_workers=12) as pool:
        slugs = list(pool.map(lambda i: post_share(base_url, i), range(SHARE_COUNT)))
        _assert_every_slug_resolves(base_url, slugs)


@pytest.mark.slow  # a live server with two workers and four client processes: ~12 s
def test_concurrent_share_writes_from_processes_to_two_workers_lose_nothing(fresh_url: str) -> None:
    # Two server workers write the same database; four client processes post at once.
    with live_server(fresh_url, workers=2) as base_url, ProcessPoolExecutor(max_workers=4) as pool:
        slugs = list(pool.map(post_share, [base_url] * SHARE_COUNT, range(SHARE_COUNT)))
        _assert_every_slug_resolves(base_url, slugs)
