"""Tests build their own world: a temporary database, migrated and seeded, and an app over it.

Set GPUMATCH_TEST_DATABASE_URL to run the database-facing tests on another database (Postgres);
scripts/test.sh does that with a throwaway cluster.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from app.catalog.setup import migrate, seed
from app.config import PROJECT_ROOT, Settings, get_settings
from app.db import make_engine
from app.main import create_app

SEED_DIR = PROJECT_ROOT / "seed_data"
SHARED_VALIDATION = PROJECT_ROOT.parent / "shared" / "validation"


def _fresh_database_url(tmp_dir: Path, template: str | None = None) -> str:
    """A new empty database: a SQLite file, or a new schema-less database on the test Postgres (a copy of
    the Postgres database named `template`, when given)."""
    base = os.environ.get("GPUMATCH_TEST_DATABASE_URL")
    if not base:
        return f"sqlite:///{tmp_dir / f'gpumatch-{uuid.uuid4().hex[:8]}.db'}"
    name = f"gpumatch_{uuid.uuid4().hex[:12]}"
    admin = make_engine(base.rsplit("/", 1)[0] + "/postgres")
    with admin.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else "")))
    admin.dispose()
    return base.rsplit("/", 1)[0] + f"/{name}"


_TEMPLATE: list[Path] = []  # the migrated, seeded SQLite file every seeded test database is copied from


def _seeded_template() -> Path:
    """Migrate and seed once per test process (0.7 s); each test database is then a copy (10 ms)."""
    if not _TEMPLATE:
        folder = Path(tempfile.mkdtemp(prefix="gpumatch-template-"))
        atexit.register(shutil.rmtree, folder, True)
        path = folder / "template.db"
        _migrate_and_seed(f"sqlite:///{path}")
        _TEMPLATE.append(path)
    return _TEMPLATE[0]


_POSTGRES_TEMPLATE: list[str] = []  # the migrated, seeded Postgres database every seeded one is created from


def _postgres_template(tmp_dir: Path) -> str:
    """Migrate and seed once per test process; each seeded test database is then CREATE DATABASE ... TEMPLATE
    (a file-level copy: the same rows and sequence positions as seeding it again)."""
    if not _POSTGRES_TEMPLATE:
        url = _fresh_database_url(tmp_dir)
        _migrate_and_seed(url)
        _POSTGRES_TEMPLATE.append(url.rsplit("/", 1)[1])
    return _POSTGRES_TEMPLATE[0]


def _migrate_and_seed(url: str) -> None:
    migrate.upgrade(url)
    engine = make_engine(url)
    reports = seed.seed(engine, SEED_DIR)
    engine.dispose()
    assert not [e for r in reports for e in r.errors], "seed data must load cleanly"


def make_database(tmp_dir: Path, seeded: bool = True) -> str:
    """A migrated database of its own, seeded unless asked not to be. On SQLite a seeded one is a copy of
    the session's template (SQLite's online backup, so the copy is consistent); on Postgres it is created from
    the session's template database."""
    if seeded and os.environ.get("GPUMATCH_TEST_DATABASE_URL"):
        return _fresh_database_url(tmp_dir, template=_postgres_template(tmp_dir))
    url = _fresh_database_url(tmp_dir)
    if seeded:  # SQLite here: Postgres returned above
        source = sqlite3.connect(_seeded_template())
        target = sqlite3.connect(url.removeprefix("sqlite:///"))
        with target:
            source.backup(target)
        target.close()
        source.close()
        return url
    migrate.upgrade(url)
    return url


def settings_for(database_url: str, **overrides: object) -> Settings:
    # No start-up build of /docs' reference: ~1 s of CPU on a thread for each of the suite's dozens of apps (the
    # tests of the warm-up, tests/test_api_reference.py, turn it on).
    values: dict[str, object] = {"database_url": database_url, "warm_api_docs": False}
    values.update(overrides)
    return Settings(**values)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def seeded_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    """One migrated, seeded database shared by the read-only tests."""
    return make_database(tmp_path_factory.mktemp("db"))


@pytest.fixture
def fresh_url(tmp_path: Path) -> str:
    """A migrated, seeded database of this test's own, for tests that write."""
    return make_database(tmp_path)


