"""The database engine and the request-scoped session dependency."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import ArgumentError, NoSuchModuleError
from sqlmodel import Session, create_engine

NOT_A_URL = "not a database URL (e.g. sqlite:///var/gpumatch.db or postgresql+psycopg://user:pw@host/db)"


class DatabaseUrlError(ValueError):
    """A database URL SQLAlchemy cannot open: not a URL, or a dialect or driver that is not installed."""


def make_engine(database_url: str) -> Engine:
    try:
        return _engine(database_url)
    except NoSuchModuleError as exc:  # an ArgumentError too: caught first
        raise DatabaseUrlError(f"no such database dialect: {exc}") from None
    except ArgumentError:  # the URL itself is never echoed: it may hold a password
        raise DatabaseUrlError(NOT_A_URL) from None
    except ImportError as exc:  # create_engine imports the dialect's driver
        raise DatabaseUrlError(f"its driver is not installed: no module named {exc.name!r}") from None


def _engine(database_url: str) -> Engine:
    if database_url.startswith("sqlite"):
        _ensure_sqlite_dir(database_url)
        engine = create_engine(database_url, connect_args={"check_same_thread": False, "timeout": 30})
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    return create_engine(database_url, pool_pre_ping=True, pool_size=10, max_overflow=20)


def sqlite_path(database_url: str) -> Path | None:
    """The database file of a SQLite URL; None for in-memory databases and other dialects."""
    if not database_url.startswith("sqlite"):
        return None
    path = database_url.split("///", 1)[-1]
    return Path(path) if path and path != ":memory:" else None


def _ensure_sqlite_dir(database_url: str) -> None:
    path = sqlite_path(database_url)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)


def _sqlite_pragmas(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
    # WAL lets readers run beside the one writer; busy_timeout makes writers queue instead of failing.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def get_session(request: Request) -> Iterator[Session]:
    with Session(request.app.state.engine) as session:
        yield session


SessionDep = Annotated[Session, Depends(get_session)]
