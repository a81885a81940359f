"""A migration that adds columns, checked as a deployment meets it: a seeded database one revision behind is
upgraded (existing rows take the server defaults), then the seed load that setup_database runs after every upgrade
fills them from seed_data."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import inspect, text

from app.catalog.setup import migrate, seed
from app.catalog.setup.seed import FileReport
from app.db import make_engine
from tests.conftest import SEED_DIR, make_database


def upgrade_then_seed(
    tmp_path: Path, previous: str, table: str, column: str, query: str, params: list[dict[str, Any]]
) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]], dict[str, FileReport]]:
    """(rows of `query` for each of `params` after the upgrade, the same after the seed load, the seed's reports);
    asserts `column` of `table` is absent at `previous` and present after."""
    url = make_database(tmp_path, seeded=True)
    migrate.downgrade(url, previous)
    engine = make_engine(url)
    assert column not in {c["name"] for c in inspect(engine).get_columns(table)}
    engine.dispose()
    migrate.upgrade(url)
    engine = make_engine(url)
    with engine.connect() as connection:
        upgraded = [tuple(connection.execute(text(query), p).one()) for p in params]
    reports = {r.file: r for r in seed.seed(engine, SEED_DIR)}
    with engine.connect() as connection:
        seeded = [tuple(connection.execute(text(query), p).one()) for p in params]
    engine.dispose()
    return upgraded, seeded, reports