@pytest.fixture
def database(fresh_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A fresh seeded database that the CLI (which reads GPUMATCH_DATABASE_URL) uses for this test."""
    monkeypatch.setenv("GPUMATCH_DATABASE_URL", fresh_url)
    get_settings.cache_clear()
    yield fresh_url
    get_settings.cache_clear()


@pytest.fixture(scope="session")
def app(seeded_url: str):  # type: ignore[no-untyped-def]
    """The app most tests share, for the whole session: POST /share's per-client limit (30 a minute by default) is off,
    since a quick suite posts more than that from one client (tests/test_rate_limit.py builds apps with it on)."""
    return create_app(settings_for(seeded_url, share_rate_limit=""))


@pytest.fixture(scope="session")
def client(app) -> Iterator[TestClient]:  # type: ignore[no-untyped-def]
    with TestClient(app) as test_client:
        yield test_client


@pytest.fixture
def shared_validation() -> Path:
    if not SHARED_VALIDATION.exists():
        pytest.skip("../shared/validation is not beside the repository")
    return SHARED_VALIDATION


# Test files whose every test is marked slow and whose collection alone costs seconds (schemathesis builds
# its tests from the OpenAPI document): not collected at all when the run deselects slow tests.
SLOW_TO_COLLECT = frozenset({"test_fuzz_api.py"})


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    if collection_path.name in SLOW_TO_COLLECT and "not slow" in (config.getoption("markexpr") or ""):
        return True
    return None


# The slow accuracy guards (a cold refit, leave-one-source-out refits of the public files) are CPU-bound and
# independent of everything else: each runs as a background job (tests/accuracy_jobs.py) from the end of
# collection, at a lower priority, while the other tests use the main process. The tests that read a job's
# result run last, so by then the job has had the whole run to finish.


class BackgroundJob:
    """One `python -m tests.accuracy_jobs NAME OUT` process and its result."""

    def __init__(self, name: str, folder: Path) -> None:
        self.name, self.out, self.log = name, folder / f"{name}.json", folder / f"{name}.log"
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "tests.accuracy_jobs", name, str(self.out)],
                cwd=PROJECT_ROOT,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: stop() also ends the refits' pool workers
            )

    def result(self) -> Any:
        if self.process.wait() != 0:
            tail = self.log.read_text(encoding="utf-8", errors="replace")[-4000:]
            pytest.fail(f"background job {self.name} exited {self.process.returncode}:\n{tail}", pytrace=False)
        return json.loads(self.out.read_text(encoding="utf-8"))

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait()


_JOBS: dict[str, BackgroundJob] = {}


def _start_job(name: str) -> BackgroundJob:
    if name not in _JOBS:
        folder = Path(tempfile.mkdtemp(prefix="gpumatch-jobs-"))
        atexit.register(shutil.rmtree, folder, True)
        _JOBS[name] = BackgroundJob(name, folder)
    return _JOBS[name]


def _jobs_of(item: pytest.Item) -> list[str]:
    return [name for marker in item.iter_markers("precompute") for name in marker.args]


# A test faces the database when it uses one of these fixtures or is marked `db` (it builds its own).
DATABASE_FIXTURES = frozenset({"seeded_url", "fresh_url", "database"})


def _faces_the_database(item: pytest.Item) -> bool:
    return (
        bool(DATABASE_FIXTURES.intersection(getattr(item, "fixturenames", ())))
        or item.get_closest_marker("db") is not None
    )


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On the test Postgres, only the database-facing tests run (the rest already ran on SQLite and would
    run the same code again); tests that wait for a background job run last (a stable sort)."""
    if os.environ.get("GPUMATCH_TEST_DATABASE_URL"):
        kept = [item for item in items if _faces_the_database(item)]
        config.hook.pytest_deselected(items=[item for item in items if not _faces_the_database(item)])
        items[:] = kept
    items.sort(key=lambda item: bool(_jobs_of(item)))


def pytest_collection_finish(session: pytest.Session) -> None:
    if session.config.getoption("collectonly") or not SHARED_VALIDATION.exists():
        return
    for item in session.items:
        for name in _jobs_of(item):
            _start_job(name)


def pytest_sessionfinish() -> None:
    for job in _JOBS.values():
        job.stop()


@pytest.fixture
def precomputed(request: pytest.FixtureRequest) -> Callable[[str], Any]:
    """precomputed(job): the result of one of the test's `precompute` jobs (started now if it was not yet)."""
    marked = _jobs_of(request.node)

    def result(name: str) -> Any:
        assert name in marked, f"mark the test @pytest.mark.precompute({name!r}) so the job starts early"
        return _start_job(name).result()

    return result
