"""One process at a time migrates and seeds a database.

Two `gpumatch` commands started together on a fresh database (two `validate` runs, `serve` beside `rank`)
would both create Alembic's version table and one would fail ("table alembic_version already exists").
SQLite files take an exclusive `flock` on a lock file beside the database; Postgres takes a session-level
advisory lock. The second process waits, then finds the database at head and the seed already loaded.
"""

from __future__ import annotations

import fcntl
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import text

from app.db import make_engine, sqlite_path

# Database URLs whose lock this thread holds: the lock is re-entrant (setup_database holds it around the
# migration, which takes it too), since a second flock on a new file handle would wait for the first forever.
_LOCAL = threading.local()

# Advisory lock key for Postgres: any fixed 64-bit integer; this one spells "gpumatch" in ASCII.
PG_SETUP_LOCK_KEY = 0x6770756D61746368


@contextmanager
def setup_lock(database_url: str) -> Iterator[None]:
    """Hold the database's setup lock for the duration of the block (blocking until it is free)."""
    held: set[str] = _LOCAL.__dict__.setdefault("held", set())
    if database_url in held:
        yield
        return
    held.add(database_url)
    try:
        with _acquire(database_url):
            yield
    finally:
        held.discard(database_url)


@contextmanager
def _acquire(database_url: str) -> Iterator[None]:
    path = sqlite_path(database_url)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path.with_name(path.name + ".setup-lock"), "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
        return
    if database_url.startswith("postgresql"):
        engine = make_engine(database_url)
        try:
            with engine.connect() as connection:
                connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": PG_SETUP_LOCK_KEY})
                connection.commit()
                try:
                    yield
                finally:
                    connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": PG_SETUP_LOCK_KEY})
                    connection.commit()
        finally:
            engine.dispose()
        return
    yield
