"""/healthz and /readyz give the same counts, fresh after another process (the CLI) imports prices: /healthz kept
saying 187 offers and the old newest date for more than 8 s while /readyz already said 188."""

from __future__ import annotations

import time
from datetime import date
from pathlib import Path

from fastapi.testclient import TestClient

from app.catalog.snapshot import SnapshotCache
from app.cli.main import main
from app.main import create_app
from tests.conftest import settings_for
from tests.test_cli_prices import ROW, write_csv

NAMES = ("gpus", "offers", "offers_dated", "newest_price_as_of")


def _import_one_offer(tmp_path: Path, name: str) -> None:
    """A new offer dated after every seeded one, written by the CLI through an engine of its own."""
    row = {**ROW, "instance_type": name, "as_of": date.today().isoformat()}
    assert main(["prices", "import", str(write_csv(tmp_path / f"{name}.csv", [row]))]) == 0


def test_both_health_checks_count_an_import_by_another_process_at_once(database: str, tmp_path: Path) -> None:
    app = create_app(settings_for(database))
    with TestClient(app) as client:
        before = client.get("/readyz").json()
        _import_one_offer(tmp_path, "elsewhere-1")
        ready, live = client.get("/readyz").json(), client.get("/healthz").json()
        assert ready["offers"] == before["offers"] + 1 and ready["newest_price_as_of"] == date.today().isoformat()
        assert {n: live[n] for n in NAMES} == {n: ready[n] for n in NAMES}


def test_healthz_alone_rechecks_the_catalog_when_a_recheck_is_due(database: str, tmp_path: Path) -> None:
    """No ranking or /readyz in between: /healthz itself rechecks (off the event loop) once the interval has passed,
    here at once."""
    app = create_app(settings_for(database))
    with TestClient(app) as client:
        app.state.snapshots = SnapshotCache(app.state.engine, recheck_s=0.0)
        before = client.get("/readyz").json()
        _import_one_offer(tmp_path, "elsewhere-2")
        # /healthz waits HEALTH_RECHECK_WAIT_S for the recheck it starts, then answers from memory while the recheck
        # finishes on its thread: on a loaded machine (the suite's two database runs at once) the reload can take
        # longer, so /healthz alone is asked again until its own recheck lands
        deadline = time.monotonic() + 30
        live = client.get("/healthz").json()
        while live["offers"] == before["offers"] and time.monotonic() < deadline:
            time.sleep(0.05)
            live = client.get("/healthz").json()
        assert live["offers"] == before["offers"] + 1 and live["newest_price_as_of"] == date.today().isoformat()
        assert live["database"] == "not checked (see /readyz)"


def test_a_ranking_reads_the_snapshot_in_the_event_loop_only_while_no_recheck_is_due(
    database: str, tmp_path: Path
) -> None:
    """get_snapshot answers from memory (SnapshotCache.current) until a recheck is due, then rechecks on a worker
    thread: a ranking after another process's import still sees it once the interval has passed (here at once)."""
    app = create_app(settings_for(database))
    with TestClient(app) as client:
        app.state.snapshots = cache = SnapshotCache(app.state.engine, recheck_s=0.0)
        assert cache.current() is None, "never loaded: a recheck is due"
        body = {"providers": ["runpod"], "gpus": ["H100-SXM"], "model": "llama-3.1-8b"}
        before = client.post("/api/v1/rank/inference?limit=1", json=body).json()["options"][0]
        _import_one_offer(tmp_path, "elsewhere-3")  # H100-SXM at runpod for $0.50 an hour, under the seeded ones
        after = client.post("/api/v1/rank/inference?limit=1", json=body).json()["options"][0]
        assert before["usd_per_gpu_hour"] > 0.5 and after["usd_per_gpu_hour"] == 0.5
        cache._recheck_s = 3600.0  # no recheck due: the snapshot is read without the database
        assert cache.current() is cache.get()
