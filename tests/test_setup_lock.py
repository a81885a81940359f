"""Two processes on one fresh database: the second waits for the first's migration and seed, and both succeed."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import func
from sqlmodel import Session, select

from app.catalog.revision import current_revision
from app.catalog.setup.setup_lock import setup_lock
from app.config import PROJECT_ROOT
from app.db import make_engine
from app.models.hardware import Offer, PriceHistory
from tests.conftest import _fresh_database_url, make_database

pytestmark = pytest.mark.db  # each test builds its own database


def _env(url: str) -> dict[str, str]:
    return {**os.environ, "GPUMATCH_DATABASE_URL": url}


def test_a_migration_waits_while_another_process_holds_the_setup_lock(tmp_path: Path) -> None:
    url = make_database(tmp_path, seeded=False)
    code = (
        "import sys, time; from app.catalog.setup import migrate; print('imported', flush=True); "
        "migrate.upgrade(sys.argv[1]); print(time.time())"
    )
    with setup_lock(url):
        waiting = subprocess.Popen(
            [sys.executable, "-c", code, url], cwd=PROJECT_ROOT, stdout=subprocess.PIPE, text=True
        )
        assert waiting.stdout is not None
        assert waiting.stdout.readline().strip() == "imported"  # the next thing it does is take the lock
        deadline = time.time() + 6.0  # a no-op migration takes well under a second, even on a loaded box
        while time.time() < deadline and waiting.poll() is None:
            time.sleep(0.1)
        released_at = time.time()
    out, _ = waiting.communicate(timeout=120)
    assert waiting.returncode == 0
    assert float(out.strip()) >= released_at, "the migration ran while another process held the lock"


def test_the_lock_is_reentrant_in_one_thread(tmp_path: Path) -> None:
    url = make_database(tmp_path, seeded=False)
    with setup_lock(url), setup_lock(url):  # setup_database holds it around migrate.upgrade, which takes it too
        pass


def test_two_commands_started_together_on_a_fresh_database_both_succeed(tmp_path: Path) -> None:
    url = _fresh_database_url(tmp_path)  # nothing migrated yet
    command = [sys.executable, "-m", "app.cli.main", "db", "seed"]
    runs = [
        subprocess.Popen(command, cwd=PROJECT_ROOT, env=_env(url), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(2)
    ]
    results = [run.communicate(timeout=180) for run in runs]
    for run, (_, err) in zip(runs, results, strict=True):
        assert run.returncode == 0, err.decode()[-2000:]
    assert _counts(url) == _counts(make_database(tmp_path)), "seeded twice: rows or revisions beyond one seed's"


def _counts(url: str) -> tuple[int, ...]:
    """Offers, price-history rows and the catalog revision: a second seed that wrote anything shows in one of them."""
    engine = make_engine(url)
    with Session(engine) as session:
        counts = tuple(session.exec(select(func.count()).select_from(table)).one() for table in (Offer, PriceHistory))
        revision = current_revision(session)
    engine.dispose()
    return (*counts, revision)
